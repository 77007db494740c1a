"""``xdiv ntcir_eval``: NTCIREVAL's ``ntcir_eval`` (version 190111), with its
subcommands and options, its output on standard output, its messages on standard error
and its exit statuses, byte for byte."""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from collections.abc import Callable

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
    "Run one of NTCIREVAL's evaluation pipelines in one command, without per-topic "
    "folders or a process per topic, writing the files its scripts write, byte for byte "
    "(topics ordered as the scripts order them under LC_ALL=C). Each pipeline includes "
    "the splitting of the qrels (DIN-splitqrels, or NTCIRsplitqrels for adhoc) and of "
    "the TREC-format runs (TRECsplitruns, doclimit --limit). "
    "'D PROB DQRELS RUN...' is D-NTCIR-eval (<run>.<name>.Dnev); 'DIN' is DIN-NTCIR-eval "
    "(<run>.<name>.DINnev); 'IA' is D-NTCIR-IAeval (<run>.<name>.nevIA); 'PQ' is "
    "DIN-NTCIR-PQeval (<run>.<name>.nevPQ); 'adhoc QRELS RUN...' is NTCIR-eval with "
    "--compute-options (<run>.<name>.nev). -m MEASURE... does NEV2mean's work for D, DIN "
    "and adhoc (<runlist>.<prob or qrels file name>.<name>.<suffix>.<measure>) and "
    "NEVIA2nev's for IA (<run>.<name>.nevIA.<measure>.nev); --sharp RAW SHARP does "
    "NEVIAPQ2sharpnev's for IA and PQ (<run>.<SHARP>.nev, combining RAW with the D "
    "pipeline's I-rec). D#-, DIN#- and P+Q#-measures and the means combine the 4-decimal "
    "values ntcir_eval prints, as the scripts do. "
    "--sep CHAR runs the scripts for files whose fields are separated by CHAR "
    "(NTCIRsplitqrels, DIN-splitqrels and TRECsplitruns given the separator, then "
    "NTCIR-eval-sep for adhoc, D-NTCIR-eval-sep for D, DIN-NTCIR-eval-sep for DIN). "
    "--extended is D-NTCIR-eval2 for D (D#-ERR, D#-EBR and D#-RBP too) and "
    "D-NTCIR-IAeval2 for IA (IA-MSnDCG, IA-Q, IA-ERR, IA-EBR, IA-RBP). "
    "'E EQRELS RUN...' is E-NTCIR-eval (equivalence classes; separator ';' unless "
    "--sep; <run>.<name>.enev). '1click NUGGETS RUN...' is 1CLICK-splitnuggets, "
    "1CLICK-splitmatch and 1CLICK-eval (<run>.<name>.1cl). 'matrix TOPICS FILE... -m "
    "MEASURE' is Topicsys-matrix: it prints the topic-by-run matrix of the per-topic "
    "files FILE (a column each) on standard output.")
PIPELINE_EXAMPLES = """examples:
  xdiv ntcireval D Dtest.Iprob Dtest.Dqrels --cutoff 10 --name l10 TRECRUN TRECRUN2
  xdiv ntcireval DIN Dtest.DINprob Dtest.Dqrels TRECRUN -m I-rec@0010 DIN#-nDCG@0010 \\
      --runlist runl
  xdiv ntcireval IA Dtest.Iprob Dtest.Dqrels TRECRUN -m IA-nERR@0010
  xdiv ntcireval PQ Dtest.DINprob Dtest.Dqrels TRECRUN --sharp PplusQ@0010 PplusQ#@0010
  xdiv ntcireval adhoc test.qrels TRECRUN --compute-options="-cutoffs 10,1000 -g 1:2" \\
      --name test
  xdiv ntcireval D Dtest.Iprob Dtest.Dqrels TRECRUN --extended
  xdiv ntcireval E e-test.eqrels e-testrun --compute-options="-g 1:2:3"
  xdiv ntcireval 1click 1C0-test.nuggets 1CLICKRUN-D-1 --name test
  xdiv ntcireval matrix test.qrels.tid TRECRUN.test.nev TRECRUN2.test.nev -m Q-measure
"""
SUFFIXES = {"D": "Dnev", "DIN": "DINnev", "IA": "nevIA", "PQ": "nevPQ", "adhoc": "nev",
            "E": "enev", "1click": "1cl", "matrix": ""}
ONE_FILE = {"adhoc": "QRELS RUN...", "E": "EQRELS RUN...", "1click": "NUGGETS RUN...",
            "matrix": "TOPICS FILE... -m MEASURE"}
"""The pipelines whose first file is the only judgement file, and their files."""


def add_pipeline_parser(sub) -> None:
    from .common import command

    parser = command(sub, "ntcireval", "NTCIREVAL's pipelines (D-, DIN-, IA-, PQ- and "
                     "adhoc NTCIR-eval) in one command each, files byte for byte",
                     run_pipeline, about=PIPELINE_ABOUT, examples=PIPELINE_EXAMPLES)
    parser.add_argument("variant", choices=list(SUFFIXES),
                        help="the pipeline: D, DIN, IA, PQ, adhoc, E, 1click or matrix")
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="D, DIN, IA, PQ: the intent probabilities (Iprob or DINprob: "
                             "<topic> <intent> <probability> [inf|nav]), the diversity "
                             "qrels (Dqrels: <topic> <intent> <docno> <L0-L9>) and the "
                             "TREC-format runs; adhoc: the NTCIR qrels (<topic> <docno> "
                             "<L0-L9>) and the runs; E: the eqrels (<topic>;<string>;"
                             "<L0-L9>;<class>) and the runs; 1click: the nuggets (<topic> "
                             "<nugget> <weight> <vital length>) and the matched nuggets of "
                             "each run; matrix: the topic list and the per-topic files")
    parser.add_argument("--cutoff", type=int, default=10, help="document cutoff of D, "
                        "DIN, IA and PQ (default 10)")
    parser.add_argument("--name", default="l10", help="the evaluation name in the output "
                        "file names (default l10)")
    parser.add_argument("--limit", type=int, default=1000, help="documents kept per "
                        "topic of each run, as TRECsplitruns' doclimit (default 1000)")
    parser.add_argument("--compute-options", default="", metavar="OPTIONS",
                        help="adhoc, E: ntcir_eval compute's options, as NTCIR-eval "
                             "takes them (--compute-options=\"-cutoffs 10,1000 -g 1:2\")")
    parser.add_argument("--out-dir", default=".", help="folder of the output files "
                        "(default: the current folder)")
    parser.add_argument("-m", "--measure", nargs="+", dest="means", default=[],
                        metavar="MEASURE",
                        help="D, DIN, adhoc, E, 1click: also write NEV2mean's mean of "
                             "each measure (as the files name it: D#-nDCG@0010); IA: "
                             "NEVIA2nev's file of each (IA-nERR@0010); matrix: the measure")
    parser.add_argument("--runlist", default="runlist", help="the run list's name in the "
                        "means' file names (default runlist)")
    parser.add_argument("--sep", metavar="CHAR", help="adhoc, D, DIN, E: the files' "
                        "field separator (one character), as the -sep scripts take it")
    parser.add_argument("--extended", action="store_true", help="D: D-NTCIR-eval2; IA: "
                        "D-NTCIR-IAeval2")
    parser.add_argument("--sharp", nargs=2, action="append", default=[],
                        metavar=("RAW", "SHARP"),
                        help="IA, PQ: also write NEVIAPQ2sharpnev's file <run>.SHARP.nev, "
                             "RAW (PplusQ@0010, IA-nERR@0010) combined with I-rec (may "
                             "be repeated)")


def run_pipeline(args) -> int:
    from ..errors import InputError
    from ..official.ntcireval import pipelines as p

    if args.cutoff < 1 or args.limit < 1:
        raise InputError("--cutoff and --limit must be positive")
    needed = 2 if args.variant in ONE_FILE else 3
    if len(args.files) < needed:
        raise InputError(f"ntcireval {args.variant} takes "
                         + ONE_FILE.get(args.variant, "PROB DQRELS RUN..."))
    if args.sharp and args.variant not in ("IA", "PQ"):
        raise InputError("--sharp is for the IA and PQ pipelines")
    if args.extended and args.variant not in ("D", "IA"):
        raise InputError("--extended is for the D and IA pipelines")
    if args.sep is not None and args.variant not in ("adhoc", "D", "DIN", "E"):
        raise InputError("--sep is for the adhoc, D, DIN and E pipelines")
    if args.sep is not None and args.extended:
        raise InputError("--sep and --extended together: NTCIREVAL has no such script")
    if args.variant == "matrix" and len(args.means) != 1:
        raise InputError("ntcireval matrix takes one measure (-m MEASURE)")
    if args.variant != "matrix" and not os.path.isdir(args.out_dir):
        raise InputError(f"{args.out_dir}: --out-dir is not a folder")

    def read(path: str) -> bytes:
        try:
            with open(path, "rb") as handle:
                return handle.read()
        except OSError as exc:
            raise InputError(f"{path}: cannot read ({exc.strerror})") from None

    def write(name: str, data: bytes) -> None:
        path = os.path.join(args.out_dir, name)
        try:
            with open(path, "wb") as handle:
                handle.write(data)
        except OSError as exc:
            raise InputError(f"{path}: cannot write ({exc.strerror})") from None

    runs = {os.path.basename(path): read(path) for path in args.files[needed - 1:]}
    messages: list[bytes] = []
    suffix = f"{args.name}.{SUFFIXES[args.variant]}"
    try:
        if args.variant == "matrix":
            from ..official.ntcireval.variants import topic_matrix

            sys.stdout.buffer.write(topic_matrix([read(path) for path in args.files[1:]],
                                                 read(args.files[0]), args.means[0]))
            return 0
        if args.variant in ("E", "1click") or args.sep is not None or args.extended:
            files, topics, split = _further(args, read(args.files[0]), read, runs, messages)
        elif args.variant == "adhoc":
            qrels = read(args.files[0])
            files = p.adhoc_nev(qrels, runs, [os.fsencode(w) for w in
                                              args.compute_options.split()],
                                args.limit, messages)
            topics = sorted({(line.split() or [b""])[0] for line in p.dqrels_lines(qrels)})
        else:
            prob = read(args.files[0])
            split = p.split_qrels(prob, read(args.files[1]), args.files[0], args.files[1])
            topics = list(split)
            if args.variant in ("D", "DIN"):
                files = p.diversity_nev(args.variant, split, runs, args.cutoff, args.limit,
                                        messages)
            else:
                files = p.intent_nev(args.variant, prob, split, runs, args.cutoff,
                                     args.limit, messages)
    except p.PipelineError as exc:
        raise InputError(str(exc)) from None
    for run, data in files.items():
        write(f"{run}.{suffix}", data)
    if args.means and args.variant == "IA":
        for (run, metric), data in p.ia_nev(files, topics, args.means).items():
            write(f"{run}.{suffix}.{metric}.nev", data)
    elif args.means:
        base = os.path.basename(args.files[0])
        for metric, data in p.nev_means(files, topics, args.means).items():
            write(f"{args.runlist}.{base}.{suffix}.{metric}", data)
    if args.sharp:
        d_files = p.diversity_nev("D", split, runs, args.cutoff, args.limit)
        recall = f"I-rec@{args.cutoff:04d}"
        for raw, sharp in args.sharp:
            for run, data in p.sharp_nev(d_files, files, topics, recall, raw, sharp).items():
                write(f"{run}.{sharp}.nev", data)
    sys.stderr.buffer.write(b"".join(messages))
    return 0


def _further(args: argparse.Namespace, first: bytes, read: Callable[[str], bytes],
             runs: dict[str, bytes], messages: list[bytes]
             ) -> tuple[dict[str, bytes], list[bytes], dict | None]:
    """``(files, topics, split qrels)`` of the pipelines of
    :mod:`xdiv.official.ntcireval.variants`."""
    from ..official.ntcireval import variants as v

    sep = None if args.sep is None else v.check_separator(os.fsencode(args.sep))
    if args.variant == "1click":
        order, _ = v.split_nuggets(first)
        return v.oneclick_nev(first, runs, messages), order, None
    if args.variant in ("adhoc", "E"):
        sep = sep or b";"
        options = [os.fsencode(w) for w in args.compute_options.split()]
        return (v.adhoc_script_nev(first, runs, options, sep, args.limit, args.files[0],
                                   messages), v.topic_list(first, sep, args.files[0]), None)
    split = v.split_diversity_qrels(first, read(args.files[1]), sep or b" ", args.files[0],
                                    args.files[1])
    if args.variant == "IA":
        return (v.intent_script_nev(first, split, runs, args.cutoff, args.limit, messages),
                list(split), split)
    return (v.diversity_script_nev(args.variant, split, runs, args.cutoff, args.limit, sep,
                                   args.extended, messages), list(split), split)
