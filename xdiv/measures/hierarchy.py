"""Hierarchical diversity measures (Wang, Wen, Dou, Sakai & Zhang, IEEE TKDE 2018).

Every hierarchical measure is computed by re-reading the judged cube with *nodes* in the
place of intents (:func:`node_cube`) and running a flat measure on it:

* ``N-rec@l``: I-rec over all (non-root) nodes;
* ``M-LA@l`` for any flat diversity measure M: ``sum_h w_h M_h@l``, M_h with the layer-h
  nodes as intents and their weights (renormalised in the layer) as probabilities;
* ``HD-nDCG``/``HD-Q``: D-nDCG/D-Q over all nodes with gains weighted by
  ``w_{layer(n)} W(n)``, i.e. ``GG(r) = sum_h w_h GG_h(r)``;
* ``LD#-M = gamma N-rec + (1-gamma) D-M(leaves)``, ``HD#-M = gamma N-rec + (1-gamma) HD-M``,
  ``LAD#-M = gamma N-rec + (1-gamma) D-M-LA`` for M in nDCG, Q.

The hierarchy (OIH/EIH, weighting scheme, layer weights) is chosen when it is attached
to the collection (:func:`xdiv.hierarchy.attach_hierarchy`) and recorded in the results'
attributes; a collection without one is treated as its height-1 hierarchy, on which
every measure here equals its flat counterpart.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from ..kernels import hierarchy as K
from ..kernels.common import ideal_levels
from ..kernels.diversity import sharp
from .common import made_once
from .diversity import GAMMA, intent_recall, sharp_formula
from .registry import Measure, MeasureDef, register, registry

_WANG_ET_AL_2018 = "Wang, Wen, Dou, Sakai & Zhang, IEEE TKDE 2018"
_PARALLEL = {"dask": "parallelized", "dask_gufunc_kwargs": {"allow_rechunk": True}}
_CUBE_VARIABLES = ("retrieved", "length", "slot", "judged", "run_doc_length")


def node_cube(cube: xr.Dataset, selected: xr.DataArray, weight: xr.DataArray) -> xr.Dataset:
    """The judged cube re-read with the ``selected`` nodes as intents.

    ``level`` (the judged cube's ``node_run_level``), ``qrels_level`` and ``ideal_level``
    hold node relevance (propagated by max),
    ``intent_prob`` the node ``weight`` renormalised over the selected nodes with relevant
    documents, ``intent_type`` "nav" for leaves of navigational intents.
    """
    level = cube["node_run_level"]
    qrels = cube["node_level"]
    valid = selected & xr.apply_ufunc(K.has_relevant, qrels, input_core_dims=[["doc"]])
    prob = xr.apply_ufunc(K.normalise, weight, valid, input_core_dims=[["node"], ["node"]],
                          output_core_dims=[["node"]])
    types = xr.apply_ufunc(K.node_types, cube["intent_type"], cube["node_covers"],
                           cube["node_leaf"], input_core_dims=[["intent"], ["node", "intent"],
                                                               ["node"]],
                           output_core_dims=[["node"]])
    ideal = xr.apply_ufunc(ideal_levels, qrels, input_core_dims=[["doc"]],
                           output_core_dims=[["ideal_rank"]])
    out = xr.Dataset({"level": level, "qrels_level": qrels, "intent_valid": valid,
                      "intent_prob": prob, "intent_type": types, "ideal_level": ideal,
                      **{v: cube[v] for v in _CUBE_VARIABLES if v in cube}})
    out = out.drop_vars([c for c in ("intent", "docno") if c in out.coords])
    out = out.rename({"node": "intent"})
    return out.transpose("run", "topic", "rank", "intent", ...)


def all_nodes(cube: xr.Dataset) -> xr.Dataset:
    return made_once(cube, ("nodes", "all"), lambda: node_cube(
        cube, cube["node_exists"], cube["node_weight"]), share_memo=True)


def _layer_cube(cube: xr.Dataset, h: int) -> xr.Dataset:
    return made_once(cube, ("nodes", "layer", h), lambda: node_cube(
        cube, cube["node_exists"] & (cube["node_layer"] == h), cube["node_weight"]),
        share_memo=True)


def _leaf_cube(cube: xr.Dataset) -> xr.Dataset:
    return made_once(cube, ("nodes", "leaves"), lambda: node_cube(
        cube, cube["node_exists"] & cube["node_leaf"], cube["node_weight"]), share_memo=True)


def _hd_cube(cube: xr.Dataset) -> xr.Dataset:
    def make() -> xr.Dataset:
        weight = xr.apply_ufunc(K.layered_weights, cube["node_weight"], cube["node_exists"],
                                cube["node_layer"], cube["layer_weight"],
                                input_core_dims=[["node"], ["node"], ["node"], ["layer"]],
                                output_core_dims=[["node"]])
        return node_cube(cube, cube["node_exists"], weight)

    return made_once(cube, ("nodes", "hd"), make, share_memo=True)


def layer_aware(cube: xr.Dataset, base: MeasureDef, measure: Measure) -> xr.DataArray:
    """``sum_h w_h M_h`` over the layers of the hierarchy."""
    flat = Measure(base, measure.values, measure.cutoff)
    per_layer = xr.concat([base.compute(_layer_cube(cube, int(h)), flat)
                           for h in cube["layer"].values], dim="layer")
    per_layer = per_layer.assign_coords(layer=cube["layer"])
    return xr.apply_ufunc(K.weighted_layers, per_layer, cube["layer_weight"],
                          input_core_dims=[["layer"], ["layer"]], output_dtypes=[np.float64],
                          **_PARALLEL)


def _sharp(cube, measure, base_value):
    recall = intent_recall(all_nodes(cube), measure.cutoff)
    return xr.apply_ufunc(sharp, recall, base_value, kwargs={"gamma": measure["gamma"]},
                          output_dtypes=[np.float64], **_PARALLEL)


@register("N-rec", cutoff="required", family="hierarchy", reference=_WANG_ET_AL_2018,
          formula=r"$\frac{\lvert \bigcup_{r \le l} N(d_r) \rvert}{\lvert V \rvert}$, the share "
                  "of nodes covered by the top $l$")
def _nrec(cube: xr.Dataset, measure: Measure) -> xr.DataArray:
    """N-rec@l = |union_{r<=l} N(d_r)| / |V|: the share of (non-root) nodes covered by the
    top l, node relevance propagated upwards."""
    return intent_recall(all_nodes(cube), measure.cutoff)


def _flat(name: str, measure: Measure) -> Measure:
    """The flat measure ``name`` with ``measure``'s shared parameter values and cutoff."""
    base = registry()[name]
    given = dict(measure.values)
    values = tuple((p.name, given.get(p.name, p.default)) for p in base.params)
    return Measure(base, values, measure.cutoff)


def layer_aware_formula(base: str, cutoff: str) -> str:
    """The TeX formula of the layer-aware form of the measure ``base``."""
    at = "" if cutoff == "none" else "@l"
    return rf"$\sum_h w_h\, \text{{{base}}}_h{at}$"


def _register_hd(metric: str) -> None:
    flat = registry()[f"D-{metric}"]

    def hd(cube, measure):
        return flat.compute(_hd_cube(cube), _flat(f"D-{metric}", measure))

    def hd_sharp(cube, measure):
        return _sharp(cube, measure, hd(cube, measure))

    def ld_sharp(cube, measure):
        return _sharp(cube, measure, flat.compute(_leaf_cube(cube), _flat(f"D-{metric}", measure)))

    def lad_sharp(cube, measure):
        return _sharp(cube, measure, layer_aware(cube, flat, _flat(f"D-{metric}", measure)))

    hd.__doc__ = (f"HD-{metric}@l: D-{metric} over all nodes with global gain "
                  f"GG(r) = sum_h w_h GG_h(r), GG_h the layer-h global gain.")
    hd_sharp.__doc__ = f"HD#-{metric}@l = gamma N-rec@l + (1 - gamma) HD-{metric}@l."
    ld_sharp.__doc__ = (f"LD#-{metric}@l = gamma N-rec@l + (1 - gamma) D-{metric}@l over the "
                        "leaves (atomic intents) with their node weights.")
    lad_sharp.__doc__ = f"LAD#-{metric}@l = gamma N-rec@l + (1 - gamma) D-{metric}-LA@l."
    register(f"HD-{metric}", params=flat.params, cutoff="optional", family="hierarchy",
             reference=_WANG_ET_AL_2018,
             formula=f"D-{metric} with the hierarchical global gain")(hd)
    for name, compute, formula in (
            (f"HD#-{metric}", hd_sharp, sharp_formula(f"HD-{metric}", "N-rec")),
            (f"LD#-{metric}", ld_sharp, sharp_formula(f"D-{metric}", "N-rec")
             + " over the leaves, with their node weights as probabilities"),
            (f"LAD#-{metric}", lad_sharp, sharp_formula(f"D-{metric}-LA", "N-rec"))):
        register(name, params=(GAMMA, *flat.params), cutoff="required", family="hierarchy",
                 reference=_WANG_ET_AL_2018, formula=formula)(compute)


def _register_layer_aware(base: MeasureDef) -> None:
    def compute(cube, measure):
        return layer_aware(cube, base, measure)

    compute.__doc__ = (f"{base.name}-LA@l = sum_h w_h {base.name}_h@l: {base.name} with the "
                       "layer-h nodes as intents (node weights renormalised in the layer as "
                       "probabilities), weighted by the layer weights.")
    register(f"{base.name}-LA", params=base.params, cutoff=base.cutoff, family="hierarchy",
             reference=f"{_WANG_ET_AL_2018}; {base.reference}",
             formula=layer_aware_formula(base.name, base.cutoff),
             uses_intent_types=base.uses_intent_types)(compute)


for _metric in ("nDCG", "Q"):
    _register_hd(_metric)
for _base in [d for d in list(registry().values())
              if d.family in ("diversity", "intent-aware", "ndeval")]:
    _register_layer_aware(_base)
