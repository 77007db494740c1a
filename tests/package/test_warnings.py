"""Warnings point at the user's code, whatever depth of xdiv raised them."""

from __future__ import annotations

import warnings

import pytest

import xdiv
from xdiv.errors import AlignmentWarning, XdivWarning


def _files(folder):
    qrels = folder / "qrels.txt"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run = folder / "notag.run"
    run.write_text("1 Q0 a 1 2.0\n9 Q0 b 1 1.0\n")  # no tag; topic 9 is not in the qrels
    return qrels, run


def test_read_runs_warning_is_attributed_to_the_caller(tmp_path):
    _, run = _files(tmp_path)
    with pytest.warns(XdivWarning, match="no run tag column") as caught:
        xdiv.read_runs([run])
    assert {w.filename for w in caught} == {__file__}


def test_evaluate_warning_is_attributed_to_the_caller(tmp_path):
    qrels, run = _files(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XdivWarning)
        runs, collection = xdiv.read_runs([run]), xdiv.read_qrels(qrels)
    with pytest.warns(AlignmentWarning, match="not in the qrels") as caught:
        xdiv.evaluate(runs, collection, ["P@1"])
    assert {w.filename for w in caught} == {__file__}


def test_the_package_counts_no_stack_levels():
    import pathlib

    root = pathlib.Path(xdiv.__file__).parent
    counted = [f"{p.relative_to(root)}:{n}" for p in root.rglob("*.py")
               for n, line in enumerate(p.read_text().splitlines(), 1)
               if "stacklevel=" in line and p.name != "_warnings.py"]
    assert counted == []
