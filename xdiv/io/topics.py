"""TREC Web Track topic files (XML): the topics' queries and their subtopics (intents) with their types."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from xml.parsers import expat

import pandas as pd

from ..errors import InputError, ParseError, XdivWarning
from ._guard import control_message, open_text
from .._warnings import warn

__all__ = ["read_topics"]

PathLike = str | os.PathLike


def read_topics(path: PathLike, *, strict: bool = False) -> pd.DataFrame:
    """Read a TREC Web Track topic file (XML).

    Parameters
    ----------
    path : str or path-like
        The topic file (gzip is recognised by content).
    strict : bool
        Refuse a subtopic type other than ``inf`` and ``nav`` instead of reading it as
        ``inf`` (see Notes).

    Returns
    -------
    pandas.DataFrame
        One row per (topic, subtopic) in file order, columns ``topic``, ``intent``,
        ``intent_type`` (``inf``/``nav``, default ``inf``), ``topic_type`` (as in the
        file, e.g. ``faceted``/``ambiguous``/``single``; empty if absent), ``query`` and
        ``order`` (0-based position of the subtopic within its topic). A topic without
        subtopics (TREC 2013-14 ``single`` topics) gets one row with intent ``"0"``, the
        intent id those years' qrels use for it.

    Raises
    ------
    ParseError
        The file is not well-formed XML, a ``<topic>`` or ``<subtopic>`` has no
        ``number`` attribute or one holding a control character (such as ``&#9;`` or
        DEL), or (with ``strict``) a subtopic has an unknown type; the
        message names the file, the line and, where known, the topic and subtopic.
    InputError
        The file holds no ``<topic>``, or a topic lists the same subtopic twice.

    Warns
    -----
    XdivWarning
        For each subtopic of unknown type read as ``inf`` (see Notes), naming the file,
        line, topic, subtopic and type.

    Notes
    -----
    A subtopic without a ``type`` attribute is informational (``inf``), the default of
    the Web Track's topic DTD. A subtopic whose type is neither ``inf`` nor ``nav`` is
    also read as informational, with a warning: the official TREC 2011 topic file has
    ``type="inv"`` (topic 102) and ``type="inav"`` (topic 138).
    """
    try:
        with open_text(path, xml=True) as fh:
            text = fh.read()
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        line = exc.position[0] if exc.position else None
        raise ParseError(path, line, f"not a well-formed topic XML file ({exc})") from None
    line_of = dict(zip(root.iter(), _start_lines(text)))
    rows = []
    for topic in root.iter("topic"):
        number = topic.get("number")
        if number is None:
            raise ParseError(path, line_of[topic],
                             "a <topic> element has no number attribute")
        if (error := control_message("topic", number)) is not None:
            raise ParseError(path, line_of[topic], error)
        query = (topic.findtext("query") or "").strip()
        ttype = topic.get("type", "")
        subtopics = topic.findall("subtopic")
        if not subtopics:
            rows.append((number, "0", "inf", ttype, query, 0))
        for order, sub in enumerate(subtopics):
            intent = sub.get("number")
            if intent is None:
                raise ParseError(path, line_of[sub],
                                 f"topic {number}: a <subtopic> element has no number attribute")
            if (error := control_message("subtopic", intent)) is not None:
                raise ParseError(path, line_of[sub], f"topic {number}: {error}")
            itype = sub.get("type", "inf")
            if itype not in ("inf", "nav"):
                what = (f"topic {number} subtopic {intent}: type {itype!r} is neither 'inf' "
                        "nor 'nav'")
                if strict:
                    raise ParseError(path, line_of[sub], what)
                warn(f"{os.fspath(path)}:{line_of[sub]}: {what}; read as 'inf' "
                              "(informational)", XdivWarning)
                itype = "inf"
            rows.append((number, intent, itype, ttype, query, order))
    if not rows:
        raise InputError(f"{os.fspath(path)}: no <topic> elements found")
    frame = pd.DataFrame(rows, columns=["topic", "intent", "intent_type", "topic_type",
                                        "query", "order"])
    dup = frame.duplicated(["topic", "intent"])
    if dup.any():
        t, i = frame.loc[dup.idxmax(), ["topic", "intent"]]
        raise InputError(f"{os.fspath(path)}: topic {t} lists subtopic {i} twice")
    return frame


def _start_lines(text: str) -> list[int]:
    """The line of every element's start tag in ``text`` (well-formed XML), in document
    order, the order in which :meth:`xml.etree.ElementTree.Element.iter` yields them."""
    lines: list[int] = []
    parser = expat.ParserCreate()
    parser.StartElementHandler = lambda *_: lines.append(parser.CurrentLineNumber)
    parser.Parse(text, True)
    return lines
