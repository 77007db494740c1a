"""Labelled building blocks shared by the measure families.

These functions name dimensions and call numpy kernels through ``xr.apply_ufunc``; they
do no arithmetic of their own. Shared :class:`~xdiv.measures.registry.Param` objects are
declared here once so that every measure documents a parameter the same way.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import xarray as xr

from ..errors import MeasureError
from ..kernels import common as K
from .registry import Measure, Param, choice, gain_spec, optional_whole, real, whole

MEMO = "xdiv_memo"
"""The judged-cube attribute holding a dict in which measures keep work they share within
one evaluation (ndeval's greedy ideal lists, built once for several cutoffs and measures).
:func:`xdiv.evaluate` gives each evaluation a new one; without it nothing is kept."""

IDEAL_LISTS = "ideal_lists"
"""The entry of a memo (:data:`MEMO`) holding ndeval's greedy ideal lists, a dict keyed by
the content of the qrels they come from: the lists depend on the collection alone, so
:func:`xdiv.engine.evaluate_files` gives every block of runs the same dict."""


def made_once(cube: xr.Dataset, key, make: Callable[[], xr.Dataset], *,
              share_memo: bool) -> xr.Dataset:
    """``make()``, a view of ``cube`` that several measures of one evaluation read, made
    once per cube and kept under ``key`` in its memo (:data:`MEMO`; without a memo, made
    each time). The memo holds the cube itself beside the view, so that the identity test
    cannot match another cube. ``share_memo``: the view keeps the same memo (its own
    shared work, e.g. ndeval's greedy ideal lists, kept by their content), else it gets
    whatever ``make`` left in its attributes."""
    memo = cube.attrs.get(MEMO)
    held = None if memo is None else memo.get(key)
    if held is not None and held[0] is cube:  # made already, from this very cube
        return held[1]
    out = make()
    if memo is not None:
        if share_memo:
            out.attrs[MEMO] = memo
        memo[key] = (cube, out)
    return out


GAIN = Param("gain", "exp", "gain of level x: `exp` = 2^x-1, `linear` = x, or a tuple of the "
             "gains of levels 1..H", gain_spec)
HIGHEST = Param("H", None, "highest relevance level H (default: the collection's highest)",
                optional_whole)
BETA = Param("beta", 1.0, "weight of graded relevance in the blended ratio (0 gives AP)",
             real(0.0))
PERSISTENCE = Param("p", 0.8, "user persistence", real(0.0, 1.0, closed=(False, False)))
HIGHEST_GAIN = Param("highest", "H", "the highest gain gv_max of ERR's stop probability "
                     "gv(x)/(gv_max+1) and of RBP's normaliser: `H` = level H's (NTCIREVAL "
                     "compute), `own` = that of the intent's (an adhoc topic's) own highest "
                     "judged level (NTCIREVAL gcompute and its intent-aware scripts)",
                     choice("H", "own"))
DENOMINATOR = Param("denominator", "min", "normaliser of the cut-off measure: `min` = "
                    "min(l, R) (NTCIREVAL), `R` = R (trec_eval's map_cut)", choice("min", "R"))


def _decimals(value) -> int | None:
    if value is None or value == "None":
        return None
    return whole(0)(value)


GAIN_DECIMALS = Param("gain_decimals", None, "round each global gain of the run to this many "
                      "decimals before scoring, as NTCIREVAL's glabel and dinlabel write them "
                      "for gcompute (4 there; the ideal list keeps its gains); default: exact",
                      _decimals)
PART_DECIMALS = Param("part_decimals", None, "round each part to this many decimals before "
                      "combining the parts (I-rec and the measure of a #-form, each intent's "
                      "value of an intent-aware form and of P+Q), as NTCIREVAL's scripts "
                      "combine the values ntcir_eval prints (4 there); default: exact",
                      _decimals)


def highest_level(cube: xr.Dataset, measure: Measure | None = None) -> int:
    """H: the measure's ``H`` parameter if given, else the collection's highest level."""
    given = None if measure is None else measure.params.get("H")
    present = int(cube["qrels_level"].values.max())  # numpy's: xarray's costs a millisecond
    if given is not None and given < present:
        raise MeasureError(f"{measure.name}: H={given} is below the collection's highest "
                           f"level {present}")
    return present if given is None else given


def gain_table(cube: xr.Dataset, measure: Measure | None = None) -> np.ndarray:
    """The gain lookup table (levels 0..H) of ``measure``; without a measure, the default
    exponential gains 2^x - 1 up to the collection's highest level."""
    highest = max(highest_level(cube, measure), 1)
    gain = "exp" if measure is None else measure["gain"]
    if isinstance(gain, tuple) and len(gain) < highest:
        raise MeasureError(f"{measure.name}: gain gives {len(gain)} value(s) but the "
                           f"collection has levels up to {highest}")
    return K.gain_table(gain, highest)


def levels_to(cube: xr.Dataset, cutoff: int | None) -> xr.DataArray:
    """The judged levels of the top ``cutoff`` ranks (all ranks when None)."""
    level = cube["level"]
    return level if cutoff is None else level.isel(rank=slice(0, cutoff))


def per_intent(cube: xr.Dataset, kernel: Callable, cutoff: int | None,
               **kwargs) -> xr.DataArray:
    """Apply a single-intent kernel to every intent: result ``(run, topic, intent)``.

    Each intent is scored against its own ideal list ``ideal_level(topic, intent,
    ideal_rank)``.
    """
    return xr.apply_ufunc(
        kernel, levels_to(cube, cutoff), cube["ideal_level"],
        input_core_dims=[["rank"], ["ideal_rank"]],
        kwargs={"cutoff": cutoff, **kwargs}, dask="parallelized", output_dtypes=[np.float64],
        dask_gufunc_kwargs={"allow_rechunk": True},
    )


def per_intent_over_ties(cube: xr.Dataset, kernel: Callable, cutoff: int | None,
                         **kwargs) -> xr.DataArray:
    """Apply a tie-expectation kernel (:mod:`xdiv.kernels.ties`) to every intent: the
    whole depth of the levels (tie groups crossing the cutoff included), the ideal list
    and the runs' ``tie_start``; result ``(run, topic, intent)``."""
    return xr.apply_ufunc(
        kernel, cube["level"], cube["ideal_level"], cube["tie_start"],
        input_core_dims=[["rank"], ["ideal_rank"], ["rank"]],
        kwargs={"cutoff": cutoff, **kwargs}, dask="parallelized", output_dtypes=[np.float64],
        dask_gufunc_kwargs={"allow_rechunk": True},
    )


def intent_aware(cube: xr.Dataset, values: xr.DataArray,
                 decimals: int | None = None) -> xr.DataArray:
    """``sum_i Pr(i|q) values_i`` over the valid intents (NaN for topics with none); with
    ``decimals``, of the values rounded as :func:`xdiv.kernels.common.printed` gives them."""
    return xr.apply_ufunc(
        K.intent_aware, values, cube["intent_prob"], cube["intent_valid"],
        kwargs={"decimals": decimals},
        input_core_dims=[["intent"]] * 3, dask="parallelized", output_dtypes=[np.float64],
        dask_gufunc_kwargs={"allow_rechunk": True},
    )


def single_intent(cube: xr.Dataset, values: xr.DataArray, measure: Measure) -> xr.DataArray:
    """The value of the one valid intent of each topic (adhoc measures).

    Raises
    ------
    MeasureError
        When a topic has several valid intents (see :func:`single_intent_check`).
    """
    single_intent_check(cube, measure)
    return intent_aware(cube, values)


def single_intent_check(cube: xr.Dataset, measure: Measure) -> None:
    """Raise :class:`MeasureError` unless every topic has at most one valid intent.

    :func:`xdiv.evaluate` hands a single-intent measure the cube converted by its
    ``adhoc`` parameter; a per-intent cube reaches a measure only when its ``compute`` is
    called directly on :func:`xdiv.judge`'s cube of diversity qrels.
    """
    valid = cube["intent_valid"]  # numpy's sum and max: xarray's cost milliseconds
    most = int(valid.values.sum(axis=valid.get_axis_num("intent")).max(initial=0))
    if most > 1:
        method = measure.params.get("adhoc") or "max"
        raise MeasureError(
            f"{measure.name} is a single-intent measure but the judged cube has topics with "
            f"up to {most} intents: xdiv.evaluate reads diversity qrels through the "
            "measure's adhoc parameter (e.g. nDCG(adhoc=count)@10, or adhoc= / --adhoc for "
            "every measure); convert a cube from xdiv.judge first with "
            f"xdiv.core.adhoc.adhoc_judgments(cube, {method!r})")
