"""Score standardisation per topic (numpy): each score as its distance from the topic's
mean over a reference set of runs, in units of their standard deviation (Webber, Moffat &
Zobel, SIGIR 2008), mapped into [0, 1] by the standard normal distribution function or by
Sakai's linear map ``A z + B`` (ICTIR 2016).

The run axis is the last one; every other axis (metric, topic, ...) is broadcast.
"""

from __future__ import annotations

import numpy as np


def reference_moments(values: np.ndarray, reference: np.ndarray, ddof: int
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation of the reference runs' scores, over the last axis.

    Parameters
    ----------
    values : numpy.ndarray
        Scores ``(..., run)``; NaN is a missing score, left out of the moments.
    reference : numpy.ndarray
        Boolean ``(run,)``: the runs of the reference set.
    ddof : int
        The standard deviation divides the sum of squares by ``n - ddof`` (1: the sample
        standard deviation; 0: the population one). NaN where ``n - ddof < 1``.

    Returns
    -------
    (mean, sd)
        Each of shape ``values.shape[:-1]``; NaN mean where no reference run has a score.
        Where the present scores are all equal, the mean is their value and the standard
        deviation exactly 0 (the sum of their deviations from a mean rounded in floating
        point would not be).
    """
    ref = values[..., np.asarray(reference, dtype=bool)]
    present = ~np.isnan(ref)
    n = present.sum(axis=-1)
    total = np.where(present, ref, 0.0).sum(axis=-1)
    highest = np.where(present, ref, -np.inf).max(axis=-1, initial=-np.inf)
    constant = highest == np.where(present, ref, np.inf).min(axis=-1, initial=np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, total / np.maximum(n, 1), np.nan)
        mean = np.where(constant, highest, mean)  # equal scores: their value, not a rounding
        squares = np.where(present, (ref - mean[..., None]) ** 2, 0.0).sum(axis=-1)
        sd = np.where(n - ddof >= 1, np.sqrt(squares / np.maximum(n - ddof, 1)), np.nan)
    return mean, sd


def standardise(values: np.ndarray, mean: np.ndarray, sd: np.ndarray, method: str,
                a: float, b: float) -> np.ndarray:
    """Standardised scores ``(..., run)`` of ``values`` against per-row ``mean`` and
    ``sd`` (shape ``values.shape[:-1]``).

    ``z = (x - mean) / sd`` (``method="z"``), ``Phi(z)`` with ``Phi`` the standard normal
    distribution function (``"cdf"``), or ``a z + b`` (``"std-ab"``). NaN where the score
    is NaN or ``sd`` is NaN or 0 (the standardised score is then undefined).
    """
    from scipy.special import ndtr  # loaded only when scores are standardised

    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where((sd > 0)[..., None], (values - mean[..., None]) / sd[..., None], np.nan)
    if method == "cdf":
        return ndtr(z)
    if method == "std-ab":
        return a * z + b
    return z
