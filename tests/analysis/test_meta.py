"""Meta-evaluation (spec §7) against naive implementations and hand-computed cases."""

from __future__ import annotations

import itertools
import math
import os
import warnings

import numpy as np
import pytest
import xarray as xr
from scipy.stats import binomtest, kendalltau

import xdiv
from xdiv import meta
from xdiv.kernels.meta import tau_ap, tau_ap_b


def cube(values: np.ndarray, metrics=None) -> xr.Dataset:
    """A score cube from an array (metric, run, topic)."""
    m, r, t = values.shape
    return xr.Dataset({"score": (("metric", "run", "topic"), values)},
                      coords={"metric": metrics or [f"m{k}" for k in range(m)],
                              "run": [f"r{k}" for k in range(r)],
                              "topic": [str(k) for k in range(t)]})


def naive_bootstrap(x, y, B, rng):
    z = x - y
    n = len(z)

    def t_of(v):
        sd = v.std(ddof=1)
        return 0.0 if sd == 0 and v.mean() == 0 else v.mean() / (sd / math.sqrt(n))

    t_obs, w = t_of(z), z - z.mean()
    hits = 0
    for _ in range(B):
        sample = w[rng.integers(0, n, size=n)]
        hits += abs(t_of(sample)) >= abs(t_obs)
    return hits / B


def naive_tukey(scores, B, rng):
    runs, topics = scores.shape
    observed = np.abs(scores.mean(1)[:, None] - scores.mean(1)[None, :])
    count = np.zeros_like(observed)
    for _ in range(B):
        perm = np.array([rng.permutation(runs) for _ in range(topics)]).T
        shuffled = np.take_along_axis(scores, perm, axis=0)
        means = shuffled.mean(1)
        count += (means.max() - means.min()) >= observed - 1e-12
    return count / B


def test_bootstrap_matches_a_naive_loop_within_monte_carlo_error():
    rng = np.random.default_rng(0)
    values = rng.random((2, 4, 30)) + np.array([0, 0.05, 0.1, 0.3])[None, :, None]
    res = meta.bootstrap_test(cube(values), B=2000, seed=1)
    for m in range(2):
        for a, b in itertools.combinations(range(4), 2):
            want = naive_bootstrap(values[m, a], values[m, b], 2000, np.random.default_rng(99))
            got = float(res.asl.isel(metric=m, run_a=a, run_b=b))
            assert abs(got - want) <= 4 * math.sqrt(max(want * (1 - want), 1e-4) / 2000) + 0.01
            assert got == float(res.asl.isel(metric=m, run_a=b, run_b=a))
    assert np.isnan(res.asl.values[:, range(4), range(4)]).all()
    again = meta.bootstrap_test(cube(values), B=2000, seed=1)
    xr.testing.assert_identical(res, again)  # same seed, same replicates


def test_bootstrap_same_draws_as_naive_loop():
    # with the same generator the test draws B x n topic indices in chunks of 250 rows;
    # a loop over exactly those index rows gives the identical ASL
    rng = np.random.default_rng(5)
    values = rng.random((1, 2, 12))
    res = meta.bootstrap_test(cube(values), B=500, seed=7, pvalue_rule="share")
    draws = np.random.default_rng(7)
    idx = np.concatenate([draws.integers(0, 12, size=(250, 12)) for _ in range(2)])
    z = values[0, 0] - values[0, 1]
    w = z - z.mean()
    t = lambda v: v.mean() / (v.std(ddof=1) / math.sqrt(12))  # noqa: E731
    want = np.mean([abs(t(w[row])) >= abs(t(z)) for row in idx])
    assert float(res.asl.isel(metric=0, run_a=0, run_b=1)) == want


def test_tukey_matches_a_naive_loop_within_monte_carlo_error():
    rng = np.random.default_rng(1)
    values = rng.random((1, 4, 20)) + np.array([0, 0.05, 0.15, 0.3])[None, :, None]
    res = meta.tukey_hsd(cube(values), B=3000, seed=2)
    want = naive_tukey(values[0], 3000, np.random.default_rng(8))
    got = res.asl.values[0]
    mask = ~np.eye(4, dtype=bool)
    assert np.all(np.abs(got[mask] - want[mask]) <= 4 * np.sqrt(
        np.maximum(want[mask] * (1 - want[mask]), 1e-4) / 3000) + 0.01)


def test_tukey_is_more_conservative_than_bootstrap_on_trec2009(trec2009):
    col, runs = trec2009
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        scores = xdiv.evaluate(runs, col, ["alpha-nDCG@10", "D#-nDCG@10", "I-rec@10"])
    boot = meta.discriminative_power(scores, "bootstrap", B=1000, seed=1)
    tukey = meta.discriminative_power(scores, "tukey", B=2000, seed=1)
    i, j = np.triu_indices(18, 1)
    b, t = boot.asl.values[:, i, j], tukey.asl.values[:, i, j]
    assert (t >= b - 0.01).mean() > 0.99  # Monte Carlo noise allowed
    assert (tukey.power <= boot.power).all()


def test_discriminative_power_and_deltas():
    values = np.zeros((1, 3, 10))
    values[0, 1] += 0.5  # r1 far above r0 and r2
    values[0, :, ::2] += 0.01
    values += np.random.default_rng(3).normal(0, 0.01, values.shape)
    res = meta.discriminative_power(cube(values), "bootstrap", B=500, seed=0)
    assert res.n_significant.item() == 2 and res.power.item() == pytest.approx(2 / 3)
    tk = meta.discriminative_power(cube(values), "tukey", B=500, seed=0)
    assert tk.required_delta.item() == pytest.approx(
        np.abs(values[0].mean(1)[1] - values[0].mean(1)[[0, 2]]).min())
    assert res.asl_curve.sizes["pair_rank"] == 3


def test_concordance_hand_example():
    # 2 runs, 4 topics: differences r0 - r1 per topic
    m1 = [0.2, -0.1, 0.3, 0.0]
    m2 = [-0.1, 0.2, -0.2, 0.1]
    gs = [0.5, 0.0, -0.4, 0.3]  # topic 2 gold tie: both "correct"
    values = np.zeros((3, 2, 4))
    values[:, 0] = [m1, m2, gs]
    res = meta.concordance(cube(values, ["M1", "M2", "GS"]), "M1", "M2", gold="GS")
    # disagreements at topics 0, 1, 2; M1 correct at 0, 1 (tie); M2 correct at 1, 2
    assert int(res.disagreements) == 3
    assert float(res.concordance_1) == pytest.approx(2 / 3)
    assert float(res.concordance_2) == pytest.approx(2 / 3)
    assert int(res.only_1) == 1 and int(res.only_2) == 1
    assert float(res.pvalue) == pytest.approx(binomtest(1, 2, 0.5).pvalue)
    table = meta.concordance_table(cube(values, ["M1", "M2", "GS"]), ["M1", "M2"], gold="GS")
    assert float(table.disagreements.sel(metric_1="M1", metric_2="M2")) == 3


def brute_tau_ap(evaluated, reference):
    order = np.argsort(-evaluated, kind="stable")
    n = len(order)
    total = 0.0
    for pos in range(1, n):
        item = order[pos]
        correct = sum(reference[order[k]] > reference[item] for k in range(pos))
        total += correct / pos
    return 2 / (n - 1) * total - 1


def test_tau_ap_brute_force_and_kendall_relation():
    rng = np.random.default_rng(4)
    for _ in range(20):
        a, b = rng.random(9), rng.random(9)
        assert tau_ap(a, b) == pytest.approx(brute_tau_ap(a, b), abs=1e-12)
    truth = np.arange(10.0)[::-1]
    # a swap at the bottom and one at the top cost Kendall the same; tau_ap punishes the top
    top, bottom = truth.copy(), truth.copy()
    top[[0, 1]] = top[[1, 0]]
    bottom[[8, 9]] = bottom[[9, 8]]
    assert kendalltau(top, truth).statistic == kendalltau(bottom, truth).statistic
    assert tau_ap(top, truth) < tau_ap(bottom, truth)
    # uniform errors: one swap in each of the 5 adjacent blocks ... equal to Kendall when the
    # errors are spread evenly: the reversed ranking gives -1 for both
    assert tau_ap(truth[::-1].copy(), truth) == pytest.approx(
        kendalltau(truth[::-1], truth).statistic)


def expected_tau_ap_over_tie_orders(evaluated, reference):
    """Yilmaz's tau_ap averaged over every order of the evaluated ranking's tie groups,
    with a pair tied in the reference counted as correct (brute force)."""
    groups = [np.flatnonzero(evaluated == v) for v in np.unique(evaluated)[::-1]]
    values = []
    for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
        ranking = [item for order in orders for item in order]
        total = sum(sum(reference[ranking[k]] >= reference[ranking[pos]] for k in range(pos))
                    / pos for pos in range(1, len(ranking)))
        values.append(2 / (len(ranking) - 1) * total - 1)
    return np.mean(values)


def test_tau_ap_with_ties_is_the_expectation_over_tie_orders():
    rng = np.random.default_rng(11)
    for _ in range(30):
        evaluated = rng.integers(0, 4, size=7).astype(float)
        reference = rng.integers(0, 4, size=7).astype(float)
        assert tau_ap(evaluated, reference) == pytest.approx(
            expected_tau_ap_over_tie_orders(evaluated, reference), abs=1e-12)
    tied = np.array([0.3, 0.3, 0.1, 0.1, 0.0])
    assert tau_ap(tied, tied) == 1.0  # identical rankings agree fully, ties or not
    # the result does not depend on the order in which tied runs are listed
    perm = np.array([1, 0, 3, 2, 4])
    reference = np.array([0.5, 0.4, 0.3, 0.2, 0.1])
    assert tau_ap(tied[perm], reference[perm]) == pytest.approx(tau_ap(tied, reference))
    # a fully tied evaluated ranking is a random order: expected tau_ap 0
    assert tau_ap(np.zeros(3), np.array([3.0, 2.0, 1.0])) == pytest.approx(0.0)
    # a run without a mean (NaN) leaves the correlation undefined, as for Kendall's tau
    with_nan = np.array([0.9, np.nan, 0.5, 0.3])
    assert np.isnan(tau_ap(with_nan, reference[:4])) and np.isnan(tau_ap(reference[:4], with_nan))
    assert np.isnan(tau_ap_b(with_nan, reference[:4]))
    assert np.isnan(kendalltau(with_nan, reference[:4]).statistic)


def test_tau_ap_variants_reproduce_the_published_ircor_example():
    """The example of Urbano's pyircor README (the Python port of ircor, the code of
    Urbano & Marrero, ICTIR 2017), with its printed values. ircor's x is the true ranking
    and y the estimate, so tauAP(x, y) is our tau_ap(evaluated=y, reference=x)."""
    x = np.array([0.06, 0.2, 0.27, 0.37, 0.57, 0.63, 0.66, 0.9, 0.91, 0.94])
    y = np.array([0.37, 0.06, 0.2, 0.27, 0.57, 0.66, 0.63, 0.91, 0.9, 0.94])
    assert tau_ap(y, x) == pytest.approx(0.7491181657848325, abs=1e-12)  # tauap, no ties
    y = np.round(y * 5) / 5  # ties in the estimate
    assert tau_ap(y, x) == pytest.approx(0.6074514991181656, abs=1e-12)  # tauap_a
    x = np.round(x * 5) / 5  # ties in both
    assert tau_ap_b(x, y) == pytest.approx(0.626984126984127, abs=1e-12)  # tauap_b


def test_tau_ap_b_by_hand_and_without_ties():
    # x = [3, 2, 2, 1], y = [4, 3, 2, 1]. Walking y (p = 0, 1, 2, 3): items 1 and 3 have
    # every item above them above in x too; item 2 has 1 of 2 (x ties items 1 and 2):
    # 2/3 (1 + 1/2 + 1) - 1 = 2/3. Walking x (p = 0, 1, 1, 3): all agree with y: 1.
    x, y = np.array([3.0, 2.0, 2.0, 1.0]), np.array([4.0, 3.0, 2.0, 1.0])
    assert tau_ap_b(x, y) == pytest.approx((2 / 3 + 1) / 2)
    assert tau_ap_b(x, x) == 1.0
    rng = np.random.default_rng(5)
    for _ in range(10):
        a, b = rng.random(8), rng.random(8)
        assert tau_ap_b(a, b) == pytest.approx((tau_ap(a, b) + tau_ap(b, a)) / 2)


def test_rank_correlation_and_significance_agreement(tmp_path):
    rng = np.random.default_rng(2)
    values = rng.random((3, 6, 25)) + np.linspace(0, 0.5, 6)[None, :, None]
    scores = cube(values)
    for method in ("kendall", "tau_ap", "tau_ap_sym", "tau_ap_b"):
        corr = meta.rank_correlation(scores, method)
        assert corr.dims == ("metric_1", "metric_2")
        np.testing.assert_allclose(np.diag(corr.values), 1.0)
    sym = meta.rank_correlation(scores, "tau_ap_sym").values
    np.testing.assert_allclose(sym, sym.T)
    test = meta.bootstrap_test(scores, B=300, seed=3)
    agree = meta.significance_agreement(test)
    np.testing.assert_allclose(np.diag(agree.jaccard.values), 1.0)
    assert (agree.only_1.values == agree.only_2.values.T).all()
    for ds in (test, agree, meta.tukey_hsd(scores, B=200, seed=1)):
        back = xdiv.open_dataset(xdiv.to_netcdf(ds, tmp_path / "m.nc"))
        xr.testing.assert_identical(ds, back)


def test_sampling_is_seeded():
    scores = cube(np.random.default_rng(0).random((1, 8, 12)))
    a, b = meta.sample_runs(scores, 4, seed=3), meta.sample_runs(scores, 4, seed=3)
    assert a.run.values.tolist() == b.run.values.tolist()
    assert a.attrs["sample_run_seed"] == 3 and a.sizes["run"] == 4
    assert meta.sample_topics(scores, 5, seed=1).sizes["topic"] == 5
    with pytest.raises(xdiv.InputError):
        meta.sample_runs(scores, 9)


@pytest.mark.parametrize("method", ["bootstrap", "tukey"])
def test_a_metrics_result_does_not_depend_on_the_other_metrics(method):
    rng = np.random.default_rng(8)
    values = rng.random((2, 5, 20)) + np.linspace(0, 0.3, 5)[None, :, None]
    values[0, :, 3] = np.nan  # metric 0 is undefined on topic 3: its own resampling group
    both = meta.discriminative_power(cube(values, ["M0", "M1"]), method, B=300, seed=4)
    alone = meta.discriminative_power(cube(values[1:], ["M1"]), method, B=300, seed=4)
    np.testing.assert_array_equal(both.asl.sel(metric="M1").values,
                                  alone.asl.sel(metric="M1").values)
    first = meta.discriminative_power(cube(values[:1], ["M0"]), method, B=300, seed=4)
    np.testing.assert_array_equal(both.asl.sel(metric="M0").values,
                                  first.asl.sel(metric="M0").values)


@pytest.mark.parametrize("kwargs, message", [
    ({"B": 0}, "B must be a whole number >= 1, not 0"),
    ({"B": -5}, "B must be a whole number >= 1"),
    ({"B": 2.5}, "B must be a whole number >= 1"),
    ({"alpha": 0.0}, "alpha must lie strictly between 0 and 1"),
    ({"alpha": 1.5}, "alpha must lie strictly between 0 and 1"),
    ({"alpha": float("nan")}, "alpha must lie strictly between 0 and 1"),
    ({"seed": -1}, "seed must be a whole number from 0 to 2\\*\\*63 - 1"),
    ({"seed": 2 ** 70}, "seed must be a whole number"),
])
@pytest.mark.parametrize("method", ["bootstrap", "tukey"])
def test_bad_resampling_parameters_are_rejected(method, kwargs, message):
    scores = cube(np.random.default_rng(0).random((1, 3, 6)))
    with pytest.raises(xdiv.InputError, match=message):
        meta.discriminative_power(scores, method, **kwargs)


def test_concordance_of_a_metric_with_itself_is_an_error():
    scores = cube(np.random.default_rng(0).random((3, 3, 6)), ["M1", "M2", "GS"])
    with pytest.raises(xdiv.InputError, match="two different metrics, not M1 with itself"):
        meta.concordance(scores, "M1", "M1", "GS")
    with pytest.raises(xdiv.InputError, match="gold standard cannot be one of the compared "
                                              "metrics \\(M2\\)"):
        meta.concordance(scores, "M1", "M2", ["GS", "M2"])


def test_concordance_table_and_score_array_use_the_cubes_labels():
    values = np.random.default_rng(1).random((3, 4, 8))
    scores = cube(values, ["nDCG@10", "P@5", "I-rec@10"])
    table = meta.concordance_table(scores, ["nDCG(gain=exp)@10", "P@5"], "I-rec@10")
    assert table.metric_1.values.tolist() == ["nDCG@10", "P@5"]
    assert xdiv.core.labels.from_json(table.attrs["gold"]) == ["I-rec@10"]
    with pytest.raises(xdiv.InputError, match="name a metric twice"):
        meta.concordance_table(scores, ["nDCG@10", "nDCG(gain=exp)@10"], "I-rec@10")
    from xdiv.core.cube import score_array

    assert score_array(scores, "P@5").metric.values.tolist() == ["P@5"]  # a single name
    assert score_array(scores, runs="r1").run.values.tolist() == ["r1"]


def test_a_failed_netcdf_write_leaves_no_partial_file(tmp_path):
    good = xr.Dataset({"a": ("x", [1, 2])})
    path = xdiv.to_netcdf(good, tmp_path / "r.nc")
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(path).st_mode & 0o777 == 0o666 & ~umask  # as open() creates files
    with pytest.raises(TypeError):  # an attribute NetCDF cannot hold
        xdiv.to_netcdf(good.assign_attrs(seed=2 ** 70), path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.nc"]
    xr.testing.assert_identical(xdiv.open_dataset(path), good)  # the old file is unchanged
    with pytest.raises(xdiv.InputError, match="does not exist"):
        xdiv.to_netcdf(good, tmp_path / "missing" / "r.nc")
    with pytest.raises(xdiv.InputError, match="is a directory, not a file"):
        xdiv.to_netcdf(good, tmp_path)
    with pytest.raises(xdiv.InputError, match="is a directory, not a file"):
        xdiv.open_dataset(tmp_path)
