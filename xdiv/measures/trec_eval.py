"""trec_eval 10.0's per-topic measures that the other families do not already compute.

Each is declared with trec_eval's definition and parameters (relevance: level >= 1;
gain of ``ndcg_rel``, ``Rndcg`` and ``G``: the level, trec_eval's default) as a
single-intent measure (family ``graded``: it takes ``adhoc`` and reads diversity qrels
through it), computed by :mod:`xdiv.kernels.trec_eval_measures`. trec_eval's names
(``iprec_at_recall_0.10``, ``Rprec_mult_0.20``, ``set_F``, ``recall_10``, ...) are
translated to them in :mod:`xdiv.measures.translations`. As every measure of the
registry, they are NaN on topics without relevant documents (trec_eval prints 0).

References: trec_eval 10.0 (``m_*.c``; Buckley & Voorhees, "Retrieval System Evaluation",
in *TREC: Experiment and Evaluation in Information Retrieval*, MIT Press 2005).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import xarray as xr

from ..kernels import trec_eval_measures as K
from .common import single_intent
from .graded import apply_inputs
from .registry import Measure, Param, real, register, whole

_TREC = "trec_eval 10.0"
_BV = ("Buckley & Voorhees, 'Retrieval System Evaluation', in TREC: Experiment and "
       "Evaluation in Information Retrieval, MIT Press 2005")
_SEQ = ("level", "ideal_level", "length")
_JUDGED = ("level", "ideal_level", "length", "slot", "qrels_assessed")


def _declare(name: str, kernel: Callable, inputs: Sequence[str], *, reference: str,
             doc: str, formula: str, params: Sequence[Param] = (), cutoff: str = "none",
             options: Callable[[Measure], dict] = lambda m: {},
             invariant: bool = False) -> None:
    """Register ``name``: ``kernel`` applied to the judged cube's ``inputs`` with
    ``options(measure)``; ``invariant`` measures do not depend on the order of tied
    documents."""
    def compute(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
        kwargs = options(measure)
        if cutoff != "none":
            kwargs["cutoff"] = measure.cutoff
        return single_intent(cube, apply_inputs(cube, kernel, inputs, **kwargs), measure)

    compute.__doc__ = doc
    register(name, params=params, cutoff=cutoff, family="graded", reference=reference,
             formula=formula, expected=compute if invariant else None)(compute)


RECALL = Param("recall", 0.0, "recall level r in [0, 1]: the k = lround(r R)-th relevant "
               "document (trec_eval's iprec_at_recall_r)", real(0.0, 1.0))
MULTIPLE = Param("m", 1.0, "multiple of R: precision at (long)(m R + 0.9) ranks "
                 "(trec_eval's Rprec_mult_m)", real(0.0))
F_WEIGHT = Param("x", 1.0, "trec_eval's set_F parameter: the weight of recall against "
                 "precision in (x+1) P R / (x P + R) (x itself, not its square)", real(0.0))
RBP_P = Param("p", 0.9, "persistence (trec_eval's rbp_resid default 0.9)",
              real(0.0, 1.0, closed=(False, False)))
UTILITY = (Param("a", 1.0, "utility: gain of a relevant retrieved document", real()),
           Param("b", -1.0, "utility: gain of a non-relevant retrieved document", real()),
           Param("c", 0.0, "utility: gain of a relevant document not retrieved", real()),
           Param("d", 0.0, "utility: gain of a non-relevant document not retrieved",
                 real()),
           Param("N", 0, "utility: documents in the collection (trec_eval's -N)", whole()))

_declare("IPrec", K.interpolated_precision, _SEQ, params=(RECALL,),
         options=lambda m: {"recall": m["recall"]},
         reference=f"interpolated precision (Salton & McGill 1983); {_TREC} "
                   "iprec_at_recall",
         doc="IPrec(recall=r) = max_{k' >= k} P@rank(k'), the highest precision at or after "
             "the rank of the k-th relevant document, k = lround(r R) (k <= 0: the first); "
             "0 when fewer than k relevant documents are retrieved.",
         formula=r"$\max_{j \ge r_k} C(j)/j$, $r_k$ the rank of the $k$-th relevant "
                 r"document, $k = \mathrm{lround}(r R)$ (at least 1); 0 if fewer than $k$ "
                 "are retrieved")
_declare("11pt-AP", K.interpolated_average, _SEQ,
         reference=f"11-point interpolated average precision (Salton & McGill 1983); "
                   f"{_TREC} 11pt_avg",
         doc="11pt-AP = (1/11) sum_{r = 0, 0.1, ..., 1} IPrec(recall=r).",
         formula=r"$\frac{1}{11} \sum_{r \in \{0, 0.1, \ldots, 1\}} "
                 r"\mathrm{IPrec}(r)$")
_declare("Rprec-mult", K.r_precision_multiple, _SEQ, params=(MULTIPLE,),
         options=lambda m: {"m": m["m"]},
         reference=f"{_BV}; {_TREC} Rprec_mult",
         doc="Rprec-mult(m) = C(k) / k at k = (long)(m R + 0.9) ranks (ranks past the end "
             "of the run non-relevant); 0 when k < 1. m = 1 is R-precision.",
         formula=r"$C(k)/k$, $k = \lfloor m R + 0.9 \rfloor$ (0 if $k < 1$)")
_declare("Recall", K.recall_at, ("level", "ideal_level"), cutoff="required",
         reference=f"{_TREC} recall",
         doc="Recall@l = C(l) / R, the share of the relevant documents in the top l.",
         formula="$C(l) / R$")
_declare("RelP", K.relative_precision_at, ("level", "ideal_level"), cutoff="required",
         reference=f"{_TREC} relative_P",
         doc="RelP@l = C(l) / min(l, R): precision at l relative to the best possible.",
         formula=r"$C(l) / \min(l, R)$")
_declare("Unj", K.unjudged_at, _JUDGED, cutoff="required",
         reference=f"{_TREC} unj",
         doc="Unj@l = (documents of the top l without a judgment: no qrels line, or only "
             "negative levels) / l.",
         formula=r"$U(l) / l$, $U(l)$ the unjudged documents of the top $l$ (no qrels line, "
                 "or only negative levels)")
_declare("binG", K.binary_g, ("level", "ideal_level"),
         reference=f"{_TREC} binG",
         doc="binG = (1/R) sum_{relevant r} 1 / log2(2 + the non-relevant documents above "
             "r).",
         formula=r"$\frac{1}{R} \sum_{r:\, J(r) = 1} \frac{1}{\log_2(2 + r - C(r))}$")
_declare("G", K.gain_g, _SEQ,
         reference=f"{_TREC} G",
         doc="G = sum_i g(i) / log2(2 + cost(i) - cg(i)) / sum of the ideal gains, g = "
             "level, cg(i) the run's gains to rank i, cost(i) the ideal gains to rank i "
             "(each at least 1).",
         formula=r"$\frac{\sum_{i} g(i) / \log_2(2 + \mathrm{cost}(i) - cg(i))}{\sum_j "
                 r"g^*(j)}$, $g$ = level, $\mathrm{cost}(i) = \sum_{j \le i} \max(g^*(j), 1)$")
_declare("nDCG-rel", K.ndcg_rel, _SEQ,
         reference=f"Järvelin & Kekäläinen, TOIS 2002; {_TREC} ndcg_rel",
         doc="nDCG-rel = (1/R) [sum_{relevant retrieved r} DCG@r / idealDCG@min(r, R) + "
             "(R - C(n)) nDCG(run)], gain = level: nDCG averaged over the relevant "
             "documents.",
         formula=r"$\frac{1}{R}\left[\sum_{r:\, J(r) = 1} \frac{DCG@r}{DCG^*@\min(r, R)} + "
                 r"(R - C(n)) \frac{DCG@n}{DCG^*@R}\right]$, gain = level")
_declare("RnDCG", K.r_ndcg, _SEQ,
         reference=f"Järvelin & Kekäläinen, TOIS 2002; {_TREC} Rndcg",
         doc="RnDCG = mean over the ranks p where the ideal gain drops (p <= R) of "
             "DCG@min(p, n) / idealDCG@p, with DCG@n / idealDCG@R added when n > R + 1; "
             "gain = level.",
         formula=r"mean of $DCG@\min(p, n) / DCG^*@p$ over the ranks $p \le R$ where the "
                 r"ideal gain drops, and of $DCG@n / DCG^*@R$ when $n > R + 1$; gain = level")
_declare("SetP", K.set_measure, _SEQ, options=lambda m: {"which": "P"}, invariant=True,
         reference=f"{_TREC} set_P",
         doc="SetP = C(n) / n: precision of the whole retrieved set.",
         formula="$C(n) / n$")
_declare("SetRelP", K.set_measure, _SEQ, options=lambda m: {"which": "relative_P"},
         invariant=True, reference=f"{_TREC} set_relative_P",
         doc="SetRelP = C(n) / min(n, R).",
         formula=r"$C(n) / \min(n, R)$")
_declare("SetR", K.set_measure, _SEQ, options=lambda m: {"which": "recall"},
         invariant=True, reference=f"{_TREC} set_recall",
         doc="SetR = C(n) / R: recall of the whole retrieved set.",
         formula="$C(n) / R$")
_declare("SetAP", K.set_measure, _SEQ, options=lambda m: {"which": "map"}, invariant=True,
         reference=f"{_TREC} set_map",
         doc="SetAP = SetP x SetR = C(n)^2 / (n R).",
         formula=r"$C(n)^2 / (n R)$")
_declare("SetF", K.set_measure, _SEQ, params=(F_WEIGHT,),
         options=lambda m: {"which": "F", "x": m["x"]}, invariant=True,
         reference=f"van Rijsbergen, Information Retrieval 1979; {_TREC} set_F",
         doc="SetF(x) = (x + 1) P R' / (x P + R'), P = SetP, R' = SetR; 0 without a "
             "relevant document retrieved.",
         formula=r"$\frac{(x + 1)\, P\, R'}{x P + R'}$, $P = C(n)/n$, $R' = C(n)/R$")
_declare("Utility", K.utility, _SEQ, params=UTILITY,
         options=lambda m: {"a": m["a"], "b": m["b"], "c": m["c"], "d": m["d"],
                            "num_docs": m["N"]}, invariant=True,
         reference=f"TREC filtering track utility (Hull & Robertson, TREC-8 1999); "
                   f"{_TREC} utility",
         doc="Utility = a C(n) + b (n - C(n)) + c (R - C(n)) + d (N + C(n) - n - R).",
         formula=r"$a\, C(n) + b\, (n - C(n)) + c\, (R - C(n)) + d\, (N + C(n) - n - R)$")
_declare("NumNonrelJudgedRet", K.judged_nonrelevant_retrieved, _JUDGED, invariant=True,
         reference=f"{_TREC} num_nonrel_judged_ret",
         doc="NumNonrelJudgedRet = the number of retrieved documents judged non-relevant "
             "(a qrels line of level 0), a whole number stored as a float.",
         formula="the retrieved documents with a qrels line of level 0")
_declare("RBP-resid", K.rbp_residual, _JUDGED, params=(RBP_P,),
         options=lambda m: {"p": m["p"]},
         reference=f"Moffat & Zobel, TOIS 2008; {_TREC} rbp_resid",
         doc="RBP-resid(p) = p^n + (1 - p) sum_{unjudged r} p^(r-1): the RBP weight of the "
             "unjudged ranks and of the ranks past the end; 0 when no retrieved document is "
             "unjudged (trec_eval's convention).",
         formula=r"$p^n + (1 - p) \sum_{r \text{ unjudged}} p^{r - 1}$ (0 without an "
                 "unjudged document)")
_declare("YAAP", K.yaap, ("level", "ideal_level"),
         reference=f"{_TREC} yaap",
         doc="YAAP = log((1 + s) / (1 + R - s)), s = sum_{relevant r} C(r)/r (R x AP).",
         formula=r"$\log \frac{1 + s}{1 + R - s}$, $s = \sum_{r:\, J(r) = 1} C(r)/r$")
