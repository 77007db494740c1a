"""What the ndeval and gdeval presets (:mod:`xdiv.official.ndeval_tool.report`,
:mod:`xdiv.official.gdeval.report`) share: per-topic scores as both tools print them, the
run tags and retrieved topics they list, the risk-sensitive pair of a run and its baseline, and
their running means."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import xarray as xr

from ..errors import AlignmentWarning, SingleIntentWarning
from ..engine import evaluate
from ..core.labels import from_json, object_strings

__all__ = ["by_topic", "per_topic_scores", "retrieved_topics", "risk_pair", "run_tag",
           "zero_filled"]


def per_topic_scores(runs: xr.Dataset, collection: xr.Dataset,
                     measures: Sequence[str]) -> xr.DataArray:
    """``score(metric, run, topic)`` with NaN (undefined or unjudged) read as 0, as both
    tools print. The evaluation's warnings about topics only the runs or only the qrels
    hold are silenced: the callers list and average topics by the tools' own rules; so is
    its warning about qrels with one intent per topic, which the tools read without a
    word."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AlignmentWarning)
        warnings.simplefilter("ignore", SingleIntentWarning)
        return evaluate(runs, collection, list(measures))["score"].fillna(0.0)


def run_tag(runs: xr.Dataset, run: str, line: int) -> str:
    """The tag of the run file's first (``line=0``) or last (``-1``) line: ndeval names a
    run after the first, gdeval after the last; a Runs dataset built in Python has none,
    and its label stands in."""
    return from_json(runs.attrs.get("tags", "{}")).get(run, [run, run])[line]


def retrieved_topics(runs: xr.Dataset, run: str) -> list[str]:
    """The topics ``run`` retrieved at least one document for, in the dataset's order."""
    length = runs["length"].sel(run=run)
    return [str(t) for t in length["topic"].values[length.values > 0]]


def by_topic(values: xr.DataArray, topics: Sequence[str]) -> np.ndarray:
    """The ``(metric, topic)`` values of ``topics`` as an array topic × metric, the rows
    the tools print."""
    return values.sel(topic=object_strings(topics)).transpose("topic", "metric").values


def zero_filled(scores: xr.DataArray, topics: Sequence[str]) -> xr.DataArray:
    """``scores`` over ``topics``, 0 for the topics it lacks."""
    return scores.reindex(topic=object_strings(topics), fill_value=0.0)


def risk_pair(run_scores: xr.DataArray, base_scores: xr.DataArray, run_topics, base_topics,
              topics: Sequence[str]) -> xr.DataArray:
    """The cube ``(metric, run, topic)`` of the run and the baseline over ``topics``, each
    0 where it did not retrieve the topic (as the tools count it)."""
    run_part = zero_filled(run_scores.sel(topic=object_strings(run_topics)), topics)
    base_part = zero_filled(base_scores.sel(topic=object_strings(base_topics)), topics)
    return xr.concat([run_part.expand_dims(run=["run"]), base_part.expand_dims(run=["base"])],
                     dim="run").transpose("metric", "run", "topic")
