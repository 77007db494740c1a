"""Risk-sensitive evaluation of a score cube against a baseline run or against all runs.

TREC's Web Track (2013-2014) reported, beside each measure, its risk-sensitive form
against a baseline run: per topic the difference ``d = r - b`` of the run's score ``r``
and the baseline's ``b``, counted as ``d`` when ``d >= 0`` and as ``(1 + alpha) d`` when
the run does worse, then averaged over the topics (URisk; Collins-Thompson, Bennett, Diaz, Clarke
& Voorhees, TREC 2013 Web Track overview; Wang, Bennett & Collins-Thompson, SIGIR 2012). ``alpha = 0``
gives the plain mean difference; TREC used ``alpha`` = 1, 5 and 10.

URisk is descriptive. Two inferential forms build on it:

- :func:`trisk`, URisk over its standard error: the t statistic of the risk-weighted
  differences, with its p-value (Dinçer, Macdonald & Ounis, "Hypothesis testing for the
  risk-sensitive evaluation of retrieval systems", SIGIR 2014);
- :func:`georisk`, which measures each run against what the whole set of runs leads one
  to expect of it on each topic instead of against a single baseline (Dinçer, Macdonald
  & Ounis, "Risk-sensitive evaluation and learning to rank using multiple baselines",
  SIGIR 2016).

The functions are labelled reductions over the ``score(metric, run, topic)`` cube of
:func:`xdiv.evaluate`; ``xdiv risk`` prints them, and ``xdiv ndeval`` and ``xdiv gdeval``
print URisk for ``-baseline``.
"""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from ..errors import InputError, XdivWarning
from ..core.cube import score_array
from ..io.provenance import recorded
from ..kernels import risk as K
from ..core.labels import preview
from .._warnings import warn

__all__ = ["georisk", "risk_differences", "trisk", "urisk"]


def _check_alpha(alpha: float) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or \
            not math.isfinite(alpha) or alpha < 0:
        raise InputError(f"the risk-sensitivity alpha must be a finite number >= 0, "
                         f"not {alpha!r}")
    return float(alpha)


def _against(scores, baseline: str, alpha: float) -> tuple[xr.DataArray, xr.DataArray]:
    _check_alpha(alpha)
    da = score_array(scores)
    return da, score_array(scores, runs=[baseline]).squeeze("run", drop=True)


@recorded
def risk_differences(scores, baseline: str, alpha: float = 0.0) -> xr.DataArray:
    """Per-topic risk-weighted differences from the baseline run.

    Parameters
    ----------
    scores : xarray.Dataset or xarray.DataArray
        A score cube ``score(metric, run, topic)`` holding ``baseline`` among its runs.
    baseline : str
        The run label of the baseline.
    alpha : float
        Risk sensitivity: losses count ``1 + alpha`` times (default 0, the plain mean
        difference, as ndeval's ``-riskAlpha``; the TREC Web Track reported 1, 5 and 10).

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


@recorded
def urisk(scores, baseline: str, alpha: float = 0.0) -> xr.DataArray:
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

    Examples
    --------
    >>> import xdiv
    >>> collection, runs = xdiv.datasets.synthetic(n_topics=20, n_runs=3, depth=20, seed=0)
    >>> scores = xdiv.evaluate(runs, collection, ["alpha-nDCG@10", "nDCG@10"])
    >>> xdiv.risk.urisk(scores, baseline="run02", alpha=1.0).round(4).to_pandas()
    run             run01  run02   run03
    metric
    alpha-nDCG@10  0.0692    0.0 -0.4217
    nDCG@10        0.1445    0.0 -0.6120
    """
    da, base = _against(scores, baseline, alpha)
    out = xr.apply_ufunc(K.urisk, da, base, input_core_dims=[["topic"], ["topic"]],
                         kwargs={"alpha": float(alpha)}, dask="parallelized",
                         output_dtypes=[float])
    return out.rename("urisk").assign_attrs(baseline=str(baseline), alpha=float(alpha))


@recorded
def trisk(scores, baseline: str, alpha: float = 0.0) -> xr.Dataset:
    """TRisk of every run and metric against a baseline run, with its p-value.

    TRisk (Dinçer, Macdonald & Ounis, SIGIR 2014) is URisk divided by its standard error:
    with ``d_j`` the risk-weighted differences of :func:`risk_differences` over the ``n``
    topics where both the run and the baseline have a score, and ``s`` their sample
    standard deviation,

    .. math:: \\mathrm{TRisk} = \\frac{\\mathrm{URisk}}{s / \\sqrt{n}}, \\qquad
              s^2 = \\frac{1}{n - 1} \\sum_j (d_j - \\mathrm{URisk})^2

    the statistic of Student's one-sample t test of the ``d_j`` (the paired t test of the
    run against the baseline when ``alpha = 0``). The p-value is two-sided, from Student's
    t distribution with ``n - 1`` degrees of freedom, as in the paper: a TRisk below about
    -2 says that the run is significantly riskier than the baseline, above about 2 that
    it is significantly better, risk included.

    Parameters
    ----------
    scores, baseline, alpha
        As in :func:`risk_differences`.

    Returns
    -------
    xarray.Dataset
        Over ``(metric, run)``: ``urisk`` (as :func:`urisk`), ``statistic`` (TRisk),
        ``pvalue`` and ``n_topics`` (``n``; the degrees of freedom are ``n - 1``), in the
        manner of :func:`scipy.stats.ttest_1samp`. ``statistic`` and ``pvalue`` are NaN
        with fewer than 2 topics and for the baseline itself (every ``d_j`` is 0), and
        infinite and 0 where every ``d_j`` is the same non-zero number. Attributes:
        ``baseline``, ``alpha``, ``distribution``, ``alternative``.

    Examples
    --------
    >>> import xdiv
    >>> collection, runs = xdiv.datasets.synthetic(n_topics=20, n_runs=3, depth=20, seed=0)
    >>> scores = xdiv.evaluate(runs, collection, ["alpha-nDCG@10", "nDCG@10"])
    >>> result = xdiv.risk.trisk(scores, baseline="run02", alpha=1.0)
    >>> result["statistic"].round(2).to_pandas()
    run            run01  run02  run03
    metric
    alpha-nDCG@10   1.70    NaN  -6.19
    nDCG@10         4.37    NaN  -8.01
    >>> float(result["pvalue"].sel(metric="alpha-nDCG@10", run="run01").round(4))
    0.1045
    """
    da, base = _against(scores, baseline, alpha)
    urisk_, statistic, pvalue, n = xr.apply_ufunc(
        K.trisk, da, base, input_core_dims=[["topic"], ["topic"]],
        output_core_dims=[[], [], [], []], kwargs={"alpha": float(alpha)},
        dask="parallelized", output_dtypes=[float, float, float, np.int64])
    return xr.Dataset(
        {"urisk": urisk_, "statistic": statistic, "pvalue": pvalue, "n_topics": n},
        attrs={"test": "TRisk", "baseline": str(baseline), "alpha": float(alpha),
               "distribution": "Student's t with n_topics - 1 degrees of freedom",
               "alternative": "two-sided"})


@recorded
def georisk(scores, alpha: float = 0.0) -> xr.Dataset:
    """ZRisk and GeoRisk of every run and metric against the whole set of runs.

    GeoRisk (Dinçer, Macdonald & Ounis, SIGIR 2016) takes every run of the cube as a
    baseline at once. For one metric, with ``x_ij`` the score of run ``i`` on topic ``j``
    over ``c`` topics, ``S_i`` a run's total, ``T_j`` a topic's total and ``N`` the grand
    total, the score expected of run ``i`` on topic ``j`` is ``e_ij = S_i T_j / N`` (as
    in Pearson's chi-squared test of a contingency table), and

    .. math:: z_{ij} = \\frac{x_{ij} - e_{ij}}{\\sqrt{e_{ij}}}, \\qquad
              \\mathrm{ZRisk}_i = \\sum_{z_{ij} \\ge 0} z_{ij}
              + (1 + \\alpha) \\sum_{z_{ij} < 0} z_{ij}, \\qquad
              \\mathrm{GeoRisk}_i = \\sqrt{\\frac{S_i}{c}\\,
              \\Phi\\Big(\\frac{\\mathrm{ZRisk}_i}{c}\\Big)}

    with :math:`\\Phi` the standard normal distribution function: the geometric mean of
    the run's mean score and of the (normalised) risk it shows against the set.

    ``e_ij = 0`` exactly when run ``i`` or topic ``j`` scores 0 on every topic or run
    (scores are non-negative); then ``x_ij = 0`` too, the score meets its expectation,
    and ``z_ij`` is taken as 0. A run that scores 0 everywhere has ZRisk 0 and GeoRisk 0.

    Topics where some run has no score (NaN) are left out for every run of that metric, so
    that all runs are measured on the same topics; ``n_topics`` gives ``c``, and a warning
    names the topics left out where other runs do have a score.

    Parameters
    ----------
    scores : xarray.Dataset or xarray.DataArray
        A score cube ``score(metric, run, topic)`` of non-negative scores.
    alpha : float
        Risk sensitivity: negative deviations count ``1 + alpha`` times (default 0, as
        ndeval's ``-riskAlpha``).

    Returns
    -------
    xarray.Dataset
        ``zrisk(metric, run)``, ``georisk(metric, run)`` (NaN where no topic is left) and
        ``n_topics(metric)``. Attributes: ``alpha``.

    Raises
    ------
    InputError
        A negative score (naming metric, run and topic), or a bad ``alpha``.
    """
    alpha = _check_alpha(alpha)
    da = score_array(scores)
    # the checks reduce a dask-backed cube in one pass; the result stays lazy
    missing = da.isnull()
    checks = xr.Dataset({"negative": (da < 0).any(),
                         "partial": missing.any("run") & ~missing.all("run")}).compute()
    if checks["negative"]:
        m, r, t = np.argwhere((da < 0).values)[0]
        raise InputError(f"GeoRisk needs non-negative scores: metric {da['metric'].values[m]}, "
                         f"run {da['run'].values[r]}, topic {da['topic'].values[t]} scores "
                         f"{float(da.values[m, r, t])!r}")
    _warn_partial_topics(checks["partial"])
    zrisk, geo, c = xr.apply_ufunc(
        K.georisk, da, input_core_dims=[["run", "topic"]],
        output_core_dims=[["run"], ["run"], []], kwargs={"alpha": alpha},
        dask="parallelized", output_dtypes=[float, float, np.int64])
    return xr.Dataset({"zrisk": zrisk, "georisk": geo, "n_topics": c},
                      attrs={"test": "GeoRisk", "alpha": alpha})


def _warn_partial_topics(partial: xr.DataArray) -> None:
    """Warn about the topics :func:`georisk` leaves out although some runs scored them
    (``partial`` over ``(metric, topic)``)."""
    for m in np.flatnonzero(partial.values.any(axis=-1)):
        topics = [str(t) for t in partial["topic"].values[partial.values[m]]]
        warn(f"GeoRisk of {partial['metric'].values[m]}: {len(topics)} topic(s) "
                      f"left out where some runs have no score ({preview(topics, 5)})",
                      XdivWarning)
