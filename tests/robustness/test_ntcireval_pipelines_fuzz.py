"""Seeded random collections through ``xdiv ntcireval D|DIN|IA|PQ`` and through
NTCIREVAL's own scripts (issue 36, item 2): every file the scripts write is written with
the same bytes. The cases have duplicated judgments, unjudged and repeated documents,
intents without relevant documents, topics without judgments or without ranked
documents, probabilities with many digits and not adding up to 1, navigational intents
and several cutoffs; each case is bounded in time."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ..helpers import time_limit
from ..official.test_ntcireval_pipelines import _compare, _pipelines, _run_scripts, _run_xdiv


def _write_case(folder: Path, seed: int) -> tuple[Path, Path, list[Path], int]:
    """A random DINprob file, Dqrels file and two runs in ``folder``, and a cutoff."""
    rng = random.Random(seed)
    folder.mkdir()
    topics = rng.sample(["0001", "0002", "10", "T7", "0100"], rng.randint(1, 3))
    docs = [f"d{k}" for k in range(12)]
    prob_lines, qrels_lines = [], []
    for topic in topics:
        intents = [str(i) for i in range(1, rng.randint(2, 5))]
        for intent in intents:
            p = rng.choice([round(rng.random(), 4), 1 / rng.randint(1, 7), 0.0001, 1.0])
            kind = rng.choice(["inf", "nav"])
            prob_lines.append(f"{topic} {intent} {p!r} {kind}\n")
            if rng.random() < 0.15:
                continue  # an intent without judgments
            for doc in rng.sample(docs, rng.randint(1, 6)):
                qrels_lines.append(f"{topic} {intent} {doc} L{rng.choice([0, 0, 1, 2, 3, 9])}\n")
                if rng.random() < 0.1:  # judged twice
                    qrels_lines.append(f"{topic} {intent} {doc} L{rng.randint(0, 4)}\n")
        if rng.random() < 0.3:
            qrels_lines.append(f"{topic} 0 {rng.choice(docs)} L0\n")
    rng.shuffle(qrels_lines)
    prob, dqrels = folder / "f.DINprob", folder / "f.Dqrels"
    prob.write_text("".join(prob_lines))
    dqrels.write_text("".join(qrels_lines))
    runs = []
    for name in ("RA", "RB"):
        lines = []
        for topic in topics:
            if rng.random() < 0.15:
                continue  # the run has no document for the topic
            ranked = [rng.choice([*docs, "u1", "u2", "u3"]) for _ in range(rng.randint(0, 25))]
            lines += [f"{topic} Q0 {doc} {k} {-k} {name}\n" for k, doc in enumerate(ranked, 1)]
        (folder / name).write_text("".join(lines))
        runs.append(folder / name)
    (folder / "runl").write_text("RA\nRB\n")
    return prob, dqrels, runs, rng.choice([1, 3, 5, 10, 20])


def _check(ntcireval_folder: Path, tmp_path: Path, seed: int) -> None:
    prob, dqrels, runs, cutoff = _write_case(tmp_path / f"in{seed}", seed)
    scripts, ours = _pipelines(prob, dqrels, None, runs, cutoff)
    with time_limit(120):
        written = _run_scripts(ntcireval_folder, tmp_path / f"scripts{seed}",
                               [tmp_path / f"in{seed}" / "runl", prob, dqrels, *runs], scripts)
    with time_limit(20):
        mine = _run_xdiv(tmp_path / f"xdiv{seed}", ours)
    _compare(written, mine, len(runs))


def test_random_collections_quick(ntcireval_folder, tmp_path):
    """Two seeded cases (a few seconds)."""
    for seed in range(2):
        _check(ntcireval_folder, tmp_path, seed)


@pytest.mark.slow
def test_random_collections(ntcireval_folder, tmp_path):
    """Twelve more seeded cases."""
    for seed in range(2, 14):
        _check(ntcireval_folder, tmp_path, seed)
