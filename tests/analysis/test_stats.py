"""statsmodels follow-up helpers."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from xdiv import stats


def _cube():
    rng = np.random.default_rng(0)
    values = rng.normal(0, 0.1, (1, 4, 15)) + np.array([0, 0.02, 0.1, 0.3])[None, :, None]
    values += rng.normal(0, 0.2, (1, 1, 15))  # topic effects
    return xr.Dataset({"score": (("metric", "run", "topic"), values)},
                      coords={"metric": ["m"], "run": list("abcd"),
                              "topic": [str(t) for t in range(15)]})


def test_anova_and_effect_sizes():
    cube = _cube()
    fit, table = stats.anova(cube, "m")
    assert table.loc["C(run)", "df"] == 3 and table.loc["C(topic)", "df"] == 14
    assert table.loc["C(run)", "PR(>F)"] < 0.01
    es = stats.effect_sizes(cube, "m").set_index(["run_a", "run_b"])["effect_size"]
    means = cube.score.sel(metric="m").mean("topic")
    want = float(means.sel(run="a") - means.sel(run="d")) / np.sqrt(fit.mse_resid)
    assert es[("a", "d")] == pytest.approx(want)


def test_family_wise_correction_and_tukey():
    cube = _cube()
    tests = stats.paired_t_tests(cube, "m", method="holm")
    assert len(tests) == 6
    p = np.sort(tests["pvalue"].to_numpy())
    holm = np.maximum.accumulate(np.minimum(1, p * (6 - np.arange(6))))
    np.testing.assert_allclose(np.sort(tests["pvalue_adjusted"].to_numpy()), holm)
    result = stats.tukey(cube, "m")
    assert len(result.reject) == 6
