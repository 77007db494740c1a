"""Numpy kernels of risk-sensitive evaluation: per-topic differences from a baseline,
with losses weighted ``1 + alpha`` (Collins-Thompson, Bennett, Diaz, Clarke & Voorhees,
TREC 2013 Web Track overview; Wang, Bennett & Collins-Thompson, SIGIR 2012), their
t statistic (TRisk; Dinçer, Macdonald & Ounis, SIGIR 2014) and the risk against every
run of a set at once (ZRisk and GeoRisk; Dinçer, Macdonald & Ounis, SIGIR 2016)."""

from __future__ import annotations

import numpy as np

from .common import rank_sum


def risk_weighted(run: np.ndarray, baseline: np.ndarray, alpha: float) -> np.ndarray:
    """``d = run - baseline``, kept where ``d >= 0`` and weighted ``(1 + alpha) d`` where
    ``d < 0``; NaN where either score is NaN."""
    diff = np.asarray(run, dtype=np.float64) - np.asarray(baseline, dtype=np.float64)
    return np.where(diff >= 0, diff, (1.0 + alpha) * diff)


def urisk(run: np.ndarray, baseline: np.ndarray, alpha: float, axis: int = -1) -> np.ndarray:
    """URisk: the :func:`ordered_mean` over ``axis`` of :func:`risk_weighted`, leaving out
    NaN topics (summed in topic order, as ndeval and gdeval do, so that their printed
    means come out to the last digit)."""
    return ordered_mean(risk_weighted(run, baseline, alpha), axis)


def ordered_mean(values: np.ndarray, axis: int = -1) -> np.ndarray:
    """The mean over ``axis`` of the non-NaN values, added one after the other in their
    order (not pairwise): the sum a C or Perl loop forms; NaN where none is defined."""
    moved = np.moveaxis(np.asarray(values, dtype=np.float64), axis, -1)
    defined = ~np.isnan(moved)
    total = rank_sum(np.where(defined, moved, 0.0))
    count = defined.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / count, np.nan)


def trisk(run: np.ndarray, baseline: np.ndarray, alpha: float,
          axis: int = -1) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """TRisk: URisk over its standard error, with its two-sided p-value.

    Over the ``n`` topics of ``axis`` where both scores are defined, with ``d_j`` the
    :func:`risk_weighted` differences, their :func:`ordered_mean` URisk and their sample
    standard deviation ``s`` (``n - 1`` in the denominator)::

        TRisk = URisk / (s / sqrt(n)),    p = 2 P(T_{n-1} >= |TRisk|)

    with ``T_{n-1}`` Student's t with ``n - 1`` degrees of freedom.

    Returns
    -------
    urisk, statistic, pvalue : numpy.ndarray of float
        ``urisk`` is :func:`urisk` (NaN where no topic is defined); ``statistic`` and
        ``pvalue`` are NaN where fewer than 2 topics are defined and where every ``d_j``
        is 0 (0/0: the baseline against itself). Where every ``d_j`` equals the same
        non-zero number, ``s`` is exactly 0 and the statistic is infinite (p-value 0),
        whatever the rounding of their mean.
    n : numpy.ndarray of int
        The number of topics.
    """
    moved = np.moveaxis(risk_weighted(run, baseline, alpha), axis, -1)
    defined = ~np.isnan(moved)
    n = defined.sum(axis=-1)
    mean = ordered_mean(moved)
    deviation = np.where(defined, moved - mean[..., None], 0.0)
    constant = (np.where(defined, moved, np.inf).min(axis=-1)
                == np.where(defined, moved, -np.inf).max(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = np.where(constant, 0.0, (deviation ** 2).sum(axis=-1) / (n - 1))
        statistic = np.where(n > 1, mean / np.sqrt(variance / n), np.nan)
    from scipy.special import stdtr  # loaded here: ordered_mean serves the lean commands

    pvalue = 2.0 * stdtr(np.where(n > 1, n - 1, np.nan), -np.abs(statistic))
    return mean, statistic, pvalue, n


def georisk(scores: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ZRisk and GeoRisk of every run against the whole set of runs.

    ``scores`` holds the non-negative scores ``x_ij`` of run ``i`` (second-last axis) on
    topic ``j`` (last axis). Topics where some run's score is NaN are left out; over the
    ``c`` topics left, with ``S_i`` a run's total, ``T_j`` a topic's total and ``N`` the
    grand total, the expected score is ``e_ij = S_i T_j / N`` and::

        z_ij = (x_ij - e_ij) / sqrt(e_ij)
        ZRisk_i = sum_{z_ij >= 0} z_ij + (1 + alpha) sum_{z_ij < 0} z_ij
        GeoRisk_i = sqrt(S_i / c * Phi(ZRisk_i / c))

    with ``Phi`` the standard normal distribution function. ``e_ij = 0`` exactly when run
    ``i`` or topic ``j`` scores 0 throughout, and then ``x_ij = 0`` as well: the score is
    what is expected of it and ``z_ij = 0``. (A run scoring 0 on every topic thus has
    ZRisk 0 and GeoRisk 0.)

    Returns
    -------
    zrisk, georisk : numpy.ndarray of float
        Over the runs; NaN where no topic is left.
    c : numpy.ndarray of int
        The number of topics left (the leading axes' shape).
    """
    x = np.asarray(scores, dtype=np.float64)
    complete = ~np.isnan(x).any(axis=-2, keepdims=True)
    x = np.where(complete, x, 0.0)
    c = complete.sum(axis=-1)
    run_total = x.sum(axis=-1, keepdims=True)
    topic_total = x.sum(axis=-2, keepdims=True)
    grand_total = run_total.sum(axis=-2, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.where(grand_total > 0, run_total * topic_total / grand_total, 0.0)
        z = np.where(expected > 0, (x - expected) / np.sqrt(expected), 0.0)
        zrisk = np.where(z >= 0, z, (1.0 + alpha) * z).sum(axis=-1)
        from scipy.special import ndtr

        georisk = np.sqrt(run_total[..., 0] / c * ndtr(zrisk / c))
    empty = c == 0
    return np.where(empty, np.nan, zrisk), np.where(empty, np.nan, georisk), c[..., 0]
