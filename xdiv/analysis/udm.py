"""The User Disagreement Model (Demeester et al., WSDM 2014).

Multiply-judged documents tell how likely another assessor (a stand-in for another user)
is to give the top label T to a document one assessor labelled i: ``p_{T|i}``. From it the
UDM derives relevance weights ``P^(M/N)_{T|i}``, the probability that at least M of N
users find the document top-relevant, used as nDCG gains or GAP's ``q_x``.

Data: :func:`assessments` builds ``label(topic, doc, assessor)`` (codes into an ordered
``label`` coordinate, -1 where an assessor did not judge); labels may be tuples such as
(snippet level, page level), stored as their text.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

import numpy as np
import pandas as pd
import xarray as xr

from ..errors import InputError
from ..core.labels import natural_sorted, object_strings
from ..measures.registry import parse_measure

__all__ = ["assessments", "estimate", "relevance_weights", "weights_table", "measure_name",
           "synthetic_assessments", "robustness"]


def _label_text(label) -> str:
    return ",".join(map(str, label)) if isinstance(label, tuple) else str(label)


def assessments(frame: pd.DataFrame, *, order: Sequence, top=None) -> xr.Dataset:
    """Multi-assessor labels as a dataset.

    Parameters
    ----------
    frame : DataFrame
        Columns ``topic``, ``docno``, ``assessor``, ``label``.
    order : sequence
        Every label from the lowest to the highest (tuples allowed).
    top : label, optional
        The top label T (default: the last of ``order``).

    Returns
    -------
    xarray.Dataset
        ``label(topic, doc, assessor)`` int codes into the ``label`` coordinate (-1: not
        judged), ``docno(topic, doc)``; attribute ``top``.
    """
    need = {"topic", "docno", "assessor", "label"}
    if not need <= set(frame.columns):
        raise InputError(f"assessments need the columns {sorted(need)}")
    names = [_label_text(x) for x in order]
    if len(set(names)) != len(names):
        raise InputError("the label order lists a label twice")
    top = names[-1] if top is None else _label_text(top)
    if top not in names:
        raise InputError(f"top label {top!r} is not in the label order")
    text = frame["label"].map(_label_text)
    unknown = sorted(set(text) - set(names))
    if unknown:
        raise InputError(f"labels {unknown} are not in the label order {names}")
    tidy = pd.DataFrame({"topic": frame["topic"].astype(str), "docno": frame["docno"].astype(str),
                         "assessor": frame["assessor"].astype(str),
                         "code": pd.Index(names).get_indexer(text)})
    dup = tidy.duplicated(["topic", "docno", "assessor"])
    if dup.any():
        row = tidy[dup].iloc[0]
        raise InputError(f"assessor {row.assessor} labels topic {row.topic} docno {row.docno} "
                         "twice")
    topics = natural_sorted(tidy["topic"])
    assessors = natural_sorted(tidy["assessor"])
    docs = tidy[["topic", "docno"]].drop_duplicates().sort_values(["topic", "docno"])
    t_of = pd.Index(topics).get_indexer(docs["topic"])
    slot = docs.groupby("topic").cumcount().to_numpy()
    width = int(slot.max()) + 1
    docno = np.full((len(topics), width), "", dtype=object)
    docno[t_of, slot] = docs["docno"].to_numpy()
    where = pd.Series(slot, index=pd.MultiIndex.from_frame(docs))
    d = where.reindex(pd.MultiIndex.from_frame(tidy[["topic", "docno"]])).to_numpy()
    label = np.full((len(topics), width, len(assessors)), -1, dtype=np.int16)
    label[pd.Index(topics).get_indexer(tidy["topic"]), d,
          pd.Index(assessors).get_indexer(tidy["assessor"])] = tidy["code"].to_numpy()
    return xr.Dataset({"label": (("topic", "doc", "assessor"), label)},
                      coords={"topic": object_strings(topics),
                              "assessor": object_strings(assessors),
                              "label_name": ("label_level", object_strings(names)),
                              "docno": (("topic", "doc"), docno)},
                      attrs={"xdiv_kind": "assessments", "top": top})


def _pair_counts(label: np.ndarray, n_labels: int, top: int):
    """Per document: ordered pairs of distinct assessors whose first label is i (``n``),
    and those whose second label is also T (``t``): ``(..., doc, label)``."""
    counts = np.stack([(label == k).sum(axis=-1) for k in range(n_labels)], axis=-1)
    judged = counts.sum(axis=-1, keepdims=True)
    pairs = counts * (judged - 1)
    to_top = counts * counts[..., top:top + 1] - np.where(np.arange(n_labels) == top,
                                                          counts, 0)
    return pairs, to_top


def _document_mask(data: xr.Dataset, subset: xr.DataArray | None) -> np.ndarray:
    """``subset`` as a ``(topic, doc)`` bool array in ``data``'s order, aligned by
    dimension name and topic label."""
    docs = data["docno"]
    if subset is None:
        return np.ones(docs.shape, dtype=bool)
    if not isinstance(subset, xr.DataArray) or not set(subset.dims) <= {"topic", "doc"}:
        raise InputError("subset must be a DataArray over (topic, doc)")
    if subset.dtype != bool:
        raise InputError(f"subset must be boolean, not {subset.dtype}")
    if "topic" in subset.indexes:
        labels = subset["topic"].values
        if len(set(labels)) != len(labels):
            raise InputError("subset lists a topic twice")
        missing = sorted(set(data["topic"].values) - set(labels))
        if missing:
            raise InputError(f"subset lacks topics {missing[:5]}")
        subset = subset.sel(topic=data["topic"].values)
    for dim in subset.dims:
        if subset.sizes[dim] != docs.sizes[dim]:
            raise InputError(f"subset has {subset.sizes[dim]} {dim}s, the assessments "
                             f"{docs.sizes[dim]}")
    if "docno" in subset.coords:  # docs are positions: they must be the same documents
        theirs = subset["docno"].broadcast_like(docs).transpose("topic", "doc").values
        if (theirs != docs.transpose("topic", "doc").values).any():
            raise InputError("subset's docno coordinate differs from the assessments' "
                             "(built from other assessments?)")
    return subset.drop_vars("docno", errors="ignore").broadcast_like(
        docs.drop_vars("docno")).transpose("topic", "doc").values


def estimate(data: xr.Dataset, *, subset: xr.DataArray | None = None, min_count: int = 50,
             bootstrap: int = 1000, seed: int = 0, ignore_non: bool = False) -> xr.Dataset:
    """Estimate ``p_{T|i}`` from all ordered pairs of distinct assessors of a document.

    Parameters
    ----------
    data : xarray.Dataset
        From :func:`assessments`.
    subset : DataArray of bool ``(topic, doc)``, optional
        Documents to estimate from (e.g. the top-k ranks, or "high-quality lists").
    min_count : int
        Estimates from fewer ordered pairs are flagged (``reliable`` False).
    bootstrap, seed
        Standard errors from ``bootstrap`` resamples of the documents (seeded).
    ignore_non : bool
        Set ``p_{T|lowest label}`` to 0 (the seed's recommendation for non-relevant).

    Returns
    -------
    xarray.Dataset
        ``p(label_level)``, ``pairs``, ``to_top``, ``se``, ``reliable``; attributes: top,
        seed, bootstrap, min_count.
    """
    names = list(data["label_name"].values)
    top = names.index(data.attrs["top"])
    label = data["label"].values
    keep = _document_mask(data, subset)
    pairs, to_top = _pair_counts(label, len(names), top)
    pairs, to_top = pairs[keep], to_top[keep]  # (docs, labels)
    n, t = pairs.sum(axis=0).astype(np.float64), to_top.sum(axis=0).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, t / np.where(n > 0, n, 1), np.nan)
    rng = np.random.default_rng(seed)
    if bootstrap and len(pairs):
        idx = rng.integers(0, len(pairs), size=(bootstrap, len(pairs)))
        weights = np.zeros((bootstrap, len(pairs)))
        np.add.at(weights, (np.arange(bootstrap)[:, None], idx), 1.0)
        bn, bt = weights @ pairs, weights @ to_top
        with np.errstate(invalid="ignore", divide="ignore"):
            se = np.nanstd(np.where(bn > 0, bt / np.where(bn > 0, bn, 1), np.nan), axis=0,
                           ddof=1)
    else:
        se = np.full(len(names), np.nan)
    if ignore_non:
        p[0], se[0] = 0.0, 0.0
    return xr.Dataset(
        {"p": ("label_level", p), "pairs": ("label_level", n.astype(np.int64)),
         "to_top": ("label_level", t.astype(np.int64)), "se": ("label_level", se),
         "reliable": ("label_level", n >= min_count)},
        coords={"label_name": ("label_level", object_strings(names))},
        attrs={"xdiv_kind": "udm_estimate", "top": data.attrs["top"], "seed": seed,
               "bootstrap": bootstrap, "min_count": min_count, "ignore_non": int(ignore_non)})


def relevance_weights(p, M: int = 1, N: int = 2, *, top: bool = False):
    """``P^(M/N)``: probability that at least M of N users find a document top-relevant.

    Below the top label (``top=False``) the labelling user is not one of them:
    ``sum_{m=M}^{N-1} C(N-1, m) p^m (1-p)^{N-1-m}`` with ``p = p_{T|i}``. For the top
    label that user already is one, so M-1 more are needed among the N-1 others, with
    ``p = p_{T|T}``; for M = 1 this is 1 (and ``1 - (1-p)^{N-1}`` below T).
    Array-friendly in ``p``. Check: p = 0.3 gives 0.51 (1/3), 0.09 (2/3),
    0.216 (2/4), 0.348 (2/5) (Demeester et al., WSDM 2014, Table 1).
    """
    if not (isinstance(M, (int, np.integer)) and isinstance(N, (int, np.integer))
            and 0 <= M <= N and N >= 1):
        raise InputError(f"relevance weights need whole numbers 0 <= M <= N, N >= 1 "
                         f"(got M={M}, N={N})")
    p = np.asarray(p, dtype=np.float64)
    start = max(M - 1, 0) if top else M
    total = np.zeros_like(p)
    for m in range(start, N):
        total = total + comb(N - 1, m) * p ** m * (1.0 - p) ** (N - 1 - m)
    return total


def weights_table(estimate_: xr.Dataset, M: Sequence[int] = (1, 2, 3),
                  N: Sequence[int] = (2, 3, 4, 5)) -> xr.DataArray:
    """``P^(M/N)_{T|i}`` for every label and every ``M <= N``: ``(label_level, M, N)``."""
    names = list(estimate_["label_name"].values)
    top = names.index(estimate_.attrs["top"])
    p = estimate_["p"].values
    out = np.full((len(names), len(M), len(N)), np.nan)
    for a, m in enumerate(M):
        for b, n in enumerate(N):
            if m <= n:
                out[:, a, b] = [relevance_weights(p[k], m, n, top=k == top)
                                for k in range(len(names))]
    return xr.DataArray(out, dims=("label_level", "M", "N"),
                        coords={"label_name": ("label_level", object_strings(names)),
                                "M": list(M), "N": list(N)}, name="weight")


def measure_name(base: str, estimate_: xr.Dataset, M: int = 1, N: int = 2,
                 cutoff: int | None = None) -> str:
    """The name of a UDM-weighted measure: ``nDCG`` with the weights as gains of levels
    1..H, or ``GAP`` with them as ``q_1..q_H`` (labels ordered, the lowest = level 0)."""
    parameter = {"nDCG": "gain", "GAP": "q"}.get(base)
    if parameter is None:
        raise InputError(f"UDM weights apply to nDCG and GAP, not {base!r}")
    table = weights_table(estimate_, [M], [N]).values[1:, 0, 0]
    values = ",".join(f"{v:.12g}" for v in table)
    text = f"{base}({parameter}=({values},),H={len(table)})" + (f"@{cutoff}" if cutoff else "")
    return parse_measure(text).name


def synthetic_assessments(n_topics: int = 20, n_docs: int = 60, n_assessors: int = 3, *,
                          levels: int = 3, agreement: float = 0.6,
                          seed: int = 0) -> pd.DataFrame:
    """A seeded multi-assessor data set: each document has a latent level; each assessor
    reports it with probability ``agreement`` and a random level otherwise."""
    rng = np.random.default_rng(seed)
    latent = rng.choice(levels, size=(n_topics, n_docs), p=np.r_[0.5, np.full(levels - 1,
                                                                            0.5 / (levels - 1))])
    rows = []
    for a in range(n_assessors):
        agree = rng.random((n_topics, n_docs)) < agreement
        noisy = rng.integers(0, levels, size=(n_topics, n_docs))
        given = np.where(agree, latent, noisy)
        t, d = np.indices(given.shape)
        rows.append(pd.DataFrame({"topic": (t + 1).ravel().astype(str),
                                  "docno": [f"d{k:04d}" for k in d.ravel()],
                                  "assessor": f"a{a + 1}", "label": given.ravel()}))
    return pd.concat(rows, ignore_index=True)


def robustness(data: xr.Dataset, *, first: str, second: str, M: int = 1, N: int = 2,
               cutoff: int = 10, ignore_non: bool = True) -> xr.Dataset:
    """Mutual evaluation of two assessors: the robustness protocol of Demeester et al.
    (WSDM 2014, Section 6.1 and Table 2).

    Both directions are scored (``direction`` = "first->second", "second->first") and the
    mean and sd run over topics and directions. See :func:`_one_way` for one direction.
    """
    parts = [_one_way(data, first=a, second=b, M=M, N=N, cutoff=cutoff, ignore_non=ignore_non)
             for a, b in ((first, second), (second, first))]
    score = xr.concat(parts, dim="direction", join="outer").assign_coords(
        direction=object_strings([f"{first}->{second}", f"{second}->{first}"]))
    return xr.Dataset({"score": score, "mean": score.mean(("direction", "topic")),
                       "sd": score.std(("direction", "topic"), ddof=1)},
                      attrs={"xdiv_kind": "udm_robustness", "first": first, "second": second,
                             "M": M, "N": N, "cutoff": cutoff, "ignore_non": int(ignore_non)})


def _one_way(data: xr.Dataset, *, first: str, second: str, M: int, N: int, cutoff: int,
             ignore_non: bool) -> xr.DataArray:
    """One direction of :func:`robustness`.

    For each topic judged by both, ``first``'s labels are the qrels and ``second``'s
    labels, ranked by descending level (ties by docno descending), the "run". UDM
    parameters are estimated leave-one-topic-out (from all other topics). Scored: AP,
    nDCG@cutoff with exponential gains, nDCG@cutoff with UDM gains ``P^(M/N)`` and
    ``GAP^(M/N)``.

    Returns ``score(metric, topic)``.
    """
    from ..io.api import build_collection
    from ..engine import evaluate
    from ..core.runs import build_runs

    topics = [str(t) for t in data["topic"].values]
    a = list(data["assessor"].values).index(first)
    b = list(data["assessor"].values).index(second)
    label = data["label"].values
    both = (label[:, :, a] >= 0) & (label[:, :, b] >= 0)
    rows = {}
    for t, topic in enumerate(topics):
        keep = both[t]
        if not keep.any() or not (label[t, keep, a] > 0).any():
            continue
        others = xr.DataArray((np.arange(len(topics))[:, None] != t) & both,
                              dims=("topic", "doc"), coords={"topic": data["topic"].values})
        est = estimate(data, subset=others, bootstrap=0, ignore_non=ignore_non)
        docs = data["docno"].values[t, keep]
        qrels = pd.DataFrame({"topic": topic, "intent": "0", "docno": docs,
                              "level": label[t, keep, a].astype(int)})
        run = pd.DataFrame({"run": second, "topic": topic, "docno": docs,
                            "score": label[t, keep, b].astype(float)})
        metrics = [f"AP@{cutoff}", f"nDCG@{cutoff}",
                   measure_name("nDCG", est, M, N, cutoff), measure_name("GAP", est, M, N)]
        res = evaluate(build_runs(run), build_collection(qrels, source="robustness"), metrics)
        rows[topic] = res["score"].isel(run=0).sel(topic=topic).values
    if not rows:
        raise InputError(f"no topic is judged by both {first} and {second}")
    labels = ["AP", "nDCG", f"nDCG^({M}/{N})", f"GAP^({M}/{N})"]
    return xr.DataArray(np.array(list(rows.values())).T, dims=("metric", "topic"),
                        coords={"metric": object_strings(labels),
                                "topic": object_strings(list(rows))})
