"""``xdiv ndeval`` and ``xdiv gdeval``: TREC's official diversity and graded evaluation
tools, with their options and their output to the byte (see :mod:`xdiv.official`)."""

from __future__ import annotations

import argparse

from .._version import __version__
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
NDEVAL_EXAMPLES = """examples:
  xdiv ndeval qrels.diversity.gz run.gz
  xdiv ndeval -traditional -c qrels.diversity.gz runs/*.gz
  xdiv ndeval -baseline base.gz -riskAlpha 1 qrels.diversity.gz run.gz
""" + "\n" + RISK_ALPHA_NOTE
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
""" + "\n" + RISK_ALPHA_NOTE


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

    gd = command(sub, "gdeval", "TREC's gdeval, output byte for byte", run_gdeval,
                 about=GDEVAL_ABOUT, examples=GDEVAL_EXAMPLES)
    gd.add_argument("-k", "--k", type=whole(1), default=20, dest="k",
                    help="depth of nDCG and ERR (default: %(default)s)")
    gd.add_argument("--adhoc", choices=ADHOC_METHODS,
                    help="convert diversity qrels to adhoc grades first (xdiv's addition)")
    _common(gd, "TREC gdeval 1.3")


def _read(args, order: str, spool):
    """The qrels, runs and baseline of the command line, read from the ``spool``'s paths
    (:func:`xdiv.io._spool.spooled_inputs`: ``-``, pipes and quoted glob patterns
    accepted, as by ``xdiv evaluate``)."""
    from ..core.adhoc import to_adhoc
    from ..io.api import read_qrels
    from ..io.runfiles import read_runs

    qrels, *paths = spool.paths
    n_runs = len(paths) - (1 if args.baseline else 0)
    collection = read_qrels(qrels)
    if getattr(args, "adhoc", None):
        collection = to_adhoc(collection, args.adhoc)
    runs = read_runs(paths[:n_runs], order=order, progress=progress_wanted(args))
    baseline = read_runs(paths[n_runs:], order=order) if args.baseline else None
    return collection, runs, baseline


def _inputs(args) -> list[str]:
    """The qrels, the run files (glob patterns expanded) and the baseline, in order."""
    return [args.qrels, *expand_inputs(args.runs), *([args.baseline] if args.baseline else [])]


def run_ndeval(args) -> int:
    order = "score-docno-desc" if args.traditional else "rank"
    with spooled_inputs(_inputs(args)) as spool:
        if args.baseline is None:
            # plain files take the numpy path, which loads neither pandas nor xarray
            from ..formats.plain import ndeval_plain

            text = ndeval_plain(spool.paths[0], spool.paths[1:], order=order,
                                alpha=args.alpha, beta=args.beta, complete=args.complete,
                                depth=args.depth)
            if text is not None:
                print(text, end="")
                return 0
        collection, runs, baseline = _read(args, order, spool)
    from ..formats.ndeval import cut_runs, ndeval_report

    if args.depth:
        runs = cut_runs(runs, args.depth)
        baseline = None if baseline is None else cut_runs(baseline, args.depth)
    with about(args.qrels):
        print(ndeval_report(collection, runs, alpha=args.alpha, beta=args.beta,
                            complete=args.complete, baseline=baseline,
                            risk_alpha=float(args.risk_alpha),
                            risk_alpha_text=args.risk_alpha), end="")
    return 0


def run_gdeval(args) -> int:
    with spooled_inputs(_inputs(args)) as spool:
        if args.baseline is None and not args.adhoc:
            from ..formats.plain import gdeval_plain

            text = gdeval_plain(spool.paths[0], spool.paths[1:], k=args.k,
                                complete=args.complete)
            if text is not None:
                print(text, end="")
                return 0
        collection, runs, baseline = _read(args, "score-docno-desc", spool)
    from ..formats.gdeval import gdeval_report

    with about(args.qrels):
        print(gdeval_report(collection, runs, k=args.k, complete=args.complete,
                            baseline=baseline, risk_alpha=float(args.risk_alpha),
                            risk_alpha_text=args.risk_alpha), end="")
    return 0
