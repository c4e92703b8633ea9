"""waivers.py — known deviations for the harness (`run.py --waivers FILE`), the file `shardcheck
run`, `verify` and `certify` read (README, "Known deviations: waivers"; tools/run/waivers.c is
the C reader, and this one keeps its rules and its messages).

A waiver names its cases (tcIds, or every case carrying a flag; "match" alone: the whole
family) and, with "match", the cause: a failing case is waived only when "Fail: DETAIL"
matches the regular expression (the harness's DETAIL is its mismatch lines, "field=F rank=R:
expected E got G").  A waived case is reported WAIVED with the reason and counted apart,
never as a pass; a case a waiver without "match" or with "tcIds" names that passes is
reported (the waiver may be stale); a cause waiver that waived nothing while cases of its
scope passed gets a note.  "backends" (absent: every one) must include "harness" for the
harness; "torch" (absent: every release) the release judged against.  Every waiver is
checked against the golden files when loaded (each family read once): a member of the wrong
type, an unknown family, tcId, flag, backend or release, a bad pattern, no reason, a case
waived twice by waivers without "match" raise WaiverError naming the file, the entry and
the member (run.py: exit 2).  Tested by tests/test_waivers.py.
"""

import json
import re

import harnesslib as hl

KNOWN = ("family", "tcIds", "flag", "match", "reason", "finding", "backends", "torch")
# What a waiver's "backends" may name: `shardcheck run`'s backends, as `shardcheck registry`
# prints tools/run/backends.c's table; candidate: a results file (verify, certify --candidate);
# harness: this harness.  tools/run/waivers.c takes the same.
OTHER_BACKENDS = ("candidate", "harness")


def backend_names():
    """Every name a waiver's "backends" may hold, the run backends first."""
    return tuple(b["name"] for b in hl.registry("backends")["backends"]) + OTHER_BACKENDS


class WaiverError(ValueError):
    """A waiver file that cannot be used, the message naming the file, entry and member."""


class Waiver:
    __slots__ = ("index", "family", "reason", "applies", "per_case", "pattern", "scope",
                 "waived", "passed")


def _string(wv, name, where, required=False, why=""):
    v = wv.get(name)
    if v is None and name not in wv and not required:
        return None
    if name not in wv:
        raise WaiverError('%s: no "%s": a non-empty string%s' % (where, name, why))
    if not isinstance(v, str) or not v:
        raise WaiverError('%s: "%s" must be a non-empty string%s' % (where, name, why))
    return v


def _list(wv, name, what, where):
    if name not in wv:
        return None
    v = wv[name]
    if not isinstance(v, list) or not v:
        raise WaiverError('%s: "%s" must be a non-empty array of strings, each %s (left out: '
                          'every one)' % (where, name, what))
    for i, x in enumerate(v):
        if not isinstance(x, str):
            raise WaiverError("%s: %s[%d] must be a string naming %s" % (where, name, i, what))
    return v


def _check(wv, where, release):
    """A Waiver from entry wv (its scope not yet resolved)."""
    if not isinstance(wv, dict):
        raise WaiverError('%s: not an object ({"family": ..., "reason": ...})' % where)
    for k in wv:
        if k not in KNOWN:
            raise WaiverError('%s: unknown member "%s" (family, tcIds or flag, match, reason, '
                              'finding, backends, torch)' % (where, k[:40]))
    if "reason" not in wv:
        raise WaiverError('%s: no "reason": a waiver says why the deviation is known' % where)
    w = Waiver()
    w.reason = _string(wv, "reason", where, True, ": a waiver says why the deviation is known")
    w.family = _string(wv, "family", where, True, " naming a family, shardcheck families")
    finding = _string(wv, "finding", where, why=" (the file that records the finding)")
    _string(wv, "flag", where, why=" (a flag the family declares)")
    pattern = _string(wv, "match", where, why=" (a POSIX extended regular expression)")
    if "tcIds" in wv and "flag" in wv:
        raise WaiverError('%s: names its cases by "tcIds" or by "flag" (one of them)' % where)
    if "tcIds" not in wv and "flag" not in wv and pattern is None:
        raise WaiverError('%s: names its cases by "tcIds" or by "flag", or its failures by '
                          '"match" (at least one of them)' % where)
    if "tcIds" in wv and (not isinstance(wv["tcIds"], list) or not wv["tcIds"]):
        raise WaiverError('%s: "tcIds" must be a non-empty array' % where)
    names = backend_names() if "backends" in wv else OTHER_BACKENDS
    backends = _list(wv, "backends", "a backend (%s)" % ", ".join(names), where)
    releases = _list(wv, "torch", 'a torch release ("2.13")', where)
    for i, b in enumerate(backends or []):
        if b.split(":", 1)[0] not in names:
            raise WaiverError('%s: backends[%d] is not a backend ("%s"; expected %s)'
                              % (where, i, b[:40], ", ".join(names)))
    rels = []
    for i, r in enumerate(releases or []):
        try:
            rels.append(hl.parse_release(r))
        except hl.ReleaseError as e:
            raise WaiverError("%s: torch[%d]: %s" % (where, i, e)) from None
    w.applies = (backends is None or any(b.split(":", 1)[0] == "harness" for b in backends)) \
        and (releases is None or release in rels)
    w.reason = "%s (%s)" % (w.reason, finding) if finding else w.reason
    w.per_case = "tcIds" in wv or pattern is None
    try:
        w.pattern = re.compile(pattern) if pattern is not None else None
    except re.error as e:
        raise WaiverError('%s: "match" is not a regular expression: %s' % (where, e)) from None
    w.waived = w.passed = 0
    return w


def _tests(golden, family):
    """{tcId: flags} of a family's golden files."""
    out = {}
    for path in hl.family_files(golden, family):
        doc = hl.load_file(path)
        for group in doc.get("testGroups") or []:
            for t in group.get("tests") or []:
                out[t.get("tcId")] = t.get("flags") or []
    return out


class Waivers:
    """A loaded waiver file, checked against the golden files in golden."""

    def __init__(self, path, golden, release):
        self.path = path
        try:
            with open(path, "rb") as fh:
                root = json.load(fh)
        except (OSError, ValueError) as e:
            raise WaiverError("%s: %s" % (path, e)) from None
        if not isinstance(root, dict) or not isinstance(root.get("waivers"), list):
            raise WaiverError('%s: not a waiver file: {"waivers": [...]}' % path)
        families = set(hl.families_in(golden))
        self.list = []
        for k, wv in enumerate(root["waivers"]):
            where = "%s: waivers[%d]" % (path, k)
            w = _check(wv, where, release)
            if w.family not in families:
                raise WaiverError('%s: "family" is not a family (shardcheck families)' % where)
            w.index = k
            self.list.append((w, wv))
        self.cases = {}  # (family, tcId or None: the whole family) -> [Waiver], file order
        loaded = {}
        for w, wv in self.list:
            if w.family not in loaded:
                loaded[w.family] = _tests(golden, w.family)
            self._resolve(w, wv, loaded[w.family])
        self._no_duplicates()
        self.list = [w for w, _ in self.list]

    def _resolve(self, w, wv, tests):
        where = "%s: waivers[%d]" % (self.path, w.index)
        if "flag" in wv:
            scope = [t for t, flags in tests.items() if wv["flag"] in flags]
            if not scope:
                raise WaiverError('%s: flag "%s" is not one family %s declares on a case'
                                  % (where, wv["flag"][:40], w.family))
        elif "tcIds" in wv:
            scope = []
            for i, t in enumerate(wv["tcIds"]):
                if not isinstance(t, int) or isinstance(t, bool) or t not in tests:
                    raise WaiverError("%s: tcIds[%d] is not a tcId of family %s"
                                      % (where, i, w.family))
                scope.append(t)
        else:
            scope = [None]
        if w.applies:
            for t in scope:
                self.cases.setdefault((w.family, t), []).append(w)

    def _no_duplicates(self):
        for (fam, t), ws in sorted(self.cases.items(), key=lambda kv: (kv[0][0], kv[0][1] or -1)):
            plain = [w for w in ws if w.pattern is None]
            if len(plain) > 1:
                raise WaiverError("%s: waivers[%d] and waivers[%d] both waive %s tcId %s"
                                  % (self.path, plain[0].index, plain[1].index, fam, t))

    def _candidates(self, family, tcid):
        return self.cases.get((family, tcid), []) + self.cases.get((family, None), [])

    def failed(self, family, tcid, detail):
        """The reason a failure of (family, tcid) with this detail is waived for, or None."""
        outcome = "Fail: " + detail
        for w in sorted(self._candidates(family, tcid), key=lambda w: w.index):
            if w.pattern is None or w.pattern.search(outcome):
                w.waived += 1
                return w.reason
        return None

    def passed(self, family, tcid):
        """The reason of a waiver that claims (family, tcid) fails (it passed: stale), or None."""
        hit = None
        for w in sorted(self._candidates(family, tcid), key=lambda w: w.index):
            w.passed += 1
            if hit is None and w.per_case:
                hit = w.reason
        return hit

    def notes(self):
        """A line per cause waiver that waived nothing while cases of its scope passed."""
        return ["note: %s: waivers[%d] matched no failure: the %d case%s of its scope that ran "
                "passed (%s): the deviation may be fixed, or this run does not reach it"
                % (self.path, w.index, w.passed, "" if w.passed == 1 else "s", w.reason)
                for w in self.list if w.applies and w.pattern is not None and not w.per_case
                and not w.waived and w.passed]


def detail_of(mismatches):
    """A failing case's detail: its mismatch lines without the "MISMATCH family tcId=N" head."""
    parts = []
    for m in mismatches:
        s = str(m)
        head = "MISMATCH %s tcId=%s" % (m.family, m.tcid)
        parts.append(s[len(head):].lstrip(" :") if s.startswith(head) else s)
    return "; ".join(parts)


def apply(waivers, res):
    """Move res's waived failures out of its failures (res.waived, res.waived_cases) and
    record the waived cases that passed (res.waived_passed)."""
    res.waived, res.waived_cases, res.waived_passed = 0, [], []
    by_tc = {}
    for m in res.mismatches:
        by_tc.setdefault(m.tcid, []).append(m)
    keep = []
    for tcid, ms in by_tc.items():
        why = waivers.failed(res.family, tcid, detail_of(ms)) if tcid is not None else None
        if why is None:
            keep.extend(ms)
            continue
        res.failed -= 1
        res.waived += 1
        res.waived_cases.append((tcid, why, detail_of(ms)))
    kept = {id(m) for m in keep}
    res.mismatches = [m for m in res.mismatches if id(m) in kept]
    for tcid in res.passed_tcids:
        why = waivers.passed(res.family, tcid)
        if why is not None:
            res.waived_passed.append((tcid, why))
