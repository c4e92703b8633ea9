#!/usr/bin/env python3
"""run.py — check golden families against an independent implementation.

What it is for: `python tools/harness/run.py` recomputes every case of every
golden family that has an adapter with torch 2.13 (or jax) itself, prints the
counts per family and every mismatch, and ends with `N passed, N failed`
(`, N skipped`).  A vendor runs their own Python implementation over the same
files with `--adapter path/to/their_adapter.py` (contract: README.md), and
`--results DIR` writes its answers in the results form `shardcheck verify` and
`shardcheck certify --candidate` read; `--waivers FILE` reports a failure a known deviation
explains as WAIVED (waivers.py).  Exit 0 only when nothing failed; 2 on bad usage.

How it is tested: tools/harness/tests/test_harness.py runs it as a subprocess on
hand-made golden files with right and wrong adapters; test_results.py checks --results,
test_waivers.py --waivers.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harnesslib as hl  # noqa: E402
import waivers as wv  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="run.py",
        description="Check golden/<family>/*.json against an adapter (torch 2.13 by default).")
    p.add_argument("--golden", default=hl.DEFAULT_GOLDEN, metavar="DIR",
                   help="golden directory (default: %(default)s)")
    p.add_argument("--family", action="append", default=[], metavar="F",
                   help="family to check (repeatable; default: every family with an adapter "
                        "and golden files)")
    p.add_argument("--adapter", action="append", default=[], metavar="MODULE",
                   help="adapter module name or .py path (repeatable; default: the torch/jax "
                        "adapters in tools/harness/adapters)")
    p.add_argument("--max-cases", type=int, default=None, metavar="N",
                   help="check at most N cases per family")
    p.add_argument("--stride", action="append", default=[], metavar="[FAMILY=]K",
                   help="check every K-th test only (all families, or FAMILY=K for one; "
                        "repeatable) — a deterministic sample for time-boxed runs")
    p.add_argument("--tcid", action="append", type=int, default=[], metavar="ID",
                   help="check only these tcIds (repeatable)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.add_argument("--no-schema", action="store_true",
                   help="skip JSON Schema validation of the golden files")
    p.add_argument("--max-report", type=int, default=None, metavar="N",
                   help="print at most N mismatch lines per family (default: all)")
    p.add_argument("--coverage", action="append", default=[], metavar="MODULE",
                   help="measure line and branch coverage of MODULE (a module or package name, "
                        "a .py file or a directory: your implementation) while the corpus runs; "
                        "repeatable; report on stderr, lcov tracefile with --lcov")
    p.add_argument("--results", default=None, metavar="DIR",
                   help="also write each family's answers to DIR/FAMILY.json, the results form "
                        "`shardcheck verify --candidate` and `shardcheck certify --candidate` "
                        "read (a whole family: not with --max-cases, --stride or --tcid)")
    p.add_argument("--torch-version", default=None, metavar="V",
                   help="the torch release whose answers to check (one `shardcheck registry "
                        "releases` lists, or its newest patch): a test's byVersion entry for "
                        "it, else its top-level answer.  Default: $SHARDCHECK_TORCH_VERSION, "
                        "else the release of the torch this python imports, else the pinned "
                        "one (the registry's)")
    p.add_argument("--waivers", default=None, metavar="FILE",
                   help="known deviations (README, Known deviations: waivers; backend "
                        "\"harness\"): a failure a waiver explains is reported WAIVED with its "
                        "reason and counted apart, never as a pass")
    p.add_argument("--lcov", default=None, metavar="FILE",
                   help="with --coverage: write an lcov tracefile (genhtml renders it; "
                        "default: vendor-coverage.info)")
    a = p.parse_args(argv)
    if a.max_cases is not None and a.max_cases < 0:
        p.error("--max-cases must be >= 0")
    a.strides = {}
    for spec in a.stride:
        fam, _, k = spec.rpartition("=")
        if not k.isdigit() or int(k) < 1:
            p.error("--stride %r: expected K or FAMILY=K with K >= 1" % spec)
        a.strides[fam or "*"] = int(k)
    return a


def pick_adapters(args):
    """Map family -> adapter module; exits 2 on an unusable adapter."""
    specs = args.adapter or hl.default_adapter_specs()
    by_family = {}
    for spec in specs:
        try:
            mod = hl.load_adapter(spec)
        except Exception as e:  # noqa: BLE001
            if args.adapter:
                print("run.py: cannot load adapter %s: %s: %s" % (spec, type(e).__name__, e),
                      file=sys.stderr)
                sys.exit(2)
            # A shipped adapter that does not import (e.g. jax missing) only
            # makes its family unavailable; say so.
            print("# adapter %s unavailable: %s: %s" % (spec, type(e).__name__, e),
                  file=sys.stderr)
            continue
        by_family.setdefault(mod.FAMILY, mod)
    return by_family


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if not os.path.isdir(args.golden):
        print("run.py: golden directory %s not found" % args.golden, file=sys.stderr)
        return 2
    if args.lcov and not args.coverage:
        print("run.py: --lcov needs --coverage MODULE", file=sys.stderr)
        return 2
    if args.coverage:   # fail before the corpus runs, not after
        out = args.lcov or "vendor-coverage.info"
        d = os.path.dirname(os.path.abspath(out))
        why = "no such directory %s" % d if not os.path.isdir(d) else \
            "a directory" if os.path.isdir(out) else \
            "directory %s is not writable" % d if not os.access(d, os.W_OK) else None
        if why:
            print("run.py: --lcov %s: cannot write: %s" % (out, why), file=sys.stderr)
            return 2
    if args.results and check_results_dir(args) != 0:
        return 2
    release, why = pick_release(args)
    if release is None:
        print("run.py: %s" % why, file=sys.stderr)
        return 2
    waivers = None
    if args.waivers is not None:   # checked against the corpus before the first case
        try:
            waivers = wv.Waivers(args.waivers, args.golden, release)
        except wv.WaiverError as e:
            print("run.py: %s" % e, file=sys.stderr)
            return 2
    cov = start_coverage(args.coverage) if args.coverage else None
    if cov == 2:
        return 2
    adapters = pick_adapters(args)
    if args.family:
        families = args.family
        for f in families:
            if f not in adapters:
                print("run.py: no adapter for family %s (have: %s)"
                      % (f, ", ".join(sorted(adapters)) or "none"), file=sys.stderr)
                return 2
            if not hl.family_files(args.golden, f):
                print("run.py: no golden files in %s" % os.path.join(args.golden, f),
                      file=sys.stderr)
                return 2
    else:
        families = [f for f in sorted(adapters) if hl.family_files(args.golden, f)]
        if not families:
            print("run.py: no family in %s has both golden files and an adapter (adapters: %s)"
                  % (args.golden, ", ".join(sorted(adapters)) or "none"), file=sys.stderr)
            return 2

    results = []
    t0 = time.perf_counter()
    if not args.json:
        print("# judged against torch %s (%s)" % (release, why))
    for fam in families:
        stride = args.strides.get(fam, args.strides.get("*", 1))
        res = hl.run_family(fam, adapters[fam], args.golden, args.max_cases,
                            schema=not args.no_schema, tcids=set(args.tcid) or None,
                            stride=stride, record=bool(args.results), release=release)
        for note in res.version_notes:
            print("# note: %s" % note, file=sys.stderr)
        if stride > 1 and not args.json:
            print("%s: sampled every %d-th test (--stride)" % (fam, stride))
        if waivers is not None:
            wv.apply(waivers, res)
        results.append(res)
        if not args.json:
            report_text(res, adapters[fam], args.max_report)
        if args.results and write_results(args, res, adapters[fam]) != 0:
            return 2
    passed = sum(r.passed for r in results)
    failed = sum(r.failed for r in results)
    skipped = sum(r.skipped for r in results)
    not_supported = sum(r.not_supported for r in results)
    waived = sum(r.waived for r in results)
    for note in waivers.notes() if waivers is not None else []:
        print(note, file=sys.stderr if args.json else sys.stdout)
    if args.json:
        print(json.dumps({"families": [r.as_dict() for r in results], "torch": release,
                          "passed": passed, "failed": failed, "skipped": skipped,
                          "not_supported": not_supported, "waived": waived,
                          "seconds": round(time.perf_counter() - t0, 3)}))
    else:
        line = "%d passed, %d failed" % (passed, failed)
        if skipped:
            line += ", %d skipped" % skipped
        if not_supported:
            line += ", %d not supported" % not_supported
        if waivers is not None:
            line += ", %d waived" % waived
        print(line)
    if cov is not None and finish_coverage(cov, args) != 0:
        return 2
    return 0 if failed == 0 else 1


def imported_torch():
    """The version of the torch this python imports, or None (no torch: a vendor's adapter)."""
    try:
        import torch
    except Exception:  # noqa: BLE001 — any import failure means "no torch here"
        return None
    return torch.__version__


def pick_release(args):
    """(release, why it was chosen) or (None, error).  A new user running the harness with
    some torch expects that torch's answers: --torch-version, else SHARDCHECK_TORCH_VERSION,
    else the imported torch's release, else the pinned one.  The shipped torch adapters
    compute with the imported torch, so judging them against another release is refused."""
    spec, why = args.torch_version, "--torch-version"
    if spec is None and os.environ.get("SHARDCHECK_TORCH_VERSION"):
        spec, why = os.environ["SHARDCHECK_TORCH_VERSION"], "SHARDCHECK_TORCH_VERSION"
    # torch is imported (seconds) only where its release matters: when none is asked for, and
    # when the shipped torch adapters compute; a bad release is refused before it
    try:
        release = hl.parse_release(spec) if spec is not None else None
        have = imported_torch() if spec is None or not args.adapter else None
        if spec is None and have is not None:
            spec, why = hl.torch_minor(have), "the torch this python imports, %s" % have
            release = hl.parse_release(spec)
        elif spec is None:
            release, why = hl.pinned_release(), "the pinned default"
    except hl.ReleaseError as e:
        return None, str(e) + (" (%s)" % why if why != "--torch-version" else "")
    if have is not None and not args.adapter and hl.torch_minor(have) != release:
        return None, ("torch %s: the torch adapters compute with the torch this python imports, "
                      "%s; run the harness with that release's python (tools/scripts/torch_matrix.sh "
                      "makes one per release)" % (release, have))
    args.release = release
    return release, why


def check_results_dir(args):
    """--results: a whole family, into a directory that can be written (made when missing);
    0, or 2 after a message, before the corpus runs."""
    cut = [o for o, v in (("--max-cases", args.max_cases is not None), ("--stride", args.stride),
                          ("--tcid", args.tcid)) if v]
    if cut:
        print("run.py: --results writes whole families (verify and certify count a case left "
              "out as missing): not with %s" % ", ".join(cut), file=sys.stderr)
        return 2
    try:
        os.makedirs(args.results, exist_ok=True)
    except OSError as e:
        print("run.py: --results %s: cannot create: %s" % (args.results, e.strerror or e),
              file=sys.stderr)
        return 2
    if not os.access(args.results, os.W_OK):
        print("run.py: --results %s: cannot write: not writable" % args.results, file=sys.stderr)
        return 2
    return 0


def write_results(args, res, adapter):
    """DIR/FAMILY.json from the family's recorded answers; 0, or 2 after a message."""
    path = os.path.join(args.results, res.family + ".json")
    try:
        with open(path, "w") as fh:
            made_by = hl.producer(adapter, ["run.py"] + sys.argv[1:])
            json.dump(hl.results_document(res.family, adapter, res.entries, args.release, made_by),
                      fh, separators=(",", ":"))
            fh.write("\n")
    except OSError as e:
        print("run.py: --results %s: cannot write: %s" % (path, e.strerror or e), file=sys.stderr)
        return 2
    if res.skipped:
        print("run.py: %s: %d cases the adapter skipped (NotImplementedError) are written as "
              "{\"tcId\", \"notSupported\": reason}: verify and certify report them NotSupported"
              % (res.family, res.skipped), file=sys.stderr)
    if not args.json:
        print("# %s: results written to %s (%d entries): shardcheck certify --out PKG "
              "--candidate %s" % (res.family, path, len(res.entries), path))
    return 0


def start_coverage(specs):
    """A started coverage.Coverage (branch mode) over the vendor's modules, or 2."""
    try:
        import coverage
    except ImportError:
        print("run.py: --coverage needs coverage.py (pip install coverage==7.17.3; "
              "tools/harness/setup_venv.sh installs it)", file=sys.stderr)
        return 2
    include, source, pkgs = [], [], []
    for spec in specs:
        if os.path.isfile(spec):
            include.append(os.path.abspath(spec))
        elif os.path.isdir(spec):
            source.append(os.path.abspath(spec))
        elif spec.replace(".", "").replace("_", "").isalnum():
            pkgs.append(spec)
        else:
            print("run.py: --coverage %s: no such file, directory or module name" % spec,
                  file=sys.stderr)
            return 2
    kw = {"branch": True, "data_file": None}
    if include:
        kw["include"] = include
    if source or pkgs:
        kw["source"] = source or None
        kw["source_pkgs"] = pkgs or None
        if include:   # include is ignored next to source: measure files as directories' members
            kw.pop("include")
            kw["source"] = (source or []) + [os.path.dirname(f) for f in include]
    cov = coverage.Coverage(**kw)
    cov.start()
    cov._shc_specs = specs
    return cov


def finish_coverage(cov, args):
    """Stop measuring; text report (missing lines and partial branches) on
    stderr, lcov tracefile to --lcov.  Returns 0, or 2 after a message."""
    import coverage
    cov.stop()
    out = args.lcov or "vendor-coverage.info"
    try:
        print("# coverage of %s (line and branch, driven by the corpus):"
              % ", ".join(cov._shc_specs), file=sys.stderr)
        total = cov.report(file=sys.stderr, show_missing=True)
        cov.lcov_report(outfile=out)
    except coverage.exceptions.NoDataError:
        print("run.py: --coverage %s: none of its code ran (is it what the adapter imports?)"
              % ", ".join(cov._shc_specs), file=sys.stderr)
        return 2
    except OSError as e:
        print("run.py: --lcov %s: cannot write: %s" % (out, e.strerror or e), file=sys.stderr)
        return 2
    print("# coverage: %.1f%% of lines and branches; lcov tracefile %s" % (total, out),
          file=sys.stderr)
    return 0


def report_text(res, adapter, max_report):
    shown = res.mismatches if max_report is None else res.mismatches[:max_report]
    for m in shown:
        print(str(m))
    if len(shown) < len(res.mismatches):
        print("# %d more mismatches of %s not shown" % (len(res.mismatches) - len(shown),
                                                        res.family))
    for tcid, note in res.notes:  # passed, with something to say (GpuOnly within tolerance)
        print("NOTE %s tcId=%s: %s" % (res.family, tcid, note))
    for tcid, why, detail in res.waived_cases:  # never a pass, never hidden
        print("WAIVED %s tcId=%s: waived: %s; Fail: %s" % (res.family, tcid, why, detail))
    for tcid, why in res.waived_passed:
        print("NOTE %s tcId=%s: waived (%s), but passed: the deviation may be fixed, and the "
              "waiver stale" % (res.family, tcid, why))
    rate = res.rank_values / res.compute_seconds if res.compute_seconds > 0 else 0.0
    print("# %s (%s, %d files): %d passed, %d failed, %d skipped; %d per-rank values in "
          "%.2f s of adapter time (%.0f/s)"
          % (res.family, adapter.__name__, res.files, res.passed, res.failed, res.skipped,
             res.rank_values, res.compute_seconds, rate))
    for reason, n in sorted(res.skip_reasons.items()):
        print("#   skipped %d: %s" % (n, reason))
    if res.not_supported_fields:
        # A partial adapter (FIELDS): never a failure, always named.
        print("#   NotSupported fields (cases): %s; %d cases NotSupported as a whole, "
              "%d passed on their claimed fields only"
              % (", ".join("%s (%d)" % kv for kv in sorted(res.not_supported_fields.items())),
                 res.not_supported, res.partial))
    if res.rejections:
        print("#   invalid cases rejected: %s" % rejection_line(res.rejections))


def rejection_line(rej):
    """"12 by torch, 1 by flag StricterThanTorch (torch accepts it: checked), ..." """
    words = {"torch": "by torch", "adapter": "by the adapter",
             "flag " + hl.STRICTER: "by flag %s (torch accepts it: checked)" % hl.STRICTER,
             "flag " + hl.NOT_TORCH_INPUT: "by flag %s (no torch object to reject)"
             % hl.NOT_TORCH_INPUT}
    order = ["torch", "flag " + hl.STRICTER, "flag " + hl.NOT_TORCH_INPUT, "adapter"]
    parts = ["%d %s" % (rej[k], words[k]) for k in order if rej.get(k)]
    parts += ["%d %s" % (n, k) for k, n in sorted(rej.items()) if k not in order]
    return ", ".join(parts)

if __name__ == "__main__":
    sys.exit(main())
