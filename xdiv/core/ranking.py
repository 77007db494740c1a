"""Ranking a run's rows, without pandas or xarray: the order conventions applied to rows
given as integer codes, the check for documents retrieved twice, the ``doc``/``score``
grids of :mod:`xdiv.core.runs`, and the warning about runs whose rank column and scores
disagree. Used by the Runs readers and by the plain path of the official-format commands
(:mod:`xdiv.official.plain`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

import numpy as np

from .._warnings import warn as emit_warning
from ..errors import InputError, XdivWarning
from ..typing import Order
from .labels import natural_key

__all__ = ["group_positions", "order_switch", "rank_disagreements", "ranked_grids",
           "warn_rank_disagreements"]

_SWITCH: ContextVar[tuple[str | None] | None] = ContextVar("xdiv_order_switch", default=None)
"""The switch :func:`warn_rank_disagreements` names (in a 1-tuple), set by
:func:`order_switch`; None: xdiv's own ``--order`` and ``order=``."""


def ranked_grids(r_code, t_code, code, score, rank, shape, *, order, duplicates, run_labels,
                 topic_labels, docno_of, warn=True, disagreements=None):
    """The ``doc``, ``score`` and ``length`` grids of rows given as integer codes: the rows
    are checked, ranked by ``order`` (ties by docno code), checked for repeated documents
    and laid out ``shape + (depth,)``. ``docno_of(code)`` names a docno in messages;
    ``warn=False`` leaves out the warnings (not the errors). Runs whose rank column and
    scores disagree are appended to the list ``disagreements`` (see
    :func:`rank_disagreements`), for one warning per run set
    (:func:`warn_rank_disagreements`); without a list they are warned about at once."""

    def row(k: int) -> str:
        """Run, topic and docno of row ``k``, for messages."""
        return (f"run {run_labels[r_code[k]]} topic {topic_labels[t_code[k]]} "
                f"docno {docno_of(code[k])}")

    bad = ~np.isfinite(score)
    if bad.any():
        k = int(np.argmax(bad))
        raise InputError(f"{row(k)}: score {score[k]} is not finite")

    if order == "rank":
        bad_rank = ~np.isfinite(rank)
        if bad_rank.any():
            k = int(np.argmax(bad_rank))
            raise InputError(f"{row(k)}: rank {rank[k]} is not a number")
    primary = rank if order == "rank" else None
    ties = (score,) if primary is None else (primary, score)
    sort = _ranking_order(r_code, t_code, primary, score)
    sort = _break_ties_by_docno(sort, r_code, t_code, ties, code,
                                descending=order != "score-docno-asc")
    if not np.array_equal(sort, np.arange(len(sort))):  # rows not given in rank order
        r_code, t_code, score, code = r_code[sort], t_code[sort], score[sort], code[sort]
        rank = None if rank is None else rank[sort]
    if rank is not None and warn:
        found = rank_disagreements(rank, score, code, r_code, t_code, run_labels, order)
        if disagreements is None:
            warn_rank_disagreements(found, order)
        else:
            disagreements.extend(found)

    doc_grid, score_grid, length = _grids(r_code, t_code, code, score, shape)
    if _has_repeats(doc_grid):
        dup = _duplicates(r_code * shape[1] + t_code, code, int(code.max()) + 1)
        listed = [row(k) for k in np.flatnonzero(dup)[:5]]
        more = f" (and {int(dup.sum()) - 5} more)" if dup.sum() > 5 else ""
        if duplicates == "error":
            raise InputError("a docno is retrieved more than once for a topic: "
                             + "; ".join(listed) + more
                             + " (duplicates='first' in Python, --duplicates first on the "
                               "command line, keeps the highest-ranked one)")
        if warn:
            emit_warning("kept only the highest-ranked occurrence of duplicated documents: "
                          + "; ".join(listed) + more, XdivWarning)
        keep = ~dup
        doc_grid, score_grid, length = _grids(r_code[keep], t_code[keep], code[keep],
                                              score[keep], shape)
    return doc_grid, score_grid, length


def rank_disagreements(rank, score, code, r_code, t_code, run_labels,
                       order) -> list[tuple[str, int, int, int]]:
    """The runs whose rank column and scores (ties by docno descending) put the documents
    in different orders, as ``(run, topics, topics differing only in tied scores, topics
    retrieved)``: trec_eval, gdeval and ``ndeval -traditional`` follow the scores, ndeval
    by default the rank column.

    The rows come in the order ``order`` ranks them. Ranked by score, the two rankings
    agree when the rank column never decreases (equal ranks fall back on the scores);
    ranked by the rank column, when each document outscores the next, or ties with it and
    has the larger docno (the larger code: code order is docno order).
    """
    if len(rank) < 2:
        return []
    same = (r_code[1:] == r_code[:-1]) & (t_code[1:] == t_code[:-1])
    tie = score[1:] == score[:-1]
    if order == "rank":
        differ = same & (score[1:] >= score[:-1])
        tied = np.flatnonzero(differ & tie)
        differ[tied] = code[tied + 1] > code[tied]
    else:
        differ = same & (rank[1:] < rank[:-1])
    if not differ.any():
        return []
    width = int(t_code.max()) + 1
    n_topics = np.bincount(r_code[np.r_[True, ~same]], minlength=len(run_labels))

    def topics_per_run(pairs: np.ndarray) -> np.ndarray:
        keys = np.unique(r_code[pairs].astype(np.int64) * width + t_code[pairs])
        return np.bincount(keys // width, minlength=len(run_labels))

    counts = topics_per_run(np.flatnonzero(differ))
    contradicted = topics_per_run(np.flatnonzero(differ & ~tie))
    return [(str(run_labels[r]), int(counts[r]), int(counts[r] - contradicted[r]),
             int(n_topics[r])) for r in np.flatnonzero(counts)]


@contextlib.contextmanager
def order_switch(switch: str | None) -> Iterator[None]:
    """Within the block, :func:`warn_rank_disagreements` names ``switch``, a command's own
    way to the other ranking (ndeval's ``-traditional``), instead of xdiv's ``--order``
    and ``order=``; with None it says nothing, for a command that offers no other ranking
    and reads no rank column (gdeval, ``ndeval -traditional``), as the tool says nothing."""
    token = _SWITCH.set((switch,))
    try:
        yield
    finally:
        _SWITCH.reset(token)


def warn_rank_disagreements(found: list[tuple[str, int, int, int]], order: Order) -> None:
    """One warning for all the runs of :func:`rank_disagreements`, named in natural order
    whichever order they were read in (the switch to the other ranking as
    :func:`order_switch` says)."""
    switch = _SWITCH.get()
    if not found or (switch is not None and switch[0] is None):
        return
    shown = ", ".join(f"{run} {n}/{total}" + (" (ties only)" if ties == n else "")
                      for run, n, ties, total in sorted(found, key=lambda f: natural_key(f[0])))
    used, other = (("rank column as ndeval does", "score-docno-desc") if order == "rank" else
                   ("score as trec_eval does", "rank"))
    way = f"--order {other}, order={other!r}" if switch is None else switch[0]
    emit_warning(f"{len(found)} run(s) rank some topics differently by rank column than by "
                 f"score (run topics/all): {shown}; ranked by {used} ({way}: the other)",
                 XdivWarning)


def _ranking_order(r_code, t_code, primary, score) -> np.ndarray:
    """Permutation sorting rows by run, topic, then ``primary`` ascending (if given) and
    score descending; the identity when the rows are already in that order."""
    group = r_code * (int(t_code.max(initial=0)) + 1) + t_code
    same = group[1:] == group[:-1]
    in_order = bool((group[1:] >= group[:-1]).all())
    if in_order and primary is None:
        in_order = bool((score[1:][same] <= score[:-1][same]).all())
    elif in_order:
        a, b = primary[:-1][same], primary[1:][same]
        in_order = bool(((b > a) | ((b == a) & (score[1:][same] <= score[:-1][same]))).all())
    if in_order:
        return np.arange(len(group))
    keys = (-score, group) if primary is None else (-score, primary, group)
    return np.lexsort(keys)


def _grids(r_code, t_code, code, score, shape) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The padded ``doc`` (-1) and ``score`` (NaN) grids ``shape + (depth,)`` of ranked rows
    (grouped by run and topic, in rank order), and the ``length`` of each group."""
    group = r_code * shape[1] + t_code
    position = group_positions(group)
    length = np.bincount(group, minlength=shape[0] * shape[1]).reshape(shape)
    depth = max(int(length.max()), 1)
    doc_grid = np.full(shape + (depth,), -1, dtype=np.int32)
    score_grid = np.full(shape + (depth,), np.nan)
    doc_grid[r_code, t_code, position] = code
    score_grid[r_code, t_code, position] = score
    return doc_grid, score_grid, length.astype(np.int64)


def _has_repeats(doc_grid: np.ndarray) -> bool:
    """Whether a docno code occurs twice in one (run, topic): the grid's rows are sorted
    (short rows of small integers, a fast sort) and neighbours compared."""
    ordered = np.sort(doc_grid, axis=-1)
    return bool(((ordered[..., 1:] == ordered[..., :-1]) & (ordered[..., 1:] >= 0)).any())


def _duplicates(group: np.ndarray, code: np.ndarray, width: int) -> np.ndarray:
    """Rows repeating an earlier row's (group, docno code), by a stable sort of the integer
    keys ``group * width + code`` (``width`` the vocabulary size)."""
    keys = group.astype(np.int64) * width + code
    by_key = np.argsort(keys, kind="stable")
    dup = np.zeros(len(keys), dtype=bool)
    dup[by_key[1:][keys[by_key][1:] == keys[by_key][:-1]]] = True
    return dup


def _break_ties_by_docno(sort, r_code, t_code, keys, code, *, descending):
    """Reorder, by docno code (the docno order), the rows of ``sort`` that tie on run, topic
    and every key; only the tied rows are sorted again."""
    same = np.ones(max(len(sort) - 1, 0), dtype=bool)
    for field in (r_code, t_code, *keys):
        ranked = field[sort]
        same &= ranked[1:] == ranked[:-1]
    if not same.any():
        return sort
    in_tie = np.zeros(len(sort), dtype=bool)
    in_tie[1:] |= same
    in_tie[:-1] |= same
    tie_group = np.cumsum(np.r_[True, ~same])  # one id per run of tied rows
    rows = np.flatnonzero(in_tie)
    by_docno = code[sort[rows]]
    width = int(code.max()) + 1
    # one integer key per row: its tie group, then its docno code (the rows come grouped,
    # so the stable sort mostly merges ordered runs)
    key = tie_group[rows] * width + (width - 1 - by_docno if descending else by_docno)
    order = np.argsort(key, kind="stable")
    out = sort.copy()
    out[rows] = sort[rows][order]
    return out


def group_positions(sorted_codes: np.ndarray) -> np.ndarray:
    """0-based position of each element within its run of equal values (input grouped)."""
    n = len(sorted_codes)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_codes)) + 1]
    lengths = np.diff(np.r_[starts, n])
    return np.arange(n) - np.repeat(starts, lengths)
