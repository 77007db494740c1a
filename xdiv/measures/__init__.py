"""Measure registry and measure families. Importing this package registers every measure."""

from . import diversity, graded, ndeval, umeasure  # noqa: F401
from . import hierarchical  # noqa: F401  (after the flat families it lifts)
from .names import describe_sets, expand_measures, measure_set, resolve
from .registry import Measure, MeasureDef, parse_measure, registry

__all__ = ["Measure", "MeasureDef", "describe_sets", "expand_measures", "measure_set",
           "parse_measure", "registry", "resolve"]
