"""Every value of NTCIREVAL's diversity pipelines on the TREC 2009 runs against its
registry measure (issue 36, the "Done when" line on the 2009 runs).

The TREC 2009 Web Track diversity qrels and runs are converted to NTCIR files: a Dqrels
file, a DINprob file (each topic's intents with the uniform probability 1/n written with
6 significant digits, the precision DIN-splitqrels keeps of ``P(i|q) * g`` anyway, and
the topic file's intent types) and the runs rewritten in the rank order xdiv reads them.
``xdiv ntcireval D|DIN|IA|PQ`` (byte-identical to D-NTCIR-eval, DIN-NTCIR-eval,
D-NTCIR-IAeval, DIN-NTCIR-PQeval and NEVIAPQ2sharpnev, and with ``--extended`` to
D-NTCIR-eval2 and D-NTCIR-IAeval2, tests/official) writes the official files; every value line of them is mapped to a registry measure and compared with
``xdiv.evaluate`` on the collection read back from the NTCIR files
(``read_qrels(format="ntcir", renormalise=False)``, NTCIREVAL's probabilities) at
NTCIREVAL's printed precision (:func:`prints_as`).

The registry measures take NTCIREVAL's conventions as parameters:

* ``gain_decimals=4``: glabel and dinlabel write each global gain of the run with 4
  decimals, and gcompute scores those (the ideal list keeps the Grelv file's gains);
* ``part_decimals=4``: the scripts combine the 4-decimal values ntcir_eval prints (D#- and
  DIN#-measures: I-rec and the D-measure; IA-measures and P+Q: each intent's value;
  P+Q#: I-rec and the printed P+Q);
* ``highest=own`` (gcompute divides ERR's gains by the intent's own highest gain),
  ``gain=linear`` (DIN-splitqrels' gain of ``Lx`` is x) and RBP's ``p=0.95`` (gcompute's
  default, D-NTCIR-IAeval2's too; 0.99 in D-NTCIR-eval2, ``xdiv ntcireval D --extended``);
* gcompute scores the list glabel truncated at the cutoff, so its uncut measures (RR,
  O-measure, ERR, AP, Q-measure, ...) are the registry's at the cutoff, AP and Q-measure
  with the normaliser R (``denominator=R``); AP is D-Q with ``beta=0``, P@l is Prec@l
  (D) or Ef-P@l (DIN, where a document relevant only to navigational intents already
  met has no gain).

Without ``gain_decimals`` and ``part_decimals`` about 3,200 of the 97,200 values of the
whole comparison print differently (by up to 2.5e-4; measured when the parameters were
added: 2,525 of the D- and DIN-pipelines' 86,400, 686 of the 10,800 others).
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import xdiv
from xdiv.cli import main
from xdiv.io.ntcir import iprob_frame, write_dqrels, write_iprob
from xdiv.official.ntcireval.pipelines import split_qrels

from ..conftest import require_trec_2009
from .test_ntcir_measures import prints_as_each

CUTOFFS = (10, 20)

_VALUE = re.compile(r"^(\S+) (\S+)=\s+(\S+)$")
_WEIGHTED = re.compile(r"^(\S+) SUMp= \S+ (\S+)= (\S+)$")


def registry_names(cutoff: int) -> dict[str, dict[str, str]]:
    """For each kind of official file, its printed names -> registry measures."""
    c, at = cutoff, f"@{cutoff:04d}"
    out = {}
    for prefix in ("D", "DIN"):
        g = "gain=linear,gain_decimals=4"
        out[prefix] = {
            "RR": f"RR@{c}", "O-measure": f"{prefix}-O({g})@{c}",
            "P-measure": f"{prefix}-P-measure({g})@{c}", "P-plus": f"{prefix}-P+({g})@{c}",
            "AP": f"{prefix}-Q(beta=0,denominator=R,{g})@{c}",
            "Q-measure": f"{prefix}-Q(denominator=R,{g})@{c}",
            "NCUrb,P": f"{prefix}-NCUrb(utility=P,{g})@{c}",
            "NCUrb,BR": f"{prefix}-NCUrb({g})@{c}", "RBP": f"{prefix}-RBP(p=0.95,{g})@{c}",
            "ERR": f"{prefix}-ERR({g})@{c}", "EBR": f"{prefix}-EBR({g})@{c}",
            f"AP{at}": f"{prefix}-Q(beta=0,{g})@{c}", f"Q{at}": f"{prefix}-Q({g})@{c}",
            f"nDCG{at}": f"{prefix}-nDCG-JK({g})@{c}", f"MSnDCG{at}": f"{prefix}-nDCG({g})@{c}",
            f"P{at}": f"Prec@{c}" if prefix == "D" else f"Ef-P@{c}",
            f"RBP{at}": f"{prefix}-RBP(p=0.95,{g})@{c}", f"ERR{at}": f"{prefix}-ERR({g})@{c}",
            f"nERR{at}": f"{prefix}-nERR({g})@{c}", f"EBR{at}": f"{prefix}-EBR({g})@{c}",
            f"Hit{at}": f"Hit@{c}", f"I-rec{at}": f"I-rec@{c}", "I-rec@n": "I-rec@n",
            f"{prefix}#-Q{at}": f"{prefix}#-Q({g},part_decimals=4)@{c}",
            f"{prefix}#-nDCG{at}": f"{prefix}#-nDCG({g},part_decimals=4)@{c}"}
    own = "ndeval=False,gain=linear,highest=own,part_decimals=4"
    out["IA"] = {f"IA-ERR{at}": f"ERR-IA({own})@{c}", f"IA-nERR{at}": f"nERR-IA({own})@{c}",
                 f"IA-MSnDCG{at}": f"nDCG-IA(gain=linear,part_decimals=4)@{c}"}
    out["PQ"] = {f"PplusQ{at}": f"P+Q(gain=linear,part_decimals=4)@{c}"}
    out["PQ#"] = {**out["PQ"], f"PplusQ#{at}": f"P+Q#(gain=linear,part_decimals=4)@{c}"}
    # D-NTCIR-eval2: RBP's persistence 0.99, and D#-ERR, D#-EBR and D#-RBP
    g, rbp = "gain=linear,gain_decimals=4", "p=0.99,gain=linear,gain_decimals=4"
    out["D2"] = {**out["D"], "RBP": f"D-RBP({rbp})@{c}", f"RBP{at}": f"D-RBP({rbp})@{c}",
                 f"D#-ERR{at}": f"D#-ERR({g},part_decimals=4)@{c}",
                 f"D#-EBR{at}": f"D#-EBR({g},part_decimals=4)@{c}",
                 f"D#-RBP{at}": f"D#-RBP({rbp},part_decimals=4)@{c}"}
    # D-NTCIR-IAeval2: IA-MSnDCG, IA-Q, IA-ERR, IA-EBR and IA-RBP (gcompute's persistence)
    own = "gain=linear,highest=own,part_decimals=4"
    out["IA2"] = {f"IA-MSnDCG{at}": f"nDCG-IA(gain=linear,part_decimals=4)@{c}",
                  f"IA-Q{at}": f"Q-IA(gain=linear,part_decimals=4)@{c}",
                  f"IA-ERR{at}": f"ERR-IA(ndeval=False,{own})@{c}",
                  f"IA-EBR{at}": f"EBR-IA({own})@{c}",
                  f"IA-RBP{at}": f"RBP-IA(p=0.95,{own})@{c}"}
    return out


def convert(folder: Path, topics: list[str] | None = None,
            runs: list[str] | None = None) -> tuple[Path, Path, list[Path]]:
    """The TREC 2009 data (``topics`` and ``runs``, default all) as NTCIR files in
    ``folder``: the Dqrels file, the DINprob file and one TREC-format file per run."""
    root = require_trec_2009()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        collection = xdiv.read_qrels(root / "qrels.diversity.gz",
                                     topics=root / "wt09.topics.full.xml")
        trec_runs = xdiv.read_runs(sorted(str(p) for p in (root / "runs").glob("*.gz")
                                          if runs is None or p.name[:-3] in runs))
    if topics is not None:
        collection = collection.sel(topic=topics)
    prob = iprob_frame(collection)
    prob = prob[prob["intent"] != "0"].copy()  # the Dqrels file's judged non-relevant
    count = prob.groupby("topic")["intent"].transform("size")
    prob["probability"] = [float(f"{1 / n:.6g}") for n in count]
    dqrels_path, prob_path = folder / "wt09.Dqrels", folder / "wt09.DINprob"
    write_dqrels(dqrels_path, collection)
    write_iprob(prob_path, prob, types=True)
    paths = []
    for run in [str(r) for r in trec_runs["run"].values]:
        picked = trec_runs.sel(run=[run])
        if topics is not None:
            picked = picked.sel(topic=topics)
        paths.append(folder / run)
        xdiv.write_run(paths[-1], picked)
    return prob_path, dqrels_path, paths


def official_values(prob: Path, dqrels: Path, runs: list[Path], out: Path,
                    extended: bool = False) -> pd.DataFrame:
    """Every value line the official pipelines write at :data:`CUTOFFS`: ``run``,
    ``topic``, ``printed`` (the name), ``value`` (the printed string) and ``measure``
    (the registry measure); with ``extended``, those of D-NTCIR-eval2 and
    D-NTCIR-IAeval2 at the first cutoff too."""
    out.mkdir()
    rows = []
    for cutoff in CUTOFFS:
        at = f"@{cutoff:04d}"
        inputs = [str(prob), str(dqrels), *map(str, runs), "--cutoff", str(cutoff),
                  "--out-dir", str(out), "-q"]
        common = [*inputs, "--name", f"l{cutoff}"]
        for variant in ("D", "DIN", "IA"):
            assert main(["ntcireval", variant, *common]) == 0, variant
        assert main(["ntcireval", "PQ", *common, "--sharp", f"PplusQ{at}",
                     f"PplusQ#{at}"]) == 0
        names = registry_names(cutoff)
        files = {"D": (f"l{cutoff}.Dnev", _VALUE), "DIN": (f"l{cutoff}.DINnev", _VALUE),
                 "IA": (f"l{cutoff}.nevIA", _WEIGHTED), "PQ": (f"l{cutoff}.nevPQ", _WEIGHTED),
                 "PQ#": (f"PplusQ#{at}.nev", _VALUE)}
        if extended and cutoff == CUTOFFS[0]:
            for variant in ("D", "IA"):
                assert main(["ntcireval", variant, *inputs, "--name", "eval2",
                             "--extended"]) == 0, variant
            files.update({"D2": ("eval2.Dnev", _VALUE), "IA2": ("eval2.nevIA", _WEIGHTED)})
        for kind, (suffix, pattern) in files.items():
            for run in runs:
                text = (out / f"{run.name}.{suffix}").read_text()
                for line in text.splitlines():
                    match = pattern.match(line)
                    if match is None:
                        continue  # comments, and the per-intent lines of IA and PQ
                    printed = match[2]
                    assert printed in names[kind], (suffix, printed)
                    rows.append((run.name, match[1], kind, printed, match[3],
                                 names[kind][printed]))
    return pd.DataFrame(rows, columns=["run", "topic", "file", "printed", "value", "measure"])


def without_conventions(measure: str) -> str:
    """``measure`` without the rounding parameters (its exact value)."""
    return measure.replace(",gain_decimals=4", "").replace(",part_decimals=4", "")


def compare(prob: Path, dqrels: Path, runs: list[Path], out: Path,
            extended: bool = False) -> pd.DataFrame:
    """:func:`official_values` with xdiv's value of each (``mine``) and the exact value of
    its measure without the rounding parameters (``exact``); fails on the first that xdiv
    does not print the same."""
    official = official_values(prob, dqrels, runs, out, extended)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        collection = xdiv.read_qrels(dqrels, format="ntcir", probabilities=prob,
                                     renormalise=False)
        ranked = xdiv.read_runs([str(r) for r in runs])
    # the Grelv files (each document's GG as DIN-splitqrels prints it, %.6g) hold the
    # collection's ideal lists: with the 6-digit probabilities nothing is rounded there
    for topic, files in split_qrels(prob.read_bytes(), dqrels.read_bytes()).items():
        gains = sorted(float(line.rsplit(b" ", 1)[1]) for line in files.grelv.splitlines())
        exact = collection.sel(topic=topic.decode())
        prob_valid = exact["intent_prob"].where(exact["intent_valid"], 0.0)
        gg = (prob_valid * exact["level"].clip(min=0)).sum("intent").values
        assert np.allclose(gains, sorted(gg[gg > 0]), rtol=0, atol=1e-12), topic
    compared = official.assign(exact_measure=official["measure"].map(without_conventions))
    names = sorted(set(compared["measure"]) | set(compared["exact_measure"]))
    result = xdiv.evaluate(ranked, collection, names)
    score = result["score"].transpose("metric", "run", "topic").to_series()
    for column, measure in (("mine", "measure"), ("exact", "exact_measure")):
        values = score.reindex(pd.MultiIndex.from_frame(compared[[measure, "run", "topic"]]))
        compared[column] = values.to_numpy()
    printed_alike = prints_as_each(compared["mine"], compared["value"])
    if not printed_alike.all():
        row = next(compared[~printed_alike].itertuples())
        pytest.fail(f"{row.run} topic {row.topic} {row.file}: {row.printed} {row.value}, "
                    f"xdiv {row.measure} {row.mine}")
    return compared.assign(difference=(compared["mine"] - compared["value"].astype(float)).abs())


def test_the_pipelines_values_on_a_few_trec_2009_runs_and_topics(tmp_path):
    """Two TREC 2009 runs on five topics, cutoffs 10 and 20: every value line of the
    D-, DIN-, IA- and PQ-pipelines (and P+Q#)."""
    prob, dqrels, runs = convert(tmp_path, topics=["1", "2", "3", "4", "5"],
                                 runs=["ICTNETDivR1", "uogTrDYCcsB"])
    compared = compare(prob, dqrels, runs, tmp_path / "out", extended=True)
    # runs x topics x (cutoffs x values (25 of D and of DIN, 3 of IA, 1 of PQ, 2 of P+Q#)
    # + the eval2 scripts' values at cutoff 10 (28 of D, 5 of IA))
    assert len(compared) == 2 * 5 * (2 * (2 * 25 + 3 + 1 + 2) + 28 + 5)
    assert compared["difference"].max() <= 5e-5 + 1e-9
    assert not prints_as_each(compared["exact"], compared["value"]).all()  # the rounding shows


@pytest.mark.slow
def test_the_pipelines_values_on_the_trec_2009_runs(tmp_path):
    """The 18 TREC 2009 runs on the 50 topics, cutoffs 10 and 20: 130,500 values of the
    D-, DIN-, IA- and PQ-pipelines (and P+Q#), and of D-NTCIR-eval2 and D-NTCIR-IAeval2
    at cutoff 10, each printed as xdiv's value prints."""
    prob, dqrels, runs = convert(tmp_path)
    compared = compare(prob, dqrels, runs, tmp_path / "out", extended=True)
    assert len(runs) == 18
    assert len(compared) == 18 * 50 * (2 * (2 * 25 + 3 + 1 + 2) + 28 + 5)
    assert compared["difference"].max() <= 5e-5 + 1e-9
    differing = int((~prints_as_each(compared["exact"], compared["value"])).sum())
    assert differing > 1000  # without the rounding parameters


def test_rounded_parts_have_no_exact_expectation_over_tie_orders():
    """The expectation of a value rounded part by part is not the rounded expectation:
    ``ties="expected"`` refuses ``part_decimals``; ``gain_decimals`` rounds each gain,
    which the expectation over tie orders keeps."""
    qrels = pd.DataFrame([("1", "1", "a", 1), ("1", "2", "b", 1), ("1", "3", "c", 1)],
                         columns=["topic", "intent", "docno", "level"])
    runs = xdiv.build_runs(pd.DataFrame([("r", "1", d, 1.0) for d in "xbca"],
                                        columns=["run", "topic", "docno", "score"]))
    collection = xdiv.build_collection(qrels)
    for name in ("D#-nDCG(part_decimals=4)@2", "nDCG-IA(part_decimals=4)@2"):
        with pytest.raises(xdiv.MeasureError, match="part_decimals"):
            xdiv.evaluate(runs, collection, [name], ties="expected")
    rounded, exact = "D-nDCG(gain_decimals=4)@2", "D-nDCG@2"
    result = xdiv.evaluate(runs, collection, [rounded, exact], ties="expected")["score"]
    values = result.sel(run="r", topic="1")
    # GG = 1/3 per document: 0.3333 once rounded, in the run's list only
    assert float(values.sel(metric=rounded)) == pytest.approx(
        float(values.sel(metric=exact)) * 0.3333 * 3, rel=1e-12)
