"""The integer-coded run model: doc codes into a sorted docno vocabulary."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import xdiv
from xdiv.errors import InputError, XdivWarning
from xdiv.core.judge import check_runs, judge

from ..helpers import without_provenance


def quiet(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` with xdiv's warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XdivWarning)
        return fn(*args, **kwargs)


def tied_frame(seed: int, n_rows: int = 400) -> pd.DataFrame:
    """A run frame with many tied scores and ranks, docnos of mixed lengths and cases."""
    rng = np.random.default_rng(seed)
    pool = np.array(["a", "B", "b", "ab", "a0", "Z9", "é", "ä-1", "doc-10", "doc-9", "doc-100",
                     "x y", "\u4e2d", "\U0001F600", "~", "zz"], dtype=object)
    rows = pd.DataFrame({
        "run": rng.choice(["r1", "r2", "r10"], n_rows),
        "topic": rng.choice(["1", "2", "10"], n_rows),
        "docno": rng.choice(pool, n_rows),
        "score": rng.choice([0.0, 0.5, 1.0, -2.0], n_rows),
        "rank": rng.integers(1, 6, n_rows),
    })
    # one row per (run, topic, docno): duplicates are tested apart
    return rows.drop_duplicates(["run", "topic", "docno"]).reset_index(drop=True)


def python_ranking(frame: pd.DataFrame, order: str) -> dict:
    """Each (run, topic)'s docnos ranked by a pure-Python sort of the strings."""
    out = {}
    for (run, topic), part in frame.groupby(["run", "topic"]):
        rows = list(part[["docno", "score", "rank"]].itertuples(index=False))
        if order == "score-docno-desc":
            rows.sort(key=lambda x: (x.score, x.docno), reverse=True)
        elif order == "score-docno-asc":
            rows.sort(key=lambda x: (-x.score, x.docno))
        else:  # rank ascending, ties by score descending, then docno descending
            rows.sort(key=lambda x: x.docno, reverse=True)
            rows.sort(key=lambda x: (x.rank, -x.score))
        out[(run, topic)] = [x.docno for x in rows]
    return out


def xdiv_ranking(runs: xr.Dataset) -> dict:
    docnos = xdiv.decode_docnos(runs)
    return {(r, t): [d for d in docnos.sel(run=r, topic=t).values.tolist() if d]
            for r in runs.run.values for t in runs.topic.values
            if int(runs.length.sel(run=r, topic=t)) > 0}


# ---------------------------------------------------------------- the schema

def test_codes_and_sorted_vocabulary_with_padding():
    frame = pd.DataFrame({"run": ["s", "s", "s", "t"], "topic": ["1", "1", "2", "1"],
                          "docno": ["d2", "d10", "d1", "d2"], "score": [3.0, 2.0, 1.0, 1.0]})
    runs = xdiv.build_runs(frame)
    assert runs.docno.dims == ("docid",)
    assert runs.docno.values.tolist() == ["d1", "d10", "d2"]  # string order, not natural
    assert runs.doc.dtype == np.int32 and runs.doc.dims == ("run", "topic", "rank")
    assert runs.doc.values.tolist() == [[[2, 1], [0, -1]], [[2, -1], [-1, -1]]]
    assert runs.score.dtype == np.float64
    assert np.isnan(runs.score.values[runs.doc.values < 0]).all()
    assert runs.length.values.tolist() == [[2, 1], [1, 0]]
    assert runs.attrs == {"xdiv_kind": "runs", "order": "score-docno-desc"}
    decoded = xdiv.decode_docnos(runs)
    assert decoded.dims == ("run", "topic", "rank") and decoded.name == "docno"
    assert decoded.values.tolist() == [[["d2", "d10"], ["d1", ""]], [["d2", ""], ["", ""]]]
    check_runs(runs)


def test_decode_docnos_round_trip_through_frames_and_files(tmp_path):
    _, _, frame = xdiv.datasets.synthetic_frames(n_topics=5, n_runs=3, depth=20, seed=3)
    runs = xdiv.build_runs(frame)
    got = xdiv.decode_docnos(runs)
    want = {(r, t): list(p["docno"]) for (r, t), p in frame.groupby(["run", "topic"])}
    assert {(r, t): got.sel(run=r, topic=t).values.tolist() for r, t in want} == want
    again = xdiv.runs_frame(runs)
    assert again["docno"].tolist() == frame["docno"].tolist()
    xr.testing.assert_identical(xdiv.build_runs(again), runs)
    paths = []
    for name in runs.run.values:
        paths.append(tmp_path / f"{name}.txt")
        xdiv.write_run(paths[-1], runs.sel(run=[name]))
    back = xdiv.read_runs(paths)
    xr.testing.assert_identical(back.drop_attrs(), runs.drop_attrs())


def test_decode_docnos_of_dask_runs_is_lazy_and_equal():
    pytest.importorskip("dask")
    _, runs = xdiv.datasets.synthetic(n_topics=4, n_runs=3, depth=10, seed=2)
    lazy = xdiv.decode_docnos(runs.chunk({"run": 1}))
    assert lazy.chunks is not None
    xr.testing.assert_identical(lazy.compute(), xdiv.decode_docnos(runs))


def test_netcdf_round_trip_is_identical(tmp_path):
    col, runs = xdiv.datasets.synthetic(n_topics=4, n_runs=3, depth=12, seed=5)
    back = xdiv.open_dataset(xdiv.to_netcdf(runs, tmp_path / "runs.nc"))
    xr.testing.assert_identical(back, runs)
    assert back.attrs == runs.attrs
    assert back.doc.dtype == np.int32
    xr.testing.assert_identical(xdiv.decode_docnos(back), xdiv.decode_docnos(runs))
    metrics = ["nDCG-IA@5", "alpha-nDCG@10"]
    xr.testing.assert_identical(xdiv.evaluate(back, col, metrics).score,
                                xdiv.evaluate(runs, col, metrics).score)


# ---------------------------------------------------------------- ranking on codes

@pytest.mark.parametrize("order", ["score-docno-desc", "score-docno-asc", "rank"])
@pytest.mark.parametrize("seed", range(6))
def test_tie_breaking_on_codes_equals_string_sort(order, seed):
    frame = tied_frame(seed)
    shuffled = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    runs = quiet(xdiv.build_runs, shuffled, order=order)
    assert xdiv_ranking(runs) == python_ranking(frame, order)


_docnos = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1,
                  max_size=4)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from(["1", "2"]), _docnos,
                               st.sampled_from([0.0, 1.0, 2.5]), st.integers(1, 3)),
                     min_size=1, max_size=40, unique_by=lambda x: (x[0], x[1])),
       order=st.sampled_from(["score-docno-desc", "score-docno-asc", "rank"]))
def test_any_docno_strings_rank_as_python_sorts_them(rows, order):
    frame = pd.DataFrame(rows, columns=["topic", "docno", "score", "rank"]).assign(run="r")
    runs = quiet(xdiv.build_runs, frame, order=order)
    assert runs.docno.values.tolist() == sorted(set(frame["docno"]))
    assert xdiv_ranking(runs) == python_ranking(frame, order)


def test_rank_warning_compares_docnos_through_codes():
    # ranked by the rank column, b (rank 1) ties a (rank 2) on score: the scores' order
    # (ties by docno descending) agrees; a before b would not
    agree = pd.DataFrame({"run": "r", "topic": "1", "docno": ["b", "a"], "rank": [1, 2],
                          "score": [1.0, 1.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error", XdivWarning)
        xdiv.build_runs(agree, order="rank")
    with pytest.warns(XdivWarning, match=r"\(run topics/all\): r 1/1 \(ties only\); "):
        xdiv.build_runs(agree.assign(docno=["a", "b"]), order="rank")


# ---------------------------------------------------------------- duplicates and errors

def test_duplicates_found_on_codes_and_named_by_docno():
    frame = pd.DataFrame({"run": ["x", "x", "x", "y", "y"], "topic": "7",
                          "docno": ["clueweb-b", "clueweb-a", "clueweb-b", "a", "a"],
                          "score": [1.0, 3.0, 2.0, 1.0, 1.0]})
    with pytest.raises(InputError, match=r"^a docno is retrieved more than once for a topic: "
                                         r"run x topic 7 docno clueweb-b; run y topic 7 "
                                         r"docno a \("):
        xdiv.build_runs(frame)
    with pytest.warns(XdivWarning, match="run x topic 7 docno clueweb-b; run y topic 7 "
                                         "docno a"):
        runs = xdiv.build_runs(frame, duplicates="first")
    docnos = xdiv.decode_docnos(runs)
    assert docnos.sel(run="x").values.ravel().tolist() == ["clueweb-a", "clueweb-b"]
    assert runs.score.sel(run="x").values.ravel().tolist() == [3.0, 2.0]  # the higher kept
    assert docnos.sel(run="y").values.ravel().tolist() == ["a", ""]
    assert runs.docno.values.tolist() == ["a", "clueweb-a", "clueweb-b"]


def test_errors_name_run_topic_and_docno():
    frame = pd.DataFrame({"run": "r", "topic": "3", "docno": ["zz", "q"],
                          "score": [1.0, np.inf], "rank": [1.0, np.nan]})
    with pytest.raises(InputError, match=r"^run r topic 3 docno q: score inf is not finite$"):
        xdiv.build_runs(frame)
    with pytest.raises(InputError, match=r"^run r topic 3 docno q: rank nan is not a number$"):
        xdiv.build_runs(frame.assign(score=1.0), order="rank")


def test_categorical_docnos_equal_strings():
    frame = tied_frame(11)
    categories = ["unused", *sorted(set(frame["docno"]), reverse=True)]
    categorical = frame.assign(docno=pd.Categorical(frame["docno"], categories=categories),
                               topic=frame["topic"].astype("category"))
    for order in ("score-docno-desc", "score-docno-asc", "rank"):
        want = quiet(xdiv.build_runs, frame, order=order)
        xr.testing.assert_identical(quiet(xdiv.build_runs, categorical, order=order), want)
    # categories that read the same as strings are one docno
    mixed = pd.DataFrame({"run": "r", "topic": "1", "docno": pd.Categorical([1, "1", "2"]),
                          "score": [3.0, 2.0, 1.0]})
    with pytest.raises(InputError, match="run r topic 1 docno 1 "):
        xdiv.build_runs(mixed)


@pytest.mark.parametrize("dtype", ["category", "str", "object"])
def test_build_runs_on_typed_frames_equals_reading_the_files(dtype, tmp_path):
    paths = []
    for name, lines in {"a": "1 Q0 d3 1 2.0 a\n1 Q0 d1 2 1.0 a\n10 Q0 d9 1 1.0 a\n",
                        "b": "1 Q0 d2 1 2.0 b\n2 Q0 d3 1 1.0 b\n2 Q0 d0 2 1.0 b\n"}.items():
        paths.append(tmp_path / name)
        paths[-1].write_text(lines)
    want = xdiv.read_runs(paths)
    frame = pd.concat([xdiv.io.read_run_frame(p) for p in paths], ignore_index=True)
    typed = frame.assign(docno=frame["docno"].astype(dtype), topic=frame["topic"].astype(dtype))
    got = xdiv.build_runs(typed)
    xr.testing.assert_identical(got, want.drop_attrs().assign_attrs(got.attrs))
    assert list(want.topic.values) == ["1", "2", "10"]  # natural order


def test_check_runs_explains_what_is_wrong():
    _, runs = xdiv.datasets.synthetic(n_topics=2, n_runs=2, depth=4, seed=1)
    old = runs.drop_vars(["doc", "docno"]).assign(
        docno=xdiv.decode_docnos(runs).transpose("run", "topic", "rank"))
    with pytest.raises(InputError, match=r"^runs: a Runs dataset of an older xdiv .* "
                                         r"xdiv\.read_runs"):
        check_runs(old)
    with pytest.raises(InputError, match=r"^judge: runs: expected a Runs dataset"):
        judge(runs.drop_vars("length"), xdiv.datasets.synthetic(n_topics=2, seed=1)[0])
    vocabulary = runs.docno.values.copy()
    vocabulary[[0, 1]] = vocabulary[[1, 0]]
    with pytest.raises(InputError, match=r"not sorted ascending without repeats: docno "
                                         rf"{vocabulary[1]} \(docid 1\) follows"):
        check_runs(runs.assign_coords(docno=("docid", vocabulary)))
    with pytest.raises(InputError, match=r"doc code 123456789 at run run01 topic 1 rank 1 "
                                         r"is outside the docno vocabulary"):
        check_runs(runs.assign(doc=runs.doc.where(runs["rank"] > 1, 123456789)))
    with pytest.raises(InputError, match=r"its doc variable holds float64"):
        check_runs(runs.assign(doc=runs.doc.astype(float)))
    with pytest.raises(InputError, match=r"its docno variable has the dimensions \(run\)"):
        check_runs(runs.drop_dims("docid").assign_coords(docno=("run", ["a", "b"])))
    with pytest.raises(InputError, match=r"its docno vocabulary holds integer values"):
        check_runs(runs.assign_coords(docno=("docid", np.arange(runs.sizes["docid"]))))


# ---------------------------------------------------------------- judging

def string_slots(runs: xr.Dataset, collection: xr.Dataset, topics: list[str]) -> np.ndarray:
    """Slots ``(run, topic, rank)`` of the runs' documents on ``topics``, by a pure-Python
    dict of the collection's (topic, docno) strings."""
    where = {(t, d): s for t, row in zip(collection.topic.values, collection.docno.values)
             for s, d in enumerate(row) if d}
    docnos = xdiv.decode_docnos(runs)
    out = np.full((runs.sizes["run"], len(topics), runs.sizes["rank"]), -1, dtype=np.int32)
    for r in range(runs.sizes["run"]):
        for k, t in enumerate(runs.topic.values):
            for j, d in enumerate(docnos.values[r, k]):
                out[r, topics.index(t), j] = where.get((t, d), -1) if d else -1
    return out


def test_judge_joins_codes_like_strings_and_dask_like_eager():
    pytest.importorskip("dask")
    col, runs = xdiv.datasets.synthetic(n_topics=5, n_runs=3, depth=40, seed=8)
    # a topic the collection lacks (99), and a collection topic no run has (5)
    frame = pd.concat([xdiv.runs_frame(runs),
                       pd.DataFrame({"run": "run01", "topic": "99", "docno": ["x", "y"],
                                     "rank": [1, 2], "score": [2.0, 1.0]})])
    runs = xdiv.build_runs(frame.query("topic != '5'"))
    eager = quiet(judge, runs, col)
    topics = eager.topic.values.tolist()
    assert topics == ["1", "2", "3", "4", "5", "99"]
    assert eager.slot.dims == ("run", "topic", "rank")
    assert eager.slot.values.tolist() == string_slots(runs, col, topics).tolist()
    assert 0 < int(eager.judged.sum()) < int(runs.length.sum())
    for chunks in ({"run": 1}, {"topic": 2}, {"rank": 7}):
        lazy = quiet(judge, runs.chunk(chunks), col)
        assert lazy.slot.chunks is not None
        xr.testing.assert_identical(lazy.compute(), eager)


def test_a_dask_backed_collection_is_judged_and_scored_as_in_memory(tmp_path):
    """A collection opened lazily from NetCDF, or chunked, is read into memory once
    (judging reads it whole): the judged cube, and the scores of measures of both kinds,
    are those of the collection in memory, with runs in memory or dask-backed."""
    pytest.importorskip("dask")
    col, runs = xdiv.datasets.synthetic(n_topics=6, n_runs=3, depth=20, seed=3)
    col.to_netcdf(tmp_path / "collection.nc")
    measures = ["nDCG@10", "alpha-nDCG@10", "ERR-IA@20", "AP", "D#-nDCG@10"]
    eager = quiet(xdiv.evaluate, runs, col, measures)
    with xr.open_dataset(tmp_path / "collection.nc", chunks={}) as opened:
        for lazy in (opened, col.chunk({"topic": 2}), col.chunk({"topic": 2, "doc": 3})):
            assert lazy["judgment"].chunks is not None
            xr.testing.assert_identical(quiet(judge, runs, lazy), quiet(judge, runs, col))
            for data in (runs, runs.chunk({"run": 1})):
                scores = quiet(xdiv.evaluate, data, lazy, measures).compute()
                xr.testing.assert_identical(without_provenance(scores),
                                            without_provenance(eager))


def test_judge_when_no_run_docno_is_judged():
    col = xdiv.build_collection(pd.DataFrame({"topic": "1", "intent": "1", "docno": ["a"],
                                              "level": [1]}))
    runs = xdiv.build_runs(pd.DataFrame({"run": "r", "topic": "1", "docno": ["b", "c"],
                                         "score": [2.0, 1.0]}))
    cube = quiet(judge, runs, col)
    assert cube.slot.values.tolist() == [[[-1, -1]]]
    assert not cube.judged.any()


@pytest.mark.parametrize("seed", range(6))
def test_judge_finds_each_judged_pair_whatever_topics_share_a_docno(seed):
    # docnos judged for several topics (up to all of them) exercise the binary search
    # among a code's topics; each slot is checked against a dictionary lookup
    rng = np.random.default_rng(seed)
    pool = [f"d{k}" for k in range(30)]
    topics = [str(t) for t in range(1, 8)]
    qrels = pd.DataFrame([(t, "0", d, 1) for t in topics
                          for d in rng.choice(pool, rng.integers(1, 25), replace=False)],
                         columns=["topic", "intent", "docno", "level"])
    run = pd.DataFrame([(r, t, d, float(s)) for r in ("a", "b") for t in topics[:-1]
                        for s, d in enumerate(rng.choice(pool + ["u1", "u2"], 12,
                                                         replace=False))],
                       columns=["run", "topic", "docno", "score"])
    collection = xdiv.build_collection(qrels)
    runs = xdiv.build_runs(run)
    cube = judge(runs, collection)
    where = {(t, d): k for t, row in zip(cube.topic.values, cube["docno"].values)
             for k, d in enumerate(row) if d != ""}
    docnos = xdiv.decode_docnos(runs).reindex(topic=cube.topic.values, fill_value="")
    for r in cube.run.values:
        for t in cube.topic.values:
            for k, d in enumerate(docnos.sel(run=r, topic=t).values):
                assert cube.slot.sel(run=r, topic=t).values[k] == where.get((t, d), -1)
