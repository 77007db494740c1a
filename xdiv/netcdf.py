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
from .io import check_file, check_output_path
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

    Attributes that NetCDF cannot hold are written as JSON text. The file is written
    under a temporary name and renamed when complete, so a failed write leaves no partial
    file (and an existing file at ``path`` unchanged).
    """
    if not isinstance(dataset, xr.Dataset):
        raise InputError(f"to_netcdf expects an xarray.Dataset, not {type(dataset).__name__}")
    text = check_output_path(path)
    empty = [dim for dim, size in dataset.sizes.items() if size == 0]
    if empty:
        raise InputError(f"{text}: cannot write a dataset whose dimension "
                         f"{empty[0]!r} is empty (NetCDF-4 needs every dimension of a "
                         "variable to have a length)")
    out = dataset.copy()
    out.attrs = _safe_attrs(dataset.attrs)
    for name in out.variables:
        out[name].attrs = _safe_attrs(out[name].attrs)
    folder = os.path.dirname(os.path.abspath(text))
    try:
        handle, partial = tempfile.mkstemp(prefix=".xdiv-", suffix=".nc", dir=folder)
    except OSError as exc:
        raise InputError(f"{text}: cannot write in {folder} ({exc.strerror})") from None
    os.close(handle)
    try:
        out.to_netcdf(partial, engine="netcdf4")
        os.chmod(partial, 0o666 & ~_umask())  # as open() would create it, not mkstemp's 0600
        os.replace(partial, text)
    except BaseException as exc:
        os.unlink(partial)
        if isinstance(exc, OSError):
            raise InputError(f"{text}: cannot write ({exc.strerror or exc})") from None
        raise
    return text


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def open_dataset(path: str | os.PathLike) -> xr.Dataset:
    """Read a dataset written by :func:`to_netcdf` fully into memory (file closed after)."""
    text = os.fspath(path)
    check_file(text)
    try:
        with xr.open_dataset(text, engine="netcdf4") as ds:
            return ds.load()
    except (OSError, ValueError, RuntimeError, AttributeError, KeyError, TypeError) as exc:
        # the netCDF4 library reports corrupt files as RuntimeError ("NetCDF: HDF error")
        # and xarray's decoding of odd content as AttributeError, KeyError or TypeError
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InputError(f"{text}: not a readable NetCDF file "
                         f"({reason or type(exc).__name__})") from None
