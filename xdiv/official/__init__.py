"""TREC's official diversity (ndeval) and graded (gdeval) evaluation tools, their output
to the byte: :mod:`xdiv.formats.ndeval` and :mod:`xdiv.formats.gdeval` under one name."""

from ..formats.gdeval import gdeval_measures, gdeval_report
from ..formats.ndeval import (NDEVAL_LABELS, blocks_cube, cut_runs, ndeval, ndeval_blocks,
                              ndeval_measures, ndeval_report)

__all__ = ["NDEVAL_LABELS", "blocks_cube", "cut_runs", "gdeval_measures", "gdeval_report",
           "ndeval", "ndeval_blocks", "ndeval_measures", "ndeval_report"]
