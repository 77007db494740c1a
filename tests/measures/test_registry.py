"""The measure registry: name grammar, canonical names, errors, generated docs."""

from __future__ import annotations

from pathlib import Path

import pytest

import xdiv
import xdiv.cli
from xdiv.measures import measures_page
from xdiv.measures.names import expand_measures
from xdiv.measures.registry import parse_measure


@pytest.mark.parametrize("text, canonical", [
    ("nDCG@10", "nDCG@10"),
    ("nDCG(gain=exp)@10", "nDCG@10"),
    ("nDCG(gain=linear)@10", "nDCG(gain=linear)@10"),
    ("nDCG( gain = (1, 3, 7) ) @ 10", "nDCG(gain=(1,3,7))@10"),
    ("Q(beta=0)@10", "Q(beta=0)@10"),
    ("Q(beta=1.0)@10", "Q@10"),
    ("Q(beta=0.5)", "Q(beta=0.5)"),
    ("RBP(p=0.8)", "RBP"),
    ("MSnDCG@5", "nDCG@5"),
    ("GAP(thresholds=(0.5,0.5))", "GAP(thresholds=(0.5,0.5))"),
])
def test_canonical_names(text, canonical):
    assert parse_measure(text).name == canonical


def test_parameters_are_typed():
    m = parse_measure("Q(beta=2)@10")
    assert m["beta"] == 2.0 and isinstance(m["beta"], float) and m.cutoff == 10
    assert parse_measure("nDCG(H=3)@5")["H"] == 3


@pytest.mark.parametrize("text, message", [
    ("nDGC@10", "did you mean nDCG"),
    ("ndcg@10", "nDCG"),
    ("nDCG(alpha=0.5)@10", "unknown parameter 'alpha'"),
    ("Q(beta=-1)@10", "must be >= 0"),
    ("RBP(p=1)", "must be < 1"),
    ("nDCG(gain=cubic)@10", "expected exp, linear"),
    ("P", "needs a cutoff"),
    ("bpref_N@10", "takes no cutoff"),
    ("nDCG@ten", "not a whole number"),
    ("nDCG@0", "from 1 to 100000"),
    ("nDCG@100001", "from 1 to 100000"),
    ("nDCG@99999999999999999999", "from 1 to 100000"),
    ("Q(beta=1e400)@10", "'beta' = 1e400 is not a finite number"),
    ("nDCG(gain=(1,1e999))@10", "is not a finite number"),
    ("Q(beta)@10", "key=value"),
    ("Q(beta=1,beta=2)@10", "given twice"),
])
def test_bad_names_are_rejected_at_parse_time(text, message):
    with pytest.raises(xdiv.MeasureError, match=message):
        parse_measure(text)


def test_measure_errors_are_value_errors():
    with pytest.raises(ValueError):
        parse_measure("nope@3")


def test_duplicate_request_is_an_error():
    with pytest.raises(xdiv.MeasureError, match="twice"):
        expand_measures(["nDCG@10", "nDCG(gain=exp)@10"])


def test_every_measure_is_documented():
    for name, definition in xdiv.registry().items():
        assert definition.doc.strip(), name
        assert definition.reference.strip(), name
        for p in definition.params:
            assert p.doc.strip(), (name, p.name)


WITHOUT_FORMULA: frozenset[str] = frozenset()
"""Measures declared without a TeX formula, whose reference row prints the first line of
their docstring instead. None: every measure had a formula when the formulas moved from the
CLI onto the declarations."""


def test_every_measure_has_a_formula():
    measures = xdiv.registry()
    missing = sorted(name for name, d in measures.items()
                     if not (d.formula or "").strip() and name not in WITHOUT_FORMULA)
    assert not missing, f"declare a TeX formula (formula=...) for {missing}"
    stale = sorted(name for name in WITHOUT_FORMULA
                   if name not in measures or measures[name].formula)
    assert not stale, f"remove {stale} from WITHOUT_FORMULA"


def test_measure_page_is_the_cli_page():
    assert xdiv.cli.measures_page is measures_page


def test_docs_measure_page_is_generated_from_the_registry():
    page = Path(__file__).resolve().parents[2] / "docs" / "measures.md"
    assert page.read_text() == measures_page(), "regenerate with: xdiv measures > docs/measures.md"
