r"""Estimators under sampled judgments: statAP and inferred nDCG.

Both read a collection of sampled judgments with their inclusion probabilities
(:func:`xdiv.read_prels`, which adds ``inclusion(topic, doc)``; the judged cube carries
it), weigh each sampled document by :math:`1/\pi` (Horvitz-Thompson) and are
single-intent measures of the graded family: they read diversity qrels through the
``adhoc`` conversion as every graded measure does. With every inclusion probability 1
they are AP (uncut) and nDCG@l.

Examples
--------
Four sampled documents of topic 1 (a of level 1 drawn with probability 0.5, b of level
0 with 0.5, c of level 1 with 1, d of level 2 with 0.25) and a run ranking a, an
unjudged document, c, b and d. R^ = 1/0.5 + 1/1 + 1/0.25 = 7 and statAP = (1/0.5 + (3/3)/1
+ (4/5)/0.25) / 7; the estimated counts, 3 documents of level 1 and 4 of level 2, make the
ideal list of infNDCG 2, 2, 2, 2, 1, 1, 1, and its estimated DCG@3 is 1/0.5 + 1/log2(4):

>>> import pathlib, tempfile
>>> import pandas as pd
>>> import xdiv
>>> folder = tempfile.TemporaryDirectory()
>>> path = pathlib.Path(folder.name) / "prels.txt"
>>> _ = path.write_text("1 a 1 0.5\n1 b 0 0.5\n1 c 1 1\n1 d 2 0.25\n")
>>> collection = xdiv.read_prels(path)
>>> runs = xdiv.build_runs(pd.DataFrame({"run": "r", "topic": "1",
...                                      "docno": ["a", "u", "c", "b", "d"],
...                                      "score": [5.0, 4.0, 3.0, 2.0, 1.0]}))
>>> scores = xdiv.evaluate(runs, collection, ["statAP", "infNDCG", "infNDCG@3"])
>>> scores["score"].sel(run="r", topic="1").round(6).values.tolist()
[0.885714, 0.815211, 0.391066]
>>> folder.cleanup()
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from ..errors import MeasureError
from ..kernels import estimators as K
from .common import GAIN, HIGHEST, gain_table, single_intent
from .registry import Measure, register

INCLUSION = "inclusion"
"""The judged cube's variable ``inclusion(topic, doc)``: the inclusion probability of each
document slot's judgment."""

_INPUTS = (("level", "rank"), ("slot", "rank"), ("qrels_level", "doc"), (INCLUSION, "doc"))
"""The judged cube's variables the estimators read, with their core dimensions."""


def sampled_judgments(cube: xr.Dataset, measure: Measure, kernel, **kwargs) -> xr.DataArray:
    """Apply an estimator kernel of :mod:`xdiv.kernels.estimators` to the judged cube's
    levels, slots, qrels levels and inclusion probabilities, each intent apart:
    ``(run, topic, intent)``.

    Raises
    ------
    MeasureError
        When the cube holds no inclusion probabilities (a collection not read by
        :func:`xdiv.read_prels`).
    """
    if INCLUSION not in cube:
        raise MeasureError(f"{measure.definition.name} needs sampled judgments with inclusion "
                           "probabilities: read them with xdiv.read_prels "
                           "(xdiv evaluate --prels)")
    return xr.apply_ufunc(
        kernel, *(cube[name] for name, _ in _INPUTS),
        input_core_dims=[[dim] for _, dim in _INPUTS], kwargs=kwargs,
        dask="parallelized", output_dtypes=[np.float64],
        dask_gufunc_kwargs={"allow_rechunk": True},
    )


@register("statAP", params=(), cutoff="none", family="graded",
          reference="Aslam, Pavlu & Yilmaz, SIGIR 2006; Pavlu & Aslam, 2007 (statAP_MQ_eval, "
                    "TREC Million Query track)",
          formula=r"$\frac{1}{\hat R} \sum_{k \in S} \frac{\hat p(k)}{\pi_k}$, $\hat p(k) = "
                  r"\frac{1}{k}\left(1 + \sum_{j \in S,\, j < k} \frac{1}{\pi_j}\right)$, "
                  r"$\hat R = \sum_{d \in S^*} \frac{1}{\pi_d}$: $S$ the sampled relevant "
                  r"documents of the run (at ranks $k$, $j$), $S^*$ those of the topic, "
                  r"$\pi$ their inclusion probabilities (`xdiv.read_prels`); an estimate, "
                  r"which can exceed 1 on a topic")
def stat_ap(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    """statAP = (1/R^) sum_{sampled relevant k in the run} p^(k) / pi_k, p^(k) = (1/k) (1 +
    sum_{sampled relevant j above k} 1/pi_j), R^ = sum_{sampled relevant d} 1/pi_d, pi the
    inclusion probabilities of the sampled judgments (xdiv.read_prels); AP when every pi
    is 1. An estimate, not bounded by 1: a sampled relevant document stands for 1/pi of
    them, so one topic's statAP can exceed 1 (kept as computed: the mean over topics is
    what it estimates)."""
    return single_intent(cube, sampled_judgments(cube, measure, K.stat_ap), measure)


@register("infNDCG", params=(GAIN, HIGHEST), cutoff="optional", family="graded",
          reference="Yilmaz, Kanoulas & Aslam, SIGIR 2008 (sample_eval.pl's infNDCG is "
                    "infNDCG(gain=linear))",
          formula=r"$\frac{\sum_{k \le l,\, k \in S} g(k)\, \mathrm{disc}(k) / \pi_k}"
                  r"{\sum_{r \le l} g^*(r)\, \mathrm{disc}(r)}$, $S$ the sampled documents of "
                  r"the run, $\pi$ their inclusion probabilities (`xdiv.read_prels`), $g^*$ "
                  r"the ideal list of $\lfloor \hat R_x + 1/2 \rfloor$ documents of each "
                  r"level $x$, $\hat R_x = \sum_{d \in S^*,\, x_d = x} 1/\pi_d$ over the "
                  r"topic's sampled documents $S^*$; an estimate, which can exceed 1 on a "
                  r"topic")
def inferred_ndcg(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    """infNDCG@l = (sum_{sampled k <= l} g(k) / (pi_k log2(k+1))) / ideal DCG@l, the ideal
    list holding round(R^_x) documents of each level x, R^_x = sum_{sampled d of level x}
    1/pi_d, pi the inclusion probabilities of the sampled judgments (xdiv.read_prels);
    nDCG@l when every pi is 1. An estimate, not bounded by 1: the estimated DCG counts a
    sampled document of probability pi 1/pi times at its rank, and the ratio of the two
    unbiased estimates can exceed 1 on a topic (Yilmaz, Kanoulas & Aslam, SIGIR 2008);
    it is kept as computed, since the mean over topics is what it estimates."""
    values = sampled_judgments(cube, measure, K.inferred_ndcg, cutoff=measure.cutoff,
                               table=gain_table(cube, measure))
    return single_intent(cube, values, measure)
