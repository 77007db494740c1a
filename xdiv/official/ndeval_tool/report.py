"""The output of TREC's official diversity evaluation tool, ndeval, to the byte, and the
CSV layout it shares with gdeval (:mod:`xdiv.official.gdeval.report`).

``ndeval`` (version 4.5, TREC Web Track 2013-2014) prints 21 intent-aware measures per
topic and their mean. It is reproduced here as a preset over xdiv's engine: the
registry's measures with the tool's definitions (:func:`xdiv.measure_set`),
:func:`xdiv.evaluate`, and :func:`xdiv.risk.urisk` for its risk-sensitive output against a
baseline run. What is added here is only which topics the tool lists and averages, and
its layout (:func:`ndeval_layout`, also used by gdeval and, through :func:`ndeval_csv`,
by ``xdiv evaluate --format ndeval``).

ndeval
    Lists every topic the run retrieved (0 for topics absent from the qrels or without
    relevant documents) and averages over the retrieved topics that are in the qrels, or
    with ``complete`` over every qrels topic. With a baseline each row is the
    risk-weighted difference from the baseline; topics only the baseline retrieved are
    listed with ``complete``, and the mean divides by the larger of the number of rows
    and the number of topics it would otherwise average. No topic in common gives a mean
    of ``-nan``, as the C program prints it.

The files are read as the tools read them by :func:`read_tool_runs` and
:func:`tool_collection` (used by ``xdiv ndeval``, ``xdiv gdeval`` and :func:`ndeval`): a
run line without its tag is refused in the tool's words, a run is cut at the depth
evaluated before repeated documents are looked for (ndeval's ``-M``), and topic labels
are read as the tool reads them (:func:`xdiv.official.layout.tool_topic`).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence

import numpy as np

import xarray as xr

from ...errors import InputError, NoRelevantWarning, RunTagWarning, XdivError
from ...kernels.risk import ordered_mean
from ...core.labels import from_json, natural_key, natural_sorted, object_strings, to_json
from ...analysis.risk import risk_differences
from ...analysis.risk import urisk
from ...typing import Order
from ..common import by_topic, per_topic_scores, retrieved_topics, risk_pair, run_tag
from ..layout import (GDEVAL_STATUS_AT_END, NDEVAL_LABELS, TOOL_LARGEST_RANK, TOOL_STATUS,
                      RunBlock, ToolRefusal, nan_propagated, ndeval_layout, risk_alpha_label,
                      repeated_rank, risk_run_label, sorted_topics, tool_topic)

__all__ = ["NDEVAL_LABELS", "RunBlock", "blocks_cube", "cut_runs", "ndeval", "ndeval_blocks",
           "ndeval_csv", "ndeval_layout", "ndeval_measures", "ndeval_report",
           "read_tool_qrels", "read_tool_runs", "tool_collection"]

_USES_ALPHA = ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "NRBP", "nNRBP")


def ndeval_measures(alpha: float = 0.5, beta: float = 0.5) -> list[str]:
    """ndeval's 21 measures as registry names, for its ``-alpha`` and ``-beta``."""
    names = []
    for label in NDEVAL_LABELS:
        base, _, cutoff = label.partition("@")
        params = []
        if base in _USES_ALPHA and alpha != 0.5:
            params.append(f"alpha={alpha!r}")
        if base in ("NRBP", "nNRBP") and beta != 0.5:
            params.append(f"beta={beta!r}")
        names.append(base + (f"({','.join(params)})" if params else "")
                     + (f"@{cutoff}" if cutoff else ""))
    return names


def cut_runs(runs: xr.Dataset, depth: int) -> xr.Dataset:
    """The runs cut to their top ``depth`` documents (ndeval's ``-M``)."""
    cut = runs.isel(rank=slice(0, depth))
    return cut.assign(length=cut["length"].clip(max=depth))


def ndeval_csv(scores: xr.Dataset) -> str:
    """A score cube (:func:`xdiv.evaluate`) in ndeval's per-topic CSV layout.

    A header ``runid,topic,<measures>``, then for each run one row per topic it retrieved
    and an ``amean`` row. As in ndeval, topics without relevant documents print 0 (xdiv
    scores them NaN) and the mean is over the retrieved topics that are in the qrels,
    summed in order as ndeval sums (``-nan`` when there is none); topics absent from the
    qrels print 0 and are left out of the mean. Values use ``%.6f``.
    """
    metrics = [str(m) for m in scores["metric"].values]
    unjudged = set(from_json(scores.attrs.get("topics_not_in_qrels", "[]")))
    lacking = from_json(scores.attrs.get("topics_not_in_runs", "{}"))
    blocks = []
    for run in scores["run"].values:
        values = scores["score"].sel(run=run).fillna(0.0)
        absent = set(lacking.get(str(run), []))
        topics = [t for t in values["topic"].values if t not in absent]
        judged = [t for t in topics if t not in unjudged]
        means = ordered_mean(by_topic(values, judged), axis=0)
        blocks.append(RunBlock(str(run), topics, by_topic(values, topics), means))
    return ndeval_layout(metrics, blocks, repeat_header=False)


def _ndeval_scores(runs: xr.Dataset, collection: xr.Dataset,
                   measures: Sequence[str]) -> xr.DataArray:
    """ndeval's per-topic values: 0 where xdiv's are undefined, except nNRBP of a retrieved
    topic whose qrels hold no relevant document, which ndeval computes as 0/0 (NaN)."""
    scores = per_topic_scores(runs, collection, measures)
    without_relevant = ~collection["intent_valid"].any("intent")
    retrieved = runs["length"] > 0
    undefined = (without_relevant.reindex(topic=scores["topic"], fill_value=False)
                 & retrieved.reindex(topic=scores["topic"], fill_value=False))
    nnrbp = scores["metric"] == measures[NDEVAL_LABELS.index("nNRBP")]
    return scores.where(~(undefined & nnrbp))


def ndeval_report(collection: xr.Dataset, runs: xr.Dataset, *, alpha: float = 0.5,
                  beta: float = 0.5, complete: bool = False, baseline: xr.Dataset | None = None,
                  risk_alpha: float = 0.0, risk_alpha_text: str | None = None,
                  risk_label: str = "2014") -> str:
    """ndeval's CSV output for every run of ``runs``, one block per run: the layout
    (:func:`ndeval_layout`) of :func:`ndeval_blocks`, which takes the same parameters."""
    return ndeval_layout(NDEVAL_LABELS, ndeval_blocks(
        collection, runs, alpha=alpha, beta=beta, complete=complete, baseline=baseline,
        risk_alpha=risk_alpha, risk_alpha_text=risk_alpha_text, risk_label=risk_label))


def ndeval_blocks(collection: xr.Dataset, runs: xr.Dataset, *, alpha: float = 0.5,
                  beta: float = 0.5, complete: bool = False, baseline: xr.Dataset | None = None,
                  risk_alpha: float = 0.0, risk_alpha_text: str | None = None,
                  risk_label: str = "2014") -> list[RunBlock]:
    """ndeval's rows for every run of ``runs``: one :class:`RunBlock` per run.

    Parameters
    ----------
    collection, runs : xarray.Dataset
        From :func:`xdiv.read_qrels` and :func:`xdiv.read_runs` (``order="rank"`` for
        ndeval's default ranking, ``"score-docno-desc"`` for ``-traditional``).
    alpha, beta : float
        ndeval's ``-alpha`` and ``-beta``.
    complete : bool
        ndeval's ``-c``: average over every topic of the qrels.
    baseline : xarray.Dataset, optional
        One baseline run (``-baseline``): print the risk-weighted differences from it.
    risk_alpha : float
        ``-riskAlpha``: losses against the baseline count ``1 + risk_alpha`` times.
    risk_alpha_text : str, optional
        The ``-riskAlpha`` argument as typed, which ndeval prints in the run label
        (default ``"0"`` when not given, else ``repr(risk_alpha)``).
    risk_label : {"2014", "2013"}
        The run label against a baseline: ``run (rel to. base; rs=1+a; a=A)`` as ndeval
        4.5 prints it since June 2014, or with commas as the 2013 release of the same
        version does (:data:`xdiv.official.layout.RISK_LABELS`).
    """
    measures = ndeval_measures(alpha, beta)
    scores = _ndeval_scores(runs, collection, measures)
    judged = [str(t) for t in collection["topic"].values]
    base_label = base_scores = base_topics = None
    if baseline is not None:
        base_run = str(baseline["run"].values[0])
        base_label = run_tag(baseline, base_run, 0) or base_run
        base_scores = _ndeval_scores(baseline, collection, measures).sel(run=base_run)
        base_topics = retrieved_topics(baseline, base_run)
        alpha_text = risk_alpha_label(risk_alpha, risk_alpha_text)
    blocks = []
    for run in (str(r) for r in runs["run"].values):
        name = run_tag(runs, run, 0) or run  # a file without tags: the name announced
        retrieved = retrieved_topics(runs, run)
        values = scores.sel(run=run)
        if baseline is None:
            rows = sorted_topics(retrieved)
            # the topics averaged, in order; unretrieved ones (with -c) add 0 to the sum
            topics = sorted_topics(judged if complete else set(retrieved) & set(judged))
            averaged = values.sel(topic=object_strings(topics)).values
            blocks.append(RunBlock(name, rows, by_topic(values, rows),
                                   nan_propagated(averaged, ordered_mean(averaged))))
            continue
        label = risk_run_label(name, base_label, alpha_text, risk_label)
        rows = sorted_topics(set(retrieved) | set(base_topics) if complete else retrieved)
        # the mean divides by the larger of the number of rows and of the topics it would
        # average without a baseline: judged topics neither run retrieved pad the rows up
        # to that count, each a difference of 0 - 0
        averaged = len(judged) if complete else len(set(retrieved) & set(judged))
        padding = [t for t in judged if t not in set(rows)][:max(averaged - len(rows), 0)]
        cube = risk_pair(values, base_scores, retrieved, base_topics, rows + padding)
        risk = risk_differences(cube, "base", risk_alpha).sel(run="run")
        means = urisk(cube, "base", risk_alpha).sel(run="run").values
        blocks.append(RunBlock(label, rows, by_topic(risk, rows),
                               nan_propagated(risk.values, means)))
    return blocks


def ndeval(qrels: str | os.PathLike, runs: str | os.PathLike | Sequence[str | os.PathLike], *,
           traditional: bool = False, alpha: float = 0.5, beta: float = 0.5,
           complete: bool = False, depth: int | None = None) -> xr.Dataset:
    """ndeval's values for run files, as a labelled cube: what ``xdiv ndeval`` prints.

    The 21 measures of TREC's ndeval (version 4.5) with its conventions (see
    :func:`ndeval_report`): 0 for topics without relevant documents, judgments above 1
    counted as 1, the mean over the retrieved topics of the qrels. Plain files take the
    numpy path of ``xdiv ndeval`` (:mod:`xdiv.official.plain`), scored in parallel;
    others are read by :func:`xdiv.read_qrels` and :func:`xdiv.read_runs`. Either way
    the values are the same bits.

    The files are read as ndeval reads them (:func:`read_tool_runs`,
    :func:`tool_collection`): topics by number (``wt09-1`` and ``01`` are topic 1), a
    run cut at ``depth`` before repeated documents are looked for, and what ndeval
    refuses (a run line without its tag, a document retrieved twice) refused with a
    :class:`~xdiv.official.layout.ToolRefusal`.

    Parameters
    ----------
    qrels : str or path-like
        Diversity qrels (gzip allowed).
    runs : str, path-like or list of them
        Run files.
    traditional : bool
        ndeval's ``-traditional``: rank by score, ties by docno descending, instead of
        by the rank column.
    alpha, beta, complete, depth
        ndeval's ``-alpha``, ``-beta``, ``-c`` and ``-M``.

    Returns
    -------
    xarray.Dataset
        ``score(metric, run, topic)``: ndeval's row of each run for each topic it
        retrieved (NaN where it retrieved nothing: ndeval prints no row); ``mean(metric,
        run)``: its ``amean`` row. Runs are named by their tag, in natural order.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import xdiv
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "qrels").write_text("1 1 a 1\\n1 2 b 1\\n2 1 c 1\\n")
    >>> _ = (folder / "run").write_text("1 Q0 b 1 2.0 r\\n1 Q0 a 2 1.0 r\\n2 Q0 c 1 1.0 r\\n")
    >>> cube = xdiv.official.ndeval(folder / "qrels", [folder / "run"])
    >>> float(cube["mean"].sel(metric="strec@5", run="r"))
    1.0
    >>> cube["score"].sel(metric="P-IA@5", run="r").values.round(3).tolist()
    [0.2, 0.2]
    """
    from ...core.ranking import order_switch
    from ..plain import ndeval_plain_blocks

    paths = [runs] if isinstance(runs, (str, os.PathLike)) else list(runs)
    order = "score-docno-desc" if traditional else "rank"
    with order_switch(None if traditional else "traditional=True"):
        blocks = ndeval_plain_blocks(qrels, paths, order=order, alpha=alpha, beta=beta,
                                     complete=complete, depth=depth, tool_topics=True)
        if blocks is None:
            collection = tool_collection(read_tool_qrels(qrels), "ndeval", qrels)
            read = read_tool_runs(paths, tool="ndeval", order=order, depth=depth)
            blocks = ndeval_blocks(collection, read, alpha=alpha, beta=beta,
                                   complete=complete)
    return blocks_cube(blocks, NDEVAL_LABELS, tool="ndeval 4.5")


def blocks_cube(blocks: Sequence[RunBlock], columns: Sequence[str], *,
                tool: str) -> xr.Dataset:
    """The rows of an official tool's output (:class:`RunBlock`) as ``score(metric, run,
    topic)`` (NaN where a run has no row) and ``mean(metric, run)``."""
    topics = sorted_topics(t for block in blocks for t in block.topics)
    at = {topic: k for k, topic in enumerate(topics)}
    score = np.full((len(columns), len(blocks), len(topics)), np.nan)
    for r, block in enumerate(blocks):
        if len(block.topics):
            score[:, r, [at[t] for t in block.topics]] = np.asarray(block.rows).T
    return xr.Dataset(
        {"score": (("metric", "run", "topic"), score),
         "mean": (("metric", "run"), np.array([b.means for b in blocks]).T.reshape(
             len(columns), len(blocks)))},
        coords={"metric": object_strings(columns),
                "run": object_strings([b.label for b in blocks]),
                "topic": object_strings(topics)},
        attrs={"xdiv_kind": "official", "tool": tool})


# ------------------------------------------------------------------ files as the tools read them

def _untagged(path: str, tool: str) -> ToolRefusal:
    """The tool's refusal of a run file without tag column, at its first line without
    the tag (:func:`xdiv.official.plain_input.short_line`)."""
    from ..plain_input import short_line

    return _refusal(path, tool, *(short_line(path, 6) or (1, 5)))


def _refusal(path: str, tool: str, line: int, count: int, rank: str = "",
             unterminated: bool = False) -> ToolRefusal:
    """The tool's refusal of line ``line`` of the run file ``path``, which holds
    ``count`` fields: fewer than six (none on a blank line), or a ``rank`` the tool does
    not read (:data:`~xdiv.official.layout.TOOL_LARGEST_RANK`). The line is a syntax error
    to ndeval (``syntax error in run file "F" at line N``, exit status 1) and a format
    error to gdeval.pl (``format error on line N of "F"``, status 25, or 255 when the line
    is the file's last and ``unterminated``: :data:`~xdiv.official.layout.
    GDEVAL_STATUS_AT_END`); what follows in parentheses says why."""
    if count == 0:
        what = (f"a blank line: {tool} reads six fields on every line, topic Q0 docno rank "
                "score tag")
    elif count < 6:
        what = (f"{count} field{'s' if count > 1 else ''} where {tool} reads six, topic Q0 "
                f"docno rank score tag: {tool} refuses a run line without its run tag")
    else:
        largest = TOOL_LARGEST_RANK[tool]
        most = "" if largest is None else f", {largest} at most"
        what = f"rank {rank!r}: {tool} reads a rank written in digits alone{most}"
    if tool == "ndeval":
        return ToolRefusal(f'syntax error in run file "{path}" at line {line} ({what})',
                           TOOL_STATUS["ndeval"])
    return ToolRefusal(f'format error on line {line} of "{path}" ({what})',
                       GDEVAL_STATUS_AT_END if unterminated else TOOL_STATUS["gdeval"])


def _refused(path: str, tool: str) -> ToolRefusal | None:
    """The tool's refusal of the run file ``path`` at the first line it does not read
    (:func:`xdiv.official.plain_input.refused_line`: fewer than six fields, or a rank not
    written as the tool reads ranks); None when it reads every line."""
    from ..plain_input import refused_line

    found = refused_line(path, largest=TOOL_LARGEST_RANK[tool])
    return None if found is None else _refusal(path, tool, *found)


def _rank_given_twice(path: str) -> ToolRefusal | None:
    """ndeval's refusal of the run file ``path`` when it gives one rank to two documents
    of a topic (topics and ranks as ndeval reads them; the first pair in the order of
    topics, then ranks: :func:`~xdiv.official.layout.repeated_rank`), or None. Lines the
    readers refuse give None: :func:`xdiv.read_runs` says what is wrong with them."""
    from ...io._columns import read_columns

    layout = [("topic", "str"), ("_Q0", "str"), ("_docno", "str"), ("rank", "int"),
              ("_score", "str"), ("_run", "str")]
    try:
        table = read_columns(path, layout, optional_last=True)
    except XdivError:
        return None
    labels = [str(t) for t in table["topic"].dictionary.to_pylist()]
    mapped = [tool_topic(t, "ndeval") or t for t in labels]
    topics = natural_sorted(mapped)
    position = {t: k for k, t in enumerate(topics)}
    code = np.array([position[t] for t in mapped], dtype=np.int64)
    found = repeated_rank(code[table["topic"].indices.to_numpy(zero_copy_only=False)],
                          np.asarray(table["rank"], dtype=np.int64))
    if found is None:
        return None
    return ToolRefusal(f"duplicate rank ({found[1]}) for topic {topics[found[0]]} in run file "
                       f'"{path}" (ndeval reads one document at each rank of a topic; '
                       "-traditional ranks by score instead)", TOOL_STATUS["ndeval"])


_TOPIC_RULES = {"ndeval": "ndeval reads a topic number, after a prefix ending in '-' "
                          "such as wt09-",
                "gdeval": "gdeval reads the digits after the last '-'"}


def _tool_labels(labels: Sequence[str], tool: str, path: str) -> list[str]:
    """``labels`` as ``tool`` reads them (:func:`xdiv.official.layout.tool_topic`); the
    labels it cannot read, which make the tool refuse the file, are kept as written,
    with a warning naming ``path``."""
    from ..._warnings import warn as emit_warning
    from ...core.labels import preview
    from ...errors import XdivWarning

    mapped = [tool_topic(label, tool) for label in labels]
    unread = [label for label, m in zip(labels, mapped) if m is None]
    if unread:
        emit_warning(f"{path}: topic(s) {preview(natural_sorted(unread), 5)}: "
                     f"{_TOPIC_RULES[tool]}, and it would refuse the file; xdiv {tool} reads "
                     "them as written", XdivWarning)
    return [label if m is None else m for label, m in zip(labels, mapped)]


def read_tool_qrels(path: str | os.PathLike) -> xr.Dataset:
    """The qrels of ``path`` as :func:`xdiv.read_qrels` reads them, without its warning
    about topics without any relevant document: ndeval lists them with 0 and gdeval
    leaves them out, without a word, and so do ``xdiv ndeval`` and ``xdiv gdeval``."""
    from ...io.api import read_qrels

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoRelevantWarning)
        return read_qrels(path)


def tool_collection(collection: xr.Dataset, tool: str, path: str | os.PathLike) -> xr.Dataset:
    """The qrels with their topics labelled as ``tool`` ("ndeval" or "gdeval") reads them
    (:func:`xdiv.official.layout.tool_topic`: ``0151`` is ``151`` to ndeval, ``wt-51`` is
    ``51`` to both), in natural order.

    ndeval itself reads qrels topics as plain numbers and refuses a prefix there; xdiv
    reads a prefix in the qrels as in the runs. A label the tool cannot read at all is
    kept as written, with a warning. Two labels that the tool reads as one topic are an
    :class:`~xdiv.errors.InputError` naming ``path``: their judgments are not merged.
    """
    path = os.fspath(path)
    labels = [str(t) for t in collection["topic"].values]
    mapped = _tool_labels(labels, tool, path)
    if mapped == labels:
        return collection
    seen: dict[str, str] = {}
    for label, m in zip(labels, mapped):
        if m in seen:
            raise InputError(f"{path}: topics {seen[m]!r} and {label!r} are one topic to "
                             f"{tool} ({_TOPIC_RULES[tool]}); xdiv {tool} does not merge "
                             "their judgments: give the topic one label")
        seen[m] = label
    rename = dict(zip(labels, mapped))
    order = sorted(range(len(mapped)), key=lambda k: natural_key(mapped[k]))
    out = collection.assign_coords(topic=object_strings(mapped)).isel(topic=order)
    dropped = from_json(collection.attrs.get("dropped_intents", "{}"))
    without = from_json(collection.attrs.get("topics_without_relevant", "[]"))
    out.attrs.update(dropped_intents=to_json({rename.get(t, t): v for t, v in dropped.items()}),
                     topics_without_relevant=to_json([rename.get(t, t) for t in without]))
    return out


def read_tool_runs(paths: str | os.PathLike | Sequence[str | os.PathLike], *, tool: str,
                   order: Order, depth: int | None = None,
                   progress: bool = False) -> xr.Dataset:
    """Run files read as the official ``tool`` ("ndeval" or "gdeval") reads them: the
    Runs dataset of :func:`xdiv.read_runs` (warnings included), cut to ``depth``.

    Where the tool differs from :func:`xdiv.read_runs`:

    * a run line the tool does not read is refused as the tool refuses it, in its words
      and with its exit status (a :class:`~xdiv.official.layout.ToolRefusal`; ndeval:
      ``syntax error in run file "F" at line N``, 1; gdeval.pl: ``format error on line N
      of "F"``, 25): a line without its run tag (a run file without tag column, which
      :func:`xdiv.read_runs` names after the file), a blank line (which
      :func:`xdiv.read_runs` skips), or a line whose rank is not written in digits
      alone or is larger than the tool reads (``-1``, ``+1``, ``1.0``; above 1000009 for
      ndeval: :data:`~xdiv.official.layout.TOOL_LARGEST_RANK`; gdeval reads any digits,
      beyond 64-bit integers too); for ndeval ranking by the rank column, a rank given
      twice within a topic (``duplicate rank (R) for topic T in run file "F"``);
    * the run is ranked and cut to its top ``depth`` documents before repeated documents
      are looked for, as ndeval applies ``-M`` (for gdeval, ``depth`` is ``-k``: the
      documents its output reads); a docno retrieved twice within the cut is an
      :class:`~xdiv.errors.InputError` that says why the tool refuses it (ndeval) or
      would count it twice (gdeval);
    * topics are labelled as the tool reads them (``wt09-1`` is 1 to both), the lines
      of labels the tool reads as one topic together; a label the tool cannot read is
      kept as written, with a warning;
    * a run file with several run tags is named as the tool names it (ndeval: the tag of
      its first line; gdeval: of its last; :func:`xdiv.official.common.run_tag`), without
      :func:`xdiv.read_runs`' warning that it is named after the file.
    """
    paths = [os.fspath(paths)] if isinstance(paths, (str, os.PathLike)) \
        else [os.fspath(p) for p in paths]
    for path in paths:  # the tool stops at the first line it does not read
        refusal = _refused(path, tool)
        if refusal is None and tool == "ndeval" and order == "rank":
            refusal = _rank_given_twice(path)
        if refusal is not None:
            raise refusal
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RunTagWarning)
        return _read_as_tool(paths, tool, order, depth, progress)


def _read_as_tool(paths: list[str], tool: str, order: Order, depth: int | None,
                  progress: bool) -> xr.Dataset:
    """:func:`read_tool_runs` once no line is refused."""
    from ...io.runfiles import read_runs

    failure: XdivError | None = None
    with warnings.catch_warnings(record=True) as said:
        try:
            runs = read_runs(paths, order=order, progress=progress)
        except XdivError as exc:
            failure = exc
    if failure is not None and not isinstance(failure, InputError) and tool != "gdeval":
        _replay(said)
        raise failure  # a line the readers refuse (ParseError), as xdiv evaluate says it
    if failure is None:
        tags = from_json(runs.attrs.get("tags", "{}"))
        source = from_json(runs.attrs.get("source", "{}"))
        for path in paths:
            run = next((r for r, p in source.items() if p == path), None)
            if run is not None and tags.get(run, [None])[0] == "":
                raise _untagged(path, tool)
        if all(tool_topic(str(t), tool) in (str(t), None) for t in runs["topic"].values):
            _replay(said)
            for run in (str(r) for r in runs["run"].values):
                _tool_labels(retrieved_topics(runs, run), tool, source.get(run, run))
            return runs if depth is None else cut_runs(runs, depth)
    # a document repeated (perhaps only below the cut), topic labels the tool reads
    # otherwise, or (gdeval) a line the readers refuse, perhaps for a rank beyond 64-bit
    # integers: the files again, as frames, ranked and cut as the tool does
    return _runs_by_tool(paths, tool, order, depth, failure, said)


def _replay(said: list) -> None:
    """Give again the warnings recorded by :func:`warnings.catch_warnings`."""
    for w in said:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)


def _runs_by_tool(paths: list[str], tool: str, order: Order, depth: int | None,
                  failure: XdivError | None, said: list) -> xr.Dataset:
    """The Runs dataset of :func:`read_tool_runs` built from the files' frames; the
    ``failure`` of :func:`xdiv.read_runs` (with its warnings ``said``) is raised again
    when the frames cannot be read, or when no document is repeated and the failure is
    an :class:`~xdiv.errors.InputError`. gdeval reads no rank: its frames hold the rank
    column as text (a ``failure`` of the readers then said only that a rank is beyond
    64-bit integers), and runs are ranked without it."""
    import pandas as pd

    from ...core.ranking import warn_rank_disagreements
    from ...core.runs import docno_codes, runs_dataset
    from ...io.trec import read_run_frame
    from ..plain import RepeatedDocument, rank_within

    with warnings.catch_warnings(record=True) as again:
        try:
            frames = [read_run_frame(path, rank_as_text=tool == "gdeval") for path in paths]
        except XdivError:
            frames = None
    if frames is None:
        _replay(said)
        raise failure or InputError(f"{', '.join(paths)}: the run files changed while read")
    for path, frame in zip(paths, frames):
        if frame.attrs.get("tags", [None])[0] == "":
            raise _untagged(path, tool)
    names: dict[str, str] = {}
    for path, frame in zip(paths, frames):
        name = str(frame["run"].iat[0])
        if name in names:
            _replay(said)
            raise failure or InputError(f"{path}: run name {name!r} is also the name of "
                                        f"{names[name]}")
        names[name] = path
    if isinstance(failure, InputError) and not any(f.duplicated(["topic", "docno"]).any()
                                                    for f in frames):
        _replay(said)
        raise failure
    with warnings.catch_warnings(record=True) as labelled:
        for path, frame in zip(paths, frames):
            labels = list(frame["topic"].unique())
            frame["topic"] = frame["topic"].map(dict(zip(labels,
                                                         _tool_labels(labels, tool, path))))
    _replay(again + labelled)
    vocabulary, codes = docno_codes(pd.concat([f["docno"] for f in frames], ignore_index=True))
    codes = np.split(codes, np.cumsum([len(f) for f in frames])[:-1])
    topics = natural_sorted(t for f in frames for t in f["topic"].unique())
    index = {t: k for k, t in enumerate(topics)}
    found: list = []
    grids = []
    for path, frame, code in zip(paths, frames, codes):
        name = str(frame["run"].iat[0])
        try:
            grids.append((name, path, frame.attrs.get("tags", [name, name]), rank_within(
                frame["topic"].map(index).to_numpy(np.int64), code,
                frame["score"].to_numpy(np.float64),
                None if tool == "gdeval" else frame["rank"].to_numpy(np.float64),
                len(topics), order=order, depth=depth, run_label=name, topic_labels=topics,
                docno_of=lambda k: vocabulary[k], disagreements=found)))
        except RepeatedDocument as exc:
            raise _repeated(tool, path, exc) from None
    warn_rank_disagreements(found, order)
    grids.sort(key=lambda g: natural_key(g[0]))
    deepest = max(max(g[3][0].shape[1] for g in grids), 1)
    doc = np.full((len(grids), len(topics), deepest), -1, dtype=np.int32)
    score = np.full(doc.shape, np.nan)
    length = np.zeros(doc.shape[:2], dtype=np.int64)
    for r, (_, _, _, (d, s, n)) in enumerate(grids):
        doc[r, :, :d.shape[1]], score[r, :, :d.shape[1]], length[r] = d, s, n
    runs = runs_dataset(doc, score, length, [g[0] for g in grids], topics, vocabulary, order)
    runs.attrs["source"] = to_json({g[0]: g[1] for g in grids})
    runs.attrs["tags"] = to_json({g[0]: list(g[2]) for g in grids})
    return runs


def _repeated(tool: str, path: str, exc) -> InputError:
    """Why the tool refuses, or would misread, a docno retrieved twice for a topic within
    the depth it reads (``exc``: a :class:`~xdiv.official.plain.RepeatedDocument`); one
    line naming the file, as xdiv's input errors do."""
    where = f"run {exc.run} topic {exc.topic} docno {exc.docno}"
    if tool == "ndeval":
        within = "" if exc.depth is None else f" within the top {exc.depth} (-M)"
        cut = "" if exc.depth is None else "; a repeat below the -M depth is cut off first"
        return InputError(f"{path}: a docno is retrieved more than once for a topic{within}: "
                          f"{where} (ndeval stops there too: 'duplicate docno "
                          f"({exc.docno}) for topic {exc.topic}'{cut})")
    return InputError(f"{path}: a docno is retrieved more than once for a topic within the "
                      f"top {exc.depth} (-k): {where} (gdeval would count it twice, and its "
                      "nDCG can exceed 1; a repeat below the top k is read as gdeval reads "
                      "it)")
