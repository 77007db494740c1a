"""``xdiv trec_eval``: TREC's trec_eval (10.0, or 9.0.8 with ``--version-9``), with its
options, its output, its messages and its exit statuses, byte for byte: the everyday
case in plain Python (:mod:`xdiv.formats.trec_eval_lean`), anything else by the full
program (:mod:`xdiv.formats.trec_eval_tool`)."""

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


def add_parser(sub) -> None:
    parser = sub.add_parser(
        "trec_eval", help="TREC's trec_eval, output byte for byte",
        description=textwrap.fill(ABOUT, 79), epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.error = _error_with_status_1(parser)
    parser.set_defaults(handler=run_trec_eval, usage_error=parser.error)
    add = parser.add_argument
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


def _error_with_status_1(parser: argparse.ArgumentParser):
    """The parser's ``error``: argparse's usage line and message, and the status
    trec_eval exits with on a bad option or a missing file name (1; argparse's is 2)."""

    def error(message: str):
        parser.print_usage(sys.stderr)
        parser.exit(1, f"{parser.prog}: error: {message}\n")

    return error


def _refuse(reason: str) -> int:
    print(shown(f"xdiv trec_eval: {reason} (run trec_eval itself)", MESSAGE_LIMIT),
          file=sys.stderr)
    return 1


def trec_eval_options(args):
    """The :class:`~xdiv.formats.trec_eval_tool.Options` of parsed ``xdiv trec_eval``
    arguments (numbers read with C's ``atol``, as trec_eval reads them)."""
    from ..formats.trec_eval_table import MAXLONG, Options
    from ..io.trec_eval_text import c_atol

    def number(text: str) -> int:
        return c_atol(text.encode("utf-8", "surrogateescape"))

    return Options(
        measures=tuple(args.measures), query=args.query, complete=args.complete,
        summary=not args.no_summary, judged_only=args.judged_only,
        level=number(args.level),
        max_docs=MAXLONG if args.max_docs is None else number(args.max_docs),
        num_docs=number(args.num_docs), rel_format=args.rel_format,
        results_format=args.results_format, zscores=args.zscores,
        version=9 if args.version_9 else 10)


def trec_eval_outcome(qrels: str, results: str, options):
    """What the command writes and its status: the everyday case (clean files, common
    measures) from :func:`~xdiv.formats.trec_eval_lean.lean_run`, without numpy, whose
    import alone takes longer than trec_eval's whole run; anything else from the full
    program, :func:`~xdiv.formats.trec_eval_tool.trec_eval_run` (which raises
    ``NotReproduced`` for what it does not reproduce)."""
    from ..formats.trec_eval_lean import lean_run

    outcome = lean_run(qrels, results, options)
    if outcome is not None:
        return outcome
    # the command does no linear algebra, so numpy need not start BLAS threads (a tenth
    # of a second on a loaded machine)
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from ..formats.trec_eval_tool import trec_eval_run

    return trec_eval_run(qrels, results, options)


def run_trec_eval(args) -> int:
    from ..formats.trec_eval_table import version_string
    from ..io.trec_eval_text import NotReproduced

    if args.tool_version:
        sys.stderr.write(f"trec_eval version {version_string(9 if args.version_9 else 10)}\n")
        return 0
    if args.debug is not None:
        return _refuse("option -D (debug output) is not supported")
    try:
        outcome = trec_eval_outcome(args.qrels, args.results, trec_eval_options(args))
    except NotReproduced as exc:
        return _refuse(str(exc))
    sys.stdout.flush()
    sys.stdout.buffer.write(outcome.stdout)
    sys.stdout.buffer.flush()
    sys.stderr.flush()
    sys.stderr.buffer.write(outcome.stderr)
    sys.stderr.buffer.flush()
    return outcome.status
