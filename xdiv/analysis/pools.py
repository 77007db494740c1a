"""Pool studies for organisers and reviewers: how much a run's scores owe to the
documents it alone brought to the judging pool, and how the ranking of the runs holds up
when fewer documents are judged.

Leave one run out (:func:`leave_one_run_out`)
    Pool bias (Zobel, "How reliable are the results of large-scale information retrieval
    experiments?", SIGIR 1998; Buckley, Dimmick, Soboroff & Voorhees, "Bias and the
    limits of pooling", SIGIR 2006). The depth-``k`` pool of topic ``q`` is the union
    ``P_q = ∪_r top_k(r, q)`` of the runs' top ``k`` documents. The documents only run
    ``r`` (or only the runs of its group) contributed, ``U_q(r) = top_k(r, q) \\
    ∪_{s ∉ G(r)} top_k(s, q)``, are removed from the qrels, and ``r`` is scored again:
    ``Δ(m, r, q) = m(r, q | qrels \\ U(r)) - m(r, q | qrels)``; a run that would
    have been scored unfairly, had it not contributed to the pool, has a large
    ``-mean_q Δ``.

Judgment downsampling (:func:`downsample`)
    Incomplete judgments (Buckley & Voorhees, "Retrieval evaluation with incomplete
    information", SIGIR 2004; Yilmaz & Aslam, "Estimating average precision with
    incomplete and imperfect judgments", CIKM 2006): each topic keeps a seeded random
    fraction ``f`` of its judged documents (every intent's judgment of a kept document),
    every run is scored again, and the run ranking by mean score is compared with the
    ranking under the full judgments by Kendall's tau and the AP correlation tau_ap
    (Yilmaz, Aslam & Robertson, "A new rank correlation coefficient for information
    retrieval", SIGIR 2008).

Both rebuild the collection without some ``(topic, docno)`` judgments by masking it
(:func:`without_judgments`): the removed documents become unjudged, and the levels,
intent validity and intent probabilities are derived again exactly as when the reduced
qrels are read (:func:`xdiv.core.collection.finalize_collection`), with the collection's
topics, intent types, probability scheme, document lengths and hierarchy kept. Results
are labelled datasets whose attributes are strings and numbers (lists as JSON), so they
round-trip through NetCDF (:func:`xdiv.to_netcdf`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
import xarray as xr

from ..core.collection import ABSENT, check_collection, finalize_collection
from ..core.judge import check_runs
from ..core.labels import object_strings, to_json
from ..engine import evaluate
from ..errors import InputError, XdivWarning
from ..io.provenance import recorded
from ..typing import PROBABILITY_SCHEMES, RANK_CORRELATIONS, RankCorrelation
from .meta import CORRELATIONS, check_resampling

__all__ = ["downsample", "leave_one_run_out", "without_judgments"]

KENDALL, TAU_AP = RANK_CORRELATIONS[0], RANK_CORRELATIONS[1]
"""The two coefficients :func:`downsample` always reports (Kendall's tau-b and tau_ap)."""


# ---------------------------------------------------------------------------- helpers

def _check_depth(runs: xr.Dataset, depth) -> int:
    """``depth`` a whole number from 1 to the deepest run's depth."""
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise InputError(f"the pool depth must be a whole number >= 1, not {depth!r}")
    length = runs["length"].transpose("run", "topic").values.max(axis=1, initial=0)
    deepest = int(np.argmax(length))
    if depth > length[deepest]:
        raise InputError(f"the pool depth {depth} exceeds the deepest run's depth, "
                         f"{int(length[deepest])} ({runs['run'].values[deepest]})")
    return int(depth)


def _group_codes(runs: xr.Dataset, groups: Mapping | None) -> tuple[np.ndarray, list[str]]:
    """Each run's group code and the group names (each run its own group without
    ``groups``)."""
    names = [str(r) for r in runs["run"].values]
    if groups is None:
        return np.arange(len(names)), names
    if not isinstance(groups, Mapping):
        raise InputError(f"groups must map each run to a group name, not a "
                         f"{type(groups).__name__}")
    given = {str(k): str(v) for k, v in groups.items()}
    lacking = [r for r in names if r not in given]
    if lacking:
        shown = ", ".join(lacking[:5]) + (f" and {len(lacking) - 5} more"
                                          if len(lacking) > 5 else "")
        raise InputError(f"groups: {len(lacking)} run(s) have no group: {shown}")
    labels, codes = pd.factorize(pd.Series([given[r] for r in names]), sort=False)
    return np.asarray(labels, dtype=np.int64), [str(g) for g in codes]


def _collection_codes(runs: xr.Dataset, collection: xr.Dataset):
    """The collection's judged slots as ``(topic, slot)`` and their keys ``topic code ×
    vocabulary size + docno code`` in the runs' codes (-1 where the runs have neither the
    topic nor the docno)."""
    docnos = collection["docno"].values
    t, d = np.nonzero(docnos != "")
    vocabulary = runs["docno"].values
    words = docnos[t, d]
    where = np.searchsorted(vocabulary, words) if len(vocabulary) else np.zeros(len(t), int)
    where = np.minimum(where, max(len(vocabulary) - 1, 0))
    found = (vocabulary[where] == words) if len(vocabulary) else np.zeros(len(t), bool)
    topic_code = pd.Index([str(x) for x in runs["topic"].values]).get_indexer(
        [str(x) for x in collection["topic"].values])[t]
    key = np.where(found & (topic_code >= 0),
                   topic_code.astype(np.int64) * max(len(vocabulary), 1) + where, -1)
    return t, d, key


def _pool(runs: xr.Dataset, collection: xr.Dataset, depth: int,
          group: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Who alone pooled each judged document at depth ``depth``.

    Returns ``owner(topic, doc)``, the code of the one group (``group``: each run's
    integer code) whose runs alone put the collection's judged document in the pool (-1
    for documents pooled by several groups or by none, and for padding slots);
    ``n_unique(group)``, the documents, judged or not, only that group pooled over all
    topics; and the pool's size ``sum_q |P_q|``.
    """
    doc = np.asarray(runs["doc"].transpose("run", "topic", "rank").values)[:, :, :depth]
    n_topics = doc.shape[1]
    n_groups = int(group.max(initial=-1)) + 1
    width = max(runs.sizes["docid"], 1)
    cells = np.int64(n_topics) * width
    valid = doc >= 0
    r, t, _ = np.nonzero(valid)
    key = t.astype(np.int64) * width + doc[valid]
    # the distinct (group, key) pairs, then the keys that only one group pooled
    pairs = np.unique(group[r].astype(np.int64) * cells + key)
    pair_key, pair_group = pairs % cells, pairs // cells
    keys, first, counts = np.unique(pair_key, return_index=True, return_counts=True)
    unique_keys, unique_group = keys[counts == 1], pair_group[first[counts == 1]]
    owner = np.full(collection["docno"].shape, -1, dtype=np.int64)
    if len(unique_keys):
        t_c, d_c, key_c = _collection_codes(runs, collection)
        at = np.minimum(np.searchsorted(unique_keys, key_c), len(unique_keys) - 1)
        hit = (key_c >= 0) & (unique_keys[at] == key_c)
        owner[t_c[hit], d_c[hit]] = unique_group[at[hit]]
    return owner, np.bincount(unique_group, minlength=n_groups), len(keys)


def without_judgments(collection: xr.Dataset, remove: np.ndarray) -> xr.Dataset:
    """The collection without the judgments of the ``(topic, doc)`` slots where
    ``remove`` is True: those documents become unjudged (no qrels line), and ``level``,
    ``judged``, ``intent_valid`` (an intent left without a relevant document is dropped)
    and ``intent_prob`` are derived again as :func:`xdiv.read_qrels` derives them from
    the reduced qrels. Intent probabilities keep their proportions over the intents
    still valid (whatever the scheme: uniform, non-uniform or given), or their values
    when the collection uses them as given (its ``renormalise`` attribute 0), and the topics,
    intent types, document lengths and hierarchy levels are kept.

    Topics left without a relevant document score NaN; the warning saying so is not
    raised here (the callers remove judgments on purpose).
    """
    remove = np.asarray(remove, dtype=bool)
    docnos = collection["docno"].values
    if remove.shape != docnos.shape:
        raise InputError(f"remove must have the collection's (topic, doc) shape "
                         f"{docnos.shape}, not {remove.shape}")
    judgment = np.where(remove[:, None, :], ABSENT, collection["judgment"].values)
    out = collection.assign(judgment=(collection["judgment"].dims, judgment))
    out = out.assign_coords(docno=(("topic", "doc"), np.where(remove, "", docnos)))
    if "intent_exists" not in out:  # older files: the intents with a qrels line
        exists = (collection["judgment"].values != ABSENT).any(axis=2)
        out["intent_exists"] = (("topic", "intent"),
                                exists | collection["intent_valid"].values)
    if "node_level" in out:  # the hierarchy's levels: a node's max over its intents
        node_level = out["node_level"]
        out["node_level"] = node_level.where(
            ~xr.DataArray(remove, dims=("topic", "doc")), 0).astype(node_level.dtype)
    scheme = collection.attrs.get("probabilities", "uniform")
    if scheme in PROBABILITY_SCHEMES:
        probabilities = scheme
    else:  # given probabilities: the old ones, renormalised over the intents kept
        t, i = np.nonzero(collection["intent_valid"].values)
        probabilities = pd.DataFrame({
            "topic": collection["topic"].values[t], "intent": collection["intent"].values[i],
            "probability": collection["intent_prob"].values[t, i]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XdivWarning)
        out = finalize_collection(out.drop_vars(["level", "judged", "intent_valid",
                                                 "intent_prob"]),
                                  probabilities=probabilities,
                                  probabilities_source=str(scheme),
                                  renormalise=bool(collection.attrs.get("renormalise", 1)))
    return out


def _quiet_evaluate(runs, collection, measures) -> xr.Dataset:
    """:func:`xdiv.evaluate` without its warnings (a reduced collection's topics without
    relevant documents, runs without judged documents: expected here)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XdivWarning)
        return evaluate(runs, collection, measures)


def _check_inputs(runs, collection) -> None:
    check_runs(runs, "runs")
    check_collection(collection, "qrels")


# ---------------------------------------------------------------------------- leave one out

@recorded
def leave_one_run_out(runs: xr.Dataset, qrels: xr.Dataset, measures, *, depth: int = 100,
                      groups: Mapping[str, str] | None = None) -> xr.Dataset:
    """Pool bias: each run scored with and without the judged documents only it pooled.

    The depth-``k`` pool of topic ``q`` is ``P_q = ∪_r top_k(r, q)``. For each run
    ``r`` the judged documents of ``U_q(r) = top_k(r, q) \\ ∪_{s ∉ G(r)} top_k(s, q)``,
    those no run outside its group ``G(r)`` pooled, are removed from the qrels and ``r``
    is scored again (Zobel, SIGIR 1998; Buckley, Dimmick, Soboroff & Voorhees, SIGIR
    2006):

    ``Δ(m, r, q) = m(r, q | qrels \\ U(r)) - m(r, q | qrels)``.

    A mean ``Δ`` far below 0 says the run would be underrated by a collection it had not
    contributed to, the situation of every run evaluated after the pools were judged.
    ``Δ`` is mostly ``<= 0`` but may be positive: the removed documents leave the ideal
    list too (normalised measures), and an intent left without a relevant document
    leaves the intents a topic's score averages over (I-rec, ERR-IA, ndeval's measures).
    With ``groups``, the runs of a group (a participant's runs, which share documents)
    are left out together: ``G(r)`` is the group of ``r`` (leave one group out).

    Parameters
    ----------
    runs : xarray.Dataset
        Runs (:func:`xdiv.read_runs`), the runs that formed the pool.
    qrels : xarray.Dataset
        A collection (:func:`xdiv.read_qrels`).
    measures : str or list of str
        Measures as :func:`xdiv.evaluate` takes them (e.g. ``xdiv.measure_set("ndeval")``).
    depth : int
        The pool depth ``k``, from 1 to the deepest run's depth.
    groups : mapping, optional
        Each run's group name (every run must have one); runs of a group are left out
        together.

    Returns
    -------
    xarray.Dataset
        ``score(metric, run, topic)`` with the full qrels, ``score_loo(metric, run,
        topic)`` with the run's (group's) unique documents removed, ``difference =
        score_loo - score``, ``mean_difference(metric, run)`` (over the topics where both
        are defined), ``n_removed(run)`` and ``n_removed_relevant(run)``: the judged
        (and the relevant) unique documents removed, over all topics,
        ``removed(run, topic)`` per topic, and ``n_unique(run)``: the unique documents
        pooled, judged or not. A ``group(run)`` coordinate names each run's group (the
        run itself without ``groups``). The attributes record ``depth``, ``groups``
        (JSON, ``{}`` without), ``left_out`` (``"run"`` or ``"group"``) and
        ``measures`` (JSON).

    Raises
    ------
    InputError
        Not runs or not a collection, a depth below 1 or beyond the deepest run, or runs
        without a group.

    Examples
    --------
    >>> import xdiv
    >>> collection, runs = xdiv.datasets.synthetic(n_topics=5, n_runs=3, depth=20, seed=0)
    >>> bias = xdiv.pools.leave_one_run_out(runs, collection, ["alpha-nDCG@10"], depth=10)
    >>> bias["n_removed"].to_series().to_dict()
    {'run01': 18, 'run02': 20, 'run03': 23}
    >>> bias["mean_difference"].sel(metric="alpha-nDCG@10").round(4).to_series().to_dict()
    {'run01': -0.0615, 'run02': -0.0596, 'run03': -0.1093}
    """
    _check_inputs(runs, qrels)
    depth = _check_depth(runs, depth)
    group, group_names = _group_codes(runs, groups)
    owner, n_unique, pool_size = _pool(runs, qrels, depth, group)
    full = evaluate(runs, qrels, measures)
    score = full["score"].transpose("metric", "run", "topic")
    loo = np.full(score.shape, np.nan)
    relevant = (qrels["level"].values > 0).any(axis=1)  # (topic, doc)
    n_groups = len(group_names)
    removed_topic = np.zeros((n_groups, qrels.sizes["topic"]), dtype=np.int64)
    removed_relevant = np.zeros(n_groups, dtype=np.int64)
    for g in range(n_groups):
        members = np.flatnonzero(group == g)
        mask = owner == g
        removed_topic[g] = mask.sum(axis=1)
        removed_relevant[g] = int((mask & relevant).sum())
        reduced = without_judgments(qrels, mask) if mask.any() else qrels
        part = _quiet_evaluate(runs.isel(run=members), reduced, measures)["score"]
        part = part.transpose("metric", "run", "topic").reindex(topic=score["topic"].values)
        loo[:, members, :] = part.values
    difference = loo - score.values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices: NaN means
        mean_difference = np.nanmean(difference, axis=-1)
    # per topic, on the score cube's topics (runs' and qrels' union)
    removed = np.zeros((len(group), score.sizes["topic"]), dtype=np.int64)
    at = pd.Index([str(t) for t in qrels["topic"].values]).get_indexer(
        [str(t) for t in score["topic"].values])
    removed[:, at >= 0] = removed_topic[group][:, at[at >= 0]]
    dims = ("metric", "run", "topic")
    metric_coords = {name: full[name] for name in ("metric", "canonical") if name in full.coords}
    return xr.Dataset(
        {"score": (dims, score.values), "score_loo": (dims, loo),
         "difference": (dims, difference),
         "mean_difference": (("metric", "run"), mean_difference),
         "n_removed": (("run",), removed_topic.sum(axis=1)[group]),
         "n_removed_relevant": (("run",), removed_relevant[group]),
         "removed": (("run", "topic"), removed),
         "n_unique": (("run",), n_unique[group])},
        coords={**metric_coords, "run": object_strings(score["run"].values),
                "topic": object_strings(score["topic"].values),
                "group": (("run",), object_strings([group_names[g] for g in group]))},
        attrs={"xdiv_kind": "pool_bias", "depth": depth,
               "left_out": "run" if groups is None else "group",
               "groups": to_json({} if groups is None else
                                 {str(k): str(v) for k, v in groups.items()}),
               "measures": to_json([str(m) for m in score["metric"].values]),
               "pool_size": int(pool_size),
               "probabilities": str(qrels.attrs.get("probabilities", "")),
               "order": str(runs.attrs.get("order", ""))})


# ---------------------------------------------------------------------------- downsampling

def _check_fractions(fractions) -> np.ndarray:
    if isinstance(fractions, (str, bytes)) or not isinstance(fractions, Iterable):
        raise InputError(f"fractions must be a list of numbers in (0, 1], not {fractions!r}")
    values = list(fractions)
    for f in values:
        if (isinstance(f, bool) or not isinstance(f, (int, float, np.integer, np.floating))
                or not 0 < f <= 1):
            raise InputError(f"fractions must lie in (0, 1], not {f!r}")
    if not values:
        raise InputError("fractions must hold at least one fraction in (0, 1]")
    out = np.array(sorted(float(f) for f in values))
    if (np.diff(out) == 0).any():
        raise InputError(f"fractions must be distinct, not {values!r}")
    return out


def _kept_ranks(judged: np.ndarray, repeats: int, seed: int) -> np.ndarray:
    """``rank(repeat, topic, doc)``: each judged document's place in a seeded random
    order of its topic's judged documents (0 first), ``n`` on padding slots. Keeping the
    documents of rank below ``ceil(f n_q)`` keeps a uniform random sample of ``f`` of the
    topic's judgments, the samples of one repeat nested over the fractions."""
    rng = np.random.default_rng(seed)
    priority = rng.random((repeats, *judged.shape))
    priority[:, ~judged] = np.inf
    order = np.argsort(priority, axis=-1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(judged.shape[-1])[None, None, :], axis=-1)
    return rank


@recorded
def downsample(runs: xr.Dataset, qrels: xr.Dataset, measures, *,
               fractions: Sequence[float] = (0.1, 0.2, 0.3, 0.5, 0.7, 1.0),
               repeats: int = 10, seed: int = 0,
               tau: RankCorrelation = "kendall") -> xr.Dataset:
    """Judgment downsampling: the run ranking when only a random part of the qrels is
    judged (Buckley & Voorhees, SIGIR 2004; Yilmaz & Aslam, CIKM 2006).

    For each fraction ``f`` and repeat, each topic ``q`` keeps ``ceil(f n_q)`` of its
    ``n_q`` judged documents, drawn uniformly at random without replacement (a kept
    document keeps the judgments of all its intents; the others become unjudged), and
    every run is scored with the reduced qrels. The runs' mean scores over the topics,
    ``M_f(m, r)``, are compared with those under the full qrels, ``M_1(m, r)``, by
    Kendall's tau (tau-b, ties counted as in scipy) and by the AP correlation of
    Yilmaz, Aslam & Robertson (SIGIR 2008), ``tau_ap = 2/(n-1) sum_{i=2..n} C(i)/(i-1) -
    1``, the reduced ranking evaluated against the full one, ``C(i)`` counting the runs
    the reduced ranking puts above its ``i``-th run that the full ranking also puts above
    it (ties as in :func:`xdiv.kernels.meta.tau_ap`). Within a repeat the samples are
    nested (the documents kept at ``f`` are kept at every larger fraction), so the
    curves of one repeat change only through the documents added; ``f = 1`` keeps every
    judgment and gives the full scores and correlations of 1.

    Parameters
    ----------
    runs : xarray.Dataset
        Runs (:func:`xdiv.read_runs`), at least two.
    qrels : xarray.Dataset
        A collection (:func:`xdiv.read_qrels`).
    measures : str or list of str
        Measures as :func:`xdiv.evaluate` takes them.
    fractions : sequence of float
        Distinct fractions of the judgments kept, each in (0, 1]; sorted ascending in
        the result.
    repeats : int
        Random samples per fraction (>= 1).
    seed : int
        Seed of the samples (NumPy's ``default_rng``); the same seed gives the same
        result.
    tau : {"kendall", "tau_ap", "tau_ap_sym", "tau_ap_b"}
        The coefficient :func:`xdiv.plot.pools.downsampling_plot` draws by default;
        ``kendall`` and ``tau_ap`` are always computed, another one is added.

    Returns
    -------
    xarray.Dataset
        ``mean(fraction, repeat, metric, run)``: the robustness curve of each run's mean
        score; ``kendall(fraction, repeat, metric)`` and ``tau_ap(fraction, repeat,
        metric)`` (and ``tau`` 's variable when it is another coefficient);
        ``full_mean(metric, run)``: the mean scores under the full qrels;
        ``n_kept(fraction, topic)``: the judged documents kept. The attributes record
        ``seed``, ``repeats``, ``fractions`` (JSON), ``tau`` and ``measures`` (JSON).

    Raises
    ------
    InputError
        Not runs or not a collection, fewer than two runs, fractions outside (0, 1],
        repeats below 1, a bad seed, an unknown coefficient.
    """
    _check_inputs(runs, qrels)
    if runs.sizes["run"] < 2:
        raise InputError(f"downsampling ranks the runs: it needs at least two runs, not "
                         f"{runs.sizes['run']}")
    values = _check_fractions(fractions)
    if (isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer))
            or repeats < 1):
        raise InputError(f"repeats must be a whole number >= 1, not {repeats!r}")
    check_resampling(seed=seed)
    if tau not in CORRELATIONS:
        raise InputError(f"tau must be one of {', '.join(CORRELATIONS)}, not {tau!r}")
    methods = list(dict.fromkeys([KENDALL, TAU_AP, tau]))

    full = evaluate(runs, qrels, measures)
    score = full["score"].transpose("metric", "run", "topic")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        full_mean = np.nanmean(score.values, axis=-1)  # (metric, run)
    judged = qrels["docno"].values != ""
    n_judged = judged.sum(axis=1)
    rank = _kept_ranks(judged, int(repeats), int(seed))
    n_metrics, n_runs = full_mean.shape
    means = np.full((len(values), repeats, n_metrics, n_runs), np.nan)
    n_kept = np.zeros((len(values), qrels.sizes["topic"]), dtype=np.int64)
    for a, fraction in enumerate(values):
        keep = np.ceil(fraction * n_judged - 1e-9).astype(np.int64)
        n_kept[a] = keep
        for b in range(repeats):
            remove = judged & (rank[b] >= keep[:, None])
            if not remove.any():  # every judgment kept: the full scores
                means[a, b] = full_mean
                continue
            part = _quiet_evaluate(runs, without_judgments(qrels, remove), measures)["score"]
            part = part.transpose("metric", "run", "topic")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                means[a, b] = np.nanmean(part.values, axis=-1)
    correlations = {method: np.full((len(values), repeats, n_metrics), np.nan)
                    for method in methods}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # constant rankings: NaN
        for method in methods:
            coefficient = CORRELATIONS[method]
            for index in np.ndindex(len(values), repeats, n_metrics):
                correlations[method][index] = coefficient(means[index], full_mean[index[-1]])
    dims = ("fraction", "repeat", "metric")
    metric_coords = {name: full[name] for name in ("metric", "canonical") if name in full.coords}
    return xr.Dataset(
        {"mean": ((*dims, "run"), means),
         **{method: (dims, correlations[method]) for method in methods},
         "full_mean": (("metric", "run"), full_mean),
         "n_kept": (("fraction", "topic"), n_kept)},
        coords={"fraction": values, "repeat": np.arange(repeats), **metric_coords,
                "run": object_strings(score["run"].values),
                "topic": object_strings(qrels["topic"].values)},
        attrs={"xdiv_kind": "downsampling", "seed": int(seed), "repeats": int(repeats),
               "fractions": to_json(values.tolist()), "tau": str(tau),
               "measures": to_json([str(m) for m in score["metric"].values]),
               "n_judged": int(n_judged.sum()),
               "probabilities": str(qrels.attrs.get("probabilities", "")),
               "order": str(runs.attrs.get("order", ""))})
