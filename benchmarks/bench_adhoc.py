"""Benchmark: xdiv vs pytrec_eval vs ranx for nDCG@10 + AP, end to end from files.

Usage: python benchmarks/bench_adhoc.py [--sizes small large] [--repeat 3] [--memory]
                                        [--tools xdiv xdiv-stream pytrec_eval ranx]

For each size the synthetic collection (xdiv.datasets.synthetic_frames, adhoc relevance by
max level) is written as TREC files; each tool then reads the files and produces a
per-topic table of nDCG@10 and AP, in this one process (warm: ranx's numba functions are
compiled on a small input first). Two xdiv variants: ``xdiv``, every run read into memory
(``read_runs`` then ``evaluate``), and ``xdiv-stream``, the files read and scored block by
block (``xdiv.engine.evaluate_files``, the default block size). Reported: best-of-``repeat``
wall times, each tool's speed relative to pytrec_eval (pytrec_eval's time over the tool's)
and, with ``--memory``, each tool's peak resident memory (VmHWM) run alone in a fresh
subprocess, and its ratio to pytrec_eval's. The two xdiv variants' score tables are
checked to be identical.

Conventions: trec_eval's nDCG uses linear gains, so every tool computes linear-gain nDCG
(xdiv: ``nDCG(gain=linear)@10``); AP is uncut (trec_eval's ``map``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import pandas as pd

import xdiv
from timing import best_time

SIZES = {"small": dict(n_topics=50, n_runs=20, depth=100),
         "large": dict(n_topics=200, n_runs=50, depth=1000)}


def make_files(directory: Path, size: str) -> tuple[str, list[str]]:
    qrels, _, runs = xdiv.datasets.synthetic_frames(**SIZES[size], seed=7)
    qrels = qrels.assign(level=qrels["level"].clip(lower=0))
    adhoc = qrels.groupby(["topic", "docno"], as_index=False)["level"].max().assign(intent="0")
    qpath = directory / "qrels.txt"
    xdiv.io.write_qrels(qpath, adhoc)
    paths = []
    for name, frame in runs.groupby("run"):
        path = directory / f"{name}.run"
        xdiv.io.write_run(path, frame)
        paths.append(str(path))
    return str(qpath), paths


def run_xdiv(qrels: str, runs: list[str]) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        scores = xdiv.evaluate(xdiv.read_runs(runs), xdiv.read_qrels(qrels),
                               ["nDCG(gain=linear)@10", "AP"])
    return scores.score.to_dataframe().reset_index()


def run_xdiv_stream(qrels: str, runs: list[str]) -> pd.DataFrame:
    from xdiv.engine import evaluate_files

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        scores = evaluate_files(runs, xdiv.read_qrels(qrels), ["nDCG(gain=linear)@10", "AP"])
    return scores.score.to_dataframe().reset_index()


def _read_trec(path: str, qrels: bool) -> dict:
    out: dict = {}
    with open(path) as fh:
        for line in fh:
            f = line.split()
            if qrels:
                out.setdefault(f[0], {})[f[2]] = int(f[3])
            else:
                out.setdefault(f[0], {})[f[2]] = float(f[4])
    return out


def run_pytrec_eval(qrels: str, runs: list[str]) -> pd.DataFrame:
    import pytrec_eval

    evaluator = pytrec_eval.RelevanceEvaluator(_read_trec(qrels, True), {"ndcg_cut.10", "map"})
    rows = []
    for path in runs:
        for topic, values in evaluator.evaluate(_read_trec(path, False)).items():
            rows.append((Path(path).stem, topic, values["ndcg_cut_10"], values["map"]))
    return pd.DataFrame(rows, columns=["run", "topic", "ndcg_cut_10", "map"])


def run_ranx(qrels: str, runs: list[str]) -> pd.DataFrame:
    from ranx import Qrels, Run, evaluate

    q = Qrels.from_file(qrels, kind="trec")
    frames = []
    for path in runs:
        run = Run.from_file(path, kind="trec")
        per_topic = evaluate(q, run, ["ndcg@10", "map"], return_mean=False)
        frames.append(pd.DataFrame({"run": run.name, "topic": list(run.keys()),
                                    "ndcg@10": per_topic["ndcg@10"], "map": per_topic["map"]}))
    return pd.concat(frames)


TOOLS = {"xdiv": run_xdiv, "xdiv-stream": run_xdiv_stream, "pytrec_eval": run_pytrec_eval,
         "ranx": run_ranx}


def peak_memory(tool: str, qrels: str, runs: list[str]) -> float:
    """Peak RSS (MiB, VmHWM) of a fresh interpreter running only ``tool`` (imports
    included). ru_maxrss is not used: Linux carries it over from the parent process."""
    code = ("import sys; sys.path.insert(0, %r); import bench_adhoc as b; "
            "b.TOOLS[%r](%r, %r); "
            "print([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0])"
            % (str(Path(__file__).parent), tool, qrels, runs))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return int(out.stdout.strip().splitlines()[-1].split()[1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", nargs="+", default=list(SIZES), choices=list(SIZES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--memory", action="store_true")
    parser.add_argument("--tools", nargs="+", default=list(TOOLS), choices=list(TOOLS))
    args = parser.parse_args()
    tools = {name: TOOLS[name] for name in TOOLS if name in args.tools}
    with tempfile.TemporaryDirectory() as tmp:
        small_q, small_r = make_files(Path(tmp), "small") if "small" not in args.sizes else (
            None, None)
        for size in args.sizes:
            directory = Path(tmp) / size
            directory.mkdir()
            qrels, runs = make_files(directory, size)
            if small_q is None:
                small_q, small_r = qrels, runs
            if "ranx" in tools:
                run_ranx(small_q, small_r[:1])  # numba compile outside the timings
            if {"xdiv", "xdiv-stream"} <= set(tools):
                same = run_xdiv(qrels, runs).equals(run_xdiv_stream(qrels, runs))
                print(f"{size}: xdiv and xdiv-stream per-topic scores identical: {same}")
            times = {name: best_time(fn, qrels, runs, repeat=args.repeat)
                     for name, fn in tools.items()}
            peaks = {name: peak_memory(name, qrels, runs) for name in tools} \
                if args.memory else {}
            cfg = SIZES[size]
            print(f"{size}: {cfg['n_topics']} topics x {cfg['n_runs']} runs x depth "
                  f"{cfg['depth']} (best of {args.repeat}; load average "
                  f"{os.getloadavg()[0]:.1f})")
            base = "pytrec_eval" if "pytrec_eval" in tools else next(iter(tools))
            for name, t in times.items():
                line = f"  {name:12s} {t:8.2f} s   {times[base] / t:6.2f}x {base}'s speed"
                if args.memory:
                    line += (f"   peak RSS {peaks[name]:6.0f} MiB"
                             f" ({peaks[name] / peaks[base]:.1f}x {base}'s)")
                print(line, flush=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    main()
