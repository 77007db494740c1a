"""Traditional graded measures and their intent-aware forms.

Each measure is declared once: the adhoc measure (one intent per topic) and, where it
has one, its intent-aware form ``M-IA = sum_i Pr(i|q) M_i`` in which every
intent is scored against its own ideal list (Agrawal et al., WSDM 2009; Sakai & Song, SIGIR 2011).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import xarray as xr

from ..errors import MeasureError
from ..kernels import graded as K
from ..kernels import ties as T
from .common import (BETA, DENOMINATOR, GAIN, HIGHEST, HIGHEST_GAIN, PART_DECIMALS,
                     PERSISTENCE, gain_table, highest_level, intent_aware, per_intent,
                     per_intent_over_ties, single_intent)
from .registry import Measure, Param, numbers, register

Options = Callable[[xr.Dataset, Measure], dict]

_IA_REFERENCE = "Agrawal et al., WSDM 2009; Sakai & Song, SIGIR 2011"


def _optional_numbers(value):
    return None if value is None or value == "None" else numbers(value)


THRESHOLDS = Param("thresholds", None, "probability g_j that a user's relevance threshold is "
                   "level j (j = 1..H); default uniform 1/H", _optional_numbers)
Q_VALUES = Param("q", None, "explicit q_1..q_H, the probability a level-x document counts as "
                 "relevant (overrides thresholds)", _optional_numbers)


_CORE_DIMS = {"level": ["rank"], "judged": ["rank"], "slot": ["rank"], "length": [],
              "ideal_level": ["ideal_rank"], "qrels_level": ["doc"], "qrels_assessed": ["doc"]}
"""The judged cube's variables a kernel may read, with their core dimensions."""

LEVELS = ("level", "ideal_level")
"""The inputs of most kernels: the run's levels and the ideal list."""


def apply_inputs(cube: xr.Dataset, kernel: Callable, inputs: Sequence[str],
                 **kwargs) -> xr.DataArray:
    """Apply ``kernel`` to the judged cube's variables ``inputs`` (names of
    :data:`_CORE_DIMS`, passed in that order), each intent apart: ``(run, topic, intent)``."""
    return xr.apply_ufunc(
        kernel, *(cube[name] for name in inputs),
        input_core_dims=[_CORE_DIMS[name] for name in inputs], kwargs=kwargs,
        dask="parallelized", output_dtypes=[np.float64],
        dask_gufunc_kwargs={"allow_rechunk": True},
    )


def intent_aware_formula(name: str, cutoff: str) -> str:
    """The TeX formula of the intent-aware form of the measure ``name``."""
    at = "" if cutoff == "none" else "@l"
    return rf"$\sum_i \Pr(i \mid q)\, \text{{{name}}}_i{at}$"


def _declare(name: str, kernel: Callable, *, params: Sequence[Param], cutoff: str,
             reference: str, doc: str, formula: str, options: Options,
             intent_aware_form: bool = False, aliases: Sequence[str] = (),
             inputs: Sequence[str] | None = None, expected: Callable | None = None,
             tie_bounds: bool = True, tie_invariant: bool = False) -> None:
    """Register ``name`` (adhoc) and optionally ``name-IA`` computed by one kernel.

    ``doc`` is the plain-text definition and ``formula`` the same in TeX; ``name-IA`` gets
    both from the family rule ``sum_i Pr(i|q) name_i``.

    ``inputs`` None: the kernel takes the levels cut at the measure's cutoff, the ideal
    list and ``cutoff`` (:func:`~xdiv.measures.common.per_intent`); else the kernel takes
    the judged cube's variables ``inputs`` (:func:`apply_inputs`) and what ``options``
    gives.

    Over tie orders (:mod:`xdiv.core.ties`): ``expected``, a kernel of
    :mod:`xdiv.kernels.ties` taking the levels, the ideal list, ``tie_start``, ``cutoff``
    and what ``options`` gives, computes the exact expectation; ``tie_invariant``
    measures do not depend on the order at all; ``tie_bounds`` says the measure grows
    when a more relevant document moves up (see
    :attr:`~xdiv.measures.registry.MeasureDef.tie_bounds`).
    """
    def per_intent_values(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
        if inputs is None:
            return per_intent(cube, kernel, measure.cutoff, **options(cube, measure))
        return apply_inputs(cube, kernel, inputs, **options(cube, measure))

    def per_intent_expected(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
        return per_intent_over_ties(cube, expected, measure.cutoff, **options(cube, measure))

    def compute(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
        return single_intent(cube, per_intent_values(cube, measure), measure)

    def compute_expected(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
        return single_intent(cube, per_intent_expected(cube, measure), measure)

    compute.__doc__ = doc
    over_ties = compute if tie_invariant else compute_expected if expected else None
    register(name, params=params, cutoff=cutoff, family="graded", reference=reference,
             formula=formula, aliases=aliases, expected=over_ties,
             tie_bounds=tie_bounds)(compute)
    if not intent_aware_form:
        return

    def compute_ia(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
        return intent_aware(cube, per_intent_values(cube, measure), measure["part_decimals"])

    def compute_ia_expected(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
        if measure["part_decimals"] is not None:
            raise MeasureError(f"{measure.name}: the intents' values rounded to part_decimals "
                               "have no exact expectation over tie orders; use ties='range' "
                               "or leave part_decimals out")
        return intent_aware(cube, per_intent_expected(cube, measure))

    compute_ia.__doc__ = (f"Intent-aware {name}: sum_i Pr(i|q) {name}_i, each intent i scored "
                          f"with its own levels and its own ideal list.")
    register(f"{name}-IA", params=(*params, PART_DECIMALS), cutoff=cutoff,
             family="intent-aware",
             reference=f"{_IA_REFERENCE}; {reference}",
             formula=intent_aware_formula(name, cutoff),
             expected=compute_ia_expected if expected else None,
             tie_bounds=tie_bounds)(compute_ia)


declare = _declare
"""The family's declaration helper, public for the families declared alike
(:mod:`xdiv.measures.ntcir`)."""


def _table(cube, measure):
    return {"table": gain_table(cube, measure)}


def _table_beta(cube, measure):
    return {"table": gain_table(cube, measure), "beta": measure["beta"]}


def _ap(cube, measure):
    return {"table": gain_table(cube, measure), "beta": 0.0,
            "denominator": measure["denominator"]}


def _rbp(cube, measure):
    return {"table": gain_table(cube, measure), "p": measure["p"],
            "own": measure["highest"] == "own"}


def _stop(cube, measure):
    return {"table": gain_table(cube, measure), "own": measure["highest"] == "own"}


def _none(cube, measure):
    return {}


def _cutoff(cube, measure):
    return {"cutoff": measure.cutoff}


def gap_q(cube: xr.Dataset, measure: Measure) -> np.ndarray:
    """``q_0 = 0, q_1, ..., q_H`` for GAP from the ``q`` or ``thresholds`` parameter."""
    highest = max(highest_level(cube, measure), 1)
    if measure["q"] is not None:
        q = np.asarray(measure["q"])
        if len(q) != highest or (q > 1).any():
            raise MeasureError(f"{measure.name}: q needs {highest} values in [0, 1]")
        return np.r_[0.0, q]
    g = (np.full(highest, 1.0 / highest) if measure["thresholds"] is None
         else np.asarray(measure["thresholds"]))
    if len(g) != highest or abs(g.sum() - 1.0) > 1e-9:
        raise MeasureError(f"{measure.name}: thresholds need {highest} probabilities "
                           "summing to 1")
    return np.r_[0.0, np.cumsum(g)]


def _gap(cube, measure):
    return {"q": gap_q(cube, measure)}


_declare("nDCG", K.ndcg, params=(GAIN, HIGHEST), cutoff="optional", options=_table,
         expected=T.expected_ndcg,
         intent_aware_form=True, aliases=("MSnDCG",),
         reference="Järvelin & Kekäläinen, TOIS 2002; discount 1/log2(r+1) "
                   "(Burges et al., ICML 2005)",
         doc="nDCG@l = sum_{r<=l} g(r)/log2(r+1) / sum_{r<=l} g*(r)/log2(r+1), g* from the "
             "ideal list (all judged relevant documents by level).",
         formula=r"$\frac{\sum_{r \le l} g(r)\, \mathrm{disc}(r)}{\sum_{r \le l} g^*(r)\, "
                 r"\mathrm{disc}(r)}$")
_declare("DCG", K.dcg_at, params=(GAIN, HIGHEST), cutoff="optional", options=_table,
         reference="Järvelin & Kekäläinen, TOIS 2002; discount 1/log2(r+1) (Burges et al., "
                   "ICML 2005); trec_eval 10.0 dcg (gain=linear, no cutoff)",
         doc="DCG@l = sum_{r<=l} g(r)/log2(r+1), nDCG's numerator (not normalised: its "
             "scale depends on the topic's relevant documents).",
         formula=r"$\sum_{r \le l} g(r)\, \mathrm{disc}(r)$")
_declare("IDCG", K.ideal_dcg_at, params=(GAIN, HIGHEST), cutoff="optional", options=_table,
         tie_invariant=True,
         reference="Järvelin & Kekäläinen, TOIS 2002; trec_eval 10.0 ideal_dcg (gain=linear, "
                   "no cutoff)",
         doc="IDCG@l = sum_{r<=l} g*(r)/log2(r+1), the DCG@l of the ideal list (all judged "
             "relevant documents by level), nDCG's denominator; the same for every run.",
         formula=r"$\sum_{r \le l} g^*(r)\, \mathrm{disc}(r)$")
_declare("Q", K.q_measure, params=(BETA, GAIN, HIGHEST), cutoff="optional",
         options=_table_beta, intent_aware_form=True, expected=T.expected_q,
         reference="Sakai, EVIA 2007 / NTCIR",
         doc="Q@l = (1/min(l,R)) sum_{r<=l} J(r) BR(r), BR(r) = (C(r) + beta cg(r)) / "
             "(r + beta cg*(r)); uncut Q divides by R.",
         formula=r"$\frac{1}{\min(l, R)} \sum_{r \le l} J(r)\, BR(r)$; without a cutoff "
                 r"$\frac{1}{R}$ over the whole list")
_declare("AP", K.q_measure, params=(DENOMINATOR, GAIN, HIGHEST), cutoff="optional",
         options=_ap, intent_aware_form=True, expected=T.expected_q,
         reference="non-interpolated average precision as trec_eval's map / map_cut and "
                   "NTCIREVAL's AP; Q with beta = 0",
         doc="AP@l = (1/min(l,R)) sum_{r<=l} J(r) C(r)/r; uncut AP divides by R. "
             "denominator=R gives trec_eval's map_cut.",
         formula=r"$\frac{1}{\min(l, R)} \sum_{r \le l} J(r) \frac{C(r)}{r}$ (Q with $\beta = "
                 "0$); `denominator=R` divides by $R$ (`trec_eval`'s `map_cut`)")
_declare("P+", K.p_plus, params=(BETA, GAIN, HIGHEST), cutoff="optional", options=_table_beta,
         tie_bounds=False,
         reference="Sakai, IPSJ TOD 2007; Sakai, JIP 2013",
         doc="P+@l = (1/C(rp)) sum_{r<=rp} J(r) BR(r), rp = first rank holding the highest "
             "level present in the top l; 0 without relevant documents in the top l.",
         formula=r"$\frac{1}{C(r_p)} \sum_{r \le r_p} J(r)\, BR(r)$, $r_p$ the first rank holding "
                 "the highest level present in the top $l$; 0 without a relevant document there")
_declare("ERR", K.err_at, params=(GAIN, HIGHEST, HIGHEST_GAIN), cutoff="optional",
         options=_stop,
         reference="Chapelle et al., CIKM 2009",
         doc="ERR@l = sum_{r<=l} (1/r) Pr(r) prod_{k<r} (1 - Pr(k)), Pr = gv(x)/(gv(H)+1) "
             "(= (2^x-1)/2^H with exponential gains).",
         formula=r"$\sum_{r \le l} \frac{1}{r}\, p(r) \prod_{k < r} (1 - p(k))$, $p(r) = "
                 r"\frac{\mathrm{gv}(x(r))}{\mathrm{gv}(H) + 1}$ ($= (2^{x} - 1)/2^H$ with "
                 "`gain=exp`)")
_declare("nERR", K.nerr, params=(GAIN, HIGHEST, HIGHEST_GAIN), cutoff="optional",
         options=_stop,
         reference="Chapelle et al., CIKM 2009; Sakai & Song, SIGIR 2011",
         doc="nERR@l = ERR@l / ERR@l of the ideal list.",
         formula="ERR@$l$ divided by ERR@$l$ of the ideal list")
_declare("GAP", K.gap, params=(THRESHOLDS, Q_VALUES, HIGHEST), cutoff="optional",
         options=_gap, intent_aware_form=True,
         reference="Robertson, Kanoulas & Yilmaz, SIGIR 2010; GAP@l as NTCIREVAL",
         doc="GAP = sum_k (1/k) sum_{kappa<=k} q_{min(x_kappa, x_k)} / sum_x R_x q_x, "
             "q_x = sum_{j<=x} g_j (threshold distribution g, uniform by default); GAP@l "
             "sums k <= l and divides by the sum of q over the ideal list's top l "
             "(NTCIREVAL's q_x is proportional to x(x+1)).",
         formula=r"$\frac{\sum_{k} \frac{1}{k} \sum_{\kappa \le k} q_{\min(x(\kappa), "
                 r"x(k))}}{\sum_{x = 1}^{H} R_x\, q_x}$, $q_x = \sum_{j \le x} g_j$ ($g_j$: "
                 "probability that a user's relevance threshold is level $j$; $R_x$: documents "
                 "of level $x$); GAP@$l$: $k \\le l$, the denominator over the ideal list's "
                 "top $l$")
_declare("nGAP", K.ngap, params=(THRESHOLDS, Q_VALUES, HIGHEST), cutoff="required",
         options=_gap, intent_aware_form=True,
         reference="Sakai & Song, SIGIR 2011 (nGAP reconstructed: GAP over the ideal GAP)",
         doc="nGAP@l = GAP numerator over the top l / the same numerator over the ideal "
             "list's top l.",
         formula="GAP's numerator over the top $l$ divided by the same over the ideal list's top "
                 "$l$")
_declare("P", K.precision, params=(), cutoff="required", options=_none,
         expected=T.expected_precision,
         reference="Cleverdon, Cranfield tests; trec_eval P",
         doc="P@l = C(l) / l (lists shorter than l count as l).",
         formula="$C(l) / l$ (a list shorter than $l$ counts as $l$)")
_declare("RR", K.reciprocal_rank, params=(), cutoff="optional", options=_none,
         reference="Voorhees, TREC-8 QA track 1999; trec_eval recip_rank",
         doc="RR = 1 / rank of the first relevant document (0 when none is in the list or "
             "top l).",
         formula="$1 / r_1$, $r_1$ the rank of the first relevant document (0 if none in the "
                 "list or the top $l$)")
_declare("Hit", K.hit, params=(), cutoff="required", options=_none,
         reference="success at l (trec_eval success)",
         doc="Hit@l = 1 if a relevant document is in the top l, else 0.",
         formula="1 if $C(l) > 0$, else 0")
_declare("RBP", K.rbp, params=(PERSISTENCE, GAIN, HIGHEST, HIGHEST_GAIN), cutoff="optional",
         options=_rbp, expected=T.expected_rbp, intent_aware_form=True,
         reference="Moffat & Zobel, TOIS 2008 (graded form)",
         doc="RBP = (1-p) sum_r p^(r-1) gv(x_r) / gv(H).",
         formula=r"$(1 - p) \sum_r p^{r - 1}\, \frac{g(r)}{\mathrm{gv}(H)}$")

# trec_eval's staples: documents judged, R-precision, bpref and the counts trec_eval prints
_COUNT = ("an exact whole number, stored as a float like every score (NaN, as every measure, "
          "on topics without relevant documents)")
_declare("Rprec", K.r_precision, params=(), cutoff="none", options=_none, inputs=LEVELS,
         reference="Buckley & Voorhees, 'Retrieval System Evaluation', in TREC: Experiment "
                   "and Evaluation in Information Retrieval, MIT Press 2005; trec_eval Rprec",
         doc="R-prec = C(R) / R: precision at rank R, R = the number of relevant documents; "
             "ranks past the end of the run count as non-relevant.",
         formula="$C(R) / R$, precision at rank $R$ (ranks past the end of the run count as not "
                 "relevant)")
_declare("bpref", K.bpref, params=(), cutoff="none", options=_none,
         inputs=("level", "slot", "qrels_level", "qrels_assessed"),
         reference="Buckley & Voorhees, SIGIR 2004; trec_eval bpref",
         doc="bpref = (1/R) sum_{relevant r} (1 - min(n(r), R) / min(N, R)), n(r) = judged "
             "non-relevant documents ranked above r, N = judged non-relevant documents "
             "(level 0); unjudged documents are skipped, and so, as in trec_eval, are "
             "documents whose qrels levels are all negative (TREC's spam -2).",
         formula=r"$\frac{1}{R} \sum_{r:\, J(r) = 1} \left(1 - \frac{\min(n(r), R)}{\min(N, "
                 r"R)}\right)$, $n(r)$ the judged non-relevant documents ranked above $r$, $N$ "
                 "all judged non-relevant documents; unjudged documents, and as in trec_eval "
                 "those whose levels are all negative, are skipped")
_declare("infAP", K.inferred_ap, params=(), cutoff="none", options=_none,
         tie_bounds=False,
         inputs=("level", "slot", "qrels_level", "qrels_assessed"),
         reference="Yilmaz & Aslam, CIKM 2006; trec_eval infAP",
         doc="infAP = (1/R) sum_{relevant k} E[prec@k], E[prec@1] = 1, E[prec@k] = 1/k + "
             "((k-1)/k) (d(k-1)/(k-1)) (rel(k-1) + eps) / (rel(k-1) + nonrel(k-1) + "
             "2 eps), eps = 1e-5: d(k-1) the number of pooled documents (with a qrels "
             "line) above k, rel and nonrel the judged relevant and non-relevant ones; a "
             "document whose levels are all negative (-1: pooled but not sampled) is pooled "
             "but unjudged, one without a qrels line is outside the pool.",
         formula=r"$\frac{1}{R} \sum_{k:\, J(k) = 1} \left(\frac{1}{k} + \frac{k - 1}{k} "
                 r"\cdot \frac{d_{k-1}}{k - 1} \cdot \frac{r_{k-1} + \varepsilon}"
                 r"{r_{k-1} + n_{k-1} + 2\varepsilon}\right)$ (1 at $k = 1$), "
                 r"$d_{k-1}$ the number of pooled documents (with a qrels line) above $k$, "
                 r"$r_{k-1}$, $n_{k-1}$ the judged relevant and non-relevant ones, "
                 r"$\varepsilon = 10^{-5}$; documents whose levels are all negative (-1: "
                 "pooled, not sampled) are pooled but unjudged")
_declare("Judged", K.judged_share, params=(), cutoff="optional", options=_cutoff,
         tie_bounds=False,
         inputs=("judged", "length", "ideal_level"),
         reference="MacAvaney, Macdonald & Ounis, ECIR 2022 (ir_measures Judged)",
         doc="Judged@l = (documents of the top l with a qrels line, whatever its level) / "
             "min(l, n), n = the number retrieved; uncut: the judged share of the whole run.",
         formula=r"the share of the top $\min(l, n)$ documents that are judged, $n$ the number "
                 "retrieved (without a cutoff: of the whole run)")
_declare("NumRet", K.retrieved_count, params=(), cutoff="none", options=_none,
         tie_invariant=True,
         inputs=("length", "ideal_level"), reference="trec_eval num_ret",
         doc=f"NumRet = the number of documents retrieved: {_COUNT}.",
         formula="$n$, the number of documents retrieved")
_declare("NumRel", K.relevant_count, params=(), cutoff="none", options=_none, inputs=LEVELS,
         tie_invariant=True,
         reference="trec_eval num_rel",
         doc=f"NumRel = R, the number of judged relevant documents: {_COUNT}.",
         formula="$R$, the number of judged relevant documents")
_declare("NumRelRet", K.relevant_retrieved_count, params=(), cutoff="none", options=_none,
         tie_invariant=True,
         inputs=LEVELS, reference="trec_eval num_rel_ret",
         doc=f"NumRelRet = the number of relevant documents retrieved: {_COUNT}.",
         formula="$C(n)$, the number of relevant documents retrieved")
