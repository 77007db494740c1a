"""xdiv: nDCG@10 + AP of run files (trec_eval's linear-gain nDCG, uncut AP).

Usage: python xdiv_adhoc.py [--stream] QRELS RUN... > scores.tsv

Without ``--stream`` every run is read into memory (``read_runs`` then ``evaluate``);
with it the files are scored block by block (``xdiv.evaluate_files``). Prints ``run topic
measure value`` lines.
"""

import sys
import warnings

import xdiv

stream = sys.argv[1] == "--stream"
qrels_path, *run_paths = sys.argv[1 + stream:]
measures = ["nDCG(gain=linear)@10", "AP"]
warnings.simplefilter("ignore", xdiv.XdivWarning)
collection = xdiv.read_qrels(qrels_path)
if stream:
    scores = xdiv.evaluate_files(run_paths, collection, measures)
else:
    scores = xdiv.evaluate(xdiv.read_runs(run_paths), collection, measures)
cube = scores["score"].transpose("run", "topic", "metric")
names = ["nDCG@10", "AP"]
sys.stdout.write("".join(
    f"{run}\t{topic}\t{names[m]}\t{float(cube.values[r, t, m])!r}\n"
    for r, run in enumerate(cube["run"].values) for t, topic in enumerate(cube["topic"].values)
    for m in range(len(names))))
