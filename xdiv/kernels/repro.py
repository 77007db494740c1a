"""Numpy kernels of :mod:`xdiv.repro`: how close a repeated run is to the original, after
Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer & Soboroff (SIGIR 2020).

Document order (one topic's two ranked lists of document codes):

- :func:`ktu`, Kendall's tau on the union of two lists: each document of either list is
  ranked by its position in each list, and a document a list lacks is ranked below all of
  that list's documents (tied with the other lacking ones); tau is Kendall's tau-b of
  these two rankings (ties counted as scipy's ``kendalltau`` counts them).
- :func:`ktu_positional`, the form of repro_eval 0.5.0: Kendall's tau between the two
  lists' sequences of positions in the alphabetically sorted union, position by position.
- :func:`rbo`, rank-biased overlap (Webber, Moffat & Zobel, TOIS 2010) with its
  extrapolated (``ext``), minimum (``min``), maximum (``max``) and residual (``res``)
  forms, on lists of any lengths, with tied documents treated as Corsi & Urbano (SIGIR
  2024): ``"w"`` (a tie is a shared rank), ``"a"`` (the expected overlap over the orders
  of the ties) or ``"b"`` (``"a"`` corrected for the information the ties lose).
- :func:`rbo_truncated`, the normalised truncated sum of repro_eval 0.5.0 (after Clarke
  et al., TOIS 2021): ``sum_{d<=D} p^(d-1) A_d / sum_{d<=D} p^(d-1)``.

Effectiveness and overall effects (scores with topics along ``axis``):
:func:`rmse`, :func:`nrmse`, :func:`effect_ratio` and :func:`delta_relative_improvement`.
"""

from __future__ import annotations

import numpy as np

RBO_TIES = ("a", "b", "w")
"""The treatments of tied documents in :func:`rbo` (Corsi & Urbano, SIGIR 2024)."""


def _tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b of paired observations ``x``, ``y`` (NaN when either is constant):
    over the ordered pairs ``(i, j)``, concordant minus discordant over the square root
    of the products of the pairs untied in ``x`` and in ``y``."""
    above_x = x[:, None] > x[None, :]
    above_y = y[:, None] > y[None, :]
    below_y = y[:, None] < y[None, :]
    untied_x, untied_y = np.count_nonzero(above_x), np.count_nonzero(above_y)
    if untied_x == 0 or untied_y == 0:
        return float("nan")
    score = np.count_nonzero(above_x & above_y) - np.count_nonzero(above_x & below_y)
    return float(score / np.sqrt(float(untied_x) * float(untied_y)))


def ktu(first: np.ndarray, second: np.ndarray) -> float:
    """Kendall's tau on the union of two ranked lists of distinct document codes.

    Each document of the union is ranked by its position in ``first`` and in
    ``second``; one a list lacks is ranked ``len(list) + 1`` there. The result is
    Kendall's tau-b of the two rankings: 1 for equal lists, NaN when the union has fewer
    than two documents or a list ranks them all alike (e.g. an empty list).
    """
    first, second = np.asarray(first), np.asarray(second)
    union = np.union1d(first, second)
    if len(union) < 2:
        return float("nan")
    return _tau_b(_union_ranks(first, union), _union_ranks(second, union))


def _union_ranks(docs: np.ndarray, union: np.ndarray) -> np.ndarray:
    """Rank (1-based position) in ``docs`` of each document of ``union``, ``len(docs) + 1``
    for those ``docs`` lacks."""
    ranks = np.full(len(union), len(docs) + 1, dtype=float)
    ranks[np.searchsorted(union, docs)] = np.arange(1, len(docs) + 1)
    return ranks


def ktu_positional(first: np.ndarray, second: np.ndarray) -> float:
    """Kendall's tau as repro_eval 0.5.0 computes it: each list becomes the sequence of its
    documents' positions in the sorted union (document codes sort as docnos do), and tau
    is taken between the two sequences, position by position (tau-b, rounded to 14
    decimals as repro_eval does). NaN when the lists differ in length (repro_eval fails)
    or the tau is undefined."""
    first, second = np.asarray(first), np.asarray(second)
    if len(first) != len(second) or len(first) < 2:
        return float("nan")
    union = np.union1d(first, second)
    tau = _tau_b(np.searchsorted(union, first).astype(float),
                 np.searchsorted(union, second).astype(float))
    return round(tau, 14) if np.isfinite(tau) else tau


def _contributions(groups: np.ndarray, depth: int, ties: str) -> np.ndarray:
    """``(len(groups), depth)`` contribution of each item of a list to its prefix of each
    depth ``d = 1..depth``: items of a tie group (equal ``groups`` values, consecutive)
    span ranks ``top..bottom``; ``"w"`` counts an item from ``top`` on, ``"a"`` and ``"b"``
    count it ``(d - top + 1) / (bottom - top + 1)`` within its group's ranks, then 1."""
    n = len(groups)
    positions = np.arange(1, n + 1)
    starts = (np.concatenate(([True], groups[1:] != groups[:-1])) if n
              else np.zeros(0, dtype=bool))
    label = np.cumsum(starts) - 1
    top = positions[starts][label]
    bottom = np.concatenate((positions[starts][1:] - 1, [n]))[label]
    d = np.arange(1, depth + 1)[None, :]
    if ties == "w":
        return (d >= top[:, None]).astype(float)
    span = (bottom - top + 1)[:, None]
    return np.clip((d - top[:, None] + 1) / span, 0.0, 1.0)


def rbo(first: np.ndarray, first_groups: np.ndarray, second: np.ndarray,
        second_groups: np.ndarray, p: float, ties: str = "a") -> tuple[float, float, float, float]:
    """Rank-biased overlap of two ranked lists of distinct document codes (Webber, Moffat
    & Zobel, TOIS 2010), tied documents treated as Corsi & Urbano (SIGIR 2024).

    Parameters
    ----------
    first, second : numpy.ndarray
        Document codes in rank order.
    first_groups, second_groups : numpy.ndarray
        A tie-group label per rank: consecutive ranks with the same label are tied (all
        labels distinct: no ties).
    p : float
        Persistence, ``0 < p < 1``.
    ties : {"a", "b", "w"}
        See the module docstring; without ties all three are equal.

    Returns
    -------
    ext, min, max, res : float
        The extrapolated RBO, its lower and upper bounds given the lists seen so far, and
        the residual ``max - min``. NaN when both lists are empty.

    Notes
    -----
    With ``S`` the shorter list (length ``s``) and ``L`` the longer (``l``), ``X_d`` the
    overlap of the depth-``d`` prefixes (each document weighted by its contributions) and
    ``A_d`` the agreement: up to depth ``s`` the agreement is ``X_d / d`` (``"a"``),
    ``2 X_d / (|S_d| + |L_d|)`` (``"w"``) or the cosine of the contributions (``"b"``);
    from ``s`` to ``l`` the unseen part of ``S`` is assumed to add nothing (min), to
    match ``L``'s documents not in ``S`` one per depth (max) or to keep agreement ``A_s``
    (ext); beyond ``l``, RBO_min adds ``X_l sum_{d>l} p^d / d``, RBO_max Webber et al.'s
    best continuation, RBO_ext ``((X_l - X_s) / l + X_s / s) p^l`` (as ``A_s`` for
    ``X_s / s``). RBO is ``(1 - p) / p`` times the sum of ``A_d p^d`` and the part beyond.
    """
    if not 0 < p < 1:
        raise ValueError(f"p must be between 0 and 1, not {p!r}")
    if ties not in RBO_TIES:
        raise ValueError(f"ties must be one of {RBO_TIES}, not {ties!r}")
    first, second = np.asarray(first), np.asarray(second)
    first_groups, second_groups = np.asarray(first_groups), np.asarray(second_groups)
    if len(first) <= len(second):
        short, short_groups, long, long_groups = first, first_groups, second, second_groups
    else:
        short, short_groups, long, long_groups = second, second_groups, first, first_groups
    s, l = len(short), len(long)
    if l == 0:
        nan = float("nan")
        return nan, nan, nan, nan
    union = np.union1d(short, long)
    cs = np.zeros((len(union), l))
    cl = np.zeros((len(union), l))
    cs[np.searchsorted(union, short)] = _contributions(short_groups, l, ties)
    cl[np.searchsorted(union, long)] = _contributions(long_groups, l, ties)
    seen = (cs * cl).sum(axis=0)
    depth = np.arange(1, l + 1, dtype=float)
    weights = p ** depth

    def agreement(overlap: np.ndarray) -> np.ndarray:
        out = overlap / depth
        if ties == "w":
            size_s = np.where(depth <= s, cs.sum(axis=0), depth)
            out = 2 * overlap / (size_s + cl.sum(axis=0))
        elif ties == "b":
            norm_s = np.where(depth <= s, np.sqrt((cs ** 2).sum(axis=0)), np.sqrt(depth))
            with np.errstate(invalid="ignore", divide="ignore"):
                out = np.where(overlap > 0, overlap / norm_s
                               / np.sqrt((cl ** 2).sum(axis=0)), 0.0)
        return out

    a_seen = agreement(seen)
    a_s = a_seen[s - 1] if s else 0.0
    x_l = float(round(seen[-1], 9))
    unseen_rows = ~np.isin(union, short)
    unseen = cl[unseen_rows]  # L's documents that S lacks, in union (code) order
    later = depth > s
    # extrapolated: beyond s, S's unseen part keeps agreement A_s with L's new documents
    positive = np.where(unseen > 0, unseen, np.nan)
    with np.errstate(invalid="ignore"):
        counted = np.isfinite(positive).sum(axis=0)
        mean_unseen = np.where(counted > 0, np.nansum(positive, axis=0)
                               / np.maximum(counted, 1), 0.0)
    x_ext = seen + np.where(later, (depth - s) * a_s * mean_unseen, 0.0)
    a_ext = np.where(later, agreement(x_ext), a_seen)
    tail_ext = (x_l + (l - s) * a_s) / l * p ** (l + 1) / (1 - p)
    # minimum: nothing more overlaps
    tail_min = x_l * (-np.log1p(-p) - np.sum(weights / depth))
    # maximum: S's unseen documents match L's new ones, in L's order, one per depth
    rank_in_long = np.full(len(union), l)
    rank_in_long[np.searchsorted(union, long)] = np.arange(l)
    order = np.argsort(rank_in_long[unseen_rows], kind="stable")
    ranked_unseen = unseen[order]
    k = np.arange(len(ranked_unseen))[:, None]
    matched = np.where(k < (depth - s)[None, :], ranked_unseen, 0.0).sum(axis=0)
    a_max = np.where(later, agreement(seen + np.where(later, matched, 0.0)), a_seen)
    f = int(round(l + s - x_l))
    beyond = np.arange(l + 1, f + 1, dtype=float)
    tail_max = (np.sum((2 * beyond - l - s + x_l) / beyond * p ** beyond)
                + p ** (f + 1) / (1 - p))
    scale = (1 - p) / p
    ext = scale * (np.sum(a_ext * weights) + tail_ext)
    low = scale * (np.sum(a_seen * weights) + tail_min)
    high = scale * (np.sum(a_max * weights) + tail_max)
    return float(ext), float(low), float(high), float(high - low)


def rbo_truncated(first: np.ndarray, second: np.ndarray, p: float, depth: int) -> float:
    """RBO as repro_eval 0.5.0 computes it (after Clarke, Vtyurina & Smucker, TOIS 2021):
    ``sum_{d=1..depth} p^(d-1) |F_d & S_d| / d`` over ``sum_{d=1..depth} p^(d-1)``, the
    prefixes ``F_d``, ``S_d`` of the lists as ranked (ties broken), a list shorter than
    ``d`` contributing all its documents."""
    first, second = np.asarray(first), np.asarray(second)
    d = np.arange(1, depth + 1)
    overlap = np.zeros(depth)
    union = np.union1d(first, second)
    seen_first = np.full(len(union), depth + 1)
    seen_second = np.full(len(union), depth + 1)
    seen_first[np.searchsorted(union, first[:depth])] = np.arange(1, min(len(first), depth) + 1)
    seen_second[np.searchsorted(union, second[:depth])] = np.arange(
        1, min(len(second), depth) + 1)
    both = np.maximum(seen_first, seen_second)
    both = both[both <= depth]
    np.add.at(overlap, both - 1, 1.0)
    weights = p ** (d - 1.0)
    return float(np.sum(weights * np.cumsum(overlap) / d) / np.sum(weights))


def _mean(x: np.ndarray, axis: int) -> np.ndarray:
    """Mean along ``axis`` over the non-NaN values (NaN where there are none)."""
    x = np.asarray(x, dtype=float)
    count = np.sum(~np.isnan(x), axis=axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > 0, np.nansum(x, axis=axis) / count, np.nan)


def rmse(original: np.ndarray, repeated: np.ndarray, axis: int = -1) -> np.ndarray:
    """Root mean square error of per-topic scores: ``sqrt(mean((original - repeated)^2))``
    along ``axis`` (topics), over the topics where both are scored (not NaN)."""
    diff = np.asarray(original, dtype=float) - np.asarray(repeated, dtype=float)
    return np.sqrt(_mean(diff ** 2, axis))


def nrmse(original: np.ndarray, repeated: np.ndarray, axis: int = -1) -> np.ndarray:
    """RMSE normalised by its largest value for scores in [0, 1] given the original ones:
    RMSE over ``sqrt(mean(max(o, 1 - o)^2))`` (as repro_eval 0.5.0), both over the
    topics where both are scored."""
    original = np.asarray(original, dtype=float)
    both = ~(np.isnan(original) | np.isnan(np.asarray(repeated, dtype=float)))
    worst = np.where(both, np.maximum(original, 1 - original), np.nan)
    return rmse(original, repeated, axis) / np.sqrt(_mean(worst ** 2, axis))


def effect_ratio(original_delta: np.ndarray, repeated_delta: np.ndarray,
                 axis: int = -1) -> np.ndarray:
    """Effect ratio: the mean per-topic improvement (advanced - baseline) of the repeated
    runs over that of the original runs, each over its topics (1: the same effect; NaN
    or infinite when the original improvement is 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return _mean(repeated_delta, axis) / _mean(original_delta, axis)


def delta_relative_improvement(original_baseline: np.ndarray, original_advanced: np.ndarray,
                               repeated_baseline: np.ndarray, repeated_advanced: np.ndarray,
                               axis: int = -1) -> np.ndarray:
    """Delta relative improvement: ``RI_original - RI_repeated``, where ``RI = (mean(a) -
    mean(b)) / mean(b)`` of the advanced ``a`` and baseline ``b`` runs, means over the
    topics each run is scored on (0: the same relative improvement)."""
    def relative(base, adv):
        b = _mean(base, axis)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (_mean(adv, axis) - b) / b
    return (relative(original_baseline, original_advanced)
            - relative(repeated_baseline, repeated_advanced))
