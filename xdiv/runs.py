"""The run model (``run × topic × rank``) and the judged run cube.

A **Runs** dataset has the dimensions ``run``, ``topic``, ``rank`` (1-based) and
``docid``. Documents are integer codes into a vocabulary of the dataset's docnos:

``doc(run, topic, rank)``
    int32 code of the ranked document (-1 in padding): its docno is ``docno[code]``.
``docno(docid)``
    coordinate: the distinct docnos of the dataset, sorted ascending, so that code order
    is docno order (ties are broken, and duplicates found, on the codes).
``score(run, topic, rank)``
    float64 (NaN in padding).
``length(run, topic)``
    the number of documents retrieved.

:func:`decode_docnos` gives the docno strings over ``(run, topic, rank)``. Ranks follow the
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
on the union of the runs' and the collection's topics. The collection's judged docnos are
mapped into the run vocabulary once; the join is then a vectorised search of integer
(topic, code) keys (no Python loop per document) and works on dask-chunked runs.
"""

from __future__ import annotations

import warnings
from typing import Literal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import xarray as xr

from . import io as _io
from .collection import describe_dataset, check_collection, group_positions
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

__all__ = ["build_runs", "decode_docnos", "runs_frame", "judge", "write_run"]


def build_runs(frame: pd.DataFrame, *, order: Order = "score-docno-desc",
               duplicates: Duplicates = "error") -> xr.Dataset:
    """Build a Runs dataset from a tidy frame.

    The docnos are factorised once into a vocabulary sorted ascending; ranking, tie-breaking
    by docno and the detection of duplicates then work on the integer codes.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns ``run``, ``topic``, ``docno`` (strings, or a categorical whose categories
        are the docnos) and ``score`` and, for ``order="rank"``, ``rank``.
    order, duplicates
        As in :func:`read_run`.

    Returns
    -------
    xarray.Dataset
        A Runs dataset (see :mod:`xdiv.runs`).

    Raises
    ------
    InputError
        A column is lacking, the frame is empty, a docno is missing, a score is not a
        finite number (or, for ``order="rank"``, a rank is not a number), or a docno is
        retrieved twice for a topic while ``duplicates="error"``.
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
    vocabulary, code = docno_codes(frame["docno"])
    try:
        score = frame["score"].to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("run scores must be numbers") from None
    run_labels, r_code = label_codes(frame["run"])
    topic_labels, t_code = label_codes(frame["topic"])
    rank = frame["rank"].to_numpy(dtype=np.float64) if "rank" in frame.columns else None
    shape = (len(run_labels), len(topic_labels))
    doc_grid, score_grid, length = _ranked_grids(
        r_code, t_code, code, score, rank, shape, order=order, duplicates=duplicates,
        run_labels=run_labels, topic_labels=topic_labels, docno_of=vocabulary.__getitem__)
    return _runs_dataset(doc_grid, score_grid, length, run_labels, topic_labels, vocabulary,
                         order)


def _ranked_grids(r_code, t_code, code, score, rank, shape, *, order, duplicates, run_labels,
                  topic_labels, docno_of, warn=True):
    """The ``doc``, ``score`` and ``length`` grids of rows given as integer codes: the rows
    are checked, ranked by ``order`` (ties by docno code), checked for repeated documents
    and laid out ``shape + (depth,)``. ``docno_of(code)`` names a docno in messages;
    ``warn=False`` leaves out the warnings (not the errors)."""

    def row(k: int) -> str:
        """Run, topic and docno of row ``k``, for messages."""
        return (f"run {run_labels[r_code[k]]} topic {topic_labels[t_code[k]]} "
                f"docno {docno_of(code[k])}")

    bad = ~np.isfinite(score)
    if bad.any():
        k = int(np.argmax(bad))
        raise InputError(f"{row(k)}: score {score[k]} is not finite")

    if order == "rank":
        bad_rank = ~np.isfinite(rank)
        if bad_rank.any():
            k = int(np.argmax(bad_rank))
            raise InputError(f"{row(k)}: rank {rank[k]} is not a number")
    primary = rank if order == "rank" else None
    ties = (score,) if primary is None else (primary, score)
    sort = _ranking_order(r_code, t_code, primary, score)
    sort = _break_ties_by_docno(sort, r_code, t_code, ties, code,
                                descending=order != "score-docno-asc")
    if not np.array_equal(sort, np.arange(len(sort))):  # rows not given in rank order
        r_code, t_code, score, code = r_code[sort], t_code[sort], score[sort], code[sort]
        rank = None if rank is None else rank[sort]
    if rank is not None and warn:
        _warn_rank_disagreement(rank, score, code, r_code, t_code, run_labels, order)

    doc_grid, score_grid, length = _grids(r_code, t_code, code, score, shape)
    if _has_repeats(doc_grid):
        dup = _duplicates(r_code * shape[1] + t_code, code, int(code.max()) + 1)
        listed = [row(k) for k in np.flatnonzero(dup)[:5]]
        more = f" (and {int(dup.sum()) - 5} more)" if dup.sum() > 5 else ""
        if duplicates == "error":
            raise InputError("a docno is retrieved more than once for a topic: "
                             + "; ".join(listed) + more
                             + " (duplicates='first' in Python, --duplicates first on the "
                               "command line, keeps the highest-ranked one)")
        if warn:
            warnings.warn("kept only the highest-ranked occurrence of duplicated documents: "
                          + "; ".join(listed) + more, XdivWarning, stacklevel=2)
        keep = ~dup
        doc_grid, score_grid, length = _grids(r_code[keep], t_code[keep], code[keep],
                                              score[keep], shape)
    return doc_grid, score_grid, length


def _runs_dataset(doc_grid, score_grid, length, run_labels, topic_labels, vocabulary,
                  order) -> xr.Dataset:
    return xr.Dataset(
        {
            "doc": (("run", "topic", "rank"), doc_grid),
            "score": (("run", "topic", "rank"), score_grid),
            "length": (("run", "topic"), length),
        },
        coords={"run": object_strings(run_labels), "topic": object_strings(topic_labels),
                "rank": np.arange(1, doc_grid.shape[-1] + 1, dtype=np.int64),
                "docno": ("docid", vocabulary)},
        attrs={"xdiv_kind": "runs", "order": order},
    )


def _warn_rank_disagreement(rank, score, code, r_code, t_code, run_labels, order) -> None:
    """Warn, once per run, about the topics where the rank column and the scores (ties by
    docno descending) put the documents in different orders: trec_eval, gdeval and
    ``ndeval -traditional`` follow the scores, ndeval by default the rank column.

    The rows come in the order ``order`` ranks them. Ranked by score, the two rankings
    agree when the rank column never decreases (equal ranks fall back on the scores);
    ranked by the rank column, when each document outscores the next, or ties with it and
    has the larger docno (the larger code: code order is docno order). Topics where they
    differ only in the order of tied scores are counted apart.
    """
    if len(rank) < 2:
        return
    same = (r_code[1:] == r_code[:-1]) & (t_code[1:] == t_code[:-1])
    tie = score[1:] == score[:-1]
    if order == "rank":
        differ = same & (score[1:] >= score[:-1])
        tied = np.flatnonzero(differ & tie)
        differ[tied] = code[tied + 1] > code[tied]
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


def docno_codes(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """The sorted vocabulary of a docno column and each row's code into it.

    A categorical column gives its codes; other columns are factorised once. The distinct
    docnos (as strings) are then sorted once and the codes remapped with a take, so that
    code order is docno order.

    Parameters
    ----------
    column : pandas.Series
        Docnos: strings, or a categorical.

    Returns
    -------
    vocabulary : numpy.ndarray
        The distinct docnos, a 1-d object array of ``str`` sorted ascending.
    codes : numpy.ndarray
        int32 code of each row into ``vocabulary``.

    Raises
    ------
    InputError
        A docno is missing (None or NaN).
    """
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy()
        uniques = column.cat.categories
    else:
        codes, uniques = pd.factorize(column)
    missing = codes < 0
    if missing.any():
        raise InputError(f"run frame row {int(np.argmax(missing))}: the docno is missing")
    # only the values present (categories may go unused), as strings; values that differ
    # but read the same (1 and "1") become one docno
    present = np.flatnonzero(np.bincount(codes, minlength=len(uniques)))
    text = np.asarray(pd.Index(uniques).take(present), dtype=object)
    if pd.api.types.infer_dtype(text, skipna=False) != "string":
        text = object_strings(text)
    by_text = np.asarray(pd.Index(text, dtype="str").argsort())  # by code point
    ordered = text[by_text]
    new = np.r_[True, ordered[1:] != ordered[:-1]]
    remap = np.empty(len(uniques), dtype=np.int32)
    remap[present[by_text]] = np.cumsum(new) - 1
    return ordered[new], remap[codes]


def label_codes(column: pd.Series) -> tuple[list[str], np.ndarray]:
    """Natural-ordered string labels of ``column`` and each row's code into them.

    Categorical columns use their codes; other columns are run-length encoded first (run
    files are grouped by topic), so only the heads of runs of equal values are hashed.
    """
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy()
        if (codes < 0).any():
            raise InputError(f"run frame row {int(np.argmax(codes < 0))}: the "
                             f"{column.name} is missing")
        heads = np.asarray([str(c) for c in column.cat.categories], dtype=object)
        present = heads[np.flatnonzero(np.bincount(codes, minlength=len(heads)))]
    else:
        values = column.array  # compared in C, whether Python objects or pandas strings
        change = np.ones(len(values), dtype=bool)
        change[1:] = np.asarray(values[1:] != values[:-1], dtype=bool)
        starts = np.flatnonzero(change)
        head_codes, heads = pd.factorize(np.asarray(values.take(starts), dtype=object)
                                         .astype(str))
        codes = np.repeat(head_codes, np.diff(np.r_[starts, len(values)]))
        heads = present = np.asarray(heads, dtype=object)
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


def _grids(r_code, t_code, code, score, shape) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The padded ``doc`` (-1) and ``score`` (NaN) grids ``shape + (depth,)`` of ranked rows
    (grouped by run and topic, in rank order), and the ``length`` of each group."""
    group = r_code * shape[1] + t_code
    position = group_positions(group)
    length = np.bincount(group, minlength=shape[0] * shape[1]).reshape(shape)
    depth = max(int(length.max()), 1)
    doc_grid = np.full(shape + (depth,), -1, dtype=np.int32)
    score_grid = np.full(shape + (depth,), np.nan)
    doc_grid[r_code, t_code, position] = code
    score_grid[r_code, t_code, position] = score
    return doc_grid, score_grid, length.astype(np.int64)


def _has_repeats(doc_grid: np.ndarray) -> bool:
    """Whether a docno code occurs twice in one (run, topic): the grid's rows are sorted
    (short rows of small integers, a fast sort) and neighbours compared."""
    ordered = np.sort(doc_grid, axis=-1)
    return bool(((ordered[..., 1:] == ordered[..., :-1]) & (ordered[..., 1:] >= 0)).any())


def _duplicates(group: np.ndarray, code: np.ndarray, width: int) -> np.ndarray:
    """Rows repeating an earlier row's (group, docno code), by a stable sort of the integer
    keys ``group * width + code`` (``width`` the vocabulary size)."""
    keys = group.astype(np.int64) * width + code
    by_key = np.argsort(keys, kind="stable")
    dup = np.zeros(len(keys), dtype=bool)
    dup[by_key[1:][keys[by_key][1:] == keys[by_key][:-1]]] = True
    return dup


def _break_ties_by_docno(sort, r_code, t_code, keys, code, *, descending):
    """Reorder, by docno code (the docno order), the rows of ``sort`` that tie on run, topic
    and every key; only the tied rows are sorted again."""
    same = np.ones(max(len(sort) - 1, 0), dtype=bool)
    for field in (r_code, t_code, *keys):
        ranked = field[sort]
        same &= ranked[1:] == ranked[:-1]
    if not same.any():
        return sort
    in_tie = np.zeros(len(sort), dtype=bool)
    in_tie[1:] |= same
    in_tie[:-1] |= same
    tie_group = np.cumsum(np.r_[True, ~same])  # one id per run of tied rows
    rows = np.flatnonzero(in_tie)
    by_docno = code[sort[rows]]
    width = int(code.max()) + 1
    # one integer key per row: its tie group, then its docno code (the rows come grouped,
    # so the stable sort mostly merges ordered runs)
    key = tie_group[rows] * width + (width - 1 - by_docno if descending else by_docno)
    order = np.argsort(key, kind="stable")
    out = sort.copy()
    out[rows] = sort[rows][order]
    return out


def decode_docnos(runs: xr.Dataset) -> xr.DataArray:
    """The docno of every ranked document, ``""`` in padding.

    Parameters
    ----------
    runs : xarray.Dataset
        A Runs dataset (may be dask-backed; the result is then lazy too).

    Returns
    -------
    xarray.DataArray
        ``docno(run, topic, rank)``, Python strings (an object array).
    """
    check_runs(runs, "decode_docnos")
    table = np.append(np.asarray(runs["docno"].values, dtype=object), "")  # -1 reads ""
    return xr.apply_ufunc(_decode, runs["doc"], kwargs={"table": table},
                          dask="parallelized", output_dtypes=[object]).rename("docno")


def _decode(doc: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Kernel: ``table[doc]``, where the last entry of ``table`` is the padding's ``""``."""
    return table[doc]


def runs_frame(runs: xr.Dataset) -> pd.DataFrame:
    """Runs as a tidy frame (``run topic docno rank score``), one row per retrieved doc.

    Parameters
    ----------
    runs : xarray.Dataset
        A Runs dataset.

    Returns
    -------
    pandas.DataFrame
        The rows in run, topic and rank order; ``docno`` holds the decoded docno strings.
    """
    check_runs(runs, "runs_frame")
    doc = runs["doc"].transpose("run", "topic", "rank").values
    r, t, k = np.nonzero(doc >= 0)
    vocabulary = np.asarray(runs["docno"].values, dtype=object)
    return pd.DataFrame({
        "run": runs["run"].values[r],
        "topic": runs["topic"].values[t],
        "docno": vocabulary[doc[r, t, k]],
        "rank": runs["rank"].values[k],
        "score": runs["score"].transpose("run", "topic", "rank").values[r, t, k],
    })


def write_run(path, runs: xr.Dataset | pd.DataFrame) -> None:
    """Write runs (a Runs dataset or a tidy ``run topic docno rank score`` frame) as a
    TREC 6-column file; ranks are written 1..n in the dataset's order."""
    frame = runs_frame(runs) if isinstance(runs, xr.Dataset) else runs
    _io.write_run(path, frame)


# ---------------------------------------------------------------------------- judging

def _judged_keys(vocabulary: np.ndarray, docno_grid: np.ndarray) -> dict:
    """The collection's judged (topic, docno) pairs, indexed by the runs' docno codes.

    Each judged docno is looked up once in the run vocabulary (a hash join of the two
    string columns); docnos no run retrieved cannot match a ranked document and are
    left out.

    Parameters
    ----------
    vocabulary : numpy.ndarray
        The runs' ``docno(docid)``, sorted ascending.
    docno_grid : numpy.ndarray
        The collection's ``docno(topic, doc)`` (``""`` in padding) on the runs' topics.

    Returns
    -------
    dict
        The keyword arguments of :func:`_lookup_slots`: the judged pairs sorted by code
        then topic (``topics`` and their collection ``slots``), and ``starts``: the pairs
        of code ``c`` are ``starts[c]:starts[c + 1]`` (padding's -1 reads an empty range).
    """
    width = len(vocabulary)
    topic, slot = np.nonzero(docno_grid != "")
    judged = pc.dictionary_encode(pa.array(np.asarray(docno_grid[topic, slot], dtype=object),
                                           pa.string()))
    # the vocabulary is searched in the judged docnos (hashing the smaller side)
    where = pc.index_in(pa.array(np.asarray(vocabulary, dtype=object), pa.string()),
                        value_set=judged.dictionary)
    code_of = np.full(len(judged.dictionary), -1, dtype=np.int64)
    code_of[where.drop_null().to_numpy()] = np.flatnonzero(~np.asarray(where.is_null()))
    code = code_of[judged.indices.to_numpy(zero_copy_only=False)]
    inside = code >= 0
    topic, slot, code = topic[inside], slot[inside], code[inside]
    by_code = np.lexsort((topic, code))
    starts = np.searchsorted(code[by_code], np.arange(width + 2)).astype(np.int32)
    return {"topics": np.append(topic[by_code], -1).astype(np.int32),
            "slots": np.append(slot[by_code], -1).astype(np.int32),
            "starts": starts, "steps": int(np.diff(starts).max(initial=0)).bit_length()}


def _lookup_slots(doc, topic_index, *, topics, slots, starts, steps):
    """Kernel: collection doc slot of each (topic, doc code); -1 when not judged or in
    padding. A binary search, vectorised over the documents, among the few topics for
    which the document's code is judged (``steps`` halvings reach any of them; none is
    needed when no docno is judged for two topics, the common case)."""
    shape = np.broadcast_shapes(np.shape(doc), np.shape(topic_index))
    code = np.broadcast_to(doc, shape)
    topic = np.broadcast_to(topic_index, shape)
    code = np.where(code < 0, len(starts) - 2, code)  # padding: an empty range
    lo, hi = starts[code], starts[code + 1]
    if steps > 1:
        for _ in range(steps):
            mid = (lo + hi) // 2
            before = topics[np.minimum(mid, len(topics) - 1)] < topic
            open_ = lo < hi
            lo = np.where(open_ & before, mid + 1, lo)
            hi = np.where(open_ & ~before, mid, hi)
        hi = starts[code + 1]
    at = np.minimum(lo, len(topics) - 1)
    return np.where((lo < hi) & (topics[at] == topic), slots[at], np.int32(-1))


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
    """Raise :class:`InputError` unless ``dataset`` is a Runs dataset.

    The schema of :mod:`xdiv.runs` is checked: integer ``doc`` and numeric ``score`` over
    run, topic and rank, ``length`` over run and topic, a ``docno`` vocabulary of strings along
    ``docid`` sorted ascending without repeats, and (for data in memory, not dask-backed)
    codes from -1 to the vocabulary size minus one.

    Parameters
    ----------
    dataset : object
        What to check.
    role : str
        The argument's name, at the start of the message (e.g. ``"judge: runs"``).
    """
    variables = set(dataset.variables) if isinstance(dataset, xr.Dataset) else set()
    if not {"doc", "docno", "score", "length"} <= variables:
        if "docno" in variables and set(dataset["docno"].dims) == {"run", "topic", "rank"}:
            raise InputError(f"{role}: a Runs dataset of an older xdiv (docno strings over "
                             "run, topic and rank, no doc codes); read the run files again "
                             "with xdiv.read_runs, or rebuild it with xdiv.build_runs")
        raise InputError(f"{role}: expected a Runs dataset (from xdiv.read_runs or "
                         f"xdiv.build_runs), got {describe_dataset(dataset)}")
    for name, dims in (("doc", ("run", "topic", "rank")), ("score", ("run", "topic", "rank")),
                       ("length", ("run", "topic")), ("docno", ("docid",))):
        held = dataset[name].dims
        if len(held) != len(dims) or set(held) != set(dims):
            raise InputError(f"{role}: its {name} variable has the dimensions "
                             f"({', '.join(map(str, held))}), not ({', '.join(dims)})")
    if dataset["doc"].dtype.kind not in "iu":
        raise InputError(f"{role}: its doc variable holds {dataset['doc'].dtype}, not "
                         "integer codes into the docno vocabulary")
    if dataset["score"].dtype.kind not in "fiu":
        raise InputError(f"{role}: its score variable holds {dataset['score'].dtype}, not "
                         "numbers")
    vocabulary = dataset["docno"].values
    if vocabulary.dtype.kind != "U" and pd.api.types.infer_dtype(
            vocabulary, skipna=False) not in ("string", "empty"):
        raise InputError(f"{role}: its docno vocabulary holds "
                         f"{pd.api.types.infer_dtype(vocabulary, skipna=False)} values, "
                         "not strings")
    ascending = vocabulary[1:] > vocabulary[:-1]
    if not ascending.all():
        k = int(np.argmin(ascending)) + 1
        raise InputError(f"{role}: its docno vocabulary is not sorted ascending without "
                         f"repeats: docno {vocabulary[k]} (docid {k}) follows "
                         f"{vocabulary[k - 1]}")
    doc = dataset["doc"]
    if isinstance(doc.data, np.ndarray) and doc.size:
        outside = (doc.values < -1) | (doc.values >= len(vocabulary))
        if outside.any():
            at = dict(zip(doc.dims, np.unravel_index(np.argmax(outside), doc.shape)))
            raise InputError(f"{role}: doc code {doc.values.flat[np.argmax(outside)]} at run "
                             f"{dataset['run'].values[at['run']]} topic "
                             f"{dataset['topic'].values[at['topic']]} rank "
                             f"{dataset['rank'].values[at['rank']]} is outside the docno "
                             f"vocabulary (-1 in padding, else 0 to {len(vocabulary) - 1})")


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
        (``qrels_level``, ``qrels_assessed``, ``intent_valid``, ``intent_prob``,
        ``intent_type``, ``intent_order``) aligned on the union of topics, and
        ``ideal_level(topic, intent, ideal_rank)``: each intent's judged levels sorted
        descending (its ideal ranked list), computed once and broadcast to every run. The
        attributes ``topics_not_in_qrels`` and ``topics_not_in_runs`` (JSON) report the alignment.
    """
    check_runs(runs, "judge: runs")
    check_collection(collection, "judge: collection")
    topics = natural_sorted(list(runs["topic"].values) + list(collection["topic"].values))
    if depth is not None:
        runs = runs.isel(rank=slice(0, max(int(depth), 1)))
    runs = _on_topics(runs, topics, {"doc": -1, "score": np.nan, "length": 0})
    coll = _align_collection(collection, topics)

    topic_index = xr.DataArray(np.arange(len(topics), dtype=np.int64), dims="topic")
    slot = xr.apply_ufunc(
        _lookup_slots, runs["doc"], topic_index,
        kwargs=_judged_keys(runs["docno"].values, coll["docno"].values),
        dask="parallelized", output_dtypes=[np.int32],
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
    """The per-topic collection variables a measure needs, reindexed on ``topics``.

    ``qrels_assessed(topic, doc)`` marks the documents with a qrels line of level >= 0: a
    document whose lines are all negative (TREC's spam -2) is, as trec_eval reads it, in
    the pool but unjudged (for bpref).
    """
    fill = {"level": 0, "assessed": False, "intent_valid": False, "intent_prob": 0.0,
            "intent_type": "", "intent_order": -1, "docno": "", **OPTIONAL_FILL}
    names = ["level", "intent_valid", "intent_prob", "intent_type", "intent_order"]
    sub = collection[names + [n for n in OPTIONAL_FILL if n in collection]].assign(
        assessed=(collection["judgment"] >= 0).any("intent"))
    sub = _on_topics(sub, topics, fill)
    if sub["docno"].dtype.kind == "O":
        sub = sub.assign_coords(docno=sub["docno"].fillna(""))
    return sub.rename({"level": "qrels_level", "assessed": "qrels_assessed"})
