"""Which differences between systems are real: :func:`compare`, paired significance tests
of runs, with multiple-comparison corrections, effect sizes and confidence intervals.

Input is the ``score(metric, run, topic)`` cube of :func:`xdiv.evaluate` (a Dataset or its
``score`` DataArray). Per metric, only the topics on which *every* run of the cube has a
score are used (the data are paired); the topics dropped are named in one
:class:`xdiv.XdivWarning`, and the number kept is ``n_topics(metric)``.

The result schema
-----------------
A comparison has a *treatment* ``x`` and a *reference* ``y``; its per-topic differences
are ``d = x - y``. Two layouts, chosen by ``baseline``:

``baseline=None`` (all pairs)
    Dimensions ``(test, metric, run_a, run_b)``: the full square over the cube's runs (same
    labels and order on both axes), NaN on the diagonal, treatment ``run_a``, reference
    ``run_b`` (``effect[a, b] = mean(a) - mean(b)``, as ``diff`` in :mod:`xdiv.meta`).
    Each unordered pair is tested once; its two cells hold the same ``pvalue``,
    ``pvalue_adjusted`` and ``significant``, while ``effect``, ``effect_size``,
    ``hedges_g`` are antisymmetric, ``[ci_low, ci_high]`` becomes ``[-ci_high, -ci_low]``,
    ``wins`` and ``losses`` swap. The family of a correction holds each pair once. The
    p-values are also readable as ``asl`` (an alias, see :data:`xdiv.core.cube.ALIASES`).
``baseline="RUN"`` or ``["RUN", ...]``
    Dimensions ``(test, metric, baseline, run)``: ``baseline`` holds the baselines in the
    order given, ``run`` every run of the cube; treatment ``run``, reference ``baseline``
    (``effect = mean(run) - mean(baseline)``). A baseline against itself is NaN. When two
    baselines meet (``run`` = another baseline) the pair is one comparison of the family,
    shown in both cells (mirrored as above).

Variables (``X, Y`` = ``run_a, run_b`` or ``baseline, run``):

================================ ============== =============================================
variable                         dims           meaning
================================ ============== =============================================
``statistic``                    test, metric,  the test's statistic for ``d = x - y``:
                                 X, Y           ``t``: Student's t; ``wilcoxon``: scipy's
                                                ``min(R+, R-)`` (symmetric);
                                                ``sign``: wins / (wins + losses) (NaN if all
                                                ties); ``permutation``: mean of d;
                                                ``bootstrap``: the studentised mean t;
                                                ``tukey``: mean of d
``pvalue``                       test, metric,  two-sided p-value in [0, 1]
                                 X, Y
``pvalue_adjusted``              test, metric,  after ``correction`` over ``family``
                                 X, Y           (= ``pvalue`` when correction is None; always
                                                = ``pvalue`` for ``tukey``, already adjusted
                                                over all run pairs of its metric)
``significant``                  test, metric,  ``pvalue_adjusted < alpha`` (bool; False on
                                 X, Y           the NaN cells)
``effect``                       metric, X, Y   mean of d
``ci_low``, ``ci_high``          metric, X, Y   its (1 - alpha) confidence interval
                                                (``ci="t"``: Student t; ``"bca"``: bootstrap
                                                BCa)
``tukey_ci_low``,                metric, X, Y   with ``"tukey"`` among the tests only: Tukey's
``tukey_ci_high``                               simultaneous (1 - alpha) interval of the mean
                                                of d over all run pairs of the metric,
                                                ``mean(d) -+ q sqrt(V_E / n)``, ``q`` the
                                                studentized range quantile of the runs on
                                                ``(runs - 1)(n - 1)`` degrees of freedom,
                                                ``V_E`` the residual mean square of the two-way
                                                (run x topic) analysis of variance
``effect_size``                  metric, X, Y   d_z = mean(d) / sd(d)
``hedges_g``                     metric, X, Y   g_z = d_z J, J = 1 - 3 / (4 (n - 1) - 1)
``wins``, ``ties``, ``losses``   metric, X, Y   topics with d > 0, d = 0, d < 0 (int64; a
                                                run against itself: 0, n, 0)
``mean``                         metric, run    mean score of the run on the kept topics
``mean_ci_low``, ``mean_ci_high`` metric, run   its (1 - alpha) Student t interval
``n_topics``                     metric         topics kept (scored for every run)
================================ ============== =============================================

Coordinates: ``test`` (the names of ``tests``, in the order given), ``metric``, and
``run_a``, ``run_b`` or ``baseline``, ``run`` (text labels).

Attributes (strings and numbers only, so that the dataset round-trips through
:func:`xdiv.to_netcdf` / :func:`xdiv.open_dataset`): ``xdiv_kind = "compare"``, ``tests``
(JSON list), ``correction`` (``"none"`` for None), ``family`` (``"metric"`` or ``"all"``),
``B``, ``seed``, ``alpha``, ``ci``, ``mode`` (``"pairs"`` or ``"baseline"``),
``baseline`` (JSON list of the baselines, ``[]`` in pairs mode) and ``adjustment`` (JSON
object: test name -> one sentence on what its ``pvalue_adjusted`` is).
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Sequence

import numpy as np
import xarray as xr

from .._warnings import warn
from ..core.cube import score_array, with_aliases
from ..core.labels import object_strings, to_json
from ..errors import InputError, XdivWarning
from ..kernels import compare as K
from ..kernels import meta as KM
from ..typing import (COMPARE_CIS, COMPARE_CORRECTIONS, COMPARE_FAMILIES, COMPARE_TESTS,
                      MAXT_CORRECTIONS, RESAMPLING_TESTS, CompareCI, CompareCorrection,
                      CompareFamily, CompareTest)
from .meta import check_resampling
from ..io.provenance import recorded

__all__ = ["compare"]

MIN_B = 100
"""The fewest resamples a resampling test, MaxT or a BCa interval accepts."""

WILCOXON_EXACT_TIES = 13
"""The most topics for which ``scipy.stats.wilcoxon`` tests differences with ties or zeros
by the exact distribution of their sign flips (beyond: the normal approximation)."""


@recorded
def compare(scores, baseline: str | Sequence[str] | None = None,
            tests: CompareTest | Sequence[CompareTest] = ("t",),
            correction: CompareCorrection | None = None, family: CompareFamily = "metric",
            B: int = 10_000, seed: int = 0, alpha: float = 0.05,
            ci: CompareCI = "t") -> xr.Dataset:
    r"""Paired significance tests of runs, corrected for multiple comparisons, with effect
    sizes and confidence intervals: which differences between systems are real.

    Every comparison pairs two runs ``x`` (treatment) and ``y`` (reference) on the topics
    that every run of the cube scored for the metric (topics with a NaN score for some
    run are dropped, per metric, with a warning); ``d_i = x_i - y_i``,
    :math:`\bar d` its mean, :math:`s` its standard deviation (``n - 1``) and ``n`` the
    number of topics. The result's layout is described in this module's docstring
    (:mod:`xdiv.analysis.compare`).

    Tests (all two-sided). Every p-value from B random resamples (the permutation,
    bootstrap and Tukey tests, MaxT) is ``(1 + c) / (1 + B)`` for the ``c`` resamples
    that reach the observed statistic (Phipson & Smyth, Statistical Applications in
    Genetics and Molecular Biology 2010): never 0, at least ``1 / (1 + B)``, as in
    :mod:`xdiv.meta`.

    ``"t"``
        Student's paired t, :math:`t = \bar d / (s / \sqrt n)` on ``n - 1`` degrees of
        freedom (as ``scipy.stats.ttest_rel``; when ``s = 0``: ``t = 0``, ``p = 1`` if
        :math:`\bar d = 0`, where scipy gives NaN, else ``t = +-inf``, ``p = 0``).
    ``"wilcoxon"``
        Wilcoxon's signed-rank test as ``scipy.stats.wilcoxon``'s defaults decide for each
        comparison on its own: zero differences dropped (``zero_method="wilcox"``); the
        exact null distribution when no difference is 0 and no two ``|d|`` tie (and
        ``n <= 50``), else the exact permutation distribution when ``n <= 13``, else the
        normal approximation with continuity correction. The statistic is
        ``min(R+, R-)``. All differences 0: statistic 0, ``p = 1`` (scipy: NaN).
    ``"sign"``
        The sign test: the binomial test (``p = 1/2``) of the wins among the topics that
        are not ties (as ``scipy.stats.binomtest(wins, wins + losses)``); statistic
        wins / (wins + losses); all ties: ``p = 1``, statistic NaN.
    ``"permutation"``
        Fisher's randomisation test: random sign flips of the ``d_i`` (one flip vector
        per resample, seeded), ``p = (1 + #{|mean*| >= |mean|}) / (1 + B)``; when
        :math:`2^n \le B` every sign vector is enumerated once and
        ``p = #{|mean*| >= |mean|} / 2^n``, as ``scipy.stats.permutation_test(...,
        permutation_type="samples", n_resamples=np.inf)``. Statistic: :math:`\bar d`.
        (Smucker, Allan & Carterette, CIKM 2007, recommend it over the t test's
        alternatives; it coincides with the randomisation test of t.)
    ``"bootstrap"``
        Sakai's paired bootstrap test with the shift method (Sakai, SIGIR 2006; the
        kernel of :func:`xdiv.meta.bootstrap_test`, whose p-values it reproduces for the
        same seed): ``p = (1 + #{|t*| >= |t|}) / (1 + B)`` over B resamples of the
        topics of the centred differences ``d - mean(d)``. Statistic: t.
    ``"tukey"``
        The randomised Tukey HSD test over all run pairs of the metric (Carterette,
        TOIS 2012; the kernel of :func:`xdiv.meta.tukey_hsd`):
        ``p = (1 + #{range* >= |mean|}) / (1 + B)`` over B trials, each permuting every
        topic's scores across all runs, ``range*`` the trial's range of run means. Its
        p-values are already adjusted over all run pairs
        of the metric (also in baseline mode, whose cells are taken out of the all-pairs
        result), so ``pvalue_adjusted = pvalue`` whatever ``correction``. Statistic:
        :math:`\bar d`. Its simultaneous intervals are ``tukey_ci_low`` and
        ``tukey_ci_high``: Tukey's HSD on the two-way (run x topic) analysis of variance
        without replication (Sakai, *Laboratory Experiments in Information Retrieval*,
        Springer 2018), as ``statsmodels``' ``pairwise_tukeyhsd`` computes them for one
        factor; ``ci_low`` and ``ci_high`` are the per-comparison intervals of ``ci``.
        The intervals are parametric and the p-values randomised, so the two can
        disagree near the level (the trials permute the runs' own differences too, which
        widens the randomised null).

    Corrections, over ``family`` (``"metric"``: the comparisons of each metric;
    ``"all"``: every metric's comparisons together), each unordered pair of runs once:

    ``"bonferroni"``, ``"holm"`` (Holm, Scand. J. Statistics 1979), ``"fdr_bh"``
    (Benjamini & Hochberg, JRSS B 1995), ``"fdr_by"`` (Benjamini & Yekutieli, Annals of
    Statistics 2001)
        ``statsmodels.stats.multitest.multipletests`` of the test's p-values.
    ``"maxt"``, ``"maxt-stepdown"``
        Westfall & Young's permutation MaxT (*Resampling-Based Multiple Testing*, Wiley
        1993), single step or step down, on the paired t statistics of the family under
        the randomisation test's sign flips (one sign per topic shared by every
        comparison of the family, so that their dependence is kept; B flips, seeded;
        exact enumeration when :math:`2^n \le B`):
        ``p_k = (1 + #{max_l |t*_l| >= |t_k|}) / (1 + B)``, the maximum over the
        family (single step) or over the comparisons whose ``|t|`` is at most ``|t_k|``
        (step down, then made monotone). For every test but ``"tukey"`` the adjusted
        p-value is that MaxT p-value (computed on t whatever the test), but never below
        the test's own p-value: ``max(p_maxt, pvalue)``. Boytsov, Belova & Westfall,
        SIGIR 2013, recommend MaxT for IR; with the permutation test it is the
        randomisation test adjusted over the family.

    Urbano, Lima & Hanjalic, SIGIR 2019, compare these tests' error rates on IR data
    (the t test and the randomisation test behave best; the Wilcoxon and sign tests
    worst).

    Parameters
    ----------
    scores : xarray.Dataset or xarray.DataArray
        The ``score(metric, run, topic)`` cube of :func:`xdiv.evaluate`, or its ``score``.
    baseline : str or sequence of str, optional
        None: compare every pair of runs. A run (or runs): compare every run with it.
    tests : str or sequence of str
        Among ``"t"``, ``"wilcoxon"``, ``"sign"``, ``"permutation"``, ``"bootstrap"``,
        ``"tukey"`` (:data:`xdiv.typing.COMPARE_TESTS`).
    correction : str, optional
        None (``pvalue_adjusted = pvalue``) or one of ``"bonferroni"``, ``"holm"``,
        ``"fdr_bh"``, ``"fdr_by"``, ``"maxt"``, ``"maxt-stepdown"``.
    family : {"metric", "all"}
        What a correction adjusts over.
    B : int
        Resamples of the permutation, bootstrap and Tukey tests, of MaxT and of the BCa
        interval (at least 100, at most :data:`xdiv.analysis.meta.MAX_B`, and
        ``1 / (B + 1) <= alpha``).
    seed : int
        Seed of every resampling. Each starts from ``numpy.random.default_rng(seed)``
        afresh, per group of metrics scored on the same topics, so the bootstrap test
        and the BCa interval use the same resamples, and a test's p-values do not depend
        on which other tests are asked.
    alpha : float
        Significance level (``significant = pvalue_adjusted < alpha``) and one minus the
        confidence level of the intervals.
    ci : {"t", "bca"}
        The interval of the mean difference: Student's t,
        :math:`\bar d \pm t_{1 - \alpha/2, n - 1} s / \sqrt n`, or the bootstrap BCa
        interval from B resamples (as ``scipy.stats.bootstrap(method="BCa")``; Efron &
        Tibshirani 1993). The per-run means' intervals are always Student's t.

    Returns
    -------
    xarray.Dataset
        See :mod:`xdiv.analysis.compare`: ``statistic``, ``pvalue``, ``pvalue_adjusted``,
        ``significant`` over (test, metric, run_a, run_b) or (test, metric, baseline,
        run); ``effect``, ``ci_low``, ``ci_high``, ``effect_size`` (d_z = mean / sd),
        ``hedges_g`` (g_z = d_z (1 - 3 / (4 (n - 1) - 1))), ``wins``, ``ties``,
        ``losses`` without the test dimension; ``mean``, ``mean_ci_low``,
        ``mean_ci_high`` over (metric, run); ``n_topics(metric)``.

    Raises
    ------
    InputError
        Fewer than two runs, an unknown baseline (with close matches), test, correction,
        family or interval, a MaxT family of a single comparison, runs sharing fewer than
        two scored topics, or B too small for a resampling.

    Examples
    --------
    >>> import xdiv
    >>> collection, runs = xdiv.datasets.synthetic(n_topics=20, n_runs=3, depth=20, seed=0)
    >>> scores = xdiv.evaluate(runs, collection, ["alpha-nDCG@10"])
    >>> result = xdiv.compare(scores, baseline="run01", tests=["t", "permutation"],
    ...                       correction="holm", B=1000)
    >>> result["effect"].sel(metric="alpha-nDCG@10").round(3).to_pandas()
    run       run01  run02  run03
    baseline
    run01       NaN -0.086 -0.293
    >>> result["pvalue_adjusted"].sel(metric="alpha-nDCG@10", baseline="run01").round(4
    ...     ).to_pandas()
    run          run01   run02  run03
    test
    t              NaN  0.0067  0.000
    permutation    NaN  0.0090  0.002
    """
    tests = _check_choices(tests, correction, family, ci)
    check_resampling(None, seed, alpha)
    resampled = (set(tests) & set(RESAMPLING_TESTS) or correction in MAXT_CORRECTIONS
                 or ci == "bca")
    if isinstance(B, bool) or not isinstance(B, (int, np.integer)) or B < 1:
        raise InputError(f"the number of resamples B must be a whole number >= 1, not {B!r}")
    check_resampling(B)
    B = int(B)  # a numpy integer (uint8 ...) would overflow in the kernels' arithmetic
    if resampled:
        what = _resampling_names(tests, correction, ci)
        if B < MIN_B:
            raise InputError(f"B = {B} resamples are too few for {what}: use B >= {MIN_B}")
        if 1 / (B + 1) > alpha:
            raise InputError(f"B = {B} resamples cannot reach alpha = {alpha:g} with {what}: "
                             f"the smallest p-value is 1/(B + 1); use B >= {int(np.ceil(1 / alpha)) - 1}")
        check_resampling(B, seed, alpha)
    da = score_array(scores)
    runs = object_strings(da["run"].values)
    if len(runs) < 2:
        raise InputError(f"comparing runs needs at least two runs; the score cube holds "
                         f"{len(runs)}")
    metrics = da["metric"].values
    baselines = _check_baselines(baseline, runs)
    plan = _Plan(len(runs), None if baselines is None else
                 [int(np.flatnonzero(runs == b)[0]) for b in baselines])
    groups, n_topics = _groups(da)
    n_metrics, n_comp = len(metrics), plan.n_comparisons
    if correction in MAXT_CORRECTIONS:
        size = n_comp * (n_metrics if family == "all" else 1)
        if size < 2:
            raise InputError(f"MaxT ({correction}) adjusts over a family of comparisons, "
                             f"and family={family!r} holds {size}; compare more runs, or "
                             "use family='all' with several metrics")
    stats = _Stats(n_metrics, n_comp, tests)
    maxt = correction if correction in MAXT_CORRECTIONS else None
    for members, values, _ in groups:
        _test_group(stats, plan, members, values, tests, B, seed, alpha, ci, maxt, family,
                    len(groups) == 1)
    _correct(stats, plan, groups, da.sizes["topic"], tests, correction, family, B, seed,
             alpha)
    return _dataset(stats, plan, da, runs, baselines, n_topics, tests, correction, family,
                    B, seed, alpha, ci)


def _check_choices(tests, correction, family, ci) -> tuple[str, ...]:
    """``tests`` as a tuple of known, distinct test names; the other options checked."""
    tests = (tests,) if isinstance(tests, str) else tuple(tests)
    if not tests:
        raise InputError(f"tests is empty; name one or more of {', '.join(COMPARE_TESTS)}")
    for test in tests:
        if test not in COMPARE_TESTS:
            raise InputError(f"test {test!r} is not one of {', '.join(COMPARE_TESTS)}")
    if len(set(tests)) < len(tests):
        twice = next(t for t in tests if tests.count(t) > 1)
        raise InputError(f"tests names {twice!r} twice")
    if correction is not None and correction not in COMPARE_CORRECTIONS:
        raise InputError(f"correction {correction!r} is not None or one of "
                         f"{', '.join(COMPARE_CORRECTIONS)}")
    if family not in COMPARE_FAMILIES:
        raise InputError(f"family {family!r} is not one of {', '.join(COMPARE_FAMILIES)}")
    if ci not in COMPARE_CIS:
        raise InputError(f"ci {ci!r} is not one of {', '.join(COMPARE_CIS)}")
    return tests


def _resampling_names(tests, correction, ci) -> str:
    names = [f"the {t} test" for t in tests if t in RESAMPLING_TESTS]
    if correction in MAXT_CORRECTIONS:
        names.append(f"the {correction} correction")
    if ci == "bca":
        names.append("the BCa interval")
    return ", ".join(names)


def _check_baselines(baseline, runs: np.ndarray) -> list[str] | None:
    if baseline is None:
        return None
    chosen = [baseline] if isinstance(baseline, str) else list(baseline)
    if not chosen:
        raise InputError("baseline is an empty list; name a run, or None for all pairs")
    held = [str(r) for r in runs]
    for run in chosen:
        if not isinstance(run, str) or run not in held:
            close = difflib.get_close_matches(str(run), held, n=3, cutoff=0.5)
            hint = (f"; did you mean {' or '.join(map(repr, close))}?" if close
                    else f"; the runs are {', '.join(held)}" if len(held) <= 10
                    else f"; the cube holds {len(held)} runs")
            raise InputError(f"baseline {run!r} is not a run of the score cube{hint}")
    if len(set(chosen)) < len(chosen):
        twice = next(b for b in chosen if chosen.count(b) > 1)
        raise InputError(f"baseline names the run {twice!r} twice")
    return chosen


class _Plan:
    """The comparisons to make, each unordered pair of runs once (treatment ``x``,
    reference ``y``), and the cells of the result that show them: ``comp`` (the
    comparison of each cell, -1 for none) and ``flip`` (the cell's treatment is the
    comparison's reference)."""

    def __init__(self, n_runs: int, baselines: list[int] | None):
        if baselines is None:
            i, j = KM.pair_index(n_runs)
            self.x, self.y = i, j
            self.comp = np.full((n_runs, n_runs), -1)
            self.comp[i, j] = self.comp[j, i] = np.arange(len(i))
            self.flip = np.zeros((n_runs, n_runs), dtype=bool)
            self.flip[j, i] = True
        else:
            index: dict[tuple[int, int], int] = {}
            xs, ys = [], []
            self.comp = np.full((len(baselines), n_runs), -1)
            self.flip = np.zeros((len(baselines), n_runs), dtype=bool)
            for k, b in enumerate(baselines):
                for r in range(n_runs):
                    if r == b:
                        continue
                    key = (min(r, b), max(r, b))
                    if key not in index:
                        index[key] = len(xs)
                        xs.append(r)
                        ys.append(b)
                    self.comp[k, r] = index[key]
                    self.flip[k, r] = xs[index[key]] != r
            self.x, self.y = np.array(xs, dtype=np.int64), np.array(ys, dtype=np.int64)
        self.n_comparisons = len(self.x)
        self.n_runs = n_runs


def _groups(da: xr.DataArray):
    """Metrics grouped by the topics every run scored: ``[(metric positions, scores
    (metric, run, topic) on those topics, topic mask)]`` and the topics kept per metric;
    warns once about the dropped topics, refuses a metric with fewer than two."""
    values = da.values
    keep = ~np.isnan(values).any(axis=1)  # (metric, topic)
    n_all = values.shape[-1]
    dropped = []
    for k, metric in enumerate(da["metric"].values):
        kept = int(keep[k].sum())
        if kept == 0:
            raise InputError(f"{metric}: the runs share no topic (no topic has a score for "
                             "every run)")
        if kept == 1:
            raise InputError(f"{metric}: the runs share one topic only (scored for every "
                             "run); a paired comparison needs at least two")
        if kept < n_all:
            dropped.append(f"{metric} {n_all - kept} of {n_all}")
    if dropped:
        warn("compare: topics with a NaN score for some run are left out, as the tests "
             f"are paired: {', '.join(dropped)}", XdivWarning)
    patterns: dict[bytes, list[int]] = {}
    for k in range(len(keep)):
        patterns.setdefault(keep[k].tobytes(), []).append(k)
    groups = [(np.array(m), values[m][:, :, keep[m[0]]], keep[m[0]])
              for m in patterns.values()]
    return groups, keep.sum(axis=1).astype(np.int64)


class _Stats:
    """The per-(metric, comparison) results, filled group by group."""

    def __init__(self, n_metrics: int, n_comp: int, tests):
        shape = (n_metrics, n_comp)
        for name in ("effect", "ci_low", "ci_high", "effect_size", "hedges_g"):
            setattr(self, name, np.full(shape, np.nan))
        for name in ("wins", "ties", "losses"):
            setattr(self, name, np.zeros(shape, dtype=np.int64))
        self.statistic = np.full((len(tests),) + shape, np.nan)
        self.pvalue = np.full((len(tests),) + shape, np.nan)
        self.adjusted = None
        self.maxt = None  # (metric, comparison), when computed group by group
        self.run_mean = self.run_low = self.run_high = None
        self.tukey_half = np.full(shape, np.nan) if "tukey" in tests else None


def _test_group(stats: _Stats, plan: _Plan, members, values, tests, B, seed, alpha, ci,
                maxt: str | None, family: str, single_group: bool) -> None:
    from scipy.special import ndtr, ndtri, stdtrit

    n_runs = values.shape[1]
    n = values.shape[-1]
    diff = values[:, plan.x, :] - values[:, plan.y, :]  # (metric, comparison, topic)
    flat = diff.reshape(-1, n)
    mean, sd, t = K.paired_t(diff)
    stats.effect[members] = mean
    stats.effect_size[members], stats.hedges_g[members] = K.effect_sizes(mean, sd, n)
    stats.wins[members], stats.ties[members], stats.losses[members] = K.outcome_counts(diff)
    # scipy.stats.t.ppf(1 - alpha / 2, n - 1), as scipy computes it, without loading
    # scipy.stats (a second of CPU per command)
    quantile = stdtrit(n - 1, 1 - alpha / 2)
    if ci == "t":
        half = quantile * sd / np.sqrt(n)
        stats.ci_low[members], stats.ci_high[members] = mean - half, mean + half
    else:
        low, high = K.bca_interval(flat, replicates=B, rng=np.random.default_rng(seed),
                                   alpha=alpha, norm_cdf=ndtr, norm_ppf=ndtri)
        stats.ci_low[members] = low.reshape(mean.shape)
        stats.ci_high[members] = high.reshape(mean.shape)
    run_mean, run_sd, _ = K.paired_t(values)
    if stats.run_mean is None:
        shape = (len(stats.effect), n_runs)
        stats.run_mean, stats.run_low, stats.run_high = (np.full(shape, np.nan)
                                                         for _ in range(3))
    half = quantile * run_sd / np.sqrt(n)
    stats.run_mean[members] = run_mean
    stats.run_low[members], stats.run_high[members] = run_mean - half, run_mean + half
    # MaxT here when the family lies within this group (one pass with the permutation test)
    here = maxt is not None and (family == "metric" or single_group)
    if here and stats.maxt is None:
        stats.maxt = np.full(stats.effect.shape, np.nan)
    wants_raw = "permutation" in tests
    if here or wants_raw:
        labels = (np.arange(len(members)) if family == "metric"
                  else np.zeros(len(members), dtype=np.int64))
        raw, adjusted, _ = K.run_randomisation_test(
            values, plan.x, plan.y, replicates=B, rng=np.random.default_rng(seed),
            family=labels if here else None, step_down=maxt == "maxt-stepdown",
            raw=wants_raw)
        if here:
            stats.maxt[members] = adjusted.reshape(mean.shape)
    for k, test in enumerate(tests):
        if test == "t":
            statistic, pvalue = t, t_pvalue(t, n)
        elif test == "wilcoxon":
            statistic, pvalue = _wilcoxon(flat)
        elif test == "sign":
            statistic, pvalue = _sign_test(stats.wins[members], stats.losses[members])
        elif test == "permutation":
            statistic, pvalue = mean, raw
        elif test == "bootstrap":
            _, statistic, pvalue, _ = KM.paired_bootstrap(
                diff, replicates=B, rng=np.random.default_rng(seed), alpha=alpha)
        else:  # tukey: all pairs of the metric, the plan's taken out
            variance, df = K.two_way_residual(values)
            stats.tukey_half[members] = (_tukey_quantile(alpha, n_runs, df)
                                         * np.sqrt(variance / n))[:, None]
            pair_diff, asl = KM.randomised_tukey(values, replicates=B,
                                                 rng=np.random.default_rng(seed))
            lo, hi = np.minimum(plan.x, plan.y), np.maximum(plan.x, plan.y)
            position = lo * (2 * n_runs - lo - 1) // 2 + (hi - lo - 1)
            statistic = pair_diff[:, position] * np.where(plan.x < plan.y, 1.0, -1.0)
            pvalue = asl[:, position]
        stats.statistic[k, members] = np.reshape(statistic, mean.shape)
        stats.pvalue[k, members] = np.reshape(pvalue, mean.shape)


@functools.lru_cache(maxsize=64)
def _tukey_quantile(alpha: float, n_runs: int, df: int) -> float:
    """The ``1 - alpha`` quantile of the studentized range of ``n_runs`` means on ``df``
    degrees of freedom (``scipy.stats.studentized_range.ppf``, as statsmodels'
    ``pairwise_tukeyhsd``); remembered, as each costs a numerical integration."""
    from scipy.stats import studentized_range

    return float(studentized_range.ppf(1 - alpha, n_runs, df))


def t_pvalue(t: np.ndarray, n) -> np.ndarray:
    """The two-sided p-value of Student's paired t (:func:`xdiv.kernels.compare.paired_t`)
    on ``n - 1`` degrees of freedom, as ``scipy.stats.ttest_rel``: ``2 sf(|t|)``, 0 where
    ``t`` is infinite, NaN where it is NaN. Shared by :func:`compare` and
    :func:`xdiv.analysis.stats.paired_t_tests`. ``sf`` is ``scipy.special.stdtr`` at
    ``-|t|``, as ``scipy.stats.t.sf`` computes it, without loading scipy.stats."""
    from scipy.special import stdtr

    return np.where(np.isinf(t), 0.0, 2 * stdtr(np.asarray(n) - 1, -np.abs(t)))


def _wilcoxon(diff: np.ndarray):
    """scipy's Wilcoxon signed-rank test of each row with its default settings decided
    row by row (scipy decides exact or approximate once for a whole array): rows are
    tested in groups that scipy's rule treats alike. Rows with ties or zeros and at most
    :data:`WILCOXON_EXACT_TIES` topics, which scipy tests by enumerating their ``2^n``
    sign flips (seconds a row), are computed by
    :func:`xdiv.kernels.compare.signed_rank_exact` (the same p-values, in
    milliseconds)."""
    from scipy.stats import wilcoxon

    statistic = np.zeros(len(diff))
    pvalue = np.ones(len(diff))
    nonzero = diff != 0
    magnitude = np.sort(np.where(nonzero, np.abs(diff), np.nan), axis=-1)
    tied = (magnitude[:, 1:] == magnitude[:, :-1]).any(axis=-1)
    clean = nonzero.all(axis=-1) & ~tied
    other = ~clean & nonzero.any(axis=-1)  # all-zero rows: statistic 0, p = 1
    if other.any() and diff.shape[-1] <= WILCOXON_EXACT_TIES:
        statistic[other], pvalue[other] = K.signed_rank_exact(diff[other])
        other = np.zeros_like(other)
    for rows in (clean, other):
        if rows.any():
            res = wilcoxon(diff[rows], axis=-1)
            statistic[rows], pvalue[rows] = res.statistic, res.pvalue
    return statistic, pvalue


def _sign_test(wins: np.ndarray, losses: np.ndarray):
    """Two-sided binomial test (p = 1/2) of the wins among the untied topics."""
    from scipy.stats import binom

    untied = wins + losses
    with np.errstate(invalid="ignore", divide="ignore"):
        statistic = np.where(untied > 0, wins / np.maximum(untied, 1), np.nan)
    tail = 2 * binom.cdf(np.minimum(wins, losses), np.maximum(untied, 1), 0.5)
    return statistic, np.where(untied > 0, np.minimum(tail, 1.0), 1.0)


def _correct(stats: _Stats, plan: _Plan, groups, n_topics_all: int, tests, correction,
             family, B, seed, alpha) -> None:
    """``stats.adjusted``: the p-values after ``correction`` over ``family``."""
    adjusted = stats.pvalue.copy()
    if correction in MAXT_CORRECTIONS:
        if stats.maxt is None:  # family="all" over metrics scored on different topics
            stats.maxt = _maxt_over_groups(plan, groups, n_topics_all, correction, B, seed)
        for k, test in enumerate(tests):
            if test != "tukey":
                adjusted[k] = np.maximum(stats.maxt, stats.pvalue[k])
    elif correction is not None:
        from statsmodels.stats.multitest import multipletests

        for k, test in enumerate(tests):
            if test == "tukey":
                continue
            families = ([adjusted[k]] if family == "all"
                        else [adjusted[k, m] for m in range(adjusted.shape[1])])
            for part in families:  # views: adjusted in place
                values = part.reshape(-1)
                defined = ~np.isnan(values)
                values[defined] = (K.holm(values[defined], alpha) if correction == "holm" else
                                   multipletests(values[defined], alpha=alpha,
                                                 method=correction))[1]
    stats.adjusted = adjusted


def _maxt_over_groups(plan: _Plan, groups, n_topics_all: int, correction, B, seed):
    """MaxT over every metric's comparisons, the metrics scored on different topics: one
    sign per topic of the cube (NaN where a metric does not use a topic)."""
    n_metrics = sum(len(members) for members, _, _ in groups)
    union = np.zeros(n_topics_all, dtype=bool)
    for _, _, mask in groups:
        union |= mask
    n_runs = groups[0][1].shape[1]
    scores = np.full((n_metrics, n_runs, n_topics_all), np.nan)
    for members, values, mask in groups:
        scores[np.ix_(members, np.arange(n_runs), np.flatnonzero(mask))] = values
    _, maxt, _ = K.run_randomisation_test(
        scores[:, :, union], plan.x, plan.y, replicates=B, rng=np.random.default_rng(seed),
        family=np.zeros(n_metrics, dtype=np.int64), step_down=correction == "maxt-stepdown",
        raw=False)
    return maxt.reshape(n_metrics, plan.n_comparisons)


def _reverse_sign_statistic(statistic):
    return 1.0 - statistic


_REVERSED = {"t": np.negative, "wilcoxon": None, "sign": _reverse_sign_statistic,
             "permutation": np.negative, "bootstrap": np.negative, "tukey": np.negative}
"""How a test's statistic reads for the reversed comparison (None: the same)."""


def _cells(plan: _Plan, values: np.ndarray, reverse=None, fill=np.nan) -> np.ndarray:
    """``(..., comparison)`` values onto the result's ``(..., X, Y)`` cells; ``reverse``
    maps the values of the cells that show a comparison the other way round."""
    valid = plan.comp >= 0
    out = np.full(values.shape[:-1] + plan.comp.shape, fill, dtype=values.dtype)
    shown = values[..., plan.comp[valid]]
    if reverse is not None:
        shown = np.where(plan.flip[valid], reverse(shown), shown)
    out[..., valid] = shown
    return out


def _adjustment(tests, correction, family) -> dict[str, str]:
    over = ("the comparisons of each metric" if family == "metric"
            else "every metric's comparisons")
    notes = {}
    for test in tests:
        if test == "tukey":
            notes[test] = ("randomised Tukey HSD: already adjusted over all run pairs of each "
                           "metric; no further correction")
        elif correction is None:
            notes[test] = "none: pvalue_adjusted = pvalue"
        elif correction in MAXT_CORRECTIONS:
            kind = "step-down" if correction == "maxt-stepdown" else "single-step"
            notes[test] = (f"Westfall & Young {kind} MaxT on the paired t statistics under "
                           f"shared sign flips, over {over}; max(p_maxt, pvalue)")
        else:
            notes[test] = f"statsmodels multipletests method {correction!r} over {over}"
    return notes


def _dataset(stats: _Stats, plan: _Plan, da, runs, baselines, n_topics, tests, correction,
             family, B, seed, alpha, ci) -> xr.Dataset:
    pairs = baselines is None
    dims = ("run_a", "run_b") if pairs else ("baseline", "run")
    coords = {"test": object_strings(tests), "metric": da["metric"].values,
              "run": runs}
    if pairs:
        coords.update(run_a=runs, run_b=runs)
    else:
        coords["baseline"] = object_strings(baselines)
    test_dims = ("test", "metric", *dims)
    pair_dims = ("metric", *dims)
    statistic = np.stack([_cells(plan, stats.statistic[k], _REVERSED[test])
                          for k, test in enumerate(tests)])
    pvalue = _cells(plan, stats.pvalue)
    adjusted = _cells(plan, stats.adjusted)
    with np.errstate(invalid="ignore"):
        significant = adjusted < alpha
    diagonal = plan.comp < 0  # a run against itself: no win, no loss, all ties
    ties = _cells(plan, stats.ties, fill=0)
    ties[:, diagonal] = n_topics[:, None]
    data = {
        "statistic": (test_dims, statistic),
        "pvalue": (test_dims, pvalue),
        "pvalue_adjusted": (test_dims, adjusted),
        "significant": (test_dims, significant),
        "effect": (pair_dims, _cells(plan, stats.effect, np.negative)),
        "ci_low": (pair_dims, np.where(plan.flip, -_cells(plan, stats.ci_high),
                                       _cells(plan, stats.ci_low))),
        "ci_high": (pair_dims, np.where(plan.flip, -_cells(plan, stats.ci_low),
                                        _cells(plan, stats.ci_high))),
        "effect_size": (pair_dims, _cells(plan, stats.effect_size, np.negative)),
        "hedges_g": (pair_dims, _cells(plan, stats.hedges_g, np.negative)),
        "wins": (pair_dims, np.where(plan.flip, _cells(plan, stats.losses, fill=0),
                                     _cells(plan, stats.wins, fill=0))),
        "ties": (pair_dims, ties),
        "losses": (pair_dims, np.where(plan.flip, _cells(plan, stats.wins, fill=0),
                                       _cells(plan, stats.losses, fill=0))),
        "mean": (("metric", "run"), stats.run_mean),
        "mean_ci_low": (("metric", "run"), stats.run_low),
        "mean_ci_high": (("metric", "run"), stats.run_high),
        "n_topics": ("metric", n_topics),
    }
    if stats.tukey_half is not None:  # mean of d -+ the HSD, symmetric: no flip needed
        effect, half = data["effect"][1], _cells(plan, stats.tukey_half)
        data["tukey_ci_low"] = (pair_dims, effect - half)
        data["tukey_ci_high"] = (pair_dims, effect + half)
    attrs = {"xdiv_kind": "compare", "tests": to_json(list(tests)),
             "correction": "none" if correction is None else correction, "family": family,
             "B": int(B), "seed": int(seed), "alpha": float(alpha), "ci": ci,
             "mode": "pairs" if pairs else "baseline",
             "baseline": to_json([] if pairs else list(baselines)),
             "adjustment": to_json(_adjustment(tests, correction, family))}
    result = xr.Dataset(data, coords=coords, attrs=attrs)
    return with_aliases(result) if pairs else result
