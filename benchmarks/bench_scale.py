"""Benchmark: run sets larger than memory, evaluated block by block: lazily (dask) or
streamed (``xdiv.evaluate_files``).

Usage:
    python benchmarks/bench_scale.py --runs 100 300 1000 [--chunk 25] [--data DIR]
                                     [--method lazy stream]

Generates (once, in ``--data``, default a temporary folder) ``max(--runs)`` TREC run files
of 100 topics x depth 1000 (100,000 lines each; 1000 runs = 100 M lines, about 5 GB) and
adhoc qrels, then for each size N evaluates the first N runs on nDCG@10 and AP with
``xdiv.read_runs(files, chunks={"run": chunk})`` and ``xdiv.evaluate(...).compute()``, each in
a fresh process, reporting the wall time, the time per million lines and the peak resident
memory (VmHWM, imports included). The smallest size is also evaluated eagerly (all runs in
memory) and the score cubes compared bit for bit. ``--method stream`` evaluates with
``xdiv.evaluate_files(files, collection, measures)`` instead (or as well).

Lines: ``topic Q0 docno rank score tag``, single spaces, docnos drawn per topic from a pool
of 3000 (so the vocabulary is 300,000 docnos), scores with ties; the qrels judge 400 docnos
per topic of the pool (levels 0-3).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import xdiv

TOPICS, DEPTH, POOL, JUDGED = 100, 1000, 3000, 400


def generate(folder: Path, n_runs: int) -> tuple[Path, list[Path]]:
    """Write the qrels and ``n_runs`` run files into ``folder`` (kept when present)."""
    import pyarrow as pa
    import pyarrow.csv as pa_csv

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2026)
    pool = np.array([[f"doc-{t:03d}-{k:05d}" for k in range(POOL)] for t in range(TOPICS)])
    options = pa_csv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    qrels = folder / "qrels.txt"
    if not qrels.exists():
        picks = np.stack([rng.choice(POOL, JUDGED, replace=False) for _ in range(TOPICS)])
        topics = np.repeat(np.arange(1, TOPICS + 1), JUDGED)
        table = pa.table({"topic": topics, "iter": np.zeros(len(topics), dtype=np.int64),
                          "docno": pool[topics - 1, picks.ravel()],
                          "level": rng.integers(0, 4, len(topics))})
        pa_csv.write_csv(table, qrels, options)
    paths = []
    topics = np.repeat(np.arange(1, TOPICS + 1), DEPTH)
    ranks = np.tile(np.arange(1, DEPTH + 1), TOPICS)
    for r in range(n_runs):
        path = folder / f"run{r:04d}.txt"
        paths.append(path)
        if path.exists():
            continue
        local = np.random.default_rng(r)
        docs = np.argsort(local.random((TOPICS, POOL)), axis=1)[:, :DEPTH]
        score = np.sort(np.round(local.gamma(2.0, 2.0, (TOPICS, DEPTH)), 2), axis=1)[:, ::-1]
        table = pa.table({"topic": topics, "q0": np.full(len(topics), "Q0"),
                          "docno": pool[topics - 1, docs.ravel()], "rank": ranks,
                          "score": score.ravel(), "tag": np.full(len(topics), f"run{r:04d}")})
        pa_csv.write_csv(table, path, options)
    return qrels, paths


WORKER = """
import json, sys, time, warnings
import xdiv
warnings.simplefilter("ignore", xdiv.XdivWarning)
qrels, files, chunk, out, method = json.loads(sys.argv[1])
measures = ["nDCG(gain=linear)@10", "AP"]
start = time.perf_counter()
if method == "stream":
    scores = xdiv.evaluate_files(files, xdiv.read_qrels(qrels), measures)
else:
    runs = xdiv.read_runs(files, chunks={"run": chunk} if chunk else None)
    scores = xdiv.evaluate(runs, xdiv.read_qrels(qrels), measures).compute()
seconds = time.perf_counter() - start
if out:
    xdiv.to_netcdf(scores, out)
peak = [l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1]
print(json.dumps({"seconds": seconds, "peak_mib": int(peak) / 1024}))
"""


def measure(qrels: Path, files: list[Path], chunk: int, out: str = "",
            method: str = "lazy") -> dict:
    argument = json.dumps([str(qrels), [str(f) for f in files], chunk, out, method])
    done = subprocess.run([sys.executable, "-c", WORKER, argument], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, nargs="+", default=[100, 300, 1000])
    parser.add_argument("--chunk", type=int, default=25)
    parser.add_argument("--data", type=Path)
    parser.add_argument("--method", nargs="+", choices=["lazy", "stream"], default=["lazy"],
                        help="lazy: dask blocks of --chunk runs; stream: xdiv.evaluate_files")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.data or Path(tmp)
        start = time.perf_counter()
        qrels, paths = generate(folder, max(args.runs))
        print(f"files ready in {time.perf_counter() - start:.0f} s ({folder})", flush=True)
        for n in sorted(args.runs):
            lines = n * TOPICS * DEPTH
            if n == min(args.runs):
                eager = measure(qrels, paths[:n], 0, str(Path(tmp) / f"eager{n}.nc"))
                sample = xdiv.open_dataset(Path(tmp) / f"eager{n}.nc")
                print(f"{lines / 1e6:5.0f} M lines ({n} runs), eager, all runs in memory: "
                      f"{eager['seconds']:7.1f} s, peak {eager['peak_mib']:.0f} MiB", flush=True)
            for method in args.method:
                out = str(Path(tmp) / f"{method}{n}.nc")
                result = measure(qrels, paths[:n], args.chunk, out, method)
                how = (f"lazy in blocks of {args.chunk}" if method == "lazy"
                       else "streamed (evaluate_files)")
                print(f"{lines / 1e6:5.0f} M lines ({n} runs), {how}: "
                      f"{result['seconds']:7.1f} s ({result['seconds'] / lines * 1e6:.2f} s "
                      f"per M lines), peak {result['peak_mib']:.0f} MiB", flush=True)
                # the smallest set's runs score the same bits in every larger evaluation
                cube = xdiv.open_dataset(out)
                same = cube["score"].sel(run=sample["run"]).identical(sample["score"])
                print(f"      scores of the first {sample.sizes['run']} runs identical to "
                      f"the eager evaluation: {same}", flush=True)


if __name__ == "__main__":
    main()
