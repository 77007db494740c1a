"""Typed columns from whitespace-separated text files: pyarrow's multi-threaded reader, pandas' C parser where pyarrow does not take the layout, and a line-by-line pass that names the file and line of any malformed field."""

from __future__ import annotations

import contextlib
import csv
import ctypes
import math
import mmap
import os
import platform
import re
import sys
import threading
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from ..errors import InputError, ParseError, XdivError
from ._guard import (LIMITS, GZIP_ERRORS, IN_MEMORY_GZIP, CONTROL, DECIMAL_INTEGER,
                     DECIMAL_NUMBER, check_gaps, control_message, gunzipped, is_gzip,
                     numbered_fields, check_file, open_guarded, open_text)

__all__ = ["read_columns", "decode_strings", "give_back", "give_back_after", "text_size"]

PathLike = str | os.PathLike


_INT64_MIN, _INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)
_GRAMMAR = {"int": DECIMAL_INTEGER, "float": DECIMAL_NUMBER}
"""The one grammar of each kind of numeric field, whatever reader path parses the file."""
_WANTED = {"int": "a decimal integer is expected", "float": "a decimal number is expected"}


def _c_number(value: str, kind: str) -> int | float:
    """What C's ``atol`` (``kind`` int) or ``atof``/``strtod`` (float) reads from
    ``value``: the longest prefix they take, 0 when there is none."""
    if kind == "int":
        found = re.match(r"[+-]?[0-9]+", value)
        return int(found.group()) if found else 0
    special = re.match(r"([+-]?)(inf(?:inity)?|nan)", value, re.IGNORECASE)
    if special:
        return float(special.group(1) + special.group(2))
    hexadecimal = re.match(r"([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)"
                           r"(?:[pP][+-]?[0-9]+)?)", value)
    if hexadecimal:
        return float.fromhex(hexadecimal.group(1) + "0x" + hexadecimal.group(2))
    found = re.match(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", value)
    return float(found.group()) if found else 0.0


def _reads_as_number(value: str) -> bool:
    """Whether some reader other than xdiv's takes ``value`` for a number: Python, C's
    ``strtod`` (hexadecimal), pandas and pyarrow (``true``/``false``)."""
    if value.lower() in ("true", "false"):
        return True
    try:
        float(value)
        return True
    except ValueError:
        pass
    try:
        int(value, 0)
        return True
    except ValueError:
        return re.fullmatch(r"[+-]?0[xX][0-9a-fA-F.]+(?:[pP][+-]?[0-9]+)?", value) is not None


def _tools_note(name: str, value: str) -> str:
    """What the official tools make of a numeric field xdiv refuses (trec_eval 9's
    get_qrels.c and get_trec_results.c, ndeval's naturalNumber and sscanf)."""
    if name == "level":
        return (f"; trec_eval would read it as {_c_number(value, 'int')} (atol), ndeval "
                "refuses the line")
    if name == "rank":
        return "; ndeval refuses the line, trec_eval ignores ranks"
    if name == "score":
        return (f"; trec_eval (atof) and ndeval (sscanf) would read it as "
                f"{_c_number(value, 'float')!r}")
    return ""


def _grammar_message(name: str, kind: str, value: str) -> str:
    """Why ``value`` is not a field of ``kind``: ``'two'`` is simply not a number; a
    spelling that other readers take for a number (``0x10``, ``1e2``, ``1.0``, ``true``)
    is said to be refused, with what the official tools would read."""
    if kind == "float" and value.isascii() and "_" not in value:
        try:
            if not math.isfinite(float(value)):
                return f"{name} {value!r} is not a finite number"
        except ValueError:
            pass
    message = f"{name} {value!r} is not a valid {kind}"
    if _reads_as_number(value):
        message += f" ({_WANTED[kind]}{_tools_note(name, value)})"
    return message


def _field_error(name: str, kind: str, value: str) -> str | None:
    """Why ``value`` cannot be the field ``name`` of ``kind``, or None when it can."""
    if kind == "str":
        return control_message(name.lstrip("_"), value)
    if not _GRAMMAR[kind].fullmatch(value):
        return _grammar_message(name, kind, value)
    if kind == "float" and not math.isfinite(float(value)):
        return f"{name} {value!r} is not a finite number"
    if kind == "int" and not _INT64_MIN <= int(value) <= _INT64_MAX:
        return f"{name} {value!r} is out of range (a 64-bit integer is expected)"
    return None


def _check_fields(path, number, fields, columns, optional_last):
    n = len(columns)
    if len(fields) != n and not (optional_last and len(fields) == n - 1):
        want = f"{n - 1} or {n}" if optional_last else f"{n}"
        layout = " ".join(c.lstrip("_") for c, _ in columns)
        raise ParseError(path, number, f"expected {want} whitespace-separated fields "
                                       f"({layout}), found {len(fields)}")
    error = _missing_q0(fields, columns)
    if error is not None:
        raise ParseError(path, number, error)
    for (name, kind), value in zip(columns, fields):
        error = _field_error(name, kind, value)
        if error is not None:
            raise ParseError(path, number, error)


def _missing_q0(fields, columns) -> str | None:
    """Why a run line without its tag is ambiguous, or None. The tag may be left out only
    when the second field is ``Q0``: ``1 clueweb09-en0000-00-00000 1 8771.0 tag`` is a
    line without its Q0 column (trec_eval and ndeval need all six fields), and read as a
    line without its tag it would take the docno for Q0 and the rank for the docno."""
    names = [name for name, _ in columns]
    if "_Q0" not in names or len(fields) != len(columns) - 1:
        return None
    where = names.index("_Q0")
    if fields[where] == "Q0":
        return None
    layout = " ".join(name.lstrip("_") for name in names)
    rest = [(name, kind) for name, kind in columns if name != "_Q0"]
    if all(_field_error(name, kind, value) is None for (name, kind), value in zip(rest, fields)):
        return (f"found {len(fields)} fields where a run line has {len(columns)} ({layout}): "
                f"the Q0 column is missing ({fields[where]!r} stands where Q0 should; "
                "trec_eval and ndeval need all six fields)")
    return (f"found {len(fields)} fields where a run line has {len(columns)} ({layout}): "
            f"a line without its run tag must have Q0 as its second field, not "
            f"{fields[where]!r}")


def _slow_validate(path, columns, optional_last, consistent_width, skip=0):
    """Re-read ``path`` line by line (after its first ``skip`` lines) and raise the first
    :class:`ParseError` found."""
    width = None
    for number, fields in numbered_fields(path, skip=skip):
        _check_fields(path, number, fields, columns, optional_last)
        if consistent_width:
            if width is None:
                width = len(fields)
            elif len(fields) != width:
                raise ParseError(path, number, f"found {len(fields)} fields where earlier lines "
                                               f"have {width}")


def read_table(path: PathLike, columns: list[tuple[str, str]], *,
                optional_last: bool = False) -> pd.DataFrame:
    """Read a whitespace-separated table with typed columns, or raise a precise ParseError.

    Columns whose name starts with ``_`` are validated but not kept; string columns come
    out as object arrays of Python strings (one string object per distinct value).
    """
    table = read_columns(path, columns, optional_last=optional_last)
    return pd.DataFrame({name: decode_strings(value) if isinstance(value, pa.Array) else value
                         for name, value in table.items()}, copy=False)


def read_columns(path: PathLike, columns: list[tuple[str, str]], *,
                 optional_last: bool = False,
                 skip_lines: int = 0) -> dict[str, np.ndarray | pa.DictionaryArray]:
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
        ``kind`` is ``"str"`` (no control character), ``"int"`` (a decimal integer, int64)
        or ``"float"`` (a decimal number, float64, finite): one grammar whichever path
        parses the file (docs/conventions.md). Names starting with ``_`` are validated
        but not returned.
    optional_last : bool
        The last column may be absent on every line (it then reads as ``""``).
    skip_lines : int
        Lines at the top of the file that are not part of the table (a run file's
        leading ir_metadata block, :mod:`xdiv.io.ir_metadata`); line numbers in messages
        still count them.

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
    compressed = is_gzip(path)
    if not compressed:
        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
            check_gaps(data, 0, LIMITS.max_line_bytes, os.fspath(path), 0)
    table = _arrow_columns(path, columns, optional_last, compressed, skip_lines)
    if table is None:
        frame = _pandas_table(path, columns, optional_last, compressed, skip_lines)
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


def give_back() -> None:
    """Hand the memory freed since the last call back to the system: pyarrow's default
    pool's (for the calling thread) and, with the GNU C library, the free pages of every
    thread's arena (``malloc_trim``), which the library keeps otherwise; a thread that
    needs memory next cannot use another thread's arena, so a stream's peak would grow
    by what each of its threads last freed."""
    pa.default_memory_pool().release_unused()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


GZIP_RATIO = 4
"""The text size of a gzip file taken as this many times its size on disk."""


_TRIM_BYTES = 1 << 20
"""Text read under which the buffers freed are left to the allocators: giving them back
(:func:`give_back`) walks the whole heap, up to a tenth of a second in a large process,
more than reading so little text costs."""


def give_back_after(paths: list[str]) -> None:
    """:func:`give_back` after reading the files ``paths``, when they held at least
    :data:`_TRIM_BYTES` of text."""
    if sum(text_size(path) for path in paths) >= _TRIM_BYTES:
        give_back()


def text_size(path: str) -> int:
    """The size in bytes of the text of file ``path``, estimated for gzip files
    (:data:`GZIP_RATIO`); 0 for what is no regular file (a pipe)."""
    try:
        size = os.path.getsize(path)
        return size * GZIP_RATIO if size and is_gzip(path) else size
    except OSError:
        return 0


def _glibc():
    """The GNU C library, or None (another C library, or another system)."""
    if not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc":
        return None
    try:
        libc = ctypes.CDLL("libc.so.6")
        return libc if hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


_LIBC = _glibc()


_DICTIONARY = pa.dictionary(pa.int32(), pa.string())
_ARROW_TYPES = {"str": _DICTIONARY, "int": pa.int64(), "float": pa.float64()}
_WIDE_STRINGS = ("docno",)
"""String columns with about one distinct value per line: parsed as plain strings and
dictionary-encoded once per file (cheaper than pyarrow's per-block dictionaries)."""


def _first_line(path: PathLike, compressed: bool, skip: int = 0) -> str | None:
    """The first non-blank line of ``path`` after its first ``skip`` lines (without its
    line break), or None (also when they are not all in the first 64 KiB)."""
    try:
        with open_guarded(path) if compressed else open(path, "rb") as fh:
            head = fh.read(1 << 16)
    except GZIP_ERRORS:
        return None  # the slower readers name the damage
    # lines end at LF, CR or CRLF only, as every reader path splits them (str.splitlines
    # would also split at a form feed or U+2028)
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
    for line in re.split(r"\r\n|\r|\n", text)[skip:]:
        if line.strip():
            return line
    return None


def _arrow_columns(path, columns, optional_last, compressed, skip=0):
    """The table parsed by pyarrow, or None when the file is not laid out with single
    spaces or single tabs throughout (pandas then reads it) or anything in it is not
    what the fast path accepts (empty fields, a field holding the other separator, a
    non-finite number, a line with another number of fields, undecodable bytes)."""
    line = _first_line(path, compressed, skip)
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
    # string columns starting with "_" (Q0) are read to be checked, not returned
    ignored = [name for name in read if name.startswith("_") and kinds[name] == "str"]
    try:
        data = gunzipped(path) if compressed and os.path.getsize(path) <= IN_MEMORY_GZIP \
            else None
        # the other separator anywhere sends the file to the general reader; searched in
        # the bytes when they are at hand, else in the string columns below
        other_seen = _holds(path, data, other.encode(), compressed)
        if other_seen:
            return None
        kept = read
        # pyarrow's integers also take hexadecimal (0x10): integer columns are read as
        # text and checked against the grammar when the file may hold an "x" or "X"
        hex_seen = [_holds(path, data, letter, compressed) for letter in (b"x", b"X")]
        ints_as_text = any(seen is not False for seen in hex_seen)
        types = {name: pa.string() if name in _WIDE_STRINGS
                 or (ints_as_text and kinds[name] == "int") else _ARROW_TYPES[kinds[name]]
                 for name in kept}
        with (contextlib.nullcontext(pa.py_buffer(data)) if data is not None
              else open_guarded(path) if compressed else contextlib.nullcontext(path)) as source:
            table = pa_csv.read_csv(
                source,
                read_options=pa_csv.ReadOptions(column_names=read, block_size=1 << 20,
                                                skip_rows=skip),
                parse_options=pa_csv.ParseOptions(
                    delimiter=delimiter, quote_char=False, double_quote=False,
                    escape_char=False, newlines_in_values=False, ignore_empty_lines=True),
                convert_options=pa_csv.ConvertOptions(
                    column_types=types, null_values=[], strings_can_be_null=False,
                    quoted_strings_can_be_null=False, check_utf8=True,
                    include_columns=kept),
                # the system allocator's pool: pyarrow's default pool (mimalloc) keeps the
                # pages a parsed file freed, in each thread that freed them, which cost a
                # streamed evaluation about 80 MiB of its peak
                memory_pool=pa.system_memory_pool())
    except XdivError:
        raise  # a limit of the guarded stream: reading on would cost what it guards
    except (pa.ArrowInvalid, UnicodeDecodeError, *GZIP_ERRORS):
        return None
    out = {}
    for name in kept:
        column = table.column(name)
        if kinds[name] == "str":
            column = column.combine_chunks(memory_pool=pa.system_memory_pool())
            words = column.dictionary if name not in _WIDE_STRINGS else column
            if len(words) and (pc.min(pc.binary_length(
                    words, memory_pool=pa.system_memory_pool())).as_py() == 0 or (
                    other_seen is None and pc.any(pc.match_substring(words, other)).as_py())
                    or _has_control(words)):
                return None
            if name == "_Q0" and len(read) < len(names) and words.to_pylist() != ["Q0"]:
                return None  # a line without its tag must show its Q0 (see _missing_q0)
        else:
            column = (_typed(kinds[name], column.combine_chunks(
                memory_pool=pa.system_memory_pool()))
                      if pa.types.is_string(column.type) else column.to_numpy())
            if column is None or (kinds[name] == "float" and not np.isfinite(column).all()):
                return None
        if name not in ignored:
            out[name] = column
    if len(read) < len(names):  # the optional last column is absent throughout
        out[names[-1]] = pa.DictionaryArray.from_arrays(
            pa.array(np.zeros(table.num_rows, dtype=np.int32)), pa.array([""]))
    return out


_ARROW_GRAMMAR = {kind: f"^(?:{grammar.pattern})$" for kind, grammar in _GRAMMAR.items()}


def _typed(kind: str, strings: pa.Array) -> np.ndarray | None:
    """A numeric column read as text, converted after checking every value against the
    grammar of ``kind`` (the pyarrow and pandas converters alone also take ``0x10``,
    ``1e2``, ``true``, ...), or None if a value is not of that grammar or out of range."""
    if len(strings) == 0:
        return np.zeros(0, dtype=np.int64 if kind == "int" else np.float64)
    if not pc.all(pc.match_substring_regex(strings, _ARROW_GRAMMAR[kind])).as_py():
        return None
    if kind == "int" and pc.any(pc.starts_with(strings, "+")).as_py():
        strings = pc.utf8_ltrim(strings, "+")  # pyarrow's integer cast takes no plus sign
    try:
        return pc.cast(strings, _ARROW_TYPES[kind]).to_numpy(zero_copy_only=False)
    except pa.ArrowInvalid:  # out of range
        return None


def _has_control(words: pa.Array) -> bool:
    """Whether a string column holds a control character (printable ASCII, by far the
    most common case, is checked first)."""
    printable = pc.ascii_is_printable(words, memory_pool=pa.system_memory_pool())
    return not pc.all(printable).as_py() and pc.any(
        pc.match_substring_regex(words, CONTROL.pattern)).as_py()


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


def _pandas_table(path, columns, optional_last, compressed, skip=0) -> pd.DataFrame:
    """``path`` parsed by pandas' C parser, or the first offending line raised as a
    :class:`ParseError` (the reader for layouts pyarrow's does not take)."""
    # every column is read as text: pandas' own converters also take 1e2 and 1.0 for
    # integers and true/false for numbers, so the numeric ones are converted by _typed
    dtypes = {name: object for name, _ in columns}
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
                                        quoting=csv.QUOTE_NONE, encoding="utf-8-sig",
                                        skiprows=skip)
        except XdivError:
            raise
        except (ValueError, pd.errors.ParserError, pd.errors.ParserWarning, OverflowError,
                *GZIP_ERRORS):
            continue  # undecodable bytes and corrupt gzip data included: named below
        ok = sep != " " or _single_spaced(frame, columns, optional_last)
        if ok:
            break
    if ok:
        # whitespace splitting leaves no empty field but a missing trailing one, and a
        # missing typed field fails conversion here: only the optional tag can be empty
        for name, kind in columns:
            if kind != "str":
                try:
                    values = _typed(kind, pa.array(frame[name].to_numpy(), pa.string()))
                except (pa.ArrowInvalid, pa.ArrowTypeError):
                    values = None
                if values is None or (kind == "float" and not np.isfinite(values).all()):
                    ok = False
                    break
                frame[name] = values
            elif len(frame) and _has_control(
                    pa.array(frame[name].to_numpy(), pa.string())):
                ok = False
                break
        if ok and optional_last:
            last = frame[columns[-1][0]]
            empty = (last == "").to_numpy()
            if empty.any() and not empty.all():
                ok = False
            elif empty.any() and "_Q0" in frame and not (frame["_Q0"] == "Q0").all():
                ok = False  # a line without its tag must show its Q0 (see _missing_q0)
    if not ok:
        _slow_validate(path, columns, optional_last, consistent_width=True, skip=skip)
        raise ParseError(path, None, "could not be parsed (no single offending line found)")
    return frame


def _looks_single_spaced(path: PathLike) -> bool:
    """Whether a plain-text file has no tab anywhere and its first data line separates
    fields by single spaces (then a single-space parse equals whitespace splitting, given
    the empty-field check of :func:`_single_spaced`)."""
    if is_gzip(path):
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
    """A single-space parse is trusted only if no field came out empty (which a double
    space or a leading/trailing space produces; every column is read as text)."""
    for name, _ in columns[:-1] if optional_last else columns:
        if (frame[name].to_numpy() == "").any():
            return False
    return True
