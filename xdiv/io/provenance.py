"""Provenance: what made a result, recorded in the result itself.

Every dataset xdiv makes from files or from other datasets (collections and runs read by
the readers, score cubes, and the results of the comparisons, meta-evaluations, risk,
design, pool and reproducibility analyses) carries one attribute, ``provenance``: JSON
text (NetCDF holds no dictionaries) of the record below, so that it survives
:func:`xdiv.to_netcdf` and :func:`xdiv.open_dataset` unchanged. ``xdiv verify`` reads it
back, checks the input files and recomputes the result.

The record (``schema`` 1)::

    {"schema": 1,                   # the version of this layout
     "xdiv": "0.1.0",               # the version of xdiv that made the result
     "kind": "scores",              # the result's xdiv_kind attribute ("" when none)
     "call": {                      # made in Python:
       "function": "xdiv.engine.evaluate",     # the function called
       "cwd": "/home/me/study",                # the working folder (relative paths)
       "arguments": {"metrics": ["nDCG@10"], "missing": "zero", "seed": 0, ...,
                     "runs": {"parent": {...}}, "collection": {"parent": {...}}}},
     "command": {                   # or made on the command line:
       "argv": ["evaluate", "qrels.txt", "run.txt", "-m", "nDCG@10", "-o", "scores.nc"],
       "cwd": "/home/me/study", "output": "scores.nc",
       "outputs": {"output": "scores.nc"}, "options": {"order": "score-docno-desc", ...}},
     "files": [FILE, ...],          # command line: every input file
     "parents": {"scores.nc": {...}},  # command line: the provenance of the results read
     "measures": [{"label": "nDCG@10", "canonical": "nDCG@10", "params": {...}}, ...],
     "options": {"order": ..., "ties": ..., "tie_seed": 0, ...},  # a score cube's
     "content_sha256": "..."}       # in memory: the result's content when it was made

A ``FILE`` is ``{"role": "qrels", "path": "qrels.txt", "absolute": "/home/me/study/qrels.txt",
"size": 1234, "sha256": "..."}`` (``role`` is the argument or option that named it);
standard input and pipes, which cannot be read twice, are ``{"role": ..., "path": "-",
"readable": false}``. In ``arguments``, a value is JSON as given (tuples as lists), or
one of: ``{"file": FILE}`` (a path), ``{"glob": PATTERN, "files": [FILE, ...]}``,
``{"parent": RECORD}`` (a dataset xdiv made: its own record, so that a derived result
holds its parent's provenance), ``{"dataset_sha256": HEX}`` or ``{"frame_sha256": HEX}``
(data built in memory, which cannot be reread: only its fingerprint is kept),
``{"mapping": {KEY: VALUE}}`` (a dictionary of such values) or ``{"object": TEXT}`` (any
other object, described only). Only the arguments that can change a number are kept
(progress bars, chunk and block sizes are left out), defaults included.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import glob
import hashlib
import inspect
import json
import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .._version import __version__

__all__ = ["ATTR", "SCHEMA", "NOT_NUMBERS", "SCORE_OPTIONS", "recorded", "record_call",
           "attach_call", "attach", "parent_record", "file_record", "file_sha256",
           "content_sha256", "provenance_of", "command_inputs", "recording_command",
           "with_command", "file_records", "check_file_record", "replay_blockers",
           "decode_argument", "compare_datasets"]

ATTR = "provenance"
"""The attribute holding the record."""

SCHEMA = 1
"""The version of the record's layout."""

NOT_NUMBERS = frozenset({"progress", "chunks", "block"})
"""Arguments no number of a result depends on: never recorded."""

SCORE_OPTIONS = ("order", "missing", "adhoc", "judged_only", "residuals", "ties",
                 "tie_samples", "tie_seed", "probabilities", "renormalise", "hierarchy",
                 "hierarchy_weights")
"""A score cube's attributes that record the options its numbers depend on."""

_COMMAND: contextvars.ContextVar = contextvars.ContextVar("xdiv_command", default=None)
"""The command line being run (:func:`recording_command`), for :func:`with_command`."""

_INSIDE: contextvars.ContextVar = contextvars.ContextVar("xdiv_recorded_call", default=False)
"""Whether a :func:`recorded` call is running: the calls it makes record nothing (their
results are its own work)."""

_BLOCK = 1 << 20


def file_sha256(path: str) -> str:
    """The SHA-256 of the bytes of the file ``path`` (hex)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_BLOCK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def file_record(path: str | os.PathLike, role: str) -> dict:
    """The record of the input file ``path`` (see the module docstring)."""
    text = os.fspath(path)
    if text == "-" or not os.path.isfile(text):
        return {"role": role, "path": text, "readable": False}
    return {"role": role, "path": text, "absolute": os.path.abspath(text),
            "size": os.path.getsize(text), "sha256": file_sha256(text)}


def content_sha256(data) -> str | None:
    """A SHA-256 of an in-memory dataset, data array or frame: every variable's name,
    dimensions, type and values (texts as texts, however NumPy stores them); None for a
    dask-backed dataset (reading it would compute it)."""
    import numpy as np
    import pandas as pd
    import xarray as xr

    from ..core.collection import dask_backed

    digest = hashlib.sha256()
    if isinstance(data, pd.DataFrame):
        digest.update(json.dumps([str(c) for c in data.columns]).encode())
        digest.update(pd.util.hash_pandas_object(data, index=True).to_numpy().tobytes())
        return digest.hexdigest()
    if isinstance(data, xr.DataArray):
        data = data.to_dataset(name=str(data.name))
    if dask_backed(data):
        return None
    for name in sorted(map(str, data.variables)):
        variable = data.variables[name]
        values = np.asarray(variable.values)
        # texts, however stored (NetCDF reads back <U; NumPy's variable-width strings: T)
        text = values.dtype.kind in "OUST"
        digest.update(json.dumps([name, list(variable.dims),
                                  "text" if text else str(values.dtype),
                                  list(values.shape)]).encode())
        if text:
            items = values.ravel().tolist()
            try:
                text = "\x1f".join(items)
            except TypeError:
                text = "\x1f".join(map(str, items))
            digest.update(text.encode("utf-8", "surrogatepass"))
        elif values.dtype.hasobject:  # records holding objects: their bytes
            digest.update(np.ascontiguousarray(values).tobytes())
        else:  # the bytes of tobytes(), read in place rather than copied
            digest.update(np.ascontiguousarray(values).reshape(-1).view(np.uint8))
    return digest.hexdigest()


def provenance_of(data) -> dict | None:
    """The provenance record of a dataset or data array (None when it has none, or its
    attribute is not a record)."""
    text = getattr(data, "attrs", {}).get(ATTR)
    if not isinstance(text, str):
        return None
    try:
        record = json.loads(text)
    except ValueError:
        return None
    return record if isinstance(record, dict) and "schema" in record else None


def _dumps(record: dict) -> str:
    return json.dumps(record, separators=(",", ":"), default=str)


def _measures(result) -> list[dict]:
    """The measures of a result with a ``canonical`` coordinate and a ``params``
    variable along ``metric`` (a score cube)."""
    if "metric" not in result.coords or "canonical" not in result.coords:
        return []
    params = (result["params"].values if "params" in getattr(result, "data_vars", {})
              else [None] * result.sizes["metric"])
    out = []
    for label, canonical, text in zip(result["metric"].values, result["canonical"].values,
                                      params):
        entry = {"label": str(label), "canonical": str(canonical)}
        if text is not None:
            try:
                entry["params"] = json.loads(str(text))
            except ValueError:
                entry["params"] = str(text)
        out.append(entry)
    return out


def _options(result) -> dict:
    return {key: _plain(result.attrs[key]) for key in SCORE_OPTIONS if key in result.attrs}


def _plain(value):
    """A NumPy scalar as the Python number or text it holds."""
    return value.item() if hasattr(value, "item") and not isinstance(value, (str, bytes)) \
        else value


def attach(result, record: dict):
    """``result`` with ``record`` (completed by the result's kind, measures and options,
    and its content's SHA-256) in its ``provenance`` attribute; the result itself, its
    attributes updated, is returned."""
    full = {"schema": SCHEMA, "xdiv": __version__,
            "kind": str(result.attrs.get("xdiv_kind", "")), **record}
    if full["kind"] == "scores":
        full["measures"] = _measures(result)
        full["options"] = _options(result)
    result.attrs.pop(ATTR, None)
    full["content_sha256"] = content_sha256(result)
    result.attrs[ATTR] = _dumps(full)
    return result


def _encode(value, role: str):
    """The recorded form of an argument value (see the module docstring)."""
    import numpy as np
    import pandas as pd
    import xarray as xr

    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (str, os.PathLike)):
        text = os.fspath(value)
        if isinstance(value, str) and glob.has_magic(text) and not os.path.exists(text):
            found = sorted(glob.glob(text))
            if found:
                return {"glob": text, "files": [file_record(p, role) for p in found]}
        if os.path.isfile(text) or not isinstance(value, str):
            return {"file": file_record(text, role)}
        return text
    if isinstance(value, (xr.Dataset, xr.DataArray)):
        parent = provenance_of(value)
        # the fingerprint covers the variables only: the record in the attributes is not
        # part of it
        fingerprint = content_sha256(value)
        if parent is not None and parent.get("kind") == value.attrs.get(
                "xdiv_kind", "") and parent.get("content_sha256") in (None, fingerprint):
            parent.pop("content_sha256", None)  # the fingerprint served this check only
            return {"parent": parent}
        return {"dataset_sha256": fingerprint}
    if isinstance(value, pd.DataFrame):
        return {"frame_sha256": content_sha256(value)}
    if isinstance(value, Mapping):
        return {"mapping": {str(k): _encode(v, f"{role}.{k}") for k, v in value.items()}}
    if isinstance(value, (list, tuple, np.ndarray, pd.Index, pd.Series)):
        return [_encode(v, role) for v in list(value)]
    name = getattr(value, "name", None)
    if type(value).__name__ == "Measure" and isinstance(name, str):
        return name  # a registry measure: its canonical name reads back as it
    return {"object": f"{type(value).__name__}: {value}"[:500]}


def record_call(function: Callable, args: tuple = (), kwargs: Mapping | None = None, *,
                roles: Mapping[str, str] | None = None,
                encoded: Mapping[str, Any] | None = None) -> dict:
    """The ``call`` record of ``function(*args, **kwargs)``: its name and its arguments
    (defaults included, :data:`NOT_NUMBERS` left out), paths named by their ``roles``
    (argument name → role, e.g. ``{"path": "qrels"}``); ``encoded`` gives some
    arguments' recorded values directly (by name), or functions that make them."""
    function = inspect.unwrap(function)
    bound = inspect.signature(function).bind_partial(*args, **(kwargs or {}))
    bound.apply_defaults()
    roles, encoded = roles or {}, dict(encoded or {})
    arguments = {}
    for name, parameter in bound.signature.parameters.items():
        if name in NOT_NUMBERS:
            continue
        if name in encoded:
            value = encoded[name]
            arguments[name] = value() if callable(value) else value
            continue
        value = bound.arguments.get(name)
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            value = list(value or ())
        elif parameter.kind is inspect.Parameter.VAR_KEYWORD:
            arguments.update({k: _encode(v, roles.get(k, k)) for k, v in (value or {}).items()
                              if k not in NOT_NUMBERS})
            continue
        arguments[name] = _encode(value, roles.get(name, name))
    return {"function": f"{function.__module__}.{function.__qualname__}",
            "cwd": os.getcwd(), "arguments": arguments}


def parent_record(kind: str, call: dict) -> dict:
    """The ``{"parent": ...}`` argument value of a dataset of ``kind`` made by ``call``
    (a :func:`record_call` record), as the argument would record the dataset itself."""
    return {"parent": {"schema": SCHEMA, "xdiv": __version__, "kind": kind, "call": call}}


def attach_call(result, function: Callable, args: tuple = (), kwargs: Mapping | None = None,
                *, roles: Mapping[str, str] | None = None,
                encoded: Mapping[str, Any] | None = None):
    """``result`` (a dataset or data array, or a tuple of them) with the provenance of
    ``function(*args, **kwargs)`` (:func:`record_call`), unless a command line is being
    run, which records itself (:func:`with_command`)."""
    if _COMMAND.get() is not None:
        return result
    call = record_call(function, args, kwargs, roles=roles, encoded=encoded)
    items = result if isinstance(result, tuple) else (result,)
    for position, item in enumerate(items):
        if hasattr(item, "attrs") and hasattr(item, "dims"):
            attach(item, {"call": call} if len(items) == 1 else {"call": call,
                                                                 "item": position})
    return result


def recorded(function: Callable | None = None, *, roles: Mapping[str, str] | None = None):
    """Decorate a function returning a dataset (or a tuple of datasets, or a data array):
    each result gets the provenance of the call (:func:`attach_call`)."""
    if function is None:
        return functools.partial(recorded, roles=roles)

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if _INSIDE.get():
            return function(*args, **kwargs)
        token = _INSIDE.set(True)
        try:
            result = function(*args, **kwargs)
        finally:
            _INSIDE.reset(token)
        return attach_call(result, function, args, kwargs, roles=roles)

    return wrapper


def replay_blockers(record: dict) -> list[str]:
    """Why the result of ``record`` cannot be recomputed from files (empty when it can):
    data built in memory, standard input, objects described only."""
    found: list[str] = []
    if "command" in record:
        found += [f"{f['path']} ({f.get('role', 'input')}) was not a file that can be read again"
                  for f in record.get("files", []) if not f.get("readable", True)]
        return found
    if "call" not in record:
        return ["the record names neither a call nor a command"]

    def walk(value, where: str) -> None:
        if isinstance(value, list):
            for item in value:
                walk(item, where)
        elif isinstance(value, dict):
            if "parent" in value:
                found.extend(replay_blockers(value["parent"]))
            elif "dataset_sha256" in value or "frame_sha256" in value:
                found.append(f"{where} was built in memory (only its SHA-256 is kept)")
            elif "object" in value:
                found.append(f"{where} is an object xdiv cannot rebuild ({value['object']})")
            elif "file" in value and not value["file"].get("readable", True):
                found.append(f"{where} was read from {value['file']['path']}, which cannot "
                             "be read again")
            elif "mapping" in value:
                for key, item in value["mapping"].items():
                    walk(item, f"{where}[{key}]")

    for name, value in record["call"]["arguments"].items():
        walk(value, name)
    return found


def file_records(record: dict, via: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], dict]]:
    """Every input file of ``record`` and of its parents, with the chain of parents
    (their names) it was read through."""
    for item in record.get("files", []):
        yield via, item
    for name, parent in record.get("parents", {}).items():
        yield from file_records(parent, (*via, name))

    def walk(value, via):
        if isinstance(value, list):
            for item in value:
                yield from walk(item, via)
        elif isinstance(value, dict):
            if "file" in value:
                yield via, value["file"]
            elif "glob" in value:
                for item in value["files"]:
                    yield via, item
            elif "parent" in value:
                yield from file_records(value["parent"], via)
            elif "mapping" in value:
                for item in value["mapping"].values():
                    yield from walk(item, via)

    for value in record.get("call", {}).get("arguments", {}).values():
        yield from walk(value, via)


def check_file_record(item: dict, given: Mapping[str, str]) -> tuple[bool, str, str]:
    """``(same, path checked, what was found)`` for the input file ``item``, read at the
    path of ``given`` with its base name when there is one, else where it was read."""
    if not item.get("readable", True):
        return False, item["path"], "was not a file (standard input or a pipe): cannot check"
    name = os.path.basename(item["path"])
    path = given.get(name) or item.get("absolute") or item["path"]
    if not os.path.isfile(path):
        return False, path, "file missing"
    size = os.path.getsize(path)
    if size != item["size"]:
        return False, path, f"file changed ({item['size']} bytes then, {size} now)"
    try:
        digest = file_sha256(path)
    except OSError as exc:
        return False, path, f"cannot be read ({exc.strerror or exc})"
    if digest != item["sha256"]:
        return False, path, f"file changed (same size, {item['size']} bytes, different SHA-256)"
    return True, path, f"identical ({size} bytes, SHA-256 {item['sha256'][:12]})"


def command_inputs(args, outputs: Mapping[str, str]) -> list[dict]:
    """The input files named on a command line (the parsed ``args``): every option or
    argument value (or list member) that names an existing file, a glob pattern's
    matches, standard input and pipes; ``outputs`` (the output options' values) left
    out."""
    skip = set(outputs.values())
    files: list[dict] = []
    seen: set[str] = set()
    for role, value in vars(args).items():
        if role in outputs or callable(value):
            continue
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if not isinstance(item, str) or not item or item in skip:
                continue
            if item == "-" or (os.path.exists(item) and not os.path.isdir(item)):
                paths = [item]
            elif glob.has_magic(item):
                paths = sorted(glob.glob(item))
            else:
                continue
            for path in paths:
                if path not in seen and not os.path.isdir(path):
                    seen.add(path)
                    files.append(file_record(path, role))
    return files


def _options_of(args) -> dict:
    out = {}
    for key, value in vars(args).items():
        if callable(value) or key in ("usage_error",):
            continue
        if isinstance(value, (str, int, float, bool)) or value is None:
            out[key] = value
        elif isinstance(value, (list, tuple)) and all(
                isinstance(v, (str, int, float, bool)) for v in value):
            out[key] = list(value)
    return out


@contextlib.contextmanager
def recording_command(argv: list[str], args, outputs: Mapping[str, str]) -> Iterator[None]:
    """Within this context every result :func:`xdiv.to_netcdf` writes records the command
    line ``argv`` (parsed as ``args``; ``outputs``: the output options' values by
    option) instead of the Python calls that made it (:func:`with_command`)."""
    token = _COMMAND.set({"argv": list(argv), "args": args, "outputs": dict(outputs),
                          "cwd": os.getcwd()})
    try:
        yield
    finally:
        _COMMAND.reset(token)


def with_command(dataset, path: str):
    """``dataset`` with the provenance of the command line being run
    (:func:`recording_command`), written to ``path``; ``dataset`` itself outside any."""
    command = _COMMAND.get()
    if command is None:
        return dataset
    import xarray as xr

    files = command_inputs(command["args"], command["outputs"])
    parents = {}
    for item in files:
        if item.get("readable", True) and item["path"].endswith(".nc"):
            try:
                with xr.open_dataset(item["path"], engine="netcdf4") as opened:
                    parent = provenance_of(opened)
            except Exception:  # noqa: BLE001 - any file named .nc that is no result
                parent = None
            if parent is not None:
                parents[item["path"]] = parent
    record = {"command": {"argv": command["argv"], "cwd": command["cwd"], "output": path,
                          "outputs": command["outputs"],
                          "options": _options_of(command["args"])},
              "files": files}
    if parents:
        record["parents"] = parents
    out = dataset.copy(deep=False)
    out.attrs = dict(dataset.attrs)
    attach(out, record)
    return out


def _bits_differ(a, b):
    """Cells of two same-shaped arrays whose values differ bit for bit (NaN equals NaN)."""
    import numpy as np

    if a.dtype.kind in "fc" and b.dtype.kind in "fc" and a.dtype == b.dtype:
        same = (a.view(f"V{a.dtype.itemsize}") == b.view(f"V{b.dtype.itemsize}"))
        same |= np.isnan(a) & np.isnan(b)
        return ~same
    if a.dtype.kind in "OUS" or b.dtype.kind in "OUS":
        return np.asarray([str(x) != str(y) for x, y in zip(a.ravel(), b.ravel())],
                          dtype=bool).reshape(a.shape)
    if a.dtype != b.dtype:
        return np.ones(a.shape, dtype=bool)
    return a != b


def compare_datasets(found, expected, renamed: Mapping[str, str] | None = None
                     ) -> list[tuple[str, bool, str]]:
    """``(name, identical, what)`` for each data variable, each coordinate and the
    attributes (the provenance left out) of ``found`` against ``expected``: identical
    bit for bit (NaN equal to NaN), or how many cells differ and by how much at most.
    ``renamed`` maps the paths of input files read from elsewhere to the recorded ones,
    which ``expected``'s attributes (file names) are read with."""
    import numpy as np

    lines = []
    for kind, names in (("coordinate", sorted(set(found.coords) | set(expected.coords))),
                        ("variable", sorted(set(found.data_vars) | set(expected.data_vars)))):
        for name in names:
            label = f"{name} ({kind})" if kind == "coordinate" else str(name)
            if name not in expected:
                lines.append((label, False, "differs (not in the recomputed result)"))
                continue
            if name not in found:
                lines.append((label, False, "differs (missing from the file)"))
                continue
            a, b = found[name], expected[name]
            if a.dims != b.dims or a.shape != b.shape:
                lines.append((label, False, f"differs (dimensions {dict(a.sizes)} here, "
                                            f"{dict(b.sizes)} recomputed)"))
                continue
            values, other = np.asarray(a.values), np.asarray(b.values)
            differ = _bits_differ(values, other)
            count = int(np.count_nonzero(differ))
            if not count:
                lines.append((label, True, "identical"))
                continue
            what = f"differs ({count} of {values.size} cells"
            if values.dtype.kind in "fiu" and other.dtype.kind in "fiu":
                with np.errstate(invalid="ignore"):
                    gap = np.abs(values.astype(float) - other.astype(float))[differ]
                largest = np.nanmax(gap) if np.isfinite(gap).any() else float("nan")
                what += f", largest difference {largest:.6g}"
            lines.append((label, False, what + ")"))
    mine = {k: v for k, v in found.attrs.items() if k != ATTR}
    theirs = {k: v for k, v in expected.attrs.items() if k != ATTR}
    for new, old in (renamed or {}).items():
        theirs = {k: v.replace(new, old) if isinstance(v, str) else v
                  for k, v in theirs.items()}
    keys = sorted(k for k in set(mine) | set(theirs)
                  if str(mine.get(k, "\x00")) != str(theirs.get(k, "\x00")))
    lines.append(("attributes", not keys, "identical" if not keys
                  else f"differ ({', '.join(keys)})"))
    return lines


def decode_argument(value, given: Mapping[str, str], replay: Callable[[dict], Any]):
    """The value to pass again for the recorded argument ``value``: a path (the file of
    ``given`` with the same base name, when there is one), a parent dataset recomputed by
    ``replay``, or the JSON value."""
    if isinstance(value, list):
        return [decode_argument(v, given, replay) for v in value]
    if not isinstance(value, dict):
        return value
    if "file" in value:
        item = value["file"]
        return given.get(os.path.basename(item["path"]), item["path"])
    if "glob" in value:
        paths = [given.get(os.path.basename(f["path"]), f["path"]) for f in value["files"]]
        return value["glob"] if all(p == f["path"] for p, f in zip(paths, value["files"])) \
            else paths
    if "parent" in value:
        return replay(value["parent"])
    if "mapping" in value:
        return {k: decode_argument(v, given, replay) for k, v in value["mapping"].items()}
    raise ValueError(f"cannot rebuild {value}")

