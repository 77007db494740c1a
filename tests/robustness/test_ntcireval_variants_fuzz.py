"""Seeded random cases through ``xdiv ntcireval`` and through NTCIREVAL's other scripts
(issue 36, item 2): D-NTCIR-eval2 and D-NTCIR-IAeval2 on space-separated files, the
-sep scripts on the same files with ';' between fields and blanks inside documents, and
1CLICK-eval on random nuggets and matches; every file the scripts write is written with
the same bytes. The cases have documents judged twice, unjudged and repeated documents,
intents without relevant documents, topics without ranked documents, equal gains (the
order ``sort -nr`` gives them), probabilities not adding up to 1, navigational intents,
nuggets matched twice or not at all, and several cutoffs; each case is bounded in time."""

from __future__ import annotations

import random

import pytest

from ..helpers import time_limit
from ..official.test_ntcireval_variants import _ours, _same, _scripts


def _diversity_case(seed: int) -> tuple[dict[str, bytes], int]:
    """A random DINprob file, Dqrels file and two runs (``f.*``, ``RA``, ``RB``), their
    ';'-separated copies (``s*``), and a cutoff."""
    rng = random.Random(seed)
    topics = rng.sample(["0001", "0002", "10", "T7"], rng.randint(1, 3))
    docs = [f"d {k}" if rng.random() < 0.4 else f"d{k}" for k in range(12)]
    prob_lines, qrels_lines = [], []
    for topic in topics:
        for intent in range(1, rng.randint(2, 5)):
            p = rng.choice([round(rng.random(), 4), 1 / rng.randint(1, 7), 0.5, 1.0])
            prob_lines.append(f"{topic};{intent};{p!r};{rng.choice(['inf', 'nav'])}\n")
            if rng.random() < 0.15:
                continue  # an intent without judgments
            for doc in rng.sample(docs, rng.randint(1, 6)):
                qrels_lines.append(f"{topic};{intent};{doc};L{rng.choice([0, 1, 1, 2, 3])}\n")
                if rng.random() < 0.1:  # judged twice
                    qrels_lines.append(f"{topic};{intent};{doc};L{rng.randint(0, 4)}\n")
    rng.shuffle(qrels_lines)
    files = {"f.DINprob": "".join(prob_lines), "f.Dqrels": "".join(qrels_lines)}
    for name in ("RA", "RB"):
        lines = []
        for topic in topics:
            if rng.random() < 0.15:
                continue  # the run has no document for the topic
            ranked = [rng.choice([*docs, "u 1", "u2"]) for _ in range(rng.randint(0, 25))]
            lines += [f"{topic};Q0;{doc};{k};{-k};{name}\n" for k, doc in enumerate(ranked, 1)]
        files[name] = "".join(lines)
    inputs = {f"s{name}": data.encode() for name, data in files.items()}
    # the space-separated files: documents without blanks
    inputs |= {name: data.replace(" ", "_").replace(";", " ").encode()
               for name, data in files.items()}
    return inputs, rng.choice([1, 3, 5, 10, 20])


def _check_diversity(ntcireval_folder, tmp_path, capsys, seed: int) -> None:
    inputs, cutoff = _diversity_case(seed)
    inputs |= {"runl": b"RA\nRB\n", "srunl": b"sRA\nsRB\n"}
    c = f"{cutoff:04d}"
    with time_limit(180):
        scripts = _scripts(ntcireval_folder, tmp_path / f"scripts{seed}", inputs, [
            ("DIN-splitqrels f.DINprob f.Dqrels q", b""),
            ("TRECsplitruns f.DINprob.tid 1000", inputs["runl"]),
            (f"D-NTCIR-eval2 f.DINprob.tid q {cutoff} e", inputs["runl"]),
            (f"D-NTCIR-IAeval2 f.DINprob.tid f.DINprob q.Irelv {cutoff} e", inputs["runl"]),
            (f"NEVIAPQ2sharpnev f.DINprob.tid e.Dnev I-rec@{c} e.nevIA IA-Q@{c} IA-Q#@{c}",
             inputs["runl"]),
            ("DIN-splitqrels sf.DINprob sf.Dqrels s ';'", b""),
            ("TRECsplitruns sf.DINprob.tid 1000 -s ';'", inputs["srunl"]),
            (f"D-NTCIR-eval-sep sf.DINprob.tid s {cutoff} e ';'", inputs["srunl"]),
            (f"DIN-NTCIR-eval-sep sf.DINprob.tid s {cutoff} e ';'", inputs["srunl"])])
    common = ["--cutoff", str(cutoff), "--name", "e"]
    with time_limit(30):
        ours = _ours(tmp_path / f"xdiv{seed}", inputs, [
            ["D", "f.DINprob", "f.Dqrels", "RA", "RB", "--extended", *common],
            ["IA", "f.DINprob", "f.Dqrels", "RA", "RB", "--extended", *common,
             "--sharp", f"IA-Q@{c}", f"IA-Q#@{c}"],
            ["D", "sf.DINprob", "sf.Dqrels", "sRA", "sRB", "--sep", ";", *common],
            ["DIN", "sf.DINprob", "sf.Dqrels", "sRA", "sRB", "--sep", ";", *common]], capsys)
    _same(scripts, ours, 2 * 5)


def _check_oneclick(ntcireval_folder, tmp_path, capsys, seed: int) -> int:
    """The number of files written with something in them (1click writes nothing for a
    topic whose matches name a nugget it lacks)."""
    rng = random.Random(seed)
    topics = rng.sample(["1C-01", "1C-02", "1C-10"], rng.randint(1, 3))
    nuggets, runs = [], {"RA": [], "RB": []}
    for topic in topics:
        count = rng.randint(1, 6)
        for k in range(1, count + 1):
            nuggets.append(f"{topic} N{k:04d} {rng.randint(1, 5)} {rng.randint(1, 30)}\n")
        for lines in runs.values():
            for _ in range(rng.randint(0, 2)):
                lines.append(f"{topic} syslen= {rng.randint(0, 800)}\n")
            for _ in range(rng.randint(0, 8)):
                # now and then a nugget the nugget file lacks: 1click stops on it
                nugget = count + 1 if rng.random() < 0.03 else rng.randint(1, count)
                lines.append(f"{topic} N{nugget:04d} {rng.randint(0, 900)}\n")
    rng.shuffle(nuggets)
    if rng.random() < 0.7:  # else a topic may come back after another one
        nuggets.sort(key=lambda line: line.split()[0])
    inputs = {"n.nuggets": "".join(nuggets).encode(),
              **{name: "".join(rng.sample(lines, len(lines))).encode()
                 for name, lines in runs.items()}}
    with time_limit(60):
        scripts = _scripts(ntcireval_folder, tmp_path / f"oscripts{seed}", inputs, [
            ("1CLICK-splitnuggets n.nuggets t.nug", b""),
            ("1CLICK-splitmatch n.nuggets.tid", b"RA\nRB\n"),
            ("1CLICK-eval n.nuggets.tid t.nug t", b"RA\nRB\n")])
    with time_limit(20):
        ours = _ours(tmp_path / f"oxdiv{seed}", inputs,
                     [["1click", "n.nuggets", "RA", "RB", "--name", "t"]], capsys)
    assert sorted(ours) == sorted(scripts) == ["RA.t.1cl", "RB.t.1cl"]
    assert ours == scripts
    return sum(1 for data in ours.values() if data)


def test_random_cases_quick(ntcireval_folder, tmp_path, capsys):
    """Two seeded 1CLICK cases (a few seconds; the diversity sample's quick tests are in
    tests/official/test_ntcireval_variants.py)."""
    assert sum(_check_oneclick(ntcireval_folder, tmp_path, capsys, seed)
               for seed in range(2)) > 0


@pytest.mark.slow
def test_random_cases(ntcireval_folder, tmp_path, capsys):
    """Six seeded diversity cases (each through nine scripts) and twelve more 1CLICK
    cases."""
    for seed in range(6):
        _check_diversity(ntcireval_folder, tmp_path, capsys, seed)
    assert sum(_check_oneclick(ntcireval_folder, tmp_path, capsys, seed)
               for seed in range(2, 14)) >= 12
