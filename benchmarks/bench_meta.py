"""Benchmark: xdiv's significance tests vs ranx and statsmodels on the same scores, and the
time and peak memory of ``xdiv meta`` as the number of replicates B grows.

Usage: python benchmarks/bench_meta.py
       python benchmarks/bench_meta.py --memory [--B 1000 10000 50000] [--baseline DIR]
                                           [--repeat 3]

Scores: 20 runs x 50 topics x 10 metrics (xdiv.datasets.synthetic, seed 3). Timed:
xdiv's paired bootstrap (B = 1000) and randomised Tukey HSD (B = 5000) over all metrics and
run pairs; ranx's Tukey HSD test and Fisher's randomisation test (its `compare`, per
metric; ranx evaluates 10 of its own adhoc metrics on the same runs, max-level qrels, and
tests every pair) and statsmodels' pairwise_tukeyhsd (per metric). Target: each xdiv test
< 2 s.

``--memory``: the score cube of the 18 TREC 2009 runs x 50 topics x 4 metrics
(alpha-nDCG@10, ERR-IA@10, I-rec@10, D#-nDCG@10; ``xdiv evaluate`` on
``../shared/reference/trec-web/2009``), then ``xdiv meta --test both -B B`` for each B in a
fresh process: wall time (best of ``--repeat``) and peak resident memory (ru_maxrss).
``--baseline DIR`` also runs the ``xdiv`` package found in DIR (an older checkout) on the
same cube, for before / after comparisons. Target: under 2 GiB at B = 50000.
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

import xdiv
from xdiv import meta

METRICS = ["I-rec@10", "alpha-nDCG@10", "nDCG-IA@10", "ERR-IA@10", "D-nDCG@10",
           "D#-nDCG@10", "DIN#-nDCG@10", "P+Q#@10", "Ef-P@10", "Q-IA@10"]


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


RANX_METRICS = ["ndcg@10", "ndcg_burges@10", "map@10", "precision@10", "recall@10",
                "mrr@10", "hit_rate@10", "f1@10", "r-precision", "hits@10"]


def ranx_inputs(col, runs):
    """The same synthetic runs and (max-level adhoc) qrels as ranx objects."""
    from ranx import Qrels, Run

    qrels = xdiv.qrels_frame(xdiv.to_adhoc(col, "max"))
    qrels = qrels[qrels.level > 0].astype({"level": int, "topic": object, "docno": object})
    ranx_qrels = Qrels.from_df(qrels, q_id_col="topic", doc_id_col="docno", score_col="level")
    frame = xdiv.runs_frame(runs).astype({"topic": object, "docno": object})
    ranx_runs = []
    for name, part in frame.groupby("run"):
        run = Run.from_df(part, q_id_col="topic", doc_id_col="docno", score_col="score")
        run.name = name
        ranx_runs.append(run)
    return ranx_qrels, ranx_runs


def ranx_compare(qrels, runs, stat_test, **kwargs):
    """ranx's compare: evaluates 10 of its metrics and tests every run pair."""
    from ranx import compare

    compare(qrels, runs, RANX_METRICS, stat_test=stat_test, **kwargs)


def statsmodels_tukey(scores):
    from statsmodels.stats.multicomp import pairwise_tukeyhsd

    for metric in scores.metric.values:
        table = scores.score.sel(metric=metric)
        values = table.values.ravel()
        groups = np.repeat(table.run.values, table.sizes["topic"])
        pairwise_tukeyhsd(values, groups)


ROOT = Path(__file__).resolve().parents[1]
TREC_2009 = ROOT / ".." / "shared" / "reference" / "trec-web" / "2009"
CUBE_METRICS = ["alpha-nDCG@10", "ERR-IA@10", "I-rec@10", "D#-nDCG@10"]

PEAK_RSS = """
import resource, subprocess, sys, time
start = time.perf_counter()
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(seconds, peak / 1024 if sys.platform != "darwin" else peak / 2 ** 20)
"""
"""Runs a command in a process of its own; prints its wall time (s) and peak RSS (MiB)."""


def trec_cube(directory: str) -> str:
    """The TREC 2009 score cube of the memory benchmark, written with ``xdiv evaluate``."""
    cube = os.path.join(directory, "cube.nc")
    subprocess.run([sys.executable, "-m", "xdiv.cli", "-q", "evaluate",
                    str(TREC_2009 / "qrels.diversity.gz"),
                    *sorted(glob.glob(str(TREC_2009 / "runs" / "*.gz"))), "-m", *CUBE_METRICS,
                    "--topics", str(TREC_2009 / "wt09.topics.full.xml"), "-o", cube],
                   check=True, stdout=subprocess.DEVNULL)
    return cube


def meta_cost(cube: str, B: int, pythonpath: str | None = None) -> tuple[float, float]:
    """Wall time (s) and peak RSS (MiB) of ``xdiv meta cube --test both -B B``."""
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    out = subprocess.run([sys.executable, "-c", PEAK_RSS, sys.executable, "-m", "xdiv.cli",
                          "-q", "meta", cube, "--test", "both", "-B", str(B)],
                         check=True, capture_output=True, text=True, env=env,
                         cwd=tempfile.gettempdir())
    seconds, mib = out.stdout.split()
    return float(seconds), float(mib)


def memory(Bs: list[int], baseline: str | None, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        cube = trec_cube(directory)
        print("xdiv meta --test both, TREC 2009: 18 runs x 50 topics x 4 metrics "
              "(153 run pairs per metric)")
        versions = [("this checkout", str(ROOT))]
        if baseline:
            versions.append(("baseline", os.path.abspath(baseline)))
        for B in Bs:
            for label, path in versions:
                costs = [meta_cost(cube, B, path) for _ in range(repeat)]
                seconds, mib = min(c[0] for c in costs), max(c[1] for c in costs)
                print(f"  B = {B:6d}  {label:14s} {seconds:7.2f} s  peak RSS {mib:7.0f} MiB")


def many_runs(n_runs: int) -> None:
    """``xdiv meta --test both`` (B = 1000 and 5000) over all pairs of ``n_runs`` synthetic
    runs x 50 topics x 4 metrics, each test in a fresh process: time and peak RSS."""
    with tempfile.TemporaryDirectory() as directory:
        cube = os.path.join(directory, "cube.nc")
        col, runs = xdiv.datasets.synthetic(n_topics=50, n_runs=n_runs, depth=20, seed=5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            xdiv.to_netcdf(xdiv.evaluate(runs, col, METRICS[:4]), cube)
        pairs = n_runs * (n_runs - 1) // 2
        print(f"xdiv meta, {n_runs} runs x 50 topics x 4 metrics ({pairs} run pairs per "
              "metric)")
        for test, B in (("bootstrap", 1000), ("tukey", 5000)):
            out = subprocess.run([sys.executable, "-c", PEAK_RSS, sys.executable, "-m",
                                  "xdiv.cli", "-q", "meta", cube, "--test", test, "-B", str(B)],
                                 check=True, capture_output=True, text=True,
                                 cwd=tempfile.gettempdir())
            seconds, mib = out.stdout.split()
            print(f"  {test:9s} B = {B:5d}  {float(seconds):7.1f} s  peak RSS "
                  f"{float(mib):6.0f} MiB")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory", action="store_true",
                        help="time and peak RSS of xdiv meta on TREC 2009 for each B")
    parser.add_argument("--B", type=int, nargs="+", default=[1000, 10000, 50000])
    parser.add_argument("--baseline", help="directory holding an older xdiv package")
    parser.add_argument("--repeat", type=int, default=3, help="--memory: runs per B (best time)")
    parser.add_argument("--runs", type=int,
                        help="time and peak RSS of xdiv meta over all pairs of this many runs")
    args = parser.parse_args()
    if args.runs:
        many_runs(args.runs)
        return
    if args.memory:
        memory(args.B, args.baseline, args.repeat)
        return
    warnings.simplefilter("ignore")
    col, runs = xdiv.datasets.synthetic(n_topics=50, n_runs=20, depth=100, seed=3)
    scores = xdiv.evaluate(runs, col, METRICS)
    q, r = ranx_inputs(col, runs)
    print("20 runs x 50 topics x 10 metrics (190 run pairs per metric)")
    rows = [
        ("xdiv paired bootstrap, B=1000", lambda: meta.bootstrap_test(scores, B=1000, seed=1)),
        ("xdiv randomised Tukey HSD, B=5000", lambda: meta.tukey_hsd(scores, B=5000, seed=1)),
        ("statsmodels pairwise_tukeyhsd", lambda: statsmodels_tukey(scores)),
        ("ranx Tukey HSD (compare, 10 metrics)", lambda: ranx_compare(q, r, "tukey")),
        ("ranx Fisher randomisation (1000 perm.)",
         lambda: ranx_compare(q, r, "fisher", n_permutations=1000)),
    ]
    for label, fn in rows:
        fn()  # warm (numba)
        print(f"  {label:40s} {min(timed(fn) for _ in range(2)):7.2f} s")


if __name__ == "__main__":
    main()
