"""Plots render headless and write non-empty PNG/SVG/PDF files."""

from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

import xdiv  # noqa: E402
from xdiv import meta, plots  # noqa: E402


@pytest.fixture(scope="module")
def scores():
    col, runs = xdiv.datasets.synthetic(n_topics=12, n_runs=6, depth=20, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        return xdiv.evaluate(runs, col, ["I-rec@10", "D-nDCG@10", "D#-nDCG@10",
                                         "alpha-nDCG@10", "Ef-P@10"])


def _saved(fig, path):
    fig.savefig(path)
    assert path.exists() and path.stat().st_size > 1000
    return path


@pytest.mark.parametrize("suffix", ["png", "svg", "pdf"])
def test_every_plot_is_written(scores, tmp_path, suffix):
    power = meta.discriminative_power(scores, "bootstrap", B=200, seed=1)
    table = meta.concordance_table(scores, ["alpha-nDCG@10", "D#-nDCG@10"], gold="I-rec@10")
    figures = {
        "asl": plots.asl_curves(power),
        "scatter": plots.irec_dndcg(scores),
        "concordance": plots.concordance_heatmap(table),
        "topics": plots.topic_distributions(scores, "D#-nDCG@10"),
        "diff": plots.run_differences(scores, "D#-nDCG@10", "run01", "run02"),
        "corr": plots.correlation_matrix(meta.rank_correlation(scores, "kendall")),
    }
    for name, fig in figures.items():
        _saved(fig, tmp_path / f"{name}.{suffix}")


def test_plot_inputs_are_checked(scores):
    with pytest.raises(xdiv.InputError, match="discriminative_power"):
        plots.asl_curves(scores)
    with pytest.raises(xdiv.InputError, match="I-rec@20"):
        plots.irec_dndcg(scores, cutoff=20)
