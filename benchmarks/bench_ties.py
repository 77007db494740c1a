"""Benchmark: the cost of scoring over tie orders (``evaluate(ties=...)``) against the
plain evaluation, for nDCG@10 + AP on the same runs.

Usage: python benchmarks/bench_ties.py [--size small|large] [--repeat 3]
                                       [--grid 0.01] [--samples 200]

The synthetic collection of ``bench_adhoc.py`` (``large``: 200 topics, 50 runs of depth
1000, 10 M run lines) is written as TREC files and read once; the run scores are then
rounded to multiples of ``--grid`` (rounding keeps the ranking, so the documents whose
scores round alike become tie groups of consecutive ranks). On those runs the script
times, best of ``--repeat``: the plain evaluation (ties broken by docno, as read),
``ties="expected"`` (exact for both measures: no sampling), ``ties="range"`` (exact
minimum and maximum) and, for a sampled measure's cost, ``ties="expected"`` for ERR@10
with ``--samples`` random orders on a tenth of the runs. Reported: the wall times, the
ratios to the plain evaluation, and the number and sizes of tie groups. The expected
scores are checked to lie between the range's bounds.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

import xdiv
from bench_adhoc import make_files
from timing import best_time

MEASURES = ["nDCG(gain=linear)@10", "AP"]


def _evaluate(runs, collection, measures, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        return xdiv.evaluate(runs, collection, measures, **options)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="large", choices=["small", "large"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--grid", type=float, default=0.01)
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        qrels, paths = make_files(Path(folder), args.size)
        collection = xdiv.read_qrels(qrels)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", xdiv.XdivWarning)
            runs = xdiv.read_runs(paths)
        print(f"files written and read in {time.perf_counter() - start:.1f} s")
    runs["score"] = np.round(runs["score"] / args.grid) * args.grid
    score = runs["score"].values
    lengths = runs["length"].values
    lines = int(lengths.sum())
    tied = np.zeros(score.shape, dtype=bool)
    tied[..., 1:] = score[..., 1:] == score[..., :-1]
    groups = int((tied[..., 1:] & ~tied[..., :-1]).sum() + tied[..., 0].sum())
    print(f"{lines:,} run lines; {int(tied.sum()):,} ranks tie with the rank above, in "
          f"{groups:,} tie groups")

    timings = {}
    def timed(runs, measures, repeat=args.repeat, **options):
        return best_time(lambda: _evaluate(runs, collection, measures, **options),
                         repeat=repeat)

    timings["plain"] = timed(runs, MEASURES)
    timings["expected"] = timed(runs, MEASURES, ties="expected")
    timings["range"] = timed(runs, MEASURES, ties="range")
    expected = _evaluate(runs, collection, MEASURES, ties="expected")
    ranged = _evaluate(runs, collection, MEASURES, ties="range")
    inside = ((expected["score"] >= ranged["score_min"] - 1e-12)
              & (expected["score"] <= ranged["score_max"] + 1e-12)) | expected["score"].isnull()
    assert bool(inside.all()), "an expected score lies outside its range"
    assert set(expected["ties_method"].values) == {"exact"}

    few = runs.isel(run=slice(0, max(1, runs.sizes["run"] // 10)))
    timings["ERR@10 plain, a tenth of the runs"] = timed(few, ["ERR@10"])
    timings[f"ERR@10 sampled ({args.samples} orders), a tenth of the runs"] = timed(
        few, ["ERR@10"], repeat=1, ties="expected", tie_samples=args.samples)

    print(f"\n{'evaluation':<52} {'wall (s)':>9} {'vs plain':>9}")
    for name, seconds in timings.items():
        base = timings["ERR@10 plain, a tenth of the runs"] if name.startswith("ERR") \
            else timings["plain"]
        print(f"{name:<52} {seconds:>9.2f} {seconds / base:>8.2f}x")
    spread = ranged["tie_spread"].mean("topic")
    print(f"\nlargest mean tie spread: {float(spread.max()):.4f} "
          f"({spread.where(spread == spread.max(), drop=True)['metric'].values[0]})")


if __name__ == "__main__":
    main()
