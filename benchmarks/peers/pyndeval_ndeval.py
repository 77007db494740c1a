"""pyndeval (TREC's ndeval.c), as a user would run it: ndeval's 21 measures of run files.

Usage: python pyndeval_ndeval.py QRELS RUN... > scores.tsv

The qrels are read once into an evaluator and each run file (plain or gzip) is fed to it
as ``(topic, docno, score)`` tuples straight from the file; pyndeval ranks them itself
(score descending, ties by docno ascending). Prints ``run topic measure value`` lines (the
run named by its file).
"""

import gzip
import sys
from pathlib import Path

import pyndeval


def lines(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as fh:
        yield from fh


qrels_path, *run_paths = sys.argv[1:]
evaluator = pyndeval.RelevanceEvaluator(
    (t, i, d, int(r)) for t, i, d, r in map(str.split, lines(qrels_path)))
out = []
for path in run_paths:
    run = ((t, d, float(s)) for t, _, d, _, s, _ in map(str.split, lines(path)))
    name = Path(path.removesuffix(".gz")).stem
    for topic, values in evaluator.evaluate(run).items():
        out += [f"{name}\t{topic}\t{m}\t{v!r}\n" for m, v in values.items()]
sys.stdout.write("".join(out))
