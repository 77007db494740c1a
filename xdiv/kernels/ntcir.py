"""Numpy kernels of the adhoc measures NTCIREVAL computes beside the classic ones.

Conventions of :mod:`xdiv.kernels.graded`: ``levels`` ``(..., K)`` are one intent's (or an
adhoc topic's) levels in rank order, ``ideal`` ``(..., K')`` its judged levels sorted
descending, ``table`` the gain of each level 0..H (``table[-1]`` is gv(H), the gain of the
highest level H); values are NaN where the list has no relevant document (R = 0);
``cutoff`` None means the whole list. The condensed-list kernels (``bpref_*``,
``rpref_*``) take the ranked documents' qrels slots as :func:`xdiv.kernels.graded.bpref`
does and skip the unjudged ones themselves.

References: Sakai, IPSJ TOD 2007 (O-measure, P-measure); Sakai & Robertson, EVIA 2008
(NCU); Sakai, SIGIR 2007 (condensed lists, bpref variants and rpref); Järvelin &
Kekäläinen, TOIS 2002 (the original nDCG); Chapelle et al., CIKM 2009 (ERR's cascade);
Amigó et al., SIGIR 2018 (RBU).
"""

from __future__ import annotations

import numpy as np

from .common import (count_relevant, cut, defined_where, divide, exclusive_cumprod,
                     highest_gain, lookup, rank_sum, ranks)
from .graded import blended


def _at_first(values: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """``values`` at the first rank where ``flags`` holds; 0 where it holds nowhere."""
    if values.shape[-1] == 0:
        return np.zeros(values.shape[:-1])
    first = np.take_along_axis(values, np.argmax(flags, axis=-1)[..., None], axis=-1)[..., 0]
    return np.where(flags.any(axis=-1), first, 0.0)


def o_measure(levels: np.ndarray, ideal: np.ndarray, *, cutoff: int | None,
              table: np.ndarray, beta: float) -> np.ndarray:
    """O-measure = BR(r1), the blended ratio at the first relevant document (0 without one).

    Examples
    --------
    >>> import numpy as np
    >>> table = np.array([0.0, 1.0, 2.0])
    >>> float(o_measure(np.array([0, 1, 2]), np.array([2, 1]), cutoff=None, table=table,
    ...                 beta=1.0))
    0.4
    """
    levels = cut(levels, cutoff)
    rel, _, ratio = blended(levels, ideal, table, beta)
    return defined_where(_at_first(ratio, rel), count_relevant(ideal))


def p_measure(levels: np.ndarray, ideal: np.ndarray, *, cutoff: int | None,
              table: np.ndarray, beta: float) -> np.ndarray:
    """P-measure = BR(rp), rp the first rank holding the list's highest level (0 without
    a relevant document).

    Examples
    --------
    >>> import numpy as np
    >>> table = np.array([0.0, 1.0, 2.0])
    >>> float(p_measure(np.array([0, 1, 2]), np.array([2, 1]), cutoff=None, table=table,
    ...                 beta=1.0))
    0.8333333333333334
    """
    levels = cut(levels, cutoff)
    _, _, ratio = blended(levels, ideal, table, beta)
    top = levels.max(axis=-1, initial=0)
    value = _at_first(ratio, (levels == top[..., None]) & (top[..., None] > 0))
    return defined_where(value, count_relevant(ideal))


def _utility(levels: np.ndarray, ideal: np.ndarray, table: np.ndarray, beta: float,
             utility: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``J(r)``, ``C(r)`` and the utility NU(r): precision ``C(r)/r`` or the blended ratio."""
    rel, count, ratio = blended(levels, ideal, table, beta)
    if utility == "P":
        ratio = count / ranks(levels.shape[-1])
    return rel, count, ratio


def ncu_gu(levels: np.ndarray, ideal: np.ndarray, *, cutoff: int | None, table: np.ndarray,
           stop: np.ndarray, beta: float, utility: str) -> np.ndarray:
    """NCU with the graded-uniform stopping distribution (Sakai & Robertson, EVIA 2008).

    ``sum_r J(r) s(x_r) NU(r) / sum_x R_x s(x)``: the user stops at a relevant document
    with a probability proportional to its level's stop value ``s`` (``stop``, a table
    like ``table``); NU(r) is precision ``C(r)/r`` (``utility="P"``) or the blended ratio
    ``BR(r)`` (``utility="BR"``).

    Examples
    --------
    >>> import numpy as np
    >>> table = np.array([0.0, 1.0, 2.0])
    >>> float(ncu_gu(np.array([0, 1, 2]), np.array([2, 1]), cutoff=None, table=table,
    ...              stop=table, beta=1.0, utility="P"))
    0.611111111111111
    """
    levels = cut(levels, cutoff)
    rel, _, value = _utility(levels, ideal, table, beta, utility)
    total = rank_sum(lookup(stop, ideal))
    value = divide(rank_sum(np.where(rel, value * lookup(stop, levels), 0.0)), total)
    return defined_where(value, count_relevant(ideal))


def ncu_rb(levels: np.ndarray, ideal: np.ndarray, *, cutoff: int | None, table: np.ndarray,
           gamma: float, beta: float, utility: str) -> np.ndarray:
    """NCU with the rank-biased stopping distribution (Sakai & Robertson, EVIA 2008).

    ``sum_r J(r) gamma^(C(r)-1) NU(r) / sum_{k=1..R} gamma^(k-1)``: the user stops at the
    k-th relevant document with a probability proportional to ``gamma^(k-1)``; NU(r) as in
    :func:`ncu_gu`.

    Examples
    --------
    >>> import numpy as np
    >>> table = np.array([0.0, 1.0, 2.0])
    >>> round(float(ncu_rb(np.array([0, 1, 2]), np.array([2, 1]), cutoff=None,
    ...                    table=table, gamma=0.5, beta=1.0, utility="P")), 6)
    0.555556
    """
    levels = cut(levels, cutoff)
    rel, count, value = _utility(levels, ideal, table, beta, utility)
    total = count_relevant(ideal)
    norm = divide(1.0 - gamma ** total, 1.0 - gamma) if gamma != 1.0 else total
    weights = gamma ** np.maximum(count - 1, 0).astype(np.float64)
    value = divide(rank_sum(np.where(rel, value * weights, 0.0)), norm)
    return defined_where(value, total)


def _stop(levels: np.ndarray, ideal: np.ndarray, table: np.ndarray, own: bool) -> np.ndarray:
    """ERR's stop probability ``gv(x) / (gv_max + 1)`` of each rank, ``gv_max`` the gain
    of level H or, with ``own``, of the list's own highest level."""
    return lookup(table, levels) / (highest_gain(table, ideal, own)[..., None] + 1.0)


def ebr(levels: np.ndarray, ideal: np.ndarray, *, cutoff: int | None, table: np.ndarray,
        beta: float, own: bool = False) -> np.ndarray:
    """EBR@l = sum_{r<=l} BR(r) Pr(r) prod_{k<r} (1 - Pr(k)), Pr = gv(x)/(gv(H)+1).

    The expected blended ratio at which an ERR user stops (NTCIREVAL 2018). ``own``
    divides by the gain of the list's own highest level instead of gv(H) (NTCIREVAL's
    ``gcompute``).

    Examples
    --------
    >>> import numpy as np
    >>> table = np.array([0.0, 1.0, 2.0])
    >>> round(float(ebr(np.array([0, 1, 2]), np.array([2, 1]), cutoff=None, table=table,
    ...                 beta=1.0)), 6)
    0.503704
    """
    levels = cut(levels, cutoff)
    _, _, ratio = blended(levels, ideal, table, beta)
    stop = _stop(levels, ideal, table, own)
    value = rank_sum(ratio * stop * exclusive_cumprod(1.0 - stop))
    return defined_where(value, count_relevant(ideal))


def irbu(levels: np.ndarray, ideal: np.ndarray, *, cutoff: int | None, table: np.ndarray,
         p: float, own: bool = False) -> np.ndarray:
    """iRBU@l = sum_{r<=l} p^r Pr(r) prod_{k<r} (1 - Pr(k)), Pr = gv(x)/(gv(H)+1).

    The intentwise rank-biased utility of NTCIREVAL (after Amigó et al., SIGIR 2018):
    ERR's cascade with the utility ``p^r`` of stopping at rank r; ``own`` as :func:`ebr`.

    Examples
    --------
    >>> import numpy as np
    >>> table = np.array([0.0, 1.0, 2.0])
    >>> round(float(irbu(np.array([0, 1, 2]), np.array([2, 1]), cutoff=3, table=table,
    ...                  p=0.9)), 6)
    0.594
    """
    levels = cut(levels, cutoff)
    stop = _stop(levels, ideal, table, own)
    utility = p ** ranks(levels.shape[-1])
    value = rank_sum(utility * stop * exclusive_cumprod(1.0 - stop))
    return defined_where(value, count_relevant(ideal))


def jk_discount(n: int, b: float) -> np.ndarray:
    """The original DCG's discount of ranks 1..n (Järvelin & Kekäläinen, TOIS 2002):
    ``1`` for ranks r <= b (and r = 1), ``1 / log_b(r)`` beyond; ``b = 0`` takes the
    natural logarithm from rank 2 on."""
    r = ranks(n)
    logs = np.log(r) if b == 0 else np.log(r) / np.log(b)
    return 1.0 / np.where((r == 1) | (r <= b), 1.0, logs)


def jk_ndcg(levels: np.ndarray, ideal: np.ndarray, *, cutoff: int | None, table: np.ndarray,
            b: float) -> np.ndarray:
    """The original nDCG@l of Järvelin & Kekäläinen: DCG@l / ideal DCG@l with the
    discount :func:`jk_discount` (ranks up to b undiscounted).

    Examples
    --------
    >>> import numpy as np
    >>> table = np.array([0.0, 1.0, 2.0])
    >>> round(float(jk_ndcg(np.array([0, 1, 2]), np.array([2, 1]), cutoff=3, table=table,
    ...                     b=2.0)), 6)
    0.753953
    """
    levels, ideal_top = cut(levels, cutoff), cut(ideal, cutoff)

    def dcg(values: np.ndarray) -> np.ndarray:
        return rank_sum(lookup(table, values) * jk_discount(values.shape[-1], b))

    return defined_where(divide(dcg(levels), dcg(ideal_top)), count_relevant(ideal))


def _condensed(levels: np.ndarray, slot: np.ndarray, qrels_levels: np.ndarray,
               qrels_assessed: np.ndarray) -> tuple[np.ndarray, ...]:
    """What the condensed-list measures read: the judged ranks (``judged``), the relevant
    ones (``rel``), each rank's 1-based rank in the condensed list (``rank``), the judged
    non-relevant documents above it there (``nonrel_above``), R and N."""
    ndim = max(slot.ndim, qrels_assessed.ndim)
    assessed = qrels_assessed.reshape((1,) * (ndim - qrels_assessed.ndim)
                                      + qrels_assessed.shape)
    index = slot.reshape((1,) * (ndim - slot.ndim) + slot.shape)
    judged = np.take_along_axis(assessed, np.maximum(index, 0), axis=-1) & (index >= 0)
    rel = levels > 0
    rank = np.cumsum(judged, axis=-1)
    nonrel_above = np.cumsum(judged & ~rel, axis=-1)
    total = (qrels_levels > 0).sum(axis=-1)
    nonrel = (qrels_assessed & (qrels_levels == 0)).sum(axis=-1)
    return judged, rel, rank, nonrel_above, total, nonrel


def bpref_r(levels: np.ndarray, slot: np.ndarray, qrels_levels: np.ndarray,
            qrels_assessed: np.ndarray) -> np.ndarray:
    """bpref_R = (1/R) sum_{relevant r} (1 - min(n(r), R) / R) on the condensed list.

    ``n(r)`` counts the judged non-relevant documents above r; unjudged documents are
    skipped (Sakai, SIGIR 2007).

    Examples
    --------
    >>> import numpy as np
    >>> float(bpref_r(np.array([0, 1, 0, 2]), np.array([0, 1, -1, 2]),
    ...               np.array([0, 1, 2, 0]), np.ones(4, bool)))
    0.5
    """
    _, rel, _, above, total, _ = _condensed(levels, slot, qrels_levels, qrels_assessed)
    terms = np.where(rel, 1.0 - divide(np.minimum(above, total[..., None]), total[..., None]),
                     0.0)
    return defined_where(divide(rank_sum(terms), total), total)


def bpref_n(levels: np.ndarray, slot: np.ndarray, qrels_levels: np.ndarray,
            qrels_assessed: np.ndarray) -> np.ndarray:
    """bpref_N = (1/R) sum_{relevant r} (1 - n(r) / N) on the condensed list, N the judged
    non-relevant documents (NaN when N = 0).

    Examples
    --------
    >>> import numpy as np
    >>> float(bpref_n(np.array([0, 1, 0, 2]), np.array([0, 1, -1, 2]),
    ...               np.array([0, 1, 2, 0]), np.ones(4, bool)))
    0.5
    """
    _, rel, _, above, total, nonrel = _condensed(levels, slot, qrels_levels, qrels_assessed)
    terms = np.where(rel, 1.0 - divide(above, nonrel[..., None]), 0.0)
    return defined_where(divide(rank_sum(terms), total), total * (nonrel > 0))


def bpref_relative(levels: np.ndarray, slot: np.ndarray, qrels_levels: np.ndarray,
                   qrels_assessed: np.ndarray) -> np.ndarray:
    """bpref_relative = (1/R) sum_{relevant r} (1 - n(r) / (r' - 1)), r' the rank in the
    condensed list; a relevant document at r' = 1 adds 0.

    Examples
    --------
    >>> import numpy as np
    >>> float(bpref_relative(np.array([0, 1, 0, 2]), np.array([0, 1, -1, 2]),
    ...                      np.array([0, 1, 2, 0]), np.ones(4, bool)))
    0.25
    """
    _, rel, rank, above, total, _ = _condensed(levels, slot, qrels_levels, qrels_assessed)
    terms = np.where(rel & (rank > 1), 1.0 - divide(above, rank - 1.0), 0.0)
    return defined_where(divide(rank_sum(terms), total), total)


def rpref(levels: np.ndarray, slot: np.ndarray, qrels_levels: np.ndarray,
          qrels_assessed: np.ndarray, *, table: np.ndarray, form: str) -> np.ndarray:
    """rpref (Sakai, SIGIR 2007): the graded bpref of the condensed list.

    ``sum_{relevant r} g(r) (1 - penalty(r) / D(r)) / sum_x R_x gv(x)`` with
    ``penalty(r) = sum_{judged k above r} max(0, g(r) - g(k)) / g(r)`` and ``D(r)`` =
    ``R + N - sum_x R_x gv(x) / gv(H)`` (``form="N"``), ``r' - 1`` (``"relative"``, a
    relevant document at r' = 1 adds 0) or ``r'`` (``"relative2"``); ``r'`` the rank in the
    condensed list, N the judged non-relevant documents.

    Examples
    --------
    >>> import numpy as np
    >>> table = np.array([0.0, 1.0, 2.0])
    >>> round(float(rpref(np.array([0, 1, 0, 2]), np.array([0, 1, -1, 2]),
    ...                   np.array([0, 1, 2, 0]), np.ones(4, bool), table=table,
    ...                   form="relative2")), 6)
    0.5
    """
    judged, _, rank, _, total, nonrel = _condensed(levels, slot, qrels_levels, qrels_assessed)
    gain = lookup(table, levels)
    rel = judged & (gain > 0)
    # the judged documents of each level 0..H above each rank: (..., K, H + 1)
    by_level = judged[..., None] & (np.minimum(levels, len(table) - 1)[..., None]
                                    == np.arange(len(table)))
    above = np.cumsum(by_level, axis=-2) - by_level
    shortfall = np.maximum(gain[..., None] - table, 0.0)
    penalty = divide((above * shortfall).sum(axis=-1), gain)
    ideal_gain = rank_sum(np.where(qrels_levels > 0,
                                   lookup(table, np.maximum(qrels_levels, 0)), 0.0))
    if form == "N":
        ratio = 1.0 - divide(penalty, (total + nonrel - ideal_gain / table[-1])[..., None])
    elif form == "relative":
        ratio = np.where(rank > 1, 1.0 - divide(penalty, rank - 1.0), 0.0)
    else:
        ratio = 1.0 - divide(penalty, rank.astype(np.float64))
    terms = np.where(rel, gain * ratio, 0.0)
    return defined_where(divide(rank_sum(terms), ideal_gain), total)

