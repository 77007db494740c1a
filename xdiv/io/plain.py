"""Plain TREC qrels and run files read straight into numpy arrays, for the commands that
print the official tools' output (``xdiv ndeval``, ``xdiv gdeval``).

These readers load neither pandas, xarray nor pyarrow, so that a command scoring one run
starts and finishes in a fraction of a second. They take only *plain* files: ASCII text,
whitespace-separated fields, every line with all its fields (four for qrels, six for
runs), numbers in xdiv's grammar (:data:`xdiv.io._guard.DECIMAL_INTEGER`,
:data:`~xdiv.io._guard.DECIMAL_NUMBER`), no blank line, no line longer than the read
limit, no judgment or document given twice, one run tag per file. Anything else, and
anything the checked readers (:func:`xdiv.read_qrels`, :func:`xdiv.read_runs`) would warn
about, makes them return None: the caller then reads the file with the checked readers,
which raise or warn naming the file and line. A plain file gives exactly the values the
checked readers give.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.labels import natural_sorted
from ..core.ranking import group_positions
from ..options import LIMITS
from ._guard import GZIP_ERRORS, IN_MEMORY_GZIP, check_file, gunzipped, is_gzip

__all__ = ["PlainQrels", "PlainRun", "read_plain_qrels", "read_plain_run"]

PathLike = str | os.PathLike

_PLAIN = bytes(range(0x20, 0x7f)) + b"\t\n"
"""The bytes a plain file holds: printable ASCII, tab and line feed (no control
character, no carriage return, no non-ASCII byte)."""
_INTEGER_BYTES = b"0123456789+-"
_NUMBER_BYTES = b"0123456789+-.eE"
_LONGEST_INTEGER = 18
"""Digits of the longest integer field taken (int64 holds every 18-digit number)."""
LEVEL_RANGE = (-127, 127)
"""The qrels levels a collection holds (int8, :func:`xdiv.build_collection`)."""


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


def _fields(data: bytes, width: int) -> list[bytes] | None:
    """The whitespace-separated fields of ``data``, or None unless every line holds
    exactly ``width`` of them (a blank line included) and none is longer than the read
    limit. Lines are counted on the bytes, without a Python object per line."""
    raw = np.frombuffer(data, dtype=np.uint8)
    breaks = np.flatnonzero(raw == 10)
    ends = breaks if data.endswith(b"\n") else np.r_[breaks, len(raw)]
    if len(ends) == 0 or int(np.diff(np.r_[-1, ends]).max()) - 1 > LIMITS.max_line_bytes:
        return None
    if not _single_separated(raw, ends, width, data):
        word = ~((raw == 10) | (raw == 32) | (raw == 9))
        starts = np.flatnonzero(word & ~np.r_[False, word[:-1]])
        per_line = np.bincount(np.searchsorted(ends, starts), minlength=len(ends))
        if len(per_line) != len(ends) or (per_line != width).any():
            return None
    return data.split()


def _single_separated(raw: np.ndarray, ends: np.ndarray, width: int, data: bytes) -> bool:
    """Whether every line is ``width`` fields separated by single tabs, or by single
    spaces (the layout TREC tools write): the ``width - 1`` separators of line ``i`` lie
    between the end of line ``i - 1`` and the end of line ``i``, and no separator starts
    or ends a line or follows another."""
    for separator, other in ((9, b" "), (32, b"\t")):
        if other in data:
            continue
        at = np.flatnonzero(raw == separator)
        if len(at) != (width - 1) * len(ends):
            return False
        per_line = at.reshape(len(ends), width - 1)
        inside = (per_line[:, 0] > np.r_[-1, ends[:-1]] + 1) & (per_line[:, -1] < ends - 1)
        return bool(inside.all() and (np.diff(per_line, axis=1) > 1).all())
    return False


def _integers(words: list[bytes]) -> np.ndarray | None:
    """int64 values of integer fields, or None unless each is a decimal integer
    (:data:`~xdiv.io._guard.DECIMAL_INTEGER`: digits and a sign, which ``int`` reads as
    the grammar does, refusing any other arrangement)."""
    if b"".join(words).translate(None, _INTEGER_BYTES) or max(map(len, words)) > \
            _LONGEST_INTEGER:
        return None
    try:
        return np.fromiter(map(int, words), dtype=np.int64, count=len(words))
    except ValueError:
        return None


def _numbers(words: list[bytes]) -> np.ndarray | None:
    """float64 values of number fields, or None unless each is a finite decimal number
    (:data:`~xdiv.io._guard.DECIMAL_NUMBER`: among digits, signs, points and exponent
    letters, ``float`` takes exactly the arrangements the grammar takes)."""
    if b"".join(words).translate(None, _NUMBER_BYTES):
        return None
    try:
        values = np.fromiter(map(float, words), dtype=np.float64, count=len(words))
    except ValueError:
        return None
    return values if np.isfinite(values).all() else None


def _codes(words: list[bytes]) -> tuple[list[str], np.ndarray]:
    """Natural-ordered labels of ``words`` and each word's code into them."""
    distinct = set(words)
    labels = natural_sorted(w.decode() for w in distinct)
    index = {label.encode(): k for k, label in enumerate(labels)}
    return labels, np.array([index[w] for w in words], dtype=np.int64)


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
    level = _integers(words[3::4])
    if level is None or (level < LEVEL_RANGE[0]).any() or (level > LEVEL_RANGE[1]).any():
        return None
    topics, t_code = _codes(words[0::4])
    intents, i_code = _codes(words[1::4])
    # the judged (topic, docno) pairs, as "topic docno": sorted, each topic's pairs come
    # together (a space sorts before any character of a label) in docno order
    pair_of: dict[bytes, int] = {}
    pair = np.fromiter((pair_of.setdefault(t + b" " + d, len(pair_of))
                        for t, d in zip(words[0::4], words[2::4])),
                       dtype=np.int64, count=len(level))
    if np.bincount(pair * len(intents) + i_code).max() > 1:
        return None  # a judgment given twice
    keys = list(pair_of)
    by_key = np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64)
    first = np.zeros(len(keys), dtype=np.int64)
    first[pair[::-1]] = np.arange(len(pair))[::-1]
    pair_topic = t_code[first]
    slot = np.empty(len(keys), dtype=np.int64)
    slot[by_key] = group_positions(pair_topic[by_key])
    levels = np.zeros((len(topics), int(slot.max()) + 1, len(intents)), dtype=np.int8)
    levels[t_code, slot[pair], i_code] = np.maximum(level, 0)
    exists = np.zeros((len(topics), len(intents)), dtype=bool)
    exists[t_code, i_code] = True
    docno = np.array([keys[k].partition(b" ")[2] for k in range(len(keys))])
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
    words = None if data is None else _fields(data, 6)
    if not words:
        return None
    tags = set(words[5::6])
    rank, score = _integers(words[3::6]), _numbers(words[4::6])
    if len(tags) != 1 or rank is None or score is None:
        return None
    topics, t_code = _codes(words[0::6])
    return PlainRun(os.fspath(path), words[5].decode(), topics, t_code,
                    np.array(words[2::6]), rank, score)
