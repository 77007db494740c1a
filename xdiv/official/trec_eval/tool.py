"""TREC's trec_eval, reproduced: what ``trec_eval [options] qrels run`` prints on standard
output and standard error, and its exit status, byte for byte (``xdiv trec_eval``).

:func:`trec_eval_run` follows trec_eval 10.0's program step by step (9.0.8's with
``Options(version=9)``), with numpy doing each step for every topic at once:

1. the ``-m`` arguments mark measures (and nicknames such as ``official`` and
   ``all_trec``) and record their parameters (the first ``-m NAME.params`` of a measure
   wins); an unknown name stops with status 1;
2. the rel_info file (``-R``: qrels, qrels_jg, prefs, qrels_prefs), the results and the
   ``-Z`` file are read (:mod:`xdiv.official.trec_eval.input`);
3. each marked measure reads its parameters (:data:`MEASURES`: cutoffs sorted and checked,
   names such as ``P_10``, ``iprec_at_recall_0.10``, ``utility_2,-1,0,0``);
4. each topic of the qrels (10.0; 9.0.8: each topic of the results that has qrels) is
   ranked as trec_eval ranks it (score descending, ties by docno descending, in double
   precision; 9.0.8 in single precision), cut at ``-M``, checked for duplicate docnos
   (in the run's top ``-M`` and in the qrels), joined with the qrels (-1: no qrels line,
   -2: a negative level) and, with ``-J``, condensed to its judged documents; under
   ``-c`` a topic the run lacks is evaluated as trec_eval 10.0 evaluates it, as a run of
   one document ``ceci_nest_pas_un_docno``; judgment groups are joined one by one, and
   preferences formed as ``form_prefs_counts`` forms them (equivalence classes, or a
   transitively closed preference array);
5. the measures are computed by :mod:`xdiv.kernels.trec_eval` (and, for the few built
   on trec_eval's gain lists or preferences, by loops over each topic's small
   structures), printed per topic with ``-q``, summed over the topics in order and
   averaged (arithmetic or geometric mean, or the sum for the counts), and printed in
   trec_eval's layout.

Where trec_eval stops part-way (a topic of the qrels missing from the run without
``-c`` in 10.0, a docno twice in a topic, a measure of another rel_info format), the
output is what it had printed by then and its message and status. Inputs on which
trec_eval's behaviour is undefined (it crashes, aborts, reads past its buffers or reads
variables it never set) and the few options not reproduced raise
:class:`~xdiv.official.trec_eval.input.NotReproduced`.
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import numpy as np

from .input import (NotReproduced, TrecEvalExit, TrecPrefs, TrecQrels,
                    TrecQrelsJg, TrecResults, c_atol,
                    read_trec_prefs, read_trec_qrels, read_trec_qrels_jg,
                    read_trec_results, read_trec_zscores)
from ..plain_input import sorted_codes
from ...kernels import trec_eval as K
from .table import (BOGUS_DOCNO, LEVEL_LIMIT, MEASURES, MIN_GEO_MEAN, NICKNAMES,
                    REL_FORMATS, RESULTS_FORMATS, SUPPORTED, Marked, Measure,
                    Options, Outcome, Stop, c_double, encoded, marked_measures,
                    measure_arguments, summary_lines, supported_measures,
                    topic_lines, version_string)

__all__ = ["MEASURES", "NICKNAMES", "Options", "Outcome", "Measure", "c_double",
           "supported_measures", "trec_eval_run", "version_string"]

# ------------------------------------------------------------------ ranking


class Ranked(NamedTuple):
    """The evaluated topics, ranked and joined with the qrels: trec_eval's ``RES_RELS``
    of every topic at once (see :mod:`xdiv.kernels.trec_eval` for ``rel`` and ``valid``)."""

    qids: list[bytes]
    rel: np.ndarray
    valid: np.ndarray
    num_ret: np.ndarray
    num_rel: np.ndarray
    num_rel_ret: np.ndarray
    num_nonrel: np.ndarray
    """Judged documents with a level from 0 to ``-l`` - 1."""
    num_nonpool: np.ndarray
    num_unjudged: np.ndarray
    max_rel: np.ndarray
    """The topic's highest qrels level."""
    bogus: np.ndarray
    """The topics evaluated as ``ceci_nest_pas_un_docno`` (``-c``, 10.0)."""
    run_duplicate: list
    qrels_duplicate: list
    """Per topic, the docno found twice (in the run's top ``-M``, in the qrels), or None."""
    level: int
    num_docs: int
    level_counts: list
    """Per topic, the judged documents of each level 0, 1, ... (trec_eval's
    ``rel_levels``; a topic whose levels are all -1 has the previous topic's, which
    trec_eval's static array still holds)."""

    @property
    def relevant(self) -> np.ndarray:
        return self.valid & (self.rel >= self.level)


def _glibc_msort(items: list, before) -> list:
    """glibc's ``qsort`` (its merge sort: halves of n // 2 and n - n // 2, the left
    element taken on ties) with the comparison ``before(a, b) <= 0``."""
    if len(items) <= 1:
        return items
    half = len(items) // 2
    left, right = _glibc_msort(items[:half], before), _glibc_msort(items[half:], before)
    out, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if before(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def _nan_order(rows: np.ndarray, sim: np.ndarray, code: np.ndarray,
               descending: bool = True) -> np.ndarray:
    """The rows of one topic whose scores include a NaN, in the order glibc's merge sort
    leaves them with trec_eval's comparison (score descending, then docno descending;
    a NaN compares equal to every score), starting from docno order (file order among
    equal docnos), as trec_eval's first sort leaves them."""
    rows = np.sort(rows)  # file order
    start = rows[np.argsort(code[rows], kind="stable")]
    s, c = sim.tolist(), code.tolist()

    def compare(a: int, b: int) -> int:
        if s[a] > s[b]:
            return -1
        if s[a] < s[b]:
            return 1
        if descending:
            return (c[b] > c[a]) - (c[b] < c[a])
        return (c[a] > c[b]) - (c[a] < c[b])

    return np.array(_glibc_msort(start.tolist(), compare), dtype=np.int64)


def ranked_lists(results: TrecResults, pairs: list[tuple[int, int]], options: Options,
                 *, descending: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The run's documents of the rows ``pairs`` (anything, results topic or -1 for the
    bogus run), ranked as trec_eval ranks them (score descending, ties by docno
    descending, or ascending with ``descending=False`` as its preference measures do)
    and cut at ``-M``: per document its row, its docno and its 0-based rank."""
    n = len(pairs)
    r_of = np.array([r for _, r in pairs], dtype=np.int64)
    bogus = r_of < 0
    # the run's lines of the evaluated topics, and one bogus line per bogus topic
    kept = np.sort(r_of[~bogus])  # (np.unique would import numpy.ma, 5 ms at start-up)
    shared = bool((kept[1:] == kept[:-1]).any())
    if not shared:  # each row its own topic of the run (qrels)
        evaluated = np.full(len(results.topics) + 1, -1, dtype=np.int64)
        evaluated[r_of[~bogus]] = np.flatnonzero(~bogus)
        row_topic = evaluated[results.topic]
        mine = row_topic >= 0
        if not mine.all():
            row_topic = row_topic[mine]
        sim, docno = (results.sim, results.docno) if mine.all() else \
            (results.sim[mine], results.docno[mine])
    else:  # rows share a topic of the run (judgment groups): its lines once per row
        by_topic = np.argsort(results.topic, kind="stable")
        bounds = np.searchsorted(results.topic[by_topic], np.arange(len(results.topics) + 1))
        pieces = [by_topic[bounds[r]:bounds[r + 1]] if r >= 0 else by_topic[:0]
                  for r in r_of.tolist()]
        lines = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)
        row_topic = np.repeat(np.arange(n), [len(p) for p in pieces])
        sim, docno = results.sim[lines], results.docno[lines]
    if bogus.any():
        row_topic = np.r_[row_topic, np.flatnonzero(bogus)]
        sim = np.r_[sim, np.ones(int(bogus.sum()), dtype=sim.dtype)]
        docno = np.concatenate([docno, np.full(int(bogus.sum()), BOGUS_DOCNO)])

    order = _ranking(row_topic, sim, docno, descending)
    row_topic, docno = row_topic[order], docno[order]
    position = _positions(row_topic)
    if options.max_docs < len(position) and (position >= options.max_docs).any():
        keep = position < options.max_docs
        row_topic, docno, position = row_topic[keep], docno[keep], position[keep]
    return row_topic, docno, position


def rank_topics(qrels: TrecQrels, results: TrecResults, pairs: list[tuple[int, int]],
                options: Options) -> Ranked:
    """The topics ``pairs`` (qrels topic, results topic or -1 for the bogus run) ranked
    and joined with the qrels as trec_eval's ``form_res_rels`` does."""
    n = len(pairs)
    q_of = np.array([q for q, _ in pairs], dtype=np.int64)
    bogus = np.array([r < 0 for _, r in pairs], dtype=bool)
    row_topic, docno, position = ranked_lists(results, pairs, options)

    # the qrels of the evaluated topics
    starts, stops = qrels.start[q_of], qrels.start[q_of + 1]
    counts = stops - starts
    q_rows = np.repeat(starts - np.r_[0, np.cumsum(counts)[:-1]], counts) + \
        np.arange(int(counts.sum()))
    q_topic = np.repeat(np.arange(n), counts)
    q_docno, q_rel = qrels.docno[q_rows], qrels.rel[q_rows]

    # duplicates: the smallest docno found twice, in the run's top -M and in the qrels
    ident = _identities(np.r_[row_topic, q_topic], np.concatenate([docno, q_docno]))
    run_ident, q_ident = ident[:len(docno)], ident[len(docno):]
    run_duplicate: list = [None] * n
    seen = np.bincount(run_ident, minlength=int(ident.max(initial=-1)) + 1)
    for k in np.flatnonzero(seen[run_ident] > 1).tolist():
        t, d = int(row_topic[k]), bytes(docno[k])
        if run_duplicate[t] is None or d < run_duplicate[t]:
            run_duplicate[t] = d
    qrels_duplicate: list = [None] * n
    twice = np.flatnonzero((q_topic[1:] == q_topic[:-1]) & (q_docno[1:] == q_docno[:-1]))
    for k in twice[::-1].tolist():  # docnos are sorted: the first found twice stays
        qrels_duplicate[int(q_topic[k])] = bytes(q_docno[k])

    # join: the level of each ranked document (-1 without a qrels line, -2 if negative)
    judged_ident = np.zeros(len(seen) if len(seen) else 1, dtype=bool)
    level_of = np.zeros(len(judged_ident), dtype=np.int64)
    judged_ident[q_ident] = True
    level_of[q_ident[::-1]] = q_rel[::-1]  # a docno judged twice: its first level
    found = judged_ident[run_ident]
    level = np.where(found, level_of[run_ident], K.NONPOOL)
    level = np.where(found & (level < 0), K.UNJUDGED, level)
    if options.judged_only:
        judged = level >= 0
        row_topic, level = row_topic[judged], level[judged]
        position = _positions(row_topic)
    num_ret = np.bincount(row_topic, minlength=n).astype(np.int64)
    depth = int(num_ret.max()) if n else 0
    rel = np.zeros((n, depth), dtype=np.int64)
    valid = np.zeros((n, depth), dtype=bool)
    rel[row_topic, position] = level
    valid[row_topic, position] = True

    lvl = options.level
    judged_q = q_rel >= 0
    num_rel = np.bincount(q_topic[judged_q & (q_rel >= lvl)], minlength=n)
    num_nonrel = np.bincount(q_topic[judged_q & (q_rel < lvl)], minlength=n)
    max_rel = np.full(n, np.iinfo(np.int64).min, dtype=np.int64)
    if len(q_rel):
        heads = np.r_[0, np.cumsum(counts)[:-1]]
        nonempty = counts > 0
        max_rel[nonempty] = np.maximum.reduceat(q_rel, heads[nonempty])
    num_rel_ret = (valid & (rel >= 0) & (rel >= lvl)).sum(axis=1)
    num_nonpool = (valid & (rel == K.NONPOOL)).sum(axis=1)
    num_unjudged = (valid & (rel == K.UNJUDGED)).sum(axis=1)
    if len(q_rel) and int(q_rel.max()) > LEVEL_LIMIT:
        raise NotReproduced(f"a relevance level above {LEVEL_LIMIT} (trec_eval keeps a "
                            "count for every level up to the highest)")
    level_counts: list = []
    for levels in (np.split(q_rel, np.cumsum(counts)[:-1]) if n else []):
        judged_levels = levels[levels >= 0]
        level_counts.append(np.bincount(judged_levels) if len(judged_levels) else
                            level_counts[-1] if level_counts else np.zeros(0, dtype=np.int64))
    return Ranked([bytes(qrels.topics[q]) for q in q_of.tolist()],
                  rel, valid, num_ret, num_rel.astype(np.int64), num_rel_ret.astype(np.int64),
                  num_nonrel.astype(np.int64), num_nonpool.astype(np.int64),
                  num_unjudged.astype(np.int64), max_rel, bogus, run_duplicate,
                  qrels_duplicate, lvl, options.num_docs, level_counts)


def _positions(group: np.ndarray) -> np.ndarray:
    """0-based position of each element within its run of equal values."""
    if len(group) == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.r_[0, np.flatnonzero(group[1:] != group[:-1]) + 1]
    return np.arange(len(group)) - np.repeat(starts, np.diff(np.r_[starts, len(group)]))


def _ranking(topic: np.ndarray, sim: np.ndarray, docno: np.ndarray,
             descending: bool = True) -> np.ndarray:
    """The order trec_eval ranks the rows in: by topic, score descending, docno
    descending (``descending=False``: ascending) for ties, a topic whose scores include
    a NaN as glibc's merge sort leaves it."""
    order = np.argsort(topic, kind="stable")
    t, s = topic[order], sim[order]
    same = t[1:] == t[:-1]
    nan = np.isnan(s)
    if not nan.any():
        rising = same & (s[1:] >= s[:-1])
        if not rising.any():
            return order
        # ties are in order when their docnos descend (ascend), or repeat
        i = np.flatnonzero(rising)
        d = docno[order]
        right = (d[i + 1] <= d[i]) if descending else (d[i + 1] >= d[i])
        if ((s[i + 1] == s[i]) & right).all():
            return order
    _, code = sorted_codes(docno)
    order = np.lexsort((-code if descending else code, -sim, topic))
    for t in np.unique(topic[np.isnan(sim)]).tolist():
        at = np.flatnonzero(topic[order] == t)
        order[at] = _nan_order(order[at], sim, code, descending)
    return order


def _hashes(values: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each value (``S`` dtype)."""
    width = values.dtype.itemsize
    words = values.astype(f"S{width + -width % 8}").view("<u8").reshape(len(values), -1)
    h = np.full(len(values), 0xCBF29CE484222325, dtype=np.uint64)
    for j in range(words.shape[1]):
        h = (h ^ words[:, j]) * np.uint64(0x100000001B3)
        h ^= h >> np.uint64(31)
    return h


def _identities(topic: np.ndarray, docno: np.ndarray) -> np.ndarray:
    """Per row, an int64 that is equal for two rows exactly when their topics and docnos
    are: hashed, and checked (collisions fall back on the docnos' sort codes)."""
    if len(docno) == 0:
        return np.zeros(0, dtype=np.int64)
    with np.errstate(over="ignore"):
        h = _hashes(docno) ^ (topic.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
        h = (h ^ (h >> np.uint64(29))) * np.uint64(0xBF58476D1CE4E5B9)
    order = np.argsort(h)
    hs = h[order]
    same = hs[1:] == hs[:-1]
    a, b = order[:-1][same], order[1:][same]
    if not ((docno[a] == docno[b]) & (topic[a] == topic[b])).all():
        _, code = sorted_codes(docno)
        return topic.astype(np.int64) * (int(code.max()) + 1) + code
    ident = np.empty(len(h), dtype=np.int64)
    ident[order] = np.cumsum(np.r_[True, ~same]) - 1
    return ident


# ------------------------------------------------------------------ the measures


def _value(array) -> np.ndarray:
    """``(topic, value)`` float64."""
    array = np.asarray(array, dtype=np.float64)
    return array[:, None] if array.ndim == 1 else array


def _c_long_of(value: float) -> int:
    """C's ``(long) value``: truncation; the x86 result for NaN and out-of-range values."""
    if not math.isfinite(value) or abs(value) >= 2.0 ** 63:
        return -(2 ** 63)
    return int(value)


def _c_int_of(value: float) -> int:
    """C's ``(int) value`` (a comparison function's result)."""
    if not math.isfinite(value) or abs(value) >= 2.0 ** 31:
        return -(2 ** 31)
    return int(value)


class _Context:
    """What the measures of one evaluation share: the ranked topics and C's ``log2`` of
    the whole numbers they need."""

    def __init__(self, ranked: Ranked, version: int = 10):
        self.ranked = ranked
        self.version = version
        self._log2 = np.zeros(0)
        self._gains: dict = {}

    def log2_table(self, top: int) -> np.ndarray:
        """``table[x]`` = C's ``log2(x)`` for ``x`` up to ``top`` (libm's, as Python's
        ``math.log2`` is; numpy's differs in the last bit for some)."""
        if len(self._log2) <= top:
            size = max(top + 1, 2 * len(self._log2), 64)
            self._log2 = np.array([-math.inf] + [math.log2(x) for x in range(1, size)])
        return self._log2

    def gains(self, pairs: tuple) -> list:
        """Per topic, trec_eval's ``setup_gains`` list for the ``-m NAME.l=g,...`` pairs,
        sorted as glibc's ``qsort`` leaves it under the comparison ``(int) (g1 - g2)``:
        ``[(level, gain, count), ...]``."""
        if pairs not in self._gains:
            self._gains[pairs] = [_gain_list(pairs, counts, self.version)
                                  for counts in self.ranked.level_counts]
        return self._gains[pairs]

    def results_gains(self, pairs: tuple, *, normalised: bool = False) -> np.ndarray:
        """``(topic, rank)``: trec_eval's ``get_gain`` of each ranked document (the first
        entry of the sorted list with its level; 0 for none), for ``rbp`` with the gains
        rescaled to [0, 1] when they leave it."""
        ranked = self.ranked
        levels, where = np.unique(ranked.rel, return_inverse=True)
        where = where.reshape(ranked.rel.shape)
        table = np.zeros((len(ranked.qids), len(levels)))
        for t, gains in enumerate(self.gains(pairs)):
            if normalised:
                gains = _rbp_gains(gains)
            first: dict = {}
            for level, gain, _ in gains:
                first.setdefault(level, gain)
            table[t] = [first.get(int(v), 0.0) for v in levels.tolist()]
        return np.where(ranked.valid, np.take_along_axis(table, where, axis=-1), 0.0) \
            if len(levels) else np.zeros(ranked.rel.shape)


def _valid_int(name: str) -> bool:
    """trec_eval's ``valid_int``: an optional sign and at least one digit, nothing else."""
    body = name[1:] if name[:1] in ("-", "+") else name
    return bool(body) and all("0" <= c <= "9" for c in body)


def _gain_list(pairs: tuple, counts: np.ndarray, version: int) -> list:
    # 9.0.8 reads every name as a level (atol: "p" is level 0); 10.0 only whole numbers
    entries = [[c_atol(encoded(name)), float(gain), 0] for name, gain in pairs
               if version < 10 or _valid_int(name)]
    given = len(entries)
    for level, count in enumerate(counts.tolist()):
        for entry in entries:
            if entry[0] == level:
                entry[2] = count
                break
        else:
            entries.append([level, float(level), count])
    del given

    def compare(a, b) -> int:
        return _c_int_of(a[1] - b[1])

    return [tuple(e) for e in _glibc_msort(entries, compare)]


RBP_LEFTOVERS = frozenset({"gm_map", "iprec_at_recall", "relstring", "11pt_avg", "G", "dcg",
                           "ideal_dcg", "ndcg", "ndcg_rel", "ndcg_cut", "set_F", "yaap"})
"""The measures after which trec_eval 10.0's rbp is refused: rbp rescales its gains from
two variables it leaves uninitialised, which hold what the measure computed just before
it left on the stack; after these measures that is a double of theirs (a gain, a DCG, a
precision, or a -1 read as NaN), elsewhere addresses and counts that rescale as 0 does."""


def _rbp_gains(gains: list) -> list:
    """rbp's gains, rescaled to [0, 1] when one lies outside; its bounds start at 0 (what
    the uninitialised variables of trec_eval 10.0's ``m_rbp.c`` hold in the built
    program, unless a measure of :data:`RBP_LEFTOVERS` comes just before it)."""
    low = min([0.0] + [g for _, g, _ in gains])
    high = max([0.0] + [g for _, g, _ in gains])
    if low < 0 or high > 1:
        return [(level, (g - low) / (high - low), n) for level, g, n in gains]
    return gains


def _ideal(gains: list) -> np.ndarray:
    """The gains of the ideal ranking trec_eval walks: each level's gain repeated by its
    count, from the last entry of the sorted list down, up to the first gain that is not
    positive."""
    sequence = np.repeat([g for _, g, _ in gains[::-1]], [n for _, _, n in gains[::-1]])
    stop = np.flatnonzero(~(sequence > 0.0))
    if len(gains) and not gains[-1][1] > 0.0:
        return np.zeros(0)
    return sequence[:stop[0]] if len(stop) else sequence


def _ideal_after(gains: list) -> float:
    """The gain the ideal walk ends on (the first that is not positive, or 0)."""
    for _, g, n in gains[::-1]:
        if n > 0 and not g > 0.0:
            return g
    return 0.0


def _pair_value(pairs: tuple, key: str, default: float) -> float:
    value = default
    for name, v in pairs:
        if name == key:
            value = v
    return value


def _ndcg_family(context: _Context, name: str, pairs: tuple) -> np.ndarray:
    ranked = context.ranked
    n_topics, depth = ranked.rel.shape
    gains = context.gains(pairs)
    results = context.results_gains(pairs)
    ideals = [_ideal(g) for g in gains]
    longest = max([depth] + [len(i) for i in ideals]) + 2
    log2 = context.log2_table(longest + 2)
    dcg = K.discounted_gains(results, ranked.valid, log2)
    out = np.zeros(n_topics)
    for t in range(n_topics):
        num_ret = int(ranked.num_ret[t])
        ideal = K.ideal_dcg_prefix(ideals[t], log2)
        top = len(ideals[t])
        if name == "dcg":
            out[t] = dcg[t, num_ret]
        elif name == "ideal_dcg":
            out[t] = ideal[top]
        elif name == "ndcg":
            out[t] = dcg[t, num_ret] / ideal[top] if ideal[top] > 0.0 else 0.0
        elif name == "ndcg_rel":
            out[t] = _ndcg_rel(results[t, :num_ret], dcg[t], ideal, top, num_ret)
        elif name == "Rndcg":
            if ranked.num_rel[t] != 0:
                out[t] = _rndcg(gains[t], ideals[t], dcg[t], ideal, num_ret)
        elif name == "G":
            out[t] = _g(results[t, :num_ret], ideals[t], gains[t], num_ret)
    return out


def _c_log2(x: float) -> np.float64:
    """C's ``log2`` (libm's, through ``math.log2``), -inf at 0 and NaN below."""
    if x > 0.0:
        return np.float64(math.log2(x))
    return np.float64(-math.inf) if x == 0.0 else -np.float64(math.nan)


def _ndcg_rel(results: np.ndarray, dcg: np.ndarray, ideal: np.ndarray, top: int,
              num_ret: int) -> float:
    """``ndcg_rel``: nDCG averaged over the relevant retrieved ranks, the missing relevant
    documents counted at the list's nDCG (trec_eval's loops, term for term)."""
    ranks = np.flatnonzero(results > 0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        terms = dcg[ranks + 1] / ideal[np.minimum(ranks + 1, top)]
        total = np.cumsum(terms)[-1] if len(terms) else np.float64(0.0)
        total = total + (np.float64(top - len(ranks)) * dcg[num_ret]) / ideal[top]
        if total > 0.0:
            return float(total / np.float64(top))
    return 0.0


def _rndcg(gains: list, sequence: np.ndarray, dcg: np.ndarray, ideal: np.ndarray,
           num_ret: int) -> float:
    """``Rndcg``: nDCG averaged over the ranks where the ideal gain changes."""
    top = len(sequence)
    first = gains[-1][1] if gains else 0.0
    values = np.concatenate([sequence, [_ideal_after(gains)]])
    previous = np.concatenate([[first], values[:-1]])
    change = np.flatnonzero(values != previous)
    if not first > 0.0:
        change = change[:0]
    count = 0
    total = np.float64(0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for p in change.tolist():
            if ideal[p] > 0.0:
                total = total + dcg[min(p, num_ret)] / ideal[p]
                count += 1
        if first > 0.0 and top + 1 < num_ret and ideal[top] > 0.0:
            total = total + dcg[num_ret] / ideal[top]
            count += 1
        return float(total / np.float64(count))


def _g(results: np.ndarray, sequence: np.ndarray, gains: list, num_ret: int) -> float:
    """``G``: gain over log2 of the cost so far (trec_eval's loops, term for term)."""
    top = len(sequence)
    inside = np.arange(num_ret) < top
    padded = np.zeros(num_ret)
    padded[:min(top, num_ret)] = sequence[:num_ret]
    cost = np.where(inside & (padded >= 1.0), padded, 1.0)
    sum_cost = np.cumsum(cost)
    sum_results = np.cumsum(results)
    total = np.float64(0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in np.flatnonzero(results != 0).tolist():
            total = total + results[i] / _c_log2(2 + float(sum_cost[i]) - float(sum_results[i]))
        ideal = np.cumsum(sequence)[-1] if top else np.float64(0.0)
        return float(total / ideal) if ideal > 0.0 else 0.0


def _ndcg_cut(context: _Context, cutoffs: np.ndarray) -> np.ndarray:
    ranked = context.ranked
    n_topics, depth = ranked.rel.shape
    gains = np.where(ranked.valid & (ranked.rel > 0), ranked.rel, 0).astype(np.float64)
    ideals = []
    for counts in ranked.level_counts:
        levels = np.arange(len(counts) - 1, 0, -1)
        ideals.append(np.repeat(levels, counts[::-1][:-1]).astype(np.float64))
    longest = max([depth] + [len(i) for i in ideals]) + 2
    log2 = context.log2_table(longest + 2)
    dcg = K.discounted_gains(gains, ranked.valid, log2)
    values = dcg[:, np.minimum(cutoffs, depth)]
    values = np.where(cutoffs[None, :] <= ranked.num_ret[:, None], values,
                      np.take_along_axis(dcg, ranked.num_ret[:, None], axis=-1))
    out = np.array(values)
    for t in range(n_topics):
        ideal = K.ideal_dcg_prefix(ideals[t], log2)
        norm = ideal[np.minimum(cutoffs, len(ideals[t]))]
        out[t] = np.where(norm > 0.0, values[t] / np.where(norm > 0.0, norm, 1.0), values[t])
    return out


def _relstrings(ranked: Ranked, length: float) -> list[bytes]:
    """``relstring``: a character per ranked document (its level, ``>`` above 9, ``-``
    without a qrels line, ``.`` for a negative level)."""
    out = []
    for t in range(len(ranked.qids)):
        n = max(min(_c_long_of(length), int(ranked.num_ret[t])), 0)
        chars = []
        for rel in ranked.rel[t, :n].tolist():
            chars.append(">" if rel > 9 else str(rel) if rel >= 0 else
                         "-" if rel == K.NONPOOL else "." if rel == K.UNJUDGED else "<")
        out.append("".join(chars).encode())
    return out


def _compute(marked: Marked, context: _Context) -> np.ndarray:
    ranked = context.ranked
    name = marked.measure.name
    values = marked.values
    relevant = ranked.relevant
    cutoffs = np.array(values, dtype=np.int64) if marked.measure.params == "long_cutoffs" \
        else None
    n = len(ranked.qids)
    if name in ("runid", "relstring"):
        return np.zeros((n, 1))
    if name == "num_q":
        return np.ones((n, 1))
    if name in ("num_ret", "num_rel", "num_rel_ret"):
        return _value(getattr(ranked, name))
    if name == "num_nonrel_judged_ret":
        return _value(ranked.num_ret - ranked.num_nonpool - ranked.num_unjudged
                      - ranked.num_rel_ret)
    if name in ("map", "map_avgjg", "gm_map", "yaap"):
        ap = K.average_precision(relevant, ranked.num_rel)
        if name in ("map", "map_avgjg"):
            return _value(ap)
        if name == "gm_map":
            return _value([math.log(v if v > MIN_GEO_MEAN else MIN_GEO_MEAN)
                           for v in ap.tolist()])
        sums = K.average_precision(relevant, np.ones(n, dtype=np.int64))
        return _value([math.log((1.0 + s) / (1.0 + float(r) - s))
                       for s, r in zip(sums.tolist(), ranked.num_rel.tolist())])
    if name == "Rprec":
        return _value(K.r_precision(relevant, ranked.num_ret, ranked.num_rel))
    if name in ("bpref", "gm_bpref"):
        if len(ranked.max_rel) and ranked.level > int(np.maximum(ranked.max_rel, 0).min()) + 1:
            raise NotReproduced(f"-l {ranked.level} above a topic's highest level + 1 with "
                                f"{name} (trec_eval reads past its array of level counts)")
        b = K.bpref(ranked.rel, ranked.valid, ranked.level, ranked.num_rel, ranked.num_nonrel)
        if name == "bpref":
            return _value(b)
        return _value([math.log(v if v > MIN_GEO_MEAN else MIN_GEO_MEAN)
                       for v in b.tolist()])
    if name == "recip_rank":
        return _value(K.reciprocal_rank(relevant))
    if name == "iprec_at_recall":
        return _value(K.interpolated_precision(relevant, ranked.num_ret, ranked.num_rel,
                                               values, rounded=context.version >= 10))
    if name == "11pt_avg":
        walk = K.interpolated_precision(relevant, ranked.num_ret, ranked.num_rel, values,
                                        rounded=context.version >= 10)
        total = np.cumsum(walk[:, ::-1], axis=1)[:, -1]
        return _value(total / float(len(values)))
    if name in ("P", "P_avgjg"):
        return _value(K.precision_at(relevant, cutoffs))
    if name == "recall":
        return _value(K.recall_at(relevant, ranked.num_rel, cutoffs))
    if name == "success":
        return _value(K.success_at(relevant, cutoffs))
    if name == "relative_P":
        return _value(K.relative_precision_at(relevant, ranked.num_rel, cutoffs))
    if name == "map_cut":
        return _value(K.average_precision_at(relevant, ranked.num_rel, cutoffs))
    if name == "unj":
        return _value(K.unjudged_at(ranked.rel, ranked.valid, cutoffs))
    if name in ("Rprec_mult", "Rprec_mult_avgjg"):
        counts = np.multiply.outer(ranked.num_rel.astype(np.float64), np.array(values)) + 0.9
        # trec_eval takes the multiples from the last down and stops at one whose count
        # overflows: the ones before it keep 0
        if len(counts) and not (np.abs(counts[:, 1:]) < 2.0 ** 63).all():
            raise NotReproduced(f"a multiple in -m {name} whose number of documents "
                                "overflows a long (trec_eval then skips the others)")
        return _value(K.r_precision_multiples(relevant, ranked.num_ret, ranked.num_rel,
                                              ranked.num_rel_ret, np.array(values)))
    if name == "infAP":
        return _value(K.infap(ranked.rel, ranked.valid, ranked.level, ranked.num_rel))
    if name == "binG":
        log2 = context.log2_table(ranked.rel.shape[-1] + 3)
        return _value(K.binary_g(relevant, ranked.num_rel, log2))
    if name == "utility":
        a, b, c, d = values
        rr, ret, rel = (ranked.num_rel_ret.astype(np.float64),
                        ranked.num_ret.astype(np.float64), ranked.num_rel.astype(np.float64))
        rest = (ranked.num_docs + ranked.num_rel_ret - ranked.num_ret - ranked.num_rel)
        return _value(a * rr + b * (ret - rr) + c * (rel - rr) + d * rest.astype(np.float64))
    if name in ("set_P", "set_recall", "set_relative_P", "set_map", "set_F"):
        return _value(_set_measure(name, ranked, values))
    if name == "rbp":
        p = _pair_value(values, "p", 0.9)
        return _value(K.rank_biased_precision(context.results_gains(values, normalised=True),
                                              ranked.valid, p))
    if name == "rbp_resid":
        p = _pair_value(values, "p", 0.9)
        return _value(K.rbp_residual(ranked.rel, ranked.valid, p))
    if name == "ndcg_cut":
        return _value(_ndcg_cut(context, cutoffs))
    if name in ("ndcg", "dcg", "ideal_dcg", "ndcg_rel", "Rndcg", "G"):
        return _value(_ndcg_family(context, name, values))
    raise NotReproduced(f"measure {name} is not supported yet")  # guarded by the caller


def _set_measure(name: str, ranked: Ranked, values: tuple) -> np.ndarray:
    rr = ranked.num_rel_ret.astype(np.float64)
    ret = ranked.num_ret.astype(np.float64)
    rel = ranked.num_rel.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        if name == "set_P":
            return np.where(ranked.num_ret != 0, rr / ret, 0.0)
        if name == "set_recall":
            return np.where(ranked.num_rel != 0, rr / rel, 0.0)
        if name == "set_relative_P":
            return np.where((ranked.num_ret != 0) & (ranked.num_rel != 0),
                            rr / np.minimum(ranked.num_ret, ranked.num_rel), 0.0)
        if name == "set_map":
            return np.where((ranked.num_ret != 0) & (ranked.num_rel != 0),
                            (rr * rr) / (ret * rel), 0.0)
        x = values[0]
        p, r = rr / ret, rr / rel
        return np.where(ranked.num_rel_ret != 0, (x + 1.0) * p * r / (x * p + r), 0.0)


# ------------------------------------------------------------------ preferences


class _Jg:
    """One judgment group of a topic's preferences, counted as trec_eval's
    ``form_prefs_counts`` counts it (``JG`` in its ``trec_format.h``): its equivalence
    classes ``[(rel_level, docid ranks)]`` (one subgroup) or its levels by docid (-1 for
    none) and transitively closed ``(docid, docid)`` preference array (several
    subgroups), where its ranks start in the topic's pool, and its counts."""

    def __init__(self, ecs: list | None = None, rel_array: np.ndarray | None = None,
                 array: np.ndarray | None = None, ec_start: int = 0):
        self.ecs, self.rel_array, self.array, self.ec_start = ecs, rel_array, array, ec_start
        self.ful_ret = self.poss_ret = self.ful_imp = self.poss_imp = self.notoccur = 0
        self.num_rel = self.num_rel_ret = self.num_nonrel = self.num_nonrel_ret = 0


class _PrefsTopic(NamedTuple):
    """One topic's preferences joined with the run (``RESULTS_PREFS``)."""

    jgs: list
    num_judged: int
    num_judged_ret: int
    counts: np.ndarray
    """``(docid, docid)``: the groups preferring the first to the second."""
    rank_pool: list
    """The ranks of every equivalence class of the topic, one group after the other."""


class _PrefsError(Exception):
    """trec_eval's message when it cannot form a topic's preferences."""

    def __init__(self, message: bytes):
        super().__init__()
        self.message = message


def _prefs_topic(prefs, lines: slice, ranked_docnos: list[bytes]) -> _PrefsTopic:
    """The preferences of one topic (``lines`` of ``prefs``) against its ranked run
    (docnos in rank order, cut at ``-M``)."""
    docnos = prefs.docno[lines].tolist()
    jg, jsg = prefs.jg[lines].tolist(), prefs.jsg[lines].tolist()
    rel = prefs.rel[lines].tolist()
    if any(math.isnan(r) for r in rel):
        raise NotReproduced("a NaN preference level (trec_eval sorts them inconsistently)")
    judged = set(docnos)
    retrieved = [d for d in ranked_docnos if d in judged]
    num_judged_ret = len(retrieved)
    rank_of = {d: k for k, d in enumerate(retrieved)}
    for d in sorted(judged - set(retrieved)):
        rank_of[d] = len(rank_of)
    num_judged = len(rank_of)
    rank = [rank_of[d] for d in docnos]

    def before(a: int, b: int) -> int:
        if jg[a] != jg[b]:
            return -1 if jg[a] < jg[b] else 1
        if jsg[a] != jsg[b]:
            return -1 if jsg[a] < jsg[b] else 1
        if rel[a] > rel[b]:
            return -1
        if rel[a] < rel[b]:
            return 1
        return rank[a] - rank[b]

    order = _glibc_msort(list(range(len(docnos))), before)
    counts = np.zeros((num_judged, num_judged), dtype=np.int64)
    topic = _PrefsTopic([], num_judged, num_judged_ret, counts, [])
    start = 0
    while start < len(order):
        stop = start
        while stop < len(order) and jg[order[stop]] == jg[order[start]]:
            stop += 1
        group = order[start:stop]
        subgroups = len({jsg[k] for k in group})  # sorted: consecutive runs
        if subgroups > 1:
            topic.jgs.append(_pa_group(group, jsg, rel, rank, docnos, topic))
        else:
            topic.jgs.append(_ec_group(group, rel, rank, topic))
        start = stop
    if counts.max(initial=0) > 65535:
        raise NotReproduced("more than 65535 judgment groups state one preference "
                            "(trec_eval counts them in an unsigned short)")
    return topic


def _ec_group(group: list, rel: list, rank: list, topic: _PrefsTopic) -> _Jg:
    """A group with one subgroup: its equivalence classes by level, counted."""
    ecs: list = []
    for k in group:
        if not ecs or ecs[-1][0] != rel[k]:
            ecs.append((rel[k], []))
        ecs[-1][1].append(rank[k])
    jg = _Jg(ecs=ecs, ec_start=len(topic.rank_pool))
    for _, ranks in ecs:
        topic.rank_pool.extend(ranks)
    njr = topic.num_judged_ret
    for e1, (level, ranks1) in enumerate(ecs):
        ret = sum(1 for _ in itertools.takewhile(lambda r: r < njr, ranks1))
        if level > 0.0:
            jg.num_rel_ret += ret
            jg.num_rel += len(ranks1)
        else:
            jg.num_nonrel_ret += ret
            jg.num_nonrel += len(ranks1)
        for _, ranks2 in ecs[e1 + 1:]:
            for r1 in ranks1:
                for r2 in ranks2:
                    topic.counts[r1, r2] += 1
                    if r1 == r2:
                        raise _PrefsError(
                            b"trec_eval.form_prefs_counts: Internal docid %d occurs with "
                            b"different rel_level in same jsg\n" % r1)
                    if r1 < r2:
                        if r2 < njr:
                            jg.ful_ret += 1
                        elif r1 < njr:
                            jg.ful_imp += 1
                        else:
                            jg.notoccur += 1
                    elif r1 < njr:
                        jg.poss_ret += 1
                    elif r2 < njr:
                        jg.poss_imp += 1
                    else:
                        jg.notoccur += 1
    jg.poss_ret += jg.ful_ret
    jg.poss_imp += jg.ful_imp
    return jg


def _pa_group(group: list, jsg: list, rel: list, rank: list, docnos: list,
              topic: _PrefsTopic) -> _Jg:
    """A group with several subgroups: its preference array, closed transitively."""
    n, njr = topic.num_judged, topic.num_judged_ret
    array = np.zeros((n, n), dtype=bool)
    rel_array = np.full(n, -1.0)
    for i, k in enumerate(group):
        r = rank[k]
        if (rel_array[r] > 0.0 and rel[k] == 0.0) or (rel_array[r] == 0.0 and rel[k] > 0.0):
            raise _PrefsError(b"trec_eval.form_prefs_counts: doc '%s' has both 0 and non-0 "
                              b"rel_level assigned\n" % docnos[k])
        rel_array[r] = rel[k]
        j = i + 1
        while j < len(group) and jsg[group[j]] == jsg[k] and rel[group[j]] == rel[k]:
            j += 1
        while j < len(group) and jsg[group[j]] == jsg[k]:
            array[r, rank[group[j]]] = True
            j += 1
    np.fill_diagonal(array, True)
    for m in range(n):  # the reflexive transitive closure
        array |= array[:, m:m + 1] & array[m:m + 1, :]
    np.fill_diagonal(array, False)
    if (array & array.T).any():
        raise NotReproduced("contradictory preferences in a judgment group (trec_eval "
                            "aborts)")
    jg = _Jg(rel_array=rel_array, array=array)
    jg.num_rel_ret = int((rel_array[:njr] > 0.0).sum())
    jg.num_nonrel_ret = int((rel_array[:njr] == 0.0).sum())
    jg.num_rel = jg.num_rel_ret + int((rel_array[njr:] > 0.0).sum())
    jg.num_nonrel = jg.num_nonrel_ret + int((rel_array[njr:] == 0.0).sum())
    np.add(topic.counts, array, out=topic.counts)
    below = np.tril(np.ones((n, n), dtype=bool), -1)
    retrieved = np.arange(n) < njr
    inside = retrieved[:, None] & retrieved[None, :]
    jg.poss_ret = int((array & inside & below).sum())
    jg.ful_ret = int((array & inside & below.T).sum())
    jg.ful_imp = int((array & retrieved[:, None] & ~retrieved[None, :]).sum())
    jg.poss_imp = int((array & ~retrieved[:, None] & retrieved[None, :]).sum())
    jg.notoccur = int((array & ~retrieved[:, None] & ~retrieved[None, :]).sum())
    jg.poss_ret += jg.ful_ret
    jg.poss_imp += jg.ful_imp
    return jg


def _ratio(a, b) -> float:
    """``(double) a / (double) b`` as C divides."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(a) / np.float64(b))


def _prefs_value(name: str, t: _PrefsTopic) -> float:
    """One preference measure of one topic (trec_eval's ``m_prefs_*.c``)."""
    jgs = t.jgs
    if name in ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
                "prefs_simp", "prefs_simp_ret", "prefs_simp_imp"):
        ful = sum(j.ful_ret + (0 if name.endswith("_ret") else j.ful_imp) for j in jgs)
        if name == "prefs_simp_ret":
            poss = sum(j.poss_ret for j in jgs)
        elif name == "prefs_simp_imp":
            poss = sum(j.poss_ret + j.poss_imp for j in jgs)
        else:
            poss = sum(j.poss_ret + j.poss_imp + j.notoccur for j in jgs)
        if name == "prefs_num_prefs_poss":
            return float(poss)
        if name.startswith("prefs_num_prefs_ful"):
            return float(ful)
        return _ratio(ful, poss) if poss else 0.0
    if name in ("prefs_pair", "prefs_pair_ret", "prefs_pair_imp"):
        return _prefs_pair(name, t)
    if name in ("prefs_avgjg", "prefs_avgjg_ret", "prefs_avgjg_imp"):
        total = np.float64(0.0)
        for j in jgs:
            ful = j.ful_ret + (0 if name == "prefs_avgjg_ret" else j.ful_imp)
            poss = j.poss_ret + (0 if name == "prefs_avgjg_ret" else j.poss_imp) + \
                (j.notoccur if name == "prefs_avgjg" else 0)
            if poss:
                total += np.float64(ful) / np.float64(poss)
        return float(total / np.float64(len(jgs))) if total > 0.0 else 0.0
    # prefs_avgjg_Rnonrel, prefs_avgjg_Rnonrel_ret
    retrieved_only = name.endswith("_ret")
    total = np.float64(0.0)
    for j in jgs:
        big_r = j.num_rel_ret if retrieved_only else j.num_rel
        big_n = j.num_nonrel_ret if retrieved_only else j.num_nonrel
        if big_r >= big_n:
            if retrieved_only:
                ful = j.ful_ret + j.num_rel_ret * (big_r - big_n)
                poss = j.poss_ret + j.num_rel * (big_r - big_n)
            else:
                ful = j.ful_ret + j.ful_imp + j.num_rel_ret * (big_r - big_n)
                poss = j.poss_ret + j.poss_imp + j.notoccur + j.num_rel * (big_r - big_n)
        else:
            ful, poss = _recalculated(j, t, retrieved_only)
        with np.errstate(divide="ignore", invalid="ignore"):
            total += np.float64(ful) / np.float64(poss)
    return float(total / np.float64(len(jgs))) if total > 0.0 else 0.0


def _recalculated(j: _Jg, t: _PrefsTopic, retrieved_only: bool) -> tuple[int, int]:
    """trec_eval's ``recalculate`` of the Rnonrel measures: the group's preferences with
    only as many non-relevant documents as relevant ones."""
    njr = t.num_judged_ret
    ful = poss = 0
    if j.ecs is not None:
        last = j.ec_start + sum(len(r) for _, r in j.ecs[:-1])
        keep = j.num_rel_ret if retrieved_only else j.num_rel
        if last + keep > len(t.rank_pool):
            raise NotReproduced("a Rnonrel recount past the ranks of the topic (trec_eval "
                                "reads past its array)")
        nonrel = t.rank_pool[last:last + keep]

        def pairs(ranks1, ranks2):
            nonlocal ful, poss
            if retrieved_only:
                ranks1 = list(itertools.takewhile(lambda r: r < njr, ranks1))
                ranks2 = list(itertools.takewhile(lambda r: r < njr, ranks2))
            for r1 in ranks1:
                for r2 in ranks2:
                    if r1 < r2 and (retrieved_only or r1 < njr):
                        ful += 1
                    else:
                        poss += 1

        for e1 in range(len(j.ecs)):
            for e2 in range(e1 + 1, len(j.ecs) - 1):
                pairs(j.ecs[e1][1], j.ecs[e2][1])
        for e1 in range(len(j.ecs)):
            pairs(j.ecs[e1][1], nonrel)
        return ful, poss + ful
    a, rel_array = j.array, j.rel_array
    n = len(rel_array)
    seen, first = 0, (njr if retrieved_only else n)
    for i in range(njr if retrieved_only else n):
        if rel_array[i] == 0.0:
            seen += 1
            if seen == j.num_rel + 1:
                first = i
                break
    kept = ~((np.arange(n) >= first) & (rel_array == 0.0))
    retrieved = np.arange(n) < njr
    live = a & kept[:, None] & kept[None, :]
    below = np.tril(np.ones((n, n), dtype=bool), -1)
    rows = retrieved[:, None]
    poss += int((live & rows & retrieved[None, :] & below).sum())
    ful += int((live & rows & retrieved[None, :] & below.T).sum())
    if not retrieved_only:
        ful += int((live & rows & ~retrieved[None, :]).sum())
        poss += int((live & ~rows).sum())
    return ful, poss + ful


def _prefs_pair(name: str, t: _PrefsTopic) -> float:
    c, njr, n = t.counts, t.num_judged_ret, t.num_judged
    # the pairs (i, j) that trec_eval visits, in its order: i < j both retrieved, then i
    # retrieved and j not (but for prefs_pair_ret); its total, added in that order
    upper = np.triu(np.ones((njr, njr), dtype=bool), 1)
    first, second = [c[:njr, :njr][upper]], [c[:njr, :njr].T[upper]]
    if name != "prefs_pair_ret":
        first.append(c[:njr, njr:n].ravel())
        second.append(c[njr:n, :njr].T.ravel())
    first_prefers, second_prefers = np.concatenate(first), np.concatenate(second)
    either = (first_prefers != 0) | (second_prefers != 0)
    pairs = int(either.sum())
    fractions = first_prefers[either].astype(np.float64) / (
        first_prefers[either] + second_prefers[either]).astype(np.float64)
    total = np.cumsum(fractions)[-1] if pairs else np.float64(0.0)
    if name == "prefs_pair":
        upper = np.triu(np.ones((n, n), dtype=bool), 1)[njr:, njr:]
        block = c[njr:, njr:]
        pairs += int(((block > 0) | (block.T > 0))[upper].sum())
    return float(total / np.float64(pairs)) if pairs else 0.0


# ------------------------------------------------------------------ the program


def _read(qrels_path: str, results_path: str, options: Options):
    if options.rel_format not in REL_FORMATS:
        raise Stop(b"trec_eval: Illegal rel_format '%s'\n" % encoded(options.rel_format), 2)
    if options.rel_format == "qrels":
        qrels = read_trec_qrels(qrels_path, version=options.version)
    elif options.rel_format == "qrels_jg":
        qrels = read_trec_qrels_jg(qrels_path, version=options.version)
    else:
        qrels = read_trec_prefs(qrels_path, version=options.version,
                                qrels=options.rel_format == "qrels_prefs")
    if options.results_format not in RESULTS_FORMATS:
        raise Stop(b"trec_eval: Illegal retrieval results format '%s'\n"
                    % encoded(options.results_format), 2)
    results = read_trec_results(results_path, version=options.version)
    zscores = None if options.zscores is None else \
        read_trec_zscores(options.zscores, version=options.version)
    return qrels, results, zscores


def trec_eval_run(qrels_path: str, results_path: str, options: Options) -> Outcome:
    """What ``trec_eval OPTIONS qrels_path results_path`` writes and its exit status.

    Raises
    ------
    NotReproduced
        For a measure, an option or an input that ``xdiv trec_eval`` does not reproduce.
    """
    try:
        # C's arithmetic warns of nothing (an infinite recall level cast to a long, say)
        with np.errstate(all="ignore"):
            return _run(qrels_path, results_path, options)
    except Stop as stop:
        return Outcome(b"", stop.stderr, stop.status)
    except TrecEvalExit as stop:
        return Outcome(b"", stop.stderr, stop.status)


FORMAT_MESSAGES = {
    "qrels": b"trec_eval.form_res_qrels: rel_info format not qrels or results format not "
             b"trec_results\n",
    "qrels_jg": b"trec_eval: rel_info format not qrels_jg or results format not "
                b"trec_results\n",
    "prefs": b"trec_eval.form_prefs_info: prefs_info format not (prefs or qrels_prefs) or "
             b"results format not trec_results\n",
}
"""What trec_eval says when a measure reads another rel_info format than ``-R``'s."""


def _reads(rel_format: str) -> str:
    """The measures' ``reads`` that ``-R rel_format`` serves."""
    return "prefs" if rel_format in ("prefs", "qrels_prefs") else rel_format


def _events(join, n_topics: int, marked: list[Marked], options: Options, stop):
    """Where trec_eval stops first, ``(topic count, stderr, status)``, else ``stop``: each
    topic's measures are computed in trec_eval's order, and the first that reads each
    rel_info format joins it with the run (``join(e)``: trec_eval's message when that
    fails for evaluated topic ``e``, or None); a measure of another format than ``-R``'s
    fails too."""
    judged = [m for m in marked if m.measure.judged]
    if not judged:
        return stop
    served = _reads(options.rel_format)
    cannot = b"trec_eval: Can't calculate measure '%s'\n"
    for e in range(n_topics):
        called: set = set()
        for m in judged:
            kind = m.measure.reads
            name = m.measure.name.encode()
            if kind not in called:
                called.add(kind)
                if kind != served:
                    return (e, FORMAT_MESSAGES[kind] + cannot % name, 4)
                message = join(e)
                if message is not None:
                    return (e, message + cannot % name, 4)
            if e == 0 and m.measure.name == "utility" and len(m.values) != 4:
                return (e, b"trec_eval.calc_utility: improper number of coefficients\n"
                        + cannot % name, 4)
    return stop


def _qrels_join(ranked: Ranked, rows: np.ndarray, groups: bool):
    """``join(e)`` of :func:`_events` for qrels (``form_res_rels``) and, with ``groups``,
    qrels_jg (``form_res_rels_jg``; ``rows[e]`` the first judgment group of topic
    ``e``)."""

    def join(e: int) -> bytes | None:
        row = int(rows[e])
        if ranked.run_duplicate[row] is not None:
            return b"trec_eval.form_res_qrels: duplicate docs %s" % ranked.run_duplicate[row]
        if groups:
            return None
        if ranked.qrels_duplicate[row] is not None:
            return b"trec_eval.form_res_rels: duplicate docs %s\n" % ranked.qrels_duplicate[row]
        # trec_eval sizes its count of documents per level by the topic's highest level:
        # with none above -1, the first topic finds no array (and stops), a later one
        # reuses the last topic's, and writes before it if the highest level is -2 or less
        if ranked.max_rel[row] <= -1 and e == 0:
            return b""
        if ranked.max_rel[row] <= -2:
            raise NotReproduced(f"topic {ranked.qids[row].decode('latin-1')} has no qrels "
                                "level above -2 (trec_eval crashes on it)")
        return None

    return join


def _bogus_cleanup(marked: list[Marked], values: list[np.ndarray], bogus: np.ndarray,
                   relstrings: list | None) -> None:
    """What trec_eval 10.0 resets for a topic evaluated as the bogus run (``-c``): the
    values named exactly ``num_ret``, ``utility``, ``rbp_resid`` and ``relstring`` (not
    ``utility_2,-1,0,0``: it compares the full names), and those starting with ``unj``."""
    if not bogus.any():
        return
    for m, v in zip(marked, values):
        for j, name in enumerate(m.names):
            if name in ("num_ret", "utility", "rbp_resid") or name.startswith("unj"):
                v[bogus, j] = 0.0
            if name == "relstring" and relstrings is not None:
                for e in np.flatnonzero(bogus).tolist():
                    relstrings[e] = b""


def _zscored(marked: list[Marked], values: list[np.ndarray], qids: list[bytes],
             zscores) -> None:
    """Every value made a z-score against the ``-Z`` file, as trec_eval's
    ``te_convert_to_zscore`` does (its binary searches included)."""
    flat = [(k, j, name.encode()) for k, m in enumerate(marked) for j, name in
            enumerate(m.names) if m.measure.name != "runid"]
    for e, qid in enumerate(qids):
        q = _c_search(zscores.qids, qid, 0, len(zscores.qids), None, "qid")
        for k, j, name in flat:
            if q is None:
                values[k][e, j] = MISSING_ZSCORE
                continue
            lo, hi = zscores.start[q], zscores.start[q + 1]
            beyond = zscores.measure if hi < len(zscores.measure) else None
            at = _c_search(zscores.measure, name, lo, hi, beyond, "measure")
            if at is None:
                values[k][e, j] = MISSING_ZSCORE
                continue
            mean, stddev = zscores.mean[at], zscores.stddev[at]
            value = values[k][e, j]
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                if stddev:
                    values[k][e, j] = (value - np.float64(mean)) / np.float64(stddev)
                elif value == mean:
                    values[k][e, j] = 0.0
                else:
                    values[k][e, j] = MISSING_ZSCORE


MISSING_ZSCORE = -1000000.0
"""What trec_eval prints for a value whose mean the ``-Z`` file lacks."""


def _c_search(keys: list, key: bytes, lo: int, hi: int, beyond, what: str):
    """trec_eval's binary search of ``key`` among ``keys[lo:hi]``: it starts with ``end``
    one past the last entry, so a key above them all is compared with the entry after
    them (``beyond[hi]``: the next qid's first measure), or read outside its array."""
    start, end = 0, hi - lo
    while start <= end:
        current = (start + end) // 2
        if current == hi - lo:
            if beyond is None:
                raise NotReproduced(f"a {what} above every {what} of the -Z file (trec_eval "
                                    "reads past its array)")
            probe = beyond[hi]
        else:
            probe = keys[lo + current]
        if key < probe:
            end = current - 1
        elif key > probe:
            start = current + 1
        else:
            return lo + current
    return None


def _run(qrels_path: str, results_path: str, options: Options) -> Outcome:
    names, given = measure_arguments(options.measures, options.version)
    unsupported = [n for n in names if n not in SUPPORTED]
    if not names:
        unsupported = [n for n in NICKNAMES["official"] if n not in SUPPORTED]
    if unsupported:
        raise NotReproduced(f"measure {unsupported[0]} is not supported yet")
    qrels, results, zscores = _read(qrels_path, results_path, options)
    marked = marked_measures(names, given)
    names = [m.measure.name for m in marked]
    for m in marked:
        if m.measure.params == "pairs" and any(not math.isfinite(v) for _, v in m.values):
            raise NotReproduced(f"a gain that is not a finite number in -m {m.names[0]}")

    # the topics trec_eval evaluates, and where it stops
    pairs, stop = _evaluated_topics(qrels.topics, results, options)
    if pairs and any(m.measure.judged for m in marked):  # what trec_eval evaluates
        if options.level < 0:
            raise NotReproduced("-l below 0 is not supported")
        if options.max_docs < 0:
            raise NotReproduced("-M below 0 (trec_eval crashes, or counts a negative number "
                                "of documents)")
    if pairs and "rbp" in names and names.index("rbp") \
            and names[names.index("rbp") - 1] in RBP_LEFTOVERS:
        before = names[names.index("rbp") - 1]
        raise NotReproduced(f"rbp with {before} (trec_eval computes rbp after {before}, from "
                            f"two variables it leaves uninitialised, which then hold what "
                            f"{before} left)")
    if results.run_id is None and (options.complete or options.version < 10) and pairs \
            and "runid" in names:
        raise NotReproduced("a results file without a data line (trec_eval prints an "
                            "uninitialised run name)")
    prefs_topics: list = []
    if isinstance(qrels, TrecPrefs):
        ranked, rows = None, np.arange(len(pairs) + 1)
        join = _prefs_join(qrels, results, pairs, options, prefs_topics)
        all_judgments = np.zeros(0)
    elif isinstance(qrels, TrecQrelsJg):  # a row per judgment group
        rows = np.array([0] + [int(qrels.groups[q + 1] - qrels.groups[q]) for q, _ in pairs],
                        dtype=np.int64).cumsum()
        ranked = rank_topics(qrels.judgments, results,
                             [(g, r) for q, r in pairs
                              for g in range(int(qrels.groups[q]), int(qrels.groups[q + 1]))],
                             options)
        join = _qrels_join(ranked, rows, True)
        all_judgments = qrels.judgments.rel
    else:
        rows = np.arange(len(pairs) + 1)
        ranked = rank_topics(qrels, results, pairs, options)
        join = _qrels_join(ranked, rows, False)
        all_judgments = qrels.rel
    stop = _events(join, len(pairs), marked, options, stop)
    evaluated = len(pairs) if stop is None else stop[0]
    qids = [bytes(qrels.topics[q]) for q, _ in pairs[:evaluated]]
    bogus = np.array([r < 0 for _, r in pairs[:evaluated]], dtype=bool)
    if ranked is not None and int(rows[evaluated]) < len(ranked.qids):
        ranked = _first_topics(ranked, int(rows[evaluated]))  # what trec_eval never reaches
    context = _Context(ranked, options.version) if ranked is not None else None
    values = []
    for m in marked:
        if not evaluated:
            values.append(np.zeros((0, len(m.names))))
        elif m.measure.reads == "prefs":
            values.append(_value([_prefs_value(m.measure.name, prefs_topics[e])
                                  for e in range(evaluated)]))
        elif m.measure.reads == "qrels_jg":
            values.append(_group_average(_compute(m, context), rows[:evaluated + 1]))
        elif m.measure.reads:
            values.append(_compute(m, context))
        else:
            values.append(_value(np.ones(evaluated) if m.measure.name == "num_q" else
                                 np.zeros(evaluated)))
    relstrings = next((_relstrings(ranked, m.values[0]) for m in marked
                       if m.measure.name == "relstring" and evaluated), None)
    _bogus_cleanup(marked, values, bogus, relstrings)
    if zscores is not None:
        _zscored(marked, values, qids, zscores)

    rows = [v.tolist() for v in values]
    out: list[bytes] = []
    if options.query:
        for e in range(evaluated):
            out += topic_lines(marked, rows, e, qids[e], options.zscores is not None,
                               relstrings)
    if stop is not None:
        return Outcome(b"".join(out), stop[1], stop[2])
    if not pairs:
        return Outcome(b"".join(out),
                       b"trec_eval: No queries with both results and relevance info\n", 7)
    out += summary_lines(marked, rows, evaluated, len(qrels.topics),
                    int((all_judgments > 0).sum()), results.run_id, options)
    return Outcome(b"".join(out), b"", 0)


def _prefs_join(prefs: TrecPrefs, results: TrecResults, pairs: list, options: Options,
                topics: list):
    """``join(e)`` of :func:`_events` for the preference formats (``form_prefs_counts``):
    forms topic ``e``'s preferences into ``topics``, or says why trec_eval cannot."""
    row, docno, _ = ranked_lists(results, pairs, options, descending=False)
    bounds = np.searchsorted(row, np.arange(len(pairs) + 1))

    def join(e: int) -> bytes | None:
        ranked_docnos = docno[bounds[e]:bounds[e + 1]].tolist()
        if len(set(ranked_docnos)) < len(ranked_docnos):
            seen: set = set()
            twice = {d for d in ranked_docnos if d in seen or seen.add(d)}
            return b"trec_eval.form_prefs_counts: duplicate docs %s" % min(twice)
        q = pairs[e][0]
        try:
            topics.append(_prefs_topic(prefs, slice(int(prefs.start[q]),
                                                    int(prefs.start[q + 1])),
                                       ranked_docnos))
        except _PrefsError as error:
            return error.message
        return None

    return join


def _group_average(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Per topic, its judgment groups' values added in order, divided by their number
    when there are several (trec_eval's ``*_avgjg`` measures)."""
    out = np.zeros((len(rows) - 1, values.shape[1]))
    for t in range(len(rows) - 1):
        part = values[rows[t]:rows[t + 1]]
        total = np.cumsum(part, axis=0)[-1] if len(part) else np.zeros(values.shape[1])
        out[t] = total / np.float64(len(part)) if len(part) > 1 else total
    return out


def _first_topics(ranked: Ranked, n: int) -> Ranked:
    """The first ``n`` topics of ``ranked``."""
    return Ranked(ranked.qids[:n], ranked.rel[:n], ranked.valid[:n], ranked.num_ret[:n],
                  ranked.num_rel[:n], ranked.num_rel_ret[:n], ranked.num_nonrel[:n],
                  ranked.num_nonpool[:n], ranked.num_unjudged[:n], ranked.max_rel[:n],
                  ranked.bogus[:n], ranked.run_duplicate[:n], ranked.qrels_duplicate[:n],
                  ranked.level, ranked.num_docs, ranked.level_counts[:n])


def _evaluated_topics(topics: np.ndarray, results: TrecResults, options: Options):
    """``(qrels topic, results topic or -1)`` of the topics trec_eval evaluates, in its
    order, and ``(topic count, stderr, status)`` if it stops at a topic first."""
    where = np.searchsorted(results.topics, topics) if len(results.topics) else \
        np.zeros(len(topics), dtype=np.int64)
    where = np.minimum(where, max(len(results.topics) - 1, 0))
    has = (results.topics[where] == topics) if len(results.topics) else \
        np.zeros(len(topics), dtype=bool)
    pairs: list[tuple[int, int]] = []
    if options.version >= 10:
        for q in range(len(topics)):
            if has[q]:
                pairs.append((q, int(where[q])))
            elif options.complete:
                pairs.append((q, -1))
            else:
                return pairs, (len(pairs), b"trec_eval: result qid '%s' not found in qrels\n"
                               % bytes(topics[q]), 4)
        return pairs, None
    return [(q, int(where[q])) for q in range(len(topics)) if has[q]], None
