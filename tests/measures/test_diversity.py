"""Diversity measures (spec §3): worked numbers, hand-computed values, properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xdiv

from ..helpers import diversity, score, scores

L2 = math.log2

# intents 1 (inf) and 2 (nav), uniform probabilities; gains 2^x - 1
TWO = {"a": {"1": 2}, "b": {"2": 1}, "c": {"1": 1, "2": 1}, "d": {"2": 2}, "n": {"0": 0}}
IDEAL_DCG = [1.5, 1.5 / L2(3), 1.0 / 2, 0.5 / L2(5)]  # GG* = 1.5, 1.5, 1.0, 0.5


def test_d_measures_on_two_intents_by_hand():
    col, runs = diversity(TWO, ["n", "b", "a", "d"], nav=("2",))
    d4 = (0.5 / L2(3) + 1.5 / 2 + 1.5 / L2(5)) / sum(IDEAL_DCG)
    din4 = (0.5 / L2(3) + 1.5 / 2) / sum(IDEAL_DCG)  # d is a second nav-relevant doc
    d2 = (0.5 / L2(3)) / sum(IDEAL_DCG[:2])
    assert score(col, runs, "D-nDCG@4") == pytest.approx(d4, abs=1e-12)
    assert score(col, runs, "DIN-nDCG@4") == pytest.approx(din4, abs=1e-12)
    assert score(col, runs, "I-rec@2") == 0.5 and score(col, runs, "I-rec@3") == 1.0
    assert score(col, runs, "D#-nDCG@2") == pytest.approx(0.5 * 0.5 + 0.5 * d2, abs=1e-12)
    assert score(col, runs, "D#-nDCG(gamma=0.8)@4") == pytest.approx(0.8 + 0.2 * d4)
    assert score(col, runs, "DIN#-nDCG@4") == pytest.approx(0.5 + 0.5 * din4, abs=1e-12)
    # D-Q@4: J = 0,1,1,1; cgg = 0, .5, 2, 3.5; cgg* = 1.5, 3, 4, 4.5; R = 4
    br = [(1 + 0.5) / (2 + 3), (2 + 2) / (3 + 4), (3 + 3.5) / (4 + 4.5)]
    assert score(col, runs, "D-Q@4") == pytest.approx(sum(br) / 4, abs=1e-12)
    # DIN-Q@4: J' = 0,1,1,0 (d is redundant for nav intent 2); DIN gg = 0, .5, 1.5, 0
    br_din = [(1 + 0.5) / (2 + 3), (2 + 2) / (3 + 4)]
    assert score(col, runs, "DIN-Q@4") == pytest.approx(sum(br_din) / 4, abs=1e-12)
    assert score(col, runs, "Ef-P@4") == pytest.approx(2 / 4)
    assert score(col, runs, "Prec@4") == pytest.approx(3 / 4)


def test_fig1_worked_numbers():
    col, runs = xdiv.datasets.example("fig1")
    res = xdiv.evaluate(runs, col, ["Ef-P@5", "P+Q@5", "Q-IA@5", "I-rec@5"])
    values = dict(zip(res.metric.values, res.score.values.ravel()))
    assert values["Ef-P@5"] == pytest.approx(0.6)
    assert values["P+Q@5"] == pytest.approx(values["Q-IA@5"], abs=1e-12)
    # rp = 4 for the nav intent j: P+_j sums BR at ranks 2 and 4 over C(4) = 2 = Q_j's R
    j = xdiv.evaluate(runs, col.sel(intent=["0", "2"]).pipe(_only_intent_valid, "2"),
                      ["P+@5", "Q@5"])
    pplus, q = j.score.values.ravel()
    assert pplus == pytest.approx(q, abs=1e-12)


def _only_intent_valid(col, intent):
    return col.assign(intent_valid=col.intent_valid & (col.intent == intent),
                      intent_prob=(col.intent == intent).astype(float) * col.intent_valid)


def test_fig1_rp_changes_when_rank2_is_l3_for_j():
    judgments = {"d1": {"1": 1}, "d2": {"1": 3, "2": 3}, "d3": {"0": 0}, "d4": {"2": 3},
                 "d5": {"1": 2}}
    col, runs = diversity(judgments, ["d1", "d2", "d3", "d4", "d5"], nav=("2",))
    assert score(col, runs, "P+Q@5") < score(col, runs, "Q-IA@5")


# ---------------------------------------------------------------- properties

@st.composite
def diversity_cases(draw):
    n_int = draw(st.integers(1, 4))
    n_docs = draw(st.integers(1, 12))
    judgments = {}
    for d in range(n_docs):
        per = {str(i + 1): draw(st.integers(0, 3)) for i in range(n_int)
               if draw(st.booleans())}
        judgments[f"d{d}"] = per or {"0": 0}
    for i in range(n_int):  # every intent keeps a relevant document
        judgments[f"r{i}"] = {str(i + 1): draw(st.integers(1, 3))}
    nav = tuple(str(i + 1) for i in range(n_int) if draw(st.booleans()))
    docs = list(judgments) + ["u1", "u2"]
    ranking = draw(st.permutations(docs))[: draw(st.integers(1, len(docs)))]
    probs = draw(st.sampled_from(["uniform", "nonuniform"]))
    return judgments, list(ranking), nav, probs, n_int


@settings(max_examples=60, deadline=None)
@given(case=diversity_cases(), cut=st.integers(1, 12))
def test_diversity_properties(case, cut):
    judgments, ranking, nav, probs, n_int = case
    col, runs = diversity(judgments, ranking, nav=nav, probabilities=probs)
    names = [f"{m}@{cut}" for m in ["D-nDCG", "D-Q", "DIN-nDCG", "DIN-Q", "I-rec", "Ef-P",
                                    "D#-nDCG", "D#-Q", "DIN#-nDCG", "P+Q", "Q-IA", "Prec"]]
    recall_names = [f"I-rec@{k}" for k in range(1, cut + 1)]
    # one evaluation for both checks (issue 35 item 18)
    v = scores(col, runs, list(dict.fromkeys(names + recall_names)))
    for m in ["D-nDCG", "I-rec", "Ef-P", "D-Q", "DIN-nDCG", "DIN-Q", "Prec"]:
        assert -1e-12 <= v[f"{m}@{cut}"] <= 1 + 1e-12, m
    if cut >= n_int:
        for m in ["D#-nDCG", "D#-Q", "DIN#-nDCG"]:
            assert -1e-12 <= v[f"{m}@{cut}"] <= 1 + 1e-12, m
    assert v[f"DIN-nDCG@{cut}"] <= v[f"D-nDCG@{cut}"] + 1e-12
    assert v[f"DIN-Q@{cut}"] <= v[f"D-Q@{cut}"] + 1e-12
    if not nav:
        assert v[f"DIN-nDCG@{cut}"] == pytest.approx(v[f"D-nDCG@{cut}"], abs=1e-12)
        assert v[f"DIN-Q@{cut}"] == pytest.approx(v[f"D-Q@{cut}"], abs=1e-12)
        assert v[f"P+Q@{cut}"] == pytest.approx(v[f"Q-IA@{cut}"], abs=1e-12)
    recall = [v[name] for name in recall_names]
    assert all(b >= a for a, b in zip(recall, recall[1:]))


@settings(max_examples=40, deadline=None)
@given(levels=st.lists(st.integers(0, 3), min_size=1, max_size=10), cut=st.integers(1, 10),
       seed=st.integers(0, 50))
def test_single_intent_d_ndcg_is_ndcg(levels, cut, seed):
    judgments = {f"d{k}": {"1": lv} for k, lv in enumerate(levels)}
    judgments["r"] = {"1": 2}
    ranking = list(np.random.default_rng(seed).permutation(list(judgments)))
    col, runs = diversity(judgments, ranking)
    v = scores(col, runs, [f"D-nDCG@{cut}", f"nDCG@{cut}", f"D-nDCG(gain=linear)@{cut}",
                            f"nDCG(gain=linear)@{cut}"])
    assert v[f"D-nDCG@{cut}"] == pytest.approx(v[f"nDCG@{cut}"], abs=1e-12)
    assert v[f"D-nDCG(gain=linear)@{cut}"] == pytest.approx(v[f"nDCG(gain=linear)@{cut}"],
                                                            abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(case=diversity_cases())
def test_globally_ideal_list_scores_one(case):
    judgments, _, nav, probs, _ = case
    col, _ = diversity(judgments, list(judgments), nav=nav, probabilities=probs)
    levels = col.level.sel(topic="1").values  # (intent, doc)
    gg = (col.intent_prob.sel(topic="1").values[:, None] * (2.0 ** levels - 1)).sum(axis=0)
    docs = col.docno.sel(topic="1").values
    ideal = [d for _, d in sorted(zip(-gg, docs)) if d]
    col, runs = diversity(judgments, ideal, nav=nav, probabilities=probs)
    for m, value in scores(col, runs, ["D-nDCG@5", "D-nDCG", "D-Q"]).items():
        assert value == pytest.approx(1.0, abs=1e-12), m
