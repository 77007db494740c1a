"""Single-intent graded measures as numpy kernels.

Every kernel takes ``levels`` ``(..., K)`` — the run's levels for one intent (or an adhoc
topic) in rank order — and ``ideal`` ``(..., K')`` — the same intent's judged levels
sorted descending — and returns ``(...)``. Values are NaN where the intent has no
relevant document (R = 0). ``cutoff`` None means the whole list.
"""

from __future__ import annotations

import numpy as np

from .common import (count_relevant, cut, defined_where, discount, divide,
                     exclusive_cumprod, fit, highest_gain, lookup, rank_sum, ranks)


def dcg(levels: np.ndarray, table: np.ndarray) -> np.ndarray:
    """``sum_r gv(x_r) / log2(r + 1)`` over the whole of ``levels``."""
    return rank_sum(lookup(table, levels) * discount(levels.shape[-1]))


def ndcg(levels, ideal, *, cutoff, table):
    """nDCG@l = DCG@l / ideal DCG@l (Järvelin & Kekäläinen; the Microsoft discount)."""
    value = divide(dcg(cut(levels, cutoff), table), dcg(cut(ideal, cutoff), table))
    return defined_where(value, count_relevant(ideal))


def dcg_at(levels, ideal, *, cutoff, table):
    """DCG@l = sum_{r<=l} gv(x_r) / log2(r + 1), nDCG's numerator."""
    return defined_where(dcg(cut(levels, cutoff), table), count_relevant(ideal))


def ideal_dcg_at(levels, ideal, *, cutoff, table):
    """The ideal list's DCG@l, nDCG's denominator (the same for every ranking)."""
    value = defined_where(dcg(cut(ideal, cutoff), table), count_relevant(ideal))
    return np.broadcast_to(value, np.broadcast_shapes(value.shape, levels.shape[:-1])).copy()


def _blended(levels, ideal, table, beta):
    """``J(r)``, ``C(r)`` and the blended ratio ``BR(r)`` for r = 1..K."""
    k = levels.shape[-1]
    rel = levels > 0
    count = np.cumsum(rel, axis=-1)
    cg = np.cumsum(lookup(table, levels), axis=-1)
    cg_ideal = np.cumsum(lookup(table, fit(ideal, k)), axis=-1)
    ratio = (count + beta * cg) / (ranks(k) + beta * cg_ideal)
    return rel, count, ratio


def q_measure(levels, ideal, *, cutoff, table, beta, denominator="min"):
    """Q@l = (1/min(l, R)) sum_{r<=l} J(r) BR(r) (Sakai); uncut Q divides by R.

    ``beta = 0`` gives average precision. ``denominator="R"`` divides the cut-off
    measure by R instead of min(l, R) (trec_eval's ``map_cut``).
    """
    levels = cut(levels, cutoff)
    rel, _, ratio = _blended(levels, ideal, table, beta)
    total = count_relevant(ideal)
    norm = total if cutoff is None or denominator == "R" else np.minimum(total, cutoff)
    return defined_where(divide(rank_sum(rel * ratio), norm), total)


def p_plus(levels, ideal, *, cutoff, table, beta):
    """P+@l (Sakai): ``(1/C(rp)) sum_{r<=rp} J(r) BR(r)``.

    ``rp`` is the rank of the highest-ranked document carrying the highest level present
    in the top l; 0 if the top l holds no relevant document.
    """
    levels = cut(levels, cutoff)
    rel, count, ratio = _blended(levels, ideal, table, beta)
    top = levels.max(axis=-1, initial=0)
    rp = np.argmax(levels == top[..., None], axis=-1)
    upto = np.arange(levels.shape[-1]) <= rp[..., None]
    c_rp = np.take_along_axis(count, rp[..., None], axis=-1)[..., 0] if levels.shape[-1] else 0
    value = np.where(top > 0, divide(rank_sum(rel * ratio * upto), c_rp), 0.0)
    return defined_where(value, count_relevant(ideal))


def err(levels, *, table, top=None):
    """ERR = sum_r (1/r) Pr(r) prod_{k<r}(1 - Pr(k)), ``Pr = gv(x) / (gv_max + 1)``.

    ``gv_max`` is ``top`` ``(...)`` (:func:`~xdiv.kernels.common.highest_gain`), by default
    ``gv(H)``: with exponential gains ``Pr = (2^x - 1)/2^H`` (Chapelle et al., CIKM 2009);
    with any gain it is NTCIREVAL's stop probability ``g / (g_max + 1)``.
    """
    top = np.asarray(table[-1] if top is None else top)[..., None]
    stop = lookup(table, levels) / (top + 1.0)
    return rank_sum(stop * exclusive_cumprod(1.0 - stop) / ranks(levels.shape[-1]))


def err_at(levels, ideal, *, cutoff, table, own=False):
    """ERR@l (not normalised); ``own``: ``gv_max`` is the list's own highest level's gain."""
    top = highest_gain(table, ideal, own)
    return defined_where(err(cut(levels, cutoff), table=table, top=top),
                         count_relevant(ideal))


def nerr(levels, ideal, *, cutoff, table, own=False):
    """nERR@l = ERR@l / ERR@l of the ideal list (``own`` as :func:`err_at`)."""
    top = highest_gain(table, ideal, own)
    value = divide(err(cut(levels, cutoff), table=table, top=top),
                   err(cut(ideal, cutoff), table=table, top=top))
    return defined_where(value, count_relevant(ideal))


def _gap_numerator(levels, q):
    """``sum_k (1/k) sum_{kappa<=k} q_{min(x_kappa, x_k)}``, vectorised over levels 1..H.

    Uses ``q_{min(a,b)} = sum_j g_j [a>=j][b>=j]`` with ``g_j = q_j - q_{j-1}``.
    """
    steps = np.diff(q)
    above = levels[..., None] >= np.arange(1, len(q))
    counts = np.cumsum(above, axis=-2)
    inner = (above * counts * steps).sum(axis=-1)
    return rank_sum(inner / ranks(levels.shape[-1]))


def gap(levels, ideal, *, cutoff, q):
    """Graded average precision (Robertson, Kanoulas & Yilmaz, SIGIR 2010).

    ``q`` holds ``q_0 = 0, q_1, ..., q_H``: the probability that a user with a random
    threshold counts a level-x document relevant. Denominator ``sum_x R_x q_x``; GAP@l
    sums the top l of the run and divides by the same sum over the ideal list's top l,
    ``sum_{r <= min(l, R)} q_{x*(r)}`` (NTCIREVAL's GAP@l).
    """
    denominator = rank_sum(lookup(q, cut(ideal, cutoff)))
    value = divide(_gap_numerator(cut(levels, cutoff), q), denominator)
    return defined_where(value, count_relevant(ideal))


def ngap(levels, ideal, *, cutoff, q):
    """nGAP@l (reconstructed: the formula cannot be read in the available text of Sakai &
    Song, SIGIR 2011): GAP's numerator over the top l of the run divided by the same
    numerator over the ideal list's top l."""
    value = divide(_gap_numerator(cut(levels, cutoff), q),
                   _gap_numerator(cut(ideal, cutoff), q))
    return defined_where(value, count_relevant(ideal))


def precision(levels, ideal, *, cutoff):
    """P@l = (number of relevant documents in the top l) / l (short lists count as l)."""
    return defined_where((cut(levels, cutoff) > 0).sum(axis=-1) / cutoff, count_relevant(ideal))


def reciprocal_rank(levels, ideal, *, cutoff):
    """RR = 1 / rank of the first relevant document (0 if none in the top l)."""
    rel = cut(levels, cutoff) > 0
    first = np.argmax(rel, axis=-1)
    value = np.where(rel.any(axis=-1), 1.0 / (first + 1.0), 0.0)
    return defined_where(value, count_relevant(ideal))


def hit(levels, ideal, *, cutoff):
    """Hit@l = 1 if the top l holds a relevant document, else 0."""
    value = (cut(levels, cutoff) > 0).any(axis=-1).astype(np.float64)
    return defined_where(value, count_relevant(ideal))


def rbp(levels, ideal, *, cutoff, table, p, own=False):
    """RBP = (1 - p) sum_r p^(r-1) gv(x_r) / gv(H) (Moffat & Zobel, graded); ``own``:
    divided by the gain of the list's own highest level instead (NTCIREVAL gcompute)."""
    levels = cut(levels, cutoff)
    weights = p ** np.arange(levels.shape[-1], dtype=np.float64)
    value = divide((1.0 - p) * rank_sum(lookup(table, levels) * weights),
                   highest_gain(table, ideal, own))
    return defined_where(value, count_relevant(ideal))


# ------------------------------------------------------------ trec_eval's staple measures

def r_precision(levels: np.ndarray, ideal: np.ndarray) -> np.ndarray:
    """R-prec = C(R) / R: precision at rank R, R the number of relevant documents.

    Ranks past the end of the run count as non-relevant, so a run of n < R documents
    scores C(n) / R (trec_eval's ``Rprec``; Buckley & Voorhees, "Retrieval System
    Evaluation", in *TREC: Experiment and Evaluation in Information Retrieval*, MIT Press
    2005).
    """
    total = count_relevant(ideal)
    within = np.arange(levels.shape[-1]) < total[..., None]
    return defined_where(divide(((levels > 0) & within).sum(axis=-1), total), total)


def _at_slots(flags: np.ndarray, slot: np.ndarray) -> np.ndarray:
    """``flags[..., slot]`` along the last axis, False where ``slot`` is -1; the leading
    axes broadcast (either array may lack some)."""
    ndim = max(flags.ndim, slot.ndim)
    flags = flags.reshape((1,) * (ndim - flags.ndim) + flags.shape)
    slot = slot.reshape((1,) * (ndim - slot.ndim) + slot.shape)
    return np.take_along_axis(flags, np.maximum(slot, 0), axis=-1) & (slot >= 0)


def bpref(levels: np.ndarray, slot: np.ndarray, qrels_levels: np.ndarray,
          qrels_assessed: np.ndarray) -> np.ndarray:
    """bpref = (1/R) sum_{relevant r} (1 - min(n(r), R) / min(N, R)) (Buckley & Voorhees,
    SIGIR 2004), with trec_eval's conventions.

    Parameters
    ----------
    levels : ndarray ``(..., K)``
        The run's levels in rank order.
    slot : ndarray ``(..., K)``
        The topic's document slot of each ranked document, -1 where it has no qrels line.
    qrels_levels, qrels_assessed : ndarray ``(..., D)``
        The levels of the topic's document slots and whether each has a qrels line with a
        level >= 0 (padding slots have none).

    Notes
    -----
    R counts the relevant documents (level >= 1), N the judged non-relevant ones (level 0,
    with a qrels line of level >= 0), n(r) the judged non-relevant documents ranked above
    rank r. Documents without a qrels line are skipped, and so, as trec_eval reads them
    ("in the pool but unjudged"), are documents whose qrels levels are all negative
    (TREC's spam -2): they count neither in n(r) nor in N. A relevant document with
    n(r) = 0 adds 1 (also when N = 0).
    """
    rel = levels > 0
    total = (qrels_levels > 0).sum(axis=-1)
    nonrel = (qrels_assessed & (qrels_levels == 0)).sum(axis=-1)
    assessed = _at_slots(qrels_assessed, slot)
    above = np.cumsum(assessed & ~rel, axis=-1)
    penalty = divide(np.minimum(above, total[..., None]), np.minimum(nonrel, total)[..., None])
    terms = np.where(rel, np.where(above > 0, 1.0 - penalty, 1.0), 0.0)
    return defined_where(divide(rank_sum(terms), total), total)


INFAP_EPSILON = 1e-5
"""trec_eval's ``INFAP_EPSILON``: keeps infAP's ratio of relevant to judged documents
defined (0.5) when no document above is judged."""


def inferred_ap(levels: np.ndarray, slot: np.ndarray, qrels_levels: np.ndarray,
                qrels_assessed: np.ndarray) -> np.ndarray:
    r"""Inferred average precision (Yilmaz & Aslam, CIKM 2006), as trec_eval's ``infAP``.

    .. math::

        \mathrm{infAP} = \frac{1}{R} \sum_{k:\, \mathrm{rel}(k)} E[\mathrm{prec}@k],
        \qquad E[\mathrm{prec}@1] = 1,

        E[\mathrm{prec}@k] = \frac{1}{k} + \frac{k - 1}{k} \cdot
        \frac{|d_{k-1}|}{k - 1} \cdot
        \frac{|\mathrm{rel}_{k-1}| + \varepsilon}
             {|\mathrm{rel}_{k-1}| + |\mathrm{nonrel}_{k-1}| + 2\varepsilon}
        \quad (k > 1),

    with, over the ranks above k, :math:`|d_{k-1}|` the documents in the pool (those with
    a qrels line), :math:`|\mathrm{rel}_{k-1}|` and :math:`|\mathrm{nonrel}_{k-1}|` the
    judged relevant and judged non-relevant ones, and :math:`\varepsilon = 10^{-5}`.

    Parameters
    ----------
    levels : ndarray ``(..., K)``
        The run's levels in rank order.
    slot : ndarray ``(..., K)``
        The topic's document slot of each ranked document, -1 where it has no qrels line
        (and on the padding past the end of the list).
    qrels_levels, qrels_assessed : ndarray ``(..., D)``
        The levels of the topic's document slots and whether each has a qrels line with a
        level >= 0 (padding slots have none).

    Returns
    -------
    ndarray ``(...)``
        infAP, NaN where the topic has no relevant document (R = 0; trec_eval prints 0).

    Notes
    -----
    trec_eval reads the qrels in three classes, and so does this kernel: a document
    without a qrels line is outside the pool and only takes up its rank (it counts in k,
    not in :math:`|d_{k-1}|`); a document whose qrels levels are all negative (-1, the
    convention for "pooled but not sampled for judging", and also TREC's spam -2) is in
    the pool but unjudged: it counts in :math:`|d_{k-1}|` only, the sampled documents
    standing for it; a level of 0 is judged non-relevant and >= 1 relevant. Only relevant
    documents inside the run contribute, and R counts every relevant qrels line, so the
    relevant documents the run misses (or ranks past its end) add 0. The terms are
    trec_eval's ``1/(j+1) + (j/(j+1)) ((rel + nonrel + unjudged)/j) ((rel + eps)/(rel +
    nonrel + 2 eps))`` at 0-based rank j, in its order of operations. With complete
    judgments (no unjudged pooled document) the expectation is the precision at k up to
    the epsilon, so infAP is AP to about 1e-5.

    References
    ----------
    E. Yilmaz and J. A. Aslam, "Estimating average precision with incomplete and
    imperfect judgments", CIKM 2006, pp. 102-111; trec_eval 10.0, ``m_infap.c``.
    """
    judged = _at_slots(qrels_assessed, slot)
    pooled = slot >= 0
    rel = judged & (levels > 0)
    nonrel = judged & ~rel
    unjudged = pooled & ~judged
    rel_above = np.cumsum(rel, axis=-1) - rel
    nonrel_above = np.cumsum(nonrel, axis=-1) - nonrel
    unjudged_above = np.cumsum(unjudged, axis=-1) - unjudged
    j = np.arange(levels.shape[-1], dtype=np.float64)
    fj = np.where(j > 0, j, 1.0)  # rank 1 is the special case trec_eval adds as 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = (1.0 / (fj + 1.0) + (fj / (fj + 1.0))
                    * ((rel_above + nonrel_above + unjudged_above) / fj)
                    * ((rel_above + INFAP_EPSILON)
                       / (rel_above + nonrel_above + 2 * INFAP_EPSILON)))
    terms = np.where(rel, np.where(j > 0, expected, 1.0), 0.0)
    total = (qrels_levels > 0).sum(axis=-1)
    return defined_where(divide(rank_sum(terms), total), total)


def judged_share(judged: np.ndarray, length: np.ndarray, ideal: np.ndarray, *,
                 cutoff: int | None) -> np.ndarray:
    """Judged@l = (judged documents in the top l) / min(l, n), n the run's length.

    Any qrels line makes a document judged, whatever its level (0 and negative levels
    included), as in ir_measures' ``Judged`` (MacAvaney, Macdonald & Ounis, ECIR 2022);
    0 for a run that retrieved nothing.
    """
    shown = length if cutoff is None else np.minimum(length, cutoff)
    value = np.where(shown > 0, divide(cut(judged, cutoff).sum(axis=-1), shown), 0.0)
    return defined_where(value, count_relevant(ideal))


def retrieved_count(length: np.ndarray, ideal: np.ndarray) -> np.ndarray:
    """The number of documents the run retrieved (trec_eval's ``num_ret``), as a float."""
    return defined_where(length.astype(np.float64), count_relevant(ideal))


def relevant_count(levels: np.ndarray, ideal: np.ndarray) -> np.ndarray:
    """R, the number of judged relevant documents (trec_eval's ``num_rel``), as a float,
    for each ranked list of ``levels``."""
    total = np.broadcast_to(count_relevant(ideal), levels.shape[:-1])
    return defined_where(total.astype(np.float64), total)


def relevant_retrieved_count(levels: np.ndarray, ideal: np.ndarray) -> np.ndarray:
    """The number of relevant documents the run retrieved (trec_eval's ``num_rel_ret``),
    as a float."""
    return defined_where((levels > 0).sum(axis=-1).astype(np.float64), count_relevant(ideal))


# ------------------------------------------------------------ reading per-intent relevance

def merge_intents(levels: np.ndarray, valid: np.ndarray, *, method: str) -> np.ndarray:
    """One level per document from its per-intent levels (intents on the last axis).

    ``method="max"``: the highest level over the valid intents (*gr2T*); ``"count"``: the
    number of valid intents the document is relevant to (*2T*) (Sakai & Song, SIGIR
    2011). Invalid intents are ignored. The result is int16.
    """
    levels = np.where(valid, levels, 0).astype(np.int16)
    if method == "max":
        return levels.max(axis=-1, initial=0)
    if method == "count":
        return (levels > 0).sum(axis=-1, dtype=np.int16)
    raise ValueError(f"unknown method {method!r}")
