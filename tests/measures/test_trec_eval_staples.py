"""trec_eval's staple measures against trec_eval (pytrec_eval) and ir_measures.

Rprec, bpref, the counts num_ret / num_rel / num_rel_ret, success@k, uncut ndcg and
ir_measures' Judged@k, each asked for by its trec_eval or ir_measures name, are compared
topic by topic to 1e-9 with the tool on random graded collections (levels 0-4 and -2,
score ties, runs shorter than R and than the cutoffs, unjudged documents), on the TREC
2009 Web Track runs with the diversity qrels converted to adhoc relevance (max), and on
the TREC 2012 diversity qrels (-2 spam levels) with synthetic runs; the real data are
skipped when ../shared is absent. Topics without relevant documents are NaN in xdiv and
left out.

Negative levels: trec_eval reads a qrels line of negative level as "in the pool but
unjudged", which only bpref sees (it skips such documents in the ranking and leaves them
out of N); ir_measures' Judged counts any qrels line. Diversity qrels reach trec_eval
converted to adhoc relevance; the oracle converts them here with pandas, independently of
xdiv: ``max`` is a document's highest level over its lines, ``count`` the number of its
lines of level >= 1, and a document whose levels are all negative keeps its highest
(negative) level.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import xdiv
from xdiv.measures import names as N

from ..conftest import TREC_WEB
from ..helpers import random_diversity_frames
from ..measures.test_names import (RUNS_2009, _check_ir, _compare, _quiet, _random_adhoc,
                         _trec_oracle, _xdiv_scores)

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")

# trec_eval names: (name, what pytrec_eval is asked for, the key it reports)
STAPLES = [("Rprec", "Rprec", "Rprec"), ("num_ret", "num_ret", "num_ret"),
           ("num_rel", "num_rel", "num_rel"), ("num_rel_ret", "num_rel_ret", "num_rel_ret"),
           ("success.10", "success.10", "success_10"), ("success_1", "success.1", "success_1"),
           ("ndcg", "ndcg", "ndcg"), ("bpref", "bpref", "bpref")]
BPREF = [("bpref", "bpref", "bpref")]
COUNTS = [("Rprec", "Rprec", "Rprec"), ("num_rel", "num_rel", "num_rel"),
          ("num_rel_ret", "num_rel_ret", "num_rel_ret")]
IR_STRINGS = ["Judged@10", "Judged@20", "Judged", "Rprec", "Bpref", "NumRet", "NumRelRet",
              "NumRet(rel=1)", "NumRel", "Success@10"]


def _ir_objects():
    m = ir_measures
    return [m.Judged@5, m.Judged@10, m.Judged, m.Rprec, m.Bpref, m.NumRet, m.NumRelRet,
            m.NumRel, m.Success@10, m.nDCG]


def _check_trec(names, qrels, runs, col, measure=None) -> int:
    """Each trec_eval name through xdiv (or ``measure(name)``, a registry measure) against
    pytrec_eval on ``qrels``; the topics compared."""
    oracle = _trec_oracle(qrels, runs, {request for _, request, _ in names})
    checked = 0
    for name, _, key in names:
        resolved = N.translate(name)
        assert resolved.order in (N.TREC, None)  # a registry name: the runs' default order
        chosen = resolved.measure if measure is None else measure(name)
        n = _compare(_xdiv_scores(col, runs, chosen, N.TREC), oracle[key], 1e-9, name)[1]
        assert n > 0, name
        checked += n
    return checked


def _converted(qrels: pd.DataFrame, method: str) -> pd.DataFrame:
    """Diversity qrels as adhoc qrels (``topic 0 docno level``), by pandas: see the module
    docstring."""
    grouped = qrels.groupby(["topic", "docno"], sort=False)["level"]
    highest = grouped.max()
    level = highest if method == "max" else grouped.agg(lambda v: int((v > 0).sum()))
    out = level.where(highest >= 0, highest).rename("level").reset_index()
    return out.assign(intent="0")[["topic", "intent", "docno", "level"]]


def _spam_in_diversity(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Random diversity qrels with -2 lines beside lines of level >= 0 (a document spam
    for one intent, judged for another) and documents -2 for every intent."""
    rng = np.random.default_rng(seed)
    qrels, runs = random_diversity_frames(rng, n_topics=10, n_runs=3)
    extra = []
    for (topic, docno), lines in qrels.groupby(["topic", "docno"], sort=False):
        intents = set(lines["intent"])
        free = [str(i) for i in range(1, 7) if str(i) not in intents]
        if rng.random() < 0.3 and free:
            extra.append((topic, free[0], docno, -2))
    for topic in qrels["topic"].unique():  # spam for every intent it is judged for
        for k in range(3):
            extra += [(topic, i, f"spam{topic}-{k}", -2) for i in ("1", "2")]
            runs.loc[len(runs)] = ("run0", topic, f"spam{topic}-{k}", 1.25 * k)
    mixed = pd.concat([qrels, pd.DataFrame(extra, columns=qrels.columns)], ignore_index=True)
    return mixed, runs


def _synthetic_runs(qrels: pd.DataFrame, seed: int, n_runs: int = 2) -> pd.DataFrame:
    """Runs over the judged documents (spam among them) and unjudged ones, with tied
    scores; each run lacks a few topics."""
    rng = np.random.default_rng(seed)
    docs = qrels.groupby("topic")["docno"].unique()
    rows = []
    for r in range(n_runs):
        for topic in docs.index[rng.random(len(docs)) > 0.1]:
            pool = docs[topic]
            chosen = list(rng.choice(pool, size=min(60, len(pool)), replace=False))
            chosen += [f"unjudged-{topic}-{k}" for k in range(5)]
            rows += [(f"run{r}", topic, d, float(rng.integers(0, 40)) / 4) for d in chosen]
    return pd.DataFrame(rows, columns=["run", "topic", "docno", "score"])


@pytest.fixture(scope="module")
def adhoc2009(trec2009):
    col, runs = trec2009
    adhoc = xdiv.to_adhoc(col, "max")
    return adhoc, xdiv.qrels_frame(adhoc), xdiv.runs_frame(runs.sel(run=RUNS_2009))


@pytest.fixture(scope="module")
def trec2012():
    path = TREC_WEB / "2012" / "qrels.diversity.gz"
    if not path.exists():
        pytest.skip("../shared/reference/trec-web/2012 is not available")
    col = _quiet(xdiv.read_qrels, path)
    raw = xdiv.qrels_frame(col)
    return col, raw, _synthetic_runs(raw, seed=12)


# ------------------------------------------------------------------ trec_eval

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_staples_agree_with_trec_eval_on_random_collections(seed):
    qrels, runs, col = _random_adhoc(seed)
    assert (qrels["level"] < 0).any()  # spam levels
    assert _check_trec(STAPLES, qrels, runs, col) > 20 * len(STAPLES)
    # the conventions are exercised: runs shorter than R (Rprec) and than 10 (success)
    lengths = runs.groupby(["run", "topic"]).size()
    relevant = qrels[qrels["level"] > 0].groupby("topic").size()
    short = [(r, t) for (r, t), n in lengths.items() if n < relevant.get(t, 0)]
    assert short and (lengths < 10).any()


def test_spam_matters_to_trec_evals_bpref_only():
    """The oracle itself: trec_eval's bpref changes when -2 becomes 0, its counts do not,
    so the agreement above tells the two readings apart."""
    qrels, runs, _ = _random_adhoc(0)
    zeroed = qrels.assign(level=qrels["level"].clip(lower=0))
    requests = {"bpref", "Rprec", "num_rel", "num_rel_ret"}
    raw, clean = _trec_oracle(qrels, runs, requests), _trec_oracle(zeroed, runs, requests)
    assert any(abs(raw["bpref"][k] - v) > 1e-3 for k, v in clean["bpref"].items())
    for key in requests - {"bpref"}:
        assert raw[key] == clean[key]


@pytest.mark.parametrize("method", ["max", "count"])
def test_bpref_and_counts_agree_on_diversity_qrels_with_spam(method):
    """Diversity qrels whose documents are -2 for some intents and judged for others, or
    -2 for all: each measure's own ``adhoc`` conversion of the diversity collection and
    to_adhoc's collection agree with trec_eval on the converted qrels."""
    qrels, runs = _spam_in_diversity(5)
    adhoc = _converted(qrels, method)
    assert (adhoc["level"] < 0).any() and (qrels["level"] < 0).sum() > (adhoc["level"] < 0).sum()
    diversity = _quiet(xdiv.build_collection, qrels)
    converted = xdiv.to_adhoc(diversity, method)
    mine = xdiv.qrels_frame(converted).drop(columns="intent")
    theirs = adhoc.drop(columns="intent").astype({"level": np.int64})
    pd.testing.assert_frame_equal(mine.sort_values(["topic", "docno"], ignore_index=True),
                                  theirs.sort_values(["topic", "docno"], ignore_index=True),
                                  check_dtype=False)

    def own(name):
        return xdiv.parse_measure(f"{N.translate(name).measure.name}(adhoc={method})")

    names = BPREF + COUNTS
    assert _check_trec(names, adhoc, runs, diversity, own) > 20 * len(names)
    assert _check_trec(names, adhoc, runs, converted) > 20 * len(names)
    _check_ir(["Judged@10", "Judged"], adhoc, runs, diversity)


def test_staples_agree_with_trec_eval_on_trec2009(adhoc2009):
    col, qrels, frame = adhoc2009
    assert (qrels["level"] >= 0).all()
    checked = _check_trec(STAPLES, qrels, frame, col)
    assert checked == len(RUNS_2009) * 50 * len(STAPLES)


@pytest.mark.parametrize("method", ["max", "count"])
def test_bpref_agrees_with_trec_eval_on_trec2012_spam(trec2012, method):
    col, raw, runs = trec2012
    qrels = _converted(raw, method)
    spam = set(qrels.loc[qrels["level"] < 0, "docno"])
    assert len(spam) > 800 and runs["docno"].isin(spam).sum() > 200

    def own(name):
        return xdiv.parse_measure(f"{N.translate(name).measure.name}(adhoc={method})")

    names = BPREF + COUNTS
    assert _check_trec(names, qrels, runs, col, own) > 80 * len(names)
    assert _check_trec(BPREF, qrels, runs, xdiv.to_adhoc(col, method)) > 80


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
    qrels, runs, col = _random_adhoc(seed)  # raw levels, -2 included
    assert (qrels["level"] < 0).any()
    assert _check_ir(IR_STRINGS, qrels, runs, col) > 20 * len(IR_STRINGS)
    assert _check_ir(_ir_objects(), qrels, runs, col) > 20 * len(_ir_objects())


def test_judged_counts_every_qrels_line_like_ir_measures():
    qrels, runs, col = _random_adhoc(4)  # raw levels: -2 and 0 are judged too
    assert (qrels["level"] < 0).any() and (qrels["level"] == 0).any()
    spam = set(qrels.loc[qrels["level"] < 0, "docno"])
    assert runs["docno"].isin(spam).any()
    _check_ir(["Judged@10", "Judged@3", "Judged"], qrels, runs, col)


def test_ir_measures_names_on_trec2009(adhoc2009):
    col, qrels, frame = adhoc2009
    _check_ir(IR_STRINGS, qrels, frame, col)


# ------------------------------------------------------------------ a judged cube

def test_a_per_intent_cube_points_to_the_adhoc_parameter():
    """Called directly on xdiv.judge's cube of diversity qrels, a single-intent measure
    names the conversion to use; following it gives evaluate's value."""
    qrels, runs = _spam_in_diversity(6)
    col, built = _quiet(xdiv.build_collection, qrels), _quiet(xdiv.build_runs, runs)
    cube = xdiv.judge(built, col)
    measure = xdiv.parse_measure("bpref(adhoc=count)")
    with pytest.raises(xdiv.MeasureError,
                       match=r"adhoc parameter .*adhoc_judgments\(cube, 'count'\)$"):
        measure.definition.compute(cube, measure)
    direct = measure.definition.compute(xdiv.core.adhoc.adhoc_judgments(cube, "count"), measure)
    expected = _quiet(xdiv.evaluate, built, col, [measure]).score.isel(metric=0)
    assert np.isfinite(expected.values).sum() > 20
    np.testing.assert_array_equal(direct.transpose("run", "topic").values, expected.values)


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
