"""The ``xdiv`` command line.

Errors on bad input print one line (``xdiv: error: ...``) to standard error and exit with
status 2; no traceback is shown.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import textwrap
import warnings
from collections.abc import Sequence

import pandas as pd
import xarray as xr

from . import datasets
from .collection import read_qrels
from .errors import InputError, XdivError, XdivWarning
from .evaluate import evaluate, summarize
from .labels import from_json
from .io import check_output_path
from .kernels.meta import RANK_CORRELATIONS
from .measures.registry import MAX_CUTOFF, parse_measure, registry_markdown
from .netcdf import open_dataset, to_netcdf
from .reports import ndeval_csv, trec_eval_lines
from .runs import read_runs

DEMO_MEASURES = ["I-rec@10", "alpha-nDCG@10", "ERR-IA@10", "nDCG-IA@10", "D-nDCG@10",
                 "D#-nDCG@10", "DIN#-nDCG@10", "P+Q#@10", "Ef-P@10"]
DEMO_ADHOC_MEASURES = ["nDCG@10", "AP", "nERR@10"]

EXAMPLES = """examples:
  xdiv demo
  xdiv evaluate qrels.txt run1.txt run2.txt -m nDCG-IA@10 Q-IA@10 -o scores.nc
  xdiv evaluate qrels.txt runs/*.gz --adhoc max -m nDCG@10 AP --per-topic --format tsv
  xdiv meta scores.nc --test both -o meta.nc
  xdiv concordance scores.nc alpha-nDCG@10 D#-nDCG@10 --gold I-rec@10
  xdiv plot asl meta.nc -o asl.png
"""
QUIET_HELP = "print no warnings or progress bars"
FIGURE_FORMATS = (".png", ".svg", ".pdf")


EVALUATE_EXAMPLES = """examples:
  xdiv evaluate qrels.txt runs/*.gz -m alpha-nDCG@20 ERR-IA@20 D#-nDCG@10 --topics topics.xml
  xdiv evaluate qrels.txt run.txt -m D#-nDCG@10 --probabilities nonuniform --per-topic
  xdiv evaluate qrels.txt runs/* -m alpha-nDCG@20 ERR-IA@20 --format ndeval
  xdiv evaluate qrels.txt runs/* -m N-rec@10 LD#-nDCG@10 --hierarchy tree.txt
"""


def _command(sub, name: str, summary: str, *, about: str | None = None,
             examples: str | None = None) -> argparse.ArgumentParser:
    """A subcommand whose --help shows ``about`` (wrapped) and ``examples`` (verbatim), and
    which takes ``-q`` after its name as well as before."""
    command = sub.add_parser(name, help=summary, description=textwrap.fill(about or summary, 79),
                             epilog=examples,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
    command.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                         help=QUIET_HELP)
    return command


def _whole(minimum: int, maximum: int | None = None):
    """An argparse type: a whole number from ``minimum`` (to ``maximum``)."""
    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, not {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"must be at most {maximum}, not {value}")
        return value
    return convert


def _level(text: str) -> float:
    """An argparse type: a significance level strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, not {text}")
    return value


def measures_page() -> str:
    """The docs page ``docs/measures.md``, generated from the measure registry."""
    return ("# Measure reference\n\n"
            "Generated from xdiv's measure registry by `xdiv measures`; do not edit by hand.\n"
            "Names follow `NAME[(key=value,...)][@cutoff]`, e.g. `Q(beta=0)@10`.\n\n"
            + registry_markdown())


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xdiv", epilog=EXAMPLES,
        description="Evaluate diversified search results and meta-evaluate the measures.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-q", "--quiet", action="store_true", help=QUIET_HELP)
    sub = parser.add_subparsers(dest="command", required=True)

    demo = _command(sub, "demo", "evaluate the embedded synthetic data, meta-evaluate "
                                 "the measures, write NetCDF files and plots",
                    about="Build a seeded synthetic diversity collection and runs, evaluate "
                          "them with diversity measures and three adhoc measures, print the "
                          "means and write the score(metric, run, topic) cube to NetCDF; "
                          "then (unless --no-meta) compute the discriminative power of the "
                          "measures with the paired bootstrap and write it, the ASL curves "
                          "and the I-rec vs D-nDCG plot beside the cube (OUTPUT-meta.nc, "
                          "OUTPUT-asl.png, OUTPUT-irec-dndcg.png).",
                    examples="examples:\n  xdiv demo\n"
                             "  xdiv demo -o demo.nc --topics 50 --runs 20 --seed 3\n"
                             "  xdiv demo --no-meta")
    demo.add_argument("-o", "--output", default="xdiv-demo-scores.nc",
                      help="NetCDF file for the score cube (default: %(default)s)")
    demo.add_argument("--seed", type=_whole(0, 2 ** 63 - 1), default=0,
                      help="seed of the synthetic data and the bootstrap (default: %(default)s)")
    demo.add_argument("--topics", type=_whole(2), default=30,
                      help="number of topics, at least 2 (default: %(default)s)")
    demo.add_argument("--runs", type=_whole(2), default=10,
                      help="number of runs, at least 2 (default: %(default)s)")
    demo.add_argument("--no-meta", action="store_true",
                      help="skip the meta-evaluation and plots (scores only)")

    _command(sub, "measures", "print the measure reference (Markdown) from the registry",
             about="Print every registered measure with its name grammar, cutoff rule, "
                   "parameters and defaults, definition and source paper, as the Markdown "
                   "of the docs' measure reference.",
             examples="examples:\n  xdiv measures > measures.md\n"
                      "  xdiv measures | grep -i nDCG")

    mt = _command(sub, "meta", "discriminative power of the measures of a score cube",
                  about="Discriminative power of every measure of a score cube: "
                        "the share of run pairs whose difference is significant "
                        "(two-sided paired bootstrap and/or randomised Tukey HSD) "
                        "and the difference that takes.",
                  examples="examples:\n  xdiv meta scores.nc --test both -o meta.nc\n"
                           "  xdiv meta scores.nc --test tukey -B 10000 --seed 7")
    mt.add_argument("scores", help="score cube NetCDF written by 'xdiv evaluate -o'")
    mt.add_argument("--test", choices=["bootstrap", "tukey", "both"], default="both",
                    help="which test (default: %(default)s)")
    mt.add_argument("-B", type=_whole(1),
                    help="replicates (default 1000 bootstrap, 5000 Tukey)")
    mt.add_argument("--alpha", type=_level, default=0.05,
                    help="significance level (default: %(default)s)")
    mt.add_argument("--seed", type=_whole(0, 2 ** 63 - 1), default=0,
                    help="seed of the resampling, recorded in the output (default: %(default)s)")
    mt.add_argument("-o", "--output", help="write the meta-evaluation to this NetCDF file")

    cc = _command(sub, "concordance", "concordance test of two measures of a score cube",
                  about="Among the (topic, run pair) cases where M1 and M2 "
                        "disagree, how often each agrees with the gold-standard "
                        "measure(s) (Correct/Disagreements), how often only it does, and a "
                        "two-sided sign test over the latter.",
                  examples="example:\n  xdiv concordance scores.nc alpha-nDCG@10 "
                           "D#-nDCG@10 --gold I-rec@10 --gold Ef-P@10")
    cc.add_argument("scores", help="score cube NetCDF")
    cc.add_argument("m1", metavar="M1", help="first measure (a metric of the cube)")
    cc.add_argument("m2", metavar="M2", help="second measure")
    cc.add_argument("--gold", action="append", required=True, metavar="MEASURE",
                    help="gold-standard measure (repeat for several; all must agree)")

    co = _command(sub, "correlate", "rank correlations between the measures of a cube",
                  about="Rank the runs by their mean score under every measure of a score "
                        "cube and print the correlation of every pair of rankings as a "
                        "matrix (row measure, column measure).",
                  examples="example:\n  xdiv correlate scores.nc --method tau_ap")
    co.add_argument("scores", help="score cube NetCDF")
    co.add_argument("--method", default="kendall", choices=RANK_CORRELATIONS,
                    help="Kendall's tau-b, tau_ap (row measure scored against the column "
                         "measure's ranking), its symmetric mean tau_ap_sym, or Urbano & "
                         "Marrero's tau_ap_b for rankings with ties (default: %(default)s)")

    cv = _command(sub, "convert", "diversity qrels to adhoc qrels; OIH to EIH",
                  about="Convert diversity qrels into adhoc qrels (a document's "
                        "highest level over the intents, or the number of intents "
                        "it is relevant to), or extend an intent hierarchy file "
                        "(topic node parent [weight] [intent]) into an EIH.",
                  examples="examples:\n  xdiv convert qrels.txt --adhoc max -o adhoc.txt\n"
                           "  xdiv convert hierarchy.txt --eih -o eih.txt")
    cv.add_argument("input", help="qrels file, or a hierarchy file with --eih")
    how = cv.add_mutually_exclusive_group()
    how.add_argument("--adhoc", choices=["max", "count"],
                     help="qrels to adhoc qrels (the default, with max)")
    how.add_argument("--eih", action="store_true", help="hierarchy file to its EIH")
    cv.add_argument("-o", "--output", required=True, help="file to write")

    pl = _command(sub, "plot", "draw a plot from a score cube or meta-evaluation file",
                  about="Draw a plot to a PNG, SVG or PDF file (the format follows the "
                        "extension). asl: the ASL curves of every measure (seed 000 "
                        "Fig. 1-2), from 'xdiv meta -o'; scatter: mean I-rec@l against "
                        "mean D-nDCG@l per run with D#-nDCG contour lines (seed 000 Fig. 3); "
                        "topics: per-topic score distributions of one measure, one box per "
                        "run; diff: per-topic differences of two runs under one measure; "
                        "concordance: the concordance of every pair of --metrics against the "
                        "--gold measure(s) as a heat map; correlation: the rank-correlation "
                        "matrix of the measures. All but asl read a score cube from 'xdiv "
                        "evaluate -o'.",
                  examples="examples:\n"
                           "  xdiv plot asl meta.nc --test tukey -o asl.pdf\n"
                           "  xdiv plot scatter scores.nc --cutoff 10 -o irec-dndcg.png\n"
                           "  xdiv plot topics scores.nc --metric D#-nDCG@10 -o topics.svg\n"
                           "  xdiv plot diff scores.nc --metric D#-nDCG@10 --runs runA runB "
                           "-o diff.png\n"
                           "  xdiv plot concordance scores.nc --metrics alpha-nDCG@10 "
                           "D#-nDCG@10 P+Q#@10 --gold I-rec@10 -o concordance.png\n"
                           "  xdiv plot correlation scores.nc --method tau_ap -o tau.png")
    pl.add_argument("kind", choices=["asl", "scatter", "topics", "diff", "concordance",
                                     "correlation"], help="which plot")
    pl.add_argument("input", help="NetCDF file (xdiv meta -o for asl, else xdiv evaluate -o)")
    pl.add_argument("-o", "--output", required=True,
                    help="image file (.png, .svg or .pdf)")
    pl.add_argument("--test", default="bootstrap", choices=["bootstrap", "tukey"],
                    help="asl: which test of a meta file holding both (default: %(default)s)")
    pl.add_argument("--metric", help="topics, diff: the measure (default: the cube's first)")
    pl.add_argument("--runs", nargs=2, metavar=("RUN_A", "RUN_B"),
                    help="diff: the two runs (RUN_A - RUN_B)")
    pl.add_argument("--metrics", nargs="+", metavar="MEASURE",
                    help="concordance: the measures to compare (two or more)")
    pl.add_argument("--gold", action="append", metavar="MEASURE",
                    help="concordance: gold-standard measure (repeat for several)")
    pl.add_argument("--cutoff", type=_whole(1, MAX_CUTOFF), default=10,
                    help="scatter: the cutoff l of I-rec@l and D-nDCG@l (default: %(default)s)")
    pl.add_argument("--method", default="kendall", choices=RANK_CORRELATIONS,
                    help="correlation: the coefficient (default: %(default)s)")

    ev = _command(sub, "evaluate", "evaluate TREC runs against qrels",
                  about="Evaluate TREC runs (topic Q0 docno rank score tag) "
                        "against diversity or adhoc qrels; prints the mean scores "
                        "(or per-topic scores) and can write the score(metric, "
                        "run, topic) cube to NetCDF.",
                  examples=EVALUATE_EXAMPLES)
    ev.usage = "xdiv evaluate QRELS RUN [RUN ...] -m MEASURE [MEASURE ...] [options]"
    ev.add_argument("qrels", nargs="?", help="qrels file (diversity or adhoc, gzip allowed)")
    ev.add_argument("runs", nargs="*", help="run files (gzip allowed)")
    ev.add_argument("-m", "--measure", nargs="+", action="extend", required=True,
                    dest="measures", metavar="MEASURE",
                    help="measure names, e.g. nDCG-IA@10 'Q(beta=0)@10'; may be repeated "
                         "(files named after -m are taken as the qrels and runs)")
    ev.add_argument("--order", choices=["score-docno-desc", "score-docno-asc", "rank"],
                    default="score-docno-desc",
                    help="ranking of a run's documents: by score, ties by docno descending "
                         "(trec_eval, ndeval; the rank column is checked but not used) or "
                         "ascending, or by the rank column (default: %(default)s)")
    ev.add_argument("--duplicates", choices=["error", "first"], default="error",
                    help="a docno retrieved twice for a topic: an error, or keep its "
                         "highest-ranked occurrence with a warning (default: %(default)s)")
    ev.add_argument("--topics", help="TREC topic XML (intent types)")
    ev.add_argument("--probabilities", default="uniform",
                    help="uniform, nonuniform or a 'topic intent probability' file")
    ev.add_argument("--adhoc", choices=["max", "count"],
                    help="convert diversity qrels to adhoc relevance first")
    ev.add_argument("--missing", choices=["zero", "nan"], default="zero",
                    help="score of a judged topic a run lacks (default: %(default)s)")
    ev.add_argument("--per-topic", action="store_true", help="print per-topic scores")
    ev.add_argument("--format", choices=["table", "tsv", "csv", "ndeval", "trec_eval"],
                    default="table", help="ndeval: ndeval's per-topic CSV layout; trec_eval: "
                                          "'measure topic value' lines (both per topic)")
    ev.add_argument("--hierarchy",
                    help="intent hierarchy for N-rec, LD#-, HD#-, LAD#- and -LA measures: a "
                         "'topic node parent [weight] [intent]' file or an NTCIR IMine "
                         "subtopic XML file (IMine.Qrel.SM?.xml)")
    ev.add_argument("--hierarchy-kind", choices=["EIH", "OIH"], default="EIH",
                    help="use the hierarchy as given (OIH) or extended (default: %(default)s)")
    ev.add_argument("--node-weights", choices=["UB", "UT", "NB", "NT"], default="UB",
                    help="node weighting scheme of the hierarchy (default: %(default)s)")
    ev.add_argument("-o", "--output", help="write the score cube to this NetCDF file")
    return parser


def _print_frame(frame: pd.DataFrame, fmt: str) -> None:
    if fmt == "table":
        print(frame.to_string(float_format=lambda v: f"{v:.4f}"))
    else:
        print(frame.to_csv(sep="\t" if fmt == "tsv" else ",", float_format="%.6f"), end="")


def _summary_frame(scores: xr.Dataset) -> pd.DataFrame:
    means = summarize(scores)["mean"].transpose("run", "metric").to_pandas()
    means.columns.name = None
    return means[list(scores["metric"].values)]


def _output(path: str, *inputs: str) -> str:
    """Check an output path before any work: its folder exists, it is no folder, and it is
    not one of the command's inputs (which it would overwrite)."""
    text = check_output_path(path)
    for source in inputs:
        if source and os.path.exists(source) and os.path.exists(text) and \
                os.path.samefile(source, text):
            raise XdivError(f"{text}: is an input of this command; write the output elsewhere")
    return text


def _figure_output(path: str, *inputs: str) -> str:
    if os.path.splitext(path)[1].lower() not in FIGURE_FORMATS:
        raise XdivError(f"{path}: name a .png, .svg or .pdf file (the format follows the "
                        "extension)")
    return _output(path, *inputs)


@contextlib.contextmanager
def _about(path: str):
    """Name ``path`` in the input errors raised about its contents."""
    try:
        yield
    except InputError as exc:
        raise XdivError(f"{path}: {exc}") from None


def _open(path: str, kind: str) -> xr.Dataset:
    """A NetCDF file of the ``kind`` a command needs: ``"scores"`` (from ``xdiv evaluate
    -o``) or ``"meta"`` (from ``xdiv meta -o``)."""
    data = open_dataset(path)
    if kind == "meta" and "asl_curve" not in data:
        raise XdivError(f"{path}: not a meta-evaluation file (write one with 'xdiv meta -o')")
    if kind == "scores" and ("score" not in data or
                             set(data["score"].dims) != {"metric", "run", "topic"}):
        raise XdivError(f"{path}: not a score cube (write one with 'xdiv evaluate -o')")
    return data


def _demo(args) -> int:
    _output(args.output)
    collection, runs = datasets.synthetic(n_topics=args.topics, n_runs=args.runs,
                                          seed=args.seed)
    print(f"synthetic collection (seed {args.seed}): {collection.sizes['topic']} topics, "
          f"{int(collection['intent_valid'].sum())} intents, {runs.sizes['run']} runs of "
          f"depth {runs.sizes['rank']}")
    scores = xr.concat([evaluate(runs, collection, DEMO_MEASURES),
                        evaluate(runs, collection, DEMO_ADHOC_MEASURES, adhoc="max")],
                       dim="metric", combine_attrs="override")
    scores.attrs["adhoc"] = "per metric, see params"
    print("\nmean over topics (nDCG@10, AP, nERR@10 on max-level adhoc relevance):")
    _print_frame(_summary_frame(scores), "table")
    path = to_netcdf(scores, args.output)
    print(f"\nscore cube score(metric, run, topic) written to {os.path.abspath(path)}")
    if args.no_meta:
        return 0
    import matplotlib

    matplotlib.use("Agg")
    from .meta import discriminative_power
    from .plots import asl_curves, irec_dndcg

    power = discriminative_power(scores, "bootstrap", B=1000, seed=args.seed)
    print(f"\ndiscriminative power (paired bootstrap, B = 1000, seed {args.seed}, alpha = 0.05, "
          f"{power.attrs['n_pairs']} run pairs):")
    _print_frame(pd.DataFrame({"power": power["power"].to_pandas(),
                               "required delta": power["required_delta"].to_pandas()}),
                 "table")
    stem = os.path.splitext(os.path.abspath(path))[0]
    outputs = [to_netcdf(power, f"{stem}-meta.nc")]
    for name, fig in (("asl", asl_curves(power)), ("irec-dndcg", irec_dndcg(scores))):
        fig.savefig(f"{stem}-{name}.png", bbox_inches="tight")
        outputs.append(f"{stem}-{name}.png")
    print("\nmeta-evaluation and plots written to " + ", ".join(outputs))
    return 0


def _meta(args) -> int:
    from .meta import discriminative_power

    if args.output:
        _output(args.output, args.scores)
    scores = _open(args.scores, "scores")
    tests = ["bootstrap", "tukey"] if args.test == "both" else [args.test]
    progress = not args.quiet and sys.stderr.isatty()
    with _about(args.scores):
        results = [discriminative_power(scores, method=t, alpha=args.alpha, B=args.B,
                                        seed=args.seed, progress=progress) for t in tests]
    table = pd.DataFrame({f"{t} {col}": r[var].to_pandas()
                          for t, r in zip(tests, results)
                          for col, var in (("power", "power"), ("delta", "required_delta"))})
    print(f"discriminative power at alpha = {args.alpha} over {results[0].attrs['n_pairs']} "
          f"run pairs (seed {args.seed})")
    _print_frame(table, "table")
    if args.output:
        merged = xr.concat(results, dim="test", combine_attrs="drop_conflicts",
                           coords="minimal", compat="override")
        merged = merged.assign_coords(test=tests)
        merged.attrs.update(alpha=args.alpha, seed=args.seed, scores=os.fspath(args.scores))
        print(f"meta-evaluation written to {to_netcdf(merged, args.output)}", file=sys.stderr)
    return 0


def _concordance(args) -> int:
    from .meta import concordance

    scores = _open(args.scores, "scores")
    with _about(args.scores):
        res = concordance(scores, args.m1, args.m2, args.gold)
    print(f"gold standard(s): {', '.join(from_json(res.attrs['gold']))}")
    print(f"disagreements: {int(res['disagreements'])}")
    for k in (1, 2):
        print(f"{res.attrs[f'metric_{k}']}: {float(res[f'concordance_{k}']):.4f}  "
              f"(correct only it: {int(res[f'only_{k}'])})")
    print(f"two-sided sign test p = {float(res['pvalue']):.4g}")
    return 0


def _correlate(args) -> int:
    from .meta import rank_correlation

    scores = _open(args.scores, "scores")
    with _about(args.scores):
        corr = rank_correlation(scores, args.method).to_pandas()
    corr.index.name, corr.columns.name = None, None
    _print_frame(corr, "table")
    return 0


def _convert(args) -> int:
    _output(args.output, args.input)
    if args.eih:
        from .hierarchy import extend_hierarchy, write_hierarchy

        write_hierarchy(args.output, extend_hierarchy(args.input))
        print(f"EIH written to {args.output}", file=sys.stderr)
        return 0
    from .collection import to_adhoc, write_qrels

    method = args.adhoc or "max"
    write_qrels(args.output, to_adhoc(read_qrels(args.input), method))
    print(f"adhoc qrels ({method}) written to {args.output}", file=sys.stderr)
    return 0


def _plot(args) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from . import meta, plots

    _figure_output(args.output, args.input)
    if args.kind == "asl":
        data = _open(args.input, "meta")
        if "test" in data.dims:
            if args.test not in data["test"].values:
                raise XdivError(f"{args.input} holds the tests "
                                f"{', '.join(map(str, data['test'].values))}, not {args.test}")
            data = data.sel(test=args.test).assign_attrs(test=args.test)
    else:
        data = _open(args.input, "scores")
    with _about(args.input):
        if args.kind == "asl":
            fig = plots.asl_curves(data)
        elif args.kind == "scatter":
            fig = plots.irec_dndcg(data, cutoff=args.cutoff)
        elif args.kind == "topics":
            fig = plots.topic_distributions(data, args.metric or _first_metric(data))
        elif args.kind == "diff":
            if not args.runs or args.runs[0] == args.runs[1]:
                raise XdivError("plot diff needs --runs RUN_A RUN_B, two different runs")
            fig = plots.run_differences(data, args.metric or _first_metric(data), *args.runs)
        elif args.kind == "concordance":
            if not args.metrics or len(args.metrics) < 2 or not args.gold:
                raise XdivError("plot concordance needs --metrics M1 M2 [...] and --gold "
                                "MEASURE")
            fig = plots.concordance_heatmap(meta.concordance_table(data, args.metrics,
                                                                   args.gold))
        else:
            fig = plots.correlation_matrix(meta.rank_correlation(data, args.method))
    try:
        fig.savefig(args.output, bbox_inches="tight")
    except OSError as exc:
        raise XdivError(f"{args.output}: cannot write ({exc.strerror or exc})") from None
    print(f"plot written to {args.output}", file=sys.stderr)
    return 0


def _first_metric(data: xr.Dataset) -> str:
    return str(data["metric"].values[0])


def _measures(args) -> int:
    print(measures_page(), end="")
    return 0


def _split_files_from_measures(args) -> None:
    """``xdiv evaluate -m M1 M2 QRELS RUN``: argparse hands every word after ``-m`` to it.
    A word that parses as a measure name is a measure; any other word that names an
    existing file is a qrels or run file (in the order given); a path-like word that is
    neither is an error naming both readings. Other words stay measures, so that their
    parse error is reported."""
    files = ([args.qrels] if args.qrels else []) + args.runs
    measures = []
    for word in args.measures:
        try:
            parse_measure(word)
        except XdivError as exc:
            if os.path.isfile(word):
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
    args.qrels, args.runs = files[0], files[1:]


def _evaluate(args) -> int:
    _split_files_from_measures(args)
    if args.output:
        _output(args.output, args.qrels, *args.runs, args.topics, args.hierarchy,
                args.probabilities)
    collection = read_qrels(args.qrels, topics=args.topics, probabilities=args.probabilities)
    if args.hierarchy:
        from .hierarchy import attach_hierarchy
        from .imine import read_imine_hierarchy

        tree = (read_imine_hierarchy(args.hierarchy)
                if str(args.hierarchy).lower().endswith(".xml") else args.hierarchy)
        collection = attach_hierarchy(collection, tree, kind=args.hierarchy_kind,
                                      weights=args.node_weights)
    runs = read_runs(args.runs, order=args.order, duplicates=args.duplicates,
                     progress=not args.quiet and sys.stderr.isatty())
    scores = evaluate(runs, collection, args.measures, missing=args.missing, adhoc=args.adhoc)
    if args.format == "ndeval":
        print(ndeval_csv(scores), end="")
    elif args.format == "trec_eval":
        print(trec_eval_lines(scores), end="")
    elif args.per_topic:
        frame = scores["score"].to_dataframe().reset_index().pivot_table(
            index=["run", "topic"], columns="metric", values="score", sort=False, dropna=False)
        frame.columns.name = None
        _print_frame(frame[list(scores["metric"].values)], args.format)
    else:
        _print_frame(_summary_frame(scores), args.format)
    if args.output:
        print(f"score cube written to {to_netcdf(scores, args.output)}", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``xdiv`` console script."""
    args = _parser().parse_args(argv)
    with warnings.catch_warnings():
        if args.quiet:
            warnings.simplefilter("ignore")
        else:
            warnings.simplefilter("always", XdivWarning)
            warnings.showwarning = _show_warning
        try:
            status = {"demo": _demo, "evaluate": _evaluate, "measures": _measures,
                      "meta": _meta, "plot": _plot, "concordance": _concordance,
                      "correlate": _correlate, "convert": _convert}[args.command](args)
            sys.stdout.flush()
            return status
        except XdivError as exc:
            print(f"xdiv: error: {exc}", file=sys.stderr)
            return 2
        except BrokenPipeError:
            # the reader went away (``xdiv evaluate ... | head``): stop quietly, as a
            # command killed by SIGPIPE does, and keep the interpreter's final flush quiet
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 141


def _show_warning(message, category, filename, lineno, file=None, line=None):
    print(f"xdiv: warning: {message}", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
