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


import numpy as np
import pandas as pd
import xarray as xr

from .collection import group_positions
from ..errors import InputError, XdivWarning
from .labels import natural_sorted, object_strings
from .judge import check_runs
from .._warnings import warn as emit_warning
from ..typing import DUPLICATES, ORDERS, Duplicates, Order

ORDER_HELP = ("ranking of a run's documents: by score, ties by docno descending (trec_eval, "
              "gdeval, ndeval -traditional), by score with ties by docno ascending "
              "(pyndeval), or by the rank column (ndeval's default), ties by score")
"""The ranking conventions in one sentence, for help texts."""

__all__ = ["build_runs", "decode_docnos", "runs_frame"]


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
        A Runs dataset (see :mod:`xdiv.core.runs`).

    Raises
    ------
    InputError
        A column is lacking, the frame is empty, a docno is missing, a score is not a
        finite number (or, for ``order="rank"``, a rank is not a number), or a docno is
        retrieved twice for a topic while ``duplicates="error"``.
    """
    if order not in ORDERS:
        raise InputError(f"order must be one of {ORDERS}, not {order!r}")
    if duplicates not in DUPLICATES:
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
    doc_grid, score_grid, length = ranked_grids(
        r_code, t_code, code, score, rank, shape, order=order, duplicates=duplicates,
        run_labels=run_labels, topic_labels=topic_labels, docno_of=vocabulary.__getitem__)
    return runs_dataset(doc_grid, score_grid, length, run_labels, topic_labels, vocabulary,
                         order)


def ranked_grids(r_code, t_code, code, score, rank, shape, *, order, duplicates, run_labels,
                 topic_labels, docno_of, warn=True, disagreements=None):
    """The ``doc``, ``score`` and ``length`` grids of rows given as integer codes: the rows
    are checked, ranked by ``order`` (ties by docno code), checked for repeated documents
    and laid out ``shape + (depth,)``. ``docno_of(code)`` names a docno in messages;
    ``warn=False`` leaves out the warnings (not the errors). Runs whose rank column and
    scores disagree are appended to the list ``disagreements`` (see
    :func:`rank_disagreements`), for one warning per run set
    (:func:`warn_rank_disagreements`); without a list they are warned about at once."""

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
        found = rank_disagreements(rank, score, code, r_code, t_code, run_labels, order)
        if disagreements is None:
            warn_rank_disagreements(found, order)
        else:
            disagreements.extend(found)

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
            emit_warning("kept only the highest-ranked occurrence of duplicated documents: "
                          + "; ".join(listed) + more, XdivWarning)
        keep = ~dup
        doc_grid, score_grid, length = _grids(r_code[keep], t_code[keep], code[keep],
                                              score[keep], shape)
    return doc_grid, score_grid, length


def runs_dataset(doc_grid, score_grid, length, run_labels, topic_labels, vocabulary,
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


def rank_disagreements(rank, score, code, r_code, t_code, run_labels,
                       order) -> list[tuple[str, int, int, int]]:
    """The runs whose rank column and scores (ties by docno descending) put the documents
    in different orders, as ``(run, topics, topics differing only in tied scores, topics
    retrieved)``: trec_eval, gdeval and ``ndeval -traditional`` follow the scores, ndeval
    by default the rank column.

    The rows come in the order ``order`` ranks them. Ranked by score, the two rankings
    agree when the rank column never decreases (equal ranks fall back on the scores);
    ranked by the rank column, when each document outscores the next, or ties with it and
    has the larger docno (the larger code: code order is docno order).
    """
    if len(rank) < 2:
        return []
    same = (r_code[1:] == r_code[:-1]) & (t_code[1:] == t_code[:-1])
    tie = score[1:] == score[:-1]
    if order == "rank":
        differ = same & (score[1:] >= score[:-1])
        tied = np.flatnonzero(differ & tie)
        differ[tied] = code[tied + 1] > code[tied]
    else:
        differ = same & (rank[1:] < rank[:-1])
    if not differ.any():
        return []
    width = int(t_code.max()) + 1
    n_topics = np.bincount(r_code[np.r_[True, ~same]], minlength=len(run_labels))

    def topics_per_run(pairs: np.ndarray) -> np.ndarray:
        keys = np.unique(r_code[pairs].astype(np.int64) * width + t_code[pairs])
        return np.bincount(keys // width, minlength=len(run_labels))

    counts = topics_per_run(np.flatnonzero(differ))
    contradicted = topics_per_run(np.flatnonzero(differ & ~tie))
    return [(str(run_labels[r]), int(counts[r]), int(counts[r] - contradicted[r]),
             int(n_topics[r])) for r in np.flatnonzero(counts)]


def warn_rank_disagreements(found: list[tuple[str, int, int, int]], order: Order) -> None:
    """One short warning for all the runs of :func:`rank_disagreements`."""
    if not found:
        return
    shown = ", ".join(f"{run} {n}/{total}" + (" (ties only)" if ties == n else "")
                      for run, n, ties, total in found[:3])
    more = f" and {len(found) - 3} more" if len(found) > 3 else ""
    used, other = (("rank column as ndeval does", "score-docno-desc") if order == "rank" else
                   ("score as trec_eval does", "rank"))
    emit_warning(f"{len(found)} run(s) rank some topics differently by rank column than by "
                 f"score (run topics/all): {shown}{more}; ranked by {used} "
                 f"(--order {other}, order={other!r}: the other)", XdivWarning)


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
