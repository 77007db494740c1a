"""A score cube in ``trec_eval -q``'s text layout (:func:`trec_eval_lines`); ndeval's CSV
layout is :func:`xdiv.formats.ndeval.ndeval_csv`."""

from __future__ import annotations

import numpy as np
import xarray as xr

from .printf import number

__all__ = ["trec_eval_lines"]


def trec_eval_lines(scores: xr.Dataset) -> str:
    """``trec_eval -q``-style lines ``measure<TAB>topic<TAB>value`` per run (a ``runid``
    line first), then the ``all`` mean over the topics where the measure is defined
    (``-nan`` where it is defined for none)."""
    lines = []
    for run in scores["run"].values:
        lines.append(f"runid\tall\t{run}")
        table = scores["score"].sel(run=run)
        for metric in scores["metric"].values:
            values = table.sel(metric=metric)
            for topic, v in zip(values["topic"].values, values.values):
                if np.isfinite(v):
                    lines.append(f"{metric}\t{topic}\t{number(v, 4)}")
            lines.append(f"{metric}\tall\t{number(float(values.mean(skipna=True)), 4)}")
    return "\n".join(lines) + "\n"
