"""Agreement with TREC's ndeval (pyndeval) under the names ndeval owns.

pyndeval ranks by score descending with ties by docno *ascending*; xdiv is asked for the
same order (``order="score-docno-asc"``) so tied scores are ranked alike. pyndeval maps -2
to non-relevant as xdiv does. Intents are given to pyndeval in numeric order, which makes
its intent index order (the float summation order of its greedy ideal) xdiv's.

Known, deliberate differences (each checked below):
* topics without relevant documents: ndeval 0 (nNRBP NaN), xdiv NaN;
* alpha-DCG@1 and ERR-IA@1: ndeval leaves rank 1 unnormalised (values up to N), xdiv
  divides by the ideal-ideal as at every other cutoff;
* nNRBP with alpha = 0 and beta = 1: ndeval 0/0 = NaN, xdiv the ratio of the sums (the
  zero prefactor cancels).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import xdiv

from ..helpers import diversity, random_diversity_frames

pyndeval = pytest.importorskip("pyndeval")

CUTS = [1, 2, 3, 5, 7, 10, 15, 20]


def _xdiv_name(name: str, alpha: float, beta: float) -> str:
    base, _, k = name.partition("@")
    args = []
    if base in ("alpha-DCG", "alpha-nDCG", "ERR-IA", "nERR-IA", "NRBP", "nNRBP") and alpha != 0.5:
        args.append(f"alpha={alpha}")
    if base in ("NRBP", "nNRBP") and beta != 0.5:
        args.append(f"beta={beta}")
    base = "I-rec" if base == "strec" else base
    text = base + (f"({','.join(args)})" if args else "") + (f"@{k}" if k else "")
    return xdiv.parse_measure(text).name


def _oracle(qrels: pd.DataFrame, runs: pd.DataFrame, measures, alpha, beta):
    ordered = qrels.assign(key=qrels["intent"].astype(int)).sort_values(["key", "topic"])
    q = [pyndeval.SubtopicQrel(t, i, d, max(int(lv), 0))
         for t, i, d, lv in ordered[["topic", "intent", "docno", "level"]].itertuples(index=False)]
    # one evaluator for every run: pyndeval reads the qrels once and evaluates each run
    # against them alone (what pyndeval.ndeval does per call; issue 35 item 18)
    evaluator = pyndeval.RelevanceEvaluator(q, measures, alpha=alpha, beta=beta)
    out = {}
    for name, frame in runs.groupby("run"):
        frame = frame.sort_values("topic", kind="stable")  # contiguous topic blocks
        run = [pyndeval.ScoredDoc(t, d, s)
               for t, d, s in zip(frame["topic"].tolist(), frame["docno"].tolist(),
                                  frame["score"].tolist())]
        out[name] = evaluator.evaluate(run)
    return out


def _compare(qrels, runs, measures, alpha=0.5, beta=0.5):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        col = xdiv.build_collection(qrels)
        scores = xdiv.evaluate(xdiv.build_runs(runs, order="score-docno-asc"), col,
                               [_xdiv_name(m, alpha, beta) for m in measures])
    oracle = _oracle(qrels, runs, measures, alpha, beta)
    no_rel = set(xdiv.core.labels.from_json(scores.attrs["topics_without_relevant"]))
    # plain arrays and dicts for the lookups (a label selection per value was most of the
    # test's time on the 2009 runs; issue 35 item 18)
    cube = scores.score.transpose("metric", "run", "topic")
    metric_at = {str(m): k for k, m in enumerate(cube["metric"].values)}
    run_at = {str(r): k for k, r in enumerate(cube["run"].values)}
    topic_at = {str(t): k for k, t in enumerate(cube["topic"].values)}
    values_of = cube.values
    valid = col.intent_valid.sum("intent")
    n_valid = dict(zip(map(str, valid["topic"].values), valid.values.tolist()))
    checked = 0
    for m in measures:
        table = values_of[metric_at[_xdiv_name(m, alpha, beta)]]
        for run, per_topic in oracle.items():
            row = table[run_at[run]]
            for topic, values in per_topic.items():
                got, want = float(row[topic_at[topic]]), values[m]
                if topic in no_rel:
                    assert math.isnan(got) and (want == 0 or math.isnan(want)), (m, topic)
                    continue
                if m.partition("@")[2] == "1" and m.partition("@")[0] in ("alpha-DCG", "ERR-IA"):
                    n = int(n_valid[topic])
                    assert got * n == pytest.approx(want, abs=1e-9), (m, run, topic)
                    continue
                if m == "nNRBP" and alpha == 0 and beta == 1:
                    assert math.isnan(want)
                    continue
                assert got == pytest.approx(want, abs=1e-9), (m, run, topic, got, want)
                checked += 1
    return checked


@pytest.mark.parametrize("seed, alpha, beta", [(0, 0.5, 0.5), (1, 0.5, 0.5), (2, 0.3, 0.8),
                                               (3, 0.8, 0.3), (4, 0.0, 1.0), (5, 1.0, 0.5)])
def test_random_collections_agree_with_ndeval(seed, alpha, beta):
    rng = np.random.default_rng(seed)
    qrels, runs = random_diversity_frames(rng, n_topics=10, n_runs=3)
    measures = ([f"{m}@{k}" for m in ["alpha-DCG", "alpha-nDCG", "ERR-IA", "nERR-IA", "P-IA",
                                      "strec"] for k in CUTS] + ["NRBP", "nNRBP", "MAP-IA"])
    assert _compare(qrels, runs, measures, alpha, beta) > 1000


def test_real_trec2009_runs_agree_with_ndeval(trec2009):
    col, runs = trec2009
    frame = xdiv.runs_frame(runs)
    frame["score"] = -frame["rank"].astype(float)  # xdiv's trec_eval order, tie-free
    qrels = xdiv.qrels_frame(col)
    measures = list(pyndeval.DEFAULT_MEASURES)
    assert _compare(qrels, frame, measures) == 18 * 50 * len(measures)


def test_greedy_ideal_ties_go_to_the_largest_docno():
    # ndeval's greedy ideal is C, B, A (ties to the largest docno), worse than optimal:
    # the run A, B, C beats it, so alpha-nDCG exceeds 1 exactly as in ndeval
    judgments = {"A": {"1": 1, "3": 1}, "B": {"2": 1, "4": 1}, "C": {"2": 1, "3": 1}}
    col, runs = diversity(judgments, ["A", "B", "C"])
    res = xdiv.evaluate(runs, col, ["alpha-nDCG@5", "nNRBP"])
    ndcg, nnrbp = res.score.values.ravel()
    assert ndcg > 1 and nnrbp > 1
    q = [pyndeval.SubtopicQrel("1", i, d, 1) for d, per in judgments.items() for i in per]
    r = [pyndeval.ScoredDoc("1", d, s) for d, s in zip("ABC", (3.0, 2.0, 1.0))]
    want = pyndeval.ndeval(q, r, measures=["alpha-nDCG@5", "nNRBP"])["1"]
    assert ndcg == pytest.approx(want["alpha-nDCG@5"], abs=1e-12)
    assert nnrbp == pytest.approx(want["nNRBP"], abs=1e-12)


def test_graded_forms_reduce_to_ndeval_under_binary_uniform_relevance():
    rng = np.random.default_rng(9)
    qrels, runs = random_diversity_frames(rng, n_topics=6, n_runs=2, max_level=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        col = xdiv.build_collection(qrels)
        res = xdiv.evaluate(xdiv.build_runs(runs), col, [
            "P-IA@10", "P-IA(ndeval=False)@10", "MAP-IA", "MAP-IA(ndeval=False)", "AP-IA",
            "alpha-nDCG@10", "alpha-nDCG(ndeval=False)@10"])
    s = res.score
    pairs = [("P-IA@10", "P-IA(ndeval=False)@10"), ("MAP-IA", "MAP-IA(ndeval=False)"),
             ("MAP-IA", "AP-IA"), ("alpha-nDCG@10", "alpha-nDCG(ndeval=False)@10")]
    for a, b in pairs:
        np.testing.assert_allclose(s.sel(metric=a), s.sel(metric=b), atol=1e-12)


def test_graded_err_ia_is_probability_weighted_graded_err():
    judgments = {"a": {"1": 2}, "b": {"2": 1}, "c": {"1": 1, "2": 2}}
    col, runs = diversity(judgments, ["b", "c", "a"], probabilities="nonuniform")
    res = xdiv.evaluate(runs, col, ["ERR-IA(ndeval=False)@3", "nERR-IA(ndeval=False)@3"])
    p1, p2 = 2 / 3, 1 / 3  # non-uniform: 2^2/6, 2^1/6
    h = 4  # (2^x - 1) / 2^H with H = 2
    err1 = 0 + (1 / 2) * (1 / h) + (1 / 3) * (3 / h) * (1 - 1 / h)
    err2 = (1 / h) + (1 / 2) * (3 / h) * (1 - 1 / h)
    ideal1 = 3 / h + (1 / 2) * (1 / h) * (1 - 3 / h)
    ideal2 = 3 / h + (1 / 2) * (1 / h) * (1 - 3 / h)
    got_err, got_nerr = res.score.values.ravel()
    assert got_err == pytest.approx(p1 * err1 + p2 * err2, abs=1e-12)
    assert got_nerr == pytest.approx(p1 * err1 / ideal1 + p2 * err2 / ideal2, abs=1e-12)
