"""Inferential risk-sensitive evaluation (xdiv.risk.trisk, xdiv.risk.georisk) against
independent computations: scipy's one-sample t test and plain Python loops."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import xarray as xr
from scipy import stats

import xdiv
from xdiv.analysis.risk import georisk, trisk, urisk

from ..conftest import require_trec_2009
from ..helpers import without_provenance


def cube(values, runs=None) -> xr.DataArray:
    values = np.asarray(values, dtype=float)
    runs = runs or [f"r{i}" for i in range(values.shape[1])]
    return xr.DataArray(values, dims=("metric", "run", "topic"),
                        coords={"metric": [f"m{i}" for i in range(values.shape[0])],
                                "run": runs,
                                "topic": [str(t + 1) for t in range(values.shape[2])]})


def trisk_by_scipy(run: list[float], base: list[float], alpha: float):
    """Risk-weighted differences by a loop, then scipy's one-sample t test."""
    d = [r - b if r >= b else (1 + alpha) * (r - b) for r, b in zip(run, base)
         if not (math.isnan(r) or math.isnan(b))]
    result = stats.ttest_1samp(d, 0.0)
    return sum(d) / len(d), float(result.statistic), float(result.pvalue), len(d)


def georisk_by_loops(x: list[list[float]], alpha: float) -> tuple[list[float], list[float]]:
    """ZRisk and GeoRisk of the runs (rows) of a complete runs × topics matrix."""
    n_runs, c = len(x), len(x[0])
    s = [sum(row) for row in x]
    t = [sum(x[i][j] for i in range(n_runs)) for j in range(c)]
    total = sum(s)
    zrisk, geo = [], []
    for i in range(n_runs):
        z_sum = 0.0
        for j in range(c):
            e = s[i] * t[j] / total if total else 0.0
            z = (x[i][j] - e) / math.sqrt(e) if e > 0 else 0.0
            z_sum += z if z >= 0 else (1 + alpha) * z
        zrisk.append(z_sum)
        geo.append(math.sqrt(s[i] / c * stats.norm.cdf(z_sum / c)))
    return zrisk, geo


@pytest.mark.parametrize("alpha", [0.0, 1.0, 5.0])
def test_trisk_is_scipys_one_sample_t_test_of_the_risk_weighted_differences(alpha):
    rng = np.random.default_rng(7)
    values = rng.random((3, 5, 30))
    values[0, 1, [3, 8]] = np.nan      # topics a run lacks are left out of its test
    values[1, 2, 5] = np.nan            # and topics the baseline lacks too
    da = cube(values)
    got = trisk(da, "r2", alpha=alpha)
    for m in range(3):
        for r in range(5):
            if r == 2:
                continue
            u, t, p, n = trisk_by_scipy(list(values[m, r]), list(values[m, 2]), alpha)
            cell = got.isel(metric=m, run=r)
            assert float(cell["urisk"]) == pytest.approx(u, rel=1e-12, abs=1e-15)
            assert float(cell["statistic"]) == pytest.approx(t, rel=1e-10)
            assert float(cell["pvalue"]) == pytest.approx(p, rel=1e-8)
            assert int(cell["n_topics"]) == n
    # its URisk is xdiv.risk.urisk's
    np.testing.assert_array_equal(got["urisk"].values, urisk(da, "r2", alpha=alpha).values)
    assert got.attrs["baseline"] == "r2" and got.attrs["alpha"] == alpha


def test_trisk_with_alpha_0_is_the_paired_t_test():
    rng = np.random.default_rng(3)
    values = rng.random((1, 2, 25))
    got = trisk(cube(values), "r1", alpha=0)
    expected = stats.ttest_rel(values[0, 0], values[0, 1])
    assert float(got["statistic"][0, 0]) == pytest.approx(expected.statistic, rel=1e-10)
    assert float(got["pvalue"][0, 0]) == pytest.approx(expected.pvalue, rel=1e-8)


def test_trisk_edge_cases():
    values = [[[0.2, 0.4, 0.6], [0.1, 0.3, 0.5], [0.5, np.nan, np.nan], [0.3, 0.3, 0.3]]]
    got = trisk(cube(values), "r3", alpha=1.0).sel(metric="m0")
    # the baseline against itself: every difference 0, 0/0
    assert float(got["urisk"].sel(run="r3")) == 0.0
    assert np.isnan(got["statistic"].sel(run="r3")) and np.isnan(got["pvalue"].sel(run="r3"))
    # one topic: no standard deviation
    assert int(got["n_topics"].sel(run="r2")) == 1
    assert np.isnan(got["statistic"].sel(run="r2")) and np.isnan(got["pvalue"].sel(run="r2"))
    assert float(got["urisk"].sel(run="r2")) == float(
        urisk(cube(values), "r3", alpha=1.0).sel(metric="m0", run="r2")) == 0.5 - 0.3
    # the statistic's sign follows URisk's
    assert float(got["statistic"].sel(run="r0")) > 0 > float(got["statistic"].sel(run="r1"))
    # the same non-zero difference on every topic: s is 0 although the mean of three
    # 0.1s rounds to 0.10000000000000002; the statistic is infinite, not merely huge
    steady = trisk(cube([[[0.1] * 3, [0.0] * 3]]), "r1").sel(metric="m0", run="r0")
    assert float(steady["statistic"]) == np.inf and float(steady["pvalue"]) == 0.0
    with pytest.raises(xdiv.InputError, match="alpha"):
        trisk(cube(values), "r0", alpha=-0.5)
    with pytest.raises(xdiv.InputError, match="run 'nope'"):
        trisk(cube(values), "nope")


@pytest.mark.parametrize("alpha", [0.0, 1.0, 10.0])
def test_georisk_is_the_loop_computation(alpha):
    rng = np.random.default_rng(11)
    values = rng.random((2, 6, 20))
    got = georisk(cube(values), alpha=alpha)
    for m in range(2):
        zrisk, geo = georisk_by_loops(values[m].tolist(), alpha)
        np.testing.assert_allclose(got["zrisk"].values[m], zrisk, rtol=1e-12)
        np.testing.assert_allclose(got["georisk"].values[m], geo, rtol=1e-12)
    assert got["n_topics"].values.tolist() == [20, 20]
    assert got["georisk"].dims == ("metric", "run")


def test_georisk_zero_expectations():
    """A run scoring 0 everywhere and a topic every run scores 0 give e_ij = 0: z_ij is
    0 there, the run's ZRisk and GeoRisk are 0, and the other runs are unaffected by the
    zero topic (as if it were a topic on which all runs tie at 0)."""
    values = np.array([[[0.5, 0.0, 0.2, 0.9],
                        [0.1, 0.0, 0.7, 0.3],
                        [0.0, 0.0, 0.0, 0.0],
                        [0.4, 0.0, 0.4, 0.4]]])
    got = georisk(cube(values), alpha=1.0)
    zrisk, geo = georisk_by_loops(values[0].tolist(), 1.0)
    assert np.isfinite(got["georisk"].values).all()
    np.testing.assert_allclose(got["zrisk"].values[0], zrisk, rtol=1e-12)
    np.testing.assert_allclose(got["georisk"].values[0], geo, rtol=1e-12)
    assert float(got["zrisk"][0, 2]) == 0.0 and float(got["georisk"][0, 2]) == 0.0
    everything_zero = georisk(cube(np.zeros((1, 3, 4))))
    assert (everything_zero["georisk"].values == 0).all()


def test_georisk_leaves_out_topics_some_run_lacks():
    rng = np.random.default_rng(5)
    values = rng.random((2, 4, 10))
    values[0, :, 2] = np.nan            # undefined for every run: left out quietly
    values[1, 3, 7] = np.nan            # one run lacks it: left out with a warning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = georisk(cube(values), alpha=1.0)
    messages = [str(w.message) for w in caught if issubclass(w.category, xdiv.XdivWarning)]
    assert len(messages) == 1 and "m1" in messages[0] and "(8)" in messages[0]
    assert got["n_topics"].values.tolist() == [9, 9]
    for m, dropped in ((0, 2), (1, 7)):
        kept = np.delete(values[m], dropped, axis=1)
        zrisk, geo = georisk_by_loops(kept.tolist(), 1.0)
        np.testing.assert_allclose(got["georisk"].values[m], geo, rtol=1e-12)
        np.testing.assert_allclose(got["zrisk"].values[m], zrisk, rtol=1e-12)


def test_georisk_refuses_negative_scores():
    values = np.full((1, 2, 3), 0.5)
    values[0, 1, 2] = -0.25
    with pytest.raises(xdiv.InputError, match="metric m0, run r1, topic 3"):
        georisk(cube(values))


def test_trisk_and_georisk_are_lazy_on_dask():
    pytest.importorskip("dask")
    rng = np.random.default_rng(0)
    da = cube(rng.random((3, 4, 20)))
    lazy = trisk(da.chunk({"metric": 1}), "r1")
    assert lazy["statistic"].chunks is not None
    xr.testing.assert_identical(without_provenance(lazy.compute()),
                                without_provenance(trisk(da, "r1")))
    lazy_geo = georisk(da.chunk({"metric": 1}))
    assert lazy_geo["georisk"].chunks is not None
    xr.testing.assert_identical(without_provenance(lazy_geo.compute()),
                                without_provenance(georisk(da)))


def test_results_round_trip_through_netcdf(tmp_path):
    rng = np.random.default_rng(1)
    da = cube(rng.random((2, 3, 8)))
    for result in (trisk(da, "r0", alpha=5), georisk(da, alpha=2)):
        path = xdiv.to_netcdf(result, tmp_path / "risk.nc")
        xr.testing.assert_identical(xdiv.open_dataset(path), result)


# ------------------------------------------------------------------ TREC 2009

MEASURES_2009 = ["alpha-nDCG@10", "ERR-IA@20", "nDCG-IA@10"]


@pytest.fixture(scope="module")
def scores_2009(trec2009):
    collection, runs = trec2009
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        return xdiv.evaluate(runs, collection, MEASURES_2009)


def test_trisk_and_georisk_on_the_trec_2009_runs(scores_2009):
    require_trec_2009()
    score = scores_2009["score"].transpose("metric", "run", "topic")
    runs = [str(r) for r in score["run"].values]
    assert len(runs) == 18
    baseline = "MSRABASE"
    got_t = trisk(scores_2009, baseline, alpha=1)
    got_g = georisk(scores_2009, alpha=1)
    for m, metric in enumerate(MEASURES_2009):
        matrix = score.values[m]
        for r, run in enumerate(runs):
            if run == baseline:
                continue
            u, t, p, n = trisk_by_scipy(list(matrix[r]), list(matrix[runs.index(baseline)]),
                                        1.0)
            cell = got_t.sel(metric=metric, run=run)
            assert float(cell["statistic"]) == pytest.approx(t, rel=1e-10)
            assert float(cell["pvalue"]) == pytest.approx(p, rel=1e-8)
            assert int(cell["n_topics"]) == n
        complete = ~np.isnan(matrix).any(axis=0)
        zrisk, geo = georisk_by_loops(matrix[:, complete].tolist(), 1.0)
        np.testing.assert_allclose(got_g["georisk"].sel(metric=metric).values, geo, rtol=1e-12)
        np.testing.assert_allclose(got_g["zrisk"].sel(metric=metric).values, zrisk, rtol=1e-12)
        assert int(got_g["n_topics"].sel(metric=metric)) == int(complete.sum())
