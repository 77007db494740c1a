"""The report's sections on what qualifies the scores: Ties (tie spreads or the standard
errors of expected scores), Unjudged documents (residual bounds, condensed lists) and
Pool studies (leave one run out, judgment downsampling). Each appears exactly when its
data is there, and its numbers are computed again here from the datasets."""

from __future__ import annotations

import re
import warnings
from html.parser import HTMLParser

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import xdiv  # noqa: E402
from xdiv import report  # noqa: E402
from xdiv.engine import TIE_SPREAD_WARNING  # noqa: E402

from .test_html import _check_page  # noqa: E402

MEASURES = ["alpha-nDCG@20", "nDCG@10", "ERR-IA@20"]
SECTIONS = ("Ties", "Unjudged documents", "Pool studies")


@pytest.fixture(scope="module")
def data():
    return xdiv.datasets.synthetic(n_topics=6, n_runs=4, depth=20, seed=3)


def _evaluate(data, **options):
    collection, runs = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        return xdiv.evaluate(runs, collection, MEASURES, **options)


@pytest.fixture(scope="module")
def ranged(data):
    cube = _evaluate(data, ties="range", residuals=True)
    # one run far above the warning threshold on the primary measure, whatever the data
    cube["tie_spread"].loc[dict(metric="alpha-nDCG@20", run="run02")] = 0.05
    return cube


@pytest.fixture(scope="module")
def studies(data):
    collection, runs = data
    loo = xdiv.pools.leave_one_run_out(runs, collection, ["alpha-nDCG@20", "nDCG@10"],
                                       depth=10)
    down = xdiv.pools.downsample(runs, collection, ["alpha-nDCG@20", "nDCG@10"],
                                 fractions=(0.3, 0.6, 1.0), repeats=2, seed=1)
    return loo, down


@pytest.fixture(scope="module")
def full_page(ranged, studies):
    return report.html_report(ranged, pools=list(studies))


class _Tables(HTMLParser):
    """The tables of a piece of HTML: rows of ``(text, class)`` cells, header rows too."""

    def __init__(self):
        super().__init__()
        self.tables, self._cell = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = ([], dict(attrs).get("class", ""))
        elif tag == "br" and self._cell is not None:
            self._cell[0].append(" ")

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            text = " ".join("".join(self._cell[0]).split())
            self.tables[-1][-1].append((text, self._cell[1]))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[0].append(data)


def _section(page: str, title: str) -> str | None:
    """The HTML of the section ``title`` (up to the next <h2>), without its figures."""
    text = re.sub(r"<svg.*?</svg>", "", page, flags=re.DOTALL)
    start = text.find(f"<h2>{title}</h2>")
    if start < 0:
        return None
    end = text.find("<h2>", start + 4)
    return text[start:end if end >= 0 else len(text)]


def _tables(html: str) -> list:
    parser = _Tables()
    parser.feed(html)
    return parser.tables


def _fmt(value: float, digits: int = 4) -> str:
    return "–" if not np.isfinite(value) else f"{value:.{digits}f}"


def _run_order(cube, metric="alpha-nDCG@20") -> list:
    means = cube["score"].sel(metric=metric).mean("topic").to_series()
    return [str(r) for r in means.sort_values(ascending=False, kind="stable").index]


# ---------------------------------------------------------------------------- presence

def test_no_section_without_its_data(data):
    page = report.html_report(_evaluate(data))
    for title in SECTIONS:
        assert _section(page, title) is None


def test_every_section_with_its_data(full_page):
    _check_page(full_page)
    for title in SECTIONS:
        assert _section(full_page, title) is not None
    # runs, tie spreads, residuals, significance matrix, leave one out, downsampling
    assert full_page.count("<table") == 6
    # two figures of the report, the correlations, the pool bias, two downsampling curves
    assert full_page.count("<svg") == 6
    assert not re.search(r"seed 0\d|spec §", full_page)


# ---------------------------------------------------------------------------- ties

def test_tie_spreads_are_the_means_and_largest_over_topics(ranged, full_page):
    section = _section(full_page, "Ties")
    assert "McSherry &amp; Najork" in section and "ECIR 2008" in section
    assert f"order = {ranged.attrs['order']}" in section
    (table,) = _tables(section)
    header, methods, *rows = table
    assert [text for text, _ in header[1:]] == MEASURES  # the primary measure first
    held = dict(zip(ranged["metric"].values, ranged["ties_method"].values))
    assert [text for text, _ in methods[1:]] == [held[m] for m in MEASURES]
    assert [row[0][0] for row in rows] == _run_order(ranged)
    highlighted = 0
    for row in rows:
        run = row[0][0]
        for (text, kind), metric in zip(row[1:], MEASURES):
            spread = ranged["tie_spread"].sel(metric=metric, run=run).values
            mean, most = np.nanmean(spread), np.nanmax(spread)
            assert text == f"{_fmt(mean)} max {_fmt(most)}"
            assert (kind == "warn") == (mean > TIE_SPREAD_WARNING)
            highlighted += kind == "warn"
    assert highlighted >= 1  # run02's alpha-nDCG@20
    assert f"({highlighted} of {len(rows) * len(MEASURES)} run and measure pairs)" in section


def test_expected_scores_show_their_largest_standard_error(data):
    cube = _evaluate(data, ties="expected")
    page = report.html_report(cube)
    section = _section(page, "Ties")
    assert "expectations over the orders of the tied documents" in section
    worst = float(cube["score_se"].max())
    assert f"at most {worst:.6f}" in section
    (table,) = _tables(section)
    held = dict(zip(cube["metric"].values, cube["ties_method"].values))
    for row in table[1:]:
        metric = row[0][0]
        assert row[1][0] == held[metric]
        assert row[2][0] == f"{float(cube['score_se'].sel(metric=metric).max()):.6f}"
    assert _section(page, "Unjudged documents") is None


# ---------------------------------------------------------------------------- residuals

def test_residual_bounds_of_the_primary_measure(ranged, full_page):
    section = _section(full_page, "Unjudged documents")
    assert "Moffat &amp; Zobel" in section and "TOIS 2008" in section
    assert "condensed lists" not in section  # judged_only is 0
    (table,) = _tables(section)
    rows = table[1:]
    assert [row[0][0] for row in rows] == _run_order(ranged)
    gaps = {}
    for row in rows:
        run = row[0][0]
        low = float(ranged["score"].sel(metric="alpha-nDCG@20", run=run).mean("topic"))
        high = float(ranged["score_high"].sel(metric="alpha-nDCG@20", run=run).mean("topic"))
        assert [text for text, _ in row[1:]] == [_fmt(low), _fmt(high), _fmt(high - low)]
        gaps[run] = high - low
    widest = max(gaps, key=gaps.get)
    assert f"The widest gap: {widest}, {_fmt(gaps[widest])}." in section


def test_condensed_lists_are_noted(data):
    page = report.html_report(_evaluate(data, judged_only=True))
    section = _section(page, "Unjudged documents")
    assert "condensed lists" in section and "Sakai" in section and "SIGIR 2007" in section
    assert _tables(section) == []  # no residuals: no bounds to show
    both = report.html_report(_evaluate(data, judged_only=True, residuals=True))
    section = _section(both, "Unjudged documents")
    assert "condensed lists" in section and len(_tables(section)) == 1


# ---------------------------------------------------------------------------- pool studies

def test_leave_one_out_table(studies, full_page):
    loo, _ = studies
    section = _section(full_page, "Pool studies")
    for citation in ("Zobel", "SIGIR 1998", "Buckley &amp; Voorhees", "SIGIR 2004"):
        assert citation in section
    assert f"(pool depth {loo.attrs['depth']})" in section
    table = _tables(section)[0]
    header, *rows = table
    assert header[1][0] == "alpha-nDCG@20: mean change"
    change = loo["mean_difference"].sel(metric="alpha-nDCG@20").to_series()
    expected = change.sort_values(kind="stable").index.tolist()
    assert [row[0][0] for row in rows] == expected  # the largest loss first
    for row in rows:
        run = row[0][0]
        assert row[1][0] == _fmt(change[run])
        assert [int(text) for text, _ in row[2:]] == [
            int(loo[name].sel(run=run)) for name in ("n_removed", "n_removed_relevant",
                                                     "n_unique")]


def test_downsampling_table(studies, full_page):
    _, down = studies
    section = _section(full_page, "Pool studies")
    assert "Yilmaz, Aslam &amp; Robertson" in section
    table = _tables(section)[1]
    header, *rows = table
    metrics = [str(m) for m in down["metric"].values]
    assert [text for text, _ in header[2:]] == [
        f"{m}: {c}" for m in metrics for c in ("Kendall's tau", "tau_ap")]
    assert [row[0][0] for row in rows] == [f"{f:g}" for f in down["fraction"].values]
    for row, fraction in zip(rows, down["fraction"].values):
        assert int(row[1][0]) == int(down["n_kept"].sel(fraction=fraction).sum())
        cells = iter(row[2:])
        for metric in metrics:
            for coefficient in ("kendall", "tau_ap"):
                text, kind = next(cells)
                values = down[coefficient].sel(fraction=fraction, metric=metric).values
                assert text == (f"{_fmt(values.mean(), 3)} {_fmt(values.min(), 3)} – "
                                f"{_fmt(values.max(), 3)}")
                assert (kind == "warn") == (values.mean() < 0.9)


def test_a_study_without_the_primary_measure_shows_its_first(data, ranged):
    collection, runs = data
    loo = xdiv.pools.leave_one_run_out(runs, collection, ["nDCG@10"], depth=5)
    page = report.html_report(ranged, pools=loo)  # one dataset, not a list, will do
    section = _section(page, "Pool studies")
    assert "holds no alpha-nDCG@20" in section
    assert _tables(section)[0][0][1][0] == "nDCG@10: mean change"
    assert "Judgment downsampling" not in section


def test_pool_studies_are_told_apart_after_a_netcdf_round_trip(studies, tmp_path):
    loo, down = studies
    for study, kind in ((loo, "pool_bias"), (down, "downsampling")):
        path = tmp_path / f"{kind}.nc"
        xdiv.to_netcdf(study, path)
        assert report.check_pool_study(xdiv.open_dataset(path), path) == kind


def test_anything_else_is_no_pool_study(ranged, studies):
    with pytest.raises(xdiv.InputError, match=r"^pools\[1\]: not a pool study \(a dataset "
                                              r"of kind 'scores'"):
        report.html_report(ranged, pools=[studies[0], ranged])
    with pytest.raises(xdiv.InputError, match=r"^x\.nc: not a pool study"):
        report.check_pool_study(studies[0].drop_vars("mean_difference"), "x.nc")
    with pytest.raises(xdiv.InputError, match="not a pool study"):
        report.check_pool_study("loo.nc")
