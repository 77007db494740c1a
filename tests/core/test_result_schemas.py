"""The one table of result schemas (xdiv.core.cube.RESULT_SCHEMAS) says what each
function returns: same variables, same dimensions, same attributes."""

from __future__ import annotations

import warnings

import pytest

import xdiv
from xdiv import design, meta, risk, stats
from xdiv.core.cube import RESULT_SCHEMAS


@pytest.fixture(scope="module")
def scores():
    collection, runs = xdiv.datasets.synthetic(n_topics=20, n_runs=4, depth=20, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return xdiv.evaluate(runs, collection, ["alpha-nDCG@10", "nDCG@10", "ERR-IA@10"])


MAKERS = {
    "xdiv.evaluate": lambda s: s,
    "xdiv.summarize": xdiv.summarize,
    "xdiv.stats.standardise": stats.standardise,
    "xdiv.meta.bootstrap_test": lambda s: meta.bootstrap_test(s, B=100),
    "xdiv.meta.tukey_hsd": lambda s: meta.tukey_hsd(s, B=100),
    "xdiv.meta.discriminative_power": lambda s: meta.discriminative_power(s, B=100),
    "xdiv.meta.combine_tests, xdiv meta -o": lambda s: meta.combine_tests(
        {"bootstrap": meta.discriminative_power(s, B=100),
         "tukey": meta.discriminative_power(s, "tukey", B=100)}),
    "xdiv.meta.concordance_table": lambda s: meta.concordance_table(
        s, ["alpha-nDCG@10", "ERR-IA@10"], "nDCG@10"),
    "xdiv.meta.significance_agreement": lambda s: meta.significance_agreement(
        meta.bootstrap_test(s, B=100)),
    "xdiv.risk.trisk": lambda s: risk.trisk(s, str(s["run"].values[0])),
    "xdiv.risk.georisk": risk.georisk,
    "xdiv.design.swap_rates": lambda s: design.swap_rates(s, B=20),
    "xdiv.design.g_study": design.g_study,
    "xdiv.design.d_study": design.d_study,
    "xdiv.design.g_coefficients": lambda s: design.g_coefficients(s, [10, 20]),
    "xdiv.design.pair_power": design.pair_power,
    "xdiv.stats.anova_table": lambda s: stats.anova_table(s, "alpha-nDCG@10"),
    "xdiv.compare": lambda s: xdiv.compare(s),
    "xdiv.compare(baseline=...)": lambda s: xdiv.compare(s, str(s["run"].values[0])),
}


def test_every_schema_has_its_maker():
    assert sorted(s.made_by for s in RESULT_SCHEMAS) == sorted(MAKERS)


@pytest.mark.parametrize("schema", RESULT_SCHEMAS, ids=lambda s: s.result)
def test_schema_matches_the_result(schema, scores):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = MAKERS[schema.made_by](scores)
    assert sorted(result.data_vars) == sorted(schema.variables)
    assert set(result.dims) == {d.strip() for d in schema.dims.split(",")}
    assert "provenance" in result.attrs  # every result records what made it
    assert sorted(set(result.attrs) - {"provenance"}) == sorted(schema.attrs)



def test_a_score_cube_lists_its_coordinates_then_its_scores_then_their_parameters(scores):
    """A score cube's variables come in one order, whatever builds it (``list(cube
    .variables)``, iteration): its coordinates, then the scores, then the measures'
    parameters."""
    collection, runs = xdiv.datasets.synthetic(n_topics=5, n_runs=2, depth=10, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranged = xdiv.evaluate(runs, collection, ["nDCG@5", "AP"], ties="range")
    assert list(scores.variables) == ["run", "topic", "metric", "canonical", "score",
                                      "params"]
    assert list(ranged.variables) == ["run", "topic", "metric", "canonical", "ties_method",
                                      "score", "score_min", "score_max", "tie_spread",
                                      "params"]
