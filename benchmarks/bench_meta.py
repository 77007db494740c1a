"""Benchmark: xdiv's significance tests vs ranx and statsmodels on the same scores.

Usage: python benchmarks/bench_meta.py

Scores: 20 runs x 50 topics x 10 metrics (xdiv.datasets.synthetic, seed 3). Timed:
xdiv's paired bootstrap (B = 1000) and randomised Tukey HSD (B = 5000) over all metrics and
run pairs; ranx's Tukey HSD test and Fisher's randomisation test (its `compare`, per
metric; ranx evaluates 10 of its own adhoc metrics on the same runs, max-level qrels, and
tests every pair) and statsmodels' pairwise_tukeyhsd (per metric). Target: each xdiv test
< 2 s.
"""

from __future__ import annotations

import time
import warnings

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


def main():
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
