"""Benchmark: hierarchical measures vs the flat D#-nDCG on the same data.

Usage: python benchmarks/bench_hierarchy.py [--repeat 2]

200 topics × 50 runs × depth 100 of xdiv.datasets.synthetic (2-8 intents), with a seeded
3-layer hierarchy per topic (xdiv.datasets.synthetic_hierarchy), extended (EIH) and
weighted uniformly bottom-up. Each measure is evaluated alone (judging included) and its
time is compared with D#-nDCG@10's; the target is at most 3x.
"""

from __future__ import annotations

import argparse
import warnings

import xdiv
from xdiv.core.hierarchy import attach_hierarchy
from timing import best_time

MEASURES = ["N-rec@10", "LD#-nDCG@10", "HD#-nDCG@10", "LAD#-nDCG@10", "nDCG-IA-LA@10",
            "alpha-nDCG-LA@10"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    warnings.simplefilter("ignore", xdiv.XdivWarning)
    col, runs = xdiv.datasets.synthetic(n_topics=200, n_runs=50, depth=100, intents=(2, 8),
                                        seed=5)
    col = attach_hierarchy(col, xdiv.datasets.synthetic_hierarchy(col, layers=3, seed=5),
                           kind="EIH", weights="UB")
    flat = best_time(lambda: xdiv.evaluate(runs, col, ["D#-nDCG@10"]), repeat=args.repeat)
    print(f"200 topics x 50 runs x depth 100, 3-layer EIH (UB); best of {args.repeat}")
    print(f"  {'D#-nDCG@10 (flat)':22s} {flat:7.2f} s")
    for m in MEASURES:
        t = best_time(lambda: xdiv.evaluate(runs, col, [m]), repeat=args.repeat)
        print(f"  {m:22s} {t:7.2f} s   {t / flat:5.2f}x D#-nDCG@10")


if __name__ == "__main__":
    main()
