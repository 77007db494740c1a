"""pytrec_eval (trec_eval's C code), as a user would run it: nDCG@10 + AP of run files.

Usage: python pytrec_eval_adhoc.py QRELS RUN... > scores.tsv

The qrels are read once and each run file is read, evaluated and dropped in turn, with
pytrec_eval's own parsers. Prints ``run topic measure value`` lines (the run named by its
file).
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
    with open(path) as fh:
        scores = evaluator.evaluate(pytrec_eval.parse_run(fh))
    name = Path(path).stem
    for topic, values in scores.items():
        out.append(f"{name}\t{topic}\tnDCG@10\t{values['ndcg_cut_10']!r}\n")
        out.append(f"{name}\t{topic}\tAP\t{values['map']!r}\n")
sys.stdout.write("".join(out))
