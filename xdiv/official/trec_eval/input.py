"""Qrels and results files read as TREC's trec_eval reads them, for ``xdiv trec_eval``.

trec_eval's readers are lenient in ways a drop-in must copy, and strict in others whose
messages it must repeat: what this module reproduces (trec_eval 10.0, and 9.0.8 with
``version=9``):

* Fields are separated by any run of the six C ``isspace`` bytes (space, tab, newline,
  carriage return, vertical tab, form feed); a missing final newline is supplied.
* A qrels line has exactly four fields (``qid iter docno rel``); a results line at least
  six (``qid iter docno rank sim run_id``, anything after the sixth ignored); results
  lines that are blank are skipped, qrels lines that are blank are malformed.
* Comments (10.0): a results line whose first non-blank byte is ``#`` is skipped; a
  qrels line is skipped when its very first byte is ``#``, unless the line before it was
  itself skipped (trec_eval reads the line after a comment without looking for another
  one, so in a block of ``#`` lines every second one is read as data).
* The first malformed line stops the program: ``trec_eval.get_qrels: Malformed line N``
  (or ``get_results``) and ``trec_eval: Quit in file 'PATH'`` on standard error, exit
  status 2, where N counts the lines read as data, comments and skipped blank lines left
  out. An empty or unreadable file: ``Cannot read qrels file`` / ``Cannot read results
  file``, the same way.
* ``rel`` is read with C's ``atol`` (the longest integer prefix, 0 if none, saturated to
  64 bits), ``sim`` with ``atof`` (the longest ``strtod`` prefix: decimal, hexadecimal,
  ``inf``, ``nan``); 9.0.8 keeps ``sim`` in single precision.
* The run's name is the ``run_id`` of its last data line.
* A results path starting with ``-`` is standard input (10.0).
* A file holding a NUL byte (a gzip file, say) is read up to the line holding it, which
  is the last one read: ``Malformed line N`` when it is malformed (see
  :func:`~xdiv.official.trec_eval.text.up_to_nul`).

Inputs on which trec_eval's behaviour is undefined (it reads past its buffer: a well
formed line or a comment holding a NUL byte, a NUL on standard input or in a ``-Z`` file,
a qrels file ending with a skipped comment) raise :class:`NotReproduced`.

Only numpy is imported: the fields are found and cut out on the bytes, the numbers parsed
by numpy where every field is a plain decimal number and by a ``strtod``/``strtol``
emulation otherwise.
"""

from __future__ import annotations

import bisect
import sys
from typing import NamedTuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..plain_input import single_separated, sorted_codes
from .text import (PLAIN_INTEGER, PLAIN_NUMBER, SPACE_BYTES, NotReproduced,
                   NulRead, TrecEvalExit, file_bytes, malformed_line, path_message,
                   up_to_nul, with_newline, c_atof, c_atol)

__all__ = ["NotReproduced", "TrecEvalExit", "TrecPrefs", "TrecQrels", "TrecQrelsJg",
           "TrecResults", "TrecZscores", "c_atof", "c_atol", "read_trec_prefs",
           "read_trec_qrels", "read_trec_qrels_jg", "read_trec_results", "read_trec_zscores"]

def _integers(tokens: np.ndarray) -> np.ndarray:
    """``atol`` of every token (``S`` dtype), by numpy where each is a plain integer."""
    if len(tokens) and tokens.dtype.itemsize <= 18 and not tokens.tobytes().translate(
            None, PLAIN_INTEGER + b"\0"):
        try:
            return tokens.astype(np.int64)
        except ValueError:
            pass
    return np.array([c_atol(t) for t in tokens.tolist()], dtype=np.int64)


def _numbers(tokens: np.ndarray) -> np.ndarray:
    """``atof`` of every token (``S`` dtype), by numpy where each is a plain decimal
    number (numpy then reads exactly what ``strtod`` reads), else token by token."""
    if len(tokens) and not tokens.tobytes().translate(None, PLAIN_NUMBER + b"\0"):
        try:
            return tokens.astype(np.float64)
        except ValueError:
            pass
    return np.array([c_atof(t) for t in tokens.tolist()], dtype=np.float64)


class TrecQrels(NamedTuple):
    """A qrels file as trec_eval holds it: topics in ``strcmp`` order, each topic's
    judgments sorted by docno (ties, a docno judged twice, in file order).

    Attributes
    ----------
    topics : numpy.ndarray
        Distinct qids (``S`` dtype), sorted.
    start : numpy.ndarray
        ``(topic + 1,)`` offsets: topic ``t``'s judgments are rows ``start[t]:start[t+1]``.
    docno : numpy.ndarray
        Per judgment, the docno (``S`` dtype).
    rel : numpy.ndarray
        Per judgment, ``atol`` of the relevance field (int64).
    """

    topics: np.ndarray
    start: np.ndarray
    docno: np.ndarray
    rel: np.ndarray


class TrecResults(NamedTuple):
    """A results file as trec_eval holds it: its data lines in file order.

    Attributes
    ----------
    topics : numpy.ndarray
        Distinct qids (``S`` dtype), sorted.
    topic : numpy.ndarray
        Per line, its qid's index into ``topics`` (int64).
    docno : numpy.ndarray
        Per line (``S`` dtype).
    sim : numpy.ndarray
        Per line, ``atof`` of the score (float64; float32 for trec_eval 9.0.8).
    run_id : bytes or None
        The run_id of the last data line; None when the file has no data line.
    """

    topics: np.ndarray
    topic: np.ndarray
    docno: np.ndarray
    sim: np.ndarray
    run_id: bytes | None


class _Tokens(NamedTuple):
    """The whitespace-separated fields of a buffer ending with a newline."""

    raw: np.ndarray
    """The bytes (uint8)."""
    starts: np.ndarray
    stops: np.ndarray
    """Per field, its first byte and one past its last."""
    line_start: np.ndarray
    """Per line, its first byte (lines end at each newline)."""
    first: np.ndarray
    """Per line, the index of its first field (that of the next line's when it has none)."""
    counts: np.ndarray
    """Per line, its number of fields."""


def _space_table() -> np.ndarray:
    table = np.zeros(256, dtype=bool)
    table[list(SPACE_BYTES)] = True
    return table


def _tokens(data: bytes, width: int) -> _Tokens:
    """The fields of ``data`` (ending with a newline); ``width`` is the number of fields
    most lines have, which makes the usual layout (fields separated by single spaces or
    single tabs, ``width`` per line) quick to cut."""
    raw = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(raw == 10)
    line_start = np.empty(len(ends), dtype=np.int64)
    if len(ends):
        line_start[0] = 0
        line_start[1:] = ends[:-1] + 1
    uniform = _uniform(raw, data, ends, line_start, width)
    if uniform is not None:
        starts, stops = uniform
        n = len(ends)
        return _Tokens(_padded(raw, starts, stops), starts, stops, line_start,
                       np.arange(0, n * width, width), np.full(n, width))
    word = ~_space_table()[raw]
    edge = np.diff(word.view(np.int8), prepend=np.int8(0), append=np.int8(0))
    starts, stops = np.flatnonzero(edge == 1), np.flatnonzero(edge == -1)
    line = np.searchsorted(ends, starts)
    count = np.bincount(line, minlength=len(ends))
    first = np.cumsum(count) - count
    return _Tokens(_padded(raw, starts, stops), starts, stops, line_start, first, count)


def _padded(raw: np.ndarray, starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """``raw`` followed by as many zero bytes as the longest field has (for :func:`_cut`)."""
    longest = int((stops - starts).max()) if len(starts) else 1
    return np.concatenate([raw, np.zeros(longest, dtype=np.uint8)])


def _uniform(raw: np.ndarray, data: bytes, ends: np.ndarray, line_start: np.ndarray,
             width: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Field starts and stops when every line is ``width`` fields separated by single
    spaces, or by single tabs, and holds no other whitespace; else None."""
    if any(other in data for other in (b"\r", b"\v", b"\f")):
        return None
    found = single_separated(raw, ends, width, data, begins=line_start)
    return None if found is None else (found[0].ravel(), found[1].ravel())


def _cut(tok: _Tokens, fields: np.ndarray) -> np.ndarray:
    """The fields numbered ``fields`` as an ``S`` array: rows of a sliding window over the
    bytes (followed by at least as many zeros as the longest field has bytes), zeroed
    past each field's end."""
    if len(fields) == 0:
        return np.zeros(0, dtype="S1")
    starts, stops = tok.starts[fields], tok.stops[fields]
    lengths = stops - starts
    longest = int(lengths.max())
    rows = sliding_window_view(tok.raw, longest)[starts]
    if int(lengths.min()) < longest:
        rows[np.arange(longest) >= lengths[:, None]] = 0
    return rows.view(f"S{longest}").ravel()


def _check(read: NulRead, path: str, what: str, tok: _Tokens, comments: np.ndarray,
           bad: np.ndarray, data_line: np.ndarray) -> None:
    """:meth:`NulRead.check` of a file's lines (``comments`` and ``data_line`` masks,
    ``bad`` the malformed data lines)."""
    if read.nuls:
        read.check(path, what, tok.line_start.tolist(), np.flatnonzero(data_line).tolist(),
                   np.flatnonzero(comments).tolist(), int(bad[0]) if len(bad) else None)


def _qrels_lines(path: str, version: int, reader: str, *, width: int = 4,
                 what: str = "qrels") -> list[np.ndarray]:
    """The ``width`` fields of the data lines of a qrels file (``S`` arrays), read as
    trec_eval's ``get_qrels`` (``reader``) reads them."""
    data = file_bytes(path, what, "get_prefs" if what == "prefs" else reader)
    read = up_to_nul(data, path, what, version=version)
    tok = _tokens(read.data, width)
    n_lines = len(tok.counts)
    data_line = np.ones(n_lines, dtype=bool)
    if version >= 10:
        hashed = tok.raw[tok.line_start] == ord("#")
        # in each block of consecutive '#' lines, the 1st, 3rd, ... are skipped
        index = np.arange(n_lines)
        block_start = hashed & ~np.r_[False, hashed[:-1]]
        within = index - np.maximum.accumulate(np.where(block_start, index, 0))
        data_line = ~(hashed & (within % 2 == 0))
    counts = tok.counts[data_line]
    bad = np.flatnonzero(counts != width)
    _check(read, path, what, tok, ~data_line, bad, data_line)
    if len(bad):
        raise malformed_line(path, reader, int(bad[0]) + 1)
    if n_lines and not data_line[-1]:
        raise NotReproduced(f"{what} file {path!r} ends with a comment line, after which "
                            "trec_eval 10.0 reads past its buffer (it crashes)")
    fields = (tok.first[data_line][:, None] + np.arange(width)).ravel()
    return [_cut(tok, fields[k::width]) for k in range(width)]


def read_trec_qrels(path: str, *, version: int = 10) -> TrecQrels:
    """The qrels file ``path`` as trec_eval reads it (see the module's description).

    Raises
    ------
    TrecEvalExit
        What trec_eval prints and its exit status, for a file it cannot read or a
        malformed line.
    NotReproduced
        For a file on which trec_eval's behaviour is undefined.
    """
    qid, _, docno, rel = _qrels_lines(path, version, "get_qrels")
    rel = _integers(rel)
    topics, code = sorted_codes(qid)
    # by topic, then docno; file order among equal keys (glibc's qsort is a merge sort)
    order = np.argsort(code, kind="stable")
    code, docno, rel = code[order], docno[order], rel[order]
    same = code[1:] == code[:-1]
    if (same & (docno[1:] < docno[:-1])).any():
        order = np.lexsort((docno, code))
        code, docno, rel = code[order], docno[order], rel[order]
    start = np.searchsorted(code, np.arange(len(topics) + 1))
    return TrecQrels(topics, start, docno, rel)


class TrecQrelsJg(NamedTuple):
    """A ``qrels_jg`` file (``qid jg docno rel``: several judgment groups per topic) as
    trec_eval holds it.

    Attributes
    ----------
    topics : numpy.ndarray
        Distinct qids (``S`` dtype), sorted.
    groups : numpy.ndarray
        ``(topic + 1,)`` offsets: topic ``t``'s judgment groups are ``groups[t]:groups[t+1]``
        of ``judgments``, in ``strcmp`` order of their names.
    judgments : TrecQrels
        One entry of ``topics`` per judgment group (its topic's qid), with the group's
        judgments sorted by docno.
    """

    topics: np.ndarray
    groups: np.ndarray
    judgments: TrecQrels


def read_trec_qrels_jg(path: str, *, version: int = 10) -> TrecQrelsJg:
    """The ``-R qrels_jg`` file ``path`` as trec_eval reads it: as qrels, the second field
    naming a judgment group; a docno judged twice in a group stops it (``trec_eval.get_qrels:
    duplicate docs``).

    Raises
    ------
    TrecEvalExit, NotReproduced
        As :func:`read_trec_qrels`.
    """
    qid, jg, docno, rel = _qrels_lines(path, version, "get_qrels_jg")
    rel = _integers(rel)
    order = np.lexsort((docno, jg, qid))  # stable: glibc's qsort is a merge sort
    qid, jg, docno, rel = qid[order], jg[order], docno[order], rel[order]
    same_group = (qid[1:] == qid[:-1]) & (jg[1:] == jg[:-1])
    twice = np.flatnonzero(same_group & (docno[1:] == docno[:-1]))
    if len(twice):
        raise TrecEvalExit(b"trec_eval.get_qrels: duplicate docs %s\n"
                           % bytes(docno[twice[0] + 1])
                           + path_message("trec_eval: Quit in file '%s'\n", path), 2)
    new_group = np.r_[True, ~same_group] if len(qid) else np.zeros(0, dtype=bool)
    group_start = np.r_[np.flatnonzero(new_group), len(qid)]
    group_qid = qid[new_group]
    topics, code = sorted_codes(group_qid)
    groups = np.searchsorted(code, np.arange(len(topics) + 1))
    return TrecQrelsJg(topics, groups, TrecQrels(group_qid, group_start, docno, rel))


class TrecPrefs(NamedTuple):
    """A preferences file (``-R prefs``: ``qid jg jsg docno rel_level``; ``-R qrels_prefs``:
    qrels, the second field the judgment group and one subgroup ``0``) as trec_eval holds
    it: per topic, its lines sorted by docno (file order among equal docnos).

    Attributes
    ----------
    topics : numpy.ndarray
        Distinct qids (``S`` dtype), sorted.
    start : numpy.ndarray
        ``(topic + 1,)`` offsets into the lines.
    jg, jsg, docno : numpy.ndarray
        Per line (``S`` dtype).
    rel : numpy.ndarray
        Per line, ``atof`` of the level (float64).
    """

    topics: np.ndarray
    start: np.ndarray
    jg: np.ndarray
    jsg: np.ndarray
    docno: np.ndarray
    rel: np.ndarray


def read_trec_prefs(path: str, *, version: int = 10, qrels: bool = False) -> TrecPrefs:
    """The ``-R prefs`` (five fields) or, with ``qrels=True``, ``-R qrels_prefs`` (four)
    file ``path`` as trec_eval reads it.

    Raises
    ------
    TrecEvalExit, NotReproduced
        As :func:`read_trec_qrels`.
    """
    if qrels:
        qid, jg, docno, rel = _qrels_lines(path, version, "get_qrels_prefs", what="prefs")
        jsg = np.full(len(qid), b"0")
    else:
        qid, jg, jsg, docno, rel = _qrels_lines(path, version, "get_prefs", width=5,
                                                what="prefs")
    rel = _numbers(rel)
    if version < 10:  # 9.0.8 keeps the levels in single precision
        rel = rel.astype(np.float32).astype(np.float64)
    order = np.lexsort((docno, qid))  # stable: glibc's qsort is a merge sort
    qid, jg, jsg, docno, rel = qid[order], jg[order], jsg[order], docno[order], rel[order]
    topics, code = sorted_codes(qid)
    start = np.searchsorted(code, np.arange(len(topics) + 1))
    return TrecPrefs(topics, start, jg, jsg, docno, rel)


def read_trec_results(path: str, *, version: int = 10) -> TrecResults:
    """The results (run) file ``path`` as trec_eval reads it (see the module's
    description); with trec_eval 10.0 a path starting with ``-`` is standard input.

    Raises
    ------
    TrecEvalExit, NotReproduced
        As :func:`read_trec_qrels`.
    """
    if version >= 10 and path.startswith("-"):
        data = sys.stdin.buffer.read()
        data = with_newline(data, path, "results") if data else b"\n"
        read = NulRead(data)
    else:
        read = up_to_nul(file_bytes(path, "results", "get_results"), path, "results",
                         version=version)
        data = read.data
    tok = _tokens(data, 6)
    has_fields = tok.counts > 0
    if version >= 10:
        first_byte = tok.raw[tok.starts[np.minimum(tok.first, len(tok.starts) - 1)]] \
            if len(tok.starts) else np.zeros(len(tok.counts), dtype=np.uint8)
        data_line = has_fields & (first_byte != ord("#"))
    else:
        data_line = has_fields
    counts = tok.counts[data_line]
    bad = np.flatnonzero(counts < 6)
    _check(read, path, "results", tok, has_fields & ~data_line, bad, data_line)
    if len(bad):
        raise malformed_line(path, "get_results", int(bad[0]) + 1)
    first = tok.first[data_line]
    if len(first) == 0:
        empty = np.zeros(0, dtype="S1")
        return TrecResults(empty, np.zeros(0, dtype=np.int64), empty,
                           np.zeros(0, dtype=np.float32 if version < 10 else np.float64),
                           None)

    def column(k: int) -> np.ndarray:
        return _cut(tok, first + k)

    qid, docno = column(0), column(2)
    sim = _numbers(column(4))
    if version < 10:
        sim = sim.astype(np.float32)
    last = first[-1] + 5
    run_id = data[tok.starts[last]:tok.stops[last]]
    topics, code = sorted_codes(qid)
    return TrecResults(topics, code, docno, sim, run_id)


class TrecZscores(NamedTuple):
    """A ``-Z`` file (``qid measure mean stddev``) as trec_eval holds it: lines sorted by
    qid, then measure name (file order among equal keys).

    Attributes
    ----------
    qids : list of bytes
        The distinct qids, sorted.
    start : list of int
        ``start[k]``: the first line of ``qids[k]`` (one more entry than ``qids``).
    measure : list of bytes
    mean, stddev : list of float
        Per line.
    """

    qids: list
    start: list
    measure: list
    mean: list
    stddev: list


def read_trec_zscores(path: str, *, version: int = 10) -> TrecZscores:
    """The ``-Z`` file ``path`` as trec_eval reads it: four fields a line (no comments),
    the means and deviations read with ``atof``.

    Raises
    ------
    TrecEvalExit
        trec_eval's message and status (255: its ``main`` returns -1) for a file it cannot
        read or a malformed line.
    NotReproduced
        For a NUL byte.
    """
    try:
        data = file_bytes(path, "zscores", "get_zscores")
    except TrecEvalExit:
        reader = "get_zscores" if version >= 10 else "get_prefs"  # 9.0.8's message
        raise TrecEvalExit(path_message(f"trec_eval.{reader}: Cannot read zscores file '%s'\n",
                                path), 255) from None
    tok = _tokens(with_newline(data, path, "zscores"), 4)
    bad = np.flatnonzero(tok.counts != 4)
    if len(bad):
        raise TrecEvalExit(f"trec_eval.get_zscores: Malformed line {int(bad[0]) + 1}\n"
                           .encode(), 255)
    fields = (tok.first[:, None] + np.arange(4)).ravel()
    qid, measure = _cut(tok, fields[0::4]).tolist(), _cut(tok, fields[1::4]).tolist()
    mean = [c_atof(t) for t in _cut(tok, fields[2::4]).tolist()]
    stddev = [c_atof(t) for t in _cut(tok, fields[3::4]).tolist()]
    order = sorted(range(len(qid)), key=lambda k: (qid[k], measure[k]))
    qid = [qid[k] for k in order]
    qids = sorted(set(qid))
    start = [bisect.bisect_left(qid, q) for q in qids] + [len(qid)]
    return TrecZscores(qids, start, [measure[k] for k in order], [mean[k] for k in order],
                       [stddev[k] for k in order])
