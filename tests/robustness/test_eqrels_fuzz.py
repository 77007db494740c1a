"""A fuzzing campaign over NTCIREVAL's eqrels files as ``xdiv.read_qrels(...,
format="ntcir-eqrels")`` reads them, and the ``EC-`` measures on what it accepts (issue 36,
item 5).

Files are drawn by a seeded generator from ordinary ``topic;docno;L<level>;class`` lines
(or ``sep=" "``-separated ones) and every kind of damage: levels that are not
``L<digits>``, classes that are not whole numbers >= 1 (``0``, ``-1``, ``1.0``, ``1e2``,
``x``, empty), missing and extra fields, empty fields, control characters, a document
listed twice, blank lines, CRLF line ends, docnos holding spaces.

Each input is either

- **refused**: one :class:`~xdiv.errors.XdivError` of one line naming the file and the
  first bad line, computed here independently of the package; or
- **accepted, checked**: the collection's levels and classes equal those of a reference
  parse written here, writing it back as eqrels and reading that gives the same, and EC-AP, EC-Q, EC-nDCG@5 and EC-P@3 of a random ranked list equal
  ``ntcir_eval label -ec | ntcir_eval compute -ec`` on rel files written from the
  reference parse, to its 4 printed decimals.

No input may raise anything else or hang (a time limit per input).
"""

from __future__ import annotations

import random
import re
import subprocess
import warnings

import pandas as pd
import pytest

import xdiv
from xdiv.errors import XdivError
from xdiv.io import ntcir

from ..helpers import time_limit

LEVEL = re.compile(r"L([0-9]+)")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
GOOD_LEVELS = ["L0", "L1", "L2", "L3", "L1", "L01"]
BAD_LEVELS = ["2", "L-1", "l1", "L1.0", "L128", "L", ""]
GOOD_CLASSES = ["1", "2", "3", "1", "2", "007", "12"]
BAD_CLASSES = ["0", "-1", "1.0", "1e2", "x", "", "+1", "\u0661"]


def _text(rng: random.Random, sep: str) -> str:
    lines = []
    for _ in range(rng.randint(1, 12)):
        topic = rng.choice(["1", "2", "0003"])
        docno = rng.choice([f"d{k}" for k in range(1, 40)] + (["d 5"] if sep == ";" else []))
        level = rng.choice(BAD_LEVELS) if rng.random() < 0.02 else rng.choice(GOOD_LEVELS)
        eq = rng.choice(BAD_CLASSES) if rng.random() < 0.03 else rng.choice(GOOD_CLASSES)
        fields = [topic, docno, level, eq]
        if rng.random() < 0.01:
            fields = fields[:-1]
        elif rng.random() < 0.01:
            fields = [*fields, "x"]
        if rng.random() < 0.01:
            k = rng.randrange(2)
            fields[k] = fields[k][:1] + rng.choice("\x00\x1b\x7f\x01") + fields[k][1:]
        if rng.random() < 0.01:
            fields[rng.randrange(2)] = ""
        lines.append(sep.join(fields))
        if rng.random() < 0.03:
            lines.append("")
    end = rng.choice(["\n", "\n", "\r\n"])
    return end.join(lines) + end


def _reference(text: str, sep: str):
    """``(first bad line or None, {topic: {docno: (level, class)}})``."""
    rows: dict[str, dict[str, tuple[int, int]]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip(" \t"):
            continue
        fields = line.split(sep)
        if len(fields) != 4:
            return number, rows
        topic, docno, label, eq = fields
        if any(v == "" or CONTROL.search(v) for v in (topic, docno)):
            return number, rows
        found = LEVEL.fullmatch(label)
        if found is None or int(found.group(1)) > 127:
            return number, rows
        eq = eq.strip(" \t")
        if not re.fullmatch(r"[0-9]+", eq) or int(eq) < 1:
            return number, rows
        if docno in rows.get(topic, {}):
            return number, rows
        rows.setdefault(topic, {})[docno] = (int(found.group(1)), int(eq))
    return None, rows


def _ntcir_eval(program, rels: dict, ranking: dict, folder) -> dict:
    highest = max(lv for rel in rels.values() for lv, _ in rel.values())
    gains = ":".join(str(g) for g in range(1, max(highest, 1) + 1))
    out = {}
    for topic, rel in rels.items():
        erel, res = folder / "t.erel", folder / "t.res"
        erel.write_text("".join(f"{d};L{lv};{c}\n" for d, (lv, c) in rel.items()))
        res.write_text("".join(f"{d}\n" for d in ranking[topic]))
        labelled = subprocess.run([str(program), "label", "-ec", "-sep", ";", "-r", str(erel),
                                   str(res)], capture_output=True, text=True,
                                  check=True).stdout
        computed = subprocess.run([str(program), "compute", "-ec", "-sep", ";", "-r",
                                   str(erel), "-g", gains, "-cutoffs", "3,5"], input=labelled,
                                  capture_output=True, text=True).stdout
        values = dict(re.findall(r"^\s*(\S+)=\s+(\S+)$", computed, re.M))
        if values:
            out[topic] = values
    return out, highest


def _one_input(program, tmp_path, seed: int) -> str:
    rng = random.Random(seed)
    sep = rng.choice([";", ";", " "])
    path = tmp_path / f"{seed}.eqrels"
    path.write_bytes(_text(rng, sep).encode())
    bad, rels = _reference(path.read_bytes().decode(), sep)
    with warnings.catch_warnings(), time_limit(20):
        warnings.simplefilter("ignore")
        try:
            collection = xdiv.read_qrels(path, format="ntcir-eqrels",
                                         **({} if sep == ";" else {"sep": sep}))
        except XdivError as error:
            text = str(error)
            assert bad is not None and "\n" not in text, text
            assert text.startswith(f"{path}:{bad}: "), (text, bad)
            return "refused"
        assert bad is None
        for topic, rel in rels.items():
            docnos = [str(d) for d in collection["docno"].sel(topic=topic).values]
            levels = collection["level"].sel(topic=topic, intent="0").values
            classes = collection["eq_class"].sel(topic=topic).values
            got = {d: (int(lv), int(c)) for d, lv, c in zip(docnos, levels, classes) if d}
            assert got == rel, (topic, got, rel)
        written = tmp_path / f"{seed}.out.eqrels"
        ntcir.write_eqrels(written, collection, sep=sep)
        again = xdiv.read_qrels(written, format="ntcir-eqrels", sep=sep)
        assert again["eq_class"].equals(collection["eq_class"])
        assert again["level"].equals(collection["level"])
        ranking = {t: rng.sample(list(rel) + ["u1", "u2"], rng.randint(1, len(rel) + 2))
                   for t, rel in rels.items()}
        runs = pd.DataFrame([("r", t, d, float(len(ds) - k)) for t, ds in ranking.items()
                             for k, d in enumerate(ds)],
                            columns=["run", "topic", "docno", "score"])
        expected, highest = _ntcir_eval(program, rels, ranking, tmp_path)
        gains = f"gain=({','.join(str(g) for g in range(1, max(highest, 1) + 1))},)"
        names = {"AP": "EC-AP", "Q-measure": f"EC-Q({gains})",
                 "MSnDCG@0005": f"EC-nDCG({gains})@5", "P@0003": "EC-P@3"}
        score = xdiv.evaluate(xdiv.build_runs(runs), collection,
                              list(names.values()))["score"].sel(run="r")
        score = score.to_series().to_dict()  # by label, not a selection a cell (item 18)
        for topic, values in expected.items():
            for printed, name in names.items():
                mine = float(score[name, topic])
                assert abs(mine - float(values[printed])) <= 5e-5 + 1e-9, (
                    seed, topic, printed, values[printed], name, mine)
    return "accepted"


def _campaign(program, tmp_path, seeds) -> dict:
    outcomes = {"refused": 0, "accepted": 0}
    for seed in seeds:
        outcomes[_one_input(program, tmp_path, seed)] += 1
    return outcomes


def test_eqrels_quick(ntcireval_folder, tmp_path):
    """12 seeded eqrels files."""
    outcomes = _campaign(ntcireval_folder / "ntcir_eval", tmp_path, range(12))
    assert outcomes["refused"] >= 2 and outcomes["accepted"] >= 6, outcomes


@pytest.mark.slow
def test_eqrels_campaign(ntcireval_folder, tmp_path):
    """100 seeded eqrels files."""
    outcomes = _campaign(ntcireval_folder / "ntcir_eval", tmp_path, range(1000, 1100))
    assert outcomes["refused"] >= 20 and outcomes["accepted"] >= 50, outcomes
