"""Plots of score cubes and meta-evaluation results (matplotlib).

Every function returns a matplotlib ``Figure`` (nothing is shown); save it with
``fig.savefig("file.png" | ".svg" | ".pdf")``. The backend is left to the caller (the CLI
and the tests use the headless ``Agg`` backend).
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from .errors import InputError
from .evaluate import score_array
from .labels import from_json

__all__ = ["asl_curves", "irec_dndcg", "concordance_heatmap", "topic_distributions",
           "run_differences", "correlation_matrix"]


def _figure(**kwargs):
    from matplotlib.figure import Figure

    return Figure(**kwargs)


def asl_curves(result: xr.Dataset, alpha: float | None = None):
    """ASL curves (seed 000 Fig. 1-2): each metric's run-pair ASLs sorted ascending."""
    if "asl_curve" not in result:
        raise InputError("asl_curves needs the result of xdiv.meta.discriminative_power")
    fig = _figure(figsize=(6, 4))
    ax = fig.add_subplot()
    for metric in result["metric"].values:
        curve = result["asl_curve"].sel(metric=metric).values
        ax.plot(np.arange(1, len(curve) + 1), curve, label=str(metric))
    level = result.attrs.get("alpha", 0.05) if alpha is None else alpha
    ax.axhline(level, color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel("run pairs sorted by ASL")
    ax.set_ylabel("ASL")
    ax.set_title(f"{result.attrs.get('test', '')} (B = {result.attrs.get('B', '?')})")
    ax.legend(fontsize="small")
    return fig


def irec_dndcg(scores: xr.Dataset, cutoff: int = 10, gamma: float = 0.5):
    """Mean I-rec against mean D-nDCG per run with D#-nDCG contour lines (seed 000 Fig. 3).

    ``scores`` must hold ``I-rec@l`` and ``D-nDCG@l``.
    """
    names = [f"I-rec@{cutoff}", f"D-nDCG@{cutoff}"]
    means = score_array(scores, names).mean("topic", skipna=True)
    y, x = means.values
    fig = _figure(figsize=(5, 5))
    ax = fig.add_subplot()
    grid = np.linspace(0, 1, 101)
    gx, gy = np.meshgrid(grid, grid)
    lines = ax.contour(gx, gy, gamma * gy + (1 - gamma) * gx, levels=np.linspace(0.1, 0.9, 9),
                       colors="lightgrey", linewidths=0.8)
    ax.clabel(lines, fontsize="x-small")
    ax.scatter(x, y, s=14)
    for run, a, b in zip(means["run"].values, x, y):
        ax.annotate(str(run), (a, b), fontsize="x-small", xytext=(2, 2),
                    textcoords="offset points")
    ax.set_xlabel(names[1])
    ax.set_ylabel(names[0])
    ax.set_title(f"contours: D#-nDCG@{cutoff} (gamma = {gamma})")
    return fig


def concordance_heatmap(table: xr.Dataset):
    """Heat map of ``concordance_1`` from :func:`xdiv.meta.concordance_table`."""
    values = table["concordance_1"].values
    fig = _figure(figsize=(5, 4))
    ax = fig.add_subplot()
    image = ax.imshow(values, vmin=0, vmax=1, cmap="viridis")
    names = [str(m) for m in table["metric_1"].values]
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right", fontsize="small")
    ax.set_yticks(range(len(names)), names, fontsize="small")
    for (i, j), v in np.ndenumerate(values):
        if np.isfinite(v):
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize="x-small",
                    color="white" if v < 0.5 else "black")
    fig.colorbar(image, ax=ax, label="Correct(row) / Disagreements")
    ax.set_title(f"concordance, gold: {', '.join(from_json(table.attrs.get('gold', '[]')))}")
    return fig


def topic_distributions(scores: xr.Dataset, metric: str):
    """Box plots of a metric's per-topic scores, one box per run (sorted by mean)."""
    da = score_array(scores, [metric]).isel(metric=0)
    order = da["run"].values[np.argsort(-da.mean("topic", skipna=True).values)]
    data = [da.sel(run=r).dropna("topic").values for r in order]
    fig = _figure(figsize=(max(5, 0.35 * len(order)), 4))
    ax = fig.add_subplot()
    ax.boxplot(data)
    ax.set_xticks(range(1, len(order) + 1), [str(r) for r in order], rotation=90,
                  fontsize="x-small")
    ax.set_ylabel(metric)
    return fig


def run_differences(scores: xr.Dataset, metric: str, run_a: str, run_b: str):
    """Per-topic differences ``run_a - run_b`` of a metric, sorted."""
    if str(run_a) == str(run_b):
        raise InputError(f"run_differences compares two different runs, not {run_a} with "
                         "itself")
    da = score_array(scores, [metric], [run_a, run_b]).isel(metric=0)
    diff = (da.isel(run=0) - da.isel(run=1)).dropna("topic")
    order = np.argsort(diff.values)
    fig = _figure(figsize=(6, 3.5))
    ax = fig.add_subplot()
    ax.bar(range(len(order)), diff.values[order],
           color=np.where(diff.values[order] >= 0, "tab:blue", "tab:red"))
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlabel("topics (sorted)")
    ax.set_ylabel(f"{metric}: {run_a} - {run_b}")
    return fig


def correlation_matrix(correlation: xr.DataArray):
    """Heat map of :func:`xdiv.meta.rank_correlation`'s matrix."""
    fig = _figure(figsize=(5, 4))
    ax = fig.add_subplot()
    image = ax.imshow(correlation.values, vmin=-1, vmax=1, cmap="RdBu")
    names = [str(m) for m in correlation["metric_1"].values]
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right", fontsize="small")
    ax.set_yticks(range(len(names)), names, fontsize="small")
    fig.colorbar(image, ax=ax, label=str(correlation.name))
    return fig
