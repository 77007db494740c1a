"""NetCDF input/output of every xdiv dataset (collections, runs, scores, meta-evaluation).

NetCDF holds neither bool/dict/None attributes nor MultiIndexes. xdiv keeps every
attribute a string or a number (parameters are JSON text, see :func:`xdiv.core.labels.to_json`),
strings are variable-length NetCDF strings and booleans are stored by xarray's bool
encoding, so ``open_dataset(to_netcdf(ds))`` gives back an identical dataset.
"""

from __future__ import annotations

import os

import numpy as np
import xarray as xr

from .atomic import atomic_path, is_special_file
from ..errors import InputError
from ._guard import check_file, check_output_path
from ..core.labels import to_json
from .provenance import with_command
from ..core.cube import CUBE_KINDS, check_cube, with_aliases, without_aliases

__all__ = ["to_netcdf", "open_dataset", "open_cube", "check_cube"]


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
    under a temporary name and renamed when complete (see :mod:`xdiv.io.atomic`), so a
    failed or interrupted write leaves no partial file (and an existing file at ``path``
    unchanged).

    Raises
    ------
    InputError
        ``path`` cannot be written (empty, a folder, a missing folder, a pipe or a device),
        an error while writing (``PATH: cannot write (No space left on device)``, see
        :func:`xdiv.io.atomic.write_error`), a dimension of ``dataset`` is empty, or a
        text (a run, topic or measure label) holds a NUL character, which NetCDF would cut.
    """
    if not isinstance(dataset, xr.Dataset):
        raise InputError(f"to_netcdf expects an xarray.Dataset, not {type(dataset).__name__}")
    text = check_output_path(path)
    if is_special_file(text):
        raise InputError(f"{text}: not a regular file (NetCDF cannot be written to a pipe "
                         "or a device)")
    empty = [dim for dim, size in dataset.sizes.items() if size == 0]
    if empty:
        raise InputError(f"{text}: cannot write a dataset whose dimension "
                         f"{empty[0]!r} is empty (NetCDF-4 needs every dimension of a "
                         "variable to have a length)")
    for name, variable in dataset.variables.items():
        if variable.dtype.kind in "OUS":
            cut = [str(v) for v in variable.values.ravel() if "\x00" in str(v)]
            if cut:
                raise InputError(f"{text}: cannot write {name} {cut[0]!r}: NetCDF ends a "
                                 "text at its first NUL character, so it would read back "
                                 "cut short")
    out = without_aliases(with_command(dataset, text)).copy()
    out.attrs = _safe_attrs(out.attrs)
    for name in out.variables:
        out[name].attrs = _safe_attrs(out[name].attrs)
    with atomic_path(text) as partial:
        try:
            out.to_netcdf(partial, engine="netcdf4")
        except RuntimeError as exc:
            # the netCDF library reports a failed write (a full device, an I/O error) as
            # RuntimeError("NetCDF: HDF error"): an OSError without errno for atomic_path,
            # which names the path and the reason, and removes the temporary file
            if not str(exc).startswith("NetCDF"):
                raise
            raise OSError(None, str(exc)) from None
    return text


def open_dataset(path: str | os.PathLike) -> xr.Dataset:
    """Read a dataset written by :func:`to_netcdf` fully into memory (file closed after).

    Parameters
    ----------
    path : str or path-like
        The NetCDF file.

    Returns
    -------
    xarray.Dataset
        The file's content, loaded.

    Raises
    ------
    InputError
        ``FILE: ...`` when the file is missing or unreadable, or not a NetCDF file the
        netCDF4 library and xarray can decode (truncated, corrupt, odd encodings).
    """
    return with_aliases(_read(os.fspath(path)))


def _read(text: str, **options) -> xr.Dataset:
    """:func:`open_dataset` with extra ``xarray.open_dataset`` decoding ``options``."""
    check_file(text)
    try:
        with xr.open_dataset(text, engine="netcdf4", **options) as ds:
            return ds.load()
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 - a file's content may upset any decoder
        # the netCDF4 library reports corrupt files as RuntimeError ("NetCDF: HDF error"),
        # and xarray's decoding of odd content raises AttributeError, KeyError, TypeError,
        # IndexError, OverflowError, ...: whatever it is, the file cannot be read
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        reason = " ".join(reason.split())  # one line, whatever the library said
        raise InputError(f"{text}: not a readable NetCDF file "
                         f"({reason or type(exc).__name__})") from None


def open_cube(path: str | os.PathLike, kind: str) -> xr.Dataset:
    """Read and check a score cube or a meta-evaluation file (see :func:`check_cube`).

    Parameters
    ----------
    path : str or path-like
        The NetCDF file.
    kind : {"scores", "meta"}
        ``"scores"``: a ``score(metric, run, topic)`` cube written by ``xdiv evaluate -o``
        (or :func:`to_netcdf` of :func:`xdiv.evaluate`'s result); ``"meta"``: a
        meta-evaluation written by ``xdiv meta -o`` (or of
        :func:`xdiv.meta.discriminative_power`'s result).

    Returns
    -------
    xarray.Dataset
        The checked dataset, loaded, its checked variables as float64.

    Raises
    ------
    InputError
        A one-line ``FILE: what is wrong``: the file is missing, unreadable or no NetCDF
        file, or its content is not a valid cube of ``kind``.
    """
    text = os.fspath(path)
    if kind not in CUBE_KINDS:
        raise InputError(f"kind must be one of {', '.join(CUBE_KINDS)}, not {kind!r}")
    # times are never written by xdiv: leave numbers with a 'since' unit undecoded
    data = _read(text, decode_times=False, decode_timedelta=False)
    return check_cube(with_aliases(data), kind, text)
