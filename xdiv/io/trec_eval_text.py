"""The parts of reading trec_eval's files that need no numpy: C's ``atol`` and ``atof``,
a file's bytes or trec_eval's refusal, and the exceptions that carry trec_eval's
messages (see :mod:`xdiv.io.trec_eval_input` for the conventions).
"""

from __future__ import annotations

import os
import re
import stat

__all__ = ["LONG_RANGE", "NotReproduced", "PLAIN_INTEGER", "PLAIN_NUMBER", "SPACE_BYTES",
           "TrecEvalExit", "c_atof", "c_atol", "file_bytes", "malformed_line", "path_message",
           "with_newline"]

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
    """C's ``atol``: the longest decimal integer prefix of ``token``, 0 if there is none,
    saturated to the range of a 64-bit ``long``."""
    match = _INTEGER_PREFIX.match(token)
    if match is None:
        return 0
    return min(max(int(match.group()), LONG_RANGE[0]), LONG_RANGE[1])


def c_atof(token: bytes) -> float:
    """C's ``atof`` (glibc's ``strtod``, correctly rounded): the value of the longest
    prefix of ``token`` that is a decimal or hexadecimal number, an infinity or a NaN; 0
    if there is none."""
    match = _NUMBER_PREFIX.match(token)
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
    if b"\0" in data:
        hint = " (gzip data: trec_eval reads files as they are; decompress it first)" if \
            data.startswith(b"\x1f\x8b") else ""
        raise NotReproduced(f"{what} file {path!r} holds a NUL byte, which trec_eval does "
                            f"not read as a character{hint}")
    return data if data.endswith(b"\n") else data + b"\n"
