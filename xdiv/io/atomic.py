"""Atomic output files: a target holds either its old content or the complete new one.

Every file xdiv writes (qrels, runs, hierarchies, NetCDF datasets) goes through
:func:`atomic_path` or :func:`atomic_output`. The content is written to a temporary file
in the target's folder, named ``.NAME.xdiv-partial-XXXXXX`` (``NAME`` the target's file
name, at most its first 100 bytes, and ``XXXXXX`` random characters), which is renamed
over the target once complete. The rename is atomic, so a reader of the target, or a
write that fails or is killed, never sees or leaves a truncated file.

The temporary file is removed when writing raises (an :class:`OSError` becomes a one-line
:class:`~xdiv.errors.InputError` naming the path and the reason, see :func:`write_error`)
and when the process receives ``SIGINT`` or
``SIGTERM``: while a temporary file exists, handlers of these two signals are installed
(in the main thread, for the signals that are not ignored) that remove it and then act as
the handlers they replaced (Python's ``SIGINT`` handler raises ``KeyboardInterrupt``; the
default action ends the process by the same signal). The previous handlers are restored
when writing ends. ``SIGKILL`` cannot be caught: it leaves the old target intact and may
leave a stale ``.NAME.xdiv-partial-XXXXXX`` file, safe to delete.

The renamed file keeps the permission bits of the file it replaces; a new file gets
those of the umask, as :func:`open` would give it. A symbolic link is followed: its
final target is replaced and the link stays a link. Two kinds of path are written to
directly, without a temporary file, and are never truncated nor replaced: a path that
leads to an open file descriptor of the process (``/dev/stdout``, ``/dev/fd/N`` and
``/proc/self/fd/N`` on Linux), written through a duplicate of the descriptor so that the
output lands where the descriptor's other writes do, and an existing file that is not a
regular file (a FIFO, a character device), opened for appending.
"""

from __future__ import annotations

import contextlib
import errno
import gzip as _gzip
import io
import os
import re
import signal
import stat
import tempfile
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import IO

from ..errors import InputError

__all__ = ["atomic_output", "atomic_path", "is_special_file", "output_target", "PARTIAL_MARK",
           "write_error"]

PARTIAL_MARK = ".xdiv-partial-"
"""What the name of a temporary output file holds, after ``.NAME``."""

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_NAME_BYTES = 100
_LINK_HOPS = 40
_DESCRIPTOR = re.compile(r"/proc/(?P<pid>\d+)(/task/\d+)?/fd/(?P<fd>\d+)")


def output_target(path: str | os.PathLike) -> str | int:
    """The file that writing ``path`` changes: its absolute path with every symbolic link
    followed, or the number of the open file descriptor of this process that ``path``
    leads to through ``/proc`` (``/dev/stdout`` gives 1 on Linux).

    Raises
    ------
    InputError
        The links loop or are nested more than 40 deep.
    """
    current = os.path.abspath(path)
    for _ in range(_LINK_HOPS):
        current = os.path.join(os.path.realpath(os.path.dirname(current)),
                               os.path.basename(current))
        descriptor = _DESCRIPTOR.fullmatch(current)
        if descriptor and int(descriptor["pid"]) == os.getpid():
            return int(descriptor["fd"])
        try:
            link = os.readlink(current)
        except OSError:  # not a link, or one that cannot be read: writing it will tell
            return current
        current = os.path.join(os.path.dirname(current), link)
    raise InputError(f"{os.fspath(path)}: too many levels of symbolic links")


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[str]:
    """Write ``path`` atomically through a path: a context manager yielding the path a
    writer that opens files itself (such as netCDF4) writes to.

    The yielded path is a new empty temporary file, renamed over the target when the
    ``with`` block ends without an exception and removed otherwise (see the module
    documentation); for a path written directly (a descriptor such as ``/dev/stdout``, a
    FIFO, a device) it is ``path`` itself.

    Parameters
    ----------
    path : str or path-like
        The output file; its folder must exist (see :func:`xdiv.io.check_output_path`).

    Yields
    ------
    str
        The path to write.

    Raises
    ------
    InputError
        ``PATH: cannot write in FOLDER (REASON)`` when no temporary file can be created,
        ``PATH: cannot write (REASON)`` on any other :class:`OSError` met while writing
        (except :class:`BrokenPipeError`: the reader of a pipe went away; see
        :func:`write_error`).
    """
    text = os.fspath(path)
    target = output_target(text)
    try:
        if isinstance(target, int) or is_special_file(target):
            yield text
        else:
            with _replacing(text, target) as partial:
                yield partial
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise write_error(text, exc) from None


_NOT_THE_REASON = (errno.EACCES, errno.EPERM)
"""What a library may report when it cannot create or extend a file on a full device
(netCDF: "Permission denied")."""


def write_error(path: str, exc: OSError, folder: str | None = None) -> InputError:
    """The one-line error of a failed write of ``path``: ``PATH: cannot write (REASON)``.

    ``REASON`` is the operating system's (``No space left on device``, ``Read-only file
    system``, ``Input/output error``, ...), or the message of a library that gives none
    (an :class:`OSError` without a positive ``errno``, such as ``NetCDF: HDF error``).
    When the device holding ``folder`` (the folder of the temporary file, looked at
    before the file is removed) has no free block left, a library's message and a
    ``Permission denied`` become ``No space left on device``: that is what they mean there.
    """
    code = exc.errno if isinstance(exc.errno, int) and exc.errno > 0 else None
    reason = exc.strerror or str(exc) or type(exc).__name__
    reason = " ".join(str(reason).split())  # one line, whatever the library said
    if folder is not None and (code is None or code in _NOT_THE_REASON) \
            and _device_full(folder):
        reason = os.strerror(errno.ENOSPC)
    return InputError(f"{path}: cannot write ({reason})")


def _device_full(folder: str) -> bool:
    """Whether the device holding ``folder`` has no block left for an unprivileged user."""
    try:
        return os.statvfs(folder).f_bavail == 0
    except (OSError, AttributeError):  # AttributeError: no statvfs (Windows)
        return False


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike, *, binary: bool = False,
                  gzip: bool = False) -> Iterator[IO]:
    """Write ``path`` atomically through a file object (see :func:`atomic_path`).

    Parameters
    ----------
    path : str or path-like
        The output file; its folder must exist (see :func:`xdiv.io.check_output_path`).
    binary : bool
        Yield a binary file instead of a UTF-8 text file.
    gzip : bool
        Compress what is written with gzip (the header names ``path``).

    Yields
    ------
    file object
        Open for writing; closed, and the file renamed over ``path``, when the ``with``
        block ends.

    Raises
    ------
    InputError
        As :func:`atomic_path`.
    """
    with atomic_path(path) as where, _open_for_appending(where) as raw:
        stream = _gzip.GzipFile(filename=os.fspath(path), mode="wb", fileobj=raw) \
            if gzip else raw
        with stream:
            if binary:
                yield stream
            else:
                with io.TextIOWrapper(stream, encoding="utf-8") as text:
                    yield text


def _open_for_appending(path: str) -> IO[bytes]:
    """``path`` open for appending bytes; a descriptor of this process (such as
    ``/dev/stdout``) is duplicated, so that what is written shares its file offset."""
    target = output_target(path)
    if isinstance(target, int):
        return open(os.dup(target), "wb")
    return open(path, "ab")


def is_special_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` exists and, links followed, is not a regular file (a FIFO, a
    device or a socket), which :func:`atomic_path` writes to directly."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return False


class _Partial:
    """The temporary file that becomes ``target``; :meth:`discard` removes it unless
    :meth:`commit` renamed it (safe to call from a signal handler, and more than once)."""

    def __init__(self, text: str, target: str):
        self.text, self.target = text, target
        self.path: str | None = None

    def create(self) -> None:
        """Create the (empty) temporary file."""
        folder, name = os.path.split(self.target)
        stem = os.fsdecode(os.fsencode(name)[:_NAME_BYTES])
        try:
            handle, self.path = tempfile.mkstemp(prefix=f".{stem}{PARTIAL_MARK}", dir=folder)
        except OSError as exc:
            raise InputError(f"{self.text}: cannot write in {folder} ({exc.strerror})") from None
        os.close(handle)

    def commit(self) -> None:
        """Give the file the target's permission bits and rename it over the target."""
        try:
            mode = stat.S_IMODE(os.stat(self.target).st_mode)
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        os.chmod(self.path, mode)
        os.replace(self.path, self.target)
        self.path = None

    def discard(self) -> None:
        """Remove the file if it was not renamed."""
        path, self.path = self.path, None
        if path is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)


@contextlib.contextmanager
def _replacing(text: str, target: str) -> Iterator[str]:
    """A temporary file beside ``target``, renamed over it after the ``with`` block and
    removed on an exception or a ``SIGINT``/``SIGTERM`` (``text``: the path as given)."""
    partial = _Partial(text, target)
    with _removing_on_signals(partial):
        partial.create()
        try:
            yield partial.path
            partial.commit()
        except BrokenPipeError:
            raise
        except OSError as exc:  # told while the file still takes its room on the device
            raise write_error(text, exc, os.path.dirname(target)) from None
        finally:
            partial.discard()


@contextlib.contextmanager
def _removing_on_signals(partial: _Partial) -> Iterator[None]:
    """While in the ``with`` block, ``SIGINT`` and ``SIGTERM`` discard ``partial`` before
    acting as the handlers they replaced."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may install handlers (and Python runs them there)
        return
    previous: dict[int, Callable] = {}
    for signum in _SIGNALS:
        handler = signal.getsignal(signum)
        # an ignored signal cannot stop the write; a handler installed outside Python
        # (None) could not be restored
        if handler not in (signal.SIG_IGN, None):
            previous[signum] = handler

    def on_signal(signum: int, frame: FrameType | None) -> None:
        handler = previous[signum]
        if callable(handler):
            handler(signum, frame)  # an exception it raises discards the file on its way
            return
        partial.discard()
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)

    try:
        for signum in previous:
            signal.signal(signum, on_signal)
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
