"""Numpy kernels of risk-sensitive evaluation: per-topic differences from a baseline,
with losses weighted ``1 + alpha`` (Collins-Thompson, Bennett, Diaz, Clarke & Voorhees,
TREC 2013 Web Track overview; Wang, Bennett & Collins-Thompson, SIGIR 2012)."""

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
