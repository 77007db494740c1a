"""trec_eval's staple measures against trec_eval (pytrec_eval) and ir_measures.

Rprec, bpref, the counts num_ret / num_rel / num_rel_ret, success@k, uncut ndcg and
ir_measures' Judged@k, each asked for by its trec_eval or ir_measures name, are compared
topic by topic to 1e-9 with the tool on random graded collections (levels 0-4 and -2,
score ties, runs shorter than R and than the cutoffs, unjudged documents) and on the TREC
2009 Web Track runs with the diversity qrels converted to adhoc relevance (max), skipped
when ../shared is absent. Topics without relevant documents are NaN in xdiv and left out.

bpref is the one measure where xdiv reads a negative level differently from trec_eval
(judged non-relevant, where trec_eval skips it as "in the pool but unjudged"): it is
compared on the same qrels with negative levels set to 0, and the difference on the raw
qrels is shown.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import xdiv
from xdiv.measures import names as N

from .test_names import (RUNS_2009, _check_ir, _compare, _quiet, _random_adhoc,
                         _trec_oracle, _xdiv_scores)

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")

# trec_eval names: (name, what pytrec_eval is asked for, the key it reports)
STAPLES = [("Rprec", "Rprec", "Rprec"), ("num_ret", "num_ret", "num_ret"),
           ("num_rel", "num_rel", "num_rel"), ("num_rel_ret", "num_rel_ret", "num_rel_ret"),
           ("success.10", "success.10", "success_10"), ("success_1", "success.1", "success_1"),
           ("ndcg", "ndcg", "ndcg")]
BPREF = ("bpref", "bpref", "bpref")
IR_STRINGS = ["Judged@10", "Judged@20", "Judged", "Rprec", "Bpref", "NumRet", "NumRelRet",
              "NumRet(rel=1)", "NumRel", "Success@10"]


def _ir_objects():
    m = ir_measures
    return [m.Judged@5, m.Judged@10, m.Judged, m.Rprec, m.Bpref, m.NumRet, m.NumRelRet,
            m.NumRel, m.Success@10, m.nDCG]


def _no_negatives(qrels: pd.DataFrame) -> pd.DataFrame:
    return qrels.assign(level=qrels["level"].clip(lower=0))


def _check_trec(names, qrels, runs, col) -> int:
    """Each trec_eval name through xdiv against pytrec_eval; the topics compared."""
    oracle = _trec_oracle(qrels, runs, {request for _, request, _ in names})
    checked = 0
    for name, _, key in names:
        resolved = N.translate(name)
        assert resolved.order in (N.TREC, None)  # a registry name: the runs' default order
        mine = _xdiv_scores(col, runs, resolved.measure, N.TREC)
        n = _compare(mine, oracle[key], 1e-9, name)[1]
        assert n > 0, name
        checked += n
    return checked


@pytest.fixture(scope="module")
def adhoc2009(trec2009):
    col, runs = trec2009
    adhoc = xdiv.to_adhoc(col, "max")
    return adhoc, xdiv.qrels_frame(adhoc), xdiv.runs_frame(runs.sel(run=RUNS_2009))


# ------------------------------------------------------------------ trec_eval

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_staples_agree_with_trec_eval_on_random_collections(seed):
    qrels, runs, col = _random_adhoc(seed)
    assert (qrels["level"] < 0).any()  # spam levels: read as non-relevant by both
    assert _check_trec(STAPLES, qrels, runs, col) > 20 * len(STAPLES)
    # the conventions are exercised: runs shorter than R (Rprec) and than 10 (success)
    lengths = runs.groupby(["run", "topic"]).size()
    relevant = qrels[qrels["level"] > 0].groupby("topic").size()
    short = [(r, t) for (r, t), n in lengths.items() if n < relevant.get(t, 0)]
    assert short and (lengths < 10).any()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bpref_agrees_with_trec_eval_without_negative_levels(seed):
    qrels, runs, _ = _random_adhoc(seed)
    clean = _no_negatives(qrels)
    col = _quiet(xdiv.build_collection, clean)
    assert _check_trec([BPREF], clean, runs, col) > 20
    # xdiv reads the raw qrels' -2 as judged non-relevant, exactly as the clean qrels
    raw = _quiet(xdiv.build_collection, qrels)
    assert pd.Series(_xdiv_scores(raw, runs, N.resolve("bpref"), N.TREC)).equals(
        pd.Series(_xdiv_scores(col, runs, N.resolve("bpref"), N.TREC)))


def test_bpref_reads_negative_levels_as_judged_nonrelevant_unlike_trec_eval():
    qrels, runs, col = _random_adhoc(0)
    mine = _xdiv_scores(col, runs, N.resolve("bpref"), N.TREC)
    theirs = _trec_oracle(qrels, runs, {"bpref"})["bpref"]
    differ = [k for k, v in theirs.items() if not np.isnan(mine[k]) and abs(mine[k] - v) > 1e-9]
    assert differ  # trec_eval skips the -2 documents as unjudged
    assert "negative level" in N.translate(ir_measures.Bpref).note


def test_staples_agree_with_trec_eval_on_trec2009(adhoc2009):
    col, qrels, frame = adhoc2009
    assert (qrels["level"] >= 0).all()
    checked = _check_trec(STAPLES + [BPREF], qrels, frame, col)
    assert checked == len(RUNS_2009) * 50 * (len(STAPLES) + 1)


def test_counts_are_whole_numbers_and_sets_name_them():
    qrels, runs, col = _random_adhoc(3)
    scores = _quiet(xdiv.evaluate, _quiet(xdiv.build_runs, runs), col, "trec_eval")
    counts = scores.score.sel(metric=["NumRet", "NumRel", "NumRelRet"]).values
    finite = counts[np.isfinite(counts)]
    assert finite.size and (finite == np.round(finite)).all()
    assert np.isnan(counts).any()  # the topic without relevant documents, like every measure
    keys = ["num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank"]
    assert [N.resolve(k).name for k in keys] == list(N.measure_set("trec_eval"))[:len(keys)]


# ------------------------------------------------------------------ ir_measures

@pytest.mark.parametrize("seed", [0, 1])
def test_ir_measures_names_agree_on_random_collections(seed):
    qrels, runs, col = _random_adhoc(seed)
    clean = _no_negatives(qrels)  # for Bpref, see the module docstring
    col = _quiet(xdiv.build_collection, clean)
    assert _check_ir(IR_STRINGS, clean, runs, col) > 20 * len(IR_STRINGS)
    assert _check_ir(_ir_objects(), clean, runs, col) > 20 * len(_ir_objects())


def test_judged_counts_every_qrels_line_like_ir_measures():
    qrels, runs, col = _random_adhoc(4)  # raw levels: -2 and 0 are judged too
    assert (qrels["level"] < 0).any() and (qrels["level"] == 0).any()
    _check_ir(["Judged@10", "Judged@3", "Judged"], qrels, runs, col)


def test_ir_measures_names_on_trec2009(adhoc2009):
    col, qrels, frame = adhoc2009
    _check_ir(IR_STRINGS, qrels, frame, col)


# ------------------------------------------------------------------ names

def test_names_resolve_to_the_new_measures():
    assert N.resolve("Rprec").name == "Rprec" and N.resolve("bpref").name == "bpref"
    assert N.resolve("Bpref").name == "bpref"
    assert [N.resolve(n).name for n in ("num_ret", "num_rel", "num_rel_ret")] == [
        "NumRet", "NumRel", "NumRelRet"]
    assert N.resolve(ir_measures.NumRelRet).name == "NumRelRet"
    assert N.resolve(ir_measures.NumRet).name == "NumRet"
    assert N.resolve("Judged@10").name == "Judged@10"
    assert N.translate(ir_measures.Judged@10).order == N.ASC
    assert N.resolve("success.10").name == N.resolve("Success@10").name == "Hit@10"
    assert N.parse_ir_measures_string("NumRelRet") == ("NumRet", {"rel": 1})
    with pytest.raises(xdiv.MeasureError, match="rel=2"):
        N.resolve(ir_measures.Bpref(rel=2))
    with pytest.raises(xdiv.MeasureError, match="NumRet only with"):
        N.resolve(ir_measures.NumRet(rel=2))
