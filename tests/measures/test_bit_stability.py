"""A run's scores are the same bits whichever other runs it is evaluated with.

Evaluated beside a longer run, a run is padded to a greater depth; numpy's pairwise sums
regroup with the length, which changed the last bit of uncut AP, Q, GAP, RBP, nDCG, ERR
and nERR before the kernels added ranks in order.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import xdiv
from xdiv.measures.registry import registry

from ..helpers import random_adhoc_frames


def _names(families) -> list[str]:
    names = []
    for name, definition in registry().items():
        if definition.family not in families or name.startswith(("U", "D-U")):
            continue  # the U-measures need document lengths (tested with them elsewhere)
        if name in ("statAP", "infNDCG"):
            continue  # they need inclusion probabilities (tests/kernels/test_estimators.py)
        if name.startswith("EC-"):
            continue  # they need equivalence classes (tests/measures/test_ntcir_ec.py)
        if definition.cutoff in ("optional", "none"):
            names.append(name)
        if definition.cutoff in ("optional", "required"):
            names.append(f"{name}@10")
    return names


def _alone_and_together(collection, frame: pd.DataFrame, names, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        together = xdiv.evaluate(xdiv.build_runs(frame), collection, names, **options)
        for run, part in frame.groupby("run"):
            alone = xdiv.evaluate(xdiv.build_runs(part), collection, names, **options)
            yield run, alone.score.sel(run=run), together.score.sel(run=run)


def test_adhoc_scores_do_not_depend_on_the_batch():
    rng = np.random.default_rng(3)
    qrels, runs = random_adhoc_frames(rng, 20, 5, depth=300, pool=400)
    # one run far deeper than the others pads them all in the batch
    collection = xdiv.build_collection(qrels)
    names = _names({"graded"})
    for run, alone, together in _alone_and_together(collection, runs, names):
        differ = [m for m in names
                  if not np.array_equal(alone.sel(metric=m).values,
                                        together.sel(metric=m).values, equal_nan=True)]
        assert not differ, (run, differ)


@pytest.mark.parametrize("depths", [(30, 100), (5, 250)])
def test_diversity_scores_do_not_depend_on_the_batch(depths):
    collection, runs = xdiv.datasets.synthetic(n_topics=12, n_runs=4, depth=max(depths),
                                               seed=4)
    frame = xdiv.runs_frame(runs)
    keep = np.where(frame["run"].isin(["run01", "run03"]), depths[0], depths[1])
    frame = frame[frame["rank"] <= keep]
    names = _names({"diversity", "ndeval", "intent-aware", "hierarchy"})
    for run, alone, together in _alone_and_together(collection, frame, names):
        differ = [m for m in names
                  if not np.array_equal(alone.sel(metric=m).values,
                                        together.sel(metric=m).values, equal_nan=True)]
        assert not differ, (run, differ)
