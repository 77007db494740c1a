"""Whole-process timing shared by the benchmarks that run each tool as its own program.

Each job is a command line run under GNU ``time`` (Debian package ``time``): wall seconds,
CPU seconds (user + system, children included) and peak resident memory of the whole
process, start-up and imports included. The scripts of ``peers/`` print ``run topic
measure value`` lines, which :func:`agreement` compares between tools.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PEERS = Path(__file__).resolve().parent / "peers"
GNU_TIME = "/usr/bin/time"


def script(name: str, *args: str) -> list[str]:
    """The command line running ``peers/NAME.py`` with ``args``."""
    return [sys.executable, str(PEERS / f"{name}.py"), *args]


def environment() -> dict:
    """The environment of the jobs: this checkout's xdiv first on the path, its bytecode
    compiled (as pip compiles an installed package), warnings silenced."""
    if not os.access(GNU_TIME, os.X_OK):
        raise SystemExit("GNU time is needed for the CPU time and peak memory: "
                         "apt-get install time")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "xdiv")],
                   check=True, stdout=subprocess.DEVNULL)
    return {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "ignore"}


def timed(argv: list[str], output: Path, env: dict) -> dict:
    """Run ``argv`` once, its standard output to ``output``: ``wall`` and ``cpu`` seconds
    and ``peak`` resident MiB of the process."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report, open(output, "w") as out:
        proc = subprocess.run([GNU_TIME, "-o", report.name, "-f", "%e %U %S %M", *argv],
                              stdout=out, stderr=subprocess.PIPE, text=True, env=env)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {proc.stderr[-500:]}")
        wall, user, system, peak = report.read().split()[-4:]
    return {"wall": float(wall), "cpu": float(user) + float(system),
            "peak": int(peak) / 1024}


def measure(jobs: dict[str, list[str]], folder: Path, repeat: int, env: dict) -> dict:
    """Run every job ``repeat`` times, the jobs alternating (a noisy moment hurts them
    alike); per job the shortest wall and CPU times, the median peak and the output file
    of its last run."""
    runs: dict[str, list[dict]] = {name: [] for name in jobs}
    for _ in range(repeat):
        for name, argv in jobs.items():
            runs[name].append(timed(argv, folder / f"{name}.tsv", env))
    return {name: {"wall": min(r["wall"] for r in done), "cpu": min(r["cpu"] for r in done),
                   "peak": statistics.median(r["peak"] for r in done),
                   "output": folder / f"{name}.tsv"} for name, done in runs.items()}


def read_scores(path: Path) -> dict[tuple[str, str, str], float]:
    """The ``run topic measure value`` lines of a job's output."""
    scores = {}
    with open(path) as fh:
        for line in fh:
            run, topic, measure, value = line.rstrip("\n").split("\t")
            scores[run, topic, measure] = float(value)
    return scores


def agreement(ours: Path, theirs: Path) -> str:
    """How two jobs' outputs agree: cells in common, cells of one only, largest
    difference and cells differing by more than 1e-6."""
    a, b = read_scores(ours), read_scores(theirs)
    common = a.keys() & b.keys()
    diffs = [abs(a[k] - b[k]) for k in common]
    return (f"{len(common)} cells in common, {len(a.keys() ^ b.keys())} in one only, "
            f"max difference {max(diffs, default=0.0):.2g}, "
            f"{sum(d > 1e-6 for d in diffs)} differ by more than 1e-6")


def table(results: dict, base: str, note: dict | None = None) -> None:
    """Print the jobs' times and peaks as a Markdown table, with ``base``'s wall, CPU and
    peak over each job's (so that a ratio above 1 is that much faster or leaner)."""
    note = note or {}
    ref = results[base]
    print(f"| job | wall | CPU | peak RSS | {base}'s wall / job's | CPU ratio | "
          f"job's peak / {base}'s |")
    print("|---|---|---|---|---|---|---|")
    for name, r in results.items():
        print(f"| {name}{note.get(name, '')} | {r['wall']:.2f} s | {r['cpu']:.2f} s | "
              f"{r['peak']:.0f} MiB | {ref['wall'] / r['wall']:.2f}× | "
              f"{ref['cpu'] / r['cpu']:.2f}× | {r['peak'] / ref['peak']:.2f}× |", flush=True)
