"""Test-collection design and reliability from a score cube: how many topics a
comparison needs, how often two runs would swap on another topic set, and how reliable
the collection is for a measure.

- **Topic set size design** (Sakai, "Topic set size design", Information Retrieval
  Journal 2016; Sakai, "Statistical reform in information retrieval?", SIGIR Forum
  2014): the within-system variance ``V_E`` of a measure is the residual mean square of
  the two-way ANOVA without replication of its run × topic matrix
  (:func:`residual_variance`, pooled over several cubes when given). From it,
  :func:`topic_set_size` finds the smallest number of topics whose paired t test (or
  one-way ANOVA of ``m`` systems) detects a true difference ``min_diff`` with power
  ``1 - beta`` at level ``alpha``, or whose confidence interval is expected to be at
  most ``min_diff`` wide; :func:`power` and :func:`detectable_difference` are the same
  relation read the other ways, and :func:`pair_power` shows which run pairs of a cube
  were compared with little power.
- **Swap rates** (Voorhees & Buckley, "The effect of topic set size on retrieval
  experiment error", SIGIR 2002; Sanderson & Zobel, "Information retrieval system
  evaluation: effort, sensitivity, and reliability", SIGIR 2005): :func:`swap_rates`
  draws pairs of disjoint topic subsets (or subsets drawn with replacement) and counts
  how often a run pair's difference changes sign between them, by the size of the
  difference, extrapolated to the full topic set.
- **Generalizability theory** (Bodoff & Li, "Test theory for assessing IR test
  collections", SIGIR 2007; Urbano, Marrero & Martín, "On the measurement of test
  collection reliability", SIGIR 2013): :func:`g_study` estimates the system, topic and
  residual variance components and the coefficients ``E rho^2`` (relative decisions)
  and ``Phi`` (absolute decisions); :func:`g_coefficients` and :func:`d_study` project
  them onto other numbers of topics.

Every function is a labelled reduction over the ``score(metric, run, topic)`` cube of
:func:`xdiv.evaluate` (the Dataset or its ``score`` DataArray). Topics on which some run
has no score for a metric are left out of that metric (``n_topics`` says how many were
used). Results are labelled and round-trip through NetCDF with their parameters (and
seeds) as attributes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xarray as xr

from ..errors import InputError
from .._warnings import warn
from ..core.cube import score_array
from ..kernels import design as K
from ..io.provenance import recorded
from ..core.labels import object_strings
from .meta import check_resampling
from ..typing import PAIR_VARIANCES

__all__ = ["TESTS", "residual_variance", "power", "topic_set_size", "detectable_difference",
           "pair_power", "swap_rates", "g_study", "g_coefficients", "d_study"]

TESTS = K.TESTS
"""The designs of :func:`topic_set_size`: ``"paired-t"``, ``"anova"`` and ``"ci"``."""


def _cube(scores, metrics: Sequence[str] | None = None) -> xr.DataArray:
    """The score cube, every metric with at least two runs and two complete topics."""
    da = score_array(scores, metrics)
    if da.sizes["run"] < 2:
        raise InputError("test-collection design needs a score cube of at least two runs")
    complete = (~da.isnull().any("run")).sum("topic").values
    for metric, n in zip(da["metric"].values, complete):
        if n < 2:
            raise InputError(f"{metric}: fewer than two topics have scores for every run")
    return da


def _level(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or \
            not 0 < value < 1:
        raise InputError(f"{name} must lie strictly between 0 and 1, not {value!r}")
    return float(value)


def _axis(name: str, values, *, whole: bool = False, minimum: float = 0.0) -> xr.DataArray:
    """A scalar (with a scalar coordinate ``name``), or a sequence as a dimension ``name``
    labelled by its values; numbers above ``minimum`` (whole numbers from ``minimum``
    when ``whole``)."""
    array = np.asarray(values)
    if array.ndim > 1 or array.size == 0:
        raise InputError(f"{name} must be a number or a sequence of numbers, not {values!r}")
    if array.dtype.kind not in "iuf" or not np.isfinite(array).all() or \
            (array <= minimum if not whole else array < minimum).any() or \
            (whole and (array != np.round(array)).any()):
        what = f"whole numbers >= {minimum:g}" if whole else f"finite numbers > {minimum:g}"
        raise InputError(f"{name} must be {what}, not {values!r}")
    array = array.astype(np.int64 if whole else np.float64)
    if array.ndim == 0:
        return xr.DataArray(array, coords={name: array})
    if len(set(array.tolist())) != len(array):
        raise InputError(f"{name} names a value twice: {values!r}")
    return xr.DataArray(array, dims=(name,), coords={name: array})


def _test(test: str, n_systems: int | None, variance: xr.DataArray) -> int | None:
    if test not in TESTS:
        raise InputError(f"test must be one of {', '.join(TESTS)}, not {test!r}")
    if test != "anova":
        return None
    n_systems = variance.attrs.get("n_runs") if n_systems is None else n_systems
    if isinstance(n_systems, bool) or not isinstance(n_systems, (int, np.integer)) or \
            n_systems < 2:
        raise InputError(f"the ANOVA design needs a number of systems n_systems >= 2, not "
                         f"{n_systems!r}")
    return int(n_systems)


def residual_variance(scores, *more, metrics: Sequence[str] | None = None) -> xr.DataArray:
    """The within-system variance ``V_E`` of every metric: the residual mean square of the
    two-way ANOVA without replication of its run × topic matrix (Sakai, IRJ 2016),

    .. math:: V_E = \\frac{\\sum_{ij} (x_{ij} - \\bar x_{i\\cdot} - \\bar x_{\\cdot j}
              + \\bar x)^2}{(n_s - 1)(n_t - 1)}

    pooled over several cubes (e.g. test collections) as ``sum SS_E / sum df_E``.

    Parameters
    ----------
    scores, *more : xarray.Dataset or xarray.DataArray
        Score cubes ``score(metric, run, topic)``; all hold ``metrics``.
    metrics : sequence of str, optional
        The metrics (default: those of the first cube).

    Returns
    -------
    xarray.DataArray
        ``variance(metric)``, with ``df(metric)`` (the pooled residual degrees of
        freedom) as a coordinate and, when every cube has the same number of runs, that
        number as attribute ``n_runs`` (the default number of systems of the ANOVA
        design).
    """
    cubes = [_cube(scores, metrics)]
    names = [str(m) for m in cubes[0]["metric"].values]
    cubes += [_cube(more_scores, names) for more_scores in more]
    parts = [xr.apply_ufunc(K.residual_variance, cube, input_core_dims=[["run", "topic"]],
                            output_core_dims=[[], [], []], dask="parallelized",
                            output_dtypes=[float, float, np.int64])[1:]
             for cube in cubes]
    ss = xr.concat([p[0].assign_coords(metric=names) for p in parts], dim="cube")
    df = xr.concat([p[1].assign_coords(metric=names) for p in parts], dim="cube")
    variance, total_df = xr.apply_ufunc(
        K.pooled_variance, ss, df, input_core_dims=[["cube"], ["cube"]],
        output_core_dims=[[], []], dask="parallelized", output_dtypes=[float, np.int64])
    runs = {cube.sizes["run"] for cube in cubes}
    attrs = {"estimate": "residual mean square of the two-way ANOVA without replication",
             "n_cubes": len(cubes)}
    if len(runs) == 1:
        attrs["n_runs"] = runs.pop()
    return variance.assign_coords(df=total_df).rename("variance").assign_attrs(attrs)


def _variance(scores) -> xr.DataArray:
    """``V_E(metric)``: given (from :func:`residual_variance`), or of one cube or of a list
    of cubes pooled."""
    if isinstance(scores, xr.DataArray) and scores.dims == ("metric",):
        if (scores < 0).any() or scores.isnull().any():
            raise InputError("a variance must be a number >= 0 for every metric")
        return scores
    if isinstance(scores, (list, tuple)):
        return residual_variance(*scores)
    return residual_variance(scores)


def _design_attrs(test: str, alpha: float, beta: float | None, n_systems: int | None,
                  variance: xr.DataArray) -> dict:
    attrs = {"test": test, "alpha": alpha}
    if beta is not None and test != "ci":
        attrs["beta"] = beta
    if n_systems is not None:
        attrs["n_systems"] = n_systems
    attrs["variance"] = "V_E, " + variance.attrs.get("estimate", "given")
    return attrs


def power(scores, n_topics, min_diff, alpha: float = 0.05, test: str = "paired-t",
          n_systems: int | None = None) -> xr.DataArray:
    """The power to detect a true difference ``min_diff`` with ``n_topics`` topics:
    :func:`xdiv.kernels.design.t_power` (two-sided paired t test, differences of variance
    ``2 V_E``; ``test="paired-t"``) or :func:`xdiv.kernels.design.anova_power` (one-way
    ANOVA of ``n_systems`` systems whose best and worst differ by ``min_diff``;
    ``test="anova"``), with the non-central t and F distributions (Sakai, IRJ 2016).

    Parameters
    ----------
    scores : score cube, list of cubes or ``variance(metric)``
        Where ``V_E`` comes from (see :func:`residual_variance`).
    n_topics : int or sequence of int
        Numbers of topics (a sequence adds the dimension ``n_topics``).
    min_diff : float or sequence of float
        True differences (a sequence adds the dimension ``min_diff``).
    alpha : float
        Significance level.
    test : {"paired-t", "anova"}
    n_systems : int, optional
        Systems of the ANOVA design (default: the cube's runs).

    Returns
    -------
    xarray.DataArray
        ``power(metric[, min_diff][, n_topics])``.
    """
    variance = _variance(scores)
    if test == "ci":
        raise InputError("the CI design has no power; see detectable_difference(test='ci') "
                         "for the expected width of the interval")
    n_systems = _test(test, n_systems, variance)
    alpha = _level("alpha", alpha)
    n = _axis("n_topics", n_topics, whole=True, minimum=2)
    diff = _axis("min_diff", min_diff)
    out = xr.apply_ufunc(K.power, variance, diff, n, dask="parallelized",
                         kwargs={"test": test, "alpha": alpha, "n_systems": n_systems},
                         output_dtypes=[float])
    return out.rename("power").assign_attrs(_design_attrs(test, alpha, None, n_systems,
                                                          variance))


@recorded
def topic_set_size(scores, min_diff, alpha: float = 0.05, beta: float = 0.2,
                   test: str = "paired-t", n_systems: int | None = None) -> xr.DataArray:
    """The smallest number of topics that meets a statistical requirement, per metric
    (Sakai, IRJ 2016):

    - ``test="paired-t"``: the two-sided paired t test at level ``alpha`` detects a true
      difference ``min_diff`` with power at least ``1 - beta``, the per-topic
      differences having variance ``2 V_E`` (power from the non-central t,
      :func:`xdiv.kernels.design.t_power`);
    - ``test="anova"``: one-way ANOVA of ``n_systems`` systems detects a range
      ``min_diff`` between the best and the worst with power ``1 - beta`` (non-central F
      with ``lambda = n min_diff^2 / (2 V_E)``);
    - ``test="ci"``: the ``1 - alpha`` confidence interval of a paired difference is
      expected to be at most ``min_diff`` wide (``beta`` unused).

    Parameters
    ----------
    scores : score cube, list of cubes or ``variance(metric)``
        Where ``V_E`` comes from (see :func:`residual_variance`).
    min_diff : float or sequence of float
        The difference (or range, or interval width); a sequence adds the dimension
        ``min_diff``.
    alpha, beta : float
        Type I and type II error rates.
    test : {"paired-t", "anova", "ci"}
    n_systems : int, optional
        Systems of the ANOVA design (default: the cube's runs).

    Returns
    -------
    xarray.DataArray
        ``topic_set_size(metric[, min_diff])`` of int, with the variance ``V_E`` as
        coordinate ``variance``. Attributes: test, alpha, beta, n_systems.

    Examples
    --------
    >>> import xdiv
    >>> collection, runs = xdiv.datasets.synthetic(n_topics=20, n_runs=3, depth=20, seed=0)
    >>> scores = xdiv.evaluate(runs, collection, ["alpha-nDCG@10", "nDCG@10"])
    >>> size = xdiv.design.topic_set_size(scores, min_diff=[0.05, 0.1])
    >>> size.to_pandas()
    min_diff       0.05  0.10
    metric
    alpha-nDCG@10    82    22
    nDCG@10          76    21
    >>> size["variance"].round(4).to_series().to_dict()
    {'alpha-nDCG@10': 0.0126, 'nDCG@10': 0.0117}
    """
    variance = _variance(scores)
    n_systems = _test(test, n_systems, variance)
    alpha, beta = _level("alpha", alpha), _level("beta", beta)
    diff = _axis("min_diff", min_diff)
    out = xr.apply_ufunc(K.topic_set_size, variance, diff, dask="parallelized",
                         kwargs={"test": test, "alpha": alpha, "beta": beta,
                                 "n_systems": n_systems}, output_dtypes=[np.int64])
    if (out < 0).any():
        raise InputError(f"no topic set of up to {K.LARGEST_TOPIC_SET} topics meets the "
                         "requirement; ask for a larger difference")
    return (out.rename("topic_set_size").assign_coords(variance=variance)
            .assign_attrs(_design_attrs(test, alpha, beta, n_systems, variance)))


@recorded
def detectable_difference(scores, n_topics, alpha: float = 0.05, beta: float = 0.2,
                          test: str = "paired-t",
                          n_systems: int | None = None) -> xr.DataArray:
    """The inverse of :func:`topic_set_size`: the smallest true difference
    (``"paired-t"``) or range (``"anova"``) that ``n_topics`` topics detect with power
    ``1 - beta`` at level ``alpha``, or for ``"ci"`` the expected width of the ``1 -
    alpha`` confidence interval (:func:`xdiv.kernels.design.detectable_difference`).

    Returns
    -------
    xarray.DataArray
        ``detectable_difference(metric[, n_topics])``, with ``variance`` as coordinate.
    """
    variance = _variance(scores)
    n_systems = _test(test, n_systems, variance)
    alpha, beta = _level("alpha", alpha), _level("beta", beta)
    n = _axis("n_topics", n_topics, whole=True, minimum=2)
    out = xr.apply_ufunc(K.detectable_difference, variance, n, dask="parallelized",
                         kwargs={"test": test, "alpha": alpha, "beta": beta,
                                 "n_systems": n_systems}, output_dtypes=[float])
    return (out.rename("detectable_difference").assign_coords(variance=variance)
            .assign_attrs(_design_attrs(test, alpha, beta, n_systems, variance)))


VARIANCES = PAIR_VARIANCES
"""The variances of the differences :func:`pair_power` can assume."""


@recorded
def pair_power(scores, alpha: float = 0.05, variance: str = "pooled") -> xr.Dataset:
    """The power the two-sided paired t test on the cube's topics had for a true
    difference as large as each run pair's observed mean difference: which comparisons
    of the cube were underpowered (Sakai, IRJ 2016, for the power; the pair's observed
    difference as the effect size).

    Parameters
    ----------
    scores : xarray.Dataset or xarray.DataArray
        The ``score(metric, run, topic)`` cube.
    alpha : float
        Significance level.
    variance : {"pooled", "pair"}
        The variance of the per-topic differences: ``2 V_E`` of the metric, as the
        topic set size design assumes, or the pair's own sample variance.

    Returns
    -------
    xarray.Dataset
        ``diff`` (mean of run_a - run_b) and ``power`` over (metric, run_a, run_b), NaN
        on the diagonal; ``n_topics(metric)``. Attributes: test, alpha, variance.
    """
    if variance not in VARIANCES:
        raise InputError(f"variance must be one of {', '.join(VARIANCES)}, not {variance!r}")
    alpha = _level("alpha", alpha)
    da = _cube(scores)
    runs = object_strings(da["run"].values)
    diff, pw, n = xr.apply_ufunc(
        K.pair_power, da, input_core_dims=[["run", "topic"]],
        output_core_dims=[["run_a", "run_b"], ["run_a", "run_b"], []],
        kwargs={"alpha": alpha, "pooled": variance == "pooled"}, dask="parallelized",
        output_dtypes=[float, float, np.int64],
        dask_gufunc_kwargs={"output_sizes": {"run_a": len(runs), "run_b": len(runs)}})
    return xr.Dataset({"diff": diff, "power": pw, "n_topics": n},
                      coords={"run_a": runs, "run_b": runs},
                      attrs={"test": "paired-t", "alpha": alpha, "variance": variance})


def _default_sizes(n_topics: int, replace: bool) -> list[int]:
    largest = n_topics if replace else n_topics // 2
    step = max(1, largest // 5)
    return sorted({*range(step, largest + 1, step), largest})


@recorded
def swap_rates(scores, sizes: Sequence[int] | None = None, B: int = 1000,
               seed: int = 0, bin_width: float = 0.01, max_diff: float = 0.2,
               replace: bool = False, max_rate: float = 0.05, *,
               replicates: int | None = None) -> xr.Dataset:
    """Swap rates of run pairs between topic subsets, by the size of the difference
    (Voorhees & Buckley, SIGIR 2002; Sanderson & Zobel, SIGIR 2005).

    For each subset size ``n`` and each of ``B`` draws, two subsets of ``n``
    topics are drawn: disjoint (the first ``2n`` topics of a random permutation), or
    with ``replace`` independently with replacement. A run pair whose mean difference
    on the first subset is ``d_A`` and on the second ``d_B`` is counted in the bin of
    ``|d_A|`` and swaps when ``d_A d_B < 0`` (:func:`xdiv.kernels.design.swap_counts`).
    Per bin, the swap rates at the sizes drawn are extrapolated to the full topic set
    by a line through ``log(rate)`` against ``n``, as Voorhees & Buckley did
    (:func:`xdiv.kernels.design.extrapolate_swap_rate`), and ``stable_difference`` is
    the smallest difference from which every extrapolated rate is at most
    ``max_rate``. (``replicates=`` is the former name of ``B``, deprecated.)

    Parameters
    ----------
    scores : xarray.Dataset or xarray.DataArray
        The ``score(metric, run, topic)`` cube.
    sizes : sequence of int, optional
        Subset sizes (default: about five sizes up to half the topics, or up to all of
        them with ``replace``).
    B : int
        Pairs of subsets per size (the number of resamples, named ``B`` as in every
        resampling of xdiv).
    seed : int
        Seed of the draws (metrics scored on the same topics share them).
    bin_width, max_diff : float
        Bins ``[0, w), [w, 2w), ...`` up to ``max_diff``, then one open bin above it.
    replace : bool
        Draw subsets with replacement instead of disjoint halves.
    max_rate : float
        The swap rate ``stable_difference`` keeps below.

    Returns
    -------
    xarray.Dataset
        ``comparisons``, ``swaps``, ``swap_rate`` over (metric, subset_size, diff_bin)
        (``diff_bin`` labelled by the bins' lower edges, ``diff_upper`` their upper
        ones); ``swap_rate_extrapolated(metric, diff_bin)`` at ``n_topics(metric)``
        topics; ``stable_difference(metric)``. Attributes: B, seed, sampling,
        bin_width, max_rate.
    """
    if replicates is not None:
        warn("swap_rates(replicates=...) is now swap_rates(B=...)", DeprecationWarning)
        B = replicates
    check_resampling(B, seed)
    max_rate = _level("max_rate", max_rate)
    da = _cube(scores)
    width = float(_axis("bin_width", bin_width))
    top = float(_axis("max_diff", max_diff))
    edges = np.round(np.arange(0.0, top + width / 2, width), 12)
    complete = int((~da.isnull().any("run")).sum("topic").min())
    sizes = _default_sizes(complete, replace) if sizes is None else \
        _axis("subset_size", sizes, whole=True, minimum=1).values.tolist()
    comparisons, swaps, rate, n_topics = xr.apply_ufunc(
        K.swap_counts, da, input_core_dims=[["run", "topic"]],
        output_core_dims=[["subset_size", "diff_bin"]] * 3 + [[]],
        kwargs={"sizes": sizes, "replicates": B, "seed": seed, "edges": edges,
                "replace": bool(replace)}, dask="parallelized",
        output_dtypes=[np.int64, np.int64, float, np.int64],
        dask_gufunc_kwargs={"output_sizes": {"subset_size": len(sizes),
                                             "diff_bin": len(edges)}})
    coords = {"subset_size": np.asarray(sizes, dtype=np.int64), "diff_bin": edges,
              "diff_upper": ("diff_bin", np.append(edges[1:], np.inf))}
    rate = rate.assign_coords(coords)
    extrapolated = xr.apply_ufunc(
        K.extrapolate_swap_rate, rate["subset_size"], rate, n_topics,
        input_core_dims=[["subset_size"], ["subset_size"], []], dask="parallelized",
        output_dtypes=[float])
    stable = xr.apply_ufunc(K.stable_difference, rate["diff_bin"], extrapolated,
                            kwargs={"max_rate": max_rate},
                            input_core_dims=[["diff_bin"], ["diff_bin"]],
                            dask="parallelized", output_dtypes=[float])
    return xr.Dataset(
        {"comparisons": comparisons, "swaps": swaps, "swap_rate": rate,
         "swap_rate_extrapolated": extrapolated, "stable_difference": stable,
         "n_topics": n_topics}, coords=coords,
        attrs={"method": "swap rate", "B": B, "seed": seed,
               "sampling": "with replacement" if replace else "disjoint",
               "bin_width": width, "max_rate": max_rate})


@recorded
def g_study(scores) -> xr.Dataset:
    """A G-study of the system × topic design of every metric (Bodoff & Li, SIGIR 2007;
    Urbano, Marrero & Martín, SIGIR 2013): the variance components from the two-way
    mean squares (negative estimates set to 0,
    :func:`xdiv.kernels.design.variance_components`) and, for the cube's number of
    topics ``n_t``,

    .. math::
        E\\rho^2 = \\frac{\\sigma^2_s}{\\sigma^2_s + \\sigma^2_e / n_t}, \\qquad
        \\Phi = \\frac{\\sigma^2_s}{\\sigma^2_s + (\\sigma^2_t + \\sigma^2_e) / n_t}

    Returns
    -------
    xarray.Dataset
        Over ``metric``: ``var_system``, ``var_topic``, ``var_residual``, ``erho2``,
        ``phi`` and ``n_topics``. Attribute ``n_runs``.
    """
    da = _cube(scores)
    var_s, var_t, var_e, n = xr.apply_ufunc(
        K.variance_components, da, input_core_dims=[["run", "topic"]],
        output_core_dims=[[], [], [], []], dask="parallelized",
        output_dtypes=[float, float, float, np.int64])
    erho2, phi = xr.apply_ufunc(K.g_coefficients, var_s, var_t, var_e, n,
                                output_core_dims=[[], []], dask="parallelized",
                                output_dtypes=[float, float])
    return xr.Dataset({"var_system": var_s, "var_topic": var_t, "var_residual": var_e,
                       "erho2": erho2, "phi": phi, "n_topics": n},
                      attrs={"method": "G-study, system x topic design",
                             "n_runs": da.sizes["run"]})


def _components(scores) -> xr.Dataset:
    if isinstance(scores, xr.Dataset) and "var_system" in scores:
        return scores
    return g_study(scores)


@recorded
def g_coefficients(scores, n_topics) -> xr.Dataset:
    """A D-study: ``erho2`` and ``phi`` (see :func:`g_study`) for other numbers of topics.

    Parameters
    ----------
    scores : score cube or the result of :func:`g_study`
    n_topics : int or sequence of int
        Numbers of topics (a sequence adds the dimension ``n_topics``).

    Returns
    -------
    xarray.Dataset
        ``erho2`` and ``phi`` over (metric[, n_topics]).
    """
    g = _components(scores)
    n = _axis("n_topics", n_topics, whole=True, minimum=1)
    erho2, phi = xr.apply_ufunc(K.g_coefficients, g["var_system"], g["var_topic"],
                                g["var_residual"], n, output_core_dims=[[], []],
                                dask="parallelized", output_dtypes=[float, float])
    return xr.Dataset({"erho2": erho2, "phi": phi}, attrs={"method": "D-study"})


@recorded
def d_study(scores, target=0.95) -> xr.Dataset:
    """A D-study: the smallest numbers of topics whose ``erho2`` and ``phi`` reach
    ``target`` (:func:`xdiv.kernels.design.d_study_topics`).

    Parameters
    ----------
    scores : score cube or the result of :func:`g_study`
    target : float or sequence of float
        Coefficients strictly between 0 and 1 (a sequence adds the dimension ``target``).

    Returns
    -------
    xarray.Dataset
        ``n_topics_erho2`` and ``n_topics_phi`` over (metric[, target]): whole numbers,
        NaN where ``var_system`` is 0 (no number of topics reaches the target).
    """
    g = _components(scores)
    goal = _axis("target", target)
    if (goal >= 1).any():
        raise InputError(f"target must lie strictly between 0 and 1, not {target!r}")
    n_erho2, n_phi = xr.apply_ufunc(K.d_study_topics, g["var_system"], g["var_topic"],
                                    g["var_residual"], goal, output_core_dims=[[], []],
                                    dask="parallelized", output_dtypes=[float, float])
    return xr.Dataset({"n_topics_erho2": n_erho2, "n_topics_phi": n_phi},
                      attrs={"method": "D-study"})
