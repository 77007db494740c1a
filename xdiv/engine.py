"""The evaluation engine: runs × collection × measures → ``score(metric, run, topic)``."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import xarray as xr
from tqdm.auto import tqdm

from .core.collection import check_collection
from .core.adhoc import measure_judgments
from .errors import AlignmentWarning, InputError, XdivWarning
from .core.hierarchy import flat_hierarchy
from .core.labels import from_json, object_strings, preview, to_json
from .measures.common import MEMO
from .measures.names import expand_resolved
from .measures.registry import Measure, with_adhoc
from .core.judge import check_runs, judged_cube
from ._warnings import warn
from .typing import ADHOC_METHODS, MISSING, AdhocMethod, Missing

__all__ = ["evaluate", "requested_measures"]


def requested_measures(metrics) -> tuple[list[str], list[Measure]]:
    """The cube labels and registry measures of a request.

    Each measure is labelled with the name it was asked by (``strec@5`` stays ``strec@5``,
    ``P_10`` stays ``P_10``); a word standing for several measures (a set member keeps the
    set's label; trec_eval's ``P.5,10`` or bare ``P``) labels each by its registry name.
    """
    resolved = expand_resolved(metrics)
    sources = [r.source.strip() for r in resolved]
    labels = [source if sources.count(source) == 1 else r.measure.name
              for source, r in zip(sources, resolved)]
    return labels, [r.measure for r in resolved]


def evaluate(runs: xr.Dataset, collection: xr.Dataset, metrics: str | Iterable[str | Measure],
             *, missing: Missing = "zero",
             adhoc: AdhocMethod | None = None,
             progress: bool = False) -> xr.Dataset:
    """Score every run on every topic with every measure.

    Parameters
    ----------
    runs : xarray.Dataset
        Runs (:func:`xdiv.read_runs`); may be dask-backed.
    collection : xarray.Dataset
        A collection (:func:`xdiv.read_qrels`).
    metrics : str, list of str or ir_measures measures
        Measure names, e.g. ``["nDCG@10", "Q(beta=0)@10", "alpha-nDCG@20"]``; also
        comma-separated lists, trec_eval names (``ndcg_cut_10``, ``P.10``, ``map``),
        ir_measures names and objects (``alpha_nDCG@20``, ``ir_measures.nDCG@10``, each
        with that tool's definition) and the sets ``ndeval``, ``gdeval``, ``trec_eval`` and
        ``ntcir-intent`` (:func:`xdiv.measure_set`). The cube labels each measure by the
        name it was asked by; the ``canonical`` coordinate holds the registry name.
    missing : {"zero", "nan"}
        Score of a run on a topic of the qrels (with relevant documents) for which it
        retrieved nothing: 0, as ``trec_eval -c`` does (default), or NaN (such topics are
        then left out of that run's mean). Either way the topics are listed in the
        ``topics_not_in_runs`` attribute.
    adhoc : {"max", "count"}, optional
        How the single-intent measures (nDCG, AP, P, bpref, ...) read a diversity
        collection unless a measure says so itself (``nDCG(adhoc=count)@10``): ``"max"``,
        a document's highest level over the intents (the default), or ``"count"``, the
        number of intents it is relevant to (:func:`xdiv.to_adhoc`). Diversity and
        intent-aware measures always read the per-intent levels, so one call can mix both
        kinds.
    progress : bool
        Show a progress bar (on standard error), one step per measure. For dask-backed
        runs, read when the result is computed, see :func:`xdiv.io.runfiles.block_progress`.

    Warns
    -----
    XdivWarning
        When a run retrieved no judged document (not checked for dask-backed runs: the
        result is then lazy, and the runs are read when it is computed).
    XdivWarning
        When a measure that tells navigational from informational intents (Ef-P, DIN-*,
        P+Q and their #-forms) is computed on a collection read without topics, whose
        intents are then all informational.

    Returns
    -------
    xarray.Dataset
        ``score(metric, run, topic)`` (float64; NaN where undefined: topics without any
        relevant document, which are listed in ``topics_without_relevant``), and
        ``params(metric)``, each measure's full parameter set as JSON (a single-intent
        measure's with the ``adhoc`` conversion it read the collection with). Topics are the union
        of the runs' and the collection's; retrieved topics absent from the qrels are
        listed in ``topics_not_in_qrels``.

    Examples
    --------
    >>> import xdiv
    >>> collection, runs = xdiv.datasets.example("fig1")
    >>> scores = xdiv.evaluate(runs, collection, ["nDCG@5", "alpha-nDCG@5", "Ef-P@5"])
    >>> scores["score"].dims
    ('metric', 'run', 'topic')
    >>> scores["score"].sel(run="fig1", topic="1").round(4).to_series().to_dict()
    {'nDCG@5': 0.7186, 'alpha-nDCG@5': 0.8449, 'Ef-P@5': 0.6}
    """
    if missing not in MISSING:
        raise InputError(f"missing must be 'zero' or 'nan', not {missing!r}")
    check_runs(runs, "evaluate: runs")
    check_collection(collection, "evaluate: collection")
    labels, measures = requested_measures(metrics)
    typed = [m.name for m in measures if m.definition.uses_intent_types]
    if typed and not collection.attrs.get("topics"):
        warn(f"{preview(typed, 5)}: the collection was read without a topic file, "
             "so every intent is taken as informational (these measures treat "
             "navigational intents differently; give the qrels their topic file)",
             XdivWarning)
    if adhoc is not None and adhoc not in ADHOC_METHODS:
        raise InputError(f"adhoc must be 'max', 'count' or None, not {adhoc!r}")
    computed = [with_adhoc(m, adhoc) for m in measures]  # each with its conversion decided
    if "node_covers" not in collection and any(m.definition.family == "hierarchy"
                                               for m in measures):
        collection = flat_hierarchy(collection)
    depth = None if any(m.cutoff is None for m in measures) else max(m.cutoff for m in measures)
    cube = judged_cube(runs, collection, depth=depth)
    cube.attrs[MEMO] = {}  # work the measures share within this evaluation
    _warn_unjudged_runs(cube)
    steps = tqdm(zip(computed, measure_judgments(cube, computed)), total=len(computed),
                 desc="evaluating", unit="measure", disable=not progress, leave=False)
    scores = [m.definition.compute(judged, m).transpose("run", "topic") for m, judged in steps]
    score = xr.concat(scores, dim="metric", coords="minimal", compat="override",
                      join="override")
    score = score.assign_coords(metric=object_strings(labels),
                                canonical=("metric", object_strings([m.name for m in measures])))
    if missing == "nan":
        score = score.where(cube["retrieved"])
    no_relevant = [str(t) for t, ok in zip(cube["topic"].values,
                                           cube["intent_valid"].values.any(axis=1)) if not ok]
    result = xr.Dataset(
        {"score": score.astype(np.float64),
         "params": ("metric", object_strings([
             to_json(m.params) for m in computed]))},
        attrs={
            "xdiv_kind": "scores",
            "missing": missing,
            "adhoc": adhoc or "",
            "probabilities": collection.attrs.get("probabilities", ""),
            "collection": collection.attrs.get("source", ""),
            "runs": runs.attrs.get("source", ""),
            "order": runs.attrs.get("order", ""),
            "hierarchy": collection.attrs.get("hierarchy", ""),
            "hierarchy_weights": collection.attrs.get("hierarchy_weights", ""),
            "topics_without_relevant": to_json(no_relevant),
            "topics_not_in_qrels": cube.attrs["topics_not_in_qrels"],
            "topics_not_in_runs": cube.attrs["topics_not_in_runs"],
        },
    )
    _warn_alignment(result)
    return result


def _warn_unjudged_runs(cube: xr.Dataset) -> None:
    """Name the runs none of whose documents is judged (wrong year, wrong collection or a
    docno typo): they score 0 on every measure. Not checked on dask-backed runs, whose
    documents are only read when the scores are computed."""
    if cube["judged"].chunks is not None:
        return
    unjudged = ~cube["judged"].any(("topic", "rank")).values
    if unjudged.any():
        runs = [str(r) for r in cube["run"].values[unjudged]]
        warn(f"{len(runs)} run(s) retrieved no judged document, and score 0 (is the "
                      f"run of another collection or year?): {preview(runs)}", XdivWarning)


def _warn_alignment(result: xr.Dataset) -> None:
    unjudged = from_json(result.attrs["topics_not_in_qrels"])
    if unjudged:
        warn(f"{len(unjudged)} retrieved topic(s) are not in the qrels and score NaN: "
                      f"{preview(unjudged)}", AlignmentWarning)
    lacking = from_json(result.attrs["topics_not_in_runs"])
    if lacking:
        what = "0" if result.attrs["missing"] == "zero" else "NaN"
        shown = "; ".join(f"{run}: topic{'s' if len(t) > 1 else ''} {preview(t, 5)}"
                          for run, t in list(lacking.items())[:5])
        warn(f"{len(lacking)} run(s) retrieved nothing for some judged topics, which "
                      f"score {what} (missing={result.attrs['missing']!r}): {shown}",
                      AlignmentWarning)
