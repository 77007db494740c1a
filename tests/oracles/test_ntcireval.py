"""Agreement with NTCIREVAL's conventions (pyNTCIREVAL) on graded adhoc measures.

pyNTCIREVAL takes a ranked list of (docno, level or None for unjudged), the number of
judged documents per level and the gain of each level 1..H; here the gains are 2^x - 1
(xdiv's default) and H is the highest level of the qrels. Its stop probability for ERR is
gain / (gain(H) + 1) and RBP divides by gain(H), xdiv's definitions as well. P+@l is given
the list truncated at l, as NTCIREVAL's truncation option does.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import xdiv

from ..helpers import random_adhoc_frames

ntcir = pytest.importorskip("pyNTCIREVAL")
M = pytest.importorskip("pyNTCIREVAL.metrics")


def _oracles(xrelnum, grades):
    return {
        "Q@10": lambda: M.QMeasure(xrelnum, grades, 1.0, cutoff=10),
        "Q(beta=0.5)@5": lambda: M.QMeasure(xrelnum, grades, 0.5, cutoff=5),
        "Q": lambda: M.QMeasure(xrelnum, grades, 1.0),
        "AP": lambda: M.AP(xrelnum, grades),
        "AP@10": lambda: M.AP(xrelnum, grades, cutoff=10),
        "nERR@10": lambda: M.nERR(xrelnum, grades, 10),
        "nERR@3": lambda: M.nERR(xrelnum, grades, 3),
        "nDCG@10": lambda: M.MSnDCG(xrelnum, grades, 10),
        "nDCG@20": lambda: M.MSnDCG(xrelnum, grades, 20),
        "RBP": lambda: M.RBP(xrelnum, grades, 0.8),
        "RBP(p=0.5)": lambda: M.RBP(xrelnum, grades, 0.5),
        "RR": lambda: M.RR(),
        ("P+@10", 10): lambda: M.PPlusMeasure(xrelnum, grades, 1.0),
        ("P+@5", 5): lambda: M.PPlusMeasure(xrelnum, grades, 1.0),
    }


@pytest.mark.parametrize("seed", [0, 1])
def test_random_collections_agree_with_ntcireval(seed):
    rng = np.random.default_rng(seed)
    qrels, runs = random_adhoc_frames(rng, n_topics=10, n_runs=3, max_level=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        col = xdiv.build_collection(qrels)
        runs_ds = xdiv.build_runs(runs)
    H = int(qrels["level"].max())
    grades = [2 ** x - 1 for x in range(1, H + 1)]
    names = [k if isinstance(k, str) else k[0] for k in _oracles([0], grades)]
    scores = xdiv.evaluate(runs_ds, col, names)
    checked = 0
    for topic, q in qrels.groupby("topic"):
        levels = dict(zip(q["docno"], q["level"]))
        xrelnum = [int((q["level"] == x).sum()) for x in range(H + 1)]
        if sum(xrelnum[1:]) == 0:
            assert scores.score.sel(topic=topic).isnull().all()
            continue
        for run in runs_ds.run.values:
            ranking = [d for d in xdiv.decode_docnos(runs_ds).sel(run=run, topic=topic).values
                       if d]
            labelled = [(d, levels.get(d)) for d in ranking]
            for key, make in _oracles(xrelnum, grades).items():
                name, cut = (key, None) if isinstance(key, str) else key
                want = make().compute(labelled[:cut] if cut else labelled)
                got = float(scores.score.sel(metric=name, run=run, topic=topic))
                assert got == pytest.approx(want, abs=1e-9), (name, run, topic)
                checked += 1
    assert checked > 300
