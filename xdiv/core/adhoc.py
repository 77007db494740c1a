"""Adhoc views of a diversity collection: one relevance level per document, its highest over the intents (``max``) or the number of intents it is relevant to (``count``)."""

from __future__ import annotations

import warnings

import numpy as np
import xarray as xr

from ..errors import InputError, XdivWarning
from ..kernels.common import ideal_levels
from ..kernels.graded import merge_intents
from .labels import object_strings, string_variable
from .collection import check_collection, finalize_collection
from ..typing import ADHOC_METHODS, AdhocMethod

__all__ = ["to_adhoc", "adhoc_judgments", "measure_judgments"]


def to_adhoc(collection: xr.Dataset, method: AdhocMethod = "max") -> xr.Dataset:
    """Convert a diversity collection into a single-intent (adhoc) one.

    Parameters
    ----------
    method : {"max", "count"}
        ``"max"``: a document's level is its highest level across the valid intents
        (Sakai & Song's *gr2T*); ``"count"``: the number of valid intents it is relevant
        to (*2T*). Judged documents keep level 0 when relevant to no valid intent. A
        document whose qrels levels are all negative (TREC's spam -2) keeps its highest
        negative level, so that trec_eval's bpref still reads it as unjudged; one with a
        level >= 0 for some intent gets the merged level (under ``max``, the highest
        level, as trec_eval sees it in the converted qrels).

    Returns
    -------
    xarray.Dataset
        A collection with one intent, labelled ``"0"`` (as in TREC adhoc qrels).
    """
    check_collection(collection, "to_adhoc")
    _check_adhoc_method(method, "to_adhoc")
    merged = merge_intents(np.moveaxis(collection["level"].values, 1, -1),
                           collection["intent_valid"].values[:, None, :], method=method)
    _check_merged(merged, "to_adhoc")
    highest = collection["judgment"].values.max(axis=1)  # ABSENT where no line
    judgment = np.where(highest >= 0, merged, highest).astype(np.int8)[:, None, :]
    n_topics = collection.sizes["topic"]
    adhoc = xr.Dataset(
        {
            "judgment": (("topic", "intent", "doc"), judgment),
            "intent_type": (("topic", "intent"), np.full((n_topics, 1), "inf", dtype=object)),
            "intent_order": (("topic", "intent"), np.zeros((n_topics, 1), dtype=np.int64)),
            "intent_exists": (("topic", "intent"), np.ones((n_topics, 1), dtype=bool)),
            "topic_type": collection["topic_type"],
            "query": collection["query"],
        },
        coords={"topic": collection["topic"], "intent": object_strings(["0"]),
                "docno": collection["docno"]},
        attrs={"xdiv_kind": "collection",
               "source": f"to_adhoc({collection.attrs.get('source', '')!s}, method={method})"},
    )
    if "doc_length" in collection:
        adhoc["doc_length"] = collection["doc_length"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XdivWarning)  # already reported for the source
        return finalize_collection(adhoc, probabilities="uniform")


def _check_adhoc_method(method, role: str) -> None:
    if method not in ADHOC_METHODS:
        raise InputError(f"{role}: method must be 'max' or 'count', not {method!r}")


def _check_merged(merged, role: str) -> None:
    if int(merged.max(initial=0)) > 127:
        raise InputError(f"{role}: a merged level exceeds 127 (a document relevant to more "
                         "than 127 intents)")


def adhoc_judgments(cube: xr.Dataset, method: AdhocMethod = "max") -> xr.Dataset:
    """A judged cube (:func:`xdiv.judge`) read as single-intent, adhoc relevance.

    The same conversion as :func:`to_adhoc`, applied to the judged cube instead of the
    collection (so the runs are looked up once for measures of both kinds): ``level``,
    ``qrels_level`` and ``ideal_level`` get one intent, labelled ``"0"``, holding each
    document's merged level; a topic's one intent is valid when a document is relevant to
    it. Variables without an ``intent`` dimension (``judged``, ``length``, document
    lengths, ...) are kept; so is ``qrels_assessed`` (a qrels line of level >= 0 for some
    intent), which :func:`to_adhoc` keeps too. A cube with one intent per topic comes back
    unchanged under ``max``, which leaves it as it is.

    Parameters
    ----------
    cube : xarray.Dataset
        A judged cube; may be dask-backed.
    method : {"max", "count"}
        As for :func:`to_adhoc`.
    """
    _check_adhoc_method(method, "adhoc_judgments")
    if method == "max" and cube.sizes["intent"] == 1:
        return cube

    # on the cube's variables, which share its dimensions: no alignment to do
    valid_intents = cube.variables["intent_valid"]

    def merge(name: str) -> xr.Variable:
        return xr.apply_ufunc(merge_intents, cube.variables[name], valid_intents,
                              input_core_dims=[["intent"], ["intent"]], kwargs={"method": method},
                              dask="parallelized", output_dtypes=[np.int16])

    def one_intent(variable: xr.Variable, axis: int) -> xr.Variable:
        dims = list(variable.dims)
        dims.insert(axis if axis >= 0 else len(dims) + 1 + axis, "intent")
        return variable.set_dims({**variable.sizes, "intent": 1}).transpose(*dims)

    qrels = merge("qrels_level")
    _check_merged(qrels.values, "adhoc_judgments")
    qrels = qrels.astype(np.int8)
    valid = one_intent((qrels > 0).any("doc"), -1)
    ideal = xr.apply_ufunc(ideal_levels, qrels, input_core_dims=[["doc"]],
                           output_core_dims=[["ideal_rank"]], dask="parallelized",
                           output_dtypes=[qrels.dtype],
                           dask_gufunc_kwargs={"output_sizes": {"ideal_rank": qrels.sizes["doc"]},
                                               "allow_rechunk": True})
    return cube.drop_dims("intent").assign(
        intent=string_variable("intent", ["0"]),
        level=one_intent(merge("level").astype(np.int8), -1),
        qrels_level=one_intent(qrels, 1),
        ideal_level=one_intent(ideal, 1),
        intent_valid=valid,
        intent_prob=valid.astype(np.float64),
        intent_type=xr.Variable(valid.dims, np.full(valid.shape, "inf", dtype=object),
                                fastpath=True),  # built as given (see string_variable)
        intent_order=xr.zeros_like(valid, dtype=np.int64),
    )


def measure_judgments(cube: xr.Dataset, measures) -> list[xr.Dataset]:
    """The judged cube each measure reads.

    A measure with an ``adhoc`` parameter (the single-intent measures, its value decided
    by :func:`xdiv.measures.registry.with_adhoc`) reads :func:`adhoc_judgments` under that
    conversion, computed once per conversion; any other measure reads the per-intent
    ``cube``.
    """
    views: dict[str, xr.Dataset] = {}
    out = []
    for measure in measures:
        method = measure.params.get("adhoc")
        if method is None:
            out.append(cube)
            continue
        if method not in views:
            views[method] = adhoc_judgments(cube, method)
        out.append(views[method])
    return out
