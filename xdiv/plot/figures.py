"""Plots of score cubes and meta-evaluation results (matplotlib).

Every function returns a matplotlib ``Figure`` (nothing is shown) drawn on the headless
Agg canvas; save it with ``fig.savefig("file.png" | ".svg" | ".pdf")``. The figures stay
readable from 2 to 100 runs and from 1 to 50 measures: axes are fitted to the data,
every series has its own combination of colour, line style and marker
(:func:`style_cycle`), legends sit outside the data (:func:`legend_outside`), point labels
are placed where they overlap nothing or left to the legend (:func:`place_labels`), heat
maps are ordered by hierarchical clustering (:func:`cluster_order`) and print their
values where they fit (:func:`heatmap`), and figures grow with the number of categories
they show. Names taken from the input (runs, topics, measures, settings) are drawn as
they are, never as mathtext nor with raw control characters (:func:`literal`). These
building blocks are public so that other plots share the same style.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import xarray as xr
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ..errors import InputError
from ..core.cube import score_array
from ..core.labels import from_json
from .layout import (category_width, cluster_order, heatmap, legend_height, legend_outside,
                     legend_width, literal, new_figure, place_labels, style_cycle)

__all__ = ["asl_curves", "irec_dndcg", "concordance_heatmap", "topic_distributions",
           "run_differences", "correlation_matrix", "new_figure", "style_cycle",
           "legend_outside", "legend_height", "place_labels", "cluster_order", "heatmap",
           "category_width", "power_curves", "swap_curves", "g_curves", "legend_width",
           "literal"]

def asl_curves(result: xr.Dataset, alpha: float | None = None, test: str | None = None,
               ymax: float | None = None) -> Figure:
    """ASL curves: the achieved significance levels (ASLs, the p-values) of every run pair,
    sorted ascending, one curve per metric (Sakai, "Evaluating evaluation metrics based
    on the bootstrap", SIGIR 2006; for diversity measures, Sakai & Song, "Evaluating
    diversified search results using per-intent graded relevance", SIGIR 2011, Figs. 1-2).

    How to read it: the dotted line is the significance level alpha; the run pairs left
    of where a curve crosses it are the pairs the metric finds significantly different,
    so a curve that stays low further to the right belongs to a more discriminative
    metric. The legend lists the metrics from the most to the least discriminative, with
    their discriminative power (the share of pairs with ASL < alpha). The title gives the
    test and its settings (B, seed, alpha) as the result records them. The y axis stops
    at ``4 alpha`` (at least 0.2), where the curves cross alpha and differ, and the x
    axis where the last curve leaves it; the rest of each curve climbs to 1 off the
    figure (``ymax=1`` shows it all).

    Parameters
    ----------
    result : xarray.Dataset
        The result of :func:`xdiv.meta.discriminative_power`, or a meta-evaluation of
        several tests (``xdiv meta -o``), from which ``test`` is taken
        (:func:`xdiv.meta.select_test`).
    alpha : float, optional
        The level drawn and used for the powers (default: the result's ``alpha``).
    test : str, optional
        The test of a meta-evaluation of several (default: the only one, else the first).
    ymax : float, optional
        The top of the y axis (default: ``4 alpha``, at least 0.2, at most 1).
    """
    from ..analysis.meta import select_test

    if "asl_curve" not in result:
        raise InputError("asl_curves needs the result of xdiv.meta.discriminative_power")
    result = select_test(result, test)
    level = result.attrs.get("alpha", 0.05) if alpha is None else alpha
    curves = result["asl_curve"].transpose("metric", "pair_rank").values
    power = (curves < level).mean(axis=1)
    order = np.argsort(-power, kind="stable")
    names = [f"{result['metric'].values[k]} ({power[k]:.1%})" for k in order]
    fig = new_figure(5.5 + legend_width(names), max(4.0, legend_height(len(names))))
    ax = fig.add_subplot()
    top = min(1.0, max(0.2, 4 * level)) if ymax is None else ymax
    ranks = np.arange(1, curves.shape[1] + 1)
    shown = ranks[(curves <= top).any(axis=0)]
    right = min(len(ranks), math.ceil(1.05 * shown.max()) + 1) if len(shown) else len(ranks)
    step = max(1, right // 8)
    handles = [ax.plot(ranks, curves[k], linewidth=1.2, markersize=4, label=name,
                       markevery=(i * step // len(order), step), **style)[0]
               for i, (k, name, style) in enumerate(zip(order, names,
                                                        style_cycle(len(order))))]
    handles.append(ax.axhline(level, color="black", linestyle=":", linewidth=1,
                              label=f"alpha = {level:g}"))
    ax.set_xlim(0.5, right + 0.5)
    ax.set_ylim(-0.02 * top, 1.02 * top)
    ax.set_xlabel("run pairs sorted by ASL")
    ax.set_ylabel("ASL (achieved significance level)")
    ax.set_title(_settings_title(result.attrs), fontsize="medium")
    legend_outside(fig, handles, [h.get_label() for h in handles],
                   title="metric (discriminative power)")
    return fig


def _settings_title(attrs: dict) -> str:
    """A test's name and the settings it records: ``paired bootstrap: B = 1000, seed 0,
    alpha = 0.05``, as matplotlib text (:func:`literal`)."""
    shown = {"B": "B = {:d}", "seed": "seed {:d}", "alpha": "alpha = {:g}"}
    settings = [form.format(int(attrs[key]) if key != "alpha" else float(attrs[key]))
                for key, form in shown.items() if key in attrs]
    return f"{literal(attrs.get('test', 'test'))}: {', '.join(settings)}" if settings else \
        literal(attrs.get("test", "ASL curves"))


def _fitted(values: np.ndarray) -> tuple[float, float]:
    """Axis limits fitted to the finite ``values`` with an 8 % margin (at least 0.05
    wide), kept within [0, 1] when the values are; [0, 1] when none is finite."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    if not values.size:
        return 0.0, 1.0
    low, high = float(np.nanmin(values)), float(np.nanmax(values))
    margin = 0.08 * max(high - low, 0.05)
    return (max(low - margin, 0.0) if low >= 0 else low - margin,
            min(high + margin, 1.0) if high <= 1 else high + margin)


def irec_dndcg(scores: xr.Dataset, cutoff: int = 10, gamma: float = 0.5) -> Figure:
    """Mean I-rec@l against mean D-nDCG@l of every run, with contour lines of
    D#-nDCG@l = gamma I-rec@l + (1 - gamma) D-nDCG@l (Sakai & Song, "Evaluating
    diversified search results using per-intent graded relevance", SIGIR 2011, Fig. 3).

    How to read it: each marker is a run; higher means more intents covered (diversity),
    further right means relevant documents of the likely intents ranked higher
    (relevance). The grey lines join points of equal D#-nDCG (the value is written on
    them): runs on the same line tie under D#-nDCG, runs on lines further up and right
    rank higher. The axes are fitted to the runs (not fixed to 0-1) and the contour
    lines are drawn, with values chosen for, the range shown. Runs are named beside
    their markers where the names fit without overlapping anything, else in the legend
    (each run has its own colour and marker).

    ``scores`` must hold ``I-rec@l`` and ``D-nDCG@l``.
    """
    names = [f"I-rec@{cutoff}", f"D-nDCG@{cutoff}"]
    _check_scatter_measures(scores, names, cutoff)
    means = score_array(scores, names).mean("topic", skipna=True)
    y, x = means.values
    runs = [str(r) for r in means["run"].values]
    undefined = [run for run, a, b in zip(runs, x, y) if not (np.isfinite(a) and np.isfinite(b))]
    if undefined:
        raise InputError(
            f"no mean I-rec@{cutoff} and D-nDCG@{cutoff} to plot for run(s) "
            f"{', '.join(undefined[:5])}{' …' if len(undefined) > 5 else ''}: every topic "
            "scores NaN (no topic has a relevant document)")
    size = (6.5, 5.5)
    fig = new_figure(*size)
    ax = fig.add_subplot()
    (x0, x1), (y0, y1) = _fitted(x), _fitted(y)
    gx, gy = np.meshgrid(np.linspace(x0, x1, 201), np.linspace(y0, y1, 201))
    field = gamma * gy + (1 - gamma) * gx
    levels = [v for v in MaxNLocator(nbins=7).tick_values(field.min(), field.max())
              if field.min() < v < field.max()]
    lines = ax.contour(gx, gy, field, levels=levels, colors="0.7", linewidths=0.8)
    ax.clabel(lines, fontsize="x-small", fmt="%g")
    handles = [ax.plot(a, b, markersize=6, label=run, **style)[0]
               for a, b, run, style in zip(x, y, runs, style_cycle(len(runs), lines=False))]
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_xlabel(f"mean {names[1]}")
    ax.set_ylabel(f"mean {names[0]}")
    ax.set_title(f"grey lines: D#-nDCG@{cutoff} = {gamma:g} I-rec + {1 - gamma:g} D-nDCG; "
                 f"{len(runs)} runs", fontsize="medium")
    if len(runs) > 40 or not place_labels(ax, x, y, runs):
        fig.set_layout_engine("constrained")
        fig.set_size_inches(size[0] + legend_width(runs),
                            max(size[1], legend_height(len(runs))))
        legend_outside(fig, handles, runs, title="run")
    return fig


def _check_scatter_measures(scores, names: Sequence[str], cutoff: int) -> None:
    """Raise an error naming the measures :func:`irec_dndcg` needs at ``cutoff`` that the
    cube lacks, and the cutoffs at which it holds both (``--cutoff`` on the command line)."""
    missing, first = [], None
    for name in names:
        try:
            score_array(scores, [name])
        except InputError as error:
            missing.append(name)
            first = first or str(error)
    if not missing:
        return
    da = score_array(scores)
    labels = [str(m) for m in (da["canonical"].values if "canonical" in da.coords
                               else da["metric"].values)]
    found = {kind: {int(m.group(1)) for m in map(re.compile(rf"{kind}@(\d+)").fullmatch,
                                                 labels) if m}
             for kind in ("I-rec", "D-nDCG")}
    both = sorted(found["I-rec"] & found["D-nDCG"])
    hint = (f"; both are held at cutoff {', '.join(map(str, both))}: pass cutoff="
            f"{both[0]} (xdiv plot scatter --cutoff {both[0]})" if both else
            f"; evaluate both measures at one cutoff l (e.g. xdiv evaluate -m I-rec@{cutoff} "
            f"D-nDCG@{cutoff}) and pass it as cutoff=l (xdiv plot scatter --cutoff l)")
    lacks = " (it lacks both)" if len(missing) == len(names) else ""
    raise InputError(f"{first}; the I-rec/D-nDCG scatter plot at cutoff {cutoff} needs the "
                     f"measures {' and '.join(names)}{lacks}{hint}")


def _ordered(order: str, distance: np.ndarray) -> np.ndarray:
    if order == "cluster":
        return cluster_order(distance)
    if order == "given":
        return np.arange(len(distance))
    raise InputError(f"order must be 'cluster' or 'given', not {order!r}")


def concordance_heatmap(table: xr.Dataset, order: str = "cluster") -> Figure:
    """Heat map of the concordance test of every ordered pair of metrics (Sakai, "Evaluation
    with informational and navigational intents", WWW 2012; Sakai & Song, "Diversified
    search evaluation: lessons from the NTCIR-9 INTENT task", Information Retrieval 2012),
    from
    :func:`xdiv.meta.concordance_table`.

    How to read it: the cell in row M1 and column M2 is the share of the (topic, run
    pair) cases where M1 and M2 disagree in which M1 agrees with the gold standard
    measure(s) named in the title; a bright row is a metric that wins its disagreements.
    With ``order="cluster"`` the metrics are ordered by average-linkage clustering
    (:func:`cluster_order`) of the distance ``|C(M1, M2) - C(M2, M1)|``, so metrics
    between which the test shows little preference sit together, and the ordering
    starts with the metric that wins most on average; ``order="given"`` keeps the
    table's order.
    """
    values = table["concordance_1"].transpose("metric_1", "metric_2").values
    names = [str(m) for m in table["metric_1"].values]
    index = _ordered(order, np.nan_to_num(np.abs(values - values.T)))
    wins = np.where(np.isnan(values), 0.5, values).mean(axis=1)
    if order == "cluster" and wins[index[0]] < wins[index[-1]]:
        index = index[::-1]
    gold = ", ".join(from_json(table.attrs.get("gold", "[]")))
    return heatmap(values[np.ix_(index, index)], [names[k] for k in index],
                   [names[k] for k in index], vmin=0, vmax=1, cmap="viridis",
                   label="Correct(row) / Disagreements", title=f"concordance, gold: {gold}")


def topic_distributions(scores: xr.Dataset, metric: str) -> Figure:
    """Box plots of a metric's per-topic scores, one box per run, runs sorted by mean.

    How to read it: a box spans the middle half of the run's topic scores (quartiles),
    the line in it is the median, whiskers reach the furthest scores within 1.5 box
    lengths, and circles are topics beyond them. Overlapping boxes of neighbouring runs
    mean their ranking rests on few topics; a box sitting at 0 is a run that fails most
    topics. The figure widens with the number of runs so that every name stays legible.
    """
    da = score_array(scores, [metric]).isel(metric=0)
    order = da["run"].values[np.argsort(-da.mean("topic", skipna=True).values)]
    data = [da.sel(run=r).dropna("topic").values for r in order]
    fig = new_figure(category_width(len(order)), 4)
    ax = fig.add_subplot()
    ax.boxplot(data)
    ax.set_xticks(range(1, len(order) + 1), [literal(r) for r in order], rotation=90,
                  fontsize="x-small")
    ax.set_ylabel(literal(metric))
    ax.set_title(f"{literal(metric)} per topic ({da.sizes['topic']} topics), runs sorted by "
                 "mean", fontsize="medium")
    return fig


def run_differences(scores: xr.Dataset, metric: str, run_a: str, run_b: str) -> Figure:
    """Per-topic differences ``run_a - run_b`` of a metric, sorted.

    How to read it: one bar per topic scored for both runs; blue bars are topics where
    ``run_a`` scores higher, red ones where ``run_b`` does. A difference of means carried
    by a few tall bars is less trustworthy than one where most bars point the same way.
    """
    if str(run_a) == str(run_b):
        raise InputError(f"run_differences compares two different runs, not {run_a} with "
                         "itself")
    da = score_array(scores, [metric], [run_a, run_b]).isel(metric=0)
    diff = (da.isel(run=0) - da.isel(run=1)).dropna("topic")
    order = np.argsort(diff.values)
    fig = new_figure(6, 3.5)
    ax = fig.add_subplot()
    ax.bar(range(len(order)), diff.values[order],
           color=np.where(diff.values[order] >= 0, "tab:blue", "tab:red"))
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlabel("topics (sorted)")
    shown_a, shown_b = literal(run_a), literal(run_b)
    ax.set_ylabel(f"{literal(metric)}: {shown_a} - {shown_b}")
    ahead = int((diff.values > 0).sum())
    ax.set_title(f"{shown_a} higher on {ahead}, {shown_b} on {int((diff.values < 0).sum())} "
                 f"of {len(order)} topics", fontsize="medium")
    return fig


def correlation_matrix(correlation: xr.DataArray, order: str = "cluster") -> Figure:
    """Heat map of :func:`xdiv.meta.rank_correlation`'s matrix: the rank correlation
    (Kendall's tau; tau_ap of Yilmaz, Aslam & Robertson, "A new rank correlation
    coefficient for information retrieval", SIGIR 2008) between the run rankings of
    every two metrics.

    How to read it: dark blue cells are metrics that rank the runs alike, white cells
    unrelated rankings and red cells opposite ones. With ``order="cluster"`` the metrics
    are ordered by average-linkage clustering (:func:`cluster_order`) of ``(1 - r) / 2``
    (symmetrised for tau_ap), so blocks of metrics that agree show as blue squares on
    the diagonal; ``order="given"`` keeps the matrix's order.
    """
    values = correlation.transpose("metric_1", "metric_2").values
    names = [str(m) for m in correlation["metric_1"].values]
    index = _ordered(order, (1 - values) / 2)
    return heatmap(values[np.ix_(index, index)], [names[k] for k in index],
                   [names[k] for k in index], vmin=-1, vmax=1, cmap="RdBu",
                   label=str(correlation.name),
                   title=f"{correlation.name}: correlation of the run rankings")


def power_curves(power: xr.DataArray, target: float | None = 0.8):
    """Power against the number of topics (Sakai, IRJ 2016), one line per (metric,
    difference), from :func:`xdiv.design.power` over ``(metric, min_diff, n_topics)``;
    a dotted line marks the ``target`` power (``1 - beta``)."""
    if "n_topics" not in power.dims or power.sizes["n_topics"] < 2:
        raise InputError("power_curves needs xdiv.design.power over several n_topics")
    power = power.expand_dims([d for d in ("metric", "min_diff") if d not in power.dims])
    power = power.transpose("metric", "min_diff", "n_topics")
    n = power["n_topics"].values
    series = [(m, d) for m in power["metric"].values for d in power["min_diff"].values]
    fig = new_figure(7, max(4.0, legend_height(len(series))))
    ax = fig.add_subplot()
    handles = []
    for (metric, diff), style in zip(series, style_cycle(len(series))):
        line, = ax.plot(n, power.sel(metric=metric, min_diff=diff).values, **style)
        handles.append(line)
    if target is not None:
        ax.axhline(target, color="grey", linestyle=":", linewidth=1)
    ax.set_xlim(n.min(), n.max())
    if n.max() >= 20 * n.min():  # power rises over decades of topics: a log axis
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter("{x:g}")
    ax.set_ylim(*_fitted(np.append(power.values, [] if target is None else [target])))
    ax.set_xlabel("number of topics")
    ax.set_ylabel("power")
    ax.set_title(f"{literal(power.attrs.get('test', 'paired-t'))} test, alpha = "
                 f"{power.attrs.get('alpha', 0.05):g}", fontsize="medium")
    legend_outside(fig, handles, [f"{m}, {d:g}" for m, d in series],
                   title="measure, difference")
    return fig


def swap_curves(result: xr.Dataset, subset_size: int | None = None):
    """Swap rate against the difference between two runs (Voorhees & Buckley, SIGIR
    2002), one line per metric, from :func:`xdiv.design.swap_rates`: the rates
    extrapolated to the full topic set, or those observed on subsets of
    ``subset_size`` topics; a dotted line marks the ``max_rate`` of the result."""
    if "swap_rate" not in result:
        raise InputError("swap_curves needs the result of xdiv.design.swap_rates")
    if subset_size is None:
        rates = result["swap_rate_extrapolated"]
        what = "extrapolated to the full topic set"
    else:
        if subset_size not in result["subset_size"].values:
            raise InputError(f"the result holds subsets of "
                             f"{', '.join(map(str, result['subset_size'].values))} topics, "
                             f"not {subset_size}")
        rates = result["swap_rate"].sel(subset_size=subset_size)
        what = f"on subsets of {subset_size} topics"
    rates = rates.transpose("metric", "diff_bin")
    metrics = [str(m) for m in rates["metric"].values]
    edges = rates["diff_bin"].values
    fig = new_figure(7, max(4.0, legend_height(len(metrics))))
    ax = fig.add_subplot()
    handles = []
    for k, style in enumerate(style_cycle(len(metrics))):
        line, = ax.plot(edges, rates.values[k], **{**style, "marker": style["marker"] or "."})
        handles.append(line)
    level = result.attrs.get("max_rate")
    if level is not None:
        ax.axhline(level, color="grey", linestyle=":", linewidth=1)
    ax.set_xlim(edges.min(), edges.max())
    ax.set_ylim(*_fitted(np.append(rates.values, [] if level is None else [level])))
    ax.set_xlabel(f"absolute difference on the first subset (bins of "
                  f"{result.attrs.get('bin_width', edges[1] - edges[0]):g}, lower edges)")
    ax.set_ylabel("swap rate")
    ax.set_title(f"swap rate {what} ({literal(result.attrs.get('sampling', ''))}, "
                 f"B = {literal(result.attrs.get('B', result.attrs.get('replicates', '?')))})",
                 fontsize="medium")
    legend_outside(fig, handles, metrics, title="measure")
    return fig


def g_curves(coefficients: xr.Dataset, targets: Sequence[float] = (0.8, 0.95)):
    """The generalizability coefficient E(rho^2) and the dependability index Phi against
    the number of topics (Bodoff & Li, SIGIR 2007; Urbano, Marrero & Martín, SIGIR
    2013), one line per metric in two panels, from :func:`xdiv.design.g_coefficients`
    over ``(metric, n_topics)``; dotted lines mark ``targets``."""
    if "erho2" not in coefficients or "n_topics" not in coefficients.dims:
        raise InputError("g_curves needs xdiv.design.g_coefficients over several n_topics")
    coefficients = coefficients.transpose("metric", "n_topics")
    metrics = [str(m) for m in coefficients["metric"].values]
    n = coefficients["n_topics"].values
    fig = new_figure(9, max(3.8, legend_height(len(metrics))))
    axes = fig.subplots(1, 2, sharey=True)
    styles = style_cycle(len(metrics))
    values = np.concatenate([coefficients["erho2"].values.ravel(),
                             coefficients["phi"].values.ravel(), list(targets)])
    for ax, name, label in zip(axes, ("erho2", "phi"), ("E(ρ²)", "Φ")):
        handles = [ax.plot(n, coefficients[name].values[k], **style)[0]
                   for k, style in enumerate(styles)]
        for level in targets:
            ax.axhline(level, color="grey", linestyle=":", linewidth=1)
        ax.set_xlim(n.min(), n.max())
        ax.set_xlabel("number of topics")
        ax.set_title(label, fontsize="medium")
    axes[0].set_ylim(*_fitted(values))
    axes[0].set_ylabel("coefficient")
    legend_outside(fig, handles, metrics, title="measure")
    return fig
