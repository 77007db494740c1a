"""The measures of other tools (trec_eval, ir_measures) and their registry counterparts.

Every correspondence is declared once in :data:`TRANSLATIONS`, with the ranking order the
tool uses for that measure; :mod:`xdiv.measures.names` resolves names with it. The
ir_measures tables (:data:`IR_MEASURES_ALIASES`, :data:`IR_MEASURES_DEFAULTS`, ...) give
the alternative spellings and the parameter defaults that ir_measures objects leave out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..typing import CutoffRule, Tool

__all__ = ["ASC", "IR_MEASURES_ALIASES", "IR_MEASURES_ALIAS_PARAMS", "IR_MEASURES_DEFAULTS",
           "IR_MEASURES_OWN_DEFAULTS", "TRANSLATIONS", "TREC", "TREC_CUTOFFS", "Translation",
           "describe_translations"]

TREC = "score-docno-desc"
"""Score descending, ties by docno descending: trec_eval, gdeval (and pytrec_eval)."""
ASC = "score-docno-asc"
"""Score descending, ties by docno ascending: pyndeval and MS MARCO's MRR script."""

TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
"""The cutoffs trec_eval reports for ``P``, ``map_cut`` and ``ndcg_cut`` when none is given."""


@dataclass(frozen=True)
class Translation:
    """How one measure of another tool corresponds to the registry.

    Attributes
    ----------
    tool : {"trec_eval", "ir_measures"}
    name : str
        The tool's measure name (trec_eval's base name, ir_measures' ``NAME``).
    target : str or None
        The registry spelling, without cutoff, of the identical definition; None when xdiv
        has none (``note`` then says what differs and what to ask for instead).
    note : str
        One line: how the definitions agree, or why there is no counterpart.
    cutoff : {"required", "optional", "none"}
        Whether the tool's name takes a cutoff.
    cut_target : str, optional
        The registry spelling when a cutoff is given, if not ``target``.
    order : str or None
        The ranking order under which the tool computes the measure (``None``: ties are
        left in an unspecified order).
    cut_order : str, optional
        The ranking order when a cutoff is given, if not ``order``.
    when : tuple of (parameter, value)
        The entry applies when the tool's parameters have these values.
    require : tuple of (parameter, value)
        Tool parameters xdiv supports only at this value.
    copy : tuple of (tool parameter, registry parameter)
        Tool parameters passed on to the registry measure.
    defaults : tuple of int or float
        trec_eval: the cutoffs (or ``arg`` values) reported when a name that takes one is
        given without it.
    arg : str, optional
        trec_eval: the registry parameter that the name's numeric suffix sets
        (``iprec_at_recall_0.10`` is ``IPrec(recall=0.1)``), instead of a cutoff.
    args : tuple of str
        trec_eval: the registry parameters that the name's comma-separated suffix sets,
        one value each and all of them (``utility_2,-1,0,0`` is
        ``Utility(a=2,b=-1,c=0,d=0)``).
    """

    tool: Tool
    name: str
    target: str | None
    note: str
    cutoff: CutoffRule = "optional"
    cut_target: str | None = None
    order: str | None = TREC
    cut_order: str | None = None
    when: tuple[tuple[str, Any], ...] = ()
    require: tuple[tuple[str, Any], ...] = ()
    copy: tuple[tuple[str, str], ...] = ()
    defaults: tuple[float, ...] = ()
    arg: str | None = None
    args: tuple[str, ...] = ()


_BINARY = (("rel", 1), ("judged_only", False))
_NDEVAL = ("ndeval's definition (through pyndeval), binary per-intent relevance, uniform "
           "intent weights")


_BPREF = ("Buckley & Voorhees's bpref over the judged documents; as in trec_eval, a document "
          "whose levels are all negative (TREC's spam -2) is 'in the pool but unjudged': "
          "skipped, and left out of N")
_INFAP = ("Yilmaz & Aslam's inferred AP as trec_eval computes it: a document without a "
          "qrels line is outside the pool, one whose levels are all negative (-1: pooled "
          "but not sampled) is pooled but unjudged; 0 on topics without relevant documents "
          "where xdiv gives NaN")
_COUNTS = "(a whole number, stored as a float like every score)"
_RECALL_LEVELS = tuple(k / 10 for k in range(11))
_R_MULTIPLES = tuple(k / 5 for k in range(1, 11))
_GMEAN = ("is the geometric mean over topics of {0} (values below 1e-5 raised to 1e-5), an "
          "aggregate, not a per-topic score: ask for {1} and take the geometric mean of its "
          "scores over topics, e.g. scipy.stats.gmean(np.maximum(scores, 1e-5), axis=-1)")
_JG = ("needs trec_eval's judgment groups (-R qrels_jg), which xdiv's collections do not "
       "hold: use xdiv trec_eval -R qrels_jg")
_NEW = "as trec_eval 10.0 computes it"


def _unsupported(tool: Tool, name: str, note: str) -> Translation:
    return Translation(tool, name, None, note)


TRANSLATIONS: tuple[Translation, ...] = (
    # trec_eval (Buckley & Voorhees; relevance: level >= 1; ideal list of ndcg: the judged
    # levels; ranking by score descending, ties by docno descending)
    Translation("trec_eval", "map", "AP", "non-interpolated AP over the whole ranking, "
                "divided by R", cutoff="none"),
    Translation("trec_eval", "map_cut", "AP(denominator=R)", "AP over the top k divided by R "
                "(not min(k, R) as xdiv's AP@k)", cutoff="required", defaults=TREC_CUTOFFS),
    Translation("trec_eval", "P", "P", "precision at k, lists shorter than k counted as k",
                cutoff="required", defaults=TREC_CUTOFFS),
    Translation("trec_eval", "ndcg", "nDCG(gain=linear)", "nDCG with gain = level (xdiv's "
                "default gain is 2^x-1), ideal list from the judged levels", cutoff="none"),
    Translation("trec_eval", "ndcg_cut", "nDCG(gain=linear)", "nDCG@k with gain = level "
                "(xdiv's default gain is 2^x-1)", cutoff="required", defaults=TREC_CUTOFFS),
    Translation("trec_eval", "recip_rank", "RR", "reciprocal rank of the first relevant "
                "document", cutoff="none"),
    Translation("trec_eval", "success", "Hit", "1 if a relevant document is in the top k",
                cutoff="required", defaults=(1, 5, 10)),
    Translation("trec_eval", "Rprec", "Rprec", "precision at rank R, R the number of relevant "
                "documents; ranks past the end of the run count as non-relevant", cutoff="none"),
    Translation("trec_eval", "Rprec_mult", "Rprec-mult", "precision at (long)(m R + 0.9) "
                "ranks, " + _NEW, arg="m", defaults=_R_MULTIPLES),
    Translation("trec_eval", "bpref", "bpref", _BPREF, cutoff="none"),
    _unsupported("trec_eval", "gm_bpref", "gm_bpref " + _GMEAN.format("bpref", "bpref")),
    _unsupported("trec_eval", "gm_map", "gm_map " + _GMEAN.format("AP (map)", "AP")),
    Translation("trec_eval", "recall", "Recall", "the share of the relevant documents in the "
                "top k", cutoff="required", defaults=TREC_CUTOFFS),
    Translation("trec_eval", "infAP", "infAP", _INFAP, cutoff="none"),
    Translation("trec_eval", "iprec_at_recall", "IPrec", "interpolated precision at recall "
                "level r, " + _NEW, arg="recall", defaults=_RECALL_LEVELS),
    Translation("trec_eval", "11pt_avg", "11pt-AP", "the mean of the interpolated "
                "precisions at recall 0, 0.1, ..., 1 (xdiv: at trec_eval's 11 default levels "
                "only)", cutoff="none"),
    Translation("trec_eval", "ndcg_rel", "nDCG-rel", "nDCG averaged over the relevant "
                "documents, gain = level, " + _NEW, cutoff="none"),
    Translation("trec_eval", "dcg", "DCG(gain=linear)", "DCG over the whole run with gain "
                "= level, " + _NEW, cutoff="none"),
    Translation("trec_eval", "ideal_dcg", "IDCG(gain=linear)", "DCG of the ideal list (the "
                "judged levels, descending) with gain = level, " + _NEW, cutoff="none"),
    _unsupported("trec_eval", "ndcg_p", "trec_eval's ndcg_p with explicit gains: ask for "
                 "nDCG(gain=(g1,...,gH)) with the gains of levels 1..H"),
    Translation("trec_eval", "Rndcg", "RnDCG", "nDCG averaged over the ranks where the ideal "
                "gain drops, gain = level, " + _NEW, cutoff="none"),
    Translation("trec_eval", "binG", "binG", "binary gain over log2 of the non-relevant "
                "documents above, " + _NEW, cutoff="none"),
    Translation("trec_eval", "G", "G", "gain over log2 of the cost so far, gain = level, "
                + _NEW, cutoff="none"),
    Translation("trec_eval", "utility", "Utility", "a rr + b (ret - rr) + c (R - rr) + d (N + "
                "rr - ret - R), trec_eval's defaults 1, -1, 0, 0; utility_a,b,c,d (as -m "
                "utility.a,b,c,d prints it) sets the four (N, trec_eval's -N: ask for "
                "Utility(...,N=...))", cutoff="none", args=("a", "b", "c", "d")),
    Translation("trec_eval", "relative_P", "RelP", "C(k) / min(k, R)", cutoff="required",
                defaults=TREC_CUTOFFS),
    Translation("trec_eval", "set_P", "SetP", "precision of the retrieved set",
                cutoff="none"),
    Translation("trec_eval", "set_relative_P", "SetRelP", "C(n) / min(n, R) of the retrieved "
                "set", cutoff="none"),
    Translation("trec_eval", "set_recall", "SetR", "recall of the retrieved set",
                cutoff="none"),
    Translation("trec_eval", "set_map", "SetAP", "set precision times set recall",
                cutoff="none"),
    Translation("trec_eval", "set_F", "SetF", "(x+1) P R / (x P + R) of the retrieved set",
                arg="x"),
    _unsupported("trec_eval", "num_q", "num_q counts the topics, a property of the "
                 "evaluation, not a per-topic score: the score cube's topic dimension gives "
                 "it (e.g. scores.count('topic'))"),
    Translation("trec_eval", "num_ret", "NumRet", "the number of documents retrieved "
                + _COUNTS, cutoff="none"),
    Translation("trec_eval", "num_rel", "NumRel", "the number of relevant documents "
                + _COUNTS, cutoff="none"),
    Translation("trec_eval", "num_rel_ret", "NumRelRet", "the number of relevant documents "
                "retrieved " + _COUNTS, cutoff="none"),
    Translation("trec_eval", "num_nonrel_judged_ret", "NumNonrelJudgedRet", "the number of "
                "retrieved documents judged non-relevant " + _COUNTS, cutoff="none"),
    Translation("trec_eval", "unj", "Unj", "the unjudged share of the top k (no qrels line, "
                "or only negative levels), over k", cutoff="required", defaults=(5, 10, 20)),
    Translation("trec_eval", "rbp_resid", "RBP-resid", "the RBP residual at p = 0.9, "
                + _NEW + " (other p: ask for RBP-resid(p=...))", cutoff="none"),
    _unsupported("trec_eval", "rbp", "trec_eval 10.0's rbp rescales each topic's linear "
                 "gains by its highest judged level; xdiv's RBP divides by gv(H) of the "
                 "collection: ask for RBP(p=0.9,gain=linear) (xdiv's meaning) or run "
                 "xdiv trec_eval"),
    Translation("trec_eval", "yaap", "YAAP", "log((1 + s) / (1 + R - s)), s = R x AP, "
                + _NEW, cutoff="none"),
    _unsupported("trec_eval", "map_avgjg", "map_avgjg " + _JG),
    _unsupported("trec_eval", "P_avgjg", "P_avgjg " + _JG),
    _unsupported("trec_eval", "Rprec_mult_avgjg", "Rprec_mult_avgjg " + _JG),
    _unsupported("trec_eval", "relstring", "relstring is a string of the ranked documents' "
                 "levels, not a number: read the judged cube's level (xdiv.judge) instead"),
    _unsupported("trec_eval", "runid", "runid is the run's name, not a measure: it is the "
                 "score cube's run coordinate"),
    # ir_measures (MacAvaney et al., ECIR 2022); each measure through the provider that its
    # default pipeline uses for it: pytrec_eval, gdeval, MS MARCO's MRR, ranx or pyndeval
    Translation("ir_measures", "nDCG", "nDCG(gain=linear)", "trec_eval's ndcg / ndcg_cut "
                "(through pytrec_eval): gain = level, or the gains mapping", when=(("dcg",
                "log2"),), require=(("judged_only", False),), copy=(("gains", "gain"),)),
    Translation("ir_measures", "nDCG", "nDCG", "gdeval's nDCG@k (without a cutoff ranx's "
                "ndcg_burges): gain 2^x-1, ideal list from the positive judgments",
                when=(("dcg", "exp-log2"),), require=(("judged_only", False),), order=None,
                cut_order=TREC),
    Translation("ir_measures", "AP", "AP", "trec_eval's map / map_cut (through pytrec_eval); "
                "a cut-off AP is divided by R", cut_target="AP(denominator=R)",
                require=_BINARY),
    Translation("ir_measures", "P", "P", "trec_eval's P (through pytrec_eval)",
                cutoff="required", require=_BINARY),
    Translation("ir_measures", "RR", "RR", "trec_eval's recip_rank; with a cutoff MS MARCO's "
                "MRR@k (ties by docno ascending)", require=_BINARY, cut_order=ASC),
    Translation("ir_measures", "Success", "Hit", "trec_eval's success (through pytrec_eval)",
                cutoff="required", require=_BINARY),
    Translation("ir_measures", "ERR", "ERR(H=4)", "gdeval's ERR@k: stop probability "
                "(2^x-1)/2^4 whatever the collection's highest level", cutoff="required"),
    Translation("ir_measures", "ERR_IA", "ERR-IA", _NDEVAL, cutoff="required", order=ASC,
                require=_BINARY),
    Translation("ir_measures", "nERR_IA", "nERR-IA", _NDEVAL, cutoff="required", order=ASC,
                require=_BINARY),
    Translation("ir_measures", "alpha_DCG", "alpha-DCG", _NDEVAL, cutoff="required",
                order=ASC, require=_BINARY, copy=(("alpha", "alpha"),)),
    Translation("ir_measures", "alpha_nDCG", "alpha-nDCG", _NDEVAL, cutoff="required",
                order=ASC, require=_BINARY, copy=(("alpha", "alpha"),)),
    Translation("ir_measures", "NRBP", "NRBP", _NDEVAL, cutoff="none", order=ASC,
                require=(("rel", 1),), copy=(("alpha", "alpha"), ("beta", "beta"))),
    Translation("ir_measures", "nNRBP", "nNRBP", _NDEVAL, cutoff="none", order=ASC,
                require=(("rel", 1),), copy=(("alpha", "alpha"), ("beta", "beta"))),
    Translation("ir_measures", "AP_IA", "MAP-IA", _NDEVAL + " (ndeval's MAP-IA)",
                cutoff="none", order=ASC, require=_BINARY),
    Translation("ir_measures", "P_IA", "P-IA", _NDEVAL, cutoff="required", order=ASC,
                require=_BINARY),
    Translation("ir_measures", "StRecall", "I-rec", _NDEVAL + " (ndeval's strec)",
                cutoff="required", order=ASC, require=(("rel", 1),)),
    Translation("ir_measures", "Judged", "Judged", "the judged share of the top k (any qrels "
                "line, whatever its level) over min(k, documents retrieved); ties by docno "
                "ascending, as its provider ranks", order=ASC),
    Translation("ir_measures", "R", "Recall", "trec_eval's recall (through pytrec_eval)",
                cutoff="required", require=_BINARY),
    Translation("ir_measures", "Rprec", "Rprec", "trec_eval's Rprec (through pytrec_eval)",
                cutoff="none", require=_BINARY),
    Translation("ir_measures", "Bpref", "bpref", "trec_eval's bpref (through pytrec_eval): "
                + _BPREF, cutoff="none", require=(("rel", 1),)),
    Translation("ir_measures", "infAP", "infAP", "trec_eval's infAP (through pytrec_eval): "
                + _INFAP, cutoff="none", require=(("rel", 1),)),
    _unsupported("ir_measures", "IPrec", "ir_measures' IPrec@r takes a recall level as its "
                 "cutoff: ask for xdiv's IPrec(recall=r), trec_eval's iprec_at_recall_r"),
    _unsupported("ir_measures", "RBP", "ir_measures' RBP is cwl_eval's (binary with rel=r); "
                 "xdiv's RBP(p=...) is graded, gv(x)/gv(H): for binary RBP give "
                 "gain=(1,...,1) with a 1 for every level"),
    _unsupported("ir_measures", "SDCG", "scaled DCG (cwl_eval) is not implemented in xdiv; "
                 "nDCG is"),
    _unsupported("ir_measures", "NERR8", "NERR (Azzopardi et al., ICTIR 2021) is not "
                 "implemented in xdiv; ERR and nERR are"),
    _unsupported("ir_measures", "NERR9", "NERR (Azzopardi et al., ICTIR 2021) is not "
                 "implemented in xdiv; ERR and nERR are"),
    _unsupported("ir_measures", "NERR10", "NERR (Azzopardi et al., ICTIR 2021) is not "
                 "implemented in xdiv; ERR and nERR are"),
    _unsupported("ir_measures", "NERR11", "NERR (Azzopardi et al., ICTIR 2021) is not "
                 "implemented in xdiv; ERR and nERR are"),
    _unsupported("ir_measures", "INST", "INST (Moffat, Bailey, Scholer & Thomas, ADCS 2015) is "
                 "not implemented in xdiv"),
    _unsupported("ir_measures", "INSQ", "INSQ (Moffat, Scholer & Thomas, ADCS 2012) is not "
                 "implemented in xdiv"),
    _unsupported("ir_measures", "BPM", "the bejewelled player model is not implemented in "
                 "xdiv"),
    _unsupported("ir_measures", "NumQ", "counts are not measures in xdiv"),
    Translation("ir_measures", "NumRel", "NumRel", "trec_eval's num_rel " + _COUNTS,
                cutoff="none", require=(("rel", 1),)),
    Translation("ir_measures", "NumRet", "NumRet", "trec_eval's num_ret " + _COUNTS,
                cutoff="none", when=(("rel", None),)),
    Translation("ir_measures", "NumRet", "NumRelRet", "trec_eval's num_rel_ret (NumRelRet) "
                + _COUNTS, cutoff="none", when=(("rel", 1),)),
    Translation("ir_measures", "SetP", "SetP", "trec_eval's set_P (through pytrec_eval)",
                cutoff="none", require=_BINARY, when=(("relative", False),)),
    Translation("ir_measures", "SetP", "SetRelP", "trec_eval's set_relative_P (through "
                "pytrec_eval)", cutoff="none", require=_BINARY, when=(("relative", True),)),
    Translation("ir_measures", "SetR", "SetR", "trec_eval's set_recall (through pytrec_eval)",
                cutoff="none", require=(("rel", 1),)),
    Translation("ir_measures", "SetF", "SetF", "trec_eval's set_F (through pytrec_eval): "
                "(beta+1) P R / (beta P + R), beta itself as trec_eval weighs it, not its "
                "square", cutoff="none", require=_BINARY, copy=(("beta", "x"),)),
    Translation("ir_measures", "SetAP", "SetAP", "trec_eval's set_map (through pytrec_eval)",
                cutoff="none", require=_BINARY),
    _unsupported("ir_measures", "Compat", "rank-biased compatibility (Clarke, Vtyurina & Smucker, "
                 "TOIS 2021) is not "
                 "implemented in xdiv"),
    _unsupported("ir_measures", "Accuracy", "accuracy of pairwise preferences is not "
                 "implemented in xdiv"),
)
"""Every trec_eval and ir_measures measure xdiv knows, declared once."""

IR_MEASURES_ALIASES: dict[str, str] = {
    "NDCG": "nDCG", "MAP": "AP", "MRR": "RR", "Precision": "P", "Recall": "R",
    "BPref": "Bpref", "RPrec": "Rprec", "α_DCG": "alpha_DCG", "α_nDCG": "alpha_nDCG",
    "MAP_IA": "AP_IA", "NumRelRet": "NumRet", "SetRelP": "SetP",
}
"""ir_measures' alternative spellings and the measure (``NAME``) each stands for."""

IR_MEASURES_ALIAS_PARAMS: dict[str, dict[str, Any]] = {"NumRelRet": {"rel": 1}}
"""Parameters an alternative spelling implies (``NumRelRet`` is ``NumRet(rel=1)``)."""

IR_MEASURES_DEFAULTS: dict[str, Any] = {"rel": 1, "judged_only": False, "dcg": "log2",
                                        "alpha": 0.5, "beta": 0.5}
"""ir_measures' parameter defaults the translation reads (ir_measures objects list only
the parameters given)."""

IR_MEASURES_OWN_DEFAULTS: dict[str, dict[str, Any]] = {
    "NumRet": {"rel": None}, "SetP": {"relative": False}, "SetF": {"beta": 1.0}}
"""Defaults of particular measures that differ from :data:`IR_MEASURES_DEFAULTS`
(``NumRet`` without ``rel`` counts every document retrieved; ``SetF`` weighs recall as
much as precision)."""


def describe_translations() -> str:
    """The trec_eval and ir_measures names and their registry measures.

    Returns
    -------
    str
        A Markdown table, one row per entry of :data:`TRANSLATIONS`.
    """
    lines = ["| tool | name | xdiv measure | note |", "|---|---|---|---|"]
    for t in TRANSLATIONS:
        when = "".join(f"({k}={v!r})" for k, v in t.when)
        target = "-" if t.target is None else f"`{t.target}`"
        if t.cut_target:
            target += f", with a cutoff `{t.cut_target}@k`"
        lines.append(f"| {t.tool} | `{t.name}{when}` | {target} | {t.note} |")
    return "\n".join(lines) + "\n"
