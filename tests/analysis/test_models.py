"""``xdiv.stats.mixed``: every number is statsmodels' own fit of the same data (fitted here
through statsmodels' formula interface, from its own starting values), the adjustments
are those of scipy and statsmodels, simulations recover known effects, and bad input is
one line."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xdiv
from xdiv import stats
from xdiv.errors import InputError

RTOL = 1e-5
"""Two optimisations of the same likelihood (ours started at the moment estimates,
statsmodels' formula fit at its own) agree to about this."""


def _cube(values, runs=None, topics=None, metric="m"):
    n_runs, n_topics = values.shape[-2:]
    runs = runs or [f"r{i}" for i in range(n_runs)]
    topics = topics or [f"t{i}" for i in range(n_topics)]
    return xr.Dataset({"score": (("metric", "run", "topic"), values[None])},
                      coords={"metric": [metric], "run": runs, "topic": topics})


def _collections(planes, names):
    """Several collections of the same runs, each with its own topics: the cubes
    concatenated on ``collection`` (``xr.concat(..., join="outer")``: the union of the
    topics, sorted, NaN where a collection lacks a topic), built on the arrays since the
    simulations make hundreds."""
    labels = [[f"{n}-{t}" for t in range(p.shape[1])] for p, n in zip(planes, names)]
    topics = sorted({label for own in labels for label in own})
    where = {label: k for k, label in enumerate(topics)}
    values = np.full((len(planes), 1, planes[0].shape[0], len(topics)), np.nan)
    for k, (plane, own) in enumerate(zip(planes, labels)):
        values[k, 0][:, [where[label] for label in own]] = plane
    return xr.Dataset({"score": (("collection", "metric", "run", "topic"), values)},
                      coords={"collection": names, "metric": ["m"],
                              "run": [f"r{i}" for i in range(planes[0].shape[0])],
                              "topic": topics})


def _simulate(rng, effects, topic_sd, noise_sd, n_topics):
    return (np.asarray(effects)[:, None] + rng.normal(0, topic_sd, n_topics)[None, :]
            + rng.normal(0, noise_sd, (len(effects), n_topics)))


def _frame(values, runs, topics, collection=None):
    frame = pd.DataFrame({"score": values.ravel(),
                          "run": np.repeat(runs, values.shape[1]),
                          "topic": np.tile(topics, values.shape[0])})
    if collection is not None:
        frame["collection"] = collection
    return frame


def _formula_fit(frame, reml=True, groups="topic", vc=None):
    import statsmodels.formula.api as smf

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = smf.mixedlm("score ~ 0 + C(run)", frame, groups=groups,
                            re_formula="1" if vc else None, vc_formula=vc)
        return model.fit(reml=reml)


def _pairs_matrix(n):
    i, j = np.triu_indices(n, k=1)
    L = np.zeros((len(i), n))
    L[np.arange(len(i)), i] = 1
    L[np.arange(len(i)), j] = -1
    return i, j, L


@pytest.mark.parametrize("reml", [True, False])
def test_one_collection_equals_statsmodels_formula_fit(reml):
    rng = np.random.default_rng(1)
    values = _simulate(rng, [0.3, 0.35, 0.5, 0.42, 0.2], 0.15, 0.1, 25)
    cube = _cube(values)
    model = stats.mixed(cube, "m", reml=reml, adjust="none")
    runs = [str(r) for r in cube["run"].values]
    fit = _formula_fit(_frame(values, runs, [str(t) for t in cube["topic"].values]), reml)
    np.testing.assert_allclose(model["mean"], fit.fe_params, rtol=RTOL)
    np.testing.assert_allclose(model["mean_se"], fit.bse_fe, rtol=1e-4)
    bounds = fit.conf_int().to_numpy()[:len(runs)]
    np.testing.assert_allclose(model["mean_ci_low"], bounds[:, 0], rtol=RTOL)
    np.testing.assert_allclose(model["mean_ci_high"], bounds[:, 1], rtol=RTOL)
    assert float(model["topic_variance"]) == pytest.approx(float(fit.cov_re.iloc[0, 0]),
                                                           rel=1e-4)
    assert float(model["residual_variance"]) == pytest.approx(fit.scale, rel=1e-4)
    if reml:  # complete data: REML's variances are the ANOVA's moment estimates
        resid = values - values.mean(0) - values.mean(1)[:, None] + values.mean()
        mse = (resid ** 2).sum() / (4 * 24)
        ms_topic = 5 * ((values.mean(0) - values.mean()) ** 2).sum() / 24
        assert float(model["residual_variance"]) == pytest.approx(mse, rel=1e-7)
        assert float(model["topic_variance"]) == pytest.approx((ms_topic - mse) / 5,
                                                               rel=1e-7)
    assert model.attrs["llf"] == pytest.approx(fit.llf, rel=1e-8)
    assert model.attrs["method"] == ("REML" if reml else "ML")
    # the contrasts are statsmodels' own Wald tests of the differences (t_test, normal)
    i, j, L = _pairs_matrix(len(runs))
    test = fit.t_test(L)
    np.testing.assert_allclose(model["diff"].values[i, j], np.ravel(test.effect), rtol=RTOL)
    np.testing.assert_allclose(model["diff_se"].values[i, j], np.ravel(test.sd), rtol=1e-4)
    np.testing.assert_allclose(model["statistic"].values[i, j], np.ravel(test.tvalue),
                               rtol=1e-4)
    # (far in the tail, a relative 1e-5 in z is a relative 1e-3 in p)
    np.testing.assert_allclose(model["pvalue"].values[i, j], np.ravel(test.pvalue),
                               rtol=2e-3, atol=1e-12)
    np.testing.assert_allclose(model["pvalue_adjusted"], model["pvalue"])
    # antisymmetric differences, the same test in both cells, NaN on the diagonal
    np.testing.assert_allclose(model["diff"].values[j, i], -model["diff"].values[i, j])
    np.testing.assert_allclose(model["pvalue"].values[j, i], model["pvalue"].values[i, j])
    assert np.isnan(np.diag(model["diff"].values)).all()
    total = float(model["topic_variance"] + model["residual_variance"])
    assert float(model["icc"]) == pytest.approx(float(model["topic_variance"]) / total)


@pytest.mark.parametrize("interaction", [False, True])
def test_collections_equal_statsmodels_formula_fit(interaction):
    """Topics nested in collections, unbalanced (20, 14 and 9 topics, and a run absent
    from the last collection), with and without the run x collection interaction."""
    rng = np.random.default_rng(7)
    effects = [0.3, 0.4, 0.45, 0.2]
    planes = [_simulate(rng, effects, 0.15, 0.1, n) + rng.normal(0, 0.1) for n in (20, 14, 9)]
    planes[2][3] = np.nan  # r3 has no run in the third collection
    names = ["2009", "2010", "2011"]
    cube = _collections(planes, names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        model = stats.mixed(cube, "m", interaction=interaction, adjust="none")
    runs = [f"r{i}" for i in range(4)]
    frames = []
    for plane, name in zip(planes, names):
        keep = ~np.isnan(plane).all(axis=1)
        frames.append(_frame(plane[keep], np.array(runs)[keep],
                             [f"{name}-{t}" for t in range(plane.shape[1])], name))
    vc = {"topic": "0 + C(topic)", **({"run_collection": "0 + C(run)"} if interaction else {})}
    fit = _formula_fit(pd.concat(frames, ignore_index=True), groups="collection", vc=vc)
    np.testing.assert_allclose(model["mean"], fit.fe_params, rtol=1e-4)
    np.testing.assert_allclose(model["mean_se"], fit.bse_fe, rtol=1e-3)
    assert float(model["collection_variance"]) == pytest.approx(
        float(fit.cov_re.iloc[0, 0]), rel=1e-3)
    components = dict(zip(fit.model.exog_vc.names, fit.vcomp))
    assert float(model["topic_variance"]) == pytest.approx(components["topic"], rel=1e-3)
    if interaction:
        assert float(model["run_collection_variance"]) == pytest.approx(
            components["run_collection"], rel=1e-3)
    else:
        assert "run_collection_variance" not in model
    assert float(model["residual_variance"]) == pytest.approx(fit.scale, rel=1e-4)
    assert model.attrs["llf"] == pytest.approx(fit.llf, rel=1e-6)
    assert model["n_topics"].values.tolist() == [20, 14, 9]
    assert int(model["n_obs"]) == 4 * 20 + 4 * 14 + 3 * 9
    assert model.attrs["interaction"] == int(interaction)


def test_tukey_adjustment_is_the_studentized_range_and_covers_simultaneously():
    from scipy.stats import studentized_range

    rng = np.random.default_rng(3)
    values = _simulate(rng, np.linspace(0.2, 0.5, 6), 0.15, 0.1, 30)
    model = stats.mixed(_cube(values), "m")
    i, j, _ = _pairs_matrix(6)
    z = model["statistic"].values[i, j]
    want = studentized_range.sf(np.sqrt(2) * np.abs(z), 6, np.inf)
    np.testing.assert_allclose(model["pvalue_adjusted"].values[i, j], want, rtol=1e-10)
    # an independent check of that distribution: the range of 6 standard normals
    draws = np.random.default_rng(0).standard_normal((400_000, 6))
    ranges = np.ptp(draws, axis=1)
    for q, p in zip(np.sqrt(2) * np.abs(z[:5]), want[:5]):
        assert np.mean(ranges >= q) == pytest.approx(p, abs=0.004)
    crit = studentized_range.ppf(0.95, 6, np.inf) / np.sqrt(2)
    half = (model["diff_ci_high"] - model["diff"]).values[i, j]
    np.testing.assert_allclose(half, crit * model["diff_se"].values[i, j], rtol=1e-10)
    assert (model["significant"].values[i, j] == (want < 0.05)).all()


@pytest.mark.parametrize("method", ["bonferroni", "holm", "fdr_bh", "fdr_by"])
def test_other_adjustments_are_multipletests_over_all_pairs(method):
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(4)
    values = _simulate(rng, np.linspace(0.3, 0.45, 5), 0.15, 0.1, 20)
    model = stats.mixed(_cube(values), "m", adjust=method)
    i, j, _ = _pairs_matrix(5)
    want = multipletests(model["pvalue"].values[i, j], method=method)[1]
    np.testing.assert_allclose(model["pvalue_adjusted"].values[i, j], want)
    np.testing.assert_allclose(model["pvalue_adjusted"].values[j, i], want)


def test_logit_scale_is_the_fit_of_the_squeezed_logits():
    rng = np.random.default_rng(5)
    values = np.clip(_simulate(rng, [0.1, 0.2, 0.3], 0.1, 0.08, 30), 0, 1)
    model = stats.mixed(_cube(values), "m", scale="logit")
    n = values.size
    squeezed = (values * (n - 1) + 0.5) / n
    logits = np.log(squeezed / (1 - squeezed))
    fit = _formula_fit(_frame(logits, ["r0", "r1", "r2"], [str(t) for t in range(30)]))
    np.testing.assert_allclose(model["mean"], 1 / (1 + np.exp(-fit.fe_params.values)),
                               rtol=RTOL)
    bounds = fit.conf_int().to_numpy()[:3]
    np.testing.assert_allclose(model["mean_ci_low"], 1 / (1 + np.exp(-bounds[:, 0])),
                               rtol=RTOL)
    assert float(model["residual_variance"]) == pytest.approx(fit.scale, rel=RTOL)
    assert model.attrs["scale"] == "logit"


def test_the_diagnostic_flags_bounded_scores_and_not_others():
    rng = np.random.default_rng(6)
    # scores near 0 whose spread shrinks with their level: beta-distributed per cell
    level = 1 / (1 + np.exp(-(np.linspace(-3, 0, 8)[:, None] + rng.normal(0, 1.2, 40))))
    bounded = rng.beta(level * 6, (1 - level) * 6)
    with pytest.warns(xdiv.XdivWarning, match="scale='logit'"):
        flagged = stats.mixed(_cube(bounded), "m")
    assert float(flagged["bounded_rho"]) > 0 and float(flagged["bounded_pvalue"]) < 0.05
    normal = _simulate(rng, np.linspace(0.4, 0.6, 8), 0.05, 0.05, 40)
    with warnings.catch_warnings():
        warnings.simplefilter("error", xdiv.XdivWarning)
        calm = stats.mixed(_cube(normal), "m")
    assert calm.attrs["bounded_advice"].startswith("no sign")
    assert "0.0% of the scores are 0 or 1" in calm.attrs["bounded_advice"]


def test_round_trips_through_netcdf_with_safe_attributes(tmp_path):
    rng = np.random.default_rng(8)
    model = stats.mixed(_cube(_simulate(rng, [0.3, 0.4, 0.5], 0.1, 0.1, 15)), "m")
    for value in model.attrs.values():
        assert isinstance(value, (str, int, float)) and not isinstance(value, bool)
    back = xdiv.open_dataset(xdiv.to_netcdf(model, tmp_path / "model.nc"))
    xr.testing.assert_identical(back[list(model.data_vars)], model)


@pytest.mark.parametrize(("values", "message"), [
    (np.array([[0.1, 0.2, 0.3]]), "one run"),
    (np.array([[0.1], [0.2], [0.4]]), "fewer than two topics"),
    (np.array([[0.1, 0.3, 0.2], [0.2, 0.4, 0.3]]), "singular"),
    (np.full((3, 4), 0.5), "singular"),
])
def test_bad_input_is_one_line(values, message):
    with pytest.raises(InputError, match=message) as info:
        stats.mixed(_cube(values), "m")
    assert "\n" not in str(info.value)


def test_bad_options_and_layouts_are_one_line():
    cube = _cube(np.random.default_rng(0).random((3, 5)))
    for options, message in [({"adjust": "maxt"}, "adjust must be one of"),
                             ({"scale": "probit"}, "scale must be one of"),
                             ({"alpha": 1.5}, "alpha must lie")]:
        with pytest.raises(InputError, match=message):
            stats.mixed(cube, "m", **options)
    with pytest.raises(InputError, match="not in the score cube"):
        stats.mixed(cube, "nDCG@10")
    with pytest.raises(InputError, match="within \\[0, 1\\]"):
        stats.mixed(_cube(np.random.default_rng(0).random((3, 5)) * 3), "m", scale="logit")
    empty = np.random.default_rng(1).random((3, 5))
    empty[:] = np.nan
    with pytest.raises(InputError, match="collection 'b': m: no run has a score there"):
        stats.mixed(_collections([np.random.default_rng(0).random((3, 5)), empty],
                                 ["a", "b"]), "m")
    with pytest.raises(InputError, match="one collection"):
        stats.mixed(_collections([np.random.default_rng(0).random((3, 5))], ["a"]), "m")


def test_eighteen_runs_by_fifty_topics_in_under_five_seconds():
    rng = np.random.default_rng(9)
    cube = _cube(_simulate(rng, np.linspace(0.1, 0.4, 18), 0.15, 0.1, 50))
    start = time.perf_counter()
    stats.mixed(cube, "m")
    assert time.perf_counter() - start < 5


def _coverage(n_sets, seed, n_runs=4, n_topics=50, collections=0):
    """The share of the 95% intervals holding the true value over ``n_sets`` simulated
    data sets: run means (per run), all pairwise differences at once (Tukey), the topic,
    residual (and collection) variances."""
    rng = np.random.default_rng(seed)
    effects = np.linspace(0.3, 0.5, n_runs)
    topic_sd, noise_sd, collection_sd = 0.15, 0.1, 0.1
    truth = effects[:, None] - effects[None, :]
    off = ~np.eye(n_runs, dtype=bool)
    hits = {"mean": 0.0, "pairs": 0, "topic": 0, "residual": 0, "collection": 0}
    for _ in range(n_sets):
        if collections:
            planes = [_simulate(rng, effects, topic_sd, noise_sd, n_topics)
                      + rng.normal(0, collection_sd) for _ in range(collections)]
            cube = _collections(planes, [f"c{k}" for k in range(collections)])
        else:
            cube = _cube(_simulate(rng, effects, topic_sd, noise_sd, n_topics))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = stats.mixed(cube, "m")
        # on the arrays (the runs in the order simulated): xarray's comparisons would
        # cost a tenth of the fits
        value = {name: model[name].values for name in model.data_vars}
        hits["mean"] += float(np.mean((value["mean_ci_low"] <= effects)
                                      & (effects <= value["mean_ci_high"])))
        inside = (value["diff_ci_low"] <= truth) & (truth <= value["diff_ci_high"])
        hits["pairs"] += bool(inside[off].all())
        for name, sd in [("topic", topic_sd), ("residual", noise_sd),
                         ("collection", collection_sd)]:
            if f"{name}_variance" in value:
                hits[name] += bool(value[f"{name}_variance_ci_low"] <= sd ** 2
                                   <= value[f"{name}_variance_ci_high"])
    return {name: count / n_sets for name, count in hits.items()}


def test_simulations_recover_the_effects_quick():
    coverage = _coverage(30, seed=11)
    for name in ("mean", "pairs", "topic", "residual"):
        assert coverage[name] >= 0.8, (name, coverage)


@pytest.mark.slow
def test_simulations_recover_the_effects_at_the_stated_rate():
    """500 data sets of 4 runs x 50 topics: at least 93% of the 95% intervals hold the
    true run means, differences (all at once), topic and residual variances."""
    coverage = _coverage(500, seed=12)
    for name in ("mean", "pairs", "topic", "residual"):
        assert coverage[name] >= 0.93, (name, coverage)


@pytest.mark.slow
def test_simulations_over_several_collections_recover_the_effects():
    """100 data sets of 3 collections x 4 runs x 20 topics: the run means (Student's t
    intervals on 2 degrees of freedom), the differences of runs and the variances."""
    coverage = _coverage(100, seed=13, n_topics=20, collections=3)
    assert coverage["mean"] >= 0.93, coverage
    for name in ("pairs", "topic", "residual", "collection"):
        assert coverage[name] >= 0.85, (name, coverage)
