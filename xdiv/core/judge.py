"""Judging: the join of runs with a collection into the judged cube that every measure reduces, with runs and collection aligned on topics by label."""

from __future__ import annotations

import weakref

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import xarray as xr

from .collection import check_collection, collection_in_memory, describe_dataset
from ..kernels.common import ideal_levels
from ..errors import InputError
from .labels import natural_sorted, object_strings, to_json
from .ties import TIE_START, tie_start, untied_depth

__all__ = ["check_runs", "judge", "judged_cube", "unjudged_as_relevant"]


# ---------------------------------------------------------------------------- judging

def _judged_keys(vocabulary: np.ndarray, docno_grid: np.ndarray, judged=None) -> dict:
    """The collection's judged (topic, docno) pairs, indexed by the runs' docno codes.

    Each judged docno is looked up once in the run vocabulary (a hash join of the two
    string columns); docnos no run retrieved cannot match a ranked document and are
    left out.

    Parameters
    ----------
    vocabulary : numpy.ndarray
        The runs' ``docno(docid)``, sorted ascending.
    docno_grid : numpy.ndarray
        The collection's ``docno(topic, doc)`` (``""`` in padding) on the runs' topics.
    judged : tuple, optional
        ``_judged_docnos(docno_grid)``, when computed already.

    Returns
    -------
    dict
        The keyword arguments of :func:`_lookup_slots`: the judged pairs sorted by code
        then topic (``topics`` and their collection ``slots``), and ``starts``: the pairs
        of code ``c`` are ``starts[c]:starts[c + 1]`` (padding's -1 reads an empty range).
    """
    width = len(vocabulary)
    topic, slot, indices, dictionary = (judged if judged is not None
                                        else _judged_docnos(docno_grid))
    # one side is searched in the other, the smaller one hashed
    words = pa.array(np.asarray(vocabulary, dtype=object), pa.string())
    if len(words) < len(dictionary):  # each judged docno's code
        code_of = pc.fill_null(pc.index_in(dictionary, value_set=words), -1).to_numpy(
            zero_copy_only=False).astype(np.int64)
    else:  # each code's judged docno
        where = pc.index_in(words, value_set=dictionary)
        code_of = np.full(len(dictionary), -1, dtype=np.int64)
        code_of[where.drop_null().to_numpy()] = np.flatnonzero(~np.asarray(where.is_null()))
    del words
    code = code_of[indices]
    inside = code >= 0
    topic, slot, code = topic[inside], slot[inside], code[inside]
    # by code, then topic (one integer key)
    by_code = np.argsort(code * (int(topic.max(initial=0)) + 1) + topic, kind="stable")
    starts = np.zeros(width + 2, dtype=np.int32)  # starts[c]: the pairs of codes below c
    np.cumsum(np.bincount(code, minlength=width + 1), out=starts[1:])
    return {"topics": np.append(topic[by_code], -1).astype(np.int32),
            "slots": np.append(slot[by_code], -1).astype(np.int32),
            "starts": starts, "steps": int(np.diff(starts).max(initial=0)).bit_length()}


def _judged_docnos(docno_grid: np.ndarray) -> tuple:
    """The (topic, slot) of every judged docno of the collection's ``docno(topic, doc)``
    grid, and the docnos dictionary-encoded, as indices into distinct docnos (what
    :func:`_judged_keys` needs of the collection, whatever the runs)."""
    topic, slot = np.nonzero(docno_grid != "")
    judged = pc.dictionary_encode(pa.array(np.asarray(docno_grid[topic, slot], dtype=object),
                                           pa.string()))
    return topic, slot, judged.indices.to_numpy(zero_copy_only=False), judged.dictionary


def _lookup_slots(doc, topic_index, *, topics, slots, starts, steps):
    """Kernel: collection doc slot of each (topic, doc code); -1 when not judged or in
    padding. A binary search, vectorised over the documents, among the few topics for
    which the document's code is judged (``steps`` halvings reach any of them; none is
    needed when no docno is judged for two topics, the common case)."""
    shape = np.broadcast_shapes(np.shape(doc), np.shape(topic_index))
    code = np.broadcast_to(doc, shape)
    topic = np.broadcast_to(topic_index, shape)
    code = np.where(code < 0, len(starts) - 2, code)  # padding: an empty range
    lo, hi = starts[code], starts[code + 1]
    if steps > 1:
        for _ in range(steps):
            mid = (lo + hi) // 2
            before = topics[np.minimum(mid, len(topics) - 1)] < topic
            open_ = lo < hi
            lo = np.where(open_ & before, mid + 1, lo)
            hi = np.where(open_ & ~before, mid, hi)
        hi = starts[code + 1]
    at = np.minimum(lo, len(topics) - 1)
    return np.where((lo < hi) & (topics[at] == topic), slots[at], np.int32(-1))


def _gather_levels(slot, level_tdi):
    """Kernel: per-intent levels ``(..., intent)`` of the docs at ``slot`` (topic last axis).

    ``slot`` has the topic as its last axis, ``level_tdi`` is ``(topic, doc, intent)``.
    """
    topic = np.arange(slot.shape[-1]).reshape((1,) * (slot.ndim - 1) + (-1,))
    topic = np.broadcast_to(topic, slot.shape)
    safe = np.where(slot >= 0, slot, 0)
    out = level_tdi[topic, safe]
    out[slot < 0] = 0
    return out


def check_runs(dataset, role: str = "runs") -> None:
    """Raise :class:`InputError` unless ``dataset`` is a Runs dataset.

    The schema of :mod:`xdiv.core.runs` is checked: integer ``doc`` and numeric ``score`` over
    run, topic and rank, ``length`` over run and topic, a ``docno`` vocabulary of strings along
    ``docid`` sorted ascending without repeats, and (for data in memory, not dask-backed)
    codes from -1 to the vocabulary size minus one.

    Parameters
    ----------
    dataset : object
        What to check.
    role : str
        The argument's name, at the start of the message (e.g. ``"judge: runs"``).
    """
    names = set(dataset.variables) if isinstance(dataset, xr.Dataset) else set()
    if not {"doc", "docno", "score", "length"} <= names:
        if "docno" in names and set(dataset["docno"].dims) == {"run", "topic", "rank"}:
            raise InputError(f"{role}: a Runs dataset of an older xdiv (docno strings over "
                             "run, topic and rank, no doc codes); read the run files again "
                             "with xdiv.read_runs, or rebuild it with xdiv.build_runs")
        raise InputError(f"{role}: expected a Runs dataset (from xdiv.read_runs or "
                         f"xdiv.build_runs), got {describe_dataset(dataset)}")
    variables = dataset.variables  # read as they are: no DataArray is built for a check
    for name, dims in (("doc", ("run", "topic", "rank")), ("score", ("run", "topic", "rank")),
                       ("length", ("run", "topic")), ("docno", ("docid",))):
        held = variables[name].dims
        if len(held) != len(dims) or set(held) != set(dims):
            raise InputError(f"{role}: its {name} variable has the dimensions "
                             f"({', '.join(map(str, held))}), not ({', '.join(dims)})")
    if variables["doc"].dtype.kind not in "iu":
        raise InputError(f"{role}: its doc variable holds {variables['doc'].dtype}, not "
                         "integer codes into the docno vocabulary")
    if variables["score"].dtype.kind not in "fiu":
        raise InputError(f"{role}: its score variable holds {variables['score'].dtype}, not "
                         "numbers")
    vocabulary = variables["docno"].values
    if vocabulary.dtype.kind != "U" and pd.api.types.infer_dtype(
            vocabulary, skipna=False) not in ("string", "empty"):
        raise InputError(f"{role}: its docno vocabulary holds "
                         f"{pd.api.types.infer_dtype(vocabulary, skipna=False)} values, "
                         "not strings")
    ascending = vocabulary[1:] > vocabulary[:-1]
    if not ascending.all():
        k = int(np.argmin(ascending)) + 1
        raise InputError(f"{role}: its docno vocabulary is not sorted ascending without "
                         f"repeats: docno {vocabulary[k]} (docid {k}) follows "
                         f"{vocabulary[k - 1]}")
    doc = variables["doc"]
    if isinstance(doc.data, np.ndarray) and doc.size:
        outside = (doc.values < -1) | (doc.values >= len(vocabulary))
        if outside.any():
            at = dict(zip(doc.dims, np.unravel_index(np.argmax(outside), doc.shape)))
            raise InputError(f"{role}: doc code {doc.values.flat[np.argmax(outside)]} at run "
                             f"{dataset['run'].values[at['run']]} topic "
                             f"{dataset['topic'].values[at['topic']]} rank "
                             f"{dataset['rank'].values[at['rank']]} is outside the docno "
                             f"vocabulary (-1 in padding, else 0 to {len(vocabulary) - 1})")


def judge(runs: xr.Dataset, collection: xr.Dataset, *, depth: int | None = None,
          judged_only: bool = False) -> xr.Dataset:
    """Join runs with a collection into the judged cube ``level(run, topic, rank, intent)``.

    Parameters
    ----------
    runs : xarray.Dataset
        A Runs dataset (may be dask-backed, chunked along ``run`` or ``topic``).
    collection : xarray.Dataset
        A collection dataset; a dask-backed one is read into memory once.
    depth : int, optional
        Keep only the top ``depth`` ranks (the measures' largest cutoff); all by default.
    judged_only : bool
        Condensed lists (Sakai, SIGIR 2007; trec_eval's ``-J``): the unjudged documents are
        removed from each ranked list before anything else, the judged ones moving up in
        their order; ``length`` then counts the judged documents, and ``depth`` the judged
        ranks. ``retrieved`` still tells whether the run retrieved anything for the topic.
        A document is judged when it has a qrels line of level >= 0 for the topic (for some
        intent): one without a line, or whose levels are all negative (-1, pooled but not
        judged; TREC's spam -2), is not, as trec_eval ``-J``, infAP and bpref read it.

    Returns
    -------
    xarray.Dataset
        ``level``, ``judged``, ``slot`` over (run, topic, rank[, intent]), ``length`` and
        ``retrieved`` over (run, topic), and the collection's per-topic variables
        (``qrels_level``, ``qrels_assessed``, ``intent_valid``, ``intent_prob``,
        ``intent_type``, ``intent_order``) aligned on the union of topics, and
        ``ideal_level(topic, intent, ideal_rank)``: each intent's judged levels sorted
        descending (its ideal ranked list), computed once and broadcast to every run. The
        attributes ``topics_not_in_qrels`` and ``topics_not_in_runs`` (JSON) report the alignment.
    """
    check_runs(runs, "judge: runs")
    check_collection(collection, "judge: collection")
    return judged_cube(runs, collection_in_memory(collection), depth=depth,
                       judged_only=judged_only)


_KEYS = "judged keys"
"""The entry of a judging memo holding :func:`_judged_keys` of a runs' docno vocabulary,
for the next block of runs of the same dataset (see :func:`_vocabulary_key`)."""


def _vocabulary_key(vocabulary: np.ndarray) -> tuple | None:
    """What identifies the memory ``vocabulary`` reads while it lives: a weak reference to
    the array owning that memory, and where and how ``vocabulary`` reads it (None when
    the owner takes no weak reference). A live owner keeps its memory from being reused,
    and the memo keeps no vocabulary alive (a stream's blocks each have their own)."""
    owner = vocabulary
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    try:
        reference = weakref.ref(owner)
    except TypeError:
        return None
    return (reference, vocabulary.__array_interface__["data"][0], vocabulary.shape,
            vocabulary.strides, vocabulary.dtype)


def _same_vocabulary(key: tuple | None, other: tuple | None) -> bool:
    """Whether two :func:`_vocabulary_key` name the same live memory, read the same way."""
    return (key is not None and other is not None and key[0]() is not None
            and key[0]() is other[0]() and key[1:] == other[1:])


def judged_cube(runs: xr.Dataset, collection: xr.Dataset, *,
                depth: int | None = None, memo: dict | None = None,
                judged_only: bool = False, ties: bool = False) -> xr.Dataset:
    """:func:`judge` of runs and a collection its caller has checked already
    (:func:`xdiv.evaluate` checks them once, at its entry). ``memo``, a dict the caller
    keeps for one collection, holds the work that depends only on the collection and the
    topics (the aligned collection, its judged docnos and ideal lists), and the join of
    the collection's docnos with the runs' vocabulary, for the next call with the same
    collection (blocks of runs evaluated one after the other; the join is kept for blocks
    of one runs dataset). ``ties`` adds the runs' tie groups, ``tie_start(run, topic,
    rank)``, and deepens ``depth`` to the end of any tie group it would cut
    (:mod:`xdiv.core.ties`)."""
    topics = natural_sorted(list(runs["topic"].values) + list(collection["topic"].values))
    if depth is not None and ties and not judged_only:
        depth = untied_depth(tie_start(runs["score"]), int(depth))
    if depth is not None and not judged_only:  # condensed lists are cut once condensed
        runs = runs.isel(rank=slice(0, max(int(depth), 1)))
    runs = _on_topics(runs, topics, {"doc": -1, "score": np.nan, "length": 0})
    key = tuple(topics)
    if memo is None or key not in memo:
        coll = _align_collection(collection, topics)
        ideal = xr.apply_ufunc(ideal_levels, coll["qrels_level"], input_core_dims=[["doc"]],
                               output_core_dims=[["ideal_rank"]])
        judged = _judged_docnos(coll.variables["docno"].values)
        if memo is not None:
            memo.clear()  # one set of topics kept: the common case is a single one
            memo[key] = coll, ideal, judged
    else:
        coll, ideal, judged = memo[key]

    vocabulary = runs.variables["docno"].values
    identity = _vocabulary_key(vocabulary)
    known = memo.get(_KEYS) if memo is not None else None
    if known is not None and _same_vocabulary(known[0], identity):
        keys = known[1]  # the next block of the same runs dataset
    else:
        keys = _judged_keys(vocabulary, coll.variables["docno"].values, judged)
        if memo is not None:  # cleared with the rest when the topics change
            memo[_KEYS] = identity, keys
    topic_index = xr.DataArray(np.arange(len(topics), dtype=np.int64), dims="topic")
    slot = xr.apply_ufunc(
        _lookup_slots, runs["doc"], topic_index, kwargs=keys,
        dask="parallelized", output_dtypes=[np.int32],
    )
    length = runs["length"]
    score = runs["score"]
    if judged_only:
        slot = xr.apply_ufunc(
            _assessed_slots, slot.transpose("run", "rank", "topic"),
            kwargs={"assessed_td": coll["qrels_assessed"].values},
            input_core_dims=[["topic"]], output_core_dims=[["topic"]], dask="parallelized",
            output_dtypes=[slot.dtype], dask_gufunc_kwargs={"allow_rechunk": True},
        ).transpose(*slot.dims)
        if ties:  # the scores follow their documents up
            score = xr.apply_ufunc(_condensed_values, score, slot, input_core_dims=[["rank"]] * 2,
                                   output_core_dims=[["rank"]], dask="parallelized",
                                   output_dtypes=[score.dtype],
                                   dask_gufunc_kwargs={"allow_rechunk": True}
                                   ).transpose(*slot.dims)
        slot = xr.apply_ufunc(_condense, slot, input_core_dims=[["rank"]],
                              output_core_dims=[["rank"]], dask="parallelized",
                              output_dtypes=[np.int32],
                              dask_gufunc_kwargs={"allow_rechunk": True}
                              ).transpose(*slot.dims)
        length = (slot >= 0).sum("rank").astype(runs["length"].dtype)
        if depth is not None:
            if ties:
                depth = untied_depth(tie_start(score), int(depth))
            slot = slot.isel(rank=slice(0, max(int(depth), 1)))
            score = score.isel(rank=slice(0, max(int(depth), 1)))
    if ties:
        extra_ties = {TIE_START: tie_start(score)}
    else:
        extra_ties = {}
    level = _judged_levels(slot, coll["qrels_level"], "intent")
    extra = {}
    if "node_level" in coll:  # hierarchy: node relevance of every ranked document
        extra["node_run_level"] = _judged_levels(slot, coll["node_level"], "node")
    if "doc_length" in coll:  # U-measures: length of every ranked (judged) document
        extra["run_doc_length"] = xr.apply_ufunc(
            _gather_values, slot.transpose("run", "rank", "topic"),
            kwargs={"values_td": coll["doc_length"].values}, input_core_dims=[["topic"]],
            output_core_dims=[["topic"]], dask="parallelized", output_dtypes=[np.float64],
            dask_gufunc_kwargs={"allow_rechunk": True}).transpose("run", "topic", "rank")
    runs_part = {**extra, **extra_ties, "level": level, "judged": slot >= 0, "slot": slot,
                 "length": length, "retrieved": runs["length"] > 0}
    # both parts are on the labels of ``topics`` already: the variables join without a
    # new alignment, under the runs' coordinates and the collection's others
    shared = ("run", "topic", "rank")
    others = [name for name in coll.coords if name != "topic"]
    coords = xr.Coordinates(
        {**{name: slot.coords.variables[name] for name in shared},
         **{name: coll.variables[name] for name in others}},
        indexes={**{name: slot.xindexes[name] for name in shared},
                 **{name: coll.xindexes[name] for name in others if name in coll.xindexes}})
    cube = xr.Dataset(
        {**{name: value.variable for name, value in runs_part.items()},
         **{name: coll.variables[name] for name in coll.data_vars},
         "ideal_level": ideal.variable},
        coords=coords,
    )
    cube.attrs = {"xdiv_kind": "judged", **_alignment_report(runs, coll, collection)}
    return cube


def _assessed_slots(slot, assessed_td):
    """Kernel: ``slot`` (topic last axis) with -1 where the document has no qrels line of
    level >= 0 (``assessed_td``, ``(topic, doc)``): its slot when it is judged."""
    return np.where(_gather_values(slot, assessed_td) > 0, slot, np.int32(-1))


def _condense(slot):
    """Kernel: each ranked list (last axis) with its judged documents (``slot >= 0``)
    moved up in their order, the unjudged ones and the padding after them (stable)."""
    order = np.argsort(slot < 0, axis=-1, kind="stable")
    return np.take_along_axis(slot, order, axis=-1)


def _condensed_values(values, slot):
    """Kernel: ``values`` reordered as :func:`_condense` reorders ``slot`` (NaN after the
    judged documents: the unjudged ones leave the list)."""
    order = np.argsort(slot < 0, axis=-1, kind="stable")
    moved = np.take_along_axis(values, order, axis=-1)
    return np.where(np.take_along_axis(slot, order, axis=-1) >= 0, moved, np.nan)


def unjudged_as_relevant(cube: xr.Dataset) -> xr.Dataset:
    """The judged cube with every unjudged ranked document (no qrels line for the topic,
    within the list's ``length``) counted relevant, at the collection's highest level, to
    every valid intent of its topic: the cube whose scores are the upper bounds of the
    residuals (Moffat & Zobel, TOIS 2008). Those documents become ``judged``; their
    ``slot`` stays -1, and the ideal lists (from the qrels) are unchanged. With a
    hierarchy, such a document is relevant at that level to every node above a valid
    intent."""
    top = max(int(cube["qrels_level"].max()), 1)
    ranked = xr.DataArray(np.arange(cube.sizes["rank"]), dims="rank") < cube["length"]
    unjudged = ranked & ~cube["judged"]
    valid = cube["intent_valid"]
    level = xr.where(unjudged & valid, np.int8(top), cube["level"]).astype(cube["level"].dtype)
    out = cube.assign(level=level.transpose(*cube["level"].dims),
                      judged=(cube["judged"] | unjudged).transpose(*cube["judged"].dims))
    if "node_run_level" in cube:
        above = (cube["node_covers"] & valid).any("intent")
        node = xr.where(unjudged & above, np.int8(top), cube["node_run_level"])
        out["node_run_level"] = node.astype(cube["node_run_level"].dtype).transpose(
            *cube["node_run_level"].dims)
    out.attrs = dict(cube.attrs)
    return out


def _gather_values(slot, values_td):
    """Kernel: per-document values ``(topic, doc)`` at ``slot`` (topic last axis); 0 where
    unjudged."""
    topic = np.broadcast_to(np.arange(slot.shape[-1]), slot.shape)
    out = values_td[topic, np.where(slot >= 0, slot, 0)]
    return np.where(slot >= 0, out, 0.0)


def _judged_levels(slot: xr.DataArray, qrels: xr.DataArray, dim: str) -> xr.DataArray:
    """Levels ``(run, topic, rank, dim)`` of the ranked documents, gathered by ``slot`` from
    the collection's ``qrels(topic, dim, doc)``."""
    level_tdi = np.ascontiguousarray(np.moveaxis(qrels.values, 1, 2))
    return xr.apply_ufunc(
        _gather_levels, slot.transpose("run", "rank", "topic"),
        kwargs={"level_tdi": level_tdi},
        input_core_dims=[["topic"]], output_core_dims=[["topic", dim]],
        dask="parallelized", output_dtypes=[np.int8],
        dask_gufunc_kwargs={"output_sizes": {dim: qrels.sizes[dim]}, "allow_rechunk": True},
    ).transpose("run", "topic", "rank", dim)


def _alignment_report(runs: xr.Dataset, coll: xr.Dataset, collection: xr.Dataset) -> dict:
    """Topics retrieved but not judged, and judged topics (with relevant docs) a run lacks."""
    known = set(map(str, collection["topic"].values))
    retrieved = runs.variables["length"].values > 0
    topics = runs["topic"].values
    unjudged = [str(t) for t in topics[retrieved.any(axis=0)] if str(t) not in known]
    has_rel = coll.variables["intent_valid"].values.any(axis=1)
    lacking = {str(r): [str(t) for t in topics[has_rel & ~retrieved[i]]]
               for i, r in enumerate(runs["run"].values)}
    return {"topics_not_in_qrels": to_json(unjudged),
            "topics_not_in_runs": to_json({r: v for r, v in lacking.items() if v})}


def _on_topics(dataset: xr.Dataset, topics: list[str], fill: dict) -> xr.Dataset:
    """``dataset`` on the ``topics`` labels: a cheap selection when it has them all, a
    reindex with ``fill`` values otherwise."""
    labels = dataset["topic"].values
    if len(labels) == len(topics) and all(a == b for a, b in zip(labels, topics)):
        return dataset  # the common case: on the labels already, in their order
    index = pd.Index(labels).get_indexer(topics)
    if (index >= 0).all():
        return dataset.isel(topic=index)
    return dataset.reindex(topic=object_strings(topics), fill_value=fill)


OPTIONAL_FILL = {"doc_length": 0.0, "node_exists": False, "node_layer": 0, "node_leaf": False,
                 "node_intent": "", "node_weight": 0.0, "node_covers": False, "node_level": 0,
                 "layer_weight": 0.0, "inclusion": np.nan, "eq_class": -1}
"""Optional collection variables (document lengths, hierarchies, the inclusion
probabilities of sampled judgments, equivalence classes) a judged cube carries when the
collection has them, with their fill values for topics the collection lacks."""


def _align_collection(collection: xr.Dataset, topics: list[str]) -> xr.Dataset:
    """The per-topic collection variables a measure needs, reindexed on ``topics``.

    ``qrels_assessed(topic, doc)`` marks the documents with a qrels line of level >= 0: a
    document whose lines are all negative (TREC's spam -2) is, as trec_eval reads it, in
    the pool but unjudged (for bpref).
    """
    fill = {"qrels_level": 0, "qrels_assessed": False, "intent_valid": False,
            "intent_prob": 0.0, "intent_type": "", "intent_order": -1, "docno": "",
            **OPTIONAL_FILL}
    names = ["level", "intent_valid", "intent_prob", "intent_type", "intent_order"]
    sub = collection[names + [n for n in OPTIONAL_FILL if n in collection]]
    # the variables put together under the collection's coordinates as they stand: no
    # merge, no new alignment
    variables = {("qrels_level" if name == "level" else name): variable
                 for name, variable in sub.data_vars.variables.items()}
    variables["qrels_assessed"] = (collection.variables["judgment"] >= 0).any("intent")
    sub = _on_topics(xr.Dataset(variables, coords=sub.coords), topics, fill)
    docno = sub["docno"].values
    if docno.dtype.kind == "O" and pd.isna(docno).any():  # topics the collection lacks
        sub = sub.assign_coords(docno=sub["docno"].fillna(""))
    return sub
