"""Measure registry and measure families. Importing this package registers every measure."""

from . import diversity, graded, ndeval, umeasure  # noqa: F401
from . import hierarchy  # noqa: F401  (after the flat families it lifts)
from .names import expand_measures, resolve
from .reference import measures_page
from .registry import Measure, MeasureDef, parse_measure, registry
from .sets import describe_sets, measure_set

__all__ = ["Measure", "MeasureDef", "describe_sets", "expand_measures", "measure_set",
           "measures_page", "parse_measure", "registry", "resolve"]
