"""xdiv.read_prels: sampled judgments with inclusion probabilities, in the 4-field layout
(topic docno relevance probability) and the 5-field prels of the TREC Million Query track
and the TREC 2009 Web track (topic docno relevance method probability), and the one-line
errors naming the file and the line."""

from __future__ import annotations

import gzip
import warnings

import numpy as np
import pytest
import xarray as xr

import xdiv
import xdiv.io

from ..helpers import without_provenance

PRELS = """\
1 d3 2 0.25
1 d1 1 0.5
1 d2 0 1
2 x9 1 1
2 x1 -2 0.1
"""
"""Two topics; docnos out of order (the collection's slots are in docno order), a spam
level."""


def _read(tmp_path, text: str, name: str = "prels"):
    path = tmp_path / name
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        return xdiv.read_prels(path), path


def test_the_collection_is_read_qrels_of_the_same_judgments(tmp_path):
    collection, path = _read(tmp_path, PRELS)
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{t} 0 {d} {lv}\n" for t, d, lv, _ in
                             (line.split() for line in PRELS.splitlines())))
    expected = xdiv.read_qrels(qrels)
    xr.testing.assert_identical(
        without_provenance(collection.drop_vars("inclusion")),
        without_provenance(expected.assign_attrs(source=str(path), inclusion=str(path))))


def test_inclusion_is_aligned_with_the_document_slots(tmp_path):
    collection, path = _read(tmp_path, PRELS)
    inclusion = collection["inclusion"]
    assert inclusion.dims == ("topic", "doc") and inclusion.dtype == np.float64
    assert collection["docno"].values.tolist() == [["d1", "d2", "d3"], ["x1", "x9", ""]]
    np.testing.assert_array_equal(inclusion.values, [[0.5, 1.0, 0.25], [0.1, 1.0, np.nan]])
    assert collection.attrs["inclusion"] == str(path)


def test_the_judged_cube_carries_the_inclusion_probabilities(tmp_path):
    import pandas as pd

    collection, _ = _read(tmp_path, PRELS)
    runs = xdiv.build_runs(pd.DataFrame({"run": "r", "topic": ["1", "1", "1", "3"],
                                         "docno": ["d3", "u", "d1", "z"],
                                         "score": [3.0, 2.0, 1.0, 1.0]}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        cube = xdiv.judge(runs, collection)
    assert cube["inclusion"].dims == ("topic", "doc")
    # topic 3 is not in the prels: no inclusion probability
    np.testing.assert_array_equal(cube["inclusion"].sel(topic="3").values, [np.nan] * 3)
    assert cube["slot"].sel(run="r", topic="1").values.tolist()[:3] == [2, -1, 0]


def test_the_million_query_layout_is_read_as_statap_mq_eval_reads_it(tmp_path):
    # method 0 (MTC) and 2 (both) get probability 1; relevance -999 and probability NA
    # are documents that were not sampled, skipped
    text = ("10 a 1 1 0.5\n"
            "10 b 0 0 0.2\n"
            "10 c 2 2 0.3\n"
            "10 d 1 1 NA\n"
            "10 e -999 1 0.5\n"
            "10 f 0 4 0.125\n")
    collection, _ = _read(tmp_path, text)
    assert collection["docno"].values.tolist() == [["a", "b", "c", "f"]]
    np.testing.assert_array_equal(collection["inclusion"].values, [[0.5, 1.0, 1.0, 0.125]])
    assert collection["level"].values[:, 0].tolist() == [[1, 0, 2, 0]]


def test_gzip_and_blank_lines(tmp_path):
    path = tmp_path / "prels.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("\n1 d1 1 0.5\n\n1 d2 0 1\n")
    collection = xdiv.read_prels(path)
    np.testing.assert_array_equal(collection["inclusion"].values, [[0.5, 1.0]])


def test_read_prels_is_public_and_lazy():
    assert xdiv.read_prels is xdiv.io.read_prels
    assert "read_prels" in xdiv.__all__ and "read_prels" in dir(xdiv)
    assert "read_prels" in xdiv.io.__all__ and "read_prels" in dir(xdiv.io)
    from xdiv.io.prels import read_prels

    assert read_prels is xdiv.read_prels


@pytest.mark.parametrize("text, line, message", [
    ("1 d1 1\n", 1, ("expected 4 or 5 whitespace-separated fields (topic docno relevance "
                     "probability, or topic docno relevance method probability), found 3")),
    ("1 d1 1 0.5\n1 d2 0 1 0.5\n", 2, ("expected 4 whitespace-separated fields (topic docno "
                                       "relevance probability), as the first data line has, "
                                       "found 5")),
    ("1 d1 1 0.5\n1 d2 0 0\n", 2, "inclusion probability 0 is outside (0, 1]"),
    ("1 d1 1 1.5\n", 1, "inclusion probability 1.5 is outside (0, 1]"),
    ("1 d1 1 -0.5\n", 1, "inclusion probability -0.5 is outside (0, 1]"),
    ("1 d1 1 1e999\n", 1, "inclusion probability 1e999 is outside (0, 1]"),
    ("1 d1 1 half\n", 1, "inclusion probability 'half' is not a number"),
    # third audit, item 3: weights 1/probability too large to estimate from (1e-19 crashed
    # infNDCG, 1e-310 made statAP NaN)
    ("1 d1 1 0.5\n1 d2 1 1e-19\n", 2, "inclusion probability 1e-19 is below 2^-53"),
    ("1 d1 1 1e-310\n", 1, "inclusion probability 1e-310 is below 2^-53"),
    ("1 d1 1 0.5\n1 d2 0 1e-300\n", 2, "inclusion probability 1e-300 is below 2^-53"),
    ("1 d1 1 1 1e-17\n", 1, "inclusion probability 1e-17 is below 2^-53"),
    ("1 d1 1 nan\n", 1, "inclusion probability 'nan' is not a number"),
    ("1 d1 1 NA\n", 1, "inclusion probability 'NA' is not a number"),
    ("1 d1 one 0.5\n", 1, "relevance 'one' is not a decimal integer"),
    ("1 d1 200 0.5\n", 1, "relevance 200 is outside -127..127"),
    ("1 d1 1 x 0.5\n", 1, "method 'x' is not a decimal integer"),
    ("1 d1 1 1 2\n", 1, "inclusion probability 2 is outside (0, 1]"),
    ("1 d1 1 0.5\n2 d1 1 0.5\n1 d1 0 0.5\n", 3,
     "topic 1 docno d1 is judged more than once (also at line 1)"),
    ("1 d\x1b1 1 0.5\n", 1, "docno 'd\\x1b1' holds the control character U+001B"),
])
def test_bad_lines_are_one_line_errors_naming_the_file_and_line(tmp_path, text, line, message):
    path = tmp_path / "prels"
    path.write_text(text)
    with pytest.raises(xdiv.InputError) as error:
        xdiv.read_prels(path)
    text = str(error.value)
    assert text.startswith(f"{path}:{line}: ") and message in text
    assert "\n" not in text


def test_the_smallest_probability_read_is_two_to_the_minus_53(tmp_path):
    # third audit, item 3: 2^-53 itself is read (and estimated from), just below is not
    smallest = 2.0 ** -53
    collection, path = _read(tmp_path, f"1 d1 1 {smallest!r}\n1 d2 0 0.5\n")
    assert collection["inclusion"].values.tolist() == [[smallest, 0.5]]
    path.write_text(f"1 d1 1 {float(np.nextafter(smallest, 0))!r}\n")
    with pytest.raises(xdiv.InputError, match=rf"^{path}:1: inclusion probability .* below"):
        xdiv.read_prels(path)


@pytest.mark.parametrize("text", ["", "\n\n", "1 d1 -999 1 0.5\n1 d2 1 1 NA\n"])
def test_a_file_without_sampled_judgments_is_an_error(tmp_path, text):
    path = tmp_path / "prels"
    path.write_text(text)
    with pytest.raises(xdiv.InputError, match="no sampled judgment"):
        xdiv.read_prels(path)


def test_a_missing_file_is_an_error(tmp_path):
    with pytest.raises(xdiv.InputError, match="no such file"):
        xdiv.read_prels(tmp_path / "absent")


def test_command_line_reads_prels(tmp_path, capsys):
    from xdiv.cli import main

    prels = tmp_path / "prels"
    prels.write_text("1 a 1 1.0\n1 b 0 0.5\n1 c 1 0.25\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 3 r\n1 Q0 x 2 2 r\n1 Q0 c 3 1 r\n")
    assert main(["evaluate", str(prels), str(run), "-m", "statAP", "AP", "--prels",
                 "--format", "tsv"]) == 0
    header, row = capsys.readouterr().out.splitlines()
    expected = xdiv.evaluate(xdiv.read_runs(str(run)), xdiv.read_prels(prels),
                             ["statAP", "AP"])["score"].squeeze().values
    assert header.split("\t") == ["run", "statAP", "AP"]
    assert [float(x) for x in row.split("\t")[1:]] == pytest.approx(expected, abs=1e-6)
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n")
    assert main(["evaluate", str(qrels), str(run), "-m", "statAP"]) == 2
    assert capsys.readouterr().err == (
        "xdiv: error: statAP needs sampled judgments with inclusion probabilities: read them "
        "with xdiv.read_prels (xdiv evaluate --prels)\n")
