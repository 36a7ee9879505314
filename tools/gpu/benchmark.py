#!/usr/bin/env python3
"""The GPU audit's throughput as JSON (issue 20, item 7), from finished audits' summary.json.

Usage: tools/gpu/benchmark.py AUDIT_DIR... [--out FILE]

For each audit folder (`kaudit audit --backend cuda --out AUDIT_DIR`, one task each as
tools/gpu/audit-by-task.sh makes them): the backend, each oracle's shape preset, the mutants audited,
the kernel runs (summary.json `runs`: every witness run and every trial of a checker's loop is one
kernel evaluation on one input), the wall seconds, the stages' seconds, the nvcc build seconds per
kernel (the mutant builds stage over the task's kernels: schemata and standalone builds), and the
CUDA worker starts with the seconds spent waiting for them. Totals add the tasks' runs and seconds,
which is the sequential time where audits ran side by side. The reference study's rate is 120,000
mutant-input evaluations in about 30 GPU-hours on an H100 (../shared/FACTS.md section 1); the ratio
compares evaluations per second, one kernel run to one evaluation.
"""
import argparse
import json

from audit_files import kill_matrix_rows

REFERENCE = {"evaluations": 120000, "gpu_hours": 30, "gpu": "H100"}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("audits", nargs="+", metavar="AUDIT_DIR")
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args()
    out = args.out
    tasks = []
    for d in args.audits:
        with open(f"{d}/summary.json") as f:
            s = json.load(f)
        kernels = sorted({m["kernel"] for m in kill_matrix_rows(d)})
        stages = s.get("stage_seconds", {})
        builds = next((v for k, v in stages.items() if k.startswith("mutant builds")), 0.0)
        tasks.append({
            "folder": d,
            "backend": s.get("backend"),
            "presets": sorted({o.get("shape_preset") for o in s.get("oracles", [])}),
            "kernels": kernels,
            "audited": s.get("audited"),
            "witnessed": s.get("witnessed"),
            "runs": s.get("runs"),
            "seconds": round(s.get("seconds", 0), 1),
            "runs_per_second": round(s["runs"] / s["seconds"], 1) if s.get("seconds") else None,
            "build_seconds_per_kernel": round(builds / len(kernels), 1) if kernels else None,
            "stage_seconds": {k: round(v, 1) for k, v in stages.items()},
            "worker_starts": s.get("workers", {}).get("started"),
            "worker_start_seconds": round(s.get("workers", {}).get("start_seconds", 0), 1),
        })
    runs = sum(t["runs"] for t in tasks)
    seconds = sum(t["seconds"] for t in tasks)
    ref_rate = REFERENCE["evaluations"] / (REFERENCE["gpu_hours"] * 3600)
    rate = runs / seconds if seconds else 0
    result = {
        "tasks": tasks,
        "total": {"runs": runs, "seconds": round(seconds, 1), "runs_per_second": round(rate, 1)},
        "reference": dict(REFERENCE, evaluations_per_second=round(ref_rate, 2)),
        "ratio_to_reference": round(rate / ref_rate, 1) if ref_rate else None,
    }
    text = json.dumps(result, indent=1)
    if out:
        with open(out, "w") as f:
            f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
