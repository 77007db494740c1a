"""Layout helpers shared by every xdiv figure: figures sized to their content, distinct
style cycles, legends outside the axes, labels placed without overlap, clustered heat maps,
and text from the input drawn as it is."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

from ..errors import shown

__all__ = ["new_figure", "style_cycle", "legend_height", "legend_width", "legend_outside",
    "place_labels", "cluster_order", "category_width", "heatmap", "literal"]


COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")
"""The ten colours of matplotlib's ``tab10`` palette, in its order."""
LINESTYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")
LEGEND_ROWS = 25
"""Legend entries per column before :func:`legend_outside` starts another column."""
_LEGEND_ROW_INCHES = 0.19  # one entry of a fontsize="small" legend, with its spacing
_LABEL_PAD = 1.5  # points between a marker's edge and its label


def literal(text: object) -> str:
    r"""``text`` (made a string) as matplotlib text that draws it as it is: every ``$``
    escaped as ``\$`` (an even number of them would make matplotlib read what lies
    between as mathtext: formatted, or an error for a formula it cannot parse), and every
    character that is not printable (ESC, BEL, NUL, a newline, DEL, a C1 control, a lone
    surrogate) written as :func:`xdiv.errors.shown` writes it on a terminal (``\x1b``),
    whole. Backslashes and the other characters TeX treats as special are drawn as they
    are: xdiv never turns matplotlib's ``text.usetex`` on.

    Every label, legend entry, tick label, title or axis label an xdiv figure takes from
    its input (names of runs, topics, measures, pairs, settings) goes through it once;
    the functions of this module that take labels or titles take plain text and escape
    it themselves.

    Parameters
    ----------
    text : object
        The text to draw (a run name, a measure, a setting).

    Returns
    -------
    str
        The text to give matplotlib.

    Examples
    --------
    >>> print(literal("a$\\frac$ \x1b"))
    a\$\frac\$ \x1b
    """
    return shown(text, None).replace("$", r"\$")


def new_figure(width: float, height: float) -> Figure:
    """A ``width`` × ``height`` inch figure on the Agg canvas (so that its texts can be
    measured before it is saved) with matplotlib's constrained layout."""
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def style_cycle(n: int, lines: bool = True) -> list[dict]:
    """``n`` different styles, one per series of a figure, as keyword arguments of
    :meth:`matplotlib.axes.Axes.plot`.

    With ``lines`` the colour cycles through the 10 ``tab10`` colours and, at the same
    time, the line style through 4 (solid, dashed, dotted, dash-dot), so that
    neighbouring series differ in both; their pairs repeat after 20 series, after which
    a marker is added (none for the first 20, then 10 kinds): 220 distinct styles.
    Without ``lines`` (points only, ``linestyle="none"``) the colour and the marker
    change together (10 × 10 pairs), then the markers are drawn hollow: 200 distinct
    styles. Past these counts styles repeat.
    """
    styles = []
    for k in range(n):
        colour = COLOURS[k % len(COLOURS)]
        if lines:
            marker = ("", *MARKERS)[(k // 20) % (len(MARKERS) + 1)]
            styles.append({"color": colour, "linestyle": LINESTYLES[k % len(LINESTYLES)],
                           "marker": marker})
        else:
            block = k // (len(COLOURS) * len(MARKERS))
            styles.append({"color": colour, "linestyle": "none",
                           "marker": MARKERS[(k + k // len(COLOURS)) % len(MARKERS)],
                           "markerfacecolor": colour if block % 2 == 0 else "none"})
    return styles


def legend_height(n: int) -> float:
    """Inches a :func:`legend_outside` legend of ``n`` entries needs (plus a margin)."""
    return min(n, LEGEND_ROWS) * _LEGEND_ROW_INCHES + 0.6


def legend_width(labels: Sequence[str]) -> float:
    """Inches a :func:`legend_outside` legend of ``labels`` needs beside the axes, as many
    columns as it takes, each as wide as the longest label drawn (:func:`literal`)."""
    longest = max(len(literal(label)) for label in labels)
    return math.ceil(len(labels) / LEGEND_ROWS) * (longest * 0.075 + 0.5)


def legend_outside(fig: Figure, handles: Sequence, labels: Sequence[str], *,
                   title: str | None = None):
    """A legend to the right of the axes, outside the data, in as many columns of at
    most :data:`LEGEND_ROWS` entries as needed. The figure must use constrained layout
    (:func:`new_figure`), which narrows the axes to make room; give the figure at least
    :func:`legend_height` inches of height. The labels and the title are drawn as they
    are (:func:`literal`)."""
    return fig.legend(handles, [literal(label) for label in labels],
                      loc="outside right upper", fontsize="small",
                      ncols=max(1, math.ceil(len(labels) / LEGEND_ROWS)),
                      title=None if title is None else literal(title),
                      title_fontsize="small", frameon=False)


def place_labels(ax, x: np.ndarray, y: np.ndarray, labels: Sequence[str], *,
                 markersize: float = 6.0, fontsize: str | float = "x-small") -> bool:
    """Label each point ``(x[i], y[i])`` of ``ax`` with ``labels[i]`` beside its marker
    (right, above, left, below or diagonally), where the label overlaps no other label,
    no marker and no text already in the axes, and stays inside the axes. The labels are
    drawn as they are (:func:`literal`).

    The figure is drawn first and its layout then frozen (constrained layout switched
    off), so that the positions measured stay those saved. Points in crowded places are
    labelled first. If some point has no free place, no label is kept and ``False`` is
    returned: the caller should name the points in a legend instead.
    """
    fig = ax.figure
    fig.draw_without_rendering()
    fig.set_layout_engine("none")
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    points = ax.transData.transform(np.column_stack([x, y]))
    radius = (markersize / 2 + _LABEL_PAD) * fig.dpi / 72
    taken = [_extent(t.get_window_extent(renderer)) for t in ax.texts
             if t.get_visible() and t.get_text()]
    taken += [(px - radius, py - radius, px + radius, py + radius) for px, py in points]
    crowd = (np.hypot(*(points[:, None, :] - points[None, :, :]).T) < 40 * fig.dpi / 72)
    placed = []
    offset = markersize / 2 + _LABEL_PAD
    for i in np.argsort(-crowd.sum(axis=0), kind="stable"):
        for dx, dy in ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)):
            text = ax.annotate(literal(labels[i]), (x[i], y[i]), xytext=(dx * offset, dy * offset),
                               textcoords="offset points", fontsize=fontsize,
                               ha={1: "left", 0: "center", -1: "right"}[dx],
                               va={1: "bottom", 0: "center", -1: "top"}[dy])
            box = _extent(text.get_window_extent(renderer))
            if _inside(box, _extent(frame)) and not _overlaps(box, np.array(taken)):
                taken.append(box)
                placed.append(text)
                break
            text.remove()
        else:
            for text in placed:
                text.remove()
            return False
    return True


def _extent(box: Bbox) -> tuple[float, float, float, float]:
    return (box.x0, box.y0, box.x1, box.y1)


def _inside(box, frame) -> bool:
    return box[0] >= frame[0] and box[1] >= frame[1] and box[2] <= frame[2] and \
        box[3] <= frame[3]


def _overlaps(box, others: np.ndarray) -> bool:
    """Whether ``box`` overlaps any of ``others`` (rows x0, y0, x1, y1), by more than
    touching."""
    if not len(others):
        return False
    return bool(np.any((others[:, 0] < box[2]) & (box[0] < others[:, 2])
                       & (others[:, 1] < box[3]) & (box[1] < others[:, 3])))


def cluster_order(distance: np.ndarray) -> np.ndarray:
    """The order of the leaves of an average-linkage clustering (UPGMA) of a symmetric
    matrix of distances, with the optimal leaf ordering of Bar-Joseph, Gifford & Jaakkola
    (Bioinformatics, 2001) so that neighbours are as close as possible
    (:mod:`scipy.cluster.hierarchy`). NaN distances count as the largest one."""
    from scipy.cluster.hierarchy import leaves_list, linkage
    from scipy.spatial.distance import squareform

    n = len(distance)
    if n < 3:
        return np.arange(n)
    d = np.asarray(distance, dtype=float)
    d = np.where(np.isfinite(d), d, np.nanmax(d[np.isfinite(d)], initial=1.0))
    d = (d + d.T) / 2
    np.fill_diagonal(d, 0.0)
    return leaves_list(linkage(squareform(d, checks=False), "average", optimal_ordering=True))


def category_width(n: int, minimum: float = 5.0) -> float:
    """Inches for an axis of ``n`` categories whose x tick labels are set vertically in
    ``x-small`` type: 0.2 inch each, so that neighbouring labels never touch."""
    return max(minimum, 0.2 * n + 1.5)


def heatmap(values: np.ndarray, rows: Sequence[str], columns: Sequence[str], *,
            vmin: float, vmax: float, cmap: str, label: str, title: str) -> Figure:
    """A heat map of ``values`` (rows × columns) with a colour bar named ``label``.

    Cells are square, 0.24 to 0.5 inch depending on the count, and the figure grows
    with the labels; tick labels are sized to their cell (x labels vertical), so they
    never overlap. Each cell prints its value with two decimals where that text fits
    the cell (in white on dark colours); NaN cells are left blank. The labels, ``label``
    and ``title`` are drawn as they are (:func:`literal`).
    """
    rows, columns = [literal(r) for r in rows], [literal(c) for c in columns]
    n = max(len(rows), len(columns))
    cell = min(0.5, max(0.24, 10 / n))
    fontsize = min(9.0, 0.6 * cell * 72)
    longest = max(len(s) for s in [*rows, *columns]) * 0.6 * fontsize / 72
    fig = new_figure(max(4.0, len(columns) * cell + longest + 1.6),
                     max(3.0, len(rows) * cell + longest + 0.8))
    ax = fig.add_subplot()
    image = ax.imshow(values, vmin=vmin, vmax=vmax, cmap=cmap)
    ax.set_xticks(range(len(columns)), columns, rotation=90, fontsize=fontsize)
    ax.set_yticks(range(len(rows)), rows, fontsize=fontsize)
    fig.colorbar(image, ax=ax, label=literal(label))
    ax.set_title(literal(title), fontsize="medium")
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    width = ax.get_window_extent(renderer).width / len(columns)
    size = min(8.0, 0.3 * width * 72 / fig.dpi)
    probe = ax.text(0, 0, "-0.00", fontsize=size)
    fits = size >= 4.5 and probe.get_window_extent(renderer).width <= 0.9 * width
    probe.remove()
    if fits:
        colours = image.cmap(image.norm(values))
        dark = colours[..., :3] @ np.array([0.299, 0.587, 0.114]) < 0.5  # luma
        for (i, j), v in np.ndenumerate(values):
            if np.isfinite(v):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=size,
                        color="white" if dark[i, j] else "black",
                        in_layout=False)  # inside its cell: no say in the layout
    return fig
