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

from ..errors import InputError
from .labels import natural_sorted, object_strings
from .judge import check_runs
from .ranking import (rank_disagreements, ranked_grids,  # noqa: F401  (re-exported)
                      warn_rank_disagreements)
from ..typing import DUPLICATES, ORDER_HELP, ORDERS, Duplicates, Order  # noqa: F401


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
