"""``xdiv convert``: diversity qrels to adhoc qrels, intent hierarchies to their EIH."""

from __future__ import annotations

import sys

from ..io._spool import spooled_inputs
from .common import command, output
from ..typing import ADHOC_METHODS


def add_parser(sub) -> None:
    cv = command(sub, "convert", "diversity qrels to adhoc qrels; OIH to EIH", run,
                 about="Convert diversity qrels into adhoc qrels (a document's "
                       "highest level over the intents, or the number of intents "
                       "it is relevant to), or extend an intent hierarchy file "
                       "(topic node parent [weight] [intent]) into an EIH.",
                 examples="examples:\n  xdiv convert qrels.txt --adhoc max -o adhoc.txt\n"
                          "  xdiv convert hierarchy.txt --eih -o eih.txt")
    cv.add_argument("input", help="qrels file, or a hierarchy file with --eih")
    how = cv.add_mutually_exclusive_group()
    how.add_argument("--adhoc", choices=ADHOC_METHODS,
                     help="qrels to adhoc qrels (the default, with max)")
    how.add_argument("--eih", action="store_true", help="hierarchy file to its EIH")
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
        from ..core.adhoc import to_adhoc
        from ..io.api import write_qrels

        method = args.adhoc or "max"
        write_qrels(args.output, to_adhoc(read_qrels(spool.paths[0]), method))
    print(f"adhoc qrels ({method}) written to {args.output}", file=sys.stderr)
    return 0
