"""``.xdiv`` accessors on pandas DataFrames and xarray Datasets.

Accessors are stateless one-line delegates to the plain functions (pandas 3 rebuilds a
DataFrame accessor on every access, xarray caches one per object), so an accessor never
holds derived state that an in-place edit could make stale.

Tidy frames use ir_measures' column names: ``query_id``, ``doc_id``, ``score``, ``run``,
``relevance`` and ``iteration`` or ``subtopic_id`` for the intent.
"""

from __future__ import annotations

import pandas as pd
import xarray as xr

from .errors import InputError

# The accessors are registered as soon as pandas or xarray is loaded, possibly while a
# module of xdiv is still importing them (see xdiv._lazy): the functions they delegate to
# are imported when called, not here.

_RUN_COLUMNS = {"query_id": "topic", "doc_id": "docno", "score": "score", "run": "run",
                "rank": "rank"}
_QREL_COLUMNS = {"query_id": "topic", "doc_id": "docno", "relevance": "level",
                 "iteration": "intent", "subtopic_id": "intent"}


def _require(frame: pd.DataFrame, columns: list[str], what: str) -> None:
    lacking = [c for c in columns if c not in frame.columns]
    if lacking:
        raise InputError(f"a {what} frame needs the column(s) {lacking}; it has "
                         f"{list(frame.columns)}")


def frame_to_runs(frame: pd.DataFrame, *, name: str = "run", order="score-docno-desc",
                  duplicates="error") -> xr.Dataset:
    """Runs from an ir_measures-style frame (``query_id doc_id score [run]``)."""
    _require(frame, ["query_id", "doc_id", "score"], "run")
    tidy = frame.rename(columns={k: v for k, v in _RUN_COLUMNS.items() if k in frame.columns})
    if "run" not in tidy.columns:
        tidy = tidy.assign(run=name)
    from .core.runs import build_runs

    return build_runs(tidy, order=order, duplicates=duplicates)


def frame_to_collection(frame: pd.DataFrame, *, topics=None,
                        probabilities="uniform") -> xr.Dataset:
    """A collection from an ir_measures-style qrels frame (``query_id doc_id relevance
    [iteration|subtopic_id]``); without an intent column the qrels are adhoc."""
    _require(frame, ["query_id", "doc_id", "relevance"], "qrels")
    if "iteration" in frame.columns and "subtopic_id" in frame.columns:
        raise InputError("a qrels frame has both 'iteration' and 'subtopic_id'; keep one")
    tidy = frame.rename(columns={k: v for k, v in _QREL_COLUMNS.items() if k in frame.columns})
    if "intent" not in tidy.columns:
        tidy = tidy.assign(intent="0")
    from .io.api import build_collection

    return build_collection(tidy, topics=topics, probabilities=probabilities)


@pd.api.extensions.register_dataframe_accessor("xdiv")
class XdivFrameAccessor:
    """``df.xdiv``: turn tidy run/qrels frames into xdiv datasets and evaluate them."""

    def __init__(self, frame: pd.DataFrame):
        if not isinstance(frame, pd.DataFrame):
            raise InputError("the .xdiv accessor needs a pandas DataFrame")
        self._frame = frame

    def to_runs(self, *, name: str = "run", order: str = "score-docno-desc",
                duplicates: str = "error") -> xr.Dataset:
        """See :func:`frame_to_runs`."""
        return frame_to_runs(self._frame, name=name, order=order, duplicates=duplicates)

    def to_collection(self, *, topics=None, probabilities="uniform") -> xr.Dataset:
        """See :func:`frame_to_collection`."""
        return frame_to_collection(self._frame, topics=topics, probabilities=probabilities)

    def evaluate(self, qrels: pd.DataFrame | xr.Dataset, metrics, *, missing: str = "zero",
                 adhoc: str | None = None, ties: str | None = None, tie_samples: int = 200,
                 seed: int = 0, judged_only: bool = False,
                 residuals: bool = False) -> pd.DataFrame:
        """Evaluate this run frame against ``qrels``; a tidy ``metric run topic score``
        frame, with a column for each further variable of the score cube (``score_se``,
        ``score_min``, ``score_max``, ``tie_spread`` with ``ties``, ``score_high`` with
        ``residuals``). See :func:`xdiv.evaluate`."""
        from .engine import evaluate

        collection = frame_to_collection(qrels) if isinstance(qrels, pd.DataFrame) else qrels
        scores = evaluate(frame_to_runs(self._frame), collection, metrics, missing=missing,
                          adhoc=adhoc, ties=ties, tie_samples=tie_samples, seed=seed,
                          judged_only=judged_only, residuals=residuals)
        frame = to_frame(scores)
        for name in scores.data_vars:
            if name != "score" and scores[name].dims == scores["score"].dims:
                frame[name] = scores[name].values.ravel()
        return frame


def to_frame(dataset: xr.Dataset) -> pd.DataFrame:
    """A tidy frame of any xdiv dataset: qrels lines, run lines, or score cubes."""
    from .core.collection import qrels_frame
    from .core.runs import runs_frame

    kind = dataset.attrs.get("xdiv_kind")
    if kind == "collection":
        return qrels_frame(dataset)
    if kind == "runs":
        return runs_frame(dataset)
    if kind == "scores":
        return dataset["score"].reset_coords(drop=True).to_dataframe().reset_index()
    return dataset.to_dataframe().reset_index()


@xr.register_dataset_accessor("xdiv")
class XdivDatasetAccessor:
    """``ds.xdiv``: tidy conversion, summaries and evaluation of xdiv datasets."""

    def __init__(self, dataset: xr.Dataset):
        if not isinstance(dataset, xr.Dataset):
            raise InputError("the .xdiv accessor needs an xarray Dataset")
        self._dataset = dataset

    def to_frame(self) -> pd.DataFrame:
        """See :func:`to_frame`."""
        return to_frame(self._dataset)

    def summarize(self) -> xr.Dataset:
        """See :func:`xdiv.summarize` (score cubes)."""
        from .core.cube import summarize

        return summarize(self._dataset)

    def evaluate(self, collection: xr.Dataset, metrics, *, missing: str = "zero",
                 adhoc: str | None = None, ties: str | None = None, tie_samples: int = 200,
                 seed: int = 0, judged_only: bool = False,
                 residuals: bool = False) -> xr.Dataset:
        """Evaluate these runs; see :func:`xdiv.evaluate`."""
        from .engine import evaluate

        return evaluate(self._dataset, collection, metrics, missing=missing, adhoc=adhoc,
                        ties=ties, tie_samples=tie_samples, seed=seed,
                        judged_only=judged_only, residuals=residuals)

    def compare(self, baseline=None, **options) -> xr.Dataset:
        """Compare the runs of this score cube; see :func:`xdiv.compare`."""
        from .analysis.compare import compare

        return compare(self._dataset, baseline, **options)

    def table(self, format: str = "latex", **options) -> str:
        """The table a paper prints of this :func:`xdiv.compare` result; see
        :func:`xdiv.table`."""
        from .formats.tables import table

        return table(self._dataset, format=format, **options)
