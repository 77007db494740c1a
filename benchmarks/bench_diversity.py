"""Benchmark: xdiv vs pyndeval (TREC's ndeval.c) for ndeval's measure set, whole processes.

Usage: python benchmarks/bench_diversity.py [--data real synthetic] [--repeat 2] [--full]

* ``real``: the 18 TREC 2009 diversity runs and qrels in ../shared/reference/trec-web/2009
  (skipped when absent), read gzipped by every tool.
* ``synthetic``: xdiv.datasets.write_synthetic with 200 topics x 50 runs x depth 1000 and
  2-8 intents per topic.

Each tool runs as its own process, the small script of ``benchmarks/peers/`` that imports
only that tool, from the files on disk to a per-topic table of ndeval's 21 measures
(ERR-IA, nERR-IA, alpha-DCG, alpha-nDCG and P-IA / strec at 5, 10, 20; NRBP, nNRBP,
MAP-IA): ``xdiv.official.ndeval`` (ndeval's own values as a cube), ``xdiv.evaluate`` on
the same measures, and pyndeval fed each file's ``(topic, docno, score)`` tuples as read,
which it ranks itself. A last job only imports xdiv and xarray: the floor of any job of
xdiv's Python API, whose results are xarray objects. With ``--full``, also xdiv's whole diversity set (every flat
diversity measure at @10 and @20). The jobs alternate ``--repeat`` times; GNU time gives
each process's wall time, CPU time (user + system) and peak resident memory (the
shortest times, the median peak). Printed: the table with the ratios to pyndeval and how
the scores agree (pyndeval breaks score ties by docno ascending, xdiv as ndeval.c and
trec_eval do, by docno descending: tied runs differ there).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import xdiv
from processes import agreement, environment, measure, script, table

ROOT = Path(__file__).resolve().parents[1] / ".." / "shared" / "reference" / "trec-web" / "2009"


def bench(label: str, qrels: str, runs: list[str], repeat: int, full: bool, env: dict,
          folder: Path) -> None:
    jobs = {"xdiv.official.ndeval": script("xdiv_ndeval", "--official", qrels, *runs),
            "xdiv.evaluate": script("xdiv_ndeval", qrels, *runs),
            "pyndeval": script("pyndeval_ndeval", qrels, *runs)}
    if full:
        jobs["xdiv.evaluate, full diversity set"] = script("xdiv_ndeval", "--full", qrels,
                                                           *runs)
    jobs["import xdiv, xarray (the API's floor)"] = [sys.executable, "-c",
                                                      "import xdiv, xarray"]
    results = measure(jobs, folder, repeat, env)
    print(f"\n{label}; whole processes, best of {repeat}, load average "
          f"{os.getloadavg()[0]:.1f}\n")
    table(results, "pyndeval")
    for name in ("xdiv.official.ndeval", "xdiv.evaluate"):
        print(f"{name} vs pyndeval: "
              f"{agreement(results[name]['output'], results['pyndeval']['output'])}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", nargs="+", default=["real", "synthetic"],
                        choices=["real", "synthetic"])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--full", action="store_true", help="also xdiv's full diversity set")
    args = parser.parse_args()
    env = environment()
    with tempfile.TemporaryDirectory() as tmp:
        if "real" in args.data:
            if (ROOT / "qrels.diversity.gz").exists():
                bench("TREC 2009: 18 runs x 50 topics (depth <= 1000)",
                      str(ROOT / "qrels.diversity.gz"),
                      sorted(str(p) for p in (ROOT / "runs").glob("*.gz")), args.repeat,
                      args.full, env, Path(tmp))
            else:
                print("TREC 2009 data not found; skipped")
        if "synthetic" in args.data:
            paths = xdiv.datasets.write_synthetic(Path(tmp) / "synthetic", n_topics=200,
                                                  n_runs=50, depth=1000, intents=(2, 8),
                                                  seed=11)
            bench("synthetic: 200 topics x 50 runs x depth 1000, 2-8 intents",
                  paths["qrels"], paths["runs"], args.repeat, args.full, env, Path(tmp))


if __name__ == "__main__":
    main()
