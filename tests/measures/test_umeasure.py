"""U-measure family (spec §4): hand-computed values, properties, document lengths,
observed trailtexts."""

from __future__ import annotations


import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xdiv
from xdiv import set_doc_lengths
from xdiv.measures.umeasure import trailtext_u

from ..helpers import diversity, score, scores


def _with_lengths(col, lengths, default=None):
    frame = pd.DataFrame({"doc_id": list(lengths), "length": list(lengths.values())})
    return set_doc_lengths(col, frame, default=default)


def test_u_by_hand():
    col, runs = diversity({"a": {"1": 1}, "b": {"1": 2}, "n": {"0": 0}}, ["a", "u", "b"])
    col = _with_lengths(col, {"a": 1000, "b": 2000, "n": 10})
    L = 132000
    # rank 1: snippet 200 + 20% of 1000 -> pos 400, gain (2^1-1)/2^2
    # rank 2: unjudged, snippet only -> 600; rank 3: +200 +400 -> 1200, gain (2^2-1)/2^2
    want = 0.25 * (1 - 400 / L) + 0.75 * (1 - 1200 / L)
    for m, value in scores(col, runs, ["U@10", "D-U@10", "U-IA@10"]).items():
        assert value == pytest.approx(want, abs=1e-12), m
    short = 0.25 * (1 - 400 / L)
    assert score(col, runs, "U@2") == pytest.approx(short, abs=1e-12)
    # decay reaches zero at L: with L = 1000 the second gain (pos 1200) counts nothing
    assert score(col, runs, "U(L=1000)@10") == pytest.approx(0.25 * (1 - 400 / 1000))
    assert score(col, runs, "U(L=400)@10") == 0.0
    assert score(col, runs, "U(F=0.5,snippet=100)@10") == pytest.approx(
        0.25 * (1 - 600 / L) + 0.75 * (1 - (600 + 100 + 100 + 1000) / L))


def test_missing_lengths():
    col, runs = diversity({"a": {"1": 1}, "n": {"0": 0}}, ["a"])
    with pytest.raises(xdiv.InputError, match="no length for relevant document a"):
        _with_lengths(col, {"n": 5})
    with_default = _with_lengths(col, {"n": 5}, default=1000)
    assert float(with_default.doc_length.sel(topic="1").isel(doc=0)) == 1000
    with pytest.raises(xdiv.MeasureError, match="needs document lengths"):
        xdiv.evaluate(runs, col, ["U-IA@10"])


def test_lengths_file(tmp_path):
    (tmp_path / "q").write_text("1 1 a 1\n1 0 n 0\n")
    (tmp_path / "len").write_text("a 3000\nn 10\n")
    col = xdiv.read_qrels(tmp_path / "q", doc_lengths=tmp_path / "len")
    assert col.doc_length.sel(topic="1").values.tolist() == [3000.0, 10.0]
    (tmp_path / "bad").write_text("a 3000\nn ten\n")
    with pytest.raises(xdiv.ParseError, match="bad:2"):
        xdiv.read_qrels(tmp_path / "q", doc_lengths=tmp_path / "bad")


@st.composite
def locally_consistent(draw):
    """Lists without strictly locally relevant documents: every retrieved relevant
    document is relevant to all of a fixed set S of intents (levels may differ)."""
    n_int = draw(st.integers(1, 4))
    covered = [str(i + 1) for i in range(n_int) if i == 0 or draw(st.booleans())]
    judgments = {}
    for k in range(draw(st.integers(1, 8))):
        if draw(st.booleans()):
            judgments[f"d{k}"] = {i: draw(st.integers(1, 3)) for i in covered}
        else:
            judgments[f"d{k}"] = {"0": 0}
    for i in range(n_int):  # uncovered intents keep relevant documents outside the list
        judgments[f"x{i}"] = {str(i + 1): 1}
    ranking = [d for d in judgments if d.startswith("d")]
    lengths = {d: draw(st.integers(100, 50000)) for d in judgments}
    return judgments, ranking, lengths


@settings(max_examples=40, deadline=None)
@given(case=locally_consistent(), probs=st.sampled_from(["uniform", "nonuniform"]))
def test_d_u_equals_u_ia_without_strictly_locally_relevant_documents(case, probs):
    judgments, ranking, lengths = case
    col, runs = diversity(judgments, ranking, probabilities=probs)
    col = _with_lengths(col, lengths)
    assert score(col, runs, "D-U@10") == pytest.approx(score(col, runs, "U-IA@10"), abs=1e-12)


def test_strictly_locally_relevant_document_breaks_the_equality():
    col, runs = diversity({"a": {"1": 1}, "b": {"2": 1}}, ["a", "b"])
    col = _with_lengths(col, {"a": 10000, "b": 10000})
    assert score(col, runs, "D-U@10") < score(col, runs, "U-IA@10")


def test_observed_trailtexts():
    col, _ = diversity({"a": {"1": 1}, "b": {"1": 2}, "n": {"0": 0}}, ["a"])
    events = pd.DataFrame([
        ("1", "u1", 1, "snippet", "a", 200), ("1", "u1", 2, "fulltext", "a", 300),
        ("1", "u1", 3, "other", "-", 100), ("1", "u1", 4, "snippet", "b", 200),
        ("1", "u1", 5, "fulltext", "b", 700), ("1", "u1", 6, "fulltext", "a", 50),
        ("1", "u2", 1, "snippet", "n", 200), ("1", "u2", 2, "fulltext", "n", 900),
    ], columns=["topic", "session", "order", "kind", "docno", "characters"])
    u = trailtext_u(events, col)
    L = 132000
    want = 0.25 * (1 - 500 / L) + 0.75 * (1 - 1500 / L)  # a's second read adds nothing
    assert float(u.sel(topic="1", session="u1")) == pytest.approx(want, abs=1e-12)
    assert float(u.sel(topic="1", session="u2")) == 0.0
    with pytest.raises(xdiv.MeasureError, match="unknown trailtext event kinds"):
        trailtext_u(events.assign(kind="video"), col)
