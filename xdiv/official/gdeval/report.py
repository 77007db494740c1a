"""The output of TREC's official graded evaluation tool, gdeval, to the byte.

``gdeval`` (version 1.3, TREC Web Track 2010-2014) prints nDCG@k and ERR@k with graded
judgments. It is reproduced here as a preset over xdiv's engine, as ndeval is
(:mod:`xdiv.official.ndeval_tool.report`, whose CSV layout it prints with 5 digits): the
registry's measures with the tool's definitions, :func:`xdiv.evaluate`, and
:func:`xdiv.risk.urisk` for its risk-sensitive output against a baseline run.

gdeval
    Lists the retrieved topics that have a relevant document in the qrels and averages
    over them, or with ``complete`` over every such topic. With a baseline and
    ``complete``, the judged topics the run did not retrieve follow as rows of their own.

gdeval 1.3's bug with ``-c -baseline``
    In those last rows (topics the run did not retrieve), gdeval 1.3 sets the baseline's
    values only for the topics the baseline retrieved and keeps them from one row to the
    next: a topic neither run retrieved is compared with the baseline values of the
    previous such row (0 before the first). xdiv compares it with 0, the baseline's
    score for a topic it did not retrieve, unless ``baseline_bug`` asks for gdeval 1.3's
    numbers.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from ...core.labels import object_strings
from ...errors import InputError
from ...kernels.risk import ordered_mean
from ...analysis.risk import risk_differences
from ...analysis.risk import urisk
from ..common import by_topic, per_topic_scores, retrieved_topics, risk_pair, run_tag
from ..layout import (RunBlock, nan_propagated, ndeval_layout, risk_alpha_label, risk_run_label,
                      sorted_topics)

__all__ = ["gdeval_measures", "gdeval_report"]


def gdeval_measures(k: int = 20) -> list[str]:
    """gdeval's nDCG@k and ERR@k as registry names: gains 2^x - 1, discount 1/log2(r+1),
    the ideal list of the judged relevant documents cut at k, and ERR's grade probability
    (2^x - 1)/2^4 for gdeval's highest grade 4."""
    return [f"nDCG@{k}", f"ERR(H=4)@{k}"]


def gdeval_report(collection: xr.Dataset, runs: xr.Dataset, *, k: int = 20,
                  complete: bool = False, baseline: xr.Dataset | None = None,
                  risk_alpha: float = 0.0, risk_alpha_text: str | None = None,
                  risk_label: str = "2014", baseline_bug: bool = False) -> str:
    """gdeval's CSV output for every run of ``runs``, one block per run.

    Parameters
    ----------
    collection : xarray.Dataset
        Adhoc qrels (:func:`xdiv.read_qrels`, or :func:`xdiv.to_adhoc` of diversity qrels)
        with grades up to 4.
    runs : xarray.Dataset
        From :func:`xdiv.read_runs` with the default ranking (score, ties by docno
        descending), the only one gdeval knows.
    k : int
        gdeval's ``-k``: the cutoff of nDCG and ERR.
    complete, baseline, risk_alpha, risk_alpha_text
        As in :func:`xdiv.official.ndeval_tool.report.ndeval_report` (``-c``, ``-baseline``,
        ``-riskAlpha``).
    risk_label : {"2014", "2013"}
        The run label against a baseline: ``run (rel to. base; rs=1+a; a=A)`` as gdeval
        1.3 prints it since June 2014, or with commas as its 2013 release does
        (:data:`xdiv.official.layout.RISK_LABELS`).
    baseline_bug : bool
        With ``complete`` and a baseline, reproduce gdeval 1.3's numbers for the topics
        neither run retrieved (see the module's description); by default they are
        differences from 0.
    """
    if [str(i) for i in collection["intent"].values] != ["0"]:
        raise InputError("gdeval reads adhoc qrels (topic 0 docno grade); convert diversity "
                         "qrels first (xdiv.to_adhoc, or --adhoc max on the command line)")
    if int(collection["level"].max()) > 4:
        raise InputError(f"gdeval's grades go up to 4; the qrels hold grade "
                         f"{int(collection['level'].max())}")
    measures = gdeval_measures(k)
    scores = per_topic_scores(runs, collection, measures)
    has_relevant = collection["intent_valid"].values.any(axis=1)
    relevant = set(sorted_topics(t for t, ok in zip(collection["topic"].values, has_relevant)
                                 if ok))
    if baseline is not None:
        base_run = str(baseline["run"].values[0])
        base_label = run_tag(baseline, base_run, -1) or base_run
        base_scores = per_topic_scores(baseline, collection, measures).sel(run=base_run)
        base_topics = [t for t in retrieved_topics(baseline, base_run) if t in relevant]
        alpha_text = risk_alpha_label(risk_alpha, risk_alpha_text)
    blocks = []
    for run in (str(r) for r in runs["run"].values):
        name = run_tag(runs, run, -1) or run  # a file without tags: the name announced
        retrieved = [t for t in sorted_topics(retrieved_topics(runs, run)) if t in relevant]
        values = scores.sel(run=run)
        if baseline is None:
            topics = sorted_topics(relevant) if complete else retrieved
            averaged = values.sel(topic=object_strings(topics)).values
            # gdeval leaves its sums undivided when there is no topic to average
            means = ordered_mean(averaged) if topics else np.zeros(2)
            blocks.append(RunBlock(name, retrieved, by_topic(values, retrieved),
                                   nan_propagated(averaged, means)))
            continue
        label = risk_run_label(name, base_label, alpha_text, risk_label)
        rows = retrieved + ([t for t in sorted_topics(relevant) if t not in set(retrieved)]
                            if complete else [])
        cube = risk_pair(values, base_scores, retrieved, base_topics, rows)
        if baseline_bug:
            cube = _carried_baseline(cube, rows[len(retrieved):], set(base_topics))
        risk = risk_differences(cube, "base", risk_alpha).sel(run="run")
        means = urisk(cube, "base", risk_alpha).sel(run="run").values if rows else np.zeros(2)
        blocks.append(RunBlock(label, rows, by_topic(risk, rows),
                               nan_propagated(risk.values, means)))
    return ndeval_layout([f"ndcg@{k}", f"err@{k}"], blocks, digits=5)


def _carried_baseline(cube: xr.DataArray, tail: list[str], base_topics: set[str]) -> xr.DataArray:
    """gdeval 1.3's baseline values in the rows of the topics the run did not retrieve
    (``tail``, in order): a topic the baseline did not retrieve either keeps the values
    of the row before (0 before the first), as the script's ``$baseNDCG`` and
    ``$baseERR``, set only when the baseline has the topic, do."""
    values = cube.values.copy()
    base = list(cube["run"].values).index("base")
    at = {str(t): j for j, t in enumerate(cube["topic"].values)}
    carried = np.zeros(values.shape[0])
    for topic in tail:
        j = at[topic]
        if topic in base_topics:
            carried = values[:, base, j].copy()
        else:
            values[:, base, j] = carried
    return cube.copy(data=values)
