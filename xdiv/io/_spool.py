"""Standard input, pipes and process substitutions spooled to temporary files, so that every reader can open its input twice (a fast pass and a line-numbering pass)."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import shutil
import sys
import tempfile
import warnings
from collections.abc import Iterable, Iterator


from ..errors import InputError, ParseError, XdivError
from ._guard import LIMITS, GZIP_MAGIC, GuardedStream

__all__ = ["Spool", "spooled_inputs"]

PathLike = str | os.PathLike


STDIN = "-"
"""The input name that stands for standard input (named ``<stdin>`` in messages)."""


class Spool:
    """The inputs of :func:`spooled_inputs`: ``paths`` to hand to the readers, and
    :meth:`original` to put the names given back into a text that names a spooled copy."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self._given: dict[str, str] = {}

    def original(self, text: str) -> str:
        """``text`` with every spooled copy's path replaced by the input's name."""
        for copy, name in self._given.items():
            text = text.replace(copy, name)
        return text


class _Borrowed(io.RawIOBase):
    """A raw stream reading from ``source``, which closing it leaves open."""

    def __init__(self, source) -> None:
        super().__init__()
        self._source = source

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        return self._source.readinto(buffer)


def _needs_spool(path: str) -> bool:
    """``-``, or an existing input that is neither a regular file nor a directory (a
    pipe, a FIFO, a character device, process substitution's ``/dev/fd/N``)."""
    return path == STDIN or (os.path.exists(path) and not os.path.isdir(path)
                             and not os.path.isfile(path))


def _spool(path: str, folder: str) -> str:
    """Copy the input ``path`` into a new regular file under ``folder`` (keeping its base
    name; ``<stdin>`` for ``-``) under the :data:`LIMITS`, and return the file's path."""
    name = "<stdin>" if path == STDIN else path
    if path != STDIN and not os.access(path, os.R_OK):
        raise InputError(f"{name}: not readable (permission denied)")
    os.mkdir(folder)
    copy = os.path.join(folder, os.path.basename(name) or "input")
    try:
        with contextlib.ExitStack() as stack:
            source = (sys.stdin.buffer if path == STDIN
                      else stack.enter_context(open(path, "rb")))
            out = stack.enter_context(open(copy, "wb"))
            head = source.read(2)
            # plain text is checked line by line as it arrives; gzip data is checked
            # when the reader decompresses the copy (its ratio needs the whole size)
            guard = GuardedStream(_Borrowed(source), name, compressed=None, max_total=None,
                                   max_line=None if head == GZIP_MAGIC
                                   else LIMITS.max_line_bytes)
            guard._check(head)
            out.write(head)
            shutil.copyfileobj(guard, out, 1 << 20)
    except (OSError, AttributeError) as exc:  # AttributeError: no sys.stdin.buffer
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            # the copy has no size limit of its own: the disk it lands on is the limit
            raise InputError(f"{name}: cannot be copied to {tempfile.gettempdir()} "
                             f"({reason}); point TMPDIR at a larger disk or give a "
                             "file") from None
        raise InputError(f"{name}: cannot be read ({reason})") from None
    return copy


@contextlib.contextmanager
def spooled_inputs(paths: Iterable[PathLike]) -> Iterator[Spool]:
    """Make standard input and non-seekable inputs readable by the readers, which look at
    a file more than once (its first bytes for gzip, then its lines).

    ``with spooled_inputs(paths) as spool``: ``spool.paths`` holds, for each of ``paths``,
    the path itself when it is a regular file (or does not exist: the reader reports
    it), and for ``-`` (standard input) and any other readable input that is no folder (a
    pipe, a FIFO, ``/dev/stdin``, process substitution ``<(zcat run.gz)``) a temporary
    regular file holding its bytes. The bytes are copied under the :data:`LIMITS` (a
    plain-text input's lines are checked as they arrive), and the copy keeps the input's
    base name (``<stdin>`` for ``-``), after which a run without tag column is named.

    Inside the block, the :class:`~xdiv.errors.XdivError` raised and the warnings shown
    name the input as given (``<stdin>`` for ``-``), never a temporary file; on leaving
    it the temporary files are removed.

    Raises
    ------
    InputError
        ``-`` given twice (standard input can be read once), or an input that cannot be
        read (naming it).
    """
    given = [os.fspath(p) for p in paths]
    if given.count(STDIN) > 1:
        raise InputError("-: standard input is given more than once (it can be read once)")
    spool = Spool()
    folder = tempfile.mkdtemp(prefix="xdiv-") if any(map(_needs_spool, given)) else None
    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        text = spool.original(str(message))
        if text != str(message):
            message = category(text)
        shown(message, category, filename, lineno, file, line)

    try:
        for k, path in enumerate(given):
            if _needs_spool(path):
                copy = _spool(path, os.path.join(folder, str(k)))
                spool._given[copy] = "<stdin>" if path == STDIN else path
                path = copy
            spool.paths.append(path)
        warnings.showwarning = show
        yield spool
    except XdivError as exc:
        exc.args = tuple(spool.original(a) if isinstance(a, str) else a for a in exc.args)
        if isinstance(exc, ParseError) and exc.path is not None:
            exc.path = spool.original(exc.path)
        raise
    finally:
        warnings.showwarning = shown
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
