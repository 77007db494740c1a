"""Plain TREC qrels and run files read straight into numpy arrays, for the commands that
print the official tools' output (``xdiv ndeval``, ``xdiv gdeval``).

These readers load neither pandas, xarray nor pyarrow, so that a command scoring one run
starts and finishes in a fraction of a second. They take only *plain* files: ASCII text,
whitespace-separated fields, every line with all its fields (four for qrels, six for
runs), numbers in xdiv's grammar (:data:`xdiv.io._guard.DECIMAL_INTEGER`,
:data:`~xdiv.io._guard.DECIMAL_NUMBER`), ranks without sign, no blank line, no line longer than the read
limit, no judgment or document given twice, one run tag per file. Anything else, and
anything the checked readers (:func:`xdiv.read_qrels`, :func:`xdiv.read_runs`) would warn
about, makes them return None: the caller then reads the file with the checked readers,
which raise or warn naming the file and line. A plain file gives exactly the values the
checked readers give.
"""

from __future__ import annotations

import gzip
import os
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..core.labels import natural_sorted
from ..core.ranking import group_positions
from ..errors import XdivError
from ..options import LIMITS
from ..typing import LEVEL_RANGE
from ..io._guard import GZIP_ERRORS, IN_MEMORY_GZIP, check_file, gunzipped, is_gzip, open_guarded

__all__ = ["PlainQrels", "PlainRun", "RefusedLine", "read_plain_qrels", "read_plain_run",
           "refused_line", "short_line", "sorted_codes"]

PathLike = str | os.PathLike

_PLAIN = bytes(range(0x20, 0x7f)) + b"\t\n"
"""The bytes a plain file holds: printable ASCII, tab and line feed (no control
character, no carriage return, no non-ASCII byte)."""
_INTEGER_BYTES = b"0123456789+-"
_NUMBER_BYTES = b"0123456789+-.eE"
_LONGEST_FIELD = 256
"""The longest field a plain file holds (docnos, topics and tags are far shorter); a
longer one sends the file to the checked readers, to keep the plain columns small."""
_LONGEST_INTEGER = 18
"""Digits of the longest integer field taken (int64 holds every 18-digit number)."""
_SPACE = np.zeros(256, dtype=bool)
_SPACE[list(b" \t\n\v\f\r")] = True
"""The bytes that separate fields for C's ``isspace`` and perl's ``split(' ')``."""
_SCAN_BLOCK = 1 << 20
"""Bytes of a file :func:`refused_line` looks at in one go."""


def _plain_bytes(path: PathLike) -> bytes | None:
    """The file's bytes (decompressed) when it may be plain, else None."""
    check_file(path)
    if is_gzip(path):
        if os.path.getsize(path) > IN_MEMORY_GZIP:
            return None
        try:
            data = gunzipped(path)
        except (*GZIP_ERRORS, OSError, ValueError):
            return None
    else:
        data = Path(path).read_bytes()
    if not data or data.translate(None, _PLAIN):
        return None
    return data


def _fields(data: bytes, width: int, skip: tuple[int, ...] = ()) -> list | None:
    """The ``width`` columns of ``data`` (bytes, ``S`` dtype, one entry per line; None
    for the columns in ``skip``, which are not cut out), or None unless every line holds
    exactly ``width`` whitespace-separated fields (a blank line included) and none is
    longer than the read limit. The fields are found and cut out on the bytes, without a
    Python object per line or per field."""
    raw = np.frombuffer(data, dtype=np.uint8)
    breaks = np.flatnonzero(raw == 10)
    ends = breaks if data.endswith(b"\n") else np.r_[breaks, len(raw)]
    if len(ends) == 0 or int(np.diff(np.r_[-1, ends]).max()) - 1 > LIMITS.max_line_bytes:
        return None
    spans = single_separated(raw, ends, width, data)
    if spans is None:
        word = ~((raw == 10) | (raw == 32) | (raw == 9))
        edge = np.diff(np.r_[0, word.view(np.int8), 0])
        starts, stops = np.flatnonzero(edge == 1), np.flatnonzero(edge == -1)
        per_line = np.bincount(np.searchsorted(ends, starts), minlength=len(ends))
        if len(per_line) != len(ends) or (per_line != width).any():
            return None
        spans = starts.reshape(-1, width), stops.reshape(-1, width)
    longest = int((spans[1] - spans[0]).max())
    if longest > _LONGEST_FIELD:
        return None
    padded = np.concatenate([raw, np.zeros(longest, dtype=np.uint8)])
    return [None if j in skip else _cut(padded, spans[0][:, j], spans[1][:, j])
            for j in range(width)]


def single_separated(raw: np.ndarray, ends: np.ndarray, width: int, data: bytes,
                     begins: np.ndarray | None = None
                     ) -> tuple[np.ndarray, np.ndarray] | None:
    """The ``(line, field)`` starts and stops of the fields when every line is ``width``
    fields separated by single tabs, or by single spaces (the layout TREC tools write),
    else None: the ``width - 1`` separators of line ``i`` lie within it, none starts or
    ends the line or follows another. Lines end at ``ends`` and begin at ``begins``
    (by default each just after the previous one's end)."""
    for separator, other in ((9, b" "), (32, b"\t")):
        if other in data:
            continue
        at = np.flatnonzero(raw == separator)
        if len(at) != (width - 1) * len(ends):
            return None
        at = at.reshape(len(ends), width - 1)
        if begins is None:
            begins = np.r_[0, ends[:-1] + 1]
        if not ((at[:, 0] > begins) & (at[:, -1] < ends - 1)).all() or \
                not (np.diff(at, axis=1) > 1).all():
            return None
        return np.c_[begins, at + 1], np.c_[at, ends]
    return None


def _cut(padded: np.ndarray, starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """The bytes ``padded[starts[i]:stops[i]]`` of every ``i`` as an ``S`` array: rows of
    a sliding window over ``padded`` (the file's bytes followed by at least as many zeros
    as the longest field), zeroed past each field's end."""
    lengths = stops - starts
    longest = int(lengths.max())
    rows = sliding_window_view(padded, longest)[starts]
    rows[np.arange(longest) >= lengths[:, None]] = 0
    return rows.view(f"S{longest}").ravel()


def _integers(words: np.ndarray) -> np.ndarray | None:
    """int64 values of integer fields, or None unless each is a decimal integer
    (:data:`~xdiv.io._guard.DECIMAL_INTEGER`: digits and a sign, which numpy reads as
    the grammar does, refusing any other arrangement)."""
    if words.dtype.itemsize > _LONGEST_INTEGER or words.tobytes().translate(
            None, _INTEGER_BYTES + b"\0"):
        return None
    try:
        return words.astype(np.int64)
    except ValueError:
        return None


def _numbers(words: np.ndarray) -> np.ndarray | None:
    """float64 values of number fields, or None unless each is a finite decimal number
    (:data:`~xdiv.io._guard.DECIMAL_NUMBER`: among digits, signs, points and exponent
    letters, numpy takes exactly the arrangements the grammar takes)."""
    if words.tobytes().translate(None, _NUMBER_BYTES + b"\0"):
        return None
    try:
        values = words.astype(np.float64)
    except ValueError:
        return None
    return values if np.isfinite(values).all() else None


def sorted_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct ``values`` (bytes, ``S`` dtype) and each value's int64 code
    into them, as ``numpy.unique(values, return_inverse=True)`` gives them, sorted faster:
    the bytes are read as big-endian 64-bit words (whose order is the bytes' order) and
    sorted as integers, leaving out the words every value shares."""
    if len(values) == 0:
        return values, np.zeros(0, dtype=np.int64)
    width = values.dtype.itemsize
    words = values.astype(f"S{width + -width % 8}").view(">u8").reshape(len(values), -1)
    varying = [j for j in range(words.shape[1]) if (words[:, j] != words[0, j]).any()]
    order = (np.lexsort(words[:, varying].T[::-1]) if varying
             else np.arange(len(values)))  # every value the same: already in order
    ordered = values[order]
    new = np.r_[True, ordered[1:] != ordered[:-1]]
    code = np.empty(len(values), dtype=np.int64)
    code[order] = np.cumsum(new) - 1
    return ordered[new], code


def _codes(words: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Natural-ordered labels of ``words`` (``S`` dtype) and each word's code into them;
    only the first word of each run of equal words is looked up (files come grouped)."""
    change = np.r_[True, words[1:] != words[:-1]]
    heads = words[change].tolist()
    labels = natural_sorted(w.decode() for w in set(heads))
    index = {label.encode(): k for k, label in enumerate(labels)}
    codes = np.array([index[w] for w in heads], dtype=np.int64)
    return labels, codes[np.cumsum(change) - 1]


@dataclass(frozen=True)
class PlainQrels:
    """Qrels (``topic intent docno level``) as arrays, laid out as :func:`xdiv.read_qrels`
    lays out a collection: topics and intents in natural order, each topic's judged
    documents in docno order.

    Attributes
    ----------
    path : str
    topics, intents : list of str
    levels : numpy.ndarray
        ``(topic, doc, intent)`` int8 levels, negative and absent judgments 0, documents
        padded to the topic with the most.
    exists : numpy.ndarray
        ``(topic, intent)``: the qrels hold a line for the intent of the topic.
    docno, topic, slot : numpy.ndarray
        One entry per judged (topic, document): the docno (bytes, ``S`` dtype), the
        topic's code and the document's slot in ``levels``.
    """

    path: str
    topics: list[str]
    intents: list[str]
    levels: np.ndarray
    exists: np.ndarray
    docno: np.ndarray
    topic: np.ndarray
    slot: np.ndarray

    @property
    def valid(self) -> np.ndarray:
        """``(topic, intent)``: the intent exists and has a relevant document."""
        return self.exists & (self.levels > 0).any(axis=1)


def read_plain_qrels(path: PathLike) -> PlainQrels | None:
    """The qrels of ``path`` as :class:`PlainQrels`, or None when the file is not plain
    (see the module's description) or has a topic without any relevant document (which
    :func:`xdiv.read_qrels` warns about)."""
    data = _plain_bytes(path)
    words = None if data is None else _fields(data, 4)
    if not words:
        return None
    topic, intent, docno, level = words
    level = _integers(level)
    if level is None or (level < LEVEL_RANGE[0]).any() or (level > LEVEL_RANGE[1]).any():
        return None
    topics, t_code = _codes(topic)
    intents, i_code = _codes(intent)
    vocabulary, d_code = sorted_codes(docno)
    # the judged (topic, docno) pairs sorted by topic, then docno: a topic's slots
    pairs, pair = np.unique(t_code * len(vocabulary) + d_code, return_inverse=True)
    pair = pair.ravel()
    if np.bincount(pair * len(intents) + i_code).max() > 1:
        return None  # a judgment given twice
    pair_topic = pairs // len(vocabulary)
    slot = group_positions(pair_topic)
    levels = np.zeros((len(topics), int(slot.max()) + 1, len(intents)), dtype=np.int8)
    levels[t_code, slot[pair], i_code] = np.maximum(level, 0)
    exists = np.zeros((len(topics), len(intents)), dtype=bool)
    exists[t_code, i_code] = True
    docno = vocabulary[pairs % len(vocabulary)]
    qrels = PlainQrels(os.fspath(path), topics, intents, levels, exists, docno, pair_topic,
                       slot)
    if not qrels.valid.any(axis=1).all():
        return None
    return qrels


@dataclass(frozen=True)
class PlainRun:
    """A run file (``topic Q0 docno rank score tag``) as columns.

    Attributes
    ----------
    path : str
    name : str
        The run's tag (the same on every line).
    topics : list of str
        Its topics in natural order.
    topic : numpy.ndarray
        Per line, int64 code into ``topics``.
    docno : numpy.ndarray
        Per line, bytes (``S`` dtype).
    rank : numpy.ndarray
        Per line, int64.
    score : numpy.ndarray
        Per line, float64.
    """

    path: str
    name: str
    topics: list[str]
    topic: np.ndarray
    docno: np.ndarray
    rank: np.ndarray
    score: np.ndarray


def read_plain_run(path: PathLike) -> PlainRun | None:
    """The run of ``path`` as :class:`PlainRun`, or None when the file is not plain (see
    the module's description: among others, a line without its run tag, or several run
    tags, which :func:`xdiv.read_runs` warns about)."""
    data = _plain_bytes(path)
    words = None if data is None else _fields(data, 6, skip=(1,))
    if not words:
        return None
    topic, _, docno, rank, score, tag = words
    if rank.tobytes().translate(None, b"0123456789\0"):
        return None  # a signed rank, which the official tools refuse
    rank, score = _integers(rank), _numbers(score)
    if rank is None or score is None or (tag != tag[0]).any():
        return None
    topics, t_code = _codes(topic)
    return PlainRun(os.fspath(path), tag[0].decode(), topics, t_code, docno, rank, score)


def short_line(path: PathLike, fields: int = 6, *,
               last: int | None = None) -> tuple[int, int] | None:
    """The first line of ``path`` (gzip allowed) holding fewer than ``fields``
    whitespace-separated fields, as ``(line number, fields)``; None when there is none.

    Lines end with LF, CRLF or CR and are numbered from 1; blank lines are skipped, as
    the readers skip them. Only the first non-blank line is looked at unless ``last`` is
    given: then every line up to line ``last``. Whitespace is what C's ``isspace``
    takes, as for ndeval. A line longer than the read limit ends the search (the readers
    refuse it). For the official tools' refusals (:func:`xdiv.official.ndeval_tool.report.
    read_tool_runs`): a run line without its tag is a syntax error to ndeval and gdeval.
    """
    limit = LIMITS.max_line_bytes + 1
    try:
        opener = gzip.open if is_gzip(path) else open
        with opener(path, "rb") as handle:
            number = 0
            while True:
                raw = handle.readline(limit)
                if not raw or (len(raw) >= limit and not raw.endswith(b"\n")):
                    return None
                for line in raw.splitlines():
                    number += 1
                    if last is not None and number > last:
                        return None
                    count = len(line.split())
                    if count == 0:
                        continue
                    if count < fields:
                        return number, count
                    if last is None:
                        return None
    except (*GZIP_ERRORS, OSError, ValueError):
        return None  # the readers say what is wrong with the file


class RefusedLine(NamedTuple):
    """A line of a run file the official tools refuse (:func:`refused_line`)."""

    line: int
    """Its number, from 1."""
    fields: int
    """The whitespace-separated fields it holds (0 on a blank line)."""
    field: str
    """Its field of the column looked at (``""`` on a line with too few fields)."""
    unterminated: bool
    """It is the file's last line, without a line feed."""


def refused_line(path: PathLike, *, fields: int = 6, column: int = 3,
                 largest: int | None = None) -> RefusedLine | None:
    """The first line of ``path`` (gzip allowed) with fewer than ``fields``
    whitespace-separated fields, or whose field ``column`` (from 0) is not a natural
    number written in digits alone (no sign, no point; leading zeros allowed) of at most
    ``largest`` (any with None), as a :class:`RefusedLine`; None when there is none.

    This is how ndeval and gdeval.pl read the lines of a run file (its rank column), and
    a line they refuse stops them (:func:`xdiv.official.ndeval_tool.report.read_tool_runs`).
    Lines end with LF and are numbered from 1, as both tools number them; whitespace is what
    C's ``isspace`` takes; a blank line (whitespace alone, or nothing) is a line without
    its fields, which both tools refuse, although xdiv's readers skip it. The file is
    looked at a block at a time, on arrays. A file xdiv's readers refuse (not
    found, corrupt gzip data, a line beyond the read limit) gives None: the readers say
    what is wrong with it.
    """
    number = 0
    rest = b""
    try:
        with open_guarded(path) as stream:
            while True:
                block = stream.read(_SCAN_BLOCK)
                data = rest + block
                if block:  # whole lines now, the last partial one with the next block
                    cut = data.rfind(b"\n") + 1
                    data, rest = data[:cut], data[cut:]
                found = _refused_in(data, fields, column, largest)
                if found is not None:
                    return found._replace(line=number + found.line)
                number += data.count(b"\n")
                if not block:
                    return None
    except (XdivError, *GZIP_ERRORS, OSError, ValueError):
        return None


def _refused_in(data: bytes, fields: int, column: int,
                largest: int | None) -> RefusedLine | None:
    """:func:`refused_line` on whole lines ``data`` (the last perhaps without its line
    feed), the line numbered within ``data``."""
    if not data:
        return None
    raw = np.frombuffer(data, dtype=np.uint8)
    word = (~_SPACE[raw]).view(np.int8)
    edge = np.diff(word, prepend=0, append=0)
    starts, stops = np.flatnonzero(edge == 1), np.flatnonzero(edge == -1)
    # a word's line: the line feeds before it (a line feed never starts a word)
    line_of = np.cumsum(raw == 10, dtype=np.int32)[starts]
    # the lines: each one ended by a line feed, and the bytes after the last, if any
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    count = np.bincount(line_of, minlength=lines)
    refused = count < fields
    full = np.flatnonzero(count >= fields)
    at = (np.cumsum(count) - count)[full] + column
    begin, end = starts[at], stops[at]
    digit = ((raw >= 48) & (raw <= 57)).view(np.int8)
    digits = np.r_[0, np.cumsum(digit, dtype=np.int32)]
    wrong = digits[end] - digits[begin] < end - begin
    if largest is not None:
        width = len(str(largest))
        long = np.flatnonzero(~wrong & (end - begin >= width))
        if len(long):
            nonzero = np.r_[np.flatnonzero(raw != 48), len(raw)]
            lead = nonzero[np.searchsorted(nonzero, begin[long])]  # leading 0s left out
            wrong[long[end[long] - lead > width]] = True
            edge_width = long[end[long] - lead == width]
            tail = end[edge_width, None] - width + np.arange(width)
            value = (raw[tail].astype(np.int64) - 48) @ 10 ** np.arange(width - 1, -1, -1)
            wrong[edge_width[value > largest]] = True
    refused[full[wrong]] = True
    if not refused.any():
        return None
    line = int(np.argmax(refused))
    unterminated = line == lines - 1 and not data.endswith(b"\n")
    if count[line] < fields:
        return RefusedLine(line + 1, int(count[line]), "", unterminated)
    k = int(np.searchsorted(full, line))
    return RefusedLine(line + 1, int(count[line]), data[begin[k]:end[k]].decode("latin-1"),
                       unterminated)
