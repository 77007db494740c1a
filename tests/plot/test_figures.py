"""Plots render headless, write non-empty PNG/SVG/PDF files, and stay readable from 2 runs
and 1 metric to 100 runs and 50 metrics: measured on the drawn figure, no two texts
overlap, every text lies inside the figure, every series has its own style and legends
lie outside the axes."""

from __future__ import annotations

import itertools
import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

import xdiv  # noqa: E402
from xdiv import meta, plots  # noqa: E402
from xdiv.cli import main  # noqa: E402
from xdiv.core.labels import to_json  # noqa: E402

SIZES = {"smallest": (2, 1), "largest": (100, 50)}
"""(runs, metrics) of the synthetic cubes every plot is drawn for."""
BASES = ["I-rec", "D-nDCG", "alpha-nDCG(ndeval=False)", "nERR-IA(ndeval=False)", "D#-nDCG",
         "DIN#-Q", "P+Q#", "nDCG-IA", "Q-IA", "AP-IA"]
TEAMS = ["ICTNETDivR", "MSRABASE", "uogTrDYCcsB", "Sab9wtBfDiv", "tm", "watd", "wume",
         "UamsDwebLFou", "THUIR09FuClu", "NeuDivW"]


@pytest.fixture(scope="module")
def scores():
    col, runs = xdiv.datasets.synthetic(n_topics=12, n_runs=6, depth=20, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        return xdiv.evaluate(runs, col, ["I-rec@10", "D-nDCG@10", "D#-nDCG@10",
                                         "alpha-nDCG@10", "Ef-P@10"])


def _names(n_runs: int, n_metrics: int) -> tuple[list[str], list[str]]:
    runs = [f"{TEAMS[k % len(TEAMS)]}{k // len(TEAMS) + 1}" for k in range(n_runs)]
    metrics = [f"{BASES[k % len(BASES)]}@{(5, 10, 20, 50, 100)[k // len(BASES)]}"
               for k in range(n_metrics)]
    return runs, metrics


def _cube(n_runs: int, n_metrics: int, n_topics: int = 30, seed: int = 0) -> xr.Dataset:
    """A score cube of runs of graded quality, plus I-rec@10 and D-nDCG@10 (for the
    scatter plot) when the metrics do not include them."""
    rng = np.random.default_rng(seed)
    runs, metrics = _names(n_runs, n_metrics)
    metrics += [m for m in ("I-rec@10", "D-nDCG@10") if m not in metrics]
    quality = rng.uniform(0.05, 0.5, n_runs)[None, :, None]
    values = np.clip(quality + rng.normal(0, 0.15, (len(metrics), n_runs, n_topics)), 0, 1)
    return xr.Dataset({"score": (("metric", "run", "topic"), values)},
                      coords={"metric": metrics, "run": runs,
                              "topic": [str(t) for t in range(1, n_topics + 1)]})


def _figures(n_runs: int, n_metrics: int) -> dict:
    rng = np.random.default_rng(1)
    cube = _cube(n_runs, n_metrics)
    _, metrics = _names(n_runs, n_metrics)
    n_pairs = n_runs * (n_runs - 1) // 2
    curves = np.sort(rng.uniform(0, 1, (n_metrics, n_pairs)) ** 3, axis=1)
    power = xr.Dataset({"asl_curve": (("metric", "pair_rank"), curves)},
                       coords={"metric": metrics},
                       attrs={"test": "paired bootstrap", "B": 1000, "seed": 7,
                              "alpha": 0.05})
    k = max(2, n_metrics)  # the concordance test compares two metrics at least
    _, pairs = _names(n_runs, k)
    concordance = rng.uniform(0, 1, (k, k))
    np.fill_diagonal(concordance, np.nan)
    table = xr.Dataset({"concordance_1": (("metric_1", "metric_2"), concordance)},
                       coords={"metric_1": pairs, "metric_2": pairs},
                       attrs={"gold": to_json(["I-rec@10"])})
    correlation = rng.uniform(-1, 1, (n_metrics, n_metrics))
    correlation = (correlation + correlation.T) / 2
    np.fill_diagonal(correlation, 1.0)
    corr = xr.DataArray(correlation, dims=("metric_1", "metric_2"), name="kendall",
                        coords={"metric_1": metrics, "metric_2": metrics})
    first, second = cube["run"].values[:2]
    return {"asl": plots.asl_curves(power), "scatter": plots.irec_dndcg(cube),
            "concordance": plots.concordance_heatmap(table),
            "topics": plots.topic_distributions(cube, metrics[0]),
            "diff": plots.run_differences(cube, metrics[0], first, second),
            "correlation": plots.correlation_matrix(corr)}


def _shown_texts(fig) -> list:
    """Every text drawn: tick labels within the axes' view, axis labels, titles, texts in
    the axes (annotations, cell values, contour labels) and legends."""
    texts = list(fig.texts)
    for ax in fig.axes:
        for axis, index, limits in ((ax.xaxis, 0, ax.get_xlim()), (ax.yaxis, 1, ax.get_ylim())):
            low, high = sorted(limits)
            texts += [t for t in axis.get_ticklabels()
                      if low <= t.get_position()[index] <= high]
            texts.append(axis.label)
        texts += [ax.title, ax._left_title, ax._right_title, *ax.texts]
    for legend in [*fig.legends, *(ax.get_legend() for ax in fig.axes)]:
        if legend is not None:
            texts += [*legend.get_texts(), legend.get_title()]
    return [t for t in texts if t.get_visible() and t.get_text().strip()]


def _check_readable(fig, name: str) -> int:
    """Assert no two drawn texts overlap, all lie inside the figure, series have distinct
    styles and legends lie outside every axes; returns the number of series.

    The figure is laid out as drawing does (ticks, layout engine, legends placed) without
    rasterising its glyphs, which moves no text: the files themselves are written in
    test_every_plot_is_written (item 18 of the test-time audit: a 50-metric heat map's
    2,500 cell values rasterised cost about 10 s)."""
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    texts = _shown_texts(fig)
    boxes = np.array([t.get_window_extent(renderer).extents for t in texts])
    # overlapping by more than half a pixel both ways
    across = np.minimum(boxes[:, None, 2], boxes[None, :, 2]) - \
        np.maximum(boxes[:, None, 0], boxes[None, :, 0])
    up = np.minimum(boxes[:, None, 3], boxes[None, :, 3]) - \
        np.maximum(boxes[:, None, 1], boxes[None, :, 1])
    clash = np.triu((across > 0.5) & (up > 0.5), k=1)
    pairs = [(texts[i].get_text(), texts[j].get_text()) for i, j in zip(*np.nonzero(clash))]
    assert not pairs, f"{name}: {len(pairs)} overlapping texts, e.g. {pairs[:5]}"
    width, height = fig.canvas.get_width_height()
    outside = [t.get_text() for t, b in zip(texts, boxes)
               if b[0] < -1 or b[1] < -1 or b[2] > width + 1 or b[3] > height + 1]
    assert not outside, f"{name}: texts outside the figure: {outside[:5]}"
    series = [line for ax in fig.axes for line in ax.get_lines()
              if not line.get_label().startswith("_")]
    styles = [(to_hex(s.get_color()), s.get_linestyle(), s.get_marker(),
               str(s.get_markerfacecolor())) for s in series]
    repeated = [k for k, n in ((k, styles.count(k)) for k in set(styles)) if n > 1]
    assert not repeated, f"{name}: series share the styles {repeated[:3]}"
    frames = [ax.get_window_extent(renderer) for ax in fig.axes]
    for legend in [*fig.legends, *(ax.get_legend() for ax in fig.axes)]:
        if legend is not None:
            box = legend.get_window_extent(renderer)
            assert not any(box.overlaps(frame) for frame in frames), \
                f"{name}: the legend covers an axes"
    return len(series)


@pytest.mark.parametrize("size", SIZES)
def test_every_plot_is_readable(size):
    n_runs, n_metrics = SIZES[size]
    for name, fig in _figures(n_runs, n_metrics).items():
        n_series = _check_readable(fig, f"{name} ({size})")
        if name == "asl":  # one curve per metric, plus the alpha line
            assert n_series == n_metrics + 1
        if name == "scatter":
            assert n_series == n_runs


def test_a_crowded_scatter_names_its_runs_in_a_legend_and_a_sparse_one_beside_them():
    crowded = _cube(100, 2)
    fig = plots.irec_dndcg(crowded)
    runs = set(crowded["run"].values)
    assert {t.get_text() for t in fig.legends[0].get_texts()} == runs
    assert not runs & {t.get_text() for t in fig.axes[0].texts}
    sparse = _cube(3, 2, seed=4)
    fig = plots.irec_dndcg(sparse)
    assert not fig.legends
    assert set(sparse["run"].values) <= {t.get_text() for t in fig.axes[0].texts}


def test_scatter_axes_fit_the_runs_and_its_contours_are_d_sharp_lines():
    cube = _cube(18, 2, seed=3) * 0.4  # means crowd the lower left of [0, 1]
    gamma = 0.3
    fig = plots.irec_dndcg(cube, gamma=gamma)
    ax = fig.axes[0]
    means = cube["score"].mean("topic")
    x, y = means.sel(metric="D-nDCG@10").values, means.sel(metric="I-rec@10").values
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    assert x0 <= x.min() and x.max() <= x1 and y0 <= y.min() and y.max() <= y1
    assert x1 - x0 < 0.5 and y1 - y0 < 0.5  # fitted, not the fixed unit square
    contours = [c for c in ax.collections if hasattr(c, "levels")][0]
    assert len(contours.levels) >= 3
    for level, path in zip(contours.levels, contours.get_paths()):
        vertices = path.vertices
        assert len(vertices)
        np.testing.assert_allclose(gamma * vertices[:, 1] + (1 - gamma) * vertices[:, 0],
                                   level, atol=1e-9)
        assert (vertices[:, 0] >= x0 - 1e-9).all() and (vertices[:, 0] <= x1 + 1e-9).all()


def test_style_cycles_do_not_repeat_within_their_size():
    lines = plots.style_cycle(220)
    assert len({tuple(s.values()) for s in lines}) == 220
    for a, b in itertools.pairwise(lines[:20]):  # neighbours differ in colour and dashes
        assert a["color"] != b["color"] and a["linestyle"] != b["linestyle"]
    points = plots.style_cycle(200, lines=False)
    assert len({tuple(s.values()) for s in points}) == 200
    assert all(s["linestyle"] == "none" for s in points)


def test_place_labels_gives_up_when_points_crowd():
    fig = plots.new_figure(3, 3)
    ax = fig.add_subplot()
    x = np.full(6, 0.5) + np.arange(6) * 1e-4
    ax.plot(x, x, "o")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    assert not plots.place_labels(ax, x, x, [f"run{k}" for k in range(6)])
    assert not ax.texts
    spread = np.array([0.2, 0.5, 0.8])
    assert plots.place_labels(ax, spread, spread, ["a", "b", "c"])
    assert sorted(t.get_text() for t in ax.texts) == ["a", "b", "c"]


def test_correlation_heat_map_is_clustered_and_prints_its_values():
    # two blocks of mutually correlated metrics, interleaved in the input
    names = [f"M{k}" for k in range(8)]
    group = np.array([0, 1, 0, 1, 0, 1, 0, 1])
    values = np.where(group[:, None] == group[None, :], 0.9, -0.2)
    np.fill_diagonal(values, 1.0)
    corr = xr.DataArray(values, dims=("metric_1", "metric_2"), name="kendall",
                        coords={"metric_1": names, "metric_2": names})
    ax = plots.correlation_matrix(corr).axes[0]
    shown = [t.get_text() for t in ax.get_yticklabels()]
    assert sorted(shown) == names
    order = group[[names.index(s) for s in shown]]
    assert (np.diff(order) != 0).sum() == 1  # each block contiguous
    cells = {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text()
             for t in ax.texts}
    for (i, j), text in cells.items():
        assert text == f"{values[names.index(shown[i]), names.index(shown[j])]:.2f}"
    assert len(cells) == 64
    given = plots.correlation_matrix(corr, order="given").axes[0]
    assert [t.get_text() for t in given.get_yticklabels()] == names
    with pytest.raises(xdiv.InputError, match="order"):
        plots.correlation_matrix(corr, order="alphabetical")


@pytest.mark.parametrize("n", [3, 20])  # values sized to their cells: any n alike
def test_heat_map_values_lie_in_their_axes_so_the_layout_ignores_them(n):
    """The cell values take no part in the layout (2,500 of them made a 50-measure map's
    layout twice as slow): each lies inside the axes, so the layout, and the figure
    written, are those with the values taken into account."""
    rng = np.random.default_rng(n)
    values = rng.uniform(-1, 1, (n, n))
    names = [f"metric {k}" for k in range(n)]
    corr = xr.DataArray((values + values.T) / 2, dims=("metric_1", "metric_2"),
                        coords={"metric_1": names, "metric_2": names}, name="kendall")
    fig, counted = (plots.correlation_matrix(corr, order="given") for _ in range(2))
    ax = fig.axes[0]
    assert len(ax.texts) == n * n and not any(t.get_in_layout() for t in ax.texts)
    for text in counted.axes[0].texts:
        text.set_in_layout(True)
    fig.draw_without_rendering()
    counted.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    for text in ax.texts:
        box = text.get_window_extent(renderer)
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1, text.get_text()
        assert frame.y0 <= box.y0 and box.y1 <= frame.y1, text.get_text()
    assert [a.get_position().bounds for a in fig.axes] == \
        [a.get_position().bounds for a in counted.axes]
    assert fig.get_tightbbox(renderer).bounds == \
        counted.get_tightbbox(counted.canvas.get_renderer()).bounds


@pytest.fixture(scope="module")
def power(scores):
    return meta.discriminative_power(scores, "bootstrap", B=200, seed=1)


@pytest.fixture(scope="module")
def figures(scores, power):
    """Every plot of the scores, built once and written in each format."""
    table = meta.concordance_table(scores, ["alpha-nDCG@10", "D#-nDCG@10"], gold="I-rec@10")
    return {
        "asl": plots.asl_curves(power),
        "scatter": plots.irec_dndcg(scores),
        "concordance": plots.concordance_heatmap(table),
        "topics": plots.topic_distributions(scores, "D#-nDCG@10"),
        "diff": plots.run_differences(scores, "D#-nDCG@10", "run01", "run02"),
        "corr": plots.correlation_matrix(meta.rank_correlation(scores, "kendall")),
    }


@pytest.mark.parametrize("suffix", ["png", "svg", "pdf"])
def test_every_plot_is_written(figures, tmp_path, suffix):
    for name, fig in figures.items():
        path = tmp_path / f"{name}.{suffix}"
        fig.savefig(path)
        assert path.exists() and path.stat().st_size > 1000


def test_asl_title_shows_the_recorded_settings(power):
    title = plots.asl_curves(power).axes[0].get_title()
    assert title == "paired bootstrap: B = 200, seed 1, alpha = 0.05"


def test_meta_file_of_both_tests_records_each_tests_settings(scores, tmp_path):
    cube = xdiv.to_netcdf(scores, tmp_path / "s.nc")
    both, tukey = tmp_path / "both.nc", tmp_path / "tukey.nc"
    assert main(["-q", "meta", str(cube), "--test", "both", "--seed", "5", "-o",
                 str(both)]) == 0
    stored = xdiv.open_dataset(both)
    assert list(stored["B"].values) == [1000, 5000]  # the tests' defaults differ
    assert list(stored["test_name"].values) == ["paired bootstrap", "randomised Tukey HSD"]
    assert list(stored["seed"].values) == [5, 5] and list(stored["alpha"].values) == [0.05] * 2
    one = meta.select_test(stored, "tukey")
    assert {k: one.attrs[k] for k in ("test", "B", "seed", "alpha")} == \
        {"test": "randomised Tukey HSD", "B": 5000, "seed": 5, "alpha": 0.05}
    direct = meta.discriminative_power(scores, "tukey", B=5000, seed=5)
    np.testing.assert_array_equal(one["asl"].values, direct["asl"].values)
    assert plots.asl_curves(stored, test="tukey").axes[0].get_title() == \
        "randomised Tukey HSD: B = 5000, seed 5, alpha = 0.05"
    with pytest.raises(xdiv.InputError, match="holds the tests bootstrap, tukey, not ttest"):
        meta.select_test(stored, "ttest")
    # a file of one test: plot asl takes it without --test
    assert main(["-q", "meta", str(cube), "--test", "tukey", "-B", "300", "-o",
                 str(tukey)]) == 0
    assert main(["plot", "asl", str(tukey), "-o", str(tmp_path / "asl.png")]) == 0
    assert (tmp_path / "asl.png").stat().st_size > 1000
    assert main(["plot", "asl", str(tukey), "--test", "bootstrap", "-o",
                 str(tmp_path / "no.png")]) == 2


def test_plot_inputs_are_checked(scores):
    with pytest.raises(xdiv.InputError, match="discriminative_power"):
        plots.asl_curves(scores)
    with pytest.raises(xdiv.InputError, match="I-rec@20"):
        plots.irec_dndcg(scores, cutoff=20)
