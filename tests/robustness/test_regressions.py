"""Regression tests for defects found in review."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import xdiv
from xdiv.hierarchy import attach_hierarchy

from ..helpers import adhoc, diversity, score


def test_gain_tuple_longer_than_h_uses_gv_h_as_normaliser():
    col, runs = adhoc({"a": 2, "b": 1}, ["a"])
    assert score(col, runs, "ERR(gain=(1,3,7))@1") == pytest.approx(0.75)
    assert score(col, runs, "ERR(gain=(1,3))@1") == pytest.approx(0.75)
    assert score(col, runs, "RBP(gain=(1,3,7))") == pytest.approx(score(col, runs, "RBP"))


def test_h_below_the_highest_level_is_an_error():
    col, runs = adhoc({"a": 3, "b": 1}, ["a", "b"])
    with pytest.raises(xdiv.MeasureError, match="H=1 is below"):
        score(col, runs, "nDCG(H=1)@2")


def test_integer_docnos_in_frames_match_string_qrels():
    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["9", "10"], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": [9, 10], "score": [1.0, 1.0]})
    out = run.xdiv.evaluate(qrels, ["P@1"])
    # tie broken by docno (string) descending: "9" > "10", so the relevant 9 is first
    assert out["score"].tolist() == [1.0]
    with pytest.raises(xdiv.InputError, match="docno is missing"):
        run.assign(doc_id=[None, 10]).xdiv.to_runs()


def test_rank_order_rejects_missing_ranks():
    frame = pd.DataFrame({"run": "r", "topic": "1", "docno": ["a", "b"],
                          "score": [1.0, 0.5], "rank": [1, np.nan]})
    with pytest.raises(xdiv.InputError, match="rank nan"):
        xdiv.build_runs(frame, order="rank")


@pytest.mark.parametrize("bad", [-1.0, np.nan, np.inf])
def test_probability_frames_are_validated(bad):
    col, _ = diversity({"a": {"1": 1}, "b": {"2": 1}}, ["a"])
    frame = pd.DataFrame({"topic": "1", "intent": ["1", "2"], "probability": [bad, 1.0]})
    with pytest.raises(xdiv.InputError, match="finite non-negative"):
        xdiv.set_probabilities(col, frame)


def test_two_leaves_for_one_intent_and_root_markers():
    col, _ = diversity({"a": {"1": 1}, "b": {"2": 1}}, ["a"])
    with pytest.raises(xdiv.InputError, match="more than one leaf"):
        attach_hierarchy(col, {"1": {"x": "1", "y": "1", "z": "2"}})
    # an inner node labelled "0" is a node, not the root
    tree = pd.DataFrame({"topic": "1", "node": ["0", "l1", "l2"], "parent": ["-", "0", "0"],
                         "intent": ["", "1", "2"]})
    h = attach_hierarchy(col, tree, kind="OIH", weights="UT")
    assert int(h.node_layer.sel(topic="1", node="0")) == 1
    assert float(h.node_weight.sel(topic="1", node="l1")) == 0.5


def test_to_adhoc_keeps_document_lengths():
    col, runs = diversity({"a": {"1": 1}, "b": {"2": 1}}, ["a", "b"])
    col = xdiv.set_doc_lengths(col, pd.DataFrame({"doc_id": ["a", "b"], "length": [100, 100]}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        res = xdiv.evaluate(runs, col, ["U@5"], adhoc="max")
    assert float(res.score.squeeze()) > 0


def test_bad_files_raise_input_errors(tmp_path):
    with pytest.raises(xdiv.InputError, match="no such file"):
        xdiv.hierarchy.read_hierarchy(tmp_path / "absent")
    col, _ = diversity({"a": {"1": 1}}, ["a"])
    with pytest.raises(xdiv.InputError, match="parent"):
        attach_hierarchy(col, pd.DataFrame({"topic": ["1"], "node": ["x"]}))
    (tmp_path / "x.nc").write_text("not netcdf")
    with pytest.raises(xdiv.InputError, match="not a readable NetCDF"):
        xdiv.open_dataset(tmp_path / "x.nc")


def test_swapped_or_wrong_datasets_raise_input_errors():
    col, runs = xdiv.datasets.synthetic(n_topics=2, n_runs=2, seed=3)
    cases = [
        (lambda: xdiv.judge(runs, runs), "judge: collection: expected a collection"),
        (lambda: xdiv.judge(col, col), "judge: runs: expected a Runs dataset"),
        (lambda: xdiv.evaluate(col, runs, ["I-rec@5"]), "evaluate: runs: expected a Runs"),
        (lambda: xdiv.evaluate(runs, col.to_dataframe(), ["I-rec@5"]), "got a DataFrame"),
        (lambda: xdiv.to_adhoc(runs), "to_adhoc: expected a collection"),
        (lambda: attach_hierarchy(runs, {}), "attach_hierarchy: expected a collection"),
    ]
    for call, message in cases:
        with pytest.raises(xdiv.InputError, match=message):
            call()


def test_topics_frame_needs_topic_and_intent_only():
    qrels = pd.DataFrame({"topic": ["1", "1"], "intent": ["1", "2"], "docno": ["a", "b"],
                          "level": [1, 1]})
    col = xdiv.build_collection(qrels, topics=pd.DataFrame({"topic": ["1", "1"],
                                                            "intent": ["2", "1"]}))
    assert col.intent_type.values.tolist() == [["inf", "inf"]]
    assert col.intent_order.sel(topic="1").values.tolist() == [1, 0]  # frame order
    with pytest.raises(xdiv.InputError, match="lacks column"):
        xdiv.build_collection(qrels, topics=pd.DataFrame({"topic": ["1"]}))
    with pytest.raises(xdiv.InputError, match="intent_type 'x'"):
        xdiv.build_collection(qrels, topics=pd.DataFrame({"topic": ["1"], "intent": ["1"],
                                                          "intent_type": ["x"]}))


def test_duplicate_qrels_lines_and_lengths_name_their_lines(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("1 1 a 1\n1 2 a 0\n\n1 1 b 1\n1 1 a 1\n")
    with pytest.raises(xdiv.InputError, match=r"qrels.txt:1, .*qrels.txt:5: topic 1 intent 1 "
                                              r"docno a is judged more than once"):
        xdiv.read_qrels(path)
    lengths = tmp_path / "lengths.txt"
    lengths.write_text("a 10\nb 5\na 3\n")
    ok = tmp_path / "ok.txt"
    ok.write_text("1 1 a 1\n1 1 b 1\n")
    with pytest.raises(xdiv.InputError, match=r"lengths.txt:1, .*lengths.txt:3: docno a has "
                                              "more than one length"):
        xdiv.read_qrels(ok, doc_lengths=lengths)
    lengths.write_text("a 10\nb -5\n")
    with pytest.raises(xdiv.InputError, match=r"lengths.txt:2: docno b"):
        xdiv.read_qrels(ok, doc_lengths=lengths)


def test_parameters_a_measure_form_ignores_are_rejected():
    from xdiv.measures.registry import parse_measure

    for name in ["ERR-IA(ndeval=False,alpha=0.3)@10", "nERR-IA(alpha=0.1,ndeval=False)@10"]:
        with pytest.raises(xdiv.MeasureError, match="does not use alpha when ndeval=False"):
            parse_measure(name)
    assert parse_measure("ERR-IA(alpha=0.3)@10").name == "ERR-IA(alpha=0.3)@10"
    assert parse_measure("alpha-nDCG(alpha=0.2,ndeval=False)@10")["alpha"] == 0.2


def test_submodules_load_on_first_use_after_a_plain_import():
    code = ("import sys, xdiv; assert 'xdiv.plots' not in sys.modules; "
            "print(xdiv.plots.asl_curves.__name__, xdiv.meta.bootstrap_test.__name__, "
            "xdiv.stats.anova.__name__, xdiv.reports.ndeval_csv.__name__)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["asl_curves", "bootstrap_test", "anova", "ndeval_csv"]


def test_cli_output_into_a_closed_pipe_is_quiet():
    # ``true`` exits without reading long before xdiv (over a second of imports) writes
    proc = subprocess.run(["bash", "-c", f"set -o pipefail; {sys.executable} -m xdiv.cli "
                                         "measures | true"], capture_output=True, text=True)
    assert proc.stderr == ""
    assert proc.returncode == 141  # as a command stopped by SIGPIPE


@pytest.mark.slow
def test_a_command_whose_reader_goes_away_still_writes_its_output_file(tmp_path):
    # the table goes to a closed pipe first, the cube to -o after: the command used to stop
    # at the table, with status 141 and no cube
    (tmp_path / "qrels.txt").write_text("1 1 a 1\n1 2 b 1\n2 1 c 1\n")
    (tmp_path / "run.txt").write_text("1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 c 1 1.0 r\n")
    command = (f"set -o pipefail; {sys.executable} -m xdiv.cli evaluate qrels.txt run.txt "
               "-m alpha-nDCG@10 -o cube.nc | true")
    proc = subprocess.run(["bash", "-c", command], capture_output=True, text=True,
                          cwd=tmp_path)
    assert proc.returncode == 141, proc.stderr  # as a command stopped by SIGPIPE
    assert proc.stderr.startswith("score cube written to ") and "Traceback" not in proc.stderr
    cube = xdiv.open_dataset(tmp_path / "cube.nc")
    assert float(cube["score"].sel(run="r", topic="1").item()) == 1.0


def test_cutoffs_past_the_ideal_list_allocate_nothing_and_score_as_the_list():
    col, runs = xdiv.datasets.synthetic(n_topics=4, n_runs=2, seed=3)
    names = ["D-nDCG", "DIN-nDCG"]
    big = xdiv.evaluate(runs, col, [f"{n}@100000" for n in names]).score.values
    whole = xdiv.evaluate(runs, col, names).score.values  # uncut: the whole lists
    np.testing.assert_allclose(big, whole, rtol=0, atol=1e-12)
    adhoc = ["nDCG", "nERR", "nGAP"]
    big = xdiv.evaluate(runs, col, [f"{n}@100000" for n in adhoc], adhoc="max").score.values
    whole = xdiv.evaluate(runs, col, ["nDCG", "nERR", "GAP"], adhoc="max").score.values
    # (uncut GAP divides by the ideal numerator over every relevant document, as nGAP@l
    # does once l reaches them all)
    np.testing.assert_allclose(big, whole, rtol=0, atol=1e-12)
