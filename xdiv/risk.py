"""Risk-sensitive evaluation of a score cube against a baseline run.

TREC's Web Track (2013-2014) reported, beside each measure, its risk-sensitive form
against a baseline run: per topic the difference ``d = r - b`` of the run's score ``r``
and the baseline's ``b``, counted as ``d`` when ``d >= 0`` and as ``(1 + alpha) d`` when
the run does worse, then averaged over the topics (URisk; Collins-Thompson, Bennett, Diaz, Clarke
& Voorhees, TREC 2013 Web Track overview; Wang, Bennett & Collins-Thompson, SIGIR 2012). ``alpha = 0``
gives the plain mean difference; TREC used ``alpha`` = 1, 5 and 10.

The functions are labelled reductions over the ``score(metric, run, topic)`` cube of
:func:`xdiv.evaluate`; ``xdiv ndeval`` and ``xdiv gdeval`` print them for ``-baseline``.
"""

from __future__ import annotations

import math

import xarray as xr

from .errors import InputError
from .evaluate import score_array
from .kernels import risk as K

__all__ = ["risk_differences", "urisk"]


def _against(scores, baseline: str, alpha: float) -> tuple[xr.DataArray, xr.DataArray]:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or \
            not math.isfinite(alpha) or alpha < 0:
        raise InputError(f"the risk-sensitivity alpha must be a finite number >= 0, "
                         f"not {alpha!r}")
    da = score_array(scores)
    return da, score_array(scores, runs=[baseline]).squeeze("run", drop=True)


def risk_differences(scores, baseline: str, alpha: float = 1.0) -> xr.DataArray:
    """Per-topic risk-weighted differences from the baseline run.

    Parameters
    ----------
    scores : xarray.Dataset or xarray.DataArray
        A score cube ``score(metric, run, topic)`` holding ``baseline`` among its runs.
    baseline : str
        The run label of the baseline.
    alpha : float
        Risk sensitivity: losses count ``1 + alpha`` times (default 1).

    Returns
    -------
    xarray.DataArray
        ``risk(metric, run, topic)``: ``r - b`` where ``r >= b``, else
        ``(1 + alpha)(r - b)``; NaN where either score is NaN.
    """
    da, base = _against(scores, baseline, alpha)
    out = xr.apply_ufunc(K.risk_weighted, da, base, kwargs={"alpha": float(alpha)},
                         dask="parallelized", output_dtypes=[float])
    return out.rename("risk").assign_attrs(baseline=str(baseline), alpha=float(alpha))


def urisk(scores, baseline: str, alpha: float = 1.0) -> xr.DataArray:
    """URisk of every run and metric against a baseline run.

    .. math:: \\mathrm{URisk} = \\frac{1}{c} \\Big( \\sum_{d_j \\ge 0} d_j
              + (1 + \\alpha) \\sum_{d_j < 0} d_j \\Big), \\qquad d_j = r_j - b_j

    over the ``c`` topics where both the run and the baseline have a score (NaN topics
    are left out). The baseline itself scores 0.

    Parameters
    ----------
    scores, baseline, alpha
        As in :func:`risk_differences`.

    Returns
    -------
    xarray.DataArray
        ``urisk(metric, run)``.
    """
    da, base = _against(scores, baseline, alpha)
    out = xr.apply_ufunc(K.urisk, da, base, input_core_dims=[["topic"], ["topic"]],
                         kwargs={"alpha": float(alpha)}, dask="parallelized",
                         output_dtypes=[float])
    return out.rename("urisk").assign_attrs(baseline=str(baseline), alpha=float(alpha))
