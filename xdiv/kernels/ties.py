"""Tied scores as numpy kernels: tie groups, orders within them, and exact expectations
over all orders of every tie group.

A run that gives several documents the same score leaves their order to the evaluation
tool, and each tool breaks ties by its own rule (trec_eval: docno descending; ndeval:
the rank column; others: the file order). McSherry & Najork ("Computing information
retrieval performance measures efficiently in the presence of tied scores", ECIR 2008)
score a list by the *expectation* over all orders of its tie groups, each order equally
likely. The kernels here compute that expectation in closed form for the measures whose
terms depend on the documents above a rank only through counts and sums (P, DCG, nDCG,
RBP, AP, Q, alpha-DCG, alpha-nDCG, D-nDCG, I-rec and the intent-aware sums of them),
and give the
orders (random, best-first, worst-first) from which every other measure is scored.

Conventions as in :mod:`xdiv.kernels.common`: the ranked-list axis is last. A tie group
is a maximal run of consecutive ranks holding the same score; ``start`` ``(..., K)``
holds, at each rank, the 0-based rank of its group's first document (the padding past
the end of a list, whose score is NaN, makes groups of one). In a group of ``m``
documents starting at rank ``s``, the document at 0-based rank ``s + i`` has ``i``
documents of its group above it; over the ``m!`` orders, each document of the group
takes each of its ranks equally often, and, given which document is at ``s + i``, the
``i`` above it are a uniform random subset of the other ``m - 1``.
"""

from __future__ import annotations

import numpy as np

from .common import (count_relevant, cut, defined_where, discount, divide, fit, highest_gain,
                     lookup, rank_sum, ranks)
from .diversity import global_gain
from .graded import dcg
from .ndeval import cumulative_gain, defined_with_intents, ideal_ideal


def defined_when_relevant(value: np.ndarray, ideal: np.ndarray) -> np.ndarray:
    """``value`` where the ideal list holds a relevant document, NaN elsewhere."""
    return defined_where(value, count_relevant(ideal))


def tie_starts(score: np.ndarray) -> np.ndarray:
    """``start`` ``(..., K)`` int32: the 0-based rank at which each rank's tie group begins.

    >>> import numpy as np
    >>> from xdiv.kernels.ties import tie_starts
    >>> tie_starts(np.array([3.0, 2.0, 2.0, 2.0, 1.0, np.nan, np.nan]))
    array([0, 1, 1, 1, 4, 5, 6], dtype=int32)
    """
    k = score.shape[-1]
    new = np.ones(score.shape, dtype=bool)
    new[..., 1:] = ~(score[..., 1:] == score[..., :-1])  # NaN padding never ties
    return np.maximum.accumulate(np.where(new, np.arange(k), 0), axis=-1).astype(np.int32)


def group_ends(start: np.ndarray) -> np.ndarray:
    """The 0-based rank just past each rank's tie group ``(..., K)``.

    >>> import numpy as np
    >>> from xdiv.kernels.ties import group_ends
    >>> group_ends(np.array([0, 1, 1, 1, 4]))
    array([1, 4, 4, 4, 5])
    """
    k = start.shape[-1]
    index = np.arange(k)
    begins = np.where(start == index, index, k)
    after = np.concatenate([begins[..., 1:], np.full(start.shape[:-1] + (1,), k)], axis=-1)
    return np.minimum.accumulate(after[..., ::-1], axis=-1)[..., ::-1]


def _prefix(values: np.ndarray) -> np.ndarray:
    """The sums of ``values`` over the ranks above each rank, and the whole (``K + 1``)."""
    out = np.zeros(values.shape[:-1] + (values.shape[-1] + 1,))
    np.cumsum(values, axis=-1, dtype=np.float64, out=out[..., 1:])
    return out


def _at(prefix: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``prefix`` read at the ranks ``index`` (whose leading axes broadcast)."""
    lead = np.broadcast_shapes(prefix.shape[:-1], index.shape[:-1])
    return np.take_along_axis(np.broadcast_to(prefix, lead + prefix.shape[-1:]),
                              np.broadcast_to(index, lead + index.shape[-1:]), axis=-1)


def group_total(values: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """At each rank, the sum of ``values`` over its tie group (rank axis last)."""
    prefix = _prefix(values)
    return _at(prefix, end) - _at(prefix, start)


def before_group(values: np.ndarray, start: np.ndarray) -> np.ndarray:
    """At each rank, the sum of ``values`` over the ranks above its tie group."""
    return _at(_prefix(values), start)


def _layout(start: np.ndarray):
    """``end``, group size ``m`` and the number ``i`` of group members above each rank."""
    end = group_ends(start)
    return end, (end - start).astype(np.float64), np.arange(start.shape[-1]) - start


def _read_depth(start: np.ndarray, cutoff: int | None) -> int:
    """The ranks an expectation at ``cutoff`` reads: down to the end of the last tie
    group the cutoff reaches into (all of them without a cutoff)."""
    k = start.shape[-1]
    if cutoff is None or cutoff >= k:
        return k
    begins = start[..., cutoff:] == np.arange(cutoff, k)  # the groups below the cutoff
    first = np.where(begins.any(axis=-1), np.argmax(begins, axis=-1) + cutoff, k)
    return int(first.max(initial=cutoff))


def random_order(start: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """The ranks of a random order within every tie group: ``order[..., r]`` is the old
    rank of the document put at rank r, the groups shuffled by the uniform ``keys``
    ``(..., K)`` in [0, 1) (one per rank) and kept in place."""
    return np.argsort(start + keys, axis=-1)  # the integer part keeps the groups in place


def sorted_order(start: np.ndarray, levels: np.ndarray, *, best_first: bool) -> np.ndarray:
    """The ranks of the order putting every tie group's highest ``levels`` first
    (``best_first``) or last, stable within equal levels."""
    level = levels.astype(np.int64) + 128  # 1..255 for the levels -127..127
    key = np.broadcast_to(start, levels.shape).astype(np.int64) * 256 + (
        256 - level if best_first else level)
    return np.argsort(key, axis=-1, kind="stable")


def _mean_over_group(values: np.ndarray, start: np.ndarray, cutoff: int | None
                     ) -> np.ndarray:
    """The mean of ``values`` over each rank's tie group, for the top ``cutoff`` ranks."""
    depth = _read_depth(start, cutoff)
    values, start = values[..., :depth], start[..., :depth]
    end, size, _ = _layout(start)
    return cut(group_total(values, start, end) / size, cutoff)


def expected_ndcg(levels, ideal, start, *, cutoff, table):
    """E[nDCG@l] over the tie orders: each rank gains the mean gain of its tie group
    (documents of the group below the cutoff included), and the ideal list is fixed."""
    gains = _mean_over_group(lookup(table, levels), start, cutoff)
    value = divide(rank_sum(gains * discount(gains.shape[-1])), dcg(cut(ideal, cutoff), table))
    return defined_when_relevant(value, ideal)


def expected_precision(levels, ideal, start, *, cutoff):
    """E[P@l] over the tie orders: the mean relevance of each rank's tie group, summed
    over the top l and divided by l."""
    rel = _mean_over_group((levels > 0).astype(np.float64), start, cutoff)
    return defined_when_relevant(rank_sum(rel) / cutoff, ideal)


def expected_rbp(levels, ideal, start, *, cutoff, table, p, own=False):
    """E[RBP] over the tie orders (each rank gains its tie group's mean gain; ``own`` as
    :func:`xdiv.kernels.graded.rbp`)."""
    gains = _mean_over_group(lookup(table, levels), start, cutoff)
    weights = p ** np.arange(gains.shape[-1], dtype=np.float64)
    return defined_when_relevant(divide((1.0 - p) * rank_sum(gains * weights),
                                        highest_gain(table, ideal, own)), ideal)


def expected_q(levels, ideal, start, *, cutoff, table, beta, denominator="min"):
    r"""E[Q@l] over the tie orders (``beta = 0``: E[AP@l], McSherry & Najork, ECIR 2008).

    Q sums ``J(r) (C(r) + beta cg(r)) / (r + beta cg*(r))`` over the relevant ranks, with
    ``C`` the relevant documents and ``cg`` the gains down to rank r; only the numerator
    depends on the order. At the rank with ``i`` members of its group of ``m`` above it,
    the group holding ``n`` relevant documents, gains summing to ``G`` and relevant gains
    summing to ``G_J``, with ``C_b`` and ``cg_b`` counted above the group:

    .. math::

        E[J(r) C(r)] = \frac{n}{m} (C_b + 1) + i \frac{n (n - 1)}{m (m - 1)}, \qquad
        E[J(r)\, cg(r)] = \frac{n}{m} cg_b + \frac{G_J}{m} + i \frac{n G - G_J}{m (m - 1)},

    by linearity: the document at r is relevant with probability n/m, and two given
    ranks of the group hold relevant documents with probability n(n-1)/(m(m-1)).
    """
    depth = _read_depth(start, cutoff)
    levels, start = levels[..., :depth], start[..., :depth]
    k = levels.shape[-1]
    rel = levels > 0
    end = group_ends(start)
    size = (end - start).astype(np.float64)
    above = np.arange(k) - start
    per_pair = np.where(size > 1, 1.0 / np.maximum(size * (size - 1.0), 1.0), 0.0)
    prefix = _prefix(rel)
    before = _at(prefix, start)
    n = _at(prefix, end) - before
    numerator = n / size * (before + 1.0) + above * n * (n - 1.0) * per_pair
    below = ranks(k)  # r + beta cg*(r), the order-free part
    if beta:  # AP (beta = 0) reads no gains
        gains = lookup(table, levels)
        prefix = _prefix(gains)
        gain_before = _at(prefix, start)
        total_gain = _at(prefix, end) - gain_before
        relevant_gain = group_total(np.where(rel, gains, 0.0), start, end)
        numerator += beta * (n / size * gain_before + relevant_gain / size
                             + above * (n * total_gain - relevant_gain) * per_pair)
        below = below + beta * np.cumsum(lookup(table, fit(ideal, k)), axis=-1)
    terms = cut(numerator / below, cutoff)
    relevant_total = count_relevant(ideal)
    norm = (relevant_total if cutoff is None or denominator == "R"
            else np.minimum(relevant_total, cutoff))
    return defined_when_relevant(divide(rank_sum(terms), norm), ideal)


def _hypergeometric_power(base: float, size, successes, draws, most: int) -> np.ndarray:
    """``E[base^H]``, H the successes among ``draws`` taken without replacement from
    ``size`` items of which ``successes`` succeed (arrays broadcast; ``draws <= most``)."""
    from scipy.special import gammaln  # only the tie expectations of alpha-nDCG need it

    def log_choose(a, b):
        ok = (b >= 0) & (b <= a)
        a, b = np.where(ok, a, 0), np.where(ok, b, 0)
        return np.where(ok, gammaln(a + 1.0) - gammaln(b + 1.0) - gammaln(a - b + 1.0),
                        -np.inf)

    h = np.arange(most + 1, dtype=np.float64)
    size, successes, draws = (np.asarray(x, dtype=np.float64)[..., None]
                              for x in (size, successes, draws))
    log_pmf = (log_choose(successes, h) + log_choose(size - successes, draws - h)
               - log_choose(size, draws))
    return (np.exp(log_pmf) * base ** h).sum(axis=-1)


def expected_alpha_gains(levels, valid, start, intent_weights=None, *, cutoff, alpha):
    r"""E[G(r)] ``(..., l)``: the expected novelty gain of each of the top l ranks over
    the tie orders, ``G(r) = sum_s w_s rel_s(d_r) (1 - alpha)^{c_s(r)}`` (``levels``
    ``(..., K, I)``, ``valid`` and ``intent_weights`` ``(..., I)``, ``start`` ``(..., K)``).

    For intent s, with ``n`` relevant documents in the group of ``m`` at rank r, ``i``
    of them above r and ``c_b`` relevant documents above the group:
    ``E[rel_s (1-alpha)^{c_s}] = (n/m) (1-alpha)^{c_b} E[(1-alpha)^H]``, where H, the
    relevant documents among the ``i`` above r given that r holds one, is
    hypergeometric (``i`` draws from ``m - 1`` documents, ``n - 1`` relevant).
    """
    k = levels.shape[-2]
    depth = k if cutoff is None else min(cutoff, k)
    rel = ((levels > 0) & valid[..., None, :]).astype(np.float64)
    rel_t = np.swapaxes(rel, -1, -2)  # (..., I, K)
    start_i = start[..., None, :]
    end, size, above = _layout(start_i)
    n = group_total(rel_t, start_i, end)
    before = before_group(rel_t, start_i)
    keep = slice(0, depth)
    n, before, size_c, above_c = n[..., keep], before[..., keep], size[..., keep], above[..., keep]
    base = 1.0 - alpha
    novelty = _hypergeometric_power(base, size_c - 1.0, n - 1.0, above_c, max(depth - 1, 0))
    expected = n / size_c * base ** before * novelty  # (..., I, l)
    if intent_weights is not None:
        expected = expected * intent_weights[..., :, None]
    total = np.zeros(expected.shape[:-2] + expected.shape[-1:])
    for s in range(expected.shape[-2]):  # intents in order, as ndeval sums them
        total = total + expected[..., s, :]
    return total


def expected_alpha_dcg(levels, valid, start, *, cutoff, alpha):
    """E[alpha-DCG@k] over the tie orders (ndeval's ideal-ideal normaliser is fixed)."""
    gains = expected_alpha_gains(levels, valid, start, cutoff=cutoff, alpha=alpha)
    n = valid.sum(axis=-1)
    raw = cumulative_gain(gains, discount(cutoff), cutoff)
    return defined_with_intents(divide(raw, ideal_ideal(n, alpha, discount(cutoff))[..., -1]), n)


def expected_alpha_ndcg(levels, valid, ideal, start, intent_weights=None, *, cutoff, alpha):
    """E[alpha-nDCG@k] over the tie orders: the expected novelty DCG@k over the DCG@k of
    the greedy ideal list (fixed). A run with no relevant document in the top k scores 0
    in every order, as :func:`xdiv.kernels.ndeval.alpha_ndcg` has it."""
    gains = expected_alpha_gains(levels, valid, start, intent_weights, cutoff=cutoff,
                                 alpha=alpha)
    raw = cumulative_gain(gains, discount(cutoff), cutoff)
    best = cumulative_gain(ideal, discount(cutoff), cutoff)
    n = valid.sum(axis=-1)
    return defined_with_intents(np.where(raw != 0, divide(raw, best), 0.0), n)


def take_ranks(values: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``values`` reordered along the rank axis: rank r gets the value at ``order[..., r]``
    (``order`` broadcasts over the leading axes of ``values``)."""
    order = np.broadcast_to(order, values.shape[:-1] + order.shape[-1:])
    return np.take_along_axis(values, order, axis=-1)


_MIX = (np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))


def _mixed(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser: a bijection of the 64-bit integers that scatters nearby
    inputs (Steele, Lea & Flood, OOPSLA 2014)."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * _MIX[0]
        x = (x ^ (x >> np.uint64(27))) * _MIX[1]
    return x ^ (x >> np.uint64(31))


def shuffled_orders(start: np.ndarray, run_key: np.ndarray, topic_key: np.ndarray, *,
                    seed: int, samples: range) -> np.ndarray:
    """``(..., S, K)``: for each sample of ``samples``, the ranks of a random order within
    every tie group (:func:`random_order`), its keys a hash of (``seed``, the sample, the
    list's run and topic keys, the rank): a list gets the same orders whichever lists are
    evaluated beside it, and however the arrays are chunked."""
    lead, k = start.shape[:-1], start.shape[-1]
    run_key, topic_key = (np.broadcast_to(np.asarray(key, dtype=np.uint64), lead)
                          for key in (run_key, topic_key))
    base = _mixed(np.array([(seed * 0x9E3779B97F4A7C15 + s) % (1 << 64) for s in samples],
                           dtype=np.uint64))
    x = _mixed(base[:, None] ^ run_key[..., None, None])
    x = _mixed(x ^ topic_key[..., None, None])
    x = _mixed(x ^ np.arange(k, dtype=np.uint64))
    keys = (x >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    return random_order(np.broadcast_to(start[..., None, :], keys.shape), keys)


def take_sampled_ranks(values: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``(..., S, K)``: ``values`` ``(..., K)`` reordered by each of the ``S`` orders."""
    values = values[..., None, :]
    lead = np.broadcast_shapes(values.shape[:-1], order.shape[:-1])
    return np.take_along_axis(np.broadcast_to(values, lead + values.shape[-1:]),
                              np.broadcast_to(order, lead + order.shape[-1:]), axis=-1)


def expected_d_ndcg(levels, ideal_gg, prob, valid, start, *, cutoff, table, decimals=None):
    """E[D-nDCG@l] over the tie orders (``levels`` ``(..., K, I)``): each rank gains the
    mean global gain ``GG = sum_i Pr(i|q) gv(x_i)`` of its tie group (each GG rounded to
    ``decimals`` first, as :func:`~xdiv.kernels.diversity.global_gain`); the globally
    ideal list is fixed."""
    gains = global_gain(levels, prob, valid, table, decimals=decimals)
    gains = _mean_over_group(gains, start, cutoff)
    ideal = cut(ideal_gg, cutoff)
    value = divide(rank_sum(gains * discount(gains.shape[-1])),
                   rank_sum(ideal * discount(ideal.shape[-1])))
    return np.where(valid.any(axis=-1), value, np.nan)


def expected_intent_recall(levels, valid, start, *, cutoff):
    r"""E[I-rec@l] over the tie orders (``levels`` ``(..., K, I)``).

    Only the tie group that the cutoff cuts (ranks ``s .. e - 1``, ``s < l < e``) puts a
    random subset of its ``m = e - s`` documents, of size ``t = l - s``, in the top l. An
    intent none of whose relevant documents lies above the group, with ``n`` of them in
    the group, is covered with probability :math:`1 - \binom{m - n}{t} / \binom{m}{t}`.
    """
    from scipy.special import gammaln  # as for the expectations of alpha-nDCG

    k = levels.shape[-2]
    rel = ((levels > 0) & valid[..., None, :]).astype(np.float64)
    if cutoff >= k:
        covered = rel.any(axis=-2)
    else:
        first = start[..., cutoff - 1]  # where the group holding rank l begins
        end = group_ends(start)[..., cutoff - 1]
        counts = _prefix(np.swapaxes(rel, -1, -2))  # (..., I, K + 1)
        before = np.take_along_axis(counts, first[..., None, None], axis=-1)[..., 0]
        within = np.take_along_axis(counts, end[..., None, None], axis=-1)[..., 0] - before
        size, taken = (end - first)[..., None], (cutoff - first)[..., None]

        def log_choose(a, b):
            return gammaln(a + 1.0) - gammaln(b + 1.0) - gammaln(a - b + 1.0)

        free = size - within  # the group's documents not relevant to the intent
        missed = np.where(taken <= free,
                          np.exp(log_choose(free, np.minimum(taken, free))
                                 - log_choose(size, taken)), 0.0)
        covered = np.where(before > 0, 1.0, 1.0 - missed)
    return divide(np.where(valid, covered, 0.0).sum(axis=-1), valid.sum(axis=-1))
