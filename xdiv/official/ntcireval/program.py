"""``ntcir_eval`` (NTCIREVAL 190111, by Tetsuya Sakai): its subcommands with their
arguments, their output on standard output, their messages on standard error and their
exit statuses, byte for byte.

The measures are those of Sakai's papers as ``ntcir_eval`` computes them, in its order of
floating-point operations, so that each printed digit is the program's: Q-measure and the
blended ratio (Sakai, NTCIR-4 2004), O- and P-measure and P-plus (Sakai, IPSJ TOD 2007),
the NCU family (Sakai & Robertson, EVIA 2008), the original nDCG of Järvelin &
Kekäläinen (TOIS 2002) beside Burges et al.'s (ICML 2005), RBP (Moffat & Zobel, TOIS
2008), ERR (Chapelle et al., CIKM 2009) with the stop probability g/(g_max+1), EBR
(the expected blended ratio), GAP (Robertson, Kanoulas & Yilmaz, SIGIR 2010),
intentwise RBU (after Amigó et al., SIGIR 2018), the condensed-list bpref family (Sakai,
SIGIR 2007), I-rec (intent recall: the subtopic recall of Zhai, Cohen & Lafferty, SIGIR
2003), the DIN labels (Sakai, WWW 2012) and the 1CLICK measures (Sakai, Kato & Song,
CIKM 2011).

Where ``ntcir_eval``'s behaviour is undefined (a relevance level above the gains of
``-g``, a negative cutoff or one beyond a ``long``, the flag of a navigational intent it
never set after a bad line of a DIN file), the command refuses in one line with status 1
instead of printing what it would print. After a bad line of a DIN file, ``ntcir_eval``
says so and labels with the lines before it; so does the command, where that is
defined.

One implementation of each measure where the arithmetic allows it: the blended ratio
BR(r) (which O-measure, P-measure, P-plus, Q-measure, EBR and the NCU family read), ERR,
nERR's numerator and denominator, EBR and RBP are the measure registry's kernels
(:mod:`xdiv.kernels.ntcir`), whose per-rank terms are the C program's expressions in its
order and whose sums run in rank order, so that every double is the program's to the
last bit; ``compute`` and ``gcompute`` load numpy for them (``label`` and the other
subcommands do not). The rest stays here, in the program's order, because a kernel
would not give the same doubles:

- the original nDCG and MSnDCG, iRBU and the NCU family's ``gamma`` weights take
  logarithms and powers: numpy may compute them with its own vectorised routines (on
  AVX-512 processors) instead of the C library's ``log`` and ``pow`` that
  ``ntcir_eval`` calls, and a last bit can change the fourth printed decimal;
- MSnDCG divides by the natural logarithm, where the registry's nDCG multiplies by
  ``1/log2`` (shared with the ndeval and trec_eval drop-ins, whose bytes it fixes);
- GAP's kernel gives the program's doubles on the whole list, but only its quotient (NaN
  for a zero denominator, which the program prints ``-nan``, as at a cutoff of 0) and
  not the running numerator the cutoffs read; ``compute``'s GAP compares levels;
- the condensed-list measures of ``-j`` read the labelled list, whose unjudged
  documents are already gone, where the registry's kernels read the run with its qrels;
- the sums of AP, Q-measure, P-plus and the NCU family (and their cutoffs) take the
  ranks whose gain is positive, while ``compute`` counts a document relevant for a
  level above 0 whatever its gain; the registry's kernels take one flag for both, and
  its Q-measure multiplies by the flag where the program skips the rank (0 times an
  infinite ratio is NaN);
- P, Hit and RR are a count or one division; and where a denominator is zero
  ``ntcir_eval`` prints an infinity or ``-nan``, where the registry gives NaN, so the
  final divisions (RBP's by g_max, nERR's by the ideal ERR) stay the program's.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple, NoReturn

from ..printf import number
from ..trec_eval.text import c_atof, c_atol
from .clib import LONG_RANGE, cdiv, cpow, fgets_lines, strtok

if TYPE_CHECKING:
    import numpy as np

__all__ = ["PROGRAM", "Outcome", "ntcir_eval"]

PROGRAM = b"ntcir_eval"
"""The program name its messages print (its ``argv[0]`` when run from the ``PATH``)."""
MAX_LEVEL = 15
MAX_INTENTS = 64
MAX_CLASSES = 1024
MAX_CUTOFFS = 10
CACHED_FILES = 256
"""How many of the latest gain files (ideal lists, DIN files) their readings are kept for:
a pipeline reads each topic's files (one per intent in the intent-aware ones) for every
run."""
DEFAULT_CUTOFF = 1000
DEFAULT_RBP = 0.95


class Outcome(NamedTuple):
    """What a command writes on standard output and standard error, and its status."""

    stdout: bytes
    stderr: bytes
    status: int


class _Return(Exception):
    """The subcommand returns (whatever it returns, the program then exits with 0)."""


class Refused(Exception):
    """An input on which ``ntcir_eval``'s behaviour is undefined; the message says why."""


class _Run:
    """One run of the program: its output so far, its standard input and the files its
    caller holds in memory."""

    def __init__(self, argv: list[bytes], stdin, files: Mapping[bytes, bytes]) -> None:
        self.av = argv
        self.stdin = stdin
        self.files = files
        self.out: list[bytes] = []
        self.err: list[bytes] = []
        self.outstr: bytes | None = None
        self.sep: bytes | None = None

    def say(self, text: bytes) -> None:
        self.out.append(text)

    def warn(self, text: bytes) -> None:
        self.err.append(text)

    def fail(self, text: bytes) -> NoReturn:
        """The message, and the subcommand returns."""
        self.err.append(text)
        raise _Return

    def fopen(self, path: bytes, shown: bytes | None = None) -> bytes:
        """The bytes of the file ``path`` (none for a folder, which ``fgets`` reads as
        empty), or "Cannot open" naming ``shown`` (by default ``path``)."""
        if path in self.files:
            return self.files[path]
        try:
            if os.path.isdir(path):
                return b""
            with open(path, "rb") as handle:
                return handle.read()
        except OSError:
            pass
        self.fail(b"Cannot open %s\n" % (path if shown is None else shown))

    def read_stdin(self) -> bytes:
        return self.stdin.read() if self.stdin is not None else b""

    def lines(self, data: bytes):
        """Each complete line of ``data``; "Line too long" at the first incomplete one."""
        for text, complete in fgets_lines(data):
            if not complete:
                self.fail(b"Line too long: %s\n" % text)
            yield text

    def tokens(self, line: bytes):
        return strtok(line, self.sep)


def printed(value: float, digits: int) -> bytes:
    """``printf("%.{digits}f", value)``: a NaN printed with its sign, ``nan`` for one
    read from the command line (``-beta nan``), ``-nan`` for one the arithmetic makes."""
    if math.isnan(value) and math.copysign(1.0, value) > 0:
        return b"nan"
    return number(value, digits).encode()


def f4(value: float) -> bytes:
    """``printf("%.4f", value)``, as :func:`printed` writes it."""
    if value == value:  # not a NaN: what printed gives, without its calls
        return b"%.4f" % value
    return printed(value, 4)


def ntcir_eval(argv: list[bytes], stdin=None, files: Mapping[bytes, bytes] | None = None
               ) -> Outcome:
    """What ``ntcir_eval ARGV`` (``argv`` without the program name) writes and its exit
    status; ``stdin`` is a binary file for its standard input. ``files`` gives the bytes
    of some paths, read instead of the files there (a caller's files held in memory)."""
    run = _Run([PROGRAM, *argv], stdin, {} if files is None else files)
    if not argv:
        return Outcome(b"", _main_usage(), 1)
    commands = {b"dinlabel": _dinlabel, b"glabel": _glabel, b"gcompute": _gcompute,
                b"irec": _irec, b"label": _label, b"compute": _compute, b"1click": _oneclick}
    command = commands.get(argv[0])
    if command is None:
        return Outcome(b"", b"Unknown command.\n", 0)
    try:
        command(run)
    except _Return:
        pass
    except Refused as exc:
        return Outcome(b"", b"xdiv ntcir_eval: %s (ntcir_eval's behaviour is undefined "
                       b"there)\n" % str(exc).encode("utf-8", "backslashreplace"), 1)
    return Outcome(b"".join(run.out), b"".join(run.err), 0)


def _main_usage() -> bytes:
    """The usage of ``ntcir_eval`` without a subcommand: its first line is ntcir_eval's,
    the list of subcommands below it is said in xdiv's words (NTCIREVAL's own text is not
    reproduced; the stream and the status are)."""
    return b"".join([
        b"Usage: %s command args...\n" % PROGRAM,
        b" command= glabel|dinlabel|gcompute|irec|label|compute|1click\n\n",
        b"   glabel: add global gains from an ideal list to a ranked list\n",
        b"   dinlabel: add global gains from a DIN file (inf and nav intents) to a ranked\n"
        b"    list; a nav intent's later documents count nothing\n",
        b"   gcompute: the measures of a ranked list labelled by glabel or dinlabel\n",
        b"   irec: intent recall of a ranked list, one list of relevant documents per "
        b"intent\n",
        b"   label: add relevance levels (Ln) from a rel file to a ranked list\n",
        b"   compute: the measures of a ranked list labelled by label\n",
        b"   1click: the 1CLICK measures of matched nuggets against gold nuggets\n\n"])


# ---------------------------------------------------------------------------------------
# options shared by the subcommands

def _option(run: _Run, k: int, name: bytes, takes_value: bool = True) -> bool:
    """Whether argument ``k`` is the option ``name`` (with a value after it when it
    takes one, as ``ntcir_eval`` checks)."""
    return run.av[k] == name and (not takes_value or k + 1 < len(run.av))


def _cutoffs(run: _Run, text: bytes) -> list[float]:
    """``-cutoffs A,B,...``: each read with ``atof`` (the program stores it in a
    ``long`` later); "strtok failed" for none, "Too many cutoffs" from the tenth."""
    values: list[float] = []
    for token in strtok(text, b","):
        values.append(c_atof(token))
        if len(values) >= MAX_CUTOFFS:
            run.fail(b"Too many cutoffs\n")
    if not values:
        run.fail(b"strtok failed\n")
    return values


def _as_long(value: float) -> int:
    """A cutoff read with ``atof`` stored in a ``long`` (truncated); refused where C's
    conversion is undefined."""
    if not math.isfinite(value) or not LONG_RANGE[0] <= math.trunc(value) <= LONG_RANGE[1]:
        raise Refused(f"cutoff {value!r} does not fit in a long")
    return math.trunc(value)


def _truncate(run: _Run, k: int) -> int:
    rank = c_atol(run.av[k + 1])
    if rank < 1:
        run.fail(b"Bad -truncate value\n")
    return rank


def _system_file(run: _Run, k: int) -> bytes:
    return run.fopen(run.av[k])


# ---------------------------------------------------------------------------------------
# label, glabel, dinlabel: a ranked list labelled

def _label(run: _Run) -> None:
    """``label``: the ranked list with each judged document's relevance label (with
    ``-ec``, only the first document of each equivalence class; ``-j`` drops the
    unjudged)."""
    av = run.av
    rel = system = None
    ignore_unjudged = ec_mode = False
    truncate = 0
    k = 2
    while k < len(av):
        if av[k] == b"-j":
            ignore_unjudged, k = True, k + 1
        elif av[k] == b"-ec":
            ec_mode, k = True, k + 1
        elif _option(run, k, b"-truncate"):
            truncate, k = _truncate(run, k), k + 2
        elif _option(run, k, b"-r"):
            rel, k = run.fopen(av[k + 1]), k + 2
        elif _option(run, k, b"-sep"):
            run.sep, k = av[k + 1], k + 2
        else:
            system, k = _system_file(run, k), k + 1
    if rel is None:
        run.fail(b"Usage: %s %s [-j] [-ec] [-sep <separator>] [-truncate <rank>] -r "
                 b"<rel_assessment_file> [ranked list file]\n" % (av[0], av[1]))
    if run.sep is None:
        run.sep = b" "
    judged = _replayed(run, _judgments, rel, ec_mode)
    seen: set[int] = set()
    rank = 1
    for line in run.lines(run.read_stdin() if system is None else system):
        match = judged.get(line)
        if match is not None:
            label, ec = match
            if not ec_mode:
                run.say(b"%s%s%s\n" % (line, run.sep, label))
            elif ec not in seen:
                run.say(b"%s%s%s%s%d\n" % (line, run.sep, label, run.sep, ec))
                seen.add(ec)
            else:
                run.say(line + b"\n")
        elif not ignore_unjudged:
            run.say(line + b"\n")
        if rank == truncate:
            break
        rank += 1


def _judgments(run: _Run, rel: bytes, ec_mode: bool) -> dict[bytes, tuple[bytes, int]]:
    """Each docno of the rel file ``rel`` with its first line's label and class (the
    line's number without ``-ec``)."""
    failed = b"file2strstrlonglist failed\n" if ec_mode else b"file2strstrcountlist failed\n"
    judged: dict[bytes, tuple[bytes, int]] = {}
    count = 0
    for line in _rel_lines(run, rel, failed):
        fields = run.tokens(line)
        docno, label = next(fields, None), None
        if docno is not None:
            label = next(fields, None)
        if label is None:
            run.warn(b"strtok failed\n")
            run.fail(failed)
        if ec_mode:
            ec = next(fields, None)
            if ec is None:
                run.warn(b"strtok failed\n")
                run.fail(failed)
            class_id = c_atol(ec)
            if class_id < 1 or class_id >= MAX_CLASSES:
                run.warn(b"bad ec number: %d\n" % class_id)
                run.fail(failed)
        else:
            count += 1
            class_id = count
        judged.setdefault(docno, (label, class_id))  # the first line of a docno matches
    return judged


def _replayed(run: _Run, reader, data: bytes, *args):
    """``reader(run, data, *args)`` (a reader of a file that says nothing on standard
    output), read once for each file and separator as :func:`_ideal_list` is: its
    messages said again, its failure failed again."""
    result, said, failed = _read_once(reader, data, run.sep, *args)
    if said:
        run.warn(said)
    if failed:
        raise _Return
    return result


@functools.lru_cache(maxsize=CACHED_FILES)
def _read_once(reader, data: bytes, sep: bytes, *args):
    """``(what reader returns, what it says on standard error, whether it failed)``."""
    probe = _Run([PROGRAM], None, {})
    probe.sep = sep
    try:
        return reader(probe, data, *args), b"".join(probe.err), False
    except _Return:
        return None, b"".join(probe.err), True


def _gain_label_options(run: _Run, option: bytes, name: bytes):
    """The options of ``glabel`` (``-I``) and ``dinlabel`` (``-din``), read in order as
    ntcir_eval reads them: ``(gains file, system list, -j, -truncate)``."""
    av = run.av
    gains = system = None
    ignore_unjudged = False
    truncate = 0
    k = 2
    while k < len(av):
        if av[k] == b"-j":
            ignore_unjudged, k = True, k + 1
        elif _option(run, k, b"-sep"):
            run.sep, k = av[k + 1], k + 2
        elif _option(run, k, b"-truncate"):
            truncate, k = _truncate(run, k), k + 2
        elif _option(run, k, option):
            gains, k = run.fopen(av[k + 1]), k + 2
        else:
            system, k = _system_file(run, k), k + 1
    if gains is None:
        run.fail(b"Usage: %s %s [-j] [-sep <separator>] [-truncate <rank>] %s %s "
                 b"[system ranked list]\n" % (av[0], av[1], option, name))
    if run.sep is None:
        run.sep = b" "
    return gains, system, ignore_unjudged, truncate


def _glabel(run: _Run) -> None:
    """``glabel``: the ranked list with each judged document's global gain from an ideal
    list (``-I``)."""
    ideal, system, ignore_unjudged, truncate = _gain_label_options(run, b"-I",
                                                                   b"<ideal_file>")
    _, _, _, highest = _store_ideal(run, ideal)
    if highest <= 0.0:
        run.fail(b"store_ideal failed\n")
    gains = _first_gains(ideal, run.sep)
    rank = 1
    for line in run.lines(run.read_stdin() if system is None else system):
        gain = gains.get(line)
        if gain is not None:
            run.say(b"%s%s%s\n" % (line, run.sep, f4(gain)))
        elif not ignore_unjudged:
            run.say(line + b"\n")
        if rank == truncate:
            break
        rank += 1


def _store_ideal(run: _Run, data: bytes):
    """The ideal list (docno, gain) in its order, the numbers of judged relevant and
    nonrelevant documents and the highest gain (``-1.0`` after an error message)."""
    entries, relevant, nonrelevant, highest, message = _ideal_list(data, run.sep)
    if message:
        run.warn(message)
    return entries, relevant, nonrelevant, highest


@functools.lru_cache(maxsize=CACHED_FILES)
def _ideal_list(data: bytes, sep: bytes):
    """What :func:`_store_ideal` reads in ``data`` with the separator ``sep``, and the
    message it then says (empty when none); kept for the latest files, since a pipeline
    reads a topic's ideal lists for every run."""
    entries: list[tuple[bytes, float]] = []
    relevant = nonrelevant = 0
    highest = 0.0

    def refused(message: bytes):
        return tuple(entries), relevant, nonrelevant, -1.0, message

    for text, complete in fgets_lines(data):
        if not complete:
            return refused(b"Line too long: %s\n" % text)
        fields = strtok(text, sep)
        docno = next(fields, None)
        if docno is None:
            return refused(b"strtok failed: %s\n" % text)
        value = next(fields, None)
        if value is None:
            return refused(b"strtok failed: (null)\n")
        gain = c_atof(value)
        if gain < 0:
            return refused(b"invalid gain in ideal list\n")
        if gain == 0.0:
            nonrelevant += 1
        else:
            relevant += 1
            if highest < gain:
                highest = gain
        entries.append((docno, gain))
    return tuple(entries), relevant, nonrelevant, highest, b""


@functools.lru_cache(maxsize=CACHED_FILES)
def _first_gains(data: bytes, sep: bytes) -> dict[bytes, float]:
    """Each docno of the ideal list ``data`` with the gain of its first line (what
    ``glabel`` labels it with), kept as :func:`_ideal_list` is."""
    return dict(reversed(_ideal_list(data, sep)[0]))


def _dinlabel(run: _Run) -> None:
    """``dinlabel``: the ranked list with global gains from a DIN file (``-din``), where
    a navigational intent counts only at its first document (Sakai, WWW 2012)."""
    din, system, ignore_unjudged, truncate = _gain_label_options(run, b"-din",
                                                                 b"<din_file>")
    by_docno, stored = _store_din(run, din)
    # whether each intent was seen; ntcir_eval sets the flags of intents 1 to the highest
    # only when it read the whole DIN file
    found = dict.fromkeys(range(1, stored + 1), False)
    rank = 1
    for line in run.lines(run.read_stdin() if system is None else system):
        matches = by_docno.get(line)
        if matches is not None:
            gain = 0.0
            for value, intent, navigational in matches:
                if intent not in found and (navigational or intent < 1):
                    raise Refused(f"intent {intent} of the DIN file is read before it is "
                                  f"set" if intent > 0 else
                                  f"intent number {intent} of the DIN file is not positive")
                if not (navigational and found[intent]):
                    gain += value
                found[intent] = True
            run.say(b"%s%s%s\n" % (line, run.sep, f4(gain)))
        elif not ignore_unjudged:
            run.say(line + b"\n")
        if rank == truncate:
            break
        rank += 1


def _store_din(run: _Run, data: bytes
               ) -> tuple[dict[bytes, list[tuple[float, int, bool]]], int]:
    """The lines of a DIN file by docno (P(i|q) times the gain, intent number, whether the
    intent is navigational, in the file's order) and the highest intent number, 0 when a
    line is bad: then ``ntcir_eval`` says so and goes on with the lines before it."""
    by_docno, highest, message = _din_list(data, run.sep)
    if message:
        run.warn(message)
    elif highest == 0:
        run.fail(b"store_din failed\n")
    return by_docno, highest


@functools.lru_cache(maxsize=CACHED_FILES)
def _din_list(data: bytes, sep: bytes):
    """What :func:`_store_din` reads in ``data`` with the separator ``sep`` and the
    message it then says (empty when none), kept as :func:`_ideal_list` is."""
    by_docno: dict[bytes, list[tuple[float, int, bool]]] = {}
    highest = 0
    for text, complete in fgets_lines(data):
        if not complete:
            return by_docno, 0, b"Line too long: %s\n" % text
        fields = strtok(text, sep)
        values = []
        for k in range(4):
            value = next(fields, None)
            if value is None:
                return by_docno, 0, b"strtok failed\n"
            if k == 0:
                intent = c_atol(value)
                if intent > highest:
                    highest = intent
                    if highest > MAX_INTENTS:
                        return by_docno, 0, b"INTENT NUMMAX overflow\n"
            elif k == 1 and value not in (b"inf", b"nav"):
                return by_docno, 0, b"bad inf/nav: %s\n" % value
            values.append(value)
        by_docno.setdefault(values[2], []).append(
            (c_atof(values[3]), intent, values[1] == b"nav"))
    return by_docno, highest, b""


# ---------------------------------------------------------------------------------------
# irec

def _irec(run: _Run) -> None:
    """``irec``: intent recall at each cutoff and at n, the number of intents (one
    list of relevant documents per intent)."""
    av = run.av
    verbose = False
    cutoffs: list[float] = []
    system = None
    k = 2
    while k < len(av):
        if _option(run, k, b"-out"):
            run.outstr, k = av[k + 1], k + 2
        elif _option(run, k, b"-sep"):
            run.sep, k = av[k + 1], k + 2
        elif av[k] == b"-v":
            verbose, k = True, k + 1
        elif _option(run, k, b"-cutoffs"):
            cutoffs, k = _cutoffs(run, av[k + 1]), k + 2
        else:
            system, k = run.fopen(av[k], av[2]), k + 1
            break
    outstr = b"" if run.outstr is None else run.outstr
    if run.sep is None:
        run.sep = b" "
    cuts = [_as_long(c) for c in cutoffs] or [DEFAULT_CUTOFF]
    rel_files = []
    for j in range(k, len(av)):
        if j - k >= MAX_INTENTS:
            run.fail(b"too many rel files\n")
        rel_files.append(run.fopen(av[j]))
    if system is None or not rel_files:
        run.fail(b"Usage: %s %s [-cutoffs <cutoff,...>] [-sep <separator>] [-out <outstr>] "
                 b"[-v] <system ranked list> <rellist for intent1>...\n" % (av[0], av[1]))
    n = len(rel_files)
    run.say(b"%s #intent_num=%d\n" % (outstr, n))
    relevant: list[set[bytes]] = []
    for data in rel_files:
        docnos = set()
        for text, complete in fgets_lines(data):
            if not complete:
                run.warn(b"Line too long: %s\n" % text)
                run.fail(b"firstfield2strlist failed\n")
            first = next(run.tokens(text), None)
            if first is None:
                run.warn(b"strtok failed\n")
                run.fail(b"firstfield2strlist failed\n")
            docnos.add(first)
        relevant.append(docnos)
    found = [False] * n
    covered = 0
    rank = 1
    for line in run.lines(system):
        if verbose:
            run.say(b"#" + line)
        for j in range(n):
            if line in relevant[j]:
                found[j] = True
                if verbose:
                    run.say(b" %d" % (j + 1))
        if verbose:
            run.say(b"\n")
        covered = sum(found)
        for cut in cuts:
            if rank == cut:
                run.say(b"%s I-rec@%04d=          %s\n" % (outstr, cut, f4(covered / n)))
        if rank == n:
            run.say(b"%s I-rec@n=             %s\n" % (outstr, f4(covered / n)))
        rank += 1
    for cut in cuts:
        if cut >= rank:
            run.say(b"%s I-rec@%04d=          %s\n" % (outstr, cut, f4(covered / n)))
    if rank <= n:
        run.say(b"%s I-rec@n=             %s\n" % (outstr, f4(covered / n)))


# ---------------------------------------------------------------------------------------
# compute and gcompute

class _Settings:
    """The options of ``compute`` and ``gcompute``."""

    def __init__(self) -> None:
        self.verbose = False
        self.gap = False
        self.ignore_unjudged = False
        self.ec_mode = False
        self.beta = 1.0
        self.gamma = 0.95
        self.logbase = 2.0
        self.rbp: float | None = None
        self.rbu = 0.0
        self.cutoffs: list[float] = []
        self.gains: list[float] = []
        self.stops: list[float] = []
        self.rel: bytes | None = None
        self.system: bytes | None = None


def _read_settings(run: _Run, usage) -> _Settings | None:
    """The options of ``compute`` (``usage`` is its usage) or ``gcompute``; ``None`` after
    ``-h`` (the usage printed)."""
    av = run.av
    s = _Settings()
    compute = usage is _compute_usage
    k = 2
    while k < len(av):
        arg = av[k]
        if arg == b"-h":
            run.warn(usage(run))
            return None
        if arg == b"-v":
            s.verbose, k = True, k + 1
        elif arg == b"-gap":
            s.gap, k = True, k + 1
        elif arg == b"-j":
            s.ignore_unjudged, k = True, k + 1
        elif compute and arg == b"-ec":
            s.ec_mode, k = True, k + 1
        elif _option(run, k, b"-out"):
            run.outstr, k = av[k + 1], k + 2
        elif _option(run, k, b"-sep"):
            run.sep, k = av[k + 1], k + 2
        elif _option(run, k, b"-r" if compute else b"-I"):
            s.rel, k = run.fopen(av[k + 1]), k + 2
        elif _option(run, k, b"-beta"):
            s.beta, k = c_atof(av[k + 1]), k + 2
        elif _option(run, k, b"-gamma"):
            s.gamma = c_atof(av[k + 1])
            if s.gamma > 1:
                run.fail(b"Bad -gamma value\n")
            k += 2
        elif _option(run, k, b"-logb"):
            s.logbase, k = c_atof(av[k + 1]), k + 2
        elif _option(run, k, b"-rbp"):
            s.rbp = c_atof(av[k + 1])
            if s.rbp > 1:
                run.fail(b"Bad -rbp value\n")
            k += 2
        elif compute and _option(run, k, b"-rbup"):
            s.rbu = c_atof(av[k + 1])
            if s.rbu > 1:
                run.fail(b"Bad -rbup value\n")
            k += 2
        elif _option(run, k, b"-cutoffs"):
            s.cutoffs, k = _cutoffs(run, av[k + 1]), k + 2
        elif compute and _option(run, k, b"-g"):
            s.gains = _levels(run, av[k + 1], b"maxrl overflow\n", False)
            k += 2
        elif compute and _option(run, k, b"-s"):
            s.stops = _levels(run, av[k + 1], b"maxrl_stop overflow\n", True)
            k += 2
        else:
            s.system, k = _system_file(run, k), k + 1
    return s


def _levels(run: _Run, text: bytes, overflow: bytes, positive: bool) -> list[float]:
    """``-g`` or ``-s``: one value a level, L1 first."""
    values: list[float] = []
    for token in strtok(text, b":"):
        if len(values) + 1 > MAX_LEVEL:
            run.fail(overflow)
        values.append(c_atof(token))
        if positive and values[-1] == 0.0:
            run.fail(b"stop value must be positive\n")
    if not values:
        run.fail(b"strtok failed\n")
    return values


def _common_usage(run: _Run) -> list[bytes]:
    """The options ``compute`` and ``gcompute`` share, in ntcir_eval's order, each said in
    xdiv's words."""
    return [
        b"OPTIONS:\n",
        b"\t-h: print this usage\n",
        b"\t-v: also print the values each measure is computed from\n",
        b"\t-j: the list is condensed (unjudged documents removed); adds bpref and the\n",
        b"\t    other condensed-list measures\n",
        b"\t-sep <separator>: the field separator read and written (default: ' ')\n",
        b"\t-out <string>: printed at the start of every output line (a topic ID, say)\n",
        b"\t-beta <positive value>: the beta of Q-measure (default: 1.00)\n",
        b"\t-gamma <positive value <=1 >: the gamma of rank-biased NCU (default: 0.95)\n",
        b"\t-logb <value >=0 >: the logarithm base of DCG's discount, 0 for e (default:\n",
        b"\t    2.00)\n",
        b"\t-rbp <positive value <=1 >: the persistence of RBP (default: 0.95)\n",
        b"\t-cutoffs <document rank[,document rank,...]>: the ranks of P@n, Hit@n,\n",
        b"\t    nDCG@n and the other cut measures (default: 1000)\n"]


def _compute_usage(run: _Run) -> bytes:
    return b"".join([
        b"Usage: %s %s -r <relfile> -g <gainL1:gainL2...> [OPTIONS] [labelled ranked list]\n"
        % (run.av[0], run.av[1]), *_common_usage(run),
        b"\t-s <stopL1:stopL2...>: the stop values of graded-uniform NCU (default: the\n",
        b"\t    gain values)\n",
        b"\t-gap: also compute GAP (Robertson, Kanoulas & Yilmaz, SIGIR 2010)\n",
        b"\t-rbup <positive value <=1 >: also compute iRBU with this persistence\n"])


def _gcompute_usage(run: _Run) -> bytes:
    return b"".join([
        b"Usage: %s %s -I <idealfile> [OPTIONS] [labelled ranked list]\n"
        % (run.av[0], run.av[1]), *_common_usage(run),
        b"\t-gap: also compute GAP (Robertson, Kanoulas & Yilmaz, SIGIR 2010)\n"])


def _level(run: _Run, label: bytes) -> int:
    """``lab2level``: the level of ``Ln`` (negative when the program refuses it, after
    its message for a label without an L or above L15)."""
    if label[:1] != b"L":
        run.warn(b"Invalid rel level: %s\n" % label)
        return -1
    level = c_atol(label[1:])
    if level > MAX_LEVEL:
        run.warn(b"Invalid rel level: %s\n" % label)
        return -1
    return level


def _count_judged(run: _Run, data: bytes, maxrl: int) -> tuple[int, ...]:
    """The number of judged documents at each level 0..maxrl of a rel file."""
    counts = [0] * (maxrl + 1)
    for text in _rel_lines(run, data, b"count_judged failed\n"):
        level = _rel_level(run, text, maxrl, b"count_judged failed\n")[0]
        counts[level] += 1
    return tuple(counts)


def _count_classes(run: _Run, data: bytes, maxrl: int) -> tuple[int, ...]:
    """The number of equivalence classes at each level 0..maxrl (a class's level is its
    highest member's; classes at level 0 are not counted)."""
    failed = b"count_ECjudged failed\n"
    highest: dict[int, int] = {}
    for text in _rel_lines(run, data, failed):
        level, fields = _rel_level(run, text, maxrl, failed)
        ec = next(fields, None)
        if ec is None:
            run.warn(b"strtok failed\n")
            run.fail(failed)
        class_id = c_atol(ec)
        if class_id < 1 or class_id > MAX_CLASSES:
            run.warn(b"bad ec number: %d\n" % class_id)
            run.fail(failed)
        highest[class_id] = max(highest.get(class_id, 0), level)
    counts = [0] * (maxrl + 1)
    for level in highest.values():
        if level > 0:
            counts[level] += 1
    return tuple(counts)


def _rel_lines(run: _Run, data: bytes, failed: bytes):
    for text, complete in fgets_lines(data):
        if not complete:
            run.warn(b"Line too long: %s\n" % text)
            run.fail(failed)
        yield text


def _rel_level(run: _Run, text: bytes, maxrl: int, failed: bytes):
    fields = run.tokens(text)
    if next(fields, None) is None:
        run.warn(b"strtok failed: %s\n" % text)
        run.fail(failed)
    label = next(fields, None)
    if label is None:
        run.warn(b"strtok failed\n")
        run.fail(failed)
    level = _level(run, label)
    if level < 0:
        run.warn(b"lab2level failed\n")
        run.fail(failed)
    if level > maxrl:
        run.warn(b"max rel level mismatch: %s\n" % label)
        run.fail(failed)
    return level, fields


def _dcg_log(base: float, rank: int) -> float:
    """The discount of the original DCG (Järvelin & Kekäläinen, TOIS 2002) at ``rank``:
    none up to rank ``base``, then log_base(rank) (the natural log for base 0)."""
    if base < 0:
        return -1.0
    if rank == 1 or rank <= base:
        return 1.0
    if base == 0:
        return math.log(rank)
    return cdiv(math.log(rank), math.log(base))


def _compute(run: _Run) -> None:
    """``compute``: the measures of a labelled ranked list, with the gains of ``-g``."""
    settings = _read_settings(run, _compute_usage)
    if settings is None:
        raise _Return
    if settings.rel is None or not settings.gains:
        run.warn(_compute_usage(run))
        raise _Return
    s = settings
    outstr = b"" if run.outstr is None else run.outstr
    if run.sep is None:
        run.sep = b" "
    maxrl = len(s.gains)
    gv = [0.0, *s.gains]
    if not s.stops:
        sv = list(gv)
    elif len(s.stops) != maxrl:
        run.fail(b"gain/stop rel levels mismatch\n")
    else:
        sv = [0.0, *s.stops]
    for i in range(1, maxrl + 1):
        for j in range(i + 1, maxrl + 1):
            if gv[i] > gv[j] or sv[i] > sv[j]:
                run.fail(b"Bad gain/stop values\n")
    if s.verbose:
        for i in range(maxrl + 1):
            run.say(b"# gain[ %d ]=%s stop[ %d ]=%s\n"
                    % (i, printed(gv[i], 6), i, printed(sv[i], 6)))
    xrel = _replayed(run, _count_classes if s.ec_mode else _count_judged, s.rel, maxrl)
    jrel = sum(xrel[1:])
    if jrel == 0:
        run.fail(b"no rel doc\n")
    if s.ignore_unjudged and xrel[0] == 0:
        run.fail(b"no judged nonrel: bpref etc. not computable\n")
    system = run.read_stdin() if s.system is None else s.system
    labels: list[bytes] = []
    for text, complete in fgets_lines(system):
        if not complete:
            run.warn(b"Line too long: %s\n" % text)
            run.fail(b"file2strstrlist2 failed\n")
        fields = run.tokens(text)
        if next(fields, None) is None:
            run.warn(b"strtok failed\n")
            run.fail(b"file2strstrlist2 failed\n")
        labels.append(next(fields, b""))
    ideal = [gv[level] for level in range(maxrl, 0, -1) for _ in range(xrel[level])]
    ideal_levels = [level for level in range(maxrl, 0, -1) for _ in range(xrel[level])]
    run.say(b"%s # syslen=%d jrel=%d jnonrel=%d\n" % (outstr, len(labels), jrel, xrel[0]))
    levels: list[int] = []
    bad = None
    for label in labels:
        level = 0 if label == b"" else _quiet_level(label)
        if level < 0:
            bad = (len(levels) + 1, label)
            break
        if level > maxrl:
            raise Refused(f"relevance level L{level} of the ranked list is above the "
                          f"{maxrl} levels of -g")
        levels.append(level)
    levels += [0] * (len(labels) - len(levels))
    denominator = 0.0
    for i in range(1, maxrl + 1):
        denominator += xrel[i] * sv[i]
    _measures(run, s, outstr, _ideal(ideal, ideal_levels, s.logbase, s.gap, gv[maxrl]),
              [gv[v] for v in levels], [sv[v] for v in levels], levels,
              [v > 0 for v in levels], gv[maxrl], xrel[0], denominator, compute=True,
              bad=bad)


def _quiet_level(label: bytes) -> int:
    """The level of a label, negative where ``lab2level`` refuses it."""
    if label[:1] != b"L":
        return -1
    level = c_atol(label[1:])
    return -1 if level > MAX_LEVEL else level


def _gcompute(run: _Run) -> None:
    """``gcompute``: the measures of a ranked list labelled with global gains, against
    an ideal list (``-I``)."""
    settings = _read_settings(run, _gcompute_usage)
    if settings is None:
        raise _Return
    if settings.rel is None:
        run.warn(_gcompute_usage(run))
        raise _Return
    s = settings
    if s.rbp == 0.0 or s.rbp is None:
        s.rbp = DEFAULT_RBP
    outstr = b"" if run.outstr is None else run.outstr
    if run.sep is None:
        run.sep = b" "
    entries, jrel, jnonrel, hgain = _store_ideal(run, s.rel)
    if hgain <= 0.0:
        run.fail(b"store_ideal_gains\n")
    if jrel == 0:
        run.fail(b"no rel doc\n")
    if s.ignore_unjudged and jnonrel == 0:
        run.fail(b"no judged nonrel: bpref etc. not computable\n")
    system = run.read_stdin() if s.system is None else s.system
    gains: list[float] = []
    for text, complete in fgets_lines(system):
        if not complete:
            run.warn(b"Line too long: %s\n" % text)
            run.fail(b"store_syslist failed\n")
        fields = run.tokens(text)
        if next(fields, None) is None:
            run.warn(b"strtok failed: %s\n" % text)
            run.fail(b"store_syslist failed\n")
        value = next(fields, None)
        if value is None and s.ignore_unjudged:
            continue
        gains.append(0.0 if value is None else c_atof(value))
    run.say(b"%s # syslen=%d jrel=%d jnonrel=%d\n" % (outstr, len(gains), jrel, jnonrel))
    top = 0.0
    for gain in gains:
        if gain > top:
            top = gain
    relevant = [g > 0.0 for g in gains]
    _measures(run, s, outstr, _gcompute_ideal(s.rel, run.sep, s.logbase, s.gap),
              [g if g > 0.0 else 0.0 for g in gains], None, None, relevant, hgain, jnonrel,
              None, compute=False, top=top)


@functools.lru_cache(maxsize=CACHED_FILES)
def _gcompute_ideal(data: bytes, sep: bytes, logbase: float, gap: bool) -> _Ideal:
    """The :class:`_Ideal` of ``gcompute``'s ideal file ``data`` (its first ``jrel``
    gains), kept as :func:`_ideal_list` is."""
    entries, jrel, _, hgain, _ = _ideal_list(data, sep)
    gains = [gain for _, gain in entries[:jrel]]
    return _ideal(gains, gains, logbase, gap, hgain)


class _Ideal(NamedTuple):
    """What the measures read of an ideal list of ``jrel`` gains: the gains (an
    array), and from rank 0 to ``jrel`` the running sums of the gains (CG), of their
    discounted values (the original DCG and MSDCG), of GAP's terms and of ERR's."""

    gains: np.ndarray
    cg: list[float]
    dcg: list[float]
    msdcg: list[float]
    gap: list[float]
    err: list[float]


def _ideal(gains: list[float], gap_values: list, logbase: float, gap: bool, hgain: float
           ) -> _Ideal:
    """The :class:`_Ideal` of the ideal list ``gains``, whose highest gain is ``hgain``;
    ``gap_values`` are the values GAP reads (the gains in ``gcompute``, the relevance
    levels in ``compute``), read when ``gap`` is set."""
    import numpy as np

    from ...kernels.ntcir import err_terms

    jrel = len(gains)
    cg, dcg, msdcg, gapsum = [0.0] * (jrel + 1), [0.0] * (jrel + 1), [0.0] * (jrel + 1), \
        [0.0] * (jrel + 1)
    for i in range(1, jrel + 1):
        g = gains[i - 1]
        cg[i] = cg[i - 1] + g
        dcg[i] = dcg[i - 1] + cdiv(g, _dcg_log(logbase, i))
        msdcg[i] = msdcg[i - 1] + g / math.log(i + 1)
        if gap:
            v = gap_values[i - 1]
            gapsum[i] = gapsum[i - 1] + v * (v + 1)
    array = np.array(gains, dtype=np.float64)
    array.flags.writeable = False  # kept, for every ranked list of the topic
    with np.errstate(all="ignore"):  # IEEE infinities and NaNs, as the C program's
        err = np.cumsum(err_terms(array, top=hgain)).tolist()
    return _Ideal(array, cg, dcg, msdcg, gapsum, [0.0, *err])


def _measures(run: _Run, s: _Settings, outstr: bytes, ideal: _Ideal, gains: list[float],
              stops, levels, relevant: list[bool], hgain: float, jnonrel: int,
              gu_denominator, compute: bool, top: float = 0.0,
              bad: tuple[int, bytes] | None = None) -> None:
    """The measures of ``compute`` (relevance levels, the gains of ``-g``) or
    ``gcompute`` (global gains), printed as ``ntcir_eval`` prints them.

    ``ideal`` is what they read of the ideal list (the first ``jrel`` entries, as the
    program walks them), ``gains`` the ranked list's (0 unless relevant), ``relevant``
    whether each document counts as relevant (a level above 0 in ``compute``, a
    positive gain in ``gcompute``), ``hgain`` the highest gain (``g_max``)."""
    jrel = len(ideal.gains)
    syslen = len(gains)
    maxlen = max(jrel, syslen)
    n = maxlen + 1
    import numpy as np  # here, not at the top: label and the usage screens start lean

    from ...kernels.ntcir import blended_gains, cascade, ebr_terms, err_terms, rbp_terms

    def padded(sums: list[float]) -> list[float]:
        """``sums`` (from rank 0), the last one repeated up to rank ``maxlen``."""
        return sums + [sums[-1]] * (n - len(sums))

    def running(terms) -> list[float]:
        """The running sums (rank order) of ``terms``, 0 before rank 1, the last one
        repeated up to rank ``maxlen``."""
        return padded([0.0, *np.cumsum(terms).tolist()])

    cgi, dcgi, msdcgi, gapisum, erri = (padded(sums) for sums in ideal[1:])
    stop_denominator = hgain + 1
    if s.verbose:
        run.say(b"\n")
        for i in range(1, maxlen + 1):
            run.say(b"#%d CGi=%s DCGi=%s msDCGi=%s\n"
                    % (i, f4(cgi[i]), f4(dcgi[i]), f4(msdcgi[i])))
    rbp = DEFAULT_RBP if s.rbp is None else s.rbp
    # the blended ratio, ERR, EBR and RBP: the registry's kernels, whose per-rank terms
    # and rank-order sums are the C program's operations in its order
    counted = np.array(relevant, dtype=bool)
    found = np.where(counted, np.array(gains, dtype=np.float64), 0.0)
    with np.errstate(all="ignore"):
        ratio = blended_gains(found, ideal.gains, s.beta, relevant=counted)[2]
        err = running(err_terms(found, top=hgain))
        ebr = running(ebr_terms(found, ratio, top=hgain))
        rbpsum = running(rbp_terms(found, p=rbp))
        # iRBU's chance of reaching each rank (compute's -rbup only)
        reach = cascade(found, hgain)[1].tolist() if compute and s.rbu > 0 else []
    br = [0.0, *ratio.tolist()] + [0.0] * (maxlen - syslen)
    gs, cgs, dcgs, msdcgs = [0.0] * n, [0.0] * n, [0.0] * n, [0.0] * n
    count, ss = [0.0] * n, [0.0] * n
    irbu, gapsum = [0.0] * n, [0.0] * n
    r1 = rp = 0
    best = 0
    for i in range(1, syslen + 1):
        if bad is not None and i == bad[0]:  # a label lab2level refuses
            _level(run, bad[1])
            run.fail(b"lab2level failed for %s\n" % bad[1])
        if relevant[i - 1]:
            g = gains[i - 1]
            count[i] = count[i - 1] + 1
            gs[i] = g
            if compute:
                ss[i] = stops[i - 1]
            cgs[i] = cgs[i - 1] + g
            dcgs[i] = dcgs[i - 1] + cdiv(g, _dcg_log(s.logbase, i))
            msdcgs[i] = msdcgs[i - 1] + g / math.log(i + 1)
            if s.gap:
                total = 0.0
                if compute:
                    mine = levels[i - 1]
                    for j in range(i):
                        m = min(mine, levels[j])
                        total += m * (m + 1)
                else:
                    for j in range(1, i + 1):
                        m = gs[i] if gs[i] < gs[j] else gs[j]
                        total += m * (m + 1)
                gapsum[i] = total
            if count[i] == 1:
                r1 = i
            if compute:
                if best < levels[i - 1]:
                    best, rp = levels[i - 1], i
            elif rp == 0 and g == top:
                rp = i
        else:
            count[i], cgs[i], dcgs[i], msdcgs[i] = count[i - 1], cgs[i - 1], dcgs[i - 1], \
                msdcgs[i - 1]
        if compute and s.rbu > 0:
            irbu[i] = irbu[i - 1] + cdiv(cpow(s.rbu, i) * reach[i - 1] * gs[i],
                                         stop_denominator)
    for sums in (count, cgs, dcgs, msdcgs, irbu):
        sums[syslen + 1:] = [sums[syslen]] * (maxlen - syslen)
    if s.verbose:
        run.say(b"\n")
        for i in range(1, syslen + 1):
            if gs[i] > 0:
                run.say(b"#%d count=%d Gs=%s CGs=%s DCGs=%s msDCGs=%s BR=%s\n"
                        % (i, int(count[i]), f4(gs[i]), f4(cgs[i]), f4(dcgs[i]),
                           f4(msdcgs[i]), f4(br[i])))
        run.say(b"\n")
    say = run.say
    say(b"%s # r1=%d rp=%d\n" % (outstr, r1, rp))

    def line(name: bytes, value: float, tag: bytes = b"") -> None:
        """One measure's line: its name padded as for a cutoff of four digits."""
        spaces = b" " * (20 - len(name) - (5 if tag else 0))
        say(b"%s %s%s=%s%s\n" % (outstr, name, tag, spaces, f4(value)))

    if r1 == 0:
        for name in (b"RR", b"O-measure", b"P-measure", b"P-plus"):
            line(name, 0.0)
    else:
        line(b"RR", 1 / r1)
        line(b"O-measure", br[r1])
        line(b"P-measure", br[rp])
        total = 0.0
        for i in range(1, rp + 1):
            if gs[i] > 0:
                total += br[i]
        line(b"P-plus", cdiv(total, count[rp]))
    ap = q = 0.0
    for i in range(1, syslen + 1):
        if gs[i] > 0:
            ap += count[i] / i
            q += br[i]
    line(b"AP", ap / jrel)
    line(b"Q-measure", q / jrel)
    if compute:
        total = total2 = 0.0
        for i in range(1, syslen + 1):
            if gs[i] > 0:
                total += (count[i] / i) * ss[i]
                total2 += br[i] * ss[i]
        line(b"NCUgu,P", cdiv(total, gu_denominator))
        line(b"NCUgu,BR", cdiv(total2, gu_denominator))
    denominator = _ncu_rb_norm(s.gamma, jrel)
    total = total2 = 0.0
    for i in range(1, syslen + 1):
        if gs[i] > 0:
            weight = cpow(s.gamma, count[i] - 1)
            total += (count[i] / i) * weight
            total2 += br[i] * weight
    line(b"NCUrb,P", cdiv(total, denominator))
    line(b"NCUrb,BR", cdiv(total2, denominator))
    if s.gap:
        total = 0.0
        for i in range(1, syslen + 1):
            total += gapsum[i] / i
        line(b"GAP", cdiv(total, gapisum[jrel]))
    line(b"RBP", cdiv((1 - rbp) * rbpsum[syslen], hgain))
    line(b"ERR", err[syslen])
    line(b"EBR", ebr[syslen])
    for raw in s.cutoffs or [DEFAULT_CUTOFF]:
        cut = _as_long(raw)
        if cut < 0:
            raise Refused(f"cutoff {cut} is negative")
        minlen = min(cut, syslen)
        total = total2 = 0.0
        for j in range(1, minlen + 1):
            if gs[j] > 0:
                total += count[j] / j
                total2 += br[j]
        divisor = cut if cut < jrel else jrel
        tag = b"@%04d" % cut
        line(b"AP", cdiv(total, divisor), tag)
        line(b"Q", cdiv(total2, divisor), tag)
        if s.gap:
            total = 0.0
            for j in range(1, minlen + 1):
                total += gapsum[j] / j
            line(b"GAP", cdiv(total, gapisum[cut if cut < jrel else jrel]), tag)
        at = cut if cut <= maxlen else maxlen
        line(b"nDCG", cdiv(dcgs[at], dcgi[at]), tag)
        line(b"MSnDCG", cdiv(msdcgs[at], msdcgi[at]), tag)
        line(b"P", cdiv(count[at], cut), tag)
        line(b"RBP", cdiv((1 - rbp) * rbpsum[at], hgain), tag)
        line(b"ERR", err[at], tag)
        line(b"nERR", cdiv(err[at], erri[at]), tag)
        line(b"EBR", ebr[at], tag)
        if compute and s.rbu > 0:
            line(b"iRBU", irbu[at], tag)
        line(b"Hit", 1.0 if int(count[at]) > 0 else 0.0, tag)
    if s.ignore_unjudged:
        _condensed(s, line, gs, count, cgi, syslen, jrel, jnonrel, hgain)


@functools.lru_cache(maxsize=CACHED_FILES)
def _ncu_rb_norm(gamma: float, jrel: int) -> float:
    """Rank-biased NCU's denominator, ``sum_{k=1..jrel} gamma^(k-1)`` in rank order."""
    denominator = 0.0
    for i in range(1, jrel + 1):
        denominator += cpow(gamma, i - 1)
    return denominator


def _condensed(s: _Settings, line, gs, count, cgi, syslen: int, jrel: int, jnonrel: int,
               hgain: float) -> None:
    """The condensed-list measures of ``-j`` (Sakai, SIGIR 2007): bpref and its
    variants, rpref."""
    total = total2 = 0.0
    for i in range(1, syslen + 1):
        if gs[i] > 0:
            mini = i - count[i]
            if jrel < mini:
                mini = jrel
            ratio = 1 - cdiv(mini, jnonrel) if jrel > jnonrel else 1 - mini / jrel
            total += ratio
            total2 += 1 - mini / jrel
    line(b"bpref", total / jrel)
    line(b"bpref_R", total2 / jrel)
    total = total2 = 0.0
    for i in range(1, syslen + 1):
        if gs[i] > 0:
            total += 1 - cdiv(i - count[i], jnonrel)
            total2 += 1 - (i - count[i]) / (i - 1) if i > 1 else 0.0
    line(b"bpref_N", total / jrel)
    line(b"bpref_relative", total2 / jrel)
    total = total2 = total3 = 0.0
    room = jrel + jnonrel - cdiv(cgi[jrel], hgain)
    for i in range(1, syslen + 1):
        if gs[i] > 0:
            penalty = 0.0
            for j in range(1, i):
                if gs[i] - gs[j] > 0:
                    penalty += (gs[i] - gs[j]) / gs[i]
            total += gs[i] * (1 - cdiv(penalty, room))
            total2 += gs[i] * (1 - penalty / (i - 1) if i > 1 else 0.0)
            total3 += gs[i] * (1 - penalty / i)
    line(b"rpref_N", cdiv(total, cgi[jrel]))
    line(b"rpref_relative", cdiv(total2, cgi[jrel]))
    line(b"rpref_relative2", cdiv(total3, cgi[jrel]))


# ---------------------------------------------------------------------------------------
# 1click

def _oneclick(run: _Run) -> None:
    """The 1CLICK measures (Sakai, Kato & Song, CIKM 2011): recall, weighted recall, the
    S-measure, the T-measure and their flat forms, from a gold-standard nugget file
    (``-N``: nugget, weight, vital string length) and a matched-nugget file (its first
    line gives the length of the output, each other line a nugget and its offset)."""
    av = run.av
    length = 0
    verbose = False
    beta = 1.0
    nuggets = system = None
    k = 2
    while k < len(av):
        if _option(run, k, b"-L"):
            length, k = c_atol(av[k + 1]), k + 2
        elif av[k] == b"-v":
            verbose, k = True, k + 1
        elif _option(run, k, b"-out"):
            run.outstr, k = av[k + 1], k + 2
        elif _option(run, k, b"-sep"):
            run.sep, k = av[k + 1], k + 2
        elif _option(run, k, b"-beta"):
            beta, k = c_atof(av[k + 1]), k + 2
        elif _option(run, k, b"-N"):
            nuggets, k = run.fopen(av[k + 1]), k + 2
        else:
            system, k = _system_file(run, k), k + 1
    if length < 1 or nuggets is None:
        run.fail(b"Usage: %s %s [-v] [-sep <separator>] [-out <outstr>] [-beta <outstr>] "
                 b"-L <Lparameter> -N <nuggetfile> [matched nugget file]\n" % (av[0], av[1]))
    outstr = b"" if run.outstr is None else run.outstr
    if run.sep is None:
        run.sep = b" "
    ranked = _sorted_nuggets(run, nuggets)
    weight_total = s_denominator = 0.0
    cumulated = 0
    for name, weight, vital in ranked:
        weight_total += weight
        cumulated += vital
        if verbose:
            run.say(b"#%s w= %s vl= %d offset*= %d\n"
                    % (name, printed(weight, 6), vital, cumulated))
        if cumulated < length:
            s_denominator += weight * float(length - cumulated)
    if verbose:
        run.say(b"#wrec_denom= %s S-measure_denom= %s\n"
                % (printed(weight_total, 6), printed(s_denominator, 6)))
    output_length = -1
    matched = matched_vital = 0
    weight_matched = s_numerator = 0.0
    for line in run.lines(run.read_stdin() if system is None else system):
        fields = run.tokens(line)
        name = next(fields, None)
        value = None if name is None else next(fields, None)
        if value is None:
            run.fail(b"strtok failed\n")
        if output_length < 0:
            output_length = c_atol(value)
            continue
        offset = c_atol(value)
        found = next((n for n in ranked if n[0] == name), None)
        if found is None:
            run.fail(b"nugget2weightvlen failed: %s\n" % name)
        _, weight, vital = found
        matched += 1
        weight_matched += weight
        matched_vital += vital
        if offset < length:
            s_numerator += weight * float(length - offset)
        if verbose:
            run.say(b"#matched=%s w=%s offset=%d\n" % (name, printed(weight, 6),
                                                         offset))
    output_length = max(output_length, 0)

    def line3(name: bytes, value: float) -> None:
        run.say(b"%s %s=%s%s\n" % (outstr, name, b" " * (20 - len(name)),
                                   printed(value, 3)))

    run.say(b"%s #nuggets= %d #matched= %d #syslen= %d\n"
            % (outstr, len(ranked), matched, output_length))
    line3(b"Recall", float(matched) / float(len(ranked)))
    line3(b"W-recall", cdiv(weight_matched, weight_total))
    s_measure = cdiv(s_numerator, s_denominator)
    line3(b"S-measure", s_measure)
    s_flat = 1.0 if s_numerator > s_denominator else s_measure
    line3(b"S-flat", s_flat)
    if output_length == 0:
        t_flat = 0.0
        line3(b"T-measure", 0.0)
    else:
        t_measure = float(matched_vital) / float(output_length)
        line3(b"T-measure", t_measure)
        t_flat = 1.0 if matched_vital > output_length else t_measure
    line3(b"T-flat", t_flat)
    if s_flat > 0.0 or t_flat > 0.0:
        square = beta * beta
        line3(b"F-flat", cdiv((1 + square) * t_flat * s_flat, square * t_flat + s_flat))
    else:
        line3(b"F-flat", 0.0)


def _sorted_nuggets(run: _Run, data: bytes) -> list[tuple[bytes, float, int]]:
    """The gold-standard nuggets (name, weight, vital string length), heaviest first and,
    among equal weights, shortest first, inserted one by one as ``ntcir_eval`` does."""
    ranked: list[tuple[bytes, float, int]] = []
    for text in _rel_lines(run, data, b"file2sortnug failed\n"):
        fields = run.tokens(text)
        values = [next(fields, None) for _ in range(3)]
        if None in values:
            run.warn(b"strtok failed\n")
            run.fail(b"file2sortnug failed\n")
        name, weight, vital = values[0], c_atof(values[1]), c_atol(values[2])
        if weight <= 0.0 or vital <= 0:
            run.warn(b"addto_sortnug failed for %s\n" % name)
            run.fail(b"file2sortnug failed\n")
        _insert_nugget(ranked, (name, weight, vital))
    if not ranked:
        run.fail(b"file2sortnug failed\n")
    return ranked


def _insert_nugget(ranked: list, nugget: tuple[bytes, float, int]) -> None:
    """``nugget`` put before the first nugget lighter than it, or as heavy and longer."""
    _, weight, vital = nugget

    def before(other) -> bool:
        return other[1] < weight or (other[1] == weight and other[2] > vital)

    if not ranked or before(ranked[0]):
        ranked.insert(0, nugget)
        return
    at = 1
    while at < len(ranked) and not before(ranked[at]):
        at += 1
    ranked.insert(at, nugget)
