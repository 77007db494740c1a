"""``xdiv convert``: diversity qrels to adhoc qrels, TREC qrels to NTCIR's and back,
intent hierarchies to their EIH, run files rewritten with their ir_metadata."""

from __future__ import annotations

import sys
import textwrap

from ..io._spool import spooled_inputs
from .common import command, output
from ..typing import ADHOC_METHODS, QRELS_FORMATS


def add_parser(sub) -> None:
    cv = command(sub, "convert", "diversity qrels to adhoc qrels; OIH to EIH", run,
                 about="Convert diversity qrels into adhoc qrels (a document's "
                       "highest level over the intents, or the number of intents "
                       "it is relevant to), or extend an intent hierarchy file "
                       "(topic node parent [weight] [intent]) into an EIH.",
                 examples="examples:\n  xdiv convert qrels.txt --adhoc max -o adhoc.txt\n"
                          "  xdiv convert hierarchy.txt --eih -o eih.txt\n"
                          "  xdiv convert qrels.txt --to ntcir -o test.Dqrels\n"
                          "  xdiv convert test.Dqrels --qrels-format ntcir --to trec "
                          "-o qrels.txt\n"
                          "  xdiv convert run.txt --run -o ranked.txt")
    cv.description += "\n\n" + textwrap.fill(
        "With --run, rewrite a TREC run file as xdiv reads and ranks it, its leading "
        "ir_metadata block (PRIMAD annotations, Breuer, Keller & Schaer, SIGIR 2022) "
        "written back byte for byte.", 79)
    cv.usage = ("xdiv convert [-h] [-q] [--adhoc {max,count} | --eih] -o OUTPUT input\n"
                "       xdiv convert [-h] [-q] --run -o OUTPUT input\n"
                "       xdiv convert [-h] [-q] [--qrels-format {trec,ntcir}] "
                "[--to {trec,ntcir}]\n"
                "                    -o OUTPUT input")
    cv.add_argument("input", help="qrels file, or a hierarchy file with --eih")
    how = cv.add_mutually_exclusive_group()
    how.add_argument("--adhoc", choices=ADHOC_METHODS,
                     help="qrels to adhoc qrels (the default, with max)")
    how.add_argument("--eih", action="store_true", help="hierarchy file to its EIH")
    how.add_argument("--run", action="store_true",
                     help="run file rewritten as xdiv ranks it (score, ties by docno "
                          "descending; ranks 1..n; scores at full precision), its "
                          "ir_metadata block kept")
    how.add_argument("--to", choices=QRELS_FORMATS,
                     help="rewrite the qrels in this format (NTCIR: a Dqrels file, each "
                          "judged non-relevant document once under intent 0)")
    cv.add_argument("--qrels-format", choices=QRELS_FORMATS, default="trec",
                    help="the input qrels' format (default: %(default)s)")
    cv.add_argument("-o", "--output", required=True, help="file to write")


def run(args) -> int:
    from ..io.api import read_qrels

    output(args.output, args.input)
    with spooled_inputs([args.input]) as spool:  # '-' and pipes too
        if args.eih:
            from ..io.hierarchy import extend_hierarchy, write_hierarchy

            write_hierarchy(args.output, extend_hierarchy(spool.paths[0]))
            print(f"EIH written to {args.output}", file=sys.stderr)
            return 0
        if args.run:
            from ..io.api import write_run
            from ..io.runfiles import read_runs

            write_run(args.output, read_runs(spool.paths[0]))
            print(f"run written to {args.output}", file=sys.stderr)
            return 0
        from ..core.adhoc import to_adhoc
        from ..io.api import write_qrels

        collection = read_qrels(spool.paths[0], format=args.qrels_format)
        if args.to == "ntcir":
            from ..io.ntcir import write_dqrels

            write_dqrels(args.output, collection)
        elif args.to == "trec":
            write_qrels(args.output, collection)
        else:
            method = args.adhoc or "max"
            write_qrels(args.output, to_adhoc(collection, method))
    what = f"{args.to.upper()} qrels" if args.to else f"adhoc qrels ({method})"
    print(f"{what} written to {args.output}", file=sys.stderr)
    return 0
