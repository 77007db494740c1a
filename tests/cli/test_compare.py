"""``xdiv compare``: the comparisons table, the paper tables, the methods paragraph, BibTeX
and the result file, each what the Python API gives; bad input in one line."""

from __future__ import annotations

import warnings

import pytest

import xdiv
from xdiv.cli import main
from xdiv.cli.compare import comparison_frame
from xdiv.formats import tables


@pytest.fixture(scope="module")
def cube_path(tmp_path_factory):
    col, runs = xdiv.datasets.synthetic(n_topics=15, n_runs=5, depth=20, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        scores = xdiv.evaluate(runs, col, ["alpha-nDCG@10", "I-rec@10"])
    path = tmp_path_factory.mktemp("compare") / "scores.nc"
    xdiv.to_netcdf(scores, path)
    return path


def _runs(path) -> list[str]:
    return [str(r) for r in xdiv.open_dataset(path)["run"].values]


def _api(path, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        return xdiv.compare(xdiv.open_dataset(path), **options)


def test_the_comparisons_table_lists_each_comparison_once(cube_path, capsys):
    base = _runs(cube_path)[0]
    assert main(["-q", "compare", str(cube_path), "--baseline", base, "--test", "t",
                 "permutation", "-B", "500", "--correction", "holm"]) == 0
    out = capsys.readouterr().out
    result = _api(cube_path, baseline=base, tests=("t", "permutation"), B=500,
                  correction="holm")
    frame = comparison_frame(result)
    # 2 tests x 2 measures x 4 runs against the baseline, the baseline itself left out
    assert len(frame) == 16
    assert len(out.strip().splitlines()) == 16 + 2  # the header lines of the frame
    first = frame.iloc[0]
    assert f"{first['pvalue_adjusted']:.4f}" in out


def test_all_pairs_list_each_unordered_pair_once(cube_path):
    frame = comparison_frame(_api(cube_path, tests=("t",)))
    assert len(frame) == 2 * 10  # 2 measures x C(5, 2) pairs


@pytest.mark.parametrize("fmt", ["latex", "markdown", "html"])
def test_paper_tables_are_the_api_tables(cube_path, fmt, capsys):
    base = _runs(cube_path)[:2]
    assert main(["-q", "compare", str(cube_path), "--baseline", *base, "--test",
                 "permutation", "-B", "500", "--format", fmt, "--methods"]) == 0
    out = capsys.readouterr().out
    result = _api(cube_path, baseline=base, tests=("permutation",), B=500)
    assert out == tables.table(result, format=fmt) + "\n" + \
        tables.methods_paragraph(result, fmt) + "\n"


@pytest.mark.parametrize("fmt", ["latex", "markdown", "html"])
def test_the_paragraph_says_what_the_table_shows(cube_path, fmt, capsys):
    """Issue 35 item 10: without --with-ci the paragraph claims no interval and no
    effect size (the table shows neither); with it, the intervals of the means."""
    base = _runs(cube_path)[0]
    argv = ["-q", "compare", str(cube_path), "--baseline", base, "--format", fmt,
            "--methods"]
    assert main(argv) == 0
    paragraph = capsys.readouterr().out.rstrip("\n").rsplit("\n", 1)[-1]
    assert paragraph.startswith("We compared 4 runs")
    for claim in ("interval", "d_z", "d<sub>", "Hedges", "effect size", "Effect size"):
        assert claim not in paragraph
    assert main(argv + ["--with-ci"]) == 0
    out = capsys.readouterr().out
    paragraph = out.rstrip("\n").rsplit("\n", 1)[-1]
    assert paragraph.endswith("confidence intervals of the mean of each run.")
    assert "[" in out.split(paragraph)[0]  # and the table shows them
    assert "Hedges" not in paragraph and "mean difference" not in paragraph


def test_the_paragraph_escapes_names_and_cites_with_bibtex(cube_path, tmp_path, capsys):
    """Issue 35 item 2: names are escaped in the paragraph as in the table; with
    --bibtex, the LaTeX paragraph cites the keys of the BibTeX file."""
    import re

    scores = xdiv.open_dataset(cube_path)
    hostile = ["<script>alert(1)</script>", "a&b#c%d_e\\input{x}", "α{}^~$|*`'\""]
    scores = scores.assign_coords(run=hostile + [str(r) for r in scores["run"].values[3:]])
    path = tmp_path / "hostile.nc"
    xdiv.to_netcdf(scores, path)
    assert main(["-q", "compare", str(path), "--baseline", hostile[0], "--format", "html",
                 "--methods"]) == 0
    out = capsys.readouterr().out
    assert "<script>" not in out and "&lt;script&gt;alert(1)&lt;/script&gt;" in out
    bib = tmp_path / "refs.bib"
    assert main(["-q", "compare", str(path), "--baseline", hostile[1], "--format", "latex",
                 "--methods", "--bibtex", str(bib)]) == 0
    paragraph = capsys.readouterr().out.rstrip("\n").rsplit("\n", 1)[-1]
    assert "\\input{" not in paragraph and "a\\&b\\#c\\%d\\_e\\textbackslash{}input\\{x\\}" \
        in paragraph
    assert "$\\alpha = 0.05$" in paragraph and "α" not in paragraph
    cited = {k for group in re.findall(r"\\cite\{([^}]*)\}", paragraph)
             for k in group.split(",")}
    assert cited and cited <= set(re.findall(r"@\w+\{([^,]+),", bib.read_text()))
    assert main(["-q", "compare", str(path), "--baseline", hostile[2], "--format",
                 "markdown", "--methods"]) == 0
    paragraph = capsys.readouterr().out.rstrip("\n").rsplit("\n", 1)[-1]
    assert "α{}^\\~$\\|\\*\\`'\"" in paragraph


@pytest.mark.parametrize("fmt", ["table", "netcdf"])
def test_methods_without_a_paper_table_is_one_error(cube_path, tmp_path, fmt, capsys):
    assert main(["compare", str(cube_path), "--format", fmt, "--methods", "-o",
                 str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--methods describes the paper table" in err[0]


def test_netcdf_and_bibtex_files(cube_path, tmp_path):
    out, bib = tmp_path / "cmp.nc", tmp_path / "refs.bib"
    base = _runs(cube_path)[0]
    assert main(["-q", "compare", str(cube_path), "--baseline", base, "--test", "t",
                 "--correction", "bonferroni", "--format", "netcdf", "-o", str(out),
                 "--bibtex", str(bib)]) == 0
    written = xdiv.open_dataset(out)
    expected = _api(cube_path, baseline=base, tests=("t",), correction="bonferroni")
    assert written["pvalue_adjusted"].equals(expected["pvalue_adjusted"])
    assert bib.read_text() == tables.bibtex(expected)
    assert "@" in bib.read_text()


def test_a_table_goes_to_a_file_with_o(cube_path, tmp_path, capsys):
    out = tmp_path / "table.tex"
    assert main(["-q", "compare", str(cube_path), "--format", "latex", "-o", str(out)]) == 0
    assert capsys.readouterr().out == ""
    assert out.read_text().startswith(tables.table(_api(cube_path), format="latex")[:40])


@pytest.mark.parametrize("argv, message", [
    (["--baseline", "no-such-run"], "no-such-run"),
    (["--format", "netcdf"], "-o FILE"),
    (["-m", "nDCG@99"], "nDCG@99"),
])
def test_bad_input_is_one_line(cube_path, capsys, argv, message):
    assert main(["compare", str(cube_path), *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("xdiv: error:") and message in err[0]


# -- third audit (issue 35 item 13; item 5 on the command line) ---------------------------

def test_table_test_picks_the_paper_tables_test(cube_path, capsys):
    base = _runs(cube_path)[0]
    argv = ["compare", str(cube_path), "--baseline", base, "--test", "t", "tukey", "-B",
            "500", "--format", "markdown"]
    assert main([*argv, "--table-test", "tukey"]) == 0
    captured = capsys.readouterr()
    result = _api(cube_path, baseline=base, tests=("t", "tukey"), B=500)
    assert captured.out == tables.table(result, format="markdown", test="tukey")
    assert captured.out != tables.table(result, format="markdown", test="t")
    assert "--table-test" not in captured.err
    # without it the table is the first test's, and the command says so
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert captured.out == tables.table(result, format="markdown", test="t")
    assert ("the paper table shows the significance of the t test, the first of --test "
            "t tukey; choose another with --table-test") in captured.err
    # a test that was not run is refused in one line
    assert main([*argv, "--table-test", "sign"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["xdiv: error: --table-test sign is not one of --test t tukey"]


def test_a_correction_not_applied_to_tukey_is_said(cube_path, capsys):
    assert main(["compare", str(cube_path), "--test", "t", "tukey", "-B", "500",
                 "--correction", "holm"]) == 0
    err = capsys.readouterr().err
    assert "--correction holm is not applied to the tukey test" in err
    assert main(["compare", str(cube_path), "--test", "t", "--correction", "holm"]) == 0
    assert "not applied" not in capsys.readouterr().err


def test_tukey_rows_show_tukeys_simultaneous_intervals(cube_path):
    result = _api(cube_path, tests=("t", "tukey"), B=500)
    frame = comparison_frame(result)
    for (test, metric, a, b), row in frame.iterrows():
        cell = dict(metric=metric, run_a=a, run_b=b)
        low, high = (("tukey_ci_low", "tukey_ci_high") if test == "tukey"
                     else ("ci_low", "ci_high"))
        assert row["ci_low"] == float(result[low].sel(cell))
        assert row["ci_high"] == float(result[high].sel(cell))
    assert (frame.xs("tukey", level="test")["ci_low"]
            != frame.xs("t", level="test")["ci_low"]).all()


@pytest.mark.parametrize("B", ["1000001", str(10 ** 15), str(10 ** 18)])
@pytest.mark.parametrize("options", [["--test", "bootstrap"], ["--test", "tukey"],
                                     ["--ci", "bca"]])
def test_huge_B_is_one_line(cube_path, capsys, B, options):
    import signal

    def stop(signum, frame):
        raise TimeoutError(f"-B {B} was not refused within 10 s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, 10)
    try:
        assert main(["compare", str(cube_path), *options, "-B", B]) == 2
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "too many: at most 1,000,000" in err[0]
