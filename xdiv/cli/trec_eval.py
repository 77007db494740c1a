"""``xdiv trec_eval``: TREC's trec_eval (10.0, or 9.0.8 with ``--version-9``), with its
options, its output, its messages and its exit statuses, byte for byte: the everyday
case in plain Python (:mod:`xdiv.official.trec_eval.lean`), anything else by the full
program (:mod:`xdiv.official.trec_eval.tool`)."""

from __future__ import annotations

import argparse
import os
import sys
import textwrap

from ..errors import MESSAGE_LIMIT, shown

ABOUT = (
    "Evaluate a run exactly as TREC's trec_eval 10.0 does: the same measures (-m, with "
    "trec_eval's names, nicknames and parameters), the same options, the same output on "
    "standard output, the same messages on standard error and the same exit status, byte "
    "for byte, including where trec_eval stops (a malformed line, a docno given twice, a "
    "topic of the qrels that the run lacks without -c). --version-9 follows trec_eval "
    "9.0.8 instead. Documents are ranked as trec_eval ranks them: by score descending, "
    "ties by docno descending. A RESULTS of '-' is standard input. What is not reproduced "
    "yet is refused with one line on standard error and status 1 rather than computed "
    "differently.")
EXAMPLES = """examples:
  xdiv trec_eval qrels.txt run.txt
  xdiv trec_eval -q -m map -m P.5,10 -m ndcg_cut.10 qrels.txt run.txt
  xdiv trec_eval -c -M 1000 -m official qrels.txt run.txt
  zcat run.gz | xdiv trec_eval qrels.txt -
"""


PROGRAM = b"trec_eval"
"""The program name in getopt's messages (trec_eval's ``argv[0]`` when run from the
``PATH``)."""
SHORT_OPTIONS = b"hvqm:cl:nD:JN:M:R:T:oZ:"
"""trec_eval's ``getopt_long`` option string."""
LONG_OPTIONS = (
    (b"help", False, "h"), (b"version", False, "v"), (b"query_eval_wanted", False, "q"),
    (b"measure", True, "m"), (b"complete_rel_info_wanted", False, "c"),
    (b"level_for_rel", True, "l"), (b"nosummary", False, "n"), (b"Debug_level", True, "D"),
    (b"Judged_docs_only", False, "J"), (b"Number_docs_in_coll", True, "N"),
    (b"Max_retrieved_per_topic", True, "M"), (b"Rel_info_format", True, "R"),
    (b"Results_format", True, "T"), (b"Output_old_results_format", True, "o"),
    (b"Zscore", True, "Z"))
"""trec_eval's long options, in its order: name, whether it takes an argument (its
``--Output_old_results_format`` does, unlike ``-o``), option letter."""
VERSION_9 = b"--version-9"
"""xdiv's own option (exactly so spelled: it is not one of trec_eval's to abbreviate)."""


def add_parser(sub) -> None:
    parser = sub.add_parser(
        "trec_eval", help="TREC's trec_eval, output byte for byte",
        description=textwrap.fill(ABOUT, 79), epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter, add_help=False)
    _declare(parser)
    parser.set_defaults(handler=run_trec_eval)
    # trec_eval's command line is read as trec_eval reads it (glibc's getopt_long), not by
    # argparse: the declarations above are the command's help
    parser.parse_known_args = _unparsed


def _unparsed(args=None, namespace=None):
    """The subcommand's ``parse_known_args``: its arguments kept as they are."""
    namespace = argparse.Namespace() if namespace is None else namespace
    namespace.handler = run_trec_eval
    namespace.tool_argv = list(sys.argv[1:] if args is None else args)
    return namespace, []


def _documented() -> argparse.ArgumentParser:
    """The command's help and usage, as ``xdiv trec_eval -h`` prints them."""
    parser = argparse.ArgumentParser(
        prog="xdiv trec_eval", description=textwrap.fill(ABOUT, 79), epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter, add_help=False)
    _declare(parser)
    return parser


def _usage() -> bytes:
    """The command's usage line, as trec_eval's messages about its command line end."""
    return _documented().format_usage().encode()


def _declare(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add("-h", "--help", action="store_true",
        help="print this help on standard output and stop (trec_eval's own help is "
             "its authors' text, not repeated here)")
    add("-q", "--query_eval_wanted", action="store_true", dest="query",
        help="also print each topic's values")
    add("-m", "--measure", action="append", default=[], dest="measures",
        metavar="MEASURE[.PARAMS]",
        help="a measure or nickname to print (official, all_trec, set), with parameters "
             "after a dot (P.5,10, ndcg_cut.10, iprec_at_recall..1,.5); repeatable "
             "(default: official)")
    add("-c", "--complete_rel_info_wanted", action="store_true", dest="complete",
        help="average over every topic of the qrels (a topic the run lacks counts as "
             "an empty ranking)")
    add("-n", "--nosummary", action="store_true", dest="no_summary",
        help="print no summary lines")
    add("-l", "--level_for_rel", default="1", dest="level", metavar="NUM",
        help="lowest level that is relevant (default: 1)")
    add("-M", "--Max_retrieved_per_topic", default=None, dest="max_docs", metavar="NUM",
        help="evaluate only the top NUM documents of each topic")
    add("-N", "--Number_docs_in_coll", default="0", dest="num_docs", metavar="NUM",
        help="documents in the collection (for utility)")
    add("-J", "--Judged_docs_only", action="store_true", dest="judged_only",
        help="remove the documents without a qrels line (or with a negative level) "
             "before computing anything")
    add("-R", "--Rel_info_format", default="qrels", dest="rel_format", metavar="FORMAT",
        help="format of QRELS: qrels, qrels_jg (judgment groups), prefs or qrels_prefs "
             "(preferences) (default: qrels)")
    add("-T", "--Results_format", default="trec_results", dest="results_format",
        metavar="FORMAT", help="format of the run (default: trec_results)")
    add("-Z", "--Zscore", default=None, dest="zscores", metavar="FILE",
        help="print z-scores against the means and deviations of FILE")
    add("-D", "--Debug_level", default=None, dest="debug", metavar="NUM",
        help="trec_eval's debug output (not reproduced: refused)")
    add("-o", action="store_true", dest="old_format",
        help="accepted and ignored, as trec_eval does")
    add("-v", "--version", action="store_true", dest="tool_version",
        help="print trec_eval's version line on standard error and stop")
    add("--version-9", action="store_true", dest="version_9",
        help="follow trec_eval 9.0.8 where it differs from 10.0")
    add("qrels", metavar="QRELS", help="qrels file (topic iter docno level)")
    add("results", metavar="RESULTS",
        help="run file (topic Q0 docno rank score tag); '-' for standard input")


def _refusal(reason: str):
    from ..official.trec_eval.table import Outcome

    line = shown(f"xdiv trec_eval: {reason} (run trec_eval itself)", MESSAGE_LIMIT)
    return Outcome(b"", line.encode("utf-8", "backslashreplace") + b"\n", 1)


def _getopt(argv: list[bytes]) -> tuple[list[tuple[str, bytes | None]], list[bytes]]:
    """``argv`` read as glibc's ``getopt_long`` reads trec_eval's: the options in order,
    each ``(letter, argument)`` (``("?", message)`` for one it rejects, ``("9", None)``
    for ``--version-9``), and the other arguments (``--`` ends the options; with
    ``POSIXLY_CORRECT`` set, so does the first other argument)."""
    events: list[tuple[str, bytes | None]] = []
    operands: list[bytes] = []
    permute = "POSIXLY_CORRECT" not in os.environ
    k = 0
    while k < len(argv):
        arg = argv[k]
        k += 1
        if arg == b"--":
            operands += argv[k:]
            break
        if not arg.startswith(b"-") or arg == b"-":
            if not permute:
                operands += argv[k - 1:]
                break
            operands.append(arg)
        elif arg == VERSION_9:
            events.append(("9", None))
        elif arg.startswith(b"--"):
            event, k = _long_option(arg[2:], argv, k)
            events.append(event)
        else:
            k = _short_options(arg[1:], argv, k, events)
    return events, operands


def _short_options(cluster: bytes, argv: list[bytes], k: int, events: list) -> int:
    """The options of ``-xyz`` (``cluster``) appended to ``events``; the index of the
    next argument."""
    for j in range(len(cluster)):
        char = cluster[j:j + 1]
        where = SHORT_OPTIONS.find(char)
        if where < 0 or char == b":":
            events.append(("?", b"%s: invalid option -- '%s'\n" % (PROGRAM, char)))
        elif SHORT_OPTIONS[where + 1:where + 2] != b":":
            events.append((char.decode(), None))
        elif j + 1 < len(cluster):
            events.append((char.decode(), cluster[j + 1:]))
            return k
        elif k < len(argv):
            events.append((char.decode(), argv[k]))
            return k + 1
        else:
            events.append(("?", b"%s: option requires an argument -- '%s'\n"
                           % (PROGRAM, char)))
    return k


def _long_option(text: bytes, argv: list[bytes], k: int) -> tuple[tuple, int]:
    """``--text`` (a name, or a prefix of one, and maybe ``=argument``): its event and
    the index of the next argument."""
    name, equals, value = text.partition(b"=")
    found = [o for o in LONG_OPTIONS if o[0] == name] or \
        [o for o in LONG_OPTIONS if o[0].startswith(name)]
    if len(found) > 1:
        return ("?", b"%s: option '--%s' is ambiguous; possibilities:%s\n" % (
            PROGRAM, text, b"".join(b" '--%s'" % o[0] for o in found))), k
    if not found:
        return ("?", b"%s: unrecognized option '--%s'\n" % (PROGRAM, text)), k
    long_name, takes, letter = found[0]
    if equals:
        if takes:
            return (letter, value), k
        return ("?", b"%s: option '--%s' doesn't allow an argument\n"
                % (PROGRAM, long_name)), k
    if not takes:
        return (letter, None), k
    if k < len(argv):
        return (letter, argv[k]), k + 1
    return ("?", b"%s: option '--%s' requires an argument\n" % (PROGRAM, long_name)), k


def trec_eval_arguments(argv):
    """``xdiv trec_eval ARGV`` read as trec_eval reads its command line: ``(qrels,
    results, options)`` (:class:`~xdiv.official.trec_eval.tool.Options`, numbers read
    with C's ``atol``), or the :class:`~xdiv.official.trec_eval.tool.Outcome` of a command
    that stops before reading a file: trec_eval's messages and statuses for a bad option
    (getopt's line, then this command's usage), an illegal measure, ``-v`` (where it
    comes: options are acted on in order), a wrong number of file names (the usage),
    ``-h`` (this command's help) and the refusal of ``-D``."""
    from ..official.trec_eval.table import MAXLONG, Options, Outcome, Stop, \
        measure_arguments, version_string
    from ..official.trec_eval.text import c_atol

    events, operands = _getopt([os.fsencode(a) for a in argv])
    version = 9 if ("9", None) in events else 10
    measures: list[str] = []
    flags: set[str] = set()
    given: dict = {}
    for letter, value in events:
        if letter == "?":
            return Outcome(b"", value + _usage(), 1)
        if letter == "v":
            return Outcome(b"", f"trec_eval version {version_string(version)}\n".encode(), 0)
        if letter == "m":
            try:
                measure_arguments((os.fsdecode(value),), version)
            except Stop as stop:
                return Outcome(b"", stop.stderr, stop.status)
            measures.append(os.fsdecode(value))
        elif value is None:
            flags.add(letter)
        else:
            given[letter] = value
    if "h" in flags:
        return Outcome(_documented().format_help().encode(), b"", 0)
    if len(operands) != 2:
        return Outcome(b"", _usage(), 1)
    if "D" in given:
        return _refusal("option -D (debug output) is not supported")
    options = Options(
        measures=tuple(measures), query="q" in flags, complete="c" in flags,
        summary="n" not in flags, judged_only="J" in flags,
        level=c_atol(given.get("l", b"1")), max_docs=c_atol(given.get("M", b"%d" % MAXLONG)),
        num_docs=c_atol(given.get("N", b"0")),
        rel_format=os.fsdecode(given.get("R", b"qrels")),
        results_format=os.fsdecode(given.get("T", b"trec_results")),
        zscores=os.fsdecode(given["Z"]) if "Z" in given else None, version=version)
    return os.fsdecode(operands[0]), os.fsdecode(operands[1]), options


def trec_eval_command(argv):
    """What ``xdiv trec_eval ARGV`` writes and its status, as an
    :class:`~xdiv.official.trec_eval.tool.Outcome` (what it does not reproduce: one line
    on standard error and status 1)."""
    from ..official.trec_eval.table import Outcome
    from ..official.trec_eval.text import NotReproduced

    parsed = trec_eval_arguments(argv)
    if isinstance(parsed, Outcome):
        return parsed
    try:
        return trec_eval_outcome(*parsed)
    except NotReproduced as exc:
        return _refusal(str(exc))


def trec_eval_outcome(qrels: str, results: str, options):
    """What the command writes and its status: the everyday case (clean files, common
    measures) from :func:`~xdiv.official.trec_eval.lean.lean_run`, without numpy, whose
    import alone takes longer than trec_eval's whole run; anything else from the full
    program, :func:`~xdiv.official.trec_eval.tool.trec_eval_run` (which raises
    ``NotReproduced`` for what it does not reproduce)."""
    from ..official.trec_eval.lean import lean_run

    outcome = lean_run(qrels, results, options)
    if outcome is not None:
        return outcome
    # the command does no linear algebra, so numpy need not start BLAS threads (a tenth
    # of a second on a loaded machine)
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from ..official.trec_eval.tool import trec_eval_run

    return trec_eval_run(qrels, results, options)


def run_trec_eval(args) -> int:
    outcome = trec_eval_command(args.tool_argv)
    sys.stdout.flush()
    sys.stdout.buffer.write(outcome.stdout)
    sys.stdout.buffer.flush()
    sys.stderr.flush()
    sys.stderr.buffer.write(outcome.stderr)
    sys.stderr.buffer.flush()
    return outcome.status
