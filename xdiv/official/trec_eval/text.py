"""The parts of reading trec_eval's files that need no numpy: C's ``atol`` and ``atof``,
a file's bytes or trec_eval's refusal, and the exceptions that carry trec_eval's
messages (see :mod:`xdiv.official.trec_eval.input` for the conventions).
"""

from __future__ import annotations

import bisect
import os
import re
import stat
from typing import NamedTuple

__all__ = ["LONG_RANGE", "NotReproduced", "NulRead", "OVERRUN_LIMIT", "PLAIN_INTEGER", "PLAIN_NUMBER", "SPACE_BYTES",
           "TrecEvalExit", "c_atof", "c_atol", "file_bytes", "malformed_line", "path_message",
           "up_to_nul", "with_newline"]

SPACE_BYTES = b" \t\n\v\f\r"
"""The bytes C's ``isspace`` accepts in the C locale (Python's ``bytes.split()`` set)."""
LONG_RANGE = (-(2 ** 63), 2 ** 63 - 1)
"""What ``atol`` saturates to (a 64-bit ``long``)."""
PLAIN_INTEGER = b"0123456789+-"
PLAIN_NUMBER = b"0123456789+-.eE"

_INTEGER_PREFIX = re.compile(rb"[+-]?[0-9]+")
_NUMBER_PREFIX = re.compile(
    rb"(?P<sign>[+-]?)(?:"
    rb"(?P<hex>0[xX](?:[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?)"
    rb"|(?P<dec>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    rb"|(?P<inf>[iI][nN][fF](?:[iI][nN][iI][tT][yY])?)"
    rb"|(?P<nan>[nN][aA][nN](?:\([0-9A-Za-z_]*\))?))")


class TrecEvalExit(Exception):
    """trec_eval stops here: ``stderr`` (bytes) is what it writes on standard error and
    ``status`` its exit status."""

    def __init__(self, stderr: bytes, status: int):
        super().__init__(stderr.decode("latin-1"))
        self.stderr = stderr
        self.status = status


class NotReproduced(Exception):
    """An input on which trec_eval's behaviour is undefined or cannot be reproduced (it
    reads past its buffers or crashes); the message says why."""


def c_atol(token: bytes) -> int:
    """C's ``atol``: the longest decimal integer prefix of ``token`` after its leading
    whitespace, 0 if there is none, saturated to the range of a 64-bit ``long``."""
    match = _INTEGER_PREFIX.match(token.lstrip(SPACE_BYTES))
    if match is None:
        return 0
    return min(max(int(match.group()), LONG_RANGE[0]), LONG_RANGE[1])


def c_atof(token: bytes) -> float:
    """C's ``atof`` (glibc's ``strtod``, correctly rounded): the value of the longest
    prefix of ``token`` after its leading whitespace that is a decimal or hexadecimal
    number, an infinity or a NaN; 0 if there is none."""
    match = _NUMBER_PREFIX.match(token.lstrip(SPACE_BYTES))
    if match is None:
        return 0.0
    negative = match.group("sign") == b"-"
    if match.group("hex"):
        value = float.fromhex(match.group("hex").decode())
    elif match.group("dec"):
        value = float(match.group("dec"))
    elif match.group("inf"):
        value = float("inf")
    else:
        value = float("nan")
    return -value if negative else value


def path_message(text: str, path: str) -> bytes:
    return text.encode() % os.fsencode(path)


def file_bytes(path: str, what: str, reader: str) -> bytes:
    """The bytes of a regular, non-empty file, or trec_eval's refusal."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size == 0:
            raise _cannot_read(path, what, reader)
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        raise _cannot_read(path, what, reader) from None
    if not data:
        raise _cannot_read(path, what, reader)
    return data


def _cannot_read(path: str, what: str, reader: str) -> TrecEvalExit:
    return TrecEvalExit(path_message(f"trec_eval.{reader}: Cannot read {what} file '%s'\n",
                                     path)
                        + path_message("trec_eval: Quit in file '%s'\n", path), 2)


def malformed_line(path: str, reader: str, line: int) -> TrecEvalExit:
    return TrecEvalExit(f"trec_eval.{reader}: Malformed line {line}\n".encode()
                        + path_message("trec_eval: Quit in file '%s'\n", path), 2)


def with_newline(data: bytes, path: str, what: str) -> bytes:
    """``data`` ending with a newline; a NUL byte is refused."""
    if b"\0" in data:
        raise _nul_refused(data, path, what, "which trec_eval does not read as a character")
    return data if data.endswith(b"\n") else data + b"\n"


OVERRUN_LIMIT = 1000
"""How many lines past its array of lines trec_eval may store before a malformed line
for ``xdiv trec_eval`` to repeat its message (see :class:`NulRead`)."""


class NulRead(NamedTuple):
    """A file's bytes as trec_eval's reader acts on them when they may hold NUL bytes (a
    gzip file, say).

    trec_eval counts the lines before the first NUL to size its array of lines, then
    parses the lines up to a NUL that begins one, reading any other NUL as a byte of a
    field. A malformed line stops it with ``Malformed line N``; the lines it parsed past
    its array's end are written past it, which is undefined behaviour, repeated here
    only while it is a short overrun of a small array (:data:`OVERRUN_LIMIT` lines) as
    glibc's heap takes it.

    Attributes
    ----------
    data : bytes
        The bytes read: up to a NUL that begins a line, ending with a newline, the other
        NUL bytes replaced by ``?`` (a byte of a field, as trec_eval reads them).
    nuls : tuple of int
        Where ``data`` held NUL bytes.
    array : int
        The lines trec_eval's array holds (it counts them before the first NUL).
    """

    data: bytes
    nuls: tuple = ()
    array: int = 0

    def check(self, path: str, what: str, line_start: list, data_lines: list,
              comments: list, malformed: int | None) -> None:
        """Raise :class:`NotReproduced` unless trec_eval's behaviour is defined up to
        where it stops: ``malformed`` (the index into ``data_lines`` of the first
        malformed data line) or the end; ``line_start`` is each line's offset in
        :attr:`data` and ``comments`` the lines read as comments."""
        if not self.nuls:
            return
        if malformed is None:
            raise _nul_refused(self.data, path, what, "in a line trec_eval stores past "
                               "its array of lines")
        if malformed >= self.array and (self.array > OVERRUN_LIMIT
                                        or malformed - self.array >= OVERRUN_LIMIT):
            raise _nul_refused(self.data, path, what, "before a malformed line that "
                               "trec_eval reaches far past its array of lines")
        last = data_lines[malformed]
        nul_lines = {bisect.bisect_right(line_start, n) - 1 for n in self.nuls}
        if any(c < last and c in nul_lines for c in comments):
            raise _nul_refused(self.data, path, what, "in a comment line (trec_eval looks "
                               "for its end past the NUL and crashes)")


def up_to_nul(data: bytes, path: str, what: str, *, version: int) -> NulRead:
    """``data`` (a file's bytes) as trec_eval's reader of qrels, prefs or (``what`` is
    ``"results"``) results lines acts on them (see :class:`NulRead`); raises
    :class:`NotReproduced` for a NUL byte inside a line of trec_eval 9.0.8 (its line
    count crashes on it) and for one before any line of a qrels file."""
    data = data if data.endswith(b"\n") else data + b"\n"
    first = data.find(b"\0")
    if first < 0:
        return NulRead(data)
    lines = data.split(b"\n")[:-1]
    kept, nuls, offset = [], [], 0
    for line in lines:
        if line.startswith(b"\0"):
            break  # the reader stops at a NUL that begins a line
        nuls += [offset + k for k, byte in enumerate(line) if byte == 0]
        kept.append(line.replace(b"\0", b"?"))
        offset += len(line) + 1
    if nuls and version < 10:
        raise _nul_refused(data, path, what, "inside a line (trec_eval 9.0.8 crashes)")
    if not kept and what != "results":
        raise _nul_refused(data, path, what, "before any line")
    array, skipped = 0, False
    for line in data[:first].split(b"\n")[:-1]:  # trec_eval's count of its lines
        skipped = version >= 10 and line.startswith(b"#") and not skipped
        array += not skipped
    if data.startswith(b"#", data.rfind(b"\n", 0, first) + 1) and not skipped:
        raise _nul_refused(data, path, what, "in a comment line (trec_eval looks for its "
                           "end past the NUL and crashes)")
    return NulRead(b"".join(k + b"\n" for k in kept) or b"\n", tuple(nuls), array)


def _nul_refused(data: bytes, path: str, what: str, where: str) -> NotReproduced:
    hint = " (gzip data: trec_eval reads files as they are; decompress it first)" if \
        data.startswith(b"\x1f\x8b") else ""
    return NotReproduced(f"{what} file {path!r} holds a NUL byte {where}{hint}")
