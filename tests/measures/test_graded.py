"""Traditional graded measures: hand-computed values, spec worked numbers, properties."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import xarray as xr
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xdiv

from ..helpers import adhoc, score, scores


def test_ndcg_by_hand():
    col, runs = adhoc({"a": 2, "b": 1, "c": 0}, ["c", "b", "a"])
    dcg = 1 / math.log2(3) + 3 / math.log2(4)
    ideal = 3 + 1 / math.log2(3)
    assert score(col, runs, "nDCG@3") == pytest.approx(dcg / ideal, abs=1e-12)
    lin = (1 / math.log2(3) + 2 / math.log2(4)) / (2 + 1 / math.log2(3))
    assert score(col, runs, "nDCG(gain=linear)@3") == pytest.approx(lin, abs=1e-12)
    explicit = (5 / math.log2(3) + 10 / math.log2(4)) / (10 + 5 / math.log2(3))
    assert score(col, runs, "nDCG(gain=(5,10))@3") == pytest.approx(explicit, abs=1e-12)


def test_dcg_and_idcg_by_hand():
    """DCG and IDCG are nDCG's numerator and denominator, with its gains and cutoffs."""
    col, runs = adhoc({"a": 2, "b": 1, "c": 0}, ["c", "b", "a"])
    dcg, ideal = 1 / math.log2(3) + 3 / math.log2(4), 3 + 1 / math.log2(3)
    assert score(col, runs, "DCG@3") == pytest.approx(dcg, abs=1e-12)
    assert score(col, runs, "IDCG@3") == pytest.approx(ideal, abs=1e-12)
    assert score(col, runs, "DCG@1") == 0.0
    assert score(col, runs, "IDCG(gain=linear)@1") == 2.0
    assert score(col, runs, "DCG(gain=linear)") == pytest.approx(
        1 / math.log2(3) + 2 / math.log2(4), abs=1e-12)


def test_case_g_ndcg_of_one_l2_document_at_rank_2():
    # seed 000 Case G: gain 2^2-1 = 3 at rank 2 over ideal 3 at rank 1 = log 2 / log 3
    col, runs = adhoc({"n": 0, "x": 2}, ["n", "x"])
    assert score(col, runs, "nDCG@10") == pytest.approx(math.log(2) / math.log(3), abs=1e-12)
    assert round(score(col, runs, "nDCG@10"), 3) == 0.631
    col, runs = xdiv.datasets.example("case_g")
    per_intent = xdiv.evaluate(runs, col, ["nDCG-IA@10"])
    assert float(per_intent.score.squeeze()) == pytest.approx(math.log(2) / math.log(3) / 4)
    assert round(float(per_intent.score.squeeze()), 3) == 0.158


def test_q_ap_by_hand():
    # levels: rank1 L1, rank2 nonrel, rank3 L2; R = 3 (an unretrieved L1 doc)
    col, runs = adhoc({"a": 1, "b": 0, "c": 2, "d": 1}, ["a", "b", "c"])
    # gains exp: 1, 0, 3; ideal gains 3, 1, 1 -> cg* 3, 4, 5
    br1 = (1 + 1) / (1 + 3)
    br3 = (2 + 4) / (3 + 5)
    assert score(col, runs, "Q") == pytest.approx((br1 + br3) / 3, abs=1e-12)
    assert score(col, runs, "Q@2") == pytest.approx(br1 / 2, abs=1e-12)
    assert score(col, runs, "AP") == pytest.approx((1 + 2 / 3) / 3, abs=1e-12)
    assert score(col, runs, "AP@2") == pytest.approx(1 / 2, abs=1e-12)
    assert score(col, runs, "AP(denominator=R)@2") == pytest.approx(1 / 3, abs=1e-12)
    assert score(col, runs, "Q(beta=0)@3") == score(col, runs, "AP@3")


def test_p_plus_by_hand():
    # ranks: L1, L2, nonrel, L2 -> highest level in top 4 is L2, first at rank 2: rp = 2
    col, runs = adhoc({"a": 1, "b": 2, "c": 0, "d": 2}, ["a", "b", "c", "d"])
    # gains 1, 3, 0, 3; ideal 3, 3, 1 -> cg* 3, 6, 7
    br1, br2 = (1 + 1) / (1 + 3), (2 + 4) / (2 + 6)
    assert score(col, runs, "P+@4") == pytest.approx((br1 + br2) / 2, abs=1e-12)
    col, runs = adhoc({"a": 1, "z": 2}, ["c", "q"])
    assert score(col, runs, "P+@2") == 0.0


def test_err_lower_bound_and_value():
    for top in (1, 2, 3, 4):
        levels = {"a": top, "b": 4, "c": 1}
        col, runs = adhoc(levels, ["b", "a", "c"])
        H = 4
        assert score(col, runs, "ERR@3") >= (2 ** H - 1) / 2 ** H
    col, runs = adhoc({"a": 1, "b": 2}, ["a", "b"])
    p1, p2 = 1 / 4, 3 / 4
    err = p1 + 0.5 * p2 * (1 - p1)
    ideal = p2 + 0.5 * p1 * (1 - p2)
    assert score(col, runs, "ERR@2") == pytest.approx(err, abs=1e-12)
    assert score(col, runs, "nERR@2") == pytest.approx(err / ideal, abs=1e-12)


def test_gap_three_levels_by_hand():
    # H = 3, uniform thresholds: q = (1/3, 2/3, 1). Run levels 2, 0, 3, 1;
    # qrels hold one more L1 document: R_1 = 2, R_2 = 1, R_3 = 1.
    col, runs = adhoc({"a": 2, "b": 0, "c": 3, "d": 1, "e": 1}, ["a", "b", "c", "d"])
    numerator = (2 / 3) / 1 + 0 + (2 / 3 + 0 + 1) / 3 + (1 / 3 + 0 + 1 / 3 + 1 / 3) / 4
    denominator = 2 * (1 / 3) + 2 / 3 + 1
    assert numerator / denominator == pytest.approx(53 / 84)
    assert score(col, runs, "GAP") == pytest.approx(53 / 84, abs=1e-12)
    # all thresholds at level 1 (q = 1, 1, 1) is binary AP
    assert score(col, runs, "GAP(thresholds=(1,0,0))") == pytest.approx(
        score(col, runs, "AP"), abs=1e-12)
    assert score(col, runs, "GAP(q=(1,1,1))") == pytest.approx(score(col, runs, "AP"))


def test_simple_measures_by_hand():
    col, runs = adhoc({"a": 1, "b": 0, "c": 2}, ["b", "x", "c", "a"])
    assert score(col, runs, "P@5") == pytest.approx(2 / 5)
    assert score(col, runs, "RR") == pytest.approx(1 / 3)
    assert score(col, runs, "RR@2") == 0.0
    assert score(col, runs, "Hit@2") == 0.0 and score(col, runs, "Hit@3") == 1.0
    rbp = 0.2 * (0.8 ** 2 * 3 + 0.8 ** 3 * 1) / 3
    assert score(col, runs, "RBP") == pytest.approx(rbp, abs=1e-12)
    rbp9 = 0.1 * (0.9 ** 2 * 3 + 0.9 ** 3 * 1) / 3
    assert score(col, runs, "RBP(p=0.9)") == pytest.approx(rbp9, abs=1e-12)


def test_no_relevant_topic_is_nan_for_every_measure():
    col, runs = adhoc({"a": 0, "b": -2}, ["a", "b"])
    values = scores(col, runs, ["nDCG@5", "Q@5", "AP", "P+@5", "ERR@5", "nERR@5", "GAP",
                                "nGAP@5", "P@5", "RR", "Hit@5", "RBP"])
    for m, value in values.items():
        assert math.isnan(value), m


def test_adhoc_measure_on_diversity_collection_reads_max_by_default():
    col, runs = xdiv.datasets.example("fig1")
    default = xdiv.evaluate(runs, col, ["nDCG@5"])
    xr.testing.assert_identical(default.score,
                                xdiv.evaluate(runs, col, ["nDCG@5"], adhoc="max").score)
    assert '"adhoc": "max"' in str(default.params.values[0])
    # max conversion: d1 L1, d2 L3, d3 0, d4 L3, d5 L2
    value = float(default.score.squeeze())
    gains = [1, 7, 0, 7, 3]
    ideal = [7, 7, 3, 1, 0]
    disc = [1 / math.log2(r + 2) for r in range(5)]
    assert value == pytest.approx(np.dot(gains, disc) / np.dot(ideal, disc))
    count = xdiv.to_adhoc(col, "count")
    assert count.level.sel(topic="1").values.max() == 2  # d2 relevant to both intents


# ---------------------------------------------------------------- properties

levels_st = st.lists(st.integers(0, 4), min_size=1, max_size=25)


def _case(levels, perm_seed=0, extra=0):
    judgments = {f"d{i}": lv for i, lv in enumerate(levels)}
    for k in range(extra):
        judgments[f"e{k}"] = 1 + k % 3
    return judgments


NORMALISED = ["nDCG@10", "Q@10", "Q", "AP", "AP@10", "P+@10", "nERR@10", "ERR@10", "GAP",
              "nGAP@10", "P@10", "RR", "Hit@10", "RBP", "nDCG(gain=linear)@5"]


@settings(max_examples=40, deadline=None)
@given(levels=levels_st, cut=st.integers(1, 30), extra=st.integers(0, 3), seed=st.integers(0, 99))
def test_normalised_measures_in_unit_interval(levels, cut, extra, seed):
    judgments = _case(levels, extra=extra)
    if max(judgments.values()) == 0:
        return
    ranking = list(np.random.default_rng(seed).permutation([f"d{i}" for i in range(len(levels))]))
    col, runs = adhoc(judgments, ranking[:cut])
    res = xdiv.evaluate(runs, col, NORMALISED)
    values = res.score.values.ravel()
    assert np.all((values >= -1e-12) & (values <= 1 + 1e-12)), dict(zip(NORMALISED, values))


@settings(max_examples=40, deadline=None)
@given(levels=levels_st, extra=st.integers(0, 3))
def test_ideal_run_scores_one(levels, extra):
    judgments = _case(levels, extra=extra)
    if max(judgments.values()) == 0:
        return
    ideal = sorted(judgments, key=lambda d: (-judgments[d], d))
    col, runs = adhoc(judgments, ideal)
    values = scores(col, runs, ["nDCG@10", "nDCG", "Q@10", "Q", "nERR@10", "nGAP@10", "GAP",
                                "AP"])
    for m, value in values.items():
        assert value == pytest.approx(1.0, abs=1e-12), m


@settings(max_examples=40, deadline=None)
@given(levels=levels_st, seed=st.integers(0, 99))
def test_permuting_nonrelevant_below_last_relevant(levels, seed):
    judgments = _case(levels)
    if max(judgments.values()) == 0:
        return
    order = sorted(judgments, key=lambda d: judgments[d] == 0)  # relevant first
    n_rel = sum(v > 0 for v in judgments.values())
    tail = list(np.random.default_rng(seed).permutation(order[n_rel:])) + ["u1", "u2"]
    measures = ["nDCG@10", "Q@10", "nERR@10", "nGAP@10", "AP", "GAP", "P+@10"]
    first, second = _two_rankings(judgments, order[:n_rel] + tail,
                                  order[:n_rel] + tail[::-1], measures)
    for m in measures:
        assert first[m] == pytest.approx(second[m], abs=1e-12), m


@settings(max_examples=40, deadline=None)
@given(levels=levels_st, seed=st.integers(0, 99), cut=st.integers(1, 10))
def test_adding_relevant_document_at_the_end_never_lowers_ndcg(levels, seed, cut):
    judgments = _case(levels, extra=1)  # e0 is relevant (L1) and not yet retrieved
    ranking = [d for d in np.random.default_rng(seed).permutation(list(judgments))
               if d != "e0"][:cut]
    before, after = (v["nDCG"] for v in _two_rankings(judgments, ranking, ranking + ["e0"],
                                                      ["nDCG"]))
    assert after >= before - 1e-12


def _two_rankings(judgments: dict[str, int], first: list[str], second: list[str],
                  measures: list[str]) -> tuple[dict[str, float], dict[str, float]]:
    """``{measure: score}`` of each ranking on the one-topic collection of ``judgments``,
    both runs scored in one evaluation (a run's scores do not depend on the runs beside
    it, tests/measures/test_bit_stability.py; issue 35 item 18)."""
    qrels = pd.DataFrame({"topic": "1", "intent": "0", "docno": list(judgments),
                          "level": list(judgments.values())})
    with warnings.catch_warnings():  # as tests/helpers.py's adhoc builds it
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        col = xdiv.build_collection(qrels)
    frame = pd.DataFrame([(name, "1", d, float(len(ranking) - k))
                          for name, ranking in (("a", first), ("b", second))
                          for k, d in enumerate(ranking)],
                         columns=["run", "topic", "docno", "score"])
    res = xdiv.evaluate(xdiv.build_runs(frame), col, measures).score.sel(topic="1")
    return tuple({m: float(res.sel(run=run, metric=m)) for m in measures}
                 for run in ("a", "b"))
