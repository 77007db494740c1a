"""Measure names of other tools (trec_eval, ir_measures) and named measure sets.

:func:`resolve` turns a name into the registry :class:`~xdiv.measures.registry.Measure`
whose definition is the named tool's. It accepts

* registry names (``nDCG@10``, ``alpha-nDCG(alpha=0.3)@20``), which keep xdiv's meaning;
* trec_eval names (trec_eval, Buckley & Voorhees; used through pytrec_eval, Van Gysel &
  de Rijke, SIGIR 2018), both as given to ``trec_eval -m`` (``P.10``, ``ndcg_cut.10``)
  and as trec_eval prints them (``P_10``, ``ndcg_cut_10``);
* ir_measures names (MacAvaney, Macdonald & Ounis, ECIR 2022) as strings
  (``alpha_nDCG@20``, ``nDCG(dcg='exp-log2')@10``, ``P(rel=2)@10``) and as ir_measures
  measure objects (``ir_measures.nDCG@10``), duck-typed by their ``NAME`` and ``params``
  attributes, so that ir_measures is imported only to parse an ir_measures string.

**A string that is a registry name keeps xdiv's meaning**, even where ir_measures spells
a different definition the same way: ``nDCG@10`` and ``nDCG`` (ir_measures: linear gain,
trec_eval's ``ndcg_cut``), ``AP@10`` (ir_measures: divided by R, trec_eval's ``map_cut``)
and ``ERR@20`` (ir_measures: gdeval's ERR, maximum grade 4). The ir_measures *objects*
keep ir_measures' definitions: ``ir_measures.nDCG@10`` resolves to
``nDCG(gain=linear)@10``, ``ir_measures.ERR@20`` to ``ERR(H=4)@20``.

Every correspondence is declared once in :data:`TRANSLATIONS`, with the ranking order the
tool uses for that measure (:func:`translate` returns it; pass it to
:func:`xdiv.read_runs`): trec_eval and gdeval break score ties by docno descending, MS
MARCO's MRR script (ir_measures' ``RR@k``) and pyndeval by docno ascending, ranx
(ir_measures' ``nDCG(dcg='exp-log2')`` without a cutoff) leaves them unspecified. A name
whose tool definition xdiv does not have raises :class:`~xdiv.errors.MeasureError` saying
what differs and what to ask for instead.

The correspondences are per topic, on topics with a relevant document: there the values
agree to 1e-9 (gdeval's to its 5 printed decimals) on graded collections with spam
levels and score ties and on the TREC 2009 Web Track runs (tests/test_names.py,
tests/test_staples.py). Each tool's own conventions outside the definitions stay as
documented in the conventions page: trec_eval compares scores in single precision and
scores topics without relevant documents 0 (xdiv: NaN); pyndeval computes cutoffs up to 20
only (xdiv continues the same formulas beyond).

Named measure sets (:data:`MEASURE_SETS`, :func:`measure_set`) give the measures TREC's
ndeval and gdeval print, trec_eval's default measures that xdiv implements, and the
NTCIR INTENT measures. :func:`expand_measures` turns any mix of names, comma-separated
lists, trec_eval cutoff lists (``P.5,10,30``) and set names into measures.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import MeasureError
from .registry import Measure, parse_measure

__all__ = ["MEASURE_SETS", "MeasureSet", "Resolved", "TRANSLATIONS", "Translation",
           "describe_sets", "describe_translations", "expand_measures", "expand_resolved",
           "measure_set", "parse_ir_measures_string", "resolve", "translate"]

Tool = Literal["trec_eval", "ir_measures"]
CutoffUse = Literal["required", "optional", "none"]

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
    defaults : tuple of int
        trec_eval: the cutoffs reported when a cutoff-taking name is given without one.
    """

    tool: Tool
    name: str
    target: str | None
    note: str
    cutoff: CutoffUse = "optional"
    cut_target: str | None = None
    order: str | None = TREC
    cut_order: str | None = None
    when: tuple[tuple[str, Any], ...] = ()
    require: tuple[tuple[str, Any], ...] = ()
    copy: tuple[tuple[str, str], ...] = ()
    defaults: tuple[int, ...] = ()


@dataclass(frozen=True)
class Resolved:
    """A measure name resolved to the registry.

    Attributes
    ----------
    measure : Measure
        The registry measure.
    tool : str
        ``"xdiv"`` for registry names, else ``"trec_eval"`` or ``"ir_measures"``.
    source : str
        The name as given (``str()`` of an ir_measures object).
    order : str or None
        The ranking order the tool uses for this measure (None for registry names and
        where the tool leaves ties unspecified).
    note : str
        How the tool's definition corresponds ("" for registry names).
    """

    measure: Measure
    tool: str
    source: str
    order: str | None
    note: str


_BINARY = (("rel", 1), ("judged_only", False))
_NDEVAL = ("ndeval's definition (through pyndeval), binary per-intent relevance, uniform "
           "intent weights")


_BPREF = ("Buckley & Voorhees's bpref over the judged documents; as in trec_eval, a document "
          "whose levels are all negative (TREC's spam -2) is 'in the pool but unjudged': "
          "skipped, and left out of N")
_COUNTS = "(a whole number, stored as a float like every score)"


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
    _unsupported("trec_eval", "Rprec_mult", "R-precision at multiples of R is not "
                 "implemented in xdiv"),
    Translation("trec_eval", "bpref", "bpref", _BPREF, cutoff="none"),
    _unsupported("trec_eval", "gm_bpref", "gm_bpref is the geometric mean of bpref over "
                 "topics, an aggregate rather than a per-topic measure: ask for bpref and "
                 "average its logs"),
    _unsupported("trec_eval", "gm_map", "gm_map is the geometric mean of AP over topics, an "
                 "aggregate rather than a per-topic measure: ask for AP and average its logs"),
    _unsupported("trec_eval", "recall", "recall at k (share of the relevant documents "
                 "retrieved) is not implemented in xdiv; I-rec@k is intent recall"),
    _unsupported("trec_eval", "infAP", "inferred AP (Yilmaz & Aslam, CIKM 2006) is not "
                 "implemented in xdiv; AP treats unjudged documents as non-relevant"),
    _unsupported("trec_eval", "iprec_at_recall", "interpolated precision at recall levels is "
                 "not implemented in xdiv"),
    _unsupported("trec_eval", "11pt_avg", "11-point interpolated average precision is not "
                 "implemented in xdiv; AP is"),
    _unsupported("trec_eval", "ndcg_rel", "trec_eval's ndcg_rel (nDCG averaged over the "
                 "relevant documents) is not implemented in xdiv"),
    _unsupported("trec_eval", "ndcg_p", "trec_eval's ndcg_p with explicit gains: ask for "
                 "nDCG(gain=(g1,...,gH)) with the gains of levels 1..H"),
    _unsupported("trec_eval", "Rndcg", "trec_eval's Rndcg (nDCG at rank R) is not "
                 "implemented in xdiv"),
    _unsupported("trec_eval", "binG", "trec_eval's binG is not implemented in xdiv"),
    _unsupported("trec_eval", "G", "trec_eval's G is not implemented in xdiv"),
    _unsupported("trec_eval", "utility", "trec_eval's utility is not implemented in xdiv"),
    _unsupported("trec_eval", "relative_P", "trec_eval's relative_P is not implemented in "
                 "xdiv; P@k is"),
    _unsupported("trec_eval", "set_P", "set-based precision is not implemented in xdiv; "
                 "P@k is"),
    _unsupported("trec_eval", "set_relative_P", "set-based measures are not implemented in "
                 "xdiv"),
    _unsupported("trec_eval", "set_recall", "set-based measures are not implemented in xdiv"),
    _unsupported("trec_eval", "set_map", "set-based measures are not implemented in xdiv"),
    _unsupported("trec_eval", "set_F", "set-based measures are not implemented in xdiv"),
    _unsupported("trec_eval", "num_q", "counts (num_q) are not measures in xdiv; the score "
                 "cube's topic dimension gives them"),
    Translation("trec_eval", "num_ret", "NumRet", "the number of documents retrieved "
                + _COUNTS, cutoff="none"),
    Translation("trec_eval", "num_rel", "NumRel", "the number of relevant documents "
                + _COUNTS, cutoff="none"),
    Translation("trec_eval", "num_rel_ret", "NumRelRet", "the number of relevant documents "
                "retrieved " + _COUNTS, cutoff="none"),
    _unsupported("trec_eval", "num_nonrel_judged_ret", "num_nonrel_judged_ret is not "
                 "implemented in xdiv; NumRet, NumRel and NumRelRet are"),
    _unsupported("trec_eval", "relstring", "relstring is a listing, not a measure"),
    _unsupported("trec_eval", "runid", "runid is a label, not a measure"),
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
    _unsupported("ir_measures", "R", "recall at k (share of the relevant documents "
                 "retrieved) is not implemented in xdiv; I-rec@k is intent recall"),
    Translation("ir_measures", "Rprec", "Rprec", "trec_eval's Rprec (through pytrec_eval)",
                cutoff="none", require=_BINARY),
    Translation("ir_measures", "Bpref", "bpref", "trec_eval's bpref (through pytrec_eval): "
                + _BPREF, cutoff="none", require=(("rel", 1),)),
    _unsupported("ir_measures", "infAP", "inferred AP (Yilmaz & Aslam, CIKM 2006) is not "
                 "implemented in xdiv; AP treats unjudged documents as non-relevant"),
    _unsupported("ir_measures", "IPrec", "interpolated precision at recall levels is not "
                 "implemented in xdiv"),
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
    _unsupported("ir_measures", "SetP", "set-based measures are not implemented in xdiv; "
                 "P@k is"),
    _unsupported("ir_measures", "SetR", "set-based measures are not implemented in xdiv"),
    _unsupported("ir_measures", "SetF", "set-based measures are not implemented in xdiv"),
    _unsupported("ir_measures", "SetAP", "set-based measures are not implemented in xdiv"),
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

IR_MEASURES_OWN_DEFAULTS: dict[str, dict[str, Any]] = {"NumRet": {"rel": None}}
"""Defaults of particular measures that differ from :data:`IR_MEASURES_DEFAULTS`
(``NumRet`` without ``rel`` counts every document retrieved)."""


@dataclass(frozen=True)
class MeasureSet:
    """A named list of measures.

    Attributes
    ----------
    name : str
    names : tuple of str
        Measure names the registry parses (the tool's own labels where they parse).
    description : str
        One line, for ``xdiv measures``.
    order : str or None
        The ranking order of the tool the set reproduces.
    """

    name: str
    names: tuple[str, ...]
    description: str
    order: str | None = None


_NDEVAL_LABELS = tuple(
    f"{m}@{k}" for m in ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG") for k in (5, 10, 20)
) + ("NRBP", "nNRBP", "MAP-IA") + tuple(f"{m}@{k}" for m in ("P-IA", "strec")
                                        for k in (5, 10, 20))

MEASURE_SETS: dict[str, MeasureSet] = {s.name: s for s in (
    MeasureSet("ndeval", _NDEVAL_LABELS,
               "the 21 measures TREC's ndeval prints, in its column order and with its labels "
               "(Clarke et al., SIGIR 2008; Agrawal et al., WSDM 2009; Chapelle et al., "
               "CIKM 2009; Clarke, Kolla & Vechtomova, ICTIR 2009)", order="rank"),
    MeasureSet("gdeval", ("nDCG@20", "ERR(H=4)@20"),
               "the TREC Web Track's gdeval (gdeval.pl 1.3, TREC 2010-2014; `xdiv gdeval` "
               "prints its output): nDCG@20 (Järvelin & Kekäläinen, TOIS 2002) with gain "
               "2^x-1, discount 1/log2(r+1) and the ideal list of the judged relevant "
               "documents by grade cut at 20, and ERR@20 (Chapelle et al., CIKM 2009) with "
               "stop probability (2^x-1)/2^4 for gdeval's highest grade 4; negative (spam) "
               "grades gain 0; documents ranked by score, ties by docno descending",
               order=TREC),
    MeasureSet("trec_eval", ("NumRet", "NumRel", "NumRelRet", "AP", "Rprec", "bpref", "RR")
               + tuple(f"P@{k}" for k in TREC_CUTOFFS),
               "trec_eval's default measures that xdiv implements, in its order: num_ret, "
               "num_rel, num_rel_ret, map (AP), Rprec, bpref, recip_rank and P at 5 to 1000 "
               "(not num_q, gm_map or iprec_at_recall)", order=TREC),
    MeasureSet("ntcir-intent", ("I-rec@10", "D-nDCG@10", "D#-nDCG@10", "DIN-nDCG@10",
                                "DIN#-nDCG@10", "P+Q@10", "P+Q#@10"),
               "the NTCIR-9 and NTCIR-10 INTENT Document Ranking measures at 10: I-rec, "
               "D-nDCG, D#-nDCG (Sakai & Song, SIGIR 2011), DIN-nDCG, P+Q and their "
               "#-forms (Sakai, WWW 2012), with xdiv's default gains 2^x-1"),
)}
"""The named measure sets, declared once."""


# ------------------------------------------------------------------------ lookups

def _table(tool: Tool) -> dict[str, list[Translation]]:
    out: dict[str, list[Translation]] = {}
    for t in TRANSLATIONS:
        if t.tool == tool:
            out.setdefault(t.name, []).append(t)
    return out


_TREC_EVAL = {name: entries[0] for name, entries in _table("trec_eval").items()}
_IR_MEASURES = _table("ir_measures")
_TREC_FORM = re.compile(r"^(?P<base>[A-Za-z0-9][A-Za-z0-9_]*?)"
                        r"(?:(?P<sep>[._])(?P<arg>[0-9][0-9.,]*))?$")


def measure_set(name: str) -> list[str]:
    """The measure names of the set ``name`` (see :data:`MEASURE_SETS`).

    Parameters
    ----------
    name : str
        ``"ndeval"``, ``"gdeval"``, ``"trec_eval"`` or ``"ntcir-intent"``.

    Returns
    -------
    list of str
        Names the registry parses, in the set's order.

    Raises
    ------
    MeasureError
        Unknown set name (the message lists the sets).
    """
    if name not in MEASURE_SETS:
        raise MeasureError(f"unknown measure set {name!r}; the sets are "
                           f"{', '.join(MEASURE_SETS)}")
    return list(MEASURE_SETS[name].names)


def describe_sets() -> str:
    """The measure sets as a Markdown list (for ``xdiv measures`` and the docs).

    Returns
    -------
    str
        One line per set: its name, description and measures.
    """
    lines = []
    for s in MEASURE_SETS.values():
        names = ", ".join(f"`{n}`" for n in s.names)
        lines.append(f"- `{s.name}`: {s.description}. Measures: {names}.")
    return "\n".join(lines) + "\n"


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


# ------------------------------------------------------------------------ resolving

def resolve(name: Any) -> Measure:
    """The registry measure of a registry, trec_eval or ir_measures name or object.

    Parameters
    ----------
    name : str, Measure or ir_measures measure
        ``"alpha-nDCG@20"`` (registry), ``"ndcg_cut.10"`` / ``"ndcg_cut_10"`` (trec_eval),
        ``"alpha_nDCG(alpha=0.5)@20"`` (ir_measures string) or ``ir_measures.nDCG@10``.

    Returns
    -------
    Measure

    Raises
    ------
    MeasureError
        Unknown name; a tool measure xdiv has no identical definition of (the message says
        what differs and what to ask for); a name that stands for several measures
        (``P`` or ``P.5,10`` in trec_eval, a set name: use :func:`expand_measures`).
    """
    return translate(name).measure


def translate(name: Any) -> Resolved:
    """Like :func:`resolve`, with the tool, its ranking order and the correspondence note.

    Parameters
    ----------
    name : str, Measure or ir_measures measure
        As for :func:`resolve`.

    Returns
    -------
    Resolved

    Raises
    ------
    MeasureError
        As :func:`resolve`.
    """
    if isinstance(name, Measure):
        return Resolved(name, "xdiv", name.name, None, "")
    if _is_ir_measures_object(name):
        return _ir_measures(name.NAME, dict(name.params), str(name))
    if not isinstance(name, str):
        raise MeasureError(f"a measure name must be a string, a Measure or an ir_measures "
                           f"measure, not {type(name).__name__}")
    found = _resolve_string(name)
    if len(found) != 1:
        raise MeasureError(f"{name!r} stands for {len(found)} measures "
                           f"({', '.join(r.measure.name for r in found)}); use "
                           "expand_measures to get them all")
    return found[0]


def expand_measures(metrics: Any) -> list[Measure]:
    """Measures from names, comma-separated lists, trec_eval cutoff lists and set names.

    Parameters
    ----------
    metrics : str, Measure, ir_measures measure, or an iterable of them
        E.g. ``"P_10,ndcg_cut_10,map"``, ``["ndeval", "D#-nDCG@10"]``, ``"P.5,10,30"``
        (trec_eval's -m syntax: P@5, P@10, P@30), ``"ndcg_cut"`` (trec_eval's default
        cutoffs 5 to 1000).

    Returns
    -------
    list of Measure
        In the order given. A measure given twice is an error, except that sets may
        overlap one another and the names given (the first occurrence is kept).

    Raises
    ------
    MeasureError
        Any name :func:`resolve` rejects, a measure requested twice, or nothing requested.
    """
    return [r.measure for r in expand_resolved(metrics)]


def expand_resolved(metrics: Any) -> list[Resolved]:
    """Like :func:`expand_measures`, with each measure's tool, ranking order and note.

    Members of a set carry the set's name as ``tool`` and its ranking order.

    Parameters
    ----------
    metrics : str, Measure, ir_measures measure, or an iterable of them
        As for :func:`expand_measures`.

    Returns
    -------
    list of Resolved

    Raises
    ------
    MeasureError
        As :func:`expand_measures`.
    """
    out: list[Resolved] = []
    explicit: set[str] = set()
    seen: set[str] = set()
    for item, from_set in _items(metrics):
        for resolved in item:
            name = resolved.measure.name
            if name in seen:
                if not from_set and name in explicit:
                    raise MeasureError(f"measure {name} is requested twice")
                if not from_set:
                    explicit.add(name)
                continue
            seen.add(name)
            if not from_set:
                explicit.add(name)
            out.append(resolved)
    if not out:
        raise MeasureError("no measure requested")
    return out


def _items(metrics: Any) -> Iterable[tuple[list[Resolved], bool]]:
    """``(resolved measures, from a set)`` for every word of ``metrics``."""
    if isinstance(metrics, (str, Measure)) or _is_ir_measures_object(metrics):
        metrics = [metrics]
    if not isinstance(metrics, Iterable):
        raise MeasureError(f"measures must be names or a list of names, not "
                           f"{type(metrics).__name__}")
    for metric in metrics:
        if not isinstance(metric, str):
            yield [translate(metric)], False
            continue
        for word in _split_words(metric):
            if word in MEASURE_SETS:
                entry = MEASURE_SETS[word]
                yield [Resolved(parse_measure(n), entry.name, n, entry.order, entry.description)
                       for n in entry.names], True
            else:
                yield _resolve_string(word), False


def _split_words(text: str) -> list[str]:
    """Split at commas outside brackets; a bare number continues a trec_eval cutoff list
    (``P.5,10`` is one word)."""
    words: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(text + ","):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth <= 0:
            word = text[start:i].strip()
            start = i + 1
            if not word:
                continue
            if word.isdigit() and words and re.fullmatch(r"[A-Za-z0-9_]+\.[0-9,]+", words[-1]):
                words[-1] += "," + word
            else:
                words.append(word)
    return words


def _resolve_string(text: str) -> list[Resolved]:
    """A registry, trec_eval or ir_measures string: one or more resolved measures."""
    try:
        return [Resolved(parse_measure(text), "xdiv", text, None, "")]
    except MeasureError as exc:
        registry_error = exc
    stripped = text.strip()
    if stripped in MEASURE_SETS:
        raise MeasureError(f"{stripped!r} is a set of {len(MEASURE_SETS[stripped].names)} "
                           "measures; use expand_measures or measure_set")
    trec = _trec_eval(stripped)
    if trec is not None:
        return trec
    parsed = _parse_ir_measures(stripped)
    if parsed is not None:
        return [_ir_measures(parsed[0], parsed[1], stripped)]
    raise registry_error


# ------------------------------------------------------------------------ trec_eval

def _trec_eval(text: str) -> list[Resolved] | None:
    """trec_eval's ``name``, ``name.k[,k...]`` or ``name_k``; None if not a trec_eval name."""
    match = _TREC_FORM.match(text)
    if not match or match["base"] not in _TREC_EVAL:
        return None
    entry = _TREC_EVAL[match["base"]]
    if entry.target is None:
        raise MeasureError(f"trec_eval {text}: {entry.note}")
    arg = match["arg"]
    if arg is None:
        cutoffs: tuple[int | None, ...] = entry.defaults or (None,)
    elif entry.cutoff == "none":
        raise MeasureError(f"trec_eval {text}: {entry.name} takes no parameter")
    else:
        pieces = arg.split(",") if match["sep"] == "." else [arg]
        if not all(p.isdigit() for p in pieces):
            raise MeasureError(f"trec_eval {text}: the cutoffs must be whole numbers, e.g. "
                               f"{entry.name}.10 or {entry.name}_10")
        cutoffs = tuple(int(p) for p in pieces)
    return [Resolved(_build(entry, {}, k, text), "trec_eval", text, entry.order, entry.note)
            for k in cutoffs]


# ------------------------------------------------------------------------ ir_measures

def _is_ir_measures_object(value: Any) -> bool:
    """Duck-typed ir_measures measure: a string ``NAME`` and a dict ``params``."""
    return (not isinstance(value, (str, Measure)) and isinstance(getattr(value, "NAME", None), str)
            and isinstance(getattr(value, "params", None), dict))


def _parse_ir_measures(text: str) -> tuple[str, dict[str, Any]] | None:
    """``(NAME, params)`` of an ir_measures string, or None if it is not one.

    Uses ``ir_measures.parse_measure`` when ir_measures is installed, else
    :func:`parse_ir_measures_string`.
    """
    try:
        import ir_measures
    except ImportError:
        return parse_ir_measures_string(text)
    try:
        measure = ir_measures.parse_measure(text)
    except (ValueError, NameError, SyntaxError, TypeError, AttributeError):
        return None
    return measure.NAME, dict(measure.params)


def parse_ir_measures_string(text: str) -> tuple[str, dict[str, Any]] | None:
    """Parse an ir_measures measure string without ir_measures.

    Parameters
    ----------
    text : str
        ``Name``, ``Name(key=value, ...)``, ``Name@k`` or ``Name(key=value, ...)@k`` with
        Python literal values, as ir_measures writes them.

    Returns
    -------
    tuple of (str, dict) or None
        The measure's ``NAME`` (aliases such as ``MAP`` resolved) and the parameters given
        (the cutoff as ``cutoff``), as ``ir_measures.parse_measure`` gives them; None when
        ``text`` is not of that form or names no measure of :data:`TRANSLATIONS`.
    """
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    params: dict[str, Any] = {}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        try:
            params["cutoff"] = ast.literal_eval(node.right)
        except ValueError:
            return None
        node = node.left
    if isinstance(node, ast.Call):
        if node.args or any(k.arg is None for k in node.keywords):
            return None
        try:
            params.update({k.arg: ast.literal_eval(k.value) for k in node.keywords})
        except ValueError:
            return None
        node = node.func
    if not isinstance(node, ast.Name):
        return None
    name = IR_MEASURES_ALIASES.get(node.id, node.id)
    params = {**IR_MEASURES_ALIAS_PARAMS.get(node.id, {}), **params}
    return (name, params) if name in _IR_MEASURES else None


def _ir_measures(name: str, params: dict[str, Any], label: str) -> Resolved:
    """Translate an ir_measures measure (``NAME``, given ``params``) to the registry."""
    name = IR_MEASURES_ALIASES.get(name, name)
    entries = _IR_MEASURES.get(name)
    if not entries:
        raise MeasureError(f"ir_measures {label}: no xdiv counterpart is known for "
                           f"ir_measures' {name}")
    value = {**IR_MEASURES_DEFAULTS, **IR_MEASURES_OWN_DEFAULTS.get(name, {}), **params}.get
    entry = next((e for e in entries if all(value(k) == v for k, v in e.when)), None)
    if entry is None:
        options = "; ".join(", ".join(f"{k}={v!r}" for k, v in e.when) for e in entries)
        raise MeasureError(f"ir_measures {label}: xdiv translates {name} only with {options}")
    if entry.target is None:
        raise MeasureError(f"ir_measures {label}: {entry.note}")
    cutoff = params.get("cutoff")
    copied: dict[str, Any] = {}
    required = dict(entry.require)
    copies = dict(entry.copy)
    for key, given in params.items():
        if key == "cutoff" or key in dict(entry.when):
            continue
        if key in copies:
            copied[copies[key]] = _COPY_CONVERT.get(key, _same)(given, label)
        elif key in required:
            if given != required[key]:
                raise MeasureError(f"ir_measures {label}: {_REQUIRE_WHY[key](given, entry)}")
        else:
            raise MeasureError(f"ir_measures {label}: parameter {key}={given!r} of {name} "
                               f"has no counterpart in xdiv's {entry.target}")
    if entry.cutoff == "none" and cutoff is not None:
        raise MeasureError(f"ir_measures {label}: {name} takes no cutoff")
    if entry.cutoff == "required" and cutoff is None:
        raise MeasureError(f"ir_measures {label}: {name} needs a cutoff, e.g. {name}@20")
    if cutoff is not None and (isinstance(cutoff, bool) or not isinstance(cutoff, int)):
        raise MeasureError(f"ir_measures {label}: the cutoff must be a whole number")
    order = entry.order if cutoff is None or entry.cut_order is None else entry.cut_order
    return Resolved(_build(entry, copied, cutoff, label), "ir_measures", label, order,
                    entry.note)


def _same(value: Any, label: str) -> Any:
    return value


def _gains(mapping: Any, label: str) -> str | tuple[float, ...]:
    """ir_measures' ``gains`` (level -> gain, other levels keep their own value as gain) as
    the registry's ``gain``: ``linear`` or the gains of levels 1..M."""
    if not isinstance(mapping, Mapping):
        raise MeasureError(f"ir_measures {label}: gains must be a mapping level -> gain")
    levels = [k for k in mapping if not isinstance(k, bool) and isinstance(k, int)]
    if len(levels) != len(mapping):
        raise MeasureError(f"ir_measures {label}: gains must map whole-number levels")
    if any(mapping[k] != 0 for k in levels if k <= 0):
        raise MeasureError(f"ir_measures {label}: gains give a level <= 0 a non-zero gain; "
                           "xdiv gives judged non-relevant and unjudged documents gain 0")
    top = max([k for k in levels if k > 0], default=0)
    gains = tuple(float(mapping.get(x, x)) for x in range(1, top + 1))
    if any(g < 0 for g in gains) or any(b < a for a, b in zip(gains, gains[1:])):
        raise MeasureError(f"ir_measures {label}: gains must be non-negative and "
                           "non-decreasing in the level (trec_eval's ideal list is sorted by "
                           "gain, xdiv's by level)")
    if gains == tuple(float(x) for x in range(1, top + 1)):
        return "linear"
    return gains


_COPY_CONVERT = {"gains": _gains}
"""Converters of tool parameters whose values are spelled differently in the registry."""

_REQUIRE_WHY = {
    "rel": lambda v, e: (f"rel={v} counts levels >= {v} as relevant, xdiv's {e.target} "
                         "counts levels >= 1 (it has no threshold parameter): set the "
                         f"levels below {v} to 0 in the qrels and ask for {e.name} without "
                         "rel"),
    "judged_only": lambda v, e: (f"judged_only={v} drops unjudged documents from the ranking; "
                                 f"xdiv's {e.target} counts them as non-relevant: remove "
                                 "unjudged documents from the runs first"),
}
"""Why a tool parameter value has no xdiv counterpart, per parameter."""


def _build(entry: Translation, extra: dict[str, Any], cutoff: int | None,
           label: str) -> Measure:
    """Parse the registry spelling of ``entry`` with ``extra`` parameters and ``cutoff``."""
    target = entry.cut_target if cutoff is not None and entry.cut_target else entry.target
    base, _, inner = target.partition("(")
    values = dict(p.split("=", 1) for p in inner.rstrip(")").split(",") if p)
    values.update({k: _spell(v) for k, v in extra.items()})
    parts = [f"{k}={v}" for k, v in values.items()]
    spelling = base + (f"({','.join(parts)})" if parts else "")
    spelling += f"@{cutoff}" if cutoff is not None else ""
    try:
        return parse_measure(spelling)
    except MeasureError as exc:
        raise MeasureError(f"{entry.tool} {label}: {exc}") from None


def _spell(value: Any) -> str:
    """A parameter value as the registry grammar reads it."""
    if isinstance(value, tuple):
        return "(" + ",".join(_spell(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, float) and value.is_integer():
        return repr(int(value))
    return str(value) if isinstance(value, str) else repr(value)
