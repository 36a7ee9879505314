#!/usr/bin/env python3
"""CPU-GPU agreement of two audits of the same mutants (issue 20, item 6).

Usage: tools/gpu/agreement.py CPU_AUDIT_DIR[,CPU_AUDIT_DIR...] GPU_AUDIT_DIR... [--json OUT]

Reads kill-matrix.jsonl of a CPU audit (or of several, comma-separated) (`kaudit audit --out CPU_AUDIT_DIR`) and of GPU audits of
the same mutant set (`kaudit audit --backend cuda --mutants SET --out GPU_AUDIT_DIR`), matches
mutants by id, and prints per family: the mutants in both; how often the two agree on whether a
mutant is witnessed; per oracle, on the mutants witnessed by both, how often the GPU's oracle-mode
verdict equals the CPU's oracle-mode verdict and the CPU's witness-mode verdict; and over the
(mutant, input) cells both ran, how often they agree on pass or fail. Every disagreement of an
oracle-mode verdict is listed with both sides' cause.
"""
import json
import sys
from collections import defaultdict

from audit_files import kill_matrix_rows, take_json_flag


def load(dirs):
    out = {}
    for d in dirs:
        for r in kill_matrix_rows(d):
            out[r["id"]] = r
    return out


def pct(a, n):
    return "-" if n == 0 else f"{100.0 * a / n:.1f}"


def main(argv):
    argv, json_out = take_json_flag(argv)
    if len(argv) < 2:
        sys.exit(__doc__)
    cpu, gpu = load(argv[0].split(",")), load(argv[1:])
    both = [i for i in gpu if i in cpu and cpu[i].get("ran") and gpu[i].get("ran")]
    oracles = sorted({o for i in both for o in gpu[i].get("killed_by", {})})
    fam = defaultdict(lambda: defaultdict(int))
    disagreements = []
    for i in both:
        c, g = cpu[i], gpu[i]
        f = fam[c["family"]]
        f["mutants"] += 1
        f["witnessed_agree"] += c["witnessed"] == g["witnessed"]
        f["cpu_witnessed"] += c["witnessed"]
        f["gpu_witnessed"] += g["witnessed"]
        for co, go in zip(c["outcomes"], g["outcomes"]):
            if co == "not-run" or go == "not-run":
                continue
            f["cells"] += 1
            f["cells_agree"] += (co == "pass") == (go == "pass")
        if not (c["witnessed"] and g["witnessed"]):
            continue
        for o in oracles:
            if o not in g["killed_by"] or o not in c["killed_by"]:
                continue
            f[f"{o}:n"] += 1
            f[f"{o}:gpu_missed"] += not g["killed_by"][o]
            f[f"{o}:cpu_missed"] += not c["killed_by"][o]
            f[f"{o}:om_agree"] += c["killed_by"][o] == g["killed_by"][o]
            f[f"{o}:wm_agree"] += c["witness_mode_killed_by"][o] == g["killed_by"][o]
            if c["killed_by"][o] != g["killed_by"][o]:
                disagreements.append((c["family"], o, i, c["kernel"], c["rule"],
                                      c["cause"].get(o, "pass"), g["cause"].get(o, "pass")))
    fams = sorted(fam)
    print(f"{len(both)} mutants in both audits ({len(gpu)} in the GPU audits)\n")
    print("| family | mutants | witnessed agree % (CPU, GPU witnessed) | cells agree % (cells) |")
    print("|---|---:|---:|---:|")
    for k in fams + ["all"]:
        f = fam[k] if k != "all" else {x: sum(fam[y][x] for y in fams) for x in ("mutants", "witnessed_agree", "cpu_witnessed", "gpu_witnessed", "cells", "cells_agree")}
        print(f"| {k} | {f['mutants']} | {pct(f['witnessed_agree'], f['mutants'])} ({f['cpu_witnessed']}, {f['gpu_witnessed']}) | {pct(f['cells_agree'], f['cells'])} ({f['cells']}) |")
    for o in oracles:
        print(f"\n{o}, on mutants witnessed by both: GPU missed %, CPU oracle mode missed %, "
              "agreement of the GPU with CPU oracle mode %, with CPU witness mode %\n")
        print("| family | mutants | GPU missed | CPU oracle mode missed | agree, oracle mode | agree, witness mode |")
        print("|---|---:|---:|---:|---:|---:|")
        # The target is stated on mutants without races: every family but synchronization.
        race_free = [y for y in fams if y != "synchronization"]
        for k in fams + ["all but synchronization", "all"]:
            over = {"all": fams, "all but synchronization": race_free}.get(k, [k])
            g = lambda x: sum(fam[y][f"{o}:{x}"] for y in over)  # noqa: E731
            n = g("n")
            print(f"| {k} | {n} | {pct(g('gpu_missed'), n)} | {pct(g('cpu_missed'), n)} | {pct(g('om_agree'), n)} | {pct(g('wm_agree'), n)} |")
    pairs = defaultdict(int)
    for d in disagreements:
        pairs[(d[0] == "synchronization", d[5], d[6])] += 1
    print("\nOracle-mode disagreements by CPU cause -> GPU cause (verdicts; a mutant counts once per oracle):\n")
    print("| synchronization | CPU | GPU | verdicts |")
    print("|---|---|---|---:|")
    for (sync, c, g), n in sorted(pairs.items(), key=lambda kv: -kv[1]):
        print(f"| {'yes' if sync else 'no'} | {c} | {g} | {n} |")
    print("\nOracle-mode disagreements (family, oracle, mutant, kernel, rule, CPU cause, GPU cause):\n")
    for d in sorted(disagreements):
        print("- " + " ".join(d))
    if json_out:
        with open(json_out, "w") as f:
            json.dump({"families": fam, "disagreements": disagreements}, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
