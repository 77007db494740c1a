"""Readers, writers and their errors; NetCDF round trips; the real TREC 2009 data."""

from __future__ import annotations

import gzip
import re
import subprocess
import sys
import time
import warnings
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xdiv
from xdiv.errors import InputError, ParseError, XdivWarning

from ..conftest import require_trec_2009


def write(path, text, gz=False):
    """Write ``text`` (str, or bytes as they are) to ``path``, gzipped if ``gz``."""
    data = text if isinstance(text, bytes) else text.encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


QRELS = """1 1 a 1
1 1 b 0
1 2 b 2
1 2 c -2
2 0 x 3
2 0 y 0
"""
RUN = """1 Q0 a 1 3.0 sys
1 Q0 b 2 2.0 sys
1 Q0 z 3 2.0 sys
2 Q0 y 1 1.5 sys
"""


# ---------------------------------------------------------------- qrels

def test_read_qrels_model(tmp_path):
    col = xdiv.read_qrels(write(tmp_path / "q", QRELS))
    assert list(col.topic.values) == ["1", "2"]
    assert list(col.intent.values) == ["0", "1", "2"]
    lv = col.level.sel(topic="1")
    docs = list(col.docno.sel(topic="1").values)
    assert docs[:3] == ["a", "b", "c"]
    assert int(lv.sel(intent="2").isel(doc=2)) == 0  # -2 spam stored as non-relevant
    assert bool(col.judged.sel(topic="1").isel(doc=2))  # ... but remembered as judged
    assert int(col.judgment.sel(topic="1", intent="2").isel(doc=2)) == -2
    assert col.intent_valid.sel(topic="1").values.tolist() == [False, True, True]
    np.testing.assert_allclose(col.intent_prob.sel(topic="1").values, [0, 0.5, 0.5])
    assert col.level.dtype == np.int8


def test_gzip_qrels_equal_plain(tmp_path):
    a = xdiv.read_qrels(write(tmp_path / "q", QRELS))
    b = xdiv.read_qrels(write(tmp_path / "q.gz", QRELS, gz=True))
    xr.testing.assert_equal(a.drop_attrs(), b.drop_attrs())


def test_qrels_round_trip(tmp_path):
    qrels, _, _ = xdiv.datasets.synthetic_frames(n_topics=5, n_runs=2, depth=20, seed=3)
    xdiv.write_qrels(tmp_path / "q1", qrels)
    col = xdiv.read_qrels(tmp_path / "q1")
    xdiv.write_qrels(tmp_path / "q2.gz", col)
    col2 = xdiv.read_qrels(tmp_path / "q2.gz")
    xr.testing.assert_identical(col.drop_attrs(), col2.drop_attrs())
    a = pd.read_csv(tmp_path / "q1", sep=" ", header=None, dtype=str)
    b = pd.read_csv(tmp_path / "q2.gz", sep=" ", header=None, dtype=str)
    key = [0, 1, 2]
    pd.testing.assert_frame_equal(a.sort_values(key).reset_index(drop=True),
                                  b.sort_values(key).reset_index(drop=True))
    assert (b[3] == "-2").any()  # spam levels survive


def test_dropped_intents_reported(tmp_path):
    text = "1 1 a 1\n1 2 b 0\n1 3 c -2\n"
    col = xdiv.read_qrels(write(tmp_path / "q", text))
    rep = xdiv.core.collection.collection_report(col)
    assert rep["dropped_intents"] == {"1": ["2", "3"]}
    assert rep["topics_without_relevant"] == []


def test_topic_without_relevant_warns_and_scores_nan(tmp_path):
    with pytest.warns(XdivWarning, match="no relevant document"):
        col = xdiv.read_qrels(write(tmp_path / "q", "1 1 a 1\n2 1 b 0\n"))
    runs = xdiv.read_runs([write(tmp_path / "r", "1 Q0 a 1 1 s\n2 Q0 b 1 1 s\n")])
    res = xdiv.evaluate(runs, col, ["nDCG-IA@10"])
    assert np.isnan(float(res.score.sel(topic="2").squeeze()))
    assert float(res.score.sel(topic="1").squeeze()) == 1.0
    assert xdiv.summarize(res).n_topics.item() == 1


def test_topics_xml_types(tmp_path):
    xml = tmp_path / "t.xml"
    xml.write_text('<w><topic number="1" type="faceted"><query>q</query>'
                   '<subtopic number="1" type="nav">a</subtopic>'
                   '<subtopic number="2" type="inf">b</subtopic></topic></w>')
    col = xdiv.read_qrels(write(tmp_path / "q", QRELS), topics=xml)
    assert col.intent_type.sel(topic="1").values.tolist() == ["", "nav", "inf"]
    assert col.topic_type.sel(topic="1").item() == "faceted"
    assert col.intent_type.sel(topic="2", intent="0").item() == "inf"  # not in the XML


def test_probability_schemes(tmp_path):
    q = write(tmp_path / "q", "1 1 a 1\n1 2 b 1\n1 3 c 1\n")
    col = xdiv.read_qrels(q, probabilities="nonuniform")
    np.testing.assert_allclose(col.intent_prob.sel(topic="1").values, [8 / 14, 4 / 14, 2 / 14])
    pf = write(tmp_path / "p", "1 1 0.5\n1 2 0.25\n1 3 0.25\n")
    col = xdiv.read_qrels(q, probabilities=pf)
    np.testing.assert_allclose(col.intent_prob.sel(topic="1").values, [0.5, 0.25, 0.25])
    with pytest.raises(InputError, match="no probability for topic 1 intent 3"):
        xdiv.read_qrels(q, probabilities=write(tmp_path / "p2", "1 1 0.5\n1 2 0.5\n"))
    with pytest.raises(ParseError, match=r"p3:2: a probability is negative"):
        xdiv.read_qrels(q, probabilities=write(tmp_path / "p3", "1 1 0.5\n1 2 -1\n1 3 1\n"))


def test_probabilities_not_summing_to_one_warn(tmp_path):
    q = write(tmp_path / "q", "".join(f"{t} {i} d{t}{i} 1\n" for t in range(1, 13)
                                      for i in (1, 2)))
    text = "".join(f"{t} 1 0.5\n{t} 2 {0.5 if t == 1 else 0.25}\n" for t in range(1, 13))
    with pytest.warns(XdivWarning, match=r"p: the given probabilities of 11 topic\(s\) do not "
                                         r"sum to 1 and are renormalised: 2 \(0\.75\), 3 "
                                         r"\(0\.75\), .*, 11 \(0\.75\) \.\.\.$"):
        col = xdiv.read_qrels(q, probabilities=write(tmp_path / "p", text))
    np.testing.assert_allclose(col.intent_prob.sel(topic="2").values, [2 / 3, 1 / 3])
    frame = pd.DataFrame({"topic": "1", "intent": ["1", "2"], "probability": [3.0, 1.0]})
    with pytest.warns(XdivWarning, match=r"<DataFrame>: .* of 1 topic\(s\) .*: 1 \(4\)$"):
        xdiv.read_qrels(write(tmp_path / "q1", "1 1 a 1\n1 2 b 1\n"), probabilities=frame)
    with warnings.catch_warnings():
        warnings.simplefilter("error", XdivWarning)  # a sum within 1e-6 of 1 is fine
        xdiv.read_qrels(q, probabilities=write(tmp_path / "ok", text.replace(
            "0.25", "0.5").replace("1 2 0.5", "1 2 0.5000001")))


@pytest.mark.parametrize("n", range(1, 9))
def test_nonuniform_formula(n):
    order = np.arange(n)[None, :]
    got = xdiv.core.collection.nonuniform_probabilities(order)[0]
    want = [2 ** (n - j + 1) / sum(2 ** k for k in range(1, n + 1)) for j in range(1, n + 1)]
    np.testing.assert_allclose(got, want, rtol=1e-15)
    assert got.sum() == pytest.approx(1.0)


# ---------------------------------------------------------------- runs

def test_read_run_order_and_ties(tmp_path):
    text = "1 Q0 a 1 2.0 s\n1 Q0 b 2 2.0 s\n1 Q0 c 3 3.0 s\n1 Q0 d 4 1.0 s\n"
    p = write(tmp_path / "r", text)
    desc = xdiv.read_run(p)
    assert xdiv.decode_docnos(desc).sel(run="s", topic="1").values.tolist() == \
        ["c", "b", "a", "d"]
    asc = xdiv.read_run(p, order="score-docno-asc")
    assert xdiv.decode_docnos(asc).sel(run="s", topic="1").values.tolist() == \
        ["c", "a", "b", "d"]
    byrank = xdiv.read_run(p, order="rank")
    assert xdiv.decode_docnos(byrank).sel(run="s", topic="1").values.tolist() == \
        ["a", "b", "c", "d"]


def test_runs_round_trip(tmp_path):
    _, _, frame = xdiv.datasets.synthetic_frames(n_topics=4, n_runs=3, depth=15, seed=1)
    runs = xdiv.build_runs(frame)
    paths = []  # one file per run (a TREC file holds one run)
    for name in runs.run.values:
        xdiv.write_run(tmp_path / f"{name}.txt", runs.sel(run=[name]))
        paths.append(tmp_path / f"{name}.txt")
    back = xdiv.read_runs(paths)
    xr.testing.assert_identical(runs.drop_attrs(), back.drop_attrs())


def test_run_name_from_file_when_tag_missing_or_mixed(tmp_path):
    p = write(tmp_path / "myrun.txt", "1 Q0 a 1 2.0\n1 Q0 b 2 1.0\n")
    with pytest.warns(XdivWarning, match="no run tag"):
        runs = xdiv.read_run(p)
    assert runs.run.values.tolist() == ["myrun"]
    p = write(tmp_path / "mixed.gz", "1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 y\n", gz=True)
    with pytest.warns(XdivWarning, match="2 different run tags"):
        runs = xdiv.read_run(p)
    assert runs.run.values.tolist() == ["mixed"]


def test_same_run_name_twice_is_an_error(tmp_path):
    a = write(tmp_path / "a", RUN)
    b = write(tmp_path / "b", RUN)
    with pytest.raises(InputError, match="also the name of"):
        xdiv.read_runs([a, b])


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("text, line, message", [
    ("1 Q0 a 1 2.0 s\n1 Q0 b 2 2.0 s extra\n", 2, "expected 5 or 6"),
    ("1 Q0 a 1 2.0 s\n1 Q0 b 2 high s\n", 2, "score 'high' is not a valid float"),
    ("1 Q0 a 1 2.0 s\n\n1 Q0 b two 1.0 s\n", 3, "rank 'two' is not a valid int"),
    ("1 Q0 a 1 nan s\n", 1, "score 'nan' is not a finite number"),
    ("1 Q0 a 1 2.0 s\n1 Q0 b 2 -inf s\n", 2, "is not a finite number"),
    ("1 Q0 a 1 2.0 s\n1 Q0 b 2 1.0\n", 2, "found 5 fields where earlier lines have 6"),
    ("1 Q0 a 1 2.0 s\n1 Q0 b 99999999999999999999 1.0 s\n", 2,
     "rank '99999999999999999999' is out of range"),
    ("1 Q0 a 1 2.0 s\n1 Q0 b 2 1_0.5 s\n", 2, "score '1_0.5' is not a valid float"),
])
def test_bad_run_lines(tmp_path, text, line, message):
    p = write(tmp_path / "bad.run", text)
    with pytest.raises(ParseError, match=message) as info:
        xdiv.read_run(p)
    assert info.value.line == line
    assert f"bad.run:{line}:" in str(info.value)


@pytest.mark.parametrize("text, line, message", [
    ("1 1 a 1\n1 1 b\n", 2, "expected 4"),
    ("1 1 a 1\n1 1 b x\n", 2, "level 'x' is not a valid int"),
    ("1 1 a 1\n1 1 b 1.5\n", 2, "level '1.5' is not a valid int"),
    ("1 1 a 1\n1 1 b 99999999999999999999\n", 2, "level '99999999999999999999' is out of range"),
    ("1 1 a 1\n1 1 b -9223372036854775809\n", 2, "level '-9223372036854775809' is out of "),
    ("1 1 a 1\n1 1 b 1_0\n", 2, "level '1_0' is not a valid int"),
])
def test_bad_qrels_lines(tmp_path, text, line, message):
    p = write(tmp_path / "bad.qrels", text, gz=True)
    with pytest.raises(ParseError, match=message) as info:
        xdiv.read_qrels(p)
    assert info.value.line == line


def test_empty_files(tmp_path):
    with pytest.raises(InputError, match="empty"):
        xdiv.read_qrels(write(tmp_path / "q", ""))
    with pytest.raises(InputError, match="no data lines"):
        xdiv.read_run(write(tmp_path / "r", "\n\n"))
    with pytest.raises(InputError, match="no such file"):
        xdiv.read_run(tmp_path / "absent")


TEXT_READERS = {
    "qrels": (xdiv.read_qrels, "1 1 a 1\n1 1 b{} 1\n"),
    "run": (xdiv.read_run, "1 Q0 a 1 2.0 s\n1 Q0 b{} 2 1.0 s\n"),
    "topics": (xdiv.read_topics, '<w><topic number="1">\n<query>q{}</query></topic></w>\n'),
    "probabilities": (xdiv.read_probabilities, "1 1 0.5\n1 2{} 0.5\n"),
}


@pytest.mark.parametrize("reader", TEXT_READERS)
@pytest.mark.parametrize("gz", [False, True])
def test_non_utf8_input_names_the_byte(tmp_path, reader, gz):
    read, text = TEXT_READERS[reader]
    latin = write(tmp_path / "latin", text.format("\xe9").encode("latin-1"), gz=gz)
    at = text.index("{}")
    with pytest.raises(InputError, match=rf"^{re.escape(str(latin))}:2: not a UTF-8 text "
                                         rf"file \(byte 0xe9 at offset {at}\)$"):
        read(latin)
    png = write(tmp_path / "png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", gz=gz)
    with pytest.raises(InputError, match=rf"^{re.escape(str(png))}:1: not a UTF-8 text "
                                         r"file \(byte 0x89 at offset 0\)$"):
        read(png)


@pytest.mark.parametrize("reader", TEXT_READERS)
def test_directory_and_corrupt_gzip_are_named(tmp_path, reader):
    read, text = TEXT_READERS[reader]
    with pytest.raises(InputError, match=rf"^{re.escape(str(tmp_path))}: is a directory, "
                                         "not a file$"):
        read(tmp_path)
    data = gzip.compress(text.format("").encode())
    truncated = tmp_path / "truncated.gz"
    truncated.write_bytes(data[:len(data) // 2])
    with pytest.raises(InputError, match=rf"^{re.escape(str(truncated))}: corrupt gzip data "
                                         r"\(Compressed file ended before the end-of-stream"):
        read(truncated)
    garbage = tmp_path / "garbage.gz"
    garbage.write_bytes(b"\x1f\x8b" + b"x" * 40)
    with pytest.raises(InputError, match=rf"^{re.escape(str(garbage))}: corrupt gzip data "
                                         r"\(.+\)$"):
        read(garbage)


def test_duplicate_docno_in_run(tmp_path):
    p = write(tmp_path / "r", "1 Q0 a 1 3.0 s\n1 Q0 b 2 2.0 s\n1 Q0 a 3 1.0 s\n")
    with pytest.raises(InputError, match="run s topic 1 docno a"):
        xdiv.read_run(p)
    with pytest.warns(XdivWarning, match="run s topic 1 docno a"):
        runs = xdiv.read_run(p, duplicates="first")
    assert xdiv.decode_docnos(runs).sel(run="s", topic="1").values.tolist() == ["a", "b"]
    assert runs.score.sel(run="s", topic="1").values.tolist() == [3.0, 2.0]


def test_duplicate_qrels_line(tmp_path):
    with pytest.raises(InputError, match="topic 1 intent 1 docno a is judged more than once"):
        xdiv.read_qrels(write(tmp_path / "q", "1 1 a 1\n1 1 a 1\n"))


def test_nan_score_in_frame():
    frame = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [np.nan]})
    with pytest.raises(InputError, match="topic 1 docno a: score nan is not finite"):
        frame.xdiv.to_runs()


def test_cli_error_has_no_traceback(tmp_path):
    q = write(tmp_path / "q", QRELS)
    r = write(tmp_path / "r.run", "1 Q0 a 1 2.0 s\n1 Q0 b x 2.0 s\n")
    proc = subprocess.run([sys.executable, "-m", "xdiv.cli", "evaluate", str(q), str(r),
                           "-m", "nDCG-IA@10"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("xdiv: error:")
    assert "r.run:2:" in proc.stderr
    assert "Traceback" not in proc.stderr


# ---------------------------------------------------------------- topic alignment

def test_topic_alignment_is_reported(tmp_path):
    col = xdiv.read_qrels(write(tmp_path / "q", QRELS))
    runs = xdiv.read_runs([write(tmp_path / "r", "1 Q0 a 1 1 s\n9 Q0 a 1 1 s\n")])
    with pytest.warns(XdivWarning) as record:
        res = xdiv.evaluate(runs, col, ["nDCG-IA@10"])
    text = " ".join(str(w.message) for w in record)
    assert "not in the qrels" in text and "retrieved nothing" in text and "s: topic 2" in text
    assert res.topic.values.tolist() == ["1", "2", "9"]
    assert float(res.score.sel(topic="2").squeeze()) == 0.0  # trec_eval -c convention
    assert np.isnan(float(res.score.sel(topic="9").squeeze()))
    assert xdiv.core.labels.from_json(res.attrs["topics_not_in_runs"]) == {"s": ["2"]}
    assert xdiv.core.labels.from_json(res.attrs["topics_not_in_qrels"]) == ["9"]
    with pytest.warns(XdivWarning):
        nan = xdiv.evaluate(runs, col, ["nDCG-IA@10"], missing="nan")
    assert np.isnan(float(nan.score.sel(topic="2").squeeze()))


def test_runs_align_by_label_not_position(tmp_path):
    col = xdiv.read_qrels(write(tmp_path / "q", "1 1 a 1\n2 1 b 1\n10 1 c 1\n"))
    f1 = pd.DataFrame({"run": "x", "query_id": ["10", "2", "1"], "doc_id": ["c", "b", "z"],
                       "score": [1.0, 1.0, 1.0]})
    res = xdiv.evaluate(f1.xdiv.to_runs(), col, ["nDCG@5"])
    assert res.score.sel(run="x", metric="nDCG@5").values.tolist() == [0.0, 1.0, 1.0]
    assert res.topic.values.tolist() == ["1", "2", "10"]


# ---------------------------------------------------------------- NetCDF and accessors

def test_netcdf_round_trips(tmp_path):
    col, runs = xdiv.datasets.synthetic(n_topics=4, n_runs=3, depth=12, seed=5)
    scores = xdiv.evaluate(runs, col, ["nDCG-IA@5", "Q-IA(beta=0.5)@5"])
    for name, ds in {"col": col, "runs": runs, "scores": scores,
                     "summary": xdiv.summarize(scores)}.items():
        path = xdiv.to_netcdf(ds, tmp_path / f"{name}.nc")
        back = xdiv.open_dataset(path)
        xr.testing.assert_identical(ds, back)
        assert back.attrs == ds.attrs
    back = xdiv.open_dataset(tmp_path / "scores.nc")
    assert xdiv.core.labels.from_json(back.params.sel(metric="Q-IA(beta=0.5)@5").item())["beta"] == 0.5


def test_netcdf_encodes_unsupported_attributes(tmp_path):
    ds = xr.Dataset({"v": ("x", [1, 2])}, attrs={"flag": True, "d": {"a": 1}, "n": None})
    back = xdiv.open_dataset(xdiv.to_netcdf(ds, tmp_path / "a.nc"))
    assert back.attrs == {"flag": "true", "d": '{"a": 1}', "n": "null"}


def test_frame_accessors(tmp_path):
    qrels = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"],
                          "relevance": [1, 0, 2]})
    run = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["b", "a", "c"],
                        "score": [2.0, 1.0, 1.0]})
    col = qrels.xdiv.to_collection()
    assert col.intent.values.tolist() == ["0"]
    out = run.xdiv.evaluate(qrels, ["nDCG@2", "P@1"])
    assert set(out.columns) == {"metric", "run", "topic", "score"}
    got = out.set_index(["metric", "topic"])["score"]
    assert got[("P@1", "1")] == 0.0 and got[("P@1", "2")] == 1.0
    assert got[("nDCG@2", "1")] == pytest.approx(1 / np.log2(3))
    with pytest.raises(InputError, match="needs the column"):
        qrels.drop(columns="relevance").xdiv.to_collection()
    scores = run.xdiv.to_runs().xdiv.evaluate(col, ["P@1"])
    assert scores.xdiv.to_frame().shape == (2, 4)
    assert col.xdiv.to_frame().shape == (3, 4)


def test_dataset_accessor_is_not_stale():
    col, runs = xdiv.datasets.synthetic(n_topics=3, n_runs=2, depth=5, seed=2)
    before = runs.xdiv.to_frame()
    runs["score"][:] = 0.0  # in-place edit after the accessor was built
    assert (runs.xdiv.to_frame()["score"] == 0).all()
    assert len(before) == len(runs.xdiv.to_frame())


# ---------------------------------------------------------------- dask

def test_dask_chunked_runs_give_the_same_scores():
    pytest.importorskip("dask")
    col, runs = xdiv.datasets.synthetic(n_topics=6, n_runs=4, depth=30, seed=4)
    metrics = ["nDCG-IA@10", "Q-IA@10", "GAP-IA", "alpha-nDCG@10", "ERR-IA@5", "nNRBP",
               "MAP-IA", "D#-nDCG@10", "DIN-Q@10", "P+Q#@5", "Ef-P@10", "I-rec@10"]
    eager = xdiv.evaluate(runs, col, metrics)
    for chunks in ({"run": 1}, {"topic": 2}):
        lazy = xdiv.evaluate(runs.chunk(chunks), col, metrics)
        assert lazy.score.chunks is not None
        xr.testing.assert_allclose(eager.score, lazy.score.compute(), rtol=0, atol=1e-12)


# ---------------------------------------------------------------- real TREC 2009 data

def test_trec2009_topics_and_types():
    root = require_trec_2009()
    col = xdiv.read_qrels(root / "qrels.diversity.gz", topics=root / "wt09.topics.full.xml")
    assert col.sizes["topic"] == 50
    tree = ET.parse(root / "wt09.topics.full.xml").getroot()
    n_nav = 0
    for topic in tree.iter("topic"):
        for sub in topic.findall("subtopic"):
            got = col.intent_type.sel(topic=topic.get("number"), intent=sub.get("number")).item()
            assert got == sub.get("type", "inf")
            n_nav += got == "nav"
        assert col.topic_type.sel(topic=topic.get("number")).item() == topic.get("type")
    assert n_nav > 0


def test_trec2009_runs_read_fast(trec2009_run_paths):
    start = time.perf_counter()
    runs = xdiv.read_runs(trec2009_run_paths)
    elapsed = time.perf_counter() - start
    assert runs.sizes["run"] == 18 and runs.sizes["topic"] == 50
    assert int(runs.length.sum()) > 800_000
    assert elapsed < 30, f"reading 18 runs took {elapsed:.1f}s"


def test_trec_web_loader(trec2009):
    from ..conftest import TREC_WEB

    col, runs = xdiv.datasets.trec_web(TREC_WEB, 2009)
    xr.testing.assert_identical(col.drop_attrs(), trec2009[0].drop_attrs())
    assert runs.sizes["run"] == 18
    with pytest.raises(InputError, match="no such file"):
        xdiv.datasets.trec_web(TREC_WEB, 1999)
    if (TREC_WEB / "2010" / "qrels.diversity.gz").exists():  # 2010 has qrels but no runs
        with pytest.raises(InputError, match=r"2010.runs: no run files \(runs=False"):
            xdiv.datasets.trec_web(TREC_WEB, 2010)
        assert xdiv.datasets.trec_web(TREC_WEB, 2010, runs=False)[1] is None


def test_read_runs_glob_and_progress(trec2009_run_paths):
    from pathlib import Path

    folder = Path(trec2009_run_paths[0]).parent
    runs = xdiv.read_runs(str(folder / "udel*.gz"), progress=True)
    assert runs.run.values.tolist() == ["udelFMRM", "udelSimPrune"]


def test_tab_inside_a_single_spaced_file_is_not_swallowed(tmp_path):
    p = write(tmp_path / "r", "1 Q0 a 1 2.0 s\n1 Q0 b\tx 2 1.0 s\n")
    with pytest.raises(ParseError, match="found 7 fields|expected 5 or 6"):
        xdiv.read_run(p)


def test_crlf_line_endings(tmp_path):
    p = tmp_path / "r"
    p.write_bytes(b"1 Q0 a 1 2.0 s\r\n1 Q0 b 2 1.0 s\r\n")
    runs = xdiv.read_run(p)
    assert runs.run.values.tolist() == ["s"]
    assert xdiv.decode_docnos(runs).sel(run="s", topic="1").values.tolist() == ["a", "b"]


@pytest.mark.parametrize("large", [False, True])
def test_gzip_runs_read_alike_in_memory_and_streamed(tmp_path, monkeypatch, large):
    # small gzip files are decompressed in one call, large ones streamed: both read
    # multi-member files (as `cat a.gz b.gz` makes) and trailing zero padding alike, and
    # both refuse truncated data naming the file
    if large:
        monkeypatch.setattr(xdiv.io._columns, "IN_MEMORY_GZIP", 0)
    lines = [f"{t} Q0 d{k} {k} {10 - k} tag\n" for t in (1, 2) for k in range(1, 6)]
    plain = tmp_path / "run.txt"
    plain.write_text("".join(lines))
    members = tmp_path / "members.gz"
    members.write_bytes(gzip.compress("".join(lines[:4]).encode())
                        + gzip.compress("".join(lines[4:]).encode()) + b"\0" * 8)
    want = xdiv.io.read_run_frame(plain)
    pd.testing.assert_frame_equal(xdiv.io.read_run_frame(members), want)
    cut = tmp_path / "cut.gz"
    cut.write_bytes(gzip.compress("".join(lines).encode())[:-12])
    with pytest.raises(InputError, match=rf"^{re.escape(str(cut))}: corrupt gzip data"):
        xdiv.io.read_run_frame(cut)


def test_quotes_are_plain_characters_in_both_readers(tmp_path):
    # pyarrow's reader takes no quoting; pandas' parser (the fallback for layouts pyarrow
    # does not take, here several spaces) must not either, or '"a b"' would be one field
    body = ['1 Q0 "a 1 2.0 s\n', "1 Q0 b\" 2 1.0 s\n", "1 Q0 'c' 3 0.5 s\n"]
    single = write(tmp_path / "single", "".join(body))
    double = write(tmp_path / "double", "".join(line.replace(" ", "  ") for line in body))
    for path in (single, double):
        runs = xdiv.read_run(path)
        assert xdiv.decode_docnos(runs).sel(run="s", topic="1").values.tolist() == \
            ['"a', 'b"', "'c'"]


def test_fallback_parsing_in_threads_leaves_warning_filters_alone(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    paths = [write(tmp_path / f"r{i}", "".join(f"{t}  Q0  d{k}  {k}  {9 - k}  r{i}\n"
                                                for t in range(1, 4) for k in range(1, 8)))
             for i in range(16)]
    before = list(warnings.filters)
    with ThreadPoolExecutor(8) as pool:
        frames = list(pool.map(xdiv.io.read_run_frame, paths * 4))
    assert warnings.filters == before
    assert all(len(frame) == 21 for frame in frames)


@pytest.mark.parametrize("large", [False, True])
def test_other_separator_in_an_ignored_column_of_gzip_runs(tmp_path, monkeypatch, large):
    # a tab inside the Q0 field of a space-separated file makes a line of 7 fields; large
    # gzip files are not searched byte by byte, so the ignored column is searched instead
    if large:
        monkeypatch.setattr(xdiv.io._columns, "IN_MEMORY_GZIP", 0)
    text = "1 Q0 a 1 2.0 s\n1 Q0\tx b 2 1.0 s\n"
    for path in (write(tmp_path / "r", text), write(tmp_path / "r.gz", text, gz=True)):
        with pytest.raises(ParseError, match=r":2: .*(found 7 fields|expected 5 or 6)"):
            xdiv.read_run(path)
