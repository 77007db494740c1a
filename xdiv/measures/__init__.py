"""Measure registry and measure families.

The registry (:mod:`xdiv.measures.registry`) imports every family the first time it is
looked up, so that importing this package, or a lean module of it (the registry, the
measure sets, the names), does not load xarray.
"""

from .names import expand_measures, resolve
from .reference import measures_page
from .registry import Measure, MeasureDef, parse_measure, registry
from .sets import describe_sets, measure_set

__all__ = ["Measure", "MeasureDef", "describe_sets", "expand_measures", "measure_set",
           "measures_page", "parse_measure", "registry", "resolve"]
