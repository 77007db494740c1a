"""The CSV layout ndeval and gdeval share, and the rules both follow for which topics
they list and average; numpy only, so that the plain path of the official-format
commands (:mod:`xdiv.formats.plain`) loads neither pandas nor xarray."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np

from ..core.labels import natural_key
from ..measures.sets import measure_set
from .printf import number

__all__ = ["NDEVAL_LABELS", "RunBlock", "nan_propagated", "ndeval_layout", "risk_alpha_label",
           "sorted_topics"]

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

    Values are printed as printf's ``%.{digits}f`` (:func:`xdiv.formats.printf.number`,
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
