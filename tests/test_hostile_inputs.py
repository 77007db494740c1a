"""Inputs that used to be read silently wrong: each is now a one-line error naming the
file and line, or reads exactly as its clean form."""

from __future__ import annotations

import gzip

import pytest

import xdiv
from xdiv.hierarchy import read_hierarchy


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
