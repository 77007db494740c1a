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
    add_pipeline_parser(sub)


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


PIPELINE_ABOUT = (
    "Run NTCIREVAL's diversity pipeline in one command, without per-topic folders or a "
    "process per topic: 'xdiv ntcireval D' does what DIN-splitqrels, TRECsplitruns "
    "(doclimit --limit) and D-NTCIR-eval write as <run>.<name>.Dnev, and 'xdiv ntcireval "
    "DIN' what DIN-NTCIR-eval writes as <run>.<name>.DINnev, byte for byte (topics "
    "ordered as the scripts order them under LC_ALL=C); -m does NEV2mean's work, "
    "writing <runlist>.<prob file's name>.<name>.Dnev.<measure>. The D#- and "
    "DIN#-measures combine the 4-decimal values ntcir_eval prints, as the scripts do.")
PIPELINE_EXAMPLES = """examples:
  xdiv ntcireval D Dtest.Iprob Dtest.Dqrels --cutoff 10 --name l10 TRECRUN TRECRUN2
  xdiv ntcireval DIN Dtest.DINprob Dtest.Dqrels --cutoff 10 --name l10 TRECRUN \\
      -m I-rec@0010 DIN#-nDCG@0010 --runlist runl
"""


def add_pipeline_parser(sub) -> None:
    from .common import command

    parser = command(sub, "ntcireval", "NTCIREVAL's D- and DIN-pipelines in one command "
                     "each, files byte for byte", run_pipeline, about=PIPELINE_ABOUT,
                     examples=PIPELINE_EXAMPLES)
    parser.add_argument("variant", choices=["D", "DIN"],
                        help="D: D-NTCIR-eval (glabel); DIN: DIN-NTCIR-eval (dinlabel)")
    parser.add_argument("prob", help="intent probabilities (Iprob or DINprob: <topic> "
                        "<intent> <probability> [inf|nav])")
    parser.add_argument("dqrels", help="diversity qrels (<topic> <intent> <docno> <L0-L9>)")
    parser.add_argument("runs", nargs="+", metavar="RUN", help="TREC-format runs")
    parser.add_argument("--cutoff", type=int, default=10, help="document cutoff "
                        "(default 10)")
    parser.add_argument("--name", default="l10", help="the evaluation name in the output "
                        "file names (default l10)")
    parser.add_argument("--limit", type=int, default=1000, help="documents kept per "
                        "topic of each run, as TRECsplitruns' doclimit (default 1000)")
    parser.add_argument("--out-dir", default=".", help="folder of the output files "
                        "(default: the current folder)")
    parser.add_argument("-m", "--measure", nargs="+", dest="means", default=[],
                        metavar="MEASURE",
                        help="also write NEV2mean's mean of each measure (as the files "
                             "name it: D#-nDCG@0010)")
    parser.add_argument("--runlist", default="runlist", help="the run list's name in the "
                        "means' file names (default runlist)")


def run_pipeline(args) -> int:
    from ..errors import InputError
    from ..official.ntcireval.pipelines import (VARIANTS, PipelineError, diversity_nev,
                                                nev_means, split_qrels)

    if args.cutoff < 1 or args.limit < 1:
        raise InputError("--cutoff and --limit must be positive")

    def read(path: str) -> bytes:
        try:
            with open(path, "rb") as handle:
                return handle.read()
        except OSError as exc:
            raise InputError(f"{path}: cannot read ({exc.strerror})") from None

    try:
        qrels = split_qrels(read(args.prob), read(args.dqrels), args.prob, args.dqrels)
    except PipelineError as exc:
        raise InputError(str(exc)) from None
    runs = {os.path.basename(path): read(path) for path in args.runs}
    messages: list[bytes] = []
    files = diversity_nev(args.variant, qrels, runs, args.cutoff, args.limit, messages)
    suffix = f"{args.name}.{VARIANTS[args.variant][2].decode()}"
    for run, data in files.items():
        with open(os.path.join(args.out_dir, f"{run}.{suffix}"), "wb") as handle:
            handle.write(data)
    if args.means:
        base = os.path.basename(args.prob)
        for metric, data in nev_means(files, list(qrels), args.means).items():
            with open(os.path.join(args.out_dir, f"{args.runlist}.{base}.{suffix}.{metric}"),
                      "wb") as handle:
                handle.write(data)
    sys.stderr.buffer.write(b"".join(messages))
    return 0
