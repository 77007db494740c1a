"""Named measure sets: the measures TREC's ndeval and gdeval print, trec_eval's default
measures that xdiv implements, and the NTCIR INTENT measures (:data:`MEASURE_SETS`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import MeasureError
from .translations import TREC, TREC_CUTOFFS

__all__ = ["MEASURE_SETS", "MeasureSet", "describe_sets", "measure_set"]


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
