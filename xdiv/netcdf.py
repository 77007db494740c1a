"""NetCDF input/output of every xdiv dataset (collections, runs, scores, meta-evaluation).

NetCDF holds neither bool/dict/None attributes nor MultiIndexes. xdiv keeps every
attribute a string or a number (parameters are JSON text, see :func:`xdiv.labels.to_json`),
strings are variable-length NetCDF strings and booleans are stored by xarray's bool
encoding, so ``open_dataset(to_netcdf(ds))`` gives back an identical dataset.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
import xarray as xr

from .errors import InputError
from .labels import to_json

__all__ = ["to_netcdf", "open_dataset", "check_output_path"]


def _safe_attrs(attrs: dict) -> dict:
    out = {}
    for key, value in attrs.items():
        if isinstance(value, (str, int, float, np.integer, np.floating)) and not isinstance(
                value, bool):
            out[key] = value
        else:
            out[key] = to_json(value)
    return out


def check_output_path(path: str | os.PathLike) -> str:
    """``path`` as text, after checking that a file can be written there: its folder
    exists and it is not itself a folder.

    Raises
    ------
    InputError
        Naming the path and what is wrong.
    """
    text = os.fspath(path)
    if os.path.isdir(text):
        raise InputError(f"{text}: is a directory, not a file")
    folder = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(folder):
        raise InputError(f"{text}: the directory {folder} does not exist")
    return text


def to_netcdf(dataset: xr.Dataset, path: str | os.PathLike) -> str:
    """Write ``dataset`` to ``path`` (netCDF4 format) and return the path.

    Attributes that NetCDF cannot hold are written as JSON text. The file is written
    under a temporary name and renamed when complete, so a failed write leaves no partial
    file (and an existing file at ``path`` unchanged).
    """
    if not isinstance(dataset, xr.Dataset):
        raise InputError(f"to_netcdf expects an xarray.Dataset, not {type(dataset).__name__}")
    text = check_output_path(path)
    out = dataset.copy()
    out.attrs = _safe_attrs(dataset.attrs)
    for name in out.variables:
        out[name].attrs = _safe_attrs(out[name].attrs)
    handle, partial = tempfile.mkstemp(prefix=".xdiv-", suffix=".nc",
                                       dir=os.path.dirname(os.path.abspath(text)))
    os.close(handle)
    try:
        out.to_netcdf(partial, engine="netcdf4")
        os.replace(partial, text)
    except BaseException:
        os.unlink(partial)
        raise
    return text


def open_dataset(path: str | os.PathLike) -> xr.Dataset:
    """Read a dataset written by :func:`to_netcdf` fully into memory (file closed after)."""
    text = os.fspath(path)
    if not os.path.exists(text):
        raise InputError(f"{text}: no such file")
    if os.path.isdir(text):
        raise InputError(f"{text}: is a directory, not a file")
    try:
        with xr.open_dataset(text, engine="netcdf4") as ds:
            return ds.load()
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InputError(f"{text}: not a readable NetCDF file ({reason})") from None
