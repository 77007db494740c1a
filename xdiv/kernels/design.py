"""Numpy kernels of test-collection design and reliability: the two-way ANOVA without
replication of a run × topic score matrix, the power of the paired t test and of one-way
ANOVA and the expected width of a confidence interval as functions of the number of
topics (topic set size design; Sakai, "Topic set size design", Information Retrieval
Journal 2016), swap rates between disjoint topic subsets (Voorhees & Buckley, SIGIR 2002;
Sanderson & Zobel, SIGIR 2005) and the variance components and coefficients of
generalizability theory (Bodoff & Li, SIGIR 2007; Urbano, Marrero & Martín, SIGIR 2013).

Scores come as ``(..., run, topic)``. Topics on which some run has no score (NaN) are left
out of their slice's computations; every function returns the number of topics it used.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import fdtri, gammaln, ncfdtr, nctdtr, stdtrit

from ..errors import InputError
from ..typing import DESIGN_TESTS

TESTS = DESIGN_TESTS
"""The designs of :func:`topic_set_size`: the paired t test, one-way ANOVA of ``m``
systems and the expected width of a confidence interval."""

CHUNK = 250
"""Replicates whose swaps :func:`swap_counts` counts at once (bounds its memory; the
draws and so the results do not depend on it)."""

LARGEST_TOPIC_SET = 10 ** 9
"""The largest number of topics :func:`topic_set_size` searches up to."""


def _complete(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(x, keep, n_t)``: the scores as float with NaN topics zeroed, the ``(..., topic)``
    mask of topics every run scored, and their number ``(...)``."""
    x = np.asarray(scores, dtype=np.float64)
    keep = ~np.isnan(x).any(axis=-2)
    return np.where(keep[..., None, :], x, 0.0), keep, keep.sum(axis=-1)


def two_way_anova(scores: np.ndarray) -> tuple[np.ndarray, ...]:
    """Mean squares of the two-way ANOVA without replication of ``(..., run, topic)``
    scores ``x_ij`` (``n_s`` runs, ``n_t`` topics every run scored), as Sakai (IRJ 2016)
    uses it for topic set size design; the residual holds the system × topic interaction
    and the error:

    .. math::
        MS_s = \\frac{n_t \\sum_i (\\bar x_{i\\cdot} - \\bar x)^2}{n_s - 1}, \\quad
        MS_t = \\frac{n_s \\sum_j (\\bar x_{\\cdot j} - \\bar x)^2}{n_t - 1}, \\quad
        MS_e = \\frac{\\sum_{ij} (x_{ij} - \\bar x_{i\\cdot} - \\bar x_{\\cdot j}
               + \\bar x)^2}{(n_s - 1)(n_t - 1)}

    Returns
    -------
    ms_system, ms_topic, ms_residual : numpy.ndarray of float
        Over the leading axes; NaN with fewer than 2 runs or 2 topics.
    ss_residual : numpy.ndarray of float
        The residual sum of squares (the numerator of ``MS_e``), for pooling.
    n_topics : numpy.ndarray of int
        ``n_t``.
    """
    x, keep, n_t = _complete(scores)
    n_s = x.shape[-2]
    with np.errstate(invalid="ignore", divide="ignore"):
        run_mean = x.sum(axis=-1) / n_t[..., None]
        topic_mean = x.sum(axis=-2) / n_s
        grand = run_mean.mean(axis=-1)
        ss_s = n_t * ((run_mean - grand[..., None]) ** 2).sum(axis=-1)
        ss_t = n_s * np.where(keep, (topic_mean - grand[..., None]) ** 2, 0.0).sum(axis=-1)
        residual = x - run_mean[..., None] - topic_mean[..., None, :] + grand[..., None, None]
        ss_e = np.where(keep[..., None, :], residual ** 2, 0.0).sum(axis=(-2, -1))
        defined = (n_t > 1) & (n_s > 1)
        ms_s = np.where(defined, ss_s / (n_s - 1), np.nan)
        ms_t = np.where(defined, ss_t / (n_t - 1), np.nan)
        ms_e = np.where(defined, ss_e / ((n_s - 1) * (n_t - 1)), np.nan)
    return ms_s, ms_t, ms_e, np.where(defined, ss_e, np.nan), n_t


def residual_variance(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The residual variance ``V_E = MS_e`` of :func:`two_way_anova`, Sakai's estimate of
    the within-system variance of a measure (IRJ 2016), with its sum of squares and
    degrees of freedom ``(n_s - 1)(n_t - 1)`` for :func:`pooled_variance`."""
    _, _, ms_e, ss_e, n_t = two_way_anova(scores)
    return ms_e, ss_e, (np.shape(scores)[-2] - 1) * (n_t - 1)


def pooled_variance(ss_residual: np.ndarray, df_residual: np.ndarray,
                    axis: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """``V_E`` pooled over score matrices (e.g. several test collections) along ``axis``:
    ``sum SS_e / sum df_e`` (Sakai, IRJ 2016), and the pooled degrees of freedom
    ``sum df_e``."""
    df = np.sum(df_residual, axis=axis)
    return np.sum(ss_residual, axis=axis) / df, df


def variance_components(scores: np.ndarray) -> tuple[np.ndarray, ...]:
    """Variance components of the crossed system × topic design (Bodoff & Li, SIGIR
    2007; Urbano, Marrero & Martín, SIGIR 2013), from :func:`two_way_anova`'s mean
    squares, negative estimates set to 0:

    .. math::
        \\sigma^2_e = MS_e, \\quad
        \\sigma^2_s = \\max\\Big(0, \\frac{MS_s - MS_e}{n_t}\\Big), \\quad
        \\sigma^2_t = \\max\\Big(0, \\frac{MS_t - MS_e}{n_s}\\Big)

    Returns
    -------
    var_system, var_topic, var_residual : numpy.ndarray of float
    n_topics : numpy.ndarray of int
    """
    ms_s, ms_t, ms_e, _, n_t = two_way_anova(scores)
    n_s = np.shape(scores)[-2]
    with np.errstate(invalid="ignore", divide="ignore"):
        var_s = np.maximum(0.0, (ms_s - ms_e) / n_t)
        var_t = np.maximum(0.0, (ms_t - ms_e) / n_s)
    return var_s, var_t, ms_e, n_t


def g_coefficients(var_system: ArrayLike, var_topic: ArrayLike, var_residual: ArrayLike,
                   n_topics: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """The generalizability coefficient and the dependability index of a topic set of
    ``n_topics`` (Bodoff & Li, SIGIR 2007; Urbano, Marrero & Martín, SIGIR 2013):

    .. math::
        E\\rho^2 = \\frac{\\sigma^2_s}{\\sigma^2_s + \\sigma^2_e / n_t}, \\qquad
        \\Phi = \\frac{\\sigma^2_s}{\\sigma^2_s + (\\sigma^2_t + \\sigma^2_e) / n_t}

    ``E rho^2`` is the reliability of relative decisions (the ranking of systems),
    ``Phi`` that of absolute ones (the scores themselves). Both are NaN when every
    component is 0 (0/0) and 0 when only ``var_system`` is.
    """
    n = np.asarray(n_topics, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        erho2 = var_system / (var_system + var_residual / n)
        phi = var_system / (var_system + (var_topic + var_residual) / n)
    return erho2, phi


def d_study_topics(var_system: ArrayLike, var_topic: ArrayLike, var_residual: ArrayLike,
                   target: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """The smallest numbers of topics whose :func:`g_coefficients` reach ``target``:

    .. math::
        n_{E\\rho^2} = \\Big\\lceil \\frac{T}{1 - T}\\,
        \\frac{\\sigma^2_e}{\\sigma^2_s} \\Big\\rceil, \\qquad
        n_\\Phi = \\Big\\lceil \\frac{T}{1 - T}\\,
        \\frac{\\sigma^2_t + \\sigma^2_e}{\\sigma^2_s} \\Big\\rceil

    at least 1; NaN where ``var_system`` is 0 (no number of topics reaches ``target``).
    Returned as floats holding whole numbers.
    """
    odds = np.asarray(target, dtype=np.float64) / (1.0 - np.asarray(target, dtype=np.float64))

    def needed(noise):
        with np.errstate(invalid="ignore", divide="ignore"):
            exact = odds * noise / var_system
        # ceil, forgiving the last bits of rounding in a quotient that is a whole number
        n = np.maximum(1.0, np.ceil(exact * (1.0 - 1e-12)))
        return np.where(var_system > 0, n, np.nan)

    return needed(var_residual), needed(var_topic + var_residual)


def _tail(probability: np.ndarray, *parameters: np.ndarray) -> np.ndarray:
    """A tail probability of the non-central t or F distribution from scipy.special,
    whose NaN for finite parameters (the functions underflow far in the tails, where the
    probability is below about 1e-30) is 0."""
    finite = np.all(np.broadcast_arrays(*[np.isfinite(p) for p in parameters]), axis=0)
    return np.where(np.isnan(probability) & finite, 0.0, probability)


def t_power(n: ArrayLike, diff: ArrayLike, variance: ArrayLike, alpha: float) -> np.ndarray:
    """Power of the two-sided paired t test at level ``alpha`` on ``n`` topics for a true
    mean difference ``diff``, the per-topic differences having variance
    ``sigma_d^2 = 2 variance`` (``variance`` the within-system variance ``V_E``; Sakai,
    IRJ 2016):

    .. math::
        1 - \\beta = 1 - F_{t'}(t_{\\alpha/2}; n - 1, \\lambda)
                     + F_{t'}(-t_{\\alpha/2}; n - 1, \\lambda), \\qquad
        \\lambda = \\frac{\\sqrt n\\, \\mathrm{diff}}{\\sigma_d}

    with ``F_t'`` the distribution function of the non-central t and ``t_{alpha/2}`` the
    upper ``alpha/2`` quantile of Student's t with ``n - 1`` degrees of freedom. With
    ``variance`` 0 the power is 1 for a non-zero ``diff`` (and ``alpha`` for 0).
    """
    n = np.asarray(n, dtype=np.float64)
    df = n - 1
    crit = stdtrit(df, 1.0 - alpha / 2)
    sd = np.sqrt(2.0 * np.asarray(variance, dtype=np.float64))
    diff = np.abs(np.asarray(diff, dtype=np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        nc = np.where(sd > 0, np.sqrt(n) * diff / np.where(sd > 0, sd, 1.0), 0.0)
        power = (1.0 - _tail(nctdtr(df, nc, crit), df, nc, crit)
                 + _tail(nctdtr(df, nc, -crit), df, nc, crit))
    return np.where((sd == 0) & (diff > 0), 1.0, power)


def anova_power(n: ArrayLike, diff: ArrayLike, variance: ArrayLike, n_systems: int,
                alpha: float) -> np.ndarray:
    """Power of one-way ANOVA of ``n_systems`` systems on ``n`` topics each at level
    ``alpha`` when the largest and smallest true means differ by ``diff`` and the others
    lie midway (the least favourable configuration; Nagata 2003, as used by Sakai, IRJ
    2016):

    .. math::
        1 - \\beta = P\\big(F'(\\phi_A, \\phi_E; \\lambda) \\ge F_\\alpha(\\phi_A, \\phi_E)
        \\big), \\qquad \\phi_A = m - 1, \\ \\phi_E = m(n - 1), \\
        \\lambda = \\frac{n\\, \\mathrm{diff}^2}{2\\, V_E}

    with ``F'`` the non-central F distribution and ``F_alpha`` the upper ``alpha``
    quantile of the central one. With ``variance`` 0 the power is 1 for a non-zero
    ``diff``.
    """
    n = np.asarray(n, dtype=np.float64)
    df_a, df_e = n_systems - 1.0, n_systems * (n - 1.0)
    variance = np.asarray(variance, dtype=np.float64)
    diff = np.asarray(diff, dtype=np.float64)
    crit = fdtri(df_a, df_e, 1.0 - alpha)
    with np.errstate(invalid="ignore", divide="ignore"):
        nc = np.where(variance > 0, n * diff ** 2 / (2.0 * np.where(variance > 0, variance,
                                                                  1.0)), 0.0)
        power = 1.0 - _tail(ncfdtr(df_a, df_e, nc, crit), df_e, nc, crit)
    return np.where((variance == 0) & (diff != 0), 1.0, power)


def ci_width(n: ArrayLike, variance: ArrayLike, alpha: float) -> np.ndarray:
    """Expected width of the ``100(1 - alpha)%`` confidence interval of a paired mean
    difference on ``n`` topics, the differences having variance ``sigma_d^2 = 2
    variance`` (Sakai, IRJ 2016):

    .. math::
        E(W) = 2\\, t_{\\alpha/2}(n - 1)\\, \\frac{E(s_d)}{\\sqrt n}, \\qquad
        E(s_d) = \\sqrt{\\frac{2}{n - 1}}\\,
                 \\frac{\\Gamma(n/2)}{\\Gamma((n - 1)/2)}\\, \\sigma_d

    (``E(s_d)`` is the mean of the sample standard deviation of ``n`` normal values).
    """
    n = np.asarray(n, dtype=np.float64)
    mean_sd = (np.sqrt(2.0 / (n - 1)) * np.exp(gammaln(n / 2) - gammaln((n - 1) / 2))
               * np.sqrt(2.0 * np.asarray(variance, dtype=np.float64)))
    return 2.0 * stdtrit(n - 1, 1.0 - alpha / 2) * mean_sd / np.sqrt(n)


def power(variance: ArrayLike, diff: ArrayLike, n: ArrayLike, *, test: str, alpha: float,
          n_systems: int | None = None) -> np.ndarray:
    """:func:`t_power` (``test="paired-t"``) or :func:`anova_power` (``"anova"``) of the
    within-system variance ``V_E``, the true difference and the number of topics."""
    if test == "anova":
        return anova_power(n, diff, variance, n_systems, alpha)
    return t_power(n, diff, variance, alpha)


def _smallest_whole(reached: Callable[[np.ndarray], np.ndarray], shape: tuple[int, ...],
                    start: int) -> np.ndarray:
    """The smallest whole ``n >= start`` with ``reached(n)`` true, elementwise over
    ``shape``, for a condition that stays true once reached (a monotone search:
    doubling, then bisection). ``-1`` where ``LARGEST_TOPIC_SET`` does not reach it."""
    lo = np.full(shape, start - 1, dtype=np.int64)  # reached(lo) is false (or lo < start)
    hi = np.full(shape, start, dtype=np.int64)
    ok = reached(hi)
    while not ok.all() and hi.max() < LARGEST_TOPIC_SET:
        lo = np.where(ok, lo, hi)
        hi = np.where(ok, hi, np.minimum(2 * hi, LARGEST_TOPIC_SET))
        ok = reached(hi)
    hi = np.where(ok, hi, -1)
    while True:
        gap = ok & (hi - lo > 1)
        if not gap.any():
            return hi
        mid = np.where(gap, (lo + hi) // 2, hi)
        good = reached(mid)
        hi = np.where(gap & good, mid, hi)
        lo = np.where(gap & ~good, mid, lo)


def topic_set_size(variance: ArrayLike, diff: ArrayLike, *, test: str, alpha: float,
                   beta: float,
                   n_systems: int | None = None) -> np.ndarray:
    """The smallest number of topics ``n >= 2`` that meets a design requirement (Sakai,
    IRJ 2016), elementwise over ``variance`` (``V_E``) and ``diff`` broadcast together:

    - ``"paired-t"``: :func:`t_power` reaches ``1 - beta`` for the difference ``diff``;
    - ``"anova"``: :func:`anova_power` of ``n_systems`` systems reaches ``1 - beta`` for
      the range ``diff``;
    - ``"ci"``: the :func:`ci_width` of the ``1 - alpha`` interval is at most ``diff``
      (``beta`` unused).

    Returns
    -------
    numpy.ndarray of int
        ``-1`` where no number up to :data:`LARGEST_TOPIC_SET` meets it.
    """
    variance, diff = np.broadcast_arrays(np.asarray(variance, dtype=np.float64),
                                         np.asarray(diff, dtype=np.float64))
    if test == "ci":
        def reached(n):
            return ci_width(n, variance, alpha) <= diff
    else:
        def reached(n):
            return power(variance, diff, n, test=test, alpha=alpha,
                         n_systems=n_systems) >= 1.0 - beta
    return _smallest_whole(reached, variance.shape, 2)


def _solve_increasing(f: Callable[[np.ndarray], np.ndarray], target: np.ndarray,
                      shape: tuple[int, ...], iterations: int = 200) -> np.ndarray:
    """The ``x >= 0`` with ``f(x) = target`` for ``f`` increasing in ``x``, elementwise
    (doubling, then bisection to the resolution of float64)."""
    lo = np.zeros(shape)
    hi = np.ones(shape)
    for _ in range(1100):
        short = f(hi) < target
        if not short.any():
            break
        lo = np.where(short, hi, lo)
        hi = np.where(short, 2.0 * hi, hi)
    for _ in range(iterations):
        mid = (lo + hi) / 2
        if ((mid == lo) | (mid == hi)).all():
            break
        below = f(mid) < target
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    return hi


def detectable_difference(variance: ArrayLike, n: ArrayLike, *, test: str, alpha: float,
                          beta: float,
                          n_systems: int | None = None) -> np.ndarray:
    """The inverse of :func:`topic_set_size` in the difference: the smallest true
    difference (``"paired-t"``) or range (``"anova"``) that ``n`` topics detect with
    power ``1 - beta``, i.e. the difference whose :func:`t_power` or :func:`anova_power`
    is ``1 - beta`` (solved for the non-centrality); for ``"ci"`` the expected width
    :func:`ci_width` of the interval on ``n`` topics. Elementwise over ``variance`` and
    ``n`` broadcast together."""
    variance, n = np.broadcast_arrays(np.asarray(variance, dtype=np.float64),
                                      np.asarray(n, dtype=np.float64))
    if test == "ci":
        return ci_width(n, variance, alpha)
    # the power depends on diff / sqrt(V_E) alone: solve for it with V_E = 1 (0 for 0)
    unit = np.ones(variance.shape)
    if test == "anova":
        # the power as a function of diff^2 / V_E, to which the non-centrality is linear
        squared = _solve_increasing(
            lambda d2: anova_power(n, np.sqrt(d2), unit, n_systems, alpha), 1.0 - beta,
            variance.shape)
        return np.sqrt(squared * variance)
    scaled = _solve_increasing(lambda d: t_power(n, d, unit, alpha), 1.0 - beta,
                               variance.shape)
    return scaled * np.sqrt(variance)


def pair_power(scores: np.ndarray, *, alpha: float, pooled: bool = True):
    """The observed mean difference of every run pair and the power the two-sided paired
    t test on the slice's topics has for a true difference of that size (:func:`t_power`
    with ``n`` the topics every run scored), the differences' variance being
    ``2 V_E`` (``pooled``, the design's assumption) or the pair's own sample variance of
    per-topic differences (``n - 1`` in the denominator).

    Returns
    -------
    diff, power : numpy.ndarray of float
        ``(..., run, run)``: ``mean(run_a) - mean(run_b)`` and the power; NaN on the
        diagonal.
    n_topics : numpy.ndarray of int
    """
    x, keep, n_t = _complete(scores)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = x.sum(axis=-1) / n_t[..., None]
        diff = means[..., :, None] - means[..., None, :]
        if pooled:
            variance = residual_variance(scores)[0][..., None, None]
        else:
            d = x[..., :, None, :] - x[..., None, :, :]  # (..., run, run, topic)
            centred = np.where(keep[..., None, None, :], d - diff[..., None], 0.0)
            variance = (centred ** 2).sum(axis=-1) / (n_t[..., None, None] - 1) / 2.0
    n = n_t[..., None, None]
    result = t_power(n, diff, variance, alpha)
    off = ~np.eye(x.shape[-2], dtype=bool)
    return np.where(off, diff, np.nan), np.where(off & (n > 1), result, np.nan), n_t


def _topic_patterns(keep: np.ndarray):
    """Leading positions grouped by their mask of complete topics: yields (positions,
    topic indices), so that slices scored on the same topics share the same draws."""
    flat = keep.reshape(-1, keep.shape[-1])
    groups: dict[bytes, list[int]] = {}
    for k, row in enumerate(flat):
        groups.setdefault(row.tobytes(), []).append(k)
    for members in groups.values():
        yield np.array(members), np.flatnonzero(flat[members[0]])


def draw_subsets(rng: np.random.Generator, n_topics: int, size: int, replicates: int,
                 replace: bool) -> tuple[np.ndarray, np.ndarray]:
    """The two topic subsets of ``size`` topics of every replicate, as indices
    ``(replicates, size)`` into ``n_topics`` topics: without ``replace`` the first and
    second ``size`` topics of a random permutation per replicate (disjoint; one call
    ``rng.permuted(np.broadcast_to(np.arange(n_topics), (replicates, n_topics)),
    axis=-1)``), with ``replace`` two independent samples with replacement (one call
    ``rng.integers(0, n_topics, size=(replicates, 2, size))``)."""
    if replace:
        picks = rng.integers(0, n_topics, size=(replicates, 2, size))
        return picks[:, 0], picks[:, 1]
    perm = rng.permuted(np.broadcast_to(np.arange(n_topics), (replicates, n_topics)), axis=-1)
    return perm[:, :size], perm[:, size:2 * size]


def _subset_means(values: np.ndarray, picks: np.ndarray) -> np.ndarray:
    """Run means ``(g, run, replicate)`` of ``values (g, run, topic)`` over each row of
    ``picks (replicate, size)`` (a topic picked twice counts twice)."""
    weights = np.zeros((picks.shape[0], values.shape[-1]))
    np.add.at(weights, (np.arange(picks.shape[0])[:, None], picks), 1.0 / picks.shape[1])
    return values @ weights.T


def _bin(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The bin ``k`` with ``edges[k] <= value < edges[k + 1]`` (the last bin open) of every
    non-negative value, for evenly spaced ``edges`` from 0: the quotient by the spacing,
    corrected by one bin where rounding put it across an edge."""
    upper = np.append(edges[1:], np.inf)
    width = upper[0] - edges[0]
    guess = np.minimum(np.floor(values / width), len(edges) - 1).astype(np.intp)
    guess -= values < edges[guess]
    return guess + (values >= upper[guess])


def swap_counts(scores: np.ndarray, *, sizes: Sequence[int], replicates: int, seed: int,
                edges: Sequence[float], replace: bool = False, chunk: int = CHUNK):
    """Swaps of run pairs between two topic subsets (Voorhees & Buckley, SIGIR 2002;
    Sanderson & Zobel, SIGIR 2005), counted per subset size and per bin of the size of
    the difference.

    For every size ``n`` of ``sizes`` (in order) and every replicate, two subsets of
    ``n`` topics are drawn by :func:`draw_subsets` from ``numpy.random.default_rng(seed)``
    (a new generator for every group of slices scored on the same topics, so that those
    slices share the draws). For each run pair, ``d_A`` and ``d_B`` are its mean
    differences on the two subsets; the pair is counted in the bin of ``|d_A|`` (bins
    ``[edges[k], edges[k+1])``, the last one open: ``[edges[-1], inf)``), and it is a
    swap when ``d_A d_B < 0`` (a tie on either subset is no swap).

    Parameters
    ----------
    scores : numpy.ndarray
        ``(..., run, topic)``; topics some run did not score are left out.
    sizes : sequence of int
        Subset sizes, at most half the topics without ``replace``.
    replicates : int
        Pairs of subsets drawn per size.
    seed : int
        Seed of the draws.
    edges : sequence of float
        Evenly spaced lower edges of the bins, the first 0.
    replace : bool
        Draw the subsets with replacement (independent) instead of disjoint.
    chunk : int
        Replicates counted at once.

    Returns
    -------
    comparisons, swaps : numpy.ndarray of int
        ``(..., size, bin)``: pair × replicate comparisons and swaps.
    rate : numpy.ndarray of float
        ``swaps / comparisons`` (NaN for empty bins).
    n_topics : numpy.ndarray of int
        The topics drawn from, over the leading axes.
    """
    x, keep, n_t = _complete(scores)
    lead, (n_runs, _) = x.shape[:-2], x.shape[-2:]
    flat = x.reshape((-1,) + x.shape[-2:])
    i, j = np.triu_indices(n_runs, k=1)
    edges = np.asarray(edges, dtype=np.float64)
    n_bins = len(edges)
    if edges[0] != 0 or (n_bins > 1 and not np.allclose(np.diff(edges), edges[1])):
        raise InputError(f"bin edges must be evenly spaced from 0, not {edges.tolist()}")
    comparisons = np.zeros((flat.shape[0], len(sizes), n_bins), dtype=np.int64)
    swaps = np.zeros_like(comparisons)
    for members, topics in _topic_patterns(keep):
        largest = len(topics) if replace else len(topics) // 2
        if not 1 <= min(sizes) <= max(sizes) <= largest:
            raise InputError(f"subsets of {', '.join(map(str, sizes))} topics cannot be drawn "
                             f"{'with' if replace else 'without'} replacement from "
                             f"{len(topics)} topics (at most {largest})")
        values = flat[members][:, :, topics]
        rng = np.random.default_rng(seed)
        group = np.arange(len(members))[:, None, None] * n_bins
        for s, size in enumerate(sizes):
            first, second = draw_subsets(rng, len(topics), int(size), replicates, replace)
            for start in range(0, replicates, chunk):
                block = slice(start, start + chunk)
                mean_a = _subset_means(values, first[block])
                mean_b = _subset_means(values, second[block])
                d_a = mean_a[:, i] - mean_a[:, j]  # (g, pair, replicate)
                d_b = mean_b[:, i] - mean_b[:, j]
                where = group + _bin(np.abs(d_a), edges)
                total = len(members) * n_bins
                comparisons[members, s] += np.bincount(
                    where.ravel(), minlength=total).reshape(len(members), n_bins)
                swaps[members, s] += np.bincount(
                    where.ravel(), weights=(d_a * d_b < 0).ravel(),
                    minlength=total).astype(np.int64).reshape(len(members), n_bins)
    shape = lead + comparisons.shape[1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(comparisons > 0, swaps / comparisons, np.nan)
    return (comparisons.reshape(shape), swaps.reshape(shape), rate.reshape(shape), n_t)


def extrapolate_swap_rate(sizes: ArrayLike, rate: np.ndarray, target: ArrayLike,
                          axis: int = -1) -> np.ndarray:
    """The swap rate at ``target`` topics extrapolated from the rates at smaller subset
    sizes, as Voorhees & Buckley (SIGIR 2002) did: a least-squares line through
    ``(n, log rate)`` over the sizes ``n`` along ``axis`` with a positive rate, evaluated
    at ``target`` (at most 1: the line can rise where ties on small subsets hide swaps).
    NaN where fewer than 2 sizes have a positive rate."""
    rate = np.moveaxis(np.asarray(rate, dtype=np.float64), axis, -1)
    n = np.broadcast_to(np.asarray(sizes, dtype=np.float64), rate.shape)
    use = rate > 0
    k = use.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        y = np.where(use, np.log(np.where(use, rate, 1.0)), 0.0)
        n_mean = np.where(use, n, 0.0).sum(axis=-1) / k
        y_mean = y.sum(axis=-1) / k
        dn = np.where(use, n - n_mean[..., None], 0.0)
        slope = (dn * (y - y_mean[..., None])).sum(axis=-1) / (dn ** 2).sum(axis=-1)
        fitted = np.minimum(1.0, np.exp(y_mean + slope * (target - n_mean)))
    return np.where(k >= 2, fitted, np.nan)


def stable_difference(edges: ArrayLike, rate: np.ndarray, max_rate: float,
                      axis: int = -1) -> np.ndarray:
    """The lower edge of the first bin from which no bin's swap rate along ``axis``
    exceeds ``max_rate`` (Voorhees & Buckley's "difference needed", SIGIR 2002): the
    edge above the last bin whose rate exceeds it, ``edges[0]`` if none does, NaN if the
    last bin does. Bins whose rate is NaN are skipped."""
    rate = np.moveaxis(np.asarray(rate, dtype=np.float64), axis, -1)
    edges = np.asarray(edges, dtype=np.float64)
    over = rate > max_rate
    n_bins = rate.shape[-1]
    last = np.where(over.any(axis=-1), n_bins - 1 - np.argmax(over[..., ::-1], axis=-1), -1)
    edge = edges[np.minimum(last + 1, n_bins - 1)]
    return np.where(last == n_bins - 1, np.nan, edge)
