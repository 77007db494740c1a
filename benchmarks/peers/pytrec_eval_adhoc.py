"""pytrec_eval (trec_eval's C code), as a user would run it: nDCG@10 + AP of run files.

Usage: python pytrec_eval_adhoc.py QRELS RUN... > scores.tsv

The qrels are read once (pytrec_eval's parser) and each run file is read, evaluated and
dropped in turn; the runs are read by a plain loop, a little faster than
``pytrec_eval.parse_run`` (which also strips and checks every line). Prints ``run topic
measure value`` lines (the run named by its file).
"""

import sys
from pathlib import Path

import pytrec_eval

qrels_path, *run_paths = sys.argv[1:]
with open(qrels_path) as fh:
    evaluator = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(fh),
                                               {"ndcg_cut.10", "map"})
out = []
for path in run_paths:
    run = {}
    with open(path) as fh:
        for line in fh:
            topic, _, docno, _, score, _ = line.split()
            run.setdefault(topic, {})[docno] = float(score)
    scores = evaluator.evaluate(run)
    name = Path(path).stem
    for topic, values in scores.items():
        out.append(f"{name}\t{topic}\tnDCG@10\t{values['ndcg_cut_10']!r}\n")
        out.append(f"{name}\t{topic}\tAP\t{values['map']!r}\n")
sys.stdout.write("".join(out))
