"""Benchmark: xdiv vs pyndeval (TREC's ndeval.c) for ndeval's measure set, end to end.

Usage: python benchmarks/bench_diversity.py [--data real synthetic] [--repeat 2]

* ``real``: the 18 TREC 2009 diversity runs and qrels in ../shared/reference/trec-web/2009
  (skipped when absent).
* ``synthetic``: xdiv.datasets.write_synthetic with 200 topics x 50 runs x depth 1000 and
  2-8 intents per topic.

``xdiv.official.ndeval`` (ndeval's own values as a cube, through the numpy path of ``xdiv
ndeval``) is timed beside ``xdiv.evaluate``. All tools start from the files on disk and
end with a per-topic table of ndeval's 21 measures (ERR-IA, nERR-IA, alpha-DCG,
alpha-nDCG and P-IA / strec at 5, 10, 20; NRBP, nNRBP, MAP-IA). pyndeval gets the runs parsed in Python (it takes tuples), ordered like
xdiv (score descending, ties by docno descending) through tie-free scores. Also timed:
xdiv's whole diversity set (every flat diversity measure at @10 and @20).
"""

from __future__ import annotations

import argparse
import gzip
import tempfile
import warnings
from pathlib import Path

import xdiv
from timing import best_time

ROOT = Path(__file__).resolve().parents[1] / ".." / "shared" / "reference" / "trec-web" / "2009"
NDEVAL = ["ERR-IA@5", "ERR-IA@10", "ERR-IA@20", "nERR-IA@5", "nERR-IA@10", "nERR-IA@20",
          "alpha-DCG@5", "alpha-DCG@10", "alpha-DCG@20", "alpha-nDCG@5", "alpha-nDCG@10",
          "alpha-nDCG@20", "NRBP", "nNRBP", "MAP-IA", "P-IA@5", "P-IA@10", "P-IA@20",
          "strec@5", "strec@10", "strec@20"]
XDIV_NDEVAL = [m.replace("strec", "I-rec") for m in NDEVAL]
FULL = [f"{m}@{k}" for k in (10, 20) for m in [
    "I-rec", "Prec", "Ef-P", "alpha-nDCG", "alpha-DCG", "ERR-IA", "nERR-IA", "P-IA",
    "nDCG-IA", "Q-IA", "nGAP-IA", "AP-IA", "ERR-IA(ndeval=False)", "nERR-IA(ndeval=False)",
    "D-nDCG", "D-Q", "D#-nDCG", "D#-Q", "DIN-nDCG", "DIN-Q", "DIN#-nDCG", "DIN#-Q", "P+Q",
    "P+Q#"]] + ["NRBP", "nNRBP", "MAP-IA", "GAP-IA"]


def _open(path):
    return gzip.open(path, "rt") if str(path).endswith(".gz") else open(path)


def run_xdiv(qrels, runs, metrics):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        scores = xdiv.evaluate(xdiv.read_runs(runs), xdiv.read_qrels(qrels), metrics)
    return scores.score.to_dataframe()


def run_official(qrels, runs):
    """xdiv.official.ndeval: ndeval's values for the files, as a labelled cube (the numpy
    path of ``xdiv ndeval``, runs scored in parallel processes), ranked as pyndeval's
    runs are below (score, ties by docno descending)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        cube = xdiv.official.ndeval(qrels, runs, traditional=True)
    return cube["score"].to_dataframe()


def run_pyndeval(qrels, runs):
    import pyndeval

    with _open(qrels) as fh:
        q = [pyndeval.SubtopicQrel(t, i, d, max(int(r), 0))
             for t, i, d, r in (line.split() for line in fh)]
    out = {}
    for path in runs:
        by_topic = {}
        with _open(path) as fh:
            for line in fh:
                t, _, d, _, s, name = line.split()
                by_topic.setdefault(t, []).append((float(s), d))
        scored = []
        for t, docs in by_topic.items():
            docs.sort(reverse=True)  # score desc, docno desc (xdiv's / trec_eval's order)
            scored += [pyndeval.ScoredDoc(t, d, float(len(docs) - k))
                       for k, (_, d) in enumerate(docs)]
        out[name] = pyndeval.ndeval(q, scored, measures=NDEVAL)
    return out


def bench(label, qrels, runs, repeat):
    t_x = best_time(run_xdiv, qrels, runs, XDIV_NDEVAL, repeat=repeat)
    t_official = best_time(run_official, qrels, runs, repeat=repeat)
    t_o = best_time(run_pyndeval, qrels, runs, repeat=repeat)
    t_full = best_time(run_xdiv, qrels, runs, FULL, repeat=repeat)
    print(f"{label}")
    print(f"  xdiv, ndeval's 21 measures   {t_x:8.2f} s")
    print(f"  xdiv.official.ndeval         {t_official:8.2f} s")
    print(f"  pyndeval, same 21 measures   {t_o:8.2f} s   ({t_o / t_x:.2f}x evaluate's time, "
          f"{t_o / t_official:.2f}x xdiv.official.ndeval's)")
    print(f"  xdiv, full diversity set ({len(FULL)} measures) {t_full:8.2f} s")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", nargs="+", default=["real", "synthetic"],
                        choices=["real", "synthetic"])
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    if "real" in args.data:
        if (ROOT / "qrels.diversity.gz").exists():
            bench("TREC 2009: 18 runs x 50 topics (depth <= 1000)", ROOT / "qrels.diversity.gz",
                  sorted(str(p) for p in (ROOT / "runs").glob("*.gz")), args.repeat)
        else:
            print("TREC 2009 data not found; skipped")
    if "synthetic" in args.data:
        with tempfile.TemporaryDirectory() as tmp:
            paths = xdiv.datasets.write_synthetic(tmp, n_topics=200, n_runs=50, depth=1000,
                                                  intents=(2, 8), seed=11)
            bench("synthetic: 200 topics x 50 runs x depth 1000, 2-8 intents", paths["qrels"],
                  paths["runs"], args.repeat)


if __name__ == "__main__":
    main()
