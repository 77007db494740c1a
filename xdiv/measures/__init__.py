"""Measure registry and measure families. Importing this package registers every measure."""

from . import diversity, graded, ndeval  # noqa: F401
from .registry import Measure, MeasureDef, parse_measure, registry, registry_markdown

__all__ = ["Measure", "MeasureDef", "parse_measure", "registry", "registry_markdown"]
