"""``xdiv model``: the tables print what :func:`xdiv.stats.mixed` and
:func:`xdiv.stats.anova` give, the NetCDF output is that dataset, several cubes are
several collections, and bad input is one line without a traceback."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

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
    table = stats.anova_table(xdiv.open_dataset(cubes[0]), "alpha-nDCG@10")
    lines = [line.split("\t") for line in out.splitlines()]
    assert lines[0][0] == "term" and [row[0] for row in lines[1:]] == ["run", "topic",
                                                                      "Residual"]
    column = lines[0].index("omega_sq")
    assert [row[column] for row in lines[1:3]] == [
        f"{v:.6f}" for v in table["omega_sq"].values[:2]]
    written = xdiv.open_dataset(out_path)
    xr.testing.assert_identical(written.drop_attrs(), table.drop_attrs())
    assert written.attrs["formula"] == table.attrs["formula"]


def test_anova_of_a_grid_of_factors_and_of_standardised_scores(cubes, tmp_path, capsys):
    """--factors (a CSV table of the runs' components), --typ 3, --no-interactions and
    --standardise give what xdiv.stats gives on the same cube."""
    cube = xdiv.open_dataset(cubes[0])
    runs = [str(r) for r in cube["run"].values]
    factors = pd.DataFrame({"run": runs, "model": [f"m{k % 2}" for k in range(len(runs))],
                            "stem": [f"s{(k // 2) % 2}" for k in range(len(runs))]})
    path = tmp_path / "factors.csv"
    factors.to_csv(path, index=False)
    out_path = tmp_path / "grid.nc"
    assert main(["-q", "model", str(cubes[0]), "-m", "alpha-nDCG@10", "--model", "anova",
                 "--factors", str(path), "--typ", "3", "--no-interactions",
                 "--standardise", "cdf", "--reference", *runs[:4],
                 "-o", str(out_path)]) == 0
    capsys.readouterr()
    expected = stats.anova_table(stats.standardise(cube, "cdf", reference=runs[:4]),
                                 "alpha-nDCG@10", factors, interactions=False, typ=3)
    written = xdiv.open_dataset(out_path)
    assert [str(t) for t in written["term"].values] == ["model", "stem", "topic",
                                                         "Residual"]
    np.testing.assert_array_equal(written["sum_sq"].values, expected["sum_sq"].values)
    np.testing.assert_array_equal(written["stem"].values.astype(str),
                                  expected["stem"].values.astype(str))


@pytest.mark.parametrize(("extra", "message"), [
    (["--factors", "MISSING.csv"], "MISSING.csv: no such file"),
    (["--factors", "BAD"], "no 'run' column"),
    (["--reference", "x"], "give --standardise"),
])
def test_bad_anova_options_are_one_line(cubes, tmp_path, extra, message, capsys):
    if "BAD" in extra:
        (tmp_path / "bad.csv").write_text("name,model\nr1,a\n")
        extra = ["--factors", str(tmp_path / "bad.csv")]
    extra = [str(tmp_path / e) if e == "MISSING.csv" else e for e in extra]
    model = [] if "--reference" in extra else ["--model", "anova"]
    assert main(["model", str(cubes[0]), "-m", "I-rec@10", *model, *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


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
