"""``xdiv evaluate``: score TREC runs against qrels with any measures of the registry."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import sys
from typing import TYPE_CHECKING

from .._warnings import warn
from ..errors import XdivError, XdivWarning
from .common import add_qrels_format, command, expand_inputs, names_input, nonnegative, \
    output, \
    per_topic_frame, print_frame, progress_wanted, summary_frame, whole
from ..typing import ADHOC_METHODS, DUPLICATES, HIERARCHY_KINDS, MISSING, NODE_WEIGHTS, \
    ORDER_HELP, ORDERS, SCORE_FORMATS, TIES

if TYPE_CHECKING:
    import xarray as xr

STREAM_BYTES = 256 << 20
"""Run text above which ``xdiv evaluate`` streams by default (gzip files counted at four
times their size)."""

STREAM_MEMORY_SHARE = 10
"""``xdiv evaluate`` also streams by default when the run text exceeds this fraction
(1/10) of the available memory: all runs in memory take about twice their text."""

EXAMPLES = """examples:
  xdiv evaluate qrels.txt runs/*.gz -m alpha-nDCG@20 ERR-IA@20 D#-nDCG@10 --topics topics.xml
  xdiv evaluate qrels.txt run.txt -m D#-nDCG@10 --probabilities nonuniform --per-topic
  xdiv evaluate qrels.txt runs/* -m ndeval --order rank --format ndeval
  xdiv evaluate qrels.txt runs/* -m "P_10,ndcg_cut_10,map" --adhoc max
  xdiv evaluate qrels.txt runs/* -m alpha-nDCG@20 ERR-IA@20 nDCG@20 AP bpref Judged@10
  xdiv evaluate qrels.txt runs/* -m N-rec@10 LD#-nDCG@10 --hierarchy tree.txt
  xdiv evaluate qrels.txt runs/* -m map ndcg_cut_10 alpha-nDCG@20 --judged-only
  xdiv evaluate qrels.txt runs/* -m RBP P@10 alpha-nDCG@20 --residuals --per-topic
  xdiv evaluate qrels.txt runs/* -m nDCG@10 AP alpha-nDCG@20 --ties range
  xdiv evaluate qrels.txt runs/* -m nDCG@10 AP ERR-IA@20 --ties expected --seed 7
  xdiv evaluate prels.txt runs/* -m statAP infNDCG@20 infAP --prels
"""

HIGH_SUFFIX = ":high"
"""Suffix of the columns (or measure names) that print the upper bounds ``score_high`` of
``--residuals`` beside each measure's scores."""

COMPANIONS = {"score_se": ":se", "score_min": ":min", "score_max": ":max",
              "tie_spread": ":spread", "score_high": HIGH_SUFFIX}
"""The score cube's variables printed beside each measure's scores, with the suffix of
their columns (or measure names): ``--ties`` and ``--residuals`` add them."""

ABOUT = ("Evaluate TREC runs (topic Q0 docno rank score tag) against diversity or adhoc "
         "qrels; prints the mean scores (or per-topic scores) and can write the "
         "score(metric, run, topic) cube to NetCDF. Measures are registry names, trec_eval "
         "or ir_measures names, or the sets ndeval, gdeval, trec_eval and ntcir-intent "
         "('xdiv measures' lists them). Ranking: by default documents are ranked by score, "
         "ties by docno descending, as trec_eval, gdeval and 'ndeval -traditional' do; "
         "TREC's ndeval ranks by the rank column instead ('--order rank'). A run whose "
         "rank column disagrees with its scores is reported with the number of topics "
         "affected. 'xdiv ndeval' and 'xdiv gdeval' reproduce those tools' output exactly.")


def add_parser(sub) -> None:
    ev = command(sub, "evaluate", "evaluate TREC runs against qrels", run, about=ABOUT,
                 examples=EXAMPLES)
    ev.usage = "xdiv evaluate QRELS RUN [RUN ...] -m MEASURE [MEASURE ...] [options]"
    ev.add_argument("qrels", nargs="?", help="qrels file (diversity or adhoc, gzip allowed; "
                                              "'-' for standard input)")
    ev.add_argument("runs", nargs="*", help="run files (gzip allowed; '-' for standard input, "
                                            "pipes such as <(zcat run.gz) and quoted glob "
                                            "patterns such as 'runs/*.gz' too)")
    ev.add_argument("-m", "--measure", nargs="+", action="extend", required=True,
                    dest="measures", metavar="MEASURE",
                    help="measure names or sets, e.g. nDCG-IA@10 'Q(beta=0)@10' P_10 ndeval, "
                         "also comma-separated; may be repeated (files named after -m are "
                         "taken as the qrels and runs)")
    ev.add_argument("--order", choices=ORDERS,
                    default="score-docno-desc",
                    help=ORDER_HELP + " (default: %(default)s)")
    ev.add_argument("--duplicates", choices=DUPLICATES, default="error",
                    help="a docno retrieved twice for a topic: an error, or keep its "
                         "highest-ranked occurrence with a warning (default: %(default)s)")
    ev.add_argument("--prels", action="store_true",
                    help="the qrels file holds sampled judgments with their inclusion "
                         "probabilities ('topic docno relevance probability' lines, or the "
                         "TREC Million Query track's five columns), for statAP and infNDCG")
    ev.add_argument("--topics", help="TREC topic XML (intent types)")
    ev.add_argument("--strict-topics", action="store_true",
                    help="an unknown subtopic type in the topic file is an error (by default "
                         "a warning, and the subtopic is read as informational)")
    ev.add_argument("--probabilities", default="uniform",
                    help="uniform, nonuniform or a 'topic intent probability' file")
    add_qrels_format(ev)
    ev.add_argument("--adhoc", choices=ADHOC_METHODS,
                    help="how single-intent measures (nDCG, AP, P, bpref, ...) read diversity "
                         "qrels unless a measure says so itself (nDCG(adhoc=count)@10): a "
                         "document's highest level over the intents (max, the default) or the "
                         "number of intents it is relevant to (count); diversity measures "
                         "always read the per-intent levels, so both kinds mix in one call")
    ev.add_argument("--missing", choices=MISSING, default="zero",
                    help="score of a judged topic a run lacks (default: %(default)s)")
    ev.add_argument("--judged-only", action="store_true",
                    help="condensed lists (Sakai, SIGIR 2007; trec_eval -J): remove the "
                         "unjudged documents (no qrels line of level >= 0 for the topic) "
                         "from each ranked list before scoring; cutoffs then count judged "
                         "documents only")
    ev.add_argument("--residuals", action="store_true",
                    help="also compute each score's upper bound, every unjudged document "
                         "counted relevant (at the highest level, to every intent): "
                         "printed as MEASURE" + HIGH_SUFFIX + " beside MEASURE, and "
                         "written as score_high to the -o cube")
    ev.add_argument("--ties", choices=TIES,
                    help="score the documents a run ties (equal scores) over all their "
                         "orders instead of in the order read: 'expected', the expectation "
                         "(McSherry & Najork, ECIR 2008; exact for P, nDCG, RBP, AP, Q, "
                         "alpha-nDCG, I-rec, D#-nDCG and the intent-aware forms, else the mean of random "
                         "orders, printed with its standard error as MEASURE:se); 'range', "
                         "the lowest and highest score and their difference, printed as "
                         "MEASURE:min, MEASURE:max and MEASURE:spread, with a warning when "
                         "the tie order moves a run's mean by more than 0.01")
    ev.add_argument("--tie-samples", type=whole(2), default=200, metavar="N",
                    help="random tie orders for the measures --ties samples "
                         "(default: %(default)s)")
    ev.add_argument("--seed", type=whole(0), default=0,
                    help="seed of the random tie orders (default: %(default)s)")
    ev.add_argument("--per-topic", action="store_true", help="print per-topic scores")
    ev.add_argument("--format", choices=(*SCORE_FORMATS, "trec_eval"),
                    metavar="{" + ",".join(SCORE_FORMATS) + "}",
                    default="table", help="ndeval: ndeval's per-topic CSV layout; lines: "
                                          "'measure topic value' lines (both per topic), "
                                          "the columns of trec_eval -q but not its spacing, "
                                          "order or topics (xdiv trec_eval prints "
                                          "trec_eval's own output; --format trec_eval is "
                                          "the former, deprecated name of lines)")
    ev.add_argument("--hierarchy",
                    help="intent hierarchy for N-rec, LD#-, HD#-, LAD#- and -LA measures: a "
                         "'topic node parent [weight] [intent]' file or an NTCIR IMine "
                         "subtopic XML file (IMine.Qrel.SM?.xml)")
    ev.add_argument("--hierarchy-kind", choices=HIERARCHY_KINDS[::-1], default="EIH",
                    help="use the hierarchy as given (OIH) or extended (default: %(default)s)")
    ev.add_argument("--node-weights", choices=NODE_WEIGHTS, default="UB",
                    help="node weighting scheme of the hierarchy (default: %(default)s)")
    ev.add_argument("--doc-lengths", metavar="FILE",
                    help="document lengths in characters ('docno length' lines), for the "
                         "U-measures U, D-U and U-IA")
    ev.add_argument("--default-length", type=nonnegative, metavar="N",
                    help="length of a relevant document missing from --doc-lengths "
                         "(otherwise an error)")
    ev.add_argument("--chunks", type=whole(1), metavar="K",
                    help="read and evaluate the runs K at a time, without holding them all "
                         "in memory (a first pass checks every file; for run sets larger than "
                         "memory; see the docs on dask for clusters)")
    streaming = ev.add_mutually_exclusive_group()
    streaming.add_argument("--stream", dest="stream", action="store_true", default=None,
                           help="read and score the run files a few at a time, in one "
                                "pass, holding only those files' lines in memory (the "
                                "default when the run files hold more than 256 MiB of text, "
                                "gzip files counted at 4 times their size, or more than a "
                                "tenth of the available memory); the scores are identical")
    streaming.add_argument("--no-stream", dest="stream", action="store_false",
                           help="read every run into memory before scoring (the default "
                                "for smaller run sets)")
    ev.add_argument("-o", "--output", help="write the score cube to this NetCDF file")


def split_files_from_measures(args) -> None:
    """``xdiv evaluate -m M1 M2 QRELS RUN``: argparse hands every word after ``-m`` to it.
    A word that parses as a measure name (or a list or set of them) is a measure; any
    other word that names an existing file is a qrels or run file (in the order given); a
    path-like word that is neither is an error naming both readings. Other words stay
    measures, so that their parse error is reported."""
    from ..measures.names import expand_measures

    files = ([args.qrels] if args.qrels else []) + args.runs
    measures = []
    for word in args.measures:
        try:
            expand_measures(word)
        except XdivError as exc:
            if names_input(word):
                files.append(word)
                continue
            if os.sep in word or "." in os.path.basename(word):
                raise XdivError(f"{word}: neither a file nor a measure ({exc})") from None
        measures.append(word)
    args.measures = measures
    if not args.measures:
        raise XdivError("no measure given: -m MEASURE [MEASURE ...]")
    if len(files) < 2:
        raise XdivError("evaluate needs a qrels file and at least one run file")
    args.qrels, args.runs = files[0], expand_inputs(files[1:])


def run(args) -> int:
    from ..io._spool import spooled_inputs
    from ..io.netcdf import to_netcdf

    split_files_from_measures(args)
    if args.format == "trec_eval":
        warn("--format trec_eval is now --format lines: its lines are not trec_eval's "
             "byte for byte (spacing, order, topics); xdiv trec_eval prints trec_eval's "
             "own output", XdivWarning)
        args.format = "lines"
    if args.chunks and args.stream:
        raise XdivError("--stream and --chunks K are two ways of bounding the memory: "
                        "give one of them")
    if args.default_length is not None and args.doc_lengths is None:
        raise XdivError("--default-length needs --doc-lengths FILE")
    if args.output:
        output(args.output, args.qrels, *args.runs, args.topics, args.hierarchy,
               args.probabilities, args.doc_lengths)
    with spooled_inputs([args.qrels, *args.runs]) as spool:
        scores = evaluate_files(args, spool.paths[0], spool.paths[1:])
        scores.attrs.update({key: spool.original(value) for key, value in scores.attrs.items()
                             if isinstance(value, str)})
    print_scores(args, scores)
    if args.output:
        print(f"score cube written to {to_netcdf(scores, args.output)}", file=sys.stderr)
    return 0


def evaluate_files(args, qrels: str, run_paths: list[str]) -> xr.Dataset:
    """The score cube of the runs ``run_paths`` against the qrels ``qrels`` (readable
    regular files), with the collection and evaluation options of ``args``: streamed
    (:func:`xdiv.engine.evaluate_files`) when ``--stream`` is given or, without
    ``--no-stream``, when :func:`stream_wanted`; lazily with dask for ``--chunks``."""
    from ..engine import evaluate, evaluate_files as evaluate_streamed
    from ..io.api import read_qrels
    from ..io.runfiles import block_progress, read_runs

    if args.prels:
        from ..io.prels import read_prels

        if (args.topics or args.doc_lengths or args.probabilities != "uniform"
                or args.qrels_format != "trec" or args.renormalise is not None):
            raise XdivError("--prels reads adhoc sampled judgments: --topics, "
                            "--probabilities, --doc-lengths, --qrels-format and "
                            "--[no-]renormalise do not apply")
        collection = read_prels(qrels)
    else:
        collection = read_qrels(qrels, topics=args.topics, probabilities=args.probabilities,
                                strict_topics=args.strict_topics,
                                format=args.qrels_format, renormalise=args.renormalise,
                                doc_lengths=args.doc_lengths,
                                default_length=args.default_length)
    if args.hierarchy:
        from ..io.hierarchy import attach_hierarchy

        collection = attach_hierarchy(collection, args.hierarchy, kind=args.hierarchy_kind,
                                      weights=args.node_weights)
    progress = progress_wanted(args)
    stream = args.stream if args.stream is not None else stream_wanted(run_paths)
    if stream and not args.chunks:
        return evaluate_streamed(run_paths, collection, args.measures, order=args.order,
                                 duplicates=args.duplicates, missing=args.missing,
                                 adhoc=args.adhoc, ties=args.ties,
                                 tie_samples=args.tie_samples, seed=args.seed,
                                 judged_only=args.judged_only,
                                 residuals=args.residuals, progress=progress)
    runs = read_runs(run_paths, order=args.order, duplicates=args.duplicates,
                     progress=progress, chunks=args.chunks and {"run": args.chunks})
    scores = evaluate(runs, collection, args.measures, missing=args.missing, adhoc=args.adhoc,
                      ties=args.ties, tie_samples=args.tie_samples, seed=args.seed,
                      judged_only=args.judged_only, residuals=args.residuals,
                      progress=progress and not args.chunks)
    if args.chunks:
        with block_progress(runs, enabled=progress):
            scores = scores.compute()
    return scores


def stream_wanted(run_paths: list[str]) -> bool:
    """Whether the run files are large enough to be streamed by default: more than
    :data:`STREAM_BYTES` of text, or more than a :data:`STREAM_MEMORY_SHARE`-th of the
    available memory (gzip files counted at four times their size)."""
    from ..io.runfiles import text_size

    total = sum(text_size(path) for path in run_paths)
    available = available_memory()
    return total > STREAM_BYTES or (available is not None
                                    and total * STREAM_MEMORY_SHARE > available)


def available_memory() -> int | None:
    """The memory available to new allocations in bytes (``MemAvailable`` of
    /proc/meminfo), or None where it is not known."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def print_scores(args, scores: xr.Dataset) -> None:
    """Print ``scores`` as ``--format`` and ``--per-topic`` ask."""
    from ..official.ndeval_tool.report import ndeval_csv
    from ..official.trec_eval.lines import trec_eval_lines

    scores = with_companions(scores)
    if args.format == "ndeval":
        print(ndeval_csv(scores), end="")
    elif args.format == "lines":
        print(trec_eval_lines(scores), end="")
    elif args.format != "table":
        print_frame(per_topic_frame(scores) if args.per_topic else summary_frame(scores),
                    args.format)
    elif args.per_topic:
        print(fit_table(per_topic_frame(scores), terminal_width()), end="")
    else:
        print(fit_table(summary_frame(scores), terminal_width(), transpose=True), end="")


def with_companions(scores: xr.Dataset) -> xr.Dataset:
    """``scores`` as printed: when it holds companion variables (:data:`COMPANIONS`, from
    ``--ties`` and ``--residuals``), a score cube whose metrics are each measure followed
    by its companions, labelled with their suffixes; otherwise ``scores`` itself."""
    import xarray as xr

    present = [name for name in COMPANIONS if name in scores]
    if not present:
        return scores
    labels = [str(m) for m in scores["metric"].values]
    parts = [scores["score"]] + [scores[name].assign_coords(
        metric=[label + COMPANIONS[name] for label in labels]) for name in present]
    parts = [part.drop_vars(["canonical", "ties_method"], errors="ignore") for part in parts]
    both = xr.concat(parts, dim="metric")
    n, width = len(labels), len(parts)
    both = both.isel(metric=[k + part * n for k in range(n) for part in range(width)])
    return xr.Dataset({"score": both}, attrs=scores.attrs)


def terminal_width() -> int | None:
    """The width of the terminal standard output writes to; None when it is no terminal
    (a file or a pipe gets the table unwrapped)."""
    return shutil.get_terminal_size().columns if sys.stdout.isatty() else None


def _table_text(frame) -> str:
    with contextlib.redirect_stdout(io.StringIO()) as text:
        print_frame(frame, "table")
    return text.getvalue()


def fit_table(frame, width: int | None, *, transpose: bool = False) -> str:
    """The aligned table of ``frame`` (as :func:`print_frame` prints it) fitted to
    ``width`` characters: as it is when it fits (or ``width`` is None); else, with
    ``transpose``, turned (metrics as rows, runs as columns) when that fits; else its
    columns wrapped into blocks that fit, each repeating the row labels."""
    text = _table_text(frame)
    if width is None or _widest(text) <= width or frame.shape[1] < 2:
        return text
    if transpose:
        turned = _table_text(frame.T)
        if _widest(turned) <= width:
            return turned
    return _wrapped(text, frame.shape[1], width)


def _widest(text: str) -> int:
    return max(map(len, text.splitlines()), default=0)


def _wrapped(text: str, n_columns: int, width: int) -> str:
    """``text``, an aligned table of ``n_columns`` right-aligned columns whose labels hold
    no spaces, cut into blocks of columns at most ``width`` wide (at least one column a
    block), the row labels repeated in each; unchanged if its columns cannot be found."""
    lines = text.splitlines()
    size = _widest(text)
    lines = [line.ljust(size) for line in lines]
    used = [any(line[c] != " " for line in lines) for c in range(size)]
    fields, start = [], None  # (first, last + 1) of each run of used character columns
    for c, busy in enumerate([*used, False]):
        if busy and start is None:
            start = c
        elif not busy and start is not None:
            fields.append((start, c))
            start = None
    if len(fields) <= n_columns:
        return text
    data = fields[-n_columns:]
    labels = fields[-n_columns - 1][1]  # the end of the row labels
    spans = [(data[k - 1][1] if k else labels, end) for k, (_, end) in enumerate(data)]
    blocks, block = [], []
    for span in spans:
        if block and labels + sum(b - a for a, b in block) + span[1] - span[0] > width:
            blocks.append(block)
            block = []
        block.append(span)
    blocks.append(block)
    return "\n".join("\n".join((line[:labels] + "".join(line[a:b] for a, b in block))
                               .rstrip() for line in lines) + "\n" for block in blocks)
