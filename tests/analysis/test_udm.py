"""User Disagreement Model (spec §6)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import xdiv
from xdiv import udm

from ..helpers import adhoc, score


@pytest.mark.parametrize("M, N, want", [(1, 3, 0.51), (2, 3, 0.09), (2, 4, 0.216),
                                        (2, 5, 0.348)])
def test_table_1_predictions(M, N, want):
    assert round(float(udm.relevance_weights(0.3, M, N)), 3) == want


@pytest.mark.parametrize("N", range(1, 8))
def test_m1_closed_form_and_top(N):
    p = np.linspace(0, 1, 11)
    np.testing.assert_allclose(udm.relevance_weights(p, 1, N), 1 - (1 - p) ** (N - 1),
                               atol=1e-15)
    np.testing.assert_allclose(udm.relevance_weights(p, 1, N, top=True), 1.0, atol=1e-15)


def test_monotone_in_n_for_m1():
    p = np.linspace(0.01, 0.99, 50)
    values = np.stack([udm.relevance_weights(p, 1, n) for n in range(1, 10)])
    assert (np.diff(values, axis=0) >= -1e-15).all()


def test_bad_m_n():
    with pytest.raises(xdiv.InputError, match="0 <= M <= N"):
        udm.relevance_weights(0.3, 3, 2)


def _frame(rows):
    return pd.DataFrame(rows, columns=["topic", "docno", "assessor", "label"])


def test_pair_counts_by_hand():
    # d1: T, T, R -> first label T: 2 x 2 ordered pairs, 2 of them to T;
    #                first label R: 1 x 2 pairs, 2 to T
    # d2: R, N    -> R: 1 pair, 0 to T; N: 1 pair, 0 to T
    data = udm.assessments(_frame([("1", "d1", "a", "T"), ("1", "d1", "b", "T"),
                                   ("1", "d1", "c", "R"), ("1", "d2", "a", "R"),
                                   ("1", "d2", "b", "N")]), order=["N", "R", "T"])
    est = udm.estimate(data, bootstrap=200, seed=3, min_count=3)
    assert est.pairs.values.tolist() == [1, 3, 4]
    assert est.to_top.values.tolist() == [0, 2, 2]
    np.testing.assert_allclose(est.p.values, [0, 2 / 3, 0.5])
    assert est.reliable.values.tolist() == [False, True, True]
    assert est.attrs["seed"] == 3
    again = udm.estimate(data, bootstrap=200, seed=3, min_count=3)
    np.testing.assert_array_equal(est.se.values, again.se.values)
    assert udm.estimate(data, ignore_non=True).p.values[0] == 0.0


def test_combined_snippet_page_labels():
    # labels (snippet level, page level); top = (1, 1)
    order = [(0, 0), (0, 1), (1, 0), (1, 1)]
    rows = [("1", "d1", "a", (1, 1)), ("1", "d1", "b", (0, 1)),
            ("1", "d2", "a", (1, 1)), ("1", "d2", "b", (1, 1)),
            ("1", "d3", "a", (1, 0)), ("1", "d3", "b", (1, 1))]
    est = udm.estimate(udm.assessments(_frame(rows), order=order, top=(1, 1)), bootstrap=0)
    assert list(est.label_name.values) == ["0,0", "0,1", "1,0", "1,1"]
    # (0,1): 1 pair, to T 1; (1,0): 1 pair, to T 1; (1,1): 4 pairs, 2 of them to T
    assert est.pairs.values.tolist() == [0, 1, 1, 4]
    np.testing.assert_allclose(est.p.values[1:], [1.0, 1.0, 0.5])
    table = udm.weights_table(est, M=[1], N=[2, 3])
    np.testing.assert_allclose(table.sel(M=1, N=3).values[1:], [1.0, 1.0, 1.0])


def test_udm_gains_in_ndcg_and_gap():
    data = udm.assessments(_frame([("1", "d1", "a", 2), ("1", "d1", "b", 1),
                                   ("1", "d2", "a", 1), ("1", "d2", "b", 2),
                                   ("1", "d3", "a", 1), ("1", "d3", "b", 0)]),
                           order=[0, 1, 2])
    est = udm.estimate(data, bootstrap=0)
    p_rel = float(est.p.values[1])  # 2 pairs from level 1, both to 2? check by counts
    name = udm.measure_name("nDCG", est, M=1, N=3, cutoff=2)
    col, runs = adhoc({"x": 1, "y": 2}, ["x", "y"])
    g1 = 1 - (1 - p_rel) ** 2
    want = (g1 + 1 / math.log2(3)) / (1 + g1 / math.log2(3))
    assert score(col, runs, name) == pytest.approx(want, abs=1e-9)
    gap = udm.measure_name("GAP", est, M=1, N=3)
    assert gap.startswith("GAP(q=(") and math.isfinite(score(col, runs, gap))
    # the names are the registry's canonical labels, so a score cube can be indexed by them
    cube = xdiv.evaluate(runs, col, [name, gap])
    assert list(cube.metric.values) == [name, gap]
    assert cube.score.sel(metric=name).shape == (1, 1)


def test_estimate_subset_is_aligned_by_dimension_and_topic_label():
    frame = udm.synthetic_assessments(n_topics=6, n_docs=20, n_assessors=3, seed=2)
    data = udm.assessments(frame, order=[0, 1, 2])
    subset = (data["label"] >= 0).all("assessor") & data["topic"].isin(["1", "2", "3"])
    want = udm.estimate(data, subset=subset, bootstrap=0)
    shuffled = subset.transpose("doc", "topic").isel(topic=[5, 2, 0, 4, 1, 3])
    got = udm.estimate(data, subset=shuffled, bootstrap=0)
    np.testing.assert_array_equal(got.pairs.values, want.pairs.values)
    assert want.pairs.sum() < udm.estimate(data, bootstrap=0).pairs.sum()
    by_topic = data["topic"].isin(["1", "2", "3"])  # (topic,) broadcasts over the docs
    assert udm.estimate(data, subset=by_topic, bootstrap=0).pairs.sum() >= want.pairs.sum()
    with pytest.raises(xdiv.InputError, match="lacks topics"):
        udm.estimate(data, subset=subset.isel(topic=[0, 1]))
    with pytest.raises(xdiv.InputError, match="boolean"):
        udm.estimate(data, subset=subset.astype(int))
    # a mask built from other assessments of the same width names other documents
    other = udm.assessments(frame.assign(docno="x" + frame["docno"]), order=[0, 1, 2])
    foreign = (other["label"] >= 0).all("assessor")
    assert foreign.shape == subset.shape
    with pytest.raises(xdiv.InputError, match="docno coordinate differs"):
        udm.estimate(data, subset=foreign)
    twice = subset.isel(topic=[0, 0, 1, 2, 3, 4, 5])
    with pytest.raises(xdiv.InputError, match="lists a topic twice"):
        udm.estimate(data, subset=twice)


def test_robustness_protocol_runs_on_synthetic_data():
    frame = udm.synthetic_assessments(n_topics=8, n_docs=30, n_assessors=2, seed=4)
    data = udm.assessments(frame, order=[0, 1, 2])
    res = udm.robustness(data, first="a1", second="a2", M=1, N=2)
    assert set(res.metric.values) == {"AP", "nDCG", "nDCG^(1/2)", "GAP^(1/2)"}
    assert np.isfinite(res["mean"].values).all() and np.isfinite(res["sd"].values).all()
    assert res.sizes["topic"] == 8
    assert list(res.direction.values) == ["a1->a2", "a2->a1"]
    again = udm.synthetic_assessments(n_topics=8, n_docs=30, n_assessors=2, seed=4)
    pd.testing.assert_frame_equal(frame, again)
