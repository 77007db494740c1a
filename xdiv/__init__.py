"""xdiv: evaluate diversified search results and meta-evaluate the measures.

Collections, runs and results are labelled :mod:`xarray` datasets; measures are declared
once in a registry with parseable names (``nDCG@10``, ``Q(beta=0)@10``); readers and
writers handle the TREC/NTCIR text formats and NetCDF.

What loads when: the data model, the readers and writers and the evaluation engine load
with ``import xdiv``; the statistics over score cubes (``xdiv.meta``, ``xdiv.risk``,
``xdiv.design``, ``xdiv.stats``), the other tools' layouts (``xdiv.official``,
``xdiv.reports``), the plots and the HTML report load on first use, as they pull in
scipy.stats, statsmodels and matplotlib.
"""

from . import accessors as _accessors  # noqa: F401  (registers the .xdiv accessors)
from . import datasets, hierarchy, imine, udm
from ._version import __version__  # noqa: F401  (xdiv.__version__)
from .core.adhoc import to_adhoc
from .core.collection import qrels_frame
from .core.cube import summarize
from .core.judge import judge
from .core.runs import build_runs, decode_docnos, runs_frame
from .errors import (AlignmentWarning, InputError, MeasureError, ParseError, XdivError,
                     XdivWarning)
from .evaluate import evaluate
from .io.api import (build_collection, read_qrels, set_doc_lengths, set_probabilities,
                     write_qrels, write_run)
from .io.hierarchy import attach_hierarchy
from .io.imine import read_imine
from .io.netcdf import open_cube, open_dataset, to_netcdf
from .io.runfiles import read_run, read_runs
from .io.topics import read_topics
from .io.trec import read_probabilities
from .measures import measure_set, parse_measure, registry
from .measures import resolve as resolve_measure
from .options import get_options, set_options

_LAZY = ("meta", "stats", "plots", "reports", "report", "risk", "official", "design")


def __getattr__(name: str):
    """``xdiv.meta``, ``xdiv.stats``, ``xdiv.plots``, ``xdiv.reports``, ``xdiv.report``,
    ``xdiv.risk``, ``xdiv.official`` and ``xdiv.design`` load on first use (some pull in
    scipy.stats, statsmodels and matplotlib)."""
    if name in _LAZY:
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AlignmentWarning", "InputError", "MeasureError", "ParseError", "XdivError",
    "XdivWarning", "attach_hierarchy", "build_collection", "build_runs", "datasets",
    "decode_docnos", "evaluate", "get_options", "hierarchy", "imine", "judge",
    "measure_set", "open_cube", "open_dataset", "parse_measure", "qrels_frame",
    "read_imine", "read_probabilities", "read_qrels", "read_run", "read_runs",
    "read_topics", "registry", "resolve_measure", "runs_frame", "set_doc_lengths",
    "set_options", "set_probabilities", "summarize", "to_adhoc", "to_netcdf", "udm",
    "write_qrels", "write_run", *_LAZY,
]
