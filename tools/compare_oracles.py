#!/usr/bin/env python3
"""Per-mutant agreement of oracles scored on one run directory (`kaudit audit --out DIR`, with
oracles added by `--from`): for each pair A:B, over the run's witnessed mutants, how often A and B
give the same verdict and, where both kill, the same cause; every disagreement listed. Runs without
PyTorch.

usage: compare_oracles.py RUN_DIR A:B [A:B ...]
"""
import collections
import gzip
import json
import os
import sys


def rows(run):
    path = os.path.join(run, "kill-matrix.jsonl")
    f = open(path) if os.path.exists(path) else gzip.open(path + ".gz", "rt")
    with f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    if len(sys.argv) < 3 or any(":" not in p for p in sys.argv[2:]):
        sys.exit(__doc__)
    matrix = [m for m in rows(sys.argv[1]) if m.get("witnessed")]
    with open(os.path.join(sys.argv[1], "summary.json")) as f:
        scored = [o["oracle"] for o in json.load(f)["oracles"]]
    for pair in sys.argv[2:]:
        a, b = pair.split(":", 1)
        for name in (a, b):
            if name not in scored:
                sys.exit(f"{sys.argv[1]} scored no oracle '{name}' (it has: {', '.join(scored)})")
        same = same_cause = both_killed = 0
        per_family = collections.defaultdict(lambda: [0, 0])
        listed = []
        for m in matrix:
            ka, kb = bool(m.get("killed_by", {}).get(a)), bool(m.get("killed_by", {}).get(b))
            ca, cb = m.get("cause", {}).get(a), m.get("cause", {}).get(b)
            per_family[m["family"]][1] += 1
            if ka == kb:
                same += 1
                per_family[m["family"]][0] += 1
            if ka and kb:
                both_killed += 1
                same_cause += ca == cb
            if ka != kb or (ka and kb and ca != cb):
                listed.append(f"  {m['id']} {m['kernel']} {m['rule']}: {a} {'kills (' + str(ca) + ')' if ka else 'passes'}, "
                              f"{b} {'kills (' + str(cb) + ')' if kb else 'passes'}")
        n = len(matrix)
        print(f"{a} vs {b}: {n} witnessed mutants, same verdict {same} ({100.0 * same / max(n, 1):.1f}%), "
              f"same cause {same_cause} of {both_killed} killed by both")
        print("  per family: " + ", ".join(f"{f} {s}/{t}" for f, (s, t) in sorted(per_family.items())))
        print("\n".join(listed))


if __name__ == "__main__":
    main()
