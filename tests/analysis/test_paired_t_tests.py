"""The all-pairs paired t-tests of :func:`xdiv.stats.paired_t_tests`, vectorised over the
run pairs (issue 25, item 7: ``xdiv report`` on 300 runs spent 44 s in one scipy call per
pair), against the one-call-per-pair loop they replace."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy.stats import ttest_rel
from statsmodels.stats.multitest import multipletests

import xdiv.analysis.stats as S
from xdiv import stats


def cube(n_runs: int, n_topics: int, seed: int = 0, *, ties: bool = False) -> xr.Dataset:
    rng = np.random.default_rng(seed)
    values = rng.random((1, n_runs, n_topics))
    if ties:  # identical runs (t undefined) and constant differences (t infinite)
        values[0, 1] = values[0, 0]
        values[0, 2] = values[0, 0] + 0.25
        values[0, 3] = np.round(values[0, 3], 1)
    values[0, -1, 0] = np.nan  # a topic left out for every pair
    names = [f"run{k:03d}" for k in range(n_runs)]
    rng.shuffle(names)  # the frame's runs come sorted, not in the cube's order
    return xr.Dataset({"score": (("metric", "run", "topic"), values)},
                      coords={"metric": ["M"], "run": names,
                              "topic": [str(k) for k in range(n_topics)]})


def loop(scores, metric: str, method: str, alpha: float) -> pd.DataFrame:
    """The former implementation: one scipy call per pair, then the correction."""
    table = stats.tidy(scores, metric).pivot(index="topic", columns="run", values="score")
    rows = []
    for a, b in itertools.combinations(table.columns, 2):
        res = ttest_rel(table[a], table[b])
        rows.append((a, b, table[a].mean() - table[b].mean(), res.statistic, res.pvalue))
    frame = pd.DataFrame(rows, columns=["run_a", "run_b", "diff", "statistic", "pvalue"])
    reject, adjusted, _, _ = multipletests(frame["pvalue"], alpha=alpha, method=method)
    return frame.assign(pvalue_adjusted=adjusted, reject=reject, method=method)


@pytest.mark.parametrize("n_runs, n_topics, ties", [(2, 3, False), (7, 5, True),
                                                    (40, 12, False), (25, 30, True)])
@pytest.mark.parametrize("method", ["holm", "fdr_bh", "bonferroni"])
def test_results_are_those_of_one_scipy_call_per_pair(n_runs, n_topics, ties, method):
    scores = cube(n_runs, n_topics, seed=n_runs, ties=ties)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scipy on constant differences
        got = stats.paired_t_tests(scores, "M", method=method, alpha=0.1)
        expected = loop(scores, "M", method, 0.1)
    assert list(got.columns) == list(expected.columns)
    pd.testing.assert_frame_equal(got[["run_a", "run_b", "reject", "method"]],
                                  expected[["run_a", "run_b", "reject", "method"]])
    for column in ("diff", "statistic", "pvalue", "pvalue_adjusted"):
        np.testing.assert_allclose(got[column].to_numpy(), expected[column].to_numpy(),
                                   rtol=1e-12, atol=1e-12, err_msg=column)
        assert (got[column].isna() == expected[column].isna()).all(), column


def test_blocks_of_pairs_give_the_same_results(monkeypatch):
    scores = cube(30, 8, seed=3)
    whole = stats.paired_t_tests(scores, "M")
    monkeypatch.setattr(S, "PAIR_BLOCK", 8 * 7)  # seven pairs a block, the last shorter
    pd.testing.assert_frame_equal(stats.paired_t_tests(scores, "M"), whole)


def test_all_pairs_are_tested_in_few_scipy_calls(monkeypatch):
    """300 runs are 44,850 pairs: tested in one call (per block of pairs), not one each."""
    calls = []

    def counted(*args, **kwargs):
        calls.append(1)
        return ttest_rel(*args, **kwargs)

    monkeypatch.setattr(S, "ttest_rel", counted)
    result = stats.paired_t_tests(cube(300, 5), "M")
    assert len(result) == 300 * 299 // 2
    assert len(calls) <= 2
