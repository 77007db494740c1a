"""Exceptions and warnings raised by xdiv.

Every error is a :class:`ValueError` subclass so that callers that already guard
against bad input with ``except ValueError`` keep working. Errors about input files
name the file and the line; errors about runs name the run, topic and docno.
"""

from __future__ import annotations

import os


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
