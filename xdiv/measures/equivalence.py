"""Measures on equivalence classes of relevant items (Sakai, ACM TALIP 2007; NTCIREVAL's
``-ec``): ``EC-M`` is the adhoc measure ``M`` when the relevant items of a topic form
classes of interchangeable items, as for the answer strings of factoid question answering.

Within a ranked list only the first item of each class counts, with its own level; a later
item of a class already ranked is redundant and counts as non-relevant, as does every
item after a judged non-relevant member of its class. The ideal list holds one item per
class, at the highest level among its members, so that R is the number of classes holding
a relevant item. The classes come from the collection's ``eq_class(topic, doc)``
(``xdiv.read_qrels(path, format="ntcir-eqrels")`` or
:func:`xdiv.core.collection.set_equivalence_classes`); a document in no class (-1) is a
class of its own.

Each ``EC-M`` agrees with ``ntcir_eval label -ec | ntcir_eval compute -ec`` to its printed
precision given the parameters with which ``M`` agrees with ``compute``
(docs/conventions.md).
"""

from __future__ import annotations

import xarray as xr

from ..errors import MeasureError
from ..kernels import common as KC
from ..kernels import ntcir as K
from .common import MEMO, made_once
from .registry import ADHOC, Measure, MeasureDef, register, registry

_REFERENCE = "Sakai, ACM TALIP 2007 (equivalence classes); NTCIREVAL compute -ec"

LIFTED = ("RR", "O", "P-measure", "P+", "AP", "Q", "NCUgu", "NCUrb", "GAP", "RBP", "ERR",
          "EBR", "nDCG", "nDCG-JK", "P", "nERR", "Hit", "iRBU")
"""The adhoc measures with an ``EC-`` form: those ``ntcir_eval compute -ec`` prints (its
condensed-list measures aside, which it refuses under ``-ec``)."""

_CLASS_CORE = {"dask": "parallelized", "dask_gufunc_kwargs": {"allow_rechunk": True}}


def equivalence_judgments(cube: xr.Dataset, name: str = "EC-") -> xr.Dataset:
    """The judged cube with each equivalence class counted once: ``level`` 0 at every
    rank whose document's class is already ranked above, ``qrels_level`` holding each
    class's highest level at one member (0 at the others), ``ideal_level`` sorted from it.
    Made once per cube of an evaluation (kept in the cube's memo,
    :data:`xdiv.measures.common.MEMO`).

    Raises
    ------
    MeasureError
        The collection has no ``eq_class`` (``name``, the measure, is named).
    """
    return made_once(cube, "equivalence", lambda: _equivalence_view(cube, name),
                     share_memo=False)


def _equivalence_view(cube: xr.Dataset, name: str) -> xr.Dataset:
    """The view :func:`equivalence_judgments` keeps (see there)."""
    if "eq_class" not in cube:
        raise MeasureError(f"{name} needs equivalence classes: read the qrels with "
                           "xdiv.read_qrels(path, format='ntcir-eqrels') or give them with "
                           "xdiv.core.collection.set_equivalence_classes")
    classes = cube["eq_class"]
    first = xr.apply_ufunc(lambda slot, eq: K.first_of_class(K.ranked_classes(slot, eq)),
                           cube["slot"], classes, input_core_dims=[["rank"], ["doc"]],
                           output_core_dims=[["rank"]], output_dtypes=[bool], **_CLASS_CORE)
    level = cube["level"].where(first, 0).astype(cube["level"].dtype)
    qrels = xr.apply_ufunc(K.class_levels, classes, cube["qrels_level"],
                           input_core_dims=[["doc"], ["doc"]], output_core_dims=[["doc"]],
                           output_dtypes=[cube["qrels_level"].dtype], **_CLASS_CORE)
    ideal = xr.apply_ufunc(KC.ideal_levels, qrels, input_core_dims=[["doc"]],
                           output_core_dims=[["ideal_rank"]],
                           output_dtypes=[cube["qrels_level"].dtype], **_CLASS_CORE)
    out = cube.assign(level=level.transpose(*cube["level"].dims),
                      qrels_level=qrels.transpose(*cube["qrels_level"].dims),
                      ideal_level=ideal.transpose(*cube["ideal_level"].dims))
    out.attrs = {k: v for k, v in cube.attrs.items() if k != MEMO}  # nothing shared
    return out


def _lift(base: MeasureDef) -> None:
    def compute(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
        return base.compute(equivalence_judgments(cube, measure.definition.name),
                            Measure(base, measure.values, measure.cutoff))

    compute.__doc__ = (f"EC-{base.name}: {base.name} with each equivalence class counted "
                       f"once (a document of a class ranked above counts as non-relevant; "
                       f"the ideal list holds one document per class at the class's "
                       f"highest level).")
    register(f"EC-{base.name}", params=tuple(p for p in base.params if p is not ADHOC),
             cutoff=base.cutoff, family=base.family, reference=f"{_REFERENCE}; {base.reference}",
             formula=f"`{base.name}` with $x(r) = 0$ where a document of $d_r$'s class is "
                     "ranked above $r$, against an ideal list of one document per class at "
                     "its members' highest level")(compute)


_DEFINITIONS = registry()
for _name in LIFTED:
    _lift(_DEFINITIONS[_name])
