#!/usr/bin/env python3
"""What changes with the shapes: two audits of the same mutants at two presets (issue 20, item 5).

Usage: tools/gpu/preset_shift.py A_DIR B_DIR [--kernel K]... [--json OUT]

A_DIR and B_DIR each hold kill-matrix.jsonl (or subfolders that do, one per task) of audits of
one mutant set on one backend at two presets, e.g. `--preset small` (the default) and
`--preset kernelbench-v0`. Mutants are matched by id (restricted to --kernel ids when given).
Prints the mutants witnessed at each preset and, per oracle, on the mutants witnessed at both:
missed % at A, missed % at B, and how many verdicts flip each way, per family and in all. The
inputs differ between presets (the pool is made at each), so cells are not compared.
"""
import json
import os
import sys
from collections import defaultdict


def load(root, kernels):
    files = [os.path.join(root, "kill-matrix.jsonl")]
    if not os.path.exists(files[0]):
        files = [os.path.join(root, d, "kill-matrix.jsonl") for d in sorted(os.listdir(root))
                 if os.path.exists(os.path.join(root, d, "kill-matrix.jsonl"))]
    out = {}
    for f in files:
        with open(f) as fh:
            for line in fh:
                r = json.loads(line)
                if not kernels or r["kernel"] in kernels:
                    out[r["id"]] = r
    return out


def pct(a, n):
    return "-" if n == 0 else f"{100.0 * a / n:.1f}"


def main(argv):
    json_out, kernels = None, set()
    rest = []
    i = 0
    while i < len(argv):
        if argv[i] == "--json":
            json_out = argv[i + 1]
            i += 2
        elif argv[i] == "--kernel":
            kernels.add(argv[i + 1])
            i += 2
        else:
            rest.append(argv[i])
            i += 1
    if len(rest) != 2:
        sys.exit(__doc__)
    a, b = load(rest[0], kernels), load(rest[1], kernels)
    both = [m for m in a if m in b and a[m].get("ran") and b[m].get("ran")]
    oracles = sorted(set().union(*(a[m].get("killed_by", {}).keys() for m in both)) if both else set())
    result = {"mutants_in_both": len(both),
              "witnessed_a": sum(bool(a[m].get("witnessed")) for m in both),
              "witnessed_b": sum(bool(b[m].get("witnessed")) for m in both),
              "oracles": {}}
    print(f"{len(both)} mutants in both; witnessed at A: {result['witnessed_a']}, at B: {result['witnessed_b']}, "
          f"at both: {sum(bool(a[m].get('witnessed') and b[m].get('witnessed')) for m in both)}\n")
    print("| oracle | family | witnessed by both | missed at A % | missed at B % | killed at A, missed at B | missed at A, killed at B |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for o in oracles:
        rows = defaultdict(lambda: [0, 0, 0, 0, 0])  # n, missed a, missed b, a-kill->b-miss, a-miss->b-kill
        for m in both:
            ra, rb = a[m], b[m]
            if not (ra.get("witnessed") and rb.get("witnessed")):
                continue
            if o not in ra.get("killed_by", {}) or o not in rb.get("killed_by", {}):
                continue
            ka, kb = ra["killed_by"][o], rb["killed_by"][o]
            for fam in (ra["family"], "all"):
                r = rows[fam]
                r[0] += 1
                r[1] += not ka
                r[2] += not kb
                r[3] += ka and not kb
                r[4] += kb and not ka
        result["oracles"][o] = {f: dict(zip(["n", "missed_a", "missed_b", "killed_a_missed_b", "missed_a_killed_b"], r))
                                for f, r in rows.items()}
        for fam in sorted(rows, key=lambda f: (f == "all", f)):
            n, ma, mb, ab, ba = rows[fam]
            print(f"| {o} | {fam} | {n} | {pct(ma, n)} | {pct(mb, n)} | {ab} | {ba} |")
    if json_out:
        with open(json_out, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
