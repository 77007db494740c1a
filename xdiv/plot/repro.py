"""Figures of the reproducibility measures of :mod:`xdiv.analysis.repro` (public as
``xdiv.repro``), as Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer & Soboroff draw them
("How to measure the reproducibility of system-oriented IR experiments", SIGIR 2020): the
effect ratio against ΔRI, one point per pair of repetitions and measure, and KTU, RBO or
RMSE against the cutoff, one line per pair and run.

Every function returns a matplotlib ``Figure`` (nothing is shown) drawn on the headless
Agg canvas, in the style of :mod:`xdiv.plot.figures`; save it with
``fig.savefig("file.png" | ".svg" | ".pdf")``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import xarray as xr
from matplotlib.figure import Figure

from ..errors import InputError
from .layout import (legend_height, legend_outside, legend_width, literal, new_figure,
                     place_labels, style_cycle)

__all__ = ["CUTOFF_MEASURES", "cutoff_plot", "er_dri_plot"]

CUTOFF_MEASURES = {"ktu": "KTU", "rbo": "RBO", "rbo_min": "RBO min", "rmse": "RMSE",
                   "nrmse": "nRMSE"}
"""What :func:`cutoff_plot` draws against the cutoff, and its axis label: KTU and the RBO
forms at the result's cutoffs, RMSE and nRMSE at the cutoffs of the measures."""

QUADRANTS = {(False, True): "smaller improvement", (True, False): "larger improvement",
             (True, True): "larger in absolute,\nsmaller in relative terms",
             (False, False): "smaller in absolute,\nlarger in relative terms"}
"""What the repetition's improvement is in each quadrant of :func:`er_dri_plot`, keyed by
(ER > 1, ΔRI > 0)."""

_DIMS = {"er": {"metric"}, "dri": {"metric"}, "ktu": {"role", "cutoff"},
         "rbo": {"role", "cutoff"}, "rbo_min": {"role", "cutoff"}, "rmse": {"metric", "role"},
         "nrmse": {"metric", "role"}}
"""The dimensions of the variables drawn (besides ``pair``)."""

_MARGIN = 0.18  # share of the y range kept free above and below the points, for the
# quadrants' texts


def _check(result: xr.Dataset, names: Sequence[str], what: str) -> None:
    if not isinstance(result, xr.Dataset) or result.attrs.get("xdiv_kind") != "repro":
        raise InputError(f"{what} needs the result of xdiv.repro.evaluate (xdiv repro -o)")
    missing = [name for name in names if name not in result]
    for name in set(names) - set(missing):
        dims = set(result[name].dims) - {"pair"}
        if dims != _DIMS[name] or ("pair" in result[name].dims) != ("pair" in result.dims):
            raise InputError(f"{what}: the result's {name} has the dimensions "
                             f"{', '.join(result[name].dims)}, not those xdiv.repro.evaluate "
                             "gives it")
    if missing:
        why = ("ER and ΔRI need an advanced run" if "er" in missing else
               "the runs were repeated on another collection" if "ktu" not in result else
               "KTU and RBO in repro_eval's definitions have no RBO min")
        raise InputError(f"{what}: the result holds no {', '.join(missing)} ({why})")


def _metrics(result: xr.Dataset, metrics: Sequence[str] | None) -> list[str]:
    held = [str(m) for m in result["metric"].values]
    if metrics is None:
        return held
    metrics = [metrics] if isinstance(metrics, str) else [str(m) for m in metrics]
    unknown = [m for m in metrics if m not in held]
    if unknown:
        raise InputError(f"the result holds the measures {', '.join(held)}, not "
                         f"{', '.join(unknown)}")
    return metrics


def _pairs(result: xr.Dataset) -> list[tuple[int | None, str | None]]:
    """``(position, name)`` of the result's pairs, or ``[(None, None)]`` for a result of
    one pair given by its roles."""
    if "pair" not in result.dims:
        return [(None, None)]
    return [(k, str(p)) for k, p in enumerate(result["pair"].values)]


def _at(da: xr.DataArray, pair: int | None, **where) -> xr.DataArray:
    return (da.isel(pair=pair) if pair is not None else da).sel(**where)


def _limits(values: np.ndarray, reference: float, margin: float) -> tuple[float, float]:
    """Limits spanning the finite ``values`` and the ``reference`` line with room on both
    sides of it, plus ``margin`` of the span at each end."""
    values = np.append(values[np.isfinite(values)], reference)
    low, high = float(values.min()), float(values.max())
    span = max(high - low, 0.2)
    low, high = min(low, reference - 0.1 * span), max(high, reference + 0.1 * span)
    span = high - low
    return low - margin * span, high + margin * span


def er_dri_plot(result: xr.Dataset, metrics: Sequence[str] | None = None) -> Figure:
    """The effect ratio (ER, x) against ΔRI (y) of every pair of repetitions and measure
    (as Breuer et al., SIGIR 2020, draw it), from :func:`xdiv.repro.evaluate` with an
    advanced run.

    How to read it, for original advanced runs that beat their baselines (the usual
    case): a perfect repetition sits where the dashed lines ER = 1 and ΔRI = 0 cross.
    ER is the repetition's mean per-topic improvement of the advanced over the baseline
    run, over the original's; ΔRI is the original's relative improvement minus
    the repetition's. Left of ER = 1 and above ΔRI = 0, the repetition improves less than
    the original did, in absolute and in relative terms; right of it and below, more. In
    the other two quadrants the two disagree, because the repeated baseline scores
    higher (upper right) or lower (lower left) than the original. Left of the dotted
    line ER = 0 the repetition's advanced run is no better than its baseline: the
    improvement was not repeated. Points are named (``pair: measure``) beside their
    markers where the names fit without overlapping anything, else in the legend; a
    point whose ER or ΔRI is undefined (no improvement in the original, or a baseline
    scoring 0) is left out, as the title says.
    """
    _check(result, ["er", "dri"], "er_dri_plot")
    metrics = _metrics(result, metrics)
    pairs = _pairs(result)
    points = []
    for k, pair in pairs:
        for metric in metrics:
            x = float(_at(result["er"], k, metric=metric))
            y = float(_at(result["dri"], k, metric=metric))
            points.append((metric if pair is None else f"{pair}: {metric}", x, y))
    shown = [p for p in points if math.isfinite(p[1]) and math.isfinite(p[2])]
    names = [p[0] for p in shown]
    x = np.array([p[1] for p in shown])
    y = np.array([p[2] for p in shown])
    size = (6.5, 5.5)
    fig = new_figure(*size)
    ax = fig.add_subplot()
    (x0, x1), (y0, y1) = _limits(x, 1.0, 0.08), _limits(y, 0.0, _MARGIN)
    ax.axvline(1, color="0.4", linestyle="--", linewidth=0.9)
    ax.axhline(0, color="0.4", linestyle="--", linewidth=0.9)
    if x0 < 0:
        ax.axvline(0, color="0.4", linestyle=":", linewidth=0.9)
    for (right, top), text in QUADRANTS.items():
        ax.text(0.98 if right else 0.02, 0.98 if top else 0.02, text, transform=ax.transAxes,
                ha="right" if right else "left", va="top" if top else "bottom",
                fontsize="x-small", color="0.35")
    handles = [ax.plot(a, b, markersize=6, label=name, **style)[0]
               for a, b, name, style in zip(x, y, names, style_cycle(len(names), lines=False))]
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_xlabel("ER (effect ratio)")
    ax.set_ylabel("ΔRI (delta relative improvement)")
    left = len(points) - len(shown)
    ax.set_title(f"{len(shown)} of {len(points)} pair and measure points"
                 + (f" ({left} undefined)" if left else ""), fontsize="medium")
    if names and (len(names) > 40 or not place_labels(ax, x, y, names)):
        fig.set_layout_engine("constrained")
        fig.set_size_inches(size[0] + legend_width(names),
                            max(size[1], legend_height(len(names))))
        legend_outside(fig, handles, names,
                       title="pair: measure" if "pair" in result.dims else "measure")
    return fig


_CUTOFF = re.compile(r"(?P<base>.+)@(?P<cutoff>\d+)")


def _by_cutoff(result: xr.Dataset, metrics: list[str]) -> dict[str, list[tuple[int, str]]]:
    """``{base measure: [(cutoff, metric label), ...]}`` for the measures held at two
    cutoffs or more, by their canonical names (``P.10`` is ``P@10``)."""
    labels = [str(m) for m in result["metric"].values]
    canonical = ([str(c) for c in result["canonical"].values] if "canonical" in result.coords
                 else labels)
    found: dict[str, list[tuple[int, str]]] = {}
    for label, name in zip(labels, canonical):
        match = _CUTOFF.fullmatch(name)
        if label in metrics and match:
            found.setdefault(match["base"], []).append((int(match["cutoff"]), label))
    return {base: sorted(held) for base, held in found.items() if len(held) >= 2}


def cutoff_plot(result: xr.Dataset, measure: str = "ktu",
                metrics: Sequence[str] | None = None) -> Figure:
    """KTU, RBO or RMSE against the cutoff (as Breuer et al., SIGIR 2020, draw them),
    one line per pair of repetitions and run (baseline, advanced), from
    :func:`xdiv.repro.evaluate` on the original collection.

    ``measure`` is one of :data:`CUTOFF_MEASURES`: ``"ktu"``, ``"rbo"`` and ``"rbo_min"``
    are drawn at the result's cutoffs (the depth of the lists compared, means over the
    topics); ``"rmse"`` and ``"nrmse"`` at the cutoffs of the measures, one line per
    measure too, for the measures the result holds at two cutoffs or more (as ``P@5``,
    ``P@10``, ``P@20``; ``metrics`` chooses among them).

    How to read it: KTU and RBO are 1 for lists in the same order and fall as the
    repetition orders the documents differently; RMSE is 0 for the same per-topic scores
    and grows as they differ. A line that moves with the cutoff tells at which depth the
    repetition departs from the original: KTU usually falls with depth as more documents
    are compared, RBO weighs the top. Cutoffs spanning a factor of 20 or more are drawn
    on a logarithmic axis.
    """
    if measure not in CUTOFF_MEASURES:
        raise InputError(f"measure must be one of {', '.join(CUTOFF_MEASURES)}, not "
                         f"{measure!r}")
    _check(result, [measure], "cutoff_plot")
    pairs = _pairs(result)
    roles = [str(r) for r in result["role"].values]
    series = []  # (label, cutoffs, values)
    if measure in ("rmse", "nrmse"):
        groups = _by_cutoff(result, _metrics(result, metrics))
        if not groups:
            raise InputError(f"cutoff_plot: {CUTOFF_MEASURES[measure]} against the cutoff "
                             "needs a measure at two cutoffs or more (as P@5 P@10 P@20; "
                             "xdiv repro -m P.5 P.10 P.20)")
        for base, held in groups.items():
            cutoffs = np.array([c for c, _ in held])
            for k, pair in pairs:
                for role in roles:
                    values = [float(_at(result[measure], k, metric=label, role=role))
                              for _, label in held]
                    series.append((", ".join(s for s in (base, pair, role) if s is not None),
                                   cutoffs, np.array(values)))
        title = "measure, pair, run" if "pair" in result.dims else "measure, run"
        xlabel = "cutoff of the measure"
    else:
        if metrics is not None:
            raise InputError(f"cutoff_plot: {CUTOFF_MEASURES[measure]} is of the document "
                             "order, not of a measure; metrics= is for rmse and nrmse")
        cutoffs = result["cutoff"].values
        for k, pair in pairs:
            for role in roles:
                values = _at(result[measure], k, role=role).sel(cutoff=cutoffs).values
                series.append((", ".join(s for s in (pair, role) if s is not None), cutoffs,
                               values))
        title = "pair, run" if "pair" in result.dims else "run"
        xlabel = "cutoff (depth of the lists compared)"
    labels = [s[0] for s in series]
    fig = new_figure(5.5 + legend_width(labels), max(4.0, legend_height(len(labels))))
    ax = fig.add_subplot()
    handles = [ax.plot(c, v, **{**style, "marker": style["marker"] or "."}, markersize=5,
                       label=label)[0]
               for (label, c, v), style in zip(series, style_cycle(len(series)))]
    every = np.unique(np.concatenate([s[1] for s in series]))
    if every.max() >= 20 * every.min():
        ax.set_xscale("log")
    ax.set_xticks(every, [str(c) for c in every])
    ax.minorticks_off()
    if len(every) == 1:
        ax.set_xlim(every[0] - 1, every[0] + 1)
    values = np.concatenate([s[2] for s in series])
    values = values[np.isfinite(values)]
    if values.size:
        low, high = float(values.min()), float(values.max())
        pad = 0.08 * max(high - low, 0.05)
        ax.set_ylim(low - pad, high + pad)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(CUTOFF_MEASURES[measure])
    ax.set_title(f"{CUTOFF_MEASURES[measure]} against the cutoff "
                 f"({literal(result.attrs.get('case', '')).replace('_', ' ')})",
                 fontsize="medium")
    legend_outside(fig, handles, labels, title=title)
    return fig
