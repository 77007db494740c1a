"""The reproducibility figures (issue 37 item 1: Breuer et al., SIGIR 2020, ER against
ΔRI and KTU/RMSE against the cutoff): readable from one pair and one measure to 20 pairs
and 5 measures (the checks of test_figures), each point and line at the value of the
result it draws, and reached by ``xdiv plot``."""

from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402

import xdiv  # noqa: E402
import xdiv.repro  # noqa: E402
from xdiv.cli import main  # noqa: E402
from xdiv.plot import repro as plots  # noqa: E402

from .test_figures import _check_readable  # noqa: E402

MEASURES = ["P@5", "P@10", "P@20", "nDCG@10", "alpha-nDCG@20"]


def _result(n_pairs: int, n_metrics: int, seed: int = 0, pairs: bool = True) -> xr.Dataset:
    """A result laid out as xdiv.repro.evaluate's, with random values (the figures are
    checked against it, whatever they are)."""
    rng = np.random.default_rng(seed)
    names = [f"rpl_wcr04_tf_{k + 1}" for k in range(n_pairs)]
    metrics = MEASURES[:n_metrics]
    roles, cutoffs = ["baseline", "advanced"], [5, 10, 20, 100, 1000]
    lead = (n_pairs,) if pairs else ()
    dims = ("pair",) if pairs else ()
    shape = {"metric": len(metrics), "role": 2, "cutoff": len(cutoffs)}
    result = xr.Dataset(coords={"metric": metrics, "role": roles, "cutoff": cutoffs,
                                "canonical": ("metric", metrics)},
                        attrs={"xdiv_kind": "repro", "case": "same_collection"})
    if pairs:
        result = result.assign_coords(pair=names)
    for name, where in (("er", ("metric",)), ("dri", ("metric",)),
                        ("ktu", ("role", "cutoff")), ("rbo", ("role", "cutoff")),
                        ("rmse", ("metric", "role"))):
        values = rng.uniform(-0.5, 2.5, lead + tuple(shape[d] for d in where))
        if name == "dri":
            values = values / 5 - 0.1
        result[name] = (dims + where, values)
    return result


@pytest.mark.slow  # draws and measures every text of 8 figures
@pytest.mark.parametrize("size", [(1, 1), (20, 5)])
def test_every_repro_figure_is_readable(size):
    n_pairs, n_metrics = size
    result = _result(n_pairs, n_metrics)
    figures = {"er-dri": plots.er_dri_plot(result), "ktu": plots.cutoff_plot(result, "ktu"),
               "rbo": plots.cutoff_plot(result, "rbo")}
    if n_metrics >= 3:  # P@5, P@10, P@20: a measure at several cutoffs
        figures["rmse"] = plots.cutoff_plot(result, "rmse")
    for name, fig in figures.items():
        n_series = _check_readable(fig, f"{name} {size}")
        expected = n_pairs * n_metrics if name == "er-dri" else 2 * n_pairs
        assert n_series == expected, name


def test_er_dri_points_are_the_results_values():
    result = _result(3, 4, seed=1)
    result["er"][0, 1] = np.nan  # an original without improvement: ER undefined
    fig = plots.er_dri_plot(result)
    ax = fig.axes[0]
    drawn = {line.get_label(): tuple(line.get_xydata()[0]) for line in ax.get_lines()
             if not line.get_label().startswith("_")}
    expected = {f"{p}: {m}": (float(result["er"].sel(pair=p, metric=m)),
                              float(result["dri"].sel(pair=p, metric=m)))
                for p in result["pair"].values for m in result["metric"].values}
    left = "rpl_wcr04_tf_1: P@10"
    assert set(drawn) == set(expected) - {left}
    for label, point in drawn.items():
        assert point == expected[label]
    assert ax.get_title() == "11 of 12 pair and measure points (1 undefined)"
    # the reference lines ER = 1 and ΔRI = 0, within the axes, and the quadrants named
    references = [line.get_xydata() for line in ax.get_lines()
                  if line.get_label().startswith("_")]
    assert any(np.all(r[:, 0] == 1) for r in references)
    assert any(np.all(r[:, 1] == 0) for r in references)
    x0, x1 = ax.get_xlim()
    y0, y1 = ax.get_ylim()
    assert x0 < 1 < x1 and y0 < 0 < y1
    texts = {t.get_text() for t in ax.texts}
    assert set(plots.QUADRANTS.values()) <= texts
    # labelled beside the points, or in a legend
    named = texts | {t.get_text() for legend in fig.legends for t in legend.get_texts()}
    assert set(drawn) <= named


def test_one_pair_given_by_roles_is_drawn_without_pair_names():
    result = _result(1, 2, pairs=False)
    ax = plots.er_dri_plot(result).axes[0]
    assert sorted(line.get_label() for line in ax.get_lines()
                  if not line.get_label().startswith("_")) == ["P@10", "P@5"]
    ax = plots.cutoff_plot(result, "ktu").axes[0]
    lines = [line for line in ax.get_lines()]
    assert [line.get_label() for line in lines] == ["baseline", "advanced"]
    np.testing.assert_array_equal(lines[1].get_ydata(),
                                  result["ktu"].sel(role="advanced").values)


def test_cutoff_lines_are_the_results_values():
    result = _result(2, 5, seed=2)
    fig = plots.cutoff_plot(result, "ktu")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"  # 5 to 1000
    assert [t.get_text() for t in ax.get_xticklabels()] == ["5", "10", "20", "100", "1000"]
    for line in ax.get_lines():
        pair, role = line.get_label().split(", ")
        np.testing.assert_array_equal(line.get_xdata(), [5, 10, 20, 100, 1000])
        np.testing.assert_array_equal(line.get_ydata(),
                                      result["ktu"].sel(pair=pair, role=role).values)
    # RMSE: only P is held at several cutoffs (nDCG@10 and alpha-nDCG@20 at one each)
    ax = plots.cutoff_plot(result, "rmse").axes[0]
    assert ax.get_xscale() == "linear"
    lines = ax.get_lines()
    assert len(lines) == 4
    for line in lines:
        base, pair, role = line.get_label().split(", ")
        assert base == "P"
        np.testing.assert_array_equal(line.get_xdata(), [5, 10, 20])
        np.testing.assert_array_equal(
            line.get_ydata(),
            result["rmse"].sel(pair=pair, role=role, metric=["P@5", "P@10", "P@20"]).values)


def test_figures_check_their_input():
    result = _result(2, 2)
    with pytest.raises(xdiv.InputError, match="xdiv.repro.evaluate"):
        plots.er_dri_plot(result.assign_attrs(xdiv_kind="scores"))
    with pytest.raises(xdiv.InputError, match="ER and ΔRI need an advanced run"):
        plots.er_dri_plot(result.drop_vars(["er", "dri"]))
    with pytest.raises(xdiv.InputError, match="another collection"):
        plots.cutoff_plot(result.drop_vars(["ktu", "rbo"]), "ktu")
    with pytest.raises(xdiv.InputError, match="needs a measure at two cutoffs or more"):
        plots.cutoff_plot(result, "rmse", ["P@5"])
    with pytest.raises(xdiv.InputError, match="measure must be one of"):
        plots.cutoff_plot(result, "map")
    with pytest.raises(xdiv.InputError, match="not nDCG@10"):
        plots.er_dri_plot(result, ["nDCG@10"])
    with pytest.raises(xdiv.InputError, match="dimensions"):
        plots.er_dri_plot(result.assign(er=result["er"].isel(metric=0)))


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A result of xdiv.repro.evaluate on synthetic runs, two pairs, in a NetCDF file."""
    collection, runs = xdiv.datasets.synthetic(n_topics=8, n_runs=6, depth=20, seed=5)
    one = [runs.isel(run=[k]) for k in range(6)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        result = xdiv.repro.evaluate(
            collection, {"baseline": one[0], "advanced": one[1]},
            {"a": {"baseline": one[2], "advanced": one[3]},
             "b": {"baseline": one[4], "advanced": one[5]}},
            ["P.5", "P.10", "nDCG@10"], cutoffs=[5, 10, 20])
    path = tmp_path_factory.mktemp("repro") / "repro.nc"
    xdiv.to_netcdf(result, path)
    return path


@pytest.mark.parametrize("kind", ["er-dri", "ktu", "rbo", "rmse"])
def test_xdiv_plot_draws_a_reproducibility_file(stored, tmp_path, kind):
    out = tmp_path / f"{kind}.svg"
    assert main(["plot", kind, str(stored), "-o", str(out)]) == 0
    text = out.read_text()
    assert text.count("<svg") == 1 and len(text) > 5000


def test_xdiv_plot_says_what_a_file_lacks(stored, tmp_path, capsys):
    cube = tmp_path / "scores.nc"
    assert main(["-q", "demo", "--no-meta", "-o", str(cube), "--topics", "4",
                 "--runs", "2"]) == 0
    capsys.readouterr()
    assert main(["plot", "er-dri", str(cube), "-o", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"xdiv: error: {cube}: er_dri_plot needs the result of "
                   "xdiv.repro.evaluate (xdiv repro -o)"]
    assert main(["plot", "ktu", str(stored), "-m", "P.10", "-o",
                 str(tmp_path / "x.png")]) == 2
    assert not (tmp_path / "x.png").exists()
