"""torch_pins.py — every row of conformance/torch_pins/*.json asked of the built shardcheck.

Usage: torch_pins.py SHARDCHECK FILE.json...   (TAP on stdout; exit 1 when a row disagrees)

A row's expected value is what a PyTorch test asserts (conformance/torch_pins/README.md), never
shardcheck's own output; tools/harness/tests/test_torch_pins.py puts the same rows to real
torch.  A malformed row is a failure (named), not a skip: a table that cannot be read checks
nothing.
"""

import json
import subprocess
import sys

REQUIRED = ("id", "test", "asserts", "cli")
WANTS = ("want", "want_error", "want_contains", "want_lacks")


def dig(value, path):
    """The value at a dotted path ("ranks.0.localShape"); KeyError/IndexError name the step.
    A "*" step maps the rest of the path over a list ("ranks.0.steps.*.ops": every step's)."""
    if not path:
        return value
    steps = str(path).split(".")
    for i, step in enumerate(steps):
        if step == "*":
            if not isinstance(value, list):
                raise KeyError(f"'*' of a {type(value).__name__}")
            return [dig(v, ".".join(steps[i + 1:])) for v in value]
        if isinstance(value, list):
            value = value[int(step)]
        elif isinstance(value, dict):
            if step not in value:
                raise KeyError(f"no '{step}' in {sorted(value)}")
            value = value[step]
        else:
            raise KeyError(f"'{step}' of a {type(value).__name__}")
    return value


def row_problem(row):
    """Why a row cannot be checked as written, or None."""
    for k in REQUIRED:
        if k not in row:
            return f"row lacks '{k}'"
    if sum(k in row for k in WANTS) != 1:
        return "row needs exactly one of " + ", ".join(f"'{k}'" for k in WANTS)
    if ("torch" in row) == ("no_torch" in row):
        return "row needs exactly one of 'torch' and 'no_torch'"
    if "want_error" in row and row.get("exit", 0) == 0:
        return "a 'want_error' row must name its nonzero 'exit'"
    return None


def check_row(exe, row):
    """None when shardcheck answers the row as torch's test does, else what differs."""
    p = subprocess.run([exe] + row["cli"], capture_output=True, text=True, timeout=120)
    want_exit = row.get("exit", 0)
    if p.returncode != want_exit:
        return f"exit {p.returncode}, want {want_exit}; stderr: {p.stderr.strip()[:300]}"
    if "want_error" in row:
        return None if row["want_error"] in p.stderr else \
            f"stderr lacks {row['want_error']!r}: {p.stderr.strip()[:300]}"
    try:
        got = dig(json.loads(p.stdout), row.get("get"))
    except (ValueError, KeyError, IndexError) as e:
        return f"cannot read '{row.get('get')}' from the output: {e}; stdout: {p.stdout[:300]}"
    return agree(got, row)


def op_text(ops):
    """A list of op overloads as plan's "ops" names them ("aten.view.default",
    "aten.split.Tensor"; lists of lists, one per step, are read in order), written one a line
    as torch's DebugMode.debug_string() names each op (OpOverload.__qualname__: "aten::view",
    "aten::split.Tensor"), so a torch test's assertIn/assertNotIn on that string can be put to
    the list; None when some element is not such a name."""
    flat = []
    for op in ops:
        flat.extend(op if isinstance(op, list) else [op])
    lines = []
    for op in flat:
        parts = op.split(".") if isinstance(op, str) else []
        if len(parts) != 3 or not all(parts):
            return None
        ns, name, overload = parts
        lines.append(f"{ns}::{name}" + ("" if overload == "default" else f".{overload}"))
    return "\n".join(lines)


def agree(got, row):
    """None when a value read off an answer is what the row wants, else what differs:
    'want' exactly; 'want_contains' as a part of the text (a torch test's assertRaisesRegex
    pins a part of the message, the answer names the whole; or its assertIn on a
    DebugMode.debug_string()); 'want_lacks' as a text the value must not hold (assertNotIn).
    For the last two a list of op names is read as DebugMode writes it (op_text)."""
    for key, hold in (("want_contains", True), ("want_lacks", False)):
        if key not in row:
            continue
        text = op_text(got) if isinstance(got, list) else got
        if isinstance(text, str) and (row[key] in text) == hold:
            return None
        return f"got {json.dumps(got)}, want a text {'holding' if hold else 'without'} " \
            f"{row[key]!r}"
    return None if got == row["want"] else f"got {json.dumps(got)}, want {json.dumps(row['want'])}"


def main(argv):
    if len(argv) < 3:
        print("usage: torch_pins.py SHARDCHECK FILE.json...", file=sys.stderr)
        return 2
    exe, n, failed = argv[1], 0, 0
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        ids = set()
        for row in doc.get("rows", []):
            n += 1
            name = f"{path.rsplit('/', 1)[-1]}: {row.get('id')} ({row.get('test')})"
            why = row_problem(row) or (f"duplicate id" if row.get("id") in ids else None)
            ids.add(row.get("id"))
            if why is None:
                why = check_row(exe, row)
            if why is None:
                print(f"ok {n} - {name}")
            else:
                failed += 1
                print(f"not ok {n} - {name}\n#   {why}")
        if not doc.get("rows"):
            n += 1
            failed += 1
            print(f"not ok {n} - {path}: no rows")
    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
