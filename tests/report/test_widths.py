"""The HTML report at 1280 px, as headless Chromium lays it out: with 13 measures, the
table of the runs' means and the table against a baseline fit the page's width (their
headers wrap), and no table anywhere is cut without a scroll bar."""

from __future__ import annotations

import warnings

import pytest

import xdiv
from xdiv import report

from ..browser import browser, hidden, layout

MEASURES = ["alpha-nDCG@20", "alpha-nDCG@10", "ERR-IA@20", "ERR-IA@10", "nDCG-IA@10",
            "I-rec@10", "D-nDCG@10", "D#-nDCG@10", "DIN#-nDCG@10", "P+Q#@10", "Ef-P@10",
            "nDCG@10", "nERR@10"]
RUNS = ["ICTNETDivR1", "UamsDwebLFou", "THUIR09FuClu", "udelSimPrune", "uogTrDYCcsB",
        "Sab9wtBfDiv", "NeuDivW75", "MSRABASE"]
"""Run names as long as the TREC 2009 Web Track's."""


@pytest.mark.slow  # evaluates 13 measures and starts a browser
@pytest.mark.skipif(browser() is None, reason="no Chromium to lay the page out")
def test_thirteen_measures_fit_the_page_at_1280_px(tmp_path):
    col, runs = xdiv.datasets.synthetic(n_topics=12, n_runs=len(RUNS), depth=20, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        cube = xdiv.evaluate(runs, col, MEASURES).assign_coords(run=RUNS)
        page = report.html_report(cube, baseline="MSRABASE")
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    measured, failed = layout(path, 1280)
    assert not failed, failed
    assert not hidden(measured), hidden(measured)
    tables = [item for item in measured["items"] if item["what"].startswith("table")]
    runs_table, baseline_table = tables[0], tables[-1]
    assert runs_table["what"].endswith("run") and baseline_table["what"].endswith("Run")
    for table in (runs_table, baseline_table):
        assert table["right"] <= table["edge"] + 1 and not table["scrolls"], (
            f"{table['what']!r} ends at {table['right']:.0f} px, past its "
            f"{table['edge']:.0f} px box: a column shows only when scrolled to")
