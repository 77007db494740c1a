"""The report's section "Models" (issue 38 item 4): present exactly when results of
xdiv.stats.mixed or xdiv.stats.anova_table are given; its tables hold the results' values
(read back from the HTML), its contrasts are the mixed model's (a matrix of adjusted
p-values up to 40 runs, per run counts beyond), labels are escaped, the forest plot is
inline; reached by ``xdiv report --model`` and laid out by headless Chromium at 1280 px
without a table cut or a request made."""

from __future__ import annotations

import html
import re
import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402

import xdiv  # noqa: E402
from xdiv import report, stats  # noqa: E402
from xdiv.cli import main  # noqa: E402

from ..browser import browser, check_section_tables_fit  # noqa: E402
from .test_honesty_sections import _fmt, _section, _tables  # noqa: E402
from .test_html import _check_page, figures_unwritten  # noqa: E402

HOSTILE = ["<b>bm25</b>", "a&b", "x\"y", "<script>s</script>", "ql", "rm3"]
METRIC = "ERR-IA@10"


def _cube(n_runs: int, n_topics: int, seed: int, names=None):
    collection, runs = xdiv.datasets.synthetic(n_topics=n_topics, n_runs=n_runs, depth=20,
                                               seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        cube = xdiv.evaluate(runs, collection, [METRIC])
    return cube.assign_coords(run=names) if names else cube


def _mixed(cube):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        return stats.mixed(cube, METRIC)


@pytest.fixture(scope="module")
def data():
    cube = _cube(6, 12, seed=2, names=HOSTILE)
    model = _mixed(cube)
    # a hostile measure name and advice, to see that attributes are escaped too
    model.attrs.update(metric="<i>ERR</i>", bounded_advice="<u>advice</u> & more")
    factors = pd.DataFrame({"system": ["s1", "s1", "s2", "s2", "s3", "s3"],
                            "depth": ["<10>", "20", "<10>", "20", "<10>", "20"]},
                           index=HOSTILE)
    anova = stats.anova_table(cube, METRIC, factors)
    return cube, model, anova


@pytest.fixture(scope="module")
def page(data):
    cube, model, anova = data
    return report.html_report(cube, models=[model, anova])


def _order(model) -> list:
    means = model["mean"].to_series()
    return [str(r) for r in means.sort_values(ascending=False, kind="stable").index]


@pytest.mark.slow  # a report of its own
@figures_unwritten()  # the section's text and tables are read
def test_no_section_without_models(data):
    assert _section(report.html_report(data[0]), "Models") is None


def test_mixed_model_tables_hold_the_models_values(data, page):
    _, model, _ = data
    _check_page(page)
    section = _section(page, "Models")
    assert "Carterette" in section and "ICTIR 2011" in section
    for name in HOSTILE[:4] + ["<i>ERR</i>", "<u>advice</u>"]:
        assert name not in page
    assert "&lt;b&gt;bm25&lt;/b&gt;" in section and "a&amp;b" in section
    assert "<0.001" not in section  # numbers escaped too
    text = html.unescape(section)
    assert "Model 1: Mixed model of <i>ERR</i>" in text
    assert "Model 2: Analysis of variance of ERR-IA@10" in text
    assert "Bounded scores: <u>advice</u> & more." in text
    assert f"(ICC) is {_fmt(float(model['icc']))}" in text
    assert model.attrs["adjustment"] in text
    runs, components, matrix, anova = _tables(section)
    # the run means, best first, with the model's standard errors and intervals
    header, *rows = runs
    assert [t for t, _ in header] == ["run", "mean", "standard error", "95% CI low",
                                      "95% CI high"]
    assert [row[0][0] for row in rows] == _order(model)
    for row in rows:
        one = model.sel(run=row[0][0])
        assert [t for t, _ in row[1:]] == [_fmt(float(one[name])) for name in
                                           ("mean", "mean_se", "mean_ci_low",
                                            "mean_ci_high")]
    # the variance components, their intervals and shares
    header, *rows = components
    assert [row[0][0] for row in rows] == ["topic", "residual"]
    total = float(model["topic_variance"] + model["residual_variance"])
    for row, name in zip(rows, ("topic", "residual")):
        value = float(model[f"{name}_variance"])
        assert [t for t, _ in row[1:]] == [
            _fmt(value, 6), _fmt(float(model[f"{name}_variance_ci_low"]), 6),
            _fmt(float(model[f"{name}_variance_ci_high"]), 6), _fmt(value / total, 3)]
    # the contrasts: adjusted p-values, coloured by the model's own significance flags
    header, *rows = matrix
    order = _order(model)
    assert [t for t, _ in header[1:]] == order
    coloured = 0
    for row in rows:
        a = row[0][0]
        for (cell, kind), b in zip(row[1:], order):
            if a == b:
                assert kind == "self"
                continue
            p = float(model["pvalue_adjusted"].sel(run_a=a, run_b=b))
            assert cell == ("<0.001" if p < 0.001 else f"{p:.3f}")
            significant = bool(model["significant"].sel(run_a=a, run_b=b))
            above = float(model["diff"].sel(run_a=a, run_b=b)) > 0
            assert kind == ("" if not significant else "up" if above else "down")
            coloured += bool(kind)
    assert coloured == int(model["significant"].sum())
    # the forest plot of the run means
    start = page.index("<h2>Models</h2>")
    assert page[start:page.index("<h3>Model 2", start)].count("<svg") == 1


def test_anova_table_holds_the_tables_values(data, page):
    _, _, anova = data
    section = html.unescape(_section(page, "Models"))
    table = _tables(_section(page, "Models"))[3]
    header, *rows = table
    assert [t for t, _ in header] == ["term", "sum of squares", "df", "mean square", "F",
                                      "p-value", "η²", "ω²", "partial ω²",
                                      "variance component"]
    assert [row[0][0] for row in rows] == [str(t) for t in anova["term"].values]
    assert sorted(row[0][0] for row in rows) == ["Residual", "depth", "system",
                                                 "system:depth", "topic"]
    for row in rows:
        one = anova.sel(term=row[0][0])
        p = float(one["pvalue"])
        assert [t for t, _ in row[1:]] == [
            _fmt(float(one["sum_sq"])), f"{float(one['df']):g}", _fmt(float(one["mean_sq"])),
            _fmt(float(one["statistic"])),
            "–" if np.isnan(p) else "<0.001" if p < 0.001 else f"{p:.3f}",
            _fmt(float(one["eta_sq"])), _fmt(float(one["omega_sq"])),
            _fmt(float(one["partial_omega_sq"])), _fmt(float(one["variance_component"]), 6)]
    assert anova.attrs["formula"] in section
    assert "system (3 levels); depth (2 levels)" in section
    assert "Olejnik & Algina" in section


@pytest.mark.slow  # a mixed model of 42 runs
@figures_unwritten()  # the section's text and tables are read
def test_beyond_40_runs_the_contrasts_are_counted_per_run():
    cube = _cube(42, 4, seed=7)
    model = _mixed(cube)
    page = report.html_report(cube, models=model)
    _check_page(page)
    section = _section(page, "Models")
    assert "summarised for 42 runs" in section
    assert '<table class="matrix">' not in section
    *_, counts = _tables(section)
    header, *rows = counts
    assert [t for t, _ in header] == ["run", "significantly better than",
                                      "significantly worse than", "not told apart from"]
    assert [row[0][0] for row in rows] == _order(model)
    significant = model["significant"].values
    diff = model["diff"].values
    runs = [str(r) for r in model["run"].values]
    for row in rows:
        k = runs.index(row[0][0])
        better = int((significant[k] & (diff[k] > 0)).sum())
        worse = int((significant[k] & (diff[k] < 0)).sum())
        assert [int(t) for t, _ in row[1:]] == [better, worse, 41 - better - worse]
    assert better + worse > 0 or any(int(r[1][0]) for r in rows)
    full = _section(report.html_report(cube, models=model, full_matrix=True), "Models")
    assert '<table class="matrix">' in full


@pytest.mark.slow  # a mixed model of two collections
@figures_unwritten()  # the section's text and tables are read
def test_a_model_of_two_collections_names_its_components():
    planes = []
    for seed in (1, 2):
        plane = _cube(4, 6, seed=seed)["score"].drop_vars("canonical", errors="ignore")
        planes.append(plane.assign_coords(topic=[f"{seed}-{t}" for t in
                                                 plane["topic"].values]))
    cube = xr.concat(planes, dim=pd.Index(["y1", "y2"], name="collection"), join="outer")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        model = stats.mixed(cube, METRIC, interaction=True)
    section = _section(report.html_report(planes[0].to_dataset(), models=model), "Models")
    text = html.unescape(section)
    assert "topics per collection: y1 6, y2 6" in text
    assert "between topics and collections" in text
    _, components, _ = _tables(section)
    names = ["collection", "topic", "run_collection", "residual"]
    total = sum(float(model[f"{name}_variance"]) for name in names)
    assert [[t for t, _ in row] for row in components[1:]] == [
        [label, _fmt(float(model[f"{name}_variance"]), 6),
         _fmt(float(model[f"{name}_variance_ci_low"]), 6),
         _fmt(float(model[f"{name}_variance_ci_high"]), 6),
         _fmt(float(model[f"{name}_variance"]) / total, 3)]
        for label, name in zip(["collection", "topic within collection", "run × collection",
                                "residual"], names)]


def test_anything_else_is_no_model_result(data):
    cube, model, anova = data
    with pytest.raises(xdiv.InputError, match=r"^models\[1\]: not a model result \(a "
                                              r"dataset of kind 'scores'; write one with "
                                              r"'xdiv model -o'"):
        report.html_report(cube, models=[model, cube])
    with pytest.raises(xdiv.InputError, match=r"^m\.nc: not a model result \(mean has the "
                                              r"dimensions run_a, not run\)$"):
        report.check_model(model.assign(mean=model["mean"].rename(run="run_a")), "m.nc")
    with pytest.raises(xdiv.InputError, match=r"the mixed result lacks pvalue_adjusted"):
        report.check_model(model.drop_vars("pvalue_adjusted"))
    with pytest.raises(xdiv.InputError, match=r"its contrasts are not of its runs"):
        report.check_model(model.assign_coords(run_b=list(model["run_b"].values[::-1])))
    with pytest.raises(xdiv.InputError, match=r"its alpha is no number"):
        report.check_model(model.assign_attrs(alpha="0.05"))
    with pytest.raises(xdiv.InputError, match=r"the anova result lacks omega_sq"):
        report.check_model(anova.drop_vars("omega_sq"))
    with pytest.raises(xdiv.InputError, match=r"^not a model result \(a str;"):
        report.check_model("model.nc")
    assert report.check_model(model) == "mixed" and report.check_model(anova) == "anova"


@pytest.mark.slow  # xdiv model and xdiv report on NetCDF files
def test_report_command_adds_the_models_of_xdiv_model(tmp_path, capsys):
    cubes = tmp_path / "scores.nc"
    assert main(["-q", "demo", "--no-meta", "-o", str(cubes), "--topics", "8",
                 "--runs", "4"]) == 0
    mixed, anova = tmp_path / "mixed.nc", tmp_path / "anova.nc"
    assert main(["-q", "model", str(cubes), "-m", "alpha-nDCG@10", "-o", str(mixed)]) == 0
    assert main(["-q", "model", str(cubes), "-m", "alpha-nDCG@10", "--model", "anova",
                 "-o", str(anova)]) == 0
    out = tmp_path / "report.html"
    assert main(["report", str(cubes), "--model", str(mixed), str(anova), "-o",
                 str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    _check_page(text)
    stored = [xdiv.open_dataset(mixed), xdiv.open_dataset(anova)]
    assert report.check_model(stored[1]) == "anova"
    with figures_unwritten():  # its tables are compared with the command's page
        expected = report.html_report(xdiv.open_dataset(cubes), models=stored)
    assert _tables(_section(text, "Models")) == _tables(_section(expected, "Models"))
    capsys.readouterr()
    assert main(["report", str(cubes), "--model", str(cubes), "-o",
                 str(tmp_path / "no.html")]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"xdiv: error: {cubes}: not a model result (a dataset of kind 'scores'; write one "
        "with 'xdiv model -o', xdiv.stats.mixed or xdiv.stats.anova_table)"]
    assert not (tmp_path / "no.html").exists()


@pytest.mark.slow  # starts a browser
@pytest.mark.skipif(browser() is None, reason="no Chromium to lay the page out")
def test_section_renders_at_1280_px(page, tmp_path):
    check_section_tables_fit(page, tmp_path, "models", 3)
    assert not re.search(r"seed 0\d|spec §", page)
