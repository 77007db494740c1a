"""NTCIREVAL's evaluation pipelines as one call each: what its scripts write, byte for
byte (``DIN-splitqrels``, ``NTCIRsplitqrels`` and ``TRECsplitruns``, then
``D-NTCIR-eval``, ``DIN-NTCIR-eval``, ``D-NTCIR-IAeval``, ``DIN-NTCIR-PQeval`` or
``NTCIR-eval``, and ``NEV2mean``, ``NEVIA2nev``, ``NEVIAPQ2sharpnev``), computed in this
process by :func:`~xdiv.official.ntcireval.program.ntcir_eval` (no per-topic folders, no
process per topic and run).

The scripts combine the 4-decimal values ``ntcir_eval`` prints (D#-, DIN#-, P+Q#- and
intent-aware measures, means) and
write the global gains ``P(i|q) * g`` with gawk's number format (``%.6g``, integers as
integers); those roundings are reproduced, since they are part of the official numbers.
Topics and documents are ordered as the scripts order them under the C locale
(``LC_ALL=C``: bytewise).
"""

from __future__ import annotations

import io
import itertools
import math
import re
from collections.abc import Iterable
from typing import NamedTuple

from .clib import LINE_BUFFER
from .program import ntcir_eval

GAMMA = 0.5
"""The weight of I-rec in D#- and DIN#-measures, as the scripts set it."""

LEVEL_GAINS = {b"L%d" % level: level for level in range(1, 10)}
"""The gain of each relevance level, as ``DIN-splitqrels`` sets it (``L1`` to ``L9``)."""

VARIANTS = {"D": (b"glabel", b"D#"), "DIN": (b"dinlabel", b"DIN#")}
"""Each diversity pipeline's labelling subcommand and the prefix of its combined
measures."""


REL = b"\0rel"
"""The name a topic's rel file is given to ``ntcir_eval`` under, held in memory (no path
of a command line holds a NUL byte)."""


class PipelineError(ValueError):
    """An input the pipeline refuses (its message names the file and the topic)."""


class TopicFiles(NamedTuple):
    """What ``DIN-splitqrels`` writes for one topic: the ``Grelv`` file, the ``Irelv``
    file of each intent with a relevant document (by intent) and the ``din`` file."""

    grelv: bytes
    irelv: dict[bytes, bytes]
    din: bytes


def awk_number(text: bytes) -> float:
    """The number gawk reads from a field or string: its longest leading decimal number
    (``0`` when there is none)."""
    match = _NUMBER.match(text)
    if match is None or not match.group(1):
        return 0.0
    return float(match.group(0))


_NUMBER = re.compile(rb"\s*[+-]?((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")
_SORT_NUMBER = re.compile(rb"\s*-?\d*(?:\.\d*)?")


def awk_print(value: float) -> bytes:
    """The number as gawk's ``print`` writes it: an integral value as an integer, any
    other with ``%.6g`` (an infinity or a NaN with its sign)."""
    if not math.isfinite(value):
        sign = b"-" if math.copysign(1.0, value) < 0 else b"+"
        return sign + (b"nan" if math.isnan(value) else b"inf")
    if value == int(value):
        return b"%d" % int(value)
    return b"%.6g" % value


def _sort_key(line: bytes) -> float:
    """The number ``sort -n`` reads at the start of ``line`` (no exponent)."""
    text = _SORT_NUMBER.match(line).group(0).strip()
    return float(text) if text not in (b"", b"-", b".", b"-.") else 0.0


_AWK_FIELD = re.compile(rb"[^ \t]+")
_RUN_LINE = re.compile(rb"^[ \t]*[^ \t\n]*(?:[ \t]+[^ \t\n]+(?:[ \t]+([^ \t\n]+))?)?",
                       re.MULTILINE)
"""A line of a run, as gawk splits it into fields (at blanks and tabs): its third."""
_RUN_BLOCK = re.compile(rb"[ \t]*([^ \t\n]*)[^\n]*(?:\n[ \t]*(?![ \t])\1(?![^ \t\n])[^\n]*)*")
"""Consecutive lines of a run with the same first field (the topic), without the
newline ending the last one."""


def _fields(line: bytes) -> list[bytes]:
    """The fields gawk sees in ``line`` (separated by runs of blanks and tabs)."""
    return _AWK_FIELD.findall(line)


def split_qrels(prob: bytes, dqrels: bytes, prob_name: str = "Iprob",
                dqrels_name: str = "Dqrels") -> dict[bytes, TopicFiles]:
    """What ``DIN-splitqrels PROB DQRELS PREFIX`` writes, topic by topic (the topics of
    the probability file, sorted bytewise).

    Parameters
    ----------
    prob, dqrels : bytes
        The intent probability file (``<topic> <intent> <prob> [inf|nav]``) and the
        diversity qrels (``<topic> <intent> <docno> <L0-L9>``).
    prob_name, dqrels_name : str
        The files' names, for error messages.

    Returns
    -------
    dict
        Each topic's :class:`TopicFiles`.
    """
    prob_lines = [_fields(line) for line in dqrels_lines(prob)]
    first: dict[tuple[bytes, bytes], list[bytes]] = {}
    for fields in prob_lines:
        if len(fields) >= 2:
            first.setdefault((fields[0], fields[1]), fields)
    topics = sorted({fields[0] if fields else b"" for fields in prob_lines})
    qrels: dict[bytes, list[list[bytes]]] = {}
    for number, line in enumerate(dqrels_lines(dqrels), 1):
        fields = _fields(line)
        if len(fields) != 4 or (fields[3] != b"L0" and fields[3] not in LEVEL_GAINS):
            raise PipelineError(f"{dqrels_name}, line {number}: expected <topic> <intent> "
                                "<docno> <L0-L9>, as DIN-splitqrels reads a Dqrels file")
        qrels.setdefault(fields[0], []).append(fields)
    for number, fields in enumerate(prob_lines, 1):
        if len(fields) not in (3, 4):
            raise PipelineError(f"{prob_name}, line {number}: expected <topic> <intent> "
                                "<probability> [inf|nav]")
    out = {}
    for topic in topics:
        rows = qrels.get(topic, [])
        relevant = [r for r in rows if r[3] in LEVEL_GAINS]
        intents = sorted({r[1] for r in relevant}, key=_sort_key)
        irelv = {}
        for intent in intents:
            docs = sorted(((LEVEL_GAINS[r[3]], r[2]) for r in rows
                           if r[1] == intent and r[3] != b"L0"), key=lambda d: -d[0])
            irelv[intent] = b"".join(b"%s %d\n" % (doc, gain) for gain, doc in docs)
        din_lines, pairs = [], []
        for r in relevant:
            found = first.get((topic, r[1]))
            if found is None or len(found) < 3:
                raise PipelineError(
                    f"{dqrels_name}: topic {topic.decode(errors='replace')} intent "
                    f"{r[1].decode(errors='replace')} has no probability in {prob_name}")
            kind = found[3] if len(found) > 3 else b"inf"
            if not math.isfinite(awk_number(found[2])):
                raise PipelineError(f"{prob_name}: topic {topic.decode(errors='replace')} "
                                    f"intent {r[1].decode(errors='replace')}: the "
                                    "probability is not a finite number")
            pgv = awk_print(awk_number(found[2]) * LEVEL_GAINS[r[3]])
            din_lines.append(b"%s %s %s %s\n" % (r[1], kind, r[2], pgv))
            pairs.append(b"%s %s" % (r[2], pgv))
        out[topic] = TopicFiles(_grelv(pairs), irelv, b"".join(din_lines))
    return out


def dqrels_lines(data: bytes) -> list[bytes]:
    """The lines of a file, as gawk reads them (a last line without newline included)."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def _grelv(pairs: list[bytes]) -> bytes:
    """The ``Grelv`` file: each document's global gain (the sum, in the scripts' order,
    of its ``P(i|q) * g`` values as printed), highest first."""
    totals: list[tuple[bytes, bytes]] = []
    lines = (line.rpartition(b" ") for line in sorted(pairs))
    for docno, group in itertools.groupby(lines, key=lambda parts: parts[0]):
        gains = [parts[2] for parts in group]
        if len(gains) == 1:
            totals.append((gains[0], docno))  # gawk prints the string it read
            continue
        total = awk_number(gains[0])
        for gain in gains[1:]:
            total += awk_number(gain)
        totals.append((awk_print(total), docno))
    ordered = sorted(totals, key=lambda t: -_sort_key(t[0]))
    return b"".join(b"%s %s\n" % (doc, gg) for gg, doc in ordered)


def split_run(run: bytes, topics: Iterable[bytes], limit: int) -> dict[bytes, bytes]:
    """What ``TRECsplitruns TIDS LIMIT`` writes for a TREC-format run: each topic's
    ``res`` file (the third field of its lines, in the file's order, at most ``limit``).

    The run is read by blocks of consecutive lines of one topic, and only the first
    lines of a block that its topic still takes are split into fields."""
    wanted: dict[bytes, list[bytes]] = {topic: [] for topic in topics}
    start = 0
    stop = len(run) - run.endswith(b"\n")  # the last newline starts no line of its own
    while run and start <= stop:
        block = _RUN_BLOCK.match(run, start, stop)
        start = block.end() + 1
        docs = wanted.get(block.group(1))
        if docs is None or len(docs) >= limit:
            continue
        end = block.start() - 1  # at the end of the lines taken: their last newline
        for _ in range(limit - len(docs)):
            end = run.find(b"\n", end + 1, block.end())
            if end < 0:
                end = block.end()
                break
        docs += [docno + b"\n" for docno in _RUN_LINE.findall(run, block.start(), end)]
    return {topic: b"".join(docs) for topic, docs in wanted.items()}


def last_fields(text: bytes, pattern: bytes) -> list[bytes]:
    """``awk '/pattern/{print $NF}'``: the last field of each line containing it."""
    return [_fields(line)[-1] for line in text.split(b"\n")
            if pattern in line and _fields(line)]


def diversity_nev(variant: str, qrels: dict[bytes, TopicFiles], runs: dict[str, bytes],
                  cutoff: int, limit: int = 1000, messages: list[bytes] | None = None
                  ) -> dict[str, bytes]:
    """What ``D-NTCIR-eval`` (variant ``"D"``) or ``DIN-NTCIR-eval`` (``"DIN"``) writes
    for each run: its per-topic file (``<run>.<name>.Dnev`` / ``.DINnev`` without the
    ``<name>.Dnev`` suffix, which the caller adds).

    Parameters
    ----------
    variant : {"D", "DIN"}
        The pipeline.
    qrels : dict
        Each topic's files (:func:`split_qrels`), in the scripts' topic order.
    runs : dict
        Each run's name and its TREC-format file's bytes.
    cutoff : int
        The document cutoff (also the truncation of the labelled lists).
    limit : int
        The documents kept of each topic's ranking (``TRECsplitruns``' doclimit).
    messages : list of bytes, optional
        Receives what ``ntcir_eval`` says on standard error.

    Returns
    -------
    dict
        Each run's per-topic file.
    """
    prefix = VARIANTS[variant][1]
    cutstr = b"%04d" % cutoff
    q_name = b"%s-Q@%s=%s" % (prefix, cutstr, b" " * (11 if variant == "D" else 9))
    ndcg_name = b"%s-nDCG@%s=%s" % (prefix, cutstr, b" " * (8 if variant == "D" else 6))
    # irec reads the files that the pattern Irelv[0-9]* finds
    intents = {topic: [_first_fields(files.irelv[k]) for k in sorted(files.irelv)
                       if k[:1].isdigit()] for topic, files in qrels.items()}
    # of each topic's ranking, glabel and dinlabel read the first `cutoff` documents,
    # irec the first max(cutoff, intents)
    needed = min(limit, max([cutoff, *map(len, intents.values())]))
    # (a line too long for irec's buffer is reported wherever it is: such runs are split
    # whole, and irec then reads the whole list, see _diversity_cell)
    res = {name: split_run(data, qrels, needed if _short_lines(data) else limit)
           for name, data in runs.items()}
    chunks: dict[str, list[bytes]] = {name: [] for name in runs}
    said: dict[str, list[bytes]] = {name: [] for name in runs}
    for topic, files in qrels.items():  # topic by topic: its ideal list is read once
        for name in runs:
            temp = _diversity_cell(variant, files, intents[topic], topic, res[name][topic],
                                   cutoff, said[name])
            values = [*last_fields(temp, b" I-rec@%s=" % cutstr),
                      *last_fields(temp, b" Q@%s=" % cutstr),
                      *last_fields(temp, b" MSnDCG@%s=" % cutstr)]
            numbers = [awk_number(v) for v in values[:3]] + [0.0] * (3 - len(values[:3]))
            chunks[name] += [
                temp,
                b"%s %s%.4f\n" % (topic, q_name, GAMMA * numbers[0] + (1 - GAMMA) * numbers[1]),
                b"%s %s%.4f\n" % (topic, ndcg_name,
                                  GAMMA * numbers[0] + (1 - GAMMA) * numbers[2])]
    if messages is not None:  # in the scripts' order: run by run
        messages += [message for name in runs for message in said[name]]
    return {name: b"".join(chunks[name]) for name in runs}


def _diversity_cell(variant: str, files: TopicFiles, intents: list, topic: bytes,
                    res: bytes, cutoff: int, messages: list[bytes]) -> bytes:
    """What the scripts' ``glabel``/``dinlabel``, ``gcompute`` and ``irec`` print for one
    topic and run, each given only the lines it reads (the same output)."""
    cut = b"%d" % cutoff
    given = {b"Grelv": files.grelv, b"din": files.din}
    source = [b"-I", b"Grelv"] if variant == "D" else [b"-din", b"din"]
    labelled = call([VARIANTS[variant][0], *source, b"-truncate", cut], _head(res, cutoff),
                    messages, given)
    temp = call([b"gcompute", b"-I", b"Grelv", b"-out", topic, b"-cutoffs", cut], labelled,
                messages, given)
    if intents:
        # irec's lines past max(cutoff, intents) change nothing it prints, nor do the
        # relevant documents it does not meet there
        head = _head(res, max(cutoff, len(intents)))
        if not _short_lines(res[len(head):]):
            head = res  # irec reports the line too long for its buffer
        ranked = set(head.split(b"\n"))
        given = {b"res": head}
        for number, lines in enumerate(intents, 1):
            given[b"Irelv%d" % number] = _met(lines, ranked)
        temp += call([b"irec", b"-cutoffs", cut, b"-out", topic, *given], b"", messages,
                     given)
    return temp


def _head(lines: bytes, count: int) -> bytes:
    """The first ``count`` lines of ``lines``."""
    end = -1
    for _ in range(count):
        end = lines.find(b"\n", end + 1)
        if end < 0:
            return lines
    return lines[:end + 1]


def _short_lines(data: bytes) -> bool:
    """Whether every line of ``data`` fits ``ntcir_eval``'s line buffer."""
    return max(map(len, data.split(b"\n")), default=0) < LINE_BUFFER - 1


def _first_fields(relv: bytes) -> list[tuple[bytes, bytes]] | bytes:
    """Each line of an ``Irelv`` file with its document (the file itself when a line is
    too long for ``irec``'s buffer, which it must then see whole)."""
    lines = relv.splitlines(keepends=True)
    if any(len(line) >= LINE_BUFFER - 1 for line in lines):
        return relv
    return [(line.split(b" ", 1)[0], line) for line in lines]


def _met(lines: list[tuple[bytes, bytes]] | bytes, ranked: set[bytes]) -> bytes:
    """The lines of an ``Irelv`` file whose document is in ``ranked``."""
    if isinstance(lines, bytes):
        return lines
    return b"".join(line for docno, line in lines if docno in ranked)


def call(argv: list[bytes], stdin: bytes, messages: list[bytes] | None,
         files: dict[bytes, bytes] | None = None) -> bytes:
    """What ``ntcir_eval ARGV`` prints on ``stdin`` (what it says on standard error goes
    to ``messages``), the paths of ``files`` read in memory."""
    outcome = ntcir_eval(argv, io.BytesIO(stdin), files)
    if messages is not None and outcome.stderr:
        messages.append(outcome.stderr)
    return outcome.stdout


def nev_means(files: dict[str, bytes], topics: list[bytes], metrics: Iterable[str]
              ) -> dict[str, bytes]:
    """What ``NEV2mean`` writes: for each metric, each run's mean over ``topics`` (the
    topic list's lines, duplicates counted) of its per-topic values, ``%.4f``.

    Parameters
    ----------
    files : dict
        Each run's name and its per-topic file (``.nev``, ``.Dnev``, ...).
    topics : list of bytes
        The topic list, one topic per line.
    metrics : iterable of str
        The measures, as the per-topic files name them (``D#-nDCG@0010``).

    Returns
    -------
    dict
        Each metric's file content.
    """
    out = {}
    indexed = {run: _Lines(data) for run, data in files.items()}
    for metric in metrics:
        lines = []
        for run, rows in indexed.items():
            values = []
            for topic in topics:
                pattern = _grep(b"%s %s=" % (topic, metric.encode()))
                values += [_fields(row)[-1] for row in rows.of(topic, b"." not in topic)
                           if pattern.match(row)]
            if not values:
                lines.append(b"%s not found\n" % metric.encode())
            else:
                total = 0.0
                for value in values:
                    total += awk_number(value)
                lines.append(b"%s %.4f\n" % (run.encode(), total / len(topics)))
        out[metric] = b"".join(lines)
    return out


def intent_nev(variant: str, prob: bytes, qrels: dict[bytes, TopicFiles],
               runs: dict[str, bytes], cutoff: int, limit: int = 1000,
               messages: list[bytes] | None = None) -> dict[str, bytes]:
    """What ``D-NTCIR-IAeval`` (variant ``"IA"``: ``<run>.<name>.nevIA``) or
    ``DIN-NTCIR-PQeval`` (``"PQ"``: ``<run>.<name>.nevPQ``) writes for each run: every
    intent's measures from its ``Irelv`` file, then the intent-aware means (IA-ERR,
    IA-nERR, IA-MSnDCG) or P+Q (Q for informational intents, P-plus for navigational
    ones; Sakai, WWW 2012), weighted by the probabilities as given.

    Parameters are those of :func:`diversity_nev`, with ``prob`` the intent probability
    file's bytes (its lines give the intents, in its order).
    """
    cut = b"%d" % cutoff
    cutstr = b"%04d" % cutoff
    intents = intent_rows(prob)
    # of each topic's ranking, glabel reads the first `cutoff` documents
    res = {name: split_run(data, qrels, min(limit, cutoff)) for name, data in runs.items()}
    chunks: dict[str, list[bytes]] = {name: [] for name in runs}
    said: dict[str, list[bytes]] = {name: [] for name in runs}
    for topic, files in qrels.items():  # topic by topic: its ideal lists are read once
        cells = []
        for fields in intents.get(topic, []):
            irelv = files.irelv.get(fields[1])
            if irelv is None:
                continue  # the intent has no relevant document
            tag = fields[:3] if variant == "IA" else \
                [*fields[:2], fields[3] if len(fields) > 3 else b"inf", fields[2]]
            cells.append(({b"Irelv": irelv}, b" ".join(tag)))
        for name in runs:
            text = per_intent(cells, res[name][topic], cut, said[name])
            chunks[name].append(text)
            rows = [_fields(line) for line in text.split(b"\n")]
            if variant == "IA":
                for metric in (b"ERR@", b"nERR@", b"MSnDCG@"):
                    metric += cutstr
                    picked = [r for r in rows if len(r) > 3 and r[3] == metric + b"="]
                    chunks[name].append(_weighted(topic, picked, 2, b"IA-" + metric))
            else:
                picked = [r for r in rows if len(r) > 4 and (
                    r[2] == b"inf" and r[4] == b"Q@%s=" % cutstr
                    or r[2] == b"nav" and r[4] == b"P-plus=")]
                chunks[name].append(_weighted(topic, picked, 3, b"PplusQ@" + cutstr))
    if messages is not None:  # in the scripts' order: run by run
        messages += [message for name in runs for message in said[name]]
    return {name: b"".join(chunks[name]) for name in runs}


def per_intent(cells: list[tuple[dict[bytes, bytes], bytes]], res: bytes, cut: bytes,
               messages: list[bytes]) -> bytes:
    """What ``glabel -truncate`` and ``gcompute`` print for one topic and run against
    each intent's ideal list: ``cells`` holds, per intent, its ``Irelv`` file and the
    ``-out`` tag of its lines."""
    printed = []
    for given, tag in cells:
        labelled = call([b"glabel", b"-I", b"Irelv", b"-truncate", cut], res, messages,
                        given)
        printed.append(call([b"gcompute", b"-I", b"Irelv", b"-out", tag, b"-cutoffs", cut],
                            labelled, messages, given))
    return b"".join(printed)


def intent_rows(prob: bytes) -> dict[bytes, list[list[bytes]]]:
    """Each topic's lines of an intent probability file (``Iprob``, ``DINprob``) as gawk
    splits them (topic, intent, probability and, in a DINprob file, the intent's type), in
    the file's order."""
    intents: dict[bytes, list[list[bytes]]] = {}
    for fields in (_fields(line) for line in dqrels_lines(prob)):
        intents.setdefault(fields[0], []).append(fields)
    return intents


def _weighted(topic: bytes, rows: list[list[bytes]], at: int, name: bytes) -> bytes:
    """The line ``<topic> SUMp= <sum of p> <name>= <sum of p * value>``, as the scripts'
    gawk adds them up."""
    total = weighted = 0.0
    for row in rows:
        p = awk_number(row[at])
        total += p
        weighted += p * awk_number(row[-1])
    return b"%s SUMp= %.4f %s= %.4f\n" % (topic, total, name, weighted)


class _Lines:
    """The lines of a per-topic file, and those of each first word (up to a blank)."""

    def __init__(self, data: bytes) -> None:
        self.every = data.split(b"\n")
        self.by_first: dict[bytes, list[bytes]] = {}
        for line in self.every:
            self.by_first.setdefault(line.split(b" ", 1)[0], []).append(line)

    def of(self, topic: bytes, literal: bool) -> list[bytes]:
        """The lines that may start with ``topic`` and a blank, in order: those whose
        first word it is when it has no blank and is ``literal`` (not a pattern), else
        every line."""
        if literal and b" " not in topic:
            return self.by_first.get(topic, [])
        return self.every


def _grep(pattern: bytes) -> re.Pattern:
    """A grep pattern made of names: each ``.`` matches any character, ``.*`` as in the
    scripts' patterns, every other character itself."""
    parts = pattern.split(b".*")
    return re.compile(b".*".join(re.escape(p).replace(b"\\.", b".") for p in parts))


def ia_nev(files: dict[str, bytes], topics: list[bytes], metrics: Iterable[str]
           ) -> dict[tuple[str, str], bytes]:
    """What ``NEVIA2nev`` writes for each run and metric (``<run>.<suffix>.<metric>.nev``):
    ``<topic> <metric>= <value>`` of each topic."""
    out = {}
    indexed = {run: _Lines(data) for run, data in files.items()}
    for metric in metrics:
        for run, rows in indexed.items():
            lines = []
            for topic in topics:
                pattern = _grep(b"%s SUMp= .* %s=" % (topic, metric.encode()))
                for row in rows.of(topic, b"." not in topic):
                    if pattern.match(row):
                        f = _fields(row)
                        lines.append(b"%s %s %s\n" % (f[0], f[-2], f[-1]))
            out[run, metric] = b"".join(lines)
    return out


def sharp_nev(d_files: dict[str, bytes], files: dict[str, bytes], topics: list[bytes],
              recall: str, metric: str, sharp: str) -> dict[str, bytes]:
    """What ``NEVIAPQ2sharpnev`` writes for each run (``<run>.<sharp>.nev``): each
    topic's ``metric`` and its combination with ``recall`` (I-rec) of the Dnev file,
    ``GAMMA * I-rec + (1 - GAMMA) * metric`` of the printed values."""
    out = {}
    for run, data in files.items():
        rows = _Lines(data)
        d_rows = _Lines(d_files[run])
        lines = []
        for topic in topics:
            recall_line = _grep(b"%s %s=" % (topic, recall.encode()))
            d_values = [_fields(r)[-1] for r in d_rows.of(topic, b"." not in topic)
                        if recall_line.match(r)]
            # egrep's pattern: the metric's characters as an extended regular expression
            pattern = re.compile(b"%s SUMp= .* %s=" % (re.escape(topic), metric.encode()))
            values = [_fields(r)[-1] for r in rows.of(topic, True) if pattern.match(r)]
            fields = [topic, *d_values, *values]
            numbers = [awk_number(f) for f in fields[1:3]]
            numbers += [0.0] * (2 - len(numbers))
            lines.append(b"%s %s=\t%.4f\n" % (fields[0], metric.encode(), numbers[1]))
            lines.append(b"%s %s=\t%.4f\n" % (fields[0], sharp.encode(),
                                               GAMMA * numbers[0] + (1 - GAMMA) * numbers[1]))
        out[run] = b"".join(lines)
    return out


def adhoc_nev(qrels: bytes, runs: dict[str, bytes], options: list[bytes],
              limit: int = 1000, messages: list[bytes] | None = None) -> dict[str, bytes]:
    """What ``NTCIRsplitqrels``, ``TRECsplitruns`` and ``NTCIR-eval`` write for each run
    (``<run>.<name>.nev``): ``label`` then ``compute OPTIONS`` for each topic of the NTCIR
    adhoc qrels (``<topic> <docno> <L0-L9>``), topics sorted bytewise."""
    topics: dict[bytes, list[bytes]] = {}
    for line in dqrels_lines(qrels):
        fields = _fields(line)
        topic = fields[0] if fields else b""
        prefix = topic + b" "
        topics.setdefault(topic, []).append(
            (line[len(prefix):] if line.startswith(prefix) else line) + b"\n")
    order = sorted(topics)
    out = {}
    # each rel file held in memory, under a name no file of OPTIONS can have
    rels = {topic: {REL: b"".join(topics[topic])} for topic in order}
    for name, data in runs.items():
        res = split_run(data, order, limit)
        chunks = []
        for topic in order:
            labelled = call([b"label", b"-r", REL], res[topic], messages, rels[topic])
            chunks.append(call([b"compute", b"-r", REL, *options, b"-out", topic],
                               labelled, messages, rels[topic]))
        out[name] = b"".join(chunks)
    return out
