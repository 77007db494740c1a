"""The output of TREC's official diversity and graded evaluation tools, to the byte.

``ndeval`` (version 4.5, TREC Web Track 2013-2014) prints 21 intent-aware measures per
topic and their mean; ``gdeval`` (version 1.3) prints nDCG@k and ERR@k with graded
judgments. Both are reproduced here as presets over xdiv's engine: the registry's
measures with the tools' definitions (:func:`xdiv.measure_set`), :func:`xdiv.evaluate`,
and :func:`xdiv.risk.urisk` for their risk-sensitive output against a baseline run. What
is added here is only which topics each tool lists and averages, and its layout.

ndeval
    Lists every topic the run retrieved (0 for topics absent from the qrels or without
    relevant documents) and averages over the retrieved topics that are in the qrels, or
    with ``complete`` over every qrels topic. With a baseline each row is the
    risk-weighted difference from the baseline; topics only the baseline retrieved are
    listed with ``complete``, and the mean divides by the larger of the number of rows
    and the number of topics it would otherwise average. No topic in common gives a mean
    of ``-nan``, as the C program prints it.
gdeval
    Lists the retrieved topics that have a relevant document in the qrels and averages
    over them, or with ``complete`` over every such topic. With a baseline and
    ``complete``, the judged topics the run did not retrieve follow as rows of their own.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import xarray as xr

from ..errors import AlignmentWarning, InputError
from ..evaluate import evaluate
from ..kernels.risk import ordered_mean
from ..core.labels import from_json, natural_key
from ..measures.names import measure_set
from ..analysis.risk import risk_differences
from ..analysis.risk import urisk

__all__ = ["NDEVAL_LABELS", "cut_runs", "gdeval_measures", "gdeval_report", "ndeval_measures",
           "ndeval_report"]

NDEVAL_LABELS = tuple(measure_set("ndeval"))
"""ndeval's columns, in its order and with its labels."""
_USES_ALPHA = ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "NRBP", "nNRBP")


def ndeval_measures(alpha: float = 0.5, beta: float = 0.5) -> list[str]:
    """ndeval's 21 measures as registry names, for its ``-alpha`` and ``-beta``."""
    names = []
    for label in NDEVAL_LABELS:
        base, _, cutoff = label.partition("@")
        params = []
        if base in _USES_ALPHA and alpha != 0.5:
            params.append(f"alpha={alpha!r}")
        if base in ("NRBP", "nNRBP") and beta != 0.5:
            params.append(f"beta={beta!r}")
        names.append(base + (f"({','.join(params)})" if params else "")
                     + (f"@{cutoff}" if cutoff else ""))
    return names


def gdeval_measures(k: int = 20) -> list[str]:
    """gdeval's nDCG@k and ERR@k as registry names: gains 2^x - 1, discount 1/log2(r+1),
    the ideal list of the judged relevant documents cut at k, and ERR's grade probability
    (2^x - 1)/2^4 for gdeval's highest grade 4."""
    return [f"nDCG@{k}", f"ERR(H=4)@{k}"]


def cut_runs(runs: xr.Dataset, depth: int) -> xr.Dataset:
    """The runs cut to their top ``depth`` documents (ndeval's ``-M``)."""
    cut = runs.isel(rank=slice(0, depth))
    return cut.assign(length=cut["length"].clip(max=depth))


def _per_topic(runs: xr.Dataset, collection: xr.Dataset, measures: Sequence[str]) -> xr.DataArray:
    """``score(metric, run, topic)`` with NaN (undefined or unjudged) read as 0, as both
    tools print. The evaluation's warnings about topics only the runs or only the qrels
    hold are silenced: the callers list and average topics by the tools' own rules."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AlignmentWarning)
        return evaluate(runs, collection, list(measures))["score"].fillna(0.0)


def _tag(runs: xr.Dataset, run: str, line: int) -> str:
    """The tag of the run file's first (``line=0``) or last (``-1``) line: ndeval names a
    run after the first, gdeval after the last; a Runs dataset built in Python has none,
    and its label stands in."""
    return from_json(runs.attrs.get("tags", "{}")).get(run, [run, run])[line]


def _retrieved(runs: xr.Dataset, run: str) -> list[str]:
    length = runs["length"].sel(run=run)
    return [str(t) for t in length["topic"].values[length.values > 0]]


def _sorted(topics) -> list[str]:
    return sorted(set(topics), key=natural_key)


def _number(value: float, digits: int) -> str:
    """``printf("%.{digits}f")`` as glibc prints it; NaN (from 0/0) as ``-nan``."""
    return "-nan" if np.isnan(value) else f"{value:.{digits}f}"


def _rows(values: xr.DataArray, label: str, topics: Sequence[str], digits: int) -> list[str]:
    table = values.sel(topic=list(topics)).transpose("topic", "metric").values
    return [f"{label},{topic}," + ",".join(_number(v, digits) for v in row)
            for topic, row in zip(topics, table)]


def _mean_row(label: str, values: np.ndarray, means: np.ndarray, digits: int) -> str:
    """The ``amean`` line: a NaN among the values averaged (``values``, metric × topic)
    makes the mean NaN, as in the tools' running sums."""
    means = np.where(np.isnan(values).any(axis=-1), np.nan, means)
    return f"{label},amean," + ",".join(_number(v, digits) for v in means)


def _zero_filled(scores: xr.DataArray, topics: Sequence[str]) -> xr.DataArray:
    return scores.reindex(topic=list(topics), fill_value=0.0)


def _risk_pair(run_scores: xr.DataArray, base_scores: xr.DataArray, run_topics, base_topics,
               topics: Sequence[str]) -> xr.DataArray:
    """The cube ``(metric, run, topic)`` of the run and the baseline over ``topics``, each
    0 where it did not retrieve the topic (as the tools count it)."""
    run_part = _zero_filled(run_scores.sel(topic=list(run_topics)), topics)
    base_part = _zero_filled(base_scores.sel(topic=list(base_topics)), topics)
    return xr.concat([run_part.expand_dims(run=["run"]), base_part.expand_dims(run=["base"])],
                     dim="run").transpose("metric", "run", "topic")


def _ndeval_scores(runs: xr.Dataset, collection: xr.Dataset,
                   measures: Sequence[str]) -> xr.DataArray:
    """ndeval's per-topic values: 0 where xdiv's are undefined, except nNRBP of a retrieved
    topic whose qrels hold no relevant document, which ndeval computes as 0/0 (NaN)."""
    scores = _per_topic(runs, collection, measures)
    without_relevant = ~collection["intent_valid"].any("intent")
    retrieved = runs["length"] > 0
    undefined = (without_relevant.reindex(topic=scores["topic"], fill_value=False)
                 & retrieved.reindex(topic=scores["topic"], fill_value=False))
    nnrbp = scores["metric"] == measures[NDEVAL_LABELS.index("nNRBP")]
    return scores.where(~(undefined & nnrbp))


def ndeval_report(collection: xr.Dataset, runs: xr.Dataset, *, alpha: float = 0.5,
                  beta: float = 0.5, complete: bool = False, baseline: xr.Dataset | None = None,
                  risk_alpha: float = 0.0, risk_alpha_text: str | None = None) -> str:
    """ndeval's CSV output for every run of ``runs``, one block per run.

    Parameters
    ----------
    collection, runs : xarray.Dataset
        From :func:`xdiv.read_qrels` and :func:`xdiv.read_runs` (``order="rank"`` for
        ndeval's default ranking, ``"score-docno-desc"`` for ``-traditional``).
    alpha, beta : float
        ndeval's ``-alpha`` and ``-beta``.
    complete : bool
        ndeval's ``-c``: average over every topic of the qrels.
    baseline : xarray.Dataset, optional
        One baseline run (``-baseline``): print the risk-weighted differences from it.
    risk_alpha : float
        ``-riskAlpha``: losses against the baseline count ``1 + risk_alpha`` times.
    risk_alpha_text : str, optional
        The ``-riskAlpha`` argument as typed, which ndeval prints in the run label
        (default ``"0"`` when not given, else ``repr(risk_alpha)``).
    """
    measures = ndeval_measures(alpha, beta)
    scores = _ndeval_scores(runs, collection, measures)
    judged = [str(t) for t in collection["topic"].values]
    base_label = base_scores = base_topics = None
    if baseline is not None:
        base_run = str(baseline["run"].values[0])
        base_label = _tag(baseline, base_run, 0)
        base_scores = _ndeval_scores(baseline, collection, measures).sel(run=base_run)
        base_topics = _retrieved(baseline, base_run)
        alpha_text = risk_alpha_text or ("0" if risk_alpha == 0 else repr(risk_alpha))
    lines = []
    for run in (str(r) for r in runs["run"].values):
        lines.append("runid,topic," + ",".join(NDEVAL_LABELS))
        name = _tag(runs, run, 0)
        retrieved = _retrieved(runs, run)
        values = scores.sel(run=run)
        if baseline is None:
            lines += _rows(values, name, _sorted(retrieved), 6)
            # the topics averaged, in order; unretrieved ones (with -c) add 0 to the sum
            topics = _sorted(judged if complete else set(retrieved) & set(judged))
            averaged = values.sel(topic=topics).values
            lines.append(_mean_row(name, averaged, ordered_mean(averaged), 6))
            continue
        label = f"{name} (rel to. {base_label}; rs=1+a; a={alpha_text})"
        rows = _sorted(set(retrieved) | set(base_topics) if complete else retrieved)
        # the mean divides by the larger of the number of rows and of the topics it would
        # average without a baseline: judged topics neither run retrieved pad the rows up
        # to that count, each a difference of 0 - 0
        averaged = len(judged) if complete else len(set(retrieved) & set(judged))
        padding = [t for t in judged if t not in set(rows)][:max(averaged - len(rows), 0)]
        cube = _risk_pair(values, base_scores, retrieved, base_topics, rows + padding)
        risk = risk_differences(cube, "base", risk_alpha).sel(run="run")
        lines += _rows(risk, label, rows, 6)
        lines.append(_mean_row(label, risk.values,
                               urisk(cube, "base", risk_alpha).sel(run="run").values, 6))
    return "\n".join(lines) + "\n"


def gdeval_report(collection: xr.Dataset, runs: xr.Dataset, *, k: int = 20,
                  complete: bool = False, baseline: xr.Dataset | None = None,
                  risk_alpha: float = 0.0, risk_alpha_text: str | None = None) -> str:
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
        As in :func:`ndeval_report` (``-c``, ``-baseline``, ``-riskAlpha``); gdeval
        prints the risk-sensitive label with commas.
    """
    if [str(i) for i in collection["intent"].values] != ["0"]:
        raise InputError("gdeval reads adhoc qrels (topic 0 docno grade); convert diversity "
                         "qrels first (xdiv.to_adhoc, or --adhoc max on the command line)")
    if int(collection["level"].max()) > 4:
        raise InputError(f"gdeval's grades go up to 4; the qrels hold grade "
                         f"{int(collection['level'].max())}")
    measures = gdeval_measures(k)
    scores = _per_topic(runs, collection, measures)
    relevant = set(_sorted(t for t, ok in zip(collection["topic"].values,
                                                collection["intent_valid"].values.any(axis=1))
                           if ok))
    if baseline is not None:
        base_run = str(baseline["run"].values[0])
        base_label = _tag(baseline, base_run, -1)
        base_scores = _per_topic(baseline, collection, measures).sel(run=base_run)
        base_topics = [t for t in _retrieved(baseline, base_run) if t in relevant]
        alpha_text = risk_alpha_text or ("0" if risk_alpha == 0 else repr(risk_alpha))
    lines = []
    for run in (str(r) for r in runs["run"].values):
        name = _tag(runs, run, -1)
        retrieved = [t for t in _sorted(_retrieved(runs, run)) if t in relevant]
        values = scores.sel(run=run)
        lines.append(f"runid,topic,ndcg@{k},err@{k}")
        if baseline is None:
            lines += _rows(values, name, retrieved, 5)
            topics = _sorted(relevant) if complete else retrieved
            averaged = values.sel(topic=topics).values
            # gdeval leaves its sums undivided when there is no topic to average
            means = ordered_mean(averaged) if topics else np.zeros(2)
            lines.append(_mean_row(name, averaged, means, 5))
            continue
        label = f"{name} (rel to. {base_label}, rs=1+a, a={alpha_text})"
        rows = retrieved + ([t for t in _sorted(relevant) if t not in set(retrieved)]
                            if complete else [])
        cube = _risk_pair(values, base_scores, retrieved, base_topics, rows)
        risk = risk_differences(cube, "base", risk_alpha).sel(run="run")
        lines += _rows(risk, label, rows, 5)
        means = urisk(cube, "base", risk_alpha).sel(run="run").values if rows else np.zeros(2)
        lines.append(_mean_row(label, risk.values, means, 5))
    return "\n".join(lines) + "\n"
