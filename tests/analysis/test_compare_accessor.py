"""The ``.xdiv`` accessor of score cubes and compare results: thin delegates."""

from __future__ import annotations

import warnings

import xarray as xr

import xdiv


def test_accessor_compare_and_table_are_the_functions():
    col, runs = xdiv.datasets.synthetic(n_topics=10, n_runs=4, depth=10, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        scores = xdiv.evaluate(runs, col, ["alpha-nDCG@10"])
        base = str(scores["run"].values[0])
        via_accessor = scores.xdiv.compare(base, tests=("t", "sign"), correction="holm")
        direct = xdiv.compare(scores, base, tests=("t", "sign"), correction="holm")
    xr.testing.assert_identical(via_accessor, direct)
    assert via_accessor.xdiv.table("markdown") == xdiv.table(direct, format="markdown")
