"""The streaming evaluation (xdiv.engine.evaluate_files) holds a bounded number of
blocks: its peak resident memory does not grow with the number of run files (issue 39:
the streaming peak must stay the same from 10 M to 100 M run lines)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

TOPICS, DEPTH, POOL = 100, 500, 1500

CHILD = """
import json, sys, warnings
import xdiv
warnings.simplefilter("ignore", xdiv.XdivWarning)
qrels, files = json.loads(sys.argv[1])
scores = xdiv.evaluate_files(files, xdiv.read_qrels(qrels), ["nDCG(gain=linear)@10", "AP"],
                             block=1)
assert scores.sizes["run"] == len(files)
peak = [line for line in open("/proc/self/status") if line.startswith("VmHWM")][0]
print(int(peak.split()[1]) // 1024)
"""


def _write(folder, n_runs: int) -> tuple[str, list[str]]:
    """Qrels and ``n_runs`` run files of TOPICS x DEPTH lines (docnos from a pool of
    POOL per topic, a third of them judged; scores with ties)."""
    rng = np.random.default_rng(39)
    pool = np.array([[f"d{t:03d}-{k:05d}" for k in range(POOL)] for t in range(TOPICS)])
    qrels = folder / "qrels.txt"
    with open(qrels, "w") as fh:
        for t in range(TOPICS):
            for k in rng.choice(POOL, POOL // 3, replace=False):
                fh.write(f"{t + 1} 0 {pool[t, k]} {rng.integers(0, 4)}\n")
    paths = []
    for r in range(n_runs):
        docs = np.argsort(rng.random((TOPICS, POOL)), axis=1)[:, :DEPTH]
        score = np.sort(np.round(rng.gamma(2.0, 2.0, (TOPICS, DEPTH)), 1), axis=1)[:, ::-1]
        path = folder / f"run{r:03d}.txt"
        with open(path, "w") as fh:
            fh.writelines(f"{t + 1} Q0 {pool[t, docs[t, k]]} {k + 1} {score[t, k]} r{r}\n"
                          for t in range(TOPICS) for k in range(DEPTH))
        paths.append(str(path))
    return str(qrels), paths


def _peak(qrels: str, files: list[str]) -> int:
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps([qrels, files])],
                          capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    return int(done.stdout.split()[-1])


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_stream_peak_does_not_grow_with_files(tmp_path):
    # 8 files, then 32 (1.6 M lines): the 24 more files' lines (about 1.2 M, over 100 MiB
    # as parsed columns, codes, grids and judged cubes) must not be held at once
    qrels, files = _write(tmp_path, 32)
    few, many = _peak(qrels, files[:8]), _peak(qrels, files)
    assert many - few < 40, (few, many)
