"""Statistical follow-up of score cubes with statsmodels and scipy.

Each helper takes the ``score(metric, run, topic)`` cube and one metric, uses the topics
with a score for every run, and returns statsmodels' own result objects (or a tidy
frame, or a labelled dataset), so the usual summaries and plots apply. p-value
corrections are applied across the whole family of run pairs, never per test.
:func:`standardise` turns a cube into a cube of standardised scores, which every
function that takes a cube accepts.
"""

from __future__ import annotations

import itertools
import keyword
import re
from collections.abc import Iterable

import numpy as np
import pandas as pd
import xarray as xr
from scipy.stats import ttest_rel  # noqa: F401  (the former engine; tests patch it)

from .._warnings import warn
from ..errors import InputError, XdivWarning, shown
from ..core.cube import score_array
from ..io.provenance import recorded
from ..kernels import compare as K
from ..kernels import standardise as KS
from ..typing import STANDARDISE_METHODS, StandardiseMethod
from .compare import t_pvalue
from .models import mixed  # noqa: F401  (linear mixed models: xdiv.stats.mixed)

__all__ = ["tidy", "anova", "anova_table", "standardise", "tukey", "paired_t_tests",
           "effect_sizes"]


def tidy(scores, metric: str) -> pd.DataFrame:
    """``run``, ``topic``, ``score`` rows of one metric, on topics scored for every run."""
    da = score_array(scores, [metric]).isel(metric=0)
    table = da.transpose("topic", "run").to_pandas().dropna(axis=0)
    if len(table) < 2:
        raise InputError(f"{metric}: fewer than two topics have scores for every run")
    frame = table.reset_index().melt(id_vars="topic", var_name="run", value_name="score")
    return frame.astype({"run": str, "topic": str})


RESERVED_NAMES = frozenset({"score", "run", "topic", "metric", "term", "C", "Q", "I", "Sum"})
"""Names a factor may not take: the tidy frame's columns, the result's dimensions and the
formula functions (patsy's ``C``, ``Q``, ``I`` and the ``Sum`` coding)."""

EFFECT_COLUMNS = ("eta_sq", "omega_sq", "partial_omega_sq", "variance_component")
"""The columns :func:`anova` adds to statsmodels' ``anova_lm`` table."""


def anova(scores, metric: str, factors=None, *, topic: bool = True,
          interactions: bool = True, typ: int = 2):
    """ANOVA of one metric's scores, with effect sizes and variance components.

    Without ``factors`` it is the two-way ANOVA without replication, ``score ~ C(run) +
    C(topic)``. With ``factors``, a table of run properties (the components a run was
    built from: stemmer, model, query expansion, ...), the runs are points of a grid and
    the model is ``score ~ C(f1) * C(f2) * ... + C(topic)``: the factors' main effects,
    all their interactions (``interactions=False``: main effects only) and the topic
    effect (``topic=False``: no topic term, so ``factors=None, topic=False`` is the
    one-way ANOVA of the runs), as Ferro & Silvello (SIGIR 2016) study the components of
    IR systems. statsmodels fits the model by ordinary least squares and ``anova_lm``
    computes the sums of squares: type II (the default) or type III (``typ=3``, with
    sum-to-zero coding of every factor, ``C(f, Sum)``, without which type III sums of
    squares test meaningless hypotheses).

    Four columns are added to ``anova_lm``'s table, on each term's row (NaN on the
    ``Intercept`` and ``Residual`` rows, except the residual's variance component).
    With ``N`` the number of scores, ``SS_total`` their sum of squares about the grand
    mean, ``MS_error`` the residual mean square and, for a term, ``SS``, ``df`` and
    ``F``, as Olejnik & Algina (Psychological Methods 2003) define them for fixed
    factors:

    - ``eta_sq`` = ``SS / SS_total``;
    - ``omega_sq`` = ``(SS - df MS_error) / (SS_total + MS_error)``, which is Ferro &
      Silvello's ``df (MS - MS_error) / (SS_total + MS_error)``;
    - ``partial_omega_sq`` = ``(SS - df MS_error) / (SS + (N - df) MS_error)``, which is
      Ferro & Silvello's ``df (F - 1) / (df (F - 1) + N)``;
    - ``variance_component`` = ``(SS - df MS_error) / N``, the variance of the term's
      effects estimated as fixed effects (Olejnik & Algina's numerator of ω²), and
      ``MS_error`` on the residual row, so that ``omega_sq`` is a term's component over
      ``(SS_total + MS_error) / N`` (the sum of all components when the design is
      balanced).

    Estimates below zero (a term explaining less than noise would) are kept as they
    are, not clipped at 0. The variance components of topics and runs as random effects
    are :func:`xdiv.design.g_study`'s.

    Parameters
    ----------
    scores : xarray.Dataset or xarray.DataArray
        A score cube ``score(metric, run, topic)``; the topics with a score for every run
        are used.
    metric : str
        The metric analysed.
    factors : pandas.DataFrame, xarray.Dataset or xarray.DataArray, optional
        The runs' factors: a frame indexed by run (or with a ``run`` column) with one
        column per factor, or a dataset whose variables and coordinates along ``run``
        alone are the factors (a score cube with run coordinates will do; select the
        factors of one holding other such variables), or a DataArray whose coordinates
        along ``run`` are.
        Each factor's values are category labels. Every run of the cube needs a row
        (rows of other runs are not used); factor names must be Python identifiers
        other than ``score``, ``run``, ``topic``, ``metric``, ``term``, ``C``, ``Q``,
        ``I`` and ``Sum``.
    topic : bool, default True
        Include the topic effect.
    interactions : bool, default True
        Include every interaction of the factors (only with ``factors``).
    typ : {2, 3}
        The type of the sums of squares.

    Returns
    -------
    (fit, table)
        The statsmodels OLS results and ``anova_lm``'s table with the four columns above.

    Raises
    ------
    InputError
        One run, fewer than two topics scored by every run, a factor table without a run
        or with an empty value, a factor with one value, or a singular design (a term
        confounded with the terms before it, e.g. an interaction with an empty cell).
    """
    fit, table, _ = _anova(scores, metric, factors, topic, interactions, typ)
    return fit, table


@recorded
def anova_table(scores, metric: str, factors=None, *, topic: bool = True,
                interactions: bool = True, typ: int = 2) -> xr.Dataset:
    """:func:`anova` as one labelled dataset: its table and the factor table.

    The dataset has a ``term`` dimension (each factor, interaction and ``topic`` by
    name, e.g. ``stemmer``, ``stemmer:model``, and ``Residual``; no intercept) with the
    variables ``sum_sq``, ``df``, ``mean_sq``, ``statistic`` (F), ``pvalue``, ``eta_sq``,
    ``omega_sq``, ``partial_omega_sq`` and ``variance_component`` (defined in
    :func:`anova`), and a ``run`` dimension whose coordinates are the factors (each
    run's value). Its attributes are ``metric``, ``formula`` (as statsmodels fitted it),
    ``typ``, ``n_topics``, ``n_obs`` and ``ss_total``; it round-trips through NetCDF.
    Parameters and errors are :func:`anova`'s.

    Examples
    --------
    Two runs on three topics: sums of squares 6 (runs), 39 (topics) and 1 (residual,
    2 degrees of freedom), 46 in all, so ω² is (6 - 0.5) / 46.5 for the runs and
    (39 - 1) / 46.5 for the topics:

    >>> import xarray as xr
    >>> from xdiv import stats
    >>> cube = xr.Dataset({"score": (("metric", "run", "topic"), [[[0, 2, 7], [3, 4, 8]]])},
    ...                   coords={"metric": ["m"], "run": ["a", "b"], "topic": ["1", "2", "3"]})
    >>> result = stats.anova_table(cube, "m")
    >>> omega = result["omega_sq"]
    >>> {str(term): round(float(value), 4) for term, value in zip(omega["term"].values,
    ...                                                            omega.values)}
    {'run': 0.1183, 'topic': 0.8172, 'Residual': nan}
    """
    fit, table, grid = _anova(scores, metric, factors, topic, interactions, typ)
    table = table.drop(index="Intercept", errors="ignore")
    terms = [_term_name(name) for name in table.index]
    columns = {"sum_sq": table["sum_sq"], "df": table["df"],
               "mean_sq": table["sum_sq"] / table["df"], "statistic": table["F"],
               "pvalue": table["PR(>F)"], **{c: table[c] for c in EFFECT_COLUMNS}}
    data = {name: ("term", np.asarray(values, dtype=float)) for name, values in columns.items()}
    coords = {"term": terms, "run": grid.index.to_numpy(dtype=str)}
    coords.update({name: ("run", grid[name].to_numpy(dtype=str)) for name in grid.columns})
    return xr.Dataset(data, coords=coords, attrs={
        "metric": str(metric), "formula": fit.model.formula, "typ": int(typ),
        "n_topics": int(fit.model.data.frame["topic"].nunique()), "n_obs": int(fit.nobs),
        "ss_total": float(fit.centered_tss)})


def _anova(scores, metric, factors, topic, interactions, typ):
    """The fit, the table with effect sizes and the factor table (indexed by run)."""
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm

    if typ not in (2, 3) or isinstance(typ, bool):
        raise InputError(f"typ must be 2 or 3 (the type of the sums of squares), not "
                         f"{shown(typ)}")
    frame = tidy(scores, metric)
    runs = pd.unique(frame["run"])
    if len(runs) < 2:
        raise InputError(f"{shown(metric)}: an ANOVA needs at least two runs; the cube "
                         f"holds one ({shown(runs[0])})")
    grid = pd.DataFrame(index=pd.Index(runs, name="run"))
    if factors is None:
        names = ["run"]
    else:
        grid = _factor_table(factors, runs)
        names = list(grid.columns)
        for name in names:
            frame[name] = frame["run"].map(grid[name])
    coding = ", Sum" if typ == 3 else ""
    main = [f"C({name}{coding})" for name in names]
    rhs = (" * " if interactions else " + ").join(main)
    if topic:
        rhs += f" + C(topic{coding})"
    model = ols(f"score ~ {rhs}", data=frame)
    _check_design(model)
    fit = model.fit()
    table = anova_lm(fit, typ=typ)
    return fit, _with_effect_sizes(table, fit), grid


def _factor_table(factors, runs: np.ndarray) -> pd.DataFrame:
    """The factors of ``runs`` as text labels, one column per factor, checked."""
    if isinstance(factors, (xr.Dataset, xr.DataArray)):
        held = factors.coords.to_dataset() if isinstance(factors, xr.DataArray) else factors
        if "run" not in held.dims:
            raise InputError("the factor dataset has no run dimension")
        columns = {str(name): held[name].values for name in [*held.coords, *held.data_vars]
                   if held[name].dims == ("run",) and name != "run"}
        table = pd.DataFrame(columns, index=held["run"].values.astype(str))
    elif isinstance(factors, pd.DataFrame):
        table = factors.set_index("run") if "run" in factors.columns else factors.copy()
        table.index = table.index.astype(str)
        table.columns = [str(c) for c in table.columns]
    else:
        raise InputError(f"factors must be a pandas DataFrame indexed by run or an xarray "
                         f"Dataset (or DataArray) with run coordinates, not "
                         f"{type(factors).__name__}")
    if table.shape[1] == 0:
        raise InputError("the factor table has no factor (no column, or no coordinate "
                         "along run)")
    for name in table.columns:
        if not name.isidentifier() or keyword.iskeyword(name) or name in RESERVED_NAMES:
            raise InputError(f"factor name {shown(name)!r} is not allowed: use a Python "
                             f"identifier other than {', '.join(sorted(RESERVED_NAMES))}")
    duplicated = table.index[table.index.duplicated()]
    if len(duplicated):
        raise InputError(f"the factor table has two rows for run {shown(duplicated[0])!r}")
    missing = [run for run in runs if run not in table.index]
    if missing:
        raise InputError(f"the factor table has no row for run {shown(missing[0])!r} "
                         f"({len(missing)} of the cube's {len(runs)} runs missing)")
    table = table.loc[list(runs)]
    empty = table.isna()
    if empty.to_numpy().any():
        run, name = empty.stack()[lambda s: s].index[0]
        raise InputError(f"the factor table has no value of {shown(name)} for run "
                         f"{shown(run)!r}")
    table = table.astype(str)
    for name in table.columns:
        if table[name].nunique() < 2:
            raise InputError(f"factor {shown(name)} takes one value "
                             f"({shown(table[name].iloc[0])!r}) over the runs: it has no "
                             "effect to estimate")
    table.index.name = "run"
    return table


def _check_design(model) -> None:
    """A design of full rank, or one line naming the first confounded term. (Residual
    degrees of freedom are then left: the runs' factors have at most one parameter per
    run, the topics one per topic, and ``(runs - 1) (topics - 1) > 0`` scores remain.)"""
    exog = model.exog
    if np.linalg.matrix_rank(exog) < exog.shape[1]:
        data = model.data
        _name_confounded(getattr(data, "model_spec", None) or data.design_info, exog)


def _name_confounded(info, exog: np.ndarray) -> None:
    """Raise the error naming the first term of a singular design that adds fewer
    dimensions than columns."""
    rank = 0
    for term, columns in info.term_name_slices.items():
        grown = np.linalg.matrix_rank(exog[:, :columns.stop])
        if grown - rank < columns.stop - columns.start:
            raise InputError(f"the design is singular: term {_term_name(term)} is "
                             "confounded with the terms before it (factors that vary "
                             "together, or a combination of levels no run has)")
        rank = grown


def _with_effect_sizes(table: pd.DataFrame, fit) -> pd.DataFrame:
    """``anova_lm``'s table with η², ω², partial ω² and variance components."""
    n = float(fit.nobs)
    ss_total = float(fit.centered_tss)
    mse = float(fit.mse_resid)
    table = table.copy()
    effect = ~table.index.isin(["Residual", "Intercept"])
    ss, df = table["sum_sq"], table["df"]
    excess = ss - df * mse
    table["eta_sq"] = np.where(effect, ss / ss_total, np.nan)
    table["omega_sq"] = np.where(effect, excess / (ss_total + mse), np.nan)
    table["partial_omega_sq"] = np.where(effect, excess / (ss + (n - df) * mse), np.nan)
    table["variance_component"] = np.where(effect, excess / n, np.nan)
    table.loc["Residual", "variance_component"] = mse
    return table


def _term_name(name: str) -> str:
    """``C(stemmer, Sum):C(model, Sum)`` -> ``stemmer:model``; ``Residual`` as it is."""
    return re.sub(r"C\((\w+)(?:, Sum)?\)", r"\1", name)


@recorded
def standardise(scores, method: StandardiseMethod = "z",
                reference: str | Iterable[str] | None = None, *, ddof: int = 1,
                a: float = 0.15, b: float = 0.5) -> xr.Dataset:
    """Standardised scores: each score against the scores of a reference set of runs on
    the same topic (and metric).

    With ``mean_t`` and ``sd_t`` the mean and standard deviation of the reference runs'
    scores on topic ``t``, a score ``x`` becomes

    - ``method="z"``: ``z = (x - mean_t) / sd_t``;
    - ``method="cdf"``: ``Phi(z)``, with ``Phi`` the standard normal distribution
      function, a score in (0, 1) (Webber, Moffat & Zobel, SIGIR 2008);
    - ``method="std-ab"``: ``a z + b``, Sakai's std-AB (ICTIR 2016), with his defaults
      ``A = 0.15`` and ``B = 0.5`` (so that most scores fall within [0, 1]; those beyond
      are kept, not clipped).

    ``sd_t`` is the sample standard deviation (``ddof=1``: the sum of squares over
    ``n - 1``, as the MATTERS toolkit of Ferro & Silvello and the code of Urbano, Lima &
    Hanjalic, SIGIR 2019, compute it); ``ddof=0`` gives the population one. A run outside
    the reference set (a new system) is standardised against the reference runs' moments
    like the others: that is what makes scores of different collections comparable.

    A topic on which the reference runs' scores do not vary (``sd_t = 0``, e.g. every run
    scores 0) has no standardised score: its scores are NaN, with a warning naming the
    topics (the functions that take cubes then leave it out as any NaN topic). A missing
    (NaN) score stays NaN and is left out of the reference moments.

    Parameters
    ----------
    scores : xarray.Dataset or xarray.DataArray
        A score cube ``score(metric, run, topic)``.
    method : {"z", "cdf", "std-ab"}
        The standardisation.
    reference : str or iterable of str, optional
        The runs whose scores define each topic's mean and standard deviation (all runs
        by default).
    ddof : int, default 1
        Delta degrees of freedom of the standard deviation (1: sample, 0: population).
    a, b : float
        Sakai's ``A`` (positive) and ``B`` (only with ``method="std-ab"``).

    Returns
    -------
    xarray.Dataset
        The cube with ``score(metric, run, topic)`` standardised and its other variables
        and attributes kept, plus the standardisation set: the coordinate
        ``reference(run)`` (True for the reference runs), the variables
        ``reference_mean(metric, topic)`` and ``reference_sd(metric, topic)``, and the
        attributes ``standardisation`` (the method), ``standardisation_ddof`` and, for
        std-AB, ``standardisation_a`` and ``standardisation_b``.

    Raises
    ------
    InputError
        Not a score cube, one run, an unknown method or reference run, fewer reference
        runs than ``ddof + 1``, or ``a``, ``b`` or ``ddof`` out of range.

    Examples
    --------
    Three runs scoring 0.2, 0.4 and 0.6 on a topic: mean 0.4, sample standard deviation
    0.2, so z = -1, 0, 1 and std-AB = 0.15 z + 0.5:

    >>> import xarray as xr
    >>> from xdiv import stats
    >>> cube = xr.Dataset({"score": (("metric", "run", "topic"), [[[0.2], [0.4], [0.6]]])},
    ...                   coords={"metric": ["m"], "run": ["a", "b", "c"], "topic": ["1"]})
    >>> stats.standardise(cube, "std-ab").score.values.ravel().round(4).tolist()
    [0.35, 0.5, 0.65]
    """
    if method not in STANDARDISE_METHODS:
        raise InputError(f"method must be one of {', '.join(STANDARDISE_METHODS)}, not "
                         f"{shown(method)!r}")
    if isinstance(ddof, bool) or not isinstance(ddof, (int, np.integer)) or ddof < 0:
        raise InputError(f"ddof must be a whole number 0 or more, not {shown(ddof)}")
    for name, value in (("a", a), ("b", b)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
                or not np.isfinite(value):
            raise InputError(f"{name} must be a finite number, not {shown(value)}")
    if not a > 0:
        raise InputError(f"a must be positive (it scales the z-scores), not {shown(a)}")
    da = score_array(scores)
    runs = [str(r) for r in da["run"].values]
    if len(runs) < 2:
        raise InputError(f"standardisation needs at least two runs; the cube holds one "
                         f"({shown(runs[0])})")
    chosen = runs if reference is None else (
        [reference] if isinstance(reference, str) else [str(r) for r in reference])
    unknown = [r for r in chosen if r not in runs]
    if unknown:
        raise InputError(f"reference run {shown(unknown[0])!r} is not in the score cube")
    if len(set(chosen)) < ddof + 1 or len(set(chosen)) < 2:
        raise InputError(f"the reference set needs at least {max(ddof + 1, 2)} runs to "
                         f"have a standard deviation; it has {len(set(chosen))}")
    is_reference = xr.DataArray(np.isin(runs, chosen), dims="run",
                                coords={"run": da["run"]})
    mean, sd = xr.apply_ufunc(
        KS.reference_moments, da, is_reference, kwargs={"ddof": int(ddof)},
        input_core_dims=[["run"], ["run"]], output_core_dims=[[], []],
        dask="parallelized", output_dtypes=[np.float64, np.float64])
    standardised = xr.apply_ufunc(
        KS.standardise, da, mean, sd, kwargs={"method": method, "a": float(a), "b": float(b)},
        input_core_dims=[["run"], [], []], output_core_dims=[["run"]],
        dask="parallelized", output_dtypes=[np.float64])
    flat = ~(sd > 0)
    if bool(flat.any()):
        for metric in flat["metric"].values:
            topics = [str(t) for t in flat["topic"].values[flat.sel(metric=metric).values]]
            if topics:
                warn(f"standardise: {metric}: the reference runs' scores do not vary (or "
                     f"fewer than {int(ddof) + 1} are present) on {len(topics)} topic(s), "
                     f"whose standardised scores are NaN: {', '.join(topics)}", XdivWarning)
    base = scores if isinstance(scores, xr.Dataset) else da.to_dataset(name="score")
    attrs = {**base.attrs, "standardisation": method, "standardisation_ddof": int(ddof)}
    for stale in ("standardisation_a", "standardisation_b"):
        attrs.pop(stale, None)
    if method == "std-ab":
        attrs.update(standardisation_a=float(a), standardisation_b=float(b))
    layout = (scores["score"] if isinstance(scores, xr.Dataset) else scores).dims
    result = base.assign(score=standardised.transpose(*layout).assign_attrs(da.attrs),
                         reference_mean=mean, reference_sd=sd)
    result = result.assign_coords(reference=is_reference)
    result.attrs = attrs
    return result

def tukey(scores, metric: str, alpha: float = 0.05):
    """Parametric Tukey HSD over runs (statsmodels' ``pairwise_tukeyhsd``)."""
    from statsmodels.stats.multicomp import pairwise_tukeyhsd

    frame = tidy(scores, metric)
    return pairwise_tukeyhsd(frame["score"], frame["run"], alpha=alpha)


PAIR_BLOCK = 1 << 20
"""Topic × pair differences :func:`paired_t_tests` tests at once (bounds its memory)."""


def paired_t_tests(scores, metric: str, method: str = "holm",
                   alpha: float = 0.05) -> pd.DataFrame:
    """Paired t-tests of every run pair, p-values adjusted over the whole family
    (``statsmodels.stats.multitest.multipletests``: ``holm``, ``fdr_bh``, ...).

    The tests of all pairs run at once (blocks of pairs through the t kernel of
    :func:`xdiv.compare`, :func:`xdiv.kernels.compare.paired_t`), with the results of one
    ``scipy.stats.ttest_rel`` per pair (to 1e-12; NaN where a pair's differences are all
    0, as scipy), and the correction is applied once over the whole family.

    Returns one row per pair: ``run_a``, ``run_b``, ``diff`` (mean of a - b),
    ``statistic`` (Student's t), ``pvalue``, ``pvalue_adjusted``, ``reject``, ``method``.
    """
    from statsmodels.stats.multitest import multipletests

    table = tidy(scores, metric).pivot(index="topic", columns="run", values="score")
    values = table.to_numpy(dtype=float)  # (topic, run)
    i, j = np.triu_indices(values.shape[1], k=1)  # itertools.combinations' order
    statistic = np.empty(len(i))
    pvalue = np.empty(len(i))
    step = max(1, PAIR_BLOCK // max(values.shape[0], 1))
    columns = np.ascontiguousarray(values.T)  # (run, topic)
    n = values.shape[0]
    for lo in range(0, len(i), step):
        a, b = i[lo:lo + step], j[lo:lo + step]
        mean, sd, t = K.paired_t(columns[a] - columns[b])
        t = np.where((sd == 0) & (mean == 0), np.nan, t)  # scipy: 0 / 0
        statistic[lo:lo + step], pvalue[lo:lo + step] = t, t_pvalue(t, n)
    means = values.mean(axis=0)
    runs = table.columns.to_numpy()
    frame = pd.DataFrame({"run_a": runs[i], "run_b": runs[j], "diff": means[i] - means[j],
                          "statistic": statistic, "pvalue": pvalue})
    reject, adjusted = (K.holm(frame["pvalue"].to_numpy(), alpha) if method == "holm" else
                        multipletests(frame["pvalue"], alpha=alpha, method=method)[:2])
    return frame.assign(pvalue_adjusted=adjusted, reject=reject, method=method)


def effect_sizes(scores, metric: str) -> pd.DataFrame:
    """Standardised mean differences of every run pair, ``(mean_a - mean_b) / sqrt(MSE)``
    with the residual mean square of the two-way ANOVA (Sakai's ES_E2)."""
    fit, _ = anova(scores, metric)
    means = tidy(scores, metric).groupby("run")["score"].mean()
    rows = [(a, b, (means[a] - means[b]) / np.sqrt(fit.mse_resid))
            for a, b in itertools.combinations(means.index, 2)]
    return pd.DataFrame(rows, columns=["run_a", "run_b", "effect_size"])
