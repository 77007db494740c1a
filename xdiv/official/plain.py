"""ndeval's output from plain files through the numpy kernels alone: the path ``xdiv
ndeval`` takes when it can, loading neither pandas, xarray nor scipy.

:func:`ndeval_plain` reads the qrels and runs with the plain readers
(:mod:`xdiv.official.plain_input`), ranks each run as :func:`xdiv.read_runs` does
(:func:`xdiv.core.ranking.ranked_grids`), joins it with the qrels and calls the kernels of
ndeval's measures (:mod:`xdiv.kernels.ndeval`) on the same arrays as
:func:`xdiv.evaluate`, so that its output is the same, byte for byte, as
:func:`xdiv.official.ndeval_tool.report.ndeval_report`'s. It returns None, before printing
or warning anything, whenever the files are not plain or anything would be warned about
or refused other than runs whose rank column and scores disagree (a run with no judged
document, a document retrieved twice within the depth read, two files with the same run
name, a topic label or rank the tool cannot read): the caller then takes the general
path, which says so.

Each run is scored alone: every kernel adds ranks in order (:func:`rank_sum`), so that a
run's scores are the same bits whichever runs it is evaluated with.

As ndeval, a run is cut at the depth evaluated (ndeval's ``-M``, gdeval's ``-k``) before
its documents are checked for repeats (:func:`rank_within`): a document repeated only
below the cut is no error. With ``tool_topics``, topic labels are read as the tool reads
them (:func:`xdiv.official.layout.tool_topic`).
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..core.labels import natural_key
from ..core.ranking import ranked_grids, warn_rank_disagreements
from ..errors import InputError
from .plain_input import PlainQrels, PlainRun, read_plain_qrels, read_plain_run, sorted_codes
from ..kernels import graded as G
from ..kernels import ndeval as K
from ..kernels.common import gain_table, ideal_levels
from ..kernels.diversity import intent_recall
from ..kernels.risk import ordered_mean
from ..typing import Order
from .layout import (NDEVAL_LABELS, TOOL_LARGEST_RANK, RunBlock, nan_propagated,
                     ndeval_layout, repeated_rank, sorted_topics, tool_topic)

__all__ = ["GDEVAL_HIGHEST", "RepeatedDocument", "gdeval_plain", "ndeval_plain",
           "ndeval_plain_blocks", "rank_within"]

GDEVAL_HIGHEST = 4
"""gdeval's highest grade: the top of its ERR gain table (2^4 - 1 = 15)."""

PathLike = str | os.PathLike


@dataclass(frozen=True)
class _Judged:
    """One run joined with the qrels, over the topics it retrieved: the arrays the
    kernels take (:mod:`xdiv.kernels.ndeval`)."""

    name: str
    topics: list[str]
    levels: np.ndarray
    """``(topic, rank, intent)`` levels of the ranked documents (0: unjudged, padding)."""
    valid: np.ndarray
    """``(topic, intent)``."""
    n_relevant: np.ndarray
    """``(topic, intent)``: relevant documents in the qrels."""
    ideal: np.ndarray
    """``(topic, greedy_rank)``: novelty gains of the greedy ideal list."""


_Column = Callable[[_Judged, "int | None", float, float], np.ndarray]
_COLUMNS: dict[str, _Column] = {
    "ERR-IA": lambda j, k, a, b: K.err_ia(j.levels, j.valid, cutoff=k, alpha=a),
    "nERR-IA": lambda j, k, a, b: K.nerr_ia(j.levels, j.valid, j.ideal[:, :k], cutoff=k,
                                            alpha=a),
    "alpha-DCG": lambda j, k, a, b: K.alpha_dcg(j.levels, j.valid, cutoff=k, alpha=a),
    "alpha-nDCG": lambda j, k, a, b: K.alpha_ndcg(j.levels, j.valid, j.ideal[:, :k], None,
                                                  cutoff=k, alpha=a),
    "NRBP": lambda j, k, a, b: K.nrbp(j.levels, j.valid, cutoff=None, alpha=a, beta=b),
    "MAP-IA": lambda j, k, a, b: K.map_ia(j.levels, j.valid, j.n_relevant, cutoff=None),
    "P-IA": lambda j, k, a, b: K.p_ia(j.levels, j.valid, cutoff=k),
    "strec": lambda j, k, a, b: intent_recall(j.levels, j.valid, cutoff=k),
}
"""ndeval's columns (but nNRBP, whose ideal list has its own depth) as kernel calls, by
the measure's name; the registry declares the same measures over labelled data
(:mod:`xdiv.measures.ndeval`), and the tests hold the two to the same bits."""


def _gdeval_scores(judged: _Judged, setting: _Setting) -> np.ndarray:
    """``(topic, column)``: gdeval's nDCG@k (gains 2^g - 1 up to the qrels' highest
    grade) and ERR@k (stop probability (2^g - 1)/16), as the registry's ``nDCG@k`` and
    ``ERR(H=4)@k`` compute them (:func:`xdiv.official.gdeval.report.gdeval_measures`); NaN read
    as 0."""
    levels, k = judged.levels[..., 0][:, :setting.k], setting.k
    scores = np.stack([G.ndcg(levels, judged.ideal, cutoff=k,
                              table=gain_table("exp", setting.highest)),
                       G.err_at(levels, judged.ideal, cutoff=k,
                                table=gain_table("exp", GDEVAL_HIGHEST))], axis=-1)
    return np.where(np.isnan(scores), 0.0, scores)


def _scores(judged: _Judged, setting: _Setting) -> np.ndarray:
    """``(topic, column)``: ndeval's 21 values, NaN (undefined, or a topic not in the
    qrels) read as 0 as ndeval prints them; gdeval's two with ``setting.tool``."""
    if setting.tool == "gdeval":
        return _gdeval_scores(judged, setting)
    alpha, beta, nrbp_depth = setting.alpha, setting.beta, setting.nrbp_depth
    columns = []
    for label in NDEVAL_LABELS:
        name, _, cutoff = label.partition("@")
        if name == "nNRBP":
            values = K.nnrbp(judged.levels, judged.valid, judged.ideal[:, :nrbp_depth],
                             cutoff=None, alpha=alpha, beta=beta)
        else:
            values = _COLUMNS[name](judged, int(cutoff) if cutoff else None, alpha, beta)
        columns.append(values)
    scores = np.stack(columns, axis=-1)
    return np.where(np.isnan(scores), 0.0, scores)


class RepeatedDocument(InputError):
    """A docno retrieved more than once for a topic within the depth evaluated
    (:func:`rank_within`); ``run``, ``topic``, ``docno`` and ``depth`` (None: the whole
    run) say where."""

    def __init__(self, run: str, topic: str, docno: str, depth: int | None):
        within = "" if depth is None else f" within the top {depth}"
        super().__init__(f"run {run} topic {topic} docno {docno}: the docno is retrieved "
                         f"more than once{within}")
        self.run, self.topic, self.docno, self.depth = run, topic, docno, depth


def rank_within(t_code: np.ndarray, code: np.ndarray, score: np.ndarray,
                rank: np.ndarray | None, n_topics: int, *, order: Order, depth: int | None,
                run_label: str, topic_labels: Sequence[str], docno_of,
                disagreements: list | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One run's rows ranked by ``order`` and cut to their top ``depth`` documents (all
    with None) before repeated documents are looked for, as ndeval applies ``-M``: the
    ``(topic, rank)`` grids of docno codes (-1 in padding) and scores, and the lengths.

    Each occurrence of a repeated docno is ranked as a document of its own (the ranking
    of :func:`xdiv.core.ranking.ranked_grids`, ties by docno; two occurrences of one
    docno tie by their order in the file). ``docno_of(code)`` names a docno. Rank
    disagreements of the whole run are appended to ``disagreements`` when it is given.

    Raises
    ------
    RepeatedDocument
        A docno is retrieved more than once for a topic within the cut.
    """
    n = len(code)
    code = np.asarray(code, dtype=np.int64)
    by_doc = np.lexsort((np.arange(n), code, t_code))
    repeat = np.r_[False, (t_code[by_doc][1:] == t_code[by_doc][:-1])
                   & (code[by_doc][1:] == code[by_doc][:-1])]
    starts = np.flatnonzero(~repeat)
    occurrence = np.empty(n, dtype=np.int64)
    occurrence[by_doc] = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))
    # codes of (docno, occurrence) pairs, in docno order: a document per occurrence
    by_pair = np.lexsort((occurrence, code))
    unique = np.empty(n, dtype=np.int32)
    unique[by_pair] = np.arange(n, dtype=np.int32)
    original = code[by_pair]
    doc, scores, length = ranked_grids(
        np.zeros(n, dtype=np.int64), t_code, unique, score, rank, (1, n_topics),
        order=order, duplicates="error", run_labels=[run_label], topic_labels=topic_labels,
        docno_of=lambda u: docno_of(int(original[u])), warn=disagreements is not None,
        disagreements=disagreements)
    doc, scores, length = doc[0, :, :depth], scores[0, :, :depth], length[0]
    if depth is not None:
        length = np.minimum(length, depth)
    doc = np.where(doc >= 0, original[np.maximum(doc, 0)], -1)
    ordered = np.sort(doc, axis=1)
    twice = (ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0)
    if twice.any():
        topic, at = np.argwhere(twice)[0]
        raise RepeatedDocument(run_label, topic_labels[topic],
                               docno_of(int(ordered[topic, at])), depth)
    return doc.astype(np.int32), scores, length


def _ranked(run: PlainRun, order: Order, found: list,
            depth: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The run's ``(topic, rank)`` docno codes (-1 in padding), ranked by ``order``, and
    the sorted docnos (``S`` dtype) the codes index; cut at ``depth`` when a document is
    repeated (else the caller cuts). Raises :class:`InputError` for a document retrieved
    twice for a topic (within ``depth``)."""
    vocabulary, code = sorted_codes(run.docno)
    rank = run.rank.astype(np.float64)
    try:
        doc, _, _ = ranked_grids(
            np.zeros(len(code), dtype=np.int64), run.topic, code.astype(np.int32),
            run.score, rank, (1, len(run.topics)), order=order, duplicates="error",
            run_labels=[run.name], topic_labels=run.topics,
            docno_of=lambda k: vocabulary[k].decode(), disagreements=found)
        return doc[0], vocabulary
    except InputError:
        if depth is None:
            raise
    # repeated documents, perhaps only below the cut: the rank disagreements of the whole
    # run are in ``found`` already
    doc, _, _ = rank_within(run.topic, code, run.score, rank, len(run.topics), order=order,
                            depth=depth, run_label=run.name, topic_labels=run.topics,
                            docno_of=lambda k: vocabulary[k].decode())
    return doc, vocabulary


def _tool_topics(run: PlainRun, tool: str | None) -> PlainRun | None:
    """``run`` with its topics read as ``tool`` reads them (:func:`tool_topic`), in
    natural order; None when the tool refuses a topic or reads two labels as one topic
    (the general path says so, or merges them)."""
    if tool is None:
        return run
    mapped = [tool_topic(t, tool) for t in run.topics]
    if None in mapped or len(set(mapped)) < len(mapped):
        return None
    if mapped == run.topics:
        return run
    order = sorted(range(len(mapped)), key=lambda k: natural_key(mapped[k]))
    position = np.empty(len(mapped), dtype=np.int64)
    position[order] = np.arange(len(mapped))
    return dataclasses.replace(run, topics=[mapped[k] for k in order],
                               topic=position[run.topic])


def _tool_qrels(qrels: PlainQrels | None, tool: str | None) -> PlainQrels | None:
    """The qrels with their topics read as ``tool`` reads them; None as for runs."""
    if qrels is None or tool is None:
        return qrels
    mapped = [tool_topic(t, tool) for t in qrels.topics]
    if None in mapped or len(set(mapped)) < len(mapped):
        return None
    return qrels if mapped == qrels.topics else dataclasses.replace(qrels, topics=mapped)


def _judge(run: PlainRun, doc: np.ndarray, vocabulary: np.ndarray, qrels: PlainQrels,
           ideal: np.ndarray, n_relevant: np.ndarray) -> _Judged | None:
    """The run's ranked documents joined with the qrels; None when none is judged.

    The judged (topic, docno) pairs are found in the run's sorted docnos and keyed by
    (run topic, docno code), the integer key of the ranked grid's cells.
    """
    index = {topic: k for k, topic in enumerate(run.topics)}
    run_topic = np.array([index.get(t, -1) for t in qrels.topics], dtype=np.int64)
    at = np.minimum(np.searchsorted(vocabulary, qrels.docno), len(vocabulary) - 1)
    found = (vocabulary[at] == qrels.docno) & (run_topic[qrels.topic] >= 0)
    keys = run_topic[qrels.topic[found]] * len(vocabulary) + at[found]
    by_key = np.argsort(keys)
    keys, slots = keys[by_key], qrels.slot[found][by_key]
    topic, rank = np.nonzero(doc >= 0)
    cell = topic * len(vocabulary) + doc[topic, rank]
    where = np.minimum(np.searchsorted(keys, cell), max(len(keys) - 1, 0))
    hit = (keys[where] == cell) if len(keys) else np.zeros(len(cell), dtype=bool)
    if not hit.any():
        return None
    judged = {topic: k for k, topic in enumerate(qrels.topics)}
    q = np.array([judged.get(t, -1) for t in run.topics], dtype=np.int64)
    levels = np.zeros(doc.shape + (len(qrels.intents),), dtype=np.int8)
    levels[topic[hit], rank[hit]] = qrels.levels[q[topic[hit]], slots[where[hit]]]
    known = (q >= 0)[:, None]
    return _Judged(run.name, run.topics, levels, known & qrels.valid[q],
                   np.where(known, n_relevant[q], 0),
                   np.where(known, ideal[q], 0).astype(ideal.dtype))


@dataclass(frozen=True)
class _Setting:
    """What scoring one run file needs besides the file: the qrels, their greedy ideal
    lists and relevant counts, and the command's options."""

    qrels: PlainQrels
    ideal: np.ndarray
    n_relevant: np.ndarray
    order: Order
    depth: int | None
    alpha: float
    beta: float
    nrbp_depth: int
    tool: str = "ndeval"
    k: int = 20
    """gdeval's ``-k``."""
    highest: int = 1
    """The qrels' highest grade (at least 1), the top of gdeval's nDCG gain table."""
    topics: str | None = None
    """The tool whose reading of topic labels applies (:func:`tool_topic`), if any."""


class _Scored(NamedTuple):
    """One run file scored: its name, topics (natural order), ndeval's values ``(topic,
    column)`` and its rank-column disagreements (:func:`rank_disagreements`)."""

    name: str
    topics: list[str]
    scores: np.ndarray
    disagreements: list


class _Ranked(NamedTuple):
    """One run file read and ranked: what scoring it needs besides the qrels."""

    run: PlainRun
    doc: np.ndarray
    vocabulary: np.ndarray
    disagreements: list


def _read_ranked(path: PathLike, order: Order, depth: int | None = None,
                 tool: str | None = None) -> _Ranked | None:
    """One run file read (its topics as ``tool`` reads them, when given) and ranked by
    ``order``; None when it is not plain, has a rank the tool does not read, gives a rank
    twice for a topic when ndeval reads the rank column, or retrieves a document twice for
    a topic within ``depth`` (the general path says so)."""
    try:
        run = read_plain_run(path)
        run = None if run is None else _tool_topics(run, tool)
        largest = TOOL_LARGEST_RANK.get(tool) if tool else None
        if run is None or (largest is not None and int(run.rank.max()) > largest):
            return None
        if tool == "ndeval" and order == "rank" and repeated_rank(run.topic, run.rank):
            return None
        found: list = []
        doc, vocabulary = _ranked(run, order, found, depth)
    except InputError:  # the general path names the file, as it always has
        return None
    return _Ranked(run, doc, vocabulary, found)


def _score_ranked(ranked: _Ranked | None, setting: _Setting) -> _Scored | None:
    """A ranked run judged and scored; None when it retrieves no judged document."""
    if ranked is None:
        return None
    run = ranked.run
    judged = _judge(run, ranked.doc[:, :setting.depth], ranked.vocabulary, setting.qrels,
                    setting.ideal, setting.n_relevant)
    if judged is None:
        return None
    return _Scored(run.name, run.topics, _scores(judged, setting), ranked.disagreements)


def _score_files(paths: Sequence[PathLike], setting: _Setting) -> list[_Scored | None]:
    return [_score_ranked(_read_ranked(path, setting.order, setting.depth, setting.topics),
                          setting) for path in paths]


_FAILED = "failed"
"""What a child process sends when its function raised: the caller takes the general
path, which reports the problem as it always has."""

_DIED = "died"
"""What :meth:`_Child.result` gives when the child ended without sending its whole
result (killed, for instance): the caller computes it again itself."""


class _Child:
    """``function(*args)`` computed in a forked child process, its result sent back
    pickled through a pipe (cheaper to start than :mod:`multiprocessing`, which also
    takes 14 ms to import): the parent works on while the child computes."""

    def __init__(self, function, *args):
        read, write = os.pipe()
        self._pid = os.fork()
        if self._pid == 0:  # the child: never returns
            os.close(read)
            try:
                try:
                    payload = pickle.dumps(function(*args), protocol=pickle.HIGHEST_PROTOCOL)
                except BaseException:
                    payload = pickle.dumps(_FAILED)
                with os.fdopen(write, "wb") as pipe:
                    pipe.write(payload)
            finally:
                os._exit(0)
        os.close(write)
        self._read = read

    def result(self):
        """The child's result once it has ended: :data:`_FAILED` if its function raised,
        :data:`_DIED` if it did not end normally (killed while computing or writing, its
        result perhaps cut short)."""
        with os.fdopen(self._read, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(self._pid, 0)
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0 or not data:
            return _DIED
        return pickle.loads(data)


def _cores() -> int:
    """The cores this process may run on, where worker processes can be forked (Linux);
    1 elsewhere."""
    if sys.platform != "linux":
        return 1
    return len(os.sched_getaffinity(0))


def _score_all(paths: Sequence[PathLike], setting: _Setting) -> list[_Scored | None]:
    """Every file scored, in child processes forked for the cores this process may use
    (one share of the files each; the parent scores the first share) when there are
    several files and cores; results in the order of ``paths``."""
    workers = min(len(paths), _cores())
    if workers < 2:
        return _score_files(paths, setting)
    shares = [list(paths[k::workers]) for k in range(workers)]
    children = [_Child(_score_files, share, setting) for share in shares[1:]]
    results = [_score_files(shares[0], setting)]
    for child, share in zip(children, shares[1:]):
        result = child.result()
        # a child that died (killed, out of memory): its share is scored here instead
        results.append(_score_files(share, setting) if result == _DIED else result)
    out: list = [None] * len(paths)
    for k, share in enumerate(results):
        out[k::workers] = [None] * len(shares[k]) if share == _FAILED else share
    return out


def _plain_scores(qrels_path: PathLike, run_paths: Sequence[PathLike], order: Order,
                  setting_of, depth: int | None = None,
                  tool: str | None = None) -> tuple[PlainQrels, list[_Scored]] | None:
    """The qrels and the runs scored (``setting_of(qrels)`` gives the :class:`_Setting`),
    runs in natural order of their names, their rank disagreements warned about; None
    when the general path must take the files. ``depth`` and ``tool`` are the setting's
    (for the run read before the setting exists). A single run is read and ranked in a
    child process while this one reads the qrels."""
    paths = list(run_paths)
    early = _Child(_read_ranked, paths[0], order, depth, tool) \
        if len(paths) == 1 and _cores() > 1 else None
    try:
        qrels = _tool_qrels(read_plain_qrels(qrels_path), tool)
    except InputError:  # the general path names the file, as it always has
        qrels = None
    setting = None if qrels is None else setting_of(qrels)
    if early is not None:
        ranked = early.result()
        if ranked == _DIED:  # the child died: the run is read here instead
            ranked = _read_ranked(paths[0], order, depth, tool)
        scored = [None if ranked == _FAILED or setting is None
                  else _score_ranked(ranked, setting)]
    else:
        scored = [] if setting is None else _score_all(paths, setting)
    names = [s.name for s in scored if s is not None]
    if setting is None or len(names) < len(paths) or len(set(names)) < len(names):
        return None  # not plain, or two files of one run: the general path refuses them
    scored.sort(key=lambda s: natural_key(s.name))
    warn_rank_disagreements([d for s in scored for d in s.disagreements], order)
    return qrels, scored


def ndeval_plain(qrels_path: PathLike, run_paths: Sequence[PathLike], *,
                 order: Order = "rank", alpha: float = 0.5, beta: float = 0.5,
                 complete: bool = False, depth: int | None = None,
                 tool_topics: bool = False) -> str | None:
    """ndeval's CSV, the layout of :func:`ndeval_plain_blocks` (same parameters), or
    None when the general path must take the files."""
    blocks = ndeval_plain_blocks(qrels_path, run_paths, order=order, alpha=alpha,
                                 beta=beta, complete=complete, depth=depth,
                                 tool_topics=tool_topics)
    return None if blocks is None else ndeval_layout(NDEVAL_LABELS, blocks)


def ndeval_plain_blocks(qrels_path: PathLike, run_paths: Sequence[PathLike], *,
                        order: Order = "rank", alpha: float = 0.5, beta: float = 0.5,
                        complete: bool = False, depth: int | None = None,
                        tool_topics: bool = False) -> list[RunBlock] | None:
    """ndeval's rows for ``run_paths`` against ``qrels_path``, one block per run, as
    :func:`xdiv.official.ndeval_tool.report.ndeval_blocks` gives them, or None when the
    general path must take the files (see the module's description). Several files are scored in
    parallel, in worker processes.

    Parameters
    ----------
    qrels_path, run_paths : str or path-like
        Qrels and run files (gzip allowed).
    order : {"rank", "score-docno-desc", "score-docno-asc"}
        ``"rank"``: ndeval's ranking; ``"score-docno-desc"``: ``-traditional``.
    alpha, beta, complete
        ndeval's ``-alpha``, ``-beta`` and ``-c``.
    depth : int, optional
        ndeval's ``-M``: each run cut to its top ``depth`` documents, before documents
        retrieved twice are looked for.
    tool_topics : bool
        Read topic labels as ndeval does (``wt09-1`` and ``01`` are topic 1; see
        :func:`xdiv.official.layout.tool_topic`), as ``xdiv ndeval`` does; by default they
        are read as written.
    """
    tool = "ndeval" if tool_topics else None
    cutoffs = [int(label.partition("@")[2]) for label in NDEVAL_LABELS if "@" in label]

    def setting_of(qrels: PlainQrels) -> _Setting:
        nrbp_depth = K.nrbp_ideal_depth(beta, len(qrels.intents), qrels.levels.shape[1])
        ideal = K.greedy_search(qrels.levels, qrels.valid, alpha=alpha,
                                depth=max(nrbp_depth, *cutoffs))
        return _Setting(qrels, ideal, (qrels.levels > 0).sum(axis=1), order, depth, alpha,
                        beta, nrbp_depth, topics=tool)

    found = _plain_scores(qrels_path, run_paths, order, setting_of, depth, tool)
    if found is None:
        return None
    qrels, scored = found
    return [_block(s, qrels.topics, complete) for s in scored]


def _block(scored: _Scored, qrels_topics: list[str], complete: bool) -> RunBlock:
    """One run's rows and its mean, over the retrieved topics of the qrels (``complete``:
    every topic of the qrels, 0 where the run retrieved nothing)."""
    row_of = {topic: k for k, topic in enumerate(scored.topics)}
    averaged = sorted_topics(qrels_topics if complete
                             else set(scored.topics) & set(qrels_topics))
    values = np.zeros((len(NDEVAL_LABELS), len(averaged)))
    for j, topic in enumerate(averaged):
        if topic in row_of:
            values[:, j] = scored.scores[row_of[topic]]
    return RunBlock(scored.name, scored.topics, scored.scores,
                    nan_propagated(values, ordered_mean(values)))


def gdeval_plain(qrels_path: PathLike, run_paths: Sequence[PathLike], *, k: int = 20,
                 complete: bool = False, tool_topics: bool = False) -> str | None:
    """gdeval's CSV for ``run_paths`` against the adhoc qrels ``qrels_path``, as
    :func:`xdiv.official.gdeval.report.gdeval_report` prints it, or None when the general path
    must take the files (see the module's description; also diversity qrels and grades
    above 4, which gdeval refuses). Several files are scored in parallel.

    Parameters
    ----------
    qrels_path, run_paths : str or path-like
        Adhoc qrels (``topic 0 docno grade``) and run files (gzip allowed).
    k : int
        gdeval's ``-k``: the cutoff of nDCG and ERR.
    complete : bool
        gdeval's ``-c``: average over every topic of the qrels with a relevant document.
    tool_topics : bool
        Read topic labels as gdeval does (what precedes the last ``-`` removed, the rest
        compared as text: ``wt-51`` is ``51``, ``0151`` is not ``151``), as ``xdiv
        gdeval`` does; by default they are read as written.

    A document retrieved twice for a topic below rank ``k`` is no error (gdeval's output
    does not read it); within the top ``k`` the general path refuses the run.
    """
    tool = "gdeval" if tool_topics else None

    def setting_of(qrels: PlainQrels) -> _Setting | None:
        if qrels.intents != ["0"] or qrels.levels.max() > GDEVAL_HIGHEST:
            return None  # diversity qrels, or grades gdeval refuses
        return _Setting(qrels, ideal_levels(qrels.levels[..., 0]),
                        (qrels.levels > 0).sum(axis=1),
                        # the engine judges the top k only (both measures stop there), and
                        # warns of a run none of whose top k documents is judged
                        "score-docno-desc", k, 0.5, 0.5, 0, tool="gdeval", k=k,
                        highest=max(int(qrels.levels.max()), 1), topics=tool)

    found = _plain_scores(qrels_path, run_paths, "score-docno-desc", setting_of, k, tool)
    if found is None:
        return None
    qrels, scored = found
    relevant = set(qrels.topics)  # every topic has a relevant document (else not plain)
    blocks = []
    for one in scored:
        row_of = {topic: j for j, topic in enumerate(one.topics)}
        retrieved = [t for t in one.topics if t in relevant]
        topics = sorted_topics(relevant) if complete else retrieved
        values = np.zeros((2, len(topics)))
        for j, topic in enumerate(topics):
            if topic in row_of:
                values[:, j] = one.scores[row_of[topic]]
        # gdeval leaves its sums undivided when there is no topic to average
        means = ordered_mean(values) if topics else np.zeros(2)
        blocks.append(RunBlock(one.name, retrieved,
                               one.scores[[row_of[t] for t in retrieved]].reshape(-1, 2),
                               nan_propagated(values, means)))
    return ndeval_layout([f"ndcg@{k}", f"err@{k}"], blocks, digits=5)
