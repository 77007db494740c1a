"""trec_eval 10.0's remaining per-topic measures as single-intent numpy kernels for the
measure registry (:mod:`xdiv.measures.trec_eval`).

Every kernel takes the judged cube's arrays with the rank axis last and any leading axes
(run, topic, intent), which broadcast: ``levels`` ``(..., K)`` the run's levels in rank
order (0 past its end), ``ideal`` ``(..., K')`` the judged levels sorted descending,
``length`` ``(...)`` the number of documents retrieved and, where a measure tells judged
documents apart, ``slot`` ``(..., K)`` (the ranked document's collection slot, -1
without a qrels line) and ``qrels_assessed`` ``(..., D)`` (whether each slot has a qrels
line of level >= 0), read as :func:`assessed_at`: judged unless the document has no qrels
line or only negative levels. A document is relevant at level >= 1 (trec_eval's
``-l 1``); R is the number of relevant documents. Values are NaN where R = 0 (trec_eval
prints 0 there), as for every measure of the registry.

Where a kernel of :mod:`xdiv.kernels.trec_eval` (``xdiv trec_eval``'s, bit for bit)
fits, the leading axes are flattened into its topic axis and it is called as it is; the
others follow trec_eval's ``m_*.c`` loops in the same order of operations.
"""

from __future__ import annotations

import math

import numpy as np

from . import trec_eval as T
from .common import count_relevant, defined_where, rank_sum

__all__ = ("assessed_at", "binary_g", "gain_g", "interpolated_average",
           "interpolated_precision", "judged_nonrelevant_retrieved", "ndcg_rel", "r_ndcg",
           "r_precision_multiple", "rbp_residual", "recall_at", "relative_precision_at",
           "set_measure", "unjudged_at", "utility", "yaap")


def _flat(levels: np.ndarray, ideal: np.ndarray, length: np.ndarray,
          *more: np.ndarray) -> tuple:
    """The arrays broadcast on their leading axes and flattened to ``(n, ...)``, with
    ``R`` (n,) and the leading shape: trec_eval's kernels take ``(topic, rank)``."""
    lead = np.broadcast_shapes(levels.shape[:-1], ideal.shape[:-1], np.shape(length),
                               *(m.shape[:-1] for m in more))
    n = int(np.prod(lead, dtype=np.int64))
    out = [np.broadcast_to(levels, lead + levels.shape[-1:]).reshape(n, -1),
           np.broadcast_to(count_relevant(ideal), lead).reshape(n).astype(np.int64),
           np.broadcast_to(length, lead).reshape(n).astype(np.int64)]
    out += [np.broadcast_to(m, lead + m.shape[-1:]).reshape(n, -1) for m in more]
    return lead, out


def _log2_table(top: int) -> np.ndarray:
    """``table[x]`` = C's ``log2(x)`` (libm's, as ``math.log2``) for ``x`` up to ``top``."""
    return np.array([-math.inf] + [math.log2(x) for x in range(1, top + 1)])


def interpolated_precision(levels, ideal, length, *, recall: float):
    """``iprec_at_recall``: the highest precision at or after the rank of the k-th
    relevant document, k = lround(recall R) (k <= 0: the first one); 0 when fewer than k
    relevant documents are retrieved (trec_eval 10.0, ``m_iprec_at_recall.c``)."""
    lead, (lv, r, n) = _flat(levels, ideal, length)
    value = T.interpolated_precision(lv > 0, n, r, np.array([recall]))[:, 0]
    value = np.where((lv > 0).any(axis=-1), value, 0.0)
    return defined_where(value.reshape(lead), r.reshape(lead))


def interpolated_average(levels, ideal, length):
    """``11pt_avg``: the interpolated precisions at recall 0.0, 0.1, ..., 1.0 (as
    :func:`interpolated_precision`) added from the last level to the first, as trec_eval's
    backward walk adds them, over 11 (``m_11pt_avg.c``)."""
    lead, (lv, r, n) = _flat(levels, ideal, length)
    fractions = np.arange(11) / 10.0
    each = T.interpolated_precision(lv > 0, n, r, fractions)
    each = np.where((lv > 0).any(axis=-1)[:, None], each, 0.0)
    value = np.cumsum(each[:, ::-1], axis=1)[:, -1] / 11.0
    return defined_where(value.reshape(lead), r.reshape(lead))


def r_precision_multiple(levels, ideal, length, *, m: float):
    """``Rprec_mult``: C(k) / k at k = (long) (m R + 0.9) ranks, ranks past the end of
    the list non-relevant; 0 when k < 1 (``m_Rprec_mult.c``)."""
    lead, (lv, r, n) = _flat(levels, ideal, length)
    rel = lv > 0
    value = T.r_precision_multiples(rel, n, r, rel.sum(axis=-1), np.array([m]))[:, 0]
    return defined_where(value.reshape(lead), r.reshape(lead))


def recall_at(levels, ideal, *, cutoff: int):
    """``recall``: C(l) / R, the share of the relevant documents in the top l."""
    lead, (lv, r, _) = _flat(levels, ideal, np.zeros(()))
    value = T.recall_at(lv > 0, r, np.array([cutoff]))[:, 0]
    return defined_where(value.reshape(lead), r.reshape(lead))


def relative_precision_at(levels, ideal, *, cutoff: int):
    """``relative_P``: C(l) / min(l, R)."""
    lead, (lv, r, _) = _flat(levels, ideal, np.zeros(()))
    value = T.relative_precision_at(lv > 0, r, np.array([cutoff]))[:, 0]
    return defined_where(value.reshape(lead), r.reshape(lead))


def _valid(length: np.ndarray, depth: int) -> np.ndarray:
    return np.arange(depth) < length[:, None]


def assessed_at(slot: np.ndarray, qrels_assessed: np.ndarray) -> np.ndarray:
    """``(..., K)``: whether the ranked document (its collection ``slot``, -1 without a
    qrels line or past the end) has a qrels line of level >= 0 (``qrels_assessed``
    ``(..., D)`` of the topic's document slots); the leading axes broadcast."""
    lead = np.broadcast_shapes(slot.shape[:-1], qrels_assessed.shape[:-1])
    slot = np.broadcast_to(slot, lead + slot.shape[-1:])
    flags = np.broadcast_to(qrels_assessed, lead + qrels_assessed.shape[-1:])
    if flags.shape[-1] == 0:
        return np.zeros(slot.shape, dtype=bool)
    return np.take_along_axis(flags, np.maximum(slot, 0), axis=-1) & (slot >= 0)


def unjudged_at(levels, ideal, length, slot, qrels_assessed, *, cutoff: int):
    """``unj``: documents of the top l without a judgment (no qrels line, or only
    negative levels) over l."""
    lead, (lv, r, n, judged) = _flat(levels, ideal, length,
                                     assessed_at(slot, qrels_assessed))
    rel = np.where(judged, 0, T.NONPOOL)
    value = T.unjudged_at(rel, _valid(n, lv.shape[-1]), np.array([cutoff]))[:, 0]
    return defined_where(value.reshape(lead), r.reshape(lead))


def _counts(levels, ideal, length):
    lead, (lv, r, n) = _flat(levels, ideal, length)
    return lead, (lv > 0).sum(axis=-1), n, r


def set_measure(levels, ideal, length, *, which: str, x: float = 1.0):
    """trec_eval's set measures of the retrieved set as a whole (``m_set_*.c``), from
    rr = C(n) relevant retrieved, n retrieved and R: ``P`` rr/n, ``recall`` rr/R,
    ``relative_P`` rr/min(n, R), ``map`` rr^2/(n R), ``F`` (x+1) P R' / (x P + R') with
    R' = rr/R (0 where the denominator is 0, or for F where rr = 0)."""
    lead, rr, n, r = _counts(levels, ideal, length)
    rr_f, n_f, r_f = rr.astype(np.float64), n.astype(np.float64), r.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        if which == "P":
            value = np.where(n != 0, rr_f / n_f, 0.0)
        elif which == "recall":
            value = np.where(r != 0, rr_f / r_f, 0.0)
        elif which == "relative_P":
            value = np.where((n != 0) & (r != 0), rr_f / np.minimum(n, r), 0.0)
        elif which == "map":
            value = np.where((n != 0) & (r != 0), (rr_f * rr_f) / (n_f * r_f), 0.0)
        elif which == "F":
            p, q = rr_f / n_f, rr_f / r_f
            value = np.where(rr != 0, (x + 1.0) * p * q / (x * p + q), 0.0)
        else:
            raise ValueError(f"unknown set measure {which!r}")
    return defined_where(value.reshape(lead), r.reshape(lead))


def utility(levels, ideal, length, *, a: float, b: float, c: float, d: float,
            num_docs: int):
    """``utility``: a rr + b (n - rr) + c (R - rr) + d (N + rr - n - R), rr relevant
    retrieved, n retrieved, N the documents of the collection (``m_utility.c``)."""
    lead, rr, n, r = _counts(levels, ideal, length)
    rest = (num_docs + rr - n - r).astype(np.float64)
    rr_f, n_f, r_f = rr.astype(np.float64), n.astype(np.float64), r.astype(np.float64)
    value = a * rr_f + b * (n_f - rr_f) + c * (r_f - rr_f) + d * rest
    return defined_where(value.reshape(lead), r.reshape(lead))


def judged_nonrelevant_retrieved(levels, ideal, length, slot, qrels_assessed):
    """``num_nonrel_judged_ret``: retrieved documents judged non-relevant (a qrels line
    of level 0), as a float."""
    lead, (lv, r, n, judged) = _flat(levels, ideal, length,
                                     assessed_at(slot, qrels_assessed))
    value = (_valid(n, lv.shape[-1]) & judged & (lv == 0)).sum(axis=-1).astype(np.float64)
    return defined_where(value.reshape(lead), r.reshape(lead))


def binary_g(levels, ideal):
    """``binG``: (1/R) sum over the relevant ranks of 1 / log2(2 + the non-relevant
    documents above)."""
    lead, (lv, r, _) = _flat(levels, ideal, np.zeros(()))
    value = T.binary_g(lv > 0, r, _log2_table(lv.shape[-1] + 3))
    return defined_where(value.reshape(lead), r.reshape(lead))


def _dcg_prefixes(lv, n, ideal_levels):
    """``(dcg, ideal, top)``: DCG of the run over its first k ranks (k from 0, gain =
    level), the same of the ideal list (the relevant levels descending, with a zero after
    the last), and R, with trec_eval's arithmetic (:func:`xdiv.kernels.trec_eval.
    discounted_gains`)."""
    depth = lv.shape[-1]
    seq = np.where(ideal_levels > 0, ideal_levels, 0).astype(np.float64)
    seq = np.concatenate([seq, np.zeros((len(seq), 1))], axis=-1)
    log2 = _log2_table(max(depth, seq.shape[-1]) + 3)
    gains = np.where(lv > 0, lv, 0).astype(np.float64)
    dcg = T.discounted_gains(gains, _valid(n, depth), log2)
    ideal = np.zeros((len(seq), seq.shape[-1] + 1))
    np.cumsum(seq / log2[np.arange(2, seq.shape[-1] + 2)], axis=-1, out=ideal[:, 1:])
    return dcg, ideal, seq, (seq > 0).sum(axis=-1)


def ndcg_rel(levels, ideal, length):
    """``ndcg_rel``: nDCG averaged over the R relevant documents, each retrieved one at
    its rank k (DCG@k / ideal DCG@min(k, R)), each missing one at the list's nDCG
    (``m_ndcg_rel.c``, gain = level)."""
    lead, (lv, r, n, ideal_levels) = _flat(levels, ideal, length, ideal)
    dcg, idcg, _, top = _dcg_prefixes(lv, n, ideal_levels)
    rows = np.arange(len(lv))[:, None]
    k = np.arange(1, lv.shape[-1] + 1)[None, :]
    rel = (lv > 0) & _valid(n, lv.shape[-1])
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(rel, dcg[:, 1:] / idcg[rows, np.minimum(k, top[:, None])], 0.0)
        total = rank_sum(terms) + ((top - rel.sum(axis=-1)).astype(np.float64)
                                   * dcg[rows[:, 0], n]) / idcg[rows[:, 0], top]
        value = np.where(total > 0.0, total / top, 0.0)
    return defined_where(value.reshape(lead), r.reshape(lead))


def r_ndcg(levels, ideal, length):
    """``Rndcg``: nDCG averaged over the ranks p where the ideal gain drops (the last
    relevant rank R among them), DCG@min(p, n) / ideal DCG@p, and, for a list longer than
    R + 1, the whole list's DCG over the ideal DCG@R (``m_Rndcg.c``, gain = level)."""
    lead, (lv, r, n, ideal_levels) = _flat(levels, ideal, length, ideal)
    dcg, idcg, seq, top = _dcg_prefixes(lv, n, ideal_levels)
    rows = np.arange(len(lv))
    p = np.arange(1, seq.shape[-1])[None, :]
    drop = (seq[:, 1:] != seq[:, :-1]) & (p <= top[:, None])
    with np.errstate(divide="ignore", invalid="ignore"):
        at = np.take_along_axis(dcg, np.minimum(p, n[:, None]), axis=-1)
        terms = np.where(drop, at / idcg[:, 1:-1], 0.0)
        total = rank_sum(terms)
        count = drop.sum(axis=-1)
        extra = (top + 1 < n) & (idcg[rows, top] > 0.0)
        total = np.where(extra, total + dcg[rows, n] / idcg[rows, top], total)
        value = total / (count + extra).astype(np.float64)
    return defined_where(value.reshape(lead), r.reshape(lead))


def gain_g(levels, ideal, length):
    """``G``: sum over the ranks i with a gain of g(i) / log2(2 + cost(i) - gain(i)),
    cost(i) the ideal gains (at least 1 a rank) and gain(i) the run's gains summed to
    rank i, over the sum of the ideal gains (``m_G.c``, gain = level)."""
    lead, (lv, r, n, ideal_levels) = _flat(levels, ideal, length, ideal)
    depth = lv.shape[-1]
    seq = np.where(ideal_levels > 0, ideal_levels, 0).astype(np.float64)
    inside = np.zeros((len(lv), depth))
    width = min(depth, seq.shape[-1])
    inside[:, :width] = seq[:, :width]
    cost = np.where(inside >= 1.0, inside, 1.0)
    valid = _valid(n, depth)
    gains = np.where(valid & (lv > 0), lv, 0).astype(np.float64)
    sum_cost, sum_gains = np.cumsum(cost, axis=-1), np.cumsum(gains, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(gains != 0, gains / np.log2(2.0 + sum_cost - sum_gains), 0.0)
        best = rank_sum(seq)
        value = np.where(best > 0.0, rank_sum(terms) / best, 0.0)
    return defined_where(value.reshape(lead), r.reshape(lead))


def rbp_residual(levels, ideal, length, slot, qrels_assessed, *, p: float):
    """``rbp_resid``: p^n + (1 - p) sum of p^(i-1) over the ranks i of the unjudged
    documents (no qrels line, or only negative levels); 0 without such a document
    (trec_eval 10.0, ``m_rbp_resid.c``)."""
    lead, (lv, r, n, judged) = _flat(levels, ideal, length,
                                     assessed_at(slot, qrels_assessed))
    rel = np.where(judged, 0, T.NONPOOL)
    value = T.rbp_residual(rel, _valid(n, lv.shape[-1]), p)
    return defined_where(value.reshape(lead), r.reshape(lead))


def yaap(levels, ideal):
    """``yaap``: log((1 + s) / (1 + R - s)), s the sum of the precisions at the relevant
    retrieved ranks (``m_yaap.c``)."""
    lead, (lv, r, _) = _flat(levels, ideal, np.zeros(()))
    s = T.average_precision(lv > 0, np.ones(len(lv), dtype=np.int64))
    value = np.log((1.0 + s) / (1.0 + r.astype(np.float64) - s))
    return defined_where(value.reshape(lead), r.reshape(lead))
