"""Seeded random TREC-format runs split by topic by xdiv (``split_run``, the work of
NTCIREVAL's ``TRECsplitruns`` in ``xdiv ntcireval``) and by the ``TRECsplitruns`` script
itself (gawk's ``$1`` and ``$3``, then ``head``): every topic's ``res`` file has the same
bytes (issue 36, the pipelines made faster). xdiv reads a run by blocks of consecutive
lines of one topic, so the runs have topics in blocks and interleaved, topics that are
prefixes of one another, leading, repeated and trailing blanks and tabs, lines of fewer
than three fields, blank lines, carriage returns, and a last line with or without its
newline; the doclimit varies."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from xdiv.official.ntcireval.pipelines import split_run

from ..helpers import time_limit

TOPICS = ["1", "10", "01", "1a", "T7"]
"""The topics asked for (a topic list has no blank line)."""


def _run(rng: random.Random) -> bytes:
    """A run of blocks of lines, each block one first field (a topic, another field or
    none), the same topic possibly in several blocks."""
    lines = []
    for _ in range(rng.randint(0, 6)):
        first = rng.choice([*TOPICS, "", "2", "1\r"])
        for _ in range(rng.randint(0, 8)):
            fields = [first] + [rng.choice(["Q0", "d1", "d2", "d3", "d4\r", "\r", "7"])
                                for _ in range(rng.randint(0, 5))]
            line = rng.choice(["", "", "", " ", "\t", " \t"]) + fields[0]
            for field in fields[1:]:
                line += rng.choice([" ", " ", "\t", "  ", " \t "]) + field
            lines.append(line + rng.choice(["", "", "", " ", "\t"]))
    return ("\n".join(lines) + rng.choice(["", "\n", "\n", "\n\n"])).encode()


def _check(ntcireval_folder: Path, tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    run, limit = _run(rng), rng.choice([1, 2, 3, 5, 1000])
    topics = rng.sample(TOPICS, rng.randint(1, len(TOPICS)))
    folder = tmp_path / f"case{seed}"
    folder.mkdir()
    (folder / "RUN").write_bytes(run)
    (folder / "tids").write_text("".join(f"{topic}\n" for topic in topics))
    subprocess.run(["sh", str(ntcireval_folder / "TRECsplitruns"), "tids", str(limit)],
                   cwd=folder, env={**os.environ, "LC_ALL": "C"}, input=b"RUN\n",
                   check=True, capture_output=True, timeout=60)
    with time_limit(10):
        ours = split_run(run, [topic.encode() for topic in topics], limit)
    for topic in topics:
        expected = (folder / topic / f"{topic}.RUN.res").read_bytes()
        assert ours[topic.encode()] == expected, (seed, run, topic, limit)


@pytest.fixture
def scripts(ntcireval_folder) -> Path:
    if shutil.which("gawk") is None:
        pytest.skip("NTCIREVAL's scripts need gawk")
    return ntcireval_folder


def test_split_runs_quick(scripts, tmp_path):
    """20 seeded runs (a few seconds)."""
    for seed in range(20):
        _check(scripts, tmp_path, seed)


@pytest.mark.slow
def test_split_runs(scripts, tmp_path):
    """300 more seeded runs."""
    for seed in range(20, 320):
        _check(scripts, tmp_path, seed)
