"""Benchmark: xdiv vs pytrec_eval vs ranx for nDCG@10 + AP, whole processes from files.

Usage: python benchmarks/bench_adhoc.py [--sizes small large] [--repeat 2]
                                        [--tools xdiv xdiv-stream pytrec_eval ranx]
                                        [--data DIR]

For each size the synthetic collection (xdiv.datasets.synthetic_frames, adhoc relevance by
max level, scores rounded to two decimals so that many tie) is written as TREC files (in
``--data``, kept and reused when given). Each tool then runs as its own process, the
small script of ``benchmarks/peers/`` that imports only that tool: it reads the files and
prints a per-topic table of nDCG@10 and AP. ``xdiv`` reads every run into memory
(``read_runs`` then ``evaluate``), ``xdiv-stream`` scores the files block by block
(``xdiv.evaluate_files``); pytrec_eval and ranx read and evaluate one run file at a time
with their own parsers. The jobs alternate ``--repeat`` times; GNU time gives each
process's wall time, CPU time (user + system) and peak resident memory (the shortest
times, the median peak). Printed: the table with each tool's ratios to pytrec_eval, the
peaks against the run files' size, and how the per-topic scores agree (xdiv's two paths
must be identical; pytrec_eval computes the same measures).

Conventions: trec_eval's nDCG uses linear gains, so every tool computes linear-gain nDCG
(xdiv: ``nDCG(gain=linear)@10``); AP is uncut (trec_eval's ``map``). ranx's numba
functions are compiled once, on the small files, before the timings.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import xdiv
from processes import agreement, environment, measure, script, table

SIZES = {"small": dict(n_topics=50, n_runs=20, depth=100),
         "large": dict(n_topics=200, n_runs=50, depth=1000)}
TOOLS = {"xdiv": ("xdiv_adhoc",), "xdiv-stream": ("xdiv_adhoc", "--stream"),
         "pytrec_eval": ("pytrec_eval_adhoc",), "ranx": ("ranx_adhoc",)}


def make_files(directory: Path, size: str) -> tuple[str, list[str]]:
    """The qrels and run files of ``size`` in ``directory`` (written unless there)."""
    cfg = SIZES[size]
    qpath = directory / "qrels.txt"
    paths = [str(directory / f"run{i + 1:02d}.run") for i in range(cfg["n_runs"])]
    if qpath.exists() and all(os.path.exists(p) for p in paths):
        return str(qpath), paths
    directory.mkdir(parents=True, exist_ok=True)
    qrels, _, runs = xdiv.datasets.synthetic_frames(**cfg, seed=7)
    qrels = qrels.assign(level=qrels["level"].clip(lower=0))
    adhoc = qrels.groupby(["topic", "docno"], as_index=False)["level"].max().assign(intent="0")
    runs = runs.assign(score=runs["score"].round(2))
    for name, frame in runs.groupby("run"):
        xdiv.io.write_run(directory / f"{name}.run", frame)
    xdiv.io.write_qrels(qpath, adhoc)  # last: its presence marks a complete folder
    return str(qpath), paths


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", nargs="+", default=list(SIZES), choices=list(SIZES))
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--tools", nargs="+", default=list(TOOLS), choices=list(TOOLS))
    parser.add_argument("--data", type=Path, help="folder keeping the generated files")
    args = parser.parse_args()
    env = environment()
    with tempfile.TemporaryDirectory() as tmp:
        data = args.data or Path(tmp)
        if "ranx" in args.tools:  # numba compiles (and caches) outside the timings
            measure({"ranx": script("ranx_adhoc", *_flat(make_files(data / "small", "small")))},
                    Path(tmp), 1, env)
        for size in args.sizes:
            qrels, runs = make_files(data / size, size)
            jobs = {name: script(*TOOLS[name], qrels, *runs) for name in TOOLS
                    if name in args.tools}
            results = measure(jobs, Path(tmp), args.repeat, env)
            cfg = SIZES[size]
            lines = cfg["n_topics"] * cfg["n_runs"] * cfg["depth"]
            mib = sum(os.path.getsize(p) for p in runs) / 2**20
            print(f"\n{size}: {cfg['n_topics']} topics x {cfg['n_runs']} runs x depth "
                  f"{cfg['depth']} ({lines / 1e6:g} M lines, run files {mib:.0f} MiB); "
                  f"whole processes, best of {args.repeat}, load average "
                  f"{os.getloadavg()[0]:.1f}\n")
            base = "pytrec_eval" if "pytrec_eval" in results else next(iter(results))
            table(results, base)
            for name, r in results.items():
                print(f"{name}: peak {r['peak'] / mib:.2f}x the run files' size")
            if {"xdiv", "xdiv-stream"} <= results.keys():
                print("xdiv-stream vs xdiv: "
                      f"{agreement(results['xdiv-stream']['output'], results['xdiv']['output'])}")
            for name in results:
                if name != base:
                    print(f"{name} vs {base}: "
                          f"{agreement(results[name]['output'], results[base]['output'])}")


def _flat(files: tuple[str, list[str]]) -> list[str]:
    return [files[0], *files[1]]


if __name__ == "__main__":
    main()
