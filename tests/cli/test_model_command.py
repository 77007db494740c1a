"""``xdiv model``: the tables print what :func:`xdiv.stats.mixed` and
:func:`xdiv.stats.anova` give, the NetCDF output is that dataset, several cubes are
several collections, and bad input is one line without a traceback."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import xdiv
from xdiv import stats
from xdiv.cli import main


@pytest.fixture(scope="module")
def cubes(tmp_path_factory):
    folder = tmp_path_factory.mktemp("model")
    paths = []
    for seed in (4, 5):
        col, runs = xdiv.datasets.synthetic(n_topics=15, n_runs=5, depth=20, seed=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", xdiv.XdivWarning)
            scores = xdiv.evaluate(runs, col, ["alpha-nDCG@10", "I-rec@10"])
        paths.append(folder / f"scores{seed}.nc")
        xdiv.to_netcdf(scores, paths[-1])
    return paths


def _quiet(function, *args, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        return function(*args, **options)


def test_prints_the_models_runs_contrasts_and_variances(cubes, capsys):
    assert main(["-q", "model", str(cubes[0]), "-m", "alpha-nDCG@10"]) == 0
    out = capsys.readouterr().out
    model = _quiet(stats.mixed, xdiv.open_dataset(cubes[0]), "alpha-nDCG@10")
    for run in model["run"].values:
        assert f"{float(model['mean'].sel(run=run)):.4f}" in out
    assert f"{float(model['topic_variance']):.4f}" in out
    assert "single-step Tukey" in out
    # 5 runs: C(5, 2) = 10 pairs, each once
    assert out.count("True") + out.count("False") == 10


def test_tsv_tables_and_the_netcdf_output_are_the_api_dataset(cubes, tmp_path, capsys):
    out_path = tmp_path / "model.nc"
    assert main(["-q", "model", str(cubes[0]), "-m", "I-rec@10", "--adjust", "holm",
                 "--show", "contrasts", "--format", "tsv", "-o", str(out_path)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].split("\t")[:3] == ["run_a", "run_b", "diff"]
    assert len(lines) == 1 + 10
    model = _quiet(stats.mixed, xdiv.open_dataset(cubes[0]), "I-rec@10", adjust="holm")
    written = xdiv.open_dataset(out_path)
    for name in model.data_vars:
        np.testing.assert_allclose(written[name].values.astype(float),
                                   model[name].values.astype(float), rtol=1e-12)
    assert written.attrs["adjust"] == "holm"


def test_several_cubes_are_several_collections(cubes, capsys):
    assert main(["-q", "model", *map(str, cubes), "-m", "alpha-nDCG@10",
                 "--collections", "y1", "y2", "--interaction", "--show", "variances",
                 "--format", "csv"]) == 0
    out = capsys.readouterr().out
    rows = [line.split(",")[0] for line in out.strip().splitlines()[1:]]
    assert rows == ["collection", "topic", "run_collection", "residual"]


def test_anova_prints_and_writes_what_stats_anova_gives(cubes, tmp_path, capsys):
    out_path = tmp_path / "anova.nc"
    assert main(["-q", "model", str(cubes[0]), "-m", "alpha-nDCG@10", "--model", "anova",
                 "--format", "tsv", "-o", str(out_path)]) == 0
    out = capsys.readouterr().out
    result = stats.anova(xdiv.open_dataset(cubes[0]), "alpha-nDCG@10")
    table = result[1] if isinstance(result, tuple) else result
    assert out.splitlines()[0].split("\t")[0] == "term"
    assert f"{table.iloc[0, 0]:.6f}" in out
    written = xdiv.open_dataset(out_path)
    assert [str(t) for t in written["term"].values] == [str(t) for t in table.index]
    np.testing.assert_allclose(written[table.columns[0]].values, table.iloc[:, 0])


@pytest.mark.parametrize(("extra", "message"), [
    ([], "holds 2 measures; name the one to model with -m"),
    (["-m", "nDCG@10"], "'nDCG@10' is not in the score cube"),
    (["-m", "I-rec@10", "--model", "anova", "--scale", "logit"], "options of --model mixed"),
    (["-m", "I-rec@10", "--collections", "a", "b"], "one name per cube"),
])
def test_bad_input_is_one_line(cubes, extra, message, capsys):
    assert main(["model", str(cubes[0]), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_one_run_is_one_line(tmp_path, capsys):
    col, runs = xdiv.datasets.synthetic(n_topics=10, n_runs=1, depth=10, seed=1)
    scores = _quiet(xdiv.evaluate, runs, col, ["alpha-nDCG@10"])
    path = xdiv.to_netcdf(scores, tmp_path / "one.nc")
    assert main(["model", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"xdiv: error: {path}: alpha-nDCG@10: the cube holds one run")
    assert len(err.strip().splitlines()) == 1
