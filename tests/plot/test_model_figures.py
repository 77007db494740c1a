"""The forest plot of a mixed model's run means (issue 38 item 4): readable from 2 to 100
runs (the checks of test_figures), each point and interval at the value of the result it
draws, the runs coloured by their contrast with the best run, and reached by ``xdiv plot
model``."""

from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402

import xdiv  # noqa: E402
from xdiv.cli import main  # noqa: E402
from xdiv.plot import models as plots  # noqa: E402

from .test_figures import _check_readable  # noqa: E402


def _result(n_runs: int, seed: int = 0, alpha: float = 0.05) -> xr.Dataset:
    """A result laid out as xdiv.stats.mixed's, with random values (the figure is checked
    against it, whatever they are)."""
    rng = np.random.default_rng(seed)
    runs = [f"uogTrDYCcsB_variant_{k:03d}" for k in range(n_runs)]
    mean = rng.uniform(0.1, 0.6, n_runs)
    se = rng.uniform(0.01, 0.05, n_runs)
    diff = mean[:, None] - mean[None, :]
    adjusted = rng.uniform(0, 0.1, (n_runs, n_runs))
    adjusted = np.triu(adjusted, 1) + np.triu(adjusted, 1).T
    np.fill_diagonal(adjusted, np.nan)
    np.fill_diagonal(diff, np.nan)
    pair = ("run_a", "run_b")
    return xr.Dataset(
        {"mean": ("run", mean), "mean_se": ("run", se),
         "mean_ci_low": ("run", mean - 1.96 * se), "mean_ci_high": ("run", mean + 1.96 * se),
         "diff": (pair, diff), "pvalue_adjusted": (pair, adjusted),
         "significant": (pair, adjusted < alpha)},
        coords={"run": runs, "run_a": runs, "run_b": runs},
        attrs={"xdiv_kind": "mixed", "metric": "alpha-nDCG@20", "alpha": alpha,
               "formula": "score ~ 0 + run + (1 | topic)", "method": "REML",
               "scale": "linear", "adjust": "tukey"})


@pytest.mark.slow  # draws and measures every text of 3 figures, one of 100 runs
@pytest.mark.parametrize("n_runs", [2, 18, 100])
def test_the_forest_plot_is_readable(n_runs):
    fig = plots.model_means_plot(_result(n_runs, seed=n_runs))
    assert _check_readable(fig, f"model means ({n_runs} runs)") in (1, 2)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert len(labels) == n_runs


def test_points_and_intervals_are_the_results_values():
    result = _result(12, seed=3)
    fig = plots.model_means_plot(result)
    ax = fig.axes[0]
    runs = [str(r) for r in result["run"].values]
    mean = result["mean"].values
    # one row per run, the best at the top
    order = [runs[k] for k in np.argsort(-mean)]
    ticks = {t.get_text(): t.get_position()[1] for t in ax.get_yticklabels()}
    assert sorted(ticks, key=ticks.get, reverse=True) == order
    # coloured by the contrast with the best run
    best = order[0]
    below = {run for run in runs if run != best
             and float(result["pvalue_adjusted"].sel(run_a=best, run_b=run)) < 0.05}
    assert below and below != set(runs) - {best}  # both groups drawn here
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert set(lines) == set(plots.GROUPS)
    drawn = {}
    for label, line in lines.items():
        for x, y in line.get_xydata():
            run = next(r for r, at in ticks.items() if at == y)
            drawn[run] = x
            assert (run in below) == (label == plots.GROUPS[1]), run
    assert drawn == {run: float(result["mean"].sel(run=run)) for run in runs}
    # one interval per run at its row, from mean_ci_low to mean_ci_high
    segments = [s for collection in ax.collections for s in collection.get_segments()]
    assert len(segments) == len(runs)
    for (x0, y0), (x1, y1) in segments:
        assert y0 == y1
        run = next(r for r, at in ticks.items() if at == y0)
        assert (x0, x1) == (float(result["mean_ci_low"].sel(run=run)),
                            float(result["mean_ci_high"].sel(run=run)))
    assert ax.get_xlabel() == "alpha-nDCG@20: estimated mean and 95% confidence interval"
    assert fig.legends[0].get_title().get_text() == "tukey adjustment"


def test_no_run_below_the_best_and_the_logit_scale():
    result = _result(4, seed=1)
    result["pvalue_adjusted"] = result["pvalue_adjusted"] + 1  # nothing significant
    result.attrs.update(alpha=0.1, scale="logit")
    ax = plots.model_means_plot(result).axes[0]
    assert [line.get_label() for line in ax.get_lines()] == [plots.GROUPS[0]]
    assert len(ax.get_lines()[0].get_xdata()) == 4
    assert ax.get_xlabel() == ("alpha-nDCG@20: estimated mean and 90% confidence interval "
                               "(back-transformed from the logit scale)")


def test_the_figure_checks_its_input():
    result = _result(3)
    with pytest.raises(xdiv.InputError, match=r"needs the result of xdiv\.stats\.mixed"):
        plots.model_means_plot(result.assign_attrs(xdiv_kind="scores"))
    with pytest.raises(xdiv.InputError, match=r"an analysis of variance .* has none"):
        plots.model_means_plot(result.assign_attrs(xdiv_kind="anova"))
    with pytest.raises(xdiv.InputError, match=r"mean_ci_low has no such variable"):
        plots.model_means_plot(result.drop_vars("mean_ci_low"))
    with pytest.raises(xdiv.InputError, match=r"diff has the dimensions run_a, not"):
        plots.model_means_plot(result.assign(diff=result["diff"].isel(run_b=0, drop=True)))


@pytest.mark.slow  # fits a model, xdiv plot and xdiv model on NetCDF files
def test_xdiv_plot_draws_a_model_file(tmp_path, capsys):
    cube = tmp_path / "scores.nc"
    assert main(["-q", "demo", "--no-meta", "-o", str(cube), "--topics", "6",
                 "--runs", "3"]) == 0
    mixed, anova = tmp_path / "mixed.nc", tmp_path / "anova.nc"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        assert main(["-q", "model", str(cube), "-m", "ERR-IA@10", "-o", str(mixed)]) == 0
        assert main(["-q", "model", str(cube), "-m", "ERR-IA@10", "--model", "anova", "-o",
                     str(anova)]) == 0
    out = tmp_path / "means.svg"
    assert main(["plot", "model", str(mixed), "-o", str(out)]) == 0
    text = out.read_text()
    assert text.count("<svg") == 1 and len(text) > 5000
    capsys.readouterr()
    assert main(["plot", "model", str(anova), "-o", str(tmp_path / "x.png")]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"xdiv: error: {anova}: model_means_plot draws the run means of a mixed model; an "
        "analysis of variance (xdiv model --model anova) has none"]
    assert main(["plot", "model", str(mixed), "-m", "ERR-IA@10", "-o",
                 str(tmp_path / "x.png")]) == 2
    assert not (tmp_path / "x.png").exists()
