"""Fuzzing ``xdiv trec_eval``'s option values against trec_eval 10.0 (built from the
reference tarball; skipped without it, make or a C compiler).

Each input is a command line of random option values -- blanks before or after, signs,
exponents, hexadecimal, empty values, garbage, numbers beyond a ``long``, comma lists
with blanks -- for ``-M``, ``-l``, ``-N`` and the parameters of ``-m`` (cutoffs, recall
levels, coefficients, gains), spelled as getopt allows (``-M 5``, ``-M5``,
``--Max_retrieved_per_topic=5``, ``--Max 5``), now and then with a bad option, a
missing value or ``-v``. xdiv answers in this process through the function the command
uses (:func:`xdiv.cli.trec_eval.trec_eval_command`, which tries the numpy-free path
first), the binary as a child process; standard output, standard error and exit status
are compared byte for byte. Where the numpy-free path answers, the full program must
print the same bytes too.

Two things are not compared byte for byte: trec_eval's usage text after a bad option
(its authors' prose; xdiv prints getopt's same line, then its own usage, and the same
status) and what xdiv refuses with one line and status 1 (``-l`` below 0, which trec_eval
computes with; ``-M`` below 0, on which it crashes or counts
a negative number of documents; cutoffs whose sort overflows trec_eval's
comparison; NaN cutoffs; gains that are not finite numbers; ``-l`` more than one above a
topic's highest level with bpref, where trec_eval reads past its array of level counts;
Rprec_mult multiples whose number of documents overflows a ``long``; rbp just after a
measure that leaves doubles where trec_eval 10.0's rbp reads its uninitialised gain
bounds), each counted and checked to be one of those.
"""

from __future__ import annotations

import random
import signal
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from xdiv.cli.trec_eval import trec_eval_arguments, trec_eval_command
from xdiv.official.trec_eval.lean import lean_run
from xdiv.official.trec_eval.tool import Outcome, trec_eval_run

from ..official.trec_eval.test_trec_eval_tool import read_once

CLEAN = (b"1 0 a 1\n1 0 b 0\n1 0 c 2\n1 0 d 1\n2 0 a 1\n2 0 e 3\n2 0 f 0\n3 0 g 1\n",
         b"".join(b"%d Q0 %s %d %s r1\n" % (t, d, k + 1, s) for t, docs in
                  ((1, b"abcxd"), (2, b"fyeza"), (3, b"gqh"))
                  for k, (d, s) in enumerate(zip((bytes([c]) for c in docs),
                                                 (b"3", b"2.5", b"2.5", b"1", b"0.5")))))
"""Files the numpy-free path answers on (with its measures)."""
MESSY = (b"1 0 a 1\n1 0 b -1\n1 0 c 2\n# note\n1 0 d 1\n2 0 a 1\n2 0 e 3\n4 0 z 1\n",
         b"1 Q0 a 1 3 r1\n1 Q0 b 2 0x2 r1\n\n1 Q0 c 3 2e0 r1 extra\n1 Q0 x 4 -1 r1\n"
         b"2 Q0 e 1 1 r1\n2 Q0 a 2 1 r1\n3 Q0 q 1 1 r1\n")
"""Files only the full program reads (a comment, a blank line, a topic the run lacks)."""

REFUSALS = {b"-l below 0": "level below 0", b"-M below 0": "max below 0",
            b"cutoffs as large as": "huge cutoffs", b"a NaN cutoff": "NaN cutoff",
            b"a gain that is not a finite number": "infinite gain",
            b"above a topic's highest level + 1": "level past the counts",
            b"whose number of documents overflows a long": "huge multiple",
            b"two variables it leaves uninitialised": "rbp after a measure"}
"""xdiv's documented refusals of option values, by the words of their message."""

BLANKS = ["", "", "", " ", "  ", "\t", " \t", "\n"]
BODIES = ["0", "1", "2", "3", "5", "7", "10", "12", "007", "100", "1000", "2147483647",
          "2147483648", "9223372036854775807", "99999999999999999999", "1e2", "1E1", "2e-1",
          "0x10", "0X1p2", "1.5", ".5", "0.25", "5.", "", "abc", "x7", "inf", "-inf", "nan",
          "infinity", "1,2", "+", "-", ".", "e5", "3 4", "1_000", "\u00e9"]
SIGNS = ["", "", "", "+", "-", "--", "+-"]
TRAILING = ["", "", "", " ", "x", "\t", ",", ".5", "e", "e+", "abc"]


def _number(rng: random.Random) -> str:
    return rng.choice(BLANKS) + rng.choice(SIGNS) + rng.choice(BODIES) + rng.choice(TRAILING)


def _list(rng: random.Random, count: int | None = None) -> str:
    count = count or rng.choice([1, 1, 2, 3, 4])
    return rng.choice([",", ",", ", ", " ,", ",\t"]).join(_number(rng) for _ in range(count))


def _pairs(rng: random.Random) -> str:
    keys = ["0", "1", "2", "3", " 1", "p", " p", "-1", "+2", "x", "", "1 "]
    return ",".join(f"{rng.choice(keys)}={_number(rng)}" for _ in range(rng.randint(1, 3)))


MEASURES = {
    "P": lambda rng: _list(rng), "recall": lambda rng: _list(rng),
    "ndcg_cut": lambda rng: _list(rng), "map_cut": lambda rng: _list(rng),
    "success": lambda rng: _list(rng), "relative_P": lambda rng: _list(rng),
    "iprec_at_recall": lambda rng: _list(rng), "Rprec_mult": lambda rng: _list(rng),
    "11pt_avg": lambda rng: _list(rng), "utility": lambda rng: _list(rng, rng.choice([4, 4, 3])),
    "set_F": lambda rng: _number(rng), "relstring": lambda rng: rng.choice(
        [" 3", "2", "+1", "0", "-1", "", "x", "1e1"]),
    "ndcg": _pairs, "rbp": _pairs, "G": _pairs, "ndcg_rel": _pairs, "Rndcg": _pairs,
    "unj": lambda rng: _list(rng),
}
LONG_SPELLINGS = {"-M": ["--Max_retrieved_per_topic", "--Max", "--M"],
                  "-l": ["--level_for_rel", "--level", "--l"],
                  "-N": ["--Number_docs_in_coll", "--Number", "--N"],
                  "-m": ["--measure", "--meas", "--me"]}


def _option(rng: random.Random, letter: str, value: str) -> list[str]:
    form = rng.random()
    if form < 0.5:
        return [letter, value]
    if form < 0.7 and value:
        return [letter + value]
    long = rng.choice(LONG_SPELLINGS[letter])
    return [f"{long}={value}"] if rng.random() < 0.5 else [long, value]


def random_command(rng: random.Random, files: tuple[str, str]) -> list[str]:
    """A command line: a few flags, numbers and measures with random values, and the two
    files, shuffled as getopt permits (options may follow the file names)."""
    parts: list[list[str]] = []
    for letter in ("-M", "-l", "-N"):
        if rng.random() < 0.45:
            parts.append(_option(rng, letter, _number(rng)))
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        name = rng.choice(sorted(MEASURES))
        value = f"{name}.{MEASURES[name](rng)}" if rng.random() < 0.9 else name
        parts.append(_option(rng, "-m", value))
    if any(p[0] in ("-N",) or p[0].startswith("--N") for p in parts) and rng.random() < 0.5:
        parts.append(["-m", "utility"])
    for flag in ("-q", "-c", "-n", "-J"):
        if rng.random() < 0.3:
            parts.append([flag])
    odd = rng.random()
    if odd < 0.02:
        parts.append(["-v"])
    elif odd < 0.04:
        parts.append([rng.choice(["-x", "--nosuch", "--Re", "-W"])])
    rng.shuffle(parts)
    words = [w for p in parts for w in p]
    if odd > 0.98:
        return [*words, files[0], files[1], rng.choice(["-M", "-m", "-l"])]  # no value
    at = rng.randint(0, len(words))
    return [*words[:at], files[0], *words[at:], files[1]]


def _binary(binary: Path, args: list[str]) -> Outcome:
    proc = subprocess.run(["trec_eval", *args], executable=str(binary), capture_output=True,
                          timeout=30)
    return Outcome(proc.stdout, proc.stderr, proc.returncode)


class _Hang(Exception):
    pass


def _ours(args: list[str]) -> Outcome:
    """``trec_eval_command(args)``, stopped after 20 seconds."""
    def alarm(signum, frame):
        raise _Hang(" ".join(args))

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(20)
    try:
        return trec_eval_command(args)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def campaign(binary: Path, folder: Path, seed: int, count: int, monkeypatch) -> dict[str, int]:
    """``count`` random command lines of seed ``seed``, each compared with the binary;
    the tally of how they compared. The full program reads each of the two pairs of
    files once (their bytes and the version do not change)."""
    read_once(monkeypatch)
    paths = []
    for name, (qrels, run) in (("clean", CLEAN), ("messy", MESSY)):
        (folder / f"{name}.qrels").write_bytes(qrels)
        (folder / f"{name}.run").write_bytes(run)
        paths.append((str(folder / f"{name}.qrels"), str(folder / f"{name}.run")))
    rng = random.Random(seed)
    commands = [random_command(rng, paths[k % 2]) for k in range(count)]
    with ThreadPoolExecutor(max_workers=3) as pool:
        theirs_all = list(pool.map(lambda args: _binary(binary, args), commands))
    usage_theirs = _binary(binary, []).stderr
    usage_ours = trec_eval_command([]).stderr
    tally = {"same": 0, "usage": 0, "lean and full": 0}
    for args, theirs in zip(commands, theirs_all):
        ours = _ours(args)
        where = " ".join(map(repr, args))
        if ours.status == 1 and ours.stderr.startswith(b"xdiv trec_eval: "):
            kind = next((k for words, k in REFUSALS.items() if words in ours.stderr), None)
            assert kind is not None, f"an undocumented refusal of {where}: {ours.stderr!r}"
            assert ours.stderr.count(b"\n") == 1 and not ours.stdout
            tally[kind] = tally.get(kind, 0) + 1
            tally["refused, trec_eval crashed"] = tally.get("refused, trec_eval crashed", 0) \
                + (theirs.status < 0)
            continue
        if theirs.stderr.endswith(usage_theirs) and theirs.status == 1:
            assert ours.stderr.endswith(usage_ours), where
            assert theirs.stderr[:-len(usage_theirs)] == ours.stderr[:-len(usage_ours)], where
            assert ours.status == 1 and ours.stdout == theirs.stdout == b"", where
            tally["usage"] += 1
            continue
        assert ours == theirs, where
        tally["same"] += 1
        parsed = trec_eval_arguments(args)
        if not isinstance(parsed, Outcome):
            try:
                lean = lean_run(*parsed)
            except Exception as exc:  # the command would have shown it too
                raise AssertionError(f"lean path: {where}") from exc
            if lean is not None:
                assert lean == theirs and trec_eval_run(*parsed) == theirs, where
                tally["lean and full"] += 1
    return tally


@pytest.fixture(scope="module")
def trec_eval_10(trec_eval_build):
    return trec_eval_build("10.0")


def test_option_values_quick(trec_eval_10, tmp_path, monkeypatch):
    """100 command lines."""
    tally = campaign(trec_eval_10, tmp_path, seed=35, count=100, monkeypatch=monkeypatch)
    assert tally["same"] >= 60, tally


@pytest.mark.slow
def test_option_values_many(trec_eval_10, tmp_path, monkeypatch):
    """3,000 command lines."""
    tally = campaign(trec_eval_10, tmp_path, seed=3035, count=3000, monkeypatch=monkeypatch)
    assert tally["same"] >= 1800 and tally["lean and full"] >= 30, tally
