"""The CSV layout ndeval and gdeval share, the rules both follow for which topics they
list and average, how each reads a topic label and names a run against a baseline, and
the inputs each refuses (:class:`ToolRefusal`); numpy only, so that the plain path of the
official-format commands (:mod:`xdiv.official.plain`) loads neither pandas nor xarray."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np

import re

from ..core.labels import natural_key
from ..errors import InputError
from ..measures.sets import measure_set
from .printf import number

__all__ = ["GDEVAL_STATUS_AT_END", "NDEVAL_LABELS", "RISK_LABELS", "RunBlock",
           "TOOL_LARGEST_RANK", "TOOL_STATUS", "ToolRefusal",
           "nan_propagated", "ndeval_layout", "repeated_rank", "risk_alpha_label",
           "risk_run_label", "sorted_topics", "tool_topic"]

NDEVAL_LABELS = tuple(measure_set("ndeval"))
"""ndeval's columns, in its order and with its labels."""


class RunBlock(NamedTuple):
    """One run's part of :func:`ndeval_layout`."""

    label: str
    """The run's name in the first column of its rows."""
    topics: Sequence[str]
    """The topics of its rows, in order."""
    rows: np.ndarray
    """Their values, topic × column."""
    means: np.ndarray
    """The values of its ``amean`` row, one per column."""


def ndeval_layout(columns: Sequence[str], blocks: Iterable[RunBlock], *, digits: int = 6,
                  repeat_header: bool = True) -> str:
    """ndeval's CSV layout: a header ``runid,topic,<columns>``, then for each run a row
    ``label,topic,<values>`` per topic and a row ``label,amean,<means>``.

    Values are printed as printf's ``%.{digits}f`` (:func:`xdiv.official.printf.number`,
    ``-nan`` for NaN): 6 digits as ndeval, 5 as gdeval, whose layout this is too. With
    ``repeat_header`` (as the tools print several runs) every run's block starts with the
    header; without it the header is printed once, first.
    """
    header = "runid,topic," + ",".join(columns)
    lines = [] if repeat_header else [header]
    for label, topics, rows, means in blocks:
        if repeat_header:
            lines.append(header)
        lines += [f"{label},{topic}," + ",".join(number(v, digits) for v in row)
                  for topic, row in zip(topics, rows)]
        lines.append(f"{label},amean," + ",".join(number(v, digits) for v in means))
    return "\n".join(lines) + "\n"


def sorted_topics(topics: Iterable[str]) -> list[str]:
    """The distinct ``topics`` in natural order (``2`` before ``10``), as the tools list them."""
    return sorted(set(topics), key=natural_key)


def nan_propagated(values: np.ndarray, means: np.ndarray) -> np.ndarray:
    """``means`` (one per metric) made NaN where a NaN is among the ``values`` averaged
    (metric × topic), as it is in the tools' running sums."""
    return np.where(np.isnan(values).any(axis=-1), np.nan, means)


def risk_alpha_label(risk_alpha: float, text: str | None) -> str:
    """``-riskAlpha`` as the tools print it in their run labels: as typed, else ``0`` or
    ``repr(risk_alpha)``."""
    return text or ("0" if risk_alpha == 0 else repr(risk_alpha))


RISK_LABELS = ("2013", "2014")
"""The two spellings of the risk-sensitive run label of ndeval 4.5 and gdeval 1.3, by the
year of the release: ``run (rel to. base, rs=1+a, a=A)`` in the 2013 releases, ``run
(rel to. base; rs=1+a; a=A)`` in those distributed from June 2014 (neither tool changed
its version number)."""


def risk_run_label(name: str, base: str, alpha_text: str, release: str = "2014") -> str:
    """The label of a run's rows against a baseline, as the ``release`` (a year of
    :data:`RISK_LABELS`) of ndeval and gdeval prints it."""
    if release not in RISK_LABELS:
        raise InputError(f"risk_label must be one of {RISK_LABELS}, not {release!r}")
    separator = ", " if release == "2013" else "; "
    return f"{name} (rel to. {base}{separator}rs=1+a{separator}a={alpha_text})"


TOOL_STATUS = {"ndeval": 1, "gdeval": 25}
"""The exit status of each tool when it refuses an input: ndeval's ``error()`` exits
with 1; gdeval.pl ends with perl's ``die``, whose status is the C ``errno`` left by the
last system call, ``ENOTTY`` (25) once the script has opened and read its files (but
see :data:`GDEVAL_STATUS_AT_END`)."""

GDEVAL_STATUS_AT_END = 255
"""gdeval.pl's exit status when the run line it refuses is the file's last and has no
line feed: perl's read of it met the end of the file and left ``errno`` 0, and ``die``
then exits with 255."""

TOOL_LARGEST_RANK = {"ndeval": 1000009, "gdeval": None}
"""The largest rank each tool reads in a run file (None: any); both read a rank written in
digits alone (no sign) and refuse the file at any other. ndeval gives up on a number
once the digits read before the next one exceed 100000, so that 1000009 is the largest
rank it reads; gdeval.pl takes any run of digits (and sorts by score alone)."""


def repeated_rank(topic: np.ndarray, rank: np.ndarray) -> tuple[int, int] | None:
    """The first ``(topic, rank)`` pair that lines of a run give twice, in the order of
    ``topic`` (codes, in the order of the topics) then ``rank``: the pair ndeval names when
    it refuses a run that ranks two documents of a topic at one rank (ndeval sorts the run
    by topic and rank, then looks at neighbours); None when every pair is given once."""
    order = np.lexsort((rank, topic))
    t, r = topic[order], rank[order]
    same = (t[1:] == t[:-1]) & (r[1:] == r[:-1])
    if not same.any():
        return None
    k = int(np.argmax(same)) + 1
    return int(t[k]), int(r[k])


class ToolRefusal(InputError):
    """An input the official tool itself refuses, said in the tool's words: the drop-in
    commands end with the tool's exit status (``status``)."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


_LARGE_ENOUGH = 100000
"""ndeval's bound on a topic number while it reads its digits (``LARGE_ENOUGH``)."""


def _natural_number(text: str) -> int | None:
    """ndeval's ``naturalNumber``: ASCII digits only, read while the value so far is at
    most :data:`_LARGE_ENOUGH`; None where ndeval returns -1."""
    if not text:
        return None
    value = 0
    for char in text:
        if not "0" <= char <= "9" or value > _LARGE_ENOUGH:
            return None
        value = 10 * value + ord(char) - 48
    return value


_GDEVAL_PREFIX = re.compile(r"^.*-", re.DOTALL)
_DIGITS = re.compile(r"[0-9]+")


def tool_topic(label: str, tool: str) -> str | None:
    """A topic label as the official ``tool`` reads it, or None when the tool refuses it.

    ndeval (``parseTopic``) reads a topic number: a label starting with a digit is a
    number (``0151`` is 151), any other loses what precedes its first ``-`` (``wt09-1``
    is 1); topics are compared, and printed, as numbers. gdeval.pl removes what precedes
    the last ``-`` (``s/^.*-//``) and requires digits; it compares the rest as text
    (``0151`` is not ``151``) and prints it. The label returned is the one the tool
    prints.
    """
    if tool == "ndeval":
        if "0" <= label[:1] <= "9":
            value = _natural_number(label)
        else:
            dash = label.find("-")
            value = None if dash < 0 else _natural_number(label[dash + 1:])
        return None if value is None else str(value)
    if tool == "gdeval":
        rest = _GDEVAL_PREFIX.sub("", label, count=1)
        return rest if _DIGITS.fullmatch(rest) else None
    raise ValueError(f"no topic rule for {tool!r}")
