"""NTCIREVAL's other evaluation scripts as one call each, byte for byte: the ``-sep``
scripts (``NTCIR-eval-sep``, ``D-NTCIR-eval-sep``, ``DIN-NTCIR-eval-sep``, after
``NTCIRsplitqrels``, ``DIN-splitqrels`` and ``TRECsplitruns`` given the same separator),
``D-NTCIR-eval2`` and ``D-NTCIR-IAeval2`` (the D- and IA- forms of ERR, EBR and RBP),
``E-NTCIR-eval`` (equivalence classes), ``Topicsys-matrix`` and ``1CLICK-eval`` (after
``1CLICK-splitnuggets`` and ``1CLICK-splitmatch``), computed in this process by
:func:`~xdiv.official.ntcireval.program.ntcir_eval` (no per-topic folders, no process per
topic and run).

What the scripts' shell would alter (a topic or intent with a blank, a quote, a
backslash, a ``%`` or a wildcard; a document of a Dqrels file with a backslash or with
blanks at either end) is refused with a one-line
:class:`~xdiv.official.ntcireval.pipelines.PipelineError`, as is a separator other than
one character that the scripts pass through unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .pipelines import (GAMMA, LEVEL_GAINS, REL, VARIANTS, PipelineError, TopicFiles,
                        awk_number, awk_print, call, dqrels_lines, intent_rows, last_fields,
                        per_intent, split_run)

RBP_PERSISTENCE = b"0.99"
"""The RBP persistence ``D-NTCIR-eval2`` gives ``gcompute`` (``-rbp``)."""

COMBINED = {"D": [(b"Q", 11), (b"nDCG", 8)], "DIN": [(b"Q", 9), (b"nDCG", 6)],
            "extended": [(b"Q", 11), (b"nDCG", 8), (b"ERR", 9), (b"EBR", 9), (b"RBP", 9)]}
"""The measures each diversity script combines with I-rec (``<prefix>-<measure>@``), and
the blanks after their ``=``."""

SOURCES = {b"Q": b"Q", b"nDCG": b"MSnDCG", b"ERR": b"ERR", b"EBR": b"EBR", b"RBP": b"RBP"}
"""The ``gcompute`` measure each combination takes (D#-nDCG combines MSnDCG)."""

IA2_METRICS = (b"MSnDCG", b"Q", b"ERR", b"EBR", b"RBP")
"""The intent-aware means of ``D-NTCIR-IAeval2``, in its order."""

ONECLICK_L = b"500"
ONECLICK_BETA = b"1.0"
"""The S-measure's L and the F-measure's beta that ``1CLICK-eval`` gives ``1click``."""

_UNSAFE_NAME = re.compile(rb"[\s\"'\\%*?\[]")
_BLANK_FIELD = re.compile(rb"[^ \t\n]+")
_FIRST_FIELD = re.compile(rb"[ \t]*[^ \t]*")


def check_separator(sep: bytes) -> bytes:
    """``sep`` if the scripts pass it through as one literal character (gawk's ``-F``,
    ``sed`` and ``ntcir_eval -sep``), else a :class:`PipelineError`."""
    if len(sep) != 1 or sep in b" \n\\/[*$\0":
        raise PipelineError(f"separator {sep.decode(errors='replace')!r}: the -sep scripts "
                            "take one character other than a blank, a newline, a slash, a "
                            "backslash and [ * $ (which their sed reads as a pattern)")
    return sep


def fields(line: bytes, sep: bytes = b" ") -> list[bytes]:
    """The fields gawk sees in ``line`` with ``-F sep`` (a blank: runs of blanks and
    tabs; any other character: each occurrence, an empty line having none)."""
    if sep == b" ":
        return _BLANK_FIELD.findall(line)
    return line.split(sep) if line else []


def _name(value: bytes, what: str, where: str) -> bytes:
    """``value`` if the scripts' shell and gawk carry it unchanged as a topic or intent."""
    if not value or _UNSAFE_NAME.search(value):
        raise PipelineError(f"{where}: {what} {value.decode(errors='replace')!r} is empty or "
                            "has a blank, a quote, a backslash, a % or a wildcard, which "
                            "NTCIREVAL's scripts cannot carry")
    return value


def _read_field(value: bytes, what: str, where: str) -> bytes:
    """``value`` if the scripts' ``read`` and ``echo`` leave it unchanged."""
    if b"\\" in value or value != value.strip(b" \t"):
        raise PipelineError(f"{where}: {what} {value.decode(errors='replace')!r} has a "
                            "backslash or blanks at an end, which NTCIREVAL's scripts alter")
    return value


def _sort_number(text: bytes) -> float:
    """The number GNU ``sort -n`` reads at the start of ``text`` (blanks skipped)."""
    match = re.match(rb"[ \t]*(-?)(\d*)(?:\.(\d*))?", text)
    value = float((match.group(2) or b"0") + b"." + (match.group(3) or b"0"))
    return -value if match.group(1) else value


def _sort_nr(lines: Iterable[bytes]) -> list[bytes]:
    """``sort -nr``: by the leading number, highest first, ties by the whole line,
    reversed."""
    return sorted(lines, key=lambda line: (_sort_number(line), line), reverse=True)


def topic_list(data: bytes, sep: bytes, name: str) -> list[bytes]:
    """``awk -F sep '{print $1}' | sort -u``: the topics of a file, sorted bytewise."""
    topics = set()
    for number, line in enumerate(dqrels_lines(data), 1):
        got = fields(line, sep)
        topics.add(_name(got[0] if got else b"", "topic", f"{name}, line {number}"))
    return sorted(topics)


def split_adhoc_qrels(qrels: bytes, sep: bytes = b" ", name: str = "qrels"
                      ) -> dict[bytes, bytes]:
    """What ``NTCIRsplitqrels QRELS SUFFIX SEP`` writes: each topic's rel file (its
    lines, without the leading ``<topic><sep>``), topics sorted bytewise."""
    out: dict[bytes, list[bytes]] = {t: [] for t in topic_list(qrels, sep, name)}
    for line in dqrels_lines(qrels):
        got = fields(line, sep)
        prefix = got[0] + sep
        out[got[0]].append((line[len(prefix):] if line.startswith(prefix) else line) + b"\n")
    return {topic: b"".join(lines) for topic, lines in out.items()}


def split_run_sep(run: bytes, topics: Iterable[bytes], limit: int, sep: bytes
                  ) -> dict[bytes, bytes]:
    """What ``TRECsplitruns TIDS LIMIT -s SEP`` writes: each topic's res file."""
    if sep == b" ":
        return split_run(run, topics, limit)
    wanted: dict[bytes, list[bytes]] = {topic: [] for topic in topics}
    for line in dqrels_lines(run):
        got = line.split(sep)
        docs = wanted.get(got[0])
        if docs is not None and len(docs) < limit:
            docs.append((got[2] if len(got) > 2 else b"") + b"\n")
    return {topic: b"".join(docs) for topic, docs in wanted.items()}


def split_diversity_qrels(prob: bytes, dqrels: bytes, sep: bytes, prob_name: str = "Iprob",
                          dqrels_name: str = "Dqrels") -> dict[bytes, TopicFiles]:
    """What ``DIN-splitqrels PROB DQRELS PREFIX SEP`` writes, topic by topic: the Grelv,
    Irelv and din files with ``sep`` between their fields.

    Parameters
    ----------
    prob, dqrels : bytes
        The intent probabilities (``<topic><sep><intent><sep><prob>[<sep>inf|nav]``) and
        the diversity qrels (``<topic><sep><intent><sep><docno><sep><L0-L9>``).
    sep : bytes
        The separator (see :func:`check_separator`).
    prob_name, dqrels_name : str
        The files' names, for error messages.
    """
    prob_rows = [fields(line, sep) for line in dqrels_lines(prob)]
    for number, row in enumerate(prob_rows, 1):
        if len(row) not in (3, 4):
            raise PipelineError(f"{prob_name}, line {number}: expected <topic> <intent> "
                                "<probability> [inf|nav]")
    topics = topic_list(prob, sep, prob_name)
    first: dict[tuple[bytes, bytes], list[bytes]] = {}
    for row in prob_rows:
        first.setdefault((row[0], row[1]), row)
    rows: dict[bytes, list[list[bytes]]] = {}
    for number, line in enumerate(dqrels_lines(dqrels), 1):
        row = fields(line, sep)
        where = f"{dqrels_name}, line {number}"
        if len(row) != 4 or (row[3] != b"L0" and row[3] not in LEVEL_GAINS):
            raise PipelineError(f"{where}: expected <topic> <intent> <docno> <L0-L9>, as "
                                "DIN-splitqrels reads a Dqrels file")
        if row[3] != b"L0":
            _name(row[1], "intent", where)
            _read_field(row[2], "document", where)
        rows.setdefault(row[0], []).append(row)
    out = {}
    for topic in topics:
        relevant = [r for r in rows.get(topic, []) if r[3] != b"L0"]
        intents = sorted({r[1] for r in relevant}, key=lambda i: (_sort_number(i), i))
        irelv = {}
        for intent in intents:
            lines = [b"%d %s" % (LEVEL_GAINS[r[3]], r[2]) for r in relevant if r[1] == intent]
            irelv[intent] = b"".join(b"%s%s%s\n" % (line.split(b" ", 1)[1], sep,
                                                    line.split(b" ", 1)[0])
                                     for line in _sort_nr(lines))
        din, pairs = [], []
        for r in relevant:
            found = first.get((topic, r[1]))
            if found is None:
                raise PipelineError(f"{dqrels_name}: topic {topic.decode(errors='replace')} "
                                    f"intent {r[1].decode(errors='replace')} has no "
                                    f"probability in {prob_name}")
            if not re.fullmatch(rb"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", found[2]):
                raise PipelineError(f"{prob_name}: topic {topic.decode(errors='replace')} "
                                    f"intent {r[1].decode(errors='replace')}: the "
                                    "probability is not a decimal number")
            gain = awk_print(float(found[2]) * LEVEL_GAINS[r[3]])
            kind = found[3] if len(found) > 3 else b"inf"
            if b"\\" in kind:
                raise PipelineError(f"{prob_name}: topic {topic.decode(errors='replace')} "
                                    f"intent {r[1].decode(errors='replace')}: a backslash "
                                    "in the intent type, which the scripts' echo alters")
            din.append(sep.join([r[1], kind, r[2], gain]) + b"\n")
            pairs.append((r[2], gain))
        out[topic] = TopicFiles(_grelv(pairs, sep), irelv, b"".join(din))
    return out


def _grelv(pairs: list[tuple[bytes, bytes]], sep: bytes) -> bytes:
    """The Grelv file: each document's global gain (the gains summed in the order
    ``sort`` puts them), highest first as ``sort -nr`` orders them."""
    totals = []
    docno, gains = None, []
    for line in [*sorted(b"%s %s" % pair for pair in pairs), None]:
        new = line.rpartition(b" ") if line is not None else None
        if gains and (new is None or new[0] != docno):
            total = gains[0] if len(gains) == 1 else awk_print(sum(map(awk_number, gains)))
            totals.append(b"%s %s" % (total, docno))
            gains = []
        if new is not None:
            docno = new[0]
            gains.append(new[2])
    return b"".join(b"%s%s%s\n" % (line.split(b" ", 1)[1], sep, line.split(b" ", 1)[0])
                    for line in _sort_nr(totals))


def diversity_script_nev(variant: str, qrels: dict[bytes, TopicFiles], runs: dict[str, bytes],
                         cutoff: int, limit: int = 1000, sep: bytes | None = None,
                         extended: bool = False, messages: list[bytes] | None = None
                         ) -> dict[str, bytes]:
    """What ``D-NTCIR-eval-sep``, ``DIN-NTCIR-eval-sep`` (``sep`` given) or
    ``D-NTCIR-eval2`` (``extended``) writes for each run (``<run>.<name>.Dnev`` or
    ``.DINnev``); without either, what ``D-NTCIR-eval`` or ``DIN-NTCIR-eval`` writes (as
    :func:`~xdiv.official.ntcireval.pipelines.diversity_nev` computes it faster).

    Parameters
    ----------
    variant : {"D", "DIN"}
        The pipeline (``D`` only when ``extended``).
    qrels : dict
        Each topic's files (:func:`split_diversity_qrels`, or
        :func:`~xdiv.official.ntcireval.pipelines.split_qrels` without ``sep``).
    runs : dict
        Each run's name and its TREC-format file's bytes.
    cutoff, limit : int
        The document cutoff and the documents kept of each topic's ranking.
    sep : bytes, optional
        The separator the ``-sep`` scripts give ``ntcir_eval``.
    extended : bool
        ``D-NTCIR-eval2``: ``gcompute`` with RBP's persistence 0.99, and D#-ERR, D#-EBR
        and D#-RBP.
    messages : list of bytes, optional
        Receives what ``ntcir_eval`` says on standard error.
    """
    if extended and (variant != "D" or sep is not None):
        raise PipelineError("D-NTCIR-eval2 is the only extended script: D without a "
                            "separator")
    label = VARIANTS[variant][0]
    # DIN-NTCIR-eval-sep names its combinations D#-, as D-NTCIR-eval-sep does
    prefix = VARIANTS[variant if sep is None else "D"][1]
    combined = COMBINED["extended" if extended else variant if sep is None else "D"]
    cut, cutstr = b"%d" % cutoff, b"%04d" % cutoff
    sepopt = [] if sep is None else [b"-sep", sep]
    compute = [b"-cutoffs", cut, *([b"-rbp", RBP_PERSISTENCE] if extended else [])]
    for topic in qrels:
        _name(topic, "topic", "the intent probabilities")
    res = {name: split_run_sep(data, qrels, limit, sep or b" ") for name, data in runs.items()}
    chunks: dict[str, list[bytes]] = {name: [] for name in runs}
    said: dict[str, list[bytes]] = {name: [] for name in runs}
    for topic, files in qrels.items():  # topic by topic: its files are read once
        # irec reads the files the pattern Irelv[0-9]* finds, in bytewise order
        numbered = [files.irelv[k] for k in sorted(files.irelv) if k[:1].isdigit()]
        irelv = [b"Irelv%d" % k for k in range(1, len(numbered) + 1)]
        given = {b"Grelv": files.grelv, b"din": files.din, **dict(zip(irelv, numbered))}
        source = [b"-I", b"Grelv"] if label == b"glabel" else [b"-din", b"din"]
        for name in runs:
            labelled = call([label, *source, b"-truncate", cut, *sepopt], res[name][topic],
                            said[name], given)
            temp = call([b"gcompute", b"-I", b"Grelv", b"-out", topic, *compute, *sepopt],
                        labelled, said[name], given)
            if irelv:
                given[b"res"] = res[name][topic]
                temp += call([b"irec", b"-cutoffs", cut, b"-out", topic, *sepopt, b"res",
                              *irelv], b"", said[name], given)
            words = last_fields(temp, b" I-rec@%s=" % cutstr)
            for measure, _ in combined:
                words += last_fields(temp, b" %s@%s=" % (SOURCES[measure], cutstr))
            numbers = [awk_number(w) for w in words] + [0.0] * (len(combined) + 1)
            chunks[name].append(temp)
            for k, (measure, blanks) in enumerate(combined, 1):
                value = GAMMA * numbers[0] + (1 - GAMMA) * numbers[k]
                chunks[name].append(b"%s %s-%s@%s=%s%.4f\n" % (topic, prefix, measure, cutstr,
                                                              b" " * blanks, value))
    if messages is not None:  # in the scripts' order: run by run
        messages += [message for name in runs for message in said[name]]
    return {name: b"".join(chunks[name]) for name in runs}


def intent_script_nev(prob: bytes, qrels: dict[bytes, TopicFiles], runs: dict[str, bytes],
                      cutoff: int, limit: int = 1000, messages: list[bytes] | None = None
                      ) -> dict[str, bytes]:
    """What ``D-NTCIR-IAeval2`` writes for each run (``<run>.<name>.nevIA``): every
    intent's measures, then IA-MSnDCG, IA-Q, IA-ERR, IA-EBR and IA-RBP, the intents'
    values weighted by their probabilities as given (Agrawal et al., WSDM 2009).

    Parameters are those of :func:`diversity_script_nev`, with ``prob`` the intent
    probability file's bytes (its lines give the intents, in its order).
    """
    cut, cutstr = b"%d" % cutoff, b"%04d" % cutoff
    intents = intent_rows(prob)
    if runs:
        for topic in qrels:
            _name(topic, "topic", "the intent probabilities")
    # of each topic's ranking, glabel reads the first `cutoff` documents
    res = {name: split_run(data, qrels, min(limit, cutoff)) for name, data in runs.items()}
    chunks: dict[str, list[bytes]] = {name: [] for name in runs}
    said: dict[str, list[bytes]] = {name: [] for name in runs}
    for topic, files in qrels.items():  # topic by topic: its ideal lists are read once
        cells = [({b"Irelv": files.irelv[intent]}, b"%s %s %s" % (topic, intent, probability))
                 for _, intent, probability, *_ in intents.get(topic, [])
                 if intent in files.irelv]  # an intent without relevant documents: none
        for name in runs:
            text = per_intent(cells, res[name][topic], cut, said[name])
            chunks[name].append(text)
            rows = [fields(line) for line in text.split(b"\n")]
            for metric in IA2_METRICS:
                metric += b"@" + cutstr
                total = weighted = 0.0
                for row in rows:
                    if len(row) > 3 and row[3] == metric + b"=":
                        total += awk_number(row[2])
                        weighted += awk_number(row[2]) * awk_number(row[-1])
                chunks[name].append(b"%s SUMp= %.4f IA-%s= %.4f\n" % (topic, total, metric,
                                                                      weighted))
    if messages is not None:  # in the scripts' order: run by run
        messages += [message for name in runs for message in said[name]]
    return {name: b"".join(chunks[name]) for name in runs}


def adhoc_script_nev(qrels: bytes, runs: dict[str, bytes], options: list[bytes], sep: bytes,
                     limit: int = 1000, name: str = "qrels",
                     messages: list[bytes] | None = None) -> dict[str, bytes]:
    """What ``NTCIRsplitqrels QRELS SUFFIX SEP``, ``TRECsplitruns -s SEP`` and
    ``NTCIR-eval-sep`` (or ``E-NTCIR-eval``, which runs the same commands) write for
    each run: ``label`` then ``compute OPTIONS`` with ``-sep SEP``, topic by topic."""
    rels = {topic: {REL: data} for topic, data in split_adhoc_qrels(qrels, sep, name).items()}
    out = {}
    for run, data in runs.items():
        res = split_run_sep(data, rels, limit, sep)
        chunks = []
        for topic, given in rels.items():
            labelled = call([b"label", b"-r", REL, b"-sep", sep], res[topic], messages, given)
            chunks.append(call([b"compute", b"-r", REL, *options, b"-out", topic, b"-sep",
                                sep], labelled, messages, given))
        out[run] = b"".join(chunks)
    return out


def _bre(pattern: bytes, what: str) -> re.Pattern:
    """grep's basic regular expression ``pattern`` (``^`` first, ``.`` and ``*``; a
    bracket or a backslash refused)."""
    if b"[" in pattern[1:] or b"\\" in pattern:
        raise PipelineError(f"{what} {pattern[1:].decode(errors='replace')!r}: a bracket or a "
                            "backslash, which the scripts' grep would read as a pattern")
    out = []
    for k, char in enumerate(pattern[1:]):
        byte = bytes([char])
        if byte == b"." or (byte == b"*" and k > 0):
            out.append(byte)
        elif byte == b"$" and k == len(pattern) - 2:
            out.append(rb"\Z")
        else:
            out.append(re.escape(byte))
    return re.compile(b"".join(out))


def _read_lines(data: bytes) -> list[bytes]:
    """The values ``while read X`` gives for the lines of ``data`` (blanks at the ends
    removed)."""
    if b"\\" in data:
        raise PipelineError("a backslash in a list the scripts read line by line")
    return [line.strip(b" \t") for line in dqrels_lines(data)]


def topic_matrix(files: list[bytes], topics: bytes, metric: str) -> bytes:
    """What ``Topicsys-matrix TIDS SYSTEMS SUFFIX METRIC`` prints: a line per topic of
    ``topics`` (duplicates kept), a ``%.4f`` column per file of ``files`` (its first
    ``<topic> <metric>=`` line's last field; 0 when there is none)."""
    lines = []
    for topic in _read_lines(topics):
        pattern = _bre(b"^%s %s=" % (topic, metric.encode()), "topic and measure")
        cells = []
        for data in files:
            value = 0.0
            for line in dqrels_lines(data):
                if pattern.match(line):
                    last = fields(line)
                    value = awk_number(last[-1]) if last else 0.0
                    break
            cells.append(b"%.4f " % value)
        lines.append(b"".join(cells).removesuffix(b" ") + b"\n")
    return b"".join(lines)


def split_nuggets(nuggets: bytes) -> tuple[list[bytes], dict[bytes, bytes]]:
    """What ``1CLICK-splitnuggets NUGGETS SUFFIX`` writes: its topic list (the first
    words of the lines, a run of equal ones kept once, as ``uniq`` keeps them: a topic
    may come back after another one) and each topic's nug file (its lines without the
    topic, unique, sorted)."""
    order: list[bytes] = []
    for line in dqrels_lines(nuggets):
        topic = line.split(b" ", 1)[0]
        if not order or order[-1] != topic:
            order.append(topic)
    order = _read_lines(b"".join(t + b"\n" for t in order))
    out = {}
    for topic in order:
        _name(topic, "topic", "the nuggets")
        pattern = _bre(b"^%s " % topic, "topic")
        lines = {line.split(b" ", 1)[1] + b"\n" for line in dqrels_lines(nuggets)
                 if pattern.match(line)}
        out[topic] = b"".join(sorted(lines))
    return order, out


def split_matches(run: bytes, topics: Iterable[bytes]) -> dict[bytes, bytes]:
    """What ``1CLICK-splitmatch`` writes for a run: each topic's mat file (its first
    ``syslen=`` line's length, then the first line of each nugget as ``sort -n -k 2,3``
    orders them, sorted)."""
    lines = dqrels_lines(run)
    out = {}
    for topic in topics:
        syslen = _bre(b"^%s syslen=" % topic, "topic")
        head = [fields(line) for line in lines if syslen.match(line)][:1]
        text = b"".join(b"%s %s\n" % tuple((row + [b"", b""])[1:3]) for row in head)
        pattern = _bre(b"^%s " % topic, "topic")
        matched = [line for line in lines if pattern.match(line) and b"syslen=" not in line]
        # sort -n -k 2,3: the number at the second field (its leading blanks included)
        matched.sort(key=lambda line: (_sort_number(line[_FIRST_FIELD.match(line).end():]),
                                       line))
        first, previous = [], b""
        for line in matched:
            row = fields(line) + [b"", b""]
            if row[1] != previous:
                first.append(b"%s %s\n" % (row[1], row[2]))
            previous = row[1]
        out[topic] = text + b"".join(sorted(first))
    return out


def oneclick_nev(nuggets: bytes, runs: dict[str, bytes],
                 messages: list[bytes] | None = None) -> dict[str, bytes]:
    """What ``1CLICK-splitnuggets``, ``1CLICK-splitmatch`` and ``1CLICK-eval`` write for
    each run (``<run>.<name>.1cl``): ``1click -L 500 -beta 1.0`` on each topic's matched
    nuggets (Sakai, Kato and Song, CIKM 2011)."""
    order, topics = split_nuggets(nuggets)
    out = {}
    for name, data in runs.items():
        mats = split_matches(data, topics)
        out[name] = b"".join(
            call([b"1click", b"-L", ONECLICK_L, b"-out", topic, b"-N", b"nug", b"-beta",
                  ONECLICK_BETA], mats[topic], messages, {b"nug": topics[topic]})
            for topic in order)
    return out
