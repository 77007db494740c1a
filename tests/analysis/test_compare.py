"""xdiv.compare: paired tests against scipy, corrections against statsmodels, MaxT, BCa,
effect sizes, the result's layout, NetCDF round trip, seeds and every refusal."""

from __future__ import annotations

import gc
import warnings

import numpy as np
import pytest
import xarray as xr
from scipy import stats
from statsmodels.stats.multitest import multipletests

import xdiv
from xdiv import meta
from xdiv.errors import InputError, XdivWarning
from xdiv.kernels import compare as K
from xdiv.typing import COMPARE_CORRECTIONS, COMPARE_TESTS


def cube(values, metrics=None, runs=None) -> xr.Dataset:
    values = np.asarray(values, dtype=float)
    if values.ndim == 2:
        values = values[None]
    m, r, t = values.shape
    return xr.Dataset({"score": (("metric", "run", "topic"), values)},
                      coords={"metric": metrics or [f"m{k}" for k in range(m)],
                              "run": runs or [f"r{k}" for k in range(r)],
                              "topic": [f"t{k}" for k in range(t)]})


def random_cube(n_metrics=2, n_runs=5, n_topics=30, seed=0, decimals=None):
    rng = np.random.default_rng(seed)
    values = (rng.normal(0, 0.05, (n_metrics, n_runs, 1))
              + rng.normal(0.5, 0.15, (n_metrics, 1, n_topics))
              + rng.normal(0, 0.1, (n_metrics, n_runs, n_topics)))
    values = np.clip(values, 0, 1)
    if decimals is not None:
        values = np.round(values, decimals)
    return cube(values)


def upper(result, name, test=None, metric=0):
    """The (run_a < run_b) cells of a pairs result, in pair order."""
    da = result[name]
    if test is not None:
        da = da.sel(test=test)
    values = da.isel(metric=metric).values
    i, j = np.triu_indices(values.shape[-1], k=1)
    return values[i, j]


# -- the tests against scipy -------------------------------------------------------------

def test_t_matches_ttest_rel():
    scores = random_cube(n_runs=6)
    result = xdiv.compare(scores, tests="t")
    values = scores["score"].values[0]
    i, j = np.triu_indices(6, k=1)
    expected = stats.ttest_rel(values[i], values[j], axis=-1)
    np.testing.assert_allclose(upper(result, "statistic", "t"), expected.statistic,
                               rtol=1e-12)
    np.testing.assert_allclose(upper(result, "pvalue", "t"), expected.pvalue, rtol=1e-10,
                               atol=1e-12)
    # the lower half is the reversed comparison
    stat = result["statistic"].sel(test="t").isel(metric=0).values
    np.testing.assert_array_equal(stat[j, i], -stat[i, j])
    assert np.isnan(np.diag(stat)).all()


def test_t_pvalues_and_quantiles_are_scipy_stats_t_bit_for_bit():
    """compare computes Student's t tail and quantile with scipy.special (issue 35 item 18:
    no scipy.stats import), as scipy.stats.t computes them: the same bits, infinite and
    NaN statistics and 0 degrees of freedom included."""
    from scipy.special import stdtrit

    from xdiv.analysis.compare import t_pvalue

    rng = np.random.default_rng(5)
    t = np.concatenate([rng.standard_normal(500) * 4, [0.0, -0.0, np.inf, -np.inf, np.nan,
                                                         1e-300, 40.0]])
    for n in (1, 2, 3, 5, 11, 50, 51, 1001):
        expected = np.where(np.isinf(t), 0.0, 2 * stats.t.sf(np.abs(t), n - 1))
        np.testing.assert_array_equal(t_pvalue(t, n), expected)
        for alpha in (0.05, 0.01, 0.1, 0.001):
            np.testing.assert_array_equal(stdtrit(n - 1, 1 - alpha / 2),
                                          stats.t.ppf(1 - alpha / 2, n - 1))
    scores = random_cube(n_runs=3, n_topics=7)
    result = xdiv.compare(scores, tests="t", alpha=0.1)
    values = scores["score"].values[0]
    diff = values[0] - values[1]
    n = diff.size
    half = stats.t.ppf(0.95, n - 1) * np.std(diff, ddof=1) / np.sqrt(n)
    cell = result.sel(run_a="r0", run_b="r1").isel(metric=0)
    assert float(cell["ci_high"] - cell["ci_low"]) == pytest.approx(2 * half, rel=1e-12)


@pytest.mark.parametrize("decimals", [None, pytest.param(1, marks=pytest.mark.slow),
                                      pytest.param(2, marks=pytest.mark.slow)])
def test_wilcoxon_matches_scipy_row_by_row(decimals):
    """Ties and zeros change scipy's method; each comparison as its own scipy call."""
    for n_topics in (10, 30, 60):
        scores = random_cube(n_runs=5, n_topics=n_topics, decimals=decimals, seed=n_topics)
        values = scores["score"].values[0]
        result = xdiv.compare(scores, tests="wilcoxon")
        i, j = np.triu_indices(5, k=1)
        got_p = upper(result, "pvalue", "wilcoxon")
        got_s = upper(result, "statistic", "wilcoxon")
        for k, (a, b) in enumerate(zip(i, j)):
            if np.all(values[a] == values[b]):
                assert got_p[k] == 1.0
                continue
            res = stats.wilcoxon(values[a], values[b])
            assert got_p[k] == pytest.approx(res.pvalue, rel=1e-12, abs=1e-12)
            assert got_s[k] == pytest.approx(res.statistic, rel=1e-12)


def test_sign_test_matches_binomtest():
    scores = random_cube(n_runs=6, n_topics=25, decimals=1)
    result = xdiv.compare(scores, tests="sign")
    values = scores["score"].values[0]
    i, j = np.triu_indices(6, k=1)
    for k, (a, b) in enumerate(zip(i, j)):
        wins = int((values[a] > values[b]).sum())
        losses = int((values[a] < values[b]).sum())
        expected = stats.binomtest(wins, wins + losses, 0.5)
        assert upper(result, "pvalue", "sign")[k] == pytest.approx(expected.pvalue,
                                                                  abs=1e-12)
        assert upper(result, "statistic", "sign")[k] == pytest.approx(expected.statistic)
        assert upper(result, "wins")[k] == wins
        assert upper(result, "losses")[k] == losses


@pytest.mark.parametrize("decimals", [None, 1])
def test_permutation_test_is_exact_as_scipy_on_small_n(decimals):
    scores = random_cube(n_runs=4, n_topics=9, decimals=decimals)  # 2^9 = 512 <= B
    result = xdiv.compare(scores, tests="permutation", B=1000)
    values = scores["score"].values[0]
    i, j = np.triu_indices(4, k=1)
    for k, (a, b) in enumerate(zip(i, j)):
        expected = stats.permutation_test(
            (values[a], values[b]), lambda x, y, axis: np.mean(x - y, axis=axis),
            permutation_type="samples", n_resamples=np.inf, vectorized=True)
        assert upper(result, "pvalue", "permutation")[k] == pytest.approx(
            expected.pvalue, abs=1e-12)


def test_permutation_test_random_flips_close_to_exact():
    scores = random_cube(n_runs=3, n_topics=14)  # 2^14 > B: random
    exact = xdiv.compare(scores, tests="permutation", B=20_000)  # 2^14 = 16384: exact
    sampled = xdiv.compare(scores, tests="permutation", B=5000)
    p_exact = upper(exact, "pvalue", "permutation")
    p_sampled = upper(sampled, "pvalue", "permutation")
    assert np.all(np.abs(p_exact - p_sampled) < 4 * np.sqrt(0.25 / 5000) + 1e-3)
    assert np.all(p_sampled >= 1 / 5001)


def test_bootstrap_and_tukey_are_the_meta_kernels():
    scores = random_cube(n_runs=5, n_topics=20)
    result = xdiv.compare(scores, tests=["bootstrap", "tukey"], B=500, seed=3)
    boot = meta.bootstrap_test(scores, B=500, seed=3)
    tukey = meta.tukey_hsd(scores, B=500, seed=3)
    np.testing.assert_array_equal(result["pvalue"].sel(test="bootstrap").values,
                                  boot["pvalue"].values)
    np.testing.assert_array_equal(result["pvalue"].sel(test="tukey").values,
                                  tukey["pvalue"].values)
    np.testing.assert_array_equal(result["pvalue_adjusted"].sel(test="tukey").values,
                                  tukey["pvalue"].values)
    # baseline mode takes the baseline's cells out of the all-pairs result
    based = xdiv.compare(scores, baseline="r2", tests="tukey", B=500, seed=3,
                         correction="holm")
    np.testing.assert_array_equal(based["pvalue"].sel(test="tukey", baseline="r2").values,
                                  tukey["pvalue"].sel(run_a="r2").values)
    np.testing.assert_allclose(
        based["statistic"].sel(test="tukey", baseline="r2").values,
        tukey["diff"].sel(run_b="r2").values)
    assert "already adjusted" in based.attrs["adjustment"]


# -- corrections -------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["bonferroni", "holm", "fdr_bh", "fdr_by"])
def test_corrections_match_multipletests(method):
    scores = random_cube(n_metrics=2, n_runs=6)
    result = xdiv.compare(scores, tests=["t", "sign"], correction=method)
    for test in ("t", "sign"):
        for m in range(2):
            raw = upper(result, "pvalue", test, m)
            expected = multipletests(raw, method=method)[1]
            np.testing.assert_allclose(upper(result, "pvalue_adjusted", test, m), expected,
                                       rtol=1e-12, atol=1e-12)
        # family "all": one family over both metrics
        everything = xdiv.compare(scores, tests=test, correction=method, family="all")
        raw = np.concatenate([upper(everything, "pvalue", test, m) for m in range(2)])
        expected = multipletests(raw, method=method)[1]
        got = np.concatenate([upper(everything, "pvalue_adjusted", test, m)
                              for m in range(2)])
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_no_correction_keeps_the_pvalues():
    result = xdiv.compare(random_cube(), tests=["t", "wilcoxon"])
    xr.testing.assert_identical(result["pvalue"].rename("x"),
                                result["pvalue_adjusted"].rename("x"))
    assert result.attrs["correction"] == "none"
    expected = (result["pvalue_adjusted"] < 0.05).values
    np.testing.assert_array_equal(result["significant"].values, expected)


def test_maxt_bounds_and_monotone():
    scores = random_cube(n_metrics=1, n_runs=7, n_topics=25, seed=5)
    single = xdiv.compare(scores, tests="permutation", correction="maxt", B=2000)
    down = xdiv.compare(scores, tests="permutation", correction="maxt-stepdown", B=2000)
    raw = upper(single, "pvalue", "permutation")
    p_single = upper(single, "pvalue_adjusted", "permutation")
    p_down = upper(down, "pvalue_adjusted", "permutation")
    assert np.all(p_single >= p_down - 1e-15)
    assert np.all(p_down >= raw - 1e-15)
    # monotone in |t|: a larger |t| never gets a larger adjusted p-value
    t = np.abs(upper(xdiv.compare(scores), "statistic", "t"))
    order = np.argsort(-t)
    assert np.all(np.diff(p_single[order]) >= -1e-15)
    assert np.all(np.diff(p_down[order]) >= -1e-15)
    # for another test, MaxT on t, never below the test's own p-value
    other = xdiv.compare(scores, tests=["t", "sign"], correction="maxt", B=2000)
    for test in ("t", "sign"):
        assert np.all(upper(other, "pvalue_adjusted", test)
                      >= upper(other, "pvalue", test))


def test_maxt_kernel_single_step_by_hand():
    """Single-step MaxT against a direct loop over the enumerated flips."""
    rng = np.random.default_rng(2)
    diff = rng.normal(0.1, 1, size=(4, 8))
    raw, adjusted, exact = K.randomisation_test(diff, replicates=1000, rng=rng,
                                                family=np.zeros(4, dtype=int))
    assert exact
    flips = np.array([[1 if (v >> b) & 1 else -1 for b in range(8)] for v in range(256)])
    n = 8

    def t_of(d):
        mean, sd, t = K.paired_t(d)
        return np.abs(t)

    t_obs = t_of(diff)
    t_star = np.stack([t_of(diff * f) for f in flips])  # (256, 4)
    expected_raw = (t_star >= t_obs - 1e-9).mean(axis=0)
    expected_max = (t_star.max(axis=1)[:, None] >= t_obs - 1e-9).mean(axis=0)
    np.testing.assert_allclose(raw, expected_raw, atol=1e-12)
    np.testing.assert_allclose(adjusted, expected_max, atol=1e-12)
    assert n == diff.shape[1]


def test_maxt_controls_the_familywise_error_under_the_null():
    """20 null cubes: the share with any rejection at 0.1 stays near or below 0.1."""
    rejected = 0
    for seed in range(20):
        rng = np.random.default_rng(100 + seed)
        values = rng.normal(0.5, 0.1, (1, 6, 20)) + rng.normal(0, 0.1, (1, 1, 20))
        result = xdiv.compare(cube(values), tests="permutation", correction="maxt",
                              B=500, alpha=0.1, seed=seed)
        rejected += bool(result["significant"].values.any())
    assert rejected <= 6  # binomial(20, 0.1): P(X > 6) < 0.003


def test_maxt_family_all_with_different_topics():
    scores = random_cube(n_metrics=2, n_runs=4, n_topics=15)
    scores["score"][1, :, 0] = np.nan  # metric 1 loses topic 0
    with pytest.warns(XdivWarning, match="m1 1 of 15"):
        result = xdiv.compare(scores, correction="maxt", family="all", B=1000)
    assert result["n_topics"].values.tolist() == [15, 14]
    p = result["pvalue_adjusted"].values
    assert np.all(p[~np.isnan(p)] >= result["pvalue"].values[~np.isnan(p)])


# -- effects, intervals, counts ----------------------------------------------------------

def test_effects_by_hand_on_five_topics():
    x = [0.5, 0.4, 0.9, 0.2, 0.6]
    y = [0.3, 0.4, 0.5, 0.3, 0.1]
    result = xdiv.compare(cube([y, x], runs=["base", "new"]), baseline="base", alpha=0.1)
    d = np.subtract(x, y)  # 0.2, 0, 0.4, -0.1, 0.5
    mean, sd = d.mean(), d.std(ddof=1)
    cell = result.sel(metric="m0", baseline="base", run="new")
    assert float(cell["effect"]) == pytest.approx(0.2)
    assert float(cell["effect_size"]) == pytest.approx(mean / sd)
    assert float(cell["hedges_g"]) == pytest.approx(mean / sd * (1 - 3 / (4 * 4 - 1)))
    half = stats.t.ppf(0.95, 4) * sd / np.sqrt(5)
    assert float(cell["ci_low"]) == pytest.approx(mean - half)
    assert float(cell["ci_high"]) == pytest.approx(mean + half)
    assert (int(cell["wins"]), int(cell["ties"]), int(cell["losses"])) == (3, 1, 1)
    itself = result.sel(metric="m0", baseline="base", run="base")
    assert np.isnan(float(itself["effect"])) and np.isnan(float(itself["pvalue"][0]))
    assert (int(itself["wins"]), int(itself["ties"]), int(itself["losses"])) == (0, 5, 0)
    assert not bool(itself["significant"][0])
    np.testing.assert_allclose(result["mean"].values[0], [np.mean(y), np.mean(x)])
    run_half = stats.t.ppf(0.95, 4) * np.std(x, ddof=1) / np.sqrt(5)
    assert float(result["mean_ci_low"].sel(run="new")[0]) == pytest.approx(np.mean(x)
                                                                           - run_half)
    # the pairs layout mirrors the same comparison
    pairs = xdiv.compare(cube([y, x], runs=["base", "new"]), alpha=0.1)
    assert float(pairs["effect"].sel(run_a="new", run_b="base")[0]) == pytest.approx(0.2)
    assert float(pairs["effect"].sel(run_a="base", run_b="new")[0]) == pytest.approx(-0.2)
    assert float(pairs["ci_low"].sel(run_a="base", run_b="new")[0]) == pytest.approx(
        -(mean + half))
    assert int(pairs["wins"].sel(run_a="base", run_b="new")[0]) == 1


def test_identical_runs_are_not_different():
    values = random_cube(n_metrics=1, n_runs=2, n_topics=10)["score"].values.copy()
    values[0, 1] = values[0, 0]
    result = xdiv.compare(cube(values), tests=list(COMPARE_TESTS[:4]), B=1000)
    for test in COMPARE_TESTS[:4]:
        assert upper(result, "pvalue", test)[0] == 1.0
    assert upper(result, "effect_size")[0] == 0.0


def test_bca_matches_scipy_within_monte_carlo_error():
    scores = random_cube(n_metrics=1, n_runs=3, n_topics=30)
    result = xdiv.compare(scores, ci="bca", B=4000, seed=1)
    values = scores["score"].values[0]
    i, j = np.triu_indices(3, k=1)
    for k, (a, b) in enumerate(zip(i, j)):
        d = values[a] - values[b]
        expected = stats.bootstrap((d,), np.mean, method="BCa", n_resamples=4000,
                                   confidence_level=0.95, random_state=0).confidence_interval
        sd = d.std(ddof=1) / np.sqrt(len(d))
        # one BCa bound from B = 4000 varies by about 0.04 standard errors: 0.25 is > 4
        # standard deviations of the difference of two independent estimates
        assert upper(result, "ci_low")[k] == pytest.approx(expected.low, abs=0.25 * sd)
        assert upper(result, "ci_high")[k] == pytest.approx(expected.high, abs=0.25 * sd)


# -- layout, attributes, round trip, seeds -----------------------------------------------

def test_layouts_and_attributes():
    scores = random_cube(n_runs=4)
    pairs = xdiv.compare(scores, tests=["t", "bootstrap"], B=200)
    assert pairs["pvalue"].dims == ("test", "metric", "run_a", "run_b")
    assert pairs["effect"].dims == ("metric", "run_a", "run_b")
    assert pairs["mean"].dims == ("metric", "run")
    assert "asl" in pairs  # the pairwise tests' alias of pvalue
    assert pairs.attrs["mode"] == "pairs" and pairs.attrs["baseline"] == "[]"
    based = xdiv.compare(scores, baseline=["r0", "r3"], tests="t")
    assert based["pvalue"].dims == ("test", "metric", "baseline", "run")
    assert based["baseline"].values.tolist() == ["r0", "r3"]
    # two baselines meet: one comparison, shown both ways
    a = based.sel(baseline="r0", run="r3", test="t")
    b = based.sel(baseline="r3", run="r0", test="t")
    np.testing.assert_array_equal(a["pvalue"].values, b["pvalue"].values)
    np.testing.assert_allclose(a["effect"].values, -b["effect"].values)
    for key in ("xdiv_kind", "tests", "correction", "family", "B", "seed", "alpha", "ci",
                "mode", "baseline", "adjustment"):
        assert key in based.attrs
    assert based.attrs["xdiv_kind"] == "compare"
    assert based.attrs["baseline"] == '["r0", "r3"]'
    # the DataArray of the cube works too
    xr.testing.assert_identical(xdiv.compare(scores["score"], baseline="r0"),
                                xdiv.compare(scores, baseline="r0"))


@pytest.mark.parametrize("baseline", [None, "r1"])
def test_netcdf_round_trip(tmp_path, baseline):
    result = xdiv.compare(random_cube(n_runs=4), baseline=baseline,
                          tests=["t", "permutation"], correction="maxt-stepdown", B=300)
    path = xdiv.to_netcdf(result, tmp_path / "compare.nc")
    xr.testing.assert_identical(xdiv.open_dataset(path), result)


def test_seeds():
    scores = random_cube(n_runs=4, n_topics=30)
    kwargs = dict(tests=["permutation", "bootstrap"], correction="maxt", B=300, ci="bca")
    first = xdiv.compare(scores, seed=1, **kwargs)
    xr.testing.assert_identical(first, xdiv.compare(scores, seed=1, **kwargs))
    other = xdiv.compare(scores, seed=2, **kwargs)
    assert not np.array_equal(first["pvalue"].values, other["pvalue"].values,
                              equal_nan=True)
    assert not np.array_equal(first["ci_low"].values, other["ci_low"].values,
                              equal_nan=True)


def test_dropped_topics_warn_and_count():
    scores = random_cube(n_metrics=2, n_runs=3, n_topics=10)
    scores["score"][0, 1, :3] = np.nan
    with pytest.warns(XdivWarning, match="m0 3 of 10"):
        result = xdiv.compare(scores)
    assert result["n_topics"].values.tolist() == [7, 10]
    kept = scores["score"].values[0, :, 3:]
    expected = stats.ttest_rel(kept[0], kept[1]).pvalue
    assert float(result["pvalue"].sel(test="t", run_a="r0", run_b="r1")[0]) == (
        pytest.approx(expected, rel=1e-10))


def test_every_correction_and_test_runs_in_baseline_mode():
    scores = random_cube(n_metrics=2, n_runs=4, n_topics=12)
    for correction in (None, *COMPARE_CORRECTIONS):
        result = xdiv.compare(scores, baseline="r0", tests=COMPARE_TESTS,
                              correction=correction, B=200)
        p = result["pvalue_adjusted"].values
        defined = ~np.isnan(p)
        assert np.all((p[defined] >= 0) & (p[defined] <= 1))
        assert np.isnan(p[:, :, 0, 0]).all()


# -- refusals ----------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    (dict(baseline="r9"), "baseline 'r9' is not a run of the score cube; did you mean"),
    (dict(baseline=["r0", "r0"]), "names the run 'r0' twice"),
    (dict(tests="z"), "test 'z' is not one of t, wilcoxon"),
    (dict(tests=[]), "tests is empty"),
    (dict(tests=["t", "t"]), "names 't' twice"),
    (dict(correction="sidak"), "correction 'sidak' is not None or one of bonferroni"),
    (dict(family="run"), "family 'run' is not one of metric, all"),
    (dict(ci="normal"), "ci 'normal' is not one of t, bca"),
    (dict(tests="permutation", B=50), "too few for the permutation test"),
    (dict(correction="maxt", B=99), "too few for the maxt correction"),
    (dict(ci="bca", B=10), "too few for the BCa interval"),
    (dict(tests="bootstrap", B=150, alpha=0.001), "cannot reach alpha = 0.001"),
    (dict(B=1.5), "whole number"),
    (dict(alpha=1.5), "alpha must lie strictly between 0 and 1"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(")) as info:
        xdiv.compare(random_cube(n_metrics=1, n_runs=3, n_topics=8), **kwargs)
    assert "\n" not in str(info.value)


def test_bad_cubes():
    with pytest.raises(InputError, match="at least two runs"):
        xdiv.compare(cube(np.ones((1, 1, 5))))
    with pytest.raises(InputError, match="a family of comparisons.*holds 1"):
        xdiv.compare(cube(np.random.default_rng(0).random((1, 2, 5))), correction="maxt")
    values = np.random.default_rng(0).random((1, 2, 4))
    values[0, 0, :2] = np.nan
    values[0, 1, 2:] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(InputError, match="m0: the runs share no topic"):
            xdiv.compare(cube(values))
        values[0, 1, 1] = 0.5
        values[0, 0, 1] = 0.4
        with pytest.raises(InputError, match="share one topic only"):
            xdiv.compare(cube(values))
    with pytest.raises(InputError, match="score"):
        xdiv.compare(xr.Dataset())


# -- real data ---------------------------------------------------------------------------

def test_trec2009(trec2009):
    collection, runs = trec2009
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = xdiv.evaluate(runs, collection, ["alpha-nDCG@10", "ERR-IA@20"])
    result = xdiv.compare(scores, tests=["t", "permutation"], correction="holm", B=2000)
    t = result["pvalue"].sel(test="t").values
    perm = result["pvalue"].sel(test="permutation").values
    defined = ~np.isnan(t)
    # the randomisation and t tests agree closely on IR data (Smucker et al., CIKM 2007)
    assert np.corrcoef(t[defined], perm[defined])[0, 1] > 0.95
    assert int(result["n_topics"].sel(metric="alpha-nDCG@10")) <= 50


# -- the fast MaxT path against a direct reference ---------------------------------------

def reference_randomisation(diff, *, replicates, seed, family=None, step_down=False):
    """Plain numpy, by the definition: every flip's statistic ``|sum(s d)| / sqrt(n Q)``
    of every comparison from its own differences (one matrix product over all flips),
    the raw counts, and the single-step or step-down MaxT counts per family (``|t|`` on
    the common scale when a family mixes numbers of topics)."""
    diff = np.asarray(diff, dtype=float)
    used = ~np.isnan(diff)
    d = np.where(used, diff, 0.0)
    n = used.sum(axis=-1)
    scale = np.sqrt(n * (d ** 2).sum(axis=-1))
    unit = d / np.where(scale > 0, scale, 1.0)[:, None]
    x_obs = np.abs(unit.sum(axis=-1))
    exact, total, blocks = K.sign_flips(diff.shape[1], replicates,
                                        np.random.default_rng(seed))
    x_star = np.abs(np.concatenate(list(blocks)) @ unit.T)  # (flip, comparison)

    def pvalue(count):
        return np.minimum(count / total if exact else (1 + count) / (1 + total), 1.0)

    raw = pvalue((x_star >= x_obs - K.TOLERANCE).sum(axis=0))
    if family is None:
        return raw, None
    maxt = np.empty(len(diff))
    for label in np.unique(family):
        members = np.flatnonzero(family == label)
        mixed = len(np.unique(n[members])) > 1
        obs, star = x_obs[members], x_star[:, members]
        thr = obs - K.TOLERANCE
        if mixed:
            obs, star = K._common(obs, n[members]), K._common(star, n[members])
            thr = K._common(np.maximum(thr, 0.0), n[members])
        order = np.argsort(-obs, kind="stable")
        star, thr = star[:, order], thr[order]
        if step_down:
            reach = np.maximum.accumulate(star[:, ::-1], axis=1)[:, ::-1]
            p = np.maximum.accumulate(pvalue((reach >= thr).sum(axis=0)))
        else:
            p = pvalue((star.max(axis=1)[:, None] >= thr).sum(axis=0))
        maxt[members[order]] = p
    return raw, maxt


def awkward_scores(rng, sets, runs, topics, decimals):
    """Scores with identical runs, nearly identical runs and (optionally) ties."""
    values = rng.random((sets, runs, topics))
    if decimals is not None:
        values = np.round(values, decimals)
    values[:, 1] = values[:, 0]  # identical: Q = 0
    values[:, 3] = values[:, 2] + 1e-10 * rng.random(topics)  # cancellation in S_a - S_b
    values[:, 5] = np.clip(values[:, 4] + 0.01, 0, 1)  # nearly a constant difference
    return values


@pytest.mark.parametrize("topics, decimals", [(9, 1), (25, None), (40, 2)])
@pytest.mark.parametrize("step_down", [False, True])
def test_run_sums_path_equals_the_direct_reference(topics, decimals, step_down):
    """:func:`K.run_randomisation_test` (flipped sums of runs, tiles, guarded pairs, the
    step-down shortcut) gives the reference's p-values exactly, and those of the direct
    kernel :func:`K.randomisation_test`; exact enumeration included (9 topics)."""
    rng = np.random.default_rng(topics)
    values = awkward_scores(rng, 3, 11, topics, decimals)
    if topics == 40:
        values[1, :, :3] = np.nan  # a set leaves topics out: a family="all" of mixed n
    i, j = np.triu_indices(11, k=1)
    diff = (values[:, i] - values[:, j]).reshape(-1, topics)
    for family in (np.arange(3), np.zeros(3, dtype=int)):
        rows = np.repeat(family, len(i))
        expected = reference_randomisation(diff, replicates=600, seed=4, family=rows,
                                           step_down=step_down)
        direct = K.randomisation_test(diff, replicates=600, rng=np.random.default_rng(4),
                                      family=rows, step_down=step_down)
        fast = K.run_randomisation_test(values, i, j, replicates=600,
                                        rng=np.random.default_rng(4), family=family,
                                        step_down=step_down, tile_bytes=8 * 250 * 16)
        assert fast[2] == direct[2] == (topics == 9)
        for got in (direct, fast):
            np.testing.assert_array_equal(got[0], expected[0])
            np.testing.assert_array_equal(got[1], expected[1])


def test_run_sums_path_guards_cancellation():
    """Runs a hair apart (S_a - S_b loses every digit but a few) are computed directly:
    their flipped statistics keep full precision, where flipped sums of runs would not."""
    rng = np.random.default_rng(0)
    base = rng.random(30) * 1e6  # large sums: cancellation costs the most
    values = np.stack([base, base + 1e-7 * rng.normal(size=30), base + 1.0])[None]
    i, j = np.array([0, 0, 1]), np.array([1, 2, 2])
    diff = (values[:, i] - values[:, j]).reshape(-1, 30)
    expected = reference_randomisation(diff, replicates=2000, seed=1,
                                       family=np.zeros(3, dtype=int))
    got = K.run_randomisation_test(values, i, j, replicates=2000,
                                   rng=np.random.default_rng(1), family=np.zeros(1, int))
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])


def test_run_sums_path_refuses_run_dependent_nan():
    values = np.random.default_rng(0).random((1, 3, 5))
    values[0, 1, 2] = np.nan
    with pytest.raises(ValueError, match="missing for every run"):
        K.run_randomisation_test(values, np.array([0]), np.array([1]), replicates=100,
                                 rng=np.random.default_rng(0))


@pytest.mark.parametrize("correction", ["maxt", "maxt-stepdown"])
@pytest.mark.parametrize("family", ["metric", "all"])
def test_compare_maxt_equals_the_reference(correction, family):
    scores = random_cube(n_metrics=2, n_runs=9, n_topics=20, seed=7, decimals=2)
    result = xdiv.compare(scores, tests=["t", "permutation"], correction=correction,
                          family=family, B=500, seed=3)
    values = scores["score"].values
    i, j = np.triu_indices(9, k=1)
    diff = (values[:, i] - values[:, j]).reshape(-1, 20)
    labels = np.repeat(np.arange(2) if family == "metric" else np.zeros(2, int), len(i))
    raw, maxt = reference_randomisation(diff, replicates=500, seed=3, family=labels,
                                        step_down=correction == "maxt-stepdown")
    for m in range(2):
        part = slice(m * len(i), (m + 1) * len(i))
        np.testing.assert_array_equal(upper(result, "pvalue", "permutation", m), raw[part])
        np.testing.assert_array_equal(upper(result, "pvalue_adjusted", "permutation", m),
                                      np.maximum(maxt[part], raw[part]))


def test_compare_maxt_family_all_mixed_topics_equals_the_reference():
    scores = random_cube(n_metrics=2, n_runs=6, n_topics=15, seed=2)
    scores["score"][1, :, :2] = np.nan
    with pytest.warns(XdivWarning):
        result = xdiv.compare(scores, correction="maxt-stepdown", family="all", B=400)
    values = scores["score"].values
    i, j = np.triu_indices(6, k=1)
    diff = (values[:, i] - values[:, j]).reshape(-1, 15)
    _, maxt = reference_randomisation(diff, replicates=400, seed=0,
                                      family=np.zeros(len(diff), int), step_down=True)
    t = result["pvalue"].sel(test="t").values
    for m in range(2):
        np.testing.assert_array_equal(
            upper(result, "pvalue_adjusted", "t", m),
            np.maximum(maxt[m * len(i):(m + 1) * len(i)], t[m][np.triu_indices(6, k=1)]))


def reference_tukey(scores, replicates, seed, chunk=250):
    """The randomised Tukey HSD by its former code: every trial's scores gathered with
    take_along_axis, every pair compared with every trial's range."""
    rng = np.random.default_rng(seed)
    n_runs, n_topics = scores.shape[-2:]
    i, j = np.triu_indices(n_runs, k=1)
    means = scores.mean(axis=-1)
    observed = np.abs(means[..., i] - means[..., j])
    reached = np.zeros(observed.shape)
    for start in range(0, replicates, chunk):
        b = min(chunk, replicates - start)
        perm = rng.permuted(np.broadcast_to(np.arange(n_runs), (b, n_topics, n_runs)),
                            axis=-1)
        permuted = np.take_along_axis(scores[..., None, :, :],
                                      np.swapaxes(perm, -1, -2)[(None,) * (scores.ndim - 2)],
                                      axis=-2)
        trial_means = permuted.mean(axis=-1)
        spread = trial_means.max(axis=-1) - trial_means.min(axis=-1)
        reached += (spread[..., :, None] >= observed[..., None, :] - 1e-12).sum(axis=-2)
    return means[..., i] - means[..., j], reached / replicates


@pytest.mark.parametrize("shape, decimals, replicates",
                         [((7, 12), 1, 600), ((3, 8, 20), None, 510), ((2, 2, 5, 9), 2, 250)])
def test_randomised_tukey_is_its_former_code_bit_for_bit(shape, decimals, replicates):
    from xdiv.kernels import meta as KM

    values = np.random.default_rng(1).random(shape)
    if decimals is not None:
        values = np.round(values, decimals)
    expected = reference_tukey(values, replicates, 5)
    got = KM.randomised_tukey(values, replicates=replicates, rng=np.random.default_rng(5),
                              pvalue_rule="share")
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)


def test_trec2009_maxt_equals_the_reference(trec2009):
    collection, runs = trec2009
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = xdiv.evaluate(runs, collection, ["alpha-nDCG@10", "ERR-IA@20"])
        single = xdiv.compare(scores, tests="permutation", correction="maxt", B=1000)
        down = xdiv.compare(scores, tests="permutation", correction="maxt-stepdown",
                            B=1000)
    values = scores["score"].values
    for m in range(values.shape[0]):
        kept = values[m][:, ~np.isnan(values[m]).any(axis=0)]  # topics every run scored
        i, j = np.triu_indices(kept.shape[0], k=1)
        diff = kept[i] - kept[j]
        for result, step_down in ((single, False), (down, True)):
            raw, maxt = reference_randomisation(diff, replicates=1000, seed=0,
                                                family=np.zeros(len(diff), int),
                                                step_down=step_down)
            np.testing.assert_array_equal(upper(result, "pvalue", "permutation", m), raw)
            np.testing.assert_array_equal(
                upper(result, "pvalue_adjusted", "permutation", m), np.maximum(maxt, raw))


def test_holm_is_multipletests_bit_for_bit(monkeypatch):
    from xdiv.kernels.compare import holm

    # multipletests calls gc.collect(), which changes none of its values and costs a
    # large pytest process a third of a second a call: left out for the 56 calls here
    monkeypatch.setattr(gc, "collect", lambda generation=2: 0)
    rng = np.random.default_rng(0)
    for size in (1, 2, 7, 300):
        with_nan = rng.random(size)
        with_nan[::3] = np.nan  # paired_t_tests passes NaN where a pair's differences are 0
        for p in (rng.random(size), np.round(rng.random(size), 2), rng.random(size) ** 8,
                  np.ones(size), np.zeros(size), with_nan, rng.random(size) / size):
            for alpha in (0.05, 0.5):
                reject, adjusted = holm(p, alpha)
                expected = multipletests(p, alpha=alpha, method="holm")
                np.testing.assert_array_equal(adjusted, expected[1])
                np.testing.assert_array_equal(reject, expected[0])


# -- third audit: bounds, speed and one p-value convention --------------------------------

def test_resampled_pvalues_follow_one_convention():
    """Issue 35 item 13: every p-value from random resamples, in compare and in meta, is
    (c + 1) / (B + 1) (Phipson & Smyth 2010): never 0, the same floor for every test."""
    rng = np.random.default_rng(3)
    values = rng.random((1, 4, 200)) * 0.1 + np.array([0.0, 2.0, 4.0, 6.0])[None, :, None]
    scores = cube(values)
    B = 999
    result = xdiv.compare(scores, tests=["permutation", "bootstrap", "tukey"], B=B)
    floor = 1 / (B + 1)
    for test in ("permutation", "bootstrap", "tukey"):
        p = upper(result, "pvalue", test)
        assert np.all(p == floor), (test, p)  # every pair far apart: c = 0
    for name, run in (("bootstrap", meta.bootstrap_test), ("tukey", meta.tukey_hsd)):
        asl = run(scores, B=B)["pvalue"].values[0]
        i, j = np.triu_indices(4, k=1)
        assert np.all(asl[i, j] == floor), name
        share = run(scores, B=B, pvalue_rule="share")
        assert np.all(share["pvalue"].values[0][i, j] == 0.0)  # Sakai's ASL, c / B
        assert share.attrs["pvalue_rule"] == "share"
    # a count c > 0 reads (c + 1) / (B + 1) by default and c / B by the rule "share"
    close = cube(rng.random((1, 3, 12)))
    plus = meta.tukey_hsd(close, B=B, seed=4)["pvalue"].values
    share = meta.tukey_hsd(close, B=B, seed=4, pvalue_rule="share")["pvalue"].values
    np.testing.assert_allclose(plus, (share * B + 1) / (B + 1), rtol=1e-12)
    with pytest.raises(InputError, match="pvalue_rule 'sakai' is not one of plus-one, share"):
        meta.tukey_hsd(close, B=B, pvalue_rule="sakai")


def test_tukey_rows_carry_simultaneous_intervals():
    """Issue 35 item 13: Tukey's simultaneous intervals (studentized range, two-way
    residual variance), as statsmodels' Tukey HSD computes them from the same means,
    variance and degrees of freedom."""
    from statsmodels.sandbox.stats.multicomp import tukeyhsd

    values = np.random.default_rng(8).random((2, 5, 12))
    scores = cube(values)
    result = xdiv.compare(scores, tests=["t", "tukey"], B=200, alpha=0.1)
    k, n = 5, 12
    i, j = np.triu_indices(k, k=1)
    for m in range(2):
        x = values[m]
        residual = x - x.mean(1, keepdims=True) - x.mean(0, keepdims=True) + x.mean()
        df = (k - 1) * (n - 1)
        # statsmodels' df is per group (df_total = k df): (k - 1)(n - 1) in all
        confint = tukeyhsd(x.mean(1), n, (residual ** 2).sum() / df, df=df / k,
                           alpha=0.1)[4]
        low = result["tukey_ci_low"].isel(metric=m).values
        high = result["tukey_ci_high"].isel(metric=m).values
        # statsmodels' differences are mean_j - mean_i: our (j, i) cells
        np.testing.assert_allclose(low[j, i], confint[:, 0], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(high[j, i], confint[:, 1], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(low[i, j], -high[j, i], rtol=1e-12)
    # baseline mode: the same cells
    based = xdiv.compare(scores, baseline="r1", tests="tukey", B=200, alpha=0.1)
    np.testing.assert_allclose(based["tukey_ci_low"].sel(baseline="r1").values,
                               result["tukey_ci_low"].sel(run_b="r1").values)
    assert "tukey_ci_low" not in xdiv.compare(scores, tests="t")


def test_wilcoxon_with_ties_on_few_topics_is_exact_and_fast():
    """Issue 35 item 6: 20 runs on 13 topics with ties (190 comparisons, each one of
    scipy's 2^13-flip permutation tests) in well under a second, with scipy's p-values
    (checked against an independent enumeration of the sign flips)."""
    import itertools
    import signal
    import time

    rng = np.random.default_rng(6)
    values = np.round(rng.random((1, 20, 13)), 1)  # ties and zeros
    scores = cube(values)

    def stop(signum, frame):
        raise TimeoutError("compare --test wilcoxon took over 20 s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, 20)
    try:
        start = time.perf_counter()
        result = xdiv.compare(scores, tests="wilcoxon")
        took = time.perf_counter() - start
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert took < 5
    flips = np.array(list(itertools.product([-1.0, 1.0], repeat=13)))
    i, j = np.triu_indices(20, k=1)
    got_p, got_s = upper(result, "pvalue", "wilcoxon"), upper(result, "statistic", "wilcoxon")
    for k in range(0, len(i), 7):
        d = values[0, i[k]] - values[0, j[k]]
        if not d.any():
            assert got_p[k] == 1.0
            continue
        ranks = np.where(d != 0, stats.rankdata(np.where(d != 0, np.abs(d), np.inf)), 0.0)
        observed = ranks[d > 0].sum()
        null = (flips > 0) @ ranks
        expected = min(1.0, 2 * min(np.mean(null <= observed), np.mean(null >= observed)))
        assert got_p[k] == pytest.approx(expected, rel=1e-12)
        assert got_s[k] == min(observed, ranks.sum() - observed)
    # scipy itself on a few comparisons of few topics (its enumeration is slow beyond)
    small = np.round(rng.random((6, 8)), 1)
    for a, b in itertools.combinations(range(6), 2):
        d = small[a] - small[b]
        if not d.any():
            continue
        s, p = K.signed_rank_exact(d[None])
        expected = stats.wilcoxon(d)
        assert p[0] == pytest.approx(expected.pvalue, rel=1e-12)
        assert s[0] == expected.statistic


@pytest.mark.parametrize("B", [10 ** 6 + 1, 10 ** 15, 10 ** 18, 2 ** 63])
@pytest.mark.parametrize("options", [dict(tests="bootstrap"), dict(tests="tukey"),
                                     dict(ci="bca"), dict(tests="t")])
def test_huge_B_is_refused_in_one_line(B, options):
    """Issue 35 item 5: B beyond 10^6 is refused at once, saying why (it was a numpy
    traceback from about 10^18, and Tukey with 10^15 never ended)."""
    import signal

    def stop(signum, frame):
        raise TimeoutError(f"B = {B} was not refused within 10 s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, 10)
    try:
        with pytest.raises(InputError, match="too many: at most 1,000,000") as info:
            xdiv.compare(random_cube(n_metrics=1, n_runs=3, n_topics=8), B=B, **options)
        assert "\n" not in str(info.value)
        with pytest.raises(InputError, match="too many"):
            meta.tukey_hsd(random_cube(n_metrics=1, n_runs=3, n_topics=8), B=B)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
