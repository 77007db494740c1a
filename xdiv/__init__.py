"""xdiv: evaluate diversified search results and meta-evaluate the measures.

Collections, runs and results are labelled :mod:`xarray` datasets; measures are declared
once in a registry with parseable names (``nDCG@10``, ``Q(beta=0)@10``); readers and
writers handle the TREC/NTCIR text formats and NetCDF.

What loads when: ``import xdiv`` loads only the errors and this table of names; each
public name (the settings' :func:`set_options` too) loads its module on first use (the
readers and the model load pandas and xarray, the analyses scipy and statsmodels, the
plots matplotlib), so that a command such as ``xdiv --version`` starts as fast as Python
does. The ``.xdiv`` accessors
of pandas DataFrames and xarray Datasets are registered as soon as pandas or xarray is
imported, by whoever imports it.
"""

from importlib import import_module

from ._lazy import register_accessors_when_loaded
from ._version import __version__  # noqa: F401  (xdiv.__version__)
from .errors import (AlignmentWarning, InputError, MeasureError, NoRelevantWarning,
                     ParseError, RunTagWarning, SingleIntentWarning, XdivError, XdivWarning)

_NAMES = {
    "to_adhoc": "core.adhoc", "qrels_frame": "core.collection", "summarize": "core.cube",
    "judge": "core.judge", "build_runs": "core.runs", "decode_docnos": "core.runs",
    "runs_frame": "core.runs", "evaluate": "engine", "evaluate_files": "engine",
    "build_collection": "io.api", "get_options": "options", "set_options": "options",
    "read_qrels": "io.api", "read_prels": "io.prels", "set_doc_lengths": "io.api",
    "set_probabilities": "io.api",
    "write_qrels": "io.api", "write_run": "io.api", "attach_hierarchy": "io.hierarchy",
    "read_imine": "io.imine", "open_cube": "io.netcdf", "open_dataset": "io.netcdf",
    "to_netcdf": "io.netcdf", "read_run": "io.runfiles", "read_runs": "io.runfiles",
    "read_topics": "io.topics", "read_probabilities": "io.trec",
    "measure_set": "measures", "parse_measure": "measures", "registry": "measures",
    "resolve_measure": "measures:resolve", "compare": "analysis.compare",
    "table": "formats.tables", "methods_paragraph": "formats.tables",
    "bibtex": "formats.tables",
}
"""Where each public function lives (``module`` or ``module:name``)."""

_LAZY = ("meta", "stats", "plots", "reports", "report", "risk", "official", "design",
         "pools", "oneclick", "repro")
_MODULES = ("datasets", "hierarchy", "imine", "udm", "io", "measures", *_LAZY)
"""The public submodules, loaded on first use as attributes of the package."""


def __getattr__(name: str):
    """Load the public names and submodules on first use (see the module docstring)."""
    if name in _NAMES:
        module, _, attribute = _NAMES[name].partition(":")
        value = getattr(import_module(f".{module}", __name__), attribute or name)
    elif name in _MODULES:
        value = import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_NAMES) | set(_MODULES))


register_accessors_when_loaded()

__all__ = [
    "AlignmentWarning", "InputError", "MeasureError", "NoRelevantWarning", "ParseError",
    "RunTagWarning", "SingleIntentWarning", "XdivError", "XdivWarning", "attach_hierarchy", "compare", "build_collection", "build_runs", "datasets",
    "decode_docnos", "evaluate", "evaluate_files", "get_options", "hierarchy", "imine",
    "judge",
    "measure_set", "open_cube", "open_dataset", "parse_measure", "qrels_frame",
    "read_imine", "read_prels", "read_probabilities", "read_qrels", "read_run", "read_runs",
    "read_topics", "registry", "resolve_measure", "runs_frame", "set_doc_lengths",
    "set_options", "set_probabilities", "summarize", "to_adhoc", "to_netcdf", "udm",
    "write_qrels", "write_run", "table", "methods_paragraph", "bibtex", *_LAZY,
]
