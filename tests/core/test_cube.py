"""Score cubes and meta-evaluation files with odd content: every command that reads one
(meta, concordance, correlate, plot) stops with a one-line ``xdiv: error: FILE: ...``
(exit status 2) raised when the file is opened, and valid files keep working."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import xarray as xr

import xdiv
from xdiv.cli import main
from xdiv.core.cube import SCORE_BOUND, check_cube
from xdiv.io.netcdf import open_cube

pytest.importorskip("matplotlib")

METRICS = ["I-rec@10", "D-nDCG@10", "alpha-nDCG@10", "D#-nDCG@10"]
RUNS = ["ra", "rb", "rc"]
TOPICS = ["1", "2", "3", "4", "5"]

SCORE_COMMANDS = {
    "meta": ["meta", "{f}", "-B", "20"],
    "concordance": ["concordance", "{f}", "D-nDCG@10", "alpha-nDCG@10", "--gold", "I-rec@10"],
    "correlate": ["correlate", "{f}"],
    "plot scatter": ["plot", "scatter", "{f}", "-o", "{out}"],
    "plot topics": ["plot", "topics", "{f}", "-o", "{out}"],
    "plot diff": ["plot", "diff", "{f}", "--runs", "ra", "rb", "-o", "{out}"],
    "plot concordance": ["plot", "concordance", "{f}", "-m", "D-nDCG@10",
                         "alpha-nDCG@10", "--gold", "I-rec@10", "-o", "{out}"],
    "plot correlation": ["plot", "correlation", "{f}", "-o", "{out}"],
}
META_COMMANDS = {"plot asl": ["plot", "asl", "{f}", "-o", "{out}"]}


def cube(values=None, metrics=METRICS, runs=RUNS, topics=TOPICS, coords=True,
         canonical=True) -> xr.Dataset:
    """A small score cube as ``xdiv evaluate`` makes it (with a NaN topic), or odd."""
    if values is None:
        values = np.random.default_rng(0).random((len(metrics), len(runs), len(topics)))
        values[:, :, -1] = np.nan  # a topic without relevant documents
    labels = {"metric": metrics, "run": runs, "topic": topics} if coords else {}
    ds = xr.Dataset({"score": (("metric", "run", "topic"), values)}, coords=labels)
    if coords and canonical:
        ds = ds.assign_coords(canonical=("metric", list(metrics)))
    return ds.assign_attrs(xdiv_kind="scores")


def write(ds: xr.Dataset, path) -> str:
    ds.to_netcdf(path, engine="netcdf4")
    return str(path)


def odd_scores(folder, meta_file: str) -> dict[str, tuple[str, str]]:
    """Odd score cubes: name -> (path, a fragment of the expected error)."""
    rng = np.random.default_rng(1)
    huge = rng.random((4, 3, 5))
    huge[1, 2, 3] = 1e308
    infinite = rng.random((4, 3, 5))
    infinite[0, 1, 0] = -np.inf
    good = folder / "good.nc"
    write(cube(), good)
    cut = folder / "truncated.nc"
    data = good.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    (folder / "text.nc").write_text("score\n0.5\n")
    cases = {
        "strings": (cube(values=np.full((4, 3, 5), "0.5", dtype=object)),
                    "score variable holds text, not real numbers"),
        "booleans": (cube(values=rng.random((4, 3, 5)) > 0.5),
                     "score variable holds booleans"),
        "duplicate metrics": (cube(metrics=["I-rec@10", "D-nDCG@10", "D-nDCG@10",
                                            "D#-nDCG@10"]),
                              "metric label 'D-nDCG@10' appears more than once"),
        "duplicate runs": (cube(runs=["ra", "rb", "ra"]), "run label 'ra' appears more"),
        "no coordinates": (cube(coords=False), "no metric labels"),
        "empty run labels": (cube(runs=["", "", ""]), "run label 1 of 3 is empty"),
        "blank topic label": (cube(topics=["1", "2", " ", "4", "5"]),
                              "topic label 3 of 5 is empty"),
        "newline in a label": (cube(runs=["ra", "r\nb", "rc"]),
                               "run label 'r\\nb' holds a control character"),
        "numeric topic labels": (cube(topics=[1, 2, 3, 4, 5]),
                                 "topic labels are integers, not text"),
        "numeric canonical": (cube().assign_coords(canonical=("metric", [1, 2, 3, 4])),
                              "canonical coordinate must hold one text label per metric"),
        "1e308 score": (cube(values=huge), "score at metric D-nDCG@10, run rc, topic 4 is "
                                           "1e+308; score values must be NaN or finite"),
        "infinite score": (cube(values=infinite), "score at metric I-rec@10, run rb, "
                                                  "topic 1 is -inf"),
        "two-dimensional score": (xr.Dataset({"score": (("metric", "run"),
                                                        rng.random((4, 3)))},
                                             coords={"metric": METRICS, "run": RUNS}),
                                  "not a score cube: its score variable has the dimensions "
                                  "(metric, run)"),
        "empty topic dimension": (cube(values=np.zeros((4, 3, 0)),
                                       topics=np.array([], dtype=str)),
                                  "its topic dimension is empty"),
    }
    files = {name: (write(ds, folder / f"{name.replace(' ', '_')}.nc"), message)
             for name, (ds, message) in cases.items()}
    files["truncated file"] = (str(cut), "not a readable NetCDF file")
    files["text file"] = (str(folder / "text.nc"), "not a readable NetCDF file")
    files["meta file"] = (meta_file, "not a score cube (write one with 'xdiv evaluate -o')")
    return files


def odd_metas(folder, meta: xr.Dataset, both: xr.Dataset,
              good_scores: str) -> dict[str, tuple[str, str]]:
    """Odd meta-evaluation files made from valid ones, ``meta`` of one test without a
    test dimension (as ``xdiv demo`` writes it) and ``both`` of two tests: name -> (path,
    error fragment)."""
    pairs = meta.sizes["pair_rank"]
    flat = meta.asl_curve.isel(metric=0).drop_vars("metric")
    cases = {
        "one-dimensional asl_curve": (meta.assign(asl_curve=flat),
                                      "asl_curve variable has the dimensions (pair_rank), "
                                      "not (metric, pair_rank)"),
        "1e308 asl_curve": (meta.assign(asl_curve=meta.asl_curve * 0 + 1e308),
                            "asl_curve at metric I-rec@10, pair_rank 1 is 1e+308"),
        "text asl_curve": (meta.assign(asl_curve=meta.asl_curve.astype(str).astype(object)),
                           "asl_curve variable holds text"),
        "power above 1": (meta.assign(power=meta.power + 2), "power values must be NaN or "
                                                              "within [0, 1]"),
        "infinite required_delta": (meta.assign(required_delta=meta.required_delta / 0.0),
                                    "required_delta at metric"),
        "no power": (meta.drop_vars("power"), "lacks the variable power"),
        "power over pair_rank": (meta.assign(power=("pair_rank", np.zeros(pairs))),
                                 "power variable has the dimensions (pair_rank)"),
        "duplicate metrics": (meta.assign_coords(metric=["x"] * meta.sizes["metric"]),
                              "metric label 'x' appears more than once"),
        "no metric coordinate": (meta.drop_vars("metric"), "no metric labels"),
        "text alpha": (meta.assign_attrs(alpha="0.05"),
                       "alpha attribute must be a number strictly between 0 and 1"),
        "test dimension not on asl_curve": (
            both.assign(asl_curve=both.asl_curve.isel(test=0, drop=True)),
            "asl_curve variable has the dimensions (metric, pair_rank), not (test, metric, "
            "pair_rank)"),
        "duplicate tests": (both.assign_coords(test=["tukey", "tukey"]),
                            "test label 'tukey' appears more than once"),
        "no test coordinate": (both.drop_vars("test"), "no test labels"),
    }
    files = {name: (write(ds, folder / f"meta_{name.replace(' ', '_')}.nc"), message)
             for name, (ds, message) in cases.items()}
    files["score cube"] = (good_scores, "not a meta-evaluation file (write one with "
                                        "'xdiv meta -o')")
    truncated = folder / "meta_truncated.nc"
    data = (folder / "meta.nc").read_bytes()
    truncated.write_bytes(data[: len(data) // 3])
    files["truncated file"] = (str(truncated), "not a readable NetCDF file")
    return files


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """Every odd file, the valid crafted cube with its meta file, and the demo's files."""
    folder = tmp_path_factory.mktemp("cubes")
    good = write(cube(), folder / "valid.nc")
    assert main(["-q", "meta", good, "-B", "20", "--test", "bootstrap", "-o",
                 str(folder / "meta.nc")]) == 0
    assert main(["-q", "meta", good, "-B", "20", "--test", "both", "-o",
                 str(folder / "meta_both.nc")]) == 0
    meta = xdiv.open_dataset(folder / "meta.nc").isel(test=0, drop=True)
    both = xdiv.open_dataset(folder / "meta_both.nc")
    assert main(["-q", "demo", "-o", str(folder / "demo.nc"), "--topics", "6",
                 "--runs", "3"]) == 0
    return {"folder": folder, "good": good, "meta": str(folder / "meta.nc"),
            "meta_both": str(folder / "meta_both.nc"),
            "demo": str(folder / "demo.nc"), "demo_meta": str(folder / "demo-meta.nc"),
            "scores": odd_scores(folder, str(folder / "meta.nc")),
            "metas": odd_metas(folder, meta, both, good)}


def run_cli(argv, capsys):
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def assert_one_line_error(status: int, err: str, path: str, fragment: str) -> None:
    assert "Traceback" not in err
    assert status == 2, err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert err.startswith(f"xdiv: error: {path}: "), err
    assert fragment in err, err


@pytest.mark.parametrize("command", list(SCORE_COMMANDS))
def test_every_odd_score_cube_is_a_one_line_error(made, capsys, command):
    out = made["folder"] / "never.png"
    for name, (path, fragment) in made["scores"].items():
        argv = [a.format(f=path, out=out) for a in SCORE_COMMANDS[command]]
        status, _, err = run_cli(argv, capsys)
        assert_one_line_error(status, err, path, fragment)
        assert not out.exists(), name


@pytest.mark.parametrize("command", list(META_COMMANDS))
def test_every_odd_meta_file_is_a_one_line_error(made, capsys, command):
    out = made["folder"] / "never.png"
    for name, (path, fragment) in made["metas"].items():
        argv = [a.format(f=path, out=out) for a in META_COMMANDS[command]]
        status, _, err = run_cli(argv, capsys)
        assert_one_line_error(status, err, path, fragment)
        assert not out.exists(), name


def test_the_console_script_prints_no_traceback(made):
    picture = str(made["folder"] / "x.png")
    for (path, fragment), command in (
            (made["scores"]["truncated file"], ["correlate"]),
            (made["scores"]["strings"], ["meta"]),
            (made["metas"]["one-dimensional asl_curve"], ["plot", "asl", "-o", picture])):
        result = subprocess.run([sys.executable, "-m", "xdiv.cli", *command, path],
                                capture_output=True, text=True, timeout=60)
        assert_one_line_error(result.returncode, result.stderr, path, fragment)


@pytest.mark.parametrize("which", ["good", "demo"])
def test_valid_cubes_still_work_with_every_command(made, capsys, which):
    path = made[which]
    for command, template in SCORE_COMMANDS.items():
        if which == "demo":
            template = [a.replace("ra", "run01").replace("rb", "run02") for a in template]
        out = made["folder"] / f"{which}-{command.replace(' ', '-')}.png"
        status, stdout, err = run_cli([a.format(f=path, out=out) for a in template], capsys)
        assert status == 0, (command, err)
        assert "error" not in err
        if command.startswith("plot"):
            assert out.stat().st_size > 1000
        else:
            assert stdout


@pytest.mark.parametrize("which, extra", [("meta", []), ("demo_meta", []),
                                          ("meta_both", ["--test", "tukey"])])
def test_valid_meta_files_still_plot(made, capsys, which, extra):
    out = made["folder"] / f"{which}-asl.png"
    status, _, err = run_cli(["plot", "asl", made[which], "-o", str(out), *extra], capsys)
    assert status == 0, err
    assert out.stat().st_size > 1000


def test_open_cube_returns_float_scores_and_keeps_nan_and_canonical(made, tmp_path):
    ints = write(cube(values=np.arange(60).reshape(4, 3, 5)), tmp_path / "ints.nc")
    data = open_cube(ints, "scores")
    assert data["score"].dtype == np.float64
    data = open_cube(made["good"], "scores")
    assert np.isnan(data["score"].values[:, :, -1]).all()
    assert list(data["canonical"].values) == METRICS
    both = open_cube(made["meta_both"], "meta")
    assert both["asl_curve"].dims == ("test", "metric", "pair_rank")


def test_check_cube_without_source_and_at_the_bound():
    edge = cube(values=np.full((4, 3, 5), SCORE_BOUND))
    assert check_cube(edge, "scores")["score"].max() == SCORE_BOUND
    with pytest.raises(xdiv.InputError, match=r"^its score at metric I-rec@10, run ra, "
                                              r"topic 1 is -1e\+101;"):
        check_cube(cube(values=np.full((4, 3, 5), -10 * SCORE_BOUND)), "scores")
    with pytest.raises(xdiv.InputError, match=r"^x\.nc: not a score cube"):
        check_cube(xr.Dataset(), "scores", "x.nc")
    with pytest.raises(xdiv.InputError, match="kind must be one of scores, meta"):
        check_cube(cube(), "runs")


def test_open_cube_names_a_missing_file(tmp_path):
    with pytest.raises(xdiv.InputError, match=r"nothing\.nc: no such file"):
        open_cube(tmp_path / "nothing.nc", "meta")
