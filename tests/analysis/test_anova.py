"""ANOVA with effect sizes (issue 38, item 2): sums of squares, η², ω², partial ω² and
variance components against hand computations (worked in the comments, or least squares
fits of hand-built design matrices) on balanced and unbalanced cases, and against
statsmodels' anova_lm."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy.stats import f as f_dist

import xdiv
from xdiv import stats
from xdiv.errors import InputError

from ..helpers import without_provenance


def _cube(values, runs, topics=None, metric="m") -> xr.Dataset:
    values = np.asarray(values, dtype=float)
    topics = topics or [f"t{i}" for i in range(values.shape[1])]
    return xr.Dataset({"score": (("metric", "run", "topic"), values[None])},
                      coords={"metric": [metric], "run": list(runs), "topic": topics})


def test_one_way_anova_by_hand():
    # runs a (1, 2), b (4, 5), c (7, 8); grand mean 4.5; run means 1.5, 4.5, 7.5
    # SS_run = 2 (9 + 0 + 9) = 36 (df 2, MS 18); SS_total = 2 (3.5² + 2.5² + 0.5²) = 37.5
    # SS_error = 1.5 (df 3, MS 0.5); F = 36; N = 6
    # eta² = 36 / 37.5; omega² = (36 - 2 x 0.5) / (37.5 + 0.5) = 35 / 38
    # partial omega² = (36 - 1) / (36 + (6 - 2) 0.5) = 35 / 38 = 2 (36 - 1) / (2 (36 - 1) + 6)
    # variance component = 35 / 6; residual's = 0.5
    cube = _cube([[1, 2], [4, 5], [7, 8]], "abc")
    fit, table = stats.anova(cube, "m", topic=False)
    row = table.loc["C(run)"]
    assert row["sum_sq"] == pytest.approx(36) and row["df"] == 2
    assert row["F"] == pytest.approx(36)
    assert row["PR(>F)"] == pytest.approx(f_dist.sf(36, 2, 3))
    assert table.loc["Residual", "sum_sq"] == pytest.approx(1.5)
    assert row["eta_sq"] == pytest.approx(36 / 37.5)
    assert row["omega_sq"] == pytest.approx(35 / 38)
    assert row["partial_omega_sq"] == pytest.approx(35 / 38)
    assert row["variance_component"] == pytest.approx(35 / 6)
    assert table.loc["Residual", "variance_component"] == pytest.approx(0.5)
    assert np.isnan(table.loc["Residual", ["eta_sq", "omega_sq", "partial_omega_sq"]]
                    .to_numpy(dtype=float)).all()
    assert "C(topic)" not in table.index


def test_two_way_anova_without_replication_by_hand():
    # a (0, 2, 7), b (3, 4, 8); grand mean 4; run means 3, 5; topic means 1.5, 3, 7.5
    # SS_run = 3 (1 + 1) = 6 (df 1); SS_topic = 2 (6.25 + 1 + 12.25) = 39 (df 2)
    # SS_total = 16 + 4 + 9 + 1 + 0 + 16 = 46; SS_error = 1 (df 2, MS 0.5); N = 6
    # run: F = 12, eta² = 6/46, omega² = 5.5/46.5, partial omega² = 5.5/(6 + 5 x 0.5),
    #      component 5.5/6
    # topic: F = 39, eta² = 39/46, omega² = 38/46.5, partial omega² = 38/(39 + 4 x 0.5),
    #        component 38/6
    cube = _cube([[0, 2, 7], [3, 4, 8]], "ab")
    _, table = stats.anova(cube, "m")
    want = {"C(run)": (6, 1, 12, 6 / 46, 5.5 / 46.5, 5.5 / 8.5, 5.5 / 6),
            "C(topic)": (39, 2, 39, 39 / 46, 38 / 46.5, 38 / 41, 38 / 6)}
    columns = ["sum_sq", "df", "F", "eta_sq", "omega_sq", "partial_omega_sq",
               "variance_component"]
    for term, values in want.items():
        np.testing.assert_allclose(table.loc[term, columns].to_numpy(dtype=float), values,
                                   rtol=1e-12)
    # Ferro & Silvello's forms of the same numbers (df (F - 1) / (df (F - 1) + N), ...)
    assert table.loc["C(run)", "partial_omega_sq"] == pytest.approx(11 / (11 + 6))
    assert table.loc["C(topic)", "partial_omega_sq"] == pytest.approx(76 / (76 + 6))
    assert table.loc["Residual", "sum_sq"] == pytest.approx(1)
    # balanced: the components add up to omega²'s denominator, (SS_total + MS_error) / N
    assert table["variance_component"].sum() == pytest.approx((46 + 0.5) / 6)


# an unbalanced grid of 8 runs: stemmer p (4 runs) / q (4); model x, y, z with cells
# p: x 2, y 1, z 1 and q: x 1, y 1, z 2
STEMMER = ["p", "p", "p", "p", "q", "q", "q", "q"]
MODEL = ["x", "y", "z", "x", "x", "y", "z", "z"]
RUNS = [f"run{i}" for i in range(8)]


def _grid_cube(n_topics=6, seed=3):
    rng = np.random.default_rng(seed)
    effect = {"p": 0.0, "q": 0.15, "x": 0.0, "y": 0.1, "z": -0.05}
    values = np.array([[effect[s] + effect[m]] * n_topics for s, m in zip(STEMMER, MODEL)])
    values = values + rng.normal(0, 0.2, (1, n_topics)) + rng.normal(0, 0.1, values.shape)
    return _cube(values, RUNS)


def _factors():
    return pd.DataFrame({"stemmer": STEMMER, "model": MODEL}, index=RUNS)


def _dummies(labels, coding):
    """Columns of one factor: treatment (first level omitted) or sum-to-zero coding."""
    levels = sorted(set(labels))
    labels = np.asarray(labels)
    if coding == "treatment":
        return np.column_stack([(labels == level).astype(float) for level in levels[1:]])
    return np.column_stack([(labels == level).astype(float) - (labels == levels[-1])
                            for level in levels[:-1]])


def _rss(y, *blocks):
    """Residual sum of squares of the least squares fit of y on the blocks' columns."""
    x = np.column_stack(blocks)
    beta = np.linalg.lstsq(x, y, rcond=None)[0]
    return float(((y - x @ beta) ** 2).sum())


def _hand_blocks(cube, coding):
    """Response and the design blocks (intercept, stemmer, model, interaction, topic) of
    the long table, built by hand."""
    score = cube.score.sel(metric="m")
    runs = np.repeat(score["run"].values, score.sizes["topic"])
    topics = np.tile(score["topic"].values, score.sizes["run"])
    y = score.values.ravel()
    stem = _dummies([STEMMER[RUNS.index(r)] for r in runs], coding)
    model = _dummies([MODEL[RUNS.index(r)] for r in runs], coding)
    inter = np.column_stack([stem[:, i] * model[:, j] for i in range(stem.shape[1])
                             for j in range(model.shape[1])])
    topic = _dummies(topics, coding)
    return y, np.ones((len(y), 1)), stem, model, inter, topic


@pytest.mark.parametrize("interactions", [True, False])
def test_unbalanced_type_ii_equals_model_comparisons(interactions):
    cube = _grid_cube()
    y, one, stem, model, inter, topic = _hand_blocks(cube, "treatment")
    if interactions:
        full = _rss(y, one, stem, model, inter, topic)
        want = {"stemmer": _rss(y, one, model, topic) - _rss(y, one, stem, model, topic),
                "model": _rss(y, one, stem, topic) - _rss(y, one, stem, model, topic),
                "stemmer:model": _rss(y, one, stem, model, topic) - full,
                "topic": _rss(y, one, stem, model, inter) - full}
        df = {"stemmer": 1, "model": 2, "stemmer:model": 2, "topic": 5}
    else:
        full = _rss(y, one, stem, model, topic)
        want = {"stemmer": _rss(y, one, model, topic) - full,
                "model": _rss(y, one, stem, topic) - full,
                "topic": _rss(y, one, stem, model) - full}
        df = {"stemmer": 1, "model": 2, "topic": 5}
    n = y.size
    df_error = n - 1 - sum(df.values())
    mse = full / df_error
    ss_total = float(((y - y.mean()) ** 2).sum())
    result = stats.anova_table(cube, "m", _factors(), interactions=interactions)
    assert sorted(result["term"].values) == sorted([*want, "Residual"])
    for term, ss in want.items():
        row = result.sel(term=term)
        assert float(row.sum_sq) == pytest.approx(ss, rel=1e-10)
        assert float(row.df) == df[term]
        assert float(row.statistic) == pytest.approx(ss / df[term] / mse, rel=1e-10)
        assert float(row.eta_sq) == pytest.approx(ss / ss_total, rel=1e-10)
        excess = ss - df[term] * mse
        assert float(row.omega_sq) == pytest.approx(excess / (ss_total + mse), rel=1e-10)
        assert float(row.partial_omega_sq) == pytest.approx(
            excess / (ss + (n - df[term]) * mse), rel=1e-10)
        assert float(row.variance_component) == pytest.approx(excess / n, rel=1e-10)
    assert float(result.sum_sq.sel(term="Residual")) == pytest.approx(full, rel=1e-10)
    assert result.attrs["ss_total"] == pytest.approx(ss_total)
    assert result.attrs["n_obs"] == n and result.attrs["n_topics"] == 6


def test_unbalanced_type_iii_equals_model_comparisons():
    cube = _grid_cube()
    y, one, stem, model, inter, topic = _hand_blocks(cube, "sum")
    blocks = {"stemmer": stem, "model": model, "stemmer:model": inter, "topic": topic}
    full = _rss(y, one, *blocks.values())
    result = stats.anova_table(cube, "m", _factors(), typ=3)
    assert "Intercept" not in result["term"].values
    for term, block in blocks.items():
        others = [b for name, b in blocks.items() if name != term]
        ss = _rss(y, one, *others) - full
        assert float(result.sum_sq.sel(term=term)) == pytest.approx(ss, rel=1e-10)
    # the table of anova() keeps the intercept row, without effect sizes
    _, table = stats.anova(cube, "m", _factors(), typ=3)
    assert np.isnan(table.loc["Intercept", "omega_sq"])


def test_three_factors_equal_statsmodels_anova_lm():
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm

    rng = np.random.default_rng(7)
    grid = pd.MultiIndex.from_product([["p", "q"], ["x", "y", "z"], ["e0", "e1"]]).to_frame(
        index=False, name=["stemmer", "model", "expansion"])
    grid.index = [f"r{i}" for i in range(len(grid))]
    values = rng.normal(0.4, 0.1, (len(grid), 10))
    values += (grid["model"] == "z").to_numpy()[:, None] * 0.1
    cube = _cube(values, grid.index)
    long = stats.tidy(cube, "m")
    long = long.join(grid, on="run")
    for typ, coding in ((2, ""), (3, ", Sum")):
        formula = (f"score ~ C(stemmer{coding}) * C(model{coding}) * C(expansion{coding})"
                   f" + C(topic{coding})")
        want = anova_lm(ols(formula, data=long).fit(), typ=typ)
        fit, table = stats.anova(cube, "m", grid, typ=typ)
        for column in ("sum_sq", "df", "F", "PR(>F)"):
            np.testing.assert_allclose(table[column].to_numpy(dtype=float),
                                       want.loc[table.index, column].to_numpy(dtype=float),
                                       rtol=1e-9)
        assert fit.model.formula == formula
    # the labelled dataset holds the same numbers under plain term names
    result = stats.anova_table(cube, "m", grid)
    _, table = stats.anova(cube, "m", grid)
    assert "stemmer:model:expansion" in result["term"].values
    assert float(result.sum_sq.sel(term="stemmer:model:expansion")) == pytest.approx(
        float(table.loc["C(stemmer):C(model):C(expansion)", "sum_sq"]))
    # and the factor table along run
    assert list(result["model"].values) == list(grid["model"])


def test_default_anova_keeps_its_table_and_adds_columns():
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm

    cube = _grid_cube()
    fit, table = stats.anova(cube, "m")
    want = anova_lm(ols("score ~ C(run) + C(topic)", data=stats.tidy(cube, "m")).fit(),
                    typ=2)
    assert list(table.columns[:4]) == list(want.columns)
    assert list(table.columns[4:]) == ["eta_sq", "omega_sq", "partial_omega_sq",
                                       "variance_component"]
    pd.testing.assert_frame_equal(table[want.columns], want)


def test_factors_from_run_coordinates_and_netcdf(tmp_path):
    cube = _grid_cube().assign_coords(stemmer=("run", STEMMER), model=("run", MODEL))
    from_coords = stats.anova_table(cube, "m", cube)
    from_frame = stats.anova_table(_grid_cube(), "m", _factors())
    xr.testing.assert_allclose(from_coords.reset_coords(drop=True),
                               from_frame.reset_coords(drop=True))
    assert list(from_coords["stemmer"].values) == STEMMER
    from_array = stats.anova_table(cube, "m", cube.score)  # a DataArray's run coordinates
    xr.testing.assert_identical(without_provenance(from_array),
                                without_provenance(from_coords))
    from_column = stats.anova_table(_grid_cube(), "m", _factors().rename_axis("run")
                                    .reset_index())  # runs in a column
    xr.testing.assert_identical(without_provenance(from_column),
                                without_provenance(from_frame))
    back = xdiv.open_dataset(xdiv.to_netcdf(from_frame, tmp_path / "anova.nc"))
    xr.testing.assert_identical(back, from_frame)


def test_extra_rows_of_the_factor_table_are_not_used():
    extra = pd.concat([_factors(), pd.DataFrame({"stemmer": ["q"], "model": ["y"]},
                                                index=["other"])])
    a = stats.anova_table(_grid_cube(), "m", extra)
    b = stats.anova_table(_grid_cube(), "m", _factors())
    xr.testing.assert_identical(without_provenance(a), without_provenance(b))


def _one_line_error(call, *words):
    with pytest.raises(InputError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message
    for word in words:
        assert word in message, message
    return message


def test_bad_input_gets_one_line():
    cube = _grid_cube()
    _one_line_error(lambda: stats.anova(cube.isel(run=[0]), "m"), "two runs", "run0")
    _one_line_error(lambda: stats.anova(cube.isel(topic=[0]), "m"), "two topics")
    _one_line_error(lambda: stats.anova(cube, "m", _factors().drop(index="run5")),
                    "no row for run 'run5'")
    confounded = _factors().assign(engine=["a"] * 4 + ["b"] * 4)  # engine == stemmer
    _one_line_error(lambda: stats.anova(cube, "m", confounded, interactions=False),
                    "singular", "engine")
    empty_cell = _factors().assign(model=["x", "y", "z", "x", "y", "y", "z", "z"])
    _one_line_error(lambda: stats.anova(cube, "m", empty_cell), "singular",
                    "stemmer:model")  # q has no x run
    stats.anova(cube, "m", empty_cell, interactions=False)  # main effects are estimable
    _one_line_error(lambda: stats.anova(cube, "m", _factors().assign(model="x")),
                    "model", "one value")
    _one_line_error(lambda: stats.anova(cube, "m", _factors().rename(columns={"model": "topic"})),
                    "'topic'")
    _one_line_error(lambda: stats.anova(cube, "m", _factors().rename(columns={"model": "m-1"})),
                    "'m-1'")
    holes = _factors().astype(object)
    holes.loc["run2", "model"] = None
    _one_line_error(lambda: stats.anova(cube, "m", holes), "model", "run2")
    _one_line_error(lambda: stats.anova(cube, "m", typ=1), "typ")
    _one_line_error(lambda: stats.anova(cube, "m", [1, 2]), "DataFrame")
    twice = pd.concat([_factors(), _factors().iloc[:1]])
    _one_line_error(lambda: stats.anova(cube, "m", twice), "two rows", "run0")


def test_standardised_scores_have_the_same_anova_f_tests_shape():
    # a sanity check across the two items: z-scores per topic remove the topic effect
    cube = _grid_cube()
    _, table = stats.anova(stats.standardise(cube), "m")
    assert table.loc["C(topic)", "sum_sq"] == pytest.approx(0, abs=1e-20)
    assert math.isfinite(table.loc["C(run)", "F"])
