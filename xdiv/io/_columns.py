"""Typed columns from whitespace-separated text files: pyarrow's multi-threaded reader, pandas' C parser where pyarrow does not take the layout, and a line-by-line pass that names the file and line of any malformed field."""

from __future__ import annotations

import contextlib
import csv
import math
import mmap
import os
import threading
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from ..errors import InputError, ParseError, XdivError
from ._guard import (LIMITS, GZIP_ERRORS, IN_MEMORY_GZIP, check_gaps, gunzipped, is_gzip,
                     numbered_fields, check_file, open_guarded, open_text)

__all__ = ["read_columns", "decode_strings"]

PathLike = str | os.PathLike


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
    for number, fields in numbered_fields(path):
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
    compressed = is_gzip(path)
    if not compressed:
        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
            check_gaps(data, 0, LIMITS.max_line_bytes, os.fspath(path), 0)
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
    except GZIP_ERRORS:
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
        data = gunzipped(path) if compressed and os.path.getsize(path) <= IN_MEMORY_GZIP \
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
    except (pa.ArrowInvalid, UnicodeDecodeError, *GZIP_ERRORS):
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
                *GZIP_ERRORS):
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
    """A single-space parse is trusted only if no string field came out empty (which a
    double space or a leading/trailing space produces)."""
    for name, kind in columns[:-1] if optional_last else columns:
        if kind == "str" and (frame[name].to_numpy() == "").any():
            return False
    return True
