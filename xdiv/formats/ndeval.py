"""The output of TREC's official diversity evaluation tool, ndeval, to the byte, and the
CSV layout it shares with gdeval (:mod:`xdiv.formats.gdeval`).

``ndeval`` (version 4.5, TREC Web Track 2013-2014) prints 21 intent-aware measures per
topic and their mean. It is reproduced here as a preset over xdiv's engine: the
registry's measures with the tool's definitions (:func:`xdiv.measure_set`),
:func:`xdiv.evaluate`, and :func:`xdiv.risk.urisk` for its risk-sensitive output against a
baseline run. What is added here is only which topics the tool lists and averages, and
its layout (:func:`ndeval_layout`, also used by gdeval and, through :func:`ndeval_csv`,
by ``xdiv evaluate --format ndeval``).

ndeval
    Lists every topic the run retrieved (0 for topics absent from the qrels or without
    relevant documents) and averages over the retrieved topics that are in the qrels, or
    with ``complete`` over every qrels topic. With a baseline each row is the
    risk-weighted difference from the baseline; topics only the baseline retrieved are
    listed with ``complete``, and the mean divides by the larger of the number of rows
    and the number of topics it would otherwise average. No topic in common gives a mean
    of ``-nan``, as the C program prints it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

import xarray as xr

from ..kernels.risk import ordered_mean
from ..core.labels import from_json, object_strings
from ..analysis.risk import risk_differences
from ..analysis.risk import urisk
from .common import by_topic, per_topic_scores, retrieved_topics, risk_pair, run_tag
from .layout import (NDEVAL_LABELS, RunBlock, nan_propagated, ndeval_layout, risk_alpha_label,
                     sorted_topics)

__all__ = ["NDEVAL_LABELS", "RunBlock", "blocks_cube", "cut_runs", "ndeval", "ndeval_blocks",
           "ndeval_csv", "ndeval_layout", "ndeval_measures", "ndeval_report"]

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


def cut_runs(runs: xr.Dataset, depth: int) -> xr.Dataset:
    """The runs cut to their top ``depth`` documents (ndeval's ``-M``)."""
    cut = runs.isel(rank=slice(0, depth))
    return cut.assign(length=cut["length"].clip(max=depth))


def ndeval_csv(scores: xr.Dataset) -> str:
    """A score cube (:func:`xdiv.evaluate`) in ndeval's per-topic CSV layout.

    A header ``runid,topic,<measures>``, then for each run one row per topic it retrieved
    and an ``amean`` row. As in ndeval, topics without relevant documents print 0 (xdiv
    scores them NaN) and the mean is over the retrieved topics that are in the qrels,
    summed in order as ndeval sums (``-nan`` when there is none); topics absent from the
    qrels print 0 and are left out of the mean. Values use ``%.6f``.
    """
    metrics = [str(m) for m in scores["metric"].values]
    unjudged = set(from_json(scores.attrs.get("topics_not_in_qrels", "[]")))
    lacking = from_json(scores.attrs.get("topics_not_in_runs", "{}"))
    blocks = []
    for run in scores["run"].values:
        values = scores["score"].sel(run=run).fillna(0.0)
        absent = set(lacking.get(str(run), []))
        topics = [t for t in values["topic"].values if t not in absent]
        judged = [t for t in topics if t not in unjudged]
        means = ordered_mean(by_topic(values, judged), axis=0)
        blocks.append(RunBlock(str(run), topics, by_topic(values, topics), means))
    return ndeval_layout(metrics, blocks, repeat_header=False)


def _ndeval_scores(runs: xr.Dataset, collection: xr.Dataset,
                   measures: Sequence[str]) -> xr.DataArray:
    """ndeval's per-topic values: 0 where xdiv's are undefined, except nNRBP of a retrieved
    topic whose qrels hold no relevant document, which ndeval computes as 0/0 (NaN)."""
    scores = per_topic_scores(runs, collection, measures)
    without_relevant = ~collection["intent_valid"].any("intent")
    retrieved = runs["length"] > 0
    undefined = (without_relevant.reindex(topic=scores["topic"], fill_value=False)
                 & retrieved.reindex(topic=scores["topic"], fill_value=False))
    nnrbp = scores["metric"] == measures[NDEVAL_LABELS.index("nNRBP")]
    return scores.where(~(undefined & nnrbp))


def ndeval_report(collection: xr.Dataset, runs: xr.Dataset, *, alpha: float = 0.5,
                  beta: float = 0.5, complete: bool = False, baseline: xr.Dataset | None = None,
                  risk_alpha: float = 0.0, risk_alpha_text: str | None = None) -> str:
    """ndeval's CSV output for every run of ``runs``, one block per run: the layout
    (:func:`ndeval_layout`) of :func:`ndeval_blocks`, which takes the same parameters."""
    return ndeval_layout(NDEVAL_LABELS, ndeval_blocks(
        collection, runs, alpha=alpha, beta=beta, complete=complete, baseline=baseline,
        risk_alpha=risk_alpha, risk_alpha_text=risk_alpha_text))


def ndeval_blocks(collection: xr.Dataset, runs: xr.Dataset, *, alpha: float = 0.5,
                  beta: float = 0.5, complete: bool = False, baseline: xr.Dataset | None = None,
                  risk_alpha: float = 0.0, risk_alpha_text: str | None = None
                  ) -> list[RunBlock]:
    """ndeval's rows for every run of ``runs``: one :class:`RunBlock` per run.

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
        base_label = run_tag(baseline, base_run, 0)
        base_scores = _ndeval_scores(baseline, collection, measures).sel(run=base_run)
        base_topics = retrieved_topics(baseline, base_run)
        alpha_text = risk_alpha_label(risk_alpha, risk_alpha_text)
    blocks = []
    for run in (str(r) for r in runs["run"].values):
        name = run_tag(runs, run, 0)
        retrieved = retrieved_topics(runs, run)
        values = scores.sel(run=run)
        if baseline is None:
            rows = sorted_topics(retrieved)
            # the topics averaged, in order; unretrieved ones (with -c) add 0 to the sum
            topics = sorted_topics(judged if complete else set(retrieved) & set(judged))
            averaged = values.sel(topic=object_strings(topics)).values
            blocks.append(RunBlock(name, rows, by_topic(values, rows),
                                   nan_propagated(averaged, ordered_mean(averaged))))
            continue
        label = f"{name} (rel to. {base_label}; rs=1+a; a={alpha_text})"
        rows = sorted_topics(set(retrieved) | set(base_topics) if complete else retrieved)
        # the mean divides by the larger of the number of rows and of the topics it would
        # average without a baseline: judged topics neither run retrieved pad the rows up
        # to that count, each a difference of 0 - 0
        averaged = len(judged) if complete else len(set(retrieved) & set(judged))
        padding = [t for t in judged if t not in set(rows)][:max(averaged - len(rows), 0)]
        cube = risk_pair(values, base_scores, retrieved, base_topics, rows + padding)
        risk = risk_differences(cube, "base", risk_alpha).sel(run="run")
        means = urisk(cube, "base", risk_alpha).sel(run="run").values
        blocks.append(RunBlock(label, rows, by_topic(risk, rows),
                               nan_propagated(risk.values, means)))
    return blocks


def ndeval(qrels: str | os.PathLike, runs: str | os.PathLike | Sequence[str | os.PathLike], *,
           traditional: bool = False, alpha: float = 0.5, beta: float = 0.5,
           complete: bool = False, depth: int | None = None) -> xr.Dataset:
    """ndeval's values for run files, as a labelled cube: what ``xdiv ndeval`` prints.

    The 21 measures of TREC's ndeval (version 4.5) with its conventions (see
    :func:`ndeval_report`): 0 for topics without relevant documents, judgments above 1
    counted as 1, the mean over the retrieved topics of the qrels. Plain files take the
    numpy path of ``xdiv ndeval`` (:mod:`xdiv.formats.plain`), scored in parallel;
    others are read by :func:`xdiv.read_qrels` and :func:`xdiv.read_runs`. Either way
    the values are the same bits.

    Parameters
    ----------
    qrels : str or path-like
        Diversity qrels (gzip allowed).
    runs : str, path-like or list of them
        Run files.
    traditional : bool
        ndeval's ``-traditional``: rank by score, ties by docno descending, instead of
        by the rank column.
    alpha, beta, complete, depth
        ndeval's ``-alpha``, ``-beta``, ``-c`` and ``-M``.

    Returns
    -------
    xarray.Dataset
        ``score(metric, run, topic)``: ndeval's row of each run for each topic it
        retrieved (NaN where it retrieved nothing: ndeval prints no row); ``mean(metric,
        run)``: its ``amean`` row. Runs are named by their tag, in natural order.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import xdiv
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "qrels").write_text("1 1 a 1\\n1 2 b 1\\n2 1 c 1\\n")
    >>> _ = (folder / "run").write_text("1 Q0 b 1 2.0 r\\n1 Q0 a 2 1.0 r\\n2 Q0 c 1 1.0 r\\n")
    >>> cube = xdiv.official.ndeval(folder / "qrels", [folder / "run"])
    >>> float(cube["mean"].sel(metric="strec@5", run="r"))
    1.0
    >>> cube["score"].sel(metric="P-IA@5", run="r").values.round(3).tolist()
    [0.2, 0.2]
    """
    from ..io.api import read_qrels
    from ..io.runfiles import read_runs
    from .plain import ndeval_plain_blocks

    paths = [runs] if isinstance(runs, (str, os.PathLike)) else list(runs)
    order = "score-docno-desc" if traditional else "rank"
    blocks = ndeval_plain_blocks(qrels, paths, order=order, alpha=alpha, beta=beta,
                                 complete=complete, depth=depth)
    if blocks is None:
        read = read_runs(paths, order=order)
        blocks = ndeval_blocks(read_qrels(qrels), read if depth is None
                               else cut_runs(read, depth), alpha=alpha, beta=beta,
                               complete=complete)
    return blocks_cube(blocks, NDEVAL_LABELS, tool="ndeval 4.5")


def blocks_cube(blocks: Sequence[RunBlock], columns: Sequence[str], *,
                tool: str) -> xr.Dataset:
    """The rows of an official tool's output (:class:`RunBlock`) as ``score(metric, run,
    topic)`` (NaN where a run has no row) and ``mean(metric, run)``."""
    topics = sorted_topics(t for block in blocks for t in block.topics)
    at = {topic: k for k, topic in enumerate(topics)}
    score = np.full((len(columns), len(blocks), len(topics)), np.nan)
    for r, block in enumerate(blocks):
        if len(block.topics):
            score[:, r, [at[t] for t in block.topics]] = np.asarray(block.rows).T
    return xr.Dataset(
        {"score": (("metric", "run", "topic"), score),
         "mean": (("metric", "run"), np.array([b.means for b in blocks]).T.reshape(
             len(columns), len(blocks)))},
        coords={"metric": object_strings(columns),
                "run": object_strings([b.label for b in blocks]),
                "topic": object_strings(topics)},
        attrs={"xdiv_kind": "official", "tool": tool})
