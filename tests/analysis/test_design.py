"""Test-collection design (xdiv.design): every computation against an independent one
(statsmodels' ANOVA and power classes, scipy's distributions, numerical integration,
simulation, plain loops over the same draws) and against the worked numbers available."""

from __future__ import annotations

import glob
import math

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import integrate, stats

import xdiv
from xdiv import design
from xdiv.cli import main
from xdiv.kernels import design as K

from ..conftest import require_trec_2009
from ..helpers import without_provenance


def _cube(n_metrics: int = 2, n_runs: int = 6, n_topics: int = 30, seed: int = 0,
          system_sd: float = 0.08) -> xr.Dataset:
    """Scores with run and topic effects plus noise, in [0, 1]."""
    rng = np.random.default_rng(seed)
    values = (0.4 + rng.normal(0, system_sd, (n_metrics, n_runs, 1))
              + rng.normal(0, 0.15, (n_metrics, 1, n_topics))
              + rng.normal(0, 0.1, (n_metrics, n_runs, n_topics)))
    return xr.Dataset({"score": (("metric", "run", "topic"), np.clip(values, 0, 1))},
                      coords={"metric": [f"m{k}" for k in range(n_metrics)],
                              "run": [f"run{k}" for k in range(n_runs)],
                              "topic": [str(100 + t) for t in range(n_topics)]})


def _anova_lm(matrix: np.ndarray) -> pd.DataFrame:
    """statsmodels' ANOVA table of a run × topic matrix (long table, OLS with run and
    topic factors)."""
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    run, topic = np.indices(matrix.shape)
    frame = pd.DataFrame({"score": matrix.ravel(), "run": run.ravel(), "topic": topic.ravel()})
    return anova_lm(smf.ols("score ~ C(run) + C(topic)", frame).fit())


def _nct_power(n: int, diff: float, variance: float, alpha: float) -> float:
    """Two-sided paired t power straight from scipy.stats.nct."""
    df, nc = n - 1, math.sqrt(n) * diff / math.sqrt(2 * variance)
    crit = stats.t.ppf(1 - alpha / 2, df)
    return stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc)


def _ncf_power(n: int, diff: float, variance: float, m: int, alpha: float) -> float:
    df_a, df_e = m - 1, m * (n - 1)
    return stats.ncf.sf(stats.f.ppf(1 - alpha, df_a, df_e), df_a, df_e,
                        n * diff ** 2 / (2 * variance))


# --- variance components ------------------------------------------------------------

def test_g_study_and_residual_variance_match_statsmodels_anova():
    cube = _cube(n_metrics=3, seed=1)
    cube["score"][1, 2, 4] = np.nan  # metric m1 loses topic 104 for every run
    g = design.g_study(cube)
    variance = design.residual_variance(cube)
    for k, metric in enumerate(cube["metric"].values):
        matrix = cube["score"].values[k]
        matrix = matrix[:, ~np.isnan(matrix).any(axis=0)]
        n_s, n_t = matrix.shape
        ms = _anova_lm(matrix)["mean_sq"]
        ms_s, ms_t, ms_e = ms["C(run)"], ms["C(topic)"], ms["Residual"]
        row = g.sel(metric=metric)
        assert int(row["n_topics"]) == n_t == (29 if k == 1 else 30)
        assert float(row["var_residual"]) == pytest.approx(ms_e, rel=1e-10)
        assert float(variance.sel(metric=metric)) == pytest.approx(ms_e, rel=1e-10)
        var_s, var_t = max(0, (ms_s - ms_e) / n_t), max(0, (ms_t - ms_e) / n_s)
        assert float(row["var_system"]) == pytest.approx(var_s, rel=1e-10)
        assert float(row["var_topic"]) == pytest.approx(var_t, rel=1e-10)
        assert float(row["erho2"]) == pytest.approx(var_s / (var_s + ms_e / n_t), rel=1e-10)
        assert float(row["phi"]) == pytest.approx(var_s / (var_s + (var_t + ms_e) / n_t),
                                                  rel=1e-10)


def test_negative_system_component_is_set_to_zero():
    cube = _cube(n_metrics=1, n_runs=8, seed=0, system_sd=0.0)
    ms = _anova_lm(cube["score"].values[0])["mean_sq"]
    assert ms["C(run)"] < ms["Residual"]  # the raw estimate is negative
    g = design.g_study(cube)
    assert g["var_system"].item() == 0 and g["erho2"].item() == 0 and g["phi"].item() == 0
    d = design.d_study(g, 0.9)
    assert np.isnan(d["n_topics_erho2"]).all() and np.isnan(d["n_topics_phi"]).all()


def test_pooled_variance_over_two_cubes():
    a, b = _cube(seed=4), _cube(n_runs=5, n_topics=20, seed=5)
    pooled = design.residual_variance(a, b)
    for k, metric in enumerate(a["metric"].values):
        ta, tb = _anova_lm(a["score"].values[k]), _anova_lm(b["score"].values[k])
        want = ((ta.loc["Residual", "sum_sq"] + tb.loc["Residual", "sum_sq"])
                / (ta.loc["Residual", "df"] + tb.loc["Residual", "df"]))
        assert float(pooled.sel(metric=metric)) == pytest.approx(want, rel=1e-10)
        assert int(pooled["df"].sel(metric=metric)) == 5 * 29 + 4 * 19
    assert "n_runs" not in pooled.attrs  # 6 and 5 runs: no default number of systems


def test_d_study_is_the_smallest_topic_set_reaching_the_target():
    g = design.g_study(_cube(n_metrics=3, seed=6))
    d = design.d_study(g, [0.8, 0.9, 0.95])
    for metric in g["metric"].values:
        s, t, e = (float(g[v].sel(metric=metric))
                   for v in ("var_system", "var_topic", "var_residual"))
        for target in (0.8, 0.9, 0.95):
            n_e = next(n for n in range(1, 10 ** 5) if s / (s + e / n) >= target)
            n_p = next(n for n in range(1, 10 ** 5) if s / (s + (t + e) / n) >= target)
            cell = d.sel(metric=metric, target=target)
            assert int(cell["n_topics_erho2"]) == n_e and int(cell["n_topics_phi"]) == n_p
    curve = design.g_coefficients(g, [10, 50])
    s, t, e = (float(g[v][0]) for v in ("var_system", "var_topic", "var_residual"))
    assert float(curve["phi"][0, 1]) == pytest.approx(s / (s + (t + e) / 50))


# --- power and topic set size ---------------------------------------------------------

def test_t_power_matches_scipy_statsmodels_and_the_integral_definition():
    from statsmodels.stats.power import TTestPower

    for n, diff, variance, alpha in ((10, 0.05, 0.02, 0.05), (50, 0.03, 0.04, 0.01),
                                     (132, 0.05, 0.0206, 0.05), (3, 0.2, 0.01, 0.1)):
        got = float(K.t_power(n, diff, variance, alpha))
        assert got == pytest.approx(_nct_power(n, diff, variance, alpha), abs=1e-12)
        effect = diff / math.sqrt(2 * variance)
        assert got == pytest.approx(TTestPower().power(effect, n, alpha), abs=1e-10)
        # T = (Z + lambda) / sqrt(V / df), V chi-squared with df degrees of freedom
        df, lam = n - 1, math.sqrt(n) * effect
        crit = stats.t.ppf(1 - alpha / 2, df)
        rejects = integrate.quad(
            lambda v: stats.chi2.pdf(v, df) * (stats.norm.sf(crit * math.sqrt(v / df) - lam)
                                               + stats.norm.cdf(-crit * math.sqrt(v / df)
                                                                - lam)), 0, np.inf)[0]
        assert got == pytest.approx(rejects, abs=1e-7)


def test_t_power_matches_simulated_paired_t_tests():
    rng = np.random.default_rng(11)
    n, diff, variance = 20, 0.06, 0.02
    differences = rng.normal(diff, math.sqrt(2 * variance), (20000, n))
    rejected = (stats.ttest_1samp(differences, 0.0, axis=1).pvalue < 0.05).mean()
    power = float(K.t_power(n, diff, variance, 0.05))
    assert abs(rejected - power) < 4 * math.sqrt(power * (1 - power) / 20000)


def test_paired_t_topic_set_size_is_the_smallest_sufficient_n():
    variance = xr.DataArray([0.005, 0.0206, 0.0427, 0.09], dims="metric",
                            coords={"metric": list("abcd")})
    for alpha, beta in ((0.05, 0.2), (0.01, 0.1)):
        sizes = design.topic_set_size(variance, [0.02, 0.05, 0.1], alpha=alpha, beta=beta)
        assert sizes.dtype == np.int64 and sizes.dims == ("metric", "min_diff")
        for (m, d), n in np.ndenumerate(sizes.values):
            v, diff = float(variance[m]), float(sizes["min_diff"][d])
            assert _nct_power(n, diff, v, alpha) >= 1 - beta
            assert n == 2 or _nct_power(n - 1, diff, v, alpha) < 1 - beta


@pytest.mark.parametrize("effect, n", [(0.2, 199), (0.5, 34), (0.8, 15)])
def test_paired_t_sample_sizes_of_the_textbooks(effect, n):
    # the standard sample sizes of the two-sided paired t test at alpha = 0.05 and power
    # 0.8 for the standardised effects dz = 0.2, 0.5, 0.8 (e.g. G*Power's "difference
    # between two dependent means"); dz = min_diff / sqrt(2 V_E)
    from statsmodels.stats.power import TTestPower

    variance = xr.DataArray([0.5], dims="metric", coords={"metric": ["m"]})
    assert design.topic_set_size(variance, effect).item() == n
    assert math.ceil(TTestPower().solve_power(effect, alpha=0.05, power=0.8)) == n


def test_anova_power_matches_statsmodels_scipy_and_simulation():
    from statsmodels.stats.power import FTestAnovaPower

    for n, diff, variance, m in ((20, 0.1, 0.02, 5), (60, 0.05, 0.03, 18), (5, 0.3, 0.01, 2)):
        got = float(K.anova_power(n, diff, variance, m, 0.05))
        assert got == pytest.approx(_ncf_power(n, diff, variance, m, 0.05), abs=1e-12)
        # statsmodels: Cohen's f^2 = sum a_i^2 / (m sigma^2) = diff^2 / (2 m V), N = m n
        f = math.sqrt(diff ** 2 / (2 * m * variance))
        assert got == pytest.approx(FTestAnovaPower().power(f, m * n, 0.05, k_groups=m),
                                    abs=1e-10)
    # simulated one-way ANOVA, best and worst means diff apart, the others midway
    rng = np.random.default_rng(12)
    n, diff, variance, m = 10, 0.15, 0.02, 4
    means = np.array([-diff / 2, diff / 2, 0.0, 0.0])
    data = means[:, None, None] + rng.normal(0, math.sqrt(variance), (m, 20000, n))
    rejected = (stats.f_oneway(*data, axis=1).pvalue < 0.05).mean()
    power = float(K.anova_power(n, diff, variance, m, 0.05))
    assert abs(rejected - power) < 4 * math.sqrt(power * (1 - power) / 20000)


def test_anova_topic_set_size_is_the_smallest_sufficient_n():
    cube = _cube(n_metrics=2, n_runs=6)
    sizes = design.topic_set_size(cube, [0.05, 0.1], test="anova")
    assert sizes.attrs["n_systems"] == 6  # the cube's runs
    for (k, d), n in np.ndenumerate(sizes.values):
        v, diff = float(sizes["variance"][k]), float(sizes["min_diff"][d])
        assert _ncf_power(n, diff, v, 6, 0.05) >= 0.8 > _ncf_power(n - 1, diff, v, 6, 0.05)
    more = design.topic_set_size(cube, 0.05, test="anova", n_systems=30)
    assert (more.values > sizes.sel(min_diff=0.05).values).all()  # more systems, more topics


def test_ci_width_matches_simulated_intervals_and_ci_sizes_are_minimal():
    rng = np.random.default_rng(13)
    n, variance = 8, 0.03
    differences = rng.normal(0, math.sqrt(2 * variance), (200000, n))
    widths = 2 * stats.t.ppf(0.975, n - 1) * differences.std(axis=1, ddof=1) / math.sqrt(n)
    assert float(K.ci_width(n, variance, 0.05)) == pytest.approx(widths.mean(), rel=2e-3)
    v = xr.DataArray([0.01, 0.04], dims="metric", coords={"metric": ["a", "b"]})
    sizes = design.topic_set_size(v, [0.05, 0.1], test="ci")
    for (m, d), n in np.ndenumerate(sizes.values):
        width = float(sizes["min_diff"][d])

        def expected(k, var=float(v[m])):
            # E(s) = sigma E(chi_{k-1}) / sqrt(k - 1), the mean from scipy.stats.chi
            mean_sd = stats.chi.mean(k - 1) / math.sqrt(k - 1) * math.sqrt(2 * var)
            return 2 * stats.t.ppf(0.975, k - 1) * mean_sd / math.sqrt(k)
        assert expected(n) <= width < expected(n - 1)


def test_detectable_difference_inverts_the_power():
    from statsmodels.stats.power import TTestPower

    variance = xr.DataArray([0.0206, 0.0427], dims="metric", coords={"metric": ["a", "b"]})
    mdd = design.detectable_difference(variance, [25, 50, 200])
    for (m, k), diff in np.ndenumerate(mdd.values):
        n, v = int(mdd["n_topics"][k]), float(variance[m])
        assert _nct_power(n, diff, v, 0.05) == pytest.approx(0.8, abs=1e-9)
        effect = TTestPower().solve_power(nobs=n, alpha=0.05, power=0.8)
        assert diff == pytest.approx(effect * math.sqrt(2 * v), rel=1e-5)
    anova = design.detectable_difference(variance, 40, test="anova", n_systems=10)
    for m, diff in enumerate(anova.values):
        assert _ncf_power(40, diff, float(variance[m]), 10, 0.05) == pytest.approx(0.8, abs=1e-9)
    ci = design.detectable_difference(variance, [10, 40], test="ci")
    np.testing.assert_allclose(ci.values, K.ci_width(np.array([10, 40]),
                                                     variance.values[:, None], 0.05))
    # and back: the topic set size for the detectable difference is the number of topics
    sizes = design.topic_set_size(variance, float(mdd.sel(metric="a", n_topics=50)) * 1.0001)
    assert int(sizes.sel(metric="a")) == 50


def test_power_grid_matches_scipy_and_zero_variance_is_certain():
    cube = _cube()
    grid = design.power(cube, [10, 40], [0.02, 0.1])
    assert grid.dims == ("metric", "min_diff", "n_topics")
    v = design.residual_variance(cube)
    for (m, d, k), p in np.ndenumerate(grid.values):
        assert p == pytest.approx(_nct_power(int(grid["n_topics"][k]),
                                             float(grid["min_diff"][d]), float(v[m]), 0.05))
    zero = xr.DataArray([0.0], dims="metric", coords={"metric": ["m"]})
    assert design.topic_set_size(zero, 0.01).item() == 2
    assert float(K.t_power(30, 0.0, 0.0, 0.05)) == pytest.approx(0.05)
    # far in the tails scipy's non-central t and F underflow to NaN; the power is 1
    assert float(K.t_power(50, 1.0, 0.0001, 0.05)) == 1.0
    assert float(K.anova_power(2000, 1.0, 0.001, 5, 0.05)) == 1.0


def test_pair_power_matches_a_loop_over_pairs():
    cube = _cube(n_runs=5, seed=7)
    cube["score"][0, 1, 3] = np.nan
    for variance in ("pooled", "pair"):
        result = design.pair_power(cube, variance=variance)
        for k, metric in enumerate(cube["metric"].values):
            matrix = cube["score"].values[k]
            matrix = matrix[:, ~np.isnan(matrix).any(axis=0)]
            n = matrix.shape[1]
            v_e = _anova_lm(matrix).loc["Residual", "mean_sq"]
            for a in range(5):
                for b in range(5):
                    cell = result.sel(metric=metric).isel(run_a=a, run_b=b)
                    if a == b:
                        assert np.isnan(cell["diff"]) and np.isnan(cell["power"])
                        continue
                    d = matrix[a] - matrix[b]
                    sd = math.sqrt(2 * v_e) if variance == "pooled" else d.std(ddof=1)
                    assert float(cell["diff"]) == pytest.approx(d.mean(), abs=1e-12)
                    assert float(cell["power"]) == pytest.approx(
                        _nct_power(n, abs(d.mean()), sd ** 2 / 2, 0.05), abs=1e-10)


# --- swap rates -----------------------------------------------------------------------

def _swap_loop(matrix, sizes, replicates, seed, edges, replace):
    """Comparisons and swaps of every run pair over the same draws, one by one."""
    rng = np.random.default_rng(seed)
    n_runs, n_topics = matrix.shape
    comparisons = np.zeros((len(sizes), len(edges)), dtype=int)
    swaps = np.zeros_like(comparisons)
    for s, size in enumerate(sizes):
        if replace:
            picks = rng.integers(0, n_topics, size=(replicates, 2, size))
            first, second = picks[:, 0], picks[:, 1]
        else:
            perm = rng.permuted(np.broadcast_to(np.arange(n_topics), (replicates, n_topics)),
                                axis=-1)
            first, second = perm[:, :size], perm[:, size:2 * size]
        for r in range(replicates):
            for a in range(n_runs):
                for b in range(a + 1, n_runs):
                    d_a = sum(matrix[a, t] - matrix[b, t] for t in first[r]) / size
                    d_b = sum(matrix[a, t] - matrix[b, t] for t in second[r]) / size
                    k = max(k for k, edge in enumerate(edges) if abs(d_a) >= edge)
                    comparisons[s, k] += 1
                    swaps[s, k] += (d_a > 0 and d_b < 0) or (d_a < 0 and d_b > 0)
    return comparisons, swaps


@pytest.mark.parametrize("replace", [False, True])
def test_swap_rates_match_a_plain_loop_with_the_same_seed(replace):
    cube = _cube(n_metrics=2, n_runs=5, n_topics=20, seed=8)
    cube["score"][1, :, 7] = np.nan  # m1 is drawn from its 19 complete topics
    sizes = [3, 6, 9]
    result = design.swap_rates(cube, sizes=sizes, B=40, seed=9, bin_width=0.02,
                               max_diff=0.1, replace=replace)
    edges = result["diff_bin"].values
    np.testing.assert_allclose(edges, [0, 0.02, 0.04, 0.06, 0.08, 0.1])
    for k, metric in enumerate(cube["metric"].values):
        matrix = cube["score"].values[k]
        matrix = matrix[:, ~np.isnan(matrix).any(axis=0)]
        comparisons, swaps = _swap_loop(matrix, sizes, 40, 9, edges, replace)
        row = result.sel(metric=metric)
        np.testing.assert_array_equal(row["comparisons"].values, comparisons)
        np.testing.assert_array_equal(row["swaps"].values, swaps)
        assert int(row["n_topics"]) == matrix.shape[1]
        # extrapolation: a least-squares line through log(rate) against n, at n_topics
        for b in range(len(edges)):
            rate = swaps[:, b] / np.maximum(comparisons[:, b], 1)
            use = rate > 0
            got = float(row["swap_rate_extrapolated"][b])
            if use.sum() < 2:
                assert np.isnan(got)
                continue
            slope, intercept = np.polyfit(np.array(sizes)[use], np.log(rate[use]), 1)
            want = min(1.0, math.exp(intercept + slope * matrix.shape[1]))
            assert got == pytest.approx(want, rel=1e-9)
        extrapolated = row["swap_rate_extrapolated"].values
        over = [b for b in range(len(edges)) if extrapolated[b] > 0.05]
        stable = float(row["stable_difference"])
        if not over:
            assert stable == 0
        elif over[-1] == len(edges) - 1:
            assert np.isnan(stable)
        else:
            assert stable == pytest.approx(edges[over[-1] + 1])
    assert result.attrs["seed"] == 9 and result.attrs["B"] == 40


def test_difference_bins_match_searchsorted_on_and_beside_the_edges():
    edges = np.round(np.arange(0, 0.205, 0.01), 12)
    values = np.abs(np.random.default_rng(15).normal(0, 0.1, 10000))
    values = np.concatenate([values, edges, np.nextafter(edges[1:], 0), [1e9]])
    np.testing.assert_array_equal(K._bin(values, edges),
                                  np.searchsorted(edges, values, side="right") - 1)


def test_swap_rates_of_a_metric_do_not_depend_on_the_others():
    cube = _cube(n_metrics=3, n_runs=4, n_topics=20, seed=10)
    both = design.swap_rates(cube, B=30, seed=1)
    alone = design.swap_rates(cube.sel(metric=["m2"]), replicates=30, seed=1)
    xr.testing.assert_identical(both["swaps"].sel(metric=["m2"]), alone["swaps"])
    assert both["subset_size"].values.tolist() == [2, 4, 6, 8, 10]  # up to half of 20


# --- labelled results: dask, NetCDF, errors -------------------------------------------

def test_dask_chunks_give_the_same_results(tmp_path):
    pytest.importorskip("dask")
    cube = _cube(n_metrics=3, n_runs=4, n_topics=16, seed=14)
    chunked = cube.chunk({"metric": 1})
    xr.testing.assert_allclose(design.g_study(chunked).compute(), design.g_study(cube))
    lazy = design.swap_rates(chunked, B=20)
    eager = design.swap_rates(cube, B=20)
    xr.testing.assert_identical(lazy["swaps"].compute(), eager["swaps"])
    xr.testing.assert_allclose(lazy.compute(), eager)


def test_results_round_trip_through_netcdf(tmp_path):
    cube = _cube(n_runs=4, n_topics=16)
    results = {"swap": design.swap_rates(cube, B=20),
               "pairs": design.pair_power(cube),
               "g": xr.merge([design.g_study(cube), design.d_study(cube, [0.8, 0.95])],
                             combine_attrs="override"),
               "size": design.topic_set_size(cube, [0.05, 0.1]).to_dataset()}
    for name, result in results.items():
        back = xdiv.open_dataset(xdiv.to_netcdf(result, tmp_path / f"{name}.nc"))
        xr.testing.assert_identical(back, result)


@pytest.mark.parametrize("call, message", [
    (lambda c: design.topic_set_size(c, 0.0), "min_diff"),
    (lambda c: design.topic_set_size(c, 0.05, alpha=1.5), "alpha"),
    (lambda c: design.topic_set_size(c, 0.05, test="z"), "test"),
    (lambda c: design.topic_set_size(design.residual_variance(c, _cube(n_runs=3)), 0.05,
                                     test="anova"), "n_systems"),
    (lambda c: design.power(c, 1, 0.05), "n_topics"),
    (lambda c: design.power(c, 10, 0.05, test="ci"), "CI design"),
    (lambda c: design.swap_rates(c, sizes=[8]), "at most 7"),
    (lambda c: design.swap_rates(c, B=0), "B"),
    (lambda c: design.d_study(c, 1.0), "target"),
    (lambda c: design.pair_power(c, variance="x"), "variance"),
    (lambda c: design.g_study(c.isel(run=[0])), "two runs"),
    (lambda c: design.g_study(c.where(c.topic == "100")), "m0: fewer than two topics"),
])
def test_bad_input_is_a_one_line_error(call, message):
    with pytest.raises(xdiv.InputError, match=message) as error:
        call(_cube(n_runs=4, n_topics=15))
    assert "\n" not in str(error.value)


# --- worked numbers on TREC 2009 --------------------------------------------------------

def test_trec_2009_topic_set_sizes_of_the_measure_specification():
    # shared/spec/metrics.md, section 10: on the 18 TREC 2009 runs, V_E = 0.0206
    # (alpha-nDCG@10) and 0.0427 (I-rec@10), about 132 and 270 topics for a difference
    # of 0.05 at alpha = 0.05, beta = 0.2
    root = require_trec_2009()
    collection = xdiv.read_qrels(root / "qrels.diversity.gz",
                                 topics=root / "wt09.topics.full.xml")
    runs = xdiv.read_runs(sorted(glob.glob(str(root / "runs" / "*.gz"))))
    scores = xdiv.evaluate(runs, collection, ["alpha-nDCG@10", "I-rec@10"])
    sizes = design.topic_set_size(scores, 0.05)
    np.testing.assert_allclose(sizes["variance"].values, [0.0206, 0.0427], atol=5e-5)
    assert sizes.values.tolist() == [132, 270]


# --- command line and plots -----------------------------------------------------------

def test_cli_design_commands(tmp_path, capsys):
    path = xdiv.to_netcdf(_cube(n_runs=5, n_topics=20), tmp_path / "scores.nc")
    assert main(["-q", "design", "size", path, "--diff", "0.05", "0.1", "--format", "tsv",
                 "-o", str(tmp_path / "size.nc"), "--plot", str(tmp_path / "power.png")]) == 0
    table = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out), sep="\t", index_col=0)
    want = design.topic_set_size(_cube(n_runs=5, n_topics=20), [0.05, 0.1])
    np.testing.assert_array_equal(table.iloc[:, 1:].to_numpy(), want.values)
    assert xdiv.open_dataset(tmp_path / "size.nc")["topic_set_size"].shape == (2, 2)
    assert (tmp_path / "power.png").stat().st_size > 0
    assert main(["-q", "design", "swap", path, "-B", "20", "--seed", "3", "-o",
                 str(tmp_path / "swap.nc"), "--plot", str(tmp_path / "swap.svg")]) == 0
    assert xdiv.open_dataset(tmp_path / "swap.nc").attrs["seed"] == 3
    assert main(["-q", "design", "gstudy", path, "--target", "0.8", "0.95", "--plot",
                 str(tmp_path / "g.pdf")]) == 0
    assert "topics Phi>=0.95" in capsys.readouterr().out
    assert main(["-q", "design", "mdd", path, "--topics", "25", "50"]) == 0
    assert "25 topics" in capsys.readouterr().out
    assert main(["-q", "design", "pairs", path, "--list", "--format", "csv"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1 + 2 * 10
    assert main(["-q", "design", "size", path, "--diff", "0.05", "--systems", "4"]) == 2
    assert "--systems is for --test anova" in capsys.readouterr().err


def test_plots_keep_legends_outside_and_styles_distinct():
    from matplotlib.figure import Figure

    from xdiv import plots

    cube = _cube(n_metrics=3, n_runs=5, n_topics=20)
    figures = [plots.power_curves(design.power(cube, np.arange(2, 300), [0.05, 0.1])),
               plots.swap_curves(design.swap_rates(cube, B=20)),
               plots.g_curves(design.g_coefficients(cube, np.arange(1, 80)))]
    for fig, n_series in zip(figures, (6, 3, 3)):
        assert isinstance(fig, Figure)
        fig.canvas.draw()
        legend = fig.legends[0].get_window_extent()
        for ax in fig.axes:
            assert legend.x0 >= ax.get_window_extent().x1  # legend right of every axes
            lines = [ln for ln in ax.get_lines() if ln.get_label()[:1] != "_"] or \
                [ln for ln in ax.get_lines() if len(ln.get_xdata()) > 2]
            assert len(lines) == n_series
            assert len({(ln.get_color(), ln.get_linestyle()) for ln in lines}) == n_series
            x = np.concatenate([ln.get_xdata() for ln in lines])
            assert ax.get_xlim() == pytest.approx((x.min(), x.max()))


def test_swap_rates_former_replicates_keyword_still_works():
    cube = _cube()
    with pytest.warns(DeprecationWarning, match="B="):
        old = design.swap_rates(cube, replicates=20, seed=2)
    xr.testing.assert_identical(without_provenance(old),
                                without_provenance(design.swap_rates(cube, B=20, seed=2)))
