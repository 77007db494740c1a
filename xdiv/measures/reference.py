"""The measure reference: the Markdown page ``docs/measures.md`` (``xdiv measures``).

The reference is Markdown with TeX formulas between ``$`` signs (the docs site typesets them
while it is built). It is generated from the measure registry: each family gets a section
with its shared definitions, then a compact table of its measures, each with the formula
declared with it (:func:`~xdiv.measures.registry.register`); every parameter is described
once, in the parameter list.
"""

from __future__ import annotations

import re

from .oneclick import ONECLICK
from .oneclick import SECTION as ONECLICK_SECTION
from .registry import MeasureDef, Param, format_value, registry
from .sets import describe_sets

__all__ = ["FAMILIES", "INTRO", "measures_page"]

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
out, with the probabilities renormalised over the others (`read_qrels(...,
renormalise=True)`, the default for TREC qrels), or used as given (`renormalise=False`,
`--no-renormalise`; NTCIREVAL's convention, the default for NTCIR qrels: Sakai & Song,
SIGIR 2011), when the probabilities of $I_q$ may sum to less than 1 and the measures
weighting by them (D-Q, D#-Q, DIN-Q, P+Q, the intent-aware measures) may stay below 1 on
the ideal list; D-nDCG and I-rec do not change. A run ranks documents
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
    "1click": ("1CLICK measures (xdiv.oneclick)", ONECLICK_SECTION),
}

_CODE = re.compile(r"(`[^`]*`)")


def _escape(text: str) -> str:
    """Registry prose as Markdown text: ``_ * $ |`` kept literal outside code spans."""
    parts = _CODE.split(" ".join(text.split()))
    return "".join(part if part.startswith("`") else re.sub(r"([_*$|\\])", r"\\\1", part)
                   for part in parts)


def _definition(definition: MeasureDef) -> str:
    """The measure's formula; its plain-text summary where it was declared without one."""
    return definition.formula or _escape(definition.summary)


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


def _oneclick_section(measures: dict[str, MeasureDef]) -> str:
    """The 1CLICK measures, which the registry does not hold (they score the nuggets of a
    text output, not ranked lists), with their parameters."""
    definitions = list(ONECLICK.values())
    params = {id(p): p for d in definitions for p in d.params}.values()
    lines = [f"- `{p.name}`: {_escape(p.doc)}" for p in params]
    return "\n".join([_family_section("1click", definitions, measures), "Parameters:", "",
                      *lines, ""])


def measures_page() -> str:
    """The docs page ``docs/measures.md``, generated from the measure registry."""
    measures = registry()
    by_family: dict[str, list[MeasureDef]] = {}
    for d in measures.values():
        by_family.setdefault(d.family, []).append(d)
    order = [f for f in FAMILIES if f in by_family] + [f for f in by_family if f not in FAMILIES]
    sections = [_family_section(f, by_family[f], measures) for f in order]
    return "\n".join([INTRO, _parameters(list(measures.values()), order), *sections,
                      _oneclick_section(measures),
                      "## Measure sets\n\nWherever a list of measures is accepted, these names "
                      "stand for their members.\n\n" + describe_sets()])
