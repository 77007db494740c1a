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
from ._guard import LIMITS, check_file, check_output_path, open_text
from ..options import ReadLimits
from ._spool import spooled_inputs
from ._columns import give_back_after, read_columns
from .topics import read_topics
from .ir_metadata import IR_METADATA_ATTR, file_block, run_blocks
from .provenance import recorded
from . import ntcir
from .trec import (RUN_LAYOUT, RunColumns, line_numbers, read_doc_lengths, read_probabilities,
                   read_qrels_codes, read_qrels_frame, read_run_columns, read_run_frame, write_qrels_frame,
                   write_run_frame)
from ..errors import InputError
from ..typing import (EQRELS_FORMAT, PROBABILITY_SCHEMES, QRELS_FORMATS, EqrelsFormat,
                      QrelsFormat)


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
                     topics_source: str = "<DataFrame>",
                     renormalise: bool = True) -> xr.Dataset:
    """Build a collection dataset from a tidy qrels frame; ``probabilities`` may also name
    a ``topic intent probability`` file. See :func:`xdiv.core.collection.build_collection`
    for the parameters, errors and warnings."""
    scheme, scheme_source = _probabilities_input(probabilities)
    return _model.build_collection(qrels, topics=topics, probabilities=scheme, source=source,
                                   topics_source=topics_source,
                                   probabilities_source=scheme_source,
                                   locate=file_lines(source), renormalise=renormalise)


@recorded
def set_probabilities(collection: xr.Dataset, probabilities, *,
                      renormalise: bool | None = None) -> xr.Dataset:
    """Return ``collection`` with ``intent_prob`` set by a scheme name (``"uniform"``,
    ``"nonuniform"``), a ``topic intent probability`` file or a frame.

    With ``renormalise`` (by default the collection's convention, its ``renormalise``
    attribute) every scheme is renormalised over the valid intents of each topic;
    without it the probabilities are used as given (see :func:`xdiv.read_qrels`). Given
    probabilities (a file or a frame) that do not sum to 1 for a topic raise an
    :class:`~xdiv.errors.XdivWarning` listing those topics and their sums.
    """
    scheme, source = _probabilities_input(probabilities)
    if renormalise is None:
        renormalise = bool(collection.attrs.get("renormalise", 1))
    return _model.set_probabilities(collection, scheme, source=source,
                                    renormalise=renormalise)


@recorded(roles={"lengths": "doc_lengths"})
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


@recorded(roles={"path": "qrels"})
def read_qrels(path, *, topics=None, probabilities: Probabilities = "uniform",
               doc_lengths=None, default_length: float | None = None,
               strict_topics: bool = False, format: QrelsFormat | EqrelsFormat = "trec",
               renormalise: bool | None = None, sep: str | None = None) -> xr.Dataset:
    """Read TREC or NTCIR diversity or adhoc qrels into a collection dataset.

    Parameters
    ----------
    path : str or path-like
        Qrels file. TREC (``format="trec"``): ``topic intent docno level`` (adhoc qrels:
        ``topic 0 docno level``); gzip is recognised by content. NTCIR
        (``format="ntcir"``): a Dqrels file ``topic intent docno L<level>``, whose
        judged non-relevant documents are listed under intent ``0``, or adhoc qrels
        ``topic docno L<level>`` (see :mod:`xdiv.io.ntcir`).
    topics : str, path-like or DataFrame, optional
        TREC Web Track topic XML (or the frame :func:`xdiv.io.read_topics` returns) giving
        the intent types (``nav``/``inf``), the topic types and the intents' file order.
        Without it every intent is informational (unless an NTCIR DINprob file gives
        the types). It must share topics with the qrels (see :func:`build_collection`).
    probabilities : {"uniform", "nonuniform"}, path-like or DataFrame
        Intent probabilities: uniform over the intents, the non-uniform scheme of
        Sakai & Song (``Pr(j) ∝ 2^(n-j+1)`` in topic-file order), or a
        ``topic intent probability`` file/frame. With ``format="ntcir"`` a file is an
        Iprob or DINprob file: a DINprob file's ``inf``/``nav`` column gives the intent
        types (with ``topics`` too, the two must agree), and its intents are the
        topic's intents, in its order.
    doc_lengths : path-like or DataFrame, optional
        Document lengths in characters for the U-measures: a ``docno length`` file or a
        frame with columns ``doc_id`` and ``length`` (see :func:`set_doc_lengths`).
    default_length : float, optional
        Length of relevant documents missing from ``doc_lengths`` (otherwise an error).
    strict_topics : bool
        Refuse a subtopic type other than ``inf``/``nav`` in the topic file instead of
        reading it as ``inf`` with a warning (``strict`` of :func:`xdiv.io.read_topics`).
    format : {"trec", "ntcir", "ntcir-eqrels"}
        The qrels' file format. ``"ntcir-eqrels"``: NTCIREVAL's eqrels, adhoc qrels whose
        relevant items form equivalence classes, ``topic;docno;L<level>;class``
        (:func:`xdiv.io.ntcir.read_eqrels_frame`); the collection holds each document's
        class as ``eq_class`` for the ``EC-`` measures (``EC-Q``, ``EC-nDCG@10``, ...:
        :mod:`xdiv.measures.equivalence`), while the other measures read each document
        as judged, as ``ntcir_eval`` does without ``-ec``.
    renormalise : bool, optional
        The probability convention. True: Pr(i|q) is renormalised over the intents with
        a relevant document, so that the probabilities of each topic sum to 1 there.
        False: Pr(i|q) is used as given, as NTCIREVAL uses it (Sakai & Song, SIGIR 2011;
        ``"uniform"`` is then 1/n over all n intents of the topic), so that an intent
        without a relevant document keeps its share and the measures weighting by
        Pr(i|q) (D-Q, D#-Q, DIN-Q, P+Q, the intent-aware measures) may stay below 1
        even on the ideal list; D-nDCG and I-rec are not affected. Default: True for
        TREC qrels, False for NTCIR qrels. Recorded in the ``renormalise`` attribute
        (1 or 0) of the collection and of the scores.
    sep : str, optional
        NTCIR files only: the field separator (NTCIREVAL's ``-sep``, e.g. ``";"`` for
        docnos holding spaces) of the qrels and the probability file; default spaces
        and tabs (``";"`` for eqrels).

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
    >>> dqrels = pathlib.Path(folder.name) / "test.Dqrels"
    >>> _ = dqrels.write_text("1 1 d1 L1\\n1 0 d2 L0\\n")
    >>> iprob = pathlib.Path(folder.name) / "test.Iprob"
    >>> _ = iprob.write_text("1 1 0.6\\n1 2 0.4\\n")
    >>> ntcir = xdiv.read_qrels(dqrels, format="ntcir", probabilities=iprob)
    >>> ntcir["intent_prob"].values.tolist()  # as given; intent 2 has no relevant doc
    [[0.6, 0.0]]
    >>> folder.cleanup()
    """
    if format not in (*QRELS_FORMATS, EQRELS_FORMAT):
        raise InputError(f"format must be one of {(*QRELS_FORMATS, EQRELS_FORMAT)}, not "
                         f"{format!r}")
    if sep is not None and format not in ("ntcir", EQRELS_FORMAT):
        raise InputError("sep applies to NTCIR files only (format='ntcir' or "
                         f"'{EQRELS_FORMAT}')")
    if isinstance(topics, PATH_TYPES):
        topic_frame = read_topics(topics, strict=strict_topics)
        topics_source = os.fspath(topics)
    else:
        topic_frame, topics_source = topics, "<DataFrame>"
    source = os.fspath(path)
    if format == "ntcir":
        collection = _ntcir_collection(path, topic_frame, topics_source, probabilities,
                                       bool(renormalise), sep)
    elif format == EQRELS_FORMAT:
        if not (isinstance(probabilities, str) and probabilities == "uniform"):
            raise InputError(f"{source}: eqrels are adhoc qrels (one intent per topic): "
                             "intent probabilities do not apply")
        collection = _eqrels_collection(path, topic_frame, topics_source, bool(renormalise),
                                        ";" if sep is None else sep)
    else:
        # the lines as integer codes, not a frame of Python strings: the same collection
        # as build_collection(read_qrels_frame(path), ...) builds, in a fraction of the
        # time and memory
        codes = read_qrels_codes(path)
        scheme, scheme_source = _probabilities_input(probabilities)
        collection = _model.collection_from_codes(
            codes, topics=topic_frame, probabilities=scheme, source=source,
            topics_source=topics_source, probabilities_source=scheme_source,
            locate=file_lines(source), renormalise=True if renormalise is None
            else bool(renormalise))
    if doc_lengths is not None:
        collection = set_doc_lengths(collection, doc_lengths, default=default_length)
    give_back_after([source])  # the buffers the parse freed, which the allocators keep
    return collection


def _ntcir_collection(path, topics: pd.DataFrame | None, topics_source: str, probabilities,
                      renormalise: bool, sep: str | None) -> xr.Dataset:
    """A collection from NTCIR qrels and an Iprob/DINprob file (or a scheme, or a frame)."""
    source = os.fspath(path)
    lines = ntcir.read_dqrels_frame(path, sep=sep)
    if isinstance(probabilities, PATH_TYPES) and probabilities not in PROBABILITY_SCHEMES:
        given = ntcir.read_iprob(probabilities, sep=sep)
        scheme, scheme_source = given, os.fspath(probabilities)
        intents = given[["topic", "intent", "intent_type", "order"]]
        if topics is None:
            topics, topics_source = intents, scheme_source
        elif given.attrs["types"]:
            _check_types(topics, given, topics_source, scheme_source)
    else:
        scheme, scheme_source = _probabilities_input(probabilities)
        intents = scheme if isinstance(scheme, pd.DataFrame) else None
    frame = ntcir.dqrels_frame(lines, intents if intents is not None else topics)
    numbers = frame["line"].to_numpy()

    def locate(n_rows: int, rows: list[int]) -> str:
        return ", ".join(f"{source}:{numbers[r]}" for r in rows)

    return _model.build_collection(frame.drop(columns="line"), topics=topics,
                                   probabilities=scheme, source=source,
                                   topics_source=topics_source,
                                   probabilities_source=scheme_source, locate=locate,
                                   renormalise=renormalise)


def _eqrels_collection(path, topics: pd.DataFrame | None, topics_source: str,
                       renormalise: bool, sep: str) -> xr.Dataset:
    """An adhoc collection from NTCIREVAL's eqrels, with the equivalence classes."""
    source = os.fspath(path)
    lines = ntcir.read_eqrels_frame(path, sep=sep)
    numbers = lines["line"].to_numpy()

    def locate(n_rows: int, rows: list[int]) -> str:
        return ", ".join(f"{source}:{numbers[r]}" for r in rows)

    frame = lines[["topic", "docno", "level"]].assign(intent="0")
    collection = _model.build_collection(frame, topics=topics, source=source,
                                         topics_source=topics_source, locate=locate,
                                         renormalise=renormalise)
    return _model.set_equivalence_classes(collection, lines, source=source, locate=locate)


def _check_types(topics: pd.DataFrame, given: pd.DataFrame, topics_source: str,
                 source: str) -> None:
    """Raise :class:`InputError` where a DINprob file and the topics give an intent
    different types."""
    if not isinstance(topics, pd.DataFrame) or not {"topic", "intent"} <= set(topics):
        return  # the collection refuses such topics with its own message
    types = topics.get("intent_type", pd.Series("inf", index=topics.index))
    both = given.merge(pd.DataFrame({"topic": topics["topic"].astype(str),
                                     "intent": topics["intent"].astype(str),
                                     "topic_type_": types.astype(str)}),
                       on=["topic", "intent"])
    differ = both["intent_type"] != both["topic_type_"]
    if differ.any():
        row = both[differ].iloc[0]
        raise InputError(f"{source}:{row['line']}: topic {row['topic']} intent "
                         f"{row['intent']} is {row['intent_type']!r} here but "
                         f"{row['topic_type_']!r} in {topics_source}")


def write_qrels(path, collection: xr.Dataset | pd.DataFrame) -> None:
    """Write a collection (or a tidy ``topic intent docno level`` frame) as TREC qrels.

    The raw levels read, negative (spam) ones included, are written back.
    """
    frame = qrels_frame(collection) if isinstance(collection, xr.Dataset) else collection
    write_qrels_frame(path, frame)


def write_run(path, runs: xr.Dataset | pd.DataFrame) -> None:
    """Write runs (a Runs dataset or a tidy ``run topic docno rank score`` frame) as a
    TREC 6-column file; ranks are written 1..n in the dataset's order.

    Runs read from files that open with an ir_metadata block (:mod:`xdiv.io.ir_metadata`)
    have it written back first, byte for byte; the runs written must then all carry the
    same block (a file opens with one block, which a reader gives to each of its runs).
    """
    if isinstance(runs, xr.Dataset):
        frame, blocks = runs_frame(runs), run_blocks(runs)
        names = [str(r) for r in runs["run"].values]
    else:
        frame, text = runs, runs.attrs.get(IR_METADATA_ATTR, "")
        names = [str(r) for r in pd.unique(frame["run"])]
        blocks = dict.fromkeys(names, text) if text else {}
    write_run_frame(path, frame, ir_metadata=file_block(blocks, names, "write_run"))


__all__ = [
    "LIMITS", "RUN_LAYOUT", "ReadLimits", "RunColumns", "build_collection", "check_file",
    "check_output_path", "file_lines", "read_qrels", "set_doc_lengths", "set_probabilities",
    "line_numbers", "open_text", "read_columns", "read_doc_lengths", "read_probabilities",
    "read_qrels_frame", "read_run_columns", "read_run_frame", "read_topics",
    "spooled_inputs", "write_qrels", "write_qrels_frame", "write_run", "write_run_frame",
]
