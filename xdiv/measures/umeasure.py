"""U-measure family (Sakai & Dou, SIGIR 2013; Sakai, AIRS 2013): U, D-U, U-IA.

Needs document lengths in the collection (``xdiv.read_qrels(..., doc_lengths=...)`` or
:func:`xdiv.set_doc_lengths`). Gains are ``gv(x) / (gv(H) + 1)``, i.e.
``(2^x - 1)/2^H`` with the default exponential gains (as in Sakai, AIRS 2013).
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from ..errors import MeasureError
from ..kernels import umeasure as K
from .common import GAIN, HIGHEST, gain_table, levels_to, single_intent_check
from .registry import Measure, Param, real, register

SNIPPET = Param("snippet", 200.0, "characters of the snippet read at every rank", real(0.0))
FRACTION = Param("F", 0.2, "share of a relevant document's full text read", real(0.0, 1.0))
PATIENCE = Param("L", 132000.0, "characters after which the decay D(pos) reaches 0",
                 real(0.0, closed=(False, True)))
USERS = Param("N", 1.0, "number of trailtexts U averages over", real(0.0, closed=(False, True)))
PARAMS = (SNIPPET, FRACTION, PATIENCE, USERS, GAIN, HIGHEST)
_U_MEASURES = "Sakai & Dou, SIGIR 2013; Sakai, AIRS 2013"


def _compute(kernel, cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    if "run_doc_length" not in cube:
        raise MeasureError(f"{measure.name} needs document lengths: read the qrels with "
                           "doc_lengths=... or use xdiv.set_doc_lengths")
    table = gain_table(cube, measure)
    return xr.apply_ufunc(
        kernel, levels_to(cube, measure.cutoff), cube["intent_valid"], cube["intent_prob"],
        cube["run_doc_length"].isel(rank=slice(0, measure.cutoff)),
        input_core_dims=[["rank", "intent"], ["intent"], ["intent"], ["rank"]],
        kwargs={"cutoff": measure.cutoff, "table": table / (table[-1] + 1.0),
                "snippet": measure["snippet"], "fraction": measure["F"],
                "patience": measure["L"], "users": measure["N"]},
        dask="parallelized", output_dtypes=[np.float64],
        dask_gufunc_kwargs={"allow_rechunk": True})


@register("U", params=PARAMS, cutoff="required", family="graded", reference=_U_MEASURES,
          formula=r"$\frac{1}{N} \sum_k g(\mathrm{pos}_k)\, D(\mathrm{pos}_k)$, $D(\mathrm{pos}) "
                  r"= \max(0, 1 - \mathrm{pos}/L)$: the user reads a snippet per rank and a share "
                  r"$F$ of each relevant document; $\mathrm{pos}_k$ is the number of characters "
                  "read when the $k$-th relevant text ends, with gain "
                  r"$\mathrm{gv}(x)/(\mathrm{gv}(H) + 1)$")
def _u(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    """U@l = (1/N) sum_k g(pos_k) D(pos_k), D(pos) = max(0, 1 - pos/L): the user reads a
    snippet per rank and F of each relevant document's text; gain at the end of each read."""
    single_intent_check(cube, measure)
    return _compute(K.d_u, cube, measure)


@register("D-U", params=PARAMS, cutoff="required", family="diversity", reference=_U_MEASURES,
          formula="U over one reading in which every document relevant to some intent is read, "
                  "with gain $GG$")
def _du(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    """D-U@l: U over one trailtext in which the full text of every document relevant to some
    intent is read, with the global gain GG."""
    return _compute(K.d_u, cube, measure)


@register("U-IA", params=PARAMS, cutoff="required", family="intent-aware", reference=_U_MEASURES,
          formula=r"$\sum_i \Pr(i \mid q)\, U_i$, one reading per intent (full text read only for "
                  "the intent's relevant documents)")
def _uia(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    """U-IA@l = sum_i Pr(i|q) U_i, one trailtext per intent (full text read only for the
    intent's relevant documents, gain gv(x_i))."""
    return _compute(K.u_ia, cube, measure)


def trailtext_u(events, collection: xr.Dataset, *, patience: float = 132000.0,
                users: float = 1.0, gain="exp") -> xr.DataArray:
    """U of observed trailtexts (reading logs) instead of the simulated user.

    Parameters
    ----------
    events : pandas.DataFrame
        One row per string read, with columns ``topic``, ``session`` (a user or session
        id), ``order`` (reading order within the session), ``kind`` (``snippet``,
        ``fulltext`` or ``other``), ``docno`` (may be empty for ``other``) and
        ``characters`` (length of the string read). Example::

            topic session order kind     docno  characters
            77    u1      1     snippet  d1     200
            77    u1      2     fulltext d1     5000
            77    u1      3     other    -      120

    collection : xarray.Dataset
        Relevance comes from it: the gain of a full-text read of document d is the global
        gain ``sum_i Pr(i|q) gv(x_i(d)) / (gv(H) + 1)`` (the D-U gain; for an adhoc
        collection, U's gain), counted once per document, at the end position of its first
        full-text read.
    patience, users
        L and N of ``U = (1/N) sum_k g(pos_k) max(0, 1 - pos_k / L)``.

    Returns
    -------
    xarray.DataArray
        ``U(topic, session)`` (NaN where a topic has no such session).
    """
    import pandas as pd

    from ..kernels.common import gain_table as make_table

    need = {"topic", "session", "order", "kind", "docno", "characters"}
    if not need <= set(events.columns):
        raise MeasureError(f"trailtext events need the columns {sorted(need)}")
    kinds = set(events["kind"].astype(str)) - {"snippet", "fulltext", "other"}
    if kinds:
        raise MeasureError(f"unknown trailtext event kinds {sorted(kinds)}")
    frame = events.assign(topic=events["topic"].astype(str), docno=events["docno"].astype(str))
    chars = pd.to_numeric(frame["characters"], errors="coerce")
    if chars.isna().any() or (chars < 0).any():
        raise MeasureError("trailtext characters must be non-negative numbers")
    frame = frame.assign(characters=chars).sort_values(["topic", "session", "order"],
                                                       kind="stable")
    frame["pos"] = frame.groupby(["topic", "session"], sort=False)["characters"].cumsum()
    highest = max(int(collection["level"].max()), 1)
    table = make_table(gain, highest)
    gg = (table[np.minimum(collection["level"].values, highest)]
          * np.where(collection["intent_valid"].values, collection["intent_prob"].values,
                     0.0)[:, :, None]).sum(axis=1) / (table[-1] + 1.0)
    t, d = np.nonzero(collection["docno"].values != "")
    lookup = pd.Series(gg[t, d], index=pd.MultiIndex.from_arrays(
        [collection["topic"].values[t], collection["docno"].values[t, d]]))
    full = frame["kind"] == "fulltext"
    first = full & ~frame[full].duplicated(["topic", "session", "docno"]).reindex(
        frame.index, fill_value=True)
    g = lookup.reindex(pd.MultiIndex.from_arrays([frame["topic"], frame["docno"]])).to_numpy()
    g = np.where(first.to_numpy(), np.nan_to_num(g), 0.0)
    frame["value"] = g * K.decay(frame["pos"].to_numpy(dtype=np.float64), patience) / users
    table_u = frame.groupby(["topic", "session"])["value"].sum()
    return xr.DataArray.from_series(table_u).rename("U")
