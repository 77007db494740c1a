"""A lean ``import xdiv``: the heavy libraries load on first use, and the ``.xdiv``
accessors are registered whichever of pandas, xarray and xdiv is imported first."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("pandas", "xarray", "scipy", "statsmodels", "matplotlib", "dask", "pyarrow")


def _python(code: str, *argv: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True,
                          text=True)
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


@pytest.mark.slow  # a child interpreter: 2 to 3.5 s of CPU
def test_plain_data_evaluates_and_writes_netcdf_without_dask(tmp_path):
    """Issue 35 item 18: xarray asks whether data is a dask collection, and which dask
    scheduler is active before it writes NetCDF; on plain data neither question imports
    dask (0.35 s of CPU) nor ``distributed`` (0.45 s), from the command line or Python."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 1 d1 1\n1 2 d2 1\n2 1 d3 1\n")
    run.write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n2 Q0 d3 1 1.0 r\n")
    out = _python(
        "import sys\nfrom xdiv.cli import main\n"
        "folder = sys.argv[1]\n"
        "status = main(['-q', 'evaluate', folder + '/qrels', folder + '/run', '-m',"
        " 'alpha-nDCG@10', '-o', folder + '/cli.nc'])\n"
        "import xdiv\n"
        "scores = xdiv.evaluate(xdiv.read_runs([folder + '/run']),"
        " xdiv.read_qrels(folder + '/qrels'), ['alpha-nDCG@10'])\n"
        "xdiv.to_netcdf(scores, folder + '/api.nc')\n"
        "back = xdiv.open_dataset(folder + '/cli.nc')\n"
        "print(status, [m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')],"
        " back['score'].sel(metric='alpha-nDCG@10').values.tolist(),"
        " scores['score'].sel(metric='alpha-nDCG@10').values.tolist())", str(tmp_path))
    assert out.splitlines()[-1] == "0 [] [[1.0, 1.0]] [[1.0, 1.0]]"


@pytest.mark.slow  # a child interpreter: 2 to 3.5 s of CPU
def test_dask_data_still_writes_netcdf_as_plain_data_does(tmp_path):
    """Once dask is imported xarray's own answers hold (the threaded scheduler without a
    ``dask.distributed`` client; tests/io/test_runfiles.py writes under one), and a
    dask-chunked dataset is written as the same dataset in memory is."""
    out = _python(
        "import sys, numpy, xdiv, xarray\nfolder = sys.argv[1]\n"
        "plain = xarray.Dataset({'v': (('x', 'y'), numpy.arange(12.0).reshape(4, 3))},"
        " coords={'x': list('abcd')})\n"
        "xdiv.to_netcdf(plain, folder + '/plain.nc')\n"
        "from xarray.backends import locks, writers\n"
        "before = {locks.get_dask_scheduler(), writers.get_dask_scheduler()}\n"
        "import dask.array\n"
        "after = {locks.get_dask_scheduler(), writers.get_dask_scheduler()}\n"
        "lazy = plain.chunk({'x': 2})\n"
        "xdiv.to_netcdf(lazy, folder + '/lazy.nc')\n"
        "a, b = (xdiv.open_dataset(folder + f'/{n}.nc') for n in ('plain', 'lazy'))\n"
        "xarray.testing.assert_identical(a.drop_attrs(), b.drop_attrs())\n"
        "print(before, after, type(lazy['v'].data).__name__, a['v'].sum().item())",
        str(tmp_path))
    assert out == "{None} {'threaded'} Array 66.0"


@pytest.mark.slow  # a child interpreter: 2 to 3.5 s of CPU
def test_compare_and_meta_load_no_scipy_stats(tmp_path):
    """Issue 35 item 18: ``xdiv compare`` (Student's t) and ``xdiv meta`` (bootstrap and
    Tukey HSD) need no scipy.stats, whose import costs a second of CPU: compare takes the
    t distribution from scipy.special, and meta loads the sign test and Kendall's tau
    only where they are used."""
    import numpy as np
    import xarray as xr

    import xdiv

    rng = np.random.default_rng(1)
    scores = xr.Dataset({"score": (("metric", "run", "topic"), rng.random((2, 4, 25)))},
                        coords={"metric": ["nDCG@10", "AP"], "run": list("abcd"),
                                "topic": [str(t) for t in range(25)]})
    path = xdiv.to_netcdf(scores, tmp_path / "scores.nc")
    out = _python(
        "import sys\nfrom xdiv.cli import main\n"
        "statuses = [main(['-q', 'compare', sys.argv[1]]),"
        " main(['-q', 'meta', sys.argv[1], '-B', '200'])]\n"
        "print(statuses, sorted({m for m in sys.modules if m.startswith('scipy.stats')"
        " or m.startswith('statsmodels')}))", path)
    assert out.splitlines()[-1] == "[0, 0] []"
