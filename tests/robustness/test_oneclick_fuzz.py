"""Fuzzing xdiv.oneclick's readers and evaluate (issue 36 item 5): seeded random 1CLICK
files, valid ones and ones damaged in every way a line can be (fields missing or added,
numbers that are not numbers, zero, negative or huge, control characters, CRLF and tab
separators, blank lines, nuggets given twice, unknown nuggets and questions, a missing or
second ``syslen=`` line, undecodable bytes).

Each input is checked for: no traceback (a damaged file raises one xdiv error of one
line naming the file, a valid one gives a cube), no hang (each evaluation within a few
seconds), no silent wrong value (every cube against the definitions, written again here
as plain Python over each question's lines, and its own invariants).
"""

from __future__ import annotations

import math
import random
import time
import warnings
from pathlib import Path

import pytest

from xdiv.errors import XdivError
from xdiv.oneclick import evaluate, read_matches

PRINTED = ("Recall", "W-recall", "S-measure", "S-flat", "T-measure", "T-flat", "F-flat")


def _nugget_lines(rng: random.Random) -> dict[str, list[tuple[str, float, int]]]:
    questions = {}
    for q in range(rng.randrange(1, 4)):
        ids = rng.sample(range(1, 30), rng.randrange(1, 8))
        questions[f"Q{q}"] = [(f"N{n}", rng.choice([1, 2, 3, 0.5, 2.25]),
                               rng.randrange(1, 60)) for n in ids]
    return questions


DAMAGES = ("drop field", "add field", "word", "zero", "negative", "huge", "control",
           "crlf", "tab", "blank", "twice", "unknown nugget", "unknown question",
           "no syslen", "second syslen", "bytes")


def _damaged(rng: random.Random, lines: list[str]) -> tuple[list[str], str]:
    """``lines`` with one random damage; its name."""
    damage = rng.choice(DAMAGES)
    if not lines:
        return lines, "none"
    k = rng.randrange(len(lines))
    fields = lines[k].split(" ")
    if damage == "drop field":
        fields.pop(rng.randrange(len(fields)))
    elif damage == "add field":
        fields.append("extra")
    elif damage in ("word", "zero", "negative", "huge"):
        fields[-1] = {"word": "abc", "zero": "0", "negative": "-3",
                      "huge": "9" * rng.choice([19, 30, 5000])}[damage]
    elif damage == "control":
        fields[0] += "\x1b"
    elif damage == "crlf":
        fields[-1] += "\r"
    elif damage == "tab":
        fields = ["\t".join(fields)]
    elif damage == "blank":
        lines.insert(k, "   ")
    elif damage == "twice":
        lines.append(lines[k])
    elif damage == "unknown nugget" and len(fields) == 3 and fields[1] != "syslen=":
        fields[1] = "N999"
    elif damage == "unknown question":
        fields[0] = "QX"
    elif damage == "no syslen":
        lines[:] = [line for line in lines if "syslen=" not in line] + [""]
        return lines, damage
    elif damage == "second syslen":
        lines.append(f"{fields[0]} syslen= 3")
    elif damage == "bytes":
        lines.append("\udcff")
    lines[k] = " ".join(fields)
    return lines, damage


def _write(path: Path, lines: list[str]) -> None:
    path.write_bytes("".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape"))


def _reference(nuggets: list[tuple[str, float, int]], length: int,
               matched: dict[str, int], L: int, beta: float) -> dict[str, float]:
    """The measures of one question, from the definitions, in plain Python."""
    weight = {n: w for n, w, _ in nuggets}
    vital = {n: v for n, _, v in nuggets}
    minimal, end = 0.0, 0
    for n, w, v in sorted(nuggets, key=lambda x: (-x[1], x[2])):
        end += v
        minimal += w * max(0, L - end)
    gained = sum(weight[n] * max(0, L - o) for n, o in matched.items())
    s = gained / minimal if minimal else (math.inf if gained else math.nan)
    s_flat = 1.0 if gained > minimal else s
    concentration = sum(vital[n] for n in matched)
    t = concentration / length if length else 0.0
    t_flat = min(1.0, t)
    square = beta * beta
    if s_flat > 0 or t_flat > 0:
        f = ((1 + square) * t_flat * s_flat / (square * t_flat + s_flat)
             if square * t_flat + s_flat else math.nan)
    else:
        f = 0.0
    return {"Recall": len(matched) / len(nuggets),
            "W-recall": sum(weight[n] for n in matched) / sum(weight.values()),
            "S-measure": s, "S-flat": s_flat, "T-measure": t, "T-flat": t_flat, "F-flat": f}


def _close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= 1e-9 * max(1.0, abs(b))


def _one(rng: random.Random, folder: Path) -> str:
    """Evaluate one random input; what happened."""
    questions = _nugget_lines(rng)
    nugget_lines = [f"{q} {n} {w} {v}" for q, rows in questions.items() for n, w, v in rows]
    runs = {}
    for r in range(rng.randrange(1, 3)):
        lines = []
        for q, rows in questions.items():
            if rng.random() < 0.15:
                continue
            lines.append(f"{q} syslen= {rng.choice([0, rng.randrange(1, 400)])}")
            lines += [f"{q} {n} {rng.randrange(0, 500)}"
                      for n, _, _ in rng.sample(rows, rng.randrange(0, len(rows) + 1))]
        runs[f"R{r}"] = lines
    damage = "none"
    if rng.random() < 0.6:
        if rng.random() < 0.4:
            nugget_lines, damage = _damaged(rng, nugget_lines)
        else:
            run = rng.choice(list(runs))
            runs[run], damage = _damaged(rng, runs[run])
    _write(folder / "nuggets", nugget_lines)
    for run, lines in runs.items():
        _write(folder / run, lines)
    L, beta = rng.choice([1, 10, 100, 500]), rng.choice([1.0, 0.0, 2.0])
    started = time.monotonic()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scores = evaluate(folder / "nuggets", read_matches(
                [folder / r for r in runs], folder / "nuggets"), L=L, beta=beta)
    except XdivError as error:
        message = str(error)
        assert "\n" not in message and str(folder) in message, (damage, message)
        return "refused"
    finally:
        assert time.monotonic() - started < 10, damage
    _check(scores, folder, L, beta)
    return "scored"


def _check(scores, folder: Path, L: int, beta: float) -> None:
    """The cube against :func:`_reference`, from the files as written (the damages that
    are read: blank lines, CRLF, tabs, an extra nugget field, lines of other questions,
    a nugget listed twice alike, a nugget matched twice)."""
    questions: dict[str, list[tuple[str, float, int]]] = {}
    for line in (folder / "nuggets").read_text().splitlines():
        fields = line.split()
        if fields and fields[1] not in {n for n, _, _ in questions.get(fields[0], [])}:
            questions.setdefault(fields[0], []).append(
                (fields[1], float(fields[2]), int(fields[3])))
    values = scores["score"].transpose("run", "topic", "metric").values
    where = {str(t): k for k, t in enumerate(scores["topic"].values)}
    assert list(scores["metric"].values) == list(PRINTED) and set(where) == set(questions)
    for r, run in enumerate(scores["run"].values):
        length: dict[str, int] = {}
        matched: dict[str, dict[str, int]] = {}
        for line in (folder / run).read_text().splitlines():
            fields = line.split()
            if not fields or fields[0] not in questions:
                continue
            if fields[1] == "syslen=":
                length[fields[0]] = int(fields[2])
            else:
                found = matched.setdefault(fields[0], {})
                found[fields[1]] = min(found.get(fields[1], math.inf), int(fields[2]))
        for topic, nuggets in questions.items():
            expected = _reference(nuggets, length.get(topic, 0), matched.get(topic, {}), L,
                                  beta)
            for m, measure in enumerate(PRINTED):
                got = float(values[r, where[topic], m])
                assert _close(got, expected[measure]), (run, topic, measure, got,
                                                        expected[measure])
                if measure in ("Recall", "W-recall", "T-flat"):
                    assert 0 <= got <= 1


def _campaign(seed: int, count: int, folder: Path) -> dict[str, int]:
    rng = random.Random(seed)
    outcomes: dict[str, int] = {}
    for k in range(count):
        case = folder / f"case{k}"
        case.mkdir()
        outcome = _one(rng, case)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    return outcomes


def test_oneclick_fuzz_quick(tmp_path):
    """40 inputs."""
    outcomes = _campaign(361, 40, tmp_path)
    assert outcomes.get("refused", 0) >= 5 and outcomes.get("scored", 0) >= 15


@pytest.mark.slow
def test_oneclick_fuzz_campaign(tmp_path):
    """500 inputs."""
    outcomes = _campaign(3605, 500, tmp_path)
    assert outcomes.get("refused", 0) > 75 and outcomes.get("scored", 0) > 175
