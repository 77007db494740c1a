"""Text renderings of score cubes in the layouts other tools print."""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from ..core.labels import from_json

__all__ = ["ndeval_csv", "trec_eval_lines"]


def ndeval_csv(scores: xr.Dataset) -> str:
    """The per-topic CSV layout of TREC's ndeval.

    A header ``runid,topic,<measures>``, one row per topic the run retrieved, then an
    ``amean`` row. As in ndeval, topics without relevant documents print 0 (xdiv scores
    them NaN) and the mean is over the retrieved topics that are in the qrels; topics
    absent from the qrels print 0 and are left out of the mean. Values use ``%.6f``.
    """
    metrics = [str(m) for m in scores["metric"].values]
    unjudged = set(from_json(scores.attrs.get("topics_not_in_qrels", "[]")))
    lacking = from_json(scores.attrs.get("topics_not_in_runs", "{}"))
    lines = ["runid,topic," + ",".join(metrics)]
    for run in scores["run"].values:
        table = scores["score"].sel(run=run).transpose("topic", "metric").to_pandas()
        absent = set(lacking.get(str(run), []))
        table = table.loc[[t for t in table.index if t not in absent]].fillna(0.0)
        judged = [t for t in table.index if t not in unjudged]
        for topic, row in table.iterrows():
            lines.append(f"{run},{topic}," + ",".join(f"{v:.6f}" for v in row.to_numpy()))
        mean = table.loc[judged].mean(axis=0) if judged else pd.Series(np.nan, index=metrics)
        lines.append(f"{run},amean," + ",".join(f"{v:.6f}" for v in mean.to_numpy()))
    return "\n".join(lines) + "\n"


def trec_eval_lines(scores: xr.Dataset) -> str:
    """``trec_eval -q``-style lines ``measure<TAB>topic<TAB>value`` per run (a ``runid``
    line first), then the ``all`` mean over the topics where the measure is defined."""
    lines = []
    for run in scores["run"].values:
        lines.append(f"runid\tall\t{run}")
        table = scores["score"].sel(run=run)
        for metric in scores["metric"].values:
            values = table.sel(metric=metric)
            for topic, v in zip(values["topic"].values, values.values):
                if np.isfinite(v):
                    lines.append(f"{metric}\t{topic}\t{v:.4f}")
            lines.append(f"{metric}\tall\t{float(values.mean(skipna=True)):.4f}")
    return "\n".join(lines) + "\n"
