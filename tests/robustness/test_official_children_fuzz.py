"""Fuzz campaigns for ``xdiv ndeval`` and ``xdiv gdeval``: scoring children killed at
random moments, and random spellings of the rank field against the tools themselves.

Killed children: the plain path scores run files in forked children (one share each, or
one child reading a single run while the parent reads the qrels). Children are killed
(SIGKILL) before, while or after sending their result; the command must then score
their share itself and print what an unkilled run prints, to the byte, never a
traceback, never hang (each child is waited for; a hang would stop the test).

Rank spellings: runs whose rank fields are spelt at random (signs, a missing field,
huge numbers, beyond 64-bit integers too, leading zeros, points, exponents, letters),
now and then with a rank given twice in a topic, a blank line or no line feed after the
last line, are given to TREC's ndeval (compiled from pyndeval's source distribution)
and to the gdeval.pl that ir_measures ships, and to ``xdiv ndeval`` and ``xdiv gdeval``
in this process, on the plain path (LF) and the general one (CRLF): standard output and
exit status are the same; standard error is empty for both (but for xdiv's warning
about a run that retrieved no judged document), or is the tool's message, which xdiv
prints on one line after ``xdiv: error: `` and before its reason in parentheses. Files
the tool read are given to xdiv a hundred at a time (one block each), the others one at
a time. The quick variants run a few inputs; the slow ones 1,000 rank inputs (each on
both paths) and 40 killed-children cases (``@slow``).
"""

from __future__ import annotations

import functools
import os
import random
import signal
import subprocess
from pathlib import Path

import pytest

from xdiv import cli
from xdiv.cli import main
from xdiv.official import plain
from xdiv.official.ndeval_tool import report

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the children are forked")

QRELS = "1 1 a 1\n1 2 b 1\n1 1 c 0\n1 2 d 1\n2 1 e 1\n2 2 f 1\n3 1 g 1\n3 2 h 1\n"
ADHOC = "1 0 a 2\n1 0 b 1\n1 0 d 3\n2 0 e 1\n2 0 f 4\n3 0 g 1\n3 0 h 2\n"
DOCS = {"1": "abcdxy", "2": "efz", "3": "ghw"}


def _xdiv(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


# ------------------------------------------------------------------ killed children

def _killing(monkeypatch, rng: random.Random, doomed: set[int]) -> None:
    """Children numbered in ``doomed`` (in the order forked, from 0) kill themselves at a
    moment drawn for each: ``before`` sending their result, ``while`` sending it (a random
    part sent) or ``after`` (all sent, the child not yet ended)."""
    parent, real_fork, real_fdopen = os.getpid(), os.fork, os.fdopen
    forked = [0]
    plan = {k: (rng.choice(["before", "while", "after"]), rng.random()) for k in doomed}
    mine: list = [None]

    def fork():
        number = forked[0]
        forked[0] += 1
        pid = real_fork()
        if pid == 0:
            mine[0] = plan.get(number)
        return pid

    class Dying:
        def __init__(self, handle, moment, part):
            self.handle, self.moment, self.part = handle, moment, part

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()
            os.kill(os.getpid(), signal.SIGKILL)

        def write(self, data):
            if self.moment == "before":
                os.kill(os.getpid(), signal.SIGKILL)
            cut = int(len(data) * self.part) if self.moment == "while" else len(data)
            self.handle.write(data[:cut])
            self.handle.flush()
            if self.moment == "while":
                os.kill(os.getpid(), signal.SIGKILL)

    def fdopen(fd, mode="r", *args, **kwargs):
        handle = real_fdopen(fd, mode, *args, **kwargs)
        if os.getpid() != parent and "w" in mode and mine[0] is not None:
            return Dying(handle, *mine[0])
        return handle

    monkeypatch.setattr(os, "fork", fork)
    monkeypatch.setattr(os, "fdopen", fdopen)


def _random_runs(rng: random.Random, folder: Path, count: int) -> list[Path]:
    paths = []
    for k in range(count):
        name = f"run{rng.randrange(100)}x{k}"
        lines = []
        for topic, docs in DOCS.items():
            if rng.random() < 0.2:
                continue
            chosen = rng.sample(docs, rng.randint(1, len(docs)))
            ranks = rng.sample(range(1, 40), len(chosen))
            lines += [f"{topic} Q0 {d} {r} {rng.choice([1, 2, 3, 2.5])} {name}\n"
                      for d, r in zip(chosen, ranks)]
        if not lines:
            lines = [f"1 Q0 a 1 1 {name}\n"]
        paths.append(folder / name)
        paths[-1].write_text("".join(lines))
    return paths


def _children_campaign(cases: int, seed: int, tmp_path, capsys, monkeypatch) -> None:
    rng = random.Random(seed)
    for case in range(cases):
        folder = tmp_path / f"c{case}"
        folder.mkdir()
        command = rng.choice(["ndeval", "gdeval"])
        qrels = folder / "q"
        qrels.write_text(QRELS if command == "ndeval" else ADHOC)
        runs = _random_runs(rng, folder, rng.choice([1, 2, 3, 5, 8]))
        cores = rng.randint(2, 5)
        flags = rng.choice([[], ["-c"]] + ([["-traditional"]] if command == "ndeval" else []))
        with monkeypatch.context() as patch:
            # what an unkilled run must print: what the command prints scoring every file
            # itself, without forking (issue 35 item 18: forks are the CPU of this test)
            patch.setattr(plain, "_cores", lambda: 1)
            expected = _xdiv(capsys, command, *flags, qrels, *runs)
            patch.setattr(plain, "_cores", lambda: cores)
            children = 1 if len(runs) == 1 else min(len(runs), cores) - 1
            doomed = {k for k in range(children) if rng.random() < 0.7} or {0}
            _killing(patch, rng, doomed)
            got = _xdiv(capsys, command, *flags, qrels, *runs)
        assert expected[0] == 0 and "Traceback" not in got[2], (seed, case)
        assert got == expected, (seed, case, command, flags, len(runs), cores, doomed)


def test_killed_children_quick(tmp_path, capsys, monkeypatch):
    _children_campaign(6, 1, tmp_path, capsys, monkeypatch)


@pytest.mark.slow
def test_killed_children_campaign(tmp_path, capsys, monkeypatch):
    """40 cases."""
    _children_campaign(40, 2, tmp_path, capsys, monkeypatch)


# ------------------------------------------------------------------ rank spellings

HUGE = [999999, 1000000, 1000009, 1000010, 1000099, 9999999, 2 ** 31 - 1, 2 ** 31,
        10 ** 11 - 1, 2 ** 63 - 4, 2 ** 63, 2 ** 64 - 2, 10 ** 30]
"""Rank values about the largest ndeval reads (1000009), C's 32-bit integers and 64-bit
integers (gdeval.pl reads any digits)."""


def _spelling(rng: random.Random, value: int) -> str | None:
    """``value`` spelt at random; None: the field left out (a blank)."""
    kind = rng.random()
    if kind < 0.5:
        return str(value)
    if kind < 0.7:
        return "0" * rng.randint(1, 25) + str(value)
    if kind < 0.8:
        return rng.choice(["+", "-"]) + str(value)
    if kind < 0.85:
        return None
    return rng.choice([f"{value}.0", f"{value}e0", f"0x{value}", f"{value}a", "x", "-0", "+0",
                       f"{value}-", f".{value}", f"{value}.", "--1", "\u0661"])


def _rank_case(rng: random.Random, tag: str) -> str:
    """A run of topics 1-3 tagged ``tag``, with scores falling with the rank (no rank
    disagreement to warn about): ranks mostly distinct within a topic, some of them
    huge; in three files out of ten, ranks spelt at random on some lines; now and then a
    rank given twice in a topic (ndeval refuses it, gdeval reads it), a blank line, or no
    line feed after the last line."""
    lines = []
    wild, twice = rng.random() < 0.3, rng.random() < 0.08
    for topic, docs in DOCS.items():
        chosen = rng.sample(docs, rng.randint(1, len(docs)))
        values = sorted({rng.choice(HUGE) + rng.randrange(4) if rng.random() < 0.05
                         else rng.randrange(60) for _ in chosen})
        if twice and len(values) > 1 and rng.random() < 0.5:
            values[1] = values[0]
        for score, (d, value) in enumerate(zip(chosen, values)):
            spelt = _spelling(rng, value) if wild and rng.random() < 0.3 else str(value)
            fields = [topic, "Q0", d] + ([] if spelt is None else [spelt])
            lines.append(" ".join(fields + [str(100 - score), tag]) + "\n")
    if rng.random() < 0.03:
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(["\n", " \n", "\t\n"]))
    text = "".join(lines)
    return text[:-1] if rng.random() < 0.2 else text


def _tool_message(stderr: str) -> str:
    """The tool's message, without its program name: its last line (gdeval.pl's perl
    warns first of a field it cannot read)."""
    return stderr.strip().splitlines()[-1].split(": ", 1)[1]


def _run_tool(command: str, tool: list, qrels: Path, run: Path):
    args = [*tool, qrels, run] + ([] if command == "ndeval" else [20])
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=60)


def _compare(command: str, theirs, qrels: Path, plain_file: Path, capsys,
             unjudged: bool = False) -> None:
    """One run file (and its CRLF twin, the general path) through xdiv, against what the
    tool did with it (``theirs``): the same output and status, or the tool's message.
    A run that retrieved no judged document is scored as the tool scores it, and xdiv
    (not the tool) warns that it retrieved none (``unjudged``)."""
    for run in (plain_file, plain_file.with_suffix(".crlf")):
        status, out, err = _xdiv(capsys, command, qrels, run)
        text = plain_file.read_text()
        assert status == theirs.returncode, (text, run.name, err, theirs.stderr)
        if theirs.returncode:
            assert out == theirs.stdout == ""
            line, = err.splitlines()
            said = _tool_message(theirs.stderr).replace(str(plain_file), str(run))
            assert line.startswith(f"xdiv: error: {said} ("), (text, line, said)
        else:
            assert theirs.stderr == "", text
            if unjudged:
                warning, = err.splitlines()
                assert warning.startswith("xdiv: warning: 1 run(s) retrieved no judged "
                                          "document") and warning.endswith(
                                              f": {plain_file.name}"), (text, err)
            else:
                assert err == "", (text, err)
            shown = out if command == "ndeval" else "".join(out.splitlines(True)[:-1])
            assert shown == theirs.stdout, text


def _compare_read(command: str, files: list[Path], outputs: dict, qrels: Path,
                  capsys) -> None:
    """Run files the tool read, given to xdiv together (one block per file, in the order
    of their tags, which is theirs): the tool's outputs one after the other (xdiv adds
    gdeval's ``amean`` lines, which this gdeval.pl leaves out), no word on standard error.
    A batch that differs is compared a file at a time, to name the file."""
    for batch in (files[k:k + 100] for k in range(0, len(files), 100)):
        status, out, err = _xdiv(capsys, command, qrels, *batch)
        if command == "gdeval":
            out = "".join(line for line in out.splitlines(True) if ",amean," not in line)
        expected = "".join(outputs[f.stem][1].stdout for f in batch)
        if (status, out, err) != (0, expected, ""):
            for f in batch:
                _compare(command, outputs[f.stem][1], qrels, outputs[f.stem][0], capsys)
            raise AssertionError(("a batch differs, its files do not", batch))


def _rank_campaign(inputs: int, seed: int, ndeval_program, gdeval_pl, tmp_path, capsys,
                   monkeypatch) -> dict:
    """``inputs`` run files, half to each tool, each also with CRLF line ends; what
    happened to them (command, read or refused) with the count of each."""
    from xdiv.official.plain_input import read_plain_run

    # the argument parser built once, and the plain path in this process alone (the
    # killed children above fork): tens of milliseconds less for each command
    monkeypatch.setattr(cli, "parser", functools.cache(cli.parser))
    monkeypatch.setattr(plain, "_cores", lambda: 1)
    # the two qrels files, which never change, read once (a copy given to each command):
    # the inputs are the runs (issue 35 item 18)
    read_qrels = functools.cache(report.read_tool_qrels)
    monkeypatch.setattr(report, "read_tool_qrels",
                        lambda path: read_qrels(path).copy(deep=True))
    rng = random.Random(seed)
    qrels = {"ndeval": tmp_path / "q", "gdeval": tmp_path / "adhoc"}
    qrels["ndeval"].write_text(QRELS)
    qrels["gdeval"].write_text(ADHOC)
    judged = {command: {tuple(line.split()[::2]) for line in text.splitlines()}
              for command, text in (("ndeval", QRELS), ("gdeval", ADHOC))}
    tools = {"ndeval": [ndeval_program], "gdeval": ["perl", gdeval_pl]}
    outputs, read = {}, {("ndeval", True): [], ("ndeval", False): [], ("gdeval", True): [],
                         ("gdeval", False): []}
    seen: dict = {}
    for k in range(inputs):
        command = "ndeval" if k % 2 == 0 else "gdeval"
        tag = f"r{k:05d}"
        text = _rank_case(rng, tag)
        run = tmp_path / tag
        run.write_bytes(text.encode())
        run.with_suffix(".crlf").write_bytes(text.replace("\n", "\r\n").encode())
        theirs = _run_tool(command, tools[command], qrels[command], run)
        outputs[tag] = (run, theirs)
        what = "refused" if theirs.returncode else "read"
        seen[command, what] = seen.get((command, what), 0) + 1
        unjudged = not judged[command] & {tuple(line.split()[:3:2])
                                          for line in text.splitlines()}
        if theirs.returncode or unjudged:
            _compare(command, theirs, qrels[command], run, capsys, unjudged)
        else:  # plain files together, others together: a batch of both takes the
            # general path
            read[command, read_plain_run(run) is not None].append(run)
    for (command, _), files in read.items():
        _compare_read(command, files, outputs, qrels[command], capsys)
        _compare_read(command, [f.with_suffix(".crlf") for f in files], outputs,
                      qrels[command], capsys)
    return seen


def test_rank_spellings_quick(ndeval_program, gdeval_pl, tmp_path, capsys, monkeypatch):
    _rank_campaign(12, 3, ndeval_program, gdeval_pl, tmp_path, capsys, monkeypatch)


@pytest.mark.slow
def test_rank_spellings_campaign(ndeval_program, gdeval_pl, tmp_path, capsys, monkeypatch):
    """1,000 inputs, half to each tool, each on both paths."""
    seen = _rank_campaign(1000, 4, ndeval_program, gdeval_pl, tmp_path, capsys, monkeypatch)
    assert len(seen) == 4, seen  # both tools both read and refused inputs
