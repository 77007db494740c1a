"""The collection model: qrels, intents and their types/probabilities as one ``xr.Dataset``.

A collection has the dimensions ``topic``, ``intent`` and ``doc`` (a topic-local slot for
each judged document; slots are in docno order and padded to the largest topic):

================================  ======================================================
variable                          meaning
================================  ======================================================
``judgment(topic, intent, doc)``  the raw qrels level (int8), ``ABSENT`` (-128) where the
                                  qrels have no line for that (topic, intent, doc)
``level(topic, intent, doc)``     per-intent graded relevance used by every measure
                                  (int8, >= 0; negative TREC levels and absent lines are 0)
``judged(topic, doc)``            the document has at least one qrels line for the topic
``docno(topic, doc)``             document id (coordinate; ``""`` in padding slots)
``intent_valid(topic, intent)``   the intent exists for the topic and has a relevant doc
``intent_prob(topic, intent)``    Pr(i|q) on valid intents, 0 elsewhere: summing to 1 over
                                  them when renormalised (``renormalise`` attribute 1),
                                  as given otherwise (0)
``intent_type(topic, intent)``    ``"inf"`` or ``"nav"`` (``""`` where the intent is absent)
``intent_order(topic, intent)``   0-based position in the topic file (or label order), -1
                                  where the intent is absent
``topic_type(topic)``, ``query``  from the topic file when one is given (else ``""``)
================================  ======================================================

Later extensions (node hierarchies, document lengths, multi-assessor labels, the
equivalence classes ``eq_class(topic, doc)`` of :func:`set_equivalence_classes`) are further
variables on extra dimensions of the same dataset. Intents without any relevant document
are kept in the ``intent`` dimension (so that ``write_qrels`` reproduces the input) but
are not valid; they are listed in the ``dropped_intents`` attribute (JSON), as are topics
with no relevant document at all (``topics_without_relevant``). The ``topics`` attribute
names the topic file the intent types came from (``"<DataFrame>"`` for a topics frame,
``""`` without topics, when every intent is informational). The ``renormalise`` attribute
(an int, 1 or 0) records the probability convention (see :func:`set_probabilities`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr

from ..errors import InputError, NoRelevantWarning, XdivWarning
from .labels import from_json, natural_sorted, object_strings, preview, to_json
from .ranking import group_positions  # noqa: F401  (xdiv.core.collection.group_positions)
from .._warnings import warn
from ..typing import LEVEL_RANGE, ProbabilityScheme

ABSENT = np.int8(-128)
"""Code of ``judgment`` where the qrels hold no line for a (topic, intent, doc)."""

Probabilities = ProbabilityScheme | pd.DataFrame

__all__ = ["ABSENT", "build_collection", "qrels_frame", "nonuniform_probabilities",
    "highest_level"]


COLLECTION_VARIABLES = ("judgment", "level", "judged", "intent_valid", "intent_prob")


def check_collection(dataset, role: str = "collection",
                     variables: tuple[str, ...] = COLLECTION_VARIABLES) -> None:
    """Raise :class:`InputError` unless ``dataset`` is a collection dataset.

    ``role`` names the argument in the message (e.g. ``"judge: collection"``);
    ``variables`` are the ones it must hold.
    """
    missing = [v for v in variables
               if not isinstance(dataset, xr.Dataset) or v not in dataset.variables]
    if missing:
        raise InputError(f"{role}: expected a collection dataset (from xdiv.read_qrels or "
                         f"xdiv.build_collection), got {describe_dataset(dataset)} without "
                         f"{', '.join(missing)}")


def dask_backed(dataset: xr.Dataset) -> bool:
    """Whether a variable of ``dataset`` is a dask (chunked) array, read from its public
    chunk sizes (which xarray refuses to give for chunks that differ from variable to
    variable: dask-backed all the same)."""
    try:
        return bool(dataset.chunksizes)
    except ValueError:
        return True


def collection_in_memory(collection: xr.Dataset) -> xr.Dataset:
    """``collection`` with its variables in memory: judging reads a collection whole (its
    ideal lists, its judged docnos), so a dask-backed one (chunked, or opened lazily from
    NetCDF) is computed once; the runs, the large side, may stay dask-backed."""
    return collection.compute() if dask_backed(collection) else collection


def describe_dataset(obj) -> str:
    if isinstance(obj, xr.Dataset):
        kind = obj.attrs.get("xdiv_kind")
        dims = ", ".join(map(str, obj.dims))
        return f"a {kind + ' ' if kind else ''}dataset with dimensions ({dims})"
    return f"a {type(obj).__name__}"


Locate = Callable[[int, list[int]], str]
"""Where rows of a frame came from: ``locate(n_rows, rows)`` gives ``file:line`` texts
(:func:`xdiv.io.api.file_lines`) or, for frames built in memory, ``source row N``."""


def frame_rows(source: str) -> Locate:
    """Rows of an in-memory frame named ``source row N``."""
    return lambda n_rows, rows: ", ".join(f"{source} row {r}" for r in rows)


def set_doc_lengths(collection: xr.Dataset, lengths: pd.DataFrame, *,
                    default: float | None = None, source: str = "<DataFrame>",
                    locate: Locate | None = None) -> xr.Dataset:
    """Add ``doc_length(topic, doc)`` (characters) for the U-measures.

    ``lengths`` is a frame with ``doc_id`` (or ``docno``) and ``length``; lengths are
    topic-independent. Every document relevant to some intent needs a length (the
    simulated user reads part of its full text): a missing one is an error naming the
    document unless ``default`` is given. Judged non-relevant documents without a length
    get ``default`` or 0 (their full text is never read). ``source`` and ``locate`` name
    the frame's origin in messages (:func:`xdiv.set_doc_lengths` reads files).
    """
    check_collection(collection, "set_doc_lengths")
    frame = lengths.rename(columns={"doc_id": "docno"})
    if not {"docno", "length"} <= set(frame.columns):
        raise InputError("doc lengths need the columns doc_id (or docno) and length")
    locate = locate or frame_rows(source)
    values = pd.to_numeric(frame["length"], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values) | (values < 0)
    if bad.any():
        k = int(np.argmax(bad))
        raise InputError(f"{locate(len(frame), [k])}: docno {frame['docno'].iloc[k]}: "
                         f"length {frame['length'].iloc[k]!r} is not a non-negative number")
    dup = frame["docno"].duplicated(keep=False).to_numpy()
    if dup.any():
        docno = frame["docno"].iloc[int(np.argmax(dup))]
        rows = np.flatnonzero(dup & (frame["docno"] == docno).to_numpy()).tolist()
        raise InputError(f"{locate(len(frame), rows)}: docno {docno} has more than "
                         "one length")
    table = pd.Series(values, index=frame["docno"].astype(str).to_numpy())
    docnos = collection["docno"].values
    found = table.reindex(docnos.ravel()).to_numpy().reshape(docnos.shape)
    relevant = (collection["level"].values > 0).any(axis=1)
    lacking = np.isnan(found) & relevant
    if lacking.any() and default is None:
        t, d = np.argwhere(lacking)[0]
        raise InputError(f"{source}: no length for relevant document {docnos[t, d]} (topic "
                         f"{collection['topic'].values[t]}); pass a default length to use one")
    filled = np.where(np.isnan(found), 0.0 if default is None else float(default), found)
    filled[docnos == ""] = 0.0
    out = collection.assign(doc_length=(("topic", "doc"), filled))
    out.attrs["doc_lengths"] = source
    return out


def build_collection(qrels: pd.DataFrame, *, topics: pd.DataFrame | None = None,
                     probabilities: Probabilities = "uniform",
                     source: str = "<DataFrame>", topics_source: str = "<DataFrame>",
                     probabilities_source: str = "<DataFrame>",
                     locate: Locate | None = None, renormalise: bool = True) -> xr.Dataset:
    """Build a collection dataset from a tidy qrels frame.

    Parameters
    ----------
    qrels : pandas.DataFrame
        Columns ``topic``, ``intent``, ``docno``, ``level`` (integers; negative levels
        are judged non-relevant).
    topics, probabilities
        As in :func:`read_qrels`.
    source : str
        Where the qrels came from, for messages and the ``source`` attribute.
    topics_source : str
        Where ``topics`` came from (a topic file), for messages and the ``topics``
        attribute, which is ``""`` when no topics are given (every intent is then
        informational).
    probabilities_source : str
        Where a ``probabilities`` frame came from, for messages.
    locate : callable, optional
        Names the lines of qrels rows in messages (default: ``source row N``).
    renormalise : bool
        The probability convention (see :func:`set_probabilities`).

    Raises
    ------
    InputError
        Bad qrels, or topics that share no topic with the qrels.

    Warns
    -----
    XdivWarning
        When the qrels and the topics share only some topics. Topics only in the qrels
        have every intent informational; topics only in the topic file are kept, as
        topics without judgments (they score NaN on every measure).
    """
    missing = {"topic", "intent", "docno", "level"} - set(qrels.columns)
    if missing:
        raise InputError(f"{source}: qrels frame lacks column(s) {sorted(missing)}")
    topic = qrels["topic"].astype(str).to_numpy(dtype=object)
    intent = qrels["intent"].astype(str).to_numpy(dtype=object)
    docno = qrels["docno"].astype(str).to_numpy(dtype=object)
    try:
        level = qrels["level"].to_numpy().astype(np.int64, casting="safe")
    except TypeError:
        raise InputError(f"{source}: qrels levels must be integers") from None
    if len(level) == 0:
        raise InputError(f"{source}: the qrels are empty")
    topic_idx, topic_words = pd.factorize(topic)
    intent_idx, intent_words = pd.factorize(intent)
    # sorted: docno codes in Python string order (the order of the doc slots)
    docno_idx, docno_words = pd.factorize(docno, sort=True)
    codes = QrelsCodes(topic_words=np.asarray(topic_words, dtype=object), topic=topic_idx,
                       intent_words=np.asarray(intent_words, dtype=object), intent=intent_idx,
                       docno_words=np.asarray(docno_words, dtype=object), docno=docno_idx,
                       level=level)
    return collection_from_codes(codes, topics=topics, probabilities=probabilities,
                                 source=source, topics_source=topics_source,
                                 probabilities_source=probabilities_source, locate=locate,
                                 renormalise=renormalise)


@dataclass(frozen=True)
class QrelsCodes:
    """Qrels lines as integer codes into their labels (what :func:`collection_from_codes`
    takes; built from a frame by :func:`build_collection`, from a file's columns by
    :func:`xdiv.io.trec.read_qrels_codes` without a Python string per line).

    Attributes
    ----------
    topic_words, intent_words : numpy.ndarray
        Object arrays of ``str``, in any order; a label may repeat, and some may be used
        by no line.
    topic, intent : numpy.ndarray
        Per line, integer indices into ``topic_words`` and ``intent_words``.
    docno_words : numpy.ndarray
        Object array of the distinct docnos (``str``), sorted (Python string order:
        code points, as UTF-8 bytes sort).
    docno : numpy.ndarray
        Per line, integer indices into ``docno_words``.
    level : numpy.ndarray
        Per line, the int64 qrels level.
    """

    topic_words: np.ndarray
    topic: np.ndarray
    intent_words: np.ndarray
    intent: np.ndarray
    docno_words: np.ndarray
    docno: np.ndarray
    level: np.ndarray


def _label_codes(words: np.ndarray, idx: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The distinct labels the lines use, in natural order, and each line's code into
    them."""
    used = np.bincount(idx, minlength=len(words)) > 0
    labels = natural_sorted(words[used])
    return labels, pd.Index(labels).get_indexer(words).astype(np.int32)[idx]


def _distinct(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(key, return_inverse=True)`` with fewer line-sized temporaries."""
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    del key
    first = np.empty(len(ordered), dtype=bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    distinct = ordered[first]
    del ordered
    rank = np.cumsum(first, dtype=np.int32 if len(first) < 2**31 else np.int64)
    rank -= 1
    inverse = np.empty_like(rank)
    inverse[order] = rank
    return distinct, inverse


def _first_duplicate(cell: np.ndarray, n_cells: int) -> np.ndarray | None:
    """The lines (ascending) holding the first line's cell that more than one line holds,
    or None when every line has a cell of its own."""
    if n_cells <= 4 * len(cell) + 1024:
        seen = np.zeros(n_cells, dtype=bool)
        seen[cell] = True
        if int(np.count_nonzero(seen)) == len(cell):
            return None
    else:
        ordered = np.sort(cell)
        if not (ordered[1:] == ordered[:-1]).any():
            return None
    _, inverse, counts = np.unique(cell, return_inverse=True, return_counts=True)
    k = int(np.argmax(counts[inverse] > 1))
    return np.flatnonzero(cell == cell[k])


def collection_from_codes(codes: QrelsCodes, *, topics: pd.DataFrame | None = None,
                          probabilities: Probabilities = "uniform",
                          source: str = "<DataFrame>", topics_source: str = "<DataFrame>",
                          probabilities_source: str = "<DataFrame>",
                          locate: Locate | None = None, renormalise: bool = True) -> xr.Dataset:
    """Build a collection dataset from qrels lines as codes (see :func:`build_collection`
    for the parameters, errors and warnings); Python strings are made only for the
    labels and the ``docno`` coordinate."""
    level = np.asarray(codes.level, dtype=np.int64)
    n_lines = len(level)
    if n_lines == 0:
        raise InputError(f"{source}: the qrels are empty")
    topic_idx = np.asarray(codes.topic, dtype=np.intp)
    intent_idx = np.asarray(codes.intent, dtype=np.intp)
    docno_idx = np.asarray(codes.docno, dtype=np.int64)
    bad = (level < LEVEL_RANGE[0]) | (level > LEVEL_RANGE[1])
    if bad.any():
        k = int(np.argmax(bad))
        raise InputError(f"{source}: topic {codes.topic_words[topic_idx[k]]} intent "
                         f"{codes.intent_words[intent_idx[k]]} docno "
                         f"{codes.docno_words[docno_idx[k]]}: "
                         f"level {level[k]} is outside {LEVEL_RANGE[0]}..{LEVEL_RANGE[1]}")
    # codes into the labels of the qrels alone (natural order)
    qrels_topics, t_local = _label_codes(codes.topic_words, topic_idx)
    qrels_intents, i_local = _label_codes(codes.intent_words, intent_idx)
    # the judged (topic, docno) pairs, sorted by topic then docno; a line's pair
    n_words = max(len(codes.docno_words), 1)
    pair_key, pair_of_line = _distinct(t_local * np.int64(n_words) + docno_idx)
    same = _first_duplicate(pair_of_line * np.int64(len(qrels_intents)) + i_local,
                            len(pair_key) * len(qrels_intents))
    if same is not None:
        k = int(same[0])
        raise InputError(f"{(locate or frame_rows(source))(n_lines, same.tolist())}: topic "
                         f"{codes.topic_words[topic_idx[k]]} intent "
                         f"{codes.intent_words[intent_idx[k]]} docno "
                         f"{codes.docno_words[docno_idx[k]]} is judged more than once")

    if topics is not None:
        topics = _topics_columns(topics)
        _check_topic_overlap(np.asarray(qrels_topics, dtype=object),
                             topics["topic"].astype(str).to_numpy(dtype=object),
                             source, topics_source)
    topic_labels = qrels_topics if topics is None else natural_sorted(np.concatenate(
        [np.asarray(qrels_topics, dtype=object),
         topics["topic"].astype(str).to_numpy(dtype=object)]))
    intent_labels = qrels_intents if topics is None else natural_sorted(np.concatenate(
        [np.asarray(qrels_intents, dtype=object),
         topics["intent"].astype(str).to_numpy(dtype=object)]))
    t_index = pd.Index(topic_labels)
    i_index = pd.Index(intent_labels)
    # the qrels labels keep their (natural) order among all labels: pairs stay sorted
    t_map = (np.arange(len(topic_labels)) if topics is None
             else t_index.get_indexer(qrels_topics)).astype(np.int32)
    i_map = (np.arange(len(intent_labels)) if topics is None
             else i_index.get_indexer(qrels_intents)).astype(np.int32)
    t_code = t_map[t_local]
    i_code = i_map[i_local]

    # topic-local doc slots in docno order
    pair_t = t_map[pair_key // n_words]
    slot = group_positions(pair_t)
    n_docs = np.bincount(pair_t, minlength=len(topic_labels))
    width = max(int(n_docs.max()), 1)
    docno_grid = np.full((len(topic_labels), width), "", dtype=object)
    docno_grid[pair_t, slot] = codes.docno_words[pair_key % n_words]
    d_code = slot[pair_of_line]

    judgment = np.full((len(topic_labels), len(intent_labels), width), ABSENT, dtype=np.int8)
    judgment[t_code, i_code, d_code] = level.astype(np.int8)

    # which intents exist per topic, their types and file order
    exists = np.zeros((len(topic_labels), len(intent_labels)), dtype=bool)
    exists[t_code, i_code] = True
    itype = np.full(exists.shape, "", dtype=object)
    order = np.full(exists.shape, -1, dtype=np.int64)
    ttype = np.full(len(topic_labels), "", dtype=object)
    query = np.full(len(topic_labels), "", dtype=object)
    if topics is not None:
        tt = t_index.get_indexer(topics["topic"].astype(str))
        ii = i_index.get_indexer(topics["intent"].astype(str))
        exists[tt, ii] = True
        itype[tt, ii] = topics["intent_type"].to_numpy(dtype=object)
        order[tt, ii] = topics["order"].to_numpy()
        ttype[tt] = topics["topic_type"].to_numpy(dtype=object)
        query[tt] = topics["query"].to_numpy(dtype=object)
    unknown_type = exists & (itype == "")
    itype[unknown_type] = "inf"
    # intents the topic file does not list come after the listed ones, in label order
    for t in range(len(topic_labels)):
        unlisted = np.flatnonzero(exists[t] & (order[t] < 0))
        order[t, unlisted] = order[t].max() + 1 + np.arange(len(unlisted))

    collection = xr.Dataset(
        {
            "judgment": _taken(("topic", "intent", "doc"), judgment),
            "intent_type": _taken(("topic", "intent"), itype),
            "intent_order": _taken(("topic", "intent"), order),
            "intent_exists": _taken(("topic", "intent"), exists),
            "topic_type": _taken(("topic",), ttype),
            "query": _taken(("topic",), query),
        },
        coords={
            "topic": object_strings(topic_labels),
            "intent": object_strings(intent_labels),
            "docno": _taken(("topic", "doc"), docno_grid),
        },
        attrs={"xdiv_kind": "collection", "source": str(source),
               "topics": "" if topics is None else str(topics_source)},
    )
    return finalize_collection(collection, probabilities=probabilities,
                               probabilities_source=probabilities_source,
                               renormalise=renormalise)


def _taken(dims: tuple[str, ...], values: np.ndarray) -> xr.Variable:
    """A variable holding ``values`` as they are: a numpy array of numbers, booleans or
    Python ``str`` objects (xarray would otherwise copy an object array through a pandas
    string column, a second Python string per element, for the same values)."""
    return xr.Variable(dims, values, fastpath=True)


def _check_topic_overlap(qrels_topics: np.ndarray, file_topics: np.ndarray, source: str,
                         topics_source: str) -> None:
    """Raise :class:`InputError` if the topics share no topic with the qrels; warn when
    they share only some."""
    in_qrels, in_file = set(qrels_topics), set(file_topics)
    name = "the topics frame" if topics_source == "<DataFrame>" else topics_source
    if not in_qrels & in_file:
        raise InputError(f"{source}: the qrels share no topic with {name} (the qrels have "
                         f"topics {preview(natural_sorted(in_qrels), 5)}; {name} has "
                         f"{preview(natural_sorted(in_file), 5)})")
    only_qrels = natural_sorted(in_qrels - in_file)
    only_file = natural_sorted(in_file - in_qrels)
    parts = []
    if only_qrels:
        parts.append(f"{len(only_qrels)} topic(s) only in the qrels, whose intents are all "
                     f"taken as informational: {preview(only_qrels)}")
    if only_file:
        parts.append(f"{len(only_file)} topic(s) only in {name}, kept as topics without "
                     f"judgments (they score NaN): {preview(only_file)}")
    if parts:
        warn(f"{source}: the qrels and {name} share "
                      f"{len(in_qrels & in_file)} topic(s); " + "; ".join(parts),
                      XdivWarning)


def _topics_columns(topics: pd.DataFrame) -> pd.DataFrame:
    """Check a topics frame; fill its optional columns (``intent_type`` ``"inf"``,
    ``order`` = position within the topic, ``topic_type`` and ``query`` empty)."""
    if not isinstance(topics, pd.DataFrame):
        raise InputError("topics must be a topic file or a DataFrame, not "
                         f"{describe_dataset(topics)}")
    missing = {"topic", "intent"} - set(topics.columns)
    if missing:
        raise InputError(f"topics frame lacks column(s) {sorted(missing)} (it needs topic and "
                         "intent; intent_type, order, topic_type and query are optional)")
    topics = topics.copy()
    if "intent_type" not in topics:
        topics["intent_type"] = "inf"
    bad = ~topics["intent_type"].isin(["inf", "nav"])
    if bad.any():
        row = topics[bad].iloc[0]
        raise InputError(f"topics frame: topic {row['topic']} intent {row['intent']}: "
                         f"intent_type {row['intent_type']!r} is neither 'inf' nor 'nav'")
    if "order" not in topics:
        topics["order"] = topics.groupby(topics["topic"].astype(str)).cumcount()
    for column in ("topic_type", "query"):
        if column not in topics:
            topics[column] = ""
    return topics


def finalize_collection(collection: xr.Dataset, *,
                        probabilities: Probabilities = "uniform",
                        probabilities_source: str = "<DataFrame>",
                        renormalise: bool = True) -> xr.Dataset:
    """Derive ``level``, ``judged``, ``intent_valid`` and ``intent_prob`` from ``judgment``.

    Also records the dropped intents and the topics without relevant documents in the
    attributes and warns about the latter (they score NaN on every measure).
    """
    judgment = collection["judgment"].values
    level = np.where(judgment > 0, judgment, 0).astype(np.int8)
    judged = (judgment != ABSENT).any(axis=1)
    has_rel = (level > 0).any(axis=2)
    exists = collection["intent_exists"].values
    valid = exists & has_rel
    topics = collection["topic"].values
    intents = collection["intent"].values
    dropped = {str(topics[t]): [str(intents[i]) for i in np.flatnonzero(exists[t] & ~has_rel[t])]
               for t in range(len(topics))}
    dropped = {t: v for t, v in dropped.items() if v}
    no_rel = [str(topics[t]) for t in np.flatnonzero(~valid.any(axis=1))]
    out = collection.assign(
        level=_taken(("topic", "intent", "doc"), level),
        judged=_taken(("topic", "doc"), judged),
        intent_valid=_taken(("topic", "intent"), valid),
    )
    out.attrs.update(dropped_intents=to_json(dropped), topics_without_relevant=to_json(no_rel))
    if no_rel:
        warn(f"{collection.attrs.get('source', '<collection>')}: {len(no_rel)} topic(s) "
                      f"have no relevant document and score NaN on every measure: "
                      f"{preview(no_rel)}",
                      NoRelevantWarning)
    return set_probabilities(out, probabilities, source=probabilities_source,
                             renormalise=renormalise)


def set_probabilities(collection: xr.Dataset, probabilities: Probabilities, *,
                      source: str = "<DataFrame>", renormalise: bool = True) -> xr.Dataset:
    """Return ``collection`` with ``intent_prob`` set by a scheme name, a file or a frame.

    With ``renormalise`` (the default), the probabilities are renormalised over the valid
    intents of each topic (those with a relevant document), so that they sum to 1 there.
    Without it, they are used as given, as NTCIREVAL uses them (Sakai & Song, SIGIR
    2011): ``"uniform"`` is 1/n over the n intents of the topic (with a relevant document
    or not), ``"nonuniform"`` Sakai & Song's weights over the same n intents, and a file
    or frame its values; an intent without a relevant document keeps its share out of
    every sum, so that the measures weighting by Pr(i|q) (D-Q, D#-Q, DIN-Q, P+Q, the
    intent-aware measures) may then stay below 1 on the ideal list. Given probabilities
    (a file or a frame) that do not sum to 1 for a topic raise an
    :class:`~xdiv.errors.XdivWarning` listing those topics and their sums. The
    ``renormalise`` attribute records the convention (1 or 0).
    """
    check_collection(collection, "set_probabilities", COLLECTION_VARIABLES[:-1])
    valid = collection["intent_valid"].values
    if isinstance(probabilities, str) and probabilities == "uniform":
        if renormalise or "intent_exists" not in collection:
            raw = valid.astype(np.float64)
        else:
            exists = collection["intent_exists"].values | valid
            raw = exists / np.maximum(exists.sum(axis=1, keepdims=True), 1)
        scheme = "uniform"
    elif isinstance(probabilities, str) and probabilities == "nonuniform":
        order = collection["intent_order"].values
        raw, scheme = nonuniform_probabilities(order), "nonuniform"
    elif isinstance(probabilities, pd.DataFrame):
        scheme = source
        raw = _probability_grid(collection, probabilities, scheme, renormalise)
    else:
        raise InputError(f"probabilities must be 'uniform', 'nonuniform' or a frame, not "
                         f"{probabilities!r}")
    raw = np.where(valid, raw, 0.0)
    total = raw.sum(axis=1, keepdims=True)
    zero = valid.any(axis=1) & (total[:, 0] == 0)
    if zero.any():
        t = collection["topic"].values[np.argmax(zero)]
        raise InputError(f"{scheme}: the probabilities of topic {t}'s valid intents are all 0")
    if renormalise:
        with np.errstate(invalid="ignore", divide="ignore"):
            prob = np.where(total > 0, raw / np.where(total > 0, total, 1.0), 0.0)
    else:
        prob = raw
    out = collection.assign(intent_prob=_taken(("topic", "intent"), prob))
    out.attrs["probabilities"] = str(scheme)
    out.attrs["renormalise"] = int(bool(renormalise))
    return out


def _probability_grid(collection: xr.Dataset, frame: pd.DataFrame, source: str,
                      renormalise: bool = True) -> np.ndarray:
    grid = np.zeros(collection["intent_valid"].shape)
    t = pd.Index(collection["topic"].values).get_indexer(frame["topic"].astype(str))
    if (t < 0).any():
        # a file for a whole year serves part of its qrels: its other topics are ignored
        others = natural_sorted(frame["topic"].astype(str).to_numpy()[t < 0])
        warn(f"{source}: {len(others)} topic(s) are not in the collection and are "
                      f"ignored: {preview(others)}", XdivWarning)
        frame, t = frame[t >= 0], t[t >= 0]
    i = pd.Index(collection["intent"].values).get_indexer(frame["intent"].astype(str))
    unknown = i < 0
    if unknown.any():
        k = int(np.argmax(unknown))
        raise InputError(f"{source}: topic {frame['topic'].iloc[k]} intent "
                         f"{frame['intent'].iloc[k]} is not in the collection")
    values = pd.to_numeric(frame["probability"], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values) | (values < 0)
    if bad.any():
        k = int(np.argmax(bad))
        raise InputError(f"{source}: topic {frame['topic'].iloc[k]} intent "
                         f"{frame['intent'].iloc[k]}: probability {frame['probability'].iloc[k]!r} "
                         "is not a finite non-negative number")
    grid[t, i] = values
    given = np.zeros(grid.shape, dtype=bool)
    given[t, i] = True
    lacking = collection["intent_valid"].values & ~given
    if lacking.any():
        tt, ii = np.argwhere(lacking)[0]
        raise InputError(f"{source}: no probability for topic {collection['topic'].values[tt]} "
                         f"intent {collection['intent'].values[ii]}")
    listed = given.any(axis=1)
    _warn_unnormalised(collection["topic"].values[listed], grid.sum(axis=1)[listed], source,
                       renormalise)
    return grid


def _warn_unnormalised(topics: np.ndarray, sums: np.ndarray, source: str,
                       renormalise: bool = True) -> None:
    """Warn about the topics whose given probabilities do not sum to 1 (renormalised over
    the valid intents, which changes them, or used as given)."""
    off = np.abs(sums - 1.0) > 1e-6
    if not off.any():
        return
    shown = preview(f"{t} ({s:.6g})" for t, s in zip(topics[off], sums[off]))
    fate = "are renormalised" if renormalise else "are used as given"
    warn(f"{source}: the given probabilities of {int(off.sum())} topic(s) do not sum "
                  f"to 1 and {fate}: {shown}", XdivWarning)


def nonuniform_probabilities(order: np.ndarray) -> np.ndarray:
    """Sakai & Song's non-uniform intent probabilities from 0-based file positions.

    The j-th of n intents (1-based, topic-file order) gets
    ``2^(n-j+1) / sum_{k=1..n} 2^k``. ``order`` is ``(topic, intent)`` with -1 for
    absent intents; the result is 0 there. Renormalising after dropping intents keeps
    the weights proportional to ``2^-j``.
    """
    order = np.asarray(order)
    exists = order >= 0
    n = exists.sum(axis=-1, keepdims=True)
    weight = np.where(exists, np.exp2((n - (order + 1) + 1).astype(np.float64)), 0.0)
    total = np.exp2(n + 1.0) - 2.0
    return np.where(exists, weight / np.where(total > 0, total, 1.0), 0.0)


def highest_level(collection: xr.Dataset) -> int:
    """H: the highest relevance level in the collection."""
    return int(collection["level"].max())


def qrels_frame(collection: xr.Dataset) -> pd.DataFrame:
    """The collection's qrels lines as a tidy frame (``topic intent docno level``).

    Lines come out sorted by topic, intent and docno; the raw levels (negative ones
    included) are those read.
    """
    check_collection(collection, "qrels_frame")
    judgment = collection["judgment"].values
    t, i, d = np.nonzero(judgment != ABSENT)
    return pd.DataFrame({
        "topic": collection["topic"].values[t],
        "intent": collection["intent"].values[i],
        "docno": collection["docno"].values[t, d],
        "level": judgment[t, i, d].astype(np.int64),
    })


def collection_report(collection: xr.Dataset) -> dict:
    """What reading dropped or flagged: intents without relevant docs, empty topics."""
    return {"dropped_intents": from_json(collection.attrs.get("dropped_intents", "{}")),
            "topics_without_relevant": from_json(
                collection.attrs.get("topics_without_relevant", "[]"))}


def set_equivalence_classes(collection: xr.Dataset, classes: pd.DataFrame, *,
                            source: str = "<DataFrame>",
                            locate: Locate | None = None) -> xr.Dataset:
    """Add ``eq_class(topic, doc)``: the equivalence class of each judged document (Sakai,
    ACM TALIP 2007), read by the ``EC-`` measures (:mod:`xdiv.measures.equivalence`); -1
    for a document in no class (a class of its own) and in the padding slots.

    ``classes`` has the columns ``topic``, ``docno`` and ``eq_class`` (whole numbers >= 0);
    each row names a document the collection judges for the topic, once. ``source`` and
    ``locate`` name the frame's rows in messages (:func:`xdiv.read_qrels` reads eqrels
    files).

    Raises
    ------
    InputError
        A missing column, a class that is no whole number >= 0, a document listed twice or
        not judged for its topic.
    """
    check_collection(collection, "set_equivalence_classes")
    missing = [c for c in ("topic", "docno", "eq_class") if c not in classes.columns]
    if missing:
        raise InputError(f"equivalence classes need the columns topic, docno and eq_class; "
                         f"{source} lacks {', '.join(missing)}")
    locate = locate or frame_rows(source)
    values = pd.to_numeric(classes["eq_class"], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values) | (values < 0) | (values != np.floor(values))
    if bad.any():
        k = int(np.argmax(bad))
        raise InputError(f"{locate(len(classes), [k])}: docno {classes['docno'].iloc[k]}: "
                         f"class {str(classes['eq_class'].iloc[k])!r} is not a whole number >= 0")
    keys = pd.DataFrame({"topic": classes["topic"].astype(str).to_numpy(),
                         "docno": classes["docno"].astype(str).to_numpy()})
    twice = keys.duplicated(keep="first").to_numpy()
    if twice.any():
        k = int(np.argmax(twice))
        first = int(np.flatnonzero((keys == keys.iloc[k]).all(axis=1).to_numpy())[0])
        raise InputError(f"{locate(len(classes), [first, k])}: topic {keys['topic'].iloc[k]} "
                         f"docno {keys['docno'].iloc[k]} is given a class twice")
    docno = collection["docno"].values
    t, d = np.nonzero(docno != "")
    slots = pd.DataFrame({"topic": collection["topic"].values[t].astype(str),
                          "docno": docno[t, d].astype(str), "t": t, "d": d})
    found = keys.reset_index().merge(slots, on=["topic", "docno"], how="left")
    unknown = found["t"].isna().to_numpy()
    if unknown.any():
        k = int(found["index"].to_numpy()[np.argmax(unknown)])
        raise InputError(f"{locate(len(classes), [k])}: topic {keys['topic'].iloc[k]} docno "
                         f"{keys['docno'].iloc[k]} is not judged in the collection")
    out = np.full(docno.shape, -1, dtype=np.int64)
    out[found["t"].to_numpy(dtype=np.int64), found["d"].to_numpy(dtype=np.int64)] = \
        values[found["index"].to_numpy()].astype(np.int64)
    return collection.assign(eq_class=(("topic", "doc"), out))
