"""``xdiv ntcir_eval``: NTCIREVAL's ``ntcir_eval`` (version 190111), with its
subcommands and options, its output on standard output, its messages on standard error
and its exit statuses, byte for byte."""

from __future__ import annotations

import argparse
import os
import sys

ABOUT = (
    "Run NTCIREVAL's ntcir_eval (version 190111, by Tetsuya Sakai) exactly as the C "
    "program runs: the subcommands label, compute, glabel, dinlabel, gcompute and irec "
    "with every option they take, the same output, messages and exit status, byte for "
    "byte. Its own usage is printed by 'xdiv ntcir_eval' alone and by 'xdiv ntcir_eval "
    "compute -h' or 'gcompute -h'. Where ntcir_eval's behaviour is undefined (it would "
    "read memory it never wrote) the command refuses in one line with status 1.")


def add_parser(sub) -> None:
    parser = sub.add_parser("ntcir_eval", help="NTCIREVAL's ntcir_eval, output byte for byte",
                            description=ABOUT, add_help=False)
    parser.add_argument("arguments", nargs=argparse.REMAINDER, metavar="SUBCOMMAND ARGS",
                        help="ntcir_eval's subcommand and its arguments")
    parser.set_defaults(handler=run_ntcir_eval)
    # ntcir_eval's command line is read as ntcir_eval reads it, not by argparse
    parser.parse_known_args = _unparsed


def _unparsed(args=None, namespace=None):
    """The subcommand's ``parse_known_args``: its arguments kept as they are."""
    namespace = argparse.Namespace() if namespace is None else namespace
    namespace.handler = run_ntcir_eval
    namespace.tool_argv = list(sys.argv[1:] if args is None else args)
    return namespace, []


def run_ntcir_eval(args) -> int:
    from ..official.ntcireval import ntcir_eval

    outcome = ntcir_eval([os.fsencode(a) for a in args.tool_argv], sys.stdin.buffer)
    sys.stdout.flush()
    sys.stdout.buffer.write(outcome.stdout)
    sys.stdout.buffer.flush()
    sys.stderr.flush()
    sys.stderr.buffer.write(outcome.stderr)
    sys.stderr.buffer.flush()
    return outcome.status
