"""``xdiv ndeval`` and ``xdiv gdeval``: TREC's official diversity and graded evaluation
tools, with their options and their output to the byte (see :mod:`xdiv.official`)."""

from __future__ import annotations

import argparse
import sys

from .._version import __version__
from ..errors import MESSAGE_LIMIT, shown
from ..io._spool import spooled_inputs
from ..typing import ADHOC_METHODS
from .common import about, command, expand_inputs, number, progress_wanted, whole

NDEVAL_ABOUT = (
    "Evaluate diversity runs exactly as TREC's ndeval (version 4.5, TREC Web Track "
    "2013-2014) does and print its CSV: per topic and on an 'amean' line, ERR-IA, nERR-IA, "
    "alpha-DCG and alpha-nDCG at 5, 10 and 20, NRBP, nNRBP, MAP-IA, P-IA and strec (subtopic "
    "recall) at 5, 10 and 20. As ndeval, documents are ranked by the rank column unless "
    "-traditional is given (score, ties by docno descending), judgments above 1 count as 1, "
    "every retrieved topic is listed (0 when it is not in the qrels) and the mean is over "
    "the retrieved topics of the qrels (-c: over all of them). Several runs give one block "
    "each. Unlike ndeval, negative (spam) judgments are read as non-relevant rather than "
    "rejected, so the 2011-2014 qrels can be used as distributed.")
RISK_ALPHA_NOTE = ("-riskAlpha (also --risk-alpha) defaults to 0, as in the official tool; "
                   "xdiv risk\n--risk-alpha has the same name and default.\n")
"""Said under ``xdiv ndeval --help`` and ``xdiv gdeval --help``."""
RISK_LABELS = ("2013", "2014")
"""The years of ``--risk-label`` (:data:`xdiv.official.layout.RISK_LABELS`, not imported
while the parser is built)."""
RISK_LABEL_HELP = (
    "the run label against a baseline as the tool's release of that year prints it: 2014 "
    "(the default; the tool as distributed since June 2014) 'run (rel to. base; rs=1+a; "
    "a=A)', 2013 'run (rel to. base, rs=1+a, a=A)'; both releases carry the same version "
    "number")
NDEVAL_EXAMPLES = """examples:
  xdiv ndeval qrels.diversity.gz run.gz
  xdiv ndeval -traditional -c qrels.diversity.gz runs/*.gz
  xdiv ndeval -baseline base.gz -riskAlpha 1 qrels.diversity.gz run.gz
  xdiv ndeval -baseline base.gz -riskAlpha 1 --risk-label 2013 qrels.diversity.gz run.gz
""" + "\n" + RISK_ALPHA_NOTE + """
Files are read as ndeval reads them: topics by number (wt09-1 and 01 are topic 1; a
topic ndeval cannot read is kept as written, with a warning); a run without tag column
is refused with ndeval's message and exit status (1); a document retrieved twice for a
topic is refused when it is within the -M depth (below it, ndeval cuts it off first).
A blank line, and a rank given twice within a topic (unless -traditional), are refused
with ndeval's message and exit status (1) too.
"""
GDEVAL_ABOUT = (
    "Evaluate runs exactly as TREC's gdeval (version 1.3, TREC Web Track 2010-2014) does "
    "and print its CSV: nDCG@k and ERR@k per topic and on an 'amean' line, with gains "
    "2^g - 1, the discount 1/log2(rank + 1), ERR's stopping probability (2^g - 1)/16 and "
    "the ideal list of the judged relevant documents cut at k. Documents are ranked by "
    "score, ties by docno descending; topics without a relevant document are not listed; "
    "the mean is over the listed topics (-c: over every topic with a relevant document). "
    "Qrels are adhoc qrels with grades up to 4 (negative grades are non-relevant); "
    "--adhoc converts diversity qrels first. Several runs give one block each.")
GDEVAL_EXAMPLES = """examples:
  xdiv gdeval qrels.adhoc.txt run.gz
  xdiv gdeval -k 10 -c qrels.adhoc.txt runs/*.gz
  xdiv gdeval --adhoc max qrels.diversity.gz run.gz
  xdiv gdeval -baseline base.gz -riskAlpha 5 qrels.adhoc.txt run.gz
  xdiv gdeval -c -baseline base.gz --gdeval-baseline-bug qrels.adhoc.txt run.gz
""" + "\n" + RISK_ALPHA_NOTE + """
Files are read as gdeval reads them: what precedes the last '-' of a topic is removed
and the rest compared as text (wt-51 is 51; 0151 is not 151); a run without tag column
is refused with gdeval.pl's message and exit status (25: perl's errno after its reads).
A document retrieved twice for a topic within the top k is refused (gdeval would count
it twice); below the top k it is read as gdeval reads it.
A rank is any digits, beyond 64-bit integers too; a blank line is refused as gdeval.pl
refuses it, and a refused last line without line feed ends with status 255, as there.
"""
GDEVAL_BUG_HELP = (
    "with -c and -baseline, reproduce a bug of gdeval 1.3: a topic that neither the run "
    "nor the baseline retrieved is compared with the baseline values of the topic before "
    "it among those the run did not retrieve, instead of 0 (xdiv's default)")

def _unit(text: str) -> float:
    value = number(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must lie from 0 to 1, not {text}")
    return value


def _risk_alpha(text: str) -> str:
    """A non-negative number, kept as typed: both tools print it in their run labels."""
    if number(text) < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, not {text}")
    return text


def _common(parser: argparse.ArgumentParser, tool: str) -> None:
    parser.add_argument("--version", action="version",
                        version=f"xdiv {__version__} ({tool}'s output)")
    parser.add_argument("-c", action="store_true", dest="complete",
                        help="average over every topic of the qrels, not only the retrieved "
                             "ones")
    parser.add_argument("-baseline", "--baseline", metavar="RUN",
                        help="baseline run for risk-sensitive evaluation: rows become the "
                             "risk-weighted differences from it")
    parser.add_argument("-riskAlpha", "--riskAlpha", "--risk-alpha", dest="risk_alpha",
                        type=_risk_alpha, default="0", metavar="A",
                        help="losses against the baseline count 1 + A times (default: 0)")
    parser.add_argument("qrels", help="qrels file (gzip allowed)")
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run files (gzip allowed)")


def add_parser(sub) -> None:
    nd = command(sub, "ndeval", "TREC's ndeval, output byte for byte", run_ndeval,
                 about=NDEVAL_ABOUT, examples=NDEVAL_EXAMPLES)
    nd.add_argument("-alpha", "--alpha", type=_unit, default=0.5,
                    help="redundancy intolerance of alpha-nDCG, ERR-IA and NRBP (default: "
                         "0.5)")
    nd.add_argument("-beta", "--beta", type=_unit, default=0.5,
                    help="patience of NRBP (default: 0.5)")
    nd.add_argument("-traditional", "--traditional", action="store_true",
                    help="rank by score, ties by docno descending, instead of by the rank "
                         "column")
    nd.add_argument("-M", "--depth", type=whole(1), dest="depth", metavar="DEPTH",
                    help="cut each run at this depth")
    nd.add_argument("-a", action="store_true", dest="all_measures",
                    help="accepted for compatibility; ndeval always prints every measure")
    _common(nd, "TREC ndeval 4.5")
    nd.add_argument("--risk-label", choices=RISK_LABELS, default="2014",
                    help=RISK_LABEL_HELP)

    gd = command(sub, "gdeval", "TREC's gdeval, output byte for byte", run_gdeval,
                 about=GDEVAL_ABOUT, examples=GDEVAL_EXAMPLES)
    gd.add_argument("-k", "--k", type=whole(1), default=20, dest="k",
                    help="depth of nDCG and ERR (default: %(default)s)")
    gd.add_argument("--adhoc", choices=ADHOC_METHODS,
                    help="convert diversity qrels to adhoc grades first (xdiv's addition)")
    _common(gd, "TREC gdeval 1.3")
    gd.add_argument("--risk-label", choices=RISK_LABELS, default="2014",
                    help=RISK_LABEL_HELP)
    gd.add_argument("--gdeval-baseline-bug", action="store_true", dest="baseline_bug",
                    help=GDEVAL_BUG_HELP)


def _read(args, order: str, spool, tool: str, depth: int | None):
    """The qrels, runs and baseline of the command line, read from the ``spool``'s paths
    (:func:`xdiv.io._spool.spooled_inputs`: ``-``, pipes and quoted glob patterns
    accepted, as by ``xdiv evaluate``) as ``tool`` reads them
    (:func:`xdiv.official.ndeval_tool.report.read_tool_runs`), in the tool's order
    (ndeval: the run, then the baseline; gdeval 1.3: the baseline first)."""
    from ..core.adhoc import to_adhoc
    from ..official.ndeval_tool.report import read_tool_qrels, read_tool_runs, tool_collection

    qrels, *paths = spool.paths
    n_runs = len(paths) - (1 if args.baseline else 0)
    collection = read_tool_qrels(qrels)
    if getattr(args, "adhoc", None):
        collection = to_adhoc(collection, args.adhoc)
    collection = tool_collection(collection, tool, qrels)

    def read(files, progress=False):
        return read_tool_runs(files, tool=tool, order=order, depth=depth, progress=progress)

    baseline = read(paths[n_runs:]) if args.baseline and tool == "gdeval" else None
    runs = read(paths[:n_runs], progress_wanted(args))
    if args.baseline and tool == "ndeval":
        baseline = read(paths[n_runs:])
    return collection, runs, baseline


def _inputs(args) -> list[str]:
    """The qrels, the run files (glob patterns expanded) and the baseline, in order."""
    return [args.qrels, *expand_inputs(args.runs), *([args.baseline] if args.baseline else [])]


def _refused(exc) -> int:
    """An input the official tool refuses, said as the tool says it (one line) and ended
    with the tool's exit status (:class:`xdiv.official.layout.ToolRefusal`)."""
    print(shown(f"xdiv: error: {exc}", MESSAGE_LIMIT), file=sys.stderr)
    return exc.status


def run_ndeval(args) -> int:
    from ..core.ranking import order_switch
    from ..official.layout import ToolRefusal

    try:
        # runs whose rank column and scores disagree: -traditional is ndeval's switch, and
        # with it the rank column is not read
        with order_switch(None if args.traditional else "-traditional"):
            return _ndeval(args)
    except ToolRefusal as exc:
        return _refused(exc)


def _ndeval(args) -> int:
    order = "score-docno-desc" if args.traditional else "rank"
    with spooled_inputs(_inputs(args)) as spool:
        if args.baseline is None:
            # plain files take the numpy path, which loads neither pandas nor xarray
            from ..official.plain import ndeval_plain

            text = ndeval_plain(spool.paths[0], spool.paths[1:], order=order,
                                alpha=args.alpha, beta=args.beta, complete=args.complete,
                                depth=args.depth, tool_topics=True)
            if text is not None:
                print(text, end="")
                return 0
        collection, runs, baseline = _read(args, order, spool, "ndeval", args.depth)
    from ..official.ndeval_tool.report import ndeval_report

    with about(args.qrels):
        print(ndeval_report(collection, runs, alpha=args.alpha, beta=args.beta,
                            complete=args.complete, baseline=baseline,
                            risk_alpha=float(args.risk_alpha),
                            risk_alpha_text=args.risk_alpha,
                            risk_label=args.risk_label), end="")
    return 0


def run_gdeval(args) -> int:
    from ..core.ranking import order_switch
    from ..official.layout import ToolRefusal

    try:
        with order_switch(None):  # gdeval reads no rank column, and has no other ranking
            return _gdeval(args)
    except ToolRefusal as exc:
        return _refused(exc)


def _gdeval(args) -> int:
    with spooled_inputs(_inputs(args)) as spool:
        if args.baseline is None and not args.adhoc:
            from ..official.plain import gdeval_plain

            text = gdeval_plain(spool.paths[0], spool.paths[1:], k=args.k,
                                complete=args.complete, tool_topics=True)
            if text is not None:
                print(text, end="")
                return 0
        # the runs are cut at k: the documents gdeval's measures read
        collection, runs, baseline = _read(args, "score-docno-desc", spool, "gdeval", args.k)
    from ..official.gdeval.report import gdeval_report

    with about(args.qrels):
        print(gdeval_report(collection, runs, k=args.k, complete=args.complete,
                            baseline=baseline, risk_alpha=float(args.risk_alpha),
                            risk_alpha_text=args.risk_alpha, risk_label=args.risk_label,
                            baseline_bug=args.baseline_bug), end="")
    return 0
