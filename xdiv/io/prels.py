"""Sampled judgments with their inclusion probabilities ("prels"), read into a collection
that the estimators statAP and infNDCG (:mod:`xdiv.measures.estimators`) read.

Two layouts, whitespace-separated, one judgment a line, every line of a file with the
same number of fields (gzip recognised by content, as every reader does):

- 4 fields, ``topic docno relevance probability``: a sampled document, its relevance
  level (a decimal integer, as in qrels) and its inclusion probability (a decimal number
  in [2^-53, 1]: see :data:`SMALLEST_INCLUSION`);
- 5 fields, ``topic docno relevance method probability``: the prels of the TREC Million
  Query track (2007-2008) and of the TREC 2009 Web track, as ``statAP_MQ_eval_v3.pl``
  reads them (ir_datasets' ``TrecPrel``: query_id, doc_id, relevance, method, iprob).
  They are read as that script reads them by default: a line of relevance -999 or of
  probability ``NA`` is a document that was not sampled, and is skipped; ``method`` (a
  decimal integer) is the selection method, and a document selected by the MTC method (0)
  or by both methods (2) has probability 1 whatever its line says.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import xarray as xr

from ..core.collection import build_collection
from ..errors import InputError, shown
from ..typing import LEVEL_RANGE
from ._guard import DECIMAL_INTEGER, DECIMAL_NUMBER, control_message, numbered_fields
from .provenance import recorded

__all__ = ["PRELS_LAYOUTS", "read_prels"]

PRELS_LAYOUTS = {4: "topic docno relevance probability",
                 5: "topic docno relevance method probability"}
"""The fields of a prels line, by their number."""

NOT_SAMPLED = "-999"
"""The relevance of a 5-field line whose document was not sampled (skipped)."""

NOT_AVAILABLE = "NA"
"""The probability of a 5-field line whose document has none (skipped)."""

SMALLEST_INCLUSION = 2.0 ** -53
"""The smallest inclusion probability read (about 1.1e-16). A sampled document stands for
1/probability documents in the estimators (Horvitz-Thompson weights); past 2^53 such a
count is no longer a whole number in double precision, and the estimates it enters (the
estimated number of relevant documents, statAP, the ideal list of infNDCG) cannot be
computed; a smaller probability, subnormal ones included, is refused."""

CERTAIN_METHODS = (0, 2)
"""The selection methods of the 5-field layout whose documents get probability 1 (MTC's
selection, alone or with statAP's sampling), as ``statAP_MQ_eval_v3.pl`` sets them."""


def _parse_line(where: str, fields: list[str], width: int):
    """``(topic, docno, level, probability)`` of one line, or None for a line of a document
    that was not sampled (5 fields only); InputError naming ``where`` (``FILE:LINE``)."""
    topic, docno, relevance = fields[0], fields[1], fields[2]
    for name, value in (("topic", topic), ("docno", docno)):
        problem = control_message(name, value)
        if problem is not None:
            raise InputError(f"{where}: {problem}")
    probability = fields[-1]
    if width == 5 and (relevance == NOT_SAMPLED or probability == NOT_AVAILABLE):
        return None
    if not DECIMAL_INTEGER.fullmatch(relevance):
        raise InputError(f"{where}: relevance '{shown(relevance)}' is not a decimal integer")
    level = int(relevance)
    if not LEVEL_RANGE[0] <= level <= LEVEL_RANGE[1]:
        raise InputError(f"{where}: relevance {level} is outside "
                         f"{LEVEL_RANGE[0]}..{LEVEL_RANGE[1]}")
    if not DECIMAL_NUMBER.fullmatch(probability):
        raise InputError(f"{where}: inclusion probability '{shown(probability)}' is not a "
                         "number")
    value = float(probability)
    if not 0.0 < value <= 1.0:
        raise InputError(f"{where}: inclusion probability {shown(probability)} is outside "
                         "(0, 1]")
    if value < SMALLEST_INCLUSION:
        raise InputError(f"{where}: inclusion probability {shown(probability)} is below "
                         "2^-53 (1.1e-16): its weight 1/probability is too large to estimate "
                         "from")
    if width == 5:
        method = fields[3]
        if not DECIMAL_INTEGER.fullmatch(method):
            raise InputError(f"{where}: method '{shown(method)}' is not a decimal integer")
        if int(method) in CERTAIN_METHODS:
            value = 1.0
    return topic, docno, level, value


@recorded(roles={"path": "prels"})
def read_prels(path) -> xr.Dataset:
    """Read sampled judgments with inclusion probabilities into a collection dataset.

    Parameters
    ----------
    path : str or path-like
        A prels file of 4 fields a line, ``topic docno relevance probability``, or of 5,
        ``topic docno relevance method probability`` (TREC Million Query track and TREC
        2009 Web track prels; see the module docstring for how they are read). The
        relevance is a decimal integer level, the probability a decimal number in (0, 1],
        at least 2^-53 (about 1.1e-16): the probability that the document was drawn into
        the judged sample.

    Returns
    -------
    xarray.Dataset
        The collection :func:`xdiv.read_qrels` reads from the adhoc qrels of the same
        judgments (``topic 0 docno relevance``: one intent, ``"0"``), with
        ``inclusion(topic, doc)`` (float64): the inclusion probability of each document
        slot's judgment, NaN in padding slots. The attribute ``inclusion`` names the file.

    Raises
    ------
    InputError
        One line naming the file and the line: a line with another number of fields than
        4 or 5 (or than the file's first line), a relevance that is not a decimal integer
        (or outside -127..127), a probability that is not a number, not in (0, 1] or below
        2^-53, a
        method that is not a decimal integer, a (topic, docno) given twice; also a file
        without a sampled judgment.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import xdiv
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name) / "prels.txt"
    >>> _ = path.write_text("1 d1 1 0.5\\n1 d2 0 0.25\\n1 d3 2 1\\n2 d4 1 1\\n")
    >>> collection = xdiv.read_prels(path)
    >>> dict(collection.sizes)
    {'topic': 2, 'intent': 1, 'doc': 3}
    >>> collection["inclusion"].sel(topic="1").values.tolist()
    [0.5, 0.25, 1.0]
    >>> collection["inclusion"].sel(topic="2").values.tolist()  # one judgment, then padding
    [1.0, nan, nan]
    >>> folder.cleanup()
    """
    source = os.fspath(path)
    topics, docnos, levels, probabilities, lines = [], [], [], [], []
    first_line: dict[tuple[str, str], int] = {}
    width = None
    for number, fields in numbered_fields(path):
        where = f"{source}:{number}"
        if width is None and len(fields) in PRELS_LAYOUTS:
            width = len(fields)
        if len(fields) != width:
            if width is None:
                expected = (" or ".join(map(str, PRELS_LAYOUTS)) + " whitespace-separated "
                            "fields (" + ", or ".join(PRELS_LAYOUTS.values()) + ")")
            else:
                expected = (f"{width} whitespace-separated fields ({PRELS_LAYOUTS[width]}), "
                            "as the first data line has")
            raise InputError(f"{where}: expected {expected}, found {len(fields)}")
        parsed = _parse_line(where, fields, width)
        if parsed is None:
            continue
        topic, docno, level, probability = parsed
        earlier = first_line.setdefault((topic, docno), number)
        if earlier != number:
            raise InputError(f"{where}: topic {shown(topic)} docno {shown(docno)} is judged "
                             f"more than once (also at line {earlier})")
        topics.append(topic)
        docnos.append(docno)
        levels.append(level)
        probabilities.append(probability)
        lines.append(number)
    if not topics:
        raise InputError(f"{source}: no sampled judgment (the file has no data lines, or "
                         "every line is of a document that was not sampled)")

    def locate(n_rows: int, rows: list[int]) -> str:
        return ", ".join(f"{source}:{lines[r]}" for r in rows)

    frame = pd.DataFrame({"topic": np.asarray(topics, dtype=object), "intent": "0",
                          "docno": np.asarray(docnos, dtype=object),
                          "level": np.asarray(levels, dtype=np.int64)})
    collection = build_collection(frame, source=source, locate=locate)
    grid = collection["docno"].values
    topic_of, slot_of = np.nonzero(grid != "")
    judged = pd.MultiIndex.from_arrays([topic_of, grid[topic_of, slot_of]])
    rows = judged.get_indexer(pd.MultiIndex.from_arrays(
        [pd.Index(collection["topic"].values).get_indexer(frame["topic"]), frame["docno"]]))
    inclusion = np.full(grid.shape, np.nan)
    inclusion[topic_of[rows], slot_of[rows]] = probabilities
    out = collection.assign(inclusion=(("topic", "doc"), inclusion))
    out.attrs["inclusion"] = source
    return out
