"""NTCIR 1CLICK files: the gold-standard nuggets of every question and the nugget matches
of each system output, read as NTCIREVAL's scripts read them (Sakai, Kato & Song,
CIKM 2011).

=============  ==========================================  =============================
file           line                                        read by
=============  ==========================================  =============================
``.nuggets``   ``question nugget weight vital [more...]``  ``1CLICK-splitnuggets``
match file     ``question syslen= length`` (once), then    ``1CLICK-splitmatch``
               ``question nugget offset``
=============  ==========================================  =============================

A nugget's weight is a positive number and its vital string length a positive whole
number (the characters needed to convey it); fields after the fourth are ignored, as
NTCIREVAL ignores them. A match file (one per run, the run named by the file's name)
gives each question's output length in characters (its X-string) and the offset of each
nugget found in it. A nugget matched more than once counts once, at its first match
(``first_match``). Fields are separated by spaces and tabs; blank lines are skipped.
Bad input raises one :class:`~xdiv.errors.ParseError` naming the file and the line.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable

import numpy as np
import xarray as xr

from ..core.labels import object_strings, preview, to_json
from ..errors import AlignmentWarning, InputError, ParseError, shown
from .._warnings import warn
from ..typing import FIRST_MATCHES, FirstMatch
from ._guard import (DECIMAL_INTEGER, DECIMAL_NUMBER, check_file, control_message,
                     numbered_fields)

__all__ = ["LARGEST", "read_matches", "read_nuggets"]

PathLike = str | os.PathLike

_LENGTH = "syslen="
"""The second field of a match file's line giving the output length."""

LARGEST = 2**53
"""The largest length or offset read (a float64 holds every whole number up to it)."""


def _quoted(value: str) -> str:
    """``value`` quoted for a message, escaped and cut short (:func:`xdiv.errors.shown`)."""
    return f"'{shown(value)}'"


def _label(path: PathLike, line: int, name: str, value: str) -> str:
    message = control_message(name, value)
    if message is not None:
        raise ParseError(path, line, message)
    return value


def _whole(path: PathLike, line: int, name: str, value: str, low: int) -> int:
    if DECIMAL_INTEGER.fullmatch(value) is None:
        raise ParseError(path, line, f"{name} {_quoted(value)} is not a whole number")
    number = int(value) if len(value) <= 20 else int(value[0] + "9" * 20)  # past any limit
    if number < low:
        raise ParseError(path, line, f"{name} {_quoted(value)} is below {low}")
    if number > LARGEST:
        raise ParseError(path, line, f"{name} {_quoted(value)} is above {LARGEST}")
    return number


def _weight(path: PathLike, line: int, value: str) -> float:
    if DECIMAL_NUMBER.fullmatch(value) is None or not math.isfinite(float(value)):
        raise ParseError(path, line, f"weight {_quoted(value)} is not a finite number")
    weight = float(value)
    if weight <= 0:
        raise ParseError(path, line, f"weight {_quoted(value)} is not positive (a nugget's "
                                     "weight must be above 0)")
    return weight


def read_nuggets(path: PathLike) -> xr.Dataset:
    """Read a 1CLICK ``.nuggets`` file: the gold-standard nuggets of every question.

    Each line is ``question nugget weight vital``, possibly followed by more fields
    (ignored). A nugget listed twice for a question with the same fields counts once, as
    ``1CLICK-splitnuggets`` (which sorts them with ``sort -u``) keeps it; listed twice
    with different fields it is refused.

    Parameters
    ----------
    path : str or path-like
        The ``.nuggets`` file (gzip allowed).

    Returns
    -------
    xarray.Dataset
        Dimensions ``topic`` (the questions, in the order of the file) and ``nugget``
        (0, 1, ...: a question's nuggets in the order of the file, padded to the largest
        question's count). ``nugget_id(topic, nugget)`` (str; ``""`` where a question has
        no more nuggets), ``weight(topic, nugget)`` (float64, > 0; NaN in the padding),
        ``vital(topic, nugget)`` (int64, > 0: the vital string length; 0 in the padding)
        and ``n_nuggets(topic)``; attributes ``xdiv_kind = "nuggets"`` and ``source``.

    Raises
    ------
    ParseError
        A line with fewer than four fields, a label with a control character, a weight
        that is not a positive number, a vital length that is not a positive whole
        number, or a nugget given twice with different fields (both lines named).
    InputError
        A file without data lines, or that cannot be read.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from xdiv.oneclick import read_nuggets
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name) / "test.nuggets"
    >>> _ = path.write_text("Q1 N1 3 10\\nQ1 N2 1 5\\nQ2 N1 2 2\\n")
    >>> nuggets = read_nuggets(path)
    >>> nuggets["weight"].to_pandas()
    nugget    0    1
    topic
    Q1      3.0  1.0
    Q2      2.0  NaN
    >>> folder.cleanup()
    """
    check_file(path)
    questions: dict[str, dict[str, tuple[int, list[str]]]] = {}
    for line, fields in numbered_fields(path):
        if len(fields) < 4:
            raise ParseError(path, line, f"expected at least 4 fields (question nugget weight "
                                         f"vital), found {len(fields)}")
        topic = _label(path, line, "question", fields[0])
        nugget = _label(path, line, "nugget", fields[1])
        _weight(path, line, fields[2])
        _whole(path, line, "vital string length", fields[3], 1)
        known = questions.setdefault(topic, {})
        if nugget in known and known[nugget][1] != fields[1:]:
            first = known[nugget][0]
            raise ParseError(path, line, f"question {shown(topic)} nugget {shown(nugget)} is "
                                         f"given again with other fields (first on line "
                                         f"{first})")
        known.setdefault(nugget, (line, fields[1:]))
    if not questions:
        raise InputError(f"{os.fspath(path)}: the file has no data lines")
    width = max(len(n) for n in questions.values())
    shape = (len(questions), width)
    ids = np.full(shape, "", dtype=object)
    weight = np.full(shape, np.nan)
    vital = np.zeros(shape, dtype=np.int64)
    for row, nuggets in enumerate(questions.values()):
        for column, (nugget, (_, fields)) in enumerate(nuggets.items()):
            ids[row, column] = nugget
            weight[row, column] = float(fields[1])
            vital[row, column] = int(fields[2])
    dims = ("topic", "nugget")
    return xr.Dataset(
        {"nugget_id": (dims, ids), "weight": (dims, weight), "vital": (dims, vital),
         "n_nuggets": ("topic", np.array([len(n) for n in questions.values()],
                                         dtype=np.int64))},
        coords={"topic": object_strings(questions), "nugget": np.arange(width)},
        attrs={"xdiv_kind": "nuggets", "source": os.fspath(path)})


def _check_nuggets(nuggets: xr.Dataset) -> None:
    if not isinstance(nuggets, xr.Dataset) or nuggets.attrs.get("xdiv_kind") != "nuggets":
        raise InputError("nuggets must be a path or the dataset of "
                         "xdiv.oneclick.read_nuggets")


def read_matches(paths: PathLike | Iterable[PathLike], nuggets: xr.Dataset | PathLike, *,
                 first_match: FirstMatch = "position") -> xr.Dataset:
    """Read 1CLICK match files, one per run, against the questions' gold nuggets.

    Each file holds, for each question, a line ``question syslen= length`` (the output's
    length in characters) and a line ``question nugget offset`` for each match of a gold
    nugget in the output, as NTCIREVAL's ``1CLICK-splitmatch`` reads it. The run is
    named by the file's name without its folders. The lines of questions that are not in
    ``nuggets`` are left out, as ``1CLICK-splitmatch`` leaves them, with an
    :class:`~xdiv.AlignmentWarning`; a question without any line in a file is an empty
    output (length 0, nothing matched), as ``ntcir_eval 1click`` scores an empty match
    file, and is listed in the ``topics_not_in_runs`` attribute.

    Parameters
    ----------
    paths : str, path-like or list of them
        The match files (gzip allowed).
    nuggets : xarray.Dataset or str or path-like
        The gold nuggets (:func:`read_nuggets`) or their file.
    first_match : {"position", "text"}
        Which match of a nugget matched more than once counts: the one at the smallest
        offset (the default: the first in the output), or the one whose offset comes
        first as text, as ``1CLICK-splitmatch`` keeps it (it sorts the offsets as text:
        30 before 7), to reproduce NTCIREVAL's scores on such files.

    Returns
    -------
    xarray.Dataset
        On the ``topic`` and ``nugget`` dimensions of ``nuggets``: ``offset(run, topic,
        nugget)`` (float64, the counted match's offset; NaN where the nugget was not
        matched) and ``length(run, topic)`` (int64), with ``nugget_id(topic, nugget)``
        as a coordinate; attributes ``xdiv_kind = "matches"``, ``nuggets`` (their
        source), ``runs`` (JSON: run to file), ``first_match`` and ``topics_not_in_runs``
        (JSON: run to the questions it has no line for).

    Raises
    ------
    ParseError
        A line without exactly three fields, a length or an offset that is not a whole
        number >= 0, a question's second ``syslen=`` line, a nugget that is not among
        the question's gold nuggets (``ntcir_eval`` stops there too), or matches of a
        question without a ``syslen=`` line (named at its first match).
    InputError
        Two files of the same name, no file, a bad ``first_match``, or a file that
        cannot be read.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from xdiv.oneclick import read_matches, read_nuggets
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name)
    >>> _ = (path / "test.nuggets").write_text("Q1 N1 3 10\\nQ1 N2 1 5\\n")
    >>> _ = (path / "RUN-1").write_text("Q1 syslen= 500\\nQ1 N2 50\\nQ1 N2 7\\n")
    >>> matches = read_matches(path / "RUN-1", read_nuggets(path / "test.nuggets"))
    >>> matches["offset"].sel(run="RUN-1").to_pandas()
    nugget   0    1
    topic
    Q1     NaN  7.0
    >>> read_matches(path / "RUN-1", read_nuggets(path / "test.nuggets"),
    ...              first_match="text")["offset"].values.tolist()
    [[[nan, 50.0]]]
    >>> folder.cleanup()
    """
    if first_match not in FIRST_MATCHES:
        raise InputError(f"first_match must be 'position' or 'text', not {first_match!r}")
    if not isinstance(nuggets, xr.Dataset):
        nuggets = read_nuggets(nuggets)
    _check_nuggets(nuggets)
    files = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    if not files:
        raise InputError("read_matches: no match file given")
    runs: dict[str, str] = {}
    for path in files:
        run = os.path.basename(os.fspath(path))
        if run in runs:
            raise InputError(f"{runs[run]}, {os.fspath(path)}: two match files of the same "
                             f"name (the run {run!r})")
        runs[run] = os.fspath(path)
    topics = [str(t) for t in nuggets["topic"].values]
    slots = {topic: {str(n): k for k, n in enumerate(row) if n != ""}
             for topic, row in zip(topics, nuggets["nugget_id"].values)}
    shape = (len(runs), len(topics), nuggets.sizes["nugget"])
    offset = np.full(shape, np.nan)
    length = np.zeros(shape[:2], dtype=np.int64)
    lacking: dict[str, list[str]] = {}
    for r, path in enumerate(runs.values()):
        seen = _read_match_file(path, slots, first_match, offset[r], length[r])
        missing = [t for t in topics if t not in seen]
        if missing:
            lacking[list(runs)[r]] = missing
    ids = nuggets["nugget_id"]
    return xr.Dataset(
        {"offset": (("run", "topic", "nugget"), offset), "length": (("run", "topic"), length)},
        coords={"run": object_strings(runs), "topic": nuggets["topic"].values,
                "nugget": nuggets["nugget"].values, "nugget_id": (ids.dims, ids.values)},
        attrs={"xdiv_kind": "matches", "nuggets": nuggets.attrs.get("source", ""),
               "runs": to_json(runs), "first_match": first_match,
               "topics_not_in_runs": to_json(lacking)})


def _read_match_file(path: str, slots: dict[str, dict[str, int]], first_match: str,
                     offset: np.ndarray, length: np.ndarray) -> set[str]:
    """Fill ``offset(topic, nugget)`` and ``length(topic)`` of one run from its file;
    the questions it has lines for."""
    check_file(path)
    row = {topic: k for k, topic in enumerate(slots)}
    length_line: dict[str, int] = {}
    first_seen: dict[str, int] = {}
    kept: dict[tuple[str, str], tuple[int, str]] = {}
    outside: list[str] = []
    for line, fields in numbered_fields(path):
        if len(fields) != 3:
            raise ParseError(path, line, f"expected 3 fields (question syslen= length, or "
                                         f"question nugget offset), found {len(fields)}")
        topic = _label(path, line, "question", fields[0])
        if topic not in row:
            if topic not in outside:
                outside.append(topic)
            continue
        if fields[1] == _LENGTH:
            if topic in length_line:
                raise ParseError(path, line, f"question {shown(topic)}: a second syslen= line "
                                             f"(first on line {length_line[topic]})")
            length_line[topic] = line
            length[row[topic]] = _whole(path, line, "length", fields[2], 0)
            continue
        nugget = _label(path, line, "nugget", fields[1])
        if nugget not in slots[topic]:
            raise ParseError(path, line, f"nugget {shown(nugget)} is not a gold nugget of "
                                         f"question {shown(topic)}")
        value = _whole(path, line, "offset", fields[2], 0)
        first_seen.setdefault(topic, line)
        key = (topic, nugget)
        rank = (value, fields[2]) if first_match == "position" else (fields[2], value)
        if key not in kept or rank < kept[key]:
            kept[key] = rank
            offset[row[topic], slots[topic][nugget]] = value
    unmeasured = [t for t in first_seen if t not in length_line]
    if unmeasured:
        topic = min(unmeasured, key=first_seen.__getitem__)
        raise ParseError(path, first_seen[topic], f"question {shown(topic)} has nugget "
                                                  f"matches but no '{shown(topic)} syslen= "
                                                  "<length>' line")
    if outside:
        warn(f"{path}: {len(outside)} question(s) not in the nuggets are left out: "
             f"{preview(outside)}", AlignmentWarning)
    return set(length_line)
