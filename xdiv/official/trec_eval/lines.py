"""A score cube in ``trec_eval -q``'s text layout (:func:`trec_eval_lines`); ndeval's CSV
layout is :func:`xdiv.official.ndeval_tool.report.ndeval_csv`."""

from __future__ import annotations

import numpy as np
import xarray as xr

from ..printf import number

__all__ = ["trec_eval_lines"]


def trec_eval_lines(scores: xr.Dataset) -> str:
    """``trec_eval -q``-style lines ``measure<TAB>topic<TAB>value`` per run (a ``runid``
    line first), then the ``all`` mean over the topics where the measure is defined
    (``-nan`` where it is defined for none): ``xdiv evaluate --format lines``.

    These are trec_eval's three columns, not its bytes: trec_eval pads the measure's name
    to 22 characters, prints topic by topic, and averages over the topics of the run
    (``xdiv trec_eval`` prints trec_eval's own output)."""
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
