"""Diversity and single-intent measures in one score cube.

A single-intent measure reads a diversity collection through its ``adhoc`` conversion
(its own ``nDCG(adhoc=count)@10``, else evaluate's ``adhoc`` / ``--adhoc``, else max);
diversity and intent-aware measures always read the per-intent levels. The oracle is the
pair of separate calls a user made before: the diversity measures on the collection, and
the single-intent ones on the collection converted by :func:`xdiv.to_adhoc` (or ``xdiv
convert --adhoc``).
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import xarray as xr
import pytest

import xdiv
from xdiv.cli import main
from xdiv.core.adhoc import adhoc_judgments

DIVERSITY = ["alpha-nDCG@20", "ERR-IA@20", "D#-nDCG@10", "nDCG-IA@10", "I-rec@10", "Ef-P@10"]
SINGLE = ["nDCG@20", "AP", "P@10", "bpref", "Rprec", "Judged@10", "NumRelRet", "RR", "Q@10"]


def _evaluate(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        return xdiv.evaluate(*args, **kwargs)


@pytest.fixture(scope="module")
def synthetic():
    """Graded intents, nav/inf types, -2 spam lines, unjudged documents, ties."""
    return xdiv.datasets.synthetic(n_topics=10, n_runs=4, depth=60, seed=5)


def _same(a, b) -> None:
    np.testing.assert_array_equal(a.score.values, b.score.values)


@pytest.mark.parametrize("method", [None, "max", "count"])
def test_one_call_gives_the_two_separate_calls(synthetic, method):
    col, runs = synthetic
    mixed = _evaluate(runs, col, DIVERSITY + SINGLE, adhoc=method)
    diversity = _evaluate(runs, col, DIVERSITY)
    single = _evaluate(runs, xdiv.to_adhoc(col, method or "max"), SINGLE)
    _same(mixed.sel(metric=DIVERSITY), diversity)
    _same(mixed.sel(metric=SINGLE), single)
    assert list(mixed.metric.values) == DIVERSITY + SINGLE
    assert np.isfinite(mixed.score.values).any()


def test_the_conversions_differ_and_a_measure_may_choose_its_own(synthetic):
    col, runs = synthetic
    mixed = _evaluate(runs, col, ["nDCG@10", "nDCG(adhoc=max)@10", "alpha-nDCG@10"],
                      adhoc="count")
    by_count = _evaluate(runs, xdiv.to_adhoc(col, "count"), ["nDCG@10"])
    by_max = _evaluate(runs, xdiv.to_adhoc(col, "max"), ["nDCG@10"])
    _same(mixed.sel(metric=["nDCG@10"]), by_count)
    _same(mixed.sel(metric=["nDCG(adhoc=max)@10"]), by_max)
    assert not np.allclose(by_count.score.values, by_max.score.values, equal_nan=True)
    assert list(mixed.canonical.values) == ["nDCG@10", "nDCG(adhoc=max)@10", "alpha-nDCG@10"]


def test_adhoc_never_changes_a_diversity_measure(synthetic):
    col, runs = synthetic
    alone = _evaluate(runs, col, DIVERSITY)
    for method in ("max", "count"):
        _same(_evaluate(runs, col, DIVERSITY, adhoc=method), alone)
    # what converting the whole collection did to them: a different (single-intent) score
    converted = _evaluate(runs, xdiv.to_adhoc(col, "max"), ["alpha-nDCG@20"])
    assert not np.allclose(converted.score.values,
                           alone.score.sel(metric=["alpha-nDCG@20"]).values, equal_nan=True)


def test_params_record_each_measures_conversion(synthetic, tmp_path):
    col, runs = synthetic
    scores = _evaluate(runs, col, ["alpha-nDCG@20", "nDCG@20", "AP(adhoc=count)", "bpref"],
                       adhoc="max")
    path = xdiv.to_netcdf(scores, tmp_path / "mixed.nc")
    params = [json.loads(p) for p in xdiv.open_dataset(path).params.values]
    assert "adhoc" not in params[0]
    assert [p["adhoc"] for p in params[1:]] == ["max", "count", "max"]
    assert scores.attrs["adhoc"] == "max"
    default = _evaluate(runs, col, ["nDCG@20"])
    assert json.loads(str(default.params.values[0]))["adhoc"] == "max"
    assert default.attrs["adhoc"] == ""


def test_adhoc_collections_read_the_same_under_max(synthetic):
    col, runs = synthetic
    adhoc = xdiv.to_adhoc(col, "max")  # graded single-intent levels
    _same(_evaluate(runs, adhoc, SINGLE), _evaluate(runs, adhoc, SINGLE, adhoc="max"))
    # count binarises graded adhoc levels, as to_adhoc(..., "count") does
    _same(_evaluate(runs, adhoc, ["nDCG@20"], adhoc="count"),
          _evaluate(runs, xdiv.to_adhoc(adhoc, "count"), ["nDCG@20"]))


def test_bad_conversions_are_errors(synthetic):
    col, runs = synthetic
    with pytest.raises(xdiv.InputError, match="adhoc must be"):
        xdiv.evaluate(runs, col, ["nDCG@10"], adhoc="mean")
    with pytest.raises(xdiv.MeasureError, match="expected one of max, count"):
        xdiv.evaluate(runs, col, ["nDCG(adhoc=mean)@10"])
    with pytest.raises(xdiv.MeasureError, match="unknown parameter 'adhoc'"):
        xdiv.evaluate(runs, col, ["alpha-nDCG(adhoc=max)@10"])


def _cli_cube(tmp_path, name, *args):
    out = tmp_path / f"{name}.nc"
    assert main(["-q", "evaluate", *args, "-o", str(out)]) == 0
    return xdiv.open_dataset(out)


@pytest.mark.parametrize("method", [None, "count"])
def test_command_line_mixes_both_kinds(tmp_path, capsys, method):
    files = xdiv.datasets.write_synthetic(tmp_path / "data", n_topics=8, n_runs=3, depth=40,
                                          seed=2)
    qrels, runs = files["qrels"], files["runs"]
    option = ["--adhoc", method] if method else []
    mixed = _cli_cube(tmp_path, "mixed", qrels, *runs, "-m", "alpha-nDCG@20", "ERR-IA@20",
                      "nDCG@20", "AP", "bpref", *option)
    diversity = _cli_cube(tmp_path, "div", qrels, *runs, "-m", "alpha-nDCG@20", "ERR-IA@20")
    adhoc = tmp_path / "adhoc.txt"
    assert main(["-q", "convert", qrels, "--adhoc", method or "max", "-o", str(adhoc)]) == 0
    single = _cli_cube(tmp_path, "single", str(adhoc), *runs, "-m", "nDCG@20", "AP", "bpref")
    _same(mixed.sel(metric=["alpha-nDCG@20", "ERR-IA@20"]), diversity)
    _same(mixed.sel(metric=["nDCG@20", "AP", "bpref"]), single)
    conversions = [json.loads(p).get("adhoc") for p in mixed.params.values]
    assert conversions == [None, None] + [method or "max"] * 3
    capsys.readouterr()


def test_trec2009_alpha_ndcg_is_unchanged_by_adhoc(trec2009):
    col, runs = trec2009
    runs = runs.sel(run=["MSRABASE", "watd1"])
    mixed = _evaluate(runs, col, ["alpha-nDCG@20", "ERR-IA@20", "nDCG@20", "AP"], adhoc="max")
    _same(mixed.sel(metric=["alpha-nDCG@20", "ERR-IA@20"]),
          _evaluate(runs, col, ["alpha-nDCG@20", "ERR-IA@20"]))
    _same(mixed.sel(metric=["nDCG@20", "AP"]),
          _evaluate(runs, xdiv.to_adhoc(col, "max"), ["nDCG@20", "AP"]))
    converted = _evaluate(runs, xdiv.to_adhoc(col, "max"), ["alpha-nDCG@20"])
    mean = float(mixed.score.sel(metric="alpha-nDCG@20", run="MSRABASE").mean())
    assert abs(mean - float(converted.score.sel(run="MSRABASE").mean())) > 0.1


def test_dask_backed_runs_give_the_same_mixed_cube(synthetic):
    col, runs = synthetic
    names = DIVERSITY + SINGLE + ["AP(adhoc=count)"]
    lazy = _evaluate(runs.chunk({"run": 1}), col, names)
    assert not isinstance(lazy.score.data, np.ndarray)
    _same(lazy.compute(), _evaluate(runs, col, names))


@pytest.mark.parametrize("method", ["max", "count"])
def test_the_judged_cube_read_as_adhoc_is_the_cube_of_the_converted_collection(synthetic,
                                                                               method):
    """Every variable of the judged cube converted (xdiv.core.adhoc.adhoc_judgments) is
    identical (values, dtypes, dimensions, coordinates) to that of the runs
    judged against the collection converted first (xdiv.to_adhoc); dask-backed runs,
    or a judged cube dask-backed throughout (its collection parts too), stay lazy and give
    the same cube."""
    col, runs = synthetic
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        converted = adhoc_judgments(xdiv.judge(runs, col), method)
        expected = xdiv.judge(runs, xdiv.to_adhoc(col, method))
        lazy = adhoc_judgments(xdiv.judge(runs.chunk({"run": 1}), col), method)
        whole = adhoc_judgments(xdiv.judge(runs, col).chunk({"topic": 2, "doc": 3}), method)
    assert set(converted.variables) == set(expected.variables)
    for name in expected.variables:
        assert converted[name].dtype == expected[name].dtype, name
    xr.testing.assert_identical(converted.drop_attrs(), expected.drop_attrs())
    assert not isinstance(lazy["level"].data, np.ndarray)
    xr.testing.assert_identical(lazy.compute(), converted)
    assert not isinstance(whole["ideal_level"].data, np.ndarray)
    xr.testing.assert_identical(whole.compute(), converted)
