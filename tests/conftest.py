"""Shared fixtures: the real TREC Web Track data in ../shared (skipped when absent)."""

from __future__ import annotations

import glob
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared"
TREC_WEB = SHARED / "reference" / "trec-web"
TREC_2009 = TREC_WEB / "2009"


def require_trec_2009() -> Path:
    """Path of the TREC 2009 diversity data, or skip the test."""
    if not (TREC_2009 / "qrels.diversity.gz").exists():
        pytest.skip("../shared/reference/trec-web/2009 is not available")
    return TREC_2009


@pytest.fixture(scope="session")
def trec2009():
    """(collection, runs) of the TREC 2009 diversity task: 50 topics, 18 runs."""
    import xdiv

    root = require_trec_2009()
    collection = xdiv.read_qrels(root / "qrels.diversity.gz",
                                 topics=root / "wt09.topics.full.xml")
    runs = xdiv.read_runs(sorted(glob.glob(str(root / "runs" / "*.gz"))))
    return collection, runs


@pytest.fixture(scope="session")
def trec2009_run_paths():
    root = require_trec_2009()
    return sorted(glob.glob(str(root / "runs" / "*.gz")))
