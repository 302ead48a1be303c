#!/usr/bin/env python3
"""The gateway against the C floor over several runs of Benchmarks/run.sh, round by round:
    python3 Benchmarks/floor_ratios.py Benchmarks/results/A.json Benchmarks/results/B.json ...
A single run's median of three or five rounds moves by more than the distance being judged
(one run's rounds of `$top=20` ranged from 0.67 to 0.93 of the floor), so each run's median is
printed beside the median of all the runs' rounds taken together. Give only runs of the same
build: the results files do not record it."""
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import FLOOR_SCENARIOS, floor_ratios, median  # noqa: E402


def main(paths):
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    runs = []
    for path in paths:
        with open(path) as file:
            runs.append((os.path.basename(path), json.load(file)))
    for gateway_name, floor_name in FLOOR_SCENARIOS.items():
        for connections in (16, 64):
            pooled = []
            medians = []
            for name, results in runs:
                ratios = floor_ratios(results, floor_name, connections)
                if ratios:
                    pooled += ratios
                    medians.append(f"{median(ratios):.2f}")
            if not pooled:
                continue
            print(f"{gateway_name} @{connections}: {median(pooled):.3f} over {len(pooled)} rounds "
                  f"({min(pooled):.2f}-{max(pooled):.2f}); each run's median {', '.join(medians)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
