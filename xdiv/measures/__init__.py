"""Measure registry and measure families. Importing this package registers every measure."""

from . import diversity, graded, ndeval, umeasure  # noqa: F401
from . import hierarchical  # noqa: F401  (after the flat families it lifts)
from .registry import Measure, MeasureDef, parse_measure, registry, registry_markdown

__all__ = ["Measure", "MeasureDef", "parse_measure", "registry", "registry_markdown"]
