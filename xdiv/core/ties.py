"""Tie groups of the runs in the labelled layer: which ranks tie, and the judged cube
reordered within its tie groups (at random, best first or worst first).

The numpy work is :mod:`xdiv.kernels.ties`'s; these functions name the dimensions. A
judged cube built with ``ties=True`` (:func:`xdiv.core.judge.judged_cube`) holds
``tie_start(run, topic, rank)``, the 0-based rank at which each rank's tie group begins,
and reaches to the end of any tie group that crosses the measures' largest cutoff, so
that every order of every group can be scored.
"""

from __future__ import annotations

import zlib

import numpy as np
import xarray as xr

from ..kernels import ties as K

__all__ = ["TIE_START", "tie_start", "untied_depth", "shuffled_samples",
           "sorted_within_ties"]

TIE_START = "tie_start"
"""The judged cube's variable of tie groups (see the module docstring)."""

_PARALLEL = {"dask": "parallelized", "dask_gufunc_kwargs": {"allow_rechunk": True}}


def tie_start(score: xr.DataArray) -> xr.DataArray:
    """``tie_start(..., rank)`` of the runs' ``score(run, topic, rank)``: consecutive ranks
    with equal scores form a group."""
    return xr.apply_ufunc(K.tie_starts, score, input_core_dims=[["rank"]],
                          output_core_dims=[["rank"]], output_dtypes=[np.int32],
                          **_PARALLEL).transpose(*score.dims)


def untied_depth(start: xr.DataArray, depth: int) -> int:
    """The smallest depth at least ``depth`` that cuts no tie group of any list."""
    size = start.sizes["rank"]
    if depth >= size:
        return size
    end = xr.apply_ufunc(K.group_ends, start, input_core_dims=[["rank"]],
                         output_core_dims=[["rank"]], output_dtypes=[np.int64], **_PARALLEL)
    return int(end.isel(rank=max(depth, 1) - 1).max())


def _rank_variables(cube: xr.Dataset, *, with_intent: bool | None = None) -> list[str]:
    """The cube's per-rank variables that follow the documents (``tie_start`` stays)."""
    return [name for name, da in cube.data_vars.items()
            if "rank" in da.dims and name != TIE_START
            and (with_intent is None or ("intent" in da.dims) == with_intent)]


def _reordered(cube: xr.Dataset, order: xr.DataArray, names: list[str]) -> xr.Dataset:
    out = cube.copy()
    for name in names:
        da = cube[name]
        out[name] = xr.apply_ufunc(K.take_ranks, da, order, input_core_dims=[["rank"], ["rank"]],
                                   output_core_dims=[["rank"]], output_dtypes=[da.dtype],
                                   **_PARALLEL).transpose(*da.dims)
    out.attrs = cube.attrs  # the same memo: reordering leaves the ideal lists unchanged
    return out


def _label_keys(labels) -> np.ndarray:
    return np.array([zlib.crc32(str(label).encode()) for label in labels.values],
                    dtype=np.uint64)


def shuffled_samples(cube: xr.Dataset, *, seed: int, samples: range) -> xr.Dataset:
    """The cube with one copy of every run per sample of ``samples``, each with its tie
    groups in that sample's random order (:func:`xdiv.kernels.ties.shuffled_orders`).

    The copies are runs of their own, sample-major along ``run`` (labelled
    ``"<run>\\x1f<sample>"``), so that every measure scores all the samples in one
    vectorised pass. A list's orders depend only on ``seed``, the sample, its run and
    topic labels and the ranks: a run is reordered the same way whichever runs are
    evaluated with it, in memory, streamed or dask-backed.
    """
    names = _rank_variables(cube)
    per_run = [name for name, da in cube.data_vars.items() if "run" in da.dims]
    order = xr.apply_ufunc(
        K.shuffled_orders, cube[TIE_START],
        xr.DataArray(_label_keys(cube["run"]), dims="run"),
        xr.DataArray(_label_keys(cube["topic"]), dims="topic"),
        input_core_dims=[["rank"], [], []], output_core_dims=[["sample", "rank"]],
        kwargs={"seed": seed, "samples": samples}, dask="parallelized",
        output_dtypes=[np.int64],
        dask_gufunc_kwargs={"allow_rechunk": True, "output_sizes": {"sample": len(samples)}})
    n = len(samples)
    out = {}
    for name in per_run:
        da = cube[name]
        if name in names:
            moved = xr.apply_ufunc(K.take_sampled_ranks, da, order,
                                   input_core_dims=[["rank"], ["sample", "rank"]],
                                   output_core_dims=[["sample", "rank"]], dask="parallelized",
                                   output_dtypes=[da.dtype],
                                   dask_gufunc_kwargs={"allow_rechunk": True})
        else:
            moved = da.expand_dims(sample=n)
        data = moved.transpose("sample", *da.dims).data
        out[name] = (da.dims, data.reshape((n * da.sizes["run"],) + data.shape[2:]))
    runs = cube["run"].values  # read once, not once per sample
    labels = [f"{r}\x1f{s}" for s in samples for r in runs]
    stacked = xr.Dataset(out, coords={"run": np.array(labels, dtype=object)})
    result = stacked.merge(cube.drop_vars(per_run + ["run"]))
    result.attrs = cube.attrs  # the same memo: reordering leaves the ideal lists unchanged
    return result


def sorted_within_ties(cube: xr.Dataset, *, best_first: bool) -> xr.Dataset:
    """The cube with every tie group sorted by level, highest first (``best_first``) or
    last, stable within a level.

    With one intent the documents move as a whole (every per-rank variable follows): a
    real order, the best or the worst for the measures that grow when a more relevant
    document moves up. With several intents each intent's levels are sorted apart, and
    only ``level`` is reordered: no single order of the documents, but the best (worst)
    one for each intent at once, which bounds from above (below) the measures that sum
    such per-intent terms (:attr:`xdiv.measures.registry.MeasureDef.tie_bounds`).
    """
    order = xr.apply_ufunc(K.sorted_order, cube[TIE_START], cube["level"],
                           input_core_dims=[["rank"], ["rank"]], output_core_dims=[["rank"]],
                           kwargs={"best_first": best_first}, output_dtypes=[np.int64],
                           **_PARALLEL)
    if cube.sizes["intent"] == 1:
        return _reordered(cube, order.isel(intent=0, drop=True), _rank_variables(cube))
    return _reordered(cube, order, ["level"])
