"""Shared fixtures: the real TREC Web Track data in ../shared (skipped when absent)."""

from __future__ import annotations

import glob
import os
import sys
import tempfile
from pathlib import Path

import pytest

# ranx, an oracle of tests/measures/test_names.py, compiles its functions with numba on
# first use: about 45 s of CPU in a fresh environment (CI's), for a test that then runs
# in 3 s. Run as Python, the same functions compute the same values.
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")
# One BLAS thread per process: the suite's workers (pytest-xdist) already use the cores,
# and OpenBLAS's threads would wait for a core by spinning on it. On a busy machine a
# statsmodels fit of three collections (docs/howto/models.md) then took 16 s of CPU
# instead of 1.5 s. Set before any test imports numpy; the workers and the child
# processes the tests start (the docs build, the xdiv commands) inherit it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _keep_bytecode() -> None:
    """Let Python keep the bytecode it compiles, outside the source tree, when the
    environment turns bytecode writing off (``PYTHONDONTWRITEBYTECODE``, set on some
    machines). Otherwise each pytest worker compiles and rewrites every test module at
    collection (about 8 s of CPU a worker), and each ``xdiv`` child process a test starts
    compiles xdiv anew (about 0.3 s of CPU each). The bytecode goes where
    ``PYTHONPYCACHEPREFIX`` says, by default a folder of the system's temporary
    directory; the workers and child processes inherit the setting."""
    if not (sys.dont_write_bytecode or os.environ.get("PYTHONDONTWRITEBYTECODE")):
        return
    prefix = (os.environ.get("PYTHONPYCACHEPREFIX")
              or os.path.join(tempfile.gettempdir(), "xdiv-tests-bytecode"))
    os.environ["PYTHONPYCACHEPREFIX"] = prefix
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.pycache_prefix = prefix
    sys.dont_write_bytecode = False


_keep_bytecode()

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared"
TREC_WEB = SHARED / "reference" / "trec-web"
TREC_2009 = TREC_WEB / "2009"


def require_trec_2009() -> Path:
    """Path of the TREC 2009 diversity data, or skip the test."""
    if not (TREC_2009 / "qrels.diversity.gz").exists():
        pytest.skip("../shared/reference/trec-web/2009 is not available")
    return TREC_2009


@pytest.fixture(scope="session")
def trec2009():
    """(collection, runs) of the TREC 2009 diversity task: 50 topics, 18 runs."""
    import xdiv

    root = require_trec_2009()
    collection = xdiv.read_qrels(root / "qrels.diversity.gz",
                                 topics=root / "wt09.topics.full.xml")
    runs = xdiv.read_runs(sorted(glob.glob(str(root / "runs" / "*.gz"))))
    return collection, runs


@pytest.fixture(scope="session")
def trec2009_run_paths():
    root = require_trec_2009()
    return sorted(glob.glob(str(root / "runs" / "*.gz")))


def build_trec_eval(version: str, folder: Path) -> Path:
    """trec_eval ``version`` ("10.0", "9.0.8") built unchanged with ``make`` from
    ../shared/reference/tools/trec_eval-VERSION.tar.gz in ``folder``; skips the test when
    the tarball, make or a C compiler is missing or the build fails."""
    import shutil
    import subprocess
    import tarfile

    tarball = SHARED / "reference" / "tools" / f"trec_eval-{version}.tar.gz"
    if not tarball.exists():
        pytest.skip(f"../shared/reference/tools/{tarball.name} is not available")
    if shutil.which("make") is None or not (shutil.which("gcc") or shutil.which("cc")):
        pytest.skip("make and a C compiler are needed to build trec_eval")
    with tarfile.open(tarball) as tar:
        tar.extractall(folder, filter="data")
    source = next(p for p in folder.iterdir() if p.is_dir() and p.name.startswith("trec_eval"))
    built = subprocess.run(["make", "-s", "trec_eval"], cwd=source, capture_output=True,
                           text=True)
    if built.returncode != 0 or not (source / "trec_eval").exists():
        pytest.skip(f"trec_eval {version} did not build: {built.stderr[-300:]}")
    return source / "trec_eval"


def c_compiler() -> str:
    """The C compiler's path, or skip the test."""
    import shutil

    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to build the C tools")
    return compiler


@pytest.fixture(scope="session")
def ndeval_c(tmp_path_factory) -> Path:
    """TREC's ndeval.c (4.5, June 2014) from pyndeval's source distribution, which pip
    downloads once per session (pip is slow), or skip the test."""
    return built_once(tmp_path_factory, "ndeval-source", _fetch_ndeval_source)


def _fetch_ndeval_source(folder: Path) -> Path:
    import importlib.metadata
    import subprocess
    import tarfile

    version = importlib.metadata.version("pyndeval")
    fetched = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                              "--no-binary", ":all:", f"pyndeval=={version}", "-d",
                              str(folder)], capture_output=True, text=True, timeout=120)
    archives = list(folder.glob("pyndeval-*.tar.gz"))
    if fetched.returncode != 0 or not archives:
        pytest.skip(f"cannot fetch pyndeval's source: {fetched.stderr.strip()[-200:]}")
    with tarfile.open(archives[0]) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("/ndeval.c"))
        (folder / "ndeval.c").write_bytes(tar.extractfile(member).read())
    return folder / "ndeval.c"


def build_c_program(source: Path, program: Path) -> Path:
    """``program`` compiled from the C file ``source`` (``-O2 -lm``)."""
    import subprocess

    program.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([c_compiler(), "-O2", "-o", str(program), str(source), "-lm"], check=True,
                   capture_output=True)
    return program


@pytest.fixture(scope="session")
def ndeval_program(tmp_path_factory, ndeval_c) -> Path:
    """TREC's ndeval 4.5 compiled unchanged from the source in pyndeval's source
    distribution, once per session (its messages start with ``ndeval: ``)."""
    return built_once(tmp_path_factory, "ndeval",
                      lambda folder: build_c_program(ndeval_c, folder / "ndeval"))


@pytest.fixture(scope="session")
def gdeval_pl() -> Path:
    """The gdeval.pl that ir_measures ships (run with perl), or skip the test."""
    import shutil

    ir_measures = pytest.importorskip("ir_measures")
    script = Path(ir_measures.__file__).parent / "bin" / "gdeval.pl"
    if not script.exists() or shutil.which("perl") is None:
        pytest.skip("ir_measures' gdeval.pl or perl is not available")
    return script


def built_once(tmp_path_factory, name: str, make) -> Path:
    """``make(folder)``'s path, made once per test session in a folder ``name`` that the
    pytest-xdist workers of one session share (one builds while the others wait on a file
    lock, then read what it made); a skip inside ``make`` skips every later caller too."""
    import fcntl

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the session's folder, above each worker's own
    folder, made, skipped = (root / name, root / f"{name}.made", root / f"{name}.skip")
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not made.exists() and not skipped.exists():
            folder.mkdir(exist_ok=True)
            try:
                made.write_text(str(make(folder)))
            except pytest.skip.Exception as why:
                skipped.write_text(str(why))
    if skipped.exists():
        pytest.skip(skipped.read_text())
    return Path(made.read_text())


def build_ntcireval(folder: Path) -> Path:
    """NTCIREVAL 190111's folder, with ``ntcir_eval`` built unchanged by its own Makefile
    from ../shared/reference/tools/ntcireval-190111.tar.gz in ``folder`` (the folder holds
    its shell and gawk scripts and sample data too); skips the test when the tarball, make
    or gcc is missing or the build fails."""
    import shutil
    import subprocess
    import tarfile

    tarball = SHARED / "reference" / "tools" / "ntcireval-190111.tar.gz"
    if not tarball.exists():
        pytest.skip(f"../shared/reference/tools/{tarball.name} is not available")
    if shutil.which("make") is None or shutil.which("gcc") is None:
        pytest.skip("make and gcc are needed to build NTCIREVAL")
    with tarfile.open(tarball) as tar:
        tar.extractall(folder, filter="data")
    source = folder / "NTCIREVAL-190111"
    built = subprocess.run(["make", "-s", "ntcir_eval"], cwd=source, capture_output=True,
                           text=True)
    if built.returncode != 0 or not (source / "ntcir_eval").exists():
        pytest.skip(f"ntcir_eval did not build: {built.stderr[-300:]}")
    return source


@pytest.fixture(scope="session")
def ntcireval_folder(tmp_path_factory) -> Path:
    """NTCIREVAL 190111 unpacked and ``ntcir_eval`` built, once per session (see
    :func:`build_ntcireval`); ``ntcireval_folder / "ntcir_eval"`` is the program."""
    return built_once(tmp_path_factory, "ntcireval", build_ntcireval)


@pytest.fixture(scope="session")
def trec_eval_build(tmp_path_factory):
    """``build(version)``: the path of trec_eval ``version`` ("10.0" or "9.0.8") built from
    its tarball in a temporary folder, once per session (see :func:`build_trec_eval`)."""

    def build(version: str) -> Path:
        return built_once(tmp_path_factory, f"trec_eval-{version}",
                          lambda folder: build_trec_eval(version, folder))

    return build


_REAL_DATA = {"trec2009", "trec2009_run_paths"}
_SLOW_FOLDERS = {"oracles", "docs"}
_SLOW_FILES = {"test_fuzz.py", "test_figures.py", "test_meta_memory.py", "test_bit_stability.py",
               "test_report_scales.py"}
_SLOW_TESTS = {  # each a few seconds: a browser, a child interpreter, a writer run to its end
    "test_ir_measures_ranx_ndcg_agrees_on_untied_scores",
    "test_the_console_script_prints_no_traceback", "test_page_renders_in_headless_chromium",
    "test_a_writer_killed_midway_leaves_the_old_file_and_no_temporary_file",
    "test_sigkill_leaves_the_old_file_and_a_recognisable_temporary_file",
    "test_ndeval_matches_ndeval_on_random_collections"}
_SLOW_LIST = Path(__file__).with_name("slow_tests.txt")
"""Tests measured at over 0.3 s of CPU (tests/cpu_times.py), with their seconds: slow,
whatever they do."""
_MEASURED_SLOW = {node: float(seconds) for seconds, node in
                  (line.split(" ", 1) for line in _SLOW_LIST.read_text().splitlines()
                   if line and not line.startswith("#"))} if _SLOW_LIST.exists() else {}
_MEASURED_SLOW_FUNCTIONS = {node.split("[", 1)[0] for node in _MEASURED_SLOW}
"""Test functions with a parametrization measured slow: all their parametrizations are
slow, since the one measured often paid for a fixture they share (the first to run
builds it) and another would pay for it in the quick part."""
_PROCESS_WORDS = ("subprocess.", "Popen", "sys.executable", "_render", "chromium")
_DATA_WORDS = ("require_trec_2009", "TREC_WEB", "TREC_2009")
_SOURCES: dict = {}


def _source(function) -> str:
    """A test function's own code (cached): the lines of its file from its first line
    (decorators included) to the last one its code or any function it defines spans.
    The code's own line table, not :func:`inspect.getsource`, which tokenises the file
    anew for each test (a second of CPU per pytest-xdist worker; issue 35 item 18)."""
    import inspect
    import linecache

    if function not in _SOURCES:
        code = getattr(inspect.unwrap(function), "__code__", None)
        lines = linecache.getlines(code.co_filename) if code is not None else []
        _SOURCES[function] = "".join(
            lines[code.co_firstlineno - 1:_last_line(code)]) if lines else ""
    return _SOURCES[function]


def _last_line(code) -> int:
    """The last line of the file that ``code`` or a code object nested in it spans."""
    last = max((end for _, end, _, _ in code.co_positions() if end is not None),
               default=code.co_firstlineno)
    return max([last, *(_last_line(c) for c in code.co_consts if hasattr(c, "co_positions"))])


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the xdist_group marks
def pytest_collection_modifyitems(config, items):
    """Markers by what a test does: ``slow`` for the real-data oracles, the docs, the
    fuzzing, the figures, the memory bounds, the hypothesis property tests, every test
    on the TREC Web Track data and every test measured at over 0.3 s of CPU (with all
    the parametrizations of its function);
    ``docs`` for tests/docs; ``subprocess`` for tests whose code starts a process; and an
    ``xdist_group`` per test file (tests/docs and the tests marked so: the docs site's)."""
    for item in items:
        path = Path(str(item.fspath))
        function = getattr(item, "function", None)
        source = _source(function) if function is not None else ""
        if (path.parent.name in _SLOW_FOLDERS or path.name in _SLOW_FILES
                or getattr(item, "originalname", item.name) in _SLOW_TESTS
                or item.nodeid.split("[", 1)[0] in _MEASURED_SLOW_FUNCTIONS
                or _REAL_DATA & set(getattr(item, "fixturenames", ()))
                or hasattr(function, "hypothesis")  # property tests: many examples each
                or any(word in source for word in _DATA_WORDS)):
            item.add_marker(pytest.mark.slow)
        if path.parent.name == "docs":
            item.add_marker(pytest.mark.docs)
            # one pytest-xdist worker runs them all (--dist loadgroup): the site is built
            # once per worker that needs it
            item.add_marker(pytest.mark.xdist_group("docs-site"))
        elif not item.get_closest_marker("xdist_group"):
            # the tests of a file run on one worker, so that its module-scoped fixtures
            # (the TREC data read once, an oracle's output made once) are made once, not
            # once on each worker that runs some of its tests
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
        if any(word in source for word in _PROCESS_WORDS):
            item.add_marker(pytest.mark.subprocess)
    _slowest_files_first(items)
    if not config.option.collectonly:
        _build_in_background(config, items)


def _build_in_background(config, items) -> None:
    """Start building the C tools that the collected tests use (each once per session,
    see :func:`built_once`) in background threads, so that no pytest-xdist worker sits
    waiting for another's build when it reaches its first test needing one; a test then
    waits only for what is not built yet. A failed build is made again, and fails or
    skips, in the test that asks for it."""
    import threading

    factory = getattr(config, "_tmp_path_factory", None)  # the tmp_path_factory fixture's
    if factory is None:
        return
    used = set().union(*(getattr(item, "fixturenames", ()) for item in items))
    builds = {
        "trec_eval_build": [(f"trec_eval-{version}",
                             lambda folder, version=version: build_trec_eval(version, folder))
                            for version in ("10.0", "9.0.8")],
        "ntcireval_folder": [("ntcireval", build_ntcireval)],
        "ndeval_c": [("ndeval-source", _fetch_ndeval_source),
                     ("ndeval", lambda folder: build_c_program(
                         built_once(factory, "ndeval-source", _fetch_ndeval_source),
                         folder / "ndeval"))],
    }

    def build(steps) -> None:
        for name, make in steps:
            try:
                built_once(factory, name, make)
            except BaseException:  # noqa: BLE001 - the test that needs it says why
                return

    for fixture, steps in builds.items():
        if fixture in used:
            threading.Thread(target=build, args=(steps,), daemon=True).start()


def _slowest_files_first(items) -> None:
    """Reorder ``items`` in place: the files in the order of their slowest test (as last
    measured), slowest first; each file's tests together and in their own order (module
    fixtures are set up once). pytest-xdist hands the tests out in this order, so the long
    ones start early instead of running alone at the end."""
    slowest: dict[str, float] = {}
    for item in items:
        file = item.nodeid.split("::", 1)[0]
        slowest[file] = max(slowest.get(file, 0.0), _MEASURED_SLOW.get(item.nodeid, 0.0))
    first = {file: rank for rank, file in enumerate(sorted(slowest, key=lambda f: -slowest[f]))}
    items.sort(key=lambda item: first[item.nodeid.split("::", 1)[0]])
