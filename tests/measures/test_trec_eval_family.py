"""trec_eval's remaining per-topic measures in the registry (xdiv/measures/trec_eval.py),
asked for by the names trec_eval prints, against ``xdiv trec_eval -q`` (byte-identical to
trec_eval 10.0, tests/official/trec_eval/test_trec_eval_tool.py) to its 4 printed decimals, on random
graded collections with spam (-2) levels, unjudged documents, score ties and runs shorter
than the cutoffs; and the one-line refusals of what is not a per-topic number.

Topics without relevant documents are NaN in xdiv (trec_eval prints 0) and left out.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import xdiv
from xdiv.errors import MeasureError
from xdiv.official.trec_eval.tool import Options, trec_eval_run
from xdiv.measures import names as N

from ..helpers import random_adhoc_frames

PRINTED = ["iprec_at_recall_0.00", "iprec_at_recall_0.10", "iprec_at_recall_0.50",
           "iprec_at_recall_1.00", "11pt_avg", "Rprec_mult_0.20", "Rprec_mult_0.60",
           "Rprec_mult_1.00", "Rprec_mult_2.00", "utility", "recall_5", "recall_10",
           "recall_1000", "relative_P_5", "relative_P_30", "unj_5", "unj_20", "binG", "G",
           "ndcg_rel", "Rndcg", "success_5", "set_P", "set_relative_P", "set_recall",
           "set_map", "set_F", "num_nonrel_judged_ret", "rbp_resid", "yaap", "dcg",
           "ideal_dcg"]
"""trec_eval's printed names of the measures this family adds (success: Hit)."""


def _write(tmp_path, qrels, runs):
    qrels_path = tmp_path / "qrels"
    qrels_path.write_text("".join(f"{t} 0 {d} {lv}\n" for t, d, lv in
                                  zip(qrels["topic"], qrels["docno"], qrels["level"])))
    paths = {}
    for run, part in runs.groupby("run"):
        paths[run] = tmp_path / f"{run}.txt"
        paths[run].write_text("".join(f"{t} Q0 {d} 0 {s} {run}\n" for t, d, s in
                                      zip(part["topic"], part["docno"], part["score"])))
    return qrels_path, paths


def _printed(qrels_path, run_path, measures) -> dict[tuple[str, str], float]:
    out = trec_eval_run(str(qrels_path), str(run_path),
                        Options(measures=measures, query=True))
    assert out.status == 0, out.stderr
    values = {}
    for line in out.stdout.decode().splitlines():
        name, topic, value = (line.split() + [""])[:3]
        if topic != "all" and name != "relstring":
            values[(name, topic)] = float(value)
    return values


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_scores_equal_trec_evals_printed_values(tmp_path, seed):
    rng = np.random.default_rng(seed)
    qrels, runs = random_adhoc_frames(rng, 12, 3, depth=40, spam=True)
    qrels_path, paths = _write(tmp_path, qrels, runs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = xdiv.evaluate(xdiv.build_runs(runs), xdiv.build_collection(qrels), PRINTED)
    labels = PRINTED  # evaluate labels each measure by the name it is asked for
    checked = 0
    for run, path in paths.items():
        # yaap apart: trec_eval's rbp (in all_trec) after yaap is refused
        printed = {**_printed(qrels_path, path, ("all_trec", "dcg", "ideal_dcg")),
                   **_printed(qrels_path, path, ("yaap",))}
        for name, label in zip(PRINTED, labels):
            for topic in scores["topic"].values:
                mine = float(scores.score.sel(metric=label, run=run, topic=topic))
                if np.isnan(mine):
                    continue
                assert abs(mine - printed[(name, topic)]) <= 5e-5 + 1e-12, \
                    (name, run, topic, mine, printed[(name, topic)])
                checked += 1
    assert checked > 30 * len(PRINTED)


def test_other_parameters_follow_trec_eval(tmp_path):
    """Parameters given as trec_eval's -m NAME.params and as registry parameters."""
    qrels, runs = random_adhoc_frames(np.random.default_rng(5), 8, 1, depth=40, spam=True)
    qrels_path, paths = _write(tmp_path, qrels, runs)
    asked = {"set_F_0.5": "set_F.0.5", "rbp_resid_p=0.5": "rbp_resid.p=0.5",
             "utility_2,-1,-0.5,0": "utility.2,-1,-0.5,0"}
    ours = {"set_F_0.5": "set_F_0.5", "rbp_resid_p=0.5": "RBP-resid(p=0.5)",
            "utility_2,-1,-0.5,0": "utility_2,-1,-0.5,0"}  # trec_eval's printed name
    assert xdiv.resolve_measure("utility_2,-1,-0.5,0") == \
        xdiv.resolve_measure("Utility(a=2,b=-1,c=-0.5)")
    printed = _printed(qrels_path, paths["run0"], tuple(asked.values()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = xdiv.evaluate(xdiv.build_runs(runs), xdiv.build_collection(qrels),
                               list(ours.values()))
    labels = list(ours.values())
    for name, label in zip(asked, labels):
        for topic in scores["topic"].values:
            mine = float(scores.score.sel(metric=label, run="run0", topic=topic))
            if not np.isnan(mine):
                assert abs(mine - printed[(name, topic)]) <= 5e-5 + 1e-12, (name, topic)


@pytest.mark.parametrize("name", ["utility_1,2", "utility.1,-1,0", "utility_1,-1,0,0.5.5",
                                  "utility.1,-1,0,0,5"])
def test_utility_names_give_four_coefficients(name):
    with pytest.raises(MeasureError, match="utility takes 4 numbers"):
        xdiv.resolve_measure(name)


def test_names_resolve_to_the_family():
    assert [m.name for m in N.expand_measures("iprec_at_recall.0.1,0.5")] == \
        ["IPrec(recall=0.1)", "IPrec(recall=0.5)"]
    assert len(N.expand_measures("iprec_at_recall")) == 11
    assert len(N.expand_measures("Rprec_mult")) == 10
    assert N.resolve("Rprec_mult_1.00").name == "Rprec-mult"
    assert N.resolve("set_F_0.5").name == "SetF(x=0.5)"
    assert N.resolve("success_5").name == "Hit@5"


@pytest.mark.parametrize("name, says", [
    ("relstring", "not a number"), ("gm_map", "scipy.stats.gmean"),
    ("gm_bpref", "scipy.stats.gmean"), ("runid", "run coordinate"),
    ("num_q", "topic dimension"), ("map_avgjg", "qrels_jg")])
def test_what_is_not_a_per_topic_number_is_refused_in_one_line(name, says):
    with pytest.raises(MeasureError) as error:
        N.resolve(name)
    message = str(error.value)
    assert says in message and "\n" not in message and message.startswith(f"trec_eval {name}")
