"""trec_eval's measures as numpy kernels, bit for bit: the arithmetic of trec_eval 10.0's
``m_*.c`` files (the same double-precision operations in the same order), vectorised over
topics, for ``xdiv trec_eval`` (:mod:`xdiv.official.trec_eval.tool`).

Every kernel takes a topic's ranked judgments as trec_eval's ``results_rel_list``:

``rel`` : ``(topic, rank)`` int64
    The relevance value of the document at each rank: its qrels level (0 or more), -1
    (``RELVALUE_NONPOOL``) for a document without a qrels line, -2
    (``RELVALUE_UNJUDGED``) for one whose qrels level is negative. Entries past a topic's
    last document are padding, masked by ``valid``.
``valid`` : ``(topic, rank)`` bool
    The ranks holding a retrieved document (``rank < num_ret``).

and ``level``, trec_eval's ``-l`` (a document is relevant when ``rel >= level``). Sums
over ranks add the ranks in order (:func:`xdiv.kernels.common.rank_sum`), as the C loops
do, so that every value has the C program's last bit.
"""

from __future__ import annotations

import numpy as np

from .common import rank_sum

__all__ = ("LONG_MIN", "NONPOOL", "UNJUDGED", "average_precision", "average_precision_at", "binary_g",
           "bpref", "discounted_gains", "ideal_dcg_prefix", "infap", "interpolated_precision",
           "lround", "precision_at", "r_precision",
           "r_precision_multiples", "rank_biased_precision", "rbp_residual", "recall_at",
           "recall_counts", "reciprocal_rank", "relative_precision_at", "relevant_counts",
           "success_at", "to_long", "unjudged_at")

NONPOOL = -1
"""``rel`` of a retrieved document without a qrels line."""
UNJUDGED = -2
"""``rel`` of a retrieved document whose qrels level is negative (in the pool, unjudged)."""


def _divide(numerator, denominator) -> np.ndarray:
    """``numerator / denominator`` as C divides doubles (0/0 NaN, x/0 infinite)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(numerator, denominator)


LONG_MIN = -(2 ** 63)
"""C's ``LONG_MIN``: what x86-64's conversion of a double to a ``long`` gives for a NaN or
a value out of the ``long`` range (glibc's ``lround`` returns that conversion there)."""


def to_long(values: np.ndarray) -> np.ndarray:
    """Doubles holding whole numbers as int64, as x86-64 converts them to a C ``long``:
    NaN and values outside [-2**63, 2**63) give :data:`LONG_MIN`."""
    values = np.asarray(values, dtype=np.float64)
    inside = (values >= -2.0 ** 63) & (values < 2.0 ** 63)
    return np.where(inside, np.where(inside, values, 0.0).astype(np.int64), LONG_MIN)


def lround(values: np.ndarray) -> np.ndarray:
    """C's ``lround``: to the nearest integer, halves away from zero (int64); NaN and
    values out of the ``long`` range give :data:`LONG_MIN`, as glibc's on x86-64."""
    whole = np.trunc(values)
    with np.errstate(invalid="ignore"):
        part = values - whole  # exact (NaN for infinities, which to_long maps anyway)
    return to_long(whole + np.where(np.abs(part) >= 0.5, np.sign(values), 0.0))


def relevant_counts(relevant: np.ndarray) -> np.ndarray:
    """``(topic, rank + 1)``: relevant documents among the first ``k`` ranks, ``k`` from 0
    (the ``rel_so_far`` of trec_eval's loops)."""
    counts = np.zeros(relevant.shape[:-1] + (relevant.shape[-1] + 1,), dtype=np.int64)
    np.cumsum(relevant, axis=-1, out=counts[..., 1:])
    return counts


def average_precision(relevant: np.ndarray, num_rel: np.ndarray) -> np.ndarray:
    """``map``: the sum of the precisions at the relevant ranks, divided by ``num_rel``;
    0 when no relevant document is retrieved."""
    counts = relevant_counts(relevant)
    ranks = np.arange(1, relevant.shape[-1] + 1, dtype=np.float64)
    terms = np.where(relevant, counts[..., 1:] / ranks, 0.0)
    total = rank_sum(terms)
    return np.where(counts[..., -1] > 0, _divide(total, num_rel.astype(np.float64)), 0.0)


def r_precision(relevant: np.ndarray, num_ret: np.ndarray, num_rel: np.ndarray) -> np.ndarray:
    """``Rprec``: relevant documents in the first ``min(num_ret, num_rel)`` ranks over
    ``num_rel``; 0 when that is no rank."""
    counts = relevant_counts(relevant)
    depth = np.minimum(num_ret, num_rel)
    found = np.take_along_axis(counts, np.clip(depth, 0, counts.shape[-1] - 1)[:, None],
                               axis=-1)[:, 0]
    return np.where(depth > 0, _divide(found.astype(np.float64), num_rel.astype(np.float64)),
                    0.0)


def bpref(rel: np.ndarray, valid: np.ndarray, level: int, num_rel: np.ndarray,
          num_nonrel: np.ndarray) -> np.ndarray:
    """``bpref``: for each judged relevant retrieved document (level at least 0 and at
    least ``level``), 1 - min(judged non-relevant above it, R) / min(N, R) (1 when none is
    above it), summed and divided by R = ``num_rel``; N = ``num_nonrel``, the judged
    documents with a level from 0 to ``level`` - 1. Documents without a qrels line or
    with a negative level are skipped."""
    judged = valid & (rel >= 0)
    nonrel = judged & (rel < level)
    rel_doc = judged & (rel >= level)
    above = np.cumsum(nonrel, axis=-1)
    r = num_rel[:, None]
    fraction = _divide(np.minimum(above, r).astype(np.float64),
                       np.minimum(num_nonrel[:, None], r).astype(np.float64))
    terms = np.where(rel_doc, np.where(above > 0, 1.0 - fraction, 1.0), 0.0)
    total = rank_sum(terms)
    return np.where(num_rel != 0, _divide(total, num_rel.astype(np.float64)), total)


def reciprocal_rank(relevant: np.ndarray) -> np.ndarray:
    """``recip_rank``: 1 / the rank of the first relevant document; 0 without one."""
    first = np.argmax(relevant, axis=-1) if relevant.shape[-1] else \
        np.zeros(relevant.shape[:-1], dtype=np.int64)
    found = relevant.any(axis=-1)
    return np.where(found, _divide(1.0, (first + 1).astype(np.float64)), 0.0)


def precision_at(relevant: np.ndarray, cutoffs: np.ndarray) -> np.ndarray:
    """``P``: ``(topic, cutoff)`` relevant documents in the first ``c`` ranks over ``c``
    (ranks past the end of the list count as non-relevant)."""
    counts = relevant_counts(relevant)
    at = np.minimum(cutoffs, counts.shape[-1] - 1)
    return counts[:, at] / np.asarray(cutoffs, dtype=np.float64)


def recall_counts(fractions, num_rel: np.ndarray, *, rounded: bool = True) -> np.ndarray:
    """``(topic, cutoff)``: the relevant documents ``k`` a recall fraction ``f`` asks for:
    ``lround(f * num_rel)`` (trec_eval 10.0), or ``(long) (f * num_rel + 0.9)`` with
    ``rounded=False`` (9.0.8)."""
    product = np.asarray(fractions, dtype=np.float64)[None, :] * \
        num_rel[:, None].astype(np.float64)
    return lround(product) if rounded else to_long(np.trunc(product + 0.9))


def interpolated_precision(relevant: np.ndarray, num_ret: np.ndarray, num_rel: np.ndarray,
                           fractions, *, rounded: bool = True) -> np.ndarray:
    """``iprec_at_recall`` and the terms of ``11pt_avg``: ``(topic, cutoff)`` the
    interpolated precisions trec_eval's backward walk gives the recall ``fractions``, in
    any order. A fraction f asks for k = lround(f * num_rel) relevant documents
    (:func:`recall_counts`). The cutoffs at the end whose k is above the relevant documents
    retrieved get 0; the walk then takes the others from the last, each at the k-th
    relevant rank (the highest precision at or after it), as long as k is at least 1 and
    at most the k taken before; from the first cutoff it cannot take (k <= 0, or out of
    order, as with a recall level whose k overflows a ``long``) down to the first, the
    cutoffs get the highest precision at or after the first relevant rank
    (num_rel_ret / num_ret, 0 or NaN, when no relevant document is retrieved)."""
    n_topics, depth = relevant.shape
    counts = relevant_counts(relevant)
    found = counts[:, -1]
    precision = _divide(counts[:, 1:].astype(np.float64),
                        np.arange(1, depth + 1, dtype=np.float64))
    best_after = np.maximum.accumulate(precision[:, ::-1], axis=-1)[:, ::-1] if depth else \
        precision
    wanted = recall_counts(fractions, num_rel, rounded=rounded)
    if not wanted.shape[-1]:
        return np.zeros(wanted.shape)
    beyond = wanted > found[:, None]
    skipped = np.logical_and.accumulate(beyond[:, ::-1], axis=-1)[:, ::-1]
    # the k each cutoff must not exceed: the next cutoff's, or found after the skipped ones
    bound = np.where(skipped[:, 1:], found[:, None], wanted[:, 1:])
    bound = np.concatenate([bound, found[:, None]], axis=-1)
    fits = skipped | ((wanted >= 1) & (wanted <= bound))
    taken = np.logical_and.accumulate(fits[:, ::-1], axis=-1)[:, ::-1] & ~skipped
    # the 0-based rank of the k-th relevant document: the first rank whose count reaches k
    k = np.clip(wanted, 1, np.maximum(found, 1)[:, None])
    stride = depth + 1
    flat = (counts[:, 1:] + (np.arange(n_topics) * stride)[:, None]).ravel()
    where = np.searchsorted(flat, (k + (np.arange(n_topics) * stride)[:, None]).ravel())
    rank = (where.reshape(k.shape) - np.arange(n_topics)[:, None] * depth)
    rank = np.clip(rank, 0, max(depth - 1, 0))
    at_rank = np.take_along_axis(best_after, rank, axis=-1) if depth else \
        np.zeros(k.shape)
    first = best_after[np.arange(n_topics), np.argmax(relevant, axis=-1)] if depth else \
        np.zeros(n_topics)
    last = np.where(found[:, None] > 0, first[:, None],
                    _divide(found.astype(np.float64), num_ret.astype(np.float64))[:, None])
    return np.where(skipped, 0.0, np.where(taken, at_rank, last))


def _prefix(values: np.ndarray) -> np.ndarray:
    """``(topic, rank + 1)``: sums of ``values`` over the first ``k`` ranks, added in
    rank order."""
    out = np.zeros(values.shape[:-1] + (values.shape[-1] + 1,), dtype=np.float64)
    np.cumsum(values, axis=-1, out=out[..., 1:])
    return out


def _at(prefix: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """``prefix[t, depth[t, c]]`` with depths clipped to the array."""
    return np.take_along_axis(prefix, np.clip(depth, 0, prefix.shape[-1] - 1), axis=-1)


def recall_at(relevant: np.ndarray, num_rel: np.ndarray, cutoffs: np.ndarray) -> np.ndarray:
    """``recall``: relevant documents in the first ``c`` ranks over ``num_rel`` (0 when
    there is no relevant document)."""
    counts = relevant_counts(relevant)
    found = counts[:, np.minimum(cutoffs, counts.shape[-1] - 1)].astype(np.float64)
    return np.where(num_rel[:, None] > 0, _divide(found, num_rel[:, None].astype(np.float64)),
                    0.0)


def success_at(relevant: np.ndarray, cutoffs: np.ndarray) -> np.ndarray:
    """``success``: 1 when a relevant document is in the first ``c`` ranks."""
    counts = relevant_counts(relevant)
    return (counts[:, np.minimum(cutoffs, counts.shape[-1] - 1)] > 0).astype(np.float64)


def relative_precision_at(relevant: np.ndarray, num_rel: np.ndarray,
                          cutoffs: np.ndarray) -> np.ndarray:
    """``relative_P``: relevant documents in the first ``c`` ranks over ``min(c,
    num_rel)`` (0 when there is no relevant document)."""
    counts = relevant_counts(relevant)
    found = counts[:, np.minimum(cutoffs, counts.shape[-1] - 1)].astype(np.float64)
    most = np.minimum(cutoffs[None, :], num_rel[:, None]).astype(np.float64)
    return np.where(num_rel[:, None] > 0, _divide(found, most), 0.0)


def average_precision_at(relevant: np.ndarray, num_rel: np.ndarray,
                         cutoffs: np.ndarray) -> np.ndarray:
    """``map_cut``: the precisions at the relevant ranks among the first ``c``, summed
    and divided by ``num_rel`` (0 when there is no relevant document)."""
    counts = relevant_counts(relevant)
    ranks = np.arange(1, relevant.shape[-1] + 1, dtype=np.float64)
    sums = _prefix(np.where(relevant, counts[..., 1:] / ranks, 0.0))
    at = sums[:, np.minimum(cutoffs, sums.shape[-1] - 1)]
    return np.where(num_rel[:, None] > 0, _divide(at, num_rel[:, None].astype(np.float64)),
                    0.0)


def unjudged_at(rel: np.ndarray, valid: np.ndarray, cutoffs: np.ndarray) -> np.ndarray:
    """``unj``: documents without a qrels line or with a negative level among the first
    ``c`` ranks, over ``c``."""
    counts = relevant_counts(valid & ((rel == NONPOOL) | (rel == UNJUDGED)))
    return counts[:, np.minimum(cutoffs, counts.shape[-1] - 1)] / \
        np.asarray(cutoffs, dtype=np.float64)


def r_precision_multiples(relevant: np.ndarray, num_ret: np.ndarray, num_rel: np.ndarray,
                          num_rel_ret: np.ndarray, multiples: np.ndarray) -> np.ndarray:
    """``Rprec_mult``: precision at ``k = (long)(m * num_rel + 0.9)`` documents for each
    multiple ``m`` (past the end of the list, ``num_rel_ret / k``; 0 for k <= 0)."""
    counts = relevant_counts(relevant)
    k = np.trunc(np.asarray(multiples, dtype=np.float64)[None, :]
                 * num_rel[:, None].astype(np.float64) + 0.9).astype(np.int64)
    inside = _at(counts, np.minimum(k, num_ret[:, None])).astype(np.float64)
    beyond = k > num_ret[:, None]
    found = np.where(beyond, num_rel_ret[:, None].astype(np.float64), inside)
    return np.where(k >= 1, _divide(found, k.astype(np.float64)), 0.0)


def infap(rel: np.ndarray, valid: np.ndarray, level: int, num_rel: np.ndarray) -> np.ndarray:
    """``infAP`` (Yilmaz & Aslam), with trec_eval's arithmetic and its epsilon 1e-5."""
    eps = 0.00001
    judged = valid & (rel >= 0)
    nonrel = judged & (rel < level)
    rel_doc = judged & (rel >= level)
    unjudged = valid & (rel == UNJUDGED)
    n_rel = np.cumsum(rel_doc, axis=-1)
    n_nonrel = np.cumsum(nonrel, axis=-1)
    n_unjudged = np.cumsum(unjudged, axis=-1)
    j = np.arange(rel.shape[-1], dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        above = (n_rel - 1 + n_nonrel + n_unjudged) / j
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * above * \
            ((n_rel - 1 + eps) / ((n_rel - 1 + n_nonrel) + 2 * eps))
    term[:, :1] = 1.0
    total = rank_sum(np.where(rel_doc, term, 0.0))
    return np.where(num_rel != 0, _divide(total, num_rel.astype(np.float64)), total)


def binary_g(relevant: np.ndarray, num_rel: np.ndarray, log2_table: np.ndarray) -> np.ndarray:
    """``binG``: the sum over the relevant ranks of 1 / log2(2 + the non-relevant
    documents above), over ``num_rel``; ``log2_table[x]`` is C's ``log2(x)``."""
    counts = relevant_counts(relevant)
    ranks = np.arange(relevant.shape[-1])
    argument = 3 + ranks - counts[:, 1:]
    terms = np.where(relevant, 1.0 / log2_table[np.where(relevant, argument, 2)], 0.0)
    total = rank_sum(terms)
    return np.where(counts[:, -1] > 0, _divide(total, num_rel.astype(np.float64)), 0.0)


def rbp_residual(rel: np.ndarray, valid: np.ndarray, p: float) -> np.ndarray:
    """``rbp_resid``: ``p^n + (1 - p)`` times the sum of ``p^i`` over the ranks ``i`` of
    the documents without a judgment (n retrieved; powers by repeated multiplication);
    0 without such a document."""
    n_topics, depth = rel.shape
    powers = np.ones(depth + 1)
    if depth:
        np.cumprod(np.full(depth, p), out=powers[1:])
    unjudged = valid & (rel < 0)
    total = rank_sum(np.where(unjudged, powers[:-1], 0.0))
    num_ret = valid.sum(axis=-1)
    return np.where(unjudged.any(axis=-1), powers[num_ret] + (1 - p) * total, 0.0)


def rank_biased_precision(gains: np.ndarray, valid: np.ndarray, p: float) -> np.ndarray:
    """``rbp``: ``(1 - p)`` times the sum of ``gain * p^i`` over the ranks with a non-zero
    gain (powers by repeated multiplication)."""
    depth = gains.shape[-1]
    powers = np.ones(depth)
    if depth > 1:
        np.cumprod(np.full(depth - 1, p), out=powers[1:])
    terms = np.where(valid & (gains != 0), gains * powers, 0.0)
    return (1.0 - p) * rank_sum(terms)


def discounted_gains(gains: np.ndarray, valid: np.ndarray, log2_table: np.ndarray
                     ) -> np.ndarray:
    """``(topic, rank + 1)``: DCG over the first ``k`` ranks (gain / log2(rank + 1) at the
    ranks with a non-zero gain), added in rank order."""
    depth = gains.shape[-1]
    discount = log2_table[np.arange(2, depth + 2)]
    return _prefix(np.where(valid & (gains != 0), gains / discount, 0.0))


def ideal_dcg_prefix(sequence: np.ndarray, log2_table: np.ndarray) -> np.ndarray:
    """DCG of an ideal gain ``sequence`` over its first ``k`` positions, ``k`` from 0."""
    return np.concatenate([[0.0], np.cumsum(sequence / log2_table[
        np.arange(2, len(sequence) + 2)])])
