"""The plain path of ``xdiv ndeval`` (numpy only) prints what the general path prints."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

import xdiv
from tests.conftest import require_trec_2009
from xdiv.official.ndeval_tool.report import cut_runs, ndeval_report
from xdiv.official.plain import ndeval_plain

HEAVY = ("pandas", "xarray", "scipy", "statsmodels", "matplotlib", "dask", "pyarrow")


def _warned(function, *args, **options) -> tuple:
    """``function``'s result and the messages of the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(*args, **options)
    return result, [str(w.message) for w in caught]


def _ndeval_report(qrels, runs, *, order="rank", depth=None, **options) -> str:
    """The general path: read_qrels, read_runs, ndeval_report."""
    collection = xdiv.read_qrels(qrels)
    runs = xdiv.read_runs(runs, order=order)
    return ndeval_report(collection, cut_runs(runs, depth) if depth else runs, **options)


def _general(qrels, runs, **options) -> tuple[str, list[str]]:
    return _warned(_ndeval_report, qrels, runs, **options)


def _plain(qrels, runs, **options) -> tuple[str | None, list[str]]:
    return _warned(ndeval_plain, qrels, runs, **options)


OPTIONS = [{}, {"order": "score-docno-desc"}, {"complete": True}, {"depth": 10},
           {"alpha": 0.3, "beta": 0.8}, {"order": "score-docno-desc", "complete": True,
                                         "depth": 7, "alpha": 1.0, "beta": 1.0}]


class _Shared2009:
    """The 2009 files and what the option sets share (issue 35 item 18: the general
    path reads the qrels once and the runs once per ranking order, with the warnings
    reading gave; the plain path's run reader runs on each file once here, see
    :meth:`cached_reads`), filled as the tests ask."""

    def __init__(self, root: Path):
        self.runs = sorted(str(p) for p in (root / "runs").glob("*.gz"))
        self.qrels = root / "qrels.diversity.gz"
        self._read: dict = {}
        self._plain_runs: dict | None = None

    def read(self, key, function, *args, **options) -> tuple:
        """``function(*args, **options)`` and its warnings, computed once per ``key``."""
        if key not in self._read:
            self._read[key] = _warned(function, *args, **options)
        return self._read[key]

    def plain_default(self) -> tuple[str | None, list[str]]:
        """The plain path on every run with ndeval's defaults (uncached reading)."""
        return self.read("plain", ndeval_plain, self.qrels, self.runs)

    def general(self, *, order="rank", depth=None, **options) -> tuple[str, list[str]]:
        """:func:`_ndeval_report` of every run, its warnings in the same order (reading's,
        then cutting's and scoring's), the files read once."""
        collection, qrels_warnings = self.read("qrels", xdiv.read_qrels, self.qrels)
        runs, runs_warnings = self.read(("runs", order), xdiv.read_runs, self.runs,
                                        order=order)
        report, warned = _warned(lambda: ndeval_report(
            collection, cut_runs(runs, depth) if depth else runs, **options))
        return report, qrels_warnings + runs_warnings + warned

    def cached_reads(self, monkeypatch) -> None:
        """The plain path's run reader answers from runs it read once (arrays made
        read-only, so that nothing downstream may change them); read before any child
        process is forked, so the children inherit them."""
        from xdiv.official import plain as plain_module

        if self._plain_runs is None:
            self._plain_runs = {}
            for path in self.runs:
                run = plain_module.read_plain_run(path)
                assert run is not None
                for value in vars(run).values():
                    if isinstance(value, np.ndarray):
                        value.flags.writeable = False
                self._plain_runs[path] = run
        reads = self._plain_runs
        monkeypatch.setattr(plain_module, "read_plain_run", lambda path: reads[str(path)])


@pytest.fixture(scope="module")
def shared_2009() -> _Shared2009:
    return _Shared2009(require_trec_2009())


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_the_2009_runs_take_the_plain_path_and_print_the_same(options, shared_2009,
                                                              monkeypatch):
    """Every run through both paths. The first option set (ndeval's defaults) reads the
    files through the plain path's own reader; the others, which change only what is
    done with the runs read (ranking order, cut, measures' parameters, topics
    averaged), take the runs that reader gave (issue 35 item 18)."""
    if options:
        shared_2009.cached_reads(monkeypatch)
        plain, plain_warnings = _plain(shared_2009.qrels, shared_2009.runs, **options)
    else:
        plain, plain_warnings = shared_2009.plain_default()
    assert plain is not None, "real TREC files must take the plain path"
    general, general_warnings = shared_2009.general(**options)
    assert plain == general
    assert plain_warnings == general_warnings


def test_one_run_alone_prints_its_block_of_the_run_set(shared_2009, monkeypatch):
    """Each run is scored alone: its rows are the same bits beside other runs (the runs
    alone taken from the plain path's reader as :meth:`_Shared2009.cached_reads` keeps
    them: issue 35 item 18)."""
    together, _ = shared_2009.plain_default()
    shared_2009.cached_reads(monkeypatch)
    for path in shared_2009.runs[:4]:
        alone, _ = _plain(shared_2009.qrels, [path])
        assert alone is not None
        body = alone.split("\n", 1)[1]  # without the header
        assert body in together


def _write_case(rng: np.random.Generator, folder: Path) -> tuple[Path, list[Path]]:
    """Small messy qrels and runs: ties in scores and ranks, unjudged and spam documents,
    topics only in the qrels or only in a run, tabs, spaces or runs of blanks."""
    separator = rng.choice(["\t", " ", "  \t"])
    topics = ["1", "2", "10", "wt-3"]
    lines = []
    for topic in topics:
        for doc in range(int(rng.integers(2, 9))):
            for intent in rng.choice(["1", "2", "3", "10"], size=int(rng.integers(1, 4)),
                                     replace=False):
                lines.append(separator.join([topic, str(intent), f"d{doc:02d}",
                                             str(int(rng.choice([-2, 0, 1, 2, 3])))]))
        lines.append(separator.join([topic, "1", "d00x", "1"]))  # each topic has one
    qrels = folder / "qrels.txt"
    qrels.write_text("\n".join(lines) + "\n")
    runs = []
    for r in range(int(rng.integers(1, 4))):
        rows = []
        for topic in rng.choice(topics + ["99"], size=int(rng.integers(1, 5)), replace=False):
            docs = rng.choice([f"d{d:02d}" for d in range(12)] + ["d00x"],
                              size=int(rng.integers(1, 13)), replace=False)
            scores = rng.choice([1.0, 2.0, 2.5, 3.0], size=len(docs))
            ranks = rng.permutation(len(docs)) + 1 if rng.random() < 0.5 else \
                rng.integers(1, 4, size=len(docs))
            for doc, rank, score in zip(docs, ranks, scores):
                rows.append(separator.join([str(topic), "Q0", str(doc), str(int(rank)),
                                            repr(float(score)), f"run{r}"]))
        path = folder / f"r{r}.txt"
        path.write_text("\n".join(rows) + "\n")
        runs.append(path)
    return qrels, runs


@pytest.mark.parametrize("seed", range(40))
def test_random_cases_print_the_same_or_take_the_general_path(seed, tmp_path):
    rng = np.random.default_rng(seed)
    qrels, runs = _write_case(rng, tmp_path)
    options = OPTIONS[seed % len(OPTIONS)]
    plain, plain_warnings = _plain(qrels, runs, **options)
    try:
        general, general_warnings = _general(qrels, runs, **options)
    except xdiv.XdivError:
        assert plain is None  # what the general path refuses, the plain path leaves to it
        return
    if plain is not None:
        assert plain == general
        assert plain_warnings == general_warnings


def test_most_random_cases_take_the_plain_path(tmp_path):
    taken = 0
    for seed in range(20):
        folder = tmp_path / str(seed)
        folder.mkdir()
        qrels, runs = _write_case(np.random.default_rng(seed), folder)
        taken += _plain(qrels, runs)[0] is not None
    assert taken >= 10


GOOD_QRELS = "1 1 a 1\n1 2 b 1\n2 1 c 1\n"
GOOD_RUN = "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 c 1 1.5 r\n"


@pytest.mark.parametrize("qrels, run", [
    (GOOD_QRELS, "1 Q0 a 1 2.0\n1 Q0 b 2 1.0\n"),  # no run tag
    (GOOD_QRELS, GOOD_RUN + "\n"),  # a blank line
    (GOOD_QRELS, GOOD_RUN.replace("\n", "\r\n")),  # CRLF
    (GOOD_QRELS, GOOD_RUN.replace(" a ", " é ")),  # non-ASCII
    (GOOD_QRELS, GOOD_RUN + "2 Q0 c 2 1.0 r\n"),  # a document twice
    (GOOD_QRELS, GOOD_RUN.replace("1.5", "nan")),  # not a number
    (GOOD_QRELS, GOOD_RUN.replace("1.5", "0x10")),
    (GOOD_QRELS, GOOD_RUN.replace("2 1.0", "2.0 1.0")),  # a rank not an integer
    (GOOD_QRELS, GOOD_RUN.replace("2 Q0 c 1 1.5 r", "2 Q0 c 1 1.5 s")),  # two tags
    (GOOD_QRELS, "1 Q0 zz 1 2.0 r\n"),  # nothing judged
    (GOOD_QRELS + "3 1 d 0\n", GOOD_RUN),  # a topic without a relevant document
    (GOOD_QRELS + "1 1 a 2\n", GOOD_RUN),  # a judgment twice
    (GOOD_QRELS.replace("2 1 c 1", "2 1 c 300"), GOOD_RUN),  # level out of range
    (GOOD_QRELS.replace("2 1 c 1", "2 1 c"), GOOD_RUN),  # a field missing
])
def test_what_is_not_plain_takes_the_general_path(qrels, run, tmp_path):
    (tmp_path / "q").write_text(qrels, encoding="utf-8")
    (tmp_path / "r").write_text(run, encoding="utf-8")
    assert _plain(tmp_path / "q", [tmp_path / "r"])[0] is None


def test_plain_files_take_the_plain_path(tmp_path):
    (tmp_path / "q").write_text(GOOD_QRELS)
    (tmp_path / "r").write_text(GOOD_RUN)
    plain, _ = _plain(tmp_path / "q", [tmp_path / "r"])
    assert plain == _general(tmp_path / "q", [tmp_path / "r"])[0]


def test_two_files_of_one_run_take_the_general_path(tmp_path):
    (tmp_path / "q").write_text(GOOD_QRELS)
    (tmp_path / "a").write_text(GOOD_RUN)
    (tmp_path / "b").write_text(GOOD_RUN)
    assert _plain(tmp_path / "q", [tmp_path / "a", tmp_path / "b"])[0] is None


def test_the_ndeval_command_loads_no_heavy_library(tmp_path):
    (tmp_path / "q").write_text(GOOD_QRELS)
    (tmp_path / "r").write_text(GOOD_RUN)
    code = ("import sys\nfrom xdiv.cli import main\n"
            f"status = main(['ndeval', {str(tmp_path / 'q')!r}, {str(tmp_path / 'r')!r}])\n"
            f"print(status, sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}),"
            " file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stderr.strip() == "0 []"
    assert proc.stdout.startswith("runid,topic,ERR-IA@5,")


def _adhoc(qrels: Path, out: Path) -> Path:
    """Diversity qrels as adhoc qrels (a document's highest level, negative as 0)."""
    best: dict[tuple[str, str], int] = {}
    with xdiv.io.open_text(qrels) as lines:
        for line in lines:
            topic, _, docno, level = line.split()
            best[topic, docno] = max(best.get((topic, docno), -9), int(level))
    out.write_text("".join(f"{t} 0 {d} {max(v, 0)}\n" for (t, d), v in best.items()))
    return out


def _gdeval_general(qrels, runs, **options) -> tuple[str, list[str]]:
    from xdiv.official.gdeval.report import gdeval_report

    return _warned(lambda: gdeval_report(xdiv.read_qrels(qrels), xdiv.read_runs(runs),
                                         **options))


def _gdeval_plain(qrels, runs, **options) -> tuple[str | None, list[str]]:
    from xdiv.official.plain import gdeval_plain

    return _warned(gdeval_plain, qrels, runs, **options)


@pytest.fixture(scope="module")
def adhoc_2009(shared_2009, tmp_path_factory) -> Path:
    """The 2009 diversity qrels as adhoc qrels (:func:`_adhoc`), written once."""
    return _adhoc(shared_2009.qrels, tmp_path_factory.mktemp("adhoc") / "adhoc.txt")


@pytest.mark.parametrize("options", [{}, {"k": 10}, {"complete": True, "k": 3}], ids=str)
def test_gdeval_on_the_2009_runs_takes_the_plain_path_and_prints_the_same(
        options, shared_2009, adhoc_2009, monkeypatch):
    """As for ndeval: the first option set reads the runs through the plain path's own
    reader, the others take the runs it gave; the general path reads the files once
    (issue 35 item 18)."""
    from xdiv.official.gdeval.report import gdeval_report

    runs = shared_2009.runs
    if options:
        shared_2009.cached_reads(monkeypatch)
    plain = _gdeval_plain(adhoc_2009, runs, **options)
    assert plain[0] is not None
    qrels, qrels_warnings = shared_2009.read("adhoc", xdiv.read_qrels, adhoc_2009)
    read, runs_warnings = shared_2009.read(("runs", "gdeval"), xdiv.read_runs, runs)
    general, warned = _warned(lambda: gdeval_report(qrels, read, **options))
    assert plain == (general, qrels_warnings + runs_warnings + warned)


@pytest.mark.parametrize("seed", range(12))
def test_gdeval_random_cases_print_the_same_or_take_the_general_path(seed, tmp_path):
    qrels, runs = _write_case(np.random.default_rng(seed), tmp_path)
    qrels = _adhoc(qrels, tmp_path / "adhoc.txt")
    plain = _gdeval_plain(qrels, runs, k=[20, 5, 1][seed % 3], complete=seed % 2 == 0)
    try:
        general = _gdeval_general(qrels, runs, k=[20, 5, 1][seed % 3],
                                  complete=seed % 2 == 0)
    except xdiv.XdivError:
        assert plain[0] is None
        return
    assert plain[0] is None or plain == general


def test_gdeval_leaves_diversity_qrels_and_high_grades_to_the_general_path(tmp_path):
    (tmp_path / "r").write_text(GOOD_RUN)
    (tmp_path / "q").write_text(GOOD_QRELS)  # intents 1 and 2
    assert _gdeval_plain(tmp_path / "q", [tmp_path / "r"])[0] is None
    (tmp_path / "q").write_text("1 0 a 5\n2 0 c 1\n")
    assert _gdeval_plain(tmp_path / "q", [tmp_path / "r"])[0] is None
    (tmp_path / "q").write_text("1 0 a 4\n2 0 c 1\n")
    assert _gdeval_plain(tmp_path / "q", [tmp_path / "r"]) == \
        _gdeval_general(tmp_path / "q", [tmp_path / "r"])


def _raises():
    raise RuntimeError("in the child")


def test_a_child_that_raises_sends_failed_and_is_reaped():
    from xdiv.official import plain

    if plain._cores() < 2:
        pytest.skip("one core: no child process is forked")
    assert plain._Child(_raises).result() == plain._FAILED
    assert plain._Child(max, 2, 3).result() == 3


@pytest.mark.parametrize("traditional", [False, True])
def test_official_ndeval_cube_is_the_same_on_both_paths(traditional, shared_2009,
                                                        monkeypatch):
    """xdiv.official.ndeval gives ndeval's rows as a cube: the plain path and the general
    path (forced here) give identical cubes, whose values are the CSV's. The plain path's
    reader answers from the runs :meth:`_Shared2009.cached_reads` read once (issue 35
    item 18); the general path reads the files."""
    shared_2009.cached_reads(monkeypatch)
    runs, qrels = shared_2009.runs[:5], shared_2009.qrels
    plain = xdiv.official.ndeval(qrels, runs, traditional=traditional, complete=True)
    text = ndeval_plain(qrels, runs, order="score-docno-desc" if traditional else "rank",
                        complete=True)
    from xdiv.official import plain as plain_module

    monkeypatch.setattr(plain_module, "ndeval_plain_blocks", lambda *a, **k: None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        general = xdiv.official.ndeval(qrels, runs, traditional=traditional, complete=True)
    xr.testing.assert_identical(plain, general)
    first = text.splitlines()[1].split(",")
    assert first[0] == str(plain["run"].values[0])
    assert float(first[2]) == pytest.approx(
        float(plain["score"].isel(metric=0, run=0).sel(topic=first[1])), abs=5e-7)


@pytest.mark.parametrize("values", [[b"d1", b"d1", b"d1"], [b"b", b"a", b"b", b"c"], [b"x"],
                                    [b"same-long-docno-0001"] * 5])
def test_sorted_codes_equal_numpy_unique(values):
    """Including the case of one value repeated, whose codes were once left unset."""
    from xdiv.official.plain_input import sorted_codes

    array = np.array(values)
    distinct, codes = sorted_codes(array)
    expected, inverse = np.unique(array, return_inverse=True)
    np.testing.assert_array_equal(distinct, expected)
    np.testing.assert_array_equal(codes, inverse)
