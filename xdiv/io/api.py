"""The public readers and writers of :mod:`xdiv.io`, in one place.

Text formats return tidy :class:`pandas.DataFrame` objects that :mod:`xdiv.core` turns
into labelled datasets. Every reader checks its path with :func:`check_file` and reads
through the guards of :data:`LIMITS`, so that damaged or hostile files raise an
:class:`~xdiv.errors.InputError` or :class:`~xdiv.errors.ParseError` naming the file and
the line, within bounded time and memory.
"""

import os

import pandas as pd
import xarray as xr

from ..core import collection as _model
from ..core.collection import Probabilities, qrels_frame
from ..core.runs import runs_frame
from ..errors import XdivError
from ._guard import LIMITS, ReadLimits, check_file, check_output_path, open_text
from ._spool import spooled_inputs
from ._columns import read_columns
from .topics import read_topics
from .trec import (RUN_LAYOUT, RunColumns, line_numbers, read_doc_lengths, read_probabilities,
                   read_qrels_codes, read_qrels_frame, read_run_columns, read_run_frame, write_qrels_frame,
                   write_run_frame)
from ..typing import PROBABILITY_SCHEMES


PATH_TYPES = (str, os.PathLike)


def file_lines(path) -> _model.Locate:
    """Name rows of a frame read from ``path`` by their ``file:line`` (the line numbers
    are found only when a message needs them), else ``path row N``."""
    def locate(n_rows: int, rows: list[int]) -> str:
        if os.path.isfile(path):
            try:
                lines = line_numbers(path, n_rows)
                return ", ".join(f"{os.fspath(path)}:{lines[r]}" for r in rows)
            except XdivError:
                pass
        return _model.frame_rows(os.fspath(path))(n_rows, rows)
    return locate


def _probabilities_input(probabilities) -> tuple[Probabilities, str]:
    """A scheme name or frame, and where it came from (a file is read)."""
    if isinstance(probabilities, str) and probabilities in PROBABILITY_SCHEMES:
        return probabilities, probabilities
    if isinstance(probabilities, PATH_TYPES):
        return read_probabilities(probabilities), os.fspath(probabilities)
    return probabilities, "<DataFrame>"


def build_collection(qrels: pd.DataFrame, *, topics: pd.DataFrame | None = None,
                     probabilities="uniform", source: str = "<DataFrame>",
                     topics_source: str = "<DataFrame>") -> xr.Dataset:
    """Build a collection dataset from a tidy qrels frame; ``probabilities`` may also name
    a ``topic intent probability`` file. See :func:`xdiv.core.collection.build_collection`
    for the parameters, errors and warnings."""
    scheme, scheme_source = _probabilities_input(probabilities)
    return _model.build_collection(qrels, topics=topics, probabilities=scheme, source=source,
                                   topics_source=topics_source,
                                   probabilities_source=scheme_source,
                                   locate=file_lines(source))


def set_probabilities(collection: xr.Dataset, probabilities) -> xr.Dataset:
    """Return ``collection`` with ``intent_prob`` set by a scheme name (``"uniform"``,
    ``"nonuniform"``), a ``topic intent probability`` file or a frame.

    Every scheme is renormalised over the valid intents of each topic. Given
    probabilities (a file or a frame) that do not sum to 1 for a topic raise an
    :class:`~xdiv.errors.XdivWarning` listing those topics and their sums.
    """
    scheme, source = _probabilities_input(probabilities)
    return _model.set_probabilities(collection, scheme, source=source)


def set_doc_lengths(collection: xr.Dataset, lengths, *,
                    default: float | None = None) -> xr.Dataset:
    """Add ``doc_length(topic, doc)`` (characters) for the U-measures.

    ``lengths`` is a ``docno length`` file or a frame with ``doc_id`` (or ``docno``) and
    ``length``; lengths are topic-independent. Every document relevant to some intent
    needs a length (the simulated user reads part of its full text): a missing one is an
    error naming the document unless ``default`` is given. Judged non-relevant documents
    without a length get ``default`` or 0 (their full text is never read).
    """
    if isinstance(lengths, pd.DataFrame):
        return _model.set_doc_lengths(collection, lengths, default=default)
    return _model.set_doc_lengths(collection, read_doc_lengths(lengths), default=default,
                                  source=os.fspath(lengths), locate=file_lines(lengths))


def read_qrels(path, *, topics=None, probabilities: Probabilities = "uniform",
               doc_lengths=None, default_length: float | None = None,
               strict_topics: bool = False) -> xr.Dataset:
    """Read TREC diversity or adhoc qrels into a collection dataset.

    Parameters
    ----------
    path : str or path-like
        Qrels file ``topic intent docno level`` (adhoc qrels: ``topic 0 docno level``);
        gzip is recognised by content.
    topics : str, path-like or DataFrame, optional
        TREC Web Track topic XML (or the frame :func:`xdiv.io.read_topics` returns) giving
        the intent types (``nav``/``inf``), the topic types and the intents' file order.
        Without it every intent is informational. It must share topics with the qrels
        (see :func:`build_collection`).
    probabilities : {"uniform", "nonuniform"}, path-like or DataFrame
        Intent probabilities: uniform over the valid intents, the non-uniform scheme of
        Sakai & Song (``Pr(j) ∝ 2^(n-j+1)`` in topic-file order), or a
        ``topic intent probability`` file/frame. Renormalised over valid intents.
    doc_lengths : path-like or DataFrame, optional
        Document lengths in characters for the U-measures: a ``docno length`` file or a
        frame with columns ``doc_id`` and ``length`` (see :func:`set_doc_lengths`).
    default_length : float, optional
        Length of relevant documents missing from ``doc_lengths`` (otherwise an error).
    strict_topics : bool
        Refuse a subtopic type other than ``inf``/``nav`` in the topic file instead of
        reading it as ``inf`` with a warning (``strict`` of :func:`xdiv.io.read_topics`).

    Returns
    -------
    xarray.Dataset
        The collection (see :mod:`xdiv.core.collection`).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import xdiv
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name) / "qrels.txt"
    >>> _ = path.write_text("1 1 d1 1\\n1 1 d2 2\\n1 2 d2 1\\n1 2 d3 0\\n2 1 d4 1\\n2 1 d5 0\\n")
    >>> collection = xdiv.read_qrels(path)
    >>> dict(collection.sizes)
    {'topic': 2, 'intent': 2, 'doc': 3}
    >>> collection["docno"].sel(topic="1").values.tolist()
    ['d1', 'd2', 'd3']
    >>> collection["level"].sel(topic="1").values.tolist()  # (intent, doc)
    [[1, 2, 0], [0, 1, 0]]
    >>> collection["intent_prob"].values.tolist()  # uniform over each topic's intents
    [[0.5, 0.5], [1.0, 0.0]]
    >>> folder.cleanup()
    """
    # the lines as integer codes, not a frame of Python strings: the same collection as
    # build_collection(read_qrels_frame(path), ...) builds, in a fraction of the time and
    # memory
    codes = read_qrels_codes(path)
    if isinstance(topics, PATH_TYPES):
        topic_frame = read_topics(topics, strict=strict_topics)
        topics_source = os.fspath(topics)
    else:
        topic_frame, topics_source = topics, "<DataFrame>"
    scheme, scheme_source = _probabilities_input(probabilities)
    source = os.fspath(path)
    collection = _model.collection_from_codes(
        codes, topics=topic_frame, probabilities=scheme, source=source,
        topics_source=topics_source, probabilities_source=scheme_source,
        locate=file_lines(source))
    if doc_lengths is not None:
        collection = set_doc_lengths(collection, doc_lengths, default=default_length)
    return collection


def write_qrels(path, collection: xr.Dataset | pd.DataFrame) -> None:
    """Write a collection (or a tidy ``topic intent docno level`` frame) as TREC qrels.

    The raw levels read, negative (spam) ones included, are written back.
    """
    frame = qrels_frame(collection) if isinstance(collection, xr.Dataset) else collection
    write_qrels_frame(path, frame)


def write_run(path, runs: xr.Dataset | pd.DataFrame) -> None:
    """Write runs (a Runs dataset or a tidy ``run topic docno rank score`` frame) as a
    TREC 6-column file; ranks are written 1..n in the dataset's order."""
    frame = runs_frame(runs) if isinstance(runs, xr.Dataset) else runs
    write_run_frame(path, frame)


__all__ = [
    "LIMITS", "RUN_LAYOUT", "ReadLimits", "RunColumns", "build_collection", "check_file",
    "check_output_path", "file_lines", "read_qrels", "set_doc_lengths", "set_probabilities",
    "line_numbers", "open_text", "read_columns", "read_doc_lengths", "read_probabilities",
    "read_qrels_frame", "read_run_columns", "read_run_frame", "read_topics",
    "spooled_inputs", "write_qrels", "write_qrels_frame", "write_run", "write_run_frame",
]
