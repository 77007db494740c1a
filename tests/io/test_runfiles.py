"""Run sets read lazily, block by block (``read_runs(..., chunks={"run": k})``): the same
datasets and score cubes as the eager path, bit for bit, locally and on a
``dask.distributed`` cluster."""

from __future__ import annotations

import gzip
import json
import os
import warnings

import numpy as np
import pytest
import pandas as pd
import xarray as xr

import xdiv
from xdiv.errors import InputError, XdivWarning

from ..helpers import without_provenance

pytest.importorskip("dask")

MEASURES = ["nDCG@10", "AP", "alpha-nDCG@20", "ERR-IA@20", "D#-nDCG@10", "Q-IA@10",
            "RBP(p=0.8)", "GAP-IA"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Seven runs (gzip and plain, space- and tab-separated) over 12 topics; some runs
    skip topics, depths differ, scores tie, one run holds a topic the qrels lack."""
    folder = tmp_path_factory.mktemp("lazy")
    qrels, _, runs = xdiv.datasets.synthetic_frames(n_topics=12, n_runs=7, depth=30, seed=11)
    qpath = folder / "qrels.txt"
    xdiv.io.write_qrels(qpath, qrels)
    rng = np.random.default_rng(3)
    paths = []
    for k, (name, frame) in enumerate(runs.groupby("run")):
        keep = frame[frame["topic"] != str(1 + k % 12)]  # each run skips one topic
        keep = keep[keep["rank"] <= 30 - 3 * k]  # and has its own depth
        keep = keep.assign(score=np.round(keep["score"], 1))  # ties
        if k == 2:
            extra = keep.head(3).assign(topic="999")
            keep = pd.concat([keep, extra])
        path = folder / f"{name}.run"
        xdiv.io.write_run(path, keep)
        if k % 3 == 1:
            data = path.read_bytes().replace(b" ", b"\t")
            path.unlink()
            path = folder / f"{name}.run.gz"
            path.write_bytes(gzip.compress(data))
        paths.append(str(path))
    rng.shuffle(paths)
    return qpath, paths


def _read(paths, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XdivWarning)
        return xdiv.read_runs(paths, **kwargs)


def _evaluate(runs, qrels):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XdivWarning)
        return xdiv.evaluate(runs, xdiv.read_qrels(qrels), MEASURES)


@pytest.mark.parametrize("k", [1, 3, 7, 50])
def test_chunked_runs_equal_eager_runs(files, k):
    _, paths = files
    eager = _read(paths)
    lazy = _read(paths, chunks={"run": k})
    assert lazy["doc"].chunks[0] == tuple(min(k, 7 - s) for s in range(0, 7, k))
    assert lazy["length"].chunks is None  # known from the first pass
    # the same call (chunks change no number); only the eager runs' content is hashed
    assert json.loads(lazy.attrs["provenance"])["call"] == json.loads(
        eager.attrs["provenance"])["call"]
    xr.testing.assert_identical(without_provenance(lazy.compute()), without_provenance(eager))


@pytest.mark.parametrize("order", ["score-docno-asc", "rank"])
def test_chunked_runs_follow_the_ranking_convention(files, order):
    _, paths = files
    xr.testing.assert_identical(
        without_provenance(_read(paths, chunks={"run": 2}, order=order).compute()),
        without_provenance(_read(paths, order=order)))


def test_chunked_evaluation_is_identical_to_eager(files):
    qrels, paths = files
    eager = _evaluate(_read(paths), qrels)
    lazy = _evaluate(_read(paths, chunks={"run": 3}), qrels)
    assert lazy["score"].chunks is not None  # nothing computed yet
    xr.testing.assert_identical(without_provenance(lazy.compute()), without_provenance(eager))


def test_chunked_runs_stream_to_netcdf_and_back(files, tmp_path):
    _, paths = files
    eager = _read(paths)
    xdiv.to_netcdf(_read(paths, chunks={"run": 2}), tmp_path / "runs.nc")
    back = xdiv.open_dataset(tmp_path / "runs.nc")
    xr.testing.assert_identical(without_provenance(back), without_provenance(eager))
    # and the files written back from the cube read as the same runs
    written = []
    for name in eager["run"].values:
        written.append(tmp_path / f"{name}.back")
        xdiv.write_run(written[-1], back.sel(run=[name]))
    again = _read(written)
    assert again.attrs.pop("source") != eager.attrs["source"]
    assert again.attrs.pop("provenance") != eager.attrs["provenance"]  # other files
    xr.testing.assert_identical(again, eager.drop_attrs().assign_attrs(again.attrs))


def test_scores_on_a_local_distributed_cluster_are_identical(files, tmp_path):
    """Also written to NetCDF under the client, uncomputed: xarray then uses the
    ``distributed`` scheduler (xdiv defers that question only while dask is not
    imported, issue 35 item 18), and the file holds the eager cube."""
    distributed = pytest.importorskip("distributed")
    from xarray.backends import writers

    qrels, paths = files
    eager = _evaluate(_read(paths), qrels)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        cube = _evaluate(_read(paths, chunks={"run": 2}), qrels)
        scheduler = writers.get_dask_scheduler()
        xdiv.to_netcdf(cube, tmp_path / "lazy.nc")
        lazy = cube.compute()
    assert scheduler == "distributed"
    xr.testing.assert_identical(without_provenance(lazy), without_provenance(eager))
    written = xdiv.open_dataset(tmp_path / "lazy.nc")
    xdiv.to_netcdf(eager, tmp_path / "eager.nc")
    xr.testing.assert_identical(without_provenance(written),
                                without_provenance(xdiv.open_dataset(tmp_path / "eager.nc")))


def test_first_pass_gives_the_errors_and_warnings(files, tmp_path):
    _, paths = files
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 d1 1 2.0 t\n1 Q0 d2 2 x t\n")
    with pytest.raises(xdiv.ParseError, match=rf"^{bad}:2: score 'x' is not a valid float"):
        xdiv.read_runs([*paths, bad], chunks={"run": 2})
    untagged = tmp_path / "untagged.run"
    untagged.write_text("1 Q0 d1 1 2.0\n")
    with pytest.warns(XdivWarning, match="no run tag column") as caught:
        runs = xdiv.read_runs([untagged], chunks={"run": 1})
    assert len(caught) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        runs.compute()  # the blocks do not warn again


def test_a_file_changed_between_the_passes_is_named(tmp_path):
    path = tmp_path / "r.run"
    path.write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n")
    runs = xdiv.read_runs([path], chunks={"run": 1})
    path.write_text("1 Q0 d1 1 2.0 r\n1 Q0 d3 2 1.0 r\n")
    with pytest.raises(InputError, match=rf"{path}: a run file changed after "
                                         "xdiv.read_runs first read it"):
        runs.compute()


@pytest.mark.parametrize("chunks", [{"run": 0}, {"topic": 2}, {"run": 1.5}, 3])
def test_chunks_are_validated(files, chunks):
    with pytest.raises(InputError, match="chunks"):
        xdiv.read_runs(files[1], chunks=chunks)


def test_lazy_blocks_hold_one_block_of_files(files):
    # each block's task reads only its own files: the graph has one read task per block
    _, paths = files
    lazy = _read(paths, chunks={"run": 3})
    graph = dict(lazy["doc"].data.__dask_graph__())
    reads = [key for key in graph if str(key).startswith("xdiv-read-runs")
             or (isinstance(key, tuple) and str(key[0]).startswith("xdiv-read-runs"))]
    assert len(reads) == 3
    assert os.path.exists(paths[0])


def test_progress_advances_once_per_block(files, monkeypatch):
    import xdiv.io.runfiles

    steps = []

    class Recording(xdiv.io.runfiles.tqdm):
        def update(self, n=1):
            steps.append((getattr(self, "desc", None), n))  # a disabled bar has none
            return super().update(n)

    monkeypatch.setattr(xdiv.io.runfiles, "tqdm", Recording)
    qrels, paths = files
    runs = _read(paths, chunks={"run": 3}, progress=True)
    scores = _evaluate(runs, qrels)
    with xdiv.io.runfiles.block_progress(runs):
        scores.compute()
    assert [n for desc, n in steps if desc == "evaluating"] == [1, 1, 1]  # 7 runs by 3
    assert [n for desc, n in steps if desc == "checking runs"] == [1] * 7  # one per file


def test_command_line_chunks_print_what_the_eager_call_prints(files, capsys):
    from xdiv.cli import main

    qrels, paths = files
    args = ["evaluate", str(qrels), *paths, "-m", "nDCG@10", "alpha-nDCG@20", "--per-topic",
            "--format", "tsv", "-q"]
    assert main(args) == 0
    eager = capsys.readouterr().out
    assert main([*args, "--chunks", "2"]) == 0
    assert capsys.readouterr().out == eager
    with pytest.raises(SystemExit) as stop:
        main([*args, "--chunks", "0"])
    assert stop.value.code == 2 and "must be at least 1" in capsys.readouterr().err


def test_eager_evaluation_progress_advances_once_per_measure(files, monkeypatch):
    import importlib

    module = importlib.import_module("xdiv.engine")

    steps = []

    class Recording(module.tqdm):
        def __iter__(self):
            for item in super().__iter__():
                steps.append(self.disable)
                yield item

    monkeypatch.setattr(module, "tqdm", Recording)
    qrels, paths = files
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XdivWarning)
        quiet = xdiv.evaluate(_read(paths), xdiv.read_qrels(qrels), MEASURES)
        shown = xdiv.evaluate(_read(paths), xdiv.read_qrels(qrels), MEASURES, progress=True)
    assert steps == [True] * len(MEASURES) + [False] * len(MEASURES)
    xr.testing.assert_identical(quiet, shown)
