"""Diversity measures asked of qrels with one intent per topic: one warning
(``SingleIntentWarning``), given once, by ``xdiv.evaluate``, ``evaluate_files``, the
accessors, ``xdiv evaluate`` and the ir_measures provider alike; none for single-intent
measures, nor for diversity qrels (third audit, item 11)."""

from __future__ import annotations

import warnings

import pytest

import xdiv
from xdiv.cli import main
from xdiv.engine import evaluate_files
from xdiv.errors import SingleIntentWarning

ADHOC = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 x 1\n2 0 y 0\n"
DIVERSE = "1 1 a 1\n1 2 b 1\n1 1 c 0\n2 1 x 1\n2 1 y 0\n"
RUN = "".join(f"{t} Q0 {d} {k} {10 - k} r\n" for t, docs in (("1", "bac"), ("2", "yx"))
              for k, d in enumerate(docs, start=1))
DIVERSITY = ["alpha-nDCG@5", "ERR-IA@5", "D#-nDCG@5", "P-IA@5"]
SINGLE = ["nDCG@5", "AP", "P@2", "bpref"]


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "adhoc").write_text(ADHOC)
    (tmp_path / "diverse").write_text(DIVERSE)
    (tmp_path / "r.run").write_text(RUN)
    return tmp_path


def _caught(function, *args, **kwargs):
    """``(result, the SingleIntentWarnings given)``; other warnings ignored."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(*args, **kwargs)
    return result, [w for w in caught if issubclass(w.category, SingleIntentWarning)]


def _read(files, qrels):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return xdiv.read_runs(str(files / "r.run")), xdiv.read_qrels(files / qrels)


def test_evaluate_warns_once_for_diversity_measures_on_single_intent_qrels(files):
    runs, collection = _read(files, "adhoc")
    _, caught = _caught(xdiv.evaluate, runs, collection, DIVERSITY + SINGLE)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "more than one subtopic" in message and "\n" not in message
    assert message.startswith("alpha-nDCG@5, ERR-IA@5, D#-nDCG@5, P-IA@5: ")
    assert caught[0].filename == __file__  # the user's line, through xdiv's warn helper
    assert issubclass(SingleIntentWarning, xdiv.XdivWarning)


def test_no_warning_for_single_intent_measures_or_diversity_qrels(files):
    runs, collection = _read(files, "adhoc")
    assert _caught(xdiv.evaluate, runs, collection, SINGLE)[1] == []
    runs, collection = _read(files, "diverse")
    assert _caught(xdiv.evaluate, runs, collection, DIVERSITY + SINGLE)[1] == []


def test_streaming_and_accessors_warn_once(files):
    runs, collection = _read(files, "adhoc")
    assert len(_caught(evaluate_files, str(files / "r.run"), collection, DIVERSITY)[1]) == 1
    assert len(_caught(evaluate_files, str(files / "r.run"), collection, DIVERSITY,
                       block=1)[1]) == 1
    assert len(_caught(runs.xdiv.evaluate, collection, DIVERSITY)[1]) == 1
    lines = xdiv.runs_frame(runs).rename(columns={"topic": "query_id", "docno": "doc_id"})
    qrels = xdiv.qrels_frame(collection).rename(
        columns={"topic": "query_id", "docno": "doc_id", "level": "relevance"})
    assert len(_caught(lines.xdiv.evaluate, qrels.drop(columns="intent"), DIVERSITY)[1]) == 1
    assert _caught(lines.xdiv.evaluate, qrels.drop(columns="intent"), SINGLE)[1] == []


@pytest.mark.parametrize("stream", [False, True])
def test_command_line_warns_once(files, capsys, stream):
    args = ["evaluate", str(files / "adhoc"), str(files / "r.run"), "-m", *DIVERSITY,
            "nDCG@5", "--format", "tsv"] + (["--stream"] if stream else [])
    assert main(args) == 0
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if "more than one subtopic" in line] == [
        line for line in err if line.startswith("xdiv: warning: alpha-nDCG@5, ERR-IA@5")]
    assert sum("more than one subtopic" in line for line in err) == 1
    assert main(["evaluate", str(files / "adhoc"), str(files / "r.run"), "-m", *SINGLE,
                 "--format", "tsv"]) == 0
    assert "subtopic" not in capsys.readouterr().err


def test_the_ir_measures_provider_warns_once():
    ir_measures = pytest.importorskip("ir_measures")
    from xdiv.integrations import ir_measures as X

    qrels = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"x": 1, "y": 0}}
    run = {"1": {"b": 3.0, "a": 2.0, "c": 1.0}, "2": {"y": 2.0, "x": 1.0}}
    # three groups (judged_only, rel) evaluated apart, each with diversity measures
    measures = [ir_measures.alpha_nDCG@5, ir_measures.ERR_IA(rel=2)@5,
                ir_measures.P_IA(judged_only=True)@5, X.Dsharp_nDCG@5]
    out, caught = _caught(X.provider.calc_aggregate, measures, qrels, run)
    assert len(caught) == 1 and "more than one subtopic" in str(caught[0].message)
    assert set(out) == set(measures)
    _, caught = _caught(lambda: list(X.provider.iter_calc(measures, qrels, run)))
    assert len(caught) == 1
    assert _caught(X.provider.calc_aggregate, [X.xdiv_measure("nDCG@2")], qrels, run)[1] == []
