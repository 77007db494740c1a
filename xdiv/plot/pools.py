"""Figures of the pool studies of :mod:`xdiv.analysis.pools` (public as ``xdiv.pools``):
the pool bias of each run, and the run ranking's robustness to fewer judgments.

Every function returns a matplotlib ``Figure`` (nothing is shown) drawn on the headless
Agg canvas, in the style of :mod:`xdiv.plot.figures`; save it with
``fig.savefig("file.png" | ".svg" | ".pdf")``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xarray as xr
from matplotlib.figure import Figure

from ..errors import InputError
from .layout import legend_height, legend_outside, literal, new_figure, style_cycle

__all__ = ["downsampling_plot", "pool_bias_plot"]


def _metric(result: xr.Dataset, metric: str | None) -> str:
    held = [str(m) for m in result["metric"].values]
    if metric is None:
        return held[0]
    if str(metric) not in held:
        raise InputError(f"the result holds the metrics {', '.join(held)}, not {metric!r}")
    return str(metric)


def pool_bias_plot(result: xr.Dataset, metric: str | None = None) -> Figure:
    """Pool bias of each run: the mean change of its score when the judged documents
    only it (or its group) pooled are removed from the qrels (Zobel, SIGIR 1998;
    Buckley, Dimmick, Soboroff & Voorhees, SIGIR 2006), one horizontal bar per run,
    sorted, from :func:`xdiv.pools.leave_one_run_out`.

    How to read it: the longer a bar reaches left of 0, the more the run's score owes to
    documents no other run (group) found, and the more a collection it had not
    contributed to would underrate it; the number after each bar is the judged unique
    documents removed (relevant ones in brackets). Runs in the same group share a
    colour when the result was computed with groups.

    Parameters
    ----------
    result : xarray.Dataset
        The result of :func:`xdiv.pools.leave_one_run_out`.
    metric : str, optional
        The metric drawn (default: the result's first).
    """
    if "mean_difference" not in result or "n_removed" not in result:
        raise InputError("pool_bias_plot needs the result of xdiv.pools.leave_one_run_out")
    metric = _metric(result, metric)
    values = result["mean_difference"].sel(metric=metric).values
    runs = np.array([str(r) for r in result["run"].values], dtype=object)
    order = np.argsort(np.where(np.isnan(values), np.inf, values), kind="stable")[::-1]
    groups = ([str(g) for g in result["group"].values] if "group" in result.coords
              else list(runs))
    by_group = result.attrs.get("left_out") == "group"
    names = list(dict.fromkeys(groups[k] for k in order))
    colours = {g: s["color"] for g, s in zip(names, style_cycle(len(names)))}
    fig = new_figure(7, max(2.5, 0.25 * len(runs) + 1.2))
    ax = fig.add_subplot()
    y = np.arange(len(order))
    bars = ax.barh(y, values[order],
                   color=[colours[groups[k]] if by_group else "tab:blue" for k in order])
    removed = result["n_removed"].values
    relevant = result["n_removed_relevant"].values if "n_removed_relevant" in result else None
    labels = [f"{removed[k]}" + (f" ({relevant[k]})" if relevant is not None else "")
              for k in order]
    ax.bar_label(bars, labels, padding=2, fontsize="x-small")
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, [literal(runs[k]) for k in order], fontsize="x-small")
    ax.set_xlabel(f"mean change of {literal(metric)} (leave-one-out - full qrels)")
    low = np.nanmin(values, initial=0.0)
    ax.set_xlim(min(low * 1.25, -1e-3), max(np.nanmax(values, initial=0.0) * 1.25, 1e-3))
    ax.margins(y=0.02)
    what = "group" if by_group else "run"
    ax.set_title(f"leave one {what} out, pool depth {literal(result.attrs.get('depth', '?'))}\n"
                 "(at each bar: judged unique documents removed, relevant ones in brackets)",
                 fontsize="medium")
    if by_group:
        handles = [ax.bar([0], [0], color=colours[g], width=0)[0] for g in names]
        legend_outside(fig, handles, names, title="group")
    return fig


def downsampling_plot(result: xr.Dataset, tau: str | None = None,
                      metrics: Sequence[str] | None = None) -> Figure:
    """Rank correlation of the run ranking under downsampled judgments with the ranking
    under the full judgments against the fraction of judgments kept (Buckley & Voorhees,
    SIGIR 2004; Yilmaz & Aslam, CIKM 2006), one line per metric (the mean over the
    repeats) in a band from the lowest to the highest repeat, from
    :func:`xdiv.pools.downsample`.

    How to read it: a curve that stays near 1 down to small fractions belongs to a
    metric whose ranking of the runs survives shallow or sparse judging; a wide band
    says the ranking depends on which documents happen to be judged. The dotted line at
    0.9 is the usual threshold of equivalent rankings (Voorhees, SIGIR 1998).

    Parameters
    ----------
    result : xarray.Dataset
        The result of :func:`xdiv.pools.downsample`.
    tau : str, optional
        The coefficient drawn (a variable of the result: ``kendall``, ``tau_ap``, ...;
        default: the result's ``tau`` attribute).
    metrics : list of str, optional
        The metrics drawn (default: all).
    """
    if "fraction" not in result.dims or "full_mean" not in result:
        raise InputError("downsampling_plot needs the result of xdiv.pools.downsample")
    tau = str(result.attrs.get("tau", "kendall")) if tau is None else str(tau)
    if tau not in result or result[tau].dims != ("fraction", "repeat", "metric"):
        held = [v for v in result.data_vars
                if result[v].dims == ("fraction", "repeat", "metric")]
        raise InputError(f"the result holds the coefficients {', '.join(held)}, not {tau!r}")
    names = ([str(m) for m in result["metric"].values] if metrics is None
             else [_metric(result, m) for m in metrics])
    values = result[tau].sel(metric=names).transpose("metric", "fraction", "repeat").values
    fractions = result["fraction"].values
    fig = new_figure(7, max(4.0, legend_height(len(names))))
    ax = fig.add_subplot()
    handles = []
    for k, style in enumerate(style_cycle(len(names))):
        line, = ax.plot(fractions, np.nanmean(values[k], axis=-1),
                        **{**style, "marker": style["marker"] or "."})
        ax.fill_between(fractions, np.nanmin(values[k], axis=-1),
                        np.nanmax(values[k], axis=-1), color=style["color"], alpha=0.15,
                        linewidth=0)
        handles.append(line)
    ax.axhline(0.9, color="grey", linestyle=":", linewidth=1)
    ax.set_xlim(0, 1.02)
    finite = values[np.isfinite(values)]
    ax.set_ylim(min(float(finite.min(initial=1.0)), 0.85) - 0.02, 1.02)
    ax.set_xlabel("fraction of the judgments kept")
    ax.set_ylabel(f"{literal(tau)} with the full-judgment ranking")
    ax.set_title(f"judgment downsampling: {result.sizes['run']} runs, "
                 f"{result.sizes['repeat']} repeats "
                 f"(seed {literal(result.attrs.get('seed', '?'))}), "
                 f"band min-max", fontsize="medium")
    ax.set_xticks(fractions, [f"{f:g}" for f in fractions], fontsize="small")
    legend_outside(fig, handles, names, title="measure")
    return fig
