"""Benchmark: test-collection design (xdiv.design) on a cube of 20 metrics × 18 runs × 50
topics (the size of the TREC 2009 diversity task with 20 measures).

Usage: python benchmarks/bench_design.py [--repeat 3] [--replicates 1000]

Scores: ``xdiv.datasets.synthetic`` (18 runs, 50 topics, seed 3) evaluated under 20
diversity measures. Timed (best of ``--repeat``): the swap rates of all 153 run pairs with
1000 replicates per subset size (disjoint halves, sizes 5-25, and with replacement,
sizes 10-50); the G-study with a D-study; topic set sizes for three differences under the
paired t test, ANOVA and CI designs; detectable differences for three topic set sizes;
the power of every run pair. Target: everything together under 5 s.
"""

from __future__ import annotations

import argparse
import warnings

import xdiv
from xdiv import design
from timing import best_time

METRICS = ["I-rec@10", "alpha-nDCG@10", "nDCG-IA@10", "Q-IA@10", "ERR-IA@10", "nERR-IA@10",
           "P-IA@10", "D-nDCG@10", "D#-nDCG@10", "D-Q@10", "D#-Q@10", "DIN-nDCG@10",
           "DIN#-nDCG@10", "DIN-Q@10", "DIN#-Q@10", "P+Q@10", "P+Q#@10", "Ef-P@10",
           "AP-IA@10", "nGAP-IA@10"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--replicates", type=int, default=1000)
    args = parser.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        collection, runs = xdiv.datasets.synthetic(n_topics=50, n_runs=18, depth=20, seed=3)
        scores = xdiv.evaluate(runs, collection, METRICS)
    B = args.replicates
    tasks = {
        f"swap rates, disjoint, B = {B}": lambda: design.swap_rates(scores, replicates=B),
        f"swap rates, with replacement, B = {B}":
            lambda: design.swap_rates(scores, replicates=B, replace=True),
        "G-study + D-study": lambda: design.d_study(design.g_study(scores), [0.8, 0.95]),
        "topic set sizes (3 designs x 3 differences)": lambda: [
            design.topic_set_size(scores, [0.02, 0.05, 0.1], test=test)
            for test in design.TESTS],
        "detectable differences (25, 50, 100 topics)":
            lambda: design.detectable_difference(scores, [25, 50, 100]),
        "power of every run pair": lambda: design.pair_power(scores),
    }
    print(f"{scores.sizes['metric']} metrics x {scores.sizes['run']} runs x "
          f"{scores.sizes['topic']} topics; best of {args.repeat}")
    total = 0.0
    for name, task in tasks.items():
        seconds = best_time(task, repeat=args.repeat)
        total += seconds
        print(f"{name:<48} {seconds:7.3f} s")
    print(f"{'total':<48} {total:7.3f} s (target < 5 s)")


if __name__ == "__main__":
    main()
