"""The adhoc measures of NTCIREVAL (Sakai's NTCIR evaluation tool) that the classic
families lack: O-measure, P-measure, NCU, EBR, iRBU, the original nDCG of Järvelin &
Kekäläinen and the condensed-list bpref and rpref variants.

Each agrees with ``ntcir_eval compute`` to its printed precision when given NTCIREVAL's
conventions: ``gain`` the ``-g`` values, ``H`` the number of levels ``-g`` declares (ERR,
EBR, iRBU, RBP and rpref divide by the gain of that level), ``p`` RBP's ``-rbp`` (0.95 by
default there) or iRBU's ``-rbup``, ``beta`` ``-beta``, ``gamma`` ``-gamma``, ``logb`` ``-logb``
and, for the measures NTCIREVAL computes on condensed lists (``-j``), the evaluation's
``judged_only``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from ..errors import MeasureError
from ..kernels import common as KC
from ..kernels import diversity as KD
from ..kernels import ntcir as K
from .common import (BETA, GAIN, GAIN_DECIMALS, HIGHEST, HIGHEST_GAIN, PART_DECIMALS,
                     PERSISTENCE, gain_table, highest_level, levels_to)
from .diversity import GAMMA as SHARP_GAMMA
from .diversity import ideal_global_gain, intent_recall, sharp_formula
from .graded import declare
from .registry import Measure, Param, choice, numbers, real, register

_CONDENSED = ("level", "slot", "qrels_level", "qrels_assessed")
"""The judged cube's variables of the condensed-list measures (as bpref)."""

_SAKAI_2007 = "Sakai, IPSJ TOD 2007"
_NCU = "Sakai & Robertson, EVIA 2008"
_CONDENSED_REF = "Sakai, SIGIR 2007 ('Alternatives to bpref'); NTCIREVAL -j"


def _stop_values(value: Any) -> tuple[float, ...] | None:
    return None if value is None or value == "None" else numbers(value)


def _log_base(value: Any) -> float:
    base = real(0.0)(value)
    if 0.0 < base <= 1.0:
        raise ValueError("the log base must be 0 (natural logarithm) or above 1")
    return base


UTILITY = Param("utility", "BR", "utility at the stopping document: `P` = precision C(r)/r, "
                "`BR` = the blended ratio of Q", choice("P", "BR"))
STOP = Param("stop", None, "stop values s of levels 1..H (NTCIREVAL -s); default: the gains",
             _stop_values)
NCU_GAMMA = Param("gamma", 0.95, "the rank-biased stopping distribution's decay: the user "
                  "stops at the k-th relevant document with probability proportional to "
                  "gamma^(k-1)", real(0.0, 1.0, closed=(False, True)))
LOG_BASE = Param("logb", 2.0, "log base b of the discount: ranks r <= b are not discounted, "
                 "rank r > b is divided by log_b(r); 0 takes the natural logarithm",
                 _log_base)


def _table_beta(cube: xr.Dataset, measure: Measure) -> dict:
    return {"table": gain_table(cube, measure), "beta": measure["beta"]}


def _stop_table(cube: xr.Dataset, measure: Measure) -> np.ndarray:
    """The stop values of levels 0..H: the ``stop`` parameter, else the gains."""
    if measure["stop"] is None:
        return gain_table(cube, measure)
    highest = max(highest_level(cube, measure), 1)
    if len(measure["stop"]) < highest or min(measure["stop"][:highest]) <= 0:
        raise MeasureError(f"{measure.name}: stop needs {highest} positive value(s), one per "
                           "level")
    return KC.gain_table(measure["stop"], highest)


def _ncu_gu(cube: xr.Dataset, measure: Measure) -> dict:
    return {**_table_beta(cube, measure), "stop": _stop_table(cube, measure),
            "utility": measure["utility"]}


def _ncu_rb(cube: xr.Dataset, measure: Measure) -> dict:
    return {**_table_beta(cube, measure), "gamma": measure["gamma"],
            "utility": measure["utility"]}


def _ebr(cube: xr.Dataset, measure: Measure) -> dict:
    return {**_table_beta(cube, measure), "own": measure["highest"] == "own"}


def _irbu(cube: xr.Dataset, measure: Measure) -> dict:
    return {"table": gain_table(cube, measure), "p": measure["p"],
            "own": measure["highest"] == "own"}


def _jk(cube: xr.Dataset, measure: Measure) -> dict:
    return {"table": gain_table(cube, measure), "b": measure["logb"]}


def _none(cube: xr.Dataset, measure: Measure) -> dict:
    return {}


def _rpref(form: str):
    def options(cube: xr.Dataset, measure: Measure) -> dict:
        return {"table": gain_table(cube, measure), "form": form}
    return options


_BR = r"$BR(r) = \frac{C(r) + \beta\, cg(r)}{r + \beta\, cg^*(r)}$"

declare("O", K.o_measure, params=(BETA, GAIN, HIGHEST), cutoff="optional",
        options=_table_beta, tie_bounds=False, reference=_SAKAI_2007,
        doc="O-measure = BR(r1), the blended ratio of Q at the first relevant document "
            "(0 without one): BR(r) = (C(r) + beta cg(r)) / (r + beta cg*(r)).",
        formula=rf"$BR(r_1)$, $r_1$ the rank of the first relevant document (0 if none), {_BR}")
declare("P-measure", K.p_measure, params=(BETA, GAIN, HIGHEST), cutoff="optional",
        options=_table_beta, tie_bounds=False, reference=_SAKAI_2007,
        doc="P-measure = BR(rp), rp the first rank holding the highest level present in the "
            "list (0 without a relevant document).",
        formula=rf"$BR(r_p)$, $r_p$ the first rank holding the highest level present in the "
                rf"list (0 without a relevant document), {_BR}")
declare("NCUgu", K.ncu_gu, params=(UTILITY, STOP, BETA, GAIN, HIGHEST), cutoff="none",
        options=_ncu_gu, tie_bounds=False, reference=_NCU,
        doc="NCUgu = sum_r J(r) s(x_r) NU(r) / sum_x R_x s(x): normalised cumulative "
            "utility with the graded-uniform stopping distribution (stop values s, by "
            "default the gains); NU = precision C(r)/r (utility=P) or BR(r) (utility=BR).",
        formula=r"$\frac{\sum_r J(r)\, s(x(r))\, NU(r)}{\sum_x R_x\, s(x)}$, $NU(r) = "
                r"C(r)/r$ (`utility=P`) or $BR(r)$ (`utility=BR`), $s$ the stop values")
declare("NCUrb", K.ncu_rb, params=(UTILITY, NCU_GAMMA, BETA, GAIN, HIGHEST), cutoff="none",
        options=_ncu_rb, tie_bounds=False, reference=_NCU,
        doc="NCUrb = sum_r J(r) gamma^(C(r)-1) NU(r) / sum_{k=1..R} gamma^(k-1): normalised "
            "cumulative utility with the rank-biased stopping distribution; NU as NCUgu.",
        formula=r"$\frac{\sum_r J(r)\, \gamma^{C(r) - 1}\, NU(r)}{\sum_{k=1}^{R} "
                r"\gamma^{k-1}}$, $NU(r) = C(r)/r$ (`utility=P`) or $BR(r)$ (`utility=BR`)")
declare("EBR", K.ebr, params=(BETA, GAIN, HIGHEST, HIGHEST_GAIN), cutoff="optional",
        options=_ebr, tie_bounds=False, intent_aware_form=True,
        reference="Sakai, NTCIREVAL 2018 (ERR's cascade, Chapelle et al., CIKM 2009, with Q's "
                  "blended ratio)",
        doc="EBR@l = sum_{r<=l} BR(r) Pr(r) prod_{k<r} (1 - Pr(k)), Pr = gv(x)/(gv(H)+1): "
            "the expected blended ratio at which ERR's user stops.",
        formula=r"$\sum_{r \le l} BR(r)\, p(r) \prod_{k < r} (1 - p(k))$, $p(r) = "
                r"\frac{\mathrm{gv}(x(r))}{\mathrm{gv}(H) + 1}$")
declare("iRBU", K.irbu, params=(PERSISTENCE, GAIN, HIGHEST, HIGHEST_GAIN), cutoff="optional",
        options=_irbu, tie_bounds=False,
        reference="Amigó, Spina & Carrillo-de-Albornoz, SIGIR 2018 (RBU); intentwise form "
                  "of NTCIREVAL -rbup",
        doc="iRBU@l = sum_{r<=l} p^r Pr(r) prod_{k<r} (1 - Pr(k)), Pr = gv(x)/(gv(H)+1): "
            "ERR's cascade with the utility p^r of stopping at rank r.",
        formula=r"$\sum_{r \le l} p^{r}\, p_s(r) \prod_{k < r} (1 - p_s(k))$, $p_s(r) = "
                r"\frac{\mathrm{gv}(x(r))}{\mathrm{gv}(H) + 1}$")
declare("nDCG-JK", K.jk_ndcg, params=(LOG_BASE, GAIN, HIGHEST), cutoff="optional",
        options=_jk, reference="Järvelin & Kekäläinen, TOIS 2002 (the original nDCG; "
                               "NTCIREVAL's nDCG@l)",
        doc="nDCG-JK@l = sum_{r<=l} g(r)/d(r) / sum_{r<=l} g*(r)/d(r), d(r) = 1 for r <= b, "
            "log_b(r) beyond (b = logb): the original nDCG, whose first b ranks are not "
            "discounted.",
        formula=r"$\frac{\sum_{r \le l} g(r) / d(r)}{\sum_{r \le l} g^*(r) / d(r)}$, $d(r) = "
                r"1$ for $r \le b$, $\log_b r$ beyond")
declare("bpref_R", K.bpref_r, params=(), cutoff="none", options=_none, inputs=_CONDENSED,
        reference=_CONDENSED_REF,
        doc="bpref_R = (1/R) sum_{relevant r} (1 - min(n(r), R)/R), n(r) the judged "
            "non-relevant documents above r; unjudged documents are skipped.",
        formula=r"$\frac{1}{R} \sum_{r:\, J(r) = 1} \left(1 - \frac{\min(n(r), R)}{R}\right)$, "
                "$n(r)$ the judged non-relevant documents above $r$ (unjudged ones skipped)")
declare("bpref_N", K.bpref_n, params=(), cutoff="none", options=_none, inputs=_CONDENSED,
        reference=_CONDENSED_REF,
        doc="bpref_N = (1/R) sum_{relevant r} (1 - n(r)/N), N the judged non-relevant "
            "documents (NaN when N = 0); unjudged documents are skipped.",
        formula=r"$\frac{1}{R} \sum_{r:\, J(r) = 1} \left(1 - \frac{n(r)}{N}\right)$, $N$ the "
                "judged non-relevant documents (unjudged ones skipped)")
declare("bpref_relative", K.bpref_relative, params=(), cutoff="none", options=_none,
        inputs=_CONDENSED, tie_bounds=False, reference=_CONDENSED_REF,
        doc="bpref_relative = (1/R) sum_{relevant r} (1 - n(r)/(r'-1)), r' the rank in the "
            "condensed list (a relevant document at r' = 1 adds 0).",
        formula=r"$\frac{1}{R} \sum_{r:\, J(r) = 1,\, r' > 1} \left(1 - \frac{n(r)}{r' - 1}"
                r"\right)$, $r'$ the rank in the condensed list")
_RPREF = (r"$\frac{1}{\sum_x R_x \mathrm{gv}(x)} \sum_{r:\, J(r) = 1} g(r) \left(1 - "
          r"\frac{\mathrm{pen}(r)}{D(r)}\right)$, $\mathrm{pen}(r) = \sum_{k \text{ judged "
          r"above } r} \frac{\max(0, g(r) - g(k))}{g(r)}$, ")
declare("rpref_N", K.rpref, params=(GAIN, HIGHEST), cutoff="none", options=_rpref("N"),
        inputs=_CONDENSED, tie_bounds=False, reference=_CONDENSED_REF,
        doc="rpref_N = sum_{relevant r} g(r) (1 - pen(r)/(R + N - sum_x R_x gv(x)/gv(H))) / "
            "sum_x R_x gv(x), pen(r) = sum_{judged k above r} max(0, g(r) - g(k))/g(r): "
            "graded bpref on the condensed list.",
        formula=_RPREF + r"$D = R + N - \sum_x R_x \mathrm{gv}(x) / \mathrm{gv}(H)$")
declare("rpref_relative", K.rpref, params=(GAIN, HIGHEST), cutoff="none",
        options=_rpref("relative"), inputs=_CONDENSED, tie_bounds=False,
        reference=_CONDENSED_REF,
        doc="rpref_relative = rpref with pen(r) divided by r'-1, r' the rank in the "
            "condensed list (a relevant document at r' = 1 adds 0).",
        formula=_RPREF + r"$D(r) = r' - 1$ (0 added at $r' = 1$)")
declare("rpref_relative2", K.rpref, params=(GAIN, HIGHEST), cutoff="none",
        options=_rpref("relative2"), inputs=_CONDENSED, tie_bounds=False,
        reference=_CONDENSED_REF,
        doc="rpref_relative2 = rpref with pen(r) divided by r', the rank in the condensed "
            "list.",
        formula=_RPREF + r"$D(r) = r'$")


# ---------------------------------------------------------------- D-, DIN- and D#-forms

def _on_global_gains(base: str, din: bool, options):
    """``compute(cube, measure)`` of the D-form (DIN-form with ``din``) of the measure
    ``base`` (a key of :data:`xdiv.kernels.ntcir.GLOBAL_FORMS`): the kernel's value on the
    global gains of the run and of the globally ideal list, with what ``options`` gives."""
    def compute(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
        table = gain_table(cube, measure)
        return xr.apply_ufunc(
            K.d_form, levels_to(cube, measure.cutoff), ideal_global_gain(cube, table),
            cube["intent_prob"], cube["intent_valid"], cube["intent_type"] == "nav",
            input_core_dims=[["rank", "intent"], ["ideal_rank"], ["intent"], ["intent"],
                             ["intent"]],
            kwargs={"measure": base, "cutoff": measure.cutoff, "table": table, "din": din,
                    "decimals": measure["gain_decimals"], **options(cube, measure)},
            dask="parallelized", output_dtypes=[np.float64],
            dask_gufunc_kwargs={"allow_rechunk": True})
    return compute


_D_REFERENCE = ("Sakai & Song, SIGIR 2011 (D-measures); Sakai, WWW 2012 (DIN-measures); "
                "NTCIREVAL gcompute")


def _declare_global(base: str, *, params, options, sharp: bool = False,
                    types_matter: bool = True) -> None:
    """Register ``D-base`` and ``DIN-base`` (and, with ``sharp``, ``D#-base``): the
    measure ``base`` on global gains GG(r) = sum_i Pr(i|q) gv(x_i(r)), its stop
    probabilities and normaliser from the globally ideal list's highest GG, as NTCIREVAL's
    gcompute reads a global relv file. ``types_matter=False`` where the DIN-form never
    differs from the D-form (the measure reads no document after the run's first relevant
    one, which is the first relevant document of each of its intents)."""
    for prefix, din in (("D", False), ("DIN", True)):
        compute = _on_global_gains(base, din, options)
        compute.__doc__ = (f"{prefix}-{base}: {base} on global gains GG(r) = sum_i Pr(i|q) "
                           f"gv(x_i(r)) against the globally ideal list"
                           + (" (a navigational intent counts only at its first relevant "
                              "document)." if din else "."))
        register(f"{prefix}-{base}", params=(*params, GAIN_DECIMALS), cutoff="optional",
                 family="diversity",
                 reference=_D_REFERENCE, uses_intent_types=din and types_matter,
                 formula=rf"{base} with $GG(r) = \sum_i \Pr(i \mid q)\, \mathrm{{gv}}(x_i(r))$"
                         + (r" ($GG_{\mathrm{DIN}}$: a navigational intent only at its first "
                            r"relevant document)" if din else ""))(compute)
    if not sharp:
        return
    plain = _on_global_gains(base, False, options)

    def combined(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
        return xr.apply_ufunc(KD.sharp, intent_recall(cube, measure.cutoff),
                              plain(cube, measure), kwargs={"gamma": measure["gamma"],
                                                            "decimals": measure["part_decimals"]},
                              dask="parallelized", output_dtypes=[np.float64])

    combined.__doc__ = f"D#-{base}@l = gamma I-rec@l + (1 - gamma) D-{base}@l."
    register(f"D#-{base}", params=(SHARP_GAMMA, *params, GAIN_DECIMALS, PART_DECIMALS),
             cutoff="required",
             family="diversity", reference=_D_REFERENCE,
             formula=sharp_formula(f"D-{base}"))(combined)


def _beta(cube: xr.Dataset, measure: Measure) -> dict:
    return {"beta": measure["beta"]}


def _ncu_rb_global(cube: xr.Dataset, measure: Measure) -> dict:
    return {"gamma": measure["gamma"], "beta": measure["beta"], "utility": measure["utility"]}


def _p(cube: xr.Dataset, measure: Measure) -> dict:
    return {"p": measure["p"]}


def _logb(cube: xr.Dataset, measure: Measure) -> dict:
    return {"b": measure["logb"]}


_declare_global("O", params=(BETA, GAIN, HIGHEST), options=_beta,
                types_matter=False)
_declare_global("P-measure", params=(BETA, GAIN, HIGHEST), options=_beta)
_declare_global("P+", params=(BETA, GAIN, HIGHEST), options=_beta)
_declare_global("NCUrb", params=(UTILITY, NCU_GAMMA, BETA, GAIN, HIGHEST),
                options=_ncu_rb_global)
_declare_global("ERR", params=(GAIN, HIGHEST), options=_none, sharp=True)
_declare_global("nERR", params=(GAIN, HIGHEST), options=_none)
_declare_global("RBP", params=(PERSISTENCE, GAIN, HIGHEST), options=_p, sharp=True)
_declare_global("EBR", params=(BETA, GAIN, HIGHEST), options=_beta, sharp=True)
_declare_global("nDCG-JK", params=(LOG_BASE, GAIN, HIGHEST), options=_logb)
_declare_global("GAP", params=(GAIN, HIGHEST), options=_none)


# ---------------------------------------------------------------------------- I-rec@n

@register("I-rec@n", cutoff="none", family="diversity", tie_bounds=True,
          reference="Sakai & Song, SIGIR 2011; NTCIREVAL irec",
          formula=r"$\frac{\lvert \bigcup_{r \le n} I(d_r) \rvert}{n}$, $n = \lvert I_q "
                  r"\rvert$ the topic's number of intents: I-rec at a cutoff that varies "
                  "with the topic")
def _irec_at_n(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    """I-rec@n = |union_{r<=n} I(d_r)| / n, n the topic's number of intents (with a
    relevant document): I-rec at a cutoff that varies with the topic, as NTCIREVAL's irec
    prints it."""
    return xr.apply_ufunc(K.intent_recall_at_n, cube["level"], cube["intent_valid"],
                          input_core_dims=[["rank", "intent"], ["intent"]],
                          dask="parallelized", output_dtypes=[np.float64],
                          dask_gufunc_kwargs={"allow_rechunk": True})
