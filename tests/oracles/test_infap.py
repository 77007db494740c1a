"""infAP (Yilmaz & Aslam, CIKM 2006) against trec_eval 10.0 and pytrec_eval (issue 28).

trec_eval 10.0 is built from ``../shared/reference/tools`` by the session fixture of
``tests/core/test_incomplete_judgments.py`` (per-topic values printed with 12 decimals
instead of 4, the only change); the runs are four TREC 2009 runs with the adhoc qrels
(a document's highest level, negative as 0), rewritten with scores -rank so that
trec_eval's single-precision scores cannot reorder near-ties. Everything skips when
``../shared``, ``make`` or a C compiler is missing.

Conventions: trec_eval reads a document without a qrels line as outside the pool, a
negative level (-1: pooled but not sampled for judging) as pooled but unjudged, 0 as
judged non-relevant and >= 1 as relevant; xdiv reads them the same way. trec_eval prints
0 on topics without relevant documents where xdiv gives NaN, and leaves out the topics a
run lacks. pytrec_eval (pytrec-eval-terrier, trec_eval 9.0.8's ``m_infap.c``, the same
code) evaluates only the topics both the qrels and the run hold.
"""

from __future__ import annotations

import subprocess
import warnings

import numpy as np
import pytest

import xdiv

from ..core.test_incomplete_judgments import adhoc_2009, trec_eval_10  # noqa: F401 (fixtures)

TOLERANCE = 1e-9
SEEDS = (0, 1)


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def _scores(qrels_path, run_paths):
    """{run: {topic: infAP}} of xdiv, NaN where xdiv leaves it undefined."""
    collection = _quiet(xdiv.read_qrels, str(qrels_path))
    runs = _quiet(xdiv.read_runs, [str(p) for p in run_paths])
    score = _quiet(xdiv.evaluate, runs, collection, ["infAP"])["score"].sel(metric="infAP")
    table = score.transpose("run", "topic")
    topics = [str(topic) for topic in table["topic"].values]
    return {str(run): dict(zip(topics, values))
            for run, values in zip(table["run"].values, table.values.tolist())}


def _trec_eval(binary, qrels_path, run_path) -> dict:
    """{topic: infAP} of ``trec_eval -q -m infAP``."""
    out = subprocess.run([str(binary), "-q", "-m", "infAP", str(qrels_path), str(run_path)],
                         capture_output=True, text=True, check=True).stdout
    values = {}
    for line in out.splitlines():
        measure, topic, value = line.split()
        assert measure == "infAP"
        if topic != "all":
            values[topic] = float(value)
    return values


def _read_run(path) -> tuple[str, dict]:
    run, name = {}, None
    for line in path.read_text().splitlines():
        topic, _, docno, _, score, name = line.split()
        run.setdefault(topic, {})[docno] = float(score)
    return name, run


def _read_qrels(path) -> dict:
    qrels = {}
    for line in path.read_text().splitlines():
        topic, _, docno, level = line.split()
        qrels.setdefault(topic, {})[docno] = int(level)
    return qrels


def _variant(source, target, seed: int, kind: str):
    """The qrels ``source`` with half its lines dropped (``drop``: a uniform sample of the
    pool), set to -1 (``unsampled``: pooled but not judged), or a quarter of each
    (``mixed``), written to ``target``."""
    lines = source.read_text().splitlines()
    rng = np.random.default_rng(seed)
    draw = rng.random(len(lines))
    out = []
    for line, u in zip(lines, draw):
        topic, it, docno, _ = line.split()
        if kind == "drop" and u < 0.5 or kind == "mixed" and u < 0.25:
            continue
        if kind == "unsampled" and u < 0.5 or kind == "mixed" and u < 0.5:
            line = f"{topic} {it} {docno} -1"
        out.append(line + "\n")
    target.write_text("".join(out))
    return target


def _compare(mine: dict, oracle: dict) -> tuple[int, int, float]:
    """(topics compared, topics where both say 'no relevant document', max |diff|)."""
    compared, empty, worst = 0, 0, 0.0
    for topic, value in oracle.items():
        own = mine[topic]
        if np.isnan(own):  # no relevant document: trec_eval prints 0
            assert value == 0.0, topic
            empty += 1
            continue
        worst = max(worst, abs(own - value))
        compared += 1
    return compared, empty, worst


@pytest.fixture(scope="module")
def qrels_variants(adhoc_2009, tmp_path_factory):  # noqa: F811
    """[(label, qrels path)]: the full adhoc qrels, then each subsample of each seed."""
    _, qrels, _ = adhoc_2009
    folder = tmp_path_factory.mktemp("infap_qrels")
    variants = [("full", qrels)]
    for seed in SEEDS:
        for kind in ("drop", "unsampled", "mixed"):
            variants.append((f"{kind}-{seed}",
                             _variant(qrels, folder / f"{kind}-{seed}", seed, kind)))
    return variants


def test_hand_computed_example(tmp_path):
    """Ranks: a (rel) | z (no qrels line) | c (-1) | b (0) | d (rel) | w (none) | f (0) |
    e (rel); R = 3. Terms: 1; at rank 5, 1/5 + (4/5)(3/4)(1+eps)/(2+2eps) = 1/2; at
    rank 8, 1/8 + (7/8)(5/7)(2+eps)/(4+2eps) = 7/16: infAP = (1 + 1/2 + 7/16) / 3 =
    31/48 (trec_eval 10.0 prints 0.645833333333). Topic 2 has no relevant document."""
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n1 0 c -1\n1 0 d 2\n1 0 e 1\n"
                                    "1 0 f 0\n2 0 x 0\n2 0 y -1\n")
    order = {"1": ["a", "z", "c", "b", "d", "w", "f", "e"], "2": ["x", "y"]}
    (tmp_path / "run").write_text("".join(
        f"{t} Q0 {d} {r} {-r} s\n" for t, docs in order.items()
        for r, d in enumerate(docs, start=1)))
    scores = _scores(tmp_path / "qrels", [tmp_path / "run"])["s"]
    assert scores["1"] == pytest.approx(31 / 48, abs=1e-12)
    assert np.isnan(scores["2"])
    # the -1 line is pooled but unjudged: as a missing line, c would no longer count in
    # |d| above d and e, and as a 0 it would count as judged non-relevant
    for level in ("", "0"):
        text = (tmp_path / "qrels").read_text().replace("1 0 c -1\n", f"1 0 c {level}\n"
                                                        if level else "")
        (tmp_path / "other").write_text(text)
        assert _scores(tmp_path / "other", [tmp_path / "run"])["s"]["1"] != pytest.approx(
            31 / 48, abs=1e-6)


@pytest.fixture(scope="module")
def xdiv_infap(adhoc_2009, qrels_variants):  # noqa: F811
    """{label: :func:`_scores` of the four runs on the qrels variant ``label``}: xdiv's
    values, computed once for both oracles (issue 35 item 18)."""
    _, _, paths = adhoc_2009
    return {label: _scores(qrels, paths) for label, qrels in qrels_variants}


def test_infap_agrees_with_trec_eval_10(trec_eval_10, adhoc_2009, qrels_variants,  # noqa: F811
                                        xdiv_infap):
    _, _, paths = adhoc_2009
    total, report = 0, []
    for label, qrels in qrels_variants:
        mine = xdiv_infap[label]
        compared, empty, worst = 0, 0, 0.0
        for path in paths:
            run, _ = _read_run(path)
            c, e, w = _compare(mine[run], _trec_eval(trec_eval_10, qrels, path))
            compared, empty, worst = compared + c, empty + e, max(worst, w)
        report.append(f"{label}: {compared} topics ({empty} without relevant), "
                      f"max |diff| {worst:.1e}")
        assert worst < TOLERANCE, label
        assert compared >= len(paths) * 40, label
        total += compared
    print("trec_eval 10.0 infAP, " + str(len(paths)) + " runs; " + "; ".join(report))
    assert total >= len(qrels_variants) * len(paths) * 40


def test_infap_agrees_with_pytrec_eval(adhoc_2009, qrels_variants, xdiv_infap):  # noqa: F811
    pytrec_eval = pytest.importorskip("pytrec_eval")
    _, _, paths = adhoc_2009
    runs = dict(_read_run(path) for path in paths)
    report = []
    for label, qrels in qrels_variants:
        mine = xdiv_infap[label]
        evaluator = pytrec_eval.RelevanceEvaluator(_read_qrels(qrels), {"infAP"})
        compared, empty, worst = 0, 0, 0.0
        for name, run in runs.items():
            oracle = {t: v["infAP"] for t, v in evaluator.evaluate(run).items()}
            c, e, w = _compare(mine[name], oracle)
            compared, empty, worst = compared + c, empty + e, max(worst, w)
        report.append(f"{label}: {compared} topics ({empty} without relevant), "
                      f"max |diff| {worst:.1e}")
        assert worst < TOLERANCE, label
        assert compared >= len(paths) * 40, label
    print("pytrec_eval infAP; " + "; ".join(report))


def test_infap_is_ap_with_complete_judgments(adhoc_2009):  # noqa: F811
    """With every pooled document judged, E[prec@k] is the precision at k up to the
    epsilon: |infAP - AP| <= 1e-5; on a subsample they differ."""
    collection, _, paths = adhoc_2009
    runs = _quiet(xdiv.read_runs, [str(p) for p in paths])
    score = _quiet(xdiv.evaluate, runs, collection, ["infAP", "AP"])["score"]
    gap = np.abs(score.sel(metric="infAP") - score.sel(metric="AP")).values
    assert np.nanmax(gap) <= 1e-5
    assert np.isnan(score.sel(metric="infAP").values).sum() == np.isnan(
        score.sel(metric="AP").values).sum()
