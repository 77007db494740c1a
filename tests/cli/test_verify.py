"""``xdiv verify``: checks the input files a result records and recomputes it, bit for bit
(issue 37, item 2)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import xarray as xr

import xdiv
from xdiv.cli import main

from ..docs.test_site import site  # noqa: F401 (the site built once per session)

ROOT = Path(__file__).resolve().parents[2]
MEASURES = ["alpha-nDCG@10", "ERR-IA@10", "nDCG@5"]


def _run(capsys, *argv: str) -> tuple[int, list[str]]:
    capsys.readouterr()
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out.splitlines() + err.splitlines()


def _verify(capsys, *argv: str) -> tuple[int, dict[str, str]]:
    """Exit status and ``{subject: verdict}`` of ``xdiv verify``, whose every line is
    ``SUBJECT: VERDICT``."""
    status, lines = _run(capsys, "verify", *argv)
    verdicts = {}
    for line in lines:
        subject, _, verdict = line.partition(": ")
        verdicts[subject] = verdict
    return status, verdicts


RESULTS = ["scores.nc", "meta.nc", "tukey.nc", "compare.nc", "georisk.nc", "swap.nc"]
"""The results of the commands below, each with its provenance."""


def _make(capsys, *commands: list[str]) -> None:
    for argv in commands:
        status, lines = _run(capsys, "-q", *argv)
        assert status == 0, lines


@pytest.fixture
def study(tmp_path, monkeypatch, capsys):
    """A qrels file, four runs, their score cube and a meta-evaluation of it."""
    monkeypatch.chdir(tmp_path)
    xdiv.datasets.write_synthetic(".", n_topics=6, n_runs=4, depth=10, seed=4)
    runs = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "runs").glob("*.txt"))
    _make(capsys, ["evaluate", "qrels.txt", *runs, "-m", *MEASURES, "--ties", "expected",
                   "--seed", "3", "-o", "scores.nc"],
          ["meta", "scores.nc", "-B", "40", "--seed", "2", "-o", "meta.nc"])
    return tmp_path


def _identical(capsys, result: str) -> dict[str, str]:
    status, verdicts = _verify(capsys, result)
    assert status == 0, (result, verdicts)
    assert verdicts and all(v.startswith("identical") for v in verdicts.values()), \
        (result, verdicts)
    assert "qrels.txt (qrels)" in verdicts or "qrels.txt (qrels, via scores.nc)" in verdicts
    return verdicts


def test_a_cube_and_its_meta_evaluation_are_identical_when_made_again(study, capsys):
    assert {"score", "score_se", "ties_method (coordinate)", "attributes"} <= set(
        _identical(capsys, "scores.nc"))
    assert {"asl", "pvalue", "power", "scores.nc (scores)"} <= set(
        _identical(capsys, "meta.nc"))


@pytest.mark.slow
def test_every_result_of_the_commands_is_identical_when_made_again(study, capsys):
    _make(capsys,
          ["meta", "scores.nc", "--test", "tukey", "-B", "40", "--seed", "2", "-o",
           "tukey.nc"],
          ["compare", "scores.nc", "--test", "permutation", "-B", "100", "--format",
           "netcdf", "-o", "compare.nc"],
          ["risk", "scores.nc", "--test", "georisk", "-o", "georisk.nc"],
          ["design", "swap", "scores.nc", "-B", "20", "--seed", "1", "-o", "swap.nc"])
    for result in RESULTS:
        _identical(capsys, result)


def test_one_changed_byte_of_an_input_is_named(study, capsys):
    run = study / "runs" / "run02.txt"
    data = bytearray(run.read_bytes())
    data[data.index(b" 1 ") + 1] = ord("7")  # a rank 1 becomes 7: same size
    run.write_bytes(bytes(data))
    status, verdicts = _verify(capsys, "scores.nc")
    assert status == 1
    assert verdicts["runs/run02.txt (runs)"].startswith("file changed (same size")
    assert verdicts["runs/run01.txt (runs)"].startswith("identical")
    status, verdicts = _verify(capsys, "meta.nc")
    assert status == 1
    assert verdicts["scores.nc (scores)"].startswith("identical")
    assert verdicts["runs/run02.txt (runs, via scores.nc)"].startswith("file changed")
    (study / "qrels.txt").unlink()
    status, verdicts = _verify(capsys, "scores.nc")
    assert status == 1 and verdicts["qrels.txt (qrels)"] == "file missing"
    assert verdicts["recomputation"].startswith("failed")


def test_a_changed_input_that_changes_the_scores_names_the_variables(study, capsys):
    with open(study / "runs" / "run01.txt", "a") as fh:
        fh.write("1 Q0 unseen 0 1000 run01\n")  # a new top document for topic 1
    status, verdicts = _verify(capsys, "scores.nc")
    assert status == 1
    assert verdicts["runs/run01.txt (runs)"].startswith("file changed (")
    assert re.match(r"differs \(\d+ of 72 cells, largest difference ", verdicts["score"])


def test_a_tampered_variable_is_named(study, capsys):
    cube = xdiv.open_dataset("scores.nc")
    was = float(cube["score"][0, 1, 2])
    cube["score"][0, 1, 2] = 2.0
    cube.to_netcdf("tampered.nc")  # xarray's own writer: the record is kept as it was
    status, verdicts = _verify(capsys, "tampered.nc")
    assert status == 1
    assert verdicts["score"] == f"differs (1 of 72 cells, largest difference {2 - was:.6g})"
    assert verdicts["score_se"] == "identical"
    assert verdicts["qrels.txt (qrels)"].startswith("identical")


def test_python_results_of_a_cube_made_on_the_command_line_are_made_again(study, capsys):
    """A Python call on a cube that a command line wrote (standardised scores, then a
    mixed model and an ANOVA of them): the command is run again for the parent, then
    each call is made again."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        standard = xdiv.stats.standardise(xdiv.open_dataset("scores.nc"), "cdf")
        xdiv.to_netcdf(standard, "standard.nc")
        reread = xdiv.open_dataset("standard.nc")
        xdiv.to_netcdf(xdiv.stats.mixed(reread, "alpha-nDCG@10"), "mixed.nc")
        xdiv.to_netcdf(xdiv.stats.anova_table(reread, "alpha-nDCG@10"), "anova.nc")
    for name in ("standard.nc", "mixed.nc", "anova.nc"):
        status, verdicts = _verify(capsys, name)
        assert status == 0, verdicts
        assert verdicts["attributes"] == "identical"
        assert verdicts["qrels.txt (qrels)"].startswith("identical"), verdicts


def test_moved_files_are_given_by_name(study, capsys):
    (study / "elsewhere").mkdir()
    (study / "qrels.txt").rename(study / "elsewhere" / "qrels.txt")
    status, verdicts = _verify(capsys, "scores.nc", "elsewhere/qrels.txt")
    assert status == 0, verdicts
    assert verdicts["qrels.txt (qrels)"].endswith(
        f"read from {study / 'elsewhere' / 'qrels.txt'}")
    (study / "other.txt").write_text("x\n")
    status, lines = _run(capsys, "verify", "scores.nc", "other.txt")
    assert status == 2 and lines == [
        f"xdiv: error: {study / 'other.txt'}: the result records no input file named "
        "'other.txt'"]


def test_results_made_in_python_are_made_again_from_their_call(tmp_path, monkeypatch,
                                                                capsys):
    monkeypatch.chdir(tmp_path)
    xdiv.datasets.write_synthetic(".", n_topics=5, n_runs=3, depth=10, seed=9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        collection = xdiv.read_qrels("qrels.txt", probabilities="nonuniform")
        scores = xdiv.evaluate(xdiv.read_runs("runs/*.txt"), collection, MEASURES,
                               ties="range", tie_samples=20, seed=4)
        tukey = xdiv.meta.tukey_hsd(scores, B=30, seed=6)
        lean = xdiv.meta.bootstrap_test(scores.isel(run=[0, 1]), B=30)
    for name, result in (("scores.nc", scores), ("tukey.nc", tukey), ("lean.nc", lean)):
        xdiv.to_netcdf(result, name)
    for name in ("scores.nc", "tukey.nc"):
        status, verdicts = _verify(capsys, name)
        assert status == 0, (name, verdicts)
        assert all(v.startswith("identical") for v in verdicts.values()), verdicts
    status, verdicts = _verify(capsys, "lean.nc")  # a subset of the cube, made in memory
    assert status == 1
    assert verdicts["recomputation"].startswith("not possible (scores was built in memory")


def test_files_that_are_no_result_get_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("text.nc").write_text("not NetCDF\n")
    xr.Dataset({"x": ("i", [1.0])}).to_netcdf("plain.nc")
    collection, runs = xdiv.datasets.example("fig1")
    cube = xdiv.evaluate(runs, collection, ["nDCG@5"])
    cube.attrs.pop("provenance")
    xdiv.to_netcdf(cube, "bare.nc")
    summary = xdiv.summarize(xdiv.evaluate(runs, collection, ["nDCG@5"]))
    xdiv.to_netcdf(summary, "summary.nc")
    cube = xdiv.evaluate(runs, collection, ["nDCG@5"])
    cube.attrs["provenance"] = '{"schema": 1, "kind": "scores", "files": [{"path": 3}]}'
    xdiv.to_netcdf(cube, "odd.nc")
    for name, message in (("text.nc", "not a readable NetCDF file"),
                          ("odd.nc", "its provenance record is malformed"),
                          ("plain.nc", "not an xdiv result"),
                          ("bare.nc", "has no provenance"),
                          ("summary.nc", "its provenance is that of a 'scores' result"),
                          ("absent.nc", "absent.nc")):
        status, lines = _run(capsys, "verify", name)
        assert status == 2 and len(lines) == 1, lines
        assert lines[0].startswith(f"xdiv: error: {name}") and message in lines[0], lines


# ------------------------------------------------------------------ the docs' examples

DOCS = {"cli.md": ("A worked pipeline", False), "risk.md": ("On the command line", True),
        "howto/reproducibility.md": ("Provenance and `xdiv verify`", False)}
"""The pages whose executed examples write NetCDF results: the section those examples are
in, and whether they need the page's Python session from its start."""
RISK_FOLDER = "/tmp/xdiv-risk-docs"
"""Where the risk page's examples write (a fixed folder)."""
DOCS_FOLDERS = ("xdiv-tour", "xdiv-provenance")
"""The folders of the examples' temporary folder (``$TMPDIR``) where the command line's and
the reproducibility page's examples write."""


def _blocks(page: str, section: str, session: bool) -> list[tuple[str, str]]:
    """``(language, code)`` of the executed blocks of ``section`` of ``page`` (console
    blocks without their ``$`` prompts); with ``session``, the Python blocks of the page
    before the section too, all Python blocks joined into one, run where the last one is."""
    text = (ROOT / "docs" / page).read_text()
    begin = text.index(f"\n## {section}\n")
    end = text.find("\n## ", begin + 3)
    end = len(text) if end < 0 else end
    blocks = [(m.start(), m.group(1), m.group(2)) for m in re.finditer(
        r'```(python|console) exec="on"[^\n]*\n(.*?)```', text, re.S) if m.start() < end]
    python = [code for at, language, code in blocks
              if language == "python" and (session or at > begin)]
    found = []
    for at, language, code in blocks:
        if at < begin:
            continue
        if language == "console":
            found.append((language, "\n".join(line[2:] for line in code.splitlines()
                                              if line.startswith("$ "))))
        elif code == python[-1]:
            found.append((language, "\n".join(python)))
    return found


@pytest.mark.slow
@pytest.mark.xdist_group("docs-site")  # the docs tests' worker: the site is built there
def test_every_result_the_docs_examples_make_verifies(request, tmp_path, capsys):
    """The docs' examples (the command line's worked pipeline, the risk page on the TREC
    2009 runs, the reproducibility page) run as the docs build runs them; every NetCDF
    result they write is then identical when made again.

    The results checked are those the session's site build made (its examples' scratch
    folder, tests/docs/test_site.py), but for the risk page's: its folder is a fixed one,
    which every build writes, so its examples run again here, into a folder of this
    test's own. Without the docs extra (no site), every page's examples run here."""
    if not (ROOT.parent / "shared" / "reference" / "trec-web" / "2009").exists():
        pytest.skip("../shared/reference/trec-web/2009 is not available")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    try:
        built = request.getfixturevalue("site").parent / "scratch"
    except pytest.skip.Exception:
        built = None
    here = {page: where for page, where in DOCS.items() if built is None or page == "risk.md"}
    env = {**os.environ, "TMPDIR": str(scratch), "PYTHONWARNINGS": "ignore"}
    for page, (section, session) in here.items():
        for language, code in _blocks(page, section, session):
            # the risk page's fixed folder, which other builds write too, made this run's
            code = code.replace(RISK_FOLDER, str(scratch / "risk"))
            command = [sys.executable, "-c", code] if language == "python" else [
                "bash", "-c", code]
            proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True,
                                  text=True, timeout=600)
            assert proc.returncode == 0, (page, code, proc.stderr[-2000:])
    results = {p.relative_to(scratch).as_posix(): p for p in scratch.rglob("*.nc")}
    if built is not None:
        results |= {p.relative_to(built).as_posix(): p for folder in DOCS_FOLDERS
                    for p in (built / folder).rglob("*.nc")}
    assert set(results) >= {
        "xdiv-tour/scores.nc", "xdiv-tour/meta.nc", "risk/scores.nc", "risk/georisk.nc",
        "xdiv-provenance/scores.nc", "xdiv-provenance/meta.nc"}
    for name, result in sorted(results.items()):
        capsys.readouterr()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            status = main(["verify", str(result)])
        out, err = capsys.readouterr()
        if name.startswith("xdiv-provenance/"):  # the page changes a run file on purpose
            assert status == 1, out
            assert re.search(r"^runs/run01.txt \(runs.*\): file changed", out, re.M)
            continue
        assert status == 0, (name, out, err)
        assert all(line.split(": ", 1)[1].startswith("identical")
                   for line in out.splitlines()), out
