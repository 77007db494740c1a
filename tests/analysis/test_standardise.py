"""Standardised scores (issue 38, item 3): z, Webber, Moffat & Zobel's normal-CDF and
Sakai's std-AB scores against numbers worked by hand, the numpy kernel against scipy's
zscore, and every function that takes a cube taking a standardised one."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import xarray as xr
from scipy.stats import zscore

import xdiv
from xdiv import stats
from xdiv.core.cube import check_cube
from xdiv.errors import InputError
from xdiv.kernels import standardise as KS


def _phi(z: float) -> float:
    """The standard normal distribution function, from the error function."""
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


def _cube() -> xr.Dataset:
    # metric m: topic t1 a 0.2, b 0.4, c 0.6; topic t2 a 0.1, b 0.1, c 0.7
    # metric n: topic t1 a 1, b 1, c 1 (no spread); topic t2 a 0, b 1, c 2
    values = np.array([[[0.2, 0.1], [0.4, 0.1], [0.6, 0.7]],
                       [[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]])
    return xr.Dataset({"score": (("metric", "run", "topic"), values)},
                      coords={"metric": ["m", "n"], "run": ["a", "b", "c"],
                              "topic": ["t1", "t2"]},
                      attrs={"missing": "zero"})


def _score(result, metric, topic):
    return result.score.sel(metric=metric, topic=topic).values


def test_z_scores_by_hand():
    with pytest.warns(xdiv.XdivWarning, match=r"n: .*1 topic\(s\).*t1"):
        result = stats.standardise(_cube())
    # m, t1: mean 0.4, sample sd sqrt((0.04 + 0 + 0.04) / 2) = 0.2 -> z -1, 0, 1
    np.testing.assert_allclose(_score(result, "m", "t1"), [-1, 0, 1], atol=1e-12)
    # m, t2: mean 0.3, deviations -0.2, -0.2, 0.4, SS 0.24, sd sqrt(0.12)
    # -> z -1/sqrt(3), -1/sqrt(3), 2/sqrt(3)
    r3 = math.sqrt(3)
    np.testing.assert_allclose(_score(result, "m", "t2"), [-1 / r3, -1 / r3, 2 / r3])
    # n, t1: no spread -> NaN (warned); n, t2: mean 1, sd 1 -> -1, 0, 1
    assert np.isnan(_score(result, "n", "t1")).all()
    np.testing.assert_allclose(_score(result, "n", "t2"), [-1, 0, 1], atol=1e-12)
    np.testing.assert_allclose(result.reference_mean.sel(metric="m"), [0.4, 0.3])
    np.testing.assert_allclose(result.reference_sd.sel(metric="m"), [0.2, math.sqrt(0.12)])
    assert result.reference.values.tolist() == [True, True, True]
    assert result.attrs["standardisation"] == "z" and result.attrs["standardisation_ddof"] == 1
    assert result.attrs["missing"] == "zero"  # the cube's own attributes are kept


def test_population_sd_by_hand():
    result = stats.standardise(_cube().sel(metric=["m"]), ddof=0)
    # m, t1: population sd sqrt(0.08 / 3) -> z = -0.2 / sqrt(0.08 / 3) = -sqrt(1.5)
    np.testing.assert_allclose(_score(result, "m", "t1"), [-math.sqrt(1.5), 0, math.sqrt(1.5)],
                               atol=1e-12)


def test_normal_cdf_scores_by_hand():
    result = stats.standardise(_cube().sel(metric=["m"]), "cdf")
    # Phi(-1) = 0.158655..., Phi(0) = 0.5, Phi(1) = 0.841344...
    np.testing.assert_allclose(_score(result, "m", "t1"),
                               [0.15865525393145707, 0.5, 0.8413447460685429], rtol=1e-12)
    r3 = math.sqrt(3)
    np.testing.assert_allclose(_score(result, "m", "t2"),
                               [_phi(-1 / r3), _phi(-1 / r3), _phi(2 / r3)], rtol=1e-12)
    assert "standardisation_a" not in result.attrs


def test_std_ab_scores_by_hand():
    result = stats.standardise(_cube().sel(metric=["m"]), "std-ab")
    # 0.15 z + 0.5 with z = -1, 0, 1
    np.testing.assert_allclose(_score(result, "m", "t1"), [0.35, 0.5, 0.65])
    other = stats.standardise(_cube().sel(metric=["m"]), "std-ab", a=0.2, b=0.4)
    np.testing.assert_allclose(_score(other, "m", "t1"), [0.2, 0.4, 0.6])
    assert (other.attrs["standardisation_a"], other.attrs["standardisation_b"]) == (0.2, 0.4)


def test_reference_subset_and_new_runs_by_hand():
    with pytest.warns(xdiv.XdivWarning, match="t2"):
        result = stats.standardise(_cube().sel(metric=["m"]), reference=["a", "b"])
    # m, t1 against a, b: mean 0.3, sd sqrt((0.01 + 0.01) / 1) = sqrt(0.02)
    # -> a -1/sqrt(2), b 1/sqrt(2), c (0.6 - 0.3) / sqrt(0.02) = 3/sqrt(2)
    r2 = math.sqrt(2)
    np.testing.assert_allclose(_score(result, "m", "t1"), [-1 / r2, 1 / r2, 3 / r2])
    # m, t2: a and b both 0.1 -> no spread, NaN for every run (c included)
    assert np.isnan(_score(result, "m", "t2")).all()
    assert result.reference.values.tolist() == [True, True, False]


def test_missing_scores_stay_missing_and_out_of_the_moments():
    cube = _cube().sel(metric=["m"])
    extra = cube.isel(run=[0]).assign_coords(run=["d"])
    extra["score"][:] = np.nan
    with_d = xr.concat([cube, extra], dim="run")
    result = stats.standardise(with_d)
    np.testing.assert_allclose(_score(result, "m", "t1"), [-1, 0, 1, np.nan], atol=1e-12)


def test_kernel_equals_scipy_zscore():
    rng = np.random.default_rng(0)
    values = rng.random((3, 40, 25))  # (metric, topic, run)
    for ddof in (0, 1):
        mean, sd = KS.reference_moments(values, np.ones(25, bool), ddof)
        got = KS.standardise(values, mean, sd, "z", 0.15, 0.5)
        np.testing.assert_allclose(got, zscore(values, axis=-1, ddof=ddof), rtol=1e-12)


def test_labelled_result_keeps_the_layout_and_round_trips(tmp_path):
    collection, runs = xdiv.datasets.synthetic(n_topics=12, n_runs=5, depth=20, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = xdiv.evaluate(runs, collection, ["alpha-nDCG@10", "ERR-IA@10"])
        result = stats.standardise(scores.transpose("topic", "metric", "run"), "cdf")
    assert result.score.dims == ("topic", "metric", "run")
    check_cube(result, "scores")
    back = xdiv.open_dataset(xdiv.to_netcdf(result, tmp_path / "std.nc"))
    xr.testing.assert_identical(back, result)


@pytest.fixture(scope="module")
def standardised():
    collection, runs = xdiv.datasets.synthetic(n_topics=15, n_runs=4, depth=20, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = xdiv.evaluate(runs, collection, ["alpha-nDCG@10", "nDCG@10"])
        return stats.standardise(scores, "std-ab")


def test_functions_that_take_cubes_take_standardised_ones(standardised):
    import matplotlib

    matplotlib.use("Agg")
    from xdiv import meta, plots

    scores = standardised
    run_a, run_b = (str(r) for r in scores["run"].values[:2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        summary = xdiv.summarize(scores)
        compared = xdiv.compare(scores, tests=("t",))
        power = meta.discriminative_power(scores, B=50)
        _, table = stats.anova(scores, "alpha-nDCG@10")
        tests = stats.paired_t_tests(scores, "nDCG@10")
        figures = [plots.topic_distributions(scores, "nDCG@10"),
                   plots.run_differences(scores, "nDCG@10", run_a, run_b)]
    values = scores.score.sel(metric="alpha-nDCG@10")
    np.testing.assert_allclose(summary["mean"].sel(metric="alpha-nDCG@10"),
                               values.mean("topic", skipna=True))
    assert np.isfinite(compared["pvalue"].values[np.isfinite(compared["pvalue"].values)]).all()
    assert power["n_topics"].min() > 0
    assert np.isfinite(table.loc["C(run)", "omega_sq"])
    assert len(tests) == 6
    assert all(len(f.axes) >= 1 for f in figures)


def test_risk_and_design_take_standardised_cubes(standardised):
    from xdiv import design, risk

    baseline = str(standardised["run"].values[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        trisk = risk.trisk(standardised, baseline)
        g_study = design.g_study(standardised)
        # GeoRisk is defined on non-negative scores: normal-CDF scores are, z-scores not
        cdf = stats.standardise(standardised, "cdf")
        georisk = risk.georisk(cdf)
        with pytest.raises(InputError, match="non-negative"):
            risk.georisk(stats.standardise(standardised, "z"))
    assert np.isfinite(trisk["urisk"].values).all()
    assert (g_study["var_residual"].values > 0).all()
    assert np.isfinite(georisk["georisk"].values).all()


def test_bad_input_gets_one_line():
    cube = _cube()
    cases = [
        (lambda: stats.standardise(cube.isel(run=[0])), "two runs"),
        (lambda: stats.standardise(cube, "minmax"), "method"),
        (lambda: stats.standardise(cube, reference=["a", "zz"]), "'zz'"),
        (lambda: stats.standardise(cube, reference="a"), "at least 2"),
        (lambda: stats.standardise(cube, reference=["a", "b"], ddof=2), "at least 3"),
        (lambda: stats.standardise(cube, "std-ab", a=0), "positive"),
        (lambda: stats.standardise(cube, "std-ab", b=float("nan")), "finite"),
        (lambda: stats.standardise(cube, ddof=-1), "ddof"),
        (lambda: stats.standardise(cube.score.isel(metric=0)), "score(metric, run, topic)"),
    ]
    for call, word in cases:
        with pytest.raises(InputError) as info:
            call()
        assert "\n" not in str(info.value) and word in str(info.value), str(info.value)


def test_data_array_and_dask_cubes_give_the_same_scores():
    cube = _cube().sel(metric=["m"])
    want = stats.standardise(cube, "cdf")
    xr.testing.assert_identical(stats.standardise(cube.score, "cdf").score, want.score)
    lazy = stats.standardise(cube.chunk({"topic": 1}), "cdf")
    assert lazy.score.chunks is not None
    xr.testing.assert_allclose(lazy.compute(), want)


def test_equal_scores_have_no_spread_despite_rounding():
    # 0.1 + 0.1 + 0.1 is 0.30000000000000004 in floating point, so the plain mean is not
    # 0.1 and the deviations are not 0; the scores are equal all the same
    cube = xr.Dataset({"score": (("metric", "run", "topic"), [[[0.1, 0.2], [0.1, 0.4],
                                                                [0.1, 0.6]]])},
                      coords={"metric": ["m"], "run": ["a", "b", "c"], "topic": ["t1", "t2"]})
    with pytest.warns(xdiv.XdivWarning, match="t1"):
        result = stats.standardise(cube)
    assert np.isnan(_score(result, "m", "t1")).all()
    assert float(result.reference_sd.sel(metric="m", topic="t1")) == 0
    assert float(result.reference_mean.sel(metric="m", topic="t1")) == 0.1
    np.testing.assert_allclose(_score(result, "m", "t2"), [-1, 0, 1], atol=1e-12)
