"""``xdiv pools leave-one-out`` and ``xdiv pools downsample``: the printed table and the
NetCDF written agree with :mod:`xdiv.pools` on the same files, bad input gives the
Python functions' one-line errors, ``xdiv report --pools`` reads the results, and the
command's help loads none of the heavy libraries."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xdiv
from xdiv.cli import main

from .test_lean_start import _start

MEASURES = ["alpha-nDCG@10", "nDCG@10"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pools")
    paths = xdiv.datasets.write_synthetic(folder, n_topics=6, n_runs=4, depth=15, seed=2)
    return folder, paths["qrels"], paths["runs"]


@pytest.fixture(scope="module")
def read(files):
    _, qrels, runs = files
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        return xdiv.read_qrels(qrels), xdiv.read_runs(runs)


def _table(text: str) -> pd.DataFrame:
    """The TSV a command printed, as a frame indexed by its first column."""
    return pd.read_csv(io.StringIO(text), sep="\t", index_col=0)


def _error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_leave_one_out_round_trip(files, read, tmp_path, capsys):
    _, qrels, runs = files
    out = tmp_path / "loo.nc"
    assert main(["-q", "pools", "leave-one-out", qrels, *runs, "-m", *MEASURES,
                 "--depth", "5", "--format", "tsv", "-o", str(out)]) == 0
    printed = _table(capsys.readouterr().out)
    expected = xdiv.pools.leave_one_run_out(read[1], read[0], MEASURES, depth=5)
    written = xdiv.open_dataset(out)
    for name in ("score", "score_loo", "difference", "mean_difference", "n_removed",
                 "n_removed_relevant", "n_unique", "removed"):
        xr.testing.assert_allclose(written[name], expected[name])
    assert written.attrs["depth"] == 5 and written.attrs["collection"] == qrels
    change = expected["mean_difference"].sel(metric=MEASURES[0]).to_series()
    assert printed.index.tolist() == change.sort_values(kind="stable").index.tolist()
    for metric in MEASURES:
        np.testing.assert_allclose(
            printed[metric], expected["mean_difference"].sel(
                metric=metric, run=printed.index.tolist()).values, atol=1e-6)
    assert printed["removed"].tolist() == expected["n_removed"].sel(
        run=printed.index.tolist()).values.tolist()


def test_leave_one_group_out(files, read, tmp_path, capsys):
    _, qrels, runs = files
    names = [str(r) for r in read[1]["run"].values]
    groups = {run: ("A" if k < 2 else "B") for k, run in enumerate(names)}
    path = tmp_path / "groups.txt"
    path.write_text("# run group\n" + "".join(f"{r} {g}\n" for r, g in groups.items()))
    assert main(["-q", "pools", "leave-one-out", qrels, *runs, "-m", MEASURES[0],
                 "--depth", "5", "--groups", str(path), "--format", "tsv"]) == 0
    printed = _table(capsys.readouterr().out)
    expected = xdiv.pools.leave_one_run_out(read[1], read[0], MEASURES[0], depth=5,
                                            groups=groups)
    assert printed["group"].to_dict() == groups
    np.testing.assert_allclose(
        printed[MEASURES[0]], expected["mean_difference"].sel(
            metric=MEASURES[0], run=printed.index.tolist()).values, atol=1e-6)

    path.write_text(f"{names[0]} A extra\n")
    assert main(["pools", "leave-one-out", qrels, *runs, "-m", MEASURES[0], "--depth", "5",
                 "--groups", str(path)]) == 2
    assert _error(capsys) == (f"xdiv: error: {path}:1: expected 'run group', found 3 "
                              "field(s)")
    path.write_text(f"{names[0]} A\n")
    assert main(["-q", "pools", "leave-one-out", qrels, *runs, "-m", MEASURES[0],
                 "--depth", "5", "--groups", str(path)]) == 2
    assert "run(s) have no group" in _error(capsys)


def test_downsample_round_trip(files, read, tmp_path, capsys):
    _, qrels, runs = files
    out = tmp_path / "down.nc"
    assert main(["-q", "pools", "downsample", qrels, *runs, "-m", *MEASURES, "--fractions",
                 "0.5", "0.2", "1", "--repeats", "2", "--seed", "4", "--tau", "tau_ap_b",
                 "--format", "tsv", "-o", str(out)]) == 0
    printed = _table(capsys.readouterr().out)
    expected = xdiv.pools.downsample(read[1], read[0], MEASURES, fractions=[0.5, 0.2, 1.0],
                                     repeats=2, seed=4, tau="tau_ap_b")
    written = xdiv.open_dataset(out)
    for name in ("mean", "kendall", "tau_ap", "tau_ap_b", "full_mean", "n_kept"):
        xr.testing.assert_allclose(written[name], expected[name])
    assert written.attrs["seed"] == 4 and written.attrs["repeats"] == 2
    assert printed.index.tolist() == [0.2, 0.5, 1.0]
    assert printed["judged kept"].tolist() == expected["n_kept"].sum("topic").values.tolist()
    for metric in MEASURES:
        for coefficient in ("kendall", "tau_ap", "tau_ap_b"):
            np.testing.assert_allclose(
                printed[f"{metric} {coefficient}"],
                expected[coefficient].sel(metric=metric).mean("repeat").values, atol=1e-6)


@pytest.mark.parametrize("action, options, call", [
    ("leave-one-out", ["--depth", "16"], {"depth": 16}),
    ("leave-one-out", ["--depth", "0"], {"depth": 0}),
    ("downsample", ["--fractions", "0.5", "1.5"], {"fractions": [0.5, 1.5]}),
    ("downsample", ["--fractions", "0"], {"fractions": [0.0]}),
    ("downsample", ["--repeats", "0"], {"repeats": 0}),
])
def test_bad_input_gives_the_python_functions_error(files, read, tmp_path, capsys, action,
                                                    options, call):
    _, qrels, runs = files
    function = {"leave-one-out": xdiv.pools.leave_one_run_out,
                "downsample": xdiv.pools.downsample}[action]
    with pytest.raises(xdiv.InputError) as raised:
        function(read[1], read[0], MEASURES[0], **call)
    out = tmp_path / "never.nc"
    assert main(["-q", "pools", action, qrels, *runs, "-m", MEASURES[0], *options,
                 "-o", str(out)]) == 2
    assert _error(capsys) == f"xdiv: error: {raised.value}"
    assert not out.exists()


def test_the_deepest_run_is_named(files, capsys):
    _, qrels, runs = files
    assert main(["-q", "pools", "leave-one-out", qrels, *runs, "-m", MEASURES[0],
                 "--depth", "16"]) == 2
    assert _error(capsys).startswith("xdiv: error: the pool depth 16 exceeds the deepest "
                                     "run's depth, 15")


def test_an_action_is_needed(capsys):
    with pytest.raises(SystemExit) as stop:  # a usage error, as any missing argument
        main(["pools"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: xdiv pools ")
    assert err.endswith("xdiv pools: error: needs an action: leave-one-out or downsample "
                        "(xdiv pools --help)\n")


def test_report_reads_the_pool_studies(files, tmp_path, capsys):
    _, qrels, runs = files
    cube, loo, down = tmp_path / "s.nc", tmp_path / "loo.nc", tmp_path / "down.nc"
    assert main(["-q", "evaluate", qrels, *runs, "-m", *MEASURES, "--ties", "range",
                 "--residuals", "-o", str(cube)]) == 0
    assert main(["-q", "pools", "leave-one-out", qrels, *runs, "-m", *MEASURES,
                 "--depth", "5", "-o", str(loo)]) == 0
    assert main(["-q", "pools", "downsample", qrels, *runs, "-m", MEASURES[0],
                 "--fractions", "0.5", "1", "--repeats", "2", "-o", str(down)]) == 0
    capsys.readouterr()
    page = tmp_path / "r.html"
    assert main(["-q", "report", str(cube), "-o", str(page), "--pools", str(loo),
                 str(down)]) == 0
    text = page.read_text(encoding="utf-8")
    for title in ("Ties", "Unjudged documents", "Pool studies"):
        assert f"<h2>{title}</h2>" in text
    assert "Leave one run out (pool depth 5)" in text and "Judgment downsampling" in text
    capsys.readouterr()

    other = tmp_path / "other.html"
    assert main(["-q", "report", str(cube), "-o", str(other), "--pools", str(loo),
                 str(cube)]) == 2
    assert _error(capsys).startswith(f"xdiv: error: {cube}: not a pool study")
    bad = tmp_path / "bad.nc"
    bad.write_text("not NetCDF\n")
    assert main(["-q", "report", str(cube), "-o", str(other), "--pools", str(bad)]) == 2
    assert _error(capsys).startswith(f"xdiv: error: {bad}: ")
    assert not other.exists()
    assert main(["-q", "report", str(cube), "-o", str(loo), "--pools", str(loo)]) == 2
    assert "is an input of this command" in _error(capsys)


@pytest.mark.parametrize("command", ["pools", "pools leave-one-out", "pools downsample"])
def test_help_loads_no_heavy_library(command):
    status, out, loaded = _start(*command.split(), "--help")
    assert (status, loaded) == (0, [])
    assert out.startswith(f"usage: xdiv {command}")
