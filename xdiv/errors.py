"""Exceptions and warnings raised by xdiv.

Every error is a :class:`ValueError` subclass so that callers that already guard
against bad input with ``except ValueError`` keep working. Errors about input files
name the file and the line; errors about runs name the run, topic and docno.

Labels and fields quoted in messages go through :func:`shown`, so that what reaches a
terminal is printable and of bounded length whatever the input held.
"""

from __future__ import annotations

import os
from typing import Any

LABEL_LIMIT = 80
"""The most characters :func:`shown` gives a label quoted in a message or a table."""

MESSAGE_LIMIT = 2000
"""The most characters of an error or warning message (as the command line prints it)."""

ELLIPSIS = "\u2026"
"""What ends a text :func:`shown` cut short."""


def shown(text: Any, limit: int | None = LABEL_LIMIT) -> str:
    r"""``text`` (made a string) as it may be shown on a terminal: every character that is
    not printable (control and format characters such as ESC, BEL, NUL, a newline, a
    right-to-left override, a lone surrogate) is written as Python writes it in a string
    literal, without the quotes (``\x1b``, ``\x07``, ``\x00``, ``\n``, ``\u202e``), and a
    result longer than ``limit`` characters is cut to ``limit``, its last character an
    ellipsis ``…`` (an escape is never cut in two). Backslashes and quotes are kept as
    they are; ``limit=None`` escapes without cutting.

    >>> print(shown("run\x1b]0;x\x07"))
    run\x1b]0;x\x07
    >>> print(shown("a" * 100, 10))
    aaaaaaaaa…
    """
    text = str(text)
    head = text if limit is None else text[:limit + 1]  # escaping never shortens
    if head.isprintable():
        if limit is None or len(text) <= limit:
            return text
        return text[:max(limit - 1, 0)] + ELLIPSIS
    pieces, size = [], 0
    for char in head:
        piece = char if char.isprintable() else repr(char)[1:-1]
        pieces.append(piece)
        size += len(piece)
        if limit is not None and size > limit:
            break
    if limit is None or size <= limit:  # then the whole text was escaped
        return "".join(pieces)
    while pieces and size > limit - 1:
        size -= len(pieces.pop())
    return "".join(pieces) + ELLIPSIS


class XdivError(ValueError):
    """Base class of every error xdiv raises on bad input or bad arguments."""


class ParseError(XdivError):
    """A malformed line in an input file.

    Parameters
    ----------
    path : str or path-like
        The file being read.
    line : int
        The 1-based line number of the offending line.
    message : str
        What is wrong with the line.
    """

    def __init__(self, path: str | os.PathLike | None, line: int | None, message: str):
        self.path = None if path is None else os.fspath(path)
        self.line = line
        where = self.path or "<input>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {message}")


class InputError(XdivError):
    """Input whose lines parse but whose content is inconsistent (duplicates, NaN scores, ...)."""


class MeasureError(XdivError):
    """An unknown measure name, an unknown parameter or a parameter value out of range."""


class XdivWarning(UserWarning):
    """Something in the input was kept but deserves the user's attention."""


class AlignmentWarning(XdivWarning):
    """Runs and qrels cover different topics (scored by the ``missing`` rule, or NaN)."""


class SingleIntentWarning(XdivWarning):
    """Diversity measures asked of qrels with one intent per topic (they reduce to
    single-intent measures)."""


class NoRelevantWarning(XdivWarning):
    """Topics of the qrels without any relevant document (they score NaN)."""


class RunTagWarning(XdivWarning):
    """A run file without run tag column, or with several tags: the run is named after
    the file."""
