"""NetCDF input/output of every xdiv dataset (collections, runs, scores, meta-evaluation).

NetCDF holds neither bool/dict/None attributes nor MultiIndexes. xdiv keeps every
attribute a string or a number (parameters are JSON text, see :func:`xdiv.labels.to_json`),
strings are variable-length NetCDF strings and booleans are stored by xarray's bool
encoding, so ``open_dataset(to_netcdf(ds))`` gives back an identical dataset.
"""

from __future__ import annotations

import os

import numpy as np
import xarray as xr

from .errors import InputError
from .labels import to_json

__all__ = ["to_netcdf", "open_dataset"]


def _safe_attrs(attrs: dict) -> dict:
    out = {}
    for key, value in attrs.items():
        if isinstance(value, (str, int, float, np.integer, np.floating)) and not isinstance(
                value, bool):
            out[key] = value
        else:
            out[key] = to_json(value)
    return out


def to_netcdf(dataset: xr.Dataset, path: str | os.PathLike) -> str:
    """Write ``dataset`` to ``path`` (netCDF4 format) and return the path.

    Attributes that NetCDF cannot hold are written as JSON text.
    """
    if not isinstance(dataset, xr.Dataset):
        raise InputError(f"to_netcdf expects an xarray.Dataset, not {type(dataset).__name__}")
    out = dataset.copy()
    out.attrs = _safe_attrs(dataset.attrs)
    for name in out.variables:
        out[name].attrs = _safe_attrs(out[name].attrs)
    out.to_netcdf(path, engine="netcdf4")
    return os.fspath(path)


def open_dataset(path: str | os.PathLike) -> xr.Dataset:
    """Read a dataset written by :func:`to_netcdf` fully into memory (file closed after)."""
    if not os.path.exists(path):
        raise InputError(f"{os.fspath(path)}: no such file")
    try:
        with xr.open_dataset(path, engine="netcdf4") as ds:
            return ds.load()
    except OSError as exc:
        raise InputError(f"{os.fspath(path)}: not a readable NetCDF file ({exc})") from None
