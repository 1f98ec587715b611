#!/usr/bin/env python3
"""Summarize an Autobahn|Testsuite report directory.

usage: summarize.py REPORT_DIR [--agent NAME] [--expect N] [--strict] [--json]

Reads REPORT_DIR/index.json (written by wstest's fuzzingclient/fuzzingserver)
and prints for each agent the number of cases per behaviour -- OK, NON-STRICT,
INFORMATIONAL, UNIMPLEMENTED, FAILED, and MISSING for cases that should have a
result (--expect N) but do not -- followed by each FAILED case id with the
reason from its per-case report.  Any other behaviour wstest reports (e.g.
WRONG CODE, UNCLEAN) is listed and counts as a failure too.

Exit status: 0 if no case FAILED (or had another failing behaviour) and none
is MISSING -- with --strict, also none NON-STRICT (each is listed with its
reason like a failure); 1 otherwise; 2 if there is no usable index.json.
--json prints the same data as JSON instead.
"""

import argparse
import json
import os
import sys

PASSING = ["OK", "NON-STRICT", "INFORMATIONAL", "UNIMPLEMENTED"]
COLUMNS = PASSING + ["FAILED", "MISSING"]


def case_key(case_id):
    # "6.4.10" sorts after "6.4.9"
    return [int(part) if part.isdigit() else part for part in case_id.split(".")]


def failure_reason(report_dir, entry):
    """The per-case report's verdict texts, or '' if it cannot be read."""
    name = entry.get("reportfile")
    if not name:
        return ""
    try:
        with open(os.path.join(report_dir, name), encoding="utf8") as f:
            report = json.load(f)
    except (OSError, ValueError):
        return "(no readable report %s)" % name
    parts = [report.get("result") or ""]
    if report.get("behaviorClose") not in (None, "OK", "INFORMATIONAL"):
        parts.append("close %s: %s" % (report.get("behaviorClose"), report.get("resultClose") or ""))
    return " / ".join(p for p in parts if p)


def summarize(report_dir, cases, expect, strict=False):
    counts = dict.fromkeys(COLUMNS, 0)
    failed = []
    for case_id in sorted(cases, key=case_key):
        entry = cases[case_id]
        behavior = entry.get("behavior", "?")
        counts[behavior] = counts.get(behavior, 0) + 1
        if behavior not in PASSING or (strict and behavior == "NON-STRICT"):
            failed.append({"id": case_id, "behavior": behavior,
                           "reason": failure_reason(report_dir, entry)})
    if expect is not None and len(cases) < expect:
        counts["MISSING"] = expect - len(cases)
    return {"total": len(cases), "counts": counts, "failed": failed}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report_dir")
    ap.add_argument("--agent", help="only this agent (default: every agent in index.json)")
    ap.add_argument("--expect", type=int, help="number of cases that should have a result")
    ap.add_argument("--strict", action="store_true", help="NON-STRICT counts as a failure")
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args()

    index = os.path.join(args.report_dir, "index.json")
    try:
        with open(index, encoding="utf8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        print("summarize: no usable %s: %s" % (index, e), file=sys.stderr)
        return 2
    if args.agent is not None:
        # with --expect an agent without results is reported (all MISSING), not an error
        data = {args.agent: data[args.agent]} if args.agent in data else \
            ({args.agent: {}} if args.expect else {})
    if not data:
        print("summarize: %s has no results%s" % (index, " for agent %s" % args.agent if args.agent else ""),
              file=sys.stderr)
        return 2

    results = {agent: summarize(args.report_dir, data[agent], args.expect, args.strict) for agent in sorted(data)}
    bad = any(r["failed"] or r["counts"]["MISSING"] for r in results.values())
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for agent, r in results.items():
            c = r["counts"]
            print("Autobahn summary for %s: %d cases%s" % (agent, r["total"],
                  " of %d expected" % args.expect if args.expect is not None else ""))
            print("  " + "  ".join("%s=%d" % (k, v) for k, v in c.items()))
            for f in r["failed"]:
                print("  %-9s %-8s %s" % (f["behavior"], f["id"], f["reason"]))
            if c["MISSING"]:
                print("  MISSING: %d cases have no result (the testee or wstest stopped early?)" % c["MISSING"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
