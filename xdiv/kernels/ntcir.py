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

from collections.abc import Callable, Mapping
from types import MappingProxyType

import numpy as np

from .common import (count_relevant, cut, defined_where, divide, exclusive_cumprod, fit,
                     highest_gain, lookup, rank_sum, ranks)
from .diversity import cut_ranks, global_gain, relevant


# ------------------------------------------------ on gains: the run's and the ideal list's
# ``gains`` (..., K) are the gains of the ranked documents (0: non-relevant or unjudged),
# ``ideal_gains`` (..., K') the judged gains sorted descending; these cores return the
# value whatever R (the callers mark R = 0 undefined). A per-level gain table gives the
# adhoc measures, global gains sum_i Pr(i|q) gv(x_i) their D-forms (NTCIREVAL gcompute).

def blended_gains(gains: np.ndarray, ideal_gains: np.ndarray, beta: float,
                  relevant: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``J(r)`` (gain > 0, or ``relevant`` where given: NTCIREVAL's compute counts a
    level above 0 whatever its gain), ``C(r)`` and Q's blended ratio ``BR(r) = (C(r) + beta
    cg(r)) / (r + beta cg*(r))`` for r = 1..K, ``cg*`` constant past the ideal list's end.
    The sums run in rank order (so that ``BR`` is NTCIREVAL's to the last bit)."""
    k = gains.shape[-1]
    rel = gains > 0 if relevant is None else relevant
    count = np.cumsum(rel, axis=-1)
    ratio = (count + beta * np.cumsum(gains, axis=-1)) / (
        ranks(k) + beta * np.cumsum(fit(ideal_gains, k), axis=-1))
    return rel, count, ratio


def _at_first(values: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """``values`` at the first rank where ``flags`` holds; 0 where it holds nowhere."""
    if values.shape[-1] == 0:
        return np.zeros(values.shape[:-1])
    first = np.take_along_axis(values, np.argmax(flags, axis=-1)[..., None], axis=-1)[..., 0]
    return np.where(flags.any(axis=-1), first, 0.0)


def o_measure_gains(gains: np.ndarray, ideal_gains: np.ndarray, *, beta: float) -> np.ndarray:
    """O-measure = BR(r1), r1 the first relevant rank (0 without one)."""
    rel, _, ratio = blended_gains(gains, ideal_gains, beta)
    return _at_first(ratio, rel)


def _preferred(gains: np.ndarray) -> np.ndarray:
    """The preferred rank's flag: the first rank holding the list's highest gain (> 0)."""
    top = gains.max(axis=-1, initial=0.0)[..., None]
    return (gains == top) & (top > 0)


def p_measure_gains(gains: np.ndarray, ideal_gains: np.ndarray, *, beta: float) -> np.ndarray:
    """P-measure = BR(rp), rp the first rank holding the list's highest gain (0 without a
    relevant document)."""
    _, _, ratio = blended_gains(gains, ideal_gains, beta)
    return _at_first(ratio, _preferred(gains))


def p_plus_gains(gains: np.ndarray, ideal_gains: np.ndarray, *, beta: float) -> np.ndarray:
    """P-plus = (1/C(rp)) sum_{r<=rp} J(r) BR(r), rp as :func:`p_measure_gains`."""
    rel, count, ratio = blended_gains(gains, ideal_gains, beta)
    preferred = _preferred(gains)
    upto = np.cumsum(np.cumsum(preferred, axis=-1), axis=-1) <= 1
    return divide(rank_sum(np.where(rel & upto, ratio, 0.0)), _at_first(count, preferred))


def ncu_rb_gains(gains: np.ndarray, ideal_gains: np.ndarray, *, gamma: float, beta: float,
                 utility: str) -> np.ndarray:
    """NCUrb = sum_r J(r) gamma^(C(r)-1) NU(r) / sum_{k=1..R} gamma^(k-1), R the ideal
    list's relevant documents, NU(r) = C(r)/r (``utility="P"``) or BR(r)."""
    rel, count, ratio = blended_gains(gains, ideal_gains, beta)
    if utility == "P":
        ratio = count / ranks(gains.shape[-1])
    total = count_relevant(ideal_gains)
    norm = rank_sum(gamma ** np.arange(ideal_gains.shape[-1], dtype=np.float64)
                    * (ideal_gains > 0))
    weights = gamma ** np.maximum(count - 1, 0).astype(np.float64)
    return np.where(total > 0, divide(rank_sum(np.where(rel, ratio * weights, 0.0)), norm), 0.0)


def cascade(gains: np.ndarray, top: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ERR's stop probability ``Pr(r) = g(r) / (top + 1)`` and ``prod_{k<r} (1 - Pr(k))``."""
    stop = gains / (np.asarray(top)[..., None] + 1.0)
    return stop, exclusive_cumprod(1.0 - stop)


def err_terms(gains: np.ndarray, *, top: np.ndarray) -> np.ndarray:
    """ERR's term at each rank, ``(prod_{k<r} (1 - Pr(k)) / r) Pr(r)``, multiplied in
    NTCIREVAL's order."""
    stop, reach = cascade(gains, top)
    return reach / ranks(gains.shape[-1]) * stop


def err_gains(gains: np.ndarray, *, top: np.ndarray) -> np.ndarray:
    """ERR = sum_r (1/r) Pr(r) prod_{k<r} (1 - Pr(k)), Pr = g(r)/(top + 1) (Chapelle et
    al., CIKM 2009; ``top`` the highest gain, NTCIREVAL's g_max)."""
    return rank_sum(err_terms(gains, top=top))


def nerr_gains(gains: np.ndarray, ideal_gains: np.ndarray, *, cutoff: int | None,
               top: np.ndarray) -> np.ndarray:
    """nERR@l = ERR@l / ERR@l of the ideal list (``gains`` already cut at l)."""
    return divide(err_gains(gains, top=top), err_gains(cut(ideal_gains, cutoff), top=top))


def rbp_terms(gains: np.ndarray, *, p: float) -> np.ndarray:
    """RBP's term at each rank, ``g(r) p^(r-1)``, the power a running product (as
    NTCIREVAL computes it)."""
    return gains * exclusive_cumprod(np.full(gains.shape[-1], p, dtype=np.float64))


def rbp_gains(gains: np.ndarray, *, p: float, top: np.ndarray) -> np.ndarray:
    """RBP = (1 - p) sum_r p^(r-1) g(r) / top (Moffat & Zobel, TOIS 2008, graded)."""
    return divide((1.0 - p) * rank_sum(rbp_terms(gains, p=p)), top)


def ebr_terms(gains: np.ndarray, ratio: np.ndarray, *, top: np.ndarray) -> np.ndarray:
    """EBR's term at each rank, ``BR(r) prod_{k<r} (1 - Pr(k)) g(r) / (top + 1)``, given
    the blended ratio ``ratio`` (:func:`blended_gains`), in NTCIREVAL's order."""
    _, reach = cascade(gains, top)
    return ratio * reach * gains / (np.asarray(top)[..., None] + 1.0)


def ebr_gains(gains: np.ndarray, ideal_gains: np.ndarray, *, beta: float,
              top: np.ndarray) -> np.ndarray:
    """EBR = sum_r BR(r) Pr(r) prod_{k<r} (1 - Pr(k)), Pr = g(r)/(top + 1)."""
    _, _, ratio = blended_gains(gains, ideal_gains, beta)
    return rank_sum(ebr_terms(gains, ratio, top=top))


def irbu_gains(gains: np.ndarray, *, p: float, top: np.ndarray) -> np.ndarray:
    """iRBU = sum_r p^r Pr(r) prod_{k<r} (1 - Pr(k)), Pr = g(r)/(top + 1)."""
    _, reach = cascade(gains, top)
    return rank_sum(p ** ranks(gains.shape[-1]) * reach * gains
                    / (np.asarray(top)[..., None] + 1.0))


GAP_PAIRS = 1 << 21
"""How many (i, j) rank pairs :func:`gap_gains` compares at once (bounds its memory)."""


def gap_gains(gains: np.ndarray, ideal_gains: np.ndarray, *,
              cutoff: int | None) -> np.ndarray:
    """GAP on gains, as NTCIREVAL's gcompute: ``sum_{relevant i} (1/i) sum_{j<=i} f(min(g(i),
    g(j))) / sum_{r<=l} f(g*(r))``, ``f(g) = g (g + 1)`` (Robertson, Kanoulas & Yilmaz,
    SIGIR 2010, with the gains in the place of levels; ``gains`` already cut at l)."""
    rel = gains > 0
    width = max(int(rel.sum(axis=-1).max(initial=0)), 1)
    order = np.argsort(~rel, axis=-1, kind="stable")[..., :width]   # the relevant ranks
    valid = np.take_along_axis(rel, order, axis=-1)
    g = np.where(valid, np.take_along_axis(gains, order, axis=-1), 0.0)
    flat = g.reshape(-1, width)
    inner = np.empty_like(flat)
    above = np.tril(np.ones((width, width), dtype=bool))               # j <= i
    block = max(1, GAP_PAIRS // (width * width))    # lists whose (i, j) pairs fit at once
    for start in range(0, len(flat), block):
        part = flat[start:start + block]
        low = np.minimum(part[:, :, None], part[:, None, :])           # (list, i, j)
        inner[start:start + block] = rank_sum(low * (low + 1.0) * above)
    inner = inner.reshape(g.shape)
    numerator = rank_sum(np.where(valid, inner / (order + 1.0), 0.0))
    ideal_top = cut(ideal_gains, cutoff)
    return divide(numerator, rank_sum(ideal_top * (ideal_top + 1.0)))


def jk_divisor(n: int, b: float) -> np.ndarray:
    """What the original DCG divides the gains of ranks 1..n by (Järvelin & Kekäläinen,
    TOIS 2002): ``1`` for ranks r <= b (and r = 1), ``log_b(r)`` beyond; ``b = 0`` takes
    the natural logarithm from rank 2 on. Each gain is divided by it (not multiplied by
    its reciprocal), the order of NTCIREVAL's operations."""
    r = ranks(n)
    logs = np.log(r) if b == 0 else np.log(r) / np.log(b)
    return np.where((r == 1) | (r <= b), 1.0, logs)


def jk_ndcg_gains(gains: np.ndarray, ideal_gains: np.ndarray, *, cutoff: int | None,
                  b: float) -> np.ndarray:
    """The original nDCG@l: DCG@l / ideal DCG@l with :func:`jk_divisor` (``gains``
    already cut at l)."""
    ideal_top = cut(ideal_gains, cutoff)
    return divide(rank_sum(gains / jk_divisor(gains.shape[-1], b)),
                  rank_sum(ideal_top / jk_divisor(ideal_top.shape[-1], b)))


# ------------------------------------------------------ on levels: the adhoc measures

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
    value = o_measure_gains(lookup(table, cut(levels, cutoff)), lookup(table, ideal), beta=beta)
    return defined_where(value, count_relevant(ideal))


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
    value = p_measure_gains(lookup(table, cut(levels, cutoff)), lookup(table, ideal), beta=beta)
    return defined_where(value, count_relevant(ideal))


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
    rel, count, value = blended_gains(lookup(table, levels), lookup(table, ideal), beta)
    if utility == "P":
        value = count / ranks(levels.shape[-1])
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
    value = ncu_rb_gains(lookup(table, cut(levels, cutoff)), lookup(table, ideal),
                         gamma=gamma, beta=beta, utility=utility)
    return defined_where(value, count_relevant(ideal))


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
    value = ebr_gains(lookup(table, cut(levels, cutoff)), lookup(table, ideal), beta=beta,
                      top=highest_gain(table, ideal, own))
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
    value = irbu_gains(lookup(table, cut(levels, cutoff)), p=p,
                       top=highest_gain(table, ideal, own))
    return defined_where(value, count_relevant(ideal))


def jk_ndcg(levels: np.ndarray, ideal: np.ndarray, *, cutoff: int | None, table: np.ndarray,
            b: float) -> np.ndarray:
    """The original nDCG@l of Järvelin & Kekäläinen: DCG@l / ideal DCG@l with the
    divisor :func:`jk_divisor` (ranks up to b undiscounted).

    Examples
    --------
    >>> import numpy as np
    >>> table = np.array([0.0, 1.0, 2.0])
    >>> round(float(jk_ndcg(np.array([0, 1, 2]), np.array([2, 1]), cutoff=3, table=table,
    ...                     b=2.0)), 6)
    0.753953
    """
    value = jk_ndcg_gains(lookup(table, cut(levels, cutoff)), lookup(table, ideal),
                          cutoff=cutoff, b=b)
    return defined_where(value, count_relevant(ideal))


# ------------------------------------------- on global gains: the D- and DIN-forms

def _global_lists(levels: np.ndarray, ideal_gg: np.ndarray, prob: np.ndarray,
                  valid: np.ndarray, nav: np.ndarray, cutoff: int | None, table: np.ndarray,
                  din: bool, decimals: int | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The run's global gains GG(r) = sum_i Pr(i|q) gv(x_i(r)) over the top ``cutoff``
    (with ``din``, a navigational intent counts only at its first relevant document; with
    ``decimals``, each rounded as NTCIREVAL's glabel and dinlabel write it), the ideal
    list's GG*, its highest gain (NTCIREVAL gcompute's g_max) and where the value is
    defined (a valid intent and a relevant document). ``levels`` is ``(..., K, I)``,
    ``ideal_gg`` ``(..., K')`` sorted descending, ``prob``, ``valid``, ``nav`` ``(..., I)``."""
    gains = global_gain(cut_ranks(levels, cutoff), prob, valid, table, nav if din else None,
                        decimals)
    top = ideal_gg[..., 0] if ideal_gg.shape[-1] else np.zeros(ideal_gg.shape[:-1])
    return gains, ideal_gg, top, valid.any(axis=-1) & (top > 0)


def _p_plus_or_zero(gains: np.ndarray, ideal: np.ndarray, *, beta: float) -> np.ndarray:
    """P-plus, 0 for a list without a relevant document (NTCIREVAL's value there)."""
    return np.where(gains.max(axis=-1, initial=0.0) > 0,
                    p_plus_gains(gains, ideal, beta=beta), 0.0)


GLOBAL_FORMS: Mapping[str, Callable[..., np.ndarray]] = MappingProxyType({
    "O": lambda gains, ideal, top, cutoff, beta: o_measure_gains(gains, ideal, beta=beta),
    "P-measure": lambda gains, ideal, top, cutoff, beta: p_measure_gains(gains, ideal,
                                                                         beta=beta),
    "P+": lambda gains, ideal, top, cutoff, beta: _p_plus_or_zero(gains, ideal, beta=beta),
    "NCUrb": lambda gains, ideal, top, cutoff, gamma, beta, utility: ncu_rb_gains(
        gains, ideal, gamma=gamma, beta=beta, utility=utility),
    "ERR": lambda gains, ideal, top, cutoff: err_gains(gains, top=top),
    "nERR": lambda gains, ideal, top, cutoff: nerr_gains(gains, ideal, cutoff=cutoff,
                                                         top=top),
    "RBP": lambda gains, ideal, top, cutoff, p: rbp_gains(gains, p=p, top=top),
    "EBR": lambda gains, ideal, top, cutoff, beta: ebr_gains(gains, ideal, beta=beta,
                                                             top=top),
    "nDCG-JK": lambda gains, ideal, top, cutoff, b: jk_ndcg_gains(gains, ideal,
                                                                  cutoff=cutoff, b=b),
    "GAP": lambda gains, ideal, top, cutoff: gap_gains(gains, ideal, cutoff=cutoff),
})
"""The measures that have a D-form (:func:`d_form`): each takes the run's global gains,
the ideal list's, the ideal list's highest gain, the cutoff and the measure's own
parameters (O-measure, P-measure, P-plus, NCUrb, ERR and RBP with the stop probabilities
and normaliser g / GG*_max, nERR, EBR, the original nDCG and GAP; see their ``*_gains``
kernels above)."""


def d_form(levels: np.ndarray, ideal_gg: np.ndarray, prob: np.ndarray, valid: np.ndarray,
           nav: np.ndarray, *, measure: str, cutoff: int | None, table: np.ndarray,
           din: bool, decimals: int | None = None, **params: float | str) -> np.ndarray:
    """The D-form (DIN-form with ``din``) of ``measure``, a key of :data:`GLOBAL_FORMS`:
    the measure on the global gains GG(r) = sum_i Pr(i|q) gv(x_i(r)) against the globally
    ideal list, as NTCIREVAL's gcompute scores a global relv file (Sakai & Song, SIGIR
    2011; Sakai, WWW 2012 for DIN). NaN where no intent is valid or nothing is relevant.

    Arguments as :func:`_global_lists`; ``params`` are the measure's own (``beta``,
    ``p``, ...). On one intent of probability 1 the D-form is the adhoc measure with the
    gains divided by the list's own highest gain.

    Examples
    --------
    >>> import numpy as np
    >>> lists = (np.array([[0], [1], [2]]), np.array([2.0, 1.0]), np.array([1.0]),
    ...          np.array([True]), np.array([False]))
    >>> table = np.array([0.0, 1.0, 2.0])
    >>> def score(measure, cutoff=None, **params):
    ...     value = d_form(*lists, measure=measure, cutoff=cutoff, table=table, din=False,
    ...                    **params)
    ...     return round(float(value), 6)
    >>> score("O", beta=1.0), score("P-measure", beta=1.0), score("P+", beta=1.0)
    (0.4, 0.833333, 0.616667)
    >>> score("NCUrb", gamma=0.5, beta=1.0, utility="P"), score("EBR", beta=1.0)
    (0.555556, 0.503704)
    >>> score("ERR"), score("nERR", cutoff=3), score("GAP"), score("nDCG-JK", cutoff=3, b=2.0)
    (0.314815, 0.435897, 0.458333, 0.753953)
    >>> score("RBP", p=0.5)
    0.25

    With one intent of probability 1/3, the global gains 1/3 and 2/3 as NTCIREVAL's
    glabel writes them (``decimals=4``: 0.3333 and 0.6667; the ideal list's stay exact):

    >>> third = (lists[0], np.array([2.0, 1.0]) / 3, np.array([1 / 3]), *lists[3:])
    >>> rbp = {"measure": "RBP", "cutoff": None, "table": table, "din": False, "p": 0.5}
    >>> exact, rounded = d_form(*third, **rbp), d_form(*third, **rbp, decimals=4)
    >>> round(float(exact), 6), round(float(rounded), 6)
    (0.25, 0.249994)
    """
    gains, ideal, top, defined = _global_lists(levels, ideal_gg, prob, valid, nav, cutoff,
                                               table, din, decimals)
    return np.where(defined, GLOBAL_FORMS[measure](gains, ideal, top, cutoff, **params),
                    np.nan)


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



# ------------------------------------------------------------ I-rec at the number of intents

def intent_recall_at_n(levels: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """I-rec@n (Sakai & Song, SIGIR 2011; NTCIREVAL irec): I-rec at the cutoff n = the
    topic's number of valid intents, ``|union_{r <= n} I(d_r)| / n``; NaN without a valid
    intent.

    ``levels`` is ``(..., K, I)`` (rank, then intent), ``valid`` ``(..., I)``; a list
    shorter than n is read to its end.

    Examples
    --------
    >>> import numpy as np
    >>> levels = np.array([[0, 1, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1]])  # 3 intents
    >>> float(intent_recall_at_n(levels, np.ones(3, bool)))  # ranks 1-3 cover 2 of 3
    0.6666666666666666
    >>> float(intent_recall_at_n(levels, np.array([True, True, False])))  # n = 2
    0.5
    """
    n = valid.sum(axis=-1)
    within = np.arange(levels.shape[-2]) < n[..., None]
    covered = (relevant(levels, valid) & within[..., None]).any(axis=-2)
    return divide(covered.sum(axis=-1), n)


# ------------------------------------------------ equivalence classes (NTCIREVAL -ec)
# ``classes`` are the equivalence class IDs (Sakai, TALIP 2007) of documents, -1 for a
# document in no class (a class of its own).

def ranked_classes(slot: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """``(..., K)``: the class of the document at each rank, given its qrels ``slot``
    ``(..., K)`` (-1: unjudged) and the class of each slot ``classes`` ``(..., D)``; -1
    for unjudged documents."""
    lead = np.broadcast_shapes(slot.shape[:-1], classes.shape[:-1])
    slot = np.broadcast_to(slot, lead + slot.shape[-1:])
    classes = np.broadcast_to(classes, lead + classes.shape[-1:])
    found = np.take_along_axis(classes, np.maximum(slot, 0).astype(np.intp), axis=-1)
    return np.where(slot >= 0, found, -1)


def _kept_after_sort(order: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """The documents that head their class in ``order`` (or are in none), in the
    original positions."""
    ordered = np.take_along_axis(classes, order, axis=-1)
    head = np.ones(ordered.shape, dtype=bool)
    head[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    keep = np.empty_like(head)
    np.put_along_axis(keep, order, head | (ordered < 0), axis=-1)
    return keep


def first_of_class(classes: np.ndarray) -> np.ndarray:
    """``(..., K)``: the rank holds the first document of its class in the ranked list
    (or a document in no class); the later ones of a class are redundant.

    Examples
    --------
    >>> import numpy as np
    >>> first_of_class(np.array([2, 1, 2, -1, -1, 1, 3])).tolist()
    [True, True, False, True, True, False, True]
    """
    return _kept_after_sort(np.argsort(classes, axis=-1, kind="stable"), classes)


def class_levels(classes: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """The judged ``levels`` ``(..., D)`` with each class counted once: one member of each
    class (the first of its highest level) keeps the class's highest level, the others
    get 0; a document in no class keeps its own. Sorted descending, these are the ideal
    list of the class-based measures.

    Examples
    --------
    >>> import numpy as np
    >>> class_levels(np.array([1, 1, 2, 2, -1]), np.array([1, 3, 0, 2, 1])).tolist()
    [0, 3, 0, 2, 1]
    """
    classes, levels = np.broadcast_arrays(classes, levels)
    order = np.lexsort((-levels.astype(np.int16), classes), axis=-1)
    return np.where(_kept_after_sort(order, classes), levels, 0).astype(levels.dtype)
