"""MkDocs hook: run files read once per build, whichever pages read them.

Many pages read the same run files (the 18 TREC 2009 runs, on about ten pages), and
reading them costs each page about a second and a half of CPU. While the site builds,
:func:`xdiv.read_runs` (also as :func:`xdiv.datasets.trec_web` calls it) keeps what it
read: a later call with the same arguments, from the same working folder, on files of
the same size and modification time, gets a copy of the dataset the first call made
(its values, coordinates and attributes, the provenance record included, are those of a
new read: the record holds the call's arguments and working folder, which are the same),
and the warnings the first call gave are given again, attributed to the calling line as
xdiv attributes its own. A page that changes what it read changes its copy only: every
array and attribute mapping is copied (the texts an array holds are shared, as Python's
strings cannot change; copying each of them cost the build seconds).

Calls with anything but file names, glob patterns and plain options (``chunks=``, standard
input, file objects) read as they are. The kept datasets are dropped when the build ends.
"""

from __future__ import annotations

import functools
import glob
import os
import sys
import warnings
from pathlib import Path

_PLAIN = (str, int, float, bool, type(None))
_kept: dict = {}
_original = None


def on_config(config):
    """Put the keeping ``read_runs`` in place of xdiv's, before any page imports xdiv."""
    global _original
    import xdiv
    from xdiv import datasets
    from xdiv.io import runfiles

    if _original is None:
        _original = runfiles.read_runs
        kept = keeping(_original)
        for module in (runfiles, datasets, xdiv):
            if vars(module).get("read_runs") is _original:
                setattr(module, "read_runs", kept)
    return config


def on_post_build(config) -> None:
    """Drop the kept datasets."""
    _kept.clear()


def on_build_error(error) -> None:
    _kept.clear()


def keeping(read):
    """``read`` (xdiv's ``read_runs``), keeping each result of plain arguments (see the
    module docstring)."""

    @functools.wraps(read)
    def read_runs(paths, *args, **kwargs):
        key = _key(paths, args, kwargs)
        if key is None:
            return read(paths, *args, **kwargs)
        if key not in _kept:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result = read(paths, *args, **kwargs)
            _kept[key] = (_copied(result), [(w.message, w.category) for w in caught])
        result, given = _kept[key]
        level = _caller_level()
        for message, category in given:
            warnings.warn(message, category, stacklevel=level)
        return _copied(result)

    return read_runs


def _copied(dataset):
    """``dataset`` with copies of its arrays (their texts shared) and attribute mappings;
    index coordinates, which cannot be changed in place, are shared."""
    import numpy as np
    import xarray as xr

    copied = dataset.copy(deep=False)
    for variable in copied.variables.values():
        if not isinstance(variable, xr.IndexVariable):
            variable.data = np.array(variable.data, copy=True)
        variable.attrs = dict(variable.attrs)
    copied.attrs = dict(dataset.attrs)
    return copied


def _key(paths, args, kwargs):
    """What identifies the call and the files it reads; ``None`` for a call to read as
    it is."""
    if kwargs.get("chunks") is not None or not all(
            isinstance(value, _PLAIN) for value in (*args, *kwargs.values())):
        return None
    names = [paths] if isinstance(paths, (str, Path)) else paths
    if not isinstance(names, (list, tuple)) or not all(
            isinstance(name, (str, Path)) for name in names):
        return None
    stats = []
    for name in names:
        found = sorted(glob.glob(str(name))) if glob.has_magic(str(name)) else [str(name)]
        for path in found:
            try:
                stat = os.stat(path)
            except OSError:
                return None
            if not os.path.isfile(path):
                return None
            stats.append((os.path.abspath(path), stat.st_size, stat.st_mtime_ns))
    if not stats:
        return None
    return (os.getcwd(), repr(paths), repr(args), repr(sorted(kwargs.items())),
            tuple(stats))


def _caller_level() -> int:
    """The ``stacklevel`` (for a ``warnings.warn`` called in the wrapper) of the first
    frame outside xdiv and this hook: the line xdiv's own warnings point at."""
    import xdiv

    skipped = (os.path.dirname(os.path.abspath(xdiv.__file__)) + os.sep,
               os.path.abspath(__file__))
    frame = sys._getframe(2)  # the wrapper's caller
    level = 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(skipped):
        frame = frame.f_back
        level += 1
    return level
