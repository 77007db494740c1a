"""``xdiv trec_eval`` started without numpy: trec_eval 10.0's everyday measures on clean
files, in plain Python.

Importing numpy takes longer than trec_eval's whole run on a TREC-sized run, so the
command first tries this path, which imports nothing beyond the standard library. It
takes the common case only and declines (:func:`lean_run` returns None) everything
else, which the full program (:mod:`xdiv.official.trec_eval.tool`) then evaluates:

* the measures of :data:`LEAN_MEASURES` (``-m official``, trec_eval's default, and the
  cut-off measures most papers report), with any of ``-q``, ``-c``, ``-n``, ``-l``,
  ``-M`` and ``-N``; trec_eval 10.0 conventions only;
* a qrels file of lines ``qid iter docno rel`` and a results file of lines ``qid iter
  docno rank sim run_id``, fields separated by spaces or tabs, ``rel`` a decimal integer
  and ``sim`` a decimal number (not NaN): no comments, no blank or short lines, no
  carriage returns, no duplicate docno in a topic of the qrels or in the top ``-M`` of a
  topic of the run, every topic of the qrels in the run, and each topic of the qrels
  with a level of 0 or more.

The arithmetic is that of :mod:`xdiv.kernels.trec_eval` done one topic at a time: the
same double-precision operations in the same order, so both paths print the same bytes
(tests compare them, and both with the trec_eval binary, on random files).
"""

from __future__ import annotations

import bisect
import itertools
import math
import operator

from .text import (LONG_RANGE, PLAIN_NUMBER, NotReproduced, TrecEvalExit,
                   file_bytes)
from .table import (LEVEL_LIMIT, MIN_GEO_MEAN, NICKNAMES, Options, Outcome, Stop,
                    marked_measures, measure_arguments, summary_lines, topic_lines)

__all__ = ["LEAN_MEASURES", "lean_run"]


_AWKWARD_BYTES = (b"\0", b"#", b"\r", b"\v", b"\f")
"""Bytes whose handling by trec_eval only the full program reproduces."""
_TAB_AS_SPACE = bytes.maketrans(b"\t", b" ")


def lean_run(qrels_path: str, results_path: str, options: Options) -> Outcome | None:
    """What ``trec_eval OPTIONS qrels_path results_path`` writes and its exit status, or
    None when the options, the measures or the files are outside this path (see the
    module's description)."""
    if (options.version < 10 or options.rel_format != "qrels" or options.judged_only
            or options.results_format != "trec_results" or options.zscores is not None
            or options.level < 0 or options.max_docs <= 0 or results_path.startswith("-")):
        return None
    try:
        names, given = measure_arguments(options.measures, options.version)
        if not set(names or NICKNAMES["official"]) <= LEAN_MEASURES:
            return None
        marked = marked_measures(names, given)
        if any(not -1e6 <= v <= 1e6 for m in marked if m.measure.params == "double_cutoffs"
               for v in m.values):
            return None  # recall levels whose lround overflows: the full program's
        qrels = _clean_qrels(file_bytes(qrels_path, "qrels", "get_qrels"))
        if qrels is None:
            return None
        read = _clean_results(file_bytes(results_path, "results", "get_results"))
    except (Stop, TrecEvalExit, NotReproduced):
        return None  # the full program says it as trec_eval does
    if read is None:
        return None
    results, run_id = read
    topics = sorted(qrels)
    if any(t not in results for t in topics):
        return None
    ranked = []
    counted = {m.measure.name for m in marked} & {"bpref", "gm_bpref"}
    for qid in topics:
        judged = qrels[qid]
        if max(judged.values()) < 0 or (counted and options.level > max(judged.values()) + 1):
            return None  # the full program's (-l past the level counts: refused)
        docnos = _ranked(*results[qid], options.max_docs)
        if len(set(docnos)) < len(docnos):
            return None
        ranked.append(_Topic(docnos, judged, options.level))
    values = [[_KERNELS[m.measure.name](t, m.values) for t in ranked] for m in marked]
    out = []
    if options.query:
        for e, qid in enumerate(topics):
            out += topic_lines(marked, values, e, qid, False, None)
    n_relevant = sum(1 for judged in qrels.values() for rel in judged.values() if rel > 0)
    out += summary_lines(marked, values, len(topics), len(topics), n_relevant, run_id,
                         options)
    return Outcome(b"".join(out), b"", 0)


def _fields(data: bytes, width: int) -> list[bytes] | None:
    """The fields of ``data``, or None unless every line holds ``width`` fields separated
    by single spaces or tabs, with no other whitespace, no blank line and no byte of
    :data:`_AWKWARD_BYTES`."""
    if any(awkward in data for awkward in _AWKWARD_BYTES):
        return None
    spaced = data.translate(_TAB_AS_SPACE)
    lines = spaced.split(b"\n")
    if not lines[-1]:
        lines.pop()  # after the last newline
    if set(map(bytes.count, lines, itertools.repeat(b" "))) != {width - 1}:
        return None
    fields = spaced.split()
    # a line of width - 1 spaces has width fields unless a space leads, trails or
    # follows another, which leaves the line fewer
    return fields if len(fields) == width * len(lines) else None


def _blocks(qids: list[bytes]) -> list[tuple[bytes, int, int]]:
    """``(qid, start, stop)`` of each run of consecutive equal ``qids``."""
    starts = [0, *itertools.compress(range(1, len(qids)),
                                     map(operator.ne, qids, itertools.islice(qids, 1, None)))]
    return [(qids[a], a, b) for a, b in zip(starts, starts[1:] + [len(qids)])]


def _clean_qrels(data: bytes) -> dict[bytes, dict[bytes, int]] | None:
    """Per qid, per docno, its level; None unless the file is clean."""
    fields = _fields(data, 4)
    if fields is None:
        return None
    qids, docnos, rels = fields[0::4], fields[2::4], fields[3::4]
    if b"".join(rels).translate(None, b"0123456789-"):
        return None
    try:
        levels = list(map(int, rels))  # what atol reads of a plain decimal integer
    except ValueError:
        return None
    if max(levels) > LEVEL_LIMIT or min(levels) < LONG_RANGE[0]:
        return None
    qrels: dict[bytes, dict[bytes, int]] = {}
    for qid, a, b in _blocks(qids):
        judged = dict(zip(docnos[a:b], levels[a:b]))
        if len(judged) < b - a:
            return None  # a docno judged twice
        if qid in qrels:
            if not qrels[qid].keys().isdisjoint(judged):
                return None
            qrels[qid].update(judged)
        else:
            qrels[qid] = judged
    return qrels


def _clean_results(data: bytes) -> tuple[dict[bytes, tuple], bytes] | None:
    """Per qid, its scores and docnos, and the run name; None unless the file is
    clean."""
    fields = _fields(data, 6)
    if fields is None:
        return None
    sims = fields[4::6]
    if b"".join(sims).translate(None, PLAIN_NUMBER):
        return None
    try:
        scores = list(map(float, sims))  # what strtod reads of a plain decimal number
    except ValueError:
        return None
    if any(map(math.isnan, scores)):
        return None  # trec_eval's order then depends on glibc's merge sort
    qids, docnos = fields[0::6], fields[2::6]
    results: dict[bytes, tuple] = {}
    for qid, a, b in _blocks(qids):
        earlier = results.get(qid, ([], []))
        results[qid] = (earlier[0] + scores[a:b], earlier[1] + docnos[a:b])
    return results, fields[-1]


def _ranked(scores: list[float], docnos: list[bytes], depth: int) -> list[bytes]:
    """The docnos in trec_eval's order (score descending, then docno descending), cut at
    ``depth``."""
    if all(map(operator.gt, scores, itertools.islice(scores, 1, None))):
        return docnos[:depth]
    return [d for _, d in sorted(zip(scores, docnos), reverse=True)[:depth]]


def _lround(value: float) -> int:
    """C's ``lround``: to the nearest integer, halves away from zero."""
    whole = math.trunc(value)
    return whole + (int(math.copysign(1, value)) if abs(value - whole) >= 0.5 else 0)


class _Topic:
    """One topic ranked and joined with its qrels (trec_eval's ``RES_RELS``)."""

    __slots__ = ("levels", "level", "positions", "ap_terms", "num_ret", "num_rel",
                 "num_nonrel", "judged")

    def __init__(self, docnos: list[bytes], judged: dict[bytes, int], level: int):
        levels = judged.values()
        if min(levels) >= 0:
            self.levels = list(map(judged.get, docnos, itertools.repeat(-1)))
        else:
            self.levels = [-1 if v is None else v if v >= 0 else -2
                           for v in map(judged.get, docnos)]
        """Per rank, its document's level: -1 without a qrels line, -2 if negative."""
        self.positions = list(itertools.compress(
            itertools.count(), map(operator.ge, self.levels, itertools.repeat(level))))
        """The 0-based ranks of the relevant documents."""
        self.ap_terms = [k / (p + 1) for k, p in enumerate(self.positions, 1)]
        """The precision at each relevant rank, in rank order."""
        self.num_ret = len(docnos)
        self.num_rel = sum(map(operator.ge, levels, itertools.repeat(level)))
        self.num_nonrel = sum(map(operator.ge, levels, itertools.repeat(0))) - self.num_rel
        self.level = level
        self.judged = judged

    def found_at(self, cutoff: int) -> int:
        """Relevant documents in the first ``cutoff`` ranks."""
        return bisect.bisect_left(self.positions, cutoff)


def _ap(t: _Topic) -> float:
    total = 0.0
    for term in t.ap_terms:
        total += term
    return total / t.num_rel if t.positions else 0.0


def _bpref(t: _Topic) -> float:
    r, n, level = t.num_rel, t.num_nonrel, t.level
    total = 0.0
    above = 0
    most = min(n, r)
    for v in t.levels:
        if v < 0:
            continue
        if v < level:
            above += 1
        elif above > 0:
            total += 1.0 - min(above, r) / most
        else:
            total += 1.0
    return total / r if r != 0 else total


def _iprec(t: _Topic, fractions: tuple) -> list[float]:
    found = len(t.positions)
    # at the k-th relevant rank, the best precision at it or below (it peaks at relevant
    # ranks: past one, the same count is divided by more ranks)
    best_after = []
    best = 0.0
    for precision in reversed(t.ap_terms):
        if precision > best:
            best = precision
        best_after.append(best)
    best_after.reverse()
    out = []
    for f in fractions:
        wanted = _lround(f * float(t.num_rel))
        if found == 0 and wanted <= 0:
            out.append(found / t.num_ret)
        elif wanted > found:
            out.append(0.0)
        else:
            out.append(best_after[max(wanted, 1) - 1])
    return out


def _ndcg_cut(t: _Topic, cutoffs: tuple) -> list[float]:
    prefix = [0.0]
    total = 0.0
    for rank, v in enumerate(t.levels, 2):
        if v > 0:
            total += v / math.log2(rank)
        prefix.append(total)
    ideal = sorted((v for v in t.judged.values() if v > 0), reverse=True)
    ideal_prefix = [0.0]
    total = 0.0
    for rank, v in enumerate(ideal, 2):
        total += v / math.log2(rank)
        ideal_prefix.append(total)
    out = []
    for c in cutoffs:
        value = prefix[min(c, t.num_ret)]
        norm = ideal_prefix[min(c, len(ideal))]
        out.append(value / norm if norm > 0.0 else value)
    return out


def _map_cut(t: _Topic, cutoffs: tuple) -> list[float]:
    terms = t.ap_terms
    out = []
    for c in cutoffs:
        total = 0.0
        for p, term in zip(t.positions, terms):
            if p >= c:
                break
            total += term
        out.append(total / t.num_rel if t.num_rel > 0 else 0.0)
    return out


def _gm_map(t: _Topic) -> float:
    ap = _ap(t)
    return math.log(ap if ap > MIN_GEO_MEAN else MIN_GEO_MEAN)


def _r_precision(t: _Topic) -> float:
    depth = min(t.num_ret, t.num_rel)
    return t.found_at(depth) / t.num_rel if depth > 0 else 0.0


_KERNELS = {
    "runid": lambda t, _: [0.0],
    "num_q": lambda t, _: [1.0],
    "num_ret": lambda t, _: [float(t.num_ret)],
    "num_rel": lambda t, _: [float(t.num_rel)],
    "num_rel_ret": lambda t, _: [float(len(t.positions))],
    "map": lambda t, _: [_ap(t)],
    "gm_map": lambda t, _: [_gm_map(t)],
    "Rprec": lambda t, _: [_r_precision(t)],
    "bpref": lambda t, _: [_bpref(t)],
    "recip_rank": lambda t, _: [1.0 / (t.positions[0] + 1) if t.positions else 0.0],
    "iprec_at_recall": _iprec,
    "P": lambda t, cutoffs: [t.found_at(c) / c for c in cutoffs],
    "recall": lambda t, cutoffs: [t.found_at(c) / t.num_rel if t.num_rel > 0 else 0.0
                                  for c in cutoffs],
    "success": lambda t, cutoffs: [1.0 if t.found_at(c) > 0 else 0.0 for c in cutoffs],
    "relative_P": lambda t, cutoffs: [t.found_at(c) / min(c, t.num_rel) if t.num_rel > 0
                                      else 0.0 for c in cutoffs],
    "map_cut": _map_cut,
    "ndcg_cut": _ndcg_cut,
}
"""Per measure of :data:`LEAN_MEASURES`, its values for a topic and the measure's
parameters."""


LEAN_MEASURES = frozenset(_KERNELS)
"""The measures this path computes (with any parameters); any other declines it."""
