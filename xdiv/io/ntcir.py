"""NTCIREVAL's text files (Sakai's evaluation tool of NTCIR), read into tidy frames and
written back: diversity qrels (``Dqrels``), intent probabilities (``Iprob``, and
``DINprob`` with the intent types), adhoc qrels, and the per-topic ``rel``, ``relv`` and
``res`` files of ``ntcir_eval``.

============  ================================================  ==========================
file          line                                              frame columns
============  ================================================  ==========================
Dqrels        ``topic intent docno L<level>``                   topic intent docno level
qrels         ``topic docno L<level>`` (adhoc)                  topic intent docno level
eqrels        ``topic;docno;L<level>;class`` (adhoc)            topic docno level eq_class
Iprob         ``topic intent probability``                      topic intent probability
DINprob       ``topic intent probability inf|nav``              ... intent_type
rel           ``docno L<level>`` (one topic)                    docno level
relv          ``docno gain`` (one topic)                        docno gain
res           ``docno`` (one topic, rank = line)                rank docno
============  ================================================  ==========================

Fields are separated by spaces and tabs, or by the one separator given as ``sep`` (the
``-sep`` of ``ntcir_eval`` and the last argument of its scripts, for docnos holding
spaces); a level is ``L`` followed by a decimal integer. In a Dqrels file a judged
non-relevant document is listed once under intent ``0`` (:data:`NONRELEVANT_INTENT`),
meaning "relevant to none of the topic's intents"; a positive level under that intent is
refused, unless intent ``0`` is its topic's only intent: a topic judged as a whole (as the
TREC Web Track judges its single-facet topics of 2013 and 2014, under intent ``0``) keeps
intent ``0`` as its one intent. Every other field follows the grammar of
docs/conventions.md. Bad input raises one :class:`~xdiv.errors.ParseError` naming the file
and the line.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator

import numpy as np
import pandas as pd
import xarray as xr

from ..core.collection import qrels_frame
from ..core.runs import build_runs, runs_frame
from .._warnings import warn
from ..errors import InputError, ParseError, XdivWarning
from ..typing import LEVEL_RANGE
from ._guard import (BLANK, DECIMAL_NUMBER, SEPARATORS, check_file, check_output_path,
                     control_message, open_text)
from .atomic import atomic_output

__all__ = ["NONRELEVANT_INTENT", "read_dqrels_frame", "read_iprob", "read_rel", "read_relv",
           "read_res", "read_res_runs", "res_path", "dqrels_frame", "iprob_frame",
           "write_dqrels", "write_iprob", "write_rel", "write_relv", "write_res",
           "write_res_files",
           "read_eqrels_frame", "write_eqrels"]

PathLike = str | os.PathLike

NONRELEVANT_INTENT = "0"
"""The intent of a Dqrels line judging a document relevant to none of the topic's
intents (its level is ``L0``)."""

INTENT_TYPES = ("inf", "nav")

_LEVEL = re.compile(r"L([0-9]+)")


def _split_line(line: str, sep: str | None) -> list[str]:
    if sep is None:
        return SEPARATORS.split(line.strip(BLANK))
    return line.rstrip("\r\n").split(sep)


def _lines(path: PathLike, sep: str | None) -> Iterator[tuple[int, list[str]]]:
    """``(line number, fields)`` of every non-blank line of ``path``."""
    check_file(path)
    if sep is not None and (not isinstance(sep, str) or sep == "" or sep in "\r\n"):
        raise InputError(f"sep must be a non-empty string without a line break, not {sep!r}")
    with open_text(path) as fh:
        for number, line in enumerate(fh, start=1):
            if line.strip(BLANK):
                yield number, _split_line(line, sep)


def _label(path: PathLike, number: int, name: str, value: str) -> str:
    if value == "":
        raise ParseError(path, number, f"the {name} field is empty")
    message = control_message(name, value)
    if message is not None:
        raise ParseError(path, number, message)
    return value


def _level(path: PathLike, number: int, value: str) -> int:
    found = _LEVEL.fullmatch(value)
    if found is None:
        raise ParseError(path, number, f"level {value!r} is not a relevance level (L followed "
                                       "by a decimal integer is expected: L0, L1, ...)")
    level = int(found.group(1))
    if level > LEVEL_RANGE[1]:
        raise ParseError(path, number, f"level {value!r} is above L{LEVEL_RANGE[1]}")
    return level


def _number(path: PathLike, number: int, name: str, value: str) -> float:
    if DECIMAL_NUMBER.fullmatch(value) is None or not math.isfinite(float(value)):
        raise ParseError(path, number, f"{name} {value!r} is not a valid float (a decimal "
                                       "number is expected)")
    result = float(value)
    if result < 0:
        raise ParseError(path, number, f"{name} {value!r} is negative")
    return result


def _width(path: PathLike, number: int, fields: list[str], widths: tuple[int, ...],
           layout: str) -> None:
    if len(fields) not in widths:
        expected = " or ".join(str(w) for w in widths)
        raise ParseError(path, number, f"expected {expected} fields ({layout}), found "
                                       f"{len(fields)}")


def _no_lines(path: PathLike) -> InputError:
    return InputError(f"{os.fspath(path)}: the file has no data lines")


def read_dqrels_frame(path: PathLike, *, sep: str | None = None) -> pd.DataFrame:
    """Read NTCIR qrels: diversity qrels (``topic intent docno L<level>``, a ``Dqrels``
    file) or adhoc qrels (``topic docno L<level>``, intent ``"0"``), whichever the first
    line is; every line must have the same number of fields.

    Returns
    -------
    pandas.DataFrame
        Columns ``topic``, ``intent``, ``docno`` (str), ``level`` (int64) and ``line``
        (the 1-based line number); ``attrs["adhoc"]`` is True for adhoc qrels. A (topic,
        intent, docno) judged twice is refused with both lines, as is a positive level
        under intent ``"0"`` in a topic with another intent. Lines are as written: the
        non-relevant documents of a Dqrels file stay under intent ``"0"`` (see
        :func:`dqrels_frame`).
    """
    rows: list[tuple[str, str, str, int, int]] = []
    seen: dict[tuple[str, str, str], int] = {}
    relevant_zero: dict[str, int] = {}  # a topic's first line giving intent 0 a level > 0
    other_intent: dict[str, int] = {}  # a topic's first line of an intent other than 0
    width = None
    for number, fields in _lines(path, sep):
        if width is None:
            _width(path, number, fields, (3, 4), "topic intent docno level, or topic docno "
                   "level")
            width = len(fields)
        layout = ("topic intent docno level" if width == 4 else "topic docno level")
        _width(path, number, fields, (width,), layout)
        topic = _label(path, number, "topic", fields[0])
        intent = _label(path, number, "intent", fields[1]) if width == 4 else "0"
        docno = _label(path, number, "docno", fields[-2])
        level = _level(path, number, fields[-1])
        if width == 4:
            _check_intent_zero(path, number, topic, intent, docno, level, relevant_zero,
                               other_intent)
        key = (topic, intent, docno)
        if key in seen:
            name = os.fspath(path)
            raise InputError(f"{name}:{seen[key]}, {name}:{number}: topic {topic} intent "
                             f"{intent} docno {docno} is judged more than once")
        seen[key] = number
        rows.append((topic, intent, docno, level, number))
    if not rows:
        raise _no_lines(path)
    frame = pd.DataFrame(rows, columns=["topic", "intent", "docno", "level", "line"])
    frame["level"] = frame["level"].astype(np.int64)
    frame.attrs["adhoc"] = width == 3
    return frame


def _check_intent_zero(path: PathLike, number: int, topic: str, intent: str, docno: str,
                       level: int, relevant_zero: dict[str, int],
                       other_intent: dict[str, int]) -> None:
    """Refuse a Dqrels line that makes intent 0 of its topic both the marker of judged
    non-relevant documents and an intent with a relevant document; record where each
    use starts (``relevant_zero``, ``other_intent``: topic to line number)."""
    if intent != NONRELEVANT_INTENT:
        if topic in relevant_zero:
            raise ParseError(path, number, f"topic {topic} intent {intent}: intent 0 has a "
                                           f"relevant document on line "
                                           f"{relevant_zero[topic]}, so it must be the "
                                           "topic's only intent")
        other_intent.setdefault(topic, number)
    elif level > 0:
        if topic in other_intent:
            raise ParseError(path, number, f"topic {topic} docno {docno}: intent 0 lists "
                                           f"judged non-relevant documents (L0) beside the "
                                           f"topic's other intents (line "
                                           f"{other_intent[topic]}), not L{level}")
        relevant_zero.setdefault(topic, number)


def read_iprob(path: PathLike, *, sep: str | None = None) -> pd.DataFrame:
    """Read intent probabilities: an ``Iprob`` file (``topic intent probability``) or a
    ``DINprob`` file (``topic intent probability inf|nav``); a line without the type is
    informational, as in NTCIREVAL's ``DIN-splitqrels``.

    Returns
    -------
    pandas.DataFrame
        Columns ``topic``, ``intent`` (str), ``probability`` (float64, finite, >= 0),
        ``intent_type`` (``"inf"`` or ``"nav"``), ``order`` (0-based position of the intent
        among its topic's lines) and ``line``; ``attrs["types"]`` is True when some line
        gives a type. A type other than ``inf``/``nav`` and a (topic, intent) listed twice
        are refused with the file and the line.
    """
    rows = []
    seen: dict[tuple[str, str], int] = {}
    typed = False
    for number, fields in _lines(path, sep):
        _width(path, number, fields, (3, 4), "topic intent probability [inf|nav]")
        topic = _label(path, number, "topic", fields[0])
        intent = _label(path, number, "intent", fields[1])
        probability = _number(path, number, "probability", fields[2])
        kind = "inf"
        if len(fields) == 4:
            typed = True
            kind = fields[3]
            if kind not in INTENT_TYPES:
                raise ParseError(path, number, f"topic {topic} intent {intent}: intent type "
                                               f"{kind!r} is neither 'inf' nor 'nav'")
        if (topic, intent) in seen:
            raise ParseError(path, number, f"topic {topic} intent {intent} is listed twice "
                                           f"(first on line {seen[topic, intent]})")
        seen[topic, intent] = number
        rows.append((topic, intent, probability, kind, number))
    if not rows:
        raise _no_lines(path)
    frame = pd.DataFrame(rows, columns=["topic", "intent", "probability", "intent_type",
                                        "line"])
    frame.insert(4, "order", frame.groupby("topic", sort=False).cumcount().astype(np.int64))
    frame.attrs["types"] = typed
    return frame


def _per_topic(path: PathLike, sep: str | None, value: str) -> pd.DataFrame:
    rows = []
    seen: dict[str, int] = {}
    for number, fields in _lines(path, sep):
        _width(path, number, fields, (2,), f"docno {value}")
        docno = _label(path, number, "docno", fields[0])
        if docno in seen:
            raise ParseError(path, number, f"docno {docno} is listed twice (first on line "
                                           f"{seen[docno]})")
        seen[docno] = number
        rows.append((docno, _level(path, number, fields[1]) if value == "level"
                     else _number(path, number, "gain", fields[1]), number))
    frame = pd.DataFrame(rows, columns=["docno", value, "line"])
    frame[value] = frame[value].astype(np.int64 if value == "level" else np.float64)
    return frame


def read_rel(path: PathLike, *, sep: str | None = None) -> pd.DataFrame:
    """Read one topic's ``rel`` file (``docno L<level>``, what ``NTCIRsplitqrels``
    writes and ``ntcir_eval label -r`` reads) into ``docno``, ``level`` (int64) and
    ``line``; an empty file is a topic without judgments."""
    return _per_topic(path, sep, "level")


def read_relv(path: PathLike, *, sep: str | None = None) -> pd.DataFrame:
    """Read one topic's ``relv`` file (``docno gain``, an ideal list: the ``Irelv`` and
    ``Grelv`` files of ``DIN-splitqrels``, read by ``ntcir_eval glabel -I``) into
    ``docno``, ``gain`` (float64, >= 0) and ``line``, in the file's order."""
    return _per_topic(path, sep, "gain")


def read_res(path: PathLike) -> pd.DataFrame:
    """Read one topic's ``res`` file (a ranked list: one docno per line, the line being
    the rank, as ``TRECsplitruns`` writes it) into ``rank`` (1-based) and ``docno``.

    ``ntcir_eval`` takes a whole line as the docno, so a blank line inside the list would
    be an unjudged document at its rank: it is refused, as is a docno listed twice. An
    empty file is an empty ranked list.
    """
    check_file(path)
    docnos: list[str] = []
    seen: dict[str, int] = {}
    blank = None
    with open_text(path) as fh:
        for number, line in enumerate(fh, start=1):
            docno = line.rstrip("\r\n")
            if not docno.strip(BLANK):
                blank = blank or number
                continue
            if blank is not None:
                raise ParseError(path, blank, "a blank line inside a ranked list (ntcir_eval "
                                              "would rank an unjudged document there)")
            docno = _label(path, number, "docno", docno.strip(BLANK))
            if docno in seen:
                raise ParseError(path, number, f"docno {docno} is ranked twice (first on line "
                                               f"{seen[docno]})")
            seen[docno] = number
            docnos.append(docno)
    return pd.DataFrame({"rank": np.arange(1, len(docnos) + 1, dtype=np.int64),
                         "docno": pd.Series(docnos, dtype=object)})


def _topic_ids(topics) -> list[str]:
    """Topic IDs from a list, or from a file of one topic ID a line (NTCIREVAL's ``tid``
    files)."""
    if not isinstance(topics, (str, os.PathLike)):
        return [str(t) for t in topics]
    ids = []
    for number, fields in _lines(topics, None):
        _width(topics, number, fields, (1,), "topic")
        ids.append(_label(topics, number, "topic", fields[0]))
    return ids


def res_path(folder: PathLike, topic: str, run: str) -> str:
    """Where NTCIREVAL's scripts keep a topic's ranked list of a run:
    ``folder/<topic>/<topic>.<run>.res``."""
    return os.path.join(os.fspath(folder), topic, f"{topic}.{run}.res")


def read_res_runs(folder: PathLike, runs, topics) -> xr.Dataset:
    """Read the ``res`` files of NTCIREVAL's layout (``folder/<topic>/<topic>.<run>.res``,
    what ``TRECsplitruns`` writes) into a Runs dataset.

    Parameters
    ----------
    folder : path-like
        The experiment folder (the topics' folders are in it).
    runs : list of str
        The run names.
    topics : list of str or path-like
        The topic IDs, or a file of one topic ID a line (a ``tid`` file).

    Returns
    -------
    xarray.Dataset
        Ranked in the files' order (``order="rank"``); the score of the document at rank
        k of n is n - k + 1. A missing file is an error; an empty one, a topic the run
        retrieves nothing for.
    """
    frames = []
    for run in runs:
        for topic in _topic_ids(topics):
            res = read_res(res_path(folder, topic, str(run)))
            frames.append(res.assign(run=str(run), topic=topic,
                                     score=(len(res) - res["rank"] + 1).astype(np.float64)))
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if frame.empty:
        raise InputError(f"{os.fspath(folder)}: the res files of runs {list(runs)} hold no "
                         "document")
    out = build_runs(frame, order="rank")
    out.attrs["source"] = os.fspath(folder)
    return out


def write_res_files(folder: PathLike, runs: xr.Dataset, topics=None) -> list[str]:
    """Write each run's ranked lists as NTCIREVAL's ``res`` files,
    ``folder/<topic>/<topic>.<run>.res`` (as ``TRECsplitruns`` does: an empty file for a
    topic the run lacks), for the runs' topics or the ``topics`` given (a list or a
    ``tid`` file). Returns the paths written."""
    frame = runs_frame(runs)
    ranked = {key: group["docno"].tolist()
              for key, group in frame.groupby(["run", "topic"], sort=False)}
    written = []
    for run in runs["run"].values:
        for topic in (_topic_ids(topics) if topics is not None
                      else [str(t) for t in runs["topic"].values]):
            path = res_path(folder, topic, str(run))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            write_res(path, ranked.get((run, topic), []))
            written.append(path)
    return written


def _write_lines(path: PathLike, columns: list[np.ndarray], sep: str = " ") -> None:
    """Write the columns' values as lines of fields joined by ``sep`` (an empty file for
    no rows), replacing ``path`` atomically, gzipped when its name ends with ``.gz``."""
    text = check_output_path(path)
    lines = [sep.join(row) for row in zip(*(np.asarray(c).astype(str) for c in columns))]
    with atomic_output(text, gzip=text.endswith(".gz")) as fh:
        fh.write("".join(line + "\n" for line in lines))


def dqrels_frame(frame: pd.DataFrame, intents: pd.DataFrame | None = None) -> pd.DataFrame:
    """The lines of :func:`read_dqrels_frame` as the collection reads them: each document
    judged under intent ``"0"`` becomes level 0 for every intent of its topic that has no
    line for it (the topic's intents are those of the other lines and of ``intents``, a
    frame with ``topic`` and ``intent``, e.g. :func:`read_iprob`'s). A topic without any
    other intent, and one whose intent ``0`` has a relevant document (its only intent),
    keep their intent-``0`` lines. ``line`` says where each row came from."""
    adhoc = frame.attrs.get("adhoc", False)
    zero = (frame["intent"] == NONRELEVANT_INTENT).to_numpy() & (not adhoc)
    zero &= ~frame["topic"].isin(frame.loc[zero & (frame["level"] > 0).to_numpy(),
                                           "topic"]).to_numpy()
    if not zero.any():
        return frame
    kept = frame[~zero]
    pairs = [kept[["topic", "intent"]]]
    if intents is not None:
        pairs.append(intents[["topic", "intent"]].astype(str))
    known = pd.concat(pairs).drop_duplicates()
    known = known[known["intent"] != NONRELEVANT_INTENT]
    nonrel = frame[zero]
    expanded = nonrel.drop(columns="intent").merge(known, on="topic", how="inner")
    present = pd.MultiIndex.from_frame(kept[["topic", "intent", "docno"]])
    expanded = expanded[~pd.MultiIndex.from_frame(
        expanded[["topic", "intent", "docno"]]).isin(present)]
    alone = nonrel[~nonrel["topic"].isin(known["topic"])]
    out = pd.concat([kept, expanded[frame.columns], alone], ignore_index=True)
    out.attrs = dict(frame.attrs)
    return out


def iprob_frame(collection) -> pd.DataFrame:
    """The intent probabilities of a collection as an Iprob/DINprob frame: one row per
    intent of each topic (in the collection's intent order) with ``topic``, ``intent``,
    ``probability`` (``intent_prob``, 0 for an intent without a relevant document) and
    ``intent_type``."""
    exists = collection["intent_exists"].values | collection["intent_valid"].values
    order = np.where(exists, collection["intent_order"].values, np.iinfo(np.int64).max)
    rows = []
    topics = collection["topic"].values
    intents = collection["intent"].values
    prob = collection["intent_prob"].values
    types = collection["intent_type"].values
    for t in range(len(topics)):
        for i in np.argsort(order[t], kind="stable"):
            if exists[t, i]:
                rows.append((str(topics[t]), str(intents[i]), float(prob[t, i]),
                             str(types[t, i]) or "inf"))
    return pd.DataFrame(rows, columns=["topic", "intent", "probability", "intent_type"])


def write_dqrels(path: PathLike, qrels: xr.Dataset | pd.DataFrame, *,
                 sep: str = " ") -> None:
    """Write a collection, or a tidy qrels frame (``topic intent docno level``), as NTCIR
    qrels.

    Diversity qrels become a Dqrels file: a document judged (level 0) for every intent of
    its topic and relevant to none is one ``topic 0 docno L0`` line, provided every
    intent of the topic keeps a line of its own (otherwise the topic's judgments are
    all written out); every other judgment is a line of its own. A topic's intents are
    those of the collection (of a frame: those of its lines).
    Reading the file back with :func:`xdiv.read_qrels` (``format="ntcir"``) gives the
    same judgments. Adhoc qrels (one intent, ``0``) become NTCIR adhoc qrels
    (``topic docno L<level>``). A topic whose only intent is ``0`` (a topic judged as a
    whole, as the TREC Web Track's single-facet topics of 2013 and 2014) keeps its lines
    under intent ``0``, positive levels included; a positive level under intent ``0`` in
    a topic with other intents cannot be written as a Dqrels file and is refused.
    NTCIREVAL's ``dinlabel`` reads the intents 1 to 64 only: writing a topic judged
    under intent ``0`` warns (:class:`~xdiv.errors.XdivWarning`) that its DIN-measures
    would find no relevant document.
    Negative (spam) levels are written as ``L0``.
    """
    intents = None
    if isinstance(qrels, xr.Dataset):
        exists = qrels["intent_exists"].values | qrels["intent_valid"].values
        t, i = np.nonzero(exists)
        intents = pd.Series(qrels["intent"].values[i].astype(str),
                            index=qrels["topic"].values[t].astype(str))
        qrels = qrels_frame(qrels)
    q = pd.DataFrame({"topic": qrels["topic"].astype(str), "intent": qrels["intent"].astype(str),
                      "docno": qrels["docno"].astype(str),
                      "label": "L" + qrels["level"].clip(lower=0).astype(np.int64).astype(str)})
    zero = (qrels["level"] <= 0).to_numpy()
    under_zero = (q["intent"] == NONRELEVANT_INTENT).to_numpy()
    if under_zero.all():
        _write_lines(path, [q[c].to_numpy() for c in ("topic", "docno", "label")], sep=sep)
        return
    relevant_zero = under_zero & ~zero
    other = q.loc[~under_zero, "topic"]
    if intents is not None:
        other = pd.concat([other, pd.Series(intents.index[intents != NONRELEVANT_INTENT])])
    clash = relevant_zero
    if relevant_zero.any():  # isin's time grows with the length of what it looks in
        clash = relevant_zero & q["topic"].isin(other.unique()).to_numpy()
    if clash.any():
        k = int(np.argmax(clash))
        raise InputError(f"{os.fspath(path)}: topic {q['topic'].iloc[k]} docno "
                         f"{q['docno'].iloc[k]}: intent 0 marks judged non-relevant "
                         "documents in a Dqrels file, and these qrels give it a positive "
                         "level beside other intents")
    if relevant_zero.any():
        whole = sorted(set(q.loc[relevant_zero, "topic"]))
        warn(f"{os.fspath(path)}: topic(s) {', '.join(whole)} are judged under intent 0, "
             "their only intent; NTCIREVAL's dinlabel reads the intents 1 to 64 only (it "
             "says 'store_din failed' and labels no document), so its DIN-measures of "
             "these topics find no relevant document", XdivWarning)
    n_intents = (q.groupby("topic")["intent"].nunique() if intents is None
                 else intents.groupby(level=0).nunique())
    doc = pd.MultiIndex.from_frame(q[["topic", "docno"]])
    per_doc = pd.DataFrame({"zero": zero}, index=doc).groupby(level=[0, 1])["zero"].agg(
        ["all", "size"])
    covering = per_doc["all"] & (per_doc["size"].to_numpy()
                                 == n_intents.reindex(per_doc.index.get_level_values(0))
                                 .to_numpy())
    folded = doc.isin(per_doc.index[covering.to_numpy()])
    # a topic whose intents would not all keep a line of their own is not folded
    kept = q[~folded].groupby("topic")["intent"].nunique().reindex(n_intents.index,
                                                                     fill_value=0)
    folded &= q["topic"].isin(kept[kept == n_intents].index).to_numpy()
    nonrel = q[folded][["topic", "docno"]].drop_duplicates().assign(
        intent=NONRELEVANT_INTENT, label="L0")
    lines = pd.concat([q[~folded], nonrel[q.columns]], ignore_index=True)
    lines = lines.sort_values(["topic", "docno", "intent"], kind="stable")
    _write_lines(path, [lines[c].to_numpy() for c in ("topic", "intent", "docno", "label")],
                 sep=sep)


def write_iprob(path: PathLike, probabilities: pd.DataFrame, *, types: bool = False,
                sep: str = " ") -> None:
    """Write intent probabilities (``topic intent probability [intent_type]``, e.g.
    :func:`iprob_frame`) as an Iprob file, or a DINprob file with ``types``.
    Probabilities are written with ``repr`` precision."""
    columns = [probabilities["topic"].to_numpy(), probabilities["intent"].to_numpy(),
               np.array([repr(float(p)) for p in probabilities["probability"]], dtype=object)]
    if types:
        columns.append(probabilities["intent_type"].to_numpy())
    _write_lines(path, columns, sep=sep)


def write_rel(path: PathLike, rel: pd.DataFrame, *, sep: str = " ") -> None:
    """Write one topic's judgments (``docno level``) as a ``rel`` file (``docno L<level>``)."""
    _write_lines(path, [rel["docno"].to_numpy(),
                        ("L" + rel["level"].astype(str)).to_numpy()], sep=sep)


def write_relv(path: PathLike, relv: pd.DataFrame, *, sep: str = " ") -> None:
    """Write one topic's ideal list (``docno gain``) as a ``relv`` file, in the frame's
    order, gains with ``repr`` precision."""
    _write_lines(path, [relv["docno"].to_numpy(),
                        np.array([repr(float(g)) for g in relv["gain"]], dtype=object)],
                 sep=sep)


def write_res(path: PathLike, docnos) -> None:
    """Write one topic's ranked list (docnos, best first) as a ``res`` file."""
    _write_lines(path, [np.asarray(list(docnos), dtype=object)])


def read_eqrels_frame(path: PathLike, *, sep: str = ";") -> pd.DataFrame:
    """Read NTCIREVAL's eqrels: adhoc qrels whose relevant items form equivalence classes
    (Sakai, ACM TALIP 2007), ``topic;docno;L<level>;class`` with a semicolon between the
    fields by default, since the items (answer strings) may hold spaces.

    Returns
    -------
    pandas.DataFrame
        Columns ``topic``, ``docno`` (str), ``level`` (int64), ``eq_class`` (int64, the
        class: a whole number >= 1) and ``line``. A (topic, docno) listed twice is refused
        with both lines.
    """
    rows: list[tuple[str, str, int, int, int]] = []
    seen: dict[tuple[str, str], int] = {}
    for number, fields in _lines(path, sep):
        _width(path, number, fields, (4,), "topic docno level class")
        topic = _label(path, number, "topic", fields[0])
        docno = _label(path, number, "docno", fields[1])
        level = _level(path, number, fields[2])
        eq_class = fields[3].strip(BLANK)
        if re.fullmatch(r"[0-9]+", eq_class) is None or int(eq_class) < 1:
            raise ParseError(path, number, f"topic {topic} docno {docno}: class "
                                           f"{fields[3]!r} is not a whole number >= 1")
        if (topic, docno) in seen:
            raise ParseError(path, number, f"topic {topic} docno {docno} is listed twice "
                                           f"(first on line {seen[topic, docno]})")
        seen[topic, docno] = number
        rows.append((topic, docno, level, int(eq_class), number))
    if not rows:
        raise _no_lines(path)
    frame = pd.DataFrame(rows, columns=["topic", "docno", "level", "eq_class", "line"])
    return frame.astype({"level": np.int64, "eq_class": np.int64})


def write_eqrels(path: PathLike, collection: xr.Dataset, *, sep: str = ";") -> None:
    """Write a collection with equivalence classes (``eq_class``, as
    ``xdiv.read_qrels(..., format="ntcir-eqrels")`` reads them) as NTCIREVAL's eqrels,
    ``topic;docno;L<level>;class`` lines sorted by topic and docno, negative levels as
    ``L0``; reading the file back gives the same collection.

    Raises
    ------
    InputError
        The collection has no classes, or several intents; a judged document has no
        class >= 1 (eqrels has no line for it), or holds the separator.
    """
    if "eq_class" not in collection:
        raise InputError(f"{os.fspath(path)}: the collection has no equivalence classes "
                         "(eq_class) to write")
    frame = qrels_frame(collection)
    if frame["intent"].nunique() > 1:
        raise InputError(f"{os.fspath(path)}: eqrels are adhoc qrels, and the collection "
                         "has several intents")
    slots = {(str(t), str(d)): int(c) for t, row, classes in
             zip(collection["topic"].values, collection["docno"].values,
                 collection["eq_class"].values) for d, c in zip(row, classes) if d != ""}
    classes = np.array([slots[str(t), str(d)] for t, d in zip(frame["topic"], frame["docno"])],
                       dtype=np.int64)
    for k in range(len(frame)):
        topic, docno = frame["topic"].iloc[k], frame["docno"].iloc[k]
        if classes[k] < 1:
            raise InputError(f"{os.fspath(path)}: topic {topic} docno {docno} has no class "
                             ">= 1 (eqrels give every document one)")
        if sep in str(topic) or sep in str(docno):
            raise InputError(f"{os.fspath(path)}: topic {topic} docno {docno} holds the "
                             f"separator {sep!r}")
    labels = "L" + frame["level"].clip(lower=0).astype(np.int64).astype(str)
    _write_lines(path, [frame["topic"].to_numpy(), frame["docno"].to_numpy(),
                        labels.to_numpy(), classes], sep=sep)
