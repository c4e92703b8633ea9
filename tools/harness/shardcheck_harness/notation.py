"""notation.py — the golden inputs in torch's notation, parsed without torch.

What it is for: a vendor's adapter reads meshes ("2x2" or [2, 2]), rank maps,
shapes and placement strings exactly as the golden files write them and as
PyTorch 2.13 prints them: `R`, `S(0)`, `P(sum)`, `_S(0, 2)` (a _StridedShard
with split factor 2), comma-separated (`S(0),_S(0, 2)`), or in the trace-state
form whose `[i]` gives the shard order (`S(0)[1]S(0)[0]R`).  As torch takes
them, `P(op)` holds any reduce-op string (`P(prod)` parses; only the eight c10d
names, in any case, reduce: c10d_reduce_op) and a shard dim may be negative
until normalize() counts it from the end by the tensor's rank.  Nothing here
needs torch, so a port for another framework or device can use it.

How it is tested: tools/harness/tests/test_partial.py (round trips, errors,
coordinates of non-arange rank maps), tools/harness/tests/test_torch_input.py
(reduce-op strings and negative dims against real torch and the CLI) and through
the partial-port example in tools/harness/examples, which parses every rng-offsets
case with it.
"""

import math
import re
from collections import namedtuple

__all__ = ["Placement", "parse_placement", "parse_placements", "format_placements",
           "parse_mesh", "parse_shape", "rank_map", "coordinates", "field", "normalize",
           "c10d_reduce_op", "C10D_REDUCE_OPS"]

# P(op): torch's Partial takes any string (placement_types.py, 2.13), so an op is any run of
# characters without ( ) [ ] or quotes, or a quoted string (P('a b')); P() is Partial() = sum.
_OP = r"""P\(\s*(?:'([^']*)'|"([^"]*)"|([^()\[\]'"]*?))\s*\)"""
_OP_ITEM = r"""P\(\s*(?:'[^']*'|"[^"]*"|[^()\[\]'"]*?)\s*\)"""
_TOKEN = re.compile(r"_S\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)|S\(\s*(-?\d+)\s*\)|" + _OP + "|R")
_TRACE_ITEM = re.compile(r"\s*(_S\(\s*-?\d+\s*,\s*-?\d+\s*\)|S\(\s*-?\d+\s*\)|" + _OP_ITEM
                         + r"|R)(?:\[(\d+)\])?\s*")
# the eight reduce ops c10d knows (funcol lowercases the string before it asks)
C10D_REDUCE_OPS = ("sum", "avg", "min", "max", "product", "band", "bor", "bxor")


class Placement(namedtuple("Placement", "kind dim split_factor reduce_op")):
    """One placement: kind "R", "S", "_S" or "P"; dim for S and _S;
    split_factor for _S; reduce_op for P.  str() prints torch's notation."""

    __slots__ = ()

    @property
    def is_shard(self):
        """True for Shard and _StridedShard (what torch's RNG tracker shards on)."""
        return self.kind in ("S", "_S")

    def __str__(self):
        if self.kind == "S":
            return "S(%d)" % self.dim
        if self.kind == "_S":
            return "_S(%d, %d)" % (self.dim, self.split_factor)
        if self.kind == "P":
            return "P(%s)" % self.reduce_op
        return "R"


def parse_placement(tok):
    """One token ("S(0)", "_S(0, 2)", "P(sum)", "R") -> Placement; ValueError otherwise."""
    m = _TOKEN.fullmatch(tok.strip()) if isinstance(tok, str) else None
    if not m:
        raise ValueError("unparsable placement %r (expected R, S(d), _S(d, sf) or P(op))" % (tok,))
    if m.group(1) is not None:
        return Placement("_S", int(m.group(1)), int(m.group(2)), None)
    if m.group(3) is not None:
        return Placement("S", int(m.group(3)), None, None)
    if tok.strip().startswith("P"):
        quoted = m.group(4) if m.group(4) is not None else m.group(5)
        op = quoted if quoted is not None else (m.group(6) or "sum")
        if len(op) > 31:
            raise ValueError("reduce op %r longer than 31 characters (shardcheck's limit)" % op)
        return Placement("P", None, None, op)
    return Placement("R", None, None, None)


def normalize(placements, ndim):
    """Negative shard dims counted from the end, as torch 2.13's distribute_tensor,
    DTensor.from_local and DTensor.redistribute do (_api.py:547-558, :971-990, :718-725);
    ValueError naming torch's refusal where a dim is out of range after that."""
    out = []
    for i, p in enumerate(placements):
        if p.is_shard and p.dim >= ndim:  # torch.chunk's IndexError (placement_types.py:317)
            raise ValueError("placement %d '%s': shard dim %d out of range for a %d-d tensor"
                             % (i, p, p.dim, ndim))
        if p.is_shard and p.dim < 0:
            if p.dim + ndim < 0 and p.kind == "_S":
                raise ValueError("placement %d '%s': shard dim %d out of range for a %d-d tensor "
                                 "(torch 2.13 normalises it to %d, then redistribute raises "
                                 "IndexError: list index out of range)"
                                 % (i, p, p.dim, ndim, p.dim + ndim))
            if p.dim + ndim < 0:
                raise ValueError("placement %d '%s': shard dim %d out of range for a %d-d tensor "
                                 "(torch 2.13 normalises it to %d, then raises AssertionError: "
                                 "Shard dim %d in placements ... must be normalized)"
                                 % (i, p, p.dim, ndim, p.dim + ndim, p.dim + ndim))
            p = p._replace(dim=p.dim + ndim)
        out.append(p)
    return out


def c10d_reduce_op(p):
    """The op a Partial's all_reduce / reduce_scatter runs (funcol lowercases the string),
    or None where torch raises RuntimeError "Unrecognized reduce_op"."""
    op = p.reduce_op.lower()
    return op if op in C10D_REDUCE_OPS else None


def _split_commas(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + [cur]


def parse_placements(v):
    """Placements as the golden files give them -> (list of Placement, order).

    order is None for the comma form; for the trace form it is, per mesh dim,
    the shard's position in the shard order (`S(0)[1]S(0)[0]` -> [1, 0]) or
    None where no [i] is written.  A list of tokens is accepted too."""
    if isinstance(v, (list, tuple)):
        return [parse_placement(str(t)) for t in v], None
    if not isinstance(v, str) or not v.strip():
        raise ValueError("placements must be a non-empty string or a list, got %r" % (v,))
    s = v.strip()
    if "[" not in s:
        return [parse_placement(t) for t in _split_commas(s)], None
    items, pos = [], 0
    while pos < len(s):
        m = _TRACE_ITEM.match(s, pos)
        if not m or m.end() == pos:
            raise ValueError("unparsable placements %r at character %d" % (v, pos))
        items.append(m)
        pos = m.end()
    return ([parse_placement(m.group(1)) for m in items],
            [int(m.group(2)) if m.group(2) is not None else None for m in items])


def format_placements(placements, order=None):
    """Inverse of parse_placements: the comma form, or the trace form when an order is given."""
    if order is None or all(o is None for o in order):
        return ",".join(str(p) for p in placements)
    return "".join(str(p) + ("[%d]" % o if o is not None else "")
                   for p, o in zip(placements, order))


def _int_list(v, what):
    if isinstance(v, bool):
        raise ValueError("unparsable %s %r" % (what, v))
    if isinstance(v, int):
        return [v]
    if isinstance(v, (list, tuple)):
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            raise ValueError("unparsable %s %r: integers expected" % (what, v))
        return list(v)
    if isinstance(v, str):
        s = v.strip()
        if not s:
            return []
        try:
            return [int(p) for p in re.split(r"[x,]", s)]
        except ValueError:
            raise ValueError("unparsable %s %r" % (what, v)) from None
    raise ValueError("unparsable %s %r" % (what, v))


def parse_mesh(v):
    """Mesh sizes: [4, 2] or "4x2" -> [4, 2]; every size must be >= 1."""
    mesh = _int_list(v, "mesh")
    if not mesh or any(n < 1 for n in mesh):
        raise ValueError("mesh %r: needs one or more sizes >= 1" % (v,))
    return mesh


def parse_shape(v):
    """Tensor shape: [13, 2], "13,2" or "" (a 0-d tensor) -> list; sizes >= 0."""
    shape = _int_list(v, "shape")
    if any(n < 0 for n in shape):
        raise ValueError("shape %r: negative size" % (v,))
    return shape


def rank_map(group, test=None):
    """The group's rankMap (row-major mesh positions -> global ranks), or arange."""
    mesh = parse_mesh(field(group, test or {}, "mesh"))
    ranks = field(group, test or {}, "rankMap", "ranks", default=None)
    n = math.prod(mesh)
    if ranks is None:
        return list(range(n))
    ranks = _int_list(ranks, "rank map")
    if len(ranks) != n or sorted(ranks) != list(range(n)):
        raise ValueError("rank map %r is not a permutation of 0..%d" % (ranks, n - 1))
    return ranks


def coordinates(mesh, ranks=None):
    """Per global rank, its mesh coordinate (a tuple), as DeviceMesh computes it
    from the rank map: position of the rank in the row-major map, unravelled."""
    mesh = parse_mesh(mesh)
    ranks = list(range(math.prod(mesh))) if ranks is None else list(ranks)
    out = [None] * len(ranks)
    for pos, r in enumerate(ranks):
        coord, rest = [], pos
        for n in reversed(mesh):
            coord.append(rest % n)
            rest //= n
        out[r] = tuple(reversed(coord))
    return out


def field(group, test, *names, default=KeyError):
    """The first of names found in the test, then in its group (golden files
    put shared parameters on the group and per-case inputs on the test)."""
    for src in (test, group):
        for n in names:
            if isinstance(src, dict) and n in src:
                return src[n]
    if default is KeyError:
        raise KeyError("none of %s in the test or its group" % (names,))
    return default
