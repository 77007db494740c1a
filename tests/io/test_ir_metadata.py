"""ir_metadata (issue 37, item 3): a run file's leading PRIMAD block is read verbatim
into the runs, kept by every score cube made from them and by NetCDF, written back byte
for byte by ``xdiv convert --run``; misplaced or unclosed blocks are one-line errors; what
PyYAML reads of it agrees with repro_eval's reader."""

from __future__ import annotations

import gzip
import random
import sys

import pytest

import xdiv
from xdiv.cli import main
from xdiv.engine import evaluate_files
from xdiv.errors import InputError, ParseError, XdivError
from xdiv.io.ir_metadata import run_metadata

BLOCK = ("# ir_metadata.start\n"
         "# tag: runA\n"
         "# actor:\n"
         "#   team: a team\n"
         "# research goal:\n"
         "#   description: diversified re-ranking\n"
         "# platform:\n"
         "#   hardware:\n"
         "#     cpu: 'Intel Xeon Gold 6144 CPU @ 3.50GHz'\n"
         "# data:\n"
         "#   test collection:\n"
         "#     name: trec-web-2009\n"
         "# ir_metadata.end\n")
LINES_A = "1 Q0 d1 1 2.0 runA\n1 Q0 d2 2 1.0 runA\n2 Q0 d4 1 0.5 runA\n"
LINES_B = "1 Q0 d3 1 3.0 runB\n1 Q0 d1 2 2.0 runB\n2 Q0 d2 1 0.5 runB\n"
QRELS = "1 1 d1 1\n1 2 d2 1\n1 1 d3 0\n2 1 d4 1\n2 2 d2 1\n"


def _write(path, text: str):
    path.write_bytes(text.encode())
    return path


@pytest.fixture
def folder(tmp_path):
    _write(tmp_path / "a.run", BLOCK + LINES_A)
    _write(tmp_path / "b.run", LINES_B)
    _write(tmp_path / "qrels.txt", QRELS)
    return tmp_path


def test_the_block_is_kept_verbatim_and_the_lines_read_as_without_it(folder):
    runs = xdiv.read_runs(str(folder / "*.run"))
    assert run_metadata(runs, "runA") == BLOCK
    assert run_metadata(runs, "runB") == ""
    _write(folder / "plain.run", LINES_A)
    plain = xdiv.read_runs(folder / "plain.run")
    assert xdiv.runs_frame(runs.sel(run=["runA"])).equals(xdiv.runs_frame(plain))


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("sep", [" ", "\t", "  "])
def test_line_breaks_and_separators_of_every_reader_path(tmp_path, newline, sep):
    block = BLOCK.replace("\n", newline)
    lines = LINES_A.replace(" ", sep).replace("\n", newline)
    path = _write(tmp_path / "a.run", block + lines)
    runs = xdiv.read_runs(path)
    assert run_metadata(runs, "runA") == block
    assert xdiv.runs_frame(runs).equals(xdiv.runs_frame(
        xdiv.read_runs(_write(tmp_path / "plain.run", lines))))


def test_gzip_and_the_lazy_reader(folder):
    (folder / "a.run.gz").write_bytes(gzip.compress((BLOCK + LINES_A).encode()))
    (folder / "a.run").unlink()
    lazy = xdiv.read_runs(str(folder / "*.run*"), chunks={"run": 1})
    assert run_metadata(lazy, "runA") == BLOCK
    assert xdiv.runs_frame(lazy.compute()).equals(
        xdiv.runs_frame(xdiv.read_runs(str(folder / "*.run*"))))


def test_round_trip_read_evaluate_netcdf_read(folder, tmp_path):
    collection = xdiv.read_qrels(folder / "qrels.txt")
    runs = xdiv.read_runs(str(folder / "*.run"))
    scores = xdiv.evaluate(runs, collection, ["alpha-nDCG@5", "P@2"])
    assert run_metadata(scores, "runA") == BLOCK and run_metadata(scores, "runB") == ""
    streamed = evaluate_files(str(folder / "*.run"), collection, ["alpha-nDCG@5", "P@2"],
                              block=1)
    assert streamed.identical(scores)
    # a cube of some runs keeps only their blocks
    alone = xdiv.evaluate(runs.sel(run=["runB"]), collection, ["P@2"])
    assert "ir_metadata" not in alone.attrs
    path = tmp_path / "scores.nc"
    xdiv.to_netcdf(scores, path)
    back = xdiv.open_dataset(path)
    assert run_metadata(back, "runA") == BLOCK
    assert back.attrs["ir_metadata"] == scores.attrs["ir_metadata"]
    xdiv.to_netcdf(runs, tmp_path / "runs.nc")
    assert run_metadata(xdiv.open_dataset(tmp_path / "runs.nc"), "runA") == BLOCK


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_convert_writes_the_block_back_byte_for_byte(tmp_path, newline):
    original = (BLOCK + "1 Q0 d2 7 1.0 runA\n1 Q0 d1 3 2.50 runA\n").replace("\n", newline)
    source = _write(tmp_path / "a.run", original)
    out = tmp_path / "out.run"
    assert main(["-q", "convert", "--run", str(source), "-o", str(out)]) == 0
    written = out.read_bytes()
    block = BLOCK.replace("\n", newline).encode()
    assert written.startswith(block)
    assert written[len(block):] == b"1 Q0 d1 1 2.5 runA\n1 Q0 d2 2 1.0 runA\n"
    again = tmp_path / "again.run"
    assert main(["-q", "convert", "--run", str(out), "-o", str(again)]) == 0
    assert again.read_bytes() == written


def test_write_run_refuses_runs_with_different_blocks(folder, tmp_path):
    runs = xdiv.read_runs(str(folder / "*.run"))
    with pytest.raises(InputError, match="runA.*write each run to its own file"):
        xdiv.write_run(tmp_path / "both.run", runs)
    xdiv.write_run(tmp_path / "b.run", runs.sel(run=["runB"]))
    assert not (tmp_path / "b.run").read_text().startswith("#")


def test_write_run_refuses_text_that_is_no_block(folder, tmp_path):
    runs = xdiv.read_runs(folder / "a.run")
    runs.attrs["ir_metadata"] = '{"runA": "# ir_metadata.start\\nplain\\n# ir_metadata.end\\n"}'
    with pytest.raises(InputError, match="not an ir_metadata block"):
        xdiv.write_run(tmp_path / "x.run", runs)


MALFORMED = {
    "start without end": ("# ir_metadata.start\n# a: 1\n", 1, "without '# ir_metadata.end'"),
    "block closed by a run line": ("# ir_metadata.start\n# a: 1\n" + LINES_A, 3,
                                   "ends without '# ir_metadata.end'"),
    "end without start": ("# ir_metadata.end\n" + LINES_A, 1, "without '# ir_metadata.start'"),
    "end after the lines": (LINES_A + "# ir_metadata.end\n", 4, "outside an ir_metadata"),
    "block not at the top": (LINES_A + BLOCK, 4, "is not on the first line"),
    "blank line first": ("\n" + BLOCK + LINES_A, 2, "is not on the first line"),
    "second start": ("# ir_metadata.start\n# ir_metadata.start\n# ir_metadata.end\n" + LINES_A,
                     2, "a second '# ir_metadata.start'"),
    "second end": (BLOCK + "# ir_metadata.end\n" + LINES_A, 14, "outside an ir_metadata"),
    "comment after the block": (BLOCK + "# note\n" + LINES_A, 14, "expected 5 or 6"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_block_is_a_one_line_error_naming_file_and_line(tmp_path, case):
    text, line, words = MALFORMED[case]
    path = _write(tmp_path / "bad.run", text)
    with pytest.raises(ParseError) as caught:
        xdiv.read_runs(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:{line}: ") and words in message
    assert "\n" not in message


def test_the_command_line_says_it_in_one_line(tmp_path, capsys):
    _write(tmp_path / "qrels.txt", QRELS)
    path = _write(tmp_path / "bad.run", "# ir_metadata.start\n# a: 1\n")
    assert main(["evaluate", str(tmp_path / "qrels.txt"), str(path), "-m", "P@2"]) != 0
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"{path}:1:" in err


PARSED = {"tag": "runA", "actor": {"team": "a team"},
          "research goal": {"description": "diversified re-ranking"},
          "platform": {"hardware": {"cpu": "Intel Xeon Gold 6144 CPU @ 3.50GHz"}},
          "data": {"test collection": {"name": "trec-web-2009"}}}
"""BLOCK's document, written out by hand."""


@pytest.mark.parametrize("library", ["ruamel.yaml", "yaml"])
def test_either_yaml_library_reads_the_document(folder, monkeypatch, library):
    pytest.importorskip(library)
    if library == "yaml":  # PyYAML is used when ruamel.yaml is not installed
        monkeypatch.setitem(sys.modules, "ruamel.yaml", None)
    runs = xdiv.read_runs(folder / "a.run")
    assert run_metadata(runs, "runA", parse=True) == PARSED


def test_parsed_access_needs_a_yaml_library_and_says_so(folder, monkeypatch):
    runs = xdiv.read_runs(folder / "a.run")
    monkeypatch.setitem(sys.modules, "ruamel.yaml", None)
    monkeypatch.setitem(sys.modules, "yaml", None)
    with pytest.raises(InputError, match="needs ruamel.yaml .* or PyYAML"):
        run_metadata(runs, "runA", parse=True)
    assert run_metadata(runs, "runA") == BLOCK
    with pytest.raises(InputError, match="no run 'runZ'"):
        run_metadata(runs, "runZ")


@pytest.mark.parametrize("library", ["ruamel.yaml", "yaml"])
def test_invalid_yaml_is_a_one_line_error(tmp_path, monkeypatch, library):
    pytest.importorskip(library)
    if library == "yaml":
        monkeypatch.setitem(sys.modules, "ruamel.yaml", None)
    path = _write(tmp_path / "a.run", "# ir_metadata.start\n# a: [1\n# ir_metadata.end\n"
                  + LINES_A)
    runs = xdiv.read_runs(path)
    with pytest.raises(XdivError, match="not valid YAML") as caught:
        run_metadata(runs, "runA", parse=True)
    assert "\n" not in str(caught.value)


@pytest.mark.slow  # importing repro_eval takes seconds
def test_parsed_block_agrees_with_repro_eval(tmp_path):
    """repro_eval 0.5.0 writes the block (MetadataHandler.write_metadata) and reads it
    back (read_metadata); xdiv keeps what it wrote and reads the same document."""
    metadata = pytest.importorskip("repro_eval.metadata")
    plain = _write(tmp_path / "plain.run", LINES_A)
    document = {"tag": "runA", "actor": {"team": "a team", "role": "experimenter"},
                "research goal": {"description": "diversified re-ranking",
                                  "evaluation": {"measures": ["alpha-nDCG@20", "ERR-IA@20"]}},
                "platform": {"hardware": {"cpu": "Intel Xeon Gold 6144 CPU @ 3.50GHz",
                                          "ram": "64 GB"},
                             "software": {"libraries": {"python": ["xdiv", "numpy"]}}},
                "implementation": {"source": {"lang": "python", "commit": "0f3a2b"}},
                "method": {"automatic": True, "indexing": {"stemmer": "porter",
                                                           "stopwords": None},
                           "retrieval": [{"name": "bm25", "k1": 0.9, "b": 0.4}]},
                "data": {"test collection": {"name": "ClueWeb09", "qrels": "qrels.div"}}}
    handler = metadata.MetadataHandler(str(plain))
    handler.set_metadata(metadata_dict=document)
    annotated = tmp_path / "annotated.run"
    handler.write_metadata(run_path=str(annotated))
    expected = metadata.MetadataHandler.read_metadata(str(annotated))
    assert expected == document
    runs = xdiv.read_runs(annotated)
    assert run_metadata(runs, "runA", parse=True) == expected
    head = annotated.read_text()
    assert head.startswith(run_metadata(runs, "runA"))
    assert head[len(run_metadata(runs, "runA")):] == LINES_A
    rng = random.Random(2022)
    for k in range(20):  # random documents, written and read by repro_eval as above
        handler = metadata.MetadataHandler(str(plain))
        handler.set_metadata(metadata_dict=_document(rng, 3))
        annotated = tmp_path / f"random{k}.run"
        handler.write_metadata(run_path=str(annotated))
        expected = metadata.MetadataHandler.read_metadata(str(annotated))
        assert run_metadata(xdiv.read_runs(annotated), "runA", parse=True) == expected, k


WORDS = ["platform", "cpu", "research goal", "C#", "bm25", "é", "日本", "a: b", "- x", "'q'",
         "#", "x # y", "", "true", "0.5", "null"]


def _document(rng: random.Random, depth: int) -> dict:
    """A random YAML mapping: nested mappings and lists of text, numbers, booleans and
    None (text that looks like YAML syntax included)."""
    def value(level: int):
        kind = rng.randrange(6 if level else 4)
        if kind == 0:
            return rng.choice(WORDS) + rng.choice(["", " 2", "#"])
        if kind == 1:
            return rng.choice([0, 7, -3, 0.25, 1e-9])
        if kind == 2:
            return rng.choice([True, False, None])
        if kind == 3:
            return rng.choice(WORDS)
        if kind == 4:
            return [value(level - 1) for _ in range(rng.randint(1, 3))]
        return {rng.choice(WORDS[:6]) + str(j): value(level - 1) for j in range(rng.randint(1, 3))}

    return {rng.choice(["platform", "actor", "method", "data", "implementation"]) + str(j):
            value(depth) for j in range(rng.randint(1, 4))}


ADHOC_QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 1\n2 0 d4 1\n"


@pytest.mark.slow
@pytest.mark.parametrize("tool", ["trec_eval-10.0", "trec_eval-9.0.8", "ndeval", "gdeval"])
def test_drop_in_commands_read_annotated_runs_as_the_tools_do(tool, tmp_path, capsys, request):
    """The drop-in commands are unchanged by ir_metadata: on an annotated run each gives
    the official tool's standard output and exit status (trec_eval 10 skips comment
    lines, 9.0.8 and ndeval and gdeval.pl refuse the first one)."""
    import subprocess

    run = _write(tmp_path / "a.run", BLOCK + LINES_A)
    if tool.startswith("trec_eval"):
        version = tool.split("-")[1]
        program = [request.getfixturevalue("trec_eval_build")(version)]
        qrels = _write(tmp_path / "qrels.txt", ADHOC_QRELS)
        ours = ["trec_eval", *(["--version-9"] if version == "9.0.8" else [])]
    elif tool == "ndeval":
        program = [request.getfixturevalue("ndeval_program")]
        qrels, ours = _write(tmp_path / "qrels.txt", QRELS), ["ndeval"]
    else:
        program = ["perl", request.getfixturevalue("gdeval_pl")]
        qrels, ours = _write(tmp_path / "qrels.txt", ADHOC_QRELS), ["gdeval", "-k", "20"]
    depth = ["20"] if tool == "gdeval" else []  # ir_measures' gdeval.pl takes k last
    theirs = subprocess.run([str(a) for a in [*program, qrels, run, *depth]],
                            capture_output=True, text=True, timeout=60)
    capsys.readouterr()
    status = main([*ours, str(qrels), str(run)])
    out, err = capsys.readouterr()
    if tool != "gdeval":
        assert (status, out) == (theirs.returncode, theirs.stdout), err
    else:  # perl's die exits with errno, which depends on what perl did before
        assert (status != 0, out) == (theirs.returncode != 0, theirs.stdout), err
        assert "format error on line 1" in theirs.stderr and "line 1" in err
