"""The measure names TREC's ndeval owns, with ndeval's definitions by default.

``alpha-DCG@k``, ``alpha-nDCG@k``, ``ERR-IA@k``, ``nERR-IA@k``, ``NRBP``, ``nNRBP``,
``MAP-IA``, ``P-IA@k`` and ``strec@k`` (= ``I-rec@k``) agree with ndeval (pyndeval) on
every topic with relevant documents. ``ndeval=False`` on alpha-nDCG, ERR-IA, nERR-IA,
MAP-IA and P-IA selects Sakai & Song's graded, probability-weighted definition
(``sum_i Pr(i|q) M_i`` with graded per-intent measures; probability-weighted novelty gains
for alpha-nDCG).
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from ..kernels import graded as G
from ..kernels.common import count_relevant
from ..kernels import ndeval as K
from ..kernels import ties as T
from .common import (GAIN, HIGHEST, HIGHEST_GAIN, IDEAL_LISTS, MEMO, PART_DECIMALS, gain_table,
                     intent_aware, levels_to, per_intent)
from .registry import Measure, Param, flag, real, register

ALPHA = Param("alpha", 0.5, "novelty discount: each further document relevant to an intent "
              "gains (1 - alpha) times less", real(0.0, 1.0))
NRBP_BETA = Param("beta", 0.5, "patience of NRBP's user (rank-biased discount beta^(r-1))",
                  real(0.0, 1.0))
NDEVAL = Param("ndeval", True, "True: ndeval's definition (binary per-intent relevance, "
               "uniform intents); False: the graded, probability-weighted definition of "
               "Sakai & Song, SIGIR 2011", flag)

_NDEVAL = ("TREC Web Track ndeval (Clarke et al., SIGIR 2008; Clarke, Craswell, Soboroff & "
           "Ashkan, WSDM 2011)")
_GRADED_ONLY = (("alpha", "ndeval", False), ("gain", "ndeval", True), ("H", "ndeval", True),
                ("highest", "ndeval", True), ("part_decimals", "ndeval", True))
"""The parameters ERR-IA and nERR-IA use under one definition only."""
_IA_NDEVAL_FALSE = r"`ndeval=False`: $\sum_i \Pr(i \mid q)\, {m}_i$"
"""The formula of ``ndeval=False`` for an intent-aware measure ``m``."""
_PARALLEL = {"dask": "parallelized", "output_dtypes": [np.float64],
             "dask_gufunc_kwargs": {"allow_rechunk": True}}


def greedy_ideal(cube: xr.Dataset, alpha: float, depth: int,
                 weights: xr.DataArray | None = None) -> xr.DataArray:
    """Novelty gains of ndeval's greedy ideal list, ``(topic, greedy_rank)``, kept in the
    judged cube's memo (:data:`xdiv.measures.common.MEMO`, one per evaluation; under
    :data:`xdiv.measures.common.IDEAL_LISTS`) when it has one."""
    memo = cube.attrs.get(MEMO)
    args = [cube["qrels_level"], cube["intent_valid"]] + ([weights] if weights is not None
                                                           else [])
    return xr.apply_ufunc(
        K.greedy_ideal_gains, *args,
        input_core_dims=[["doc", "intent"], ["intent"]] + ([["intent"]] if weights is not None
                                                          else []),
        output_core_dims=[["greedy_rank"]],
        kwargs={"alpha": alpha, "depth": depth,
                "memo": None if memo is None else memo.setdefault(IDEAL_LISTS, {})})


def _run_only(kernel, cube, measure, **kwargs):
    return xr.apply_ufunc(kernel, levels_to(cube, measure.cutoff), cube["intent_valid"],
                          input_core_dims=[["rank", "intent"], ["intent"]],
                          kwargs={"cutoff": measure.cutoff, **kwargs}, **_PARALLEL)


def _against_ideal(kernel, cube, measure, depth, weights=None, **kwargs):
    ideal = greedy_ideal(cube, measure["alpha"], depth, weights)
    args = [levels_to(cube, measure.cutoff), cube["intent_valid"], ideal]
    cores = [["rank", "intent"], ["intent"], ["greedy_rank"]]
    if weights is not None:
        args.append(weights)
        cores.append(["intent"])
    return xr.apply_ufunc(kernel, *args, input_core_dims=cores,
                          kwargs={"cutoff": measure.cutoff, "alpha": measure["alpha"],
                                  **kwargs}, **_PARALLEL)


def _graded_ia(cube, measure, kernel, decimals=None, **kwargs):
    return intent_aware(cube, per_intent(cube, kernel, measure.cutoff, **kwargs), decimals)


def _alpha_dcg_expected(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    """E[alpha-DCG@k] over the tie orders (:func:`xdiv.kernels.ties.expected_alpha_dcg`)."""
    return xr.apply_ufunc(T.expected_alpha_dcg, cube["level"], cube["intent_valid"],
                          cube["tie_start"],
                          input_core_dims=[["rank", "intent"], ["intent"], ["rank"]],
                          kwargs={"cutoff": measure.cutoff, "alpha": measure["alpha"]},
                          **_PARALLEL)


def _alpha_ndcg_expected(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    """E[alpha-nDCG@k] over the tie orders (:func:`xdiv.kernels.ties.expected_alpha_ndcg`)."""
    weights = None if measure["ndeval"] else cube["intent_prob"]
    ideal = greedy_ideal(cube, measure["alpha"], measure.cutoff, weights)
    args = [cube["level"], cube["intent_valid"], ideal, cube["tie_start"]]
    cores = [["rank", "intent"], ["intent"], ["greedy_rank"], ["rank"]]
    if weights is not None:
        args.append(weights)
        cores.append(["intent"])
    return xr.apply_ufunc(T.expected_alpha_ndcg, *args, input_core_dims=cores,
                          kwargs={"cutoff": measure.cutoff, "alpha": measure["alpha"]},
                          **_PARALLEL)


@register("alpha-DCG", params=(ALPHA,), cutoff="required", family="ndeval", reference=_NDEVAL,
          expected=_alpha_dcg_expected, tie_bounds=True,
          formula=r"$\frac{\sum_{r \le l} G(r)\, \mathrm{disc}(r)}{\sum_{r \le l} N (1 - "
                  r"\alpha)^{r - 1} \mathrm{disc}(r)}$")
def _alpha_dcg(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    """alpha-DCG@k = sum_{r<=k} G(r)/log2(r+1) / sum_{r<=k} N (1-alpha)^{r-1}/log2(r+1), with
    novelty gains G(r) = sum_s rel_s(d_r) (1-alpha)^{c_s(r)} (ndeval's normalisation)."""
    return _run_only(K.alpha_dcg, cube, measure, alpha=measure["alpha"])


@register("alpha-nDCG", params=(ALPHA, NDEVAL), cutoff="required", family="ndeval",
          expected=_alpha_ndcg_expected, tie_bounds=True,
          reference=f"{_NDEVAL}; probability-weighted form: Sakai & Song, SIGIR 2011",
          formula=r"$\frac{\sum_{r \le l} G(r)\, \mathrm{disc}(r)}{\sum_{r \le l} G^*(r)\, "
                  r"\mathrm{disc}(r)}$, $G^*$ of the greedy ideal list; `ndeval=False` weights "
                  r"intent $s$'s terms by $\Pr(s \mid q)$ and uses graded levels")
def _alpha_ndcg(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    """alpha-nDCG@k = novelty DCG@k / DCG@k of the greedy ideal list (ties to the largest
    docno, as ndeval). ndeval=False weights intent s's novelty gain by Pr(s|q)."""
    weights = None if measure["ndeval"] else cube["intent_prob"]
    return _against_ideal(K.alpha_ndcg, cube, measure, measure.cutoff, weights)


@register("ERR-IA", params=(ALPHA, NDEVAL, GAIN, HIGHEST, HIGHEST_GAIN, PART_DECIMALS),
          cutoff="required",
          family="ndeval", tie_bounds=True, unused=_GRADED_ONLY,
          reference=f"{_NDEVAL}; Chapelle et al., CIKM 2009 (graded form)",
          formula=r"$\frac{\sum_{r \le l} G(r) / r}{\sum_{r \le l} N (1 - \alpha)^{r - 1} / r}$; "
                  + _IA_NDEVAL_FALSE.format(m=r"\mathrm{ERR}") + r" with graded stop probabilities "
                  r"$\frac{\mathrm{gv}(x)}{\mathrm{gv}_{\max} + 1}$ (`highest=own`: intent "
                  "$i$'s own highest gain, NTCIREVAL's IA-ERR)")
def _err_ia(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    """ERR-IA@k (ndeval) = sum_{r<=k} G(r)/r / sum_{r<=k} N (1-alpha)^{r-1}/r. ndeval=False:
    sum_i Pr(i|q) ERR_i@k with graded stop probabilities gv(x)/(gv_max+1), gv_max the gain
    of level H or, with highest=own, of intent i's own highest level (NTCIREVAL's IA-ERR)."""
    if not measure["ndeval"]:
        return _graded_ia(cube, measure, G.err_at, measure["part_decimals"],
                          table=gain_table(cube, measure), own=measure["highest"] == "own")
    return _run_only(K.err_ia, cube, measure, alpha=measure["alpha"])


@register("nERR-IA", params=(ALPHA, NDEVAL, GAIN, HIGHEST, HIGHEST_GAIN, PART_DECIMALS),
          cutoff="required",
          family="ndeval", tie_bounds=True, unused=_GRADED_ONLY,
          reference=f"{_NDEVAL}; Sakai & Song, SIGIR 2011 (graded form)",
          formula=r"$\frac{\sum_{r \le l} G(r) / r}{\sum_{r \le l} G^*(r) / r}$; "
                  + _IA_NDEVAL_FALSE.format(m=r"\mathrm{nERR}"))
def _nerr_ia(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    """nERR-IA@k (ndeval) = sum G(r)/r of the run / of the greedy ideal list, top k.
    ndeval=False: sum_i Pr(i|q) nERR_i@k, each intent with its own ideal list (gv_max as
    ERR-IA)."""
    if not measure["ndeval"]:
        return _graded_ia(cube, measure, G.nerr, measure["part_decimals"],
                          table=gain_table(cube, measure), own=measure["highest"] == "own")
    return _against_ideal(K.nerr_ia, cube, measure, measure.cutoff)


@register("NRBP", params=(ALPHA, NRBP_BETA), cutoff="none", family="ndeval",
          tie_bounds=True,
          reference=f"{_NDEVAL}; Clarke, Kolla & Vechtomova, ICTIR 2009",
          formula=r"$\frac{1 - (1 - \alpha) \beta}{N} \sum_r \beta^{r - 1} G(r)$ over the whole "
                  "list")
def _nrbp(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    """NRBP = (1 - (1-alpha) beta) / N sum_r beta^{r-1} G(r) over the whole list."""
    return _run_only(K.nrbp, cube, measure, alpha=measure["alpha"], beta=measure["beta"])


@register("nNRBP", params=(ALPHA, NRBP_BETA), cutoff="none", family="ndeval",
          tie_bounds=True,
          reference=_NDEVAL,
          formula="NRBP divided by NRBP of the greedy ideal list")
def _nnrbp(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    """nNRBP = NRBP / NRBP of the full greedy ideal list."""
    depth = K.nrbp_ideal_depth(measure["beta"], cube.sizes["intent"], cube.sizes["doc"])
    return _against_ideal(K.nnrbp, cube, measure, depth, beta=measure["beta"])


def _relevant_per_intent(cube: xr.Dataset) -> xr.DataArray:
    return xr.apply_ufunc(count_relevant, cube["qrels_level"], input_core_dims=[["doc"]])


@register("MAP-IA", params=(NDEVAL,), cutoff="none", family="ndeval",
          tie_bounds=True,
          reference=f"{_NDEVAL}; Agrawal et al., WSDM 2009",
          formula=r"$\frac{1}{N} \sum_s \mathrm{AP}_s$ over the whole list; "
                  + _IA_NDEVAL_FALSE.format(m=r"\mathrm{AP}") + " (= AP-IA)")
def _map_ia(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    """MAP-IA = (1/N) sum_s AP_s over the whole list (ndeval); ndeval=False:
    sum_i Pr(i|q) AP_i (= AP-IA)."""
    if not measure["ndeval"]:
        return _graded_ia(cube, measure, G.q_measure, table=gain_table(cube), beta=0.0)
    return xr.apply_ufunc(K.map_ia, levels_to(cube, None), cube["intent_valid"],
                          _relevant_per_intent(cube),
                          input_core_dims=[["rank", "intent"], ["intent"], ["intent"]],
                          kwargs={"cutoff": None}, **_PARALLEL)


@register("P-IA", params=(NDEVAL,), cutoff="required", family="ndeval",
          tie_bounds=True,
          reference=f"{_NDEVAL}; Agrawal et al., WSDM 2009",
          formula=r"relevant (document, intent) pairs in the top $l$ divided by $l N$; "
                  + _IA_NDEVAL_FALSE.format(m=r"\mathrm{P}"))
def _p_ia(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    """P-IA@k = relevant (document, intent) pairs in the top k / (k N) (ndeval);
    ndeval=False: sum_i Pr(i|q) P_i@k."""
    if not measure["ndeval"]:
        return _graded_ia(cube, measure, G.precision)
    return _run_only(K.p_ia, cube, measure)

