"""Diversity measures over flat intents: I-rec, Prec, Ef-P, D/D#, DIN/DIN#, P+Q/P+Q#.

The labelled layer names the dimensions (``rank``, ``intent``, ``doc``) and hands the
arrays to :mod:`xdiv.kernels.diversity`.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from ..kernels import diversity as K
from ..kernels import graded as G
from ..kernels import ties as T
from ..errors import MeasureError
from .common import (BETA, DENOMINATOR, GAIN, GAIN_DECIMALS, HIGHEST, PART_DECIMALS,
                     gain_table, levels_to, per_intent)
from .registry import Measure, Param, real, register

GAMMA = Param("gamma", 0.5, "weight of I-rec in the #-combination", real(0.0, 1.0))

_SAKAI_SONG_2011 = "Sakai & Song, SIGIR 2011"
_SAKAI_2013 = "Sakai, WWW 2012; Sakai, JIP 2013"

_PARALLEL = {"dask": "parallelized", "output_dtypes": [np.float64],
             "dask_gufunc_kwargs": {"allow_rechunk": True}}


def _nav(cube: xr.Dataset) -> xr.DataArray:
    return cube["intent_type"] == "nav"


def _apply(kernel, cube: xr.Dataset, cutoff: int | None, *, nav: bool = False, **kwargs):
    """Run a ``(levels, valid[, nav])`` kernel over (rank, intent)."""
    args = [levels_to(cube, cutoff), cube["intent_valid"]] + ([_nav(cube)] if nav else [])
    cores = [["rank", "intent"], ["intent"]] + ([["intent"]] if nav else [])
    return xr.apply_ufunc(kernel, *args, input_core_dims=cores,
                          kwargs={"cutoff": cutoff, **kwargs}, **_PARALLEL)


def intent_recall(cube: xr.Dataset, cutoff: int) -> xr.DataArray:
    """I-rec@l per run and topic."""
    return _apply(K.intent_recall, cube, cutoff)


def _expected_intent_recall(cube: xr.Dataset, cutoff: int) -> xr.DataArray:
    """E[I-rec@l] over the tie orders (:func:`xdiv.kernels.ties.expected_intent_recall`)."""
    return xr.apply_ufunc(T.expected_intent_recall, cube["level"], cube["intent_valid"],
                          cube["tie_start"],
                          input_core_dims=[["rank", "intent"], ["intent"], ["rank"]],
                          kwargs={"cutoff": cutoff}, **_PARALLEL)


def _expected_irec(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    return _expected_intent_recall(cube, measure.cutoff)


@register("I-rec", cutoff="required", family="diversity", aliases=("strec",),
          tie_bounds=True, expected=_expected_irec,
          reference="Zhai, Cohen & Lafferty, SIGIR 2003 (subtopic recall); "
                    "Sakai & Song, SIGIR 2011",
          formula=r"$\frac{\lvert \bigcup_{r \le l} I(d_r) \rvert}{\lvert I_q \rvert}$, the share "
                  "of intents covered by the top $l$")
def _irec(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    """I-rec@l = |union_{r<=l} I(d_r)| / |I_q|: the share of intents covered by the top l
    (ndeval's strec@k)."""
    return intent_recall(cube, measure.cutoff)


@register("Prec", cutoff="required", family="diversity",
          reference="the relevance gold standard of Sakai, AIRS 2013",
          formula=r"$\frac{1}{l} \sum_{r \le l} J(r)$")
def _prec(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    """Prec@l = (1/l) sum_{r<=l} J(r), J(r) = 1 if relevant to at least one intent."""
    return _apply(K.precision_any, cube, measure.cutoff)


@register("Ef-P", cutoff="required", family="diversity", reference=_SAKAI_2013,
          uses_intent_types=True,
          formula=r"$\frac{1}{l} \sum_{r \le l} J'(r)$")
def _efp(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    """Ef-P@l = (1/l) sum_{r<=l} J'(r): relevant to an informational intent, or the first
    relevant document of a navigational intent."""
    return _apply(K.effective_precision, cube, measure.cutoff, nav=True)


def ideal_global_gain(cube: xr.Dataset, table: np.ndarray) -> xr.DataArray:
    """GG of every judged document sorted descending: ``(topic, ideal_rank)``."""
    return xr.apply_ufunc(
        K.ideal_global_gain, cube["qrels_level"], cube["intent_prob"], cube["intent_valid"],
        input_core_dims=[["doc", "intent"], ["intent"], ["intent"]],
        output_core_dims=[["ideal_rank"]], kwargs={"table": table})


def relevant_count(cube: xr.Dataset) -> xr.DataArray:
    """R per topic: judged documents relevant to at least one valid intent."""
    return xr.apply_ufunc(K.count_relevant_any, cube["qrels_level"], cube["intent_valid"],
                          input_core_dims=[["doc", "intent"], ["intent"]])


def _global(kernel, cube: xr.Dataset, measure: Measure, *, din: bool, **kwargs):
    table = gain_table(cube, measure)
    return xr.apply_ufunc(
        kernel, levels_to(cube, measure.cutoff), ideal_global_gain(cube, table),
        cube["intent_prob"], cube["intent_valid"], _nav(cube),
        input_core_dims=[["rank", "intent"], ["ideal_rank"], ["intent"], ["intent"],
                         ["intent"]],
        kwargs={"cutoff": measure.cutoff, "table": table, "din": din, **kwargs}, **_PARALLEL)


def _d_ndcg(cube, measure, din):
    return _global(K.d_ndcg, cube, measure, din=din, decimals=measure["gain_decimals"])


def _d_ndcg_expected(cube, measure, din):
    """E[D-nDCG@l] over the tie orders (:func:`xdiv.kernels.ties.expected_d_ndcg`)."""
    table = gain_table(cube, measure)
    return xr.apply_ufunc(
        T.expected_d_ndcg, cube["level"], ideal_global_gain(cube, table), cube["intent_prob"],
        cube["intent_valid"], cube["tie_start"],
        input_core_dims=[["rank", "intent"], ["ideal_rank"], ["intent"], ["intent"],
                         ["rank"]],
        kwargs={"cutoff": measure.cutoff, "table": table, "decimals": measure["gain_decimals"]},
        **_PARALLEL)


def _d_q(cube, measure, din):
    return xr.apply_ufunc(
        K.d_q, levels_to(cube, measure.cutoff),
        ideal_global_gain(cube, gain_table(cube, measure)), cube["intent_prob"],
        cube["intent_valid"], _nav(cube), relevant_count(cube),
        input_core_dims=[["rank", "intent"], ["ideal_rank"], ["intent"], ["intent"],
                         ["intent"], []],
        kwargs={"cutoff": measure.cutoff, "table": gain_table(cube, measure),
                "beta": measure["beta"], "din": din, "decimals": measure["gain_decimals"],
                "denominator": measure["denominator"]},
        **_PARALLEL)


def _p_plus_q(cube, measure, _din=False):
    table = gain_table(cube, measure)
    q = per_intent(cube, G.q_measure, measure.cutoff, table=table, beta=measure["beta"])
    pplus = per_intent(cube, G.p_plus, measure.cutoff, table=table, beta=measure["beta"])
    return xr.apply_ufunc(K.combine_by_type, q, pplus, cube["intent_prob"],
                          cube["intent_valid"], _nav(cube),
                          kwargs={"decimals": measure["part_decimals"]},
                          input_core_dims=[["intent"]] * 5, **_PARALLEL)


def _sharp(cube, measure, base, recall=intent_recall):
    return xr.apply_ufunc(K.sharp, recall(cube, measure.cutoff), base,
                          kwargs={"gamma": measure["gamma"],
                                  "decimals": measure["part_decimals"]}, **_PARALLEL)


def sharp_formula(base: str, recall: str = "I-rec") -> str:
    """The TeX formula of the #-form of the measure ``base``: ``gamma recall + (1-gamma) base``."""
    return rf"$\gamma\, \text{{{recall}}}@l + (1 - \gamma)\, \text{{{base}}}@l$"


def _declare(name: str, compute, *, din: bool, params, reference: str, doc: str, formula: str,
             uses_intent_types: bool = False, tie_bounds: bool = False,
             expected=None) -> None:
    """Register ``name`` and its #-form ``gamma I-rec + (1-gamma) name``.

    ``doc`` is the plain-text definition and ``formula`` the same in TeX; the #-form gets
    both from the family rule (:func:`sharp_formula`). ``tie_bounds`` as for
    :func:`~xdiv.measures.registry.register` (I-rec has it, so the #-form shares it);
    ``expected(cube, measure, din)``, the exact expectation over tie orders, gives the
    #-form's too (I-rec has one, and the expectation is linear).
    """
    def plain(cube, measure):
        return compute(cube, measure, din)

    def combined(cube, measure):
        return _sharp(cube, measure, compute(cube, measure, din))

    def plain_expected(cube, measure):
        return expected(cube, measure, din)

    def combined_expected(cube, measure):
        if measure["part_decimals"] is not None:
            raise MeasureError(f"{measure.name}: the parts rounded to part_decimals have no "
                               "exact expectation over tie orders; use ties='range' or "
                               "leave part_decimals out")
        return _sharp(cube, measure, expected(cube, measure, din),
                      recall=_expected_intent_recall)

    plain.__doc__ = doc
    register(name, params=params, cutoff="optional", family="diversity",
             reference=reference, formula=formula, uses_intent_types=uses_intent_types,
             tie_bounds=tie_bounds, expected=plain_expected if expected else None)(plain)
    sharp_name = name.replace("-", "#-", 1) if "-" in name[1:] else f"{name}#"
    combined.__doc__ = f"{sharp_name}@l = gamma I-rec@l + (1 - gamma) {name}@l."
    parts = () if PART_DECIMALS in params else (PART_DECIMALS,)
    register(sharp_name, params=(GAMMA, *params, *parts), cutoff="required", family="diversity",
             reference=reference, formula=sharp_formula(name),
             uses_intent_types=uses_intent_types, tie_bounds=tie_bounds,
             expected=combined_expected if expected else None)(combined)


_declare("D-nDCG", _d_ndcg, din=False, params=(GAIN, HIGHEST, GAIN_DECIMALS),
         reference=_SAKAI_SONG_2011,
         tie_bounds=True, expected=_d_ndcg_expected,
         doc="D-nDCG@l = sum_{r<=l} GG(r) disc(r) / sum_{r<=l} GG*(r) disc(r), "
             "GG(r) = sum_i Pr(i|q) gv(x_i(r)), GG* from the globally ideal list.",
         formula=r"$\frac{\sum_{r \le l} GG(r)\, \mathrm{disc}(r)}{\sum_{r \le l} GG^*(r)\, "
                 r"\mathrm{disc}(r)}$")
_declare("D-Q", _d_q, din=False, params=(BETA, GAIN, HIGHEST, GAIN_DECIMALS, DENOMINATOR),
         reference=_SAKAI_SONG_2011,
         doc="D-Q@l = (1/min(l,R)) sum_{r<=l} J(r) (C(r) + beta cgg(r)) / (r + beta cgg*(r)) "
             "with global gains.",
         formula=r"$\frac{1}{\min(l, R)} \sum_{r \le l} J(r)\, BR(r)$ with global gains: $BR(r) = "
                 r"\frac{C(r) + \beta\, cGG(r)}{r + \beta\, cGG^*(r)}$")
_declare("DIN-nDCG", _d_ndcg, din=True, params=(GAIN, HIGHEST, GAIN_DECIMALS),
         reference=_SAKAI_2013,
         uses_intent_types=True,
         doc="DIN-nDCG@l: D-nDCG in which a navigational intent's gain counts only at its "
             "first relevant document; ideal list as D-nDCG (so DIN-nDCG <= D-nDCG).",
         formula=r"D-nDCG with $GG_{\mathrm{DIN}}$ for the run (ideal list as D-nDCG, so DIN-nDCG "
                 r"$\le$ D-nDCG)")
_declare("DIN-Q", _d_q, din=True, params=(BETA, GAIN, HIGHEST, GAIN_DECIMALS, DENOMINATOR),
         reference=_SAKAI_2013,
         uses_intent_types=True,
         doc="DIN-Q@l: D-Q with DIN global gains and effective relevance J', C' "
             "(reconstructed: the formula cannot be read in the available text of the "
             "paper; J' follows its prose).",
         formula=r"$\frac{1}{\min(l, R)} \sum_{r \le l} J'(r)\, BR'(r)$, $BR'(r) = \frac{C'(r) + "
                 r"\beta\, cGG_{\mathrm{DIN}}(r)}{r + \beta\, cGG^*(r)}$ with "
                 r"$cGG_{\mathrm{DIN}}(r) = \sum_{k \le r} GG_{\mathrm{DIN}}(k)$ (reconstructed: "
                 "the formula cannot be read in the available text of the paper; xdiv follows "
                 "its prose on effective relevance)")
_declare("P+Q", _p_plus_q, din=False, params=(BETA, GAIN, HIGHEST, PART_DECIMALS),
         reference=_SAKAI_2013,
         uses_intent_types=True,
         doc="P+Q@l = sum_{i inf} Pr(i|q) Q_i@l + sum_{j nav} Pr(j|q) P+_j@l, each intent with "
             "its own ideal list.",
         formula=r"$\sum_{i\ \mathrm{inf}} \Pr(i \mid q)\, Q_i@l \;+$ $\sum_{j\ \mathrm{nav}} "
                 r"\Pr(j \mid q)\, P^{+}_j@l$, each intent with its own ideal list")
