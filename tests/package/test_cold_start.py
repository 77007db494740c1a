"""A lean ``import xdiv``: the heavy libraries load on first use, and the ``.xdiv``
accessors are registered whichever of pandas, xarray and xdiv is imported first."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("pandas", "xarray", "scipy", "statsmodels", "matplotlib", "dask", "pyarrow")


def _python(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_import_xdiv_loads_none_of_the_heavy_libraries():
    loaded = _python("import sys, xdiv; print(sorted(m for m in sys.modules if "
                     f"m.split('.')[0] in {HEAVY!r}))")
    assert loaded == "[]"


@pytest.mark.parametrize("imports", [
    "import xdiv; import pandas; import xarray",
    "import xarray, xdiv, pandas",
    "import xdiv, xarray; import pandas",
    "import pandas, xdiv",
    "import xdiv; xdiv.read_qrels",
    "import xdiv; xdiv.datasets.synthetic",
    "from xdiv import evaluate",
])
def test_accessors_are_registered_in_any_import_order(imports):
    registered = _python(f"{imports}; import pandas, xarray; "
                         "print(hasattr(pandas.DataFrame, 'xdiv'), "
                         "hasattr(xarray.Dataset, 'xdiv'))")
    assert registered == "True True"


def test_public_names_load_on_first_use():
    assert _python("import xdiv; print(xdiv.evaluate.__name__, xdiv.read_runs.__name__, "
                   "xdiv.resolve_measure.__name__, xdiv.meta.bootstrap_test.__name__, "
                   "'evaluate' in dir(xdiv))") == "evaluate read_runs resolve bootstrap_test True"


LEAN = ("xdiv.kernels.common", "xdiv.kernels.diversity", "xdiv.kernels.graded",
        "xdiv.kernels.hierarchy", "xdiv.kernels.meta", "xdiv.kernels.ndeval",
        "xdiv.kernels.risk", "xdiv.kernels.umeasure", "xdiv.measures.registry",
        "xdiv.measures.sets", "xdiv.measures.names", "xdiv.measures.reference",
        "xdiv.core.labels", "xdiv.core.ranking", "xdiv.io._guard", "xdiv.io._spool",
        "xdiv.io.atomic", "xdiv.official.plain_input", "xdiv.official.layout",
        "xdiv.official.plain", "xdiv.official.printf")
"""The modules of the lean path (docs/contributing.md): what ``xdiv ndeval`` runs on
plain files, and what the command line needs to build its parser."""


def test_the_lean_modules_load_none_of_the_heavy_libraries():
    """Each lean module is imported in turn; the heavy libraries any of them brings are
    named after the first module that brought them."""
    code = ("import importlib, json, sys\nblame = {}\n"
            f"for name in {LEAN!r}:\n"
            "    importlib.import_module(name)\n"
            "    for m in list(sys.modules):\n"
            f"        if m.split('.')[0] in {HEAVY!r}:\n"
            "            blame.setdefault(m.split('.')[0], name)\n"
            "print(json.dumps(blame))")
    assert _python(code) == "{}"


NUMPY_FREE = ("xdiv.cli", "xdiv.cli.trec_eval", "xdiv.official.trec_eval.text",
              "xdiv.official.trec_eval.table", "xdiv.official.trec_eval.lean")
"""What ``xdiv trec_eval`` imports before it knows whether the full program is needed
(docs/contributing.md)."""


def test_the_trec_eval_start_loads_no_numpy():
    """Modules that the interpreter itself loaded before xdiv (a site ``.pth`` file may
    import pathlib or tempfile) are not xdiv's doing and are left out."""
    loaded = _python("import sys\nbefore = set(sys.modules)\n"
                     f"for name in {NUMPY_FREE!r}:\n    __import__(name)\n"
                     "print(sorted(m for m in set(sys.modules) - before if m.split('.')[0] in "
                     "('numpy', 'dataclasses', 'pathlib', 'tempfile', 'inspect')))")
    assert loaded == "[]"


def test_xarray_imports_dask_array_only_for_dask_data():
    """xarray asks of every new variable whether its data is a dask array; once xdiv is
    imported, that question no longer imports ``dask.array`` (half a second of CPU per
    command), and dask arrays are still recognised as such once there can be one."""
    assert _python(
        "import sys, numpy, xdiv, xarray\n"
        "plain = xarray.Dataset({'v': ('x', numpy.arange(3))})\n"
        "before = 'dask.array' in sys.modules\n"
        "import dask.array\n"
        "lazy = xarray.DataArray(dask.array.ones(4, chunks=2), dims='x')\n"
        "print(before, type(lazy.data).__name__, lazy.chunks, plain.chunks == {},"
        " (lazy + 1).sum().compute().item())") == "False Array ((2, 2),) True 8.0"
