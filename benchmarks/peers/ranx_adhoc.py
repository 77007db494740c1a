"""ranx, as a user would run it: nDCG@10 + AP of run files.

Usage: python ranx_adhoc.py QRELS RUN... > scores.tsv

The qrels are read once and each run file is read, evaluated and dropped in turn, with
ranx's own readers. Prints ``run topic measure value`` lines (the run named by its file).
"""

import sys
from pathlib import Path

from ranx import Qrels, Run, evaluate

qrels_path, *run_paths = sys.argv[1:]
qrels = Qrels.from_file(qrels_path, kind="trec")
out = []
for path in run_paths:
    run = Run.from_file(path, kind="trec")
    scores = evaluate(qrels, run, ["ndcg@10", "map"], return_mean=False)
    name = Path(path).stem
    for topic, ndcg, ap in zip(run.keys(), scores["ndcg@10"], scores["map"]):
        out.append(f"{name}\t{topic}\tnDCG@10\t{float(ndcg)!r}\n")
        out.append(f"{name}\t{topic}\tAP\t{float(ap)!r}\n")
sys.stdout.write("".join(out))
