"""Small builders of collections and runs for the measure tests."""

from __future__ import annotations

import contextlib
import signal
import warnings

import numpy as np
import pandas as pd

import xdiv


def adhoc(judgments: dict[str, int], ranking: list[str], topic: str = "1"):
    """A one-topic adhoc collection and a one-run ranking (scores descending)."""
    qrels = pd.DataFrame({"topic": topic, "intent": "0", "docno": list(judgments),
                          "level": list(judgments.values())})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        col = xdiv.build_collection(qrels)
    run = pd.DataFrame({"run": "r", "topic": topic, "docno": ranking,
                        "score": np.arange(len(ranking), 0, -1, dtype=float)})
    return col, xdiv.build_runs(run)


def score(col, runs, metric: str, **options) -> float:
    res = xdiv.evaluate(runs, col, [metric], **options)
    return float(res.score.squeeze())


def scores(col, runs, metrics: list[str], **options) -> dict[str, float]:
    """:func:`score` of each of ``metrics``, in one evaluation (a tenth of the time of
    one evaluation per measure on the small cases of the property tests)."""
    res = xdiv.evaluate(runs, col, metrics, **options)
    return {str(m): float(v) for m, v in zip(res["metric"].values, res["score"].values.ravel())}


def random_adhoc_frames(rng: np.random.Generator, n_topics: int, n_runs: int, *,
                        max_level: int = 4, depth: int = 30, pool: int = 40,
                        spam: bool = False, empty_topic: bool = True):
    """Random adhoc qrels and runs with the edge cases the oracle tests need: score ties,
    runs shorter than the cutoffs, unjudged documents, topics without relevant
    documents, levels up to ``max_level``. Scores are multiples of 0.25 (exact in float32,
    so single-precision oracles order them like xdiv)."""
    q_rows, r_rows = [], []
    for t in range(n_topics):
        topic = str(t + 1)
        docs = [f"d{t}-{k:03d}" for k in range(pool)]
        levels = rng.integers(0, max_level + 1, size=pool) * (rng.random(pool) < 0.5)
        if empty_topic and t == n_topics - 1:
            levels[:] = 0
        if spam:
            levels = np.where(rng.random(pool) < 0.1, -2, levels)
        judged = rng.random(pool) < 0.8
        for d, lv, j in zip(docs, levels, judged):
            if j:
                q_rows.append((topic, "0", d, int(lv)))
        for r in range(n_runs):
            n = int(rng.integers(1, depth + 1))
            chosen = rng.choice(pool + 10, size=n, replace=False)
            for c in chosen:
                docno = docs[c] if c < pool else f"u{t}-{c}"
                r_rows.append((f"run{r}", topic, docno, float(rng.integers(0, 12)) / 4))
    qrels = pd.DataFrame(q_rows, columns=["topic", "intent", "docno", "level"])
    runs = pd.DataFrame(r_rows, columns=["run", "topic", "docno", "score"])
    return qrels, runs


def diversity(judgments: dict[str, dict[str, int]], ranking: list[str], *,
              nav: tuple[str, ...] = (), topic: str = "1", probabilities="uniform"):
    """A one-topic diversity collection (intent types from ``nav``) and a one-run ranking."""
    rows = [(topic, i, d, lv) for d, per in judgments.items() for i, lv in per.items()]
    qrels = pd.DataFrame(rows, columns=["topic", "intent", "docno", "level"])
    intents = sorted({i for per in judgments.values() for i in per if i != "0"}, key=int)
    topics = pd.DataFrame({"topic": topic, "intent": intents,
                           "intent_type": ["nav" if i in nav else "inf" for i in intents],
                           "topic_type": "faceted", "query": "q",
                           "order": range(len(intents))})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        col = xdiv.build_collection(qrels, topics=topics, probabilities=probabilities)
    run = pd.DataFrame({"run": "r", "topic": topic, "docno": ranking,
                        "score": np.arange(len(ranking), 0, -1, dtype=float)})
    return col, xdiv.build_runs(run)


def random_diversity_frames(rng: np.random.Generator, n_topics: int, n_runs: int, *,
                            max_level: int = 4, depth: int = 40, pool: int = 50):
    """Random diversity qrels and runs: graded per-intent levels, spam (-2) lines, intents
    without relevant documents, a topic with no relevant document, score ties (scores
    are multiples of 0.25), runs shorter than 20, unjudged documents."""
    q_rows, r_rows = [], []
    for t in range(n_topics):
        topic = str(t + 1)
        n_int = int(rng.integers(1, 7))
        docs = [f"d{t}-{k:03d}" for k in range(pool)]
        for k, d in enumerate(docs):
            if rng.random() < 0.2:
                continue  # unjudged
            hit = False
            for i in range(1, n_int + 1):
                if rng.random() < 0.25:
                    level = int(rng.integers(1, max_level + 1))
                    if t == n_topics - 1 or (i == n_int and n_int > 2):
                        level = 0  # last topic: nothing relevant; last intent: dropped
                    q_rows.append((topic, str(i), d, level))
                    hit = True
            if not hit:
                q_rows.append((topic, "0", d, -2 if rng.random() < 0.1 else 0))
        for r in range(n_runs):
            n = int(rng.integers(1, depth + 1))
            chosen = rng.choice(pool + 15, size=n, replace=False)
            for c in chosen:
                docno = docs[c] if c < pool else f"u{t}-{c}"
                r_rows.append((f"run{r}", topic, docno, float(rng.integers(0, 16)) / 4))
    qrels = pd.DataFrame(q_rows, columns=["topic", "intent", "docno", "level"])
    runs = pd.DataFrame(r_rows, columns=["run", "topic", "docno", "score"])
    return qrels, runs


class Hang(Exception):
    """Raised inside :func:`time_limit` when its time is up."""


def without_provenance(dataset):
    """``dataset`` without its provenance record (:mod:`xdiv.io.provenance`): for
    comparing the data two ways of making it give, whose calls differ."""
    out = dataset.copy(deep=False)
    out.attrs = {k: v for k, v in dataset.attrs.items() if k != "provenance"}
    return out


@contextlib.contextmanager
def time_limit(seconds: float):
    """Raise :class:`Hang` in the block if it runs longer than ``seconds`` (SIGALRM: the
    main thread of a POSIX process)."""
    def stop(signum, frame):
        raise Hang()

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


TOOL_REFUSAL_STATUS = {"ndeval": (1,), "gdeval": (25, 255)}
"""The exit statuses with which ndeval and gdeval.pl refuse a run line (a short or blank
line, a rank they do not read; gdeval.pl says 255 for the last line of a file without a
final line feed): the drop-in commands refuse such lines in the tool's words and status."""
