"""Guards between the readers and hostile or damaged files: the read limits
(:data:`xdiv.options.LIMITS`) applied to every byte stream, gzip recognised by its magic
bytes and refused beyond the bomb ratio, and paths checked before any work.

Every reader first checks its path with :func:`check_file`, and reads text through
:func:`open_text`, so that a directory, undecodable bytes or corrupt gzip data raise an
:class:`~xdiv.errors.InputError` naming the file rather than an ``OSError`` or a
``UnicodeDecodeError``.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import re
import zlib
from collections.abc import Iterator
from pathlib import Path


from ..options import LIMITS
from .atomic import output_target
from ..errors import InputError, ParseError

PathLike = str | os.PathLike

GZIP_MAGIC = b"\x1f\x8b"


_BLANK = b" \t\r\n"


class GuardedStream(io.RawIOBase):
    """A binary input stream that refuses lines longer than ``max_line`` bytes, more than
    ``max_total`` bytes, and (for gzip data of ``compressed`` bytes) a decompressed size
    past the :data:`LIMITS` ratio, naming the file and the line."""

    def __init__(self, raw, path: PathLike, *, compressed: int | None,
                 max_line: int | None, max_total: int | None):
        super().__init__()
        self._raw, self._path = raw, os.fspath(path)
        self._compressed, self._max_line, self._max_total = compressed, max_line, max_total
        self._total = self._lines = self._gap = self._blank = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self._raw.readinto(buffer)
        if n:
            self._check(bytes(memoryview(buffer)[:n]))
        return n

    def _check(self, chunk: bytes) -> None:
        self._total += len(chunk)
        if self._max_total is not None and self._total > self._max_total:
            raise InputError(f"{self._path}: larger than {self._max_total} bytes, the limit "
                             "for this kind of file (xdiv.set_options(max_xml_bytes=...), XDIV_MAX_XML_BYTES)")
        if self._compressed is not None and self._total > _gzip_limit(self._compressed):
            raise _bomb_error(self._path)
        if self._max_line is not None:
            self._gap = check_gaps(chunk, self._gap, self._max_line, self._path, self._lines)
        self._check_blank_run(chunk)
        self._lines += chunk.count(b"\n")

    def _check_blank_run(self, chunk: bytes) -> None:
        """Refuse a run of blank lines longer than ``max_line_bytes`` (a newline bomb
        would otherwise cost a Python loop per line)."""
        leading = len(chunk) - len(chunk.lstrip(_BLANK))
        self._blank += leading
        if self._blank > LIMITS.max_line_bytes:
            raise ParseError(self._path, self._lines + 1,
                             f"more than {LIMITS.max_line_bytes} bytes of blank lines (not a "
                             "text file of this kind? xdiv.set_options(max_line_bytes=...), XDIV_MAX_LINE_BYTES)")
        if leading < len(chunk):
            self._blank = len(chunk) - len(chunk.rstrip(_BLANK))

    def close(self) -> None:
        self._raw.close()
        super().close()


def _gzip_limit(compressed: int) -> float:
    """The most bytes a gzip file of ``compressed`` bytes may decompress to."""
    return max(LIMITS.gzip_ratio_floor, LIMITS.max_gzip_ratio * compressed)


def _bomb_error(path: PathLike) -> InputError:
    return InputError(f"{os.fspath(path)}: decompresses to more than "
                      f"{LIMITS.max_gzip_ratio:g} times its size, refused as a likely gzip "
                      "bomb (xdiv.set_options(max_gzip_ratio=...), XDIV_MAX_GZIP_RATIO)")


IN_MEMORY_GZIP = 16 << 20
"""Gzip files up to this size are decompressed in memory in one call (faster than a
checked stream); larger ones are streamed."""


def gunzipped(path: PathLike) -> bytes:
    """A small gzip file decompressed in memory, under the :data:`LIMITS` of
    :func:`open_guarded` (the ratio, line and blank-run checks run on the whole data)."""
    data = Path(path).read_bytes()
    limit = int(_gzip_limit(len(data)))
    parts, total = [], 0
    while data:  # one decompressor per gzip member
        member = zlib.decompressobj(wbits=31)
        part = member.decompress(data, limit + 1 - total)
        total += len(part)
        parts.append(part)
        if total > limit or member.unconsumed_tail:
            raise _bomb_error(path)
        if not member.eof:
            raise _gzip_error(path, EOFError("compressed file ended before the end-of-stream "
                                             "marker was reached"))
        data = member.unused_data
        if data.strip(b"\0") == b"":  # trailing padding, as gzip.decompress accepts it
            break
    text = b"".join(parts)
    GuardedStream(None, path, compressed=None, max_line=LIMITS.max_line_bytes,
                   max_total=None)._check(text)
    return text


def check_gaps(data, gap: int, limit: int, path: str, lines: int) -> int:
    """Raise unless every line of ``data`` (whose first line continues one of ``gap``
    bytes, after ``lines`` complete lines) holds at most ``limit`` bytes; return the
    length of the unfinished last line. Looks at about ``len(data) / limit`` places."""
    start = 0
    while True:
        newline = data.find(b"\n", start, start + limit + 1 - gap)
        if newline < 0:
            if len(data) - start + gap > limit:
                line = lines + data[:start].count(b"\n") + 1
                raise ParseError(path, line, f"a line longer than {limit} bytes (not a text "
                                             "file of this kind? xdiv.set_options("
                                             "max_line_bytes=...), XDIV_MAX_LINE_BYTES)")
            return len(data) - start + gap
        # the last newline within reach: the line after it starts the next window
        start = data.rfind(b"\n", newline, start + limit + 1 - gap) + 1
        gap = 0


def is_gzip(path: PathLike) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == GZIP_MAGIC


GZIP_ERRORS = (EOFError, gzip.BadGzipFile, zlib.error)
"""What :mod:`gzip` raises on truncated or corrupt compressed data."""


def check_output_path(path: PathLike) -> str:
    """``path`` as text, after checking that a file can be written there: it names a file
    (it is not empty and has no trailing separator), is not a folder, and the folder of
    the file it names exists (for a symbolic link, of the link's target; see
    :mod:`xdiv.io.atomic`). A FIFO, a device or an open descriptor, such as
    ``/dev/stdout``, is accepted: it is written to directly.

    Raises
    ------
    InputError
        Naming the path and what is wrong.
    """
    text = os.fspath(path)
    if text == "":
        raise InputError("the output path is empty (an unset shell variable?); name the file "
                         "to write")
    if os.path.isdir(text):
        raise InputError(f"{text}: is a directory, not a file")
    if text.endswith(("/", os.sep)):
        raise InputError(f"{text}: names a directory (it ends with {text[-1]!r}), not a file")
    target = output_target(text)
    folder = os.path.dirname(target) if isinstance(target, str) else None
    if folder is not None and not os.path.isdir(folder):
        raise InputError(f"{text}: the directory {folder} does not exist")
    return text


def check_file(path: PathLike) -> None:
    """Raise :class:`InputError` unless ``path`` is an existing, readable regular file.

    Parameters
    ----------
    path : str or path-like
        The file a reader is about to open.

    Raises
    ------
    InputError
        ``FILE: no such file``, ``DIR: is a directory, not a file``, ``FILE: not a
        regular file`` (a pipe or device, which the readers cannot read twice) or
        ``FILE: not readable (permission denied)``.
    """
    name = os.fspath(path)
    if not os.path.exists(path):
        raise InputError(f"{name}: no such file")
    if os.path.isdir(path):
        raise InputError(f"{name}: is a directory, not a file")
    if not os.path.isfile(path):
        raise InputError(f"{name}: not a regular file")
    if not os.access(path, os.R_OK):
        raise InputError(f"{name}: not readable (permission denied)")


def open_guarded(path: PathLike, *, xml: bool = False) -> io.BufferedReader:
    """Open ``path`` as a binary stream, decompressing gzip, under the :data:`LIMITS`:
    lines of at most ``max_line_bytes`` (XML: a total of at most ``max_xml_bytes``
    instead) and gzip data that decompresses at most ``max_gzip_ratio`` times."""
    check_file(path)
    size = os.path.getsize(path)
    if xml and size > LIMITS.max_xml_bytes:
        raise InputError(f"{os.fspath(path)}: {size} bytes, larger than the {LIMITS.max_xml_bytes} "
                         "bytes allowed for an XML file (xdiv.set_options(max_xml_bytes=...), XDIV_MAX_XML_BYTES)")
    compressed = is_gzip(path)
    raw = gzip.open(path, "rb") if compressed else open(path, "rb")
    return io.BufferedReader(GuardedStream(
        raw, path, compressed=size if compressed else None,
        max_line=None if xml else LIMITS.max_line_bytes,
        max_total=LIMITS.max_xml_bytes if xml else None))


@contextlib.contextmanager
def open_text(path: PathLike, *, xml: bool = False) -> Iterator:
    """Open ``path`` for reading UTF-8 text (a leading byte-order mark is skipped),
    transparently decompressing gzip, under the :data:`LIMITS` (see :func:`open_guarded`).

    A context manager: use ``with open_text(path) as fh``. The path is checked with
    :func:`check_file`, and a decoding error or corrupt gzip data met while reading inside
    the ``with`` block raises :class:`InputError` naming the file (see
    :func:`text_errors`).
    """
    with text_errors(path), io.TextIOWrapper(open_guarded(path, xml=xml),
                                             encoding="utf-8-sig") as fh:
        yield fh


@contextlib.contextmanager
def text_errors(path: PathLike) -> Iterator[None]:
    """Turn a ``UnicodeDecodeError`` or corrupt gzip data met while reading ``path`` into
    an :class:`InputError` naming the file (and the line of the first undecodable byte)."""
    try:
        yield
    except UnicodeDecodeError:
        raise _utf8_error(path) from None
    except GZIP_ERRORS as exc:
        raise _gzip_error(path, exc) from None


def _gzip_error(path: PathLike, exc: Exception) -> InputError:
    return InputError(f"{os.fspath(path)}: corrupt gzip data ({exc or type(exc).__name__})")


def _utf8_error(path: PathLike) -> InputError:
    """Where the first byte of ``path`` that is not UTF-8 is: ``FILE:LINE: not a UTF-8 text
    file (byte 0x.. at offset N)``, the offset counted in the (decompressed) data."""
    offset = 0
    try:
        with open_guarded(path) as fh:
            for number, line in enumerate(fh, start=1):
                try:
                    line.decode("utf-8")
                except UnicodeDecodeError as exc:
                    return InputError(f"{os.fspath(path)}:{number}: not a UTF-8 text file "
                                      f"(byte 0x{line[exc.start]:02x} at offset "
                                      f"{offset + exc.start})")
                offset += len(line)
    except GZIP_ERRORS as exc:
        return _gzip_error(path, exc)
    return InputError(f"{os.fspath(path)}: not a UTF-8 text file")  # pragma: no cover


def numbered_fields(path: PathLike, *, skip: int = 0) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(line_number, fields)`` for every non-blank line after the first ``skip``
    lines, its fields separated by spaces and tabs (as the table readers split them: other
    whitespace, such as a form feed or a no-break space, stays in the field)."""
    with open_text(path) as fh:
        for number, line in enumerate(fh, start=1):
            line = line.strip(BLANK)
            if line and number > skip:
                yield number, SEPARATORS.split(line)


# The grammar of the fields of the text formats (docs/conventions.md, "Fields"): every
# reader path (pyarrow's, pandas', the line-by-line check, the XML readers) applies it.

BLANK = " \t\r\n"
"""What surrounds the fields of a line: spaces, tabs and the line break."""

SEPARATORS = re.compile(r"[ \t]+")
"""What separates the fields of a line of a whitespace-separated file."""

DECIMAL_INTEGER = re.compile(r"[+-]?[0-9]+")
"""An integer field (a qrels level, a run's rank, a document length): ASCII digits with an
optional sign; ``0x10``, ``1e2``, ``1.0`` and ``true`` are not integers."""

DECIMAL_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
"""A number field (a run's score, a probability, a weight): ASCII digits with an optional
sign, fraction and exponent (``12``, ``-0.5``, ``.5``, ``-4.5e-05``); ``nan``, ``inf``,
``true`` and hexadecimal numbers are not numbers."""

CONTROL = re.compile(r"[\x00-\x1f\x7f]")
"""The characters an identifier (topic, intent, docno, run tag, node) may not hold: the C0
controls, NUL included, and DEL."""


def control_message(name: str, value: str) -> str | None:
    """Why ``value`` cannot be the identifier ``name`` (it holds a control character), or
    None when it can."""
    found = CONTROL.search(value)
    if found is None:
        return None
    return (f"{name} {value!r} holds the control character U+{ord(found.group()):04X} "
            "(labels may not hold control characters)")
