"""The tie kernels against full enumeration of the tie orders of small random lists."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from xdiv.kernels import graded as G
from xdiv.kernels import ndeval as N
from xdiv.kernels import ties as T
from xdiv.kernels.common import gain_table, ideal_levels


def _orders(start: np.ndarray):
    """Every order of the tie groups of one list: arrays of old ranks."""
    end = T.group_ends(start)
    groups = [list(range(s, e)) for s, e in sorted(set(zip(start.tolist(), end.tolist())))]
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield np.array([r for part in parts for r in part])


def _random_list(rng, k=8, levels=3, intents=None):
    score = rng.integers(0, 4, size=k).astype(float)
    score = -np.sort(-score)
    shape = (k,) if intents is None else (k, intents)
    level = rng.integers(0, levels, size=shape) * (rng.random(shape) < 0.6)
    return score, level.astype(np.int8)


def test_tie_starts_and_ends():
    start = T.tie_starts(np.array([[3.0, 3.0, 2.0, 1.0, 1.0, 1.0, np.nan, np.nan]]))
    assert start.tolist() == [[0, 0, 2, 3, 3, 3, 6, 7]]
    assert T.group_ends(start).tolist() == [[2, 2, 3, 6, 6, 6, 7, 8]]


@pytest.mark.parametrize("seed", range(40))
def test_single_intent_expectations_equal_enumeration(seed):
    rng = np.random.default_rng(seed)
    score, level = _random_list(rng, k=int(rng.integers(4, 9)))
    qrels = np.concatenate([level, rng.integers(0, 3, size=4).astype(np.int8)])
    if not (qrels > 0).any():
        qrels[0] = 1
    ideal = ideal_levels(qrels)
    start = T.tie_starts(score)
    table = gain_table("exp", 2)
    cutoff = int(rng.integers(1, len(score) + 2))
    orders = list(_orders(start))
    cases = [
        (lambda lv: G.ndcg(lv, ideal, cutoff=cutoff, table=table),
         T.expected_ndcg(level, ideal, start, cutoff=cutoff, table=table)),
        (lambda lv: G.precision(lv, ideal, cutoff=cutoff),
         T.expected_precision(level, ideal, start, cutoff=cutoff)),
        (lambda lv: G.rbp(lv, ideal, cutoff=cutoff, table=table, p=0.8),
         T.expected_rbp(level, ideal, start, cutoff=cutoff, table=table, p=0.8)),
        (lambda lv: G.q_measure(lv, ideal, cutoff=cutoff, table=table, beta=1.0),
         T.expected_q(level, ideal, start, cutoff=cutoff, table=table, beta=1.0)),
        (lambda lv: G.q_measure(lv, ideal, cutoff=None, table=table, beta=0.0),
         T.expected_q(level, ideal, start, cutoff=None, table=table, beta=0.0)),
        (lambda lv: G.q_measure(lv, ideal, cutoff=cutoff, table=table, beta=0.0,
                                denominator="R"),
         T.expected_q(level, ideal, start, cutoff=cutoff, table=table, beta=0.0,
                      denominator="R")),
    ]
    for score_of, expected in cases:
        values = [score_of(level[order]) for order in orders]
        assert expected == pytest.approx(np.mean(values), abs=1e-12, rel=1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_alpha_expectations_equal_enumeration(seed):
    rng = np.random.default_rng(seed)
    intents = int(rng.integers(1, 4))
    score, level = _random_list(rng, k=int(rng.integers(3, 8)), levels=2, intents=intents)
    qrels = np.concatenate([level, rng.integers(0, 2, size=(3, intents)).astype(np.int8)])
    qrels[0, :] = np.maximum(qrels[0, :], 1)
    valid = (qrels > 0).any(axis=0)
    weights = rng.dirichlet(np.ones(intents))
    alpha = float(rng.choice([0.0, 0.5, 0.9, 1.0]))
    cutoff = int(rng.integers(1, len(score) + 2))
    start = T.tie_starts(score)
    ideal = N.greedy_search(qrels, valid, alpha=alpha, depth=cutoff)
    ideal_w = N.greedy_search(qrels, valid, weights, alpha=alpha, depth=cutoff)
    orders = list(_orders(start))
    cases = [
        (lambda lv: N.alpha_ndcg(lv, valid, ideal, cutoff=cutoff, alpha=alpha),
         T.expected_alpha_ndcg(level, valid, ideal, start, cutoff=cutoff, alpha=alpha)),
        (lambda lv: N.alpha_ndcg(lv, valid, ideal_w, weights, cutoff=cutoff, alpha=alpha),
         T.expected_alpha_ndcg(level, valid, ideal_w, start, weights, cutoff=cutoff,
                               alpha=alpha)),
        (lambda lv: N.alpha_dcg(lv, valid, cutoff=cutoff, alpha=alpha),
         T.expected_alpha_dcg(level, valid, start, cutoff=cutoff, alpha=alpha)),
    ]
    for score_of, expected in cases:
        values = [score_of(level[order]) for order in orders]
        assert expected == pytest.approx(np.mean(values), abs=1e-12, rel=1e-12)


def test_orders_stay_within_groups():
    rng = np.random.default_rng(3)
    score, level = _random_list(rng, k=12)
    start = T.tie_starts(score)
    for order in (T.random_order(start, rng.random(12)),
                  T.sorted_order(start, level, best_first=True),
                  T.sorted_order(start, level, best_first=False)):
        assert sorted(order.tolist()) == list(range(12))
        assert (start[order] == start).all()
    best = level[T.sorted_order(start, level, best_first=True)]
    for s in set(start.tolist()):
        members = best[start == s]
        assert (np.diff(members.astype(int)) <= 0).all()


@pytest.mark.parametrize("seed", range(30))
def test_diversity_expectations_equal_enumeration(seed):
    from xdiv.kernels import diversity as D

    rng = np.random.default_rng(seed)
    intents = int(rng.integers(1, 4))
    score, level = _random_list(rng, k=int(rng.integers(3, 8)), levels=3, intents=intents)
    qrels = np.concatenate([level, rng.integers(0, 3, size=(3, intents)).astype(np.int8)])
    qrels[0, :] = np.maximum(qrels[0, :], 1)
    valid = (qrels > 0).any(axis=0)
    prob = rng.dirichlet(np.ones(intents))
    table = gain_table("exp", 2)
    cutoff = int(rng.integers(1, len(score) + 2))
    start = T.tie_starts(score)
    ideal_gg = D.ideal_global_gain(qrels, prob, valid, table)
    nav = np.zeros(intents, dtype=bool)
    orders = list(_orders(start))
    cases = [
        (lambda lv: D.d_ndcg(lv, ideal_gg, prob, valid, nav, cutoff=cutoff, table=table),
         T.expected_d_ndcg(level, ideal_gg, prob, valid, start, cutoff=cutoff, table=table)),
        (lambda lv: D.intent_recall(lv, valid, cutoff=cutoff),
         T.expected_intent_recall(level, valid, start, cutoff=cutoff)),
    ]
    for score_of, expected in cases:
        values = [score_of(level[order]) for order in orders]
        assert expected == pytest.approx(np.mean(values), abs=1e-12, rel=1e-12)
