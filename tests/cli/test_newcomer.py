"""The rough edges a newcomer met on the 2009 workflow (issue 25): the scatter plot's
error, option names and defaults that meant different things in different commands,
p-values printed as 0.0000, a table wider than the terminal, an unexplained V_E column,
unsaid tie rules of the concordance test, docs that could not be browsed from disk, and
a demo that scattered its files."""

from __future__ import annotations

import re
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

import xdiv
from xdiv.cli import main, parser

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def synthetic_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("newcomer")
    files = xdiv.datasets.write_synthetic(folder, n_topics=6, n_runs=4, depth=20, seed=1)
    return folder, files


@pytest.fixture(scope="module")
def cube20(tmp_path_factory):
    """A cube of four measures at cutoff 20 (none at the default cutoff 10)."""
    collection, runs = xdiv.datasets.synthetic(n_topics=8, n_runs=4, depth=20, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        scores = xdiv.evaluate(runs, collection, ["alpha-nDCG@20", "I-rec@20", "D-nDCG@20",
                                                  "D#-nDCG@20"])
    path = tmp_path_factory.mktemp("cube") / "scores.nc"
    xdiv.to_netcdf(scores, path)
    return path


def one_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.startswith("xdiv: error: ") and err.count("\n") == 1, err
    return err


# ------------------------------------------------------------------ plot scatter

def test_scatter_error_names_the_measures_and_the_cutoff(cube20, tmp_path, capsys):
    assert main(["plot", "scatter", str(cube20), "-o", str(tmp_path / "s.png")]) == 2
    err = one_error(capsys)
    assert "I-rec@10 and D-nDCG@10" in err and "--cutoff 20" in err
    assert main(["-q", "plot", "scatter", str(cube20), "--cutoff", "20", "-o",
                 str(tmp_path / "s.png")]) == 0


def test_scatter_error_without_any_pair_says_what_to_evaluate(cube20, tmp_path, capsys):
    only_irec = xdiv.open_dataset(cube20).sel(metric=["I-rec@20", "alpha-nDCG@20"])
    path = tmp_path / "irec.nc"
    xdiv.to_netcdf(only_irec, path)
    assert main(["plot", "scatter", str(path), "--cutoff", "20", "-o",
                 str(tmp_path / "s.png")]) == 2
    err = one_error(capsys)
    assert "needs the measures I-rec@20 and D-nDCG@20" in err
    assert "metric 'D-nDCG@20' is not in the score cube" in err and "--cutoff" in err


def test_scatter_error_from_python_names_the_cutoff_argument(cube20):
    with pytest.raises(xdiv.InputError, match=r"cutoff=20 \(xdiv plot scatter --cutoff 20\)"):
        xdiv.plots.irec_dndcg(xdiv.open_dataset(cube20))


# ------------------------------------------------------------------ design mdd --n-topics

def test_design_mdd_takes_n_topics(cube20, capsys):
    assert main(["design", "mdd", str(cube20), "--n-topics", "25", "50"]) == 0
    captured = capsys.readouterr()
    assert "25 topics" in captured.out and "50 topics" in captured.out
    assert captured.err == ""


def test_design_mdd_topics_still_works_with_a_deprecation(cube20, capsys):
    assert main(["design", "mdd", str(cube20), "--n-topics", "25", "50", "--format",
                 "tsv"]) == 0
    new = capsys.readouterr().out
    assert main(["design", "mdd", str(cube20), "--topics", "25", "50", "--format",
                 "tsv"]) == 0
    captured = capsys.readouterr()
    assert captured.out == new
    assert captured.err.startswith("xdiv: warning: design mdd --topics N is deprecated, "
                                   "use --n-topics N")
    assert main(["-q", "design", "mdd", str(cube20), "--topics", "25"]) == 0
    assert capsys.readouterr().err == ""


def test_design_mdd_needs_its_numbers_of_topics_once(cube20, capsys):
    assert main(["design", "mdd", str(cube20)]) == 2
    assert "needs --n-topics N" in one_error(capsys)
    assert main(["design", "mdd", str(cube20), "--topics", "3", "--n-topics", "4"]) == 2
    assert "--topics is its deprecated spelling" in one_error(capsys)


# ------------------------------------------------------------------ risk --risk-alpha

def _default(argv: list[str], dest: str):
    return getattr(parser().parse_args(argv), dest)


def test_risk_alpha_has_ndevals_name_and_default(cube20, capsys):
    ndeval = _default(["ndeval", "q", "r"], "risk_alpha")
    assert float(ndeval) == 0
    assert main(["risk", str(cube20), "--baseline", "run01", "--test", "urisk"]) == 0
    assert capsys.readouterr().out.startswith("URisk against run01, alpha = 0\n")
    for command in (["risk", "x.nc"], ["ndeval", "q", "r"], ["gdeval", "q", "r"]):
        assert _default([command[0], "--risk-alpha", "2", *command[1:]],
                        "risk_alpha") in (2.0, "2")  # one name in the three commands
    help_text = _help(["risk", "--help"])
    assert "--risk-alpha A" in help_text and "-riskAlpha" in help_text


def test_risk_alpha_is_the_sensitivity_used(cube20, capsys):
    cube = xdiv.open_dataset(cube20)
    assert main(["risk", str(cube20), "--baseline", "run01", "--risk-alpha", "5",
                 "--format", "tsv", "-m", "D#-nDCG@20"]) == 0
    printed = capsys.readouterr().out.splitlines()[1:]
    expected = xdiv.risk.trisk(cube["score"].sel(metric=["D#-nDCG@20"]), "run01", alpha=5)
    got = {line.split("\t")[1]: float(line.split("\t")[2]) for line in printed}
    for run, value in got.items():
        assert value == pytest.approx(float(expected["urisk"].sel(metric="D#-nDCG@20",
                                                                  run=run)), abs=1e-6)


def test_risk_old_alpha_spelling_still_works_with_a_deprecation(cube20, capsys):
    argv = ["risk", str(cube20), "--baseline", "run01", "--format", "tsv"]
    assert main([*argv, "--risk-alpha", "5"]) == 0
    new = capsys.readouterr().out
    assert main([*argv, "--alpha", "5"]) == 0
    captured = capsys.readouterr()
    assert captured.out == new
    assert captured.err.startswith("xdiv: warning: risk --alpha A is deprecated, use "
                                   "--risk-alpha A")
    assert main([*argv, "--alpha", "5", "--risk-alpha", "1"]) == 2
    assert "deprecated spelling" in one_error(capsys)


# ------------------------------------------------------------------ p-values

@pytest.fixture(scope="module")
def risky(tmp_path_factory):
    """A run far below its baseline on 30 topics: TRisk's p-value is about 1e-20."""
    rng = np.random.default_rng(0)
    base = rng.uniform(0.5, 0.9, 30)
    values = np.stack([base, base - 0.3 - 0.01 * rng.random(30), base + 0.01 * rng.random(30)])
    scores = xr.Dataset({"score": (("metric", "run", "topic"), values[None])},
                        coords={"metric": ["nDCG@10"], "run": ["base", "bad", "same"],
                                "topic": [str(k) for k in range(30)]})
    path = tmp_path_factory.mktemp("risky") / "scores.nc"
    xdiv.to_netcdf(scores, path)
    return path


def test_tiny_p_values_are_not_printed_as_zero(risky, capsys):
    assert main(["risk", str(risky), "--baseline", "base", "--risk-alpha", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["URisk", "TRisk", "p-value", "topics"]
    pvalues = {cells[-5]: cells[-2] for cells in (line.split() for line in lines[3:])}
    assert pvalues == {"base": "NaN", "bad": "<0.0001", "same": "<0.0001"}


def test_machine_readable_p_values_keep_their_digits(risky, capsys):
    cube = xdiv.open_dataset(risky)
    expected = float(xdiv.risk.trisk(cube, "base", alpha=1)["pvalue"].sel(
        metric="nDCG@10", run="bad"))
    assert 0 < expected < 1e-10
    for fmt, sep in (("tsv", "\t"), ("csv", ",")):
        assert main(["risk", str(risky), "--baseline", "base", "--risk-alpha", "1",
                     "--format", fmt]) == 0
        lines = capsys.readouterr().out.splitlines()
        column = lines[0].split(sep).index("p-value")
        row = next(line.split(sep) for line in lines if line.split(sep)[1] == "bad")
        assert float(row[column]) == pytest.approx(expected, rel=1e-5)


# ------------------------------------------------------------------ table width

def _evaluate_table(files, monkeypatch, capsys, width, *extra):
    import xdiv.cli.evaluate as E

    monkeypatch.setattr(E, "terminal_width", lambda: width)
    assert main(["-q", "evaluate", str(files["qrels"]), *map(str, files["runs"]), "-m",
                 "ndeval", *extra]) == 0
    return capsys.readouterr().out


def test_ndeval_table_fits_the_terminal(synthetic_files, monkeypatch, capsys):
    _, files = synthetic_files
    unfitted = _evaluate_table(files, monkeypatch, capsys, None)
    assert max(map(len, unfitted.splitlines())) > 200  # what a file or pipe gets
    fitted = _evaluate_table(files, monkeypatch, capsys, 80)
    assert max(map(len, fitted.splitlines())) <= 80
    # the same numbers, turned: a row per measure, a column per run
    lines = fitted.splitlines()
    runs = [line.split()[0] for line in unfitted.splitlines()[2:]]
    assert lines[0].split() == ["run", *runs]
    row = next(line for line in lines if line.startswith("alpha-nDCG@20 "))
    column = unfitted.splitlines()[0].split().index("alpha-nDCG@20")
    assert row.split()[1:] == [line.split()[1 + column] for line in unfitted.splitlines()[2:]]


def test_per_topic_table_wraps_its_columns(synthetic_files, monkeypatch, capsys):
    _, files = synthetic_files
    unfitted = _evaluate_table(files, monkeypatch, capsys, None, "--per-topic")
    wrapped = _evaluate_table(files, monkeypatch, capsys, 90, "--per-topic")
    assert max(map(len, wrapped.splitlines())) <= 90
    blocks = wrapped.strip("\n").split("\n\n")
    assert len(blocks) > 1
    headers = [name for block in blocks for name in block.splitlines()[0].split()]
    assert headers == unfitted.splitlines()[0].split()
    n_rows = len(unfitted.splitlines())
    assert all(len(block.splitlines()) == n_rows for block in blocks)


# ------------------------------------------------------------------ V_E, concordance ties

def _help(argv: list[str]) -> str:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main(argv)
    return out.getvalue()


def test_design_size_explains_v_e(cube20, capsys):
    assert main(["design", "size", str(cube20), "--diff", "0.1"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].split()[0] == "V_E"
    explained = out.split("V_E", 2)[2]
    assert "residual mean square of the two-way ANOVA" in explained.replace("\n", " ")
    assert "V_E (first column" in _help(["design", "size", "--help"])
    assert main(["design", "size", str(cube20), "--diff", "0.1", "--format", "tsv"]) == 0
    assert "ANOVA" not in capsys.readouterr().out  # machine-readable: the table only


def test_concordance_says_how_ties_count(cube20, capsys):
    assert main(["concordance", str(cube20), "alpha-nDCG@20", "D#-nDCG@20", "--gold",
                 "I-rec@20"]) == 0
    out = capsys.readouterr().out
    for text in (out, _help(["concordance", "--help"])):
        flat = " ".join(text.split())
        assert "ties M1 or M2 ties is no disagreement" not in flat
        assert "that M1 or M2 ties is no disagreement" in flat
        assert "the gold measure(s) tie counts as correct for both M1 and M2" in flat


def test_ties_rule_is_what_the_test_counts():
    """Two runs tied under the gold measure on a topic where M1 and M2 disagree: both are
    correct, so the case is in both concordances and in neither 'only' count."""
    values = np.array([[[0.2, 0.5], [0.1, 0.5]],   # M1: run0 above run1 on topic 0
                       [[0.1, 0.5], [0.2, 0.5]],   # M2: run1 above run0 on topic 0
                       [[0.3, 0.5], [0.3, 0.5]]])  # gold: tied on topic 0
    scores = xr.Dataset({"score": (("metric", "run", "topic"), values)},
                        coords={"metric": ["M1", "M2", "G"], "run": ["a", "b"],
                                "topic": ["0", "1"]})
    result = xdiv.meta.concordance(scores, "M1", "M2", "G")
    assert int(result["disagreements"]) == 1
    assert float(result["concordance_1"]) == float(result["concordance_2"]) == 1.0
    assert int(result["only_1"]) == int(result["only_2"]) == 0


# ------------------------------------------------------------------ docs from disk, demo

def test_docs_site_links_open_pages_from_disk():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^use_directory_urls:\s*false\s*$", config, re.MULTILINE)
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert "mkdocs serve" in index
    assert "mkdocs serve" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_demo_writes_its_files_into_one_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["-q", "demo", "--topics", "4", "--runs", "3"]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["xdiv-demo"]
    assert sorted(p.name for p in (tmp_path / "xdiv-demo").iterdir()) == [
        "scores-asl.png", "scores-irec-dndcg.png", "scores-meta.nc", "scores.nc"]
    assert "xdiv-demo" in capsys.readouterr().out
    assert main(["-q", "demo", "--no-meta", "--topics", "4", "--runs", "3"]) == 0  # again


def test_demo_folder_that_cannot_be_made_is_one_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "xdiv-demo").write_text("a file where the folder would go\n")
    assert main(["demo", "--no-meta", "--topics", "4", "--runs", "3"]) == 2
    assert "xdiv-demo: cannot create the demo's folder" in one_error(capsys)


# ------------------------------------------------------------------ the paper workflow

def _latex(*argv, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True, timeout=300,
                          check=False)


def test_the_paper_workflow_compiles(tmp_path, monkeypatch, capsys):
    """Issue 35: ``xdiv compare ... --format latex --methods --bibtex refs.bib -o
    table.tex``, then a document that ``\\input``s the table (with booktabs, as
    ``xdiv.table`` says) and takes its bibliography from refs.bib: pdflatex and bibtex
    succeed and every citation is defined. On the TREC 2009 runs when they are here, else
    on the demo's data (whose measures D#-nDCG and P+Q# have a ``#``)."""
    if shutil.which("pdflatex") is None or shutil.which("bibtex") is None:
        pytest.skip("pdflatex and bibtex are not installed "
                    "(apt-get install texlive-latex-recommended)")
    trec = ROOT / ".." / "shared" / "reference" / "trec-web" / "2009"
    monkeypatch.chdir(tmp_path)
    if (trec / "qrels.diversity.gz").exists():
        assert main(["-q", "evaluate", str(trec / "qrels.diversity.gz"),
                     str(trec / "runs" / "*.gz"), "-m", "alpha-nDCG@20", "ERR-IA@20",
                     "D#-nDCG@20", "--order", "rank", "-o", "scores.nc"]) == 0
        baseline = "MSRABASE"
    else:
        assert main(["-q", "demo", "--no-meta", "-o", "scores.nc"]) == 0
        baseline = "run01"
    assert main(["-q", "compare", "scores.nc", "--baseline", baseline, "--test", "permutation",
                 "--correction", "holm", "--format", "latex", "--methods", "--bibtex",
                 "refs.bib", "-o", "table.tex"]) == 0
    assert "Traceback" not in capsys.readouterr().err
    table = (tmp_path / "table.tex").read_text(encoding="utf-8")
    cited = {key for group in re.findall(r"\\cite\{([^}]*)\}", table)
             for key in group.split(",")}
    assert {"fisher1935", "smucker2007", "holm1979"} <= cited
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
        "\\input{table.tex}\n\\bibliographystyle{plain}\n\\bibliography{refs}\n"
        "\\end{document}\n", encoding="utf-8")
    pdflatex = ("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex")
    first = _latex(*pdflatex, cwd=tmp_path)
    assert first.returncode == 0, first.stdout[-3000:]
    bib = _latex("bibtex", "paper", cwd=tmp_path)
    assert bib.returncode == 0, bib.stdout[-3000:]
    assert "Warning" not in bib.stdout and "error" not in bib.stdout.lower(), bib.stdout
    for _ in range(2):
        done = _latex(*pdflatex, cwd=tmp_path)
        assert done.returncode == 0, done.stdout[-3000:]
    log = (tmp_path / "paper.log").read_text(encoding="utf-8", errors="replace")
    assert "undefined" not in log.lower(), [line for line in log.splitlines()
                                           if "undefined" in line.lower()]
    assert "Missing character" not in log
    bbl = (tmp_path / "paper.bbl").read_text(encoding="utf-8")
    assert {key for key in re.findall(r"\\bibitem\{([^}]*)\}", bbl)} == cited
    assert (tmp_path / "paper.pdf").stat().st_size > 0


def test_the_comparing_page_recipe_gives_the_pages_numbers(tmp_path, monkeypatch, capsys):
    """Issue 35 item 17: the command lines on docs/comparing.md print the table and the
    paragraph the page's Python prints (the same scores: the runs ranked as ndeval ranks
    them), not other numbers."""
    import contextlib
    import io
    import shlex

    from tests.conftest import require_trec_2009

    require_trec_2009()
    page = (ROOT / "docs" / "comparing.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python exec=\"on\"[^\n]*\n(.*?)```", page, re.DOTALL)
    printed, namespace = {}, {}
    monkeypatch.chdir(ROOT)  # where the page is built: the data's path is relative to it
    for block in blocks:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, "docs/comparing.md", "exec"), namespace)  # noqa: S102
        printed[block] = out.getvalue()
    table = next(v for k, v in printed.items() if "xdiv.table(" in k)
    paragraph = next(v for k, v in printed.items() if "xdiv.methods_paragraph(" in k)
    recipe = page.split("On the command line, the same numbers", 1)[1]
    recipe = recipe.split("```\n", 2)[1].replace("\\\n", " ")
    commands = [shlex.split(line.replace("../shared", str(ROOT / ".." / "shared")))
                for line in recipe.splitlines() if line.startswith("xdiv ")]
    monkeypatch.chdir(tmp_path)
    evaluate = next(c for c in commands if c[1] == "evaluate")
    assert main(["-q", *evaluate[1:]]) == 0
    capsys.readouterr()
    markdown = next(c for c in commands if c[1] == "compare" and "markdown" in c
                    and "--methods" in c)
    assert main(["-q", *markdown[1:]]) == 0
    assert capsys.readouterr().out == table + paragraph
