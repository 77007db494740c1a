"""xdiv: ndeval's 21 measures of run files.

Usage: python xdiv_ndeval.py [--official | --full] QRELS RUN... > scores.tsv

``--official``: ``xdiv.official.ndeval`` (ndeval's own values, ties broken as ndeval.c
breaks them); default: ``xdiv.evaluate`` on ndeval's measures; ``--full``: ``xdiv.evaluate``
on every flat diversity measure at @10 and @20. Prints ``run topic measure value`` lines
(the measures named as pyndeval names them, except with ``--full``).
"""

import sys
import warnings

import xdiv

NDEVAL = [f"{m}@{k}" for m in ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG") for k in (5, 10, 20)]
NDEVAL += ["NRBP", "nNRBP", "MAP-IA"] + [f"{m}@{k}" for m in ("P-IA", "strec") for k in (5, 10, 20)]
FULL = [f"{m}@{k}" for k in (10, 20) for m in [
    "I-rec", "Prec", "Ef-P", "alpha-nDCG", "alpha-DCG", "ERR-IA", "nERR-IA", "P-IA",
    "nDCG-IA", "Q-IA", "nGAP-IA", "AP-IA", "ERR-IA(ndeval=False)", "nERR-IA(ndeval=False)",
    "D-nDCG", "D-Q", "D#-nDCG", "D#-Q", "DIN-nDCG", "DIN-Q", "DIN#-nDCG", "DIN#-Q", "P+Q",
    "P+Q#"]] + ["NRBP", "nNRBP", "MAP-IA", "GAP-IA"]

how = sys.argv[1] if sys.argv[1] in ("--official", "--full") else ""
qrels_path, *run_paths = sys.argv[1 + bool(how):]
warnings.simplefilter("ignore", xdiv.XdivWarning)
if how == "--official":
    scores = xdiv.official.ndeval(qrels_path, run_paths, traditional=True)
    names = [str(m) for m in scores["metric"].values]
else:
    measures = FULL if how else [m.replace("strec", "I-rec") for m in NDEVAL]
    scores = xdiv.evaluate(xdiv.read_runs(run_paths), xdiv.read_qrels(qrels_path), measures)
    names = FULL if how else NDEVAL
cube = scores["score"].transpose("run", "topic", "metric")
sys.stdout.write("".join(
    f"{run}\t{topic}\t{names[m]}\t{float(cube.values[r, t, m])!r}\n"
    for r, run in enumerate(cube["run"].values) for t, topic in enumerate(cube["topic"].values)
    for m in range(len(names))))
