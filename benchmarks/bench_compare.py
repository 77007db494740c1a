"""Benchmark: the time and peak memory of ``xdiv.compare``, each case in a fresh process.

Usage: python benchmarks/bench_compare.py [--case NAME ...] [--repeat 1]

Cases (scores: independent normal scores, run effects plus topic effects, seed 0):

- ``maxt-pairs``: MaxT (``correction="maxt"``, B = 10,000, t test) over all pairs of 300
  runs x 50 topics x 4 metrics (44,850 pairs per metric). Target: < 15 s, < 1 GiB.
- ``maxt-stepdown-pairs``: the same with ``correction="maxt-stepdown"``.
- ``baseline-all``: one baseline against 50 runs x 8 metrics x 50 topics, every test, once
  with each correction (``None`` and the six), B = 10,000: the total, and the slowest
  call. Target: < 2 s a call.
- ``baseline-bca``: one baseline, 50 runs x 8 metrics, every test, ``ci="bca"``.

Printed per case: the wall time of the ``compare`` calls (best of ``--repeat``, the cube
already built; with several calls, also the slowest call of that repeat), the peak
resident memory of the process (``VmHWM`` of ``/proc/self/status``, which includes the
~150 MiB of the interpreter and libraries) and the load average when the case ended (the
machine's other work slows every case).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CASES = ("maxt-pairs", "maxt-stepdown-pairs", "baseline-all", "baseline-bca")


def cube(n_runs: int, n_topics: int, n_metrics: int):
    import numpy as np
    import xarray as xr

    rng = np.random.default_rng(0)
    run = rng.normal(0, 0.05, size=(n_metrics, n_runs, 1))
    topic = rng.normal(0.4, 0.15, size=(n_metrics, 1, n_topics))
    score = np.clip(run + topic + rng.normal(0, 0.1, size=(n_metrics, n_runs, n_topics)),
                    0, 1)
    return xr.Dataset({"score": (("metric", "run", "topic"), score)},
                      coords={"metric": [f"m{k}" for k in range(n_metrics)],
                              "run": [f"run{k:03d}" for k in range(n_runs)],
                              "topic": [str(t) for t in range(n_topics)]})


def peak_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def run_case(case: str, repeat: int) -> dict:
    import xdiv
    from xdiv.typing import COMPARE_CORRECTIONS, COMPARE_TESTS

    if case in ("maxt-pairs", "maxt-stepdown-pairs"):
        scores = cube(300, 50, 4)
        correction = "maxt" if case == "maxt-pairs" else "maxt-stepdown"
        calls = [lambda: xdiv.compare(scores, correction=correction, B=10_000)]
    elif case == "baseline-all":
        scores = cube(50, 50, 8)
        calls = [lambda c=c: xdiv.compare(scores, baseline="run000", tests=COMPARE_TESTS,
                                          correction=c, B=10_000)
                 for c in (None, *COMPARE_CORRECTIONS)]
    else:
        scores = cube(50, 50, 8)
        calls = [lambda: xdiv.compare(scores, baseline="run000", tests=COMPARE_TESTS,
                                      B=10_000, ci="bca")]
    best, slowest = float("inf"), float("nan")
    for _ in range(repeat):
        times = []
        for call in calls:
            start = time.perf_counter()
            call()
            times.append(time.perf_counter() - start)
        if sum(times) < best:
            best, slowest = sum(times), max(times)
    return {"case": case, "seconds": round(best, 2), "calls": len(calls),
            "slowest": round(slowest, 2), "peak_mib": round(peak_mib(), 1),
            "load": os.getloadavg()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", nargs="*", choices=CASES, default=list(CASES))
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_case(args.child, args.repeat)))
        return
    for case in args.case:
        out = subprocess.run([sys.executable, __file__, "--child", case, "--repeat",
                              str(args.repeat)], capture_output=True, text=True)
        if out.returncode:
            print(f"{case}: failed\n{out.stderr}")
            continue
        result = json.loads(out.stdout.strip().splitlines()[-1])
        calls = (f"{result['calls']} calls, slowest {result['slowest']:.2f} s"
                 if result["calls"] > 1 else "1 call")
        print(f"{result['case']:22s} {result['seconds']:7.2f} s  ({calls})  peak "
              f"{result['peak_mib']:7.1f} MiB  load {result['load']:.2f}")


if __name__ == "__main__":
    main()
