"""The run model (``run × topic × rank``) and the judged run cube.

A **Runs** dataset has the dimensions ``run``, ``topic`` and ``rank`` (1-based):
``docno(run, topic, rank)`` (``""`` in padding), ``score(run, topic, rank)`` (NaN in
padding) and ``length(run, topic)``, the number of documents retrieved. Ranks follow the
ordering convention given to :func:`build_runs`:

``"score-docno-desc"`` (default)
    score descending, ties by docno descending: trec_eval's and ``ndeval -traditional``'s
    order.
``"score-docno-asc"``
    score descending, ties by docno ascending: pyndeval's order (and so ir_measures' for
    the measures it computes through pyndeval).
``"rank"``
    the rank column of the file ascending (plain ndeval), ties by score descending then
    docno descending.

The **judged cube** (:func:`judge`) joins Runs with a collection on (topic, docno):
``level(run, topic, rank, intent)`` (0 where unjudged or padding), ``judged(run, topic,
rank)`` and ``slot(run, topic, rank)`` (the collection's topic-local slot, -1 if
unjudged), together with the per-topic collection variables every measure needs, aligned
on the union of the runs' and the collection's topics. The join is a vectorised hash
lookup (no Python loop per document) and works on dask-chunked runs.
"""

from __future__ import annotations

import glob
import os
import warnings
from collections.abc import Iterable
from typing import Literal

import numpy as np
import pandas as pd
import xarray as xr
from tqdm.auto import tqdm

from . import io as _io
from .collection import ABSENT, describe_dataset, check_collection, group_positions
from .kernels.common import ideal_levels
from .errors import InputError, XdivWarning
from .labels import natural_sorted, object_strings, to_json

Order = Literal["score-docno-desc", "score-docno-asc", "rank"]
Duplicates = Literal["error", "first"]
ORDERS = ("score-docno-desc", "score-docno-asc", "rank")
ORDER_HELP = ("ranking of a run's documents: by score, ties by docno descending (trec_eval, "
              "gdeval, ndeval -traditional), by score with ties by docno ascending "
              "(pyndeval), or by the rank column (ndeval's default), ties by score")
"""The ranking conventions in one sentence, for help texts."""

__all__ = ["build_runs", "read_run", "read_runs", "runs_frame", "judge", "write_run"]


def read_run(path, *, order: Order = "score-docno-desc",
             duplicates: Duplicates = "error") -> xr.Dataset:
    """Read one TREC run file (``topic Q0 docno rank score tag``, gzip allowed).

    Parameters
    ----------
    path : str or path-like
    order : {"score-docno-desc", "score-docno-asc", "rank"}
        Ranking convention (see :mod:`xdiv.runs`).
    duplicates : {"error", "first"}
        A docno retrieved twice for a topic is an error, or only its highest-ranked
        occurrence is kept (with a warning naming run, topic and docno).
    """
    return read_runs([path], order=order, duplicates=duplicates)


def read_runs(paths: str | os.PathLike | Iterable[str | os.PathLike], *,
              order: Order = "score-docno-desc", duplicates: Duplicates = "error",
              progress: bool = False) -> xr.Dataset:
    """Read several TREC run files into one Runs dataset.

    ``paths`` is a list of files or a glob pattern (``"runs/*.gz"``). Runs are labelled
    by their tag (or file name, see :func:`xdiv.io.read_run_frame`); two files giving the
    same run name are an error. ``progress`` shows a progress bar (on standard error).
    The attributes ``source`` and ``tags`` map each run to its file and to the tags of
    the file's first and last lines (JSON).
    """
    if isinstance(paths, (str, os.PathLike)):
        text = os.fspath(paths)
        files = sorted(glob.glob(text)) if glob.has_magic(text) else [text]
        if not files:
            raise InputError(f"{text}: no file matches")
    else:
        files = [os.fspath(p) for p in paths]
    if not files:
        raise InputError("read_runs: no run files given")
    frames, origin, tags = [], {}, {}
    for path in tqdm(files, desc="reading runs", unit="run", disable=not progress,
                     leave=False):
        frame = _io.read_run_frame(path)
        name = frame["run"].iat[0]
        if name in origin:
            raise InputError(f"{path}: run name {name!r} is also the name of {origin[name]}")
        origin[name] = path
        tags[name] = frame.attrs["tags"]
        frames.append(frame.drop(columns="run"))
    names = list(origin)
    run_codes = np.repeat(np.arange(len(frames)), [len(f) for f in frames])
    # numpy concatenation of the columns: pandas' concat of object columns is far slower
    frame = pd.DataFrame({column: np.concatenate([f[column].to_numpy() for f in frames])
                          for column in frames[0].columns}, copy=False)
    frame["run"] = pd.Categorical.from_codes(run_codes, categories=names)
    runs = build_runs(frame, order=order, duplicates=duplicates)
    runs.attrs["source"] = to_json({name: origin[name] for name in runs["run"].values})
    runs.attrs["tags"] = to_json({name: tags[name] for name in runs["run"].values})
    return runs


def build_runs(frame: pd.DataFrame, *, order: Order = "score-docno-desc",
               duplicates: Duplicates = "error") -> xr.Dataset:
    """Build a Runs dataset from a tidy frame.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns ``run``, ``topic``, ``docno``, ``score`` and, for ``order="rank"``,
        ``rank``.
    order, duplicates
        As in :func:`read_run`.
    """
    if order not in ORDERS:
        raise InputError(f"order must be one of {ORDERS}, not {order!r}")
    if duplicates not in ("error", "first"):
        raise InputError(f"duplicates must be 'error' or 'first', not {duplicates!r}")
    need = {"run", "topic", "docno", "score"} | ({"rank"} if order == "rank" else set())
    lacking = need - set(frame.columns)
    if lacking:
        raise InputError(f"run frame lacks column(s) {sorted(lacking)}")
    if len(frame) == 0:
        raise InputError("run frame is empty")
    missing_docno = frame["docno"].isna().to_numpy()
    if missing_docno.any():
        k = int(np.argmax(missing_docno))
        raise InputError(f"run frame row {k}: the docno is missing")
    docno = frame["docno"].astype(str).to_numpy(dtype=object)
    try:
        score = frame["score"].to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("run scores must be numbers") from None
    run_labels, r_code = label_codes(frame["run"])
    topic_labels, t_code = label_codes(frame["topic"])
    bad = ~np.isfinite(score)
    if bad.any():
        k = int(np.argmax(bad))
        raise InputError(f"run {run_labels[r_code[k]]} topic {topic_labels[t_code[k]]} docno "
                         f"{docno[k]}: score {score[k]} is not finite")

    if order == "rank":
        primary = frame["rank"].to_numpy(dtype=np.float64)
        bad_rank = ~np.isfinite(primary)
        if bad_rank.any():
            k = int(np.argmax(bad_rank))
            raise InputError(f"run {run_labels[r_code[k]]} topic {topic_labels[t_code[k]]} "
                             f"docno {docno[k]}: rank {primary[k]} is not a number")
        ties = (primary, score)
    else:
        primary = None
        ties = (score,)
    sort = _ranking_order(r_code, t_code, primary, score)
    sort = _break_ties_by_docno(sort, r_code, t_code, ties, docno,
                                descending=order != "score-docno-asc")
    if "rank" in frame.columns:
        _warn_rank_disagreement(frame["rank"].to_numpy(dtype=np.float64)[sort],
                                score[sort], docno[sort], r_code[sort], t_code[sort],
                                run_labels, order)
    r_code, t_code = r_code[sort], t_code[sort]
    score, docno = score[sort], docno[sort]

    group = r_code.astype(np.int64) * len(topic_labels) + t_code
    dup = _duplicates(group, docno)
    if dup.any():
        listed = [f"run {run_labels[r_code[k]]} topic {topic_labels[t_code[k]]} docno {docno[k]}"
                  for k in np.flatnonzero(dup)[:5]]
        more = f" (and {int(dup.sum()) - 5} more)" if dup.sum() > 5 else ""
        if duplicates == "error":
            raise InputError("a docno is retrieved more than once for a topic: "
                             + "; ".join(listed) + more
                             + " (duplicates='first' in Python, --duplicates first on the "
                               "command line, keeps the highest-ranked one)")
        warnings.warn("kept only the highest-ranked occurrence of duplicated documents: "
                      + "; ".join(listed) + more, XdivWarning, stacklevel=2)
        keep = ~dup
        group, score, docno = group[keep], score[keep], docno[keep]
        r_code, t_code = r_code[keep], t_code[keep]

    position = group_positions(group)
    n_runs, n_topics = len(run_labels), len(topic_labels)
    length = np.bincount(group, minlength=n_runs * n_topics).reshape(n_runs, n_topics)
    depth = max(int(length.max()), 1)
    docno_grid = np.full((n_runs, n_topics, depth), "", dtype=object)
    score_grid = np.full((n_runs, n_topics, depth), np.nan)
    docno_grid[r_code, t_code, position] = docno
    score_grid[r_code, t_code, position] = score
    return xr.Dataset(
        {
            "docno": (("run", "topic", "rank"), docno_grid),
            "score": (("run", "topic", "rank"), score_grid),
            "length": (("run", "topic"), length.astype(np.int64)),
        },
        coords={"run": object_strings(run_labels), "topic": object_strings(topic_labels),
                "rank": np.arange(1, depth + 1, dtype=np.int64)},
        attrs={"xdiv_kind": "runs", "order": order},
    )


def _warn_rank_disagreement(rank, score, docno, r_code, t_code, run_labels, order) -> None:
    """Warn, once per run, about the topics where the rank column and the scores (ties by
    docno descending) put the documents in different orders: trec_eval, gdeval and
    ``ndeval -traditional`` follow the scores, ndeval by default the rank column.

    The rows come in the order ``order`` ranks them. Ranked by score, the two rankings
    agree when the rank column never decreases (equal ranks fall back on the scores);
    ranked by the rank column, when each document outscores the next, or ties with it and
    has the larger docno. Topics where they differ only in the order of tied scores are
    counted apart.
    """
    if len(rank) < 2:
        return
    same = (r_code[1:] == r_code[:-1]) & (t_code[1:] == t_code[:-1])
    tie = score[1:] == score[:-1]
    if order == "rank":
        differ = same & (score[1:] >= score[:-1])
        tied = np.flatnonzero(differ & tie)
        differ[tied] = docno[tied + 1] > docno[tied]
    else:
        differ = same & (rank[1:] < rank[:-1])
    if not differ.any():
        return
    width = int(t_code.max()) + 1
    n_topics = np.bincount(r_code[np.r_[True, ~same]], minlength=len(run_labels))

    def topics_per_run(pairs: np.ndarray) -> np.ndarray:
        keys = np.unique(r_code[pairs].astype(np.int64) * width + t_code[pairs])
        return np.bincount(keys // width, minlength=len(run_labels))

    counts = topics_per_run(np.flatnonzero(differ))
    contradicted = topics_per_run(np.flatnonzero(differ & ~tie))
    used = ("the rank column, as ndeval does by default" if order == "rank" else
            "score (ties by docno), as trec_eval, gdeval and ndeval -traditional do")
    for r in np.flatnonzero(counts):
        ties_only = counts[r] - contradicted[r]
        detail = ("" if not ties_only else " (only in the order of tied scores)"
                  if ties_only == counts[r] else
                  f" ({ties_only} of them only in the order of tied scores)")
        warnings.warn(f"run {run_labels[r]}: its rank column and its scores order the "
                      f"documents differently in {counts[r]} of {n_topics[r]} topics{detail}; "
                      f"ranked by {used} (order='rank', --order rank on the command line, "
                      "follows the rank column; order='score-docno-desc' the scores)",
                      XdivWarning, stacklevel=4)


def label_codes(column: pd.Series) -> tuple[list[str], np.ndarray]:
    """Natural-ordered string labels of ``column`` and each row's code into them.

    Categorical columns use their codes; other columns are run-length encoded first (run
    files are grouped by topic), so only the heads of runs of equal values are hashed.
    """
    if isinstance(column.dtype, pd.CategoricalDtype):
        categories = np.asarray([str(c) for c in column.cat.categories], dtype=object)
        codes = column.cat.codes.to_numpy()
        heads_codes, heads = codes, categories
    else:
        values = column.to_numpy(dtype=object)
        change = np.r_[True, values[1:] != values[:-1]] if len(values) else np.zeros(0, bool)
        starts = np.flatnonzero(change)
        head_codes, heads = pd.factorize(values[starts].astype(str))
        codes = np.repeat(head_codes, np.diff(np.r_[starts, len(values)]))
        heads = np.asarray(heads, dtype=object)
        heads_codes = codes
    present = heads[np.unique(heads_codes)] if len(heads_codes) else heads[:0]
    labels = natural_sorted(present)
    remap = pd.Index(labels).get_indexer(heads)
    return labels, remap[codes].astype(np.int64)


def _ranking_order(r_code, t_code, primary, score) -> np.ndarray:
    """Permutation sorting rows by run, topic, then ``primary`` ascending (if given) and
    score descending; the identity when the rows are already in that order."""
    group = r_code * (int(t_code.max(initial=0)) + 1) + t_code
    same = group[1:] == group[:-1]
    in_order = bool((group[1:] >= group[:-1]).all())
    if in_order and primary is None:
        in_order = bool((score[1:][same] <= score[:-1][same]).all())
    elif in_order:
        a, b = primary[:-1][same], primary[1:][same]
        in_order = bool(((b > a) | ((b == a) & (score[1:][same] <= score[:-1][same]))).all())
    if in_order:
        return np.arange(len(group))
    keys = (-score, group) if primary is None else (-score, primary, group)
    return np.lexsort(keys)


_MIX = np.uint64(0x9E3779B97F4A7C15)


def hashed_keys(group: np.ndarray, strings: np.ndarray) -> np.ndarray:
    """64-bit keys of (group, string) pairs: equal pairs give equal keys; unequal pairs
    almost never do, and every use below confirms a key match on the strings."""
    hashes = np.fromiter(map(hash, strings), dtype=np.int64, count=len(strings))
    with np.errstate(over="ignore"):
        return hashes.view(np.uint64) ^ (group.astype(np.uint64) * _MIX)


def _duplicates(group: np.ndarray, docno: np.ndarray) -> np.ndarray:
    """Rows repeating an earlier row's (group, docno); a sort of 64-bit keys proves the
    common case of no duplicate, an exact pass runs only when keys coincide."""
    ordered = np.sort(hashed_keys(group, docno))
    if not (ordered[1:] == ordered[:-1]).any():
        return np.zeros(len(group), dtype=bool)
    return pd.DataFrame({"g": group, "d": docno}).duplicated(keep="first").to_numpy()


def _break_ties_by_docno(sort, r_code, t_code, keys, docno, *, descending):
    """Reorder, by docno, the rows of ``sort`` that tie on run, topic and every key; only
    the docnos of tied rows are compared as strings."""
    fields = [r_code[sort], t_code[sort]] + [k[sort] for k in keys]
    same = np.ones(len(sort) - 1, dtype=bool) if len(sort) > 1 else np.zeros(0, dtype=bool)
    for f in fields:
        same &= f[1:] == f[:-1]
    if not same.any():
        return sort
    in_tie = np.zeros(len(sort), dtype=bool)
    in_tie[1:] |= same
    in_tie[:-1] |= same
    tie_group = np.cumsum(np.r_[True, ~same])  # one id per run of tied rows
    rows = np.flatnonzero(in_tie)
    codes, uniques = pd.factorize(docno[sort[rows]])
    rank = np.empty(len(uniques), dtype=np.int64)
    rank[np.argsort(np.asarray(uniques, dtype=object))] = np.arange(len(uniques))
    by_docno = rank[codes]
    order = np.lexsort((-by_docno if descending else by_docno, tie_group[rows]))
    out = sort.copy()
    out[rows] = sort[rows][order]
    return out


def runs_frame(runs: xr.Dataset) -> pd.DataFrame:
    """Runs as a tidy frame (``run topic docno rank score``), one row per retrieved doc."""
    mask = runs["docno"].values != ""
    r, t, k = np.nonzero(mask)
    return pd.DataFrame({
        "run": runs["run"].values[r],
        "topic": runs["topic"].values[t],
        "docno": runs["docno"].values[r, t, k],
        "rank": runs["rank"].values[k],
        "score": runs["score"].values[r, t, k],
    })


def write_run(path, runs: xr.Dataset | pd.DataFrame) -> None:
    """Write runs (a Runs dataset or a tidy ``run topic docno rank score`` frame) as a
    TREC 6-column file; ranks are written 1..n in the dataset's order."""
    frame = runs_frame(runs) if isinstance(runs, xr.Dataset) else runs
    _io.write_run(path, frame)


# ---------------------------------------------------------------------------- judging

class DocnoTable:
    """The judged (topic, docno) pairs of a collection, for vectorised lookups.

    Lookups hash each run docno once (Python's cached string hash), find the key among
    the sorted collection keys and confirm the match on the strings, so the result is
    exact. Should two judged documents of a topic share a key, lookups go through pandas'
    exact factorisation instead.
    """

    def __init__(self, docno_grid: np.ndarray):
        topic, slot = np.nonzero(docno_grid != "")
        keys = hashed_keys(topic, docno_grid[topic, slot])
        order = np.argsort(keys, kind="stable")
        self.keys, self.topic, self.slot = keys[order], topic[order], slot[order]
        self.grid = docno_grid
        self.exact_keys = not (self.keys[1:] == self.keys[:-1]).any()
        self.index = pd.Index(self.keys) if self.exact_keys else None

    def slots(self, docno: np.ndarray, topic_index: np.ndarray) -> np.ndarray:
        """Collection slot of each (topic index, docno), -1 where not judged."""
        if len(self.keys) == 0:
            return np.full(len(docno), -1, dtype=np.int32)
        if not self.exact_keys:
            return self._slots_by_factorising(docno, topic_index)
        pos = self.index.get_indexer(hashed_keys(topic_index, docno))
        found = (pos >= 0) & (topic_index >= 0)
        hit = np.flatnonzero(found)
        same = self.grid[self.topic[pos[hit]], self.slot[pos[hit]]] == docno[hit]
        found[hit[~same]] = False
        return np.where(found, self.slot[pos], -1).astype(np.int32)

    def _slots_by_factorising(self, docno, topic_index):
        judged = self.grid[self.topic, self.slot]
        codes, _ = pd.factorize(np.concatenate([judged, docno]))
        table = pd.Series(self.slot, index=pd.MultiIndex.from_arrays(
            [self.topic, codes[:len(judged)]]))
        wanted = pd.MultiIndex.from_arrays([topic_index, codes[len(judged):]])
        return table.reindex(wanted).fillna(-1).to_numpy().astype(np.int32)


def _lookup_slots(docno, topic_index, table: DocnoTable):
    """Kernel: collection doc slot of each (topic, docno); -1 when not judged."""
    shape = np.broadcast_shapes(np.shape(docno), np.shape(topic_index))
    docno = np.broadcast_to(docno, shape).ravel()
    topic_index = np.broadcast_to(topic_index, shape).ravel()
    return table.slots(docno, topic_index).reshape(shape)


def _gather_levels(slot, level_tdi):
    """Kernel: per-intent levels ``(..., intent)`` of the docs at ``slot`` (topic last axis).

    ``slot`` has the topic as its last axis, ``level_tdi`` is ``(topic, doc, intent)``.
    """
    topic = np.arange(slot.shape[-1]).reshape((1,) * (slot.ndim - 1) + (-1,))
    topic = np.broadcast_to(topic, slot.shape)
    safe = np.where(slot >= 0, slot, 0)
    out = level_tdi[topic, safe]
    out[slot < 0] = 0
    return out


def check_runs(dataset, role: str = "runs") -> None:
    """Raise :class:`InputError` unless ``dataset`` is a Runs dataset (``docno`` and
    ``score`` over run, topic, rank)."""
    ok = (isinstance(dataset, xr.Dataset) and "docno" in dataset.variables
          and "score" in dataset.variables
          and set(dataset["docno"].dims) == {"run", "topic", "rank"})
    if not ok:
        raise InputError(f"{role}: expected a Runs dataset (from xdiv.read_runs or "
                         f"xdiv.build_runs), got {describe_dataset(dataset)}")


def judge(runs: xr.Dataset, collection: xr.Dataset, *, depth: int | None = None) -> xr.Dataset:
    """Join runs with a collection into the judged cube ``level(run, topic, rank, intent)``.

    Parameters
    ----------
    runs : xarray.Dataset
        A Runs dataset (may be dask-backed, chunked along ``run`` or ``topic``).
    collection : xarray.Dataset
        A collection dataset.
    depth : int, optional
        Keep only the top ``depth`` ranks (the measures' largest cutoff); all by default.

    Returns
    -------
    xarray.Dataset
        ``level``, ``judged``, ``slot`` over (run, topic, rank[, intent]), ``length`` and
        ``retrieved`` over (run, topic), and the collection's per-topic variables
        (``qrels_level``, ``qrels_judged``, ``intent_valid``, ``intent_prob``,
        ``intent_type``, ``intent_order``) aligned on the union of topics, and
        ``ideal_level(topic, intent, ideal_rank)``: each intent's judged levels sorted
        descending (its ideal ranked list), computed once and broadcast to every run. The attributes
        ``topics_not_in_qrels`` and ``topics_not_in_runs`` (JSON) report the alignment.
    """
    check_runs(runs, "judge: runs")
    check_collection(collection, "judge: collection")
    topics = natural_sorted(list(runs["topic"].values) + list(collection["topic"].values))
    if depth is not None:
        runs = runs.isel(rank=slice(0, max(int(depth), 1)))
    runs = _on_topics(runs, topics, {"docno": "", "score": np.nan, "length": 0})
    coll = _align_collection(collection, topics)

    table = DocnoTable(coll["docno"].values)
    topic_index = xr.DataArray(np.arange(len(topics), dtype=np.int64), dims="topic")

    slot = xr.apply_ufunc(
        _lookup_slots, runs["docno"], topic_index,
        kwargs={"table": table}, dask="parallelized", output_dtypes=[np.int32],
    )
    level = _judged_levels(slot, coll["qrels_level"], "intent")
    extra = {}
    if "node_level" in coll:  # hierarchy: node relevance of every ranked document
        extra["node_run_level"] = _judged_levels(slot, coll["node_level"], "node")
    if "doc_length" in coll:  # U-measures: length of every ranked (judged) document
        extra["run_doc_length"] = xr.apply_ufunc(
            _gather_values, slot.transpose("run", "rank", "topic"),
            kwargs={"values_td": coll["doc_length"].values}, input_core_dims=[["topic"]],
            output_core_dims=[["topic"]], dask="parallelized", output_dtypes=[np.float64],
            dask_gufunc_kwargs={"allow_rechunk": True}).transpose("run", "topic", "rank")
    cube = xr.Dataset(
        {
            **extra,
            "level": level,
            "judged": slot >= 0,
            "slot": slot,
            "length": runs["length"],
            "retrieved": runs["length"] > 0,
        }
    ).merge(coll)
    cube["ideal_level"] = xr.apply_ufunc(
        ideal_levels, coll["qrels_level"], input_core_dims=[["doc"]],
        output_core_dims=[["ideal_rank"]])
    cube.attrs = {"xdiv_kind": "judged", **_alignment_report(runs, coll, collection)}
    return cube


def _gather_values(slot, values_td):
    """Kernel: per-document values ``(topic, doc)`` at ``slot`` (topic last axis); 0 where
    unjudged."""
    topic = np.broadcast_to(np.arange(slot.shape[-1]), slot.shape)
    out = values_td[topic, np.where(slot >= 0, slot, 0)]
    return np.where(slot >= 0, out, 0.0)


def _judged_levels(slot: xr.DataArray, qrels: xr.DataArray, dim: str) -> xr.DataArray:
    """Levels ``(run, topic, rank, dim)`` of the ranked documents, gathered by ``slot`` from
    the collection's ``qrels(topic, dim, doc)``."""
    level_tdi = np.ascontiguousarray(np.moveaxis(qrels.values, 1, 2))
    return xr.apply_ufunc(
        _gather_levels, slot.transpose("run", "rank", "topic"),
        kwargs={"level_tdi": level_tdi},
        input_core_dims=[["topic"]], output_core_dims=[["topic", dim]],
        dask="parallelized", output_dtypes=[np.int8],
        dask_gufunc_kwargs={"output_sizes": {dim: qrels.sizes[dim]}, "allow_rechunk": True},
    ).transpose("run", "topic", "rank", dim)


def _alignment_report(runs: xr.Dataset, coll: xr.Dataset, collection: xr.Dataset) -> dict:
    """Topics retrieved but not judged, and judged topics (with relevant docs) a run lacks."""
    known = set(map(str, collection["topic"].values))
    retrieved = runs["length"].values > 0
    topics = runs["topic"].values
    unjudged = [str(t) for t in topics[retrieved.any(axis=0)] if str(t) not in known]
    has_rel = coll["intent_valid"].values.any(axis=1)
    lacking = {str(r): [str(t) for t in topics[has_rel & ~retrieved[i]]]
               for i, r in enumerate(runs["run"].values)}
    return {"topics_not_in_qrels": to_json(unjudged),
            "topics_not_in_runs": to_json({r: v for r, v in lacking.items() if v})}


def _on_topics(dataset: xr.Dataset, topics: list[str], fill: dict) -> xr.Dataset:
    """``dataset`` on the ``topics`` labels: a cheap selection when it has them all, a
    reindex with ``fill`` values otherwise."""
    index = pd.Index(dataset["topic"].values).get_indexer(topics)
    if (index >= 0).all():
        if np.array_equal(index, np.arange(dataset.sizes["topic"])):
            return dataset
        return dataset.isel(topic=index)
    return dataset.reindex(topic=object_strings(topics), fill_value=fill)


OPTIONAL_FILL = {"doc_length": 0.0, "node_exists": False, "node_layer": 0, "node_leaf": False,
                 "node_intent": "", "node_weight": 0.0, "node_covers": False, "node_level": 0,
                 "layer_weight": 0.0}
"""Optional collection variables (document lengths, hierarchies) a judged cube carries when
the collection has them, with their fill values for topics the collection lacks."""


def _align_collection(collection: xr.Dataset, topics: list[str]) -> xr.Dataset:
    """The per-topic collection variables a measure needs, reindexed on ``topics``."""
    fill = {"level": 0, "judgment": ABSENT, "judged": False, "intent_valid": False,
            "intent_prob": 0.0, "intent_type": "", "intent_order": -1, "docno": "",
            **OPTIONAL_FILL}
    names = ["level", "judged", "intent_valid", "intent_prob", "intent_type", "intent_order"]
    sub = collection[names + [n for n in OPTIONAL_FILL if n in collection]]
    sub = _on_topics(sub, topics, fill)
    if sub["docno"].dtype.kind == "O":
        sub = sub.assign_coords(docno=sub["docno"].fillna(""))
    return sub.rename({"level": "qrels_level", "judged": "qrels_judged"})
