"""Measure registry and measure families.

The registry (:mod:`xdiv.measures.registry`) imports every family the first time it is
looked up, and this package's other public names load on first use, so that importing a
lean module of it (the registry, the measure sets) does not load xarray, nor what the
command line does not need.
"""

from importlib import import_module

from .registry import Measure, MeasureDef, parse_measure, registry

_NAMES = {"describe_sets": "sets", "measure_set": "sets", "expand_measures": "names",
          "resolve": "names", "measures_page": "reference"}
"""Where the public names not of the registry live."""

__all__ = ["Measure", "MeasureDef", "describe_sets", "expand_measures", "measure_set",
           "measures_page", "parse_measure", "registry", "resolve"]


def __getattr__(name: str):
    if name in _NAMES:
        value = getattr(import_module(f".{_NAMES[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_NAMES))
