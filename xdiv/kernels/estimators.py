r"""Estimators of AP and nDCG from sampled judgments with known inclusion probabilities.

A sampled judgment is a qrels line of a document drawn into the judged sample with a
known *inclusion probability* :math:`\pi_d \in (0, 1]`. Each estimator here weighs a
sampled document by :math:`1/\pi_d` (Horvitz & Thompson, JASA 1952), so that a sum over the
sample estimates, without bias, the same sum over every document the sample was drawn
from. Every kernel follows :mod:`xdiv.kernels.common`: the ranked list on the last axis,
leading axes (run, topic, intent) broadcast.

Inputs shared by the kernels:

- ``levels`` ``(..., K)``: the run's levels in rank order (0 for unjudged documents);
- ``slot`` ``(..., K)``: the topic's document slot of each ranked document, -1 where it
  has no qrels line (and on the padding past the end of the list);
- ``qrels_levels`` ``(..., D)``: the levels of the topic's document slots;
- ``inclusion`` ``(..., D)``: the inclusion probability of each slot's judgment, NaN where
  the slot has none (padding). A slot whose probability is not a number in (0, 1] counts
  as not sampled.
"""

from __future__ import annotations

import numpy as np

from .common import cut, defined_where, discount, divide, lookup, rank_sum, ranks


def inverse_inclusion(inclusion: np.ndarray) -> np.ndarray:
    r"""The Horvitz-Thompson weights :math:`1/\pi`, 0 where there is no sampled judgment
    (``inclusion`` NaN, or not in (0, 1]).

    >>> inverse_inclusion(np.array([0.5, 1.0, np.nan, 0.25])).tolist()
    [2.0, 1.0, 0.0, 4.0]
    """
    inclusion = np.asarray(inclusion, dtype=np.float64)
    sampled = (inclusion > 0) & (inclusion <= 1)  # False for NaN
    out = np.zeros(inclusion.shape)
    np.divide(1.0, inclusion, out=out, where=sampled)
    return out


def inclusion_at(inclusion: np.ndarray, slot: np.ndarray) -> np.ndarray:
    """``inclusion[..., slot]`` along the last axis: the inclusion probability of each
    ranked document, NaN where ``slot`` is -1. The leading axes broadcast (either array may
    lack some).

    >>> inclusion_at(np.array([0.5, 0.25]), np.array([1, -1, 0])).tolist()
    [0.25, nan, 0.5]
    """
    inclusion = np.asarray(inclusion, dtype=np.float64)
    slot = np.asarray(slot)
    ndim = max(inclusion.ndim, slot.ndim)
    inclusion = inclusion.reshape((1,) * (ndim - inclusion.ndim) + inclusion.shape)
    slot = slot.reshape((1,) * (ndim - slot.ndim) + slot.shape)
    found = np.take_along_axis(inclusion, np.maximum(slot, 0), axis=-1)
    return np.where(slot >= 0, found, np.nan)


def _exclusive_cumsum(values: np.ndarray) -> np.ndarray:
    """``sum_{j < k} values[j]`` for each k along the last axis (0 at the first rank)."""
    total = np.cumsum(values, axis=-1)
    return np.concatenate([np.zeros_like(total[..., :1]), total[..., :-1]], axis=-1)


def estimated_relevant(qrels_levels: np.ndarray, inclusion: np.ndarray) -> np.ndarray:
    r"""The Horvitz-Thompson estimate of R, the number of relevant documents:
    :math:`\hat R = \sum_{d \in S,\, x_d > 0} 1/\pi_d` over the sampled relevant documents
    S of the topic's slots (last axis).

    Unbiased: under any sampling design with inclusion probabilities :math:`\pi_d`,
    :math:`E[\hat R] = R`.

    >>> float(estimated_relevant(np.array([1, 0, 1, 2]), np.array([0.5, 0.5, 1.0, 0.25])))
    7.0
    """
    weight = inverse_inclusion(inclusion) * (np.asarray(qrels_levels) > 0)
    return rank_sum(weight)


def stat_precision_sum(levels: np.ndarray, slot: np.ndarray,
                       inclusion: np.ndarray) -> np.ndarray:
    r"""statAP's numerator: :math:`\sum_{k \in S_{run}} \hat p(k) / \pi_k` over the sampled
    relevant documents of the run, at their ranks k, with

    .. math::

        \hat p(k) = \frac{1}{k}\Bigl(1 + \sum_{j \in S_{run},\, j < k} \frac{1}{\pi_j}\Bigr),

    the estimated precision at k: the document at k counts 1 (it is relevant), each sampled
    relevant document ranked above it :math:`1/\pi_j`, as ``statAP_MQ_eval_v3.pl`` adds
    ``(1 + sum_prec) / r``. ``inclusion`` is over the topic's slots (last axis ``D``).

    Under independent (Poisson) sampling, :math:`E[1_{d \in S} 1_{j \in S}] = \pi_d \pi_j`
    for :math:`d \ne j`, so the expectation is exactly :math:`\sum_{rel.\ k} C(k)/k`, the
    numerator of AP (R times AP).

    >>> float(stat_precision_sum(np.array([1, 0, 1, 0, 2]), np.array([0, -1, 2, 1, 3]),
    ...                          np.array([0.5, 0.5, 1.0, 0.25])))
    6.2
    """
    weight = inverse_inclusion(inclusion_at(inclusion, slot)) * (np.asarray(levels) > 0)
    precision = (1.0 + _exclusive_cumsum(weight)) / ranks(weight.shape[-1])
    return rank_sum(np.where(weight > 0, precision * weight, 0.0))


def stat_ap(levels: np.ndarray, slot: np.ndarray, qrels_levels: np.ndarray,
            inclusion: np.ndarray) -> np.ndarray:
    r"""statAP (Aslam, Pavlu & Yilmaz, SIGIR 2006; Pavlu & Aslam, "A practical sampling
    strategy for efficient retrieval evaluation", 2007), as ``statAP_MQ_eval_v3.pl`` of the
    TREC Million Query track computes it.

    .. math::

        \mathrm{statAP} = \frac{1}{\hat R} \sum_{k \in S_{run}}
        \frac{\hat p(k)}{\pi_k}, \qquad
        \hat p(k) = \frac{1}{k}\Bigl(1 + \sum_{j \in S_{run},\, j < k}
        \frac{1}{\pi_j}\Bigr), \qquad
        \hat R = \sum_{d \in S,\, x_d > 0} \frac{1}{\pi_d},

    :math:`S` the sampled relevant documents of the topic (level >= 1), :math:`S_{run}`
    those the run ranks, at ranks k, j. A document without a qrels line only takes up its
    rank; all relevant levels count alike (binary relevance).

    Parameters
    ----------
    levels, slot : ndarray ``(..., K)``
        The run's levels and the slots of its documents (see the module docstring).
    qrels_levels, inclusion : ndarray ``(..., D)``
        The topic's levels and inclusion probabilities by slot.

    Returns
    -------
    ndarray ``(...)``
        statAP, NaN where the topic has no sampled relevant document (:math:`\hat R = 0`;
        ``statAP_MQ_eval_v3.pl`` leaves such a topic out of its mean).

    Notes
    -----
    :math:`\hat R` and the numerator are each Horvitz-Thompson sums, :math:`\hat R` unbiased
    under any design and the numerator unbiased for R times AP under independent
    sampling; their ratio, statAP, is a ratio estimator, consistent but not exactly
    unbiased. :math:`\hat R` is not rounded (``statAP_MQ_eval_v3.pl`` rounds it only for
    R-precision). Being an estimate, statAP may exceed 1 on a small sample. With every
    inclusion probability 1 statAP is AP (over the whole run, divided by R).

    References
    ----------
    J. A. Aslam, V. Pavlu and E. Yilmaz, "A statistical method for system evaluation using
    incomplete judgments", SIGIR 2006, pp. 541-548. V. Pavlu and J. A. Aslam, "A practical
    sampling strategy for efficient retrieval evaluation", technical report, Northeastern
    University, 2007. ``statAP_MQ_eval_v3.pl`` (V. Pavlu, TREC Million Query track).

    Examples
    --------
    Sampled documents a (level 1, π = 0.5), b (0, 0.5), c (1, 1) and d (2, 0.25) in slots
    0-3; the run ranks a, an unjudged document, c, b, d. R̂ = 2 + 1 + 4 = 7; the terms are
    1/0.5 at rank 1, (1 + 2)/3 / 1 at rank 3 and (1 + 3)/5 / 0.25 at rank 5:
    (2 + 1 + 3.2) / 7.

    >>> round(float(stat_ap(np.array([1, 0, 1, 0, 2]), np.array([0, -1, 2, 1, 3]),
    ...                     np.array([1, 0, 1, 2]), np.array([0.5, 0.5, 1.0, 0.25]))), 12)
    0.885714285714
    """
    sampled_relevant = (np.asarray(qrels_levels) > 0) & (inverse_inclusion(inclusion) > 0)
    value = divide(stat_precision_sum(levels, slot, inclusion),
                   estimated_relevant(qrels_levels, inclusion))
    return defined_where(value, sampled_relevant.sum(axis=-1))


def estimated_dcg(levels: np.ndarray, slot: np.ndarray, inclusion: np.ndarray, *,
                  cutoff: int | None, table: np.ndarray) -> np.ndarray:
    r"""The Horvitz-Thompson estimate of DCG@l:
    :math:`\widehat{\mathrm{DCG}}@l = \sum_{k \le l,\, k \in S} \mathrm{gv}(x_k) /
    (\pi_k \log_2(k + 1))` over the run's sampled documents (unbiased: the expectation
    over samples is DCG@l). ``table`` holds the gains of levels 0..H
    (:func:`xdiv.kernels.common.gain_table`).

    >>> float(estimated_dcg(np.array([1, 0, 1, 0, 2]), np.array([0, -1, 2, 1, 3]),
    ...                     np.array([0.5, 0.5, 1.0, 0.25]), cutoff=3,
    ...                     table=np.array([0.0, 1.0, 3.0])))  # 1/0.5 + 1/1 / log2(4)
    2.5
    """
    levels, slot = cut(levels, cutoff), cut(slot, cutoff)
    weight = inverse_inclusion(inclusion_at(inclusion, slot))
    return rank_sum(lookup(table, levels) * weight * discount(levels.shape[-1]))


def estimated_grade_counts(qrels_levels: np.ndarray, inclusion: np.ndarray, *,
                           highest: int) -> np.ndarray:
    r"""The Horvitz-Thompson estimates :math:`\hat R_g = \sum_{d \in S,\, x_d = g} 1/\pi_d`
    of the number of documents of each level g = 1..H (levels above H count as H):
    ``(..., H)``, unbiased each.

    >>> estimated_grade_counts(np.array([1, 0, 1, 2]), np.array([0.5, 0.5, 1.0, 0.25]),
    ...                        highest=2).tolist()
    [3.0, 4.0]
    """
    grade = np.minimum(np.asarray(qrels_levels), highest)[..., None]
    weight = inverse_inclusion(inclusion)[..., None]
    return (weight * (grade == np.arange(1, highest + 1))).sum(axis=-2)


EXACT_DEPTH = 2 ** 16
"""Up to this many ranks :func:`discount_sum` adds the discounts one by one; past it, it
adds the rest in closed form."""


def discount_sum(n: np.ndarray) -> np.ndarray:
    r"""The sum of the discounts of ranks 1..n, :math:`S(n) = \sum_{r=1}^{n} 1/\log_2(r+1)`,
    for whole numbers ``n >= 0`` of any size (as floats), without a list of n ranks.

    Up to :data:`EXACT_DEPTH` ranks the discounts are added one by one; past it the rest,
    :math:`\ln 2 \sum_{m=a}^{b} 1/\ln m` with :math:`a = 2^{16} + 2`, :math:`b = n + 1`,
    is its Euler-Maclaurin sum :math:`\mathrm{li}(b) - \mathrm{li}(a) + (f(a) + f(b))/2 +
    (f'(b) - f'(a))/12`, :math:`f(x) = 1/\ln x`, whose next term is below
    :math:`10^{-20}` there (li, the logarithmic integral, is :math:`\mathrm{Ei}(\ln x)`).

    >>> discount_sum(np.array([0.0, 1.0, 3.0])).tolist()  # 0, 1, 1 + 1/log2(3) + 1/2
    [0.0, 1.0, 2.1309297535714578]
    """
    n = np.asarray(n, dtype=np.float64)
    exact = np.minimum(n, EXACT_DEPTH)
    prefix = np.concatenate([[0.0], np.cumsum(discount(int(exact.max(initial=0))))])
    out = np.array(prefix[exact.astype(np.int64)])
    far = n > EXACT_DEPTH
    if far.any():
        from scipy.special import expi  # imported here: most evaluations never need it

        a, b = float(EXACT_DEPTH + 2), n[far] + 1.0

        def f(x):
            return 1.0 / np.log(x)

        def slope(x):
            return -1.0 / (x * np.log(x) ** 2)

        tail = (expi(np.log(b)) - expi(np.log(a)) + (f(a) + f(b)) / 2
                + (slope(b) - slope(a)) / 12)
        out[far] += np.log(2.0) * tail
    return out


def estimated_ideal_dcg(counts: np.ndarray, *, cutoff: int | None,
                        table: np.ndarray) -> np.ndarray:
    r"""The DCG@l of the ideal list built from estimated counts of documents per level.

    ``counts`` ``(..., H)`` holds :math:`\hat R_1, \dots, \hat R_H`; each is rounded to the
    nearest whole number (halves up), :math:`N_g = \lfloor \hat R_g + 1/2 \rfloor`, as
    ``sample_eval.pl`` rounds them, and the ideal list holds :math:`N_H` documents of level
    H, then :math:`N_{H-1}` of level H - 1, ..., cut at l:

    .. math::

        \mathrm{IDCG}@l = \sum_{g=1}^{H} \mathrm{gv}(g)
        \bigl(S(\min(C_g, l)) - S(\min(C_{g+1}, l))\bigr),
        \qquad C_g = \sum_{g' \ge g} N_{g'},

    :math:`S(n)` the sum of the discounts of ranks 1..n (:func:`discount_sum`, which needs
    no list of the ranks: a count may be far larger than any list).

    >>> round(float(estimated_ideal_dcg(np.array([3.0, 4.0]), cutoff=None,
    ...                                 table=np.array([0.0, 1.0, 3.0]))), 12)
    8.76121226261
    """
    counts = np.floor(np.asarray(counts, dtype=np.float64) + 0.5)
    above = np.cumsum(counts[..., ::-1], axis=-1)[..., ::-1]  # C_g, g = 1..H
    below = np.concatenate([above[..., 1:], np.zeros_like(above[..., :1])], axis=-1)
    if cutoff is not None:
        above, below = np.minimum(above, cutoff), np.minimum(below, cutoff)
    gains = np.asarray(table, dtype=np.float64)[1:counts.shape[-1] + 1]
    return ((discount_sum(above) - discount_sum(below)) * gains).sum(axis=-1)


def inferred_ndcg(levels: np.ndarray, slot: np.ndarray, qrels_levels: np.ndarray,
                  inclusion: np.ndarray, *, cutoff: int | None,
                  table: np.ndarray) -> np.ndarray:
    r"""Inferred nDCG from sampled judgments with inclusion probabilities (Yilmaz,
    Kanoulas & Aslam, "A simple and efficient sampling method for estimating AP and NDCG",
    SIGIR 2008).

    .. math::

        \mathrm{infNDCG}@l = \frac{\widehat{\mathrm{DCG}}@l}{\mathrm{IDCG}@l}, \qquad
        \widehat{\mathrm{DCG}}@l = \sum_{k \le l,\, k \in S}
        \frac{\mathrm{gv}(x_k)}{\pi_k \log_2(k + 1)},

    :math:`S` the sampled documents, and IDCG@l the DCG@l of the ideal list holding
    :math:`N_g = \lfloor \hat R_g + 1/2 \rfloor` documents of each level g,
    :math:`\hat R_g = \sum_{d \in S,\, x_d = g} 1/\pi_d` (:func:`estimated_ideal_dcg`).

    Parameters
    ----------
    levels, slot : ndarray ``(..., K)``
        The run's levels and the slots of its documents (see the module docstring).
    qrels_levels, inclusion : ndarray ``(..., D)``
        The topic's levels and inclusion probabilities by slot.
    cutoff : int or None
        l; None scores the whole run against the whole estimated ideal list.
    table : ndarray
        The gains of levels 0..H (:func:`xdiv.kernels.common.gain_table`).

    Returns
    -------
    ndarray ``(...)``
        infNDCG@l, NaN where the topic has no sampled relevant document; an estimate,
        which can exceed 1 (the estimated DCG and IDCG are estimated apart).

    Notes
    -----
    ``sample_eval.pl`` (TREC 2010-2012 Web track) estimates from strata: a document of
    stratum c weighs (pooled documents of c in the run) / (sampled ones of c in the run),
    and the counts per level weigh (documents of c) / (sampled ones of c), with the gain of
    a level its value (``gain=linear`` here) and its ideal list capped at 1000 ranks. With
    per-document inclusion probabilities this kernel weighs every sampled document by
    :math:`1/\pi`, the Horvitz-Thompson weight: the two agree when the run's share of
    sampled documents in each stratum is the stratum's sampling rate. The numerator is
    unbiased for DCG@l and each :math:`\hat R_g` for the number of documents of level g;
    the ratio, with its rounded ideal list, is not exactly unbiased, and may exceed 1 on a
    small sample. With every inclusion probability 1 infNDCG@l is nDCG@l.

    References
    ----------
    E. Yilmaz, E. Kanoulas and J. A. Aslam, "A simple and efficient sampling method for
    estimating AP and NDCG", SIGIR 2008, pp. 603-610; ``sample_eval.pl`` (NIST, TREC Web
    track 2010-2012).

    Examples
    --------
    The documents of :func:`stat_ap`'s example with gains 2^x - 1: the estimated DCG is
    1/0.5 + 1/1 / log2(4) + 3/0.25 / log2(6); the estimated counts, 3 documents of level 1
    and 4 of level 2, give the ideal list 2, 2, 2, 2, 1, 1, 1.

    >>> round(float(inferred_ndcg(np.array([1, 0, 1, 0, 2]), np.array([0, -1, 2, 1, 3]),
    ...                           np.array([1, 0, 1, 2]), np.array([0.5, 0.5, 1.0, 0.25]),
    ...                           cutoff=None, table=np.array([0.0, 1.0, 3.0]))), 12)
    0.81521066637
    """
    highest = len(table) - 1
    counts = estimated_grade_counts(qrels_levels, inclusion, highest=highest)
    value = divide(estimated_dcg(levels, slot, inclusion, cutoff=cutoff, table=table),
                   estimated_ideal_dcg(counts, cutoff=cutoff, table=table))
    sampled_relevant = (np.asarray(qrels_levels) > 0) & (inverse_inclusion(inclusion) > 0)
    return defined_where(value, sampled_relevant.sum(axis=-1))

