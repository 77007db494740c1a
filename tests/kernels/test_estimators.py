"""statAP and inferred nDCG from sampled judgments with inclusion probabilities
(xdiv/kernels/estimators.py, xdiv/measures/estimators.py): worked examples computed by
hand, the expectations of the Horvitz-Thompson sums over every sample of a small design,
the reduction to AP and nDCG when every probability is 1, and the measures' errors.

What is exactly unbiased, and tested so: under independent (Poisson) sampling, R^, the
statAP numerator (R times AP), the estimated DCG@l and the estimated count of every level.
statAP and infNDCG themselves are ratios (infNDCG with a rounded ideal list): consistent,
not exactly unbiased, so their expectations are not tested.
"""

from __future__ import annotations

import doctest
import importlib
import itertools
import math
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import xdiv
from xdiv.kernels import estimators as E
from xdiv.kernels import graded as G
from xdiv.kernels.common import gain_table, ideal_levels

from ..helpers import random_adhoc_frames

MEASURES = "xdiv.measures.estimators"
R = importlib.import_module("xdiv.measures.registry")  # the module, not xdiv.registry


@pytest.fixture(scope="module")
def measures():
    """The estimator measures registered (xdiv.measures.estimators imported); the registry
    is left as it was found when this module had to import them."""
    R.load_families()
    loaded = MEASURES in sys.modules
    saved = dict(R._REGISTRY), dict(R._ALIASES)
    module = importlib.import_module(MEASURES)
    yield module
    if not loaded:
        R._REGISTRY.clear()
        R._REGISTRY.update(saved[0])
        R._ALIASES.clear()
        R._ALIASES.update(saved[1])
        sys.modules.pop(MEASURES, None)
        vars(sys.modules["xdiv.measures"]).pop("estimators", None)


def _d(rank: int) -> float:
    """The discount 1 / log2(rank + 1)."""
    return 1.0 / math.log2(rank + 1)


# ------------------------------------------------------------------ worked examples

# Topic slots (docno order): a level 1, pi 0.5 | b level 0, pi 0.5 | c level 1, pi 1 |
# d level 2, pi 0.25. The run ranks a, u (no qrels line), c, b, d.
LEVELS = np.array([1, 0, 1, 0, 2])
SLOT = np.array([0, -1, 2, 1, 3])
QRELS = np.array([1, 0, 1, 2])
PI = np.array([0.5, 0.5, 1.0, 0.25])
EXP = np.array([0.0, 1.0, 3.0])  # gains 2^x - 1 of levels 0..2


def test_stat_ap_worked_example():
    # R^ = 1/0.5 (a) + 1/1 (c) + 1/0.25 (d) = 7; b is not relevant
    assert E.estimated_relevant(QRELS, PI) == 7.0
    # rank 1, a: p^ = (1 + 0)/1 = 1, term 1/0.5 = 2
    # rank 3, c: p^ = (1 + 1/0.5)/3 = 1, term 1/1 = 1
    # rank 5, d: p^ = (1 + 2 + 1)/5 = 0.8, term 0.8/0.25 = 3.2
    assert E.stat_precision_sum(LEVELS, SLOT, PI) == pytest.approx(6.2, abs=1e-15)
    assert E.stat_ap(LEVELS, SLOT, QRELS, PI) == pytest.approx(6.2 / 7, abs=1e-15)


def test_stat_ap_counts_the_document_itself_once_and_the_ones_above_by_weight():
    # two sampled relevant documents, each drawn with probability 0.5, at ranks 1 and 2:
    # R^ = 4; p^(1) = 1, p^(2) = (1 + 2)/2 = 1.5; statAP = (1/0.5 + 1.5/0.5) / 4 = 1.25
    value = E.stat_ap(np.array([1, 1]), np.array([0, 1]), np.array([1, 1]),
                      np.array([0.5, 0.5]))
    assert value == pytest.approx(1.25, abs=1e-15)  # an estimate, not bounded by 1


def test_inferred_ndcg_worked_example():
    # estimated DCG: a 1/0.5 * 1/log2(2) = 2; c 1/1 * 1/log2(4) = 0.5; b gain 0;
    # d 3/0.25 * 1/log2(6)
    dcg = 2 + 0.5 + 12 * _d(5)
    assert E.estimated_dcg(LEVELS, SLOT, PI, cutoff=None, table=EXP) == pytest.approx(dcg)
    # counts: level 1: 1/0.5 + 1/1 = 3; level 2: 1/0.25 = 4 -> ideal 2, 2, 2, 2, 1, 1, 1
    assert E.estimated_grade_counts(QRELS, PI, highest=2).tolist() == [3.0, 4.0]
    ideal = 3 * (_d(1) + _d(2) + _d(3) + _d(4)) + _d(5) + _d(6) + _d(7)
    assert E.estimated_ideal_dcg(np.array([3.0, 4.0]), cutoff=None,
                                 table=EXP) == pytest.approx(ideal, abs=1e-14)
    assert E.inferred_ndcg(LEVELS, SLOT, QRELS, PI, cutoff=None,
                           table=EXP) == pytest.approx(dcg / ideal, abs=1e-14)
    # at 3: DCG@3 = 2 + 0.5, ideal DCG@3 = 3 (1 + 1/log2(3) + 1/2)
    assert E.inferred_ndcg(LEVELS, SLOT, QRELS, PI, cutoff=3, table=EXP) == pytest.approx(
        2.5 / (3 * (1 + _d(2) + 0.5)), abs=1e-14)


def test_ideal_counts_are_rounded_half_up_as_sample_eval_rounds_them():
    # 2.5 documents of level 1 -> 3; 1.49 of level 2 -> 1: ideal 2, 1, 1, 1
    ideal = E.estimated_ideal_dcg(np.array([2.5, 1.49]), cutoff=None, table=EXP)
    assert ideal == pytest.approx(3 * _d(1) + _d(2) + _d(3) + _d(4), abs=1e-14)
    # cut at 2: 2, 1
    assert E.estimated_ideal_dcg(np.array([2.5, 1.49]), cutoff=2,
                                 table=EXP) == pytest.approx(3 + _d(2), abs=1e-14)


def test_documents_without_a_sampled_judgment_only_take_up_their_rank():
    # the same ranked list with an unjudged document inserted at rank 1: every rank moves
    # down one; rank 2 (a): 1/2 / 0.5 = 1; rank 4 (c): (1 + 2)/4 = 0.75; rank 6 (d):
    # (1 + 3)/6 / 0.25 = 8/3; over R^ = 7
    levels, slot = np.r_[0, LEVELS], np.r_[-1, SLOT]
    assert E.stat_ap(levels, slot, QRELS, PI) == pytest.approx(
        (1 + 0.75 + 8 / 3) / 7, abs=1e-15)


def test_topics_without_a_sampled_relevant_document_are_nan():
    qrels = np.array([0, 0, 0, 0])
    assert np.isnan(E.stat_ap(LEVELS * 0, SLOT, qrels, PI))
    assert np.isnan(E.inferred_ndcg(LEVELS * 0, SLOT, qrels, PI, cutoff=None, table=EXP))


def test_inclusion_outside_the_unit_interval_is_not_a_sampled_judgment():
    assert E.inverse_inclusion(np.array([0.0, -0.5, 1.5, np.nan, np.inf, 0.5])).tolist() == [
        0.0, 0.0, 0.0, 0.0, 0.0, 2.0]


def test_discount_sums_of_any_length_equal_the_sums_rank_by_rank():
    # third audit, item 3: the ideal list of infNDCG is summed without a list of its ranks
    for n in (0, 1, 7, E.EXACT_DEPTH - 1, E.EXACT_DEPTH, E.EXACT_DEPTH + 1, 10 ** 5,
              3 * 10 ** 6):
        ranks = np.arange(1, n + 1, dtype=np.float64)
        expected = math.fsum((1.0 / np.log2(ranks + 1)).tolist())
        assert E.discount_sum(np.array(float(n))) == pytest.approx(expected, rel=1e-13, abs=0)


def test_huge_estimated_counts_give_a_finite_ideal_dcg_between_its_integral_bounds():
    # third audit, item 3: 2000 relevant documents of weight 2^53 each estimate 2000 * 2^53
    # (1.8e19) relevant documents, past int64: infNDCG raised IndexError
    n = 2000
    qrels = np.ones(n, dtype=np.int64)
    inclusion = np.full(n, 2.0 ** -53)
    levels, slot = np.ones(3, dtype=np.int64), np.arange(3)
    table = np.array([0.0, 1.0])
    value = E.inferred_ndcg(levels, slot, qrels, inclusion, cutoff=None, table=table)
    count = n * 2.0 ** 53
    # 1/log2(x + 1) decreases: its integral over [1, N + 1] <= sum_{r <= N} <= 1 + over [1, N]
    from scipy.special import expi

    def integral(x):  # of 1/log2(t + 1) dt from 1 to x: ln 2 (li(x + 1) - li(2))
        return math.log(2) * (expi(math.log(x + 1)) - expi(math.log(2)))

    dcg = 2.0 ** 53 * sum(_d(r) for r in (1, 2, 3))
    assert dcg / (1 + integral(count)) <= value <= dcg / integral(count + 1)
    assert E.inferred_ndcg(levels, slot, qrels, inclusion, cutoff=2, table=table) == (
        pytest.approx((1 + _d(2)) * 2.0 ** 53 / (1 + _d(2)), rel=1e-12))


# ------------------------------------------------------------------ every sample of a design

def _samples(pi: np.ndarray):
    """Every sample of independent inclusions with probabilities ``pi``: the inclusion
    indicators ``(2^n, n)`` and the probability of each sample."""
    included = np.array(list(itertools.product([False, True], repeat=len(pi))))
    weight = np.where(included, pi, 1 - pi).prod(axis=1)
    return included, weight


@pytest.mark.parametrize("case", range(4))
def test_horvitz_thompson_sums_are_unbiased_over_every_sample(case):
    rng = np.random.default_rng(100 + case)
    n = 8  # documents of the population; 2^8 samples
    level = rng.integers(0, 4, size=n) * (rng.random(n) < 0.7)
    pi = rng.uniform(0.15, 1.0, size=n)
    pi[rng.integers(n)] = 1.0
    # the run: population documents in a random order with 3 outsiders (no qrels line ever)
    ranked = rng.permutation(np.r_[np.arange(n), -1, -1, -1])[: n + 1]
    included, weight = _samples(pi)
    assert weight.sum() == pytest.approx(1.0, abs=1e-15)
    # a sample as the kernels see it, one sample per row: slots of the unsampled documents
    # have no line (inclusion NaN, level 0), ranked unsampled documents have slot -1
    inclusion = np.where(included, pi, np.nan)
    qrels = np.where(included, level, 0)
    slot = np.where(ranked >= 0, ranked, -1)[None, :].repeat(len(included), axis=0)
    slot = np.where((slot >= 0) & np.take_along_axis(included, np.maximum(slot, 0), axis=1),
                    slot, -1)
    levels = np.where(slot >= 0, level[np.maximum(slot, 0)], 0)

    def expectation(values):
        return float((np.asarray(values) * weight).sum())

    # the truth, from complete judgments
    true_levels = np.where(ranked >= 0, level[np.maximum(ranked, 0)], 0)
    relevant = true_levels > 0
    total = int((level > 0).sum())
    ap_numerator = float(np.sum(np.cumsum(relevant) / np.arange(1, len(ranked) + 1) * relevant))
    table = gain_table("exp", 3)

    assert expectation(E.estimated_relevant(qrels, inclusion)) == pytest.approx(total, abs=1e-12)
    assert expectation(E.stat_precision_sum(levels, slot, inclusion)) == pytest.approx(
        ap_numerator, abs=1e-12)
    for cutoff in (None, 1, 4):
        truth = G.dcg(true_levels[:cutoff], table)
        estimate = E.estimated_dcg(levels, slot, inclusion, cutoff=cutoff, table=table)
        assert expectation(estimate) == pytest.approx(truth, abs=1e-12)
    counts = E.estimated_grade_counts(qrels, inclusion, highest=3)
    for g in (1, 2, 3):
        assert expectation(counts[:, g - 1]) == pytest.approx((level == g).sum(), abs=1e-12)


# ------------------------------------------------------------------ every probability 1

def test_with_every_probability_one_the_kernels_are_ap_and_ndcg():
    rng = np.random.default_rng(11)
    runs, topics, depth, docs = 5, 7, 30, 40
    qrels = (rng.integers(0, 4, size=(topics, docs)) * (rng.random((topics, docs)) < 0.4))
    qrels[-1] = 0  # a topic without relevant documents: NaN
    slot = rng.integers(-1, docs, size=(runs, topics, depth))
    # no document twice in a list
    for r, t in itertools.product(range(runs), range(topics)):
        slot[r, t] = np.where(rng.random(depth) < 0.3, -1, rng.permutation(docs)[:depth])
    levels = np.where(slot >= 0, np.take_along_axis(np.broadcast_to(qrels, slot.shape[:2]
                                                                    + (docs,)),
                                                    np.maximum(slot, 0), axis=-1), 0)
    inclusion = np.ones((topics, docs))
    ideal = ideal_levels(qrels)
    table = gain_table("exp", 3)
    ap = G.q_measure(levels, ideal, cutoff=None, table=table, beta=0.0)
    stat = E.stat_ap(levels, slot, qrels, inclusion)
    np.testing.assert_allclose(stat, ap, rtol=0, atol=1e-12, equal_nan=True)
    assert np.isnan(stat[:, -1]).all() and not np.isnan(stat[:, :-1]).any()
    for cutoff, gains in itertools.product((None, 1, 5, 10), ("exp", "linear", (1, 5, 9))):
        table = gain_table(gains, 3)
        ndcg = G.ndcg(levels, ideal, cutoff=cutoff, table=table)
        inferred = E.inferred_ndcg(levels, slot, qrels, inclusion, cutoff=cutoff, table=table)
        np.testing.assert_allclose(inferred, ndcg, rtol=0, atol=1e-12, equal_nan=True)


def _prels_file(path, qrels: pd.DataFrame, probability) -> None:
    """Write ``qrels`` (topic intent docno level) as a 4-field prels file."""
    lines = [f"{t} {d} {lv} {float(p)!r}" for t, d, lv, p in
             zip(qrels["topic"], qrels["docno"], qrels["level"], probability)]
    path.write_text("\n".join(lines) + "\n")


NAMES = [("statAP", "AP"), ("infNDCG", "nDCG"), ("infNDCG@10", "nDCG@10"),
         ("infNDCG@3", "nDCG@3"), ("infNDCG(gain=linear)@5", "nDCG(gain=linear)@5"),
         ("infNDCG(gain=(1,2,4,8))", "nDCG(gain=(1,2,4,8))"),
         ("infNDCG(adhoc=count)@10", "nDCG(adhoc=count)@10")]


def test_with_every_probability_one_the_measures_are_ap_and_ndcg(measures, tmp_path):
    rng = np.random.default_rng(5)
    qrels, frame = random_adhoc_frames(rng, 12, 6, depth=40, pool=50)
    _prels_file(tmp_path / "prels", qrels, np.ones(len(qrels)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        collection = xdiv.read_prels(tmp_path / "prels")
        scores = xdiv.evaluate(xdiv.build_runs(frame), collection,
                               [name for pair in NAMES for name in pair])
    for estimator, exact in NAMES:
        np.testing.assert_allclose(scores.score.sel(metric=estimator).values,
                                   scores.score.sel(metric=exact).values, rtol=0, atol=1e-12,
                                   equal_nan=True, err_msg=estimator)
    assert np.isfinite(scores.score.sel(metric="statAP").values).sum() > 40


# ------------------------------------------------------------------ the labelled measures

def _stat_ap_reference(ranking, judged):
    """statAP of one ranked list as statAP_MQ_eval_v3.pl computes it, line by line:
    ``judged`` maps docno -> (level, probability)."""
    estimated = sum(1 / p for level, p in judged.values() if level > 0)
    above = up = 0.0
    for rank, docno in enumerate(ranking, start=1):
        level, p = judged.get(docno, (0, None))
        if level > 0:
            up += (1 + above) / rank / p
            above += 1 / p
    return up / estimated if estimated > 0 else math.nan


def _inferred_ndcg_reference(ranking, judged, cutoff, gains):
    """infNDCG of one ranked list, line by line; ``gains`` by level."""
    top = ranking if cutoff is None else ranking[:cutoff]
    dcg = sum(gains[judged[d][0]] / judged[d][1] * _d(r)
              for r, d in enumerate(top, start=1) if d in judged)
    counts = {}
    for level, p in judged.values():
        if level > 0:
            counts[level] = counts.get(level, 0.0) + 1 / p
    ideal_list = [g for g in sorted(counts, reverse=True) for _ in range(int(counts[g] + 0.5))]
    ideal_list = ideal_list if cutoff is None else ideal_list[:cutoff]
    ideal = sum(gains[g] * _d(r) for r, g in enumerate(ideal_list, start=1))
    return dcg / ideal if counts else math.nan


def test_the_measures_equal_the_definitions_on_random_samples(measures, tmp_path):
    rng = np.random.default_rng(8)
    qrels, frame = random_adhoc_frames(rng, 8, 4, depth=25, pool=30)
    probability = np.round(rng.uniform(0.05, 1.0, size=len(qrels)), 4)
    probability[rng.random(len(qrels)) < 0.2] = 1.0
    _prels_file(tmp_path / "prels", qrels, probability)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        collection = xdiv.read_prels(tmp_path / "prels")
        runs = xdiv.build_runs(frame)
        scores = xdiv.evaluate(runs, collection, ["statAP", "infNDCG", "infNDCG@5"])
    judged = {}
    for (t, d, lv), p in zip(qrels[["topic", "docno", "level"]].itertuples(index=False),
                             probability):
        judged.setdefault(str(t), {})[d] = (int(lv), float(p))
    gains = {g: 2.0 ** g - 1 for g in range(5)}
    ranked = xdiv.runs_frame(runs)
    checked = 0
    for (run, topic), part in ranked.groupby(["run", "topic"]):
        ranking = part.sort_values("rank")["docno"].tolist()
        here = judged.get(str(topic), {})
        value = scores.score.sel(run=run, topic=topic)
        expected = [_stat_ap_reference(ranking, here),
                    _inferred_ndcg_reference(ranking, here, None, gains),
                    _inferred_ndcg_reference(ranking, here, 5, gains)]
        np.testing.assert_allclose(value.values, expected, rtol=1e-12, atol=1e-12,
                                   equal_nan=True, err_msg=f"{run} {topic}")
        checked += 1
    assert checked == 4 * 8


def test_a_run_scores_the_same_bits_whichever_runs_it_is_evaluated_with(measures, tmp_path):
    rng = np.random.default_rng(3)
    qrels, frame = random_adhoc_frames(rng, 6, 3, depth=120, pool=150)
    _prels_file(tmp_path / "prels", qrels, rng.uniform(0.1, 1.0, size=len(qrels)).round(3))
    names = ["statAP", "infNDCG", "infNDCG@10"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        collection = xdiv.read_prels(tmp_path / "prels")
        together = xdiv.evaluate(xdiv.build_runs(frame), collection, names)
        for run, part in frame.groupby("run"):
            alone = xdiv.evaluate(xdiv.build_runs(part), collection, names)
            assert np.array_equal(alone.score.sel(run=run).values,
                                  together.score.sel(run=run).values, equal_nan=True), run


@pytest.mark.parametrize("name", ["statAP", "infNDCG@10", "infNDCG(gain=linear)"])
def test_a_collection_without_inclusion_probabilities_is_a_one_line_error(measures, name):
    collection, runs = xdiv.datasets.synthetic(n_topics=3, n_runs=2, depth=10, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        with pytest.raises(xdiv.MeasureError) as error:
            xdiv.evaluate(runs, collection, [name])
    message = str(error.value)
    base = name.split("(")[0].split("@")[0]
    assert message == (f"{base} needs sampled judgments with inclusion probabilities: read "
                       "them with xdiv.read_prels (xdiv evaluate --prels)")
    assert "\n" not in message


def test_the_measures_are_registered_single_intent_measures(measures):
    stat = xdiv.parse_measure("statAP")
    assert stat.definition.family == "graded" and stat.cutoff is None
    assert [p.name for p in stat.definition.params] == ["adhoc"]
    assert xdiv.parse_measure("infNDCG(gain=linear)@10").name == "infNDCG(gain=linear)@10"
    with pytest.raises(xdiv.MeasureError, match="takes no cutoff"):
        xdiv.parse_measure("statAP@10")
    for name in ("statAP", "infNDCG"):
        definition = xdiv.parse_measure(name).definition
        assert definition.doc.strip() and definition.formula and definition.reference


@pytest.mark.parametrize("module", ["xdiv.kernels.estimators", MEASURES, "xdiv.io.prels"])
def test_docstring_examples(measures, module):
    with warnings.catch_warnings():
        warnings.simplefilter("error", xdiv.XdivWarning)
        result = doctest.testmod(importlib.import_module(module),
                                 optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
