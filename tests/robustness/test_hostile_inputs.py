"""Inputs that used to be read silently wrong: each is now a one-line error naming the
file and line, or reads exactly as its clean form."""

from __future__ import annotations

import gzip
import re

import pytest

import xdiv
from xdiv.io.hierarchy import read_hierarchy


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_qrels_line_with_a_fifth_field_is_an_error(tmp_path, gz):
    """pandas used to take the first field as the index, shifting every column."""
    text = b"1 0 docA 1 0\n1 0 docB 0 0\n"
    path = tmp_path / ("q.gz" if gz else "q")
    path.write_bytes(gzip.compress(text) if gz else text)
    with pytest.raises(xdiv.ParseError, match=rf"{path.name}:1: expected 4 whitespace-"
                                              r"separated fields .* found 5"):
        xdiv.read_qrels(path)


def test_extra_field_on_a_later_line_names_that_line(tmp_path):
    path = tmp_path / "q"
    path.write_text("1 0 docA 1\n1 0 docB 0\n1 0 docC 1 9\n")
    with pytest.raises(xdiv.ParseError, match=r"q:3: expected 4 .* found 5"):
        xdiv.read_qrels(path)


def test_probability_line_with_a_fourth_field_is_an_error(tmp_path):
    path = tmp_path / "p"
    path.write_text("1 1 0.5 7\n1 1 0.5 7\n")
    with pytest.raises(xdiv.ParseError, match=r"p:1: expected 3 whitespace-separated fields"):
        xdiv.read_probabilities(path)


def test_run_line_with_a_seventh_field_is_an_error(tmp_path):
    path = tmp_path / "r"
    path.write_text("1 Q0 a 1 2.0 tag\n1 Q0 b 2 1.0 tag extra\n")
    with pytest.raises(xdiv.ParseError, match=r"r:2: expected 5 or 6 .* found 7"):
        xdiv.read_run(path)


def test_byte_order_marks_are_skipped_by_every_text_reader(tmp_path):
    bom = "\ufeff"
    (tmp_path / "h").write_text(bom + "# a comment\n1 a 0\n1 b a\n", encoding="utf-8")
    (tmp_path / "h0").write_text("# a comment\n1 a 0\n1 b a\n", encoding="utf-8")
    assert read_hierarchy(tmp_path / "h").equals(read_hierarchy(tmp_path / "h0"))
    assert read_hierarchy(tmp_path / "h")["topic"].tolist() == ["1", "1"]
    (tmp_path / "q").write_text(bom + "1 0 a 1\n1 0 b 0\n", encoding="utf-8")
    assert xdiv.read_qrels(tmp_path / "q")["topic"].values.tolist() == ["1"]
    (tmp_path / "t.xml").write_text(bom + '<webtrack><topic number="1"><query>q</query>'
                                    '<subtopic number="1" type="nav">s</subtopic></topic>'
                                    '</webtrack>', encoding="utf-8")
    assert xdiv.read_topics(tmp_path / "t.xml")["intent_type"].tolist() == ["nav"]


def test_corrupt_netcdf_is_a_one_line_error(tmp_path):
    import numpy as np
    import xarray as xr

    good = xdiv.to_netcdf(xr.Dataset({"a": ("x", np.arange(1000.0))}), tmp_path / "ok.nc")
    data = open(good, "rb").read()
    (tmp_path / "cut.nc").write_bytes(data[: len(data) // 2])
    with pytest.raises(xdiv.InputError, match=r"cut.nc: not a readable NetCDF file"):
        xdiv.open_dataset(tmp_path / "cut.nc")


def test_netcdf_of_an_empty_dimension_is_refused(tmp_path):
    import numpy as np
    import xarray as xr

    cube = xr.Dataset({"score": (("metric", "run"), np.zeros((0, 2)))})
    with pytest.raises(xdiv.InputError, match=r"dimension 'metric' is empty"):
        xdiv.to_netcdf(cube, tmp_path / "e.nc")
    assert not list(tmp_path.iterdir())


def test_probabilities_of_other_topics_are_ignored_with_a_warning(tmp_path):
    (tmp_path / "q").write_text("1 1 a 1\n1 2 b 1\n")
    (tmp_path / "p").write_text("1 1 0.75\n1 2 0.25\n7 1 1.0\n")
    with pytest.warns(xdiv.XdivWarning, match=r"p: 1 topic\(s\) are not in the collection "
                                              r"and are ignored: 7"):
        col = xdiv.read_qrels(tmp_path / "q", probabilities=tmp_path / "p")
    assert col["intent_prob"].sel(topic="1").values.tolist() == [0.75, 0.25]


def test_a_run_without_any_judged_document_is_named(tmp_path):
    import pandas as pd

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    col = xdiv.read_qrels(tmp_path / "q")
    runs = xdiv.build_runs(pd.DataFrame({"run": ["good", "good", "stray"], "topic": "1",
                                         "docno": ["a", "z", "clueweb12-x"],
                                         "score": [2.0, 1.0, 1.0]}))
    with pytest.warns(xdiv.XdivWarning, match=r"1 run\(s\) retrieved no judged document.*: "
                                              r"stray$"):
        xdiv.evaluate(runs, col, ["P@5"])


# ------------------------------------------------------------------ size limits
# The limits are scaled down here so that each hostile file is small.

@pytest.fixture
def small_limits(monkeypatch):
    from xdiv.io import LIMITS

    monkeypatch.setattr(LIMITS, "max_line_bytes", 4096)
    monkeypatch.setattr(LIMITS, "gzip_ratio_floor", 1 << 16)
    monkeypatch.setattr(LIMITS, "max_xml_bytes", 1 << 16)
    return LIMITS


def _readers():
    import xdiv.hierarchy
    import xdiv.imine

    return {"qrels": xdiv.read_qrels, "run": xdiv.read_run,
            "probabilities": xdiv.read_probabilities,
            "hierarchy": xdiv.hierarchy.read_hierarchy, "topics": xdiv.read_topics,
            "imine": xdiv.imine.read_imine_hierarchy}


@pytest.mark.parametrize("reader", list(_readers()))
@pytest.mark.parametrize("kind", ["newline-bomb", "nul-bomb", "nul-plain", "long-line"])
def test_hostile_inputs_fail_fast_with_bounded_memory(reader, kind, small_limits, tmp_path):
    import resource
    import time

    xml = reader in ("topics", "imine")
    if kind == "newline-bomb":
        path, data = tmp_path / "bomb.gz", gzip.compress(b"\n" * (8 << 20), 9)
    elif kind == "nul-bomb":
        path, data = tmp_path / "nul.gz", gzip.compress(b"\0" * (8 << 20), 9)
    elif kind == "nul-plain":
        path, data = tmp_path / "nul", b"\0" * (1 << 20)
    else:
        path, data = tmp_path / "long", b"1 0 " + b"d" * (1 << 20) + b" 1\n"
    path.write_bytes(data)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    with pytest.raises(xdiv.XdivError) as caught:
        _readers()[reader](path)
    assert time.perf_counter() - start < 5
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 500 * 1024  # KiB
    message = str(caught.value)
    assert message.startswith(str(path)) and "\n" not in message
    if kind == "newline-bomb":
        assert "bytes of blank lines" in message
    elif xml:
        assert "XDIV_MAX_XML_BYTES" in message or "not well-formed" in message \
            or "not a UTF-8" in message
    else:
        assert re.search(r":1: a line longer than 4096 bytes", message) or \
            "not a UTF-8" in message


def test_gzip_ratio_limit(small_limits, tmp_path):
    path = tmp_path / "q.gz"
    path.write_bytes(gzip.compress(b"1 0 doc 1\n" * 200_000, 9))
    with pytest.raises(xdiv.InputError, match=r"decompresses to more than 100 times its size"):
        xdiv.read_qrels(path)
    small_limits.max_gzip_ratio = 1e6
    assert xdiv.io.read_qrels_frame(path).shape == (200_000, 4)


def test_limits_from_the_environment(monkeypatch):
    from xdiv.io import ReadLimits

    monkeypatch.setenv("XDIV_MAX_XML_BYTES", "123")
    monkeypatch.setenv("XDIV_MAX_GZIP_RATIO", "7.5")
    limits = ReadLimits.from_environment()
    assert (limits.max_xml_bytes, limits.max_gzip_ratio) == (123, 7.5)
    monkeypatch.setenv("XDIV_MAX_LINE_BYTES", "lots")
    with pytest.raises(xdiv.InputError, match="XDIV_MAX_LINE_BYTES='lots' is not a whole number"):
        ReadLimits.from_environment()


def test_real_files_pass_the_default_limits():
    from ..conftest import TREC_WEB

    for year in (2009, 2012):
        path = TREC_WEB / str(year) / "qrels.diversity.gz"
        if not path.exists():
            pytest.skip("../shared/reference/trec-web is not available")
        assert len(xdiv.io.read_qrels_frame(path)) > 1000


def test_oversized_topic_xml_is_refused_up_front(tmp_path):
    """One huge text token made the XML parser take quadratic time (64 MiB: 48 s)."""
    import time

    from xdiv.io import LIMITS

    path = tmp_path / "topics.xml"
    path.write_text('<webtrack><topic number="1"><query>'
                    + "a" * (LIMITS.max_xml_bytes + 1) + "</query></topic></webtrack>")
    start = time.perf_counter()
    with pytest.raises(xdiv.InputError, match=r"topics.xml: \d+ bytes, larger than the "
                                              r"8388608 bytes allowed for an XML file"):
        xdiv.read_topics(path)
    assert time.perf_counter() - start < 1
    gz = tmp_path / "topics.xml.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    with pytest.raises(xdiv.InputError, match=r"larger than 8388608 bytes"):
        xdiv.read_topics(gz)


def test_out_of_memory_is_a_one_line_error(tmp_path, capsys, monkeypatch):
    import xdiv.cli.demo

    def exhausted(args):
        raise MemoryError

    monkeypatch.setattr(xdiv.cli.demo, "run", exhausted)
    assert xdiv.cli.main(["demo", "-o", str(tmp_path / "d.nc")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("xdiv: error: out of memory;")
