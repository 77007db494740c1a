"""The 1CLICK measures (Sakai, Kato & Song, CIKM 2011), declared outside the registry.

They score a system's text output by the gold nuggets it matched and where, not a
ranked list of documents, so :func:`xdiv.evaluate` cannot compute them and the measure
registry does not hold them; :func:`xdiv.oneclick.evaluate` does, on the nuggets and
matches its readers give. Their names follow the registry's grammar
(``S-measure(L=500)``, ``F-flat(L=1000,beta=2)``), :func:`parse_oneclick` parses them,
and the measure reference (``xdiv measures``) lists them in a section of their own.

=============  ===============  ================================================
name           parameters       ``ntcir_eval 1click`` prints
=============  ===============  ================================================
``Recall``     -                ``Recall``
``W-recall``   -                ``W-recall``
``S-measure``  ``L``            ``S-measure`` (``-L``)
``S-flat``     ``L``            ``S-flat``
``T-measure``  -                ``T-measure``
``T-flat``     -                ``T-flat``
``F-flat``     ``L``, ``beta``  ``F-flat`` (``-beta``)
=============  ===============  ================================================
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import MeasureError
from ..kernels import oneclick as K
from .registry import Measure, MeasureDef, Param, parse_from, real, whole

__all__ = ["ALIASES", "BETA", "MEASURES", "ONECLICK", "PATIENCE", "REFERENCE", "SECTION",
           "parse_oneclick", "resolved"]

REFERENCE = "Sakai, Kato & Song, CIKM 2011"

SECTION = r"""
The 1CLICK measures score a system's text output for a question, its X-string of
$\lvert X \rvert$ characters, by the gold-standard nuggets it contains: nugget $i$ has a
weight $w_i > 0$ and a vital string length $v_i$, the number of characters needed to
convey it, and $M$ is the set of nuggets found in the output, nugget $i$ at offset $o_i$.
The pseudo minimal output writes the vital strings of all $N$ nuggets one after the
other, by decreasing weight (ties by increasing vital length), nugget $i$ ending at
offset $o^*_i$, the sum of the vital lengths up to it. The patience $L$ is the number of
characters the user is willing to read (NTCIREVAL's README takes 1000 as what an average
Japanese user reads in two minutes; its `1CLICK-eval` script sets 500). These measures
score nuggets, not ranked documents: compute them with
`xdiv.oneclick.evaluate(nuggets, matches, L=...)`, not with `xdiv.evaluate`. They agree
with `ntcir_eval 1click` (NTCIREVAL).
"""
"""The reference's introduction to the 1CLICK measures (Markdown with TeX)."""


def _patience(value: Any) -> int | None:
    if value is None or value == "None":
        return None
    return whole(1)(value)


PATIENCE = Param("L", None, "the patience of S-measure: the number of characters the user "
                 "reads (ntcir_eval's -L); default: the `L` of `xdiv.oneclick.evaluate`",
                 _patience)


def _beta(value: Any) -> float | None:
    if value is None or value == "None":
        return None
    return real(0.0)(value)


BETA = Param("beta", None, "the weight of S-flat against T-flat in F-flat (ntcir_eval's "
             "-beta): beta > 1 favours S-flat; default: the `beta` of "
             "`xdiv.oneclick.evaluate`, else 1", _beta)

Compute = Callable[..., np.ndarray]
"""``compute(weight, vital, offset, length, measure)``: the measure's values over the
broadcast arrays (nuggets along the last axis), as in :mod:`xdiv.kernels.oneclick`."""

ONECLICK: dict[str, MeasureDef] = {}
"""The 1CLICK measures by name."""
ALIASES: dict[str, str] = {}
"""Their other names (alias to name)."""


def _declare(name: str, formula: str, *, params: tuple[Param, ...] = (),
             aliases: tuple[str, ...] = ()) -> Callable[[Compute], Compute]:
    def decorate(compute: Compute) -> Compute:
        ONECLICK[name] = MeasureDef(name, compute, params, "none", "1click", REFERENCE,
                                    compute.__doc__ or "", formula=formula,
                                    aliases=aliases)
        ALIASES.update(dict.fromkeys(aliases, name))
        return compute
    return decorate


@_declare("Recall", r"$\lvert M \rvert / N$")
def _recall(weight, vital, offset, length, measure):
    """Nugget recall: the share of the gold nuggets found in the output."""
    return K.recall(weight, offset)


@_declare("W-recall", r"$\sum_{i \in M} w_i / \sum_{i=1}^{N} w_i$")
def _weighted_recall(weight, vital, offset, length, measure):
    """Weighted recall: the share of the nuggets' weight found in the output."""
    return K.weighted_recall(weight, offset)


@_declare("S-measure", r"$\frac{\sum_{i \in M} w_i \max(0, L - o_i)}"
          r"{\sum_{i=1}^{N} w_i \max(0, L - o^*_i)}$", params=(PATIENCE,), aliases=("S",))
def _s_measure(weight, vital, offset, length, measure):
    """S-measure: weighted recall discounted by where each nugget is found, against the
    pseudo minimal output; may exceed 1."""
    return K.s_measure(weight, vital, offset, measure["L"])


@_declare("S-flat", r"$\min(1, S)$", params=(PATIENCE,))
def _s_flat(weight, vital, offset, length, measure):
    """S-flat: the S-measure capped at 1."""
    return K.s_flat(weight, vital, offset, measure["L"])


@_declare("T-measure", r"$\sum_{i \in M} v_i / \lvert X \rvert$ "
          r"(0 when $\lvert X \rvert = 0$)", aliases=("T",))
def _t_measure(weight, vital, offset, length, measure):
    """T-measure (vital string concentration): the vital string lengths of the matched
    nuggets over the output's length; a precision, which may exceed 1."""
    return K.t_measure(vital, offset, length)


@_declare("T-flat", r"$\min(1, T)$")
def _t_flat(weight, vital, offset, length, measure):
    """T-flat: the T-measure capped at 1."""
    return K.t_flat(vital, offset, length)


@_declare("F-flat", r"$\frac{(1 + \beta^2)\, T_\flat\, S_\flat}{\beta^2 T_\flat + "
          r"S_\flat}$ (0 when both are 0)", params=(PATIENCE, BETA))
def _f_flat(weight, vital, offset, length, measure):
    """F-flat: the weighted harmonic mean of T-flat and S-flat."""
    return K.f_flat(weight, vital, offset, length, measure["L"], measure["beta"])


def parse_oneclick(text: str | Measure) -> Measure:
    """Parse a 1CLICK measure name (``S-measure(L=500)``, ``F-flat(beta=2)``, ``T``).

    Raises
    ------
    MeasureError
        Not a 1CLICK measure (with close matches), an unknown parameter (``Recall(L=5)``)
        or a bad value (``S-measure(L=0)``).
    """
    if isinstance(text, Measure) and text.definition.family != "1click":
        raise MeasureError(f"{text.name} is not a 1CLICK measure")
    return parse_from(text, ONECLICK, ALIASES, what="1CLICK measure")


def resolved(measure: Measure, L: int | None, beta: float | None) -> Measure:
    """``measure`` with its parameters decided: its own ``L`` and ``beta`` where its name
    gives them, else the ones given here (``beta`` 1 when None).

    Raises
    ------
    MeasureError
        The measure takes a patience and neither its name nor ``L`` gives one, or ``L``
        or ``beta`` is not a valid value.
    """
    values = {}
    if "L" in measure.params and measure["L"] is None:
        if L is None:
            raise MeasureError(f"{measure.name} needs the patience L (the characters a user "
                               f"reads): give L=... to evaluate, or name it "
                               f"{measure.name}(L=...)")
        values["L"] = PATIENCE.parse(L, f"{measure.name}: L={L!r}")
    if "beta" in measure.params and measure["beta"] is None:
        values["beta"] = BETA.parse(1.0 if beta is None else beta,
                                    f"{measure.name}: beta={beta!r}")
    return measure.replace(**values) if values else measure


MEASURES = tuple(ONECLICK)
"""The 1CLICK measures, in the order ``ntcir_eval 1click`` prints them."""
