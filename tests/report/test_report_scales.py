"""The HTML report on many runs (issue 25, item 7: 300 runs × 5 topics took 44 s and wrote
a 2.2 MB page): beyond ``MATRIX_RUNS`` runs the significance matrix is summarised per run,
with the full matrix on request, and the summary's counts are the matrix's."""

from __future__ import annotations

import re

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402

from xdiv import report  # noqa: E402
from xdiv.report import html as H  # noqa: E402

from .test_html import figures_unwritten  # noqa: E402


@pytest.fixture(autouse=True)
def _figures_unwritten():
    """Every test here reads the significance part of the page only."""
    with figures_unwritten():
        yield


def cube(n_runs: int, n_topics: int = 5, seed: int = 0) -> xr.Dataset:
    """One measure; runs spread apart so that some pairs differ significantly."""
    rng = np.random.default_rng(seed)
    values = np.clip(np.linspace(0.1, 0.9, n_runs)[:, None]
                     + 0.02 * rng.standard_normal((n_runs, n_topics)), 0, 1)
    return xr.Dataset({"score": (("metric", "run", "topic"), values[None])},
                      coords={"metric": ["nDCG@10"],
                              "run": [f"r{k:03d}" for k in range(n_runs)],
                              "topic": [str(k) for k in range(n_topics)]})


def significance_part(page: str) -> str:
    start = page.index("<h2>Significance of run differences</h2>")
    return page[start:page.index("<h2>", start + 5)]


def rows(part: str) -> dict[str, list[str]]:
    """The summary table's rows: run -> its three counts."""
    found = re.findall(r'<tr><td class="run">([^<]*)</td><td class="up">(\d+)</td>'
                       r'<td class="down">(\d+)</td><td>(\d+)</td></tr>', part)
    return {run: [int(v) for v in counts] for run, *counts in found}


def test_up_to_matrix_runs_the_page_shows_every_p_value():
    n = H.MATRIX_RUNS
    part = significance_part(report.html_report(cube(n)))
    assert part.count('<td class="self"></td>') == n
    assert "not told apart from" not in part


def test_beyond_matrix_runs_the_page_summarises_per_run():
    n = H.MATRIX_RUNS + 1
    scores = cube(n)
    part = significance_part(report.html_report(scores))
    assert '<td class="self">' not in part
    assert "full_matrix=True" in part and "--full-matrix" in part
    counts = rows(part)
    assert len(counts) == n
    matrix = report.significance_matrix(scores, "nDCG@10")
    significant = (matrix["pvalue"] < matrix.attrs["alpha"]).values
    diff = matrix["diff"].values
    for k, run in enumerate(str(r) for r in matrix["run_a"].values):
        better = int((significant[k] & (diff[k] > 0)).sum())
        worse = int((significant[k] & (diff[k] < 0)).sum())
        assert counts[run] == [better, worse, n - 1 - better - worse]
    assert sum(c[0] for c in counts.values()) == sum(c[1] for c in counts.values()) > 0


def test_full_matrix_on_request():
    n = H.MATRIX_RUNS + 5
    part = significance_part(report.html_report(cube(n), full_matrix=True))
    assert part.count('<td class="self"></td>') == n
    assert "not told apart from" not in part


def test_page_of_300_runs_is_small(tmp_path):
    """The significance part of 300 runs stays near one row per run (the full matrix of
    89,700 cells took 1.28 MB of the 2.5 MB page)."""
    scores = cube(300)
    page = report.html_report(scores)
    part = significance_part(page)
    assert len(part) < 40_000
    assert len(rows(part)) == 300


@pytest.mark.parametrize("alpha", [0.01, 0.2])
def test_summary_uses_the_level_asked(alpha):
    scores = cube(H.MATRIX_RUNS + 2, seed=1)
    part = significance_part(report.html_report(scores, alpha=alpha))
    assert f"alpha = {alpha:g}" in part
    matrix = report.significance_matrix(scores, "nDCG@10", alpha=alpha)
    expected = int(((matrix["pvalue"] < alpha) & (matrix["diff"] > 0)).sum())
    assert sum(c[0] for c in rows(part).values()) == expected
