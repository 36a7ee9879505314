#!/usr/bin/env python3
"""Summarises tools/gpu/shared_oob_probe.sh's output: per access kind and buffer size (floats),
the offsets that ran and the nearest that faulted on either side, in bytes from the buffer's start,
and the window that implies. Usage: shared_oob_summary.py shared_oob_probe.txt"""
import collections
import sys


def main(path):
    lines = open(path).read().splitlines()
    print(f"# {lines[0]}")
    by = collections.defaultdict(list)
    errors = collections.Counter()
    for line in lines[1:]:
        kind, size, off, result = line.split(maxsplit=3)
        by[(kind, int(size))].append((int(off), result))
        if result != "ok":
            errors[result] += 1
    print("| access | buffer bytes | lowest ok | highest ok (end) | first fault below | first fault above |")
    print("|---|---:|---:|---:|---:|---:|")
    for (kind, size), rows in sorted(by.items()):
        ok = [o for o, r in rows if r == "ok"]
        below = [o for o, r in rows if r != "ok" and o < 0]
        above = [o for o, r in rows if r != "ok" and o >= size]
        print(f"| {kind} | {4 * size} | {4 * min(ok)} | {4 * max(ok) + 4} | "
              f"{4 * max(below) if below else '-'} | {4 * min(above) if above else '-'} |")
    print()
    for what, n in errors.most_common():
        print(f"- {n} runs: {what}")


if __name__ == "__main__":
    main(sys.argv[1])
