"""Label helpers shared by the collection and run models (natural ordering, JSON attributes,
labels as messages show them)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import shown

if TYPE_CHECKING:  # imported where used: this module stays light for the command line
    import xarray as xr


def natural_key(label: str) -> tuple:
    """Sort key that orders numeric labels numerically ("2" < "10") and others by text."""
    text = str(label)
    try:
        return (0, int(text), text)
    except ValueError:
        return (1, 0, text)


def natural_sorted(labels: Iterable[Any]) -> list[str]:
    """Distinct labels as strings, in natural order."""
    return sorted({str(x) for x in labels}, key=natural_key)


def preview(items: Iterable[Any], limit: int = 10) -> str:
    """The first ``limit`` items joined by commas, and `` ...`` when there are more (for
    messages that list labels), each as :func:`shown` shows it: control characters
    escaped (``\\x1b``) and cut to 80 characters with an ellipsis."""
    items = list(items)
    return ", ".join(shown(x) for x in items[:limit]) + (" ..." if len(items) > limit else "")


def to_json(value: Any) -> str:
    """Encode an attribute value NetCDF cannot hold (dict, list, bool, None) as JSON text."""
    return json.dumps(value, sort_keys=True, default=_json_default)


def _json_default(value: Any):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"cannot encode {type(value).__name__} as JSON")


def from_json(text: str) -> Any:
    """Decode an attribute written by :func:`to_json`."""
    return json.loads(text)


def object_strings(values: Iterable[Any]) -> np.ndarray:
    """A 1-d object array of Python ``str`` (xarray's string convention, NetCDF-safe)."""
    out = np.empty(len(values) if hasattr(values, "__len__") else 0, dtype=object)
    out[:] = [str(v) for v in values]
    return out


def string_variable(dims: str | tuple[str, ...], values: Iterable[Any]) -> xr.Variable:
    """An xarray variable of :func:`object_strings` over ``dims``, built as it is given:
    xarray would otherwise pass an object array through a pandas Series, every label,
    to look for dates in it."""
    import xarray as xr

    return xr.Variable(dims, object_strings(values), fastpath=True)
