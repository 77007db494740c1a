"""Linear mixed models of score cubes: :func:`mixed`, a labelled view of statsmodels'
``MixedLM`` fit of ``score ~ run + (1 | topic)``.

Runs are fixed effects and topics random ones (Carterette, ICTIR 2011; Ferro & Silvello,
SIGIR 2016). Over several collections (or years) concatenated on a ``collection``
dimension, topics are nested in collections, the collections are a random effect too,
and a random run × collection interaction may be added. Every estimate, standard error
and interval of the fixed effects and every variance component is statsmodels' own; the
pairwise contrasts of runs are statsmodels' Wald tests of the differences of the run
means, adjusted for multiplicity as emmeans adjusts them (the single-step Tukey
adjustment) or by any ``multipletests`` correction :func:`xdiv.compare` offers.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import xarray as xr

from .._warnings import warn
from ..core.cube import score_array
from ..core.labels import object_strings, to_json
from ..errors import InputError, XdivWarning, shown
from ..io.provenance import recorded
from ..typing import MIXED_ADJUSTMENTS, MIXED_SCALES, MixedAdjustment, MixedScale

__all__ = ["mixed"]


@recorded
def mixed(scores, metric: str, *, interaction: bool = False, reml: bool = True,
          alpha: float = 0.05, adjust: MixedAdjustment = "tukey",
          scale: MixedScale = "linear"
          ) -> xr.Dataset:
    r"""Fit the linear mixed model ``score ~ run + (1 | topic)`` to one metric of a score
    cube with statsmodels' ``MixedLM`` and return the fit as a labelled dataset.

    Each run is a fixed effect (one mean per run, no intercept), each topic a random
    intercept of variance ``topic_variance``, the residuals of variance
    ``residual_variance``; by REML by default, as statsmodels. Over several collections
    (a ``score`` variable with a ``collection`` dimension besides ``metric``, ``run``
    and ``topic``, e.g. several years concatenated with ``xr.concat(..., dim=
    "collection")``) the model is ``score ~ run + (1 | collection) + (1 | collection:
    topic)`` (topics nested in collections: a topic label of two collections is two
    topics), with ``(1 | collection:run)`` added by ``interaction=True``.

    Per collection, the runs with no score there are left out of it and only the
    topics scored for every other run are used (as :func:`xdiv.stats.tidy`).

    Parameters
    ----------
    scores : xarray.Dataset or xarray.DataArray
        ``score(metric, run, topic)``, or ``score(collection, metric, run, topic)``.
    metric : str
        The metric to model.
    interaction : bool
        With several collections, add the random run × collection interaction.
    reml : bool
        Restricted maximum likelihood (statsmodels' default) or maximum likelihood.
    alpha : float
        The level of the confidence intervals (``1 - alpha``) and of ``significant``.
    adjust : {"tukey", "bonferroni", "holm", "fdr_bh", "fdr_by", "none"}
        The multiplicity adjustment of the pairwise contrasts of runs. ``"tukey"``: the
        single-step adjustment by the studentized range of the runs (on infinite degrees
        of freedom, as statsmodels' Wald tests are normal), as emmeans' Tukey adjustment,
        with simultaneous intervals; the others: statsmodels' ``multipletests`` over all
        pairs, with unadjusted intervals.
    scale : {"linear", "logit"}
        ``"logit"``: the logit-normal model for scores bounded in [0, 1]: each score
        ``y`` of ``n`` is squeezed to ``(y (n - 1) + 1/2) / n`` (Smithson & Verkuilen,
        Psychological Methods 2006) and its logit is modelled; ``mean`` and its interval
        are then back-transformed to scores (the score of a typical topic, the random
        effects at 0), and the contrasts are differences of log-odds.

    Returns
    -------
    xarray.Dataset
        Over ``run`` (and ``run_a``, ``run_b``: the same labels):

        - ``mean``, ``mean_se``, ``mean_ci_low``, ``mean_ci_high`` (run): the run's fixed
          effect (its estimated mean), statsmodels' standard error and its ``1 - alpha``
          Wald interval (``conf_int``); over several collections, the interval is
          Student's t on ``n_collections - 1`` degrees of freedom times that standard
          error (the between-within degrees of freedom: the mean holds the collections'
          random effect, estimated from that many collections, and the normal interval
          would be too narrow: about 83% coverage of 95% intervals over 3 collections
          in simulations);
        - ``diff``, ``diff_se``, ``statistic``, ``pvalue``, ``pvalue_adjusted``,
          ``significant``, ``diff_ci_low``, ``diff_ci_high`` (run_a, run_b):
          ``mean(run_a) - mean(run_b)`` with statsmodels' Wald test (``t_test``, normal);
          NaN on the diagonal, each pair in both cells (antisymmetric ``diff``);
        - ``topic_variance``, ``residual_variance`` (and ``collection_variance``,
          ``run_collection_variance``), each with ``_ci_low`` and ``_ci_high``: the
          residual variance's interval is the chi-squared one on the residual degrees of
          freedom (exact for complete data of one collection), the others are Wald
          intervals of the log variance from statsmodels' standard errors (``bse_re``);
        - ``icc``: the share of the score variance between topics (and collections),
          ``(collection + topic) / (collection + topic + run × collection + residual)``;
        - ``n_topics`` (collection), ``n_obs``;
        - ``bounded_rho``, ``bounded_pvalue``: the diagnostic of bounded scores: Spearman's
          correlation of the absolute residuals of the linear model with ``f (1 - f)``
          (the residuals and fitted scores ``f``, clipped to [0, 1], of the two-way run +
          topic least-squares fit, which the mixed model's shrunken topic effects
          barely move); a positive, significant correlation says
          the residuals shrink toward the bounds, where ``scale="logit"`` fits better
          (a warning says so).

        Attributes (NetCDF-safe: text and numbers): ``xdiv_kind = "mixed"``, ``metric``,
        ``formula``, ``method`` (``"REML"`` or ``"ML"``), ``scale``, ``adjust``,
        ``alpha``, ``interaction`` (0 or 1), ``converged`` (0 or 1), ``llf``,
        ``df_resid``, ``bounded_advice`` (the diagnostic in words) and ``adjustment``.

    Raises
    ------
    InputError
        One line naming the problem: the metric or cube is missing, fewer than two runs
        or two topics, scores outside [0, 1] for ``scale="logit"``, a singular design
        (no residual variation), or a fit statsmodels cannot complete.

    Examples
    --------
    >>> import xdiv
    >>> from xdiv import stats
    >>> collection, runs = xdiv.datasets.synthetic(n_topics=20, n_runs=4, depth=20, seed=0)
    >>> scores = xdiv.evaluate(runs, collection, ["ERR-IA@10"])
    >>> model = stats.mixed(scores, "ERR-IA@10")
    >>> model["mean"].round(3).values.tolist()
    [0.698, 0.641, 0.585, 0.436]
    >>> model.attrs["formula"], model.attrs["method"]
    ('score ~ 0 + run + (1 | topic)', 'REML')
    """
    _check_options(alpha, adjust, scale)
    data = _layout(scores, metric)
    if scale == "logit":
        data.squeeze_logit(metric)
    fe, mse, fitted = _ols_start(data)
    fit = _fit(data, interaction, reml, fe, mse)
    return _dataset(fit, data, fitted, metric, interaction, alpha, adjust, scale)


def _check_options(alpha, adjust, scale) -> None:
    if not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise InputError(f"alpha must lie strictly between 0 and 1, not {alpha!r}")
    if adjust not in MIXED_ADJUSTMENTS:
        raise InputError(f"adjust must be one of {', '.join(MIXED_ADJUSTMENTS)}, not "
                         f"{shown(adjust)!r}")
    if scale not in MIXED_SCALES:
        raise InputError(f"scale must be one of {', '.join(MIXED_SCALES)}, not "
                         f"{shown(scale)!r}")


class _Data:
    """The model's rows: ``y``, and for each row its run, collection and topic codes
    (topics numbered over all collections: nested)."""

    def __init__(self, runs, collections, y, run, coll, topic, n_topics):
        self.runs, self.collections = runs, collections
        self.y, self.run, self.coll, self.topic = y, run, coll, topic
        self.n_topics = n_topics
        self.at_bounds = float(np.mean((y == 0) | (y == 1))) if len(y) else 0.0
        """The share of the scores at 0 or 1 (before any transformation)."""

    @property
    def multi(self) -> bool:
        return self.collections is not None

    def squeeze_logit(self, metric: str) -> None:
        if np.any((self.y < 0) | (self.y > 1)):
            raise InputError(f"{metric}: scale='logit' needs scores within [0, 1]; this "
                             f"metric has scores from {self.y.min():g} to {self.y.max():g}")
        n = len(self.y)
        squeezed = (self.y * (n - 1) + 0.5) / n
        self.y = np.log(squeezed / (1 - squeezed))


def _layout(scores, metric: str) -> _Data:
    """The rows of the model of ``metric``: per collection, the runs with a score there
    and the topics scored for each of them."""
    da = scores.get("score") if isinstance(scores, xr.Dataset) else scores
    multi = isinstance(da, xr.DataArray) and "collection" in da.dims
    if multi:
        labels = [str(c) for c in da["collection"].values]
        planes = [score_array(da.isel(collection=k, drop=True), [metric]).isel(metric=0)
                  for k in range(da.sizes["collection"])]
    else:
        labels, planes = None, [score_array(scores, [metric]).isel(metric=0)]
    runs = [str(r) for r in planes[0]["run"].values]
    ys, run_codes, coll_codes, topic_codes, n_topics = [], [], [], [], []
    offset = 0
    for k, plane in enumerate(planes):
        values = plane.transpose("run", "topic").to_numpy().astype(float)
        present = ~np.isnan(values).all(axis=1)
        kept = ~np.isnan(values[present]).any(axis=0)
        where = "" if labels is None else f"collection {shown(labels[k])!r}: "
        if not present.any():
            raise InputError(f"{where}{metric}: no run has a score there; leave the "
                             "collection out")
        if kept.sum() < 2:
            raise InputError(f"{where}{metric}: fewer than two topics have scores for "
                             "every run; the model needs two topics or more")
        block = values[np.ix_(present, kept)]
        r, t = np.nonzero(np.ones_like(block, dtype=bool))
        ys.append(block.ravel())
        run_codes.append(np.flatnonzero(present)[r])
        coll_codes.append(np.full(block.size, k))
        topic_codes.append(offset + t)
        offset += int(kept.sum())
        n_topics.append(int(kept.sum()))
    if len(runs) < 2:
        raise InputError(f"{metric}: the cube holds one run; the model compares two runs "
                         "or more")
    data = _Data(runs, labels, np.concatenate(ys), np.concatenate(run_codes),
                 np.concatenate(coll_codes), np.concatenate(topic_codes), n_topics)
    missing = sorted(set(range(len(runs))) - set(data.run.tolist()))
    if missing:
        raise InputError(f"{metric}: run {shown(runs[missing[0]])!r} has no score on the "
                         "topics kept; the model cannot estimate its mean")
    if data.multi and len(labels) < 2:
        raise InputError("the collection dimension holds one collection; give a cube "
                         "without it to model one collection")
    return data


def _fit(data: _Data, interaction: bool, reml: bool, fe: np.ndarray, resid: float):
    """statsmodels' ``MixedLM`` fit of the rows; one collection's from the run means
    ``fe`` and the moment estimate of the topic variance (``resid``: the residual mean
    square of the two-way fit), several collections' from statsmodels' own start."""
    from statsmodels.regression.mixed_linear_model import MixedLM, MixedLMParams, VCSpec
    from statsmodels.tools.sm_exceptions import ConvergenceWarning

    n_runs = len(data.runs)
    exog = np.zeros((len(data.y), n_runs))
    exog[np.arange(len(data.y)), data.run] = 1.0
    if not np.isfinite(resid) or resid <= 1e-12 * max(float(np.var(data.y)), 1e-300):
        raise InputError("the design is singular: the scores are exactly run + topic "
                         "effects (no residual variation), so no variance can be "
                         "estimated")
    if not data.multi:
        model = MixedLM(data.y, exog, groups=data.topic, exog_re=np.ones((len(data.y), 1)))
        topic_var = _topic_moment(data, fe, resid)
        start = MixedLMParams.from_components(fe_params=fe,
                                              cov_re=np.array([[topic_var / resid]]))
    else:
        names = ["topic", *(["run_collection"] if interaction else [])]
        mats, colnames = [[] for _ in names], [[] for _ in names]
        for k in range(len(data.collections)):
            rows = data.coll == k
            for n, codes in enumerate((data.topic[rows], data.run[rows])[:len(names)]):
                levels = np.unique(codes)
                mats[n].append((codes[:, None] == levels[None, :]) * 1.0)
                colnames[n].append([str(level) for level in levels])
        model = MixedLM(data.y, exog, groups=data.coll, exog_re=np.ones((len(data.y), 1)),
                        exog_vc=VCSpec(names, colnames, mats))
        start = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fit = model.fit(reml=reml, start_params=start)
        except (np.linalg.LinAlgError, ValueError) as exc:
            raise InputError(f"statsmodels could not fit the mixed model "
                             f"({' '.join(str(exc).split()) or type(exc).__name__})"
                             ) from None
    # statsmodels' "The MLE may be on the boundary" fires for any variance below 0.01,
    # which most variances of scores in [0, 1] are: the boundary is checked in
    # _dataset instead, relative to the residual variance
    notes = sorted({" ".join(str(w.message).split()) for w in caught
                    if issubclass(w.category, (ConvergenceWarning, RuntimeWarning))
                    and "on the boundary" not in str(w.message)})
    for note in notes:
        warn(f"mixed model: statsmodels says: {note}", XdivWarning)
    if not np.all(np.isfinite(fit.fe_params)) or not np.isfinite(fit.scale):
        raise InputError("statsmodels could not fit the mixed model (non-finite estimates; "
                         "is the design singular?)")
    return fit


def _ols_start(data: _Data, tol: float = 1e-12, max_sweeps: int = 500):
    """Run means and the residual mean square of ``score ~ run + topic`` by least squares
    (the REML estimates of complete data of one collection) and its fitted values, by
    alternating the run and
    topic means of the residuals (one sweep for complete data)."""
    run_n = np.bincount(data.run, minlength=len(data.runs))
    topic_n = np.bincount(data.topic)
    topic = np.zeros(len(topic_n))
    for _ in range(max_sweeps):
        run = np.bincount(data.run, data.y - topic[data.topic], len(run_n)) / run_n
        new = np.bincount(data.topic, data.y - run[data.run], len(topic_n)) / topic_n
        new -= new.mean()
        moved = np.max(np.abs(new - topic)) if len(new) else 0.0
        topic = new
        if moved <= tol * max(1.0, float(np.max(np.abs(data.y)))):
            break
    run = np.bincount(data.run, data.y - topic[data.topic], len(run_n)) / run_n
    resid = data.y - run[data.run] - topic[data.topic]
    df = len(data.y) - len(run_n) - len(topic_n) + 1
    mse = float(resid @ resid / df) if df > 0 else np.nan
    fe = np.bincount(data.run, data.y, len(run_n)) / run_n
    return fe, mse, data.y - resid


def _topic_moment(data: _Data, fe, resid) -> float:
    """The moment estimate of the topic variance (``(MS_topic - MS_E) / runs``), at
    least a small positive start."""
    centred = data.y - fe[data.run]
    counts = np.bincount(data.topic)
    topic_means = np.bincount(data.topic, centred) / counts
    n_runs = len(data.y) / len(counts)
    estimate = float(np.var(topic_means, ddof=1)) - resid / n_runs
    return max(estimate, 1e-3 * resid)


def _residual_df(data: _Data, interaction: bool) -> int:
    """Observations less the rank of the fixed and random effects' columns: the degrees
    of freedom of the residual variance."""
    n_topics = int(data.topic.max()) + 1
    columns = len(data.runs) + n_topics - 1
    if data.multi and interaction:
        columns += len(np.unique(data.coll * len(data.runs) + data.run)) - len(data.runs) \
            - (len(data.collections) - 1)
    return max(len(data.y) - columns, 1)


def _dataset(fit, data: _Data, fitted: np.ndarray, metric: str, interaction: bool, alpha: float,
             adjust: str, scale: str) -> xr.Dataset:
    from scipy.stats import chi2, norm

    runs = object_strings(data.runs)
    n_runs = len(runs)
    fe = np.asarray(fit.fe_params, dtype=float)
    cov = np.asarray(fit.cov_params(), dtype=float)[:n_runs, :n_runs]
    se = np.sqrt(np.diag(cov))
    bounds = np.asarray(fit.conf_int(alpha=alpha), dtype=float)[:n_runs]
    low, high = bounds[:, 0], bounds[:, 1]
    if data.multi:
        # a run's mean holds the collections' random effect, whose variance rests on
        # n_collections - 1 degrees of freedom: Student's t on them (the between-within
        # degrees of freedom), where statsmodels' normal interval is too narrow
        from scipy.stats import t as t_dist

        half = t_dist.ppf(1 - alpha / 2, len(data.collections) - 1) * se
        low, high = fe - half, fe + half
    if scale == "logit":
        fe_shown, low, high = _expit(fe), _expit(low), _expit(high)
        se_shown = se * fe_shown * (1 - fe_shown)  # the delta method
    else:
        fe_shown, se_shown = fe, se

    i, j = np.triu_indices(n_runs, k=1)
    diff = fe[i] - fe[j]
    diff_se = np.sqrt(cov[i, i] + cov[j, j] - 2 * cov[i, j])
    with np.errstate(invalid="ignore", divide="ignore"):
        z = diff / diff_se
    pvalue = 2 * norm.sf(np.abs(z))
    adjusted, half, note = _adjust(z, pvalue, diff_se, n_runs, alpha, adjust)

    variances, names = _variances(fit, data, interaction)
    df_resid = _residual_df(data, interaction)
    z_half = norm.ppf(1 - alpha / 2)
    out = {}
    for name, (value, bse) in variances.items():
        if name == "residual":
            lo = df_resid * value / chi2.ppf(1 - alpha / 2, df_resid)
            hi = df_resid * value / chi2.ppf(alpha / 2, df_resid)
        elif value > 1e-8 * fit.scale and np.isfinite(bse):
            lo, hi = value * np.exp(-z_half * bse / value), value * np.exp(z_half * bse / value)
        else:
            lo, hi = 0.0, np.nan
            warn(f"{metric}: the {name.replace('_', ' x ')} variance is estimated at 0, "
                 "the boundary of its range; it has no Wald interval", XdivWarning)
        out[f"{name}_variance"] = ((), float(value))
        out[f"{name}_variance_ci_low"] = ((), float(lo))
        out[f"{name}_variance_ci_high"] = ((), float(hi))
    between = sum(variances[n][0] for n in ("collection", "topic") if n in variances)
    total = sum(v for v, _ in variances.values())
    rho, rho_p = _bounded_check(data.y, fitted, scale)
    advice = _advice(rho, rho_p, alpha, scale, data.at_bounds)
    if advice.startswith("the linear model's"):
        warn(f"{metric}: {advice}", XdivWarning)

    def square(values, mirror=None):
        """Pair values on the (run_a, run_b) square; ``mirror`` reads a pair the other
        way round (None: the same value)."""
        grid = np.full((n_runs, n_runs), np.nan, dtype=float)
        grid[i, j] = values
        grid[j, i] = values if mirror is None else mirror(values)
        return grid

    diff_low = square(diff - half, lambda v: -(diff + half))
    diff_high = square(diff + half, lambda v: -(diff - half))
    adjusted_grid = square(adjusted)
    with np.errstate(invalid="ignore"):
        significant = adjusted_grid < alpha
    pair = ("run_a", "run_b")
    dataset = xr.Dataset(
        {"mean": ("run", fe_shown), "mean_se": ("run", se_shown),
         "mean_ci_low": ("run", low), "mean_ci_high": ("run", high),
         "diff": (pair, square(diff, np.negative)),
         "diff_se": (pair, square(diff_se)),
         "statistic": (pair, square(z, np.negative)),
         "pvalue": (pair, square(pvalue)),
         "pvalue_adjusted": (pair, adjusted_grid),
         "significant": (pair, significant),
         "diff_ci_low": (pair, diff_low), "diff_ci_high": (pair, diff_high),
         **out,
         "icc": ((), float(between / total) if total > 0 else np.nan),
         "n_obs": ((), int(len(data.y))),
         "bounded_rho": ((), rho), "bounded_pvalue": ((), rho_p)},
        coords={"run": runs, "run_a": runs, "run_b": runs})
    if data.multi:
        dataset["n_topics"] = ("collection", np.asarray(data.n_topics, dtype=np.int64))
        dataset = dataset.assign_coords(collection=object_strings(data.collections))
    else:
        dataset["n_topics"] = ((), int(data.n_topics[0]))
    dataset.attrs = {
        "xdiv_kind": "mixed", "metric": str(metric), "formula": _formula(data, interaction),
        "method": "REML" if fit.method == "REML" else "ML", "scale": scale,
        "adjust": adjust, "adjustment": note, "alpha": float(alpha),
        "interaction": int(bool(interaction and data.multi)),
        "converged": int(bool(fit.converged)), "llf": float(fit.llf),
        "df_resid": int(df_resid), "variance_components": to_json(names),
        "bounded_advice": advice,
    }
    return dataset


def _expit(x):
    return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=float)))


def _adjust(z, pvalue, diff_se, n_runs, alpha, adjust):
    """Adjusted p-values, the half widths of the contrasts' intervals and a sentence."""
    from scipy.stats import norm, studentized_range

    if adjust == "tukey":
        q = np.sqrt(2) * np.abs(z)
        adjusted = np.full_like(z, np.nan)
        finite = np.isfinite(q)
        if finite.any():
            unique, inverse = np.unique(q[finite], return_inverse=True)
            adjusted[finite] = np.minimum(
                studentized_range.sf(unique, n_runs, np.inf)[inverse], 1.0)
        crit = _range_quantile(1 - alpha, n_runs) / np.sqrt(2)
        return adjusted, crit * diff_se, (
            f"single-step Tukey adjustment: the studentized range of {n_runs} means on "
            "infinite degrees of freedom; simultaneous intervals")
    half = norm.ppf(1 - alpha / 2) * diff_se
    if adjust == "none":
        return pvalue.copy(), half, "none: pvalue_adjusted = pvalue"
    from statsmodels.stats.multitest import multipletests

    adjusted = np.full_like(pvalue, np.nan)
    defined = ~np.isnan(pvalue)
    if defined.any():
        adjusted[defined] = multipletests(pvalue[defined], alpha=alpha, method=adjust)[1]
    return adjusted, half, (f"statsmodels multipletests method {adjust!r} over all run "
                            "pairs; unadjusted intervals")


@functools.lru_cache(maxsize=64)
def _range_quantile(level: float, n_runs: int) -> float:
    """The ``level`` quantile of the range of ``n_runs`` standard normals (the
    studentized range on infinite degrees of freedom); remembered, as each costs a
    numerical integration."""
    from scipy.stats import studentized_range

    return float(studentized_range.ppf(level, n_runs, np.inf))


def _variances(fit, data: _Data, interaction: bool):
    """``{component: (variance, standard error)}`` from the fit, and the components'
    names in statsmodels' terms."""
    # the standard errors of statsmodels' variance parameters (variances over the
    # residual variance), times the residual variance (``bse_re`` multiplies them by its
    # square root instead)
    bse = fit.scale * np.asarray(fit.bse, dtype=float)[fit.k_fe:]
    first = "collection" if data.multi else "topic"
    out = {first: (float(np.asarray(fit.cov_re)[0, 0]), float(bse[0]))}
    names = {first: "Group Var"}
    if data.multi:
        vc_names = list(fit.model.exog_vc.names)
        for k, name in enumerate(vc_names):
            out[name] = (float(fit.vcomp[k]), float(bse[1 + k]))
            names[name] = f"{name} Var"
    out["residual"] = (float(fit.scale), np.nan)
    names["residual"] = "scale"
    return out, names


def _bounded_check(y: np.ndarray, fitted: np.ndarray, scale: str):
    """Spearman's correlation of the absolute residuals of the two-way (run + topic)
    least-squares fit with ``f (1 - f)``, ``f`` its fitted scores clipped to [0, 1]."""
    from scipy.stats import spearmanr

    residual = y - fitted
    if scale == "logit":
        fitted = _expit(fitted)
    f = np.clip(fitted, 0.0, 1.0)
    spread = f * (1 - f)
    if np.ptp(spread) == 0 or np.ptp(np.abs(residual)) == 0:
        return np.nan, np.nan
    result = spearmanr(np.abs(residual), spread)
    return float(result.statistic), float(result.pvalue)


def _advice(rho, p, alpha, scale, at_bounds) -> str:
    if not np.isfinite(p):
        return "no diagnostic: the fitted scores or the residuals do not vary"
    said = f"Spearman rho = {rho:.3f}, p = {p:.3g}; {100 * at_bounds:.1f}% of the scores " \
           "are 0 or 1"
    if p >= alpha:
        return f"no sign that the bounds 0 and 1 distort the residuals ({said})"
    if rho < 0:
        return (f"the residuals grow toward the bounds 0 and 1 ({said}): on this scale the "
                "scores near the bounds vary more than the others")
    if scale == "linear":
        return (f"the linear model's residuals shrink toward the bounds 0 and 1 ({said}): "
                "the scores are bounded, and the logit-normal model (scale='logit'; xdiv "
                "model --scale logit) may fit them better")
    return f"the residuals still shrink toward the bounds on the logit scale ({said})"


def _formula(data: _Data, interaction: bool) -> str:
    if not data.multi:
        return "score ~ 0 + run + (1 | topic)"
    extra = " + (1 | collection:run)" if interaction else ""
    return f"score ~ 0 + run + (1 | collection) + (1 | collection:topic){extra}"
