#!/usr/bin/env python3
"""One detection table from several audits of one backend and preset (issue 20, item 8).

Usage: tools/gpu/table.py AUDIT_DIR... [--json OUT]

Each AUDIT_DIR holds kill-matrix.jsonl (or kill-matrix.jsonl.gz) and summary.json of a `kaudit audit --out` (for example one
per task, as tools/gpu/audit-by-task.sh writes them). Mutants are matched by id; a mutant found in
two audits is an error (the audits must not overlap). Prints, per family and oracle, the share of
witnessed mutants the oracle misses in oracle mode (the verdict the checker would give), the
mutants witnessed, and per oracle the false kills summed over the audits' summaries (correct
kernels, their neutral variants or the float32 reference rejected on a trial). Every audit must
name the same backend kind and preset for an oracle, or the table is refused.
"""
import json
import os
import sys
from collections import defaultdict

from audit_files import kill_matrix_rows, take_json_flag


def main(argv):
    argv, json_out = take_json_flag(argv)
    if not argv:
        sys.exit(__doc__)
    mutants, false_kills, presets, backends, kernels = {}, defaultdict(int), defaultdict(set), set(), set()
    for d in argv:
        for r in kill_matrix_rows(d):
            if r["id"] in mutants:
                sys.exit(f"{d}: mutant {r['id']} is in two audits; give audits of disjoint kernels")
            mutants[r["id"]] = r
            kernels.add(r["kernel"])
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
        backends.add(s["backend"].split(",")[0])
        for o in s["oracles"]:
            false_kills[o["oracle"]] += o["false_kills"]
            presets[o["oracle"]].add(o.get("shape_preset", "small"))
    if len(backends) != 1:
        sys.exit(f"the audits ran on different backends: {sorted(backends)}")
    for o, p in presets.items():
        if len(p) != 1:
            sys.exit(f"oracle {o} ran at different presets: {sorted(p)}")
    oracles = sorted(presets)
    witnessed = [r for r in mutants.values() if r.get("witnessed")]
    fams = sorted({r["family"] for r in witnessed})
    table = {}
    for fam in fams + ["all"]:
        rows = [r for r in witnessed if fam == "all" or r["family"] == fam]
        table[fam] = {"witnessed": len(rows),
                      "missed_percent": {o: round(100.0 * sum(not r["killed_by"][o] for r in rows) / len(rows), 1)
                                         for o in oracles}}
    print(f"{len(mutants)} mutants of {len(kernels)} kernels, {len(witnessed)} witnessed; backend {backends.pop()}")
    print()
    print("| family | witnessed | " + " | ".join(f"{o} ({presets[o].copy().pop()})" for o in oracles) + " |")
    print("|---|---:|" + "---:|" * len(oracles))
    for fam, row in table.items():
        print(f"| {fam} | {row['witnessed']} | " + " | ".join(f"{row['missed_percent'][o]:.1f}" for o in oracles) + " |")
    print("| false kills | | " + " | ".join(str(false_kills[o]) for o in oracles) + " |")
    if json_out:
        with open(json_out, "w") as f:
            json.dump({"kernels": sorted(kernels), "mutants": len(mutants), "table": table,
                       "false_kills": dict(false_kills), "presets": {o: sorted(p) for o, p in presets.items()}},
                      f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
