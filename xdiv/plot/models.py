"""Figures of the statistical models of :mod:`xdiv.analysis.models` (public as
``xdiv.stats.mixed``): the run means of a linear mixed model with their confidence
intervals, as a forest plot.

Every function returns a matplotlib ``Figure`` (nothing is shown) drawn on the headless
Agg canvas, in the style of :mod:`xdiv.plot.figures`; save it with
``fig.savefig("file.png" | ".svg" | ".pdf")``.
"""

from __future__ import annotations

import numpy as np
import xarray as xr
from matplotlib.figure import Figure

from ..errors import InputError
from .layout import legend_outside, literal, new_figure, style_cycle

__all__ = ["GROUPS", "model_means_plot"]

GROUPS = ("not significantly below the best run", "significantly below the best run")
"""The legend of :func:`model_means_plot`: the runs whose adjusted contrast with the best
run is not significant, and the others."""

_RUN_VARIABLES = ("mean", "mean_ci_low", "mean_ci_high")
_PAIR_VARIABLES = ("diff", "pvalue_adjusted")


def _check(result) -> None:
    """A result of :func:`xdiv.stats.mixed`: its kind, run means and contrasts."""
    if isinstance(result, xr.Dataset) and result.attrs.get("xdiv_kind") == "anova":
        raise InputError("model_means_plot draws the run means of a mixed model; an "
                         "analysis of variance (xdiv model --model anova) has none")
    if not isinstance(result, xr.Dataset) or result.attrs.get("xdiv_kind") != "mixed":
        raise InputError("model_means_plot needs the result of xdiv.stats.mixed (xdiv model "
                         "-o with the mixed model)")
    for names, dims in ((_RUN_VARIABLES, ("run",)), (_PAIR_VARIABLES, ("run_a", "run_b"))):
        for name in names:
            if name not in result.data_vars or result[name].dims != dims:
                held = (f"the dimensions {', '.join(map(str, result[name].dims))}"
                        if name in result.data_vars else "no such variable")
                raise InputError(f"model_means_plot: the result's {name} has {held}, not "
                                 f"those xdiv.stats.mixed gives it ({', '.join(dims)})")


def model_means_plot(result: xr.Dataset) -> Figure:
    """The estimated mean of every run with its confidence interval (a forest plot), from
    :func:`xdiv.stats.mixed`: one row per run, the best at the top, a point at the run's
    mean and a bar from ``mean_ci_low`` to ``mean_ci_high``.

    How to read it: the intervals are those of each run's mean (they include the topic
    variance, which every run shares), so two overlapping intervals do not mean that
    the two runs are not told apart; the pairwise contrasts, on the same topics, are far
    more precise. The points are coloured by those contrasts: blue for the best run and
    the runs its adjusted contrast with them does not find significantly below it, at the
    model's ``alpha``; orange for the runs significantly below it. On the logit scale the
    means and intervals are back-transformed to scores, as the result holds them.

    Parameters
    ----------
    result : xarray.Dataset
        The result of :func:`xdiv.stats.mixed` (or ``xdiv model -o``).

    Raises
    ------
    InputError
        Anything else, in one line.
    """
    _check(result)
    runs = np.array([str(r) for r in result["run"].values], dtype=object)
    mean = result["mean"].values.astype(float)
    low = result["mean_ci_low"].values.astype(float)
    high = result["mean_ci_high"].values.astype(float)
    order = np.argsort(np.where(np.isnan(mean), -np.inf, -mean), kind="stable")
    alpha = float(result.attrs.get("alpha", 0.05))
    best = runs[order[0]]
    adjusted = result["pvalue_adjusted"].sel(run_a=best).values.astype(float)
    below = (adjusted < alpha) & (result["diff"].sel(run_a=best).values > 0)
    n = len(runs)
    fig = new_figure(8.5, max(2.5, 0.25 * n + 1.4))
    ax = fig.add_subplot()
    y = np.arange(n)[::-1]  # the best run at the top
    where = {run: y[k] for k, run in enumerate(runs[order])}
    rows = np.array([where[run] for run in runs])
    styles = style_cycle(2, lines=False)
    handles = []
    for group, (label, style) in enumerate(zip(GROUPS, styles)):
        chosen = below if group else ~below
        if not chosen.any():
            continue
        ax.hlines(rows[chosen], low[chosen], high[chosen], color=style["color"],
                  linewidth=1.6)
        handles.append(ax.plot(mean[chosen], rows[chosen], markersize=5, label=label,
                               **style)[0])
    ax.set_yticks(y, [literal(run) for run in runs[order]],
                  fontsize="x-small" if n > 20 else "small")
    ax.set_ylim(-0.7, n - 0.3)
    level = 100 * (1 - alpha)
    metric = literal(result.attrs.get("metric", "score"))
    scale = str(result.attrs.get("scale", "linear"))
    ax.set_xlabel(f"{metric}: estimated mean and {level:g}% confidence interval"
                  + (" (back-transformed from the logit scale)" if scale == "logit" else ""))
    ax.set_title(f"{literal(result.attrs.get('formula', 'mixed model'))}, "
                 f"{literal(result.attrs.get('method', ''))}\n{n} runs; contrasts with the "
                 f"best run at alpha = {alpha:g}", fontsize="medium")
    ax.grid(axis="x", color="0.9")
    ax.set_axisbelow(True)
    legend_outside(fig, handles, [h.get_label() for h in handles],
                   title=str(result.attrs.get("adjust", "adjusted")) + " adjustment")
    return fig
