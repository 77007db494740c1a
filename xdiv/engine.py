"""The evaluation engine: runs × collection × measures → ``score(metric, run, topic)``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import xarray as xr
from tqdm.auto import tqdm

from .core.collection import ABSENT, check_collection, collection_in_memory
from .core.adhoc import measure_judgments
from .errors import AlignmentWarning, InputError, SingleIntentWarning, XdivWarning
from .core.hierarchy import flat_hierarchy
from .core.labels import (from_json, natural_sorted, object_strings, preview, string_variable,
                          to_json)
from .measures.common import IDEAL_LISTS, MEMO
from .measures.names import expand_resolved
from .measures.registry import SINGLE_INTENT_FAMILY, Measure, with_adhoc
from .core.judge import check_runs, judged_cube, unjudged_as_relevant
from .io.ir_metadata import IR_METADATA_ATTR
from .io.provenance import attach_call, parent_record, record_call, recorded
from .core.ties import TIE_START, shuffled_samples, sorted_within_ties, untied_depth
from ._warnings import warn
from .typing import (ADHOC_METHODS, MISSING, TIES, AdhocMethod, Duplicates, Missing,
                     Order, Ties)

__all__ = ["evaluate", "evaluate_files", "requested_measures", "TIE_SPREAD_WARNING"]

TIE_SPREAD_WARNING = 0.01
"""The mean tie spread (``score_max - score_min`` over a run's topics) above which
``evaluate(..., ties="range")`` warns that the tie rule moves a run's mean score."""

BLOCK_CELLS = 1 << 20
"""The ``(run, topic, rank)`` cells of in-memory runs that :func:`evaluate` scores at a
time: larger run sets are scored in blocks of whole runs, which bounds the memory of the
measures' intermediate arrays (tens of bytes a cell) and changes no bit of the result."""

_SCORE_VARIABLES = ("score", "score_se", "score_min", "score_max", "tie_spread", "score_high")
"""The per-(metric, run, topic) variables a score cube may hold, in this order."""


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


@recorded
def evaluate(runs: xr.Dataset, collection: xr.Dataset, metrics: str | Iterable[str | Measure],
             *, missing: Missing = "zero",
             adhoc: AdhocMethod | None = None, ties: Ties | None = None,
             tie_samples: int = 200, seed: int = 0, judged_only: bool = False,
             residuals: bool = False, progress: bool = False) -> xr.Dataset:
    """Score every run on every topic with every measure.

    Parameters
    ----------
    runs : xarray.Dataset
        Runs (:func:`xdiv.read_runs`); may be dask-backed.
    collection : xarray.Dataset
        A collection (:func:`xdiv.read_qrels`); a dask-backed one (opened lazily from
        NetCDF) is read into memory once, since judging reads it whole.
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
    ties : {None, "expected", "range"}
        Documents a run gives the same score (a tie group) have no order of their own: by
        default (None) they are ranked as the runs were read (``order`` of
        :func:`xdiv.read_runs`). ``"expected"`` scores each list by the expectation over
        all orders of its tie groups, each order equally likely (McSherry & Najork,
        ECIR 2008), in ``score``: exactly for P, nDCG, RBP, AP, Q, alpha-DCG,
        alpha-nDCG, I-rec, D-nDCG, D#-nDCG, the intent-aware forms of the adhoc ones and
        the measures no order changes (NumRet, NumRel, NumRelRet); for every other measure by the mean over
        ``tie_samples`` random orders, its standard error in ``score_se`` (0 where
        exact). ``"range"`` keeps ``score`` and adds ``score_min`` and ``score_max``, the
        lowest and highest score over the orders, and ``tie_spread`` = ``score_max -
        score_min``: exact for the single-intent measures that grow when a more relevant
        document moves up (nDCG, AP, Q, ERR, P, RR, RBP, bpref, ...), bounds (each
        intent's best and worst order at once) for the diversity measures that sum such
        terms over intents (alpha-nDCG, ERR-IA, nERR-IA, NRBP, MAP-IA, P-IA, I-rec,
        D-nDCG, D#-nDCG, the intent-aware forms), and the extremes of the default order
        and ``tie_samples`` random ones otherwise. The ``ties_method(metric)``
        coordinate says which (``"exact"``, ``"bounds"`` or ``"sampled"``). Ties are
        groups of consecutive ranks with equal scores; the depth read is deepened to the
        end of any group that crosses the largest cutoff. ``score_high`` (``residuals``)
        scores the lists in the order read.
    tie_samples : int
        The number of random tie orders of the sampled measures (default 200).
    seed : int
        Seeds the random tie orders; a list's orders depend only on the seed, the sample
        and its run and topic labels, so they are the same whichever runs are evaluated
        with it. Recorded, with ``tie_samples``, in the attributes.
    judged_only : bool
        Condensed lists (Sakai, SIGIR 2007; trec_eval's ``-J``): remove from each ranked
        list the unjudged documents before scoring, the judged ones moving up in their
        order; every measure, adhoc and diversity, then reads the condensed lists, and its
        cutoff counts judged documents only. A document is judged when it has a qrels line
        of level >= 0 for the topic (for some intent); one whose levels are all negative
        (-1, pooled but not judged; TREC's spam -2) is unjudged, as for trec_eval ``-J``,
        infAP and bpref.
    residuals : bool
        Add ``score_high(metric, run, topic)``, the score when every unjudged document of
        the list (within the measure's cutoff) is counted relevant, at the collection's
        highest level, to every valid intent of its topic; ``score`` is the lower bound
        (unjudged documents non-relevant). The ideal lists stay those of the qrels, so an
        upper bound may exceed 1 (Moffat & Zobel's residuals, TOIS 2008).
    progress : bool
        Show a progress bar (on standard error), one step per measure (a bar per block of
        runs when a large run set is scored in blocks, see :data:`BLOCK_CELLS`). For
        dask-backed runs, read when the result is computed, see
        :func:`xdiv.io.runfiles.block_progress`.

    Warns
    -----
    XdivWarning
        With ``ties="range"``, when the tie order moves a run's mean score by more than
        :data:`TIE_SPREAD_WARNING` on some measure (the mean of ``tie_spread`` over its
        topics).
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
        measure's with the ``adhoc`` conversion it read the collection with); with
        ``residuals``, ``score_high(metric, run, topic)`` too, and with ``ties`` the
        variables and ``ties_method`` coordinate described there. The attributes
        ``judged_only`` and ``residuals`` (0 or 1), ``ties`` (``""`` for None),
        ``tie_samples`` and ``tie_seed`` record the options, and ``provenance`` the
        call with its input files, measures and options (:mod:`xdiv.io.provenance`;
        ``xdiv verify`` makes the cube again from it). Topics are the union
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
    plan = _plan(collection, metrics, missing, adhoc, runs=runs, judged_only=judged_only,
                 residuals=residuals, ties=ties, tie_samples=tie_samples, seed=seed)
    result, unjudged = _scores_in_blocks(runs, plan, progress=progress)
    _warn_unjudged_runs(unjudged)
    _warn_alignment(result)
    _warn_tie_spread(result)
    return result


def evaluate_files(paths, collection: xr.Dataset, metrics: str | Iterable[str | Measure], *,
                   order: Order = "score-docno-desc", duplicates: Duplicates = "error",
                   missing: Missing = "zero", adhoc: AdhocMethod | None = None,
                   ties: Ties | None = None, tie_samples: int = 200, seed: int = 0,
                   judged_only: bool = False, residuals: bool = False,
                   block: int | None = None, progress: bool = False) -> xr.Dataset:
    """Score run files block by block, holding only a few files' run lines at a time.

    The streaming form of ``evaluate(read_runs(paths), collection, metrics)``: the files
    are read in one pass, in blocks of a few files (:func:`xdiv.io.runfiles.read_run_blocks`),
    worker threads parsing and ranking the next block while the current one is scored;
    each block is evaluated as :func:`evaluate` evaluates runs, and the blocks' scores are
    put together. The result is identical, bit for bit and attributes included, to the
    all-in-memory evaluation, and so are the errors and warnings (each warning about the
    run set is given once, after the last block), while the memory held stays that of two
    blocks whatever the number of files. No dask is involved.

    Parameters
    ----------
    paths : str, path-like or list of them
        Run files (gzip allowed), or a glob pattern (``"runs/*.gz"``), as
        :func:`xdiv.read_runs` takes them.
    collection : xarray.Dataset
        A collection (:func:`xdiv.read_qrels`), read once.
    metrics
        As in :func:`evaluate`.
    order, duplicates
        As in :func:`xdiv.read_runs`.
    missing, adhoc, ties, tie_samples, seed, judged_only, residuals
        As in :func:`evaluate`.
    block : int, optional
        Files per block; by default blocks hold about
        :data:`xdiv.io.runfiles.STREAM_BLOCK_BYTES` of run text (a gzip file's text
        estimated from its size), at least one file each.
    progress : bool
        Show a progress bar on standard error, one step per file.

    Returns
    -------
    xarray.Dataset
        The score cube of :func:`evaluate`: runs sorted by name, topics the union of the
        runs' and the collection's.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import xdiv
    >>> from xdiv.engine import evaluate_files
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name)
    >>> _ = (path / "qrels.txt").write_text("1 0 d1 1\\n1 0 d2 0\\n1 0 d3 2\\n")
    >>> _ = (path / "a.run").write_text("1 Q0 d1 1 2.0 runA\\n1 Q0 d2 2 1.0 runA\\n")
    >>> _ = (path / "b.run").write_text("1 Q0 d3 1 3.0 runB\\n1 Q0 d1 2 2.0 runB\\n")
    >>> collection = xdiv.read_qrels(path / "qrels.txt")
    >>> scores = evaluate_files(str(path / "*.run"), collection, ["P@2", "AP"], block=1)
    >>> scores["score"].sel(topic="1").round(4).to_pandas()
    run     runA  runB
    metric
    P@2      0.5   1.0
    AP       0.5   1.0
    >>> eager = xdiv.evaluate(xdiv.read_runs(str(path / "*.run")), collection, ["P@2", "AP"])
    >>> scores.identical(eager)
    True
    >>> folder.cleanup()
    """
    from .io.runfiles import read_run_blocks, read_runs  # the engine reads files only here

    plan = _plan(collection, metrics, missing, adhoc, warn_types=False,
                 judged_only=judged_only, residuals=residuals, ties=ties,
                 tie_samples=tie_samples, seed=seed)
    parts = [_scores_in_blocks(runs, plan) for runs in read_run_blocks(
        paths, order=order, duplicates=duplicates, block=block, progress=progress)]
    _warn_intent_types(plan)
    _warn_single_intent(plan)
    result = _joined([result for result, _ in parts], plan)
    _warn_unjudged_runs([run for _, unjudged in parts for run in unjudged])
    _warn_alignment(result)
    _warn_tie_spread(result)
    # recorded as what it computes, evaluate(read_runs(paths), ...)
    return attach_call(result, evaluate, (None, collection, metrics), {
        "missing": missing, "adhoc": adhoc, "ties": ties, "tie_samples": tie_samples,
        "seed": seed, "judged_only": judged_only, "residuals": residuals},
        encoded={"runs": lambda: parent_record("runs", record_call(
            read_runs, (paths,), {"order": order, "duplicates": duplicates},
            roles={"paths": "runs"}))})


@dataclass
class _Plan:
    """What an evaluation computes, checked once: the measures, their labels and
    conversions, and the collection they read."""

    collection: xr.Dataset
    labels: list[str]
    measures: list[Measure]
    computed: list[Measure]
    missing: str
    adhoc: str | None
    typed: list[str]
    """The measures that tell intent types apart, when the collection has no topic file."""
    judged_only: bool = False
    """Condensed lists: the unjudged documents removed before scoring."""
    residuals: bool = False
    """Add the upper bounds ``score_high``, unjudged documents counted relevant."""
    ties: str | None = None
    """How tie groups are scored (None: in the order read)."""
    tie_samples: int = 200
    seed: int = 0
    memo: dict = field(default_factory=dict)
    """The collection's share of the judging, kept from block to block (see
    :func:`xdiv.core.judge.judged_cube`)."""
    ideal_lists: dict = field(default_factory=dict)
    """ndeval's greedy ideal lists, kept from block to block (see
    :data:`xdiv.measures.common.IDEAL_LISTS`)."""


def _plan(collection, metrics, missing, adhoc, *, runs: xr.Dataset | None = None,
          warn_types: bool = True, judged_only: bool = False,
          residuals: bool = False, ties: str | None = None, tie_samples: int = 200,
          seed: int = 0) -> _Plan:
    """The checked plan (``runs`` checked too when given); ``warn_types`` gives the
    warning of :func:`_warn_intent_types` at once."""
    if missing not in MISSING:
        raise InputError(f"missing must be 'zero' or 'nan', not {missing!r}")
    if runs is not None:
        check_runs(runs, "evaluate: runs")
    check_collection(collection, "evaluate: collection")
    collection = collection_in_memory(collection)
    labels, measures = requested_measures(metrics)
    typed = [m.name for m in measures if m.definition.uses_intent_types]
    for name, value in (("judged_only", judged_only), ("residuals", residuals)):
        if isinstance(value, str) or value not in (True, False):
            raise InputError(f"{name} must be True or False, not {value!r}")
    if ties is not None and ties not in TIES:
        raise InputError(f"ties must be None, 'expected' or 'range', not {ties!r}")
    for name, value, low in (("tie_samples", tie_samples, 2), ("seed", seed, 0)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise InputError(f"{name} must be a whole number >= {low}, not {value!r}")
    plan = _Plan(collection, labels, measures, [], missing, adhoc,
                 typed if not collection.attrs.get("topics") else [],
                 bool(judged_only), bool(residuals), ties, int(tie_samples), int(seed))
    if warn_types:
        _warn_intent_types(plan)
        _warn_single_intent(plan)
    if adhoc is not None and adhoc not in ADHOC_METHODS:
        raise InputError(f"adhoc must be 'max', 'count' or None, not {adhoc!r}")
    computed = [with_adhoc(m, adhoc) for m in measures]  # each with its conversion decided
    if "node_covers" not in collection and any(m.definition.family == "hierarchy"
                                               for m in measures):
        plan.collection = flat_hierarchy(collection)
    plan.computed = computed
    return plan


def _warn_intent_types(plan: _Plan) -> None:
    if plan.typed:
        warn(f"{preview(plan.typed, 5)}: the collection was read without a topic file, "
             "so every intent is taken as informational (these measures treat "
             "navigational intents differently; give the qrels their topic file)",
             XdivWarning)


def _warn_single_intent(plan: _Plan) -> None:
    """Warn when diversity measures are asked of qrels where no topic has two intents."""
    diversity = [m.name for m in plan.measures if m.definition.family != SINGLE_INTENT_FAMILY]
    if not diversity:
        return
    judged = (plan.collection.variables["judgment"] != ABSENT).any("doc")
    if int(judged.sum("intent").values.max(initial=0)) <= 1:
        warn(f"{preview(diversity, 5)}: no topic of the qrels has more than one subtopic "
             "(intent), so these diversity measures reduce to single-intent ones; give "
             "diversity qrels (topic subtopic docno level; in ir_measures, the subtopic in "
             "'iteration' or 'subtopic_id')", SingleIntentWarning)


def _scores(runs: xr.Dataset, plan: _Plan, *, progress: bool = False
            ) -> tuple[xr.Dataset, list[str]]:
    """The score cube of checked ``runs``, without its warnings, and the runs that
    retrieved no judged document (none listed for dask-backed runs)."""
    collection, measures = plan.collection, plan.measures
    depth = None if any(m.cutoff is None for m in measures) else max(m.cutoff for m in measures)
    cube = judged_cube(runs, collection, depth=depth, memo=plan.memo,
                       judged_only=plan.judged_only, ties=plan.ties is not None)
    # work the measures share within this evaluation (the ideal lists: of every block)
    cube.attrs[MEMO] = {IDEAL_LISTS: plan.ideal_lists}
    unjudged = _unjudged_runs(cube)
    variables = _tie_scores(cube, plan, progress=progress)
    if plan.residuals:  # the same reduction, unjudged documents counted relevant
        high = unjudged_as_relevant(cube)
        high.attrs[MEMO] = {IDEAL_LISTS: plan.ideal_lists}
        variables["score_high"] = _values(measure_judgments(high, plan.computed), plan,
                                          "compute")
    no_relevant = [str(t) for t, ok in zip(cube.variables["topic"].values,
                                           cube.variables["intent_valid"].values.any(axis=1))
                   if not ok]
    method = variables.pop("ties_method", None)
    metric = {"metric": string_variable("metric", plan.labels),
              "canonical": string_variable("metric", [m.name for m in plan.measures])}
    if method is not None:
        metric["ties_method"] = string_variable("metric", method)
    metric = xr.Coordinates(metric)
    # every measure's values are on the cube's (run, topic) labels: stacked as variables,
    # under the first one's coordinates and the metric's, without a new alignment
    first = next(iter(variables.values()))[0]
    coords = xr.Coordinates({**first.coords.variables, **metric.variables},
                            indexes={**first.xindexes, **metric.xindexes})
    retrieved = cube.variables["retrieved"] if plan.missing == "nan" else None

    def stack(values: list[xr.DataArray]) -> xr.Variable:
        out = xr.Variable.concat([v.variable.transpose(*first.dims) for v in values],
                                 dim="metric")
        return (out if retrieved is None else out.where(retrieved)).astype(np.float64)

    stacked = {name: stack(values) for name, values in variables.items()}
    result = xr.Dataset(
        {**stacked,
         "params": string_variable("metric", [to_json(m.params) for m in plan.computed])},
        coords=coords,
        attrs={
            "xdiv_kind": "scores",
            "missing": plan.missing,
            "adhoc": plan.adhoc or "",
            "judged_only": int(plan.judged_only),
            "residuals": int(plan.residuals),
            "ties": plan.ties or "",
            "tie_samples": plan.tie_samples,
            "tie_seed": plan.seed,
            "probabilities": collection.attrs.get("probabilities", ""),
            "renormalise": int(collection.attrs.get("renormalise", 1)),
            "collection": collection.attrs.get("source", ""),
            "runs": runs.attrs.get("source", ""),
            "order": runs.attrs.get("order", ""),
            "hierarchy": collection.attrs.get("hierarchy", ""),
            "hierarchy_weights": collection.attrs.get("hierarchy_weights", ""),
            "topics_without_relevant": to_json(no_relevant),
            "topics_not_in_qrels": cube.attrs["topics_not_in_qrels"],
            "topics_not_in_runs": cube.attrs["topics_not_in_runs"],
            **_run_metadata(runs),
        },
    )
    # in the order of a cube built from labelled arrays: coordinates, scores, parameters
    return result[[*coords, *stacked, "params"]], unjudged


def _scores_in_blocks(runs: xr.Dataset, plan: _Plan, *, progress: bool = False
                      ) -> tuple[xr.Dataset, list[str]]:
    """:func:`_scores` of in-memory ``runs``, in blocks of runs of at most
    :data:`BLOCK_CELLS` cells (at least one run a block), put together in the runs' order;
    dask-backed runs are scored as their chunks are, and with ``ties="expected"`` the runs
    are scored at once."""
    per_run = runs.sizes["topic"] * runs.sizes["rank"]
    step = max(1, BLOCK_CELLS // max(per_run, 1))
    # the random tie orders are drawn in batches sized by the whole cube, and their mean
    # is summed in the batches' layout: scored as it stands, so that no bit moves
    if runs["doc"].chunks is not None or runs.sizes["run"] <= step or plan.ties == "expected":
        return _scores(runs, plan, progress=progress)
    parts = [_scores(runs.isel(run=slice(k, k + step)), plan, progress=progress)
             for k in range(0, runs.sizes["run"], step)]
    first = parts[0][0]
    variables = {name: xr.concat([part[name] for part, _ in parts], dim="run",
                                 coords="minimal", compat="override", join="override")
                 for name in _SCORE_VARIABLES if name in first}
    position = {str(t): k for k, t in enumerate(first["topic"].values)}
    attrs = dict(first.attrs, **_alignment_of([part for part, _ in parts],
                                              [str(r) for r in runs["run"].values], position),
                 **_run_metadata(runs))
    result = xr.Dataset({**variables, "params": first["params"]}, attrs=attrs)
    return result, [run for _, unjudged in parts for run in unjudged]


def _run_metadata(runs: xr.Dataset) -> dict:
    """The ``ir_metadata`` attribute of ``runs`` (:mod:`xdiv.io.ir_metadata`) for the runs
    they hold, or nothing when none of them carries a block."""
    names = {str(r) for r in runs["run"].values}
    blocks = {k: v for k, v in from_json(runs.attrs.get(IR_METADATA_ATTR, "{}")).items()
              if k in names}
    return {IR_METADATA_ATTR: to_json(blocks)} if blocks else {}


def _values(views: list[xr.Dataset], plan: _Plan, how: str, which: list[int] | None = None,
            *, progress: bool = False) -> list[xr.DataArray]:
    """``(run, topic)`` values of the measures ``which`` of ``plan`` (all by default), each
    on its judged view (``views``, one per measure of ``plan``:
    :func:`xdiv.core.adhoc.measure_judgments`): ``how="compute"`` scores the lists as
    they stand, ``"expected"`` gives each measure's exact expectation over tie orders,
    ``"best"`` and ``"worst"`` score the lists with their tie groups sorted best or worst
    first (:func:`xdiv.core.ties.sorted_within_ties`)."""
    which = list(range(len(plan.computed))) if which is None else which
    chosen = [plan.computed[k] for k in which]
    views = [views[k] for k in which]
    if how in ("best", "worst"):
        sorted_views: dict[int, xr.Dataset] = {}
        for view in views:
            if id(view) not in sorted_views:
                sorted_views[id(view)] = sorted_within_ties(view, best_first=how == "best")
        views = [sorted_views[id(view)] for view in views]
    steps = tqdm(zip(chosen, views), total=len(chosen), desc="evaluating", unit="measure",
                 disable=not progress, leave=False)
    compute = (lambda m: m.definition.expected) if how == "expected" else (
        lambda m: m.definition.compute)
    return [compute(m)(view, m).transpose("run", "topic") for m, view in steps]


def _tie_scores(cube: xr.Dataset, plan: _Plan, *, progress: bool = False) -> dict:
    """The score variables (lists of ``(run, topic)`` values, one per measure) under
    ``plan.ties``, and ``ties_method``, the way each measure was scored over tie orders."""
    n = len(plan.computed)
    views = measure_judgments(cube, plan.computed)  # the adhoc conversions, made once
    if plan.ties is None:
        return {"score": _values(views, plan, "compute", progress=progress)}
    if plan.ties == "expected":
        exact = [k for k in range(n) if plan.computed[k].definition.expected is not None]
    else:
        exact = [k for k in range(n) if plan.computed[k].definition.tie_bounds]
    sampled = [k for k in range(n) if k not in exact]
    draws = _sampled_orders(cube, plan, sampled)
    if plan.ties == "expected":
        score = _placed(n, exact, _values(views, plan, "expected", exact, progress=progress),
                        sampled, [d.mean("sample") for d in draws])
        spread = [d.std("sample", ddof=1) / np.sqrt(d.sizes["sample"]) for d in draws]
        zero = [xr.zeros_like(score[k]) for k in exact]
        return {"score": score, "score_se": _placed(n, exact, zero, sampled, spread),
                "ties_method": ["exact" if k in exact else "sampled" for k in range(n)]}
    score = _values(views, plan, "compute", progress=progress)
    low = _values(views, plan, "worst", exact)
    high = _values(views, plan, "best", exact)
    drawn_low = [np.minimum(d.min("sample"), score[k]) for k, d in zip(sampled, draws)]
    drawn_high = [np.maximum(d.max("sample"), score[k]) for k, d in zip(sampled, draws)]
    score_min = _placed(n, exact, low, sampled, drawn_low)
    score_max = _placed(n, exact, high, sampled, drawn_high)
    method = ["sampled" if k in sampled else "exact" if views[k].sizes["intent"] == 1
              else "bounds" for k in range(n)]
    return {"score": score, "score_min": score_min, "score_max": score_max,
            "tie_spread": [hi - lo for lo, hi in zip(score_min, score_max)],
            "ties_method": method}


def _placed(n: int, first: list[int], first_values: list, second: list[int],
            second_values: list) -> list:
    """The values of two sets of measures put back in the measures' order."""
    out = [None] * n
    for k, value in zip(first + second, first_values + second_values):
        out[k] = value
    return out


SAMPLE_BATCH_BYTES = 256 << 20
"""About how many bytes of shuffled judged cube the random tie orders are scored in at
once (:func:`_sampled_orders`)."""


def _sampled_orders(cube: xr.Dataset, plan: _Plan, which: list[int]) -> list[xr.DataArray]:
    """``(sample, run, topic)`` values of the measures ``which`` on ``plan.tie_samples``
    random orders of the tie groups, scored in batches of samples stacked as runs
    (:func:`xdiv.core.ties.shuffled_samples`). Only the runs with ties are shuffled, to
    the depth the measures read; every order of a run without ties is the one read."""
    if not which:
        return []
    cutoffs = [plan.computed[k].cutoff for k in which]
    if None not in cutoffs:  # the shuffled copies need only the depth these measures read
        cube = cube.isel(rank=slice(0, untied_depth(cube[TIE_START], max(cutoffs))))
    start = cube[TIE_START]
    tied = (start != xr.DataArray(np.arange(start.sizes["rank"]), dims="rank")).any(
        ("topic", "rank")).values
    samples = plan.tie_samples
    parts = []
    if (~tied).any():
        untied = cube.isel(run=np.flatnonzero(~tied))
        plain = _values(measure_judgments(untied, plan.computed), plan, "compute", which)
        parts.append([v.expand_dims(sample=samples) for v in plain])
    if tied.any():
        parts.append(_shuffled_values(cube.isel(run=np.flatnonzero(tied)), plan, which))
    runs = cube["run"]
    return [xr.concat([part[j] for part in parts], dim="run").sel(run=runs)
            .transpose("sample", "run", "topic") for j in range(len(which))]


def _shuffled_values(cube: xr.Dataset, plan: _Plan, which: list[int]) -> list[xr.DataArray]:
    """The values of :func:`_sampled_orders` for runs with ties: each judged view the
    measures read (:func:`xdiv.core.adhoc.measure_judgments`) is shuffled, so that the
    adhoc conversions are made once, not once per sample."""
    chosen = [plan.computed[k] for k in which]
    views = measure_judgments(cube, chosen)
    readers: dict[int, list[int]] = {}
    for j, view in enumerate(views):
        readers.setdefault(id(view), []).append(j)
    out: list = [None] * len(which)
    runs, n_runs = cube["run"], cube.sizes["run"]
    for members in readers.values():
        view = views[members[0]]
        per_run = sum(da.nbytes for da in view.data_vars.values() if "run" in da.dims)
        batch = max(1, min(plan.tie_samples, SAMPLE_BATCH_BYTES // max(per_run, 1)))
        batches = []
        for first in range(0, plan.tie_samples, batch):
            samples = range(first, min(first + batch, plan.tie_samples))
            stacked = shuffled_samples(view, seed=plan.seed, samples=samples)
            batches.append([
                xr.DataArray(chosen[j].definition.compute(stacked, chosen[j])
                             .transpose("run", "topic").values
                             .reshape(len(samples), n_runs, -1),
                             dims=("sample", "run", "topic"),
                             coords={"run": runs, "topic": view["topic"]})
                for j in members])
        for position, j in enumerate(members):
            out[j] = xr.concat([b[position] for b in batches], dim="sample")
    return out


def _joined(parts: list[xr.Dataset], plan: _Plan) -> xr.Dataset:
    """The score cubes of blocks of runs as the one cube of all the runs: runs in natural
    order, topics the union of every block's (a block lacks only topics that are not in
    the collection, which score NaN for every run that did not retrieve them, as the
    whole cube has them) and the attributes of the whole."""
    if len(parts) == 1:
        return parts[0]
    names = [str(r) for part in parts for r in part["run"].values]
    runs = natural_sorted(names)
    where = {name: k for k, name in enumerate(names)}
    topics = natural_sorted([str(t) for part in parts for t in part["topic"].values])
    position = {topic: k for k, topic in enumerate(topics)}
    labels = object_strings(topics)
    order = [where[name] for name in runs]
    variables = {name: xr.concat([part[name].reindex(topic=labels) for part in parts],
                                 dim="run", coords="minimal", compat="override",
                                 join="override").isel(run=order)
                 for name in _SCORE_VARIABLES if name in parts[0]}

    sources = {k: v for part in parts for k, v in from_json(part.attrs["runs"]).items()} \
        if all(part.attrs["runs"] for part in parts) else None
    blocks = {k: v for part in parts
              for k, v in from_json(part.attrs.get(IR_METADATA_ATTR, "{}")).items()}
    attrs = {k: v for k, v in parts[0].attrs.items() if k != IR_METADATA_ATTR}
    attrs.update({
        "runs": to_json({name: sources[name] for name in runs}) if sources is not None
        else parts[0].attrs["runs"],
        **_alignment_of(parts, runs, position),
    })
    if blocks:
        attrs[IR_METADATA_ATTR] = to_json(blocks)
    return xr.Dataset({**variables, "params": parts[0]["params"]}, attrs=attrs)


def _alignment_of(parts: list[xr.Dataset], runs: list[str], position: dict) -> dict:
    """The topic attributes of the cube joined from the score cubes ``parts`` of the runs
    ``runs`` (in that order), topics in the order of their ``position``: each part's
    lists put together."""
    def union(key: str) -> str:
        found = {t for part in parts for t in from_json(part.attrs[key])}
        return to_json(sorted(found, key=position.__getitem__))

    lacking = {k: v for part in parts
               for k, v in from_json(part.attrs["topics_not_in_runs"]).items()}
    return {"topics_without_relevant": union("topics_without_relevant"),
            "topics_not_in_qrels": union("topics_not_in_qrels"),
            "topics_not_in_runs": to_json({name: lacking[name] for name in runs
                                           if name in lacking})}


def _warn_tie_spread(result: xr.Dataset) -> None:
    """Name the (run, measure) pairs whose mean score the tie order moves by more than
    :data:`TIE_SPREAD_WARNING`."""
    if "tie_spread" not in result:
        return
    mean = result["tie_spread"].mean("topic", skipna=True).transpose("metric", "run")
    metric, run = np.nonzero(mean.values > TIE_SPREAD_WARNING)
    if not len(metric):
        return
    found = sorted(((float(mean.values[m, r]), str(mean["run"].values[r]),
                     str(mean["metric"].values[m])) for m, r in zip(metric, run)),
                   reverse=True)
    shown = "; ".join(f"{run} {metric} {value:.4f}" for value, run, metric in found[:5])
    warn(f"the order of tied documents moves the mean score of {len(found)} (run, measure) "
         f"pair(s) by more than {TIE_SPREAD_WARNING} (mean tie_spread; an upper bound where "
         f"ties_method is 'bounds'): {shown}{'; ...' if len(found) > 5 else ''}", XdivWarning)


def _unjudged_runs(cube: xr.Dataset) -> list[str]:
    """The runs none of whose documents is judged; not checked on dask-backed runs,
    whose documents are only read when the scores are computed."""
    if cube["judged"].chunks is not None:
        return []
    unjudged = ~cube["judged"].any(("topic", "rank")).values
    return [str(r) for r in cube["run"].values[unjudged]]


def _warn_unjudged_runs(runs: list[str]) -> None:
    """Name the runs none of whose documents is judged (wrong year, wrong collection or a
    docno typo): they score 0 on every measure."""
    if runs:
        warn(f"{len(runs)} run(s) retrieved no judged document, and score 0 (is the run "
             f"of another collection or year?): {preview(runs, len(runs))}", XdivWarning)


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
