"""``xdiv measures``: the measure reference and the named measure sets.

The reference is Markdown with TeX formulas between ``$`` signs (the docs site typesets them
while it is built). It is generated from the measure registry: each family gets a section
with its shared definitions, then a compact table of its measures; every parameter is
described once, in the parameter list.
"""

from __future__ import annotations

import re

from ..measures.names import describe_sets
from ..measures.registry import MeasureDef, Param, format_value, measure_names, registry
from .common import command

INTRO = r"""# Measure reference

Generated from xdiv's measure registry by `xdiv measures`; do not edit by hand. The
papers cited are listed in full on the [references](references.md) page.

A measure is named `NAME[(key=value,...)][@l]`, e.g. `Q(beta=0)@10`: parameters left out
keep their defaults, and the scores are labelled with the parameters that differ from them
(`nDCG(gain=exp)@10` is `nDCG@10`). The cutoff `@l` is *required*, *optional* (without it
the whole ranked list is scored) or not taken (*none*) as each table says.

## Notation

A topic $q$ has intents $i \in I_q$ with probabilities $\Pr(i \mid q)$ that sum to 1, and
each intent is informational or navigational. Intents without a relevant document are left
out, with the probabilities renormalised over the others. A run ranks documents
$d_1, d_2, \dots$ for the topic; $r$ is a rank (from 1) and $l$ the cutoff.

- $x_i(r) \in \{0, \dots, H\}$: the relevance level of $d_r$ for intent $i$ (0: not
  relevant or not judged); $x(r)$ on single-intent qrels; $H$ the highest level.
- $\mathrm{gv}(x)$: the gain value of level $x$ (parameter `gain`); $g(r) = \mathrm{gv}(x(r))$,
  $g_i(r) = \mathrm{gv}(x_i(r))$, and the cumulative gain $cg(r) = \sum_{k \le r} g(k)$.
- $J(r) = 1$ if $d_r$ is relevant (to at least one intent), else 0;
  $C(r) = \sum_{k \le r} J(k)$; $R$ is the number of judged relevant documents.
- The ideal list ranks every judged relevant document by decreasing gain; a star marks
  its values: $g^*(r)$, $cg^*(r)$.
- $\mathrm{disc}(r) = 1 / \log_2(r + 1)$, the rank discount of the nDCG-like measures.
- $I(d)$: the intents to which document $d$ is relevant.
- $GG(r) = \sum_{i \in I_q} \Pr(i \mid q)\, g_i(r)$: the global gain of $d_r$; $GG^*$ is
  that of the globally ideal list (every judged document by decreasing global gain) and
  $cGG(r) = \sum_{k \le r} GG(k)$.
"""

FAMILIES: dict[str, tuple[str, str]] = {
    "graded": ("Graded measures", r"""
Single-intent measures of graded relevance. On a diversity collection each document is
given one level, as the parameter `adhoc` says (by default its highest level over the
intents). Q and P+ use the blended ratio

$$BR(r) = \frac{C(r) + \beta\, cg(r)}{r + \beta\, cg^*(r)},$$

which is precision at $r$ when $\beta = 0$.
"""),
    "intent-aware": ("Intent-aware measures", r"""
An intent-aware measure averages a single-intent measure $M$ over the intents,

$$M\text{-IA}@l = \sum_{i \in I_q} \Pr(i \mid q)\, M_i@l,$$

where $M_i$ is computed with intent $i$'s levels $x_i$ and its own ideal list.
"""),
    "diversity": ("Diversity measures", r"""
Measures of diversified rankings over a flat list of intents. The #-measures combine a
measure $M$ with intent recall, rewarding diversity and relevance at once:

$$M\#@l = \gamma\, \text{I-rec}@l + (1 - \gamma)\, M@l.$$

The DIN-measures let a navigational intent $j$ count only at its first relevant document:
$\mathrm{isnew}_j(r) = 1$ if no document above rank $r$ is relevant to $j$, and

$$GG_{\mathrm{DIN}}(r) = \sum_{i\ \mathrm{inf}} \Pr(i \mid q)\, g_i(r)
  + \sum_{j\ \mathrm{nav}} \mathrm{isnew}_j(r) \Pr(j \mid q)\, g_j(r).$$

The effective relevance $J'(r)$ is 1 if $d_r$ is relevant to an informational intent or is
the first relevant document of a navigational one; $C'(r) = \sum_{k \le r} J'(k)$.
"""),
    "ndeval": ("ndeval measures", r"""
These names mean by default exactly what ndeval, the TREC Web Track's diversity evaluator,
computes: per-intent relevance is binary ($x_i \ge 1$), the $N$ intents that have a
relevant document weigh the same, and a document gains by novelty,

$$G(r) = \sum_{s} J_s(r)\, (1 - \alpha)^{c_s(r)},$$

where $J_s(r) = 1$ if $d_r$ is relevant to intent $s$ and $c_s(r)$ counts the documents
above rank $r$ relevant to $s$. The greedy ideal list takes at each rank the judged document
with the largest novelty gain (ties: the largest docno). With `ndeval=False` the name
means the graded, probability-weighted form instead. See
[Coming from ndeval](coming-from.md) for ndeval's conventions.
"""),
    "hierarchy": ("Hierarchy measures", r"""
With an intent hierarchy (a tree of intents per topic: the atomic intents are its leaves,
broader intents its inner nodes; see [Intent hierarchies](hierarchies.md)), a document is
relevant to a node when it is relevant to one of the node's leaves. $V$ is the set of
nodes other than the root, $N(d)$ the nodes $d$ is relevant to, $w_h$ the weight of layer
$h$ and $GG_h$ the global gain with the layer-$h$ nodes as intents (node weights as
probabilities). The LA (layer-aware) form of a flat measure $M$ is

$$M\text{-LA}@l = \sum_h w_h\, M_h@l,$$

$M_h$ being $M$ with the layer-$h$ nodes as intents. The HD-measures use the hierarchical
global gain $GG(r) = \sum_h w_h\, GG_h(r)$; the #-forms combine with node recall N-rec
instead of I-rec.
"""),
}

_IA_NDEVAL_FALSE = r"`ndeval=False`: $\sum_i \Pr(i \mid q)\, {m}_i$"

FORMULAS: dict[str, str] = {
    # graded
    "nDCG": r"$\frac{\sum_{r \le l} g(r)\, \mathrm{disc}(r)}{\sum_{r \le l} g^*(r)\, "
            r"\mathrm{disc}(r)}$",
    "Q": r"$\frac{1}{\min(l, R)} \sum_{r \le l} J(r)\, BR(r)$; without a cutoff "
         r"$\frac{1}{R}$ over the whole list",
    "AP": r"$\frac{1}{\min(l, R)} \sum_{r \le l} J(r) \frac{C(r)}{r}$ (Q with $\beta = 0$); "
          r"`denominator=R` divides by $R$ (`trec_eval`'s `map_cut`)",
    "P+": r"$\frac{1}{C(r_p)} \sum_{r \le r_p} J(r)\, BR(r)$, $r_p$ the first rank holding the "
          r"highest level present in the top $l$; 0 without a relevant document there",
    "ERR": r"$\sum_{r \le l} \frac{1}{r}\, p(r) \prod_{k < r} (1 - p(k))$, "
           r"$p(r) = \frac{\mathrm{gv}(x(r))}{\mathrm{gv}(H) + 1}$ "
           r"($= (2^{x} - 1)/2^H$ with `gain=exp`)",
    "nERR": r"ERR@$l$ divided by ERR@$l$ of the ideal list",
    "GAP": r"$\frac{\sum_{k} \frac{1}{k} \sum_{\kappa \le k} q_{\min(x(\kappa), x(k))}}"
           r"{\sum_{x = 1}^{H} R_x\, q_x}$, $q_x = \sum_{j \le x} g_j$ "
           r"($g_j$: probability that a user's relevance threshold is level $j$; $R_x$: "
           r"documents of level $x$)",
    "nGAP": r"GAP's numerator over the top $l$ divided by the same over the ideal list's "
            r"top $l$",
    "P": r"$C(l) / l$ (a list shorter than $l$ counts as $l$)",
    "RR": r"$1 / r_1$, $r_1$ the rank of the first relevant document (0 if none in the "
          r"list or the top $l$)",
    "Hit": r"1 if $C(l) > 0$, else 0",
    "RBP": r"$(1 - p) \sum_r p^{r - 1}\, \frac{g(r)}{\mathrm{gv}(H)}$",
    "Rprec": r"$C(R) / R$, precision at rank $R$ (ranks past the end of the run count as "
             r"not relevant)",
    "bpref": r"$\frac{1}{R} \sum_{r:\, J(r) = 1} \left(1 - \frac{\min(n(r), R)}{\min(N, R)}"
             r"\right)$, $n(r)$ the judged non-relevant documents ranked above $r$, $N$ all "
             r"judged non-relevant documents; unjudged documents, and as in trec_eval those "
             r"whose levels are all negative, are skipped",
    "Judged": r"the share of the top $\min(l, n)$ documents that are judged, $n$ the number "
              r"retrieved (without a cutoff: of the whole run)",
    "NumRet": r"$n$, the number of documents retrieved",
    "NumRel": r"$R$, the number of judged relevant documents",
    "NumRelRet": r"$C(n)$, the number of relevant documents retrieved",
    "U": r"$\frac{1}{N} \sum_k g(\mathrm{pos}_k)\, D(\mathrm{pos}_k)$, "
         r"$D(\mathrm{pos}) = \max(0, 1 - \mathrm{pos}/L)$: the user reads a snippet per "
         r"rank and a share $F$ of each relevant document; $\mathrm{pos}_k$ is the number of "
         r"characters read when the $k$-th relevant text ends, with gain "
         r"$\mathrm{gv}(x)/(\mathrm{gv}(H) + 1)$",
    # intent-aware
    "U-IA": r"$\sum_i \Pr(i \mid q)\, U_i$, one reading per intent (full text read only "
            r"for the intent's relevant documents)",
    # diversity
    "I-rec": r"$\frac{\lvert \bigcup_{r \le l} I(d_r) \rvert}{\lvert I_q \rvert}$, the share "
             r"of intents covered by the top $l$",
    "Prec": r"$\frac{1}{l} \sum_{r \le l} J(r)$",
    "Ef-P": r"$\frac{1}{l} \sum_{r \le l} J'(r)$",
    "D-nDCG": r"$\frac{\sum_{r \le l} GG(r)\, \mathrm{disc}(r)}"
              r"{\sum_{r \le l} GG^*(r)\, \mathrm{disc}(r)}$",
    "D-Q": r"$\frac{1}{\min(l, R)} \sum_{r \le l} J(r)\, BR(r)$ with global gains: "
           r"$BR(r) = \frac{C(r) + \beta\, cGG(r)}{r + \beta\, cGG^*(r)}$",
    "DIN-nDCG": r"D-nDCG with $GG_{\mathrm{DIN}}$ for the run (ideal list as D-nDCG, so "
                r"DIN-nDCG $\le$ D-nDCG)",
    "DIN-Q": r"$\frac{1}{\min(l, R)} \sum_{r \le l} J'(r)\, BR'(r)$, "
             r"$BR'(r) = \frac{C'(r) + \beta\, cGG_{\mathrm{DIN}}(r)}{r + \beta\, cGG^*(r)}$ "
             r"with $cGG_{\mathrm{DIN}}(r) = \sum_{k \le r} GG_{\mathrm{DIN}}(k)$ "
             r"(reconstructed: the formula cannot be read in the available text of the paper; "
             r"xdiv follows its prose on effective relevance)",
    "P+Q": r"$\sum_{i\ \mathrm{inf}} \Pr(i \mid q)\, Q_i@l \;+$ $\sum_{j\ \mathrm{nav}} "
           r"\Pr(j \mid q)\, P^{+}_j@l$, each intent with its own ideal list",
    "D-U": r"U over one reading in which every document relevant to some intent is read, "
           r"with gain $GG$",
    # ndeval
    "alpha-DCG": r"$\frac{\sum_{r \le l} G(r)\, \mathrm{disc}(r)}"
                 r"{\sum_{r \le l} N (1 - \alpha)^{r - 1} \mathrm{disc}(r)}$",
    "alpha-nDCG": r"$\frac{\sum_{r \le l} G(r)\, \mathrm{disc}(r)}"
                  r"{\sum_{r \le l} G^*(r)\, \mathrm{disc}(r)}$, $G^*$ of the greedy ideal "
                  r"list; `ndeval=False` weights intent $s$'s terms by $\Pr(s \mid q)$ and uses "
                  r"graded levels",
    "ERR-IA": r"$\frac{\sum_{r \le l} G(r) / r}{\sum_{r \le l} N (1 - \alpha)^{r - 1} / r}$; "
              + _IA_NDEVAL_FALSE.format(m=r"\mathrm{ERR}") + r" with graded stop probabilities",
    "nERR-IA": r"$\frac{\sum_{r \le l} G(r) / r}{\sum_{r \le l} G^*(r) / r}$; "
               + _IA_NDEVAL_FALSE.format(m=r"\mathrm{nERR}"),
    "NRBP": r"$\frac{1 - (1 - \alpha) \beta}{N} \sum_r \beta^{r - 1} G(r)$ over the whole list",
    "nNRBP": r"NRBP divided by NRBP of the greedy ideal list",
    "MAP-IA": r"$\frac{1}{N} \sum_s \mathrm{AP}_s$ over the whole list; "
              + _IA_NDEVAL_FALSE.format(m=r"\mathrm{AP}") + " (= AP-IA)",
    "P-IA": r"relevant (document, intent) pairs in the top $l$ divided by $l N$; "
            + _IA_NDEVAL_FALSE.format(m=r"\mathrm{P}"),
    # hierarchy
    "N-rec": r"$\frac{\lvert \bigcup_{r \le l} N(d_r) \rvert}{\lvert V \rvert}$, the share of "
             r"nodes covered by the top $l$",
    "HD-nDCG": r"D-nDCG with the hierarchical global gain",
    "HD-Q": r"D-Q with the hierarchical global gain",
}
FORMULAS.update({f"LD#-{m}": rf"$\gamma\, \text{{N-rec}}@l + (1 - \gamma)\, \text{{D-{m}}}@l$ "
                           r"over the leaves, with their node weights as probabilities"
                 for m in ("nDCG", "Q")})
FORMULAS.update({f"LAD#-{m}": rf"$\gamma\, \text{{N-rec}}@l + (1 - \gamma)\, \text{{D-{m}-LA}}@l$"
                 for m in ("nDCG", "Q")})


def _derived(definition: MeasureDef) -> str | None:
    """The formula of a measure built from another by a family rule (#, -IA, -LA)."""
    name, at = definition.name, "" if definition.cutoff == "none" else "@l"
    if name.endswith("-LA"):
        return rf"$\sum_h w_h\, \text{{{name[:-3]}}}_h{at}$"
    if definition.family == "intent-aware" and name.endswith("-IA"):
        return rf"$\sum_i \Pr(i \mid q)\, \text{{{name[:-3]}}}_i{at}$"
    if "#" in name and any(p.name == "gamma" for p in definition.params):
        recall = "N-rec" if definition.family == "hierarchy" else "I-rec"
        base = name.replace("#", "")
        return rf"$\gamma\, \text{{{recall}}}@l + (1 - \gamma)\, \text{{{base}}}@l$"
    return None


_CODE = re.compile(r"(`[^`]*`)")


def _escape(text: str) -> str:
    """Registry prose as Markdown text: ``_ * $ |`` kept literal outside code spans."""
    parts = _CODE.split(" ".join(text.split()))
    return "".join(part if part.startswith("`") else re.sub(r"([_*$|\\])", r"\\\1", part)
                   for part in parts)


def _definition(definition: MeasureDef) -> str:
    return (FORMULAS.get(definition.name) or _derived(definition)
            or _escape(definition.summary))


def _source(definition: MeasureDef, parts: list[str], measures: dict[str, MeasureDef]) -> str:
    """The row's sources, those of the measure it lifts (-IA, -LA) written "as `M`"."""
    base = measures.get(definition.name[:-3]) if definition.name[-3:] in ("-IA", "-LA") else None
    inherited = base.reference.split("; ") if base is not None else []
    if inherited and parts[len(parts) - len(inherited):] == inherited:
        parts = parts[:len(parts) - len(inherited)] + [f"as `{base.name}`"]
    return _escape("; ".join(parts))


def _parameters(definitions: list[MeasureDef], order: list[str]) -> str:
    params: dict[int, tuple[Param, set[str]]] = {}
    for d in definitions:
        for p in d.params:
            params.setdefault(id(p), (p, set()))[1].add(d.family)
    lines = ["## Parameters", "",
             "Each parameter is described once here, with its default and the families of "
             "the measures that take it; the tables below list each measure's parameters.", ""]
    for p, families in sorted(params.values(), key=lambda item: item[0].name.lower()):
        lines.append(f"- `{p.name}` (default `{format_value(p.default)}`; "
                     f"{', '.join(f for f in order if f in families)}): {_escape(p.doc)}")
    return "\n".join(lines) + "\n"


def _family_section(family: str, definitions: list[MeasureDef],
                    measures: dict[str, MeasureDef]) -> str:
    title, intro = FAMILIES.get(family, (family, ""))
    references = [d.reference.split("; ") for d in definitions]
    common = [part for part in references[0] if all(part in refs for refs in references)]
    lines = [f"## {title}", "", intro.strip(), ""]
    if common:
        lines += [f"Source: {'; '.join(common)}.", ""]
    lines += ["| measure | cutoff | parameters | definition (and source) |", "|---|---|---|---|"]
    for d, refs in zip(definitions, references):
        alias = f" (alias `{'`, `'.join(d.aliases)}`)" if d.aliases else ""
        params = ", ".join(f"`{p.name}`" for p in d.params) or "-"
        source = _source(d, [part for part in refs if part not in common], measures)
        cite = f" — *{source}*" if source else ""
        lines.append(f"| `{d.name}`{alias} | {d.cutoff} | {params} | {_definition(d)}{cite} |")
    return "\n".join(lines) + "\n"


def measures_page() -> str:
    """The docs page ``docs/measures.md``, generated from the measure registry."""
    measures = registry()
    by_family: dict[str, list[MeasureDef]] = {}
    for d in measures.values():
        by_family.setdefault(d.family, []).append(d)
    order = [f for f in FAMILIES if f in by_family] + [f for f in by_family if f not in FAMILIES]
    sections = [_family_section(f, by_family[f], measures) for f in order]
    return "\n".join([INTRO, _parameters(list(measures.values()), order), *sections,
                      "## Measure sets\n\nWherever a list of measures is accepted, these names "
                      "stand for their members.\n\n" + describe_sets()])


def add_parser(sub) -> None:
    ms = command(sub, "measures", "print the measure reference (Markdown) from the registry",
                 run,
                 about="Print every registered measure with its name grammar, cutoff rule, "
                       "parameters and defaults, definition and source paper, and the named "
                       "measure sets (ndeval, gdeval, trec_eval, ntcir-intent), as the "
                       "Markdown of the docs' measure reference.",
                 examples="examples:\n  xdiv measures > measures.md\n"
                          "  xdiv measures | grep -i nDCG\n"
                          "  xdiv measures --names")
    ms.add_argument("--names", action="store_true",
                    help="print only the registered measure names, one a line")


def run(args) -> int:
    if args.names:
        print("\n".join(measure_names()))
        return 0
    print(measures_page(), end="")
    return 0
