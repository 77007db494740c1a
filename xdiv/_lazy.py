"""A lean ``import xdiv``: the ``.xdiv`` accessors are registered once pandas and xarray
are imported, whoever imports them, instead of ``import xdiv`` importing both.

:func:`register_accessors_when_loaded` registers them at once when pandas or xarray is
already loaded; otherwise it puts a finder first on :data:`sys.meta_path` that wraps the
loaders of ``pandas`` and ``xarray``, so that the registration runs right after either
finishes loading (after xarray when xarray's own import loads pandas). The finder removes
itself once the accessors are registered.

Then :func:`defer_dask` keeps xarray from importing dask before a dask object can exist,
which costs a command about a second of CPU on plain data:

- xarray asks whether each new variable's data is a dask array, which imports
  ``dask.array`` (and, through it, scipy); a dask array exists only once ``dask.array``
  is imported;
- it asks whether an array is a dask collection, which imports ``dask``; an object
  without a ``__dask_graph__`` method is none (dask's own test starts so), and with dask
  not imported that answer needs no dask;
- writing NetCDF asks which dask scheduler is active, which imports ``dask`` and
  ``distributed``; none is active while dask is not imported, xarray's answer when dask
  is not installed.

Each step wraps one function or record of xarray's, and does nothing if xarray no longer
has it where this xarray version keeps it.
"""

from __future__ import annotations

import _thread
import importlib
import sys

__all__ = ["defer_dask", "register_accessors_when_loaded"]

_WATCHED = ("pandas", "xarray")
_LOCK = _thread.RLock()


def _loaded(name: str) -> bool:
    """``name`` is imported and its import has finished (its module's spec says so)."""
    module = sys.modules.get(name)
    spec = getattr(module, "__spec__", None)
    return module is not None and not getattr(spec, "_initializing", False)


def _register(finished: str | None = None) -> None:
    """Import :mod:`xdiv.accessors` (which registers the accessors), unless the other
    watched package is still loading (``finished`` has just loaded): its own end of
    loading registers them then."""
    with _LOCK:
        if "xdiv.accessors" in sys.modules:
            _remove_finder()
            return
        if any(name in sys.modules and not _loaded(name) for name in _WATCHED
               if name != finished):
            return
        _remove_finder()
        importlib.import_module("xdiv.accessors")
        defer_dask()


class _Loader:
    """A loader that runs the registration after the wrapped loader's ``exec_module``
    (every other attribute is the wrapped loader's). The import protocol is duck-typed:
    subclassing :mod:`importlib.abc` would cost every ``import xdiv`` 15 ms."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _register(module.__name__)

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _Finder:
    """Finds pandas and xarray as the other finders do, with :class:`_Loader` around
    their loaders."""

    def find_spec(self, fullname, path, target=None):
        if fullname not in _WATCHED:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _Loader(spec.loader)
                return spec
        return None


_FINDER = _Finder()


def _remove_finder() -> None:
    while _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)


def register_accessors_when_loaded() -> None:
    """Register the accessors now if pandas or xarray is loaded, else when one of them
    finishes loading."""
    with _LOCK:
        if any(_loaded(name) for name in _WATCHED):
            _register()
        elif _FINDER not in sys.meta_path:
            sys.meta_path.insert(0, _FINDER)


class _DaskArrayModule:
    """xarray's record of dask as a duck-array library
    (``xarray.namedarray.pycompat.DuckArrayModule``), read when needed: its array type
    is ``dask.array.Array`` once ``dask.array`` is imported (no dask array exists before),
    no type before; the module and version import dask when asked for."""

    @property
    def type(self) -> tuple[type, ...]:
        dask_array = sys.modules.get("dask.array")
        array = getattr(dask_array, "Array", None)
        return (array,) if isinstance(array, type) else ()

    def _record(self):
        from xarray.namedarray.pycompat import DuckArrayModule

        return DuckArrayModule("dask")

    @property
    def module(self):
        return self._record().module

    @property
    def version(self):
        return self._record().version

    @property
    def available(self) -> bool:
        return self._record().available


def _defer_dask_array() -> None:
    """Give xarray a :class:`_DaskArrayModule` record of dask, unless xarray has recorded
    dask already (or keeps its records otherwise than this xarray version does)."""
    pycompat = sys.modules.get("xarray.namedarray.pycompat")
    cache = getattr(pycompat, "_cached_duck_array_modules", None)
    if isinstance(cache, dict) and callable(getattr(pycompat, "array_type", None)):
        cache.setdefault("dask", _DaskArrayModule())


class _Deferred:
    """Marks the functions of :func:`_wrap`, so that a function is wrapped once."""


def _wrap(module_name: str, name: str, wrapper) -> None:
    """Put ``wrapper(function)`` in place of ``module.name``, unless it is missing, not
    a function, or wrapped already."""
    module = sys.modules.get(module_name)
    function = getattr(module, name, None)
    if callable(function) and not isinstance(function, _Deferred):
        setattr(module, name, wrapper(function))


class _DaskCollectionTest(_Deferred):
    """xarray's ``is_dask_collection``, answering False without importing dask for an
    object without ``__dask_graph__`` while dask is not imported."""

    def __init__(self, function):
        self._function = function

    def __call__(self, x) -> bool:
        if "dask" not in sys.modules and not hasattr(x, "__dask_graph__"):
            return False
        return self._function(x)


class _DaskScheduler(_Deferred):
    """xarray's ``get_dask_scheduler``, answering None (no dask scheduler is active)
    while dask is not imported."""

    def __init__(self, function):
        self._function = function

    def __call__(self, get=None, collection=None) -> str | None:
        if "dask" not in sys.modules:
            return None
        return self._function(get, collection)


def defer_dask() -> None:
    """Keep xarray from importing dask, ``dask.array`` and ``distributed`` while no dask
    object can exist (see the module's docstring)."""
    _defer_dask_array()
    _wrap("xarray.namedarray.utils", "is_dask_collection", _DaskCollectionTest)
    _wrap("xarray.backends.locks", "get_dask_scheduler", _DaskScheduler)
    _wrap("xarray.backends.writers", "get_dask_scheduler", _DaskScheduler)
