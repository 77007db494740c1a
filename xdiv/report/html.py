"""A self-contained HTML report of a score cube and, optionally, its meta-evaluation.

The report is one HTML file that needs nothing else to be read: its style sheet is
inline, it has no script, and its plots (:mod:`xdiv.plots`) are inline SVG, so it opens
offline and can be mailed or archived as it is. It holds the run table (mean scores
with t-based 95 % confidence intervals over topics), the per-topic distribution of the
primary measure, a matrix of the significance of every run pair (from the
meta-evaluation when given, else paired t-tests with the Holm correction over the whole
family of pairs), discriminative power (with a meta-evaluation) and the plots, each
with a sentence on how to read it. Every label is HTML-escaped.

Beyond :data:`MATRIX_RUNS` runs the significance matrix, whose size grows with the square
of the number of runs, is summarised: per run, how many runs it is significantly better
and worse than; ``full_matrix=True`` (``xdiv report --full-matrix``) shows every p-value.

Three sections qualify the scores, each present only when its data is: "Ties" when the
cube was evaluated with ``ties="range"`` (the mean and largest tie spread of every run and
measure) or ``ties="expected"`` (the largest standard error of the expected scores);
"Unjudged documents" when it holds the residual upper bounds ``score_high`` (or was
scored on condensed lists, ``judged_only``); and "Pool studies" when the results of
:func:`xdiv.pools.leave_one_run_out` or :func:`xdiv.pools.downsample` are given
(``pools=``, ``xdiv report --pools``). A fourth, "Reproducibility", shows the results of
:func:`xdiv.repro.evaluate` given (``repro=``, ``xdiv report --repro``), and a fifth,
"Models", the linear mixed models of :func:`xdiv.stats.mixed` and the analyses of
variance of :func:`xdiv.stats.anova_table` given (``models=``, ``xdiv report --model``).
"""

from __future__ import annotations

import html
import io
import os
import re
import warnings
from collections.abc import Sequence

import numpy as np
import xarray as xr
from scipy.stats import ttest_1samp

from ..errors import InputError
from ..core.cube import score_array, summarize

__all__ = ["PRIMARY", "check_model", "check_pool_study", "check_repro", "default_primary",
           "html_report", "run_summary", "significance_matrix", "write_report"]

LEVEL = 0.95
"""Coverage of the confidence intervals of the run table."""

MATRIX_RUNS = 40
"""Runs up to which the report shows the full significance matrix (every p-value); with
more it shows per run the number of runs it is significantly better and worse than,
unless ``full_matrix=True``."""

PRIMARY = "alpha-nDCG@20"
"""The primary measure of a report whose cube holds it: the measure the TREC Web Track
diversity task reported first (Clarke, Craswell, Soboroff & Ashkan, TREC 2010 overview)."""


def default_primary(scores) -> str:
    """:data:`PRIMARY` when the cube holds it, else its first measure."""
    labels = [str(m) for m in score_array(scores)["metric"].values]
    return PRIMARY if PRIMARY in labels else labels[0]


STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 80em;
       padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; }
p.how { color: #444; max-width: 60em; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: right; white-space: nowrap; }
th { background: #f3f3f3; } th.run, td.run { text-align: left; }
thead th { white-space: normal; vertical-align: bottom; padding: 2px 4px; }
td .ci { color: #666; font-size: 11px; white-space: normal; }
td.warn { background: #fde9b8; }
td.up { background: #cfe8cf; } td.down { background: #f4cccc; } td.self { background: #eee; }
table.matrix { font-size: 11px; }
table.matrix td { padding: 1px 3px; }
table.matrix thead th:not(.run) { writing-mode: vertical-rl; transform: rotate(180deg);
                                  text-align: left; padding: 4px 1px; white-space: nowrap; }
figure { margin: 1em 0; } figcaption { color: #444; max-width: 60em; }
svg { max-width: 100%; height: auto; }
"""


def run_summary(scores, level: float = LEVEL) -> xr.Dataset:
    """Mean score of every run under every metric with a confidence interval over topics.

    The interval is Student's t interval of the mean of a run's topic scores, ``mean ±
    t(1 - (1 - level) / 2, n - 1) s / sqrt(n)`` over the ``n`` topics where the metric
    is defined (scipy's one-sample t-test); it is NaN with fewer than two topics.

    Returns
    -------
    xarray.Dataset
        ``mean``, ``low``, ``high`` and ``n_topics`` over (metric, run); attribute
        ``level``.
    """
    da = score_array(scores)
    low, high = xr.apply_ufunc(_interval, da, kwargs={"level": level},
                               input_core_dims=[["topic"]], output_core_dims=[[], []],
                               dask="parallelized", output_dtypes=[float, float])
    summary = summarize(da.to_dataset(name="score"))
    return summary.assign(low=low, high=high).assign_attrs(level=level)


def _interval(values: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """scipy's t interval of the mean along the last axis, NaNs left out."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # fewer than two topics: NaN
        interval = ttest_1samp(values, 0.0, axis=-1, nan_policy="omit") \
            .confidence_interval(level)
    return np.asarray(interval.low, dtype=float), np.asarray(interval.high, dtype=float)


def significance_matrix(scores, metric: str, meta: xr.Dataset | None = None,
                        test: str | None = None, alpha: float | None = None) -> xr.Dataset:
    """The p-value and mean difference of every ordered run pair under ``metric``.

    With ``meta`` (:func:`xdiv.meta.discriminative_power` or ``xdiv meta -o``) the
    p-values are its ASLs (of ``test``, see :func:`xdiv.meta.select_test`), compared with
    its ``alpha``; without it they are paired t-tests over the topics scored for every
    run, adjusted with the Holm step-down procedure (Holm, Scandinavian Journal of
    Statistics, 1979) over the whole family of run pairs (:func:`xdiv.stats.paired_t_tests`,
    statsmodels' ``multipletests``), compared with ``alpha`` (default 0.05).

    Returns
    -------
    xarray.Dataset
        ``pvalue`` and ``diff`` (mean of run_a - run_b) over (run_a, run_b), NaN on the
        diagonal; attributes ``alpha`` and ``test`` (what the p-values come from).
    """
    from ..analysis import meta as M
    from ..analysis.stats import paired_t_tests

    runs = [str(r) for r in score_array(scores, [metric])["run"].values]
    if meta is not None:
        _check_runs(meta, runs)
        one = M.select_test(meta, test)
        pairs = one[["pvalue", "diff"]].sel(metric=metric, run_a=runs, run_b=runs)
        return xr.Dataset({"pvalue": pairs["pvalue"], "diff": pairs["diff"]}).assign_attrs(
            alpha=float(one.attrs.get("alpha", 0.05) if alpha is None else alpha),
            test=str(one.attrs.get("test", "meta-evaluation")))
    alpha = 0.05 if alpha is None else alpha
    tests = paired_t_tests(scores, metric, method="holm", alpha=alpha)
    index = {run: k for k, run in enumerate(runs)}
    pvalue = np.full((len(runs), len(runs)), np.nan)
    diff = np.full((len(runs), len(runs)), np.nan)
    a = tests["run_a"].map(index).to_numpy()
    b = tests["run_b"].map(index).to_numpy()
    pvalue[a, b] = pvalue[b, a] = tests["pvalue_adjusted"].to_numpy()
    diff[a, b] = tests["diff"].to_numpy()
    diff[b, a] = -tests["diff"].to_numpy()
    dims = ("run_a", "run_b")
    return xr.Dataset({"pvalue": (dims, pvalue), "diff": (dims, diff)},
                      coords={"run_a": runs, "run_b": runs},
                      attrs={"alpha": float(alpha),
                             "test": "paired t-test, Holm-adjusted over all run pairs"})


def _check_runs(meta: xr.Dataset, runs: Sequence[str]) -> None:
    held = sorted(str(r) for r in meta["run_a"].values) if "run_a" in meta.coords else []
    if held != sorted(runs):
        raise InputError("the meta-evaluation is not of the score cube's runs (it holds "
                         f"{', '.join(held) or 'no runs'})")


def html_report(scores: xr.Dataset, meta: xr.Dataset | None = None, *,
                metric: str | None = None, alpha: float | None = None,
                title: str | None = None, full_matrix: bool = False,
                baseline: str | Sequence[str] | None = None,
                pairs_table: bool = False,
                pools: xr.Dataset | Sequence[xr.Dataset] | None = None,
                repro: xr.Dataset | Sequence[xr.Dataset] | None = None,
                models: xr.Dataset | Sequence[xr.Dataset] | None = None) -> str:
    """The HTML report (one self-contained page) of a score cube.

    Parameters
    ----------
    scores : xarray.Dataset
        The ``score(metric, run, topic)`` cube of :func:`xdiv.evaluate`.
    meta : xarray.Dataset, optional
        Its meta-evaluation (:func:`xdiv.meta.discriminative_power`, or ``xdiv meta -o``
        with one or both tests): adds discriminative power and ASL curves, and gives the
        significance matrix.
    metric : str, optional
        The primary measure (distribution, significance, run order); by default
        :data:`PRIMARY` when the cube holds it (ndeval's set, as TREC reported it), else
        the cube's first measure.
    alpha : float, optional
        Significance level of the t-tests (default: the meta-evaluation's, else 0.05).
    title : str, optional
        Page title (default: from the cube's collection).
    full_matrix : bool
        Show the p-value of every run pair even beyond :data:`MATRIX_RUNS` runs (by
        default a larger cube's significance is summarised per run: the number of runs
        it is significantly better and worse than).
    baseline : str or list of str, optional
        Add the table a paper prints against these baselines (:func:`xdiv.compare` with
        paired t-tests, Holm-corrected over each measure's comparisons, at ``alpha``;
        :func:`xdiv.table`), with its methods paragraph.
    pairs_table : bool
        Add the same table over all run pairs (each run marked with the letters of the
        runs it is significantly better than), when no ``baseline`` is given.
    pools : xarray.Dataset or list of xarray.Dataset, optional
        Pool studies of the collection: results of :func:`xdiv.pools.leave_one_run_out`
        (the pool bias table and figure) and of :func:`xdiv.pools.downsample` (the
        rank correlations against the fraction of judgments kept, and their figures),
        told apart by their variables (:func:`check_pool_study`).
    repro : xarray.Dataset or list of xarray.Dataset, optional
        Results of :func:`xdiv.repro.evaluate` (``xdiv repro -o``), each of one or more
        pairs of repeated runs: adds the section "Reproducibility" with their tables (ARP,
        RMSE, p-values; ER and ΔRI; KTU and RBO at each cutoff) and figures (ER against
        ΔRI; KTU, RBO and RMSE against the cutoff), checked by :func:`check_repro`.
    models : xarray.Dataset or list of xarray.Dataset, optional
        Results of :func:`xdiv.stats.mixed` and :func:`xdiv.stats.anova_table` (``xdiv
        model -o``), checked by :func:`check_model`: adds the section "Models" with, for a
        mixed model, the run means and their confidence intervals (a table and a forest
        plot, :func:`xdiv.plot.models.model_means_plot`), the variance components and
        the ICC, the bounded-scores advice and the adjusted p-values of the pairwise
        contrasts (beyond :data:`MATRIX_RUNS` runs, unless ``full_matrix``, per run the
        number of runs it is significantly above and below); for an analysis of variance,
        its table with the effect sizes.

    Raises
    ------
    InputError
        A metric the cube lacks, a meta-evaluation of other runs, or a pool study,
        reproducibility result or model result that is none.
    """
    da = score_array(scores)
    metric = str(score_array(scores, [metric or default_primary(scores)])["metric"].values[0])
    if meta is not None:
        _check_runs(meta, [str(r) for r in da["run"].values])
    studies = _pool_studies(pools)
    repeated = _repro_results(repro)
    fitted = _model_results(models)
    summary = run_summary(scores)
    order = [str(r) for r in summary["mean"].sel(metric=metric).to_series()
             .sort_values(ascending=False, kind="stable").index]
    if title is None:
        source = os.path.basename(str(scores.attrs.get("collection", "")))
        title = f"xdiv report: {source or 'score cube'}"
    parts = [f"<h1>{_e(title)}</h1>", _overview(scores, da, metric),
             "<h2>Runs</h2>",
             _p(f"Mean score of every run over the topics where the measure is defined, "
                f"runs sorted by {metric} (first column); below each mean, its "
                f"{LEVEL:.0%} confidence interval (Student's t over topics). Runs whose "
                "intervals overlap widely are not told apart by this topic set."),
             _run_table(summary, order, metric),
             *_ties_section(scores, metric, order),
             *_unjudged_section(scores, metric, order),
             *_distribution_section(scores, metric, order),
             *_significance_section(scores, meta, metric, order, alpha, full_matrix)]
    if baseline is not None or pairs_table:
        parts += _comparison_section(scores, baseline, 0.05 if alpha is None else alpha)
    if meta is not None:
        parts += _power_section(meta)
    parts += _pools_section(studies, metric)
    parts += _repro_section(repeated)
    parts += _models_section(fitted, full_matrix)
    parts += _plots_section(scores, order)
    return _page(title, parts)


def _comparison_section(scores: xr.Dataset, baseline, alpha: float) -> list:
    """The table a paper prints (:func:`xdiv.table`) and its methods paragraph."""
    from ..analysis.compare import compare
    from ..formats.tables import methods_paragraph, table

    with warnings.catch_warnings():  # the topics left out are said by the table's legend
        warnings.simplefilter("ignore")
        result = compare(scores, baseline=baseline, tests=("t",), correction="holm",
                         alpha=alpha)
    against = ("all pairs of runs" if baseline is None else "the baseline"
               + ("s " if not isinstance(baseline, str) and len(baseline) > 1 else " ")
               + ", ".join([baseline] if isinstance(baseline, str) else baseline))
    return ["<h2>Comparison with " + _e(against) + "</h2>",
            _p("The table a paper prints: every run's mean on every measure, the best of "
               "each measure in bold, and the differences that paired t-tests find "
               "significant after Holm's correction over the comparisons of each measure "
               "(xdiv compare gives the other tests and corrections)."),
            f'<div class="scroll">{table(result, format="html")}</div>',
            f'<p class="how">{methods_paragraph(result, "html")}</p>']


def _distribution_section(scores: xr.Dataset, metric: str, order: Sequence[str]) -> list:
    from ..plot.figures import run_differences, topic_distributions

    parts = ["<h2>Per-topic distribution</h2>",
             _figure(topic_distributions(scores, metric), "topics",
                     f"Each box spans the middle half of a run's {metric} scores over the "
                     "topics, with the median as a line and outlying topics as circles; "
                     "boxes that overlap much mean the runs' order rests on few topics.")]
    if len(order) >= 2:
        parts.append(_figure(
            run_differences(scores, metric, order[0], order[1]), "diff",
            f"Per-topic differences between the two best runs under {metric}, sorted: "
            f"blue bars are topics where {order[0]} scores higher, red ones where "
            f"{order[1]} does."))
    return parts


def _tests(meta: xr.Dataset) -> list:
    """The tests a meta-evaluation holds, as :func:`xdiv.meta.select_test` names them."""
    return [str(t) for t in meta["test"].values] if "test" in meta.dims else [None]


def _significance_section(scores: xr.Dataset, meta: xr.Dataset | None, metric: str,
                          order: Sequence[str], alpha: float | None,
                          full_matrix: bool = False) -> list:
    parts = ["<h2>Significance of run differences</h2>"]
    if len(order) < 2:
        return parts + [_p("One run: there are no run pairs to test.")]
    held = meta is not None and metric in [str(m) for m in meta["metric"].values]
    note = "" if held or meta is None else \
        f"The meta-evaluation holds no results for {metric}. "
    for test in _tests(meta) if held else [None]:
        try:
            matrix = significance_matrix(scores, metric, meta if held else None, test, alpha)
        except InputError as exc:
            parts.append(_p(f"Not tested: {exc}."))
            continue
        if full_matrix or len(order) <= MATRIX_RUNS:
            parts += [_p(f"{note}{matrix.attrs['test']}, {metric}, alpha = "
                         f"{matrix.attrs['alpha']:g}: the cell in row A and column B gives "
                         "the p-value of A against B; green when A is significantly better "
                         "than B, red when significantly worse. Runs in the order of the "
                         "run table."),
                      _significance_table(matrix, order)]
        else:
            parts += [_p(f"{note}{matrix.attrs['test']}, {metric}, alpha = "
                         f"{matrix.attrs['alpha']:g}, summarised for {len(order)} runs "
                         f"(the full matrix of {len(order) * (len(order) - 1) // 2} run "
                         f"pairs is shown up to {MATRIX_RUNS} runs, or on request: "
                         "full_matrix=True, xdiv report --full-matrix): for every run, the "
                         "number of runs it is significantly better than, significantly "
                         "worse than and not told apart from. Runs in the order of the run "
                         "table."),
                      _significance_summary(matrix, order)]
    return parts


def _power_section(meta: xr.Dataset) -> list:
    from ..analysis.meta import select_test
    from ..plot.figures import asl_curves

    results = [select_test(meta, t) for t in _tests(meta)]
    parts = ["<h2>Discriminative power</h2>",
             _p("The share of run pairs each measure finds significantly different "
                "(Sakai, SIGIR 2006), with the number of such pairs and the smallest "
                "difference in means that was significant (the required difference); "
                "measures sorted by the first test's power."),
             _power_table(results)]
    for k, result in enumerate(results):
        parts.append(_figure(
            asl_curves(result), f"asl{k}",
            "ASL curves: every run pair's p-value (ASL) under each measure, sorted; a curve "
            "that stays below the dotted significance level further to the right belongs "
            "to a more discriminative measure (legend: most discriminative first)."))
    return parts


def _plots_section(scores: xr.Dataset, order: Sequence[str]) -> list:
    from ..analysis.meta import rank_correlation
    from ..plot.figures import correlation_matrix, irec_dndcg

    labels = [str(m) for m in scores["metric"].values]
    irec = {int(found.group(1)) for found in map(_IREC.fullmatch, labels) if found}
    dndcg = {int(found.group(1)) for found in map(_DNDCG.fullmatch, labels) if found}
    cutoffs = sorted(irec & dndcg)
    parts = ["<h2>Plots</h2>"]
    for cutoff in sorted(irec ^ dndcg):  # one of the two axes only: said, not dropped
        held, lacking = (("I-rec", "D-nDCG") if cutoff in irec else ("D-nDCG", "I-rec"))
        parts.append(_p(f"No I-rec@{cutoff} / D-nDCG@{cutoff} plot: the cube holds "
                        f"{held}@{cutoff} but not {lacking}@{cutoff}; evaluate both to see "
                        "diversity against relevance."))
    for cutoff in cutoffs:
        try:
            figure = irec_dndcg(scores, cutoff=cutoff)
        except InputError as error:  # every topic NaN: said in place of the plot
            parts.append(_p(f"No I-rec@{cutoff} / D-nDCG@{cutoff} plot: {error}."))
            continue
        parts.append(_figure(
            figure, f"scatter{cutoff}",
            f"Each run's mean I-rec@{cutoff} (diversity) against its mean D-nDCG@{cutoff} "
            f"(relevance); grey lines join points of equal D#-nDCG@{cutoff}, which grows "
            "up and to the right (Sakai & Song, SIGIR 2011)."))
    if len(labels) >= 2 and len(order) >= 2:
        parts.append(_figure(
            correlation_matrix(rank_correlation(scores, "kendall")), "correlation",
            "Kendall's tau between the run rankings of every two measures, measures "
            "ordered by clustering: blue squares on the diagonal are groups of measures "
            "that rank the runs alike."))
    if len(parts) == 1:
        parts.append(_p("No further plots: the cube holds neither I-rec@l with D-nDCG@l "
                        "(the diversity/relevance scatter) nor two measures of two runs or "
                        "more (the rank correlations)."))
    return parts


# ------------------------------------------------------------ ties and unjudged documents

ORDER_WORDS = {
    "score-docno-desc": "by score, tied documents by docno descending (as trec_eval, gdeval "
                        "and ndeval -traditional rank them)",
    "score-docno-asc": "by score, tied documents by docno ascending",
    "rank": "by the runs' rank column (as TREC's ndeval ranks them), equal ranks by score",
}
"""How the cube attribute ``order`` (:func:`xdiv.read_runs`) ranked tied documents, in
the words of the report's Ties section."""

_METHOD_WORDS = {
    "exact": "exact: the lowest and highest score over every order of the tied documents",
    "bounds": "bounds: each intent's best and worst order at once, so that the spread is an "
              "upper bound",
    "sampled": "sampled: the extremes of the order read and of {samples} random orders "
               "(tie_seed = {seed}), so that the spread is a lower bound",
}


_WARN = ' class="warn"'


def _holds(scores, name: str) -> bool:
    """Whether the score cube (a Dataset; a bare score DataArray holds nothing else) holds
    the variable ``name``."""
    return isinstance(scores, xr.Dataset) and name in scores.data_vars


def _flag(value) -> bool:
    """A 0/1 attribute (NetCDF keeps no booleans) as a bool; text such as ``"true"`` too."""
    if isinstance(value, str):
        return value.strip().lower() in {"1", "true", "yes"}
    try:
        return bool(int(value))
    except (TypeError, ValueError):
        return False


def _metric_order(scores: xr.Dataset, primary: str) -> list:
    labels = [str(m) for m in scores["metric"].values]
    return [primary, *(m for m in labels if m != primary)]


def _ties_methods(scores: xr.Dataset) -> dict:
    if "ties_method" not in scores.coords:
        return {}
    return {str(m): str(k) for m, k in zip(scores["metric"].values,
                                            scores["ties_method"].values)}


def _order_sentence(scores: xr.Dataset, expected: bool) -> str:
    order = str(scores.attrs.get("order", ""))
    if not order:
        read = ("The cube does not record how the runs' documents were ranked (its order "
                "attribute is empty)")
    else:
        words = ORDER_WORDS.get(order, f"as the order {order!r} ranks them")
        read = f"The runs' documents were ranked {words} (order = {order})"
    if expected:
        return (read + "; score is not the score of that order but the expectation over "
                "the orders of each group of tied documents.")
    return (read + ": score is the score of that order, and score_min and score_max are "
            "the lowest and highest scores over the orders of the tied documents.")


def _reduce(values: np.ndarray, how) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices: NaN
        return how(values, axis=-1)


def _ties_section(scores: xr.Dataset, primary: str, order: Sequence[str]) -> list:
    """Ties: how much the scores depend on the order of tied documents (``tie_spread``,
    ``ties="range"``) or how precise the expectations over tie orders are (``score_se``,
    ``ties="expected"``); nothing without either."""
    spread, expected = _holds(scores, "tie_spread"), _holds(scores, "score_se")
    if not (spread or expected):
        return []
    from ..engine import TIE_SPREAD_WARNING

    metrics = _metric_order(scores, primary)
    methods = _ties_methods(scores)
    held = [k for k in _METHOD_WORDS if k in methods.values()]
    samples = scores.attrs.get("tie_samples", "?")
    seed = scores.attrs.get("tie_seed", "?")
    how = "; ".join(_METHOD_WORDS[k].format(samples=samples, seed=seed) for k in held)
    parts = ["<h2>Ties</h2>",
             _p("Documents a run gives the same score (tied documents) have no order of "
                "their own: any order of them is as right as another, yet a measure's "
                "score can depend on the one chosen (McSherry & Najork, \"Computing "
                "information retrieval performance measures efficiently in the presence "
                "of tied scores\", ECIR 2008). " + _order_sentence(scores, expected))]
    if spread:
        values = scores["tie_spread"].transpose("metric", "run", "topic")
        values = values.sel(metric=metrics, run=list(order)).values
        mean, most = _reduce(values, np.nanmean), _reduce(values, np.nanmax)
        over = np.nan_to_num(mean, nan=0.0) > TIE_SPREAD_WARNING
        parts += [
            _p("The table gives, for every run and measure, the mean over the topics of "
               "the tie spread (score_max - score_min: the highest minus the lowest score "
               "over the orders of the run's tied documents) and, below it, the largest "
               "spread of one topic. Highlighted cells exceed "
               f"{TIE_SPREAD_WARNING:g}: there the order of tied documents alone moves "
               f"the run's mean score by more than {TIE_SPREAD_WARNING:g}, and runs whose "
               f"means differ by less are not told apart by this evaluation "
               f"({int(over.sum())} of {over.size} run and measure pairs)."
               + (f" Under each measure, how its lowest and highest scores were found: "
                  f"{how}." if how else "")),
            _spread_table(mean, most, over, metrics, order, methods)]
    if expected:
        se = scores["score_se"].transpose("metric", "run", "topic").sel(metric=metrics)
        largest = _reduce(se.values.reshape(len(metrics), -1), np.nanmax)
        worst = float(np.nanmax(largest, initial=0.0)) if np.isfinite(largest).any() \
            else float("nan")
        parts += [
            _p("The scores are expectations over the orders of the tied documents "
               "(ties = expected), each order equally likely: exact for the measures "
               "marked exact, else the mean over "
               f"{samples} random orders (tie_seed = {seed}), whose standard error is "
               f"at most {_number(worst, 6)} for a topic score (the largest over the "
               "runs, topics and measures)."),
            _se_table(largest, metrics, methods)]
    return parts


def _spread_table(mean, most, over, metrics, order, methods) -> str:
    head = "".join(f"<th>{_e(m)}</th>" for m in metrics)
    kinds = ("" if not methods else '<tr><th class="run">ties_method</th>'
             + "".join(f"<th>{_e(methods.get(m, '–'))}</th>" for m in metrics) + "</tr>")
    rows = []
    for j, run in enumerate(order):
        cells = "".join(
            f"<td{_WARN if over[i, j] else ''}>{_number(mean[i, j])}"
            f'<br><span class="ci">max {_number(most[i, j])}</span></td>'
            for i in range(len(metrics)))
        rows.append(f'<tr><td class="run">{_e(run)}</td>{cells}</tr>')
    return (f'<div class="scroll"><table class="ties"><thead><tr><th class="run">run</th>'
            f'{head}</tr>{kinds}</thead><tbody>{"".join(rows)}</tbody></table></div>')


def _se_table(largest, metrics, methods) -> str:
    rows = "".join(f'<tr><td class="run">{_e(m)}</td><td>{_e(methods.get(m, "–"))}</td>'
                   f"<td>{_number(largest[i], 6)}</td></tr>" for i, m in enumerate(metrics))
    return ('<div class="scroll"><table class="ties"><thead><tr><th class="run">measure'
            "</th><th>ties_method</th><th>largest standard error</th></tr></thead>"
            f"<tbody>{rows}</tbody></table></div>")


def _unjudged_section(scores: xr.Dataset, primary: str, order: Sequence[str]) -> list:
    """Unjudged documents: the residual bounds of the primary measure (``score_high``,
    ``residuals=True``) and the note on condensed lists (``judged_only``)."""
    high = _holds(scores, "score_high")
    condensed = _flag(scores.attrs.get("judged_only", 0))
    if not (high or condensed):
        return []
    parts = ["<h2>Unjudged documents</h2>"]
    if condensed:
        parts.append(_p(
            "The scores were computed on condensed lists (Sakai, \"Alternatives to bpref\", "
            "SIGIR 2007): the unjudged documents (without a qrels line of level >= 0 for "
            "the topic) were removed from each ranked list before scoring, the judged ones "
            "moving up, so that "
            "unjudged documents neither count as non-relevant nor take places within a "
            "cutoff."))
    if high:
        low = scores["score"].transpose("metric", "run", "topic").sel(
            metric=primary, run=list(order)).values
        up = scores["score_high"].transpose("metric", "run", "topic").sel(
            metric=primary, run=list(order)).values
        mean_low, mean_high = _reduce(low, np.nanmean), _reduce(up, np.nanmean)
        gap = mean_high - mean_low
        widest = int(np.nanargmax(gap)) if np.isfinite(gap).any() else None
        parts.append(_p(
            f"Residuals of {primary} (Moffat & Zobel, \"Rank-biased precision for "
            "measurement of retrieval effectiveness\", TOIS 2008): score is a lower bound, "
            "with the documents nobody judged counted not relevant; score_high is an "
            "upper bound, with every unjudged document within the measure's cutoff "
            "counted relevant, at the highest grade, to every intent of its topic (the "
            "ideal list stays that of the qrels, so an upper bound may exceed 1). The "
            "gap is the share of a run's score that its unjudged documents leave open: a "
            "large gap says the run ranks near its top documents the pool did not reach, "
            "and its score says little about it."
            + (f" The widest gap: {order[widest]}, {_number(gap[widest])}."
               if widest is not None else "")))
        rows = "".join(
            f'<tr><td class="run">{_e(run)}</td><td>{_number(mean_low[k])}</td>'
            f"<td>{_number(mean_high[k])}</td><td>{_number(gap[k])}</td></tr>"
            for k, run in enumerate(order))
        parts.append(
            '<div class="scroll"><table class="unjudged"><thead><tr><th class="run">run'
            f"</th><th>{_e(primary)}: score (lower bound)</th><th>score_high (upper "
            f"bound)</th><th>gap</th></tr></thead><tbody>{rows}</tbody></table></div>")
    return parts


# ---------------------------------------------------------------------------- pool studies

POOL_BIAS, DOWNSAMPLING = "pool_bias", "downsampling"
"""The kinds of pool study :func:`check_pool_study` tells apart (the ``xdiv_kind``
attribute of :func:`xdiv.pools.leave_one_run_out`'s and :func:`xdiv.pools.downsample`'s
results)."""


def check_pool_study(dataset, source: str | os.PathLike | None = None) -> str:
    """The kind of a pool study: ``"pool_bias"`` for a result of
    :func:`xdiv.pools.leave_one_run_out` (variables ``mean_difference(metric, run)`` and
    ``n_removed(run)``), ``"downsampling"`` for one of :func:`xdiv.pools.downsample`
    (a ``fraction`` dimension, ``full_mean(metric, run)`` and ``kendall(fraction,
    repeat, metric)``).

    Raises
    ------
    InputError
        ``SOURCE: not a pool study (...)``, in one line, for anything else.
    """
    where = f"{os.fspath(source)}: " if source is not None else ""
    if isinstance(dataset, xr.Dataset):
        names = set(dataset.data_vars)
        if ({"mean_difference", "n_removed"} <= names
                and set(dataset["mean_difference"].dims) == {"metric", "run"}
                and dataset["n_removed"].dims == ("run",)):
            return POOL_BIAS
        if ("fraction" in dataset.dims and {"full_mean", "kendall"} <= names
                and set(dataset["kendall"].dims) == {"fraction", "repeat", "metric"}):
            return DOWNSAMPLING
    kind = dataset.attrs.get("xdiv_kind", "") if isinstance(dataset, xr.Dataset) else ""
    what = (f"a dataset of kind {kind!r}" if kind else "a dataset without the variables of "
            "one") if isinstance(dataset, xr.Dataset) else f"a {type(dataset).__name__}"
    raise InputError(f"{where}not a pool study ({what}; write one with 'xdiv pools "
                     "leave-one-out -o' or 'xdiv pools downsample -o', or "
                     "xdiv.pools.leave_one_run_out and xdiv.pools.downsample)")


def _pool_studies(pools) -> list:
    """``(kind, dataset)`` of each pool study given, checked before any work."""
    if pools is None:
        return []
    if isinstance(pools, xr.Dataset):
        pools = [pools]
    out = []
    for k, study in enumerate(pools):
        try:
            out.append((check_pool_study(study), study))
        except InputError as exc:
            raise InputError(f"pools[{k}]: {exc}") from None
    return out


def _study_metric(study: xr.Dataset, primary: str) -> tuple[str, str]:
    """The study's metric shown (the report's primary measure when it holds it, else its
    first) and a sentence saying which when it is not the primary one."""
    held = [str(m) for m in study["metric"].values]
    if primary in held:
        return primary, ""
    return held[0], (f" The study holds no {primary}: the table shows its first measure, "
                     f"{held[0]}.")


def _pools_section(studies: Sequence, primary: str) -> list:
    if not studies:
        return []
    parts = ["<h2>Pool studies</h2>",
             _p("A test collection judges the documents its pool gathered, the top "
                "documents of the runs submitted when it was built; a run scored later is "
                "scored as if the documents nobody judged were not relevant. The studies "
                "below measure how much the scores and the ranking of the runs owe to "
                "the pool (Zobel, \"How reliable are the results of large-scale "
                "information retrieval experiments?\", SIGIR 1998; Buckley & Voorhees, "
                "\"Retrieval evaluation with incomplete information\", SIGIR 2004).")]
    for k, (kind, study) in enumerate(studies):
        if kind == POOL_BIAS:
            parts += _pool_bias_part(study, primary, k)
        else:
            parts += _downsampling_part(study, k)
    return parts


def _pool_bias_part(study: xr.Dataset, primary: str, key: int) -> list:
    from ..plot.pools import pool_bias_plot

    metric, note = _study_metric(study, primary)
    runs = [str(r) for r in study["run"].values]
    change = study["mean_difference"].sel(metric=metric).values.astype(float)
    rank = np.argsort(np.where(np.isnan(change), np.inf, change), kind="stable")
    by_group = study.attrs.get("left_out") == "group"
    groups = [str(g) for g in study["group"].values] if "group" in study.coords else runs
    depth = study.attrs.get("depth", "?")
    what = "group" if by_group else "run"
    columns = {"n_removed": "judged unique documents removed",
               "n_removed_relevant": "relevant ones", "n_unique": "unique documents pooled"}
    columns = {name: label for name, label in columns.items() if name in study}
    head = (("<th>group</th>" if by_group else "") + f"<th>{_e(metric)}: mean change</th>"
            + "".join(f"<th>{_e(label)}</th>" for label in columns.values()))
    rows = []
    for j in rank:
        cells = (f'<td class="run">{_e(groups[j])}</td>' if by_group else "") + \
            f"<td>{_number(change[j])}</td>" + "".join(
                f"<td>{int(study[name].values[j])}</td>" for name in columns)
        rows.append(f'<tr><td class="run">{_e(runs[j])}</td>{cells}</tr>')
    pool = study.attrs.get("pool_size")
    parts = [f"<h3>Leave one {what} out (pool depth {_e(depth)})</h3>",
             _p(f"Pool bias (Zobel, SIGIR 1998; Buckley, Dimmick, Soboroff & Voorhees, "
                f"\"Bias and the limits of pooling\", SIGIR 2006): each {what} is scored "
                f"again with the judged documents that only it brought to the depth-{depth} "
                "pool removed from the qrels, and the table gives its mean change of "
                f"{metric} over the topics, the largest loss first. A {what} far below 0 "
                "owes much of its score to documents no other one found: a new run of its "
                "kind, scored after the pool was judged, would be underrated by about that "
                "much. Removing documents can also raise a score (they leave the ideal "
                "list too, and an intent left without relevant documents drops out)."
                + (f" The pool held {int(pool)} documents over the topics." if pool
                   is not None else "") + note),
             f'<div class="scroll"><table class="pools"><thead><tr><th class="run">run</th>'
             f'{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>',
             _figure(pool_bias_plot(study, metric), f"poolbias{key}",
                     f"The mean change of {metric} of each {what} when the judged documents "
                     "only it pooled are removed, one bar a run, sorted; at each bar the "
                     "judged unique documents removed (relevant ones in brackets).")]
    return parts


EQUIVALENT = 0.9
"""The rank correlation under which the report highlights a downsampled ranking: two
rankings correlated at 0.9 or more are usually taken as equivalent (Voorhees, SIGIR
1998)."""

_CORRELATION_WORDS = {"kendall": "Kendall's tau", "tau_ap": "tau_ap",
                      "tau_ap_sym": "symmetric tau_ap", "tau_ap_b": "tau_ap_b"}


def _downsampling_part(study: xr.Dataset, key: int) -> list:
    from ..plot.pools import downsampling_plot

    metrics = [str(m) for m in study["metric"].values]
    fractions = study["fraction"].values
    coefficients = [c for c in dict.fromkeys(["kendall", "tau_ap",
                                              str(study.attrs.get("tau", "kendall"))])
                    if c in study.data_vars
                    and set(study[c].dims) == {"fraction", "repeat", "metric"}]
    head = "".join(f"<th>{_e(m)}: {_e(_CORRELATION_WORDS.get(c, c))}</th>"
                   for m in metrics for c in coefficients)
    values = {c: study[c].transpose("fraction", "metric", "repeat").values
              for c in coefficients}
    kept = study["n_kept"].sum("topic").values if "n_kept" in study else None
    rows = []
    for a, fraction in enumerate(fractions):
        cells = []
        for i in range(len(metrics)):
            for c in coefficients:
                sample = values[c][a, i]
                mean = _reduce(sample[None, :], np.nanmean)[0]
                low, high = (_reduce(sample[None, :], np.nanmin)[0],
                             _reduce(sample[None, :], np.nanmax)[0])
                warn = _WARN if np.isfinite(mean) and mean < EQUIVALENT else ""
                cells.append(f"<td{warn}>{_number(mean, 3)}<br><span class=\"ci\">"
                             f"{_number(low, 3)} – {_number(high, 3)}</span></td>")
        judged = f"<td>{int(kept[a])}</td>" if kept is not None else ""
        rows.append(f'<tr><td class="run">{fraction:g}</td>{judged}{"".join(cells)}</tr>')
    repeats = study.sizes.get("repeat", "?")
    parts = [f"<h3>Judgment downsampling ({study.sizes.get('run', '?')} runs, "
             f"{repeats} repeats per fraction)</h3>",
             _p("Each topic keeps a random fraction of its judged documents (the samples "
                "of one repeat nested: what a fraction keeps, every larger one keeps too), "
                "every run is scored again, and the ranking of the runs by mean score is "
                "compared with their ranking under all the judgments (Buckley & Voorhees, "
                "SIGIR 2004), by Kendall's tau and by the AP correlation tau_ap, which "
                "weighs swaps near the top of the ranking more (Yilmaz, Aslam & Robertson, "
                "\"A new rank correlation coefficient for information retrieval\", SIGIR "
                "2008). Cells: the mean over the repeats, below it the lowest and highest "
                "repeat; highlighted below 0.9, the correlation under which two rankings "
                "are usually no longer taken as equivalent (Voorhees, SIGIR 1998). A "
                "measure whose correlations stay high at small fractions ranks the runs "
                "alike with far fewer judgments."),
             f'<div class="scroll"><table class="pools"><thead><tr><th class="run">'
             f'fraction</th>{"<th>judged documents kept</th>" if kept is not None else ""}'
             f'{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>']
    for c in coefficients:
        parts.append(_figure(
            downsampling_plot(study, tau=c), f"downsample{key}-{c}",
            f"{_CORRELATION_WORDS.get(c, c)} between the run ranking under the "
            "downsampled judgments and under all of them, against the fraction of "
            "judgments kept: one line per measure (the mean over the repeats) in a "
            "band from the lowest to the highest repeat; the dotted line marks 0.9."))
    return parts


# ------------------------------------------------------------------ reproducibility

_REPRO_DIMS = {"arp": {"metric", "side", "role"}, "pvalue": {"metric", "role"},
               "effect_size": {"metric", "role"}, "rmse": {"metric", "role"},
               "nrmse": {"metric", "role"}, "er": {"metric"}, "dri": {"metric"},
               "ktu": {"role", "cutoff"}, "rbo": {"role", "cutoff"},
               "rbo_min": {"role", "cutoff"}, "rbo_res": {"role", "cutoff"},
               "ktu_topics": {"role", "cutoff"}}
"""The variables of :func:`xdiv.repro.evaluate`'s result the report shows, and their
dimensions besides ``pair``."""

_CASE_WORDS = {
    "same_collection": "repeated on the original collection (ACM's terms since 2020: "
                       "reproducibility; Breuer et al.: replicability)",
    "other_collection": "repeated on another collection (ACM's terms since 2020: "
                        "replicability; Breuer et al.: reproducibility)",
}


def check_repro(dataset, source: str | os.PathLike | None = None) -> None:
    """Check that ``dataset`` is a result of :func:`xdiv.repro.evaluate` (``xdiv repro
    -o``) the report can show: its kind, ``arp`` and ``pvalue``, and the dimensions of
    every variable it shows.

    Raises
    ------
    InputError
        ``SOURCE: not a reproducibility result (...)``, in one line.
    """
    where = f"{os.fspath(source)}: " if source is not None else ""
    if not isinstance(dataset, xr.Dataset):
        raise InputError(f"{where}not a reproducibility result (a "
                         f"{type(dataset).__name__}; write one with 'xdiv repro -o' or "
                         "xdiv.repro.evaluate)")
    kind = dataset.attrs.get("xdiv_kind", "")
    if kind != "repro" or not {"arp", "pvalue"} <= set(dataset.data_vars):
        raise InputError(f"{where}not a reproducibility result (a dataset of kind "
                         f"{kind!r}; write one with 'xdiv repro -o' or xdiv.repro.evaluate)")
    sides = dataset["arp"]["side"].values if "side" in dataset["arp"].dims else []
    if sorted(map(str, sides)) != ["original", "repeated"]:
        raise InputError(f"{where}not a reproducibility result (arp lacks the sides "
                         "original and repeated)")
    for first, second in (("er", "dri"), ("ktu", "rbo")):
        if (first in dataset.data_vars) != (second in dataset.data_vars):
            raise InputError(f"{where}not a reproducibility result (it holds one of {first} "
                             f"and {second} without the other)")
    if not isinstance(dataset.attrs.get("sig_level", 0.05), (int, float, np.number)):
        raise InputError(f"{where}not a reproducibility result (its sig_level is no "
                         "number)")
    for name, dims in _REPRO_DIMS.items():
        if name in dataset.data_vars and (set(dataset[name].dims) - {"pair"} != dims or (
                "pair" in dataset[name].dims) != ("pair" in dataset.dims)):
            raise InputError(f"{where}not a reproducibility result ({name} has the "
                             f"dimensions {', '.join(map(str, dataset[name].dims))})")


def _repro_results(repro) -> list:
    """The reproducibility results given, checked before any work."""
    if repro is None:
        return []
    if isinstance(repro, xr.Dataset):
        repro = [repro]
    for k, result in enumerate(repro):
        try:
            check_repro(result)
        except InputError as exc:
            raise InputError(f"repro[{k}]: {exc}") from None
    return list(repro)


def _repro_table(result: xr.Dataset, dims: Sequence[str], columns: dict,
                 warn: str | None = None) -> str:
    """A table of one row per combination of the labels of ``dims`` (``pair`` first when
    the result has it): the labels, then per ``{variable: (header, format)}`` its value;
    a ``warn`` variable's cells below the result's significance level are highlighted."""
    import itertools

    dims = [d for d in ("pair", *dims) if d in result.dims]
    level = float(result.attrs.get("sig_level", 0.05))
    head = "".join(f'<th class="run">{_e(d)}</th>' for d in dims) + "".join(
        f"<th>{_e(header)}</th>" for header, _ in columns.values())
    values = {name: result[name].transpose(*[d for d in dims if d in result[name].dims])
              for name in columns}
    body = []
    for index in itertools.product(*(range(result.sizes[d]) for d in dims)):
        where = dict(zip(dims, index))
        cells = "".join(f'<td class="run">{_e(result[d].values[i])}</td>'
                        for d, i in where.items())
        for name, (_, form) in columns.items():
            da = values[name]
            value = float(da.values[tuple(where[d] for d in da.dims)])
            mark = _WARN if name == warn and value < level else ""
            cells += f"<td{mark}>{_e(form(value))}</td>"
        body.append(f"<tr>{cells}</tr>")
    return (f'<div class="scroll"><table class="repro"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


def _repro_sources(result: xr.Dataset) -> str:
    """The files of the runs (names, not folders), per pair when there are pairs."""
    import json

    def names(side: dict) -> str:
        return ", ".join(f"{role} {_base(path)}" for role, path in side.items())

    try:
        sources = json.loads(result.attrs.get("sources", "{}"))
    except ValueError:
        return ""
    if not isinstance(sources, dict) or not sources:
        return ""
    pairs = sources if "pair" in result.dims else {"": sources}
    items = []
    for pair, sides in pairs.items():
        if not isinstance(sides, dict):
            return ""
        text = "; ".join(f"{side}: {names(runs)}" for side, runs in sides.items()
                         if isinstance(runs, dict))
        items.append(f"<li>{_e(f'pair {pair}: ' if pair else '')}{_e(text)}</li>")
    return f"<ul>{''.join(items)}</ul>"


def _base(path) -> str:
    """A file's name without its folders (which a shared report should not disclose)."""
    return os.path.basename(str(path).rstrip("/\\"))


def _repro_section(results: Sequence[xr.Dataset]) -> list:
    if not results:
        return []
    parts = ["<h2>Reproducibility</h2>",
             _p("How closely repeated runs match the original ones, by the measures of "
                "Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer & Soboroff (\"How to measure "
                "the reproducibility of system-oriented IR experiments\", SIGIR 2020): "
                "the order of the documents (Kendall's tau on the union of the lists, KTU, "
                "and rank-biased overlap, RBO; 1 for the same order), the per-topic "
                "scores (RMSE; 0 for the same scores), the overall effect of the advanced "
                "run over the baseline (the effect ratio ER, 1 for the same improvement, "
                "and ΔRI, the original's relative improvement minus the repetition's, 0 "
                "for the same) and t-tests of the original against the repeated scores.")]
    for k, result in enumerate(results):
        parts += _repro_part(result, k, len(results))
    return parts


def _repro_part(result: xr.Dataset, key: int, count: int) -> list:
    from ..plot.repro import cutoff_plot, er_dri_plot

    case = str(result.attrs.get("case", ""))
    pairs = result.sizes.get("pair", 1)
    title = f"Study {key + 1}: " if count > 1 else ""
    qrels = _base(result.attrs.get("qrels", ""))
    parts = [f"<h3>{_e(title)}{pairs} pair{'s' if pairs > 1 else ''} of repetitions, "
             f"{_e(_CASE_WORDS.get(case, case.replace('_', ' ')))}</h3>",
             _p(f"Qrels {qrels}"
                + (f", repeated on {_base(result.attrs['repeated_qrels'])}"
                   if str(result.attrs.get("repeated_qrels", "")) else "")
                + f"; {result.attrs.get('test', 't-test')} of the original against the "
                f"repeated scores, highlighted where p < "
                f"{float(result.attrs.get('sig_level', 0.05)):g} (the repetition's scores "
                "differ significantly from the original's)."),
             _repro_sources(result)]
    columns = {"pvalue": ("p-value", _pvalue)}
    for name, header in (("effect_size", "effect size"), ("rmse", "RMSE"), ("nrmse", "nRMSE")):
        if name in result:
            columns[name] = (header, _number)
    arp = result["arp"]
    shown = result.assign(arp_original=arp.sel(side="original", drop=True),
                          arp_repeated=arp.sel(side="repeated", drop=True))
    columns = {"arp_original": ("ARP original", _number),
               "arp_repeated": ("ARP repeated", _number), **columns}
    parts.append(_repro_table(shown, ("metric", "role"), columns, warn="pvalue"))
    if "er" in result:
        parts += [_p("The overall effect of the advanced run over the baseline, per pair "
                     "and measure: ER, the repetition's mean per-topic improvement over the "
                     "original's (1: the same), and ΔRI, the original's relative "
                     "improvement minus the repetition's (0: the same)."),
                  _repro_table(result, ("metric",), {"er": ("ER", _number),
                                                     "dri": ("ΔRI", _number)})]
        parts.append(_figure(
            er_dri_plot(result), f"repro{key}-er",
            "The effect ratio (ER) against ΔRI of every pair of repetitions and measure. "
            "For original advanced runs that beat their baselines, a perfect repetition "
            "sits where the dashed lines ER = 1 and ΔRI = 0 cross; "
            "upper left, it improves less than the original did, lower right more; in "
            "the other two corners the absolute and relative improvements disagree "
            "(the repeated baseline scores higher or lower than the original one); left "
            "of ER = 0 the improvement was not repeated."))
    if "ktu" in result:
        order = {name: (header, _number) for name, header in
                 (("ktu", "KTU"), ("rbo", "RBO"), ("rbo_min", "RBO min"),
                  ("rbo_res", "RBO residual")) if name in result}
        if "ktu_topics" in result:
            order["ktu_topics"] = ("topics", lambda v: f"{v:.0f}")
        parts += [_p(f"Document order, means over the topics at each cutoff (RBO p = "
                     f"{result.attrs.get('p', '?')}, ties {result.attrs.get('rbo_ties', '?')}"
                     f", {result.attrs.get('definitions', 'xdiv')} definitions)."),
                  _repro_table(result, ("role", "cutoff"), order)]
        if result.sizes.get("cutoff", 0) >= 2:
            for name in ("ktu", "rbo"):
                parts.append(_figure(
                    cutoff_plot(result, name), f"repro{key}-{name}",
                    f"{order[name][0]} against the cutoff, one line per pair and run: 1 "
                    "for lists in the same order, lower as the repetition orders the "
                    "documents differently."))
    if "rmse" in result:
        try:
            figure = cutoff_plot(result, "rmse")
        except InputError:
            parts.append(_p("No RMSE against the cutoff: it is drawn for measures held "
                            "at two cutoffs or more (as P@5, P@10, P@20)."))
        else:
            parts.append(_figure(
                figure, f"repro{key}-rmse",
                "RMSE of the per-topic scores against the cutoff of the measure, one line "
                "per measure, pair and run: 0 for the same scores, higher as they "
                "differ."))
    return parts


# ------------------------------------------------------------------------------ models

MIXED, ANOVA = "mixed", "anova"
"""The kinds of model result :func:`check_model` tells apart: :func:`xdiv.stats.mixed`'s
linear mixed model and :func:`xdiv.stats.anova_table`'s analysis of variance."""

_MIXED_DIMS = {"mean": ("run",), "mean_se": ("run",), "mean_ci_low": ("run",),
               "mean_ci_high": ("run",), "diff": ("run_a", "run_b"),
               "pvalue_adjusted": ("run_a", "run_b"), "residual_variance": (), "icc": ()}
_ANOVA_DIMS = {name: ("term",) for name in ("sum_sq", "df", "mean_sq", "statistic", "pvalue",
                                            "eta_sq", "omega_sq", "partial_omega_sq",
                                            "variance_component")}
"""The variables of the model results the report shows, and their dimensions."""

_COMPONENT_WORDS = {"collection": "collection", "topic": "topic",
                    "run_collection": "run × collection", "residual": "residual"}


def check_model(dataset, source: str | os.PathLike | None = None) -> str:
    """The kind of a model result: ``"mixed"`` for one of :func:`xdiv.stats.mixed` (its
    ``xdiv_kind``, the run means with their intervals over ``run``, the contrasts over
    ``run_a`` and ``run_b`` of the same runs, the variance components and the ICC),
    ``"anova"`` for a table of :func:`xdiv.stats.anova_table` (a ``term`` dimension
    with ``sum_sq``, ``df``, ``mean_sq``, ``statistic``, ``pvalue``, ``eta_sq``,
    ``omega_sq``, ``partial_omega_sq`` and ``variance_component``); both as ``xdiv model
    -o`` writes them.

    Raises
    ------
    InputError
        ``SOURCE: not a model result (...)``, in one line, for anything else.
    """
    where = f"{os.fspath(source)}: " if source is not None else ""
    fix = "write one with 'xdiv model -o', xdiv.stats.mixed or xdiv.stats.anova_table"
    if not isinstance(dataset, xr.Dataset):
        raise InputError(f"{where}not a model result (a {type(dataset).__name__}; {fix})")
    kind = str(dataset.attrs.get("xdiv_kind", ""))
    if kind == MIXED:
        expected = _MIXED_DIMS
    elif kind in (ANOVA, "") and "term" in dataset.dims:
        kind, expected = ANOVA, _ANOVA_DIMS
    else:
        what = f"a dataset of kind {kind!r}" if kind else "a dataset without the variables of one"
        raise InputError(f"{where}not a model result ({what}; {fix})")
    for name, dims in expected.items():
        if name not in dataset.data_vars:
            raise InputError(f"{where}not a model result (the {kind} result lacks {name})")
        if dataset[name].dims != dims:
            raise InputError(f"{where}not a model result ({name} has the dimensions "
                             f"{', '.join(map(str, dataset[name].dims)) or 'none'}, not "
                             f"{', '.join(dims) or 'none'})")
    if kind == MIXED:
        runs = [str(r) for r in dataset["run"].values]
        if any([str(r) for r in dataset[d].values] != runs for d in ("run_a", "run_b")):
            raise InputError(f"{where}not a model result (its contrasts are not of its runs)")
        alpha = dataset.attrs.get("alpha")
        if not isinstance(alpha, (int, float, np.number)) or not 0 < float(alpha) < 1:
            raise InputError(f"{where}not a model result (its alpha is no number between 0 "
                             "and 1)")
    return kind


def _model_results(models) -> list:
    """``(kind, dataset)`` of each model result given, checked before any work."""
    if models is None:
        return []
    if isinstance(models, xr.Dataset):
        models = [models]
    out = []
    for k, result in enumerate(models):
        try:
            out.append((check_model(result), result))
        except InputError as exc:
            raise InputError(f"models[{k}]: {exc}") from None
    return out


def _models_section(results: Sequence, full_matrix: bool) -> list:
    if not results:
        return []
    parts = ["<h2>Models</h2>",
             _p("Statistical models of the scores of one measure, fitted by statsmodels: "
                "the linear mixed model with the runs as fixed and the topics as random "
                "effects (Carterette, \"Model-based inference about IR systems\", ICTIR "
                "2011), which estimates each run's mean, the share of the score variance "
                "that lies between topics and every pairwise contrast of runs with a "
                "multiplicity adjustment; and the analysis of variance with its effect "
                "sizes (Olejnik & Algina, Psychological Methods 2003; Ferro & Silvello, "
                "SIGIR 2016).")]
    for k, (kind, result) in enumerate(results):
        title = f"Model {k + 1}: " if len(results) > 1 else ""
        parts += (_mixed_part(result, k, title, full_matrix) if kind == MIXED
                  else _anova_part(result, title))
    return parts


_RUN = ' class="run"'


def _value_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A table of text cells, the first of each row a label; every cell escaped here."""
    def cells(tag: str, texts: Sequence[str]) -> str:
        return "".join(f'<{tag}{_RUN if k == 0 else ""}>{_e(text)}</{tag}>'
                       for k, text in enumerate(texts))

    body = "".join(f"<tr>{cells('td', row)}</tr>" for row in rows)
    return (f'<div class="scroll"><table class="models"><thead><tr>{cells("th", head)}'
            f"</tr></thead><tbody>{body}</tbody></table></div>")


def _topics_said(result: xr.Dataset) -> str:
    if "n_topics" not in result:
        return ""
    topics = result["n_topics"]
    if "collection" in topics.dims:
        return "; topics per collection: " + ", ".join(
            f"{c} {int(n)}" for c, n in zip(result["collection"].values, topics.values))
    return f" on {int(topics)} topics"


def _mixed_part(result: xr.Dataset, key: int, title: str, full_matrix: bool) -> list:
    from ..plot.models import model_means_plot

    attrs = result.attrs
    metric = str(attrs.get("metric", "?"))
    alpha = float(attrs["alpha"])
    level = f"{100 * (1 - alpha):g}%"
    logit = str(attrs.get("scale", "linear")) == "logit"
    runs = [str(r) for r in result["run"].values]
    mean = result["mean"].values.astype(float)
    order = [runs[k] for k in np.argsort(np.where(np.isnan(mean), np.inf, -mean),
                                         kind="stable")]
    n_obs = f"{int(result['n_obs'])} scores" if "n_obs" in result else "the scores"
    fit = (f"{attrs.get('formula', 'score ~ 0 + run + (1 | topic)')}, fitted by "
           f"{attrs.get('method', 'REML')} to {n_obs}{_topics_said(result)}"
           + (" on the logit scale (the logit-normal model of bounded scores)" if logit
              else "") + ".")
    if not _flag(attrs.get("converged", 1)):
        fit += " statsmodels says the fit did not converge: read the estimates with care."
    parts = [f"<h3>{_e(title)}Mixed model of {_e(metric)}</h3>",
             _p(f"{fit} The table gives each run's estimated mean (its fixed effect), "
                f"statsmodels' standard error and the {level} Wald confidence interval, "
                "runs sorted by the mean"
                + (", back-transformed to scores (the score of a typical topic; the "
                   "standard errors by the delta method)" if logit else "")
                + ". The intervals include the "
                + ("topic and collection variances" if "collection_variance" in result
                   else "topic variance")
                + ", which every run shares: runs whose intervals overlap may still differ "
                "significantly, as the contrasts below say.")]
    by_run = {name: result[name].to_series() for name in
              ("mean", "mean_se", "mean_ci_low", "mean_ci_high")}
    parts.append(_value_table(
        ["run", "mean", "standard error", f"{level} CI low", f"{level} CI high"],
        [[run, *(_number(float(by_run[name][run])) for name in by_run)] for run in order]))
    parts.append(_figure(
        model_means_plot(result), f"model{key}-means",
        f"Each run's estimated mean of {metric} (point) and its {level} confidence interval "
        "(bar), the best run at the top; blue: the best run and the runs the contrasts "
        "do not find significantly below it, orange: the runs significantly below it."))
    components = [str(name)[:-len("_variance")] for name in result.data_vars
                  if str(name).endswith("_variance") and result[name].dims == ()]
    total = sum(float(result[f"{c}_variance"]) for c in components)
    rows = []
    for c in components:
        value = float(result[f"{c}_variance"])
        low = float(result[f"{c}_variance_ci_low"]) if f"{c}_variance_ci_low" in result \
            else np.nan
        high = float(result[f"{c}_variance_ci_high"]) if f"{c}_variance_ci_high" in result \
            else np.nan
        words = ("topic within collection" if c == "topic" and "collection_variance" in result
                 else _COMPONENT_WORDS.get(c, c.replace("_", " ")))
        rows.append([words, _number(value, 6),
                     _number(low, 6), _number(high, 6),
                     _number(value / total if total > 0 else np.nan, 3)])
    parts += [_p(f"Variance components with their {level} intervals (the residual "
                 "variance's is the chi-squared interval on the residual degrees of freedom, "
                 "the others Wald intervals of the log variance; – where a variance is "
                 "estimated at 0 and has none), and each one's share of their sum. The "
                 f"intraclass correlation (ICC) is {_number(float(result['icc']), 4)}: the "
                 "share of the score variance that lies between topics"
                 + (" and collections" if "collection_variance" in result else "")
                 + ", which the contrasts of runs on the same topics leave out."),
              _value_table(["component", "variance", f"{level} CI low", f"{level} CI high",
                            "share"], rows),
              _p(f"Bounded scores: {attrs.get('bounded_advice', 'no diagnostic')}.")]
    matrix = xr.Dataset({"pvalue": result["pvalue_adjusted"], "diff": result["diff"]},
                        attrs={"alpha": alpha})
    said = ("Pairwise contrasts of the runs, mean(A) - mean(B)"
            + (" on the logit scale" if logit else "") + ", p-values adjusted: "
            f"{attrs.get('adjustment', attrs.get('adjust', '?'))}; alpha = {alpha:g}")
    if full_matrix or len(runs) <= MATRIX_RUNS:
        parts += [_p(f"{said}. The cell in row A and column B gives the adjusted p-value of "
                     "A against B; green when A is significantly better than B (a higher "
                     "mean), red when significantly worse. Runs in the order of the table "
                     "above."),
                  _significance_table(matrix, order)]
    else:
        parts += [_p(f"{said}; summarised for {len(runs)} runs (the full matrix of "
                     f"{len(runs) * (len(runs) - 1) // 2} run pairs is shown up to "
                     f"{MATRIX_RUNS} runs, or on request: full_matrix=True, xdiv report "
                     "--full-matrix): for every run, the number of runs it is significantly "
                     "better than (a higher mean), significantly worse than and not told "
                     "apart from. Runs in the order of the table above."),
                  _significance_summary(matrix, order)]
    return parts


def _anova_part(result: xr.Dataset, title: str) -> list:
    columns = {"sum_sq": ("sum of squares", _number), "df": ("df", lambda v: f"{v:g}"),
               "mean_sq": ("mean square", _number), "statistic": ("F", _number),
               "pvalue": ("p-value", _pvalue), "eta_sq": ("η²", _number),
               "omega_sq": ("ω²", _number), "partial_omega_sq": ("partial ω²", _number),
               "variance_component": ("variance component", lambda v: _number(v, 6))}
    attrs = result.attrs
    metric = str(attrs.get("metric", "?"))
    factors = [str(name) for name in result.coords
               if result[name].dims == ("run",) and str(name) != "run"]
    grid = ""
    if factors:
        grid = " The runs are points of a grid of factors: " + "; ".join(
            f"{name} ({len(set(map(str, result[name].values)))} levels)"
            for name in factors) + "."
    counts = ", ".join(f"{attrs[name]} {words}" for name, words in
                       (("n_obs", "scores"), ("n_topics", "topics")) if name in attrs)
    parts = [f"<h3>{_e(title)}Analysis of variance of {_e(metric)}</h3>",
             _p(f"{attrs.get('formula', 'score ~ C(run) + C(topic)')}, type "
                f"{attrs.get('typ', '?')} sums of squares (statsmodels' anova_lm)"
                + (f", {counts}" if counts else "") + f".{grid} With N the number of "
                "scores, SS_total their sum of squares about the mean and MS_error the "
                "residual mean square: η² = SS / SS_total, the share of the observed "
                "sum of squares; ω² = (SS - df MS_error) / (SS_total + MS_error), that "
                "share corrected for what noise alone explains (below 0 for a term that "
                "explains less than noise); partial ω² = (SS - df MS_error) / (SS + (N - "
                "df) MS_error), without the other terms' variance; the variance "
                "component (SS - df MS_error) / N, MS_error on the residual row.")]
    rows = [[str(term), *(form(float(result[name].values[k]))
                          for name, (_, form) in columns.items())]
            for k, term in enumerate(result["term"].values)]
    parts.append(_value_table(["term", *(h for h, _ in columns.values())], rows))
    return parts


def write_report(path: str | os.PathLike, scores: xr.Dataset,
                 meta: xr.Dataset | None = None, **options) -> str:
    """Write :func:`html_report` to ``path`` atomically (:func:`xdiv.io.atomic.atomic_output`);
    ``options`` are those of :func:`html_report`. Returns the path."""
    from ..io.atomic import atomic_output

    text = html_report(scores, meta, **options)
    with atomic_output(path) as fh:
        fh.write(text)
    return os.fspath(path)


def _e(text) -> str:
    return html.escape(str(text))


def _p(text: str) -> str:
    return f'<p class="how">{_e(text)}</p>'


def _page(title: str, parts: Sequence[str]) -> str:
    body = "\n".join(parts)
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{_e(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            f"{body}\n</body>\n</html>\n")


def _overview(scores: xr.Dataset, da: xr.DataArray, metric: str) -> str:
    from .._version import __version__

    facts = [("runs", da.sizes["run"]), ("topics", da.sizes["topic"]),
             ("measures", da.sizes["metric"]), ("primary measure", metric)]
    facts += [(key.replace("_", " "), _file_name(key, scores.attrs[key]))
              for key in ("collection", "probabilities", "order", "adhoc", "hierarchy")
              if str(scores.attrs.get(key, ""))]
    items = "".join(f"<li>{_e(k)}: {_e(v)}</li>" for k, v in facts)
    return f"<ul>{items}<li>written by xdiv {_e(__version__)}</li></ul>"


_FILES = ("collection", "probabilities", "hierarchy")
"""Attributes of a score cube that name input files: the report shows their names, not
the folders of the machine that evaluated (which a shared report should not disclose)."""


def _file_name(key: str, value) -> str:
    text = str(value)
    return os.path.basename(text.rstrip("/\\")) if key in _FILES and (
        "/" in text or "\\" in text) else text


def _run_table(summary: xr.Dataset, order: Sequence[str], primary: str) -> str:
    metrics = [primary, *(str(m) for m in summary["metric"].values if str(m) != primary)]
    table = {name: summary[name].transpose("run", "metric").to_pandas()
             for name in ("mean", "low", "high", "n_topics")}
    most = table["n_topics"].max(axis=0)
    head = "".join(f"<th>{_e(m)}</th>" for m in metrics)
    rows = []
    for run in order:
        cells = []
        for m in metrics:
            n = int(table["n_topics"].at[run, m])
            extra = f" (n = {n})" if n != most[m] else ""
            cells.append(f"<td>{_number(table['mean'].at[run, m])}<br><span class=\"ci\">"
                         f"{_number(table['low'].at[run, m])} – "
                         f"{_number(table['high'].at[run, m])}{extra}</span></td>")
        rows.append(f'<tr><td class="run">{_e(run)}</td>{"".join(cells)}</tr>')
    return (f'<div class="scroll"><table><thead><tr><th class="run">run</th>{head}</tr>'
            f'</thead><tbody>{"".join(rows)}</tbody></table></div>')


def _number(value: float, digits: int = 4) -> str:
    return "–" if not np.isfinite(value) else f"{value:.{digits}f}"


def _pvalue(value: float) -> str:
    return "–" if not np.isfinite(value) else ("<0.001" if value < 0.001 else f"{value:.3f}")


def _significance_table(matrix: xr.Dataset, order: Sequence[str]) -> str:
    pvalue = matrix["pvalue"].sel(run_a=order, run_b=order).values
    diff = matrix["diff"].sel(run_a=order, run_b=order).values
    alpha = matrix.attrs["alpha"]
    head = "".join(f"<th>{_e(r)}</th>" for r in order)
    rows = []
    for i, run in enumerate(order):
        cells = []
        for j in range(len(order)):
            if i == j:
                cells.append('<td class="self"></td>')
                continue
            kind = "" if not pvalue[i, j] < alpha else (' class="up"' if diff[i, j] > 0
                                                       else ' class="down"')
            cells.append(f"<td{kind}>{_e(_pvalue(pvalue[i, j]))}</td>")
        rows.append(f'<tr><th class="run">{_e(run)}</th>{"".join(cells)}</tr>')
    # column labels written upwards, so that a matrix of 20 runs fits the page's width
    return (f'<div class="scroll"><table class="matrix"><thead><tr><th class="run">run</th>'
            f'{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def _significance_summary(matrix: xr.Dataset, order: Sequence[str]) -> str:
    """Per run, the number of runs it is significantly better than, worse than and not
    told apart from (a pair without a p-value counts as not told apart)."""
    pvalue = matrix["pvalue"].sel(run_a=order, run_b=order).values
    diff = matrix["diff"].sel(run_a=order, run_b=order).values
    significant = pvalue < matrix.attrs["alpha"]  # NaN (the diagonal) is not
    better = (significant & (diff > 0)).sum(axis=1)
    worse = (significant & (diff < 0)).sum(axis=1)
    apart = len(order) - 1 - better - worse
    rows = "".join(f'<tr><td class="run">{_e(run)}</td><td class="up">{better[k]}</td>'
                   f'<td class="down">{worse[k]}</td><td>{apart[k]}</td></tr>'
                   for k, run in enumerate(order))
    return ('<div class="scroll"><table><thead><tr><th class="run">run</th>'
            "<th>significantly better than</th><th>significantly worse than</th>"
            f"<th>not told apart from</th></tr></thead><tbody>{rows}</tbody></table></div>")


def _power_table(results: Sequence[xr.Dataset]) -> str:
    metrics = [str(m) for m in results[0]["metric"].values]
    power = results[0]["power"].values
    order = [metrics[k] for k in np.argsort(-power, kind="stable")]
    head = "".join(f"<th>{_e(r.attrs.get('test', 'test'))}: power</th><th>pairs</th>"
                   f"<th>required difference</th>" for r in results)
    rows = []
    for m in order:
        cells = []
        for r in results:
            one = r.sel(metric=m)
            cells.append(f"<td>{float(one['power']):.1%}</td>"
                         f"<td>{int(one['n_significant'])} / {int(r.attrs['n_pairs'])}</td>"
                         f"<td>{_number(float(one['required_delta']))}</td>")
        rows.append(f'<tr><td class="run">{_e(m)}</td>{"".join(cells)}</tr>')
    return (f'<div class="scroll"><table><thead><tr><th class="run">measure</th>{head}'
            f'</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def _figure(fig, key: str, caption: str) -> str:
    return (f"<figure>{_svg(fig, key)}<figcaption>{_e(caption)}</figcaption></figure>")


_IREC = re.compile(r"I-rec@(\d+)")
_DNDCG = re.compile(r"D-nDCG@(\d+)")
_ID = re.compile(r'(\bid="|href="#|url\(#)')
_COMMENT = re.compile(r"<!--.*?-->\n?", re.DOTALL)


def _svg(fig, key: str) -> str:
    """``fig`` as an inline ``<svg>`` element: no XML prolog, metadata or comments (which
    repeat the figure's texts), and every id prefixed with ``key`` so that the figures
    of one page do not share ids."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight",
                metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    text = buffer.getvalue()
    text = _COMMENT.sub("", text[text.index("<svg"):])
    return _ID.sub(lambda m: f"{m.group(1)}{key}-", text)
