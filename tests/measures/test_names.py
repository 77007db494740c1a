"""trec_eval and ir_measures names, and the named measure sets, against the tools themselves.

Every translated name is scored by xdiv (through :func:`xdiv.measures.names.resolve`) and
by the tool (pytrec_eval for trec_eval names; ir_measures, with its own providers, for
ir_measures names and objects) on random graded collections (levels 0-4 and -2, score
ties, short runs, unjudged documents) and on real TREC 2009 Web Track runs, and compared
topic by topic. Runs are ranked in the order the tool uses for that measure
(``translate(...).order``). Topics without relevant documents are NaN in xdiv and left
out (the tools give 0 there).

Tolerances: 1e-9, except gdeval's measures (ir_measures' ``nDCG(dcg='exp-log2')@k`` and
``ERR@k``), which gdeval prints with 5 decimals: 5e-6.

Two ir_measures 0.4.3 quirks the oracle works around: its pyndeval provider hands one
run iterator to every pyndeval invocation, so measures with different (rel, alpha, beta)
requested in one call see an exhausted run after the first; and its pytrec_eval provider
may compute an nDCG without ``gains`` in the invocation of another nDCG's gains mapping.
The oracle therefore asks for each (rel, alpha, beta) of pyndeval, and for each nDCG with
gains, in a call of its own.
"""

from __future__ import annotations

import math
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import xdiv
from xdiv.measures import names as N
from xdiv.measures.registry import parse_measure

from ..helpers import random_adhoc_frames, random_diversity_frames

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("pyndeval")

GDEVAL_TOL = 5e-6 + 1e-12
RUNS_2009 = ["ICTNETDivR1", "Sab9wtBDiv1", "watd1"]  # two with many tied scores

# trec_eval names: (name, what pytrec_eval is asked for, the key it reports)
TREC_NAMES = [
    ("map", "map", "map"), ("P.10", "P.10", "P_10"), ("P_10", "P.10", "P_10"),
    ("P_5", "P.5", "P_5"), ("ndcg_cut.10", "ndcg_cut.10", "ndcg_cut_10"),
    ("ndcg_cut_10", "ndcg_cut.10", "ndcg_cut_10"), ("ndcg_cut_5", "ndcg_cut.5", "ndcg_cut_5"),
    ("ndcg", "ndcg", "ndcg"), ("recip_rank", "recip_rank", "recip_rank"),
    ("map_cut_10", "map_cut.10", "map_cut_10"), ("map_cut.5", "map_cut.5", "map_cut_5"),
    ("success_5", "success.5", "success_5"), ("success.1", "success.1", "success_1"),
]
# strings that are registry names keep xdiv's meaning: nDCG@k, nDCG, AP@k and ERR@k are
# checked as ir_measures objects instead (and shown to differ from the strings below)
IR_ADHOC = ["NDCG@10", "NDCG", "nDCG(dcg='log2')@5", "nDCG(dcg='exp-log2')@10", "AP", "MAP",
            "MAP@10", "P@10", "Precision@5", "RR", "MRR@5", "RR@10", "Success@5",
            "ERR(cutoff=20)", "nDCG(gains={0:0,1:1,2:3,3:7,4:15})@10",
            "nDCG(gains={1:1,2:5,3:6,4:9})@10", "P(rel=1)@10", "AP(judged_only=False)",
            "SetP", "SetP(relative=True)", "SetR", "SetF", "SetF(beta=0.5)", "SetF(beta=3.0)",
            "SetAP"]
IR_DIVERSITY = ["alpha_nDCG@20", "α_nDCG(alpha=0.3)@10", "alpha_nDCG(alpha=0.5)@20",
                "alpha_DCG@10", "ERR_IA@20", "nERR_IA@10", "NRBP", "nNRBP",
                "NRBP(alpha=0.2,beta=0.7)", "nNRBP(beta=0.8)", "AP_IA", "MAP_IA", "P_IA@10",
                "StRecall@10", "StRecall@20"]


def _objects():
    m = ir_measures
    return [m.nDCG@10, m.nDCG, m.nDCG(dcg="exp-log2")@20, m.AP, m.AP@10, m.P@10, m.RR,
            m.RR@10, m.Success@10, m.ERR@20, m.nDCG(gains={1: 1, 2: 3, 3: 7, 4: 15})@5,
            m.alpha_nDCG@20, m.alpha_nDCG(alpha=0.3)@10, m.ERR_IA@20, m.nERR_IA@20,
            m.alpha_DCG@5, m.NRBP, m.nNRBP(alpha=0.8), m.AP_IA, m.MAP_IA, m.P_IA@20,
            m.StRecall@5]


# ------------------------------------------------------------------ helpers

def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        return fn(*args, **kwargs)


def _xdiv_scores(col, runs: pd.DataFrame, measure, order: str | None) -> dict:
    return _xdiv_batch(col, runs, [measure], order)[0]


def _xdiv_batch(col, runs: pd.DataFrame, measures: list, order: str | None) -> list[dict]:
    """``{(run, topic): score}`` of each of ``measures``, from one evaluation of the runs
    ranked in ``order``."""
    built = _built(runs, order or N.TREC)
    unique = list(dict.fromkeys(measures))
    score = _quiet(xdiv.evaluate, built, col, unique).score.transpose("metric", "run", "topic")
    keys = [(str(r), str(t)) for r in score.run.values for t in score.topic.values]
    values = score.values.reshape(len(unique), -1).tolist()
    return [dict(zip(keys, values[unique.index(m)])) for m in measures]


_MADE: dict = {}
"""What :func:`_built` and :func:`_ir_frames` made, by the identity of their inputs (kept
beside it, so that the identity stays theirs): the module's tests ask for the same runs
and frames of the 2009 data many times (issue 35 item 18)."""


def _made_once(key: tuple, inputs: tuple, make):
    held = _MADE.get(key)
    if held is None or any(a is not b for a, b in zip(held[0], inputs)):
        held = _MADE[key] = (inputs, make())
    return held[1]


def _built(runs: pd.DataFrame, order: str):
    """``runs`` (a frame) as xdiv runs ranked in ``order``, built once per frame."""
    return _made_once(("runs", id(runs), order), (runs,), lambda: _quiet(
        xdiv.build_runs, runs[["run", "topic", "docno", "score"]], order=order))


def _compare(mine: dict, oracle: dict, tol: float, label) -> tuple[float, int]:
    worst, checked = 0.0, 0
    for key, want in oracle.items():
        got = mine[key]
        if math.isnan(got):
            continue
        assert got == pytest.approx(want, abs=tol), (label, key, got, want)
        worst, checked = max(worst, abs(got - want)), checked + 1
    return worst, checked


def _trec_oracle(qrels: pd.DataFrame, runs: pd.DataFrame, requests) -> dict:
    qrel: dict = {}
    for t, d, lv in qrels[["topic", "docno", "level"]].itertuples(index=False):
        qrel.setdefault(str(t), {})[str(d)] = int(lv)
    evaluator = pytrec_eval.RelevanceEvaluator(qrel, set(requests))
    out: dict = {}
    for name, frame in runs.groupby("run"):
        run: dict = {}
        for t, d, s in frame[["topic", "docno", "score"]].itertuples(index=False):
            run.setdefault(str(t), {})[str(d)] = float(s)
        for topic, values in evaluator.evaluate(run).items():
            for key, value in values.items():
                out.setdefault(key, {})[(str(name), topic)] = value
    return out


def _ir_frames(qrels: pd.DataFrame, runs: pd.DataFrame):
    """The qrels and each run as ir_measures frames, and as the Qrel and ScoredDoc tuples
    ir_measures' own converters make of them, made once per pair of frames."""
    return _made_once(("ir", id(qrels), id(runs)), (qrels, runs),
                      lambda: _make_ir_frames(qrels, runs))


def _make_ir_frames(qrels: pd.DataFrame, runs: pd.DataFrame):
    order = qrels["intent"].astype(int)  # intents in numeric order, as the ndeval binary
    q = qrels.assign(key=order).sort_values(["key", "topic"], kind="stable")
    iq = pd.DataFrame({"query_id": _strings(q["topic"]), "iteration": _strings(q["intent"]),
                       "doc_id": _strings(q["docno"]),
                       "relevance": q["level"].astype(int).to_numpy()})
    runs = runs.sort_values("topic", kind="stable")
    per_run = {str(name): pd.DataFrame({
        "query_id": _strings(f["topic"]), "doc_id": _strings(f["docno"]),
        "score": f["score"].astype(float).to_numpy()}) for name, f in runs.groupby("run")}
    util = ir_measures.util
    return (iq, per_run, list(util.QrelsConverter(iq).as_namedtuple_iter()),
            {name: list(util.RunConverter(frame).as_namedtuple_iter())
             for name, frame in per_run.items()})


def _strings(column: pd.Series) -> pd.Series:
    """Python strings in an object column (ranx refuses pandas' string dtype)."""
    return pd.Series([str(v) for v in column], dtype=object)


def _ir_oracles(measures, iq, per_run, iq_tuples, per_run_tuples) -> dict:
    """``{repr(measure): {(run, topic): value}}``, one ir_measures evaluator per group of
    measures pyndeval computes in one invocation and one per nDCG with ``gains`` (see the
    module docstring). Those groups get the qrels and runs as tuples made once
    (:func:`_ir_frames`; ir_measures converts a frame anew for every evaluator and run it
    is given, seconds of CPU on the 2009 runs: issue 35 item 18); the other measures get
    the frames (ranx, one of the providers there, takes tuples into a frame of pandas'
    string dtype, which it refuses)."""
    groups: dict = {}
    for m in measures:
        key = (m["rel"], m["alpha"] if "alpha" in m.SUPPORTED_PARAMS else 0.5,
               m["beta"] if "beta" in m.SUPPORTED_PARAMS else 0.5) if m.NAME in _PYNDEVAL \
            else repr(m) if "gains" in m.params else "other"
        groups.setdefault(key, []).append(m)
    out: dict = {}
    for key, group in groups.items():
        qrels, runs = (iq, per_run) if key == "other" else (iq_tuples, per_run_tuples)
        evaluator = ir_measures.evaluator(group, qrels)
        for name, run in runs.items():
            for metric in evaluator.iter_calc(run):
                out.setdefault(repr(metric.measure), {})[(name, str(metric.query_id))] = \
                    float(metric.value)
    return out


_PYNDEVAL = {"ERR_IA", "nERR_IA", "alpha_DCG", "alpha_nDCG", "NRBP", "nNRBP", "AP_IA", "P_IA",
             "StRecall"}


def _check_ir(measures, qrels, runs, col) -> int:
    objects = [m if not isinstance(m, str) else ir_measures.parse_measure(m) for m in measures]
    oracles = _quiet(_ir_oracles, list(dict.fromkeys(objects)), *_ir_frames(qrels, runs))
    by_order: dict = {}  # the order ir_measures' provider ranks by -> its measures
    for given, ir_obj in zip(measures, objects):
        by_order.setdefault(N.translate(ir_obj).order, []).append((given, ir_obj))
    checked = 0
    for order, pairs in by_order.items():
        batch = _xdiv_batch(col, runs, [N.resolve(given) for given, _ in pairs], order)
        for (given, ir_obj), mine in zip(pairs, batch):
            tol = GDEVAL_TOL if _gdeval(ir_obj) else 1e-9
            n = _compare(mine, oracles[repr(ir_obj)], tol, str(given))[1]
            assert n > 0, given
            checked += n
    return checked


def _gdeval(measure) -> bool:
    return (measure.NAME == "ERR" or (measure.NAME == "nDCG" and "cutoff" in measure.params
                                       and measure["dcg"] == "exp-log2"))


def _random_adhoc(seed: int, *, untied: bool = False):
    rng = np.random.default_rng(seed)
    qrels, runs = random_adhoc_frames(rng, n_topics=10, n_runs=3, max_level=4, spam=True)
    if untied:
        runs["score"] = runs["score"] + rng.permutation(len(runs)) * 1e-6
    return qrels, runs, _quiet(xdiv.build_collection, qrels)


def _trec_names_scored(col, runs: pd.DataFrame):
    """``(name, request, key, xdiv's scores)`` of each of :data:`TREC_NAMES`, from one
    evaluation per rank order."""
    resolved = [N.translate(name) for name, _, _ in TREC_NAMES]
    scored = {}
    for order in dict.fromkeys(r.order for r in resolved):
        picked = [k for k, r in enumerate(resolved) if r.order == order]
        batch = _xdiv_batch(col, runs, [resolved[k].measure for k in picked], order)
        scored.update(zip(picked, batch))
    return [(*names, scored[k]) for k, names in enumerate(TREC_NAMES)]


@pytest.fixture(scope="module")
def adhoc2009(trec2009):
    col, runs = trec2009
    adhoc = xdiv.to_adhoc(col, "max")
    frame = xdiv.runs_frame(runs.sel(run=RUNS_2009))
    return adhoc, xdiv.qrels_frame(adhoc), frame


@pytest.fixture(scope="module")
def diversity2009(trec2009):
    col, runs = trec2009
    frame = xdiv.runs_frame(runs.sel(run=RUNS_2009[:2]))
    return col, xdiv.qrels_frame(col), frame


# ------------------------------------------------------------------ trec_eval names

@pytest.mark.parametrize("seed", [0, 1])
def test_trec_eval_names_agree_with_pytrec_eval_on_graded_collections(seed):
    qrels, runs, col = _random_adhoc(seed)
    oracle = _trec_oracle(qrels, runs, {request for _, request, _ in TREC_NAMES})
    checked = 0
    for name, _, key, mine in _trec_names_scored(col, runs):
        resolved = N.translate(name)
        assert resolved.tool == "trec_eval" and resolved.order == N.TREC
        checked += _compare(mine, oracle[key], 1e-9, name)[1]
    assert checked > 20 * len(TREC_NAMES)
    # the collection tells the gains apart: xdiv's own nDCG@10 is not ndcg_cut_10
    default = _xdiv_scores(col, runs, parse_measure("nDCG@10"), N.TREC)
    assert max(abs(default[k] - v) for k, v in oracle["ndcg_cut_10"].items()
               if not math.isnan(default[k])) > 1e-3


def test_trec_eval_names_agree_with_pytrec_eval_on_trec2009(adhoc2009):
    col, qrels, frame = adhoc2009
    oracle = _trec_oracle(qrels, frame, {request for _, request, _ in TREC_NAMES})
    for name, _, key, mine in _trec_names_scored(col, frame):
        n = _compare(mine, oracle[key], 1e-9, name)[1]
        assert n == len(RUNS_2009) * 50


def test_trec_eval_cutoff_lists_and_default_cutoffs():
    assert [m.name for m in N.expand_measures("P.5,10,30")] == [
        N.resolve(f"P_{k}").name for k in (5, 10, 30)]
    assert [m.cutoff for m in N.expand_measures("ndcg_cut")] == list(N.TREC_CUTOFFS)
    assert [m.cutoff for m in N.expand_measures("success")] == [1, 5, 10]
    with pytest.raises(xdiv.MeasureError, match="expand_measures"):
        N.resolve("P.5,10")


# ------------------------------------------------------------------ ir_measures

@pytest.mark.parametrize("seed", [0, 1])
def test_ir_measures_adhoc_names_agree_on_graded_collections(seed):
    qrels, runs, col = _random_adhoc(seed)
    assert _check_ir(IR_ADHOC, qrels, runs, col) > 20 * len(IR_ADHOC)


def test_ir_measures_ranx_ndcg_agrees_on_untied_scores():
    # nDCG(dcg='exp-log2') without a cutoff goes to ranx, which leaves ties unordered
    qrels, runs, col = _random_adhoc(3, untied=True)
    assert N.translate("nDCG(dcg='exp-log2')").order is None
    _check_ir(["nDCG(dcg='exp-log2')", ir_measures.nDCG(dcg="exp-log2")], qrels, runs, col)


@pytest.mark.parametrize("seed", [0, 1])
def test_ir_measures_diversity_names_agree_on_graded_collections(seed):
    rng = np.random.default_rng(seed)
    qrels, runs = random_diversity_frames(rng, n_topics=8, n_runs=2)
    col = _quiet(xdiv.build_collection, qrels)
    assert _check_ir(IR_DIVERSITY, qrels, runs, col) > 10 * len(IR_DIVERSITY)


def test_ir_measures_objects_agree(adhoc2009, diversity2009):
    adhoc = [o for o in _objects() if o.NAME in ("nDCG", "AP", "P", "RR", "Success", "ERR")]
    diverse = [o for o in _objects() if o not in adhoc]
    qrels, runs, col = _random_adhoc(2)
    _check_ir(adhoc, qrels, runs, col)
    col09, qrels09, frame = adhoc2009
    _check_ir(adhoc, qrels09, frame, col09)
    col09, qrels09, frame = diversity2009
    _check_ir(diverse, qrels09, frame, col09)


def test_ir_measures_names_on_trec2009(adhoc2009, diversity2009):
    col, qrels, frame = adhoc2009
    _check_ir(["NDCG@20", "nDCG(dcg='exp-log2')@20", "ERR(cutoff=20)", "MAP@10", "MRR@10",
               "P@5"], qrels, frame, col)
    col, qrels, frame = diversity2009
    _check_ir(IR_DIVERSITY, qrels, frame, col)


def test_objects_keep_ir_measures_definitions_strings_keep_xdivs():
    pairs = [("nDCG@10", ir_measures.nDCG@10), ("nDCG", ir_measures.nDCG),
             ("AP@10", ir_measures.AP@10), ("ERR@20", ir_measures.ERR@20)]
    for text, obj in pairs:
        assert N.translate(text).tool == "xdiv"
        assert N.resolve(text) == parse_measure(text)
        assert N.resolve(obj) != N.resolve(text), text
    for text, obj in [("P@10", ir_measures.P@10), ("RR", ir_measures.RR),
                      ("NRBP", ir_measures.NRBP), ("AP", ir_measures.AP)]:
        assert N.resolve(obj) == N.resolve(text), text


def test_ir_measures_grammar_without_ir_measures(monkeypatch):
    strings = IR_ADHOC + IR_DIVERSITY + ["nDCG(dcg='exp-log2', judged_only=False)@10",
                                         "Judged@10", "R@100"]
    with_package = [_outcome(s) for s in strings]
    for s in strings:
        if not _is_registry(s):
            theirs = ir_measures.parse_measure(s)
            assert N.parse_ir_measures_string(s) == (theirs.NAME, theirs.params), s
    monkeypatch.setitem(sys.modules, "ir_measures", None)  # import ir_measures now fails
    assert [_outcome(s) for s in strings] == with_package
    for text in ("qrels.txt", "runs/a.gz", "Unknown@10", "nDCG(1)@10", "x + y"):
        assert N.parse_ir_measures_string(text) is None


def _outcome(text: str) -> str:
    try:
        return N.resolve(text).name
    except xdiv.MeasureError as exc:
        return f"error: {exc}"


def _is_registry(text: str) -> bool:
    try:
        parse_measure(text)
    except xdiv.MeasureError:
        return False
    return True


# ------------------------------------------------------------------ measure sets

def test_every_measure_set_parses_and_is_described():
    for name, entry in N.MEASURE_SETS.items():
        names = N.measure_set(name)
        assert names == list(entry.names) and names
        assert [m.name for m in N.expand_measures(name)] == [parse_measure(n).name
                                                             for n in names]
        assert entry.description and "\n" not in entry.description
        assert f"`{name}`" in N.describe_sets()
    assert len(N.measure_set("ndeval")) == 21
    table = N.describe_translations()
    assert all(f"`{t.name}" in table for t in N.TRANSLATIONS)
    for t in N.TRANSLATIONS:  # every target is a registry spelling
        if t.target is not None:
            parse_measure(t.target + ("@10" if t.cutoff == "required" else ""))
    with pytest.raises(xdiv.MeasureError, match="ndeval, gdeval, trec_eval, ntcir-intent"):
        N.measure_set("trec")


def test_tables_and_sets_are_importable_from_names():
    from xdiv.measures import sets, translations
    for module in (translations, sets):
        for name in module.__all__:
            assert name in N.__all__ and getattr(N, name) is getattr(module, name), name
    assert all(hasattr(N, name) for name in N.__all__)


def test_ndeval_set_agrees_with_pyndeval_labels(diversity2009):
    import pyndeval

    col, qrels, frame = diversity2009
    labels = N.measure_set("ndeval")
    scores = _quiet(xdiv.evaluate, _quiet(xdiv.build_runs, frame[["run", "topic", "docno",
                                                                  "score"]], order=N.ASC),
                    col, labels)
    q = [pyndeval.SubtopicQrel(t, i, d, int(lv)) for t, i, d, lv in
         qrels.assign(k=qrels["intent"].astype(int)).sort_values(["k", "topic"])
         [["topic", "intent", "docno", "level"]].itertuples(index=False)]
    # the cube is labelled as asked (strec@5), the registry name beside it (I-rec@5)
    assert scores.metric.values.tolist() == labels
    assert scores.canonical.values.tolist() == [m.name for m in N.expand_measures(labels)]
    table = scores.score.transpose("metric", "run", "topic").to_series().to_dict()
    checked = 0
    for name, f in frame.sort_values("topic", kind="stable").groupby("run"):
        run = [pyndeval.ScoredDoc(t, d, s) for t, d, s in
               f[["topic", "docno", "score"]].itertuples(index=False)]
        result = pyndeval.ndeval(q, run, measures=labels)
        for topic, values in result.items():
            if topic == "amean":
                continue
            for label in labels:
                got = float(table[label, name, topic])
                assert got == pytest.approx(values[label], abs=1e-9), (label, name, topic)
                checked += 1
    assert checked == 2 * 50 * 21


def test_gdeval_set_agrees_with_gdeval(adhoc2009):
    gdeval = [ir_measures.nDCG(dcg="exp-log2")@20, ir_measures.ERR@20]
    assert [N.resolve(m).name for m in gdeval] == [parse_measure(n).name
                                                   for n in N.measure_set("gdeval")]
    col, qrels, frame = adhoc2009  # binary: gdeval's ERR still divides by 2^4
    _check_ir(gdeval, qrels, frame, col)
    own = _xdiv_scores(col, frame, parse_measure("ERR@20"), N.TREC)  # H = 1 here
    want = _xdiv_scores(col, frame, N.resolve(gdeval[1]), N.TREC)
    assert max(abs(own[k] - want[k]) for k in want if not math.isnan(want[k])) > 0.1
    qrels, runs, col = _random_adhoc(4)
    _check_ir(gdeval, qrels, runs, col)


def test_trec_eval_set_agrees_with_trec_evals_defaults():
    keys = (["num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank"]
            + [f"P_{k}" for k in N.TREC_CUTOFFS])
    names = N.measure_set("trec_eval")
    assert [N.resolve(k).name for k in keys] == [parse_measure(n).name for n in names]
    qrels, runs, _ = _random_adhoc(5)
    qrels = qrels.assign(level=qrels["level"].clip(lower=0))  # bpref reads -2 apart
    col = _quiet(xdiv.build_collection, qrels)
    oracle = _trec_oracle(qrels, runs, {"official"})
    for key, name in zip(keys, names):
        _compare(_xdiv_scores(col, runs, parse_measure(name), N.TREC), oracle[key], 1e-9,
                 name)


# ------------------------------------------------------------------ errors

@pytest.mark.parametrize("name, words", [
    ("gm_bpref", ["geometric mean", "bpref"]),
    ("gm_map", ["geometric mean", "AP"]),
    ("NumRet(rel=2)", ["NumRet only with", "rel=1"]),
    ("Bpref(rel=2)", ["rel=2", "levels >= 1"]),
    ("P(rel=2)@10", ["rel=2", "levels >= 1", "qrels"]),
    ("AP(rel=3)", ["rel=3", "levels >= 1"]),
    ("alpha_nDCG(rel=2)@20", ["rel=2"]),
    ("nDCG(judged_only=True)@10", ["judged_only", "unjudged"]),
    ("nDCG(gains={1:5,2:1})@10", ["non-decreasing", "ideal list"]),
    ("nDCG(gains={0:1})@10", ["gain 0"]),
    ("nDCG(dcg='exp-log2',gains={1:1})@10", ["gains", "no counterpart"]),
    ("alpha_nDCG", ["needs a cutoff"]),
    ("NRBP@10", ["no cutoff"]),
    ("RBP(rel=1)", ["binary", "gain=(1,...,1)"]),
    ("map.10", ["takes no parameter"]),
    ("ndeval", ["set of 21", "expand_measures"]),
])
def test_unsupported_names_say_what_differs(name, words):
    with pytest.raises(xdiv.MeasureError) as info:
        N.resolve(name)
    message = str(info.value)
    assert "\n" not in message and isinstance(info.value, ValueError)
    for word in words:
        assert word in message, (word, message)


def test_objects_errors_and_unknown_names():
    assert N.translate("ERR").tool == "xdiv"
    with pytest.raises(xdiv.MeasureError, match="needs a cutoff"):
        N.resolve(ir_measures.ERR)  # gdeval's ERR needs one
    with pytest.raises(xdiv.MeasureError, match="rel=2"):
        N.resolve(ir_measures.AP(rel=2))
    with pytest.raises(xdiv.MeasureError, match="stands for 11 measures"):
        N.resolve("iprec_at_recall")  # trec_eval's eleven recall levels
    assert [N.resolve(name).name for name in ("Rprec_mult_0.5", "iprec_at_recall_0.10",
                                              "R@100")] == [
        "Rprec-mult(m=0.5)", "IPrec(recall=0.1)", "Recall@100"]
    with pytest.raises(xdiv.MeasureError, match="unknown measure"):
        N.resolve("nDGC@10")
    with pytest.raises(xdiv.MeasureError, match="requested twice"):
        N.expand_measures("P@10,P_10")
    assert [m.name for m in N.expand_measures(["ndeval", "alpha-nDCG@20"])][-1] == "I-rec@20"
    with pytest.raises(xdiv.MeasureError, match="string"):
        N.resolve(3)


def test_expand_resolved_carries_tool_and_order():
    got = [(r.measure.name, r.tool, r.order) for r in N.expand_resolved(
        ["gdeval", "ndcg_cut.5,10", ir_measures.RR@10, "alpha_nDCG@20", "D#-nDCG@10"])]
    assert got == [("nDCG@20", "gdeval", N.TREC), ("ERR(H=4)@20", "gdeval", N.TREC),
                   ("nDCG(gain=linear)@5", "trec_eval", N.TREC),
                   ("nDCG(gain=linear)@10", "trec_eval", N.TREC),
                   ("RR@10", "ir_measures", N.ASC), ("alpha-nDCG@20", "ir_measures", N.ASC),
                   ("D#-nDCG@10", "xdiv", None)]
