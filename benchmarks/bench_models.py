"""Benchmark: the linear mixed model of a score cube (xdiv.stats.mixed, statsmodels'
MixedLM) on 18 runs × 50 topics (the TREC 2009 diversity task's size) and 300 runs × 200
topics.

Usage: python benchmarks/bench_models.py [--repeat 3] [--sizes 18x50 300x200]

Scores: run effects, topic effects and noise drawn with numpy (seed 0), one metric. Timed
(best of ``--repeat``): ``xdiv.stats.mixed(cube, metric)``, the whole call (statsmodels'
REML fit, the run means with their intervals, the Tukey-adjusted contrasts of every run
pair, the variance components and the diagnostic), and, for comparison, statsmodels'
formula interface fitting the same model from its own starting values
(``--statsmodels``). Targets: 18 × 50 under 5 s, 300 × 200 under 60 s on 2 cores.
OpenBLAS's threads slow the many small matrix products of MixedLM down when the cores
are busy: set ``OPENBLAS_NUM_THREADS=1`` to compare (the script prints the setting).
"""

from __future__ import annotations

import argparse
import os
import warnings

import numpy as np
import xarray as xr

import xdiv
from xdiv import stats
from timing import best_time


def cube(n_runs: int, n_topics: int, seed: int = 0) -> xr.Dataset:
    rng = np.random.default_rng(seed)
    values = (0.3 + rng.normal(0, 0.08, (n_runs, 1)) + rng.normal(0, 0.15, (1, n_topics))
              + rng.normal(0, 0.1, (n_runs, n_topics)))
    return xr.Dataset({"score": (("metric", "run", "topic"), values[None])},
                      coords={"metric": ["m"], "run": [f"run{i}" for i in range(n_runs)],
                              "topic": [f"t{i}" for i in range(n_topics)]})


def formula_fit(scores: xr.Dataset):
    import statsmodels.formula.api as smf

    frame = stats.tidy(scores, "m")
    return smf.mixedlm("score ~ 0 + C(run)", frame, groups="topic").fit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", nargs="+", default=["18x50", "300x200"])
    parser.add_argument("--statsmodels", action="store_true",
                        help="also time statsmodels' formula fit of the same model")
    args = parser.parse_args()
    print(f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', '(unset)')}; "
          f"best of {args.repeat}")
    targets = {"18x50": 5.0, "300x200": 60.0}
    warnings.simplefilter("ignore", xdiv.XdivWarning)
    for size in args.sizes:
        n_runs, n_topics = map(int, size.split("x"))
        scores = cube(n_runs, n_topics)
        seconds = best_time(stats.mixed, scores, "m", repeat=args.repeat)
        target = f" (target < {targets[size]:g} s)" if size in targets else ""
        print(f"xdiv.stats.mixed, {n_runs} runs x {n_topics} topics: {seconds:8.3f} s{target}")
        if args.statsmodels:
            seconds = best_time(formula_fit, scores, repeat=args.repeat)
            print(f"statsmodels mixedlm formula fit, same data:    {seconds:8.3f} s")


if __name__ == "__main__":
    main()
