"""Fuzzing ``xdiv ntcir_eval`` against NTCIREVAL's ``ntcir_eval`` 190111 (built from its
tarball; skipped without it, make or gcc).

Each input is a random case of one subcommand (the generator of
tests/official/test_ntcir_eval.py) mutated: odd option values inserted anywhere on the
command line (zero, negative, infinite, huge, denormal, hexadecimal, garbage, empty,
separators such as a tab, ``L`` or ``%s``), line ends changed (CRLF, a trailing blank or
tab, blank lines). Each is checked for no traceback (xdiv answers in this process), no
hang (a time limit) and no silent wrong answer: standard output, standard error and exit
status equal the binary's, byte for byte, or xdiv refuses in one line with status 1,
only where ``ntcir_eval``'s behaviour is undefined (a cutoff that does not fit in a
``long``, a relevance level above those of ``-g``, a negative cutoff, a DIN flag read
before it is set), each refusal counted and checked to be one of those.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ..official.test_ntcir_eval import (SUBCOMMANDS, binary_runner, random_case, same_outcome,
                                        xdiv_outcome)
from ..helpers import time_limit

ODD_VALUES = ["0", "-1", "1", "2", "0.5", "inf", "-inf", "nan", "1e308", "1e-320", "abc", "",
              ".5x", "0x10", "-0", " 3", "99999999999999999999", ",", "\t", ";  ", "L",
              "%s%d"]
FLAGS = ["-beta", "-gamma", "-logb", "-rbp", "-rbup", "-truncate", "-L", "-cutoffs", "-sep",
         "-out", "-j", "-v", "-gap", "-ec"]
REFUSALS = (b"does not fit in a long", b"is negative", b"is above the",
            b"is read before it is set", b"of the DIN file is not positive")
"""xdiv's refusals (where ntcir_eval's behaviour is undefined), by their words."""


def _mutated(rng: random.Random, args: list[str], stdin: bytes) -> tuple[list[str], bytes]:
    for _ in range(rng.randrange(0, 3)):
        flag = rng.choice(FLAGS)
        extra = [flag] if flag in ("-j", "-v", "-gap", "-ec") else [flag, rng.choice(ODD_VALUES)]
        at = rng.randrange(1, len(args) + 1)
        args = args[:at] + extra + args[at:]
    if stdin and rng.random() < 0.2:
        stdin = stdin.replace(b"\n", rng.choice([b"\r\n", b" \n", b"\n\n", b"\t\n"]))
    return args, stdin


def _fuzz(folder: Path, tmp_path: Path, count: int, seed: int) -> dict[bytes, int]:
    """``count`` mutated inputs checked; how many xdiv refused, by refusal."""
    binary = binary_runner(folder)
    rng = random.Random(seed)
    refused: dict[bytes, int] = {}
    for k in range(count):
        command = rng.choice(SUBCOMMANDS)
        where = tmp_path / str(k)
        where.mkdir()
        args, stdin = _mutated(rng, *random_case(rng, where, command, binary))
        with time_limit(10):
            got = xdiv_outcome(args, stdin)
        expected = binary(args, stdin)
        if same_outcome(got, expected):
            continue
        out, err, status = got
        reason = next((r for r in REFUSALS if r in err), None)
        assert (out, status, err.count(b"\n"), reason is not None) == (b"", 1, 1, True), \
            (args, stdin[:200], expected, got)
        refused[reason] = refused.get(reason, 0) + 1
    return refused


def test_ntcir_eval_fuzz_quick(ntcireval_folder, tmp_path):
    """120 mutated inputs."""
    refused = _fuzz(ntcireval_folder, tmp_path, 120, 7)
    assert sum(refused.values()) < 30, refused


@pytest.mark.slow
def test_ntcir_eval_fuzz(ntcireval_folder, tmp_path):
    """2,000 mutated inputs."""
    refused = _fuzz(ntcireval_folder, tmp_path, 2000, 36)
    assert sum(refused.values()) < 400, refused
