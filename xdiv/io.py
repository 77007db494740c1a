"""Readers and writers of the TREC/NTCIR text formats (qrels, runs, topics, probabilities).

The readers return tidy :class:`pandas.DataFrame` objects; :mod:`xdiv.collection` and
:mod:`xdiv.runs` turn them into labelled datasets. Every reader uses a fast vectorised
path (pandas' C parser) and, when that path meets anything unexpected, re-reads the
file line by line to raise a :class:`~xdiv.errors.ParseError` that names the file and
the line. Gzip files are recognised by their magic bytes, whatever their name.

Every reader first checks its path with :func:`check_file`, and reads text through
:func:`open_text`, so that a directory, undecodable bytes or corrupt gzip data raise an
:class:`~xdiv.errors.InputError` naming the file rather than an ``OSError`` or a
``UnicodeDecodeError``.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import gzip
import io
import itertools
import math
import mmap
import os
import shutil
import sys
import tempfile
import threading
import warnings
import xml.etree.ElementTree as ET
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO
from xml.parsers import expat

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from .atomic import atomic_output, output_target
from .errors import InputError, ParseError, XdivError, XdivWarning
from .labels import preview

PathLike = str | os.PathLike

__all__ = [
    "read_qrels_frame",
    "read_run_frame",
    "read_run_columns",
    "read_columns",
    "read_topics",
    "read_probabilities",
    "write_qrels",
    "write_run",
    "check_file",
    "check_output_path",
    "spooled_inputs",
]

_GZIP_MAGIC = b"\x1f\x8b"


@dataclass
class ReadLimits:
    """Bounds that hostile or damaged input files meet within seconds and megabytes.

    Attributes
    ----------
    max_line_bytes : int
        The longest line a text input (qrels, runs, probabilities, hierarchies) may hold,
        and the longest run of blank lines any input may hold: 1 MiB by default, far beyond
        any real line (``XDIV_MAX_LINE_BYTES``).
    max_gzip_ratio : float
        Decompressed size over compressed size beyond which a gzip input is refused as a
        likely decompression bomb: 100 by default, where TREC qrels and runs compress 5 to
        15 times (``XDIV_MAX_GZIP_RATIO``).
    gzip_ratio_floor : int
        Decompressed bytes below which the ratio is not checked (64 MiB by default), so
        that small, very repetitive files pass (``XDIV_GZIP_RATIO_FLOOR``).
    max_xml_bytes : int
        The largest topic or IMine XML file, decompressed: 8 MiB by default, where real
        topic files are under 1 MiB; parsing a single huge XML token takes time quadratic
        in its size, so larger files are refused up front (``XDIV_MAX_XML_BYTES``).

    The defaults can be changed for a process through the environment variables named
    above, or in Python on :data:`LIMITS` (``xdiv.io.LIMITS.max_xml_bytes = 64 << 20``).
    """

    max_line_bytes: int = 1 << 20
    max_gzip_ratio: float = 100.0
    gzip_ratio_floor: int = 64 << 20
    max_xml_bytes: int = 8 << 20

    @classmethod
    def from_environment(cls) -> ReadLimits:
        """The defaults, overridden by the ``XDIV_*`` environment variables set."""
        limits = cls()
        for name in ("max_line_bytes", "max_gzip_ratio", "gzip_ratio_floor", "max_xml_bytes"):
            text = os.environ.get(f"XDIV_{name.upper()}")
            if text is not None:
                kind = type(getattr(limits, name))
                try:
                    value = kind(text)
                except ValueError:
                    raise InputError(f"XDIV_{name.upper()}={text!r} is not a "
                                     f"{'whole ' if kind is int else ''}number") from None
                setattr(limits, name, value)
        return limits


LIMITS = ReadLimits.from_environment()
"""The :class:`ReadLimits` every reader applies."""


_BLANK = b" \t\r\n"


class _GuardedStream(io.RawIOBase):
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
                             "for this kind of file (xdiv.io.LIMITS, XDIV_MAX_XML_BYTES)")
        if self._compressed is not None and self._total > _gzip_limit(self._compressed):
            raise _bomb_error(self._path)
        if self._max_line is not None:
            self._gap = _check_gaps(chunk, self._gap, self._max_line, self._path, self._lines)
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
                             "text file of this kind? xdiv.io.LIMITS, XDIV_MAX_LINE_BYTES)")
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
                      "bomb (xdiv.io.LIMITS, XDIV_MAX_GZIP_RATIO)")


_IN_MEMORY_GZIP = 16 << 20
"""Gzip files up to this size are decompressed in memory in one call (faster than a
checked stream); larger ones are streamed."""


def _gunzipped(path: PathLike) -> bytes:
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
    _GuardedStream(None, path, compressed=None, max_line=LIMITS.max_line_bytes,
                   max_total=None)._check(text)
    return text


def _check_gaps(data, gap: int, limit: int, path: str, lines: int) -> int:
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
                                             "file of this kind? xdiv.io.LIMITS, "
                                             "XDIV_MAX_LINE_BYTES)")
            return len(data) - start + gap
        # the last newline within reach: the line after it starts the next window
        start = data.rfind(b"\n", newline, start + limit + 1 - gap) + 1
        gap = 0


def _is_gzip(path: PathLike) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == _GZIP_MAGIC


_GZIP_ERRORS = (EOFError, gzip.BadGzipFile, zlib.error)
"""What :mod:`gzip` raises on truncated or corrupt compressed data."""


def check_output_path(path: PathLike) -> str:
    """``path`` as text, after checking that a file can be written there: it names a file
    (no trailing separator), is not a folder, and the folder of the file it names exists
    (for a symbolic link, of the link's target; see :mod:`xdiv.atomic`). A FIFO, a device
    or an open descriptor, such as ``/dev/stdout``, is accepted: it is written to directly.

    Raises
    ------
    InputError
        Naming the path and what is wrong.
    """
    text = os.fspath(path)
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
                         "bytes allowed for an XML file (xdiv.io.LIMITS, XDIV_MAX_XML_BYTES)")
    compressed = _is_gzip(path)
    raw = gzip.open(path, "rb") if compressed else open(path, "rb")
    return io.BufferedReader(_GuardedStream(
        raw, path, compressed=size if compressed else None,
        max_line=None if xml else LIMITS.max_line_bytes,
        max_total=LIMITS.max_xml_bytes if xml else None))


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
            guard = _GuardedStream(_Borrowed(source), name, compressed=None, max_total=None,
                                   max_line=None if head == _GZIP_MAGIC
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
    except _GZIP_ERRORS as exc:
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
    except _GZIP_ERRORS as exc:
        return _gzip_error(path, exc)
    return InputError(f"{os.fspath(path)}: not a UTF-8 text file")  # pragma: no cover


def _open_write(path: PathLike) -> contextlib.AbstractContextManager[TextIO]:
    """A UTF-8 text file replacing ``path`` atomically (see :mod:`xdiv.atomic`), gzipped
    when the name ends with ``.gz``."""
    return atomic_output(path, gzip=os.fspath(path).endswith(".gz"))


def _numbered_fields(path: PathLike) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(line_number, fields)`` for every non-blank line."""
    with open_text(path) as fh:
        for number, line in enumerate(fh, start=1):
            fields = line.split()
            if fields:
                yield number, fields


_KINDS = {"str": str, "int": int, "float": float}
_INT64_MIN, _INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)


def _number(kind: str, value: str) -> int | float:
    """``value`` as an int or float as pandas' C parser reads it: Python also accepts
    ``_`` separators and non-ASCII digits, which pandas rejects, so they raise here too."""
    if not value.isascii() or "_" in value:
        raise ValueError(value)
    return _KINDS[kind](value)


def _check_fields(path, number, fields, columns, optional_last):
    n = len(columns)
    if len(fields) != n and not (optional_last and len(fields) == n - 1):
        want = f"{n - 1} or {n}" if optional_last else f"{n}"
        layout = " ".join(c.lstrip("_") for c, _ in columns)
        raise ParseError(path, number, f"expected {want} whitespace-separated fields "
                                       f"({layout}), found {len(fields)}")
    for (name, kind), value in zip(columns, fields):
        if kind == "str":
            continue
        try:
            parsed = _number(kind, value)
        except ValueError:
            raise ParseError(path, number, f"{name} {value!r} is not a valid {kind}") from None
        if kind == "float" and not math.isfinite(parsed):
            raise ParseError(path, number, f"{name} {value!r} is not a finite number")
        if kind == "int" and not _INT64_MIN <= parsed <= _INT64_MAX:
            raise ParseError(path, number, f"{name} {value!r} is out of range (a 64-bit "
                                           "integer is expected)")


def _slow_validate(path, columns, optional_last, consistent_width):
    """Re-read ``path`` line by line and raise the first :class:`ParseError` found."""
    width = None
    for number, fields in _numbered_fields(path):
        _check_fields(path, number, fields, columns, optional_last)
        if consistent_width:
            if width is None:
                width = len(fields)
            elif len(fields) != width:
                raise ParseError(path, number, f"found {len(fields)} fields where earlier lines "
                                               f"have {width}")


def _read_table(path: PathLike, columns: list[tuple[str, str]], *,
                optional_last: bool = False) -> pd.DataFrame:
    """Read a whitespace-separated table with typed columns, or raise a precise ParseError.

    Columns whose name starts with ``_`` are validated but not kept; string columns come
    out as object arrays of Python strings (one string object per distinct value).
    """
    table = read_columns(path, columns, optional_last=optional_last)
    return pd.DataFrame({name: decode_strings(value) if isinstance(value, pa.Array) else value
                         for name, value in table.items()}, copy=False)


def read_columns(path: PathLike, columns: list[tuple[str, str]], *,
                 optional_last: bool = False) -> dict[str, np.ndarray | pa.DictionaryArray]:
    """Read a whitespace-separated table with typed columns, or raise a precise ParseError.

    The file is parsed by pyarrow's multi-threaded CSV reader when its fields are
    separated by single spaces or single tabs (what TREC tools write); any other layout,
    and any line the fast path does not accept, sends it to pandas' C parser and, if
    that fails too, to a line-by-line check that names the offending line.

    Parameters
    ----------
    path : str or path-like
        A text file, gzip allowed.
    columns : list of (name, kind)
        ``kind`` is ``"str"``, ``"int"`` (int64) or ``"float"`` (float64, finite). Names
        starting with ``_`` are validated but not returned.
    optional_last : bool
        The last column may be absent on every line (it then reads as ``""``).

    Returns
    -------
    dict
        Numeric columns as numpy arrays; string columns as
        :class:`pyarrow.DictionaryArray` (int32 indices into the distinct values), except
        ``docno``, whose values are mostly distinct, as a :class:`pyarrow.StringArray`: no
        Python string is made per line.
    """
    check_file(path)
    if os.path.getsize(path) == 0:
        raise InputError(f"{os.fspath(path)}: the file is empty")
    compressed = _is_gzip(path)
    if not compressed:
        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
            _check_gaps(data, 0, LIMITS.max_line_bytes, os.fspath(path), 0)
    table = _arrow_columns(path, columns, optional_last, compressed)
    if table is None:
        frame = _pandas_table(path, columns, optional_last, compressed)
        table = {name: frame[name].to_numpy() if kind != "str"
                 else pa.array(frame[name].to_numpy(), pa.string()) if name in _WIDE_STRINGS
                 else pa.array(frame[name].to_numpy(), pa.string()).dictionary_encode()
                 for name, kind in columns}
    if len(next(iter(table.values()))) == 0:
        raise InputError(f"{os.fspath(path)}: the file has no data lines")
    return {name: value for name, value in table.items() if not name.startswith("_")}


def decode_strings(values: pa.Array) -> np.ndarray:
    """A pyarrow string column as an object array of Python strings; a dictionary-encoded
    one makes one string per distinct value (each row refers to its value's string)."""
    if not isinstance(values, pa.DictionaryArray):
        return np.asarray(values.to_pylist(), dtype=object)
    words = np.asarray(values.dictionary.to_pylist(), dtype=object)
    return words[values.indices.to_numpy(zero_copy_only=False)]


_DICTIONARY = pa.dictionary(pa.int32(), pa.string())
_ARROW_TYPES = {"str": _DICTIONARY, "int": pa.int64(), "float": pa.float64()}
_WIDE_STRINGS = ("docno",)
"""String columns with about one distinct value per line: parsed as plain strings and
dictionary-encoded once per file (cheaper than pyarrow's per-block dictionaries)."""


def _first_line(path: PathLike, compressed: bool) -> str | None:
    """The first non-blank line of ``path`` (without its line break), or None."""
    try:
        with open_guarded(path) if compressed else open(path, "rb") as fh:
            head = fh.read(1 << 16)
    except _GZIP_ERRORS:
        return None  # the slower readers name the damage
    for line in head.decode("utf-8", errors="replace").lstrip("\ufeff").splitlines():
        if line.strip():
            return line
    return None


def _arrow_columns(path, columns, optional_last, compressed):
    """The table parsed by pyarrow, or None when the file is not laid out with single
    spaces or single tabs throughout (pandas then reads it) or anything in it is not
    what the fast path accepts (empty fields, a field holding the other separator, a
    non-finite number, a line with another number of fields, undecodable bytes)."""
    line = _first_line(path, compressed)
    if line is None:
        return None
    for delimiter, other in ((" ", "\t"), ("\t", " ")):
        if delimiter in line and other not in line:
            break
    else:
        return None
    n_fields = len(line.split(delimiter))
    names = [name for name, _ in columns]
    if not (n_fields == len(names) or (optional_last and n_fields == len(names) - 1)):
        return None
    kinds = dict(columns)
    read = names[:n_fields]
    # string columns starting with "_" hold anything: they are parsed, not converted, and
    # kept only to be searched for the other separator when the bytes were not
    ignored = [name for name in read if name.startswith("_") and kinds[name] == "str"]
    try:
        data = _gunzipped(path) if compressed and os.path.getsize(path) <= _IN_MEMORY_GZIP \
            else None
        # the other separator anywhere sends the file to the general reader; searched in
        # the bytes when they are at hand, else in the string columns below
        other_seen = _holds(path, data, other.encode(), compressed)
        if other_seen:
            return None
        kept = [name for name in read if other_seen is None or name not in ignored]
        types = {name: pa.string() if name in _WIDE_STRINGS else _ARROW_TYPES[kinds[name]]
                 for name in kept}
        with (contextlib.nullcontext(pa.py_buffer(data)) if data is not None
              else open_guarded(path) if compressed else contextlib.nullcontext(path)) as source:
            table = pa_csv.read_csv(
                source,
                read_options=pa_csv.ReadOptions(column_names=read, block_size=1 << 20),
                parse_options=pa_csv.ParseOptions(
                    delimiter=delimiter, quote_char=False, double_quote=False,
                    escape_char=False, newlines_in_values=False, ignore_empty_lines=True),
                convert_options=pa_csv.ConvertOptions(
                    column_types=types, null_values=[], strings_can_be_null=False,
                    quoted_strings_can_be_null=False, check_utf8=True,
                    include_columns=kept))
    except XdivError:
        raise  # a limit of the guarded stream: reading on would cost what it guards
    except (pa.ArrowInvalid, UnicodeDecodeError, *_GZIP_ERRORS):
        return None
    out = {}
    for name in kept:
        column = table.column(name)
        if kinds[name] == "str":
            column = column.combine_chunks()
            words = column.dictionary if name not in _WIDE_STRINGS else column
            if len(words) and (pc.min(pc.binary_length(words)).as_py() == 0 or (
                    other_seen is None and pc.any(pc.match_substring(words, other)).as_py())):
                return None
        else:
            column = column.to_numpy()
            if kinds[name] == "float" and not np.isfinite(column).all():
                return None
        if name not in ignored:
            out[name] = column
    if len(read) < len(names):  # the optional last column is absent throughout
        out[names[-1]] = pa.DictionaryArray.from_arrays(
            pa.array(np.zeros(table.num_rows, dtype=np.int32)), pa.array([""]))
    return out


def _holds(path: PathLike, data: bytes | None, needle: bytes, compressed: bool) -> bool | None:
    """Whether the bytes of ``path`` (``data`` when decompressed already) hold ``needle``;
    None for a gzip file not at hand (not searched)."""
    if data is not None:
        return data.find(needle) >= 0
    if compressed:
        return None
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as raw:
        return raw.find(needle) >= 0


# guards the process-wide warning filters that _pandas_table sets around pandas' parser
_WARNING_FILTER_LOCK = threading.Lock()


def _pandas_table(path, columns, optional_last, compressed) -> pd.DataFrame:
    """``path`` parsed by pandas' C parser, or the first offending line raised as a
    :class:`ParseError` (the reader for layouts pyarrow's does not take)."""
    dtypes = {name: {"str": object, "int": "int64", "float": "float64"}[kind]
              for name, kind in columns}
    names = [c for c, _ in columns]
    frame, ok = None, False
    # single spaces (what most tools write) parse fastest; any other layout falls back to
    # general whitespace splitting, and anything malformed to the line-by-line check
    for sep in ((" ", r"\s+") if _looks_single_spaced(path) else (r"\s+",)):
        try:
            # index_col=False: a line with an extra field must not turn the first column
            # into the index (shifting every column); pandas warns that it would drop the
            # extra field instead, and the warning sends the file to the line-by-line check
            # (the filter is process-wide: the lock keeps reader threads from
            # restoring each other's filters out of order)
            with _WARNING_FILTER_LOCK, warnings.catch_warnings():
                warnings.simplefilter("error", pd.errors.ParserWarning)
                with open_guarded(path) if compressed else contextlib.nullcontext(path) as src:
                    frame = pd.read_csv(src, sep=sep, header=None, names=names, dtype=dtypes,
                                        na_filter=False, engine="c", skip_blank_lines=True,
                                        index_col=False, low_memory=False,
                                        quoting=csv.QUOTE_NONE, encoding="utf-8-sig")
        except XdivError:
            raise
        except (ValueError, pd.errors.ParserError, pd.errors.ParserWarning, OverflowError,
                *_GZIP_ERRORS):
            continue  # undecodable bytes and corrupt gzip data included: named below
        ok = sep != " " or _single_spaced(frame, columns, optional_last)
        if ok:
            break
    if ok:
        # whitespace splitting leaves no empty field but a missing trailing one, and a
        # missing typed field fails conversion above: only the optional tag can be empty
        for name, kind in columns:
            if kind == "float" and not np.isfinite(frame[name].to_numpy()).all():
                ok = False
        if ok and optional_last:
            last = frame[columns[-1][0]]
            empty = (last == "").to_numpy()
            if empty.any() and not empty.all():
                ok = False
    if not ok:
        _slow_validate(path, columns, optional_last, consistent_width=True)
        raise ParseError(path, None, "could not be parsed (no single offending line found)")
    return frame


def _looks_single_spaced(path: PathLike) -> bool:
    """Whether a plain-text file has no tab anywhere and its first data line separates
    fields by single spaces (then a single-space parse equals whitespace splitting, given
    the empty-field check of :func:`_single_spaced`)."""
    if _is_gzip(path):
        return False
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        if data.find(b"\t") >= 0:
            return False
    with open_text(path) as fh:
        for line in fh:
            if line.strip():
                return "" not in line.rstrip("\r\n").split(" ")
    return False


def _single_spaced(frame: pd.DataFrame, columns, optional_last: bool) -> bool:
    """A single-space parse is trusted only if no string field came out empty (which a
    double space or a leading/trailing space produces)."""
    for name, kind in columns[:-1] if optional_last else columns:
        if kind == "str" and (frame[name].to_numpy() == "").any():
            return False
    return True


def read_qrels_frame(path: PathLike) -> pd.DataFrame:
    """Read TREC qrels (``topic intent docno level``) into a tidy frame.

    Diversity qrels carry the intent (subtopic) number in the second column; adhoc qrels
    carry an iteration number (usually ``0``), read the same way as a single intent.

    Returns
    -------
    pandas.DataFrame
        Columns ``topic``, ``intent``, ``docno`` (str) and ``level`` (int64).
    """
    return _read_table(path, [("topic", "str"), ("intent", "str"), ("docno", "str"),
                              ("level", "int")])


@dataclass(frozen=True)
class RunColumns:
    """One TREC run file as columns, docnos and topics dictionary-encoded.

    Attributes
    ----------
    path : str
    name : str
        The run's name (see :func:`read_run_frame`).
    tags : list of str
        The tags of the first and the last line.
    topic : pyarrow.DictionaryArray
        Per line: int32 indices into the file's distinct topics.
    docno : pyarrow.StringArray
        Per line.
    rank : numpy.ndarray
        int64 per line.
    score : numpy.ndarray
        float64 per line.
    """

    path: str
    name: str
    tags: list[str]
    topic: pa.DictionaryArray
    docno: pa.StringArray
    rank: np.ndarray
    score: np.ndarray


RUN_LAYOUT = [("topic", "str"), ("_Q0", "str"), ("docno", "str"), ("rank", "int"),
              ("score", "float"), ("run", "str")]
"""The columns of a TREC run file, for :func:`read_columns` (the tag is optional)."""


def read_run_columns(path: PathLike, *, warn: bool = True,
                     table: dict | None = None) -> RunColumns:
    """Read a TREC run (``topic Q0 docno rank score [tag]``) into columns, without a
    Python string per line (see :func:`read_columns`); named as :func:`read_run_frame`
    names it, with the same warnings (unless ``warn`` is false). ``table`` is the file
    as ``read_columns(path, RUN_LAYOUT, optional_last=True)`` returns it, when read
    already (the readers parse files in parallel, and name them in order)."""
    if table is None:
        table = read_columns(path, RUN_LAYOUT, optional_last=True)
    tag = table["run"]
    words = tag.dictionary.to_pylist()
    indices = tag.indices.to_numpy(zero_copy_only=False)
    first, last = words[indices[0]], words[indices[-1]]
    present = np.flatnonzero(np.bincount(indices, minlength=len(words)))
    name = _name_from_path(path)
    if len(present) == 1 and first != "":
        name = first
    elif not warn:
        pass
    elif len(present) == 1:
        warnings.warn(f"{os.fspath(path)}: no run tag column; the run is named {name!r} "
                      "after the file", XdivWarning, stacklevel=3)
    else:
        tags = [words[k] for k in pd.unique(indices)]
        warnings.warn(f"{os.fspath(path)}: {len(tags)} different run tags "
                      f"({preview(tags, 5)}); the run is named {name!r} after the file",
                      XdivWarning, stacklevel=3)
    return RunColumns(path=os.fspath(path), name=name, tags=[first, last],
                      topic=table["topic"], docno=table["docno"], rank=table["rank"],
                      score=table["score"])


def read_run_frame(path: PathLike) -> pd.DataFrame:
    """Read a TREC run (``topic Q0 docno rank score [tag]``) into a tidy frame.

    The run name is the tag of the sixth column. When the column is absent, or when
    the file holds more than one tag, the run is named after the file (its name without
    ``.gz`` and without a ``.run``/``.txt`` suffix) and a :class:`XdivWarning` says so.

    Returns
    -------
    pandas.DataFrame
        Columns ``topic``, ``docno`` (str), ``rank`` (int64), ``score`` (float64) and
        ``run``; ``attrs["tags"]`` holds the tags of the first and the last line (which
        ndeval and gdeval respectively print as the run's name).
    """
    columns = read_run_columns(path)
    frame = pd.DataFrame({"topic": decode_strings(columns.topic),
                          "docno": decode_strings(columns.docno),
                          "rank": columns.rank, "score": columns.score,
                          "run": columns.name}, copy=False)
    frame.attrs["tags"] = columns.tags
    return frame


def _name_from_path(path: PathLike) -> str:
    name = Path(path).name
    for suffix in (".gz", ".run", ".txt", ".trec"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def line_numbers(path: PathLike, n_rows: int) -> np.ndarray:
    """1-based line numbers of the ``n_rows`` data lines (blank lines are skipped)."""
    with open_text(path) as fh:
        data = fh.read()
    lines = data.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    numbers = np.fromiter((i for i, line in enumerate(lines, start=1) if line.strip()),
                          dtype=np.int64, count=-1)
    if len(numbers) != n_rows:  # pragma: no cover - guarded by _read_table
        raise ParseError(path, None, "line count mismatch while numbering lines")
    return numbers


def read_topics(path: PathLike, *, strict: bool = False) -> pd.DataFrame:
    """Read a TREC Web Track topic file (XML).

    Parameters
    ----------
    path : str or path-like
        The topic file (gzip is recognised by content).
    strict : bool
        Refuse a subtopic type other than ``inf`` and ``nav`` instead of reading it as
        ``inf`` (see Notes).

    Returns
    -------
    pandas.DataFrame
        One row per (topic, subtopic) in file order, columns ``topic``, ``intent``,
        ``intent_type`` (``inf``/``nav``, default ``inf``), ``topic_type`` (as in the
        file, e.g. ``faceted``/``ambiguous``/``single``; empty if absent), ``query`` and
        ``order`` (0-based position of the subtopic within its topic). A topic without
        subtopics (TREC 2013-14 ``single`` topics) gets one row with intent ``"0"``, the
        intent id those years' qrels use for it.

    Raises
    ------
    ParseError
        The file is not well-formed XML, a ``<topic>`` or ``<subtopic>`` has no
        ``number`` attribute, or (with ``strict``) a subtopic has an unknown type; the
        message names the file, the line and, where known, the topic and subtopic.
    InputError
        The file holds no ``<topic>``, or a topic lists the same subtopic twice.

    Warns
    -----
    XdivWarning
        For each subtopic of unknown type read as ``inf`` (see Notes), naming the file,
        line, topic, subtopic and type.

    Notes
    -----
    A subtopic without a ``type`` attribute is informational (``inf``), the default of
    the Web Track's topic DTD. A subtopic whose type is neither ``inf`` nor ``nav`` is
    also read as informational, with a warning: the official TREC 2011 topic file has
    ``type="inv"`` (topic 102) and ``type="inav"`` (topic 138).
    """
    try:
        with open_text(path, xml=True) as fh:
            text = fh.read()
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        line = exc.position[0] if exc.position else None
        raise ParseError(path, line, f"not a well-formed topic XML file ({exc})") from None
    line_of = dict(zip(root.iter(), _start_lines(text)))
    rows = []
    for topic in root.iter("topic"):
        number = topic.get("number")
        if number is None:
            raise ParseError(path, line_of[topic],
                             "a <topic> element has no number attribute")
        query = (topic.findtext("query") or "").strip()
        ttype = topic.get("type", "")
        subtopics = topic.findall("subtopic")
        if not subtopics:
            rows.append((number, "0", "inf", ttype, query, 0))
        for order, sub in enumerate(subtopics):
            intent = sub.get("number")
            if intent is None:
                raise ParseError(path, line_of[sub],
                                 f"topic {number}: a <subtopic> element has no number attribute")
            itype = sub.get("type", "inf")
            if itype not in ("inf", "nav"):
                what = (f"topic {number} subtopic {intent}: type {itype!r} is neither 'inf' "
                        "nor 'nav'")
                if strict:
                    raise ParseError(path, line_of[sub], what)
                warnings.warn(f"{os.fspath(path)}:{line_of[sub]}: {what}; read as 'inf' "
                              "(informational)", XdivWarning, stacklevel=2)
                itype = "inf"
            rows.append((number, intent, itype, ttype, query, order))
    if not rows:
        raise InputError(f"{os.fspath(path)}: no <topic> elements found")
    frame = pd.DataFrame(rows, columns=["topic", "intent", "intent_type", "topic_type",
                                        "query", "order"])
    dup = frame.duplicated(["topic", "intent"])
    if dup.any():
        t, i = frame.loc[dup.idxmax(), ["topic", "intent"]]
        raise InputError(f"{os.fspath(path)}: topic {t} lists subtopic {i} twice")
    return frame


def _start_lines(text: str) -> list[int]:
    """The line of every element's start tag in ``text`` (well-formed XML), in document
    order, the order in which :meth:`xml.etree.ElementTree.Element.iter` yields them."""
    lines: list[int] = []
    parser = expat.ParserCreate()
    parser.StartElementHandler = lambda *_: lines.append(parser.CurrentLineNumber)
    parser.Parse(text, True)
    return lines


def read_probabilities(path: PathLike) -> pd.DataFrame:
    """Read an intent-probability file (``topic intent probability``).

    Probabilities must be finite and non-negative; they are renormalised per topic over
    the intents kept in the collection (see :func:`xdiv.read_qrels`).
    """
    frame = _read_table(path, [("topic", "str"), ("intent", "str"), ("probability", "float")])
    frame["line"] = line_numbers(path, len(frame))
    negative = frame["probability"] < 0
    if negative.any():
        raise ParseError(path, int(frame.loc[negative.idxmax(), "line"]),
                         "a probability is negative")
    dup = frame.duplicated(["topic", "intent"])
    if dup.any():
        raise ParseError(path, int(frame.loc[dup.idxmax(), "line"]),
                         "this (topic, intent) pair appears twice")
    return frame


def read_doc_lengths(path: PathLike) -> pd.DataFrame:
    """Read document lengths (``docno length``, characters) into ``docno``/``length``."""
    return _read_table(path, [("docno", "str"), ("length", "float")])


_LINES_PER_WRITE = 10_000


def _write_lines(path: PathLike, columns: Iterable[np.ndarray]) -> None:
    """Write the columns' values as space-separated lines, a block of lines at a time."""
    text = check_output_path(path)
    lines = map(" ".join, zip(*(np.asarray(c).astype(str) for c in columns)))
    with _open_write(text) as fh:
        while block := list(itertools.islice(lines, _LINES_PER_WRITE)):
            fh.write("\n".join(block) + "\n")


def write_qrels(path: PathLike, qrels: pd.DataFrame) -> None:
    """Write a tidy qrels frame (``topic intent docno level``) as TREC qrels.

    Use :func:`xdiv.collection.qrels_frame` to get that frame from a collection; the
    original lines, including negative (spam) levels, are reproduced.
    """
    _write_lines(path, [qrels["topic"], qrels["intent"], qrels["docno"], qrels["level"]])


def write_run(path: PathLike, run: pd.DataFrame) -> None:
    """Write a tidy run frame (``run topic docno rank score``) as a TREC 6-column run.

    Scores are written with ``repr`` precision so that reading the file back gives the
    same floats.
    """
    scores = np.array([repr(float(s)) for s in run["score"].to_numpy()], dtype=object)
    _write_lines(path, [run["topic"], np.full(len(run), "Q0"), run["docno"], run["rank"],
                        scores, run["run"]])

