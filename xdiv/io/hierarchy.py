"""Intent hierarchy files: the ``topic node parent [weight] [intent]`` text format, NTCIR
IMine hierarchy XML, and the path-accepting forms of :func:`attach_hierarchy` and
:func:`extend_hierarchy` (the model in :mod:`xdiv.core.hierarchy` takes frames)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import xarray as xr

from ..core import hierarchy as _model
from ..core.hierarchy import Kind, Scheme, checked_weight, tidy_hierarchy
from ..errors import InputError
from ._guard import (BLANK, DECIMAL_NUMBER, SEPARATORS, check_output_path, control_message,
                     open_text)
from .atomic import atomic_output

__all__ = ["HierarchyInput", "read_hierarchy", "write_hierarchy", "read_hierarchy_file",
    "attach_hierarchy", "extend_hierarchy"]

HierarchyInput = pd.DataFrame | Mapping | str | os.PathLike


def read_hierarchy(path: str | os.PathLike) -> pd.DataFrame:
    """Read a hierarchy file: whitespace-separated ``topic node parent [weight] [intent]``
    lines (``parent`` ``-`` for children of the query; ``#`` comments; weight and intent
    ``-`` when not given; gzip recognised by content).

    Raises
    ------
    InputError
        A line with the wrong number of fields, a label holding a control character, a
        weight that is not a non-negative finite decimal number (such as ``0.25`` or
        ``1e-3``), or a file without any hierarchy line (``file:line``).
    """
    rows = []
    with open_text(path) as fh:
        for number, line in enumerate(fh, start=1):
            text = line.split("#", 1)[0].strip(BLANK)
            fields = SEPARATORS.split(text) if text else []
            if not fields:
                continue
            if not 3 <= len(fields) <= 5:
                raise InputError(f"{os.fspath(path)}:{number}: expected 'topic node parent "
                                 f"[weight] [intent]', found {len(fields)} fields")
            for name, value in zip(("topic", "node", "parent", "weight", "intent"), fields):
                error = control_message(name, value)
                if error is not None:
                    raise InputError(f"{os.fspath(path)}:{number}: {error}")
            topic, node, parent = fields[:3]
            weight, intent = np.nan, ""
            if len(fields) >= 4 and fields[3] != "-":
                where = f"{os.fspath(path)}:{number}: topic {topic} node {node}"
                if not DECIMAL_NUMBER.fullmatch(fields[3]):  # float() also takes 1_0, nan
                    raise InputError(f"{where}: weight {fields[3]!r} is not a non-negative "
                                     "finite number")
                weight = checked_weight(fields[3], where)
            if len(fields) == 5 and fields[4] != "-":
                intent = fields[4]
            rows.append((topic, node, parent, weight, intent))
    if not rows:
        raise InputError(f"{os.fspath(path)}: no hierarchy lines")
    return pd.DataFrame(rows, columns=["topic", "node", "parent", "weight", "intent"])


def write_hierarchy(path: str | os.PathLike, hierarchy: pd.DataFrame) -> None:
    """Write a hierarchy frame as ``topic node parent weight intent`` lines (the format
    :func:`read_hierarchy` reads; ``-`` marks the root and empty fields), replacing
    ``path`` only once the file is complete (see :mod:`xdiv.io.atomic`)."""
    frame = tidy_hierarchy(hierarchy)
    with atomic_output(check_output_path(path)) as fh:
        fh.write("# topic node parent weight intent  (parent - = the query)\n")
        for topic, node, parent, weight, intent in frame[
                ["topic", "node", "parent", "weight", "intent"]].itertuples(index=False):
            w = "-" if not np.isfinite(weight) else repr(float(weight))
            fh.write(f"{topic} {node} {parent or '-'} {w} {intent or '-'}\n")


def read_hierarchy_file(path: str | os.PathLike) -> pd.DataFrame:
    """A hierarchy file in either format: NTCIR IMine XML (a name ending in ``.xml``, see
    :func:`xdiv.io.imine.read_imine_hierarchy`) or the text format (:func:`read_hierarchy`)."""
    if os.fspath(path).lower().endswith(".xml"):
        from .imine import read_imine_hierarchy

        return read_imine_hierarchy(path)
    return read_hierarchy(path)


def _frame_and_source(hierarchy: HierarchyInput) -> tuple[pd.DataFrame | Mapping, str | None]:
    if isinstance(hierarchy, (str, os.PathLike)):
        return read_hierarchy_file(hierarchy), os.fspath(hierarchy)
    return hierarchy, None


def attach_hierarchy(collection: xr.Dataset, hierarchy: HierarchyInput, *,
                     kind: Kind = "EIH", weights: Scheme = "UB",
                     layer_weights: Sequence[float] | None = None) -> xr.Dataset:
    """Add intent hierarchies to a collection; ``hierarchy`` is a tidy frame, nested dicts
    or a hierarchy file (:func:`read_hierarchy_file`: text or IMine XML), whose name then
    starts the messages.
    The parameters, errors and warnings are those of
    :func:`xdiv.core.hierarchy.attach_hierarchy`."""
    frame, source = _frame_and_source(hierarchy)
    return _model.attach_hierarchy(collection, frame, kind=kind, weights=weights,
                                   layer_weights=layer_weights, source=source)


def extend_hierarchy(hierarchy: HierarchyInput) -> pd.DataFrame:
    """OIH -> EIH of a tidy frame, nested dicts or a hierarchy file (see
    :func:`xdiv.core.hierarchy.extend_hierarchy`)."""
    frame, source = _frame_and_source(hierarchy)
    return _model.extend_hierarchy(frame, source=source)
