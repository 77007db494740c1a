"""TREC text formats: qrels, runs, intent probabilities and document lengths, read into tidy frames and written back."""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Iterable
from typing import TextIO
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError, ParseError, RunTagWarning
from ..core.collection import QrelsCodes
from ..core.labels import preview
from .atomic import atomic_output
from .._warnings import warn as emit_warning
from ._guard import BLANK, check_output_path, open_text
from ._columns import read_table, decode_strings, read_columns
from .ir_metadata import IR_METADATA_ATTR, leading_block, misplaced_marker

__all__ = ["read_qrels_frame", "read_qrels_codes", "RunColumns", "read_run_columns",
    "read_run_frame", "read_run_table", "line_numbers", "read_probabilities", "read_doc_lengths",
    "write_qrels_frame", "write_run_frame"]

PathLike = str | os.PathLike


def read_qrels_frame(path: PathLike) -> pd.DataFrame:
    """Read TREC qrels (``topic intent docno level``) into a tidy frame.

    Diversity qrels carry the intent (subtopic) number in the second column; adhoc qrels
    carry an iteration number (usually ``0``), read the same way as a single intent.

    Returns
    -------
    pandas.DataFrame
        Columns ``topic``, ``intent``, ``docno`` (str) and ``level`` (int64).
    """
    return read_table(path, QRELS_LAYOUT)


QRELS_LAYOUT = [("topic", "str"), ("intent", "str"), ("docno", "str"), ("level", "int")]
"""The columns of a TREC qrels file, for :func:`read_columns`."""


def read_qrels_codes(path: PathLike) -> QrelsCodes:
    """Read TREC qrels (``topic intent docno level``) as integer codes into their labels
    (what :func:`xdiv.core.collection.collection_from_codes` takes), the same lines as
    :func:`read_qrels_frame` reads, with Python strings made only for the distinct
    topics, intents and docnos."""
    table = read_columns(path, QRELS_LAYOUT)
    topic, intent, docno = table.pop("topic"), table.pop("intent"), table.pop("docno")
    if isinstance(docno, pa.ChunkedArray):
        docno = docno.combine_chunks()
    if isinstance(docno, pa.DictionaryArray):
        docno = docno.dictionary.take(docno.indices)
    # docno codes in sorted order by a sort of the column (no hash table of ~ a string
    # per line): equal neighbours share a code; pyarrow sorts strings by their UTF-8
    # bytes, which is the code point order of Python strings
    order = pc.array_sort_indices(docno).to_numpy(zero_copy_only=False)
    ordered = docno.take(pa.array(order))
    del docno
    first = np.ones(len(ordered), dtype=bool)
    if len(ordered) > 1:
        first[1:] = pc.not_equal(ordered[1:], ordered[:-1]).to_numpy(zero_copy_only=False)
    docno_idx = np.empty(len(order), dtype=np.int64)
    docno_idx[order] = np.cumsum(first) - 1
    del order
    distinct = ordered.filter(pa.array(first))
    del ordered, first
    topic_words, topic_idx = _words(topic.dictionary), _indices(topic)
    intent_words, intent_idx = _words(intent.dictionary), _indices(intent)
    level = np.asarray(table.pop("level"), dtype=np.int64)
    del topic, intent
    # hand the pool's freed blocks (the parsed file) back to the system before the
    # docnos become Python strings, and the distinct docnos' buffer after
    pool = pa.default_memory_pool()
    pool.release_unused()
    docno_words = _words(distinct)
    del distinct
    pool.release_unused()
    return QrelsCodes(topic_words=topic_words, topic=topic_idx, intent_words=intent_words,
                      intent=intent_idx, docno_words=docno_words, docno=docno_idx,
                      level=level)


def _words(strings: pa.Array) -> np.ndarray:
    """A pyarrow string array as an object array of Python strings."""
    return np.asarray(strings.to_numpy(zero_copy_only=False), dtype=object)


def _indices(column: pa.DictionaryArray) -> np.ndarray:
    return column.indices.to_numpy(zero_copy_only=False).astype(np.intp, copy=False)


@dataclass(frozen=True)
class RunColumns:
    """One TREC run file as columns, docnos and topics dictionary-encoded.

    Attributes
    ----------
    path : str
    name : str
        The run's name (see :func:`read_run_frame`).
    tags : list of str
        The tags of the first and the last line.
    topic : pyarrow.DictionaryArray
        Per line: int32 indices into the file's distinct topics.
    docno : pyarrow.StringArray
        Per line.
    rank : numpy.ndarray
        int64 per line (str when the table given to :func:`read_run_columns` holds it
        as text).
    score : numpy.ndarray
        float64 per line.
    ir_metadata : str
        The file's leading ir_metadata block as written (``""`` when it has none; see
        :mod:`xdiv.io.ir_metadata`).
    """

    path: str
    name: str
    tags: list[str]
    topic: pa.DictionaryArray
    docno: pa.StringArray
    rank: np.ndarray
    score: np.ndarray
    ir_metadata: str = ""


RUN_LAYOUT = [("topic", "str"), ("_Q0", "str"), ("docno", "str"), ("rank", "int"),
              ("score", "float"), ("run", "str")]
"""The columns of a TREC run file, for :func:`read_columns` (the tag is optional)."""


def read_run_table(path: PathLike, layout: list[tuple[str, str]] = RUN_LAYOUT) -> dict:
    """The lines of run file ``path`` as :func:`read_columns` reads them with ``layout``
    after the file's leading ir_metadata block, whose text (``""`` when there is none) is
    under the key ``"ir_metadata"``. An ir_metadata marker elsewhere in the file is
    refused as such (:func:`xdiv.io.ir_metadata.misplaced_marker`)."""
    block, lines = leading_block(path)
    try:
        table = read_columns(path, layout, optional_last=True, skip_lines=lines)
    except ParseError as exc:
        misplaced = misplaced_marker(path, exc.line)
        if misplaced is not None:
            raise misplaced from None
        raise
    table[IR_METADATA_ATTR] = block
    return table


def read_run_columns(path: PathLike, *, warn: bool = True,
                     table: dict | None = None) -> RunColumns:
    """Read a TREC run (``topic Q0 docno rank score [tag]``) into columns, without a
    Python string per line (see :func:`read_columns`); named as :func:`read_run_frame`
    names it, with the same warnings (unless ``warn`` is false). ``table`` is the file
    as :func:`read_run_table` returns it, when read already (the readers parse files in
    parallel, and name them in order)."""
    if table is None:
        table = read_run_table(path)
    tag = table["run"]
    words = tag.dictionary.to_pylist()
    indices = tag.indices.to_numpy(zero_copy_only=False)
    first, last = words[indices[0]], words[indices[-1]]
    present = np.flatnonzero(np.bincount(indices, minlength=len(words)))
    name = _name_from_path(path)
    if len(present) == 1 and first != "":
        name = first
    elif not warn:
        pass
    elif len(present) == 1:
        emit_warning(f"{os.fspath(path)}: no run tag column; the run is named {name!r} "
                      "after the file", RunTagWarning)
    else:
        tags = [words[k] for k in pd.unique(indices)]
        emit_warning(f"{os.fspath(path)}: {len(tags)} different run tags "
                      f"({preview(tags, 5)}); the run is named {name!r} after the file",
                      RunTagWarning)
    return RunColumns(path=os.fspath(path), name=name, tags=[first, last],
                      topic=table["topic"], docno=table["docno"], rank=table["rank"],
                      score=table["score"], ir_metadata=table.get(IR_METADATA_ATTR, ""))


def read_run_frame(path: PathLike, *, rank_as_text: bool = False) -> pd.DataFrame:
    """Read a TREC run (``topic Q0 docno rank score [tag]``) into a tidy frame.

    The run name is the tag of the sixth column. When the column is absent, or when
    the file holds more than one tag, the run is named after the file (its name without
    ``.gz`` and without a ``.run``/``.txt`` suffix) and a :class:`XdivWarning` says so.

    Parameters
    ----------
    path : str or path-like
    rank_as_text : bool
        Read the rank column as text, of any length, rather than as a 64-bit integer:
        for gdeval, which reads no rank (``xdiv gdeval`` has checked its digits).

    Returns
    -------
    pandas.DataFrame
        Columns ``topic``, ``docno`` (str), ``rank`` (int64, or str with
        ``rank_as_text``), ``score`` (float64) and ``run``; ``attrs["tags"]`` holds the
        tags of the first and the last line (which ndeval and gdeval respectively print
        as the run's name), and ``attrs["ir_metadata"]`` the file's leading ir_metadata
        block when it has one (:mod:`xdiv.io.ir_metadata`).
    """
    table = None
    if rank_as_text:
        layout = [(name, "str" if name == "rank" else kind) for name, kind in RUN_LAYOUT]
        table = read_run_table(path, layout)
        table["rank"] = decode_strings(table["rank"])
    columns = read_run_columns(path, table=table)
    frame = pd.DataFrame({"topic": decode_strings(columns.topic),
                          "docno": decode_strings(columns.docno),
                          "rank": columns.rank, "score": columns.score,
                          "run": columns.name}, copy=False)
    frame.attrs["tags"] = columns.tags
    if columns.ir_metadata:
        frame.attrs[IR_METADATA_ATTR] = columns.ir_metadata
    return frame


def _name_from_path(path: PathLike) -> str:
    name = Path(path).name
    for suffix in (".gz", ".run", ".txt", ".trec"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def line_numbers(path: PathLike, n_rows: int) -> np.ndarray:
    """1-based line numbers of the ``n_rows`` data lines (blank lines are skipped)."""
    with open_text(path) as fh:
        data = fh.read()
    lines = data.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    numbers = np.fromiter((i for i, line in enumerate(lines, start=1) if line.strip(BLANK)),
                          dtype=np.int64, count=-1)
    if len(numbers) != n_rows:  # pragma: no cover - guarded by read_table
        raise ParseError(path, None, "line count mismatch while numbering lines")
    return numbers



def read_probabilities(path: PathLike) -> pd.DataFrame:
    """Read an intent-probability file (``topic intent probability``).

    Probabilities must be finite and non-negative; they are renormalised per topic over
    the intents kept in the collection (see :func:`xdiv.read_qrels`).
    """
    frame = read_table(path, [("topic", "str"), ("intent", "str"), ("probability", "float")])
    frame["line"] = line_numbers(path, len(frame))
    negative = frame["probability"] < 0
    if negative.any():
        raise ParseError(path, int(frame.loc[negative.idxmax(), "line"]),
                         "a probability is negative")
    dup = frame.duplicated(["topic", "intent"])
    if dup.any():
        raise ParseError(path, int(frame.loc[dup.idxmax(), "line"]),
                         "this (topic, intent) pair appears twice")
    return frame


def read_doc_lengths(path: PathLike) -> pd.DataFrame:
    """Read document lengths (``docno length``, characters, a decimal integer) into
    ``docno``/``length`` (int64); a negative length is refused with its file and line."""
    frame = read_table(path, [("docno", "str"), ("length", "int")])
    negative = (frame["length"] < 0).to_numpy()
    if negative.any():
        k = int(np.argmax(negative))
        line = int(line_numbers(path, len(frame))[k])
        raise InputError(f"{os.fspath(path)}:{line}: docno {frame['docno'].iloc[k]}: length "
                         f"{frame['length'].iloc[k]} is negative (a length counts characters)")
    return frame


def _open_write(path: PathLike) -> contextlib.AbstractContextManager[TextIO]:
    """A UTF-8 text file replacing ``path`` atomically (see :mod:`xdiv.io.atomic`), gzipped
    when the name ends with ``.gz``."""
    return atomic_output(path, gzip=os.fspath(path).endswith(".gz"))


_LINES_PER_WRITE = 10_000


def _write_lines(path: PathLike, columns: Iterable[np.ndarray], *, header: str = "") -> None:
    """Write ``header`` as it is, then the columns' values as space-separated lines, a
    block of lines at a time."""
    text = check_output_path(path)
    lines = map(" ".join, zip(*(np.asarray(c).astype(str) for c in columns)))
    with _open_write(text) as fh:
        fh.write(header)
        while block := list(itertools.islice(lines, _LINES_PER_WRITE)):
            fh.write("\n".join(block) + "\n")


def write_qrels_frame(path: PathLike, qrels: pd.DataFrame) -> None:
    """Write a tidy qrels frame (``topic intent docno level``) as TREC qrels.

    Use :func:`xdiv.core.collection.qrels_frame` to get that frame from a collection; the
    original lines, including negative (spam) levels, are reproduced.
    """
    _write_lines(path, [qrels["topic"], qrels["intent"], qrels["docno"], qrels["level"]])


def write_run_frame(path: PathLike, run: pd.DataFrame, *, ir_metadata: str = "") -> None:
    """Write a tidy run frame (``run topic docno rank score``) as a TREC 6-column run.

    Scores are written with ``repr`` precision so that reading the file back gives the
    same floats. ``ir_metadata``, an ir_metadata block (:mod:`xdiv.io.ir_metadata`), is
    written first, as it is.
    """
    scores = np.array([repr(float(s)) for s in run["score"].to_numpy()], dtype=object)
    _write_lines(path, [run["topic"], np.full(len(run), "Q0"), run["docno"], run["rank"],
                        scores, run["run"]], header=ir_metadata)
