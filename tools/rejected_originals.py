#!/usr/bin/env python3
"""Rescores a run made before kaudit counted a checker's kills of mutants whose original kernel it
rejects as misses (audit/scoring.h, 2026-12-06): per oracle, the faults missed (oracle mode) as the
run reported them, with the rule, and over the mutants of the kernels the checker accepts.

Usage: tools/rejected_originals.py RUN_DIR   (summary.json and kill-matrix.jsonl[.gz] of `kaudit
audit --out`, e.g. docs/calibration/main-job-2026-12-05). Runs after the rule report the second
figure themselves (summary.json: faults, kills_of_rejected_originals).
"""
import gzip
import json
import os
import sys


def main(run):
    summary = json.load(open(os.path.join(run, "summary.json")))
    gz = os.path.join(run, "kill-matrix.jsonl.gz")
    rows = [json.loads(line) for line in (gzip.open(gz, "rt") if os.path.exists(gz)
                                          else open(os.path.join(run, "kill-matrix.jsonl")))]
    faults = [m for m in rows if m.get("witnessed") and m["family"] != "reward-hack"]
    for oracle in summary["oracles"]:
        name = oracle["oracle"]
        rejected = {f["member"] for f in oracle["false_kill_list"]}  # kernels, variants, the reference
        kernels = sorted(k for k in rejected if k in {m["kernel"] for m in faults})
        killed = sum(bool(m["killed_by"].get(name)) for m in faults)
        discounted = sum(bool(m["killed_by"].get(name)) and m["kernel"] in rejected for m in faults)
        accepted = [m for m in faults if m["kernel"] not in rejected]
        accepted_killed = sum(bool(m["killed_by"].get(name)) for m in accepted)
        n = len(faults)
        line = (f"{name}: {len(rejected)} correct-set members rejected, {len(kernels)} of them kernels whose mutants ran; faults missed "
                f"{100 * (n - killed) / n:.1f}% as reported, {100 * (n - killed + discounted) / n:.1f}% with the rule "
                f"({discounted} of {n} kills discounted)")
        if kernels:
            line += (f", {100 * (len(accepted) - accepted_killed) / len(accepted):.1f}% of the {len(accepted)} "
                     f"on kernels it accepts; rejected: {', '.join(kernels)}")
        print(line)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
