"""NTCIR-11 IMine ground truth: two-layer intent hierarchies and document-ranking qrels.

IMine (Liu et al., NTCIR-11, 2014) released its intent hierarchies as XML, one file per
language (``IMine.Qrel.SMC.xml``, ``IMine.Qrel.SME.xml``)::

    <topic id="0051" content="apple">
      <fls content="apple_company" poss="0.6">          first-level subtopic, P(fls|q)
        <sls content="apple_company_product" poss="0.3">   second-level subtopic, P(sls|q)
          <example>...</example>
        </sls>
      </fls>
    </topic>

Nodes are identified by their ``content`` label (unique within a topic); ``poss`` of the
first-level subtopics sums to 1 per topic and ``poss`` of the second-level subtopics sums
to 1 over the whole topic. The document-ranking qrels (``IMine.Qrel.DRC.xml``,
``IMine.Qrel.DRE.xml``) hold ``<doc docid= queryid= relevance= [sls=]>`` elements: one
per judged document without ``sls`` (its overall grade) and one per (document,
second-level subtopic) it serves, carrying the same overall grade. Grades are 0
(inaccessible), 1 (irrelevant), 2 (relevant) and 3 (very relevant); the organisers'
conversion for NTCIREVAL subtracts 1 (L2, L1, L0, and -1 for inaccessible pages).

Every element's line is tracked, so errors name ``file:line``.
"""

from __future__ import annotations

import os
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Iterator

import numpy as np
import pandas as pd
import xarray as xr

from ..core.collection import build_collection
from ..errors import ParseError, XdivWarning
from ..core.hierarchy import Kind, Scheme, attach_hierarchy
from ._guard import DECIMAL_NUMBER, control_message, open_text
from ..typing import IMINE_LEVELS, ImineLevels

Levels = ImineLevels


def _elements(path: str | os.PathLike) -> Iterator[tuple[ET.Element, int]]:
    """Yield ``(element, line)`` for every start tag, ``line`` being where it starts.

    The whole file is parsed before the first element is yielded, so that a truncated or
    malformed file is reported as such (``file:line: not well-formed XML``) rather than by
    whatever check an element near the damage fails first. The parsed tree is held in
    memory either way.
    """
    parser = ET.XMLPullParser(events=("start",))
    found = []
    with open_text(path, xml=True) as fh:
        try:
            for number, line in enumerate(fh, start=1):
                parser.feed(line)
                found += [(element, number) for _, element in parser.read_events()]
            parser.close()
        except ET.ParseError as exc:
            at = exc.position[0] if exc.position else None
            raise ParseError(path, at, f"not well-formed XML ({exc})") from None
    yield from found


def _attribute(path, line, element: ET.Element, name: str) -> str:
    value = element.get(name)
    if value is None or not value.strip():
        raise ParseError(path, line, f"<{element.tag}> has no {name} attribute")
    return _label(path, line, element, name, value.strip())


def _label(path, line, element: ET.Element, name: str, value: str) -> str:
    """``value``, unless it holds a control character (``&#9;``, DEL, ...)."""
    error = control_message(f"<{element.tag}> {name}", value)
    if error is not None:
        raise ParseError(path, line, error)
    return value


def _probability(path, line, element: ET.Element) -> float:
    raw = _attribute(path, line, element, "poss")
    if not DECIMAL_NUMBER.fullmatch(raw):  # float() also takes 1_0, nan, infinity
        raise ParseError(path, line, f"poss {raw!r} is not a number (a decimal number "
                                     "such as 0.25 or 1e-3 is expected)")
    value = float(raw)
    if not np.isfinite(value) or value < 0:
        raise ParseError(path, line, f"poss {raw!r} is not a non-negative probability")
    return value


def read_imine_hierarchy(path: str | os.PathLike) -> pd.DataFrame:
    """Read an IMine subtopic-mining qrels file (``IMine.Qrel.SM?.xml``) as a hierarchy.

    Returns
    -------
    pandas.DataFrame
        The tidy hierarchy frame of :func:`xdiv.hierarchy.read_hierarchy`: columns
        ``topic``, ``node``, ``parent`` (``""`` for first-level subtopics), ``weight``
        (``poss``) and ``intent``. Second-level subtopics are the leaves and their intent
        is their label; a first-level subtopic without second-level ones is a leaf itself.

    Raises
    ------
    ParseError
        Malformed XML, a missing ``id``/``content``/``poss``, a ``poss`` that is not a
        probability, a subtopic outside its parent element, or a label used twice in a
        topic (``file:line``).
    """
    rows: list[list] = []
    topic, fls, seen = None, None, {}
    for element, line in _elements(path):
        if element.tag == "topic":
            topic, fls, seen = _attribute(path, line, element, "id"), None, {}
        elif element.tag in ("fls", "sls"):
            if topic is None:
                raise ParseError(path, line, f"<{element.tag}> outside a <topic>")
            label = _attribute(path, line, element, "content")
            if label in seen:
                raise ParseError(path, line, f"topic {topic}: subtopic {label!r} is listed "
                                             f"twice (first at line {seen[label]})")
            seen[label] = line
            weight = _probability(path, line, element)
            if element.tag == "fls":
                fls = len(rows)
                rows.append([topic, label, "", weight, label])
            elif fls is None:
                raise ParseError(path, line, f"topic {topic}: <sls> {label!r} is not inside "
                                             "an <fls>")
            else:
                rows[fls][4] = ""  # a first-level subtopic with children is not a leaf
                rows.append([topic, label, rows[fls][1], weight, label])
    if not rows:
        raise ParseError(path, None, "no <topic> with <fls> subtopics found")
    return pd.DataFrame(rows, columns=["topic", "node", "parent", "weight", "intent"])


def read_imine_qrels(path: str | os.PathLike, *, levels: Levels = "ntcir") -> pd.DataFrame:
    """Read IMine document-ranking qrels (``IMine.Qrel.DR?.xml``) into a tidy frame.

    Parameters
    ----------
    levels : {"ntcir", "raw"}
        ``"ntcir"``: level = grade - 1 (the organisers' NTCIREVAL files: very relevant
        L2, relevant L1, irrelevant L0, inaccessible -1, i.e. judged non-relevant);
        ``"raw"``: the grade as written.

    Returns
    -------
    pandas.DataFrame
        ``topic intent docno level`` rows: one per (document, second-level subtopic) it
        serves, and for every judged document serving no subtopic one row with intent
        ``"0"`` at level 0 (or below), as in the organisers' files. Intent ``"0"`` never
        has a relevant document, so collections drop it (as ndeval drops such intents).

    Raises
    ------
    ParseError
        Malformed XML, missing attributes, a grade outside 0..3, or the same (document,
        subtopic) twice, with ``file:line``.
    """
    if levels not in IMINE_LEVELS:
        raise ValueError(f"levels must be 'ntcir' or 'raw', not {levels!r}")
    shift = 1 if levels == "ntcir" else 0
    served, overall, lines = [], {}, {}
    for element, line in _elements(path):
        if element.tag != "doc":
            continue
        topic = _attribute(path, line, element, "queryid")
        docno = _attribute(path, line, element, "docid")
        raw = _attribute(path, line, element, "relevance")
        if raw not in ("0", "1", "2", "3"):
            raise ParseError(path, line, f"relevance {raw!r} is not one of 0, 1, 2, 3")
        intent = _label(path, line, element, "sls", (element.get("sls") or "").strip())
        key = (topic, intent, docno)
        if key in lines:
            what = f"subtopic {intent!r}" if intent else "an overall grade"
            raise ParseError(path, line, f"topic {topic} docno {docno}: {what} is judged "
                                         f"twice (first at line {lines[key]})")
        lines[key] = line
        if intent:
            served.append((topic, intent, docno, int(raw) - shift))
        else:
            overall[(topic, docno)] = int(raw) - shift
    if not lines:
        raise ParseError(path, None, "no <doc> judgments found")
    serving = {(t, d) for t, _, d, _ in served}
    unserved = [(t, "0", d, min(level, 0)) for (t, d), level in overall.items()
                if (t, d) not in serving]
    return pd.DataFrame(served + unserved, columns=["topic", "intent", "docno", "level"])


def read_imine(hierarchy: str | os.PathLike, qrels: str | os.PathLike, *,
               kind: Kind = "EIH", weights: Scheme = "NB", levels: Levels = "ntcir",
               layer_weights=None) -> xr.Dataset:
    """Read IMine's hierarchy and document-ranking qrels into a collection with its
    hierarchy attached.

    The intents are the second-level subtopics (fine grain) with ``Pr(i|q)`` = their
    ``poss``, renormalised over the intents with relevant documents. Wang et al. (IEEE TKDE
    2018) recommend ``weights="NB"`` on IMine (the given leaf weights, summed upwards);
    ``"NT"`` uses the given weights of both layers. ``layer_weights=(1, 0)`` restricts the layer-aware
    measures (``D#-nDCG-LA``, ...) to the first-level subtopics (coarse grain).
    """
    tree = read_imine_hierarchy(hierarchy)
    judgments = read_imine_qrels(qrels, levels=levels)
    leaves = tree[tree["intent"] != ""]
    known = set(zip(leaves["topic"], leaves["intent"]))
    stray = judgments[(judgments["intent"] != "0") & (judgments["level"] > 0)]
    stray = stray[[(t, i) not in known for t, i in zip(stray["topic"], stray["intent"])]]
    if len(stray):
        row = stray.iloc[0]
        raise ParseError(qrels, None, f"topic {row['topic']} docno {row['docno']}: subtopic "
                                      f"{row['intent']!r} is not a leaf of {os.fspath(hierarchy)}")
    leaves = leaves[leaves["topic"].isin(set(judgments["topic"]))]
    probabilities = leaves.rename(columns={"weight": "probability"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XdivWarning)  # intent "0" is dropped by design
        collection = build_collection(judgments, topics=leaves[["topic", "intent"]],
                                      probabilities=probabilities[["topic", "intent",
                                                                   "probability"]],
                                      source=os.fspath(qrels))
    tree = tree[tree["topic"].isin(set(collection["topic"].values))]
    return attach_hierarchy(collection, tree, kind=kind, weights=weights,
                            layer_weights=layer_weights)
