"""One registry of measures with parseable names (``nDCG@10``, ``Q(beta=0)@10``, ...).

Grammar: ``NAME[(key=value, ...)][@cutoff]``; a name may itself end in ``@`` and a word
(``I-rec@n``, whose cutoff varies with the topic). Values are numbers, ``True``/``False``,
bare words (``gain=linear``) or tuples of numbers (``gain=(1,3,7)``). Every measure is
declared once with :func:`register`, with its parameters (shared :class:`Param` objects,
documented once), whether it takes a cutoff, its formula and its source paper. The
canonical name of a parsed measure lists only the parameters that differ from their
defaults, so ``nDCG(gain=exp)@10`` and ``nDCG@10`` are the same label.
"""

from __future__ import annotations

import ast
import difflib
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

from ..errors import MeasureError
from ..typing import MAX_CUTOFF, CutoffRule  # noqa: F401  (MAX_CUTOFF re-exported)


@dataclass(frozen=True)
class Param:
    """A measure parameter: its name, default, documentation and validating converter."""

    name: str
    default: Any
    doc: str
    convert: Callable[[Any], Any]

    def parse(self, value: Any, measure: str) -> Any:
        try:
            return self.convert(value)
        except (TypeError, ValueError) as exc:
            raise MeasureError(f"{measure}: bad value {value!r} for parameter "
                               f"{self.name!r}: {exc}") from None


@dataclass(frozen=True)
class MeasureDef:
    """A registered measure family member: how to compute it and how to name it."""

    name: str
    compute: Callable
    params: tuple[Param, ...]
    cutoff: CutoffRule
    family: str
    reference: str
    doc: str
    formula: str | None = None
    """The definition in TeX between ``$`` signs, as the measure reference prints it (None:
    the reference prints the first line of ``doc``)."""
    aliases: tuple[str, ...] = ()
    unused: tuple[tuple[str, str, Any], ...] = ()
    """``(param, switch, value)``: ``param`` is not used when ``switch`` equals ``value``."""
    uses_intent_types: bool = False
    """The measure treats navigational and informational intents differently."""
    expected: Callable | None = None
    """``expected(cube, measure)``: the exact expectation of the measure over the orders
    of the runs' tie groups, from a judged cube holding ``tie_start`` (see
    :mod:`xdiv.core.ties`); None: the expectation is estimated from random orders."""
    tie_bounds: bool = False
    """The measure is a sum over intents of terms that each grow when a document more
    relevant to the intent moves up: scored on the lists whose tie groups are sorted best
    first (worst first) for each intent apart, it gives an upper (lower) bound over the
    tie orders, and the exact maximum (minimum) on single-intent lists."""

    @property
    def summary(self) -> str:
        return self.doc.strip().splitlines()[0] if self.doc.strip() else ""


@dataclass(frozen=True)
class Measure:
    """A parsed measure: a definition with its parameter values and cutoff."""

    definition: MeasureDef
    values: tuple[tuple[str, Any], ...]
    cutoff: int | None
    name: str = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "name", _canonical(self))

    def __getitem__(self, key: str) -> Any:
        return dict(self.values)[key]

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.values)

    def __str__(self) -> str:
        return self.name

    def replace(self, **values: Any) -> Measure:
        """The same measure with the given parameter values (already converted)."""
        unknown = set(values) - set(self.params)
        if unknown:
            raise MeasureError(f"{self.name}: unknown parameter(s) {sorted(unknown)}")
        return Measure(self.definition, tuple((k, values.get(k, v)) for k, v in self.values),
                       self.cutoff)


SINGLE_INTENT_FAMILY = "graded"
"""The family of the single-intent (adhoc) measures: each also takes :data:`ADHOC`."""

DEFAULT_ADHOC = "max"
"""How a single-intent measure reads a diversity collection unless told otherwise."""


def adhoc_method(value: Any) -> str | None:
    """Converter for ``adhoc``: ``None`` (the default of the call) or ``max``/``count``."""
    if value is None or value == "None":
        return None
    return choice("max", "count")(value)


ADHOC = Param("adhoc", None, "how a diversity collection is read as one relevance level per "
              "document: `max` = the document's highest level over the topic's intents "
              "(gr2T), `count` = the number of intents it is relevant to (2T) (Sakai & Song, "
              "SIGIR 2011); default: evaluate's `adhoc` (`--adhoc`), else `max`. `max` leaves "
              "an adhoc collection as it is; diversity measures always read the per-intent "
              "levels", adhoc_method)


def with_adhoc(measure: Measure, default: str | None = None) -> Measure:
    """``measure`` with its ``adhoc`` conversion decided: its own if given, else
    ``default``, else :data:`DEFAULT_ADHOC`. Measures without ``adhoc`` (diversity and
    intent-aware measures) come back unchanged."""
    if "adhoc" not in measure.params or measure["adhoc"] is not None:
        return measure
    return measure.replace(adhoc=ADHOC.parse(default or DEFAULT_ADHOC, measure.name))


_REGISTRY: dict[str, MeasureDef] = {}
_ALIASES: dict[str, str] = {}


def register(name: str, *, params: Sequence[Param] = (), cutoff: CutoffRule = "optional",
             family: str, reference: str, formula: str | None = None,
             aliases: Sequence[str] = (), unused: Sequence[tuple[str, str, Any]] = (),
             uses_intent_types: bool = False, expected: Callable | None = None,
             tie_bounds: bool = False):
    """Decorator declaring ``compute(cube, measure) -> DataArray(run, topic)`` as ``name``.

    ``compute``'s docstring is the plain-text definition; ``formula`` is the same in TeX
    (Markdown with ``$`` maths) for the measure reference (:mod:`xdiv.measures.reference`).

    ``unused`` lists ``(param, switch, value)`` triples: giving ``param`` explicitly while
    ``switch`` equals ``value`` is an error, since that form of the measure ignores it.
    ``uses_intent_types`` marks measures whose value depends on the intents' ``nav``/``inf``
    types (:func:`xdiv.evaluate` warns when the collection has none). ``expected`` and
    ``tie_bounds`` say how the measure is scored over tie orders (:class:`MeasureDef`).
    Measures of the single-intent family (:data:`SINGLE_INTENT_FAMILY`) also take :data:`ADHOC`, last.
    """
    if family == SINGLE_INTENT_FAMILY:
        params = (*params, ADHOC)

    def decorate(compute):
        if name in _REGISTRY or name in _ALIASES:
            raise RuntimeError(f"measure {name} registered twice")
        _REGISTRY[name] = MeasureDef(name, compute, tuple(params), cutoff, family, reference,
                                     compute.__doc__ or "", formula=formula,
                                     aliases=tuple(aliases), unused=tuple(unused),
                                     uses_intent_types=uses_intent_types,
                                     expected=expected, tie_bounds=tie_bounds)
        for alias in aliases:
            _ALIASES[alias] = name
        return compute
    return decorate


_FAMILIES = ("diversity", "graded", "estimators", "ndeval", "umeasure", "trec_eval", "ntcir",
             "equivalence", "hierarchy")
"""The modules declaring measures, imported in this order (the hierarchy family lifts the
flat ones) the first time the registry is looked up."""
_loaded = False


def load_families() -> None:
    """Import every measure family once, so that the registry is complete; the registry's
    lookups call it, so that importing this module alone stays lean (no xarray)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for family in _FAMILIES:
        import_module(f"{__package__}.{family}")


def _declared_order() -> list[str]:
    """The registered names in the order of :data:`_FAMILIES`, then of declaration (the
    same whichever family module happened to be imported first)."""
    def family(name: str) -> int:
        module = _REGISTRY[name].compute.__module__.rpartition(".")[2]
        return _FAMILIES.index(module) if module in _FAMILIES else len(_FAMILIES)
    return sorted(_REGISTRY, key=family)


def registry() -> dict[str, MeasureDef]:
    """The registered measures by canonical name."""
    load_families()
    return {name: _REGISTRY[name] for name in _declared_order()}


_NAME = re.compile(r"^\s*(?P<name>[^()@]+?)\s*(\((?P<params>.*)\))?\s*(@\s*(?P<cutoff>\S+))?\s*$")


def parse_measure(text: str | Measure) -> Measure:
    """Parse a measure name such as ``alpha-nDCG(alpha=0.5)@20``.

    Raises
    ------
    MeasureError
        Unknown measure (with close matches), unknown parameter, bad value, or a cutoff
        the measure does not take / lacks.
    """
    load_families()
    return parse_from(text, _REGISTRY, _ALIASES, elsewhere=_oneclick_hint)


def _oneclick_hint(name: str) -> str:
    """Where a 1CLICK measure, asked of ranked lists, is computed."""
    from .oneclick import ALIASES, ONECLICK

    if name not in ONECLICK and name not in ALIASES:
        return ""
    return (f"; {name} is a 1CLICK measure of the nuggets in a text output, which "
            "xdiv.oneclick.evaluate computes")


def parse_from(text: str | Measure, definitions: dict[str, MeasureDef],
               aliases: dict[str, str], *, what: str = "measure",
               elsewhere: Callable[[str], str] | None = None) -> Measure:
    """Parse ``text`` with the grammar of :func:`parse_measure` against ``definitions``
    (by name) and ``aliases`` (alias to name): the registry's, or a table of measures
    outside it such as the 1CLICK measures (:mod:`xdiv.measures.oneclick`), ``what``
    naming them in the message of an unknown name; ``elsewhere(name)``, when not empty,
    says there where such a name is known instead of the close matches."""
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str):
        raise MeasureError(f"a {what} name must be a string, not {type(text).__name__}")
    match = _NAME.match(text)
    if not match:
        raise MeasureError(f"cannot parse {what} name {text!r}")
    base = aliases.get(match["name"], match["name"])
    raw_cutoff = match["cutoff"]
    if raw_cutoff is not None and f"{base}@{raw_cutoff}" in definitions:  # I-rec@n
        base, raw_cutoff = f"{base}@{raw_cutoff}", None
    if base not in definitions:
        names = list(definitions) + list(aliases)
        close = difflib.get_close_matches(base, names, n=4, cutoff=0.5)
        close += [n for n in names if n.lower() == base.lower() and n not in close]
        hint = (elsewhere(match["name"]) if elsewhere is not None else "") or (
            f"; did you mean {', '.join(close)}?" if close else "")
        raise MeasureError(f"unknown {what} {match['name']!r}{hint}")
    definition = definitions[base]
    given = _parse_params(match["params"] or "", text)
    known = {p.name: p for p in definition.params}
    for key in given:
        if key not in known:
            options = ", ".join(known) or "none"
            raise MeasureError(f"{text}: unknown parameter {key!r} (parameters of {base}: "
                               f"{options})")
    values = tuple((p.name, p.parse(given[p.name], text) if p.name in given
                    else p.default) for p in definition.params)
    for param, switch, value in definition.unused:
        if param in given and dict(values)[switch] == value:
            raise MeasureError(f"{text}: {base} does not use {param} when {switch}={value}")
    cutoff = _parse_cutoff(raw_cutoff, definition, text)
    return Measure(definition, values, cutoff)


def _parse_cutoff(raw: str | None, definition: MeasureDef, text: str) -> int | None:
    if raw is None:
        if definition.cutoff == "required":
            raise MeasureError(f"{text}: {definition.name} needs a cutoff, e.g. "
                               f"{definition.name}@10")
        return None
    if definition.cutoff == "none":
        raise MeasureError(f"{text}: {definition.name} takes no cutoff")
    try:
        cutoff = int(raw)
    except ValueError:
        raise MeasureError(f"{text}: cutoff {raw!r} is not a whole number") from None
    if not 1 <= cutoff <= MAX_CUTOFF:
        raise MeasureError(f"{text}: cutoff must be a whole number from 1 to {MAX_CUTOFF}")
    return cutoff


def _split_top_level(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _parse_params(text: str, measure: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for part in _split_top_level(text):
        if "=" not in part:
            raise MeasureError(f"{measure}: parameter {part!r} is not of the form key=value")
        key, raw = (s.strip() for s in part.split("=", 1))
        if key in out:
            raise MeasureError(f"{measure}: parameter {key!r} given twice")
        try:
            out[key] = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            out[key] = raw
        numbers = out[key] if isinstance(out[key], tuple) else (out[key],)
        if any(isinstance(v, float) and not math.isfinite(v) for v in numbers):
            raise MeasureError(f"{measure}: parameter {key!r} = {raw} is not a finite number")
    return out


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return repr(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, tuple):
        tail = "," if len(value) == 1 else ""
        return "(" + ",".join(format_value(v) for v in value) + tail + ")"
    return str(value)


def _canonical(measure: Measure) -> str:
    changed = [f"{k}={format_value(v)}" for (k, v), p in zip(measure.values,
                                                             measure.definition.params)
               if v != p.default]
    name = measure.definition.name + (f"({','.join(changed)})" if changed else "")
    return name + (f"@{measure.cutoff}" if measure.cutoff is not None else "")


# ------------------------------------------------------------------ parameter converters

def real(low: float | None = None, high: float | None = None, *,
         closed: tuple[bool, bool] = (True, True)) -> Callable[[Any], float]:
    """Converter to float within [low, high] (ends open where ``closed`` says so)."""
    def convert(value):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError("expected a number")
        value = float(value)
        if low is not None and (value < low or (value == low and not closed[0])):
            raise ValueError(f"must be {'>=' if closed[0] else '>'} {low}")
        if high is not None and (value > high or (value == high and not closed[1])):
            raise ValueError(f"must be {'<=' if closed[1] else '<'} {high}")
        return value
    return convert


def whole(low: int = 0) -> Callable[[Any], int]:
    """Converter to an int >= low."""
    def convert(value):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"expected a whole number >= {low}")
        return int(value)
    return convert


def choice(*options: str) -> Callable[[Any], str]:
    """Converter accepting one of ``options``."""
    def convert(value):
        if str(value) not in options:
            raise ValueError(f"expected one of {', '.join(options)}")
        return str(value)
    return convert


def flag(value: Any) -> bool:
    """Converter to bool (``True``/``False``)."""
    if not isinstance(value, bool):
        raise ValueError("expected True or False")
    return value


def numbers(value: Any) -> tuple[float, ...]:
    """Converter to a non-empty tuple of finite non-negative floats."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = (value,)
    if not isinstance(value, (tuple, list)) or not value:
        raise ValueError("expected a tuple of numbers, e.g. (1,3,7)")
    out = tuple(float(v) for v in value)
    if any(v < 0 or v != v or v == float("inf") for v in out):
        raise ValueError("numbers must be finite and non-negative")
    return out


def gain_spec(value: Any) -> str | tuple[float, ...]:
    """Converter for ``gain``: ``exp``, ``linear`` or a tuple of gains of levels 1, 2, ..."""
    if isinstance(value, str):
        if value not in ("exp", "linear"):
            raise ValueError("expected exp, linear or a tuple of gains for levels 1, 2, ...")
        return value
    return numbers(value)


def optional_whole(value: Any) -> int | None:
    """Converter for ``H``: ``None`` (from the collection) or a whole number >= 1."""
    if value is None or value == "None":
        return None
    return whole(1)(value)


def measure_names(family: str | None = None) -> list[str]:
    """Registered measure names, optionally of one family."""
    load_families()
    return [n for n in _declared_order() if family is None or _REGISTRY[n].family == family]
