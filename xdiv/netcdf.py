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

from .atomic import atomic_path, is_special_file
from .errors import InputError
from .io import check_file, check_output_path
from .labels import to_json

__all__ = ["to_netcdf", "open_dataset", "open_cube", "check_cube", "SCORE_BOUND"]


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
    under a temporary name and renamed when complete (see :mod:`xdiv.atomic`), so a
    failed or interrupted write leaves no partial file (and an existing file at ``path``
    unchanged).

    Raises
    ------
    InputError
        ``path`` cannot be written (a folder, a missing folder, a pipe or a device, or an
        error while writing), or a dimension of ``dataset`` is empty.
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
    out = dataset.copy()
    out.attrs = _safe_attrs(dataset.attrs)
    for name in out.variables:
        out[name].attrs = _safe_attrs(out[name].attrs)
    with atomic_path(text) as partial:
        out.to_netcdf(partial, engine="netcdf4")
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
    return _read(os.fspath(path))


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


SCORE_BOUND = 1e100
"""The largest magnitude of a score (and of a meta-evaluation's required difference)
that :func:`check_cube` accepts. Scores of xdiv's measures lie far within it; the bound
keeps every statistic of the meta-evaluation finite: squares of score differences stay
below 4e200, so their sums over any number of topics and replicates cannot overflow
float64 (whose largest value is about 1.8e308)."""

CUBE_KINDS = ("scores", "meta")
"""The kinds of file :func:`open_cube` reads."""

_WRITER = {"scores": "write one with 'xdiv evaluate -o'", "meta": "write one with 'xdiv meta -o'"}
_WHAT = {"scores": "not a score cube", "meta": "not a meta-evaluation file"}
_META_DIMS = {"asl_curve": ("metric", "pair_rank"), "power": ("metric",),
              "required_delta": ("metric",)}


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
    return check_cube(data, kind, text)


def check_cube(dataset: xr.Dataset, kind: str, source: str | os.PathLike | None = None
               ) -> xr.Dataset:
    """Check that ``dataset`` is a valid cube of ``kind``, once, before any statistics.

    A score cube (``kind="scores"``) must hold a variable ``score`` whose dimensions are
    exactly ``metric``, ``run`` and ``topic`` (in any order), none of them empty, each
    labelled by a coordinate of unique, non-empty text labels without control
    characters; a ``canonical`` coordinate, when present, must be text along ``metric``.
    The scores must be real numbers (not text, booleans or complex numbers), each NaN
    (undefined, e.g. a topic without relevant documents) or finite with magnitude at
    most :data:`SCORE_BOUND` (1e100), so that no statistic can overflow.

    A meta-evaluation file (``kind="meta"``) must hold ``asl_curve(metric, pair_rank)``,
    ``power(metric)`` and ``required_delta(metric)`` as ``xdiv meta -o`` writes them,
    each also along ``test`` when the file has a ``test`` dimension (one entry per test,
    labelled like ``metric``); ASLs and powers must be NaN or within [0, 1], required
    differences NaN or finite within :data:`SCORE_BOUND`, and an ``alpha`` attribute,
    when present, a number strictly between 0 and 1.

    Parameters
    ----------
    dataset : xarray.Dataset
        The dataset read from a file.
    kind : {"scores", "meta"}
        What the dataset must be.
    source : str or path-like, optional
        The file the dataset came from, named at the start of every error message.

    Returns
    -------
    xarray.Dataset
        ``dataset`` with the checked variables converted to float64 (integer scores are
        accepted and converted).

    Raises
    ------
    InputError
        One line, ``SOURCE: what is wrong``, on the first problem found.
    """
    where = "" if source is None else f"{os.fspath(source)}: "
    if kind not in CUBE_KINDS:
        raise InputError(f"kind must be one of {', '.join(CUBE_KINDS)}, not {kind!r}")
    if not isinstance(dataset, xr.Dataset):
        raise InputError(f"{where}{_WHAT[kind]} (expected an xarray.Dataset, not "
                         f"{type(dataset).__name__})")
    try:
        if kind == "scores":
            return _check_scores(dataset)
        return _check_meta(dataset)
    except InputError as exc:
        raise InputError(f"{where}{exc}") from None


def _check_scores(data: xr.Dataset) -> xr.Dataset:
    if "score" not in data.data_vars:
        raise InputError(f"{_WHAT['scores']} ({_WRITER['scores']})")
    score = data["score"]
    if score.ndim != 3 or set(score.dims) != {"metric", "run", "topic"}:
        raise InputError(f"{_WHAT['scores']}: its score variable has the dimensions "
                         f"({', '.join(map(str, score.dims))}), not (metric, run, topic) "
                         f"({_WRITER['scores']})")
    _check_labels(data, ("metric", "run", "topic"))
    if "canonical" in data.coords:
        canonical = data["canonical"]
        if canonical.dims != ("metric",) or not _all_text(canonical.values):
            raise InputError("the canonical coordinate must hold one text label per metric")
    score = _numbers(score, "score")
    _check_range(score.transpose("metric", "run", "topic"), "score", -SCORE_BOUND,
                 SCORE_BOUND)
    return data.assign(score=score)


def _check_meta(data: xr.Dataset) -> xr.Dataset:
    if "asl_curve" not in data.data_vars:
        raise InputError(f"{_WHAT['meta']} ({_WRITER['meta']})")
    tested = "test" in data.dims
    for name, dims in _META_DIMS.items():
        if name not in data.data_vars:
            raise InputError(f"{_WHAT['meta']}: it lacks the variable {name} "
                             f"({_WRITER['meta']})")
        dims = ("test", *dims) if tested else dims
        held = data[name].dims
        if len(held) != len(dims) or set(held) != set(dims):
            raise InputError(f"{_WHAT['meta']}: its {name} variable has the dimensions "
                             f"({', '.join(map(str, held))}), not ({', '.join(dims)}) "
                             f"({_WRITER['meta']})")
    _check_labels(data, ("test", "metric") if tested else ("metric",))
    if data.sizes["pair_rank"] == 0:
        raise InputError("its pair_rank dimension is empty (no run pairs)")
    checked = {}
    for name, low, high in (("asl_curve", 0.0, 1.0), ("power", 0.0, 1.0),
                            ("required_delta", -SCORE_BOUND, SCORE_BOUND)):
        values = _numbers(data[name], name)
        order = [d for d in ("test", "metric", "pair_rank") if d in values.dims]
        _check_range(values.transpose(*order), name, low, high)
        checked[name] = values
    alpha = data.attrs.get("alpha")
    if alpha is not None and not (isinstance(alpha, (int, float, np.integer, np.floating))
                                  and not isinstance(alpha, (bool, np.bool_))
                                  and 0 < alpha < 1):
        raise InputError(f"its alpha attribute must be a number strictly between 0 and 1, "
                         f"not {_shown(alpha)}")
    return data.assign(checked)


def _check_labels(data: xr.Dataset, dims: tuple[str, ...]) -> None:
    """Every dimension of ``dims`` non-empty and labelled by unique, non-empty, one-line
    text labels."""
    for dim in dims:
        n = data.sizes[dim]
        if n == 0:
            raise InputError(f"its {dim} dimension is empty")
        if dim not in data.coords:
            raise InputError(f"it has no {dim} labels (a {dim} coordinate naming each {dim})")
        labels = data[dim].values
        if data[dim].dims != (dim,) or not _all_text(labels):
            raise InputError(f"its {dim} labels are {_kind_name(labels)}, not text")
        seen = set()
        for k, label in enumerate(labels):
            label = str(label)
            if not label.strip():
                raise InputError(f"{dim} label {k + 1} of {n} is empty")
            if any(_control(c) for c in label):
                raise InputError(f"{dim} label {label!r} holds a control character")
            if label in seen:
                raise InputError(f"{dim} label {label!r} appears more than once (labels "
                                 "must be unique)")
            seen.add(label)


def _control(char: str) -> bool:
    """A control character, or a line or paragraph separator (would break a line)."""
    code = ord(char)
    return code < 32 or 127 <= code < 160 or code in (0x2028, 0x2029)


def _all_text(values: np.ndarray) -> bool:
    if values.dtype.kind == "U":
        return True
    return values.dtype.kind == "O" and all(isinstance(v, str) for v in values.ravel())


def _kind_name(values: np.ndarray) -> str:
    names = {"b": "booleans", "i": "integers", "u": "integers", "f": "numbers",
             "c": "complex numbers", "S": "bytes", "M": "dates", "m": "durations",
             "U": "text"}
    if values.dtype.kind == "O":
        types = {type(v).__name__ for v in values.ravel()} - {"str"}
        return f"Python objects ({', '.join(sorted(types))})" if types else "text"
    return names.get(values.dtype.kind, f"of type {values.dtype}")


def _numbers(values: xr.DataArray, name: str) -> xr.DataArray:
    """``values`` as float64, if they are real numbers (integers or floats)."""
    if values.dtype.kind not in "fiu":
        raise InputError(f"its {name} variable holds {_kind_name(values.values)}, not "
                         "real numbers")
    return values.astype(np.float64)


def _check_range(values: xr.DataArray, name: str, low: float, high: float) -> None:
    """Every value NaN or within [low, high] (so neither infinite); the first other one
    is named with its labels."""
    array = values.values
    with np.errstate(invalid="ignore"):
        bad = ~np.isnan(array) & ~((array >= low) & (array <= high))
    if not bad.any():
        return
    index = np.unravel_index(np.argmax(bad), array.shape)
    at = ", ".join(f"{dim} {values[dim].values[i]!s}" if dim in values.coords
                   else f"{dim} {i + 1}" for dim, i in zip(values.dims, index))
    within = (f"finite with magnitude at most {high:g}" if low == -high
              else f"within [{low:g}, {high:g}]")
    raise InputError(f"its {name} at {at} is {array[index]:g}; {name} values must be NaN "
                     f"or {within}")


def _shown(value) -> str:
    text = " ".join(repr(value).split())
    return text if len(text) <= 40 else text[:37] + "..."
