"""Embedded data: a seeded synthetic generator, worked examples, TREC loaders.

* :func:`synthetic` builds a realistic diversity collection and runs of varying quality
  (graded per-intent levels, nav/inf intents, unjudged documents, score ties); it is the
  demo's default data. :func:`synthetic_frames` gives the same data as tidy frames and
  :func:`write_synthetic` as TREC files (for benchmarks "from files on disk").
* :func:`example` loads the small hand-made collections of the worked examples (from the papers),
  shipped as TREC files in the repository's ``datasets/examples`` folder.
* :func:`trec_web` loads the TREC Web Track diversity data from a path you give (the data
  is not part of xdiv).
"""

from __future__ import annotations

import glob
import os
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from .io.api import build_collection
from .io.api import read_qrels
from .errors import InputError
from .io.api import write_qrels, write_run
from .io.runfiles import read_runs
from .core.runs import build_runs

__all__ = ["synthetic", "synthetic_frames", "write_synthetic", "example", "examples",
           "trec_web", "data_dir", "hierarchy_path", "synthetic_hierarchy", "synthetic_assessments"]


def synthetic_frames(n_topics: int = 30, n_runs: int = 10, depth: int = 100, *,
                     intents: tuple[int, int] = (2, 6), max_level: int = 3,
                     judged_per_topic: int | None = None, nav_share: float = 0.25,
                     seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Synthetic qrels, topics and runs as tidy frames (see :func:`synthetic`).

    Returns
    -------
    qrels : DataFrame ``topic intent docno level`` (with some -2 spam lines)
    topics : DataFrame as :func:`xdiv.io.read_topics` returns
    runs : DataFrame ``run topic docno rank score``
    """
    rng = np.random.default_rng(seed)
    judged = judged_per_topic or max(2 * depth, 50)
    candidates = judged + depth  # the rest of each topic's candidates are unjudged
    n_int = rng.integers(intents[0], intents[1] + 1, size=n_topics)
    topics = [str(t + 1) for t in range(n_topics)]

    # per-intent levels of the judged pool: (topic, intent, doc)
    width = int(n_int.max())
    exists = np.arange(width)[None, :] < n_int[:, None]
    popularity = rng.dirichlet(np.ones(width), size=n_topics) * exists
    relevant = rng.random((n_topics, width, judged)) < np.clip(
        0.6 * popularity[:, :, None] * width / 2, 0, 0.5)
    level = np.where(relevant, rng.integers(1, max_level + 1, relevant.shape), 0)
    level[~exists] = 0
    spam = rng.random((n_topics, judged)) < 0.03

    docnos = np.array([f"x{t:04d}-{d:06d}" for t in range(n_topics)
                       for d in range(candidates)], dtype=object).reshape(n_topics, candidates)
    rows_t, rows_i, rows_d = np.nonzero(level > 0)
    rel_frame = pd.DataFrame({"topic": np.array(topics, dtype=object)[rows_t],
                              "intent": (rows_i + 1).astype(str).astype(object),
                              "docno": docnos[rows_t, rows_d],
                              "level": level[rows_t, rows_i, rows_d]})
    nonrel_t, nonrel_d = np.nonzero(~(level > 0).any(axis=1))
    nonrel_frame = pd.DataFrame({"topic": np.array(topics, dtype=object)[nonrel_t],
                                 "intent": "0", "docno": docnos[nonrel_t, nonrel_d],
                                 "level": np.where(spam[nonrel_t, nonrel_d], -2, 0)})
    qrels = pd.concat([rel_frame, nonrel_frame], ignore_index=True)

    itype = np.where(rng.random((n_topics, width)) < nav_share, "nav", "inf")
    ti, ii = np.nonzero(exists)
    topic_frame = pd.DataFrame({
        "topic": np.array(topics, dtype=object)[ti], "intent": (ii + 1).astype(str),
        "intent_type": itype[ti, ii],
        "topic_type": np.where(n_int[ti] > 3, "faceted", "ambiguous"),
        "query": [f"synthetic topic {t + 1}" for t in ti], "order": ii})

    # runs: score = quality * relevance signal + noise, top `depth` of the candidates
    quality = np.linspace(0.9, 0.05, n_runs)
    signal = np.zeros((n_topics, candidates))
    signal[:, :judged] = (level * (1 + popularity[:, :, None])).sum(axis=1)
    noise = rng.gumbel(size=(n_runs, n_topics, candidates))
    scores = quality[:, None, None] * signal[None] + noise
    coarse = np.arange(n_runs) % 3 == 2  # every third run rounds its scores: ties
    scores[coarse] = np.round(scores[coarse], 1)
    # ranked by score, ties by docno descending (trec_eval's order), so that the rank
    # column agrees with the ranking xdiv evaluates by default
    top = candidates - 1 - np.argsort(-scores[..., ::-1], axis=-1, kind="stable")[..., :depth]
    r, t, k = np.meshgrid(np.arange(n_runs), np.arange(n_topics), np.arange(depth),
                          indexing="ij")
    runs = pd.DataFrame({
        "run": np.array([f"run{i + 1:02d}" for i in range(n_runs)], dtype=object)[r.ravel()],
        "topic": np.array(topics, dtype=object)[t.ravel()],
        "docno": docnos[t.ravel(), top.ravel()],
        "rank": k.ravel() + 1,
        "score": np.take_along_axis(scores, top, axis=-1).ravel(),
    })
    return qrels, topic_frame, runs


def synthetic(n_topics: int = 30, n_runs: int = 10, depth: int = 100, *,
              intents: tuple[int, int] = (2, 6), max_level: int = 3,
              judged_per_topic: int | None = None, nav_share: float = 0.25,
              probabilities: str = "uniform", seed: int = 0) -> tuple[xr.Dataset, xr.Dataset]:
    """A seeded synthetic diversity test collection and runs.

    Parameters
    ----------
    n_topics, n_runs, depth : int
        Sizes; every run retrieves ``depth`` documents per topic.
    intents : (int, int)
        Range of the number of intents per topic.
    max_level : int
        Highest per-intent relevance level.
    judged_per_topic : int, optional
        Size of each topic's judged pool (default ``max(2 * depth, 50)``); runs also
        retrieve unjudged documents.
    nav_share : float
        Share of navigational intents.
    probabilities : str
        Intent probability scheme (``"uniform"`` or ``"nonuniform"``).
    seed : int
        Seed of :func:`numpy.random.default_rng`; the same seed gives the same data.

    Returns
    -------
    (collection, runs) : tuple of xarray.Dataset
    """
    qrels, topics, runs = synthetic_frames(n_topics, n_runs, depth, intents=intents,
                                           max_level=max_level,
                                           judged_per_topic=judged_per_topic,
                                           nav_share=nav_share, seed=seed)
    source = f"synthetic(seed={seed})"
    collection = build_collection(qrels, topics=topics, probabilities=probabilities,
                                  source=source)
    out = build_runs(runs)
    out.attrs["source"] = source
    return collection, out


def write_synthetic(directory: str | os.PathLike, **kwargs) -> dict[str, object]:
    """Write :func:`synthetic_frames` data as TREC files: ``qrels.txt`` and one file per run
    under ``runs/``. Returns the paths (``qrels``, ``runs``: list)."""
    qrels, _, runs = synthetic_frames(**kwargs)
    directory = Path(directory)
    (directory / "runs").mkdir(parents=True, exist_ok=True)
    write_qrels(directory / "qrels.txt", qrels)
    paths = []
    for name, frame in runs.groupby("run", sort=True):
        path = directory / "runs" / f"{name}.txt"
        write_run(path, frame)
        paths.append(str(path))
    return {"qrels": str(directory / "qrels.txt"), "runs": paths}


def data_dir() -> Path:
    """Folder of the shipped data files (``datasets/`` of the repository)."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "_datasets", here.parent / "datasets"):
        if candidate.is_dir():
            return candidate
    raise InputError("the xdiv data folder is missing from this installation")


def synthetic_hierarchy(collection: xr.Dataset, *, layers: int = 3,
                        seed: int = 0) -> pd.DataFrame:
    """A seeded random hierarchy frame over each topic's valid intents: the intents are
    grouped under ``layers - 1`` levels of broader nodes (about two children each), so
    that the extended hierarchy (EIH) has ``layers`` layers."""
    rng = np.random.default_rng(seed)
    rows = []
    for topic, valid in zip(collection["topic"].values, collection["intent_valid"].values):
        level = [(f"i{i}", str(i)) for i in collection["intent"].values[valid]]
        for depth in range(layers - 1, 0, -1):
            order = rng.permutation(len(level))
            groups = np.array_split(order, max(1, len(level) // 2))
            parents = []
            for g, members in enumerate(groups):
                name = f"L{depth}g{g}"
                rows += [(str(topic), level[m][0], name, level[m][1]) for m in members]
                parents.append((name, ""))
            level = parents
        rows += [(str(topic), node, "", intent) for node, intent in level]
    return pd.DataFrame(rows, columns=["topic", "node", "parent", "intent"])


def synthetic_assessments(n_topics: int = 20, n_docs: int = 60, n_assessors: int = 3, *,
                          levels: int = 3, agreement: float = 0.6,
                          seed: int = 0) -> pd.DataFrame:
    """Seeded multi-assessor labels for the UDM (see :func:`xdiv.udm.synthetic_assessments`)."""
    from .analysis.udm import synthetic_assessments as make

    return make(n_topics, n_docs, n_assessors, levels=levels, agreement=agreement, seed=seed)


def hierarchy_path() -> Path:
    """Path of the shipped hand-made hierarchies (``datasets/hierarchies/trec-web.txt``)."""
    return data_dir() / "hierarchies" / "trec-web.txt"


def examples() -> list[str]:
    """Names of the shipped worked examples."""
    return sorted(p.name[: -len(".qrels")] for p in (data_dir() / "examples").glob("*.qrels"))


def example(name: str, *, probabilities: str = "uniform") -> tuple[xr.Dataset, xr.Dataset]:
    """Load a worked example (``(collection, runs)``) from ``datasets/examples``.

    Each example is a qrels file, a run file and, where intent types matter, a topic XML
    file; ``datasets/examples/README.md`` says where each comes from and what it checks.
    """
    folder = data_dir() / "examples"
    if name not in examples():
        raise InputError(f"unknown example {name!r}; available: {', '.join(examples())}")
    xml = folder / f"{name}.xml"
    collection = read_qrels(folder / f"{name}.qrels",
                            topics=xml if xml.exists() else None, probabilities=probabilities)
    return collection, read_runs([folder / f"{name}.run"])


def trec_web(root: str | os.PathLike, year: int = 2009, *, probabilities: str = "uniform",
             runs: bool = True) -> tuple[xr.Dataset, xr.Dataset | None]:
    """Load TREC Web Track diversity data from ``root/<year>`` (qrels, topic XML, runs).

    ``root`` is a folder laid out like ``shared/reference/trec-web``: ``<year>/
    qrels.diversity.gz``, one ``*.xml`` topic file and ``<year>/runs/*``. With
    ``runs=False`` the runs are not read and ``None`` stands in their place; with
    ``runs=True`` a year without run files is an error.
    """
    folder = Path(root) / str(year)
    qrels = folder / "qrels.diversity.gz"
    if not qrels.exists():
        raise InputError(f"{qrels}: no such file (give the folder holding <year>/qrels)")
    xml = sorted(folder.glob("*.xml"))
    collection = read_qrels(qrels, topics=xml[0] if xml else None,
                            probabilities=probabilities)
    if not runs:
        return collection, None
    run_files = sorted(glob.glob(str(folder / "runs" / "*")))
    if not run_files:
        raise InputError(f"{folder / 'runs'}: no run files (runs=False loads the qrels only)")
    return collection, read_runs(run_files)
