"""``xdiv ntcir_eval``: NTCIREVAL's ``ntcir_eval`` (version 190111), with its
subcommands and options, its output on standard output, its messages on standard error
and its exit statuses, byte for byte."""

from __future__ import annotations

import argparse
import os
import sys
import textwrap

ABOUT = (
    "Run NTCIREVAL's ntcir_eval (version 190111, by Tetsuya Sakai) exactly as the C "
    "program runs: the subcommands label, compute, glabel, dinlabel, gcompute, irec and "
    "1click with every option they take, reading standard input where ntcir_eval does, "
    "with the same output, messages and exit status, byte for byte. ntcir_eval's own "
    "usage is printed by 'xdiv ntcir_eval' alone (on standard error, status 1), by a "
    "subcommand without its required files, and by 'compute -h' or 'gcompute -h'. Where "
    "ntcir_eval's behaviour is undefined (it would read memory it never wrote: a "
    "relevance level above those of -g, a negative cutoff or one beyond a long, a flag of "
    "a DIN file it never set) the command refuses in one line with status 1.")
EXAMPLES = """examples:
  xdiv ntcir_eval label -r 0001.rel 0001.RUN.res > 0001.RUN.lab
  xdiv ntcir_eval compute -r 0001.rel -g 1:2:3 -cutoffs 10,1000 -out 0001 0001.RUN.lab
  cat 0001.RUN.res | xdiv ntcir_eval glabel -I 0001.Grelv -truncate 10
  xdiv ntcir_eval irec -cutoffs 10 0001.RUN.res 0001.Irelv1 0001.Irelv2
"""


def add_parser(sub) -> None:
    parser = sub.add_parser("ntcir_eval", help="NTCIREVAL's ntcir_eval, output byte for byte",
                            description=textwrap.fill(ABOUT, 79), epilog=EXAMPLES,
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            add_help=False)
    _declare(parser)
    parser.set_defaults(handler=run_ntcir_eval)
    # ntcir_eval's command line is read as ntcir_eval reads it, not by argparse
    parser.parse_known_args = _unparsed


def _declare(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--help", action="store_true",
                        help="print this help on standard output and stop (ntcir_eval "
                             "itself has no --help)")
    parser.add_argument("arguments", nargs=argparse.REMAINDER, metavar="SUBCOMMAND ARGS",
                        help="ntcir_eval's subcommand (label, compute, glabel, dinlabel, "
                             "gcompute, irec, 1click) and its arguments")


def _documented() -> argparse.ArgumentParser:
    """The command's help, as ``xdiv ntcir_eval --help`` prints it."""
    parser = argparse.ArgumentParser(
        prog="xdiv ntcir_eval", description=textwrap.fill(ABOUT, 79), epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter, add_help=False)
    _declare(parser)
    return parser


def _unparsed(args=None, namespace=None):
    """The subcommand's ``parse_known_args``: its arguments kept as they are."""
    namespace = argparse.Namespace() if namespace is None else namespace
    namespace.handler = run_ntcir_eval
    namespace.tool_argv = list(sys.argv[1:] if args is None else args)
    return namespace, []


def run_ntcir_eval(args) -> int:
    if args.tool_argv == ["--help"]:
        sys.stdout.write(_documented().format_help())
        return 0
    from ..official.ntcireval import ntcir_eval

    stdin = getattr(sys.stdin, "buffer", None)  # none when the process has no stdin
    outcome = ntcir_eval([os.fsencode(a) for a in args.tool_argv], stdin)
    sys.stdout.flush()
    sys.stdout.buffer.write(outcome.stdout)
    sys.stdout.buffer.flush()
    sys.stderr.flush()
    sys.stderr.buffer.write(outcome.stderr)
    sys.stderr.buffer.flush()
    return outcome.status
