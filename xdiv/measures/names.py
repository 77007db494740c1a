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

Every correspondence is declared once in :data:`~xdiv.measures.translations.TRANSLATIONS`
(re-exported here, as are the named sets of :mod:`xdiv.measures.sets`), with the ranking
order the tool uses for that measure (:func:`translate` returns it; pass it to
:func:`xdiv.read_runs`): trec_eval and gdeval break score ties by docno descending, MS
MARCO's MRR script (ir_measures' ``RR@k``) and pyndeval by docno ascending, ranx
(ir_measures' ``nDCG(dcg='exp-log2')`` without a cutoff) leaves them unspecified. A name
whose tool definition xdiv does not have raises :class:`~xdiv.errors.MeasureError` saying
what differs and what to ask for instead.

The correspondences are per topic, on topics with a relevant document: there the values
agree to 1e-9 (gdeval's to its 5 printed decimals) on graded collections with spam
levels and score ties and on the TREC 2009 Web Track runs (tests/measures/test_names.py,
tests/measures/test_trec_eval_staples.py). Each tool's own conventions outside the definitions stay as
documented in the conventions page: trec_eval compares scores in single precision and
scores topics without relevant documents 0 (xdiv: NaN); pyndeval computes cutoffs up to 20
only (xdiv continues the same formulas beyond).

Named measure sets (:data:`~xdiv.measures.sets.MEASURE_SETS`, :func:`measure_set`) give
the measures TREC's ndeval and gdeval print, trec_eval's default measures that xdiv
implements, and the NTCIR INTENT measures. :func:`expand_measures` turns any mix of names, comma-separated
lists, trec_eval cutoff lists (``P.5,10,30``) and set names into measures.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import MeasureError
from ..typing import Tool
from .registry import Measure, parse_measure
from .sets import MEASURE_SETS, MeasureSet, describe_sets, measure_set
from .translations import (ASC, IR_MEASURES_ALIAS_PARAMS, IR_MEASURES_ALIASES,
                           IR_MEASURES_DEFAULTS, IR_MEASURES_OWN_DEFAULTS, TRANSLATIONS, TREC,
                           TREC_CUTOFFS, Translation, describe_translations)

__all__ = [
    # resolving (this module)
    "Resolved", "expand_measures", "expand_resolved", "parse_ir_measures_string", "resolve",
    "translate",
    # the correspondence table (xdiv.measures.translations)
    "ASC", "IR_MEASURES_ALIASES", "IR_MEASURES_ALIAS_PARAMS", "IR_MEASURES_DEFAULTS",
    "IR_MEASURES_OWN_DEFAULTS", "TRANSLATIONS", "TREC", "TREC_CUTOFFS", "Translation",
    "describe_translations",
    # the named sets (xdiv.measures.sets)
    "MEASURE_SETS", "MeasureSet", "describe_sets", "measure_set",
]


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
                        r"(?:(?P<sep>[._])(?P<arg>-?[0-9][-0-9.,]*))?$")


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
    if callable(getattr(name, "registry_measure", None)):  # xdiv's own ir_measures objects
        measure = name.registry_measure()
        return Resolved(measure, "xdiv", measure.name, None, "")
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
    (``P.5,10``, ``iprec_at_recall.0.1,0.5`` and ``utility_2,-1,0,0`` are one word
    each)."""
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
            if (re.fullmatch(r"-?[0-9]+(\.[0-9]*)?", word) and words
                    and _takes_more_numbers(words[-1])):
                words[-1] += "," + word
            else:
                words.append(word)
    return words


def _takes_more_numbers(word: str) -> bool:
    """Whether a number after ``word`` and a comma continues it: ``word`` is a trec_eval
    name with its parameters after a dot, or one whose printed name lists its
    coefficients (``utility_2``)."""
    if re.fullmatch(r"[A-Za-z0-9_]+\.[-0-9.,]+", word):
        return True
    match = re.fullmatch(r"(?P<base>[A-Za-z0-9_]+?)_-?[0-9][-0-9.,]*", word)
    return bool(match) and bool(getattr(_TREC_EVAL.get(match["base"]), "args", ()))


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
    if arg is not None and entry.args:
        return [_trec_eval_coefficients(entry, arg, text)]
    if arg is None:
        cutoffs: tuple[Any, ...] = entry.defaults or (None,)
    elif entry.cutoff == "none":
        raise MeasureError(f"trec_eval {text}: {entry.name} takes no parameter here "
                           f"({entry.note})")
    elif entry.arg is not None:
        pieces = arg.split(",") if match["sep"] == "." else [arg]
        if not all(re.fullmatch(r"[0-9]+(\.[0-9]*)?", p) for p in pieces):
            raise MeasureError(f"trec_eval {text}: the parameters must be numbers, e.g. "
                               f"{entry.name}.0.5 or {entry.name}_0.5")
        cutoffs = tuple(float(p) for p in pieces)
    else:
        pieces = arg.split(",") if match["sep"] == "." else [arg]
        if not all(p.isdigit() for p in pieces):
            raise MeasureError(f"trec_eval {text}: the cutoffs must be whole numbers, e.g. "
                               f"{entry.name}.10 or {entry.name}_10")
        cutoffs = tuple(int(p) for p in pieces)
    if entry.arg is not None:  # the suffix sets a parameter: no cutoff
        return [Resolved(_build(entry, {} if v is None else {entry.arg: v}, None, text),
                         "trec_eval", text, entry.order, entry.note) for v in cutoffs]
    return [Resolved(_build(entry, {}, k, text), "trec_eval", text, entry.order, entry.note)
            for k in cutoffs]


def _trec_eval_coefficients(entry: Translation, arg: str, text: str) -> Resolved:
    """The measure of a name whose suffix gives every parameter of ``entry.args``."""
    pieces = arg.split(",")
    if len(pieces) != len(entry.args) or not all(
            re.fullmatch(r"-?[0-9]+(\.[0-9]*)?", p) for p in pieces):
        raise MeasureError(f"trec_eval {text}: {entry.name} takes {len(entry.args)} numbers, "
                           f"e.g. {entry.name}_{','.join(['1'] * len(entry.args))}")
    params = dict(zip(entry.args, map(float, pieces)))
    return Resolved(_build(entry, params, None, text), "trec_eval", text, entry.order,
                    entry.note)


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
