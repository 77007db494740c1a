"""The report's section "Reproducibility" (issue 37 item 1): present exactly when results
of xdiv.repro.evaluate are given, its tables holding the results' values (read back from
the HTML), labels escaped, its figures inline, reached by ``xdiv report --repro``, and
laid out by headless Chromium at 1280 px without a table cut or a request made."""

from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import xdiv  # noqa: E402
import xdiv.repro  # noqa: E402
from xdiv import report  # noqa: E402
from xdiv.cli import main  # noqa: E402

from ..browser import browser, check_section_tables_fit  # noqa: E402
from .test_honesty_sections import _fmt, _section, _tables  # noqa: E402
from .test_html import _check_page  # noqa: E402

HOSTILE_PAIRS = ["<b>tf_1</b>", "a&b"]
MEASURES = ["P.5", "P.10", "nDCG@10"]


@pytest.fixture(scope="module")
def data():
    collection, runs = xdiv.datasets.synthetic(n_topics=8, n_runs=6, depth=20, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        # a small cube: the rest of the report is not what is tested here
        cube = xdiv.evaluate(runs.isel(run=[0, 1]), collection, ["alpha-nDCG@20"])
        one = [runs.isel(run=[k]) for k in range(6)]
        result = xdiv.repro.evaluate(
            collection, {"baseline": one[0], "advanced": one[1]},
            {HOSTILE_PAIRS[0]: {"baseline": one[2], "advanced": one[3]},
             HOSTILE_PAIRS[1]: {"baseline": one[4], "advanced": one[5]}},
            MEASURES, cutoffs=[5, 10, 20])
    return cube, result


@pytest.fixture(scope="module")
def page(data):
    cube, result = data
    return report.html_report(cube, repro=result)


def _figures(page: str) -> int:
    """The figures of the section (up to the next <h2>)."""
    start = page.index("<h2>Reproducibility</h2>")
    return page[start:page.index("<h2>", start + 4)].count("<svg")


def test_no_section_without_results(data):
    assert _section(report.html_report(data[0]), "Reproducibility") is None


def test_section_tables_hold_the_results_values(data, page):
    _, result = data
    _check_page(page)
    section = _section(page, "Reproducibility")
    assert "Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer &amp; Soboroff" in section
    assert "SIGIR 2020" in section
    for name in HOSTILE_PAIRS:
        assert name not in page
    assert "&lt;b&gt;tf_1&lt;/b&gt;" in section and "a&amp;b" in section
    assert "<0.001" not in section  # numbers escaped too
    effect, overall, order = _tables(section)
    level = result.attrs["sig_level"]
    header, *rows = effect
    assert [text for text, _ in header] == ["pair", "metric", "role", "ARP original",
                                            "ARP repeated", "p-value", "effect size", "RMSE",
                                            "nRMSE"]
    assert len(rows) == 2 * len(MEASURES) * 2
    highlighted = 0
    for row in rows:
        pair, metric, role = (text for text, _ in row[:3])
        one = result.sel(pair=pair, metric=metric, role=role)
        arp = one["arp"].values
        p = float(one["pvalue"])
        assert [text for text, _ in row[3:]] == [
            _fmt(arp[0]), _fmt(arp[1]),
            "–" if np.isnan(p) else "<0.001" if p < 0.001 else f"{p:.3f}",
            _fmt(float(one["effect_size"])), _fmt(float(one["rmse"])),
            _fmt(float(one["nrmse"]))]
        assert (row[5][1] == "warn") == (p < level)
        highlighted += row[5][1] == "warn"
    header, *rows = overall
    assert [text for text, _ in header] == ["pair", "metric", "ER", "ΔRI"]
    for row in rows:
        one = result.sel(pair=row[0][0], metric=row[1][0])
        assert [row[2][0], row[3][0]] == [_fmt(float(one["er"])), _fmt(float(one["dri"]))]
    header, *rows = order
    assert [text for text, _ in header] == ["pair", "role", "cutoff", "KTU", "RBO",
                                            "RBO min", "RBO residual", "topics"]
    assert len(rows) == 2 * 2 * 3
    for row in rows:
        one = result.sel(pair=row[0][0], role=row[1][0], cutoff=int(row[2][0]))
        assert [text for text, _ in row[3:]] == [
            _fmt(float(one[name])) for name in ("ktu", "rbo", "rbo_min", "rbo_res")] + [
            str(int(one["ktu_topics"]))]
    # ER against ΔRI, KTU and RBO against the cutoff, RMSE against P's cutoffs
    assert _figures(page) == 4


@pytest.mark.slow  # a report of two studies
def test_one_pair_without_a_pair_dimension_and_another_collection(data):
    cube, result = data
    one = result.isel(pair=0, drop=True)
    other = one.drop_vars([v for v in one.data_vars if v in ("ktu", "rbo", "rbo_min",
                                                            "rbo_res", "ktu_topics",
                                                            "rmse", "nrmse")])
    other.attrs.update(case="other_collection", repeated_qrels="/somewhere/private/q2.txt")
    page = report.html_report(cube, repro=[one, other])
    _check_page(page)
    section = _section(page, "Reproducibility")
    assert "Study 1: 1 pair of repetitions" in section and "Study 2:" in section
    assert "repeated on q2.txt" in section and "/somewhere" not in section
    tables = _tables(section)
    assert [text for text, _ in tables[0][0][:2]] == ["metric", "role"]
    assert len(tables) == 3 + 2  # effect, ER, order; effect, ER
    assert _figures(page) == 4 + 1


@pytest.mark.slow  # xdiv report on NetCDF files
def test_anything_else_is_no_reproducibility_result(data, page, tmp_path, capsys):
    cube, result = data
    with pytest.raises(xdiv.InputError, match=r"^repro\[1\]: not a reproducibility result "
                                              r"\(a dataset of kind 'scores'"):
        report.html_report(cube, repro=[result, cube])
    with pytest.raises(xdiv.InputError, match=r"^r\.nc: not a reproducibility result \(er "
                                              r"has the dimensions"):
        report.check_repro(result.assign(er=result["er"].isel(metric=0)), "r.nc")
    with pytest.raises(xdiv.InputError, match=r"one of er and dri without the other"):
        report.check_repro(result.drop_vars("dri"))
    stored, cubes = tmp_path / "repro.nc", tmp_path / "scores.nc"
    xdiv.to_netcdf(result, stored)
    xdiv.to_netcdf(cube, cubes)
    out = tmp_path / "report.html"
    assert main(["report", str(cubes), "--repro", str(stored), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    _check_page(text)
    assert _tables(_section(text, "Reproducibility")) == _tables(
        _section(page, "Reproducibility"))
    capsys.readouterr()
    assert main(["report", str(cubes), "--repro", str(cubes), "-o",
                 str(tmp_path / "no.html")]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"xdiv: error: {cubes}: not a reproducibility result (a dataset of kind 'scores'; "
        "write one with 'xdiv repro -o' or xdiv.repro.evaluate)"]
    assert not (tmp_path / "no.html").exists()


@pytest.mark.slow  # starts a browser
@pytest.mark.skipif(browser() is None, reason="no Chromium to lay the page out")
def test_section_renders_at_1280_px(page, tmp_path):
    check_section_tables_fit(page, tmp_path, "repro", 3)
