"""The streaming evaluation (xdiv.engine.evaluate_files, ``xdiv evaluate --stream``): run
files read and scored block by block give the score cube of the all-in-memory evaluation,
bit for bit and attributes included, with the same warnings and one-line errors; the
eager reader, which now codes groups of files in worker threads, gives the same Runs
dataset whatever the grouping; and large in-memory run sets, which :func:`xdiv.evaluate`
scores a block of runs at a time, give the cube of one pass."""

from __future__ import annotations

import glob
import tracemalloc
import warnings

import numpy as np
import pytest
import xarray as xr

import xdiv
import xdiv.io.runfiles as runfiles
from xdiv import engine
from xdiv.cli import main
from xdiv.engine import evaluate_files
from xdiv.errors import InputError, ParseError

from ..conftest import require_trec_2009
from ..helpers import without_provenance

MEASURES = ["ndeval", "nDCG(gain=linear)@10", "AP", "alpha-nDCG@20", "P@5", "D#-nDCG@10",
            "Ef-P@5"]


@pytest.fixture(scope="module")
def uneven_files(tmp_path_factory):
    """Qrels, topics and six run files whose run names sort otherwise than their file
    names; the runs differ in depth and topics (one lacks judged topics, one retrieves a
    topic the qrels do not have, one ranks by a rank column that disagrees with its
    scores, one retrieves nothing judged), and scores tie."""
    folder = tmp_path_factory.mktemp("uneven")
    qrels, _, runs = xdiv.datasets.synthetic_frames(n_topics=7, n_runs=6, depth=30,
                                                         seed=11)
    xdiv.io.write_qrels(folder / "qrels.txt", qrels)
    names = sorted(runs["run"].unique())
    paths = []
    for k, name in enumerate(names):
        frame = runs[runs["run"] == name].copy()
        frame["score"] = frame["score"].round(1)  # ties, broken by docno
        if k == 0:  # shallower, and lacking two judged topics
            frame = frame[(frame["rank"] <= 12) & ~frame["topic"].isin(["2", "5"])]
        if k == 1:  # a topic the qrels do not have
            extra = frame[frame["topic"] == frame["topic"].iloc[0]].copy()
            extra["topic"] = "99"
            frame = xdiv_concat(frame, extra)
        if k == 2:  # the rank column disagrees with the scores on one topic
            first = frame["topic"] == frame["topic"].iloc[0]
            frame.loc[first, "rank"] = frame.loc[first, "rank"].to_numpy()[::-1]
        if k == 3:  # nothing judged
            frame["docno"] = "unjudged-" + frame["docno"].astype(str)
        frame["run"] = f"r{(k * 7) % 6}-{name}"
        path = folder / f"file{k}.run"
        xdiv.io.write_run(path, frame)
        paths.append(str(path))
    return folder / "qrels.txt", paths


def xdiv_concat(*frames):
    import pandas as pd

    return pd.concat(frames, ignore_index=True)


def _recorded(fn, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(*args, **kwargs)
    return result, [(w.category, str(w.message)) for w in caught]


def _eager(paths, collection, metrics, **kwargs):
    read = {k: kwargs.pop(k) for k in ("order", "duplicates") if k in kwargs}
    return xdiv.evaluate(xdiv.read_runs(paths, **read), collection, metrics, **kwargs)


@pytest.fixture(scope="module")
def uneven_eager(uneven_files):
    """The all-in-memory evaluation of the uneven files (and its warnings) per
    ``missing``, made once for every block size."""
    qrels, paths = uneven_files
    collection = xdiv.read_qrels(qrels)
    return {missing: _recorded(_eager, paths, collection, MEASURES, missing=missing)
            for missing in ("zero", "nan")}


@pytest.mark.parametrize("block", [1, 2, 4, None])
@pytest.mark.parametrize("missing", ["zero", "nan"])
def test_streamed_cube_and_warnings_are_the_eager_ones(uneven_files, uneven_eager, block,
                                                        missing):
    qrels, paths = uneven_files
    collection = xdiv.read_qrels(qrels)
    eager, eager_warnings = uneven_eager[missing]
    streamed, streamed_warnings = _recorded(evaluate_files, paths, collection, MEASURES,
                                            missing=missing, block=block)
    xr.testing.assert_identical(streamed, eager)
    assert [str(r) for r in streamed["run"].values] == xdiv.core.labels.natural_sorted(
        streamed["run"].values)
    assert streamed_warnings == eager_warnings
    messages = " ".join(message for _, message in eager_warnings)
    for expected in ("rank column", "no judged document", "not in the qrels",
                     "retrieved nothing", "without a topic file"):
        assert expected in messages  # the fixture exercises every set-wide warning


@pytest.mark.parametrize("order", ["rank", "score-docno-asc"])
def test_orders_and_kept_duplicates_stream_identically(uneven_files, tmp_path, order):
    qrels, paths = uneven_files
    doubled = tmp_path / "doubled.run"
    lines = open(paths[4]).read().splitlines()
    doubled.write_text("\n".join(lines + lines[:3]) + "\n")  # three documents twice
    files = [*paths[:4], *paths[5:], str(doubled)]  # in place of its original
    collection = xdiv.read_qrels(qrels)
    options = {"order": order, "duplicates": "first"}
    eager, eager_warnings = _recorded(_eager, files, collection, ["AP", "ERR-IA@10"],
                                      **options)
    streamed, streamed_warnings = _recorded(evaluate_files, files, collection,
                                            ["AP", "ERR-IA@10"], block=3, **options)
    xr.testing.assert_identical(streamed, eager)
    assert sorted(streamed_warnings, key=str) == sorted(eager_warnings, key=str)
    assert any("highest-ranked occurrence" in m for _, m in streamed_warnings)


def test_run_names_repeated_across_blocks_are_an_error(uneven_files, tmp_path):
    qrels, paths = uneven_files
    copy = tmp_path / "copy.run"
    copy.write_text(open(paths[0]).read())
    with pytest.raises(InputError, match=r"copy\.run: run name .* is also the name of "
                                         r".*file0\.run"):
        evaluate_files([paths[0], *paths[1:], str(copy)], xdiv.read_qrels(qrels), ["AP"],
                       block=1)


def test_a_bad_line_in_a_later_block_names_its_file_and_line(uneven_files, tmp_path):
    qrels, paths = uneven_files
    bad = tmp_path / "bad.run"
    lines = open(paths[1]).read().splitlines()
    lines[6] = lines[6].replace(" Q0 ", " Q0 x ")
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(ParseError) as caught:
        evaluate_files([*paths, str(bad)], xdiv.read_qrels(qrels), ["AP"], block=2)
    assert str(caught.value).startswith(f"{bad}:7: expected 5 or 6")
    assert "\n" not in str(caught.value)


def test_duplicates_error_streams_as_eager(uneven_files, tmp_path):
    qrels, paths = uneven_files
    doubled = tmp_path / "doubled.run"
    lines = open(paths[2]).read().splitlines()
    doubled.write_text("\n".join(lines + lines[:1]) + "\n")
    files = [*paths[:2], *paths[3:], str(doubled)]  # in place of its original
    with pytest.raises(InputError) as eager:
        xdiv.read_runs(files)
    with pytest.raises(InputError) as streamed:
        evaluate_files(files, xdiv.read_qrels(qrels), ["AP"], block=2)
    assert str(streamed.value) == str(eager.value)
    assert str(streamed.value).startswith(str(doubled))


def test_bad_arguments_are_refused_before_reading(uneven_files):
    qrels, paths = uneven_files
    collection = xdiv.read_qrels(qrels)
    with pytest.raises(InputError, match="block must be a positive integer"):
        evaluate_files(paths, collection, ["AP"], block=0)
    with pytest.raises(InputError, match="missing must be"):
        evaluate_files(paths, collection, ["AP"], missing="none")
    with pytest.raises(xdiv.XdivError):
        evaluate_files(paths, collection, ["no-such-measure@3"])


def test_eager_reader_groups_do_not_change_the_runs(uneven_files, monkeypatch):
    _, paths = uneven_files
    whole = xdiv.read_runs(paths, order="rank")
    monkeypatch.setattr(runfiles, "_GROUP_BYTES", 1)  # one file a group, then merged
    grouped = xdiv.read_runs(paths, order="rank")
    xr.testing.assert_identical(grouped, whole)
    assert np.array_equal(grouped["doc"].values, whole["doc"].values)


def test_run_blocks_hold_the_files_of_each_block(uneven_files):
    _, paths = uneven_files
    blocks = list(runfiles.read_run_blocks(paths, block=4))
    assert [b.sizes["run"] for b in blocks] == [4, 2]
    for block in blocks:
        vocabulary = block["docno"].values
        assert (vocabulary[1:] > vocabulary[:-1]).all()


def test_the_command_line_streams_large_run_sets_and_on_request(uneven_files, tmp_path,
                                                                  monkeypatch, capsys):
    import xdiv.cli.evaluate as command

    qrels, paths = uneven_files
    outputs = {}
    for name, flags in (("eager", ["--no-stream"]), ("stream", ["--stream"]),
                        ("auto", [])):
        if name == "auto":
            monkeypatch.setattr(command, "STREAM_BYTES", 0)  # every run set is large
            calls = []
            original = xdiv.engine.evaluate_files
            monkeypatch.setattr(xdiv.engine, "evaluate_files",
                                lambda *a, **k: calls.append(1) or original(*a, **k))
        out = tmp_path / f"{name}.nc"
        assert main(["-q", "evaluate", str(qrels), *paths, "-m", "AP", "nDCG@10",
                     "--per-topic", "-o", str(out), *flags]) == 0
        outputs[name] = (capsys.readouterr().out, xdiv.open_dataset(out))
    assert calls == [1]
    assert outputs["stream"][0] == outputs["eager"][0] == outputs["auto"][0]
    # the provenance records the two command lines, which differ by the flag
    xr.testing.assert_identical(without_provenance(outputs["stream"][1]),
                                without_provenance(outputs["eager"][1]))
    assert main(["-q", "evaluate", str(qrels), *paths, "-m", "AP", "--stream",
                 "--chunks", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("xdiv: error: --stream and --chunks") and err.count("\n") == 1


@pytest.mark.filterwarnings("ignore::xdiv.XdivWarning")
def test_real_trec_2009_runs_stream_identically():
    root = require_trec_2009()
    files = sorted(glob.glob(str(root / "runs" / "*.gz")))
    collection = xdiv.read_qrels(root / "qrels.diversity.gz",
                                 topics=root / "wt09.topics.full.xml")
    metrics = ["ndeval", "nDCG@10", "AP", "ERR-IA@20", "D#-nDCG@10"]
    eager, eager_warnings = _recorded(_eager, files, collection, metrics)
    for block in (1, 4, None):
        streamed, streamed_warnings = _recorded(evaluate_files, files, collection, metrics,
                                                block=block)
        xr.testing.assert_identical(streamed, eager)
        assert streamed_warnings == eager_warnings
    for order in ("rank", "score-docno-asc"):
        xr.testing.assert_identical(
            evaluate_files(files, collection, ["ndeval"], order=order, block=5),
            _eager(files, collection, ["ndeval"], order=order))


OPTIONS = [{}, {"missing": "nan"}, {"ties": "range"}, {"residuals": True},
           {"judged_only": True}, {"adhoc": "count"}]


@pytest.mark.parametrize("options", OPTIONS,
                         ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
def test_in_memory_runs_scored_in_blocks_give_the_cube_of_one_pass(uneven_files, monkeypatch,
                                                                   options):
    """Large in-memory run sets are scored a block of runs at a time: two runs a block, one
    (on runs out of natural order) and all at once give identical cubes and warnings,
    runs kept in the dataset's order."""
    qrels, paths = uneven_files
    collection = xdiv.read_qrels(qrels)
    runs = xdiv.read_runs(paths)
    shuffled = runs.isel(run=[3, 0, 5, 1, 4, 2])  # not in natural order
    per_run = runs.sizes["topic"] * runs.sizes["rank"]
    for data, cells in ((runs, 2 * per_run), (shuffled, 1)):
        monkeypatch.setattr(engine, "BLOCK_CELLS", 1 << 40)
        whole, whole_warnings = _recorded(xdiv.evaluate, data, collection, MEASURES,
                                          **options)
        monkeypatch.setattr(engine, "BLOCK_CELLS", cells)
        blocked, blocked_warnings = _recorded(xdiv.evaluate, data, collection, MEASURES,
                                              **options)
        xr.testing.assert_identical(blocked, whole)
        assert blocked_warnings == whole_warnings
    assert [str(r) for r in blocked["run"].values] == [str(r) for r in shuffled["run"].values]
    # a stream's blocks of files are scored in blocks of runs too
    streamed, streamed_warnings = _recorded(evaluate_files, paths, collection, MEASURES,
                                            block=4, **options)
    xr.testing.assert_identical(streamed, _recorded(xdiv.evaluate, runs, collection,
                                                    MEASURES, **options)[0])


def test_blocks_bound_the_memory_of_an_evaluation(monkeypatch):
    """The measures' intermediate arrays of a block, not of the whole run set: the peak of
    NumPy's allocations (traced) falls with the block size."""
    collection, runs = xdiv.datasets.synthetic(n_topics=20, n_runs=24, depth=400, seed=3)
    peaks = {}
    for cells in (1 << 40, 2 * runs.sizes["topic"] * runs.sizes["rank"]):
        monkeypatch.setattr(engine, "BLOCK_CELLS", cells)
        tracemalloc.start()
        try:
            xdiv.evaluate(runs, collection, ["nDCG@10", "AP", "alpha-nDCG@20"])
            peaks[cells] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    whole, blocked = peaks.values()
    assert blocked < whole / 4, peaks


@pytest.mark.filterwarnings("ignore::xdiv.XdivWarning")
def test_real_trec_2009_runs_scored_in_blocks_identically(monkeypatch):
    root = require_trec_2009()
    collection = xdiv.read_qrels(root / "qrels.diversity.gz",
                                 topics=root / "wt09.topics.full.xml")
    runs = xdiv.read_runs(sorted(glob.glob(str(root / "runs" / "*.gz"))))
    metrics = ["nDCG@10", "AP", "alpha-nDCG@20", "ERR-IA@20", "D#-nDCG@10", "bpref"]
    monkeypatch.setattr(engine, "BLOCK_CELLS", 1 << 40)
    whole = xdiv.evaluate(runs, collection, metrics, residuals=True)
    monkeypatch.setattr(engine, "BLOCK_CELLS", 5 * runs.sizes["topic"] * runs.sizes["rank"])
    xr.testing.assert_identical(xdiv.evaluate(runs, collection, metrics, residuals=True),
                                whole)
