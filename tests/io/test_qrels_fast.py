"""read_qrels builds its collection from the reader's columns as integer codes (no Python
string per line): the dataset, the warnings and the errors must be those of the frame path,
``build_collection(read_qrels_frame(path))``, on the real TREC Web qrels and on synthetic
edge cases."""

from __future__ import annotations

import gzip
import os
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import xarray as xr

import xdiv
from xdiv.core.collection import QrelsCodes, collection_from_codes
from xdiv.io import api
from xdiv.io.topics import read_topics
from xdiv.io.trec import read_qrels_codes, read_qrels_frame

from ..conftest import TREC_WEB
from ..helpers import without_provenance

YEARS = range(2009, 2015)


def frame_path(path, *, topics=None, probabilities="uniform"):
    """The collection the frame path builds: a frame of Python strings, then
    ``build_collection`` (what read_qrels did before its fast path)."""
    frame = read_qrels_frame(path)
    if isinstance(topics, (str, os.PathLike)):
        topic_frame, topics_source = read_topics(topics), os.fspath(topics)
    else:
        topic_frame, topics_source = topics, "<DataFrame>"
    return api.build_collection(frame, topics=topic_frame, probabilities=probabilities,
                                source=os.fspath(path), topics_source=topics_source)


def outcome(build):
    """(dataset or (exception type, message), [(warning category, message)])."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = build()
        except Exception as error:  # noqa: BLE001 - compared below
            result = (type(error), str(error))
    return result, [(w.category, str(w.message)) for w in caught]


def assert_same(path, **options):
    """read_qrels(path, **options) and the frame path agree: the same dataset (dims,
    coords, dtypes, attrs, values), the same warnings, or the same error."""
    new, new_warnings = outcome(lambda: xdiv.read_qrels(path, **options))
    old, old_warnings = outcome(lambda: frame_path(path, **options))
    assert new_warnings == old_warnings
    if isinstance(old, xr.Dataset):
        assert isinstance(new, xr.Dataset), new
        assert "provenance" in new.attrs  # read_qrels records the file it read
        xr.testing.assert_identical(without_provenance(new), old)
        for name, variable in old.variables.items():
            assert new[name].dtype == variable.dtype, name
        assert all(type(x) is str for x in new["docno"].values.ravel())
    else:
        assert new == old
    return new


def write(path, text, gz=False):
    data = text.encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


# ---------------------------------------------------------------- real TREC Web qrels

def trec_year(year):
    folder = TREC_WEB / str(year)
    if not (folder / "qrels.diversity.gz").exists():
        pytest.skip(f"../shared/reference/trec-web/{year} is not available")
    return folder / "qrels.diversity.gz", sorted(folder.glob("*.xml"))[0]


@pytest.mark.slow  # the TREC Web Track data (see tests/conftest.py)
@pytest.mark.parametrize("year", YEARS)
@pytest.mark.parametrize("with_topics", [False, True])
@pytest.mark.parametrize("probabilities", ["uniform", "nonuniform"])
def test_trec_web_qrels_as_the_frame_path(year, with_topics, probabilities):
    qrels, topics = trec_year(year)
    collection = assert_same(qrels, topics=topics if with_topics else None,
                             probabilities=probabilities)
    assert collection.sizes["topic"] >= 48


@pytest.mark.slow
@pytest.mark.parametrize("year", [2009, 2012])
def test_trec_web_qrels_with_a_probability_file_and_frame(year, tmp_path):
    qrels, topics = trec_year(year)
    collection = xdiv.read_qrels(qrels)
    rng = np.random.default_rng(year)
    t, i = np.nonzero(collection["intent_valid"].values)
    frame = pd.DataFrame({"topic": collection["topic"].values[t],
                          "intent": collection["intent"].values[i],
                          "probability": rng.uniform(0.1, 1.0, len(t)).round(3)})
    path = tmp_path / "probabilities.txt"
    path.write_text("".join(f"{a} {b} {c}\n" for a, b, c in frame.itertuples(index=False)))
    assert_same(qrels, topics=topics, probabilities=path)
    assert_same(qrels, probabilities=frame)


# ---------------------------------------------------------------- synthetic qrels

EDGES = """\
10 1 Doc-b 1
2 1 doc-b 2
2 1 Doc-b 0
2 2 DOC-B -2
wt-3 1 x9 1
wt-3 10 x10 3
wt-3 2 x9 0
0151 1 a 1
0151 1 b -1
151 1 b 1
1 0 zz 0
1 0 zy -2
10 2 doc-b 1
10 1 doc-B 0
10 2 doc-a 2
2 10 doc-a 1
4 1 caf\u00e9 1
4 1 cafe 0
4 1 caf\u00ea 1
4 1 cafZ 2
4 1 \u00e4 0
4 1 \u00e0 1
4 1 z 1
"""


def test_natural_order_case_spam_and_absent_intents(tmp_path):
    collection = assert_same(write(tmp_path / "qrels.txt", EDGES))
    assert collection["topic"].values.tolist() == ["1", "2", "4", "10", "0151", "151", "wt-3"]
    assert collection["intent"].values.tolist() == ["0", "1", "2", "10"]
    docnos = collection["docno"].sel(topic="4").values.tolist()
    assert docnos == sorted(docnos, key=lambda d: (d == "", d))  # code point order
    assert collection["docno"].sel(topic="2").values.tolist()[:3] == ["DOC-B", "Doc-b",
                                                                        "doc-a"]
    # topic 1 has only non-relevant (and spam) lines: warned, kept
    assert "1" in xdiv.core.labels.from_json(collection.attrs["topics_without_relevant"])


@pytest.mark.parametrize("layout", ["tabs", "spaces", "gzip", "crlf"])
def test_every_reader_path(tmp_path, layout):
    """pyarrow's reader (single spaces, tabs, gzip) and pandas' (irregular spacing)."""
    text = EDGES
    if layout == "tabs":
        text = text.replace(" ", "\t")
    elif layout == "spaces":
        text = "\n".join("  ".join(line.split(" ")) for line in text.splitlines()) + "\n"
    elif layout == "crlf":
        text = text.replace("\n", "\r\n")
    assert_same(write(tmp_path / "qrels", text, gz=layout == "gzip"))


def test_topics_frame_and_file_with_partial_overlap(tmp_path):
    qrels = write(tmp_path / "qrels.txt", EDGES)
    topics = pd.DataFrame({"topic": ["2", "2", "2", "10", "99", "wt-3"],
                           "intent": ["2", "1", "7", "1", "1", "10"],
                           "intent_type": ["nav", "inf", "inf", "nav", "inf", "inf"]})
    collection = assert_same(qrels, topics=topics, probabilities="nonuniform")
    assert "99" in collection["topic"].values and "7" in collection["intent"].values
    assert_same(qrels, topics=pd.DataFrame({"topic": ["500"], "intent": ["1"]}))  # error
    assert_same(qrels, topics=pd.DataFrame({"topic": ["2"]}))  # lacks a column


def test_adhoc_qrels_and_shared_docnos(tmp_path):
    rng = np.random.default_rng(5)
    lines = set()
    while len(lines) < 3000:
        lines.add((str(rng.integers(1, 60)), f"d{rng.integers(0, 400):04d}"))
    text = "".join(f"{t} 0 {d} {rng.integers(-2, 4)}\n" for t, d in sorted(lines))
    assert_same(write(tmp_path / "adhoc.txt", text))


@pytest.mark.parametrize("seed", range(4))
def test_random_diversity_qrels(tmp_path, seed):
    rng = np.random.default_rng(seed)
    topics = [str(x) for x in rng.choice(300, 12, replace=False)] + ["wt-1", "07"]
    seen, lines = set(), []
    for _ in range(2000):
        key = (rng.choice(topics), str(rng.integers(0, 7)),
               f"{rng.choice(['d', 'D', 'é'])}{rng.integers(0, 150)}")
        if key not in seen:
            seen.add(key)
            lines.append(f"{' '.join(key)} {rng.integers(-3, 5)}\n")
    assert_same(write(tmp_path / "qrels.txt", "".join(lines)), probabilities="nonuniform")


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("text", [
    "1 1 a 1\n1 1 b 0\n2 1 a 1\n1 1 a 2\n",          # a judgment twice
    "1 1 a 1\n1 1 b 0\n1 1 b 1\n1 1 a 2\n1 1 b 3\n",  # two duplicates: the first is named
    "5 1 x 1\n5 2 x 0\n5 1 x 1\n5 1 x 1\n",          # three times
    "1 1 A 1\n1 1 a 1\n1 1 A 0\n",                   # docnos differing by case only
    "1 1 a 1\n1 1 b 128\n",                          # levels outside -127..127
    "1 1 a 1\n1 1 b -128\n1 1 a 1\n",                # ... named before the duplicate
    "1 1 a 1\n2 2 b 1000000\n",
    "",                                              # empty file
    "\n\n  \n",                                      # no data line
    "1 1 a\n",                                       # a missing field
    "1 1 a 1.5\n",                                   # a level not an integer
])
def test_errors_and_messages_as_the_frame_path(tmp_path, text):
    result, _ = outcome(lambda: xdiv.read_qrels(write(tmp_path / "bad.txt", text)))
    if text.strip() and "1.5" not in text and "1 1 a\n" != text:
        assert isinstance(result, tuple)
    assert_same(write(tmp_path / "bad.txt", text))


def test_duplicate_error_comes_before_topic_errors(tmp_path):
    qrels = write(tmp_path / "bad.txt", "1 1 a 1\n1 1 a 0\n")
    new = assert_same(qrels, topics=pd.DataFrame({"topic": ["9"], "intent": ["1"]}))
    assert new[0] is xdiv.InputError and "judged more than once" in new[1]
    assert "bad.txt:1, " in new[1] and "bad.txt:2" in new[1]


# ---------------------------------------------------------------- the codes

def test_codes_with_repeated_and_unused_dictionary_words():
    """collection_from_codes takes labels in any order, repeated or unused."""
    frame = pd.DataFrame({"topic": ["10", "2", "2", "10", "2"],
                          "intent": ["1", "1", "2", "1", "0"],
                          "docno": ["b", "a", "a", "a", "c"], "level": [1, 0, 2, -1, 1]})
    codes = QrelsCodes(
        topic_words=np.array(["2", "x", "10", "2"], dtype=object),
        topic=np.array([2, 0, 3, 2, 3]),
        intent_words=np.array(["2", "1", "0", "1", "9"], dtype=object),
        intent=np.array([1, 3, 0, 1, 2]),
        docno_words=np.array(["a", "b", "c"], dtype=object), docno=np.array([1, 0, 0, 0, 2]),
        level=np.array([1, 0, 2, -1, 1]))
    xr.testing.assert_identical(collection_from_codes(codes),
                                xdiv.core.collection.build_collection(frame))


def test_read_qrels_codes_makes_no_string_per_line(tmp_path, monkeypatch):
    """read_qrels reads the file as codes: neither the frame reader nor per-line string
    decoding runs."""
    path = write(tmp_path / "qrels.txt", EDGES)

    def refuse(*args, **kwargs):
        raise AssertionError("the frame path ran")

    monkeypatch.setattr(api, "read_qrels_frame", refuse)
    monkeypatch.setattr("xdiv.io._columns.decode_strings", refuse)
    with pytest.warns(xdiv.XdivWarning, match="1 topic.s. have no relevant document"):
        collection = xdiv.read_qrels(path, probabilities="uniform")
    assert collection.sizes["topic"] == 7
    codes = read_qrels_codes(path)
    assert len(codes.docno_words) == len(set(codes.docno_words))
    assert list(codes.docno_words) == sorted(codes.docno_words)
    assert isinstance(codes.level, np.ndarray) and codes.level.dtype == np.int64
    assert not isinstance(codes.topic, pa.Array)
