#!/usr/bin/env python3
"""worker_golden.py — a tiny, deterministic worker for `shardcheck run --backend worker:CMD`
(protocol 1, docs/backends/worker.md), standard library only: it answers each case from the
golden file itself (GOLDEN, the corpus the run reads), so a correct protocol passes and every
fault below is planted on purpose.  It is a test fixture of the protocol, never an
implementation: conformance/tests/run_worker.sh runs it.

WORKER_FAULT=KIND:TCID[,KIND:TCID...] plants a fault when case TCID is asked (in the process
WORKER_FAULT_PROCESS only, when set):
  die        exit 3 before answering          hang       sleep forever
  garbage    a line that is not JSON           stdout     a log line on stdout, then the answer
  othercase  answers tc TCID+1                 otherrank  answers rank first+1 first
  wrong      a wrong value (a Fail)            notsup     {"notSupported": ...} for the case
  error      {"error": ...} for every rank (a Fail for a valid case)
WORKER_HELLO=v2 | none | garbage: a hello of protocol 2, no hello (exit 0), or a garbage
first line.  WORKER_FAMILIES=F1,F2: the families it supports (default
every one); the others are named with a reason.  WORKER_LOG=FILE: one line per start.
WORKER_PRELOAD=F: read family F's golden files before the hello (so that a short --timeout
times the protocol, not the reading).
"""
import json
import os
import sys
import time

GOLDEN = os.environ.get("GOLDEN", "golden")
_tests = {}


def load(family):
    """tcId -> (group without tests, test) for one family."""
    if family not in _tests:
        idx = {}
        d = os.path.join(GOLDEN, family)
        for name in sorted(os.listdir(d)):
            if name.endswith(".json"):
                with open(os.path.join(d, name)) as fh:
                    doc = json.load(fh)
                for g in doc.get("testGroups", []):
                    for t in g.get("tests", []):
                        idx[t["tcId"]] = t
        _tests[family] = idx
    return _tests[family]


def answers(case, first, count):
    """The golden answer of the case for ranks first..first+count-1, as results entries."""
    t = load(case["family"])[case["tcId"]]
    tc, exp = case["tcId"], t["expected"]
    if t.get("result") == "invalid" or "error" in exp:
        return [{"tcId": tc, "rank": r, "error": exp.get("error", "rejected")}
                for r in range(first, first + count)]
    top = {k: v for k, v in exp.items() if k not in ("perRank", "alternatives")}
    out = []
    for r in range(first, first + count):
        v = dict(top)
        v.update((k, a[r]) for k, a in (exp.get("perRank") or {}).items())
        out.append({"tcId": tc, "rank": r, "values": v})
    return out


def faults():
    if os.environ.get("WORKER_FAULT_PROCESS", os.environ["SHARDCHECK_WORKER_PROCESS"]) != \
            os.environ["SHARDCHECK_WORKER_PROCESS"]:
        return {}
    out = {}
    for spec in filter(None, os.environ.get("WORKER_FAULT", "").split(",")):
        kind, tc = spec.split(":")
        out[int(tc)] = kind
    return out


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    if os.environ.get("WORKER_LOG"):
        with open(os.environ["WORKER_LOG"], "a") as fh:
            fh.write("start process %s of %s\n" % (os.environ["SHARDCHECK_WORKER_PROCESS"],
                                                   os.environ["SHARDCHECK_WORKER_PROCESSES"]))
    hello = os.environ.get("WORKER_HELLO", "")
    if hello == "none":
        return 0
    if hello == "garbage":
        print("Welcome to the acme worker!", flush=True)
    if os.environ.get("WORKER_PRELOAD"):
        load(os.environ["WORKER_PRELOAD"])
    fams = os.environ.get("WORKER_FAMILIES")
    supported = {f: True for f in os.listdir(GOLDEN) if os.path.isdir(os.path.join(GOLDEN, f))}
    if fams:
        keep = fams.split(",")
        supported = {f: True if f in keep else "the tiny worker does not do %s" % f
                     for f in supported}
    say({"protocol": 2 if hello == "v2" else 1, "name": "worker_golden 1",
         "families": supported})
    plant = faults()
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("quit"):
            return 0
        case, (first, count) = req["case"], req["ranks"]
        form = sorted(case) == ["family", "group", "tcId", "test", "torch", "world"] and \
            not {"expected", "result", "byVersion"} & set(case["test"]) and \
            "tests" not in case["group"] and 0 <= first < first + count <= case["world"]
        if not form:   # the runner broke the protocol: say so, and die (a Crash)
            sys.stderr.write("worker_golden: a request outside protocol 1: %s\n" % line[:200])
            return 4
        kind = plant.get(case["tcId"])
        entries = answers(case, first, count)
        if kind == "die":
            os._exit(3)
        if kind == "hang":
            time.sleep(3600)
        if kind == "garbage":
            sys.stdout.write("{not json\n")
        if kind == "stdout":
            print("debug: computing tc %d" % case["tcId"])
        if kind == "othercase":
            entries = [dict(e, tcId=e["tcId"] + 1) for e in entries]
        if kind == "otherrank":
            entries = [dict(e, rank=e["rank"] + 1) for e in entries]
        if kind == "wrong":
            v = entries[-1].get("values") or {}
            for k in v:
                v[k] = "wrong"
        if kind == "notsup":
            entries = [{"tcId": case["tcId"], "notSupported": "the tiny worker skips it"}]
        if kind == "error":
            entries = [{"tcId": case["tcId"], "rank": r, "error": "refused on purpose"}
                       for r in range(first, first + count)]
        for e in entries:
            say(e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
