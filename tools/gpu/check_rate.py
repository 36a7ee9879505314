#!/usr/bin/env python3
"""Harness throughput from concurrent `kaudit check --json` runs (docs/calibration/h200-2026-12-02-native).

Usage: tools/gpu/check_rate.py N FILE...   (FILE: the --json outputs of N checks run at once)
Prints the milliseconds per harness trial seen by each process and the trials per second of all N
together. The first oracle of each check (ci-fuzz, alphabetically) is left out: its request also
starts the worker and its CUDA context.
"""
import json
import sys


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    n = int(argv[0])
    seconds, trials = 0.0, 0
    for f in argv[1:]:
        for row in json.load(open(f))["results"]:
            names = sorted(row["harness_seconds"])
            for o in names[1:]:
                seconds += row["harness_seconds"][o]
                trials += row["trials_run"][o]
    print(f"{n} at once: {1000 * seconds / trials:.1f} ms per trial in each process, "
          f"{trials / (seconds / n):.1f} trials/s in all")


if __name__ == "__main__":
    main(sys.argv[1:])
