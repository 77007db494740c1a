"""The ir_measures provider of xdiv.integrations.ir_measures.

Oracles: :func:`xdiv.evaluate` itself (per topic to 1e-12: the provider must only move
the data, by label, and rank as documented), on the TREC 2009 diversity qrels and its 18
runs read with ir_measures' own readers, and on random graded collections with spam,
score ties, unjudged documents and a topic without relevant documents given as
DataFrames, dicts and namedtuples; and ir_measures' pyndeval provider (TREC's ndeval) to
1e-6 where both compute, rel and judged_only included. The pyndeval provider hands one
run iterator to all its invocations, so each (rel, alpha, beta, judged_only) is asked
for in a call of its own.
"""

from __future__ import annotations

import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import xdiv

from ..conftest import require_trec_2009
from ..helpers import random_diversity_frames

ir_measures = pytest.importorskip("ir_measures")

from xdiv.integrations import ir_measures as X  # after the importorskip above

ASC, DESC = "score-docno-asc", "score-docno-desc"
TOL = 1e-12


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        return fn(*args, **kwargs)


def _per_topic(metrics) -> dict:
    """``{(str(measure), query_id): value}`` of an iter_calc."""
    out = {}
    for metric in metrics:
        key = (str(metric.measure), metric.query_id)
        assert key not in out, key
        out[key] = metric.value
    return out


# ------------------------------------------------------------------ TREC 2009

# (measure given to ir_measures, the registry name xdiv.evaluate is asked, run order)
CASES_2009 = [
    (ir_measures.alpha_nDCG@20, "alpha-nDCG@20", ASC),
    (ir_measures.ERR_IA@20, "ERR-IA@20", ASC),
    (ir_measures.nERR_IA@20, "nERR-IA@20", ASC),
    (ir_measures.NRBP, "NRBP", ASC),
    (ir_measures.StRecall@20, "I-rec@20", ASC),
    (ir_measures.P_IA@20, "P-IA@20", ASC),
    (X.xdiv_measure("nERR-IA@20"), "nERR-IA@20", DESC),
    (X.I_rec@20, "I-rec@20", DESC),
    (X.Dsharp_nDCG@10, "D#-nDCG@10", DESC),
]


@pytest.fixture(scope="module")
def trec2009_ir():
    """The 2009 qrels and runs as ir_measures reads them, and as xdiv reads them."""
    root = require_trec_2009()
    paths = sorted((root / "runs").glob("*.gz"))
    qrels = list(ir_measures.read_trec_qrels(str(root / "qrels.diversity.gz")))
    runs = {p.name[:-3]: list(ir_measures.read_trec_run(str(p))) for p in paths}
    collection = _quiet(xdiv.read_qrels, root / "qrels.diversity.gz")
    by_order = {order: _quiet(xdiv.read_runs, [str(p) for p in paths], order=order)
                for order in (ASC, DESC)}
    return qrels, runs, collection, by_order


@pytest.fixture(scope="module")
def provider_2009(trec2009_ir):
    """The provider's per-topic values of CASES_2009 on every 2009 run."""
    qrels, runs, _, _ = trec2009_ir
    evaluator = X.provider.evaluator([m for m, _, _ in CASES_2009], qrels)
    return {run: _per_topic(evaluator.iter_calc(lines)) for run, lines in runs.items()}


def test_provider_gives_xdiv_evaluates_scores_on_the_2009_runs(trec2009_ir, provider_2009):
    qrels, runs, collection, by_order = trec2009_ir
    expected = {order: _quiet(xdiv.evaluate, by_order[order], collection,
                              sorted({name for _, name, o in CASES_2009 if o == order}))
                for order in (ASC, DESC)}
    checked = 0
    for run, got in provider_2009.items():
        assert len(got) == len(CASES_2009) * 50
        for measure, name, order in CASES_2009:
            want = expected[order]["score"].sel(metric=name, run=run)
            for topic, value in zip(want.topic.values.tolist(), want.values.tolist()):
                assert not math.isnan(value)
                assert got[(str(measure), topic)] == pytest.approx(value, abs=TOL), \
                    (run, str(measure), topic)
                checked += 1
    assert checked == 18 * 50 * len(CASES_2009)
    # calc_aggregate: the mean over the topics
    measures = [m for m, _, _ in CASES_2009]
    for run in ("MSRABASE", "Sab9wtBDiv1"):
        means = X.provider.calc_aggregate(measures, qrels, runs[run])
        for measure, name, order in CASES_2009:
            want = float(expected[order]["score"].sel(metric=name, run=run).mean())
            assert means[measure] == pytest.approx(want, abs=TOL)
    # the tie order matters on these runs: I-rec@20 differs between the two orders
    assert float(abs(expected[ASC]["score"].sel(metric="I-rec@20")
                     - expected[DESC]["score"].sel(metric="I-rec@20")).max()) > 0.01


def test_ir_measures_pipeline_computes_xdiv_measures_on_the_2009_runs(trec2009_ir):
    qrels, runs, _, _ = trec2009_ir
    own = [X.Dsharp_nDCG@10, X.xdiv_measure("alpha-nDCG(ndeval=False)@20"), X.I_rec@20]
    for run in ("watd1", "ICTNETDivR1"):
        via_pipeline = ir_measures.calc_aggregate(own, qrels, runs[run])
        assert via_pipeline == X.provider.calc_aggregate(own, qrels, runs[run])
        assert set(via_pipeline) == set(own)
    # one tie order for all: xdiv's I-rec@20 is then ir_measures' StRecall@20
    asc = X.XdivProvider(order=ASC)
    for run in ("ICTNETDivR1", "Sab9wtBDiv1"):
        both = asc.calc_aggregate([X.I_rec@20, ir_measures.StRecall@20], qrels, runs[run])
        assert both[X.I_rec@20] == both[ir_measures.StRecall@20]


def test_pyndeval_provider_agrees_on_the_2009_runs(trec2009_ir, provider_2009):
    pytest.importorskip("pyndeval")
    qrels, runs, _, _ = trec2009_ir
    measures = [ir_measures.alpha_nDCG@20, ir_measures.ERR_IA@20]
    theirs = ir_measures.pyndeval.evaluator(measures, qrels)
    checked = 0
    for run, lines in runs.items():
        want = _per_topic(theirs.iter_calc(lines))
        got = provider_2009[run]
        assert len(want) == 2 * 50
        for key, value in want.items():
            assert got[key] == pytest.approx(value, abs=1e-6), key
            checked += 1
    assert checked == 18 * 50 * 2


# ------------------------------------------------------------------ synthetic inputs

def _random(seed: int, n_topics: int = 8):
    """Random graded diversity qrels and two runs (ties, spam, unjudged documents, a topic
    without relevant documents, topics a run lacks) as xdiv frames."""
    rng = np.random.default_rng(seed)
    qrels, runs = random_diversity_frames(rng, n_topics=n_topics, n_runs=2)
    runs = runs[~((runs["run"] == "run1") & (runs["topic"] == "2"))]  # run1 lacks topic 2
    return qrels, runs


def _ir_qrels(qrels: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"query_id": qrels["topic"], "doc_id": qrels["docno"],
                         "relevance": qrels["level"], "iteration": qrels["intent"]})


def _ir_run(runs: pd.DataFrame, name: str) -> pd.DataFrame:
    one = runs[runs["run"] == name]
    return pd.DataFrame({"query_id": one["topic"], "doc_id": one["docno"],
                         "score": one["score"]})


def _xdiv(qrels, runs, names, order, **options):
    col = _quiet(xdiv.build_collection, qrels)
    return _quiet(xdiv.evaluate, _quiet(xdiv.build_runs, runs, order=order), col, names,
                  **options)


SYNTHETIC = [(ir_measures.alpha_nDCG(alpha=0.3)@10, "alpha-nDCG(alpha=0.3)@10", ASC),
             (ir_measures.ERR_IA@5, "ERR-IA@5", ASC), (ir_measures.nNRBP, "nNRBP", ASC),
             (ir_measures.AP_IA, "MAP-IA", ASC), (ir_measures.alpha_DCG@30, "alpha-DCG@30", ASC),
             (X.Dsharp_nDCG(gamma=0.7)@10, "D#-nDCG(gamma=0.7)@10", DESC),
             (X.nDCG_IA@10, "nDCG-IA@10", DESC), (X.xdiv_measure("nDCG@10"), "nDCG@10", DESC),
             (X.xdiv_measure("ERR-IA(ndeval=False)@20"), "ERR-IA(ndeval=False)@20", DESC)]


@pytest.mark.parametrize("seed", [0, 1])
def test_dataframe_inputs_give_xdiv_evaluates_scores(seed):
    qrels, runs = _random(seed)
    no_relevant = str(qrels["topic"].astype(int).max())
    measures = [m for m, _, _ in SYNTHETIC]
    iq = _ir_qrels(qrels).sample(frac=1, random_state=seed)  # by label, not by position
    evaluator = _quiet(X.provider.evaluator, measures, iq)
    for name in ("run0", "run1"):
        run = _ir_run(runs, name).sample(frac=1, random_state=seed)
        run = pd.concat([run, pd.DataFrame({"query_id": ["99"], "doc_id": ["x"],
                                            "score": [1.0]})])  # a topic not in the qrels
        got = _per_topic(_quiet(list, evaluator.iter_calc(run)))
        assert {q for _, q in got} == set(qrels["topic"])
        for measure, xname, order in SYNTHETIC:
            want = _xdiv(qrels, runs[runs["run"] == name], [xname], order)["score"]
            for topic in qrels["topic"].unique():
                value = got[(str(measure), topic)]
                expected = float(want.sel(run=name, topic=topic).squeeze())
                if topic == no_relevant:
                    assert math.isnan(expected) and value == 0.0
                else:
                    assert value == pytest.approx(expected, abs=TOL), (str(measure), topic)
        if name == "run1":  # the topic the run lacks scores 0
            assert all(got[(str(m), "2")] == 0.0 for m in measures)


def test_dicts_namedtuples_and_frames_give_the_same_values():
    qrels, runs = _random(2)
    measures = [m for m, _, _ in SYNTHETIC[:3]] + [X.I_rec@5]
    frame_q = _ir_qrels(qrels)
    tuples_q = [ir_measures.Qrel(q, d, int(r), i) for q, d, r, i in
                frame_q[["query_id", "doc_id", "relevance", "iteration"]].itertuples(index=False)]
    ird_q = frame_q.rename(columns={"iteration": "subtopic_id"})  # ir_datasets' name
    frame_r = _ir_run(runs, "run0")
    dict_r: dict = {}
    for q, d, s in frame_r.itertuples(index=False):
        dict_r.setdefault(q, {})[d] = s
    tuples_r = (ir_measures.ScoredDoc(q, d, s) for q, d, s in frame_r.itertuples(index=False))
    want = _per_topic(_quiet(X.provider.iter_calc, measures, frame_q, frame_r))
    for q, r in [(tuples_q, dict_r), (iter(tuples_q), tuples_r), (ird_q, dict_r)]:
        assert _per_topic(_quiet(X.provider.iter_calc, measures, q, r)) == want


def test_query_ids_keep_their_type_and_the_mean_is_ir_measures_mean():
    qrels, runs = _random(3)
    iq = _ir_qrels(qrels).assign(query_id=qrels["topic"].astype(int))
    run = _ir_run(runs, "run0")  # string query ids: matched as strings
    metrics = _quiet(X.provider.iter_calc, [X.Dsharp_nDCG@10], iq, run)
    metrics = list(metrics)
    assert {type(m.query_id) for m in metrics} == {int}
    assert {m.query_id for m in metrics} == set(qrels["topic"].astype(int))
    mean = _quiet(X.provider.calc_aggregate, [X.Dsharp_nDCG@10], iq, run)[X.Dsharp_nDCG@10]
    assert mean == pytest.approx(sum(m.value for m in metrics) / len(metrics), abs=TOL)


def test_qrels_without_subtopics_warn():
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 1}}
    run = {"1": {"a": 2.0, "b": 1.0}, "2": {"c": 1.0}}
    with pytest.warns(xdiv.XdivWarning, match="more than one subtopic"):
        out = X.provider.calc_aggregate([ir_measures.alpha_nDCG@5], qrels, run)
    assert out[ir_measures.alpha_nDCG@5] == pytest.approx(1.0)
    with warnings.catch_warnings():  # single-intent measures have nothing to warn about
        warnings.simplefilter("error", xdiv.XdivWarning)
        out = X.provider.calc_aggregate([X.xdiv_measure("nDCG@2")], qrels, run)
    assert out[X.xdiv_measure("nDCG@2")] == pytest.approx(1.0)


@pytest.mark.parametrize("seed", [4, 5])
def test_rel_and_judged_only_as_pyndeval_reads_them(seed):
    qrels, runs = _random(seed)
    iq = _ir_qrels(qrels)
    run = _ir_run(runs, "run0")
    groups = [[ir_measures.alpha_nDCG(rel=2)@10, ir_measures.ERR_IA(rel=2)@10,
               ir_measures.StRecall(rel=2)@10],
              [ir_measures.alpha_nDCG(judged_only=True)@10, ir_measures.P_IA(judged_only=True)@5],
              [ir_measures.nERR_IA(rel=3, judged_only=True)@20]]
    # the xdiv side: levels made binary at rel, evaluate's judged_only
    binary = qrels.assign(level=(qrels["level"] >= 2).astype(int))
    want = _xdiv(binary, runs[runs["run"] == "run0"], ["alpha-nDCG@10"], ASC)["score"]
    got = _per_topic(_quiet(X.provider.iter_calc, groups[0], iq, run))
    for topic in qrels["topic"].unique():
        expected = float(want.sel(run="run0", topic=topic).squeeze())
        value = got[("alpha_nDCG(rel=2)@10", topic)]
        assert value == (0.0 if math.isnan(expected) else pytest.approx(expected, abs=TOL))
    condensed = _xdiv(qrels, runs[runs["run"] == "run0"], ["P-IA@5"], ASC, judged_only=True)
    got = _per_topic(_quiet(X.provider.iter_calc, groups[1], iq, run))
    for topic in qrels["topic"].unique():
        expected = float(condensed["score"].sel(run="run0", topic=topic).squeeze())
        if not math.isnan(expected):
            assert got[("P_IA(judged_only=True)@5", topic)] == pytest.approx(expected, abs=TOL)
    pytest.importorskip("pyndeval")
    judged = set(zip(qrels["topic"], qrels["docno"]))
    judged_run = run[[(q, d) in judged for q, d in zip(run["query_id"], run["doc_id"])]]
    for group in groups:
        ours = _per_topic(_quiet(X.provider.iter_calc, group, iq, run))
        # ir_measures 0.4.3's pyndeval provider fails on judged_only=True (it indexes a
        # generator): it is asked without it, on the run without the unjudged documents
        plain = [m(judged_only=False) if "judged_only" in m.params else m for m in group]
        given = judged_run if any("judged_only" in m.params for m in group) else run
        theirs = _per_topic(_quiet(ir_measures.pyndeval.iter_calc, plain, iq, given))
        theirs = {(str(m), q): theirs[(str(p), q)] for m, p in zip(group, plain)
                  for q in qrels["topic"].unique()}
        assert ours.keys() == theirs.keys()
        for key, value in theirs.items():
            if math.isnan(value):  # pyndeval's nNRBP on a topic without relevant documents
                continue
            assert ours[key] == pytest.approx(value, abs=1e-9), key


# ------------------------------------------------------------------ measures and errors

def test_measure_objects_print_as_registry_names():
    assert str(X.Dsharp_nDCG@10) == "D#-nDCG@10"
    assert str(X.Dsharp_nDCG(gamma=0.7)@10) == "D#-nDCG(gamma=0.7)@10"
    assert str(X.xdiv_measure("D#-nDCG(gamma=0.5)@10")) == "D#-nDCG@10"
    assert X.xdiv_measure("D#-nDCG(gamma=0.5)@10") == X.Dsharp_nDCG@10
    assert str(X.xdiv_measure("alpha-nDCG(ndeval=False)@20")) == "alpha-nDCG(ndeval=False)@20"
    assert str(X.xdiv_measure("P+Q#@10")) == "P+Q#@10" == str(X.PplusQsharp@10)
    # a registry name that ir_measures also uses, for another definition, is prefixed
    assert str(X.xdiv_measure("nDCG@10")) == "xdiv.nDCG@10"
    assert X.xdiv_measure("nDCG@10") != ir_measures.nDCG@10
    assert str(X.xdiv_measure("NRBP")) == "xdiv.NRBP"
    assert (X.I_rec@20).registry_measure() == xdiv.parse_measure("I-rec@20")
    assert X.xdiv_measure("strec@5").registry_measure().name == "I-rec@5"  # an alias


def test_which_measures_the_provider_takes():
    p = X.provider
    assert p.supports(ir_measures.alpha_nDCG@20) and p.supports(ir_measures.NRBP(beta=0.8))
    assert p.supports(X.Dsharp_nDCG@10) and p.supports(ir_measures.alpha_nDCG(rel=2)@30)
    assert not p.supports(ir_measures.ERR_IA)  # ndeval's ERR-IA needs a cutoff
    assert not p.supports(ir_measures.nDCG@10)  # pytrec_eval's
    with pytest.raises(xdiv.MeasureError, match="needs a cutoff"):
        p.supports(X.Dsharp_nDCG)
    with pytest.raises(xdiv.MeasureError, match="unknown measure"):
        X.xdiv_measure("D##-nDCG@10")
    with pytest.raises(xdiv.MeasureError, match="gamma"):
        X.xdiv_measure("D#-nDCG(gamma=5)")
    with pytest.raises(xdiv.InputError, match="score order"):
        X.XdivProvider(order="rank")


def test_u_measures_need_document_lengths():
    qrels = pd.DataFrame({"query_id": "1", "doc_id": ["a", "b", "c"], "relevance": 1,
                          "iteration": ["1", "2", "2"]})
    run = pd.DataFrame({"query_id": "1", "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    u = X.xdiv_measure("U-IA@3")
    with pytest.raises(xdiv.MeasureError, match="doc_lengths"):
        X.provider.calc_aggregate([u], qrels, run)
    lengths = pd.DataFrame({"doc_id": ["a", "b", "c"], "length": [500, 1000, 200]})
    with_lengths = X.XdivProvider(doc_lengths=lengths)
    value = with_lengths.calc_aggregate([u], qrels, run)[u]
    col = _quiet(xdiv.build_collection, pd.DataFrame({
        "topic": "1", "intent": ["1", "2", "2"], "docno": ["a", "b", "c"], "level": 1}))
    col = xdiv.set_doc_lengths(col, lengths)
    runs = xdiv.build_runs(run.rename(columns={"query_id": "topic", "doc_id": "docno"})
                           .assign(run="r"))
    assert value == pytest.approx(float(xdiv.evaluate(runs, col, ["U-IA@3"])["score"]
                                        .squeeze()), abs=TOL)


def test_registered_once_in_ir_measures():
    assert ir_measures.providers.registry["xdiv"] is X.provider
    X.register()
    names = [p.NAME for p in ir_measures.DefaultPipeline.providers]
    assert names.count("xdiv") == 1 and names[-1] == "xdiv"
    assert "iteration" in X.provider.qrel_inputs([ir_measures.alpha_nDCG@20])


def test_importing_xdiv_does_not_import_ir_measures():
    code = ("import sys, xdiv, xdiv.integrations; xdiv.evaluate; "
            "print('ir_measures' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                          cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def test_xdiv_measure_objects_are_accepted_by_evaluate():
    """xdiv's own ir_measures objects name registry measures, in evaluate as anywhere."""
    from xdiv.integrations.ir_measures import Dsharp_nDCG, xdiv_measure

    collection, runs = xdiv.datasets.example("fig1")
    via_objects = xdiv.evaluate(runs, collection, [Dsharp_nDCG @ 5, xdiv_measure("I-rec@5")])
    by_name = xdiv.evaluate(runs, collection, ["D#-nDCG@5", "I-rec@5"])
    assert list(via_objects["metric"].values) == ["D#-nDCG@5", "I-rec@5"]
    assert via_objects["score"].equals(by_name["score"])
