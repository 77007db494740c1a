"""Small comforts of the command line: --version, standard input and pipes as inputs,
quoted glob patterns, mean rows in per-topic output, ``measures --names``,
``--doc-lengths``, the progress bar of ``meta`` and the ``risk`` command."""

from __future__ import annotations

import errno
import gzip
import io
import os
import shutil
import subprocess
import sys
import threading
from importlib.metadata import version

import numpy as np
import pandas as pd
import pytest

import xdiv
from xdiv.cli import main

QRELS = "1 1 a 1\n1 2 b 1\n1 1 c 1\n2 1 x 1\n2 1 y 0\n3 1 z 1\n"
RUN = ("1 Q0 a 1 3 s\n1 Q0 y 2 2 s\n1 Q0 b 3 1 s\n2 Q0 y 1 2 s\n2 Q0 x 2 1 s\n"
       "3 Q0 q 1 1 s\n")
RUN_T = "1 Q0 b 1 3 t\n1 Q0 a 2 2 t\n2 Q0 x 1 2 t\n3 Q0 z 1 1 t\n"
MEASURES = ["alpha-nDCG@5", "P-IA@2"]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "s.txt").write_text(RUN)
    (tmp_path / "runs" / "t.txt").write_text(RUN_T)
    return tmp_path


def _stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def _evaluate(capsys, *argv) -> str:
    capsys.readouterr()
    assert main(["-q", "evaluate", *argv]) == 0
    return capsys.readouterr().out


# ------------------------------------------------------------------ --version

def test_version(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"xdiv {version('xdiv')}\n"


# ------------------------------------------------------------------ standard input, pipes

def test_dash_reads_a_run_or_the_qrels_from_standard_input(files, capsys, monkeypatch):
    qrels, run = str(files / "qrels.txt"), str(files / "runs" / "s.txt")
    expected = _evaluate(capsys, qrels, run, "-m", *MEASURES, "--per-topic")
    _stdin(monkeypatch, RUN.encode())
    assert _evaluate(capsys, qrels, "-", "-m", *MEASURES, "--per-topic") == expected
    _stdin(monkeypatch, gzip.compress(RUN.encode()))
    assert _evaluate(capsys, qrels, "-", "-m", *MEASURES, "--per-topic") == expected
    _stdin(monkeypatch, QRELS.encode())
    assert _evaluate(capsys, "-", run, "-m", *MEASURES, "--per-topic") == expected
    # '-' after -m is a file too
    _stdin(monkeypatch, RUN.encode())
    assert _evaluate(capsys, "-m", *MEASURES, qrels, "-", "--per-topic") == expected


def test_a_full_disk_while_spooling_standard_input_is_one_line(files, capsys, monkeypatch):
    # standard input is copied to a temporary file; a full disk says where and what to do
    def full(source, target, length=0):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(xdiv.io._spool.shutil, "copyfileobj", full)
    _stdin(monkeypatch, RUN.encode())
    capsys.readouterr()
    assert main(["evaluate", str(files / "qrels.txt"), "-", "-m", "P-IA@2"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("xdiv: error: <stdin>: cannot be copied to ")
    assert "No space left on device" in err and "TMPDIR" in err and "\n" not in err


def test_a_fifo_is_read_like_a_file(files, capsys):
    qrels = str(files / "qrels.txt")
    expected = _evaluate(capsys, qrels, str(files / "runs" / "s.txt"), "-m", *MEASURES)
    fifo = files / "run.fifo"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "w") as fh:
            fh.write(RUN)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        assert _evaluate(capsys, qrels, str(fifo), "-m", *MEASURES) == expected
    finally:
        writer.join(timeout=10)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_process_substitution_and_dev_stdin(files, tmp_path, capsys):
    """End to end through the shell: ``<(zcat run.gz)`` and ``/dev/stdin`` (a pipe); the
    temporary copies are removed afterwards."""
    qrels = files / "qrels.txt"
    expected = _evaluate(capsys, str(qrels), str(files / "runs" / "s.txt"), "-m", "P-IA@2")
    with gzip.open(files / "run.gz", "wt") as fh:
        fh.write(RUN)
    spool = tmp_path / "tmp"
    spool.mkdir()
    env = {**os.environ, "TMPDIR": str(spool)}
    command = (f"{sys.executable} -m xdiv.cli -q evaluate {qrels} <(zcat {files / 'run.gz'}) "
               f"-m P-IA@2; cat {files / 'runs' / 's.txt'} | {sys.executable} -m xdiv.cli -q "
               f"evaluate {qrels} /dev/stdin -m P-IA@2")
    proc = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected * 2
    assert list(spool.iterdir()) == []


def test_errors_and_warnings_name_the_input_never_the_copy(files, capsys, monkeypatch):
    qrels = str(files / "qrels.txt")
    _stdin(monkeypatch, b"1 Q0 a 1 3 s\n1 Q0 b two 2 s\n")
    assert main(["evaluate", qrels, "-", "-m", "P-IA@2"]) == 2
    err = capsys.readouterr().err
    assert err == "xdiv: error: <stdin>:2: rank 'two' is not a valid int\n"
    # a run without tag column is named after the input, and the warning names it
    _stdin(monkeypatch, b"1 Q0 a 1 3\n2 Q0 x 1 1\n3 Q0 z 1 1\n")
    assert main(["evaluate", qrels, "-", "-m", "P-IA@2"]) == 0
    captured = capsys.readouterr()
    assert "xdiv: warning: <stdin>: no run tag column; the run is named '<stdin>'" in \
        captured.err
    # P-IA@2: topic 1 (1/2 + 0) / 2, topics 2 and 3 1/2 each
    assert captured.out.splitlines()[-1].split() == ["<stdin>", f"{(0.25 + 1) / 3:.4f}"]
    # the score cube records the input's name
    out = files / "s.nc"
    _stdin(monkeypatch, RUN.encode())
    assert main(["-q", "evaluate", qrels, "-", "-m", "P-IA@2", "-o", str(out)]) == 0
    assert "<stdin>" in xdiv.open_dataset(out).attrs["runs"]
    # empty standard input
    capsys.readouterr()
    _stdin(monkeypatch, b"")
    assert main(["evaluate", qrels, "-", "-m", "P-IA@2"]) == 2
    assert capsys.readouterr().err == "xdiv: error: <stdin>: the file is empty\n"


def test_a_fifo_error_names_the_fifo(files, capsys):
    fifo = files / "bad.fifo"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "w") as fh:
            fh.write("1 Q0 a 1 3 s\n1 Q0 b 2\n")

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        assert main(["evaluate", str(files / "qrels.txt"), str(fifo), "-m", "P-IA@2"]) == 2
    finally:
        writer.join(timeout=10)
    assert capsys.readouterr().err.startswith(f"xdiv: error: {fifo}:2: expected 5 or 6 ")


def test_standard_input_is_copied_under_the_read_limits(files, capsys, monkeypatch):
    monkeypatch.setattr(xdiv.io.LIMITS, "max_line_bytes", 64)
    _stdin(monkeypatch, b"1 Q0 a 1 3 s\n" + b"x" * 200 + b"\n")
    assert main(["evaluate", str(files / "qrels.txt"), "-", "-m", "P-IA@2"]) == 2
    assert capsys.readouterr().err.startswith(
        "xdiv: error: <stdin>:2: a line longer than 64 bytes")


def test_standard_input_twice_is_an_error(files, capsys, monkeypatch):
    _stdin(monkeypatch, RUN.encode())
    assert main(["evaluate", "-", "-", "-m", "P-IA@2"]) == 2
    assert capsys.readouterr().err == (
        "xdiv: error: -: standard input is given more than once (it can be read once)\n")


# ------------------------------------------------------------------ glob patterns

def test_quoted_glob_patterns_are_expanded_sorted(files, capsys):
    qrels = str(files / "qrels.txt")
    runs = [str(files / "runs" / "s.txt"), str(files / "runs" / "t.txt")]
    expected = _evaluate(capsys, qrels, *runs, "-m", *MEASURES)
    pattern = str(files / "runs" / "*.txt")
    assert _evaluate(capsys, qrels, pattern, "-m", *MEASURES) == expected
    assert _evaluate(capsys, "-m", *MEASURES, qrels, pattern) == expected
    assert _evaluate(capsys, qrels, str(files / "runs" / "[ts].txt"), "-m",
                     *MEASURES) == expected
    missing = str(files / "runs" / "*.gz")
    assert main(["evaluate", qrels, missing, "-m", "P-IA@2"]) == 2
    assert capsys.readouterr().err == f"xdiv: error: {missing}: no file matches\n"


# ------------------------------------------------------------------ mean rows

def _printed_rows(text: str, fmt: str) -> pd.DataFrame:
    if fmt == "table":
        lines = text.splitlines()
        header = lines[0].split()
        rows, run = [], None
        for line in lines[2:]:
            fields = line.split()
            if len(fields) == len(header) + 2:
                run = fields.pop(0)
            rows.append([run, *fields])
        frame = pd.DataFrame(rows, columns=["run", "topic", *header])
    else:
        frame = pd.read_csv(io.StringIO(text), sep="\t" if fmt == "tsv" else ",",
                            dtype={"topic": str})
    return frame.set_index(["run", "topic"]).astype(float)


@pytest.mark.parametrize("fmt", ["table", "tsv", "csv"])
def test_per_topic_tables_end_each_run_with_its_mean(files, capsys, fmt):
    text = _evaluate(capsys, str(files / "qrels.txt"), str(files / "runs" / "s.txt"),
                     str(files / "runs" / "t.txt"), "-m", *MEASURES, "--per-topic",
                     "--format", fmt)
    frame = _printed_rows(text, fmt)
    for run in ("s", "t"):
        block = frame.loc[run]
        assert list(block.index) == ["1", "2", "3", "all"]
        precision = 1e-4 if fmt == "table" else 1e-6
        np.testing.assert_allclose(block.loc["all"].to_numpy(),
                                   block.drop("all").mean().to_numpy(), atol=precision)


def test_ndeval_and_trec_eval_layouts_have_their_mean_rows(files, capsys):
    args = [str(files / "qrels.txt"), str(files / "runs" / "s.txt"), "-m", "P-IA@2"]
    rows = [line.split(",") for line in
            _evaluate(capsys, *args, "--format", "ndeval").splitlines()[1:]]
    values = {topic: float(v) for _, topic, v in rows}
    assert list(values) == ["1", "2", "3", "amean"]
    assert values["amean"] == pytest.approx(np.mean([values[t] for t in "123"]), abs=1e-6)
    lines = [line.split("\t") for line in
             _evaluate(capsys, *args, "--format", "trec_eval").splitlines()[1:]]
    values = {topic: float(v) for _, topic, v in lines}
    assert list(values) == ["1", "2", "3", "all"]
    assert values["all"] == pytest.approx(np.mean([values[t] for t in "123"]), abs=1e-4)


# ------------------------------------------------------------------ measures --names

def test_measures_names_prints_one_name_a_line(capsys):
    assert main(["measures", "--names"]) == 0
    lines = capsys.readouterr().out.split("\n")
    assert lines[-1] == ""
    names = lines[:-1]
    assert names == list(xdiv.registry())
    assert all(name and " " not in name and "|" not in name for name in names)
    assert len(names) == len(set(names)) > 20


# ------------------------------------------------------------------ --doc-lengths

def test_doc_lengths_reach_the_u_measures(files, capsys):
    lengths = files / "lengths.txt"
    lengths.write_text("a 400\nb 2000\nc 100\nx 800\ny 50\n")  # z: the default length
    qrels, run = str(files / "qrels.txt"), str(files / "runs" / "s.txt")
    measures = ["U-IA@5", "D-U@5"]
    assert main(["-q", "evaluate", qrels, run, "-m", *measures, "--doc-lengths",
                 str(lengths), "--default-length", "300", "-o", str(files / "u.nc")]) == 0
    got = xdiv.open_dataset(files / "u.nc")["score"]
    collection = xdiv.read_qrels(qrels, doc_lengths=lengths, default_length=300)
    expected = xdiv.evaluate(xdiv.read_runs([run]), collection, measures)["score"]
    np.testing.assert_array_equal(got.values, expected.values)
    # the lengths matter: other lengths, other scores
    lengths.write_text("a 40\nb 200\nc 10\nx 80\ny 5\nz 30\n")
    assert main(["-q", "evaluate", qrels, run, "-m", *measures, "--doc-lengths",
                 str(lengths), "-o", str(files / "u2.nc")]) == 0
    assert not np.array_equal(xdiv.open_dataset(files / "u2.nc")["score"].values, got.values)


def test_doc_length_errors(files, capsys):
    qrels, run = str(files / "qrels.txt"), str(files / "runs" / "s.txt")
    lengths = files / "lengths.txt"
    lengths.write_text("a 400\n")
    assert main(["evaluate", qrels, run, "-m", "U@5", "--doc-lengths", str(lengths)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"xdiv: error: {lengths}: no length for relevant document ")
    assert main(["evaluate", qrels, run, "-m", "U@5", "--default-length", "3"]) == 2
    assert capsys.readouterr().err == "xdiv: error: --default-length needs --doc-lengths FILE\n"


# ------------------------------------------------------------------ meta progress

@pytest.fixture(scope="module")
def demo_scores(tmp_path_factory):
    path = tmp_path_factory.mktemp("demo") / "scores.nc"
    assert main(["-q", "demo", "--no-meta", "-o", str(path), "--topics", "10",
                 "--runs", "5"]) == 0
    return path


def test_meta_progress_bar_advances_per_metric_and_block(demo_scores, capsys, monkeypatch):
    import xdiv.meta

    steps = []

    class Recording(xdiv.meta.tqdm):
        def update(self, n=1):
            steps.append(n)
            return super().update(n)

    monkeypatch.setattr(xdiv.meta, "tqdm", Recording)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    capsys.readouterr()
    assert main(["meta", str(demo_scores), "--test", "bootstrap", "-B", "1000"]) == 0
    err = capsys.readouterr().err
    n_metrics = xdiv.open_dataset(demo_scores).sizes["metric"]
    blocks = xdiv.kernels.meta.n_blocks(1000)
    assert blocks > 1 and len(steps) > 1
    assert sum(steps) == n_metrics * blocks
    total = n_metrics * blocks
    assert "bootstrap: 100%" in err and f"{total}/{total}" in err
    # -q: no bar
    assert main(["meta", str(demo_scores), "--test", "bootstrap", "-B", "1000", "-q"]) == 0
    assert "bootstrap:" not in capsys.readouterr().err


# ------------------------------------------------------------------ xdiv risk

def test_risk_command_prints_and_writes_trisk(demo_scores, tmp_path, capsys):
    cube = xdiv.open_dataset(demo_scores)
    baseline = str(cube["run"].values[0])
    out = tmp_path / "risk.nc"
    capsys.readouterr()
    assert main(["risk", str(demo_scores), "--baseline", baseline, "--risk-alpha", "2", "-m",
                 "alpha-nDCG@10", "ERR-IA@10", "--format", "tsv", "-o", str(out)]) == 0
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t")
    assert list(printed.columns) == ["metric", "run", "URisk", "TRisk", "p-value", "topics"]
    expected = xdiv.risk.trisk(cube["score"].sel(metric=["alpha-nDCG@10", "ERR-IA@10"]),
                               baseline, alpha=2)
    frame = printed.set_index(["metric", "run"])
    for metric in ("alpha-nDCG@10", "ERR-IA@10"):
        for run in cube["run"].values:
            row = frame.loc[(metric, run)]
            cell = expected.sel(metric=metric, run=run)
            for column, name in (("URisk", "urisk"), ("TRisk", "statistic"),
                                 ("p-value", "pvalue")):
                if np.isnan(cell[name]):
                    assert np.isnan(row[column])
                else:
                    assert row[column] == pytest.approx(float(cell[name]), abs=1e-6)
    written = xdiv.open_dataset(out)
    np.testing.assert_allclose(written["statistic"].values, expected["statistic"].values)
    assert written.attrs["baseline"] == baseline and written.attrs["alpha"] == 2


def test_risk_command_georisk_and_urisk(demo_scores, capsys):
    cube = xdiv.open_dataset(demo_scores)
    capsys.readouterr()
    assert main(["risk", str(demo_scores), "--test", "georisk", "--format", "csv"]) == 0
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index(["metric", "run"])
    expected = xdiv.risk.georisk(cube, alpha=0.0)["georisk"].to_series()
    np.testing.assert_allclose(printed["GeoRisk"].loc[expected.index].to_numpy(),
                               expected.to_numpy(), atol=1e-6)
    baseline = str(cube["run"].values[1])
    assert main(["risk", str(demo_scores), "--test", "urisk", "--baseline", baseline]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"URisk against {baseline}, alpha = 0\n")


@pytest.mark.parametrize("argv, message", [
    (["--test", "trisk"], "--test trisk needs --baseline RUN"),
    (["--test", "georisk", "--baseline", "x"], "it takes no --baseline"),
    (["--baseline", "nope"], "run 'nope' is not in the score cube"),
])
def test_risk_command_errors(demo_scores, capsys, argv, message):
    assert main(["risk", str(demo_scores), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("xdiv: error: ") and message in err and err.count("\n") == 1


def test_official_commands_and_convert_read_standard_input_and_globs(tmp_path, capsys,
                                                                      monkeypatch):
    import io as _stdio

    files = xdiv.datasets.write_synthetic(tmp_path, n_topics=4, n_runs=3, depth=10, seed=2)
    runs = files["runs"]
    assert main(["ndeval", files["qrels"], *runs]) == 0
    want = capsys.readouterr().out
    pattern = str(tmp_path / "runs" / "*.txt")
    assert main(["ndeval", files["qrels"], pattern]) == 0  # a quoted glob
    assert capsys.readouterr().out == want
    qrels_bytes = open(files["qrels"], "rb").read()
    monkeypatch.setattr(sys, "stdin", _stdio.TextIOWrapper(_stdio.BytesIO(qrels_bytes)))
    assert main(["ndeval", "-", *runs]) == 0
    assert capsys.readouterr().out == want
    assert main(["gdeval", "--adhoc", "max", files["qrels"], runs[0]]) == 0
    want = capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", _stdio.TextIOWrapper(_stdio.BytesIO(
        open(runs[0], "rb").read())))
    assert main(["gdeval", "--adhoc", "max", files["qrels"], "-"]) == 0
    assert capsys.readouterr().out == want
    monkeypatch.setattr(sys, "stdin", _stdio.TextIOWrapper(_stdio.BytesIO(qrels_bytes)))
    assert main(["convert", "-", "--adhoc", "max", "-o", str(tmp_path / "adhoc.txt")]) == 0
    assert main(["convert", files["qrels"], "--adhoc", "max", "-o",
                 str(tmp_path / "adhoc2.txt")]) == 0
    assert (tmp_path / "adhoc.txt").read_bytes() == (tmp_path / "adhoc2.txt").read_bytes()
