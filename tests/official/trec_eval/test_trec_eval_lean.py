"""The numpy-free path of ``xdiv trec_eval`` (:mod:`xdiv.official.trec_eval.lean`) prints
what trec_eval 10.0 prints wherever it answers, and declines the rest.

Two kinds of random cases: clean ones, built for the lean path to answer (ties, negative
and multi-level grades, topics split across the file, topics only in the run, tabs or
spaces), and the messy cases of ``test_trec_eval_tool.py``, on which it must either
decline or print the binary's bytes. The binary is trec_eval 10.0 built from the reference
tarball (skipped without it).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from xdiv.official.trec_eval.lean import LEAN_MEASURES, lean_run
from xdiv.official.trec_eval.table import NICKNAMES, Options
from xdiv.official.trec_eval.tool import trec_eval_run

from .test_trec_eval_tool import random_case, read_once

LEAN_OPTIONS = [
    ["-q"], ["-q", "-c"], ["-n"], ["-q", "-M", "3"], ["-q", "-l", "2"], ["-q", "-l", "0"],
    ["-q", "-m", "P.1,3,25", "-m", "recall.2,7", "-m", "map_cut.1,4", "-m", "success.1,3",
     "-m", "relative_P.2,30", "-m", "ndcg_cut.3,7,23.4", "-m", "iprec_at_recall..25,.5,1.5"],
    ["-q", "-c", "-M", "5", "-m", "ndcg_cut", "-m", "map", "-m", "gm_map", "-m", "bpref"],
    ["-N", "40", "-q", "-m", "official", "-m", "Rprec", "-m", "recip_rank"],
]
"""Option sets whose measures are all the lean path's."""


def _options(args: list[str]) -> Options:
    """The :class:`Options` of trec_eval flags (the subset used here)."""
    given: dict = {"measures": []}
    words = iter(args)
    for word in words:
        if word == "-m":
            given["measures"].append(next(words))
        else:
            key = {"-q": "query", "-c": "complete", "-n": "summary"}.get(word)
            if key:
                given[key] = word != "-n"
            else:
                given[{"-M": "max_docs", "-l": "level", "-N": "num_docs"}[word]] = \
                    int(next(words))
    given["measures"] = tuple(given["measures"])
    return Options(**given)


def clean_case(seed: int) -> tuple[bytes, bytes]:
    """Qrels and run bytes the lean path answers on."""
    rng = np.random.default_rng(seed)
    topics = [str(t) for t in rng.choice(["1", "2", "10", "301", "a", "wt-3", "07"],
                                         size=rng.integers(1, 5), replace=False)]
    docs = [f"d{k:02d}" for k in range(rng.integers(2, 30))] + ["D1", "x-9"]
    grades = [[0, 1], [0, 1, 2], [-2, 0, 1, 2, 3], [0, 1, 2, 4, 9], [-1, 0, 1]][
        rng.integers(5)]
    sep = "\t" if rng.random() < 0.3 else " "
    qrels = []
    for t in topics:
        judged = rng.choice(docs, size=rng.integers(1, len(docs)), replace=False)
        levels = [int(rng.choice(grades)) for _ in judged]
        levels[0] = max(levels[0], 0)  # a level of 0 or more in every topic
        qrels += [sep.join([t, "0", str(d), str(v)]) for d, v in zip(judged, levels)]
    if rng.random() < 0.5:
        qrels = [qrels[k] for k in rng.permutation(len(qrels))]
    run = []
    values = [[1.0, 2.0, 3.0], [0.5, 0.25, -1.0, 0.0], list(range(40))][rng.integers(3)]
    for t in topics + (["99"] if rng.random() < 0.3 else []):
        chosen = rng.choice(docs + ["u1", "u2"], size=rng.integers(1, len(docs) + 2),
                            replace=False)
        for k, d in enumerate(chosen):
            score = float(rng.choice(values)) if rng.random() < 0.7 else \
                float(rng.normal() * 10)
            text = [f"{score:.0f}", f"{score:.4f}", f"{score:e}", repr(score)][
                rng.integers(4)]
            run.append(sep.join([t, "Q0", str(d), str(k + 1), text, "run-1"]))
    if rng.random() < 0.5:
        run = [run[k] for k in rng.permutation(len(run))]
    ending = "\n" if rng.random() < 0.9 else ""
    return ("\n".join(qrels) + ending).encode(), ("\n".join(run) + "\n").encode()


@pytest.fixture(scope="module")
def trec_eval_10(trec_eval_build):
    return trec_eval_build("10.0")


def _write(folder: Path, qrels: bytes, run: bytes) -> list[str]:
    """The paths of ``qrels`` and ``run`` written in ``folder``."""
    (folder / "qrels").write_bytes(qrels)
    (folder / "run").write_bytes(run)
    return [str(folder / "qrels"), str(folder / "run")]


def _check(binary: Path, paths: list[str], args: list[str]) -> bool:
    """Whether the lean path answered on the qrels and run ``paths``; when it did, that it
    printed the binary's bytes and that the full program agrees."""
    outcome = lean_run(*paths, _options(args))
    if outcome is None:
        return False
    proc = subprocess.run([str(binary), *args, *paths], capture_output=True)
    assert (outcome.stdout, outcome.stderr, outcome.status) == \
        (proc.stdout, proc.stderr, proc.returncode), " ".join(args)
    assert trec_eval_run(*paths, _options(args)) == outcome
    return True


def test_the_lean_measures_include_the_default_ones():
    assert set(NICKNAMES["official"]) <= LEAN_MEASURES


def test_clean_cases_are_answered_as_trec_eval_answers(trec_eval_10, tmp_path, monkeypatch):
    """200 clean cases under nine option sets: nearly all answered, each as the binary
    (each case written, and read by the full program, once)."""
    read_once(monkeypatch)
    answered = 0
    for seed in range(200):
        paths = _write(tmp_path, *clean_case(seed))
        answered += sum(_check(trec_eval_10, paths, args) for args in LEAN_OPTIONS)
    assert answered >= 0.95 * 200 * len(LEAN_OPTIONS), answered


def test_messy_cases_are_declined_or_answered_right(trec_eval_10, tmp_path, monkeypatch):
    """The full program's 200 messy cases: whatever the lean path answers is the binary's
    answer (the rest goes to the full program)."""
    read_once(monkeypatch)
    answered = 0
    for seed in range(200):
        paths = _write(tmp_path, *random_case(seed))
        answered += sum(_check(trec_eval_10, paths, args) for args in LEAN_OPTIONS[:4])
    assert answered >= 20, answered


def test_the_2009_run_is_answered_as_trec_eval_answers(trec_eval_10, tmp_path, monkeypatch):
    """A whole TREC 2009 run (50,000 lines) against adhoc qrels (a document's highest
    level) is answered by the lean path, as the binary answers it."""
    import gzip

    from tests.conftest import require_trec_2009

    root = require_trec_2009()
    best: dict = {}
    with gzip.open(root / "qrels.diversity.gz", "rt") as handle:
        for line in handle:
            topic, _, docno, level = line.split()
            best[topic, docno] = max(best.get((topic, docno), -99), int(level))
    qrels = "".join(f"{t} 0 {d} {v}\n" for (t, d), v in best.items()).encode()
    with gzip.open(root / "runs" / "MSRABASE.gz", "rb") as handle:
        run = handle.read()
    read_once(monkeypatch)
    paths = _write(tmp_path, qrels, run)
    for args in LEAN_OPTIONS:
        assert _check(trec_eval_10, paths, args), args


@pytest.mark.parametrize("change,why", [
    (lambda q, r: (q, r.replace(b" Q0 ", b"  Q0 ", 1)), "two spaces"),
    (lambda q, r: (q, r.replace(b"\n", b" extra\n", 1)), "a seventh field"),
    (lambda q, r: (q, b"# comment\n" + r), "a comment"),
    (lambda q, r: (q, r.replace(b"\n", b"\r\n")), "carriage returns"),
    (lambda q, r: (q, r + b"\n"), "a blank line"),
    (lambda q, r: (q, r.replace(b" 2.5 ", b" 0x1p1 ", 1)), "a hexadecimal score"),
    (lambda q, r: (q, r.replace(b" 2.5 ", b" nan ", 1)), "a NaN score"),
    (lambda q, r: (q, r + r.splitlines(keepends=True)[0]), "a docno retrieved twice"),
    (lambda q, r: (q + q.splitlines(keepends=True)[0], r), "a docno judged twice"),
    (lambda q, r: (q + b"7 0 d1 1\n", r), "a topic the run lacks"),
    (lambda q, r: (q.replace(b" 1\n", b" 1x\n", 1), r), "a level atol cuts short"),
    (lambda q, r: (q.replace(b"1 0 d2 0", b"1 0 d2 -1").replace(b"1 0 d1 1", b"1 0 d1 -3"),
                   r), "a topic without a level of 0 or more"),
])
def test_what_the_lean_path_declines(tmp_path, change, why):
    qrels = b"1 0 d1 1\n1 0 d2 0\n2 0 d1 2\n"
    run = b"1 Q0 d1 1 2.5 r\n1 Q0 d3 2 1.0 r\n2 Q0 d1 1 3 r\n"
    paths = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    Path(paths[0]).write_bytes(qrels)
    Path(paths[1]).write_bytes(run)
    assert lean_run(*paths, Options()) is not None
    qrels, run = change(qrels, run)
    Path(paths[0]).write_bytes(qrels)
    Path(paths[1]).write_bytes(run)
    assert lean_run(*paths, Options()) is None, why


@pytest.mark.parametrize("options", [
    Options(measures=("all_trec",)), Options(measures=("ndcg",)), Options(version=9),
    Options(judged_only=True), Options(rel_format="qrels_jg"), Options(max_docs=0),
    Options(measures=("P.0",)), Options(measures=("nonsense",)),
    Options(measures=("iprec_at_recall.inf",)), Options(measures=("iprec_at_recall.1e300",))])
def test_options_the_lean_path_leaves_to_the_full_program(tmp_path, options):
    paths = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    Path(paths[0]).write_bytes(b"1 0 d1 1\n")
    Path(paths[1]).write_bytes(b"1 Q0 d1 1 2.5 r\n")
    assert lean_run(*paths, options) is None


def test_the_command_answers_clean_files_without_numpy(tmp_path):
    """``xdiv trec_eval`` on clean files never imports numpy; on other files it does,
    and still prints trec_eval's bytes."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    probe = ("import sys\nfrom xdiv.cli import main\nstatus = main(sys.argv[1:])\n"
             "print('numpy' in sys.modules, status)")
    outputs = []
    for text in ("1 Q0 d1 1 2.5 r\n1 Q0 d2 2 1.0 r\n",
                 "1 Q0 d1 1 2.5 r\n# c\n1 Q0 d2 2 1 r\n"):
        run.write_text(text)
        proc = subprocess.run([sys.executable, "-c", probe, "trec_eval", "-m", "map",
                               "-m", "P.1", str(qrels), str(run)], capture_output=True,
                              text=True)
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc.stdout.splitlines())
    assert outputs[0] == ["map                   \tall\t1.0000",
                          "P_1                   \tall\t1.0000", "False 0"]
    assert outputs[1] == outputs[0][:2] + ["True 0"]
