"""ndeval's output from plain files through the numpy kernels alone: the path ``xdiv
ndeval`` takes when it can, loading neither pandas, xarray nor scipy.

:func:`ndeval_plain` reads the qrels and runs with the plain readers
(:mod:`xdiv.io.plain`), ranks each run as :func:`xdiv.read_runs` does
(:func:`xdiv.core.ranking.ranked_grids`), joins it with the qrels and calls the kernels of
ndeval's measures (:mod:`xdiv.kernels.ndeval`) on the same arrays as
:func:`xdiv.evaluate`, so that its output is the same, byte for byte, as
:func:`xdiv.formats.ndeval.ndeval_report`'s. It returns None, before printing or warning
anything, whenever the files are not plain or anything would be warned about or refused
other than runs whose rank column and scores disagree (a run with no judged document,
a document retrieved twice, two files with the same run name): the caller then takes
the general path, which says so.

Each run is scored alone: every kernel adds ranks in order (:func:`rank_sum`), so that a
run's scores are the same bits whichever runs it is evaluated with.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..core.labels import natural_key
from ..core.ranking import ranked_grids, warn_rank_disagreements
from ..errors import InputError
from ..io.plain import PlainQrels, PlainRun, read_plain_qrels, read_plain_run
from ..kernels import ndeval as K
from ..kernels.diversity import intent_recall
from ..kernels.risk import ordered_mean
from ..typing import Order
from .layout import NDEVAL_LABELS, RunBlock, nan_propagated, ndeval_layout, sorted_topics

__all__ = ["ndeval_plain"]

PathLike = str | os.PathLike


@dataclass(frozen=True)
class _Judged:
    """One run joined with the qrels, over the topics it retrieved: the arrays the
    kernels take (:mod:`xdiv.kernels.ndeval`)."""

    name: str
    topics: list[str]
    levels: np.ndarray
    """``(topic, rank, intent)`` levels of the ranked documents (0: unjudged, padding)."""
    valid: np.ndarray
    """``(topic, intent)``."""
    n_relevant: np.ndarray
    """``(topic, intent)``: relevant documents in the qrels."""
    ideal: np.ndarray
    """``(topic, greedy_rank)``: novelty gains of the greedy ideal list."""


_Column = Callable[[_Judged, "int | None", float, float], np.ndarray]
_COLUMNS: dict[str, _Column] = {
    "ERR-IA": lambda j, k, a, b: K.err_ia(j.levels, j.valid, cutoff=k, alpha=a),
    "nERR-IA": lambda j, k, a, b: K.nerr_ia(j.levels, j.valid, j.ideal[:, :k], cutoff=k,
                                            alpha=a),
    "alpha-DCG": lambda j, k, a, b: K.alpha_dcg(j.levels, j.valid, cutoff=k, alpha=a),
    "alpha-nDCG": lambda j, k, a, b: K.alpha_ndcg(j.levels, j.valid, j.ideal[:, :k], None,
                                                  cutoff=k, alpha=a),
    "NRBP": lambda j, k, a, b: K.nrbp(j.levels, j.valid, cutoff=None, alpha=a, beta=b),
    "MAP-IA": lambda j, k, a, b: K.map_ia(j.levels, j.valid, j.n_relevant, cutoff=None),
    "P-IA": lambda j, k, a, b: K.p_ia(j.levels, j.valid, cutoff=k),
    "strec": lambda j, k, a, b: intent_recall(j.levels, j.valid, cutoff=k),
}
"""ndeval's columns (but nNRBP, whose ideal list has its own depth) as kernel calls, by
the measure's name; the registry declares the same measures over labelled data
(:mod:`xdiv.measures.ndeval`), and the tests hold the two to the same bits."""


def _scores(judged: _Judged, alpha: float, beta: float, nrbp_depth: int) -> np.ndarray:
    """``(topic, column)``: ndeval's 21 values, NaN (undefined, or a topic not in the
    qrels) read as 0 as ndeval prints them."""
    columns = []
    for label in NDEVAL_LABELS:
        name, _, cutoff = label.partition("@")
        if name == "nNRBP":
            values = K.nnrbp(judged.levels, judged.valid, judged.ideal[:, :nrbp_depth],
                             cutoff=None, alpha=alpha, beta=beta)
        else:
            values = _COLUMNS[name](judged, int(cutoff) if cutoff else None, alpha, beta)
        columns.append(values)
    scores = np.stack(columns, axis=-1)
    return np.where(np.isnan(scores), 0.0, scores)


def _ranked(run: PlainRun, order: Order, found: list) -> tuple[np.ndarray, np.ndarray]:
    """The run's ``(topic, rank)`` docno codes (-1 in padding), ranked by ``order``, and
    the sorted docnos (``S`` dtype) the codes index. Raises :class:`InputError` for a
    document retrieved twice for a topic."""
    vocabulary, code = np.unique(run.docno, return_inverse=True)
    doc, _, _ = ranked_grids(
        np.zeros(len(code), dtype=np.int64), run.topic, code.astype(np.int32).ravel(),
        run.score, run.rank.astype(np.float64), (1, len(run.topics)), order=order,
        duplicates="error", run_labels=[run.name], topic_labels=run.topics,
        docno_of=lambda k: vocabulary[k].decode(), disagreements=found)
    return doc[0], vocabulary


def _judge(run: PlainRun, doc: np.ndarray, vocabulary: np.ndarray, qrels: PlainQrels,
           ideal: np.ndarray, n_relevant: np.ndarray) -> _Judged | None:
    """The run's ranked documents joined with the qrels; None when none is judged.

    The judged (topic, docno) pairs are found in the run's sorted docnos and keyed by
    (run topic, docno code), the integer key of the ranked grid's cells.
    """
    index = {topic: k for k, topic in enumerate(run.topics)}
    run_topic = np.array([index.get(t, -1) for t in qrels.topics], dtype=np.int64)
    at = np.minimum(np.searchsorted(vocabulary, qrels.docno), len(vocabulary) - 1)
    found = (vocabulary[at] == qrels.docno) & (run_topic[qrels.topic] >= 0)
    keys = run_topic[qrels.topic[found]] * len(vocabulary) + at[found]
    by_key = np.argsort(keys)
    keys, slots = keys[by_key], qrels.slot[found][by_key]
    topic, rank = np.nonzero(doc >= 0)
    cell = topic * len(vocabulary) + doc[topic, rank]
    where = np.minimum(np.searchsorted(keys, cell), max(len(keys) - 1, 0))
    hit = (keys[where] == cell) if len(keys) else np.zeros(len(cell), dtype=bool)
    if not hit.any():
        return None
    judged = {topic: k for k, topic in enumerate(qrels.topics)}
    q = np.array([judged.get(t, -1) for t in run.topics], dtype=np.int64)
    levels = np.zeros(doc.shape + (len(qrels.intents),), dtype=np.int8)
    levels[topic[hit], rank[hit]] = qrels.levels[q[topic[hit]], slots[where[hit]]]
    known = (q >= 0)[:, None]
    return _Judged(run.name, run.topics, levels, known & qrels.valid[q],
                   np.where(known, n_relevant[q], 0), np.where(known, ideal[q], 0.0))


def ndeval_plain(qrels_path: PathLike, run_paths: Sequence[PathLike], *,
                 order: Order = "rank", alpha: float = 0.5, beta: float = 0.5,
                 complete: bool = False, depth: int | None = None) -> str | None:
    """ndeval's CSV for ``run_paths`` against ``qrels_path``, as
    :func:`xdiv.formats.ndeval.ndeval_report` prints it, or None when the general path
    must take the files (see the module's description).

    Parameters
    ----------
    qrels_path, run_paths : str or path-like
        Qrels and run files (gzip allowed).
    order : {"rank", "score-docno-desc", "score-docno-asc"}
        ``"rank"``: ndeval's ranking; ``"score-docno-desc"``: ``-traditional``.
    alpha, beta, complete
        ndeval's ``-alpha``, ``-beta`` and ``-c``.
    depth : int, optional
        ndeval's ``-M``: each run cut to its top ``depth`` documents.
    """
    try:
        qrels = read_plain_qrels(qrels_path)
        runs: dict[str, PlainRun] = {}
        for path in [] if qrels is None else run_paths:
            run = read_plain_run(path)
            if run is None or run.name in runs:
                return None
            runs[run.name] = run
    except InputError:  # the general path names the file, as it always has
        return None
    if qrels is None:
        return None
    found: list = []
    ranked = {}
    for name in sorted(runs, key=natural_key):
        try:
            ranked[name] = _ranked(runs[name], order, found)
        except InputError:
            return None
    nrbp_depth = K.nrbp_ideal_depth(beta, len(qrels.intents), qrels.levels.shape[1])
    cutoffs = [int(label.partition("@")[2]) for label in NDEVAL_LABELS if "@" in label]
    ideal = K.greedy_search(qrels.levels, qrels.valid, alpha=alpha,
                            depth=max(nrbp_depth, *cutoffs))
    n_relevant = (qrels.levels > 0).sum(axis=1)
    judged = []
    for name, (doc, vocabulary) in ranked.items():
        one = _judge(runs[name], doc[:, :depth], vocabulary, qrels, ideal, n_relevant)
        if one is None:
            return None
        judged.append(one)
    warn_rank_disagreements(found, order)
    return ndeval_layout(NDEVAL_LABELS, [_block(j, qrels.topics, complete, alpha, beta,
                                                nrbp_depth) for j in judged])


def _block(judged: _Judged, qrels_topics: list[str], complete: bool, alpha: float,
           beta: float, nrbp_depth: int) -> RunBlock:
    """One run's rows and its mean, over the retrieved topics of the qrels (``complete``:
    every topic of the qrels, 0 where the run retrieved nothing)."""
    scores = _scores(judged, alpha, beta, nrbp_depth)
    row_of = {topic: k for k, topic in enumerate(judged.topics)}
    averaged = sorted_topics(qrels_topics if complete
                             else set(judged.topics) & set(qrels_topics))
    values = np.zeros((len(NDEVAL_LABELS), len(averaged)))
    for j, topic in enumerate(averaged):
        if topic in row_of:
            values[:, j] = scores[row_of[topic]]
    return RunBlock(judged.name, judged.topics, scores,
                    nan_propagated(values, ordered_mean(values)))
