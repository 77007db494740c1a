"""``xdiv pools``: pool studies of a test collection and the runs that formed its pool
(see :mod:`xdiv.pools`): leave one run (or group) out, and judgment downsampling."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..errors import InputError
from ..typing import ORDER_HELP, ORDERS, RANK_CORRELATIONS
from .common import add_qrels_format, command, number, output, print_frame, table_format_option

if TYPE_CHECKING:
    import pandas as pd
    import xarray as xr

ABOUT = ("Pool studies of a test collection with the runs that formed its pool. "
         "leave-one-out: each run is scored again with the judged documents that only it "
         "(only its group, with --groups) brought to the depth-K pool removed from the "
         "qrels; the mean change of its score says how a new run of its kind, scored after "
         "the pool was judged, would be underrated (Zobel, SIGIR 1998; Buckley, Dimmick, "
         "Soboroff & Voorhees, SIGIR 2006). downsample: each topic keeps a seeded random "
         "fraction of its judged documents, every run is scored again, and the ranking of "
         "the runs is compared with the ranking under all the judgments by Kendall's tau "
         "and tau_ap (Buckley & Voorhees, SIGIR 2004; Yilmaz, Aslam & Robertson, SIGIR "
         "2008). Both print a summary table; -o writes the result to NetCDF, the input of "
         "'xdiv report --pools'.")
EXAMPLES = """examples:
  xdiv pools leave-one-out qrels.txt runs/*.gz -m alpha-nDCG@20 ERR-IA@20 --depth 20 \\
      -o loo.nc
  xdiv pools leave-one-out qrels.txt runs/*.gz -m alpha-nDCG@20 --depth 20 \\
      --groups groups.txt
  xdiv pools downsample qrels.txt runs/*.gz -m alpha-nDCG@20 I-rec@20 \\
      --fractions 0.1 0.3 0.5 --repeats 10 --seed 0 -o down.nc
  xdiv report scores.nc -o report.html --pools loo.nc down.nc
"""


def integer(text: str) -> int:
    """An argparse type: a whole number, of any sign (the pool functions check its range
    and say what it must be)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def _inputs(parser) -> None:
    parser.usage = (f"xdiv pools {parser.prog.split()[-1]} QRELS RUN [RUN ...] "
                    "-m MEASURE [MEASURE ...] [options]")
    parser.add_argument("qrels", nargs="?", help="qrels file (diversity or adhoc, gzip "
                                                 "allowed; '-' for standard input)")
    parser.add_argument("runs", nargs="*", help="the run files that formed the pool (gzip "
                                                "allowed; quoted glob patterns such as "
                                                "'runs/*.gz' too)")
    parser.add_argument("-m", "--measure", nargs="+", action="extend", required=True,
                        dest="measures", metavar="MEASURE",
                        help="measure names or sets, as 'xdiv evaluate -m' takes them")
    parser.add_argument("--order", choices=ORDERS, default="score-docno-desc",
                        help=ORDER_HELP + " (default: %(default)s)")
    parser.add_argument("--topics", help="TREC topic XML (intent types)")
    parser.add_argument("--probabilities", default="uniform",
                        help="uniform, nonuniform or a 'topic intent probability' file")
    add_qrels_format(parser)
    table_format_option(parser)
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write the result to this NetCDF file")


def add_parser(sub) -> None:
    pools = command(sub, "pools", "pool studies: leave one run out, judgment downsampling",
                    _no_action, about=ABOUT, examples=EXAMPLES)
    actions = pools.add_subparsers(dest="pools_command", metavar="ACTION")

    loo = command(actions, "leave-one-out", "pool bias: each run without the documents "
                  "only it pooled", run_leave_one_out,
                  about="Pool bias (xdiv.pools.leave_one_run_out): the depth-K pool of a "
                        "topic is the union of the runs' top K documents; each run is "
                        "scored again with the judged documents only it pooled removed "
                        "from the qrels, and the table gives, per run, the mean change of "
                        "each measure over the topics (most negative first, by the first "
                        "measure) with the judged unique documents removed. --groups "
                        "leaves a participant's runs out together (Zobel, SIGIR 1998; "
                        "Buckley, Dimmick, Soboroff & Voorhees, SIGIR 2006).",
                  examples="examples:\n"
                           "  xdiv pools leave-one-out qrels.txt runs/*.gz -m alpha-nDCG@20 "
                           "--depth 20 -o loo.nc\n"
                           "  xdiv pools leave-one-out qrels.txt runs/*.gz -m ndeval "
                           "--depth 20 --groups groups.txt\n")
    _inputs(loo)
    loo.add_argument("--depth", type=integer, default=100, metavar="K",
                     help="the pool depth, from 1 to the deepest run's depth (default: "
                          "%(default)s)")
    loo.add_argument("--groups", metavar="FILE",
                     help="each run's group, one 'run group' line per run (e.g. the "
                          "participant); a group's runs are left out together")

    down = command(actions, "downsample", "run rankings under a random part of the "
                   "judgments", run_downsample,
                   about="Judgment downsampling (xdiv.pools.downsample): for each fraction "
                         "and repeat, each topic keeps that fraction of its judged "
                         "documents, drawn at random (seeded; a repeat's samples are nested "
                         "over the fractions), every run is scored again, and the ranking "
                         "of the runs by mean score is compared with the ranking under all "
                         "the judgments by Kendall's tau and tau_ap; the table gives their "
                         "mean over the repeats for each fraction and measure (Buckley & "
                         "Voorhees, SIGIR 2004; Yilmaz, Aslam & Robertson, SIGIR 2008).",
                   examples="examples:\n"
                            "  xdiv pools downsample qrels.txt runs/*.gz -m alpha-nDCG@20 "
                            "I-rec@20 \\\n      --fractions 0.1 0.3 0.5 1 --repeats 10 "
                            "--seed 0 -o down.nc\n")
    _inputs(down)
    down.add_argument("--fractions", type=number, nargs="+", metavar="F",
                      default=[0.1, 0.2, 0.3, 0.5, 0.7, 1.0],
                      help="the fractions of the judgments kept, each in (0, 1] "
                           "(default: 0.1 0.2 0.3 0.5 0.7 1)")
    down.add_argument("--repeats", type=integer, default=10, metavar="N",
                      help="random samples per fraction, at least 1 (default: %(default)s)")
    down.add_argument("--seed", type=integer, default=0,
                      help="seed of the samples (default: %(default)s)")
    down.add_argument("--tau", choices=RANK_CORRELATIONS, default="kendall",
                      help="the coefficient the figures draw by default; kendall and "
                           "tau_ap are always computed, another one is added (default: "
                           "%(default)s)")


def _no_action(args) -> int:
    """``xdiv pools`` without an action: a usage error, as any missing argument."""
    args.usage_error("needs an action: leave-one-out or downsample (xdiv pools --help)")
    return 2


def read_groups(path: str) -> dict[str, str]:
    """The ``run group`` lines of ``path`` as a mapping (blank lines and lines starting
    with ``#`` skipped).

    Raises
    ------
    InputError
        ``FILE:LINE: ...``: a line without exactly two fields, a run given two groups, or
        a file without any line.
    """
    from ..io._guard import control_message, numbered_fields

    groups: dict[str, str] = {}
    for line, fields in numbered_fields(path):
        if fields[0].startswith("#"):
            continue
        if len(fields) != 2:
            raise InputError(f"{path}:{line}: expected 'run group', found {len(fields)} "
                             "field(s)")
        run, group = fields
        for name, value in (("run", run), ("group", group)):
            problem = control_message(name, value)
            if problem:
                raise InputError(f"{path}:{line}: {problem}")
        if groups.setdefault(run, group) != group:
            raise InputError(f"{path}:{line}: run {run!r} is in group {groups[run]!r} "
                             f"already, not also in {group!r}")
    if not groups:
        raise InputError(f"{path}: no 'run group' line")
    return groups


def _read(args) -> tuple[xr.Dataset, xr.Dataset]:
    """The collection and the runs named by ``args`` (after checking the output)."""
    from ..io._spool import spooled_inputs
    from ..io.api import read_qrels
    from ..io.runfiles import read_runs
    from .evaluate import split_files_from_measures

    split_files_from_measures(args)
    if args.output:
        output(args.output, args.qrels, *args.runs, args.topics, args.probabilities,
               getattr(args, "groups", None))
    with spooled_inputs([args.qrels, *args.runs]) as spool:
        collection = read_qrels(spool.paths[0], topics=args.topics,
                                probabilities=args.probabilities,
                                format=args.qrels_format, renormalise=args.renormalise)
        runs = read_runs(spool.paths[1:], order=args.order)
    return collection, runs


def _finish(args, result: xr.Dataset, what: str) -> int:
    from ..io.netcdf import to_netcdf

    if args.output:
        result.attrs["collection"] = str(args.qrels)
        print(f"{what} written to {to_netcdf(result, args.output)}", file=sys.stderr)
    return 0


def run_leave_one_out(args) -> int:
    from ..analysis.pools import leave_one_run_out

    groups = read_groups(args.groups) if args.groups else None
    collection, runs = _read(args)
    result = leave_one_run_out(runs, collection, args.measures, depth=args.depth,
                               groups=groups)
    frame = leave_one_out_frame(result)
    if args.format == "table":
        what = "group" if result.attrs.get("left_out") == "group" else "run"
        only = "its group" if what == "group" else "it"
        print(f"leave one {what} out, pool depth {result.attrs['depth']} "
              f"({result.attrs['pool_size']} documents pooled): each run's mean change "
              f"of each measure without the judged documents only {only} pooled")
    print_frame(frame, args.format)
    return _finish(args, result, "leave-one-out result")


def leave_one_out_frame(result: xr.Dataset) -> pd.DataFrame:
    """The run table of a :func:`xdiv.pools.leave_one_run_out` result: each metric's mean
    change, the judged (and relevant) unique documents removed and the unique documents
    pooled, the group when runs were grouped; sorted by the first metric's change, most
    negative first."""
    frame = result["mean_difference"].transpose("run", "metric").to_pandas()
    frame.columns = [str(m) for m in frame.columns]
    frame.index = [str(r) for r in frame.index]
    frame.index.name = "run"
    first = frame.columns[0]
    if result.attrs.get("left_out") == "group":
        frame.insert(0, "group", [str(g) for g in result["group"].values])
    frame["removed"] = result["n_removed"].values
    frame["relevant removed"] = result["n_removed_relevant"].values
    frame["unique pooled"] = result["n_unique"].values
    return frame.sort_values(first, kind="stable", na_position="last")


def run_downsample(args) -> int:
    from ..analysis.pools import downsample

    collection, runs = _read(args)
    result = downsample(runs, collection, args.measures, fractions=args.fractions,
                        repeats=args.repeats, seed=args.seed, tau=args.tau)
    if args.format == "table":
        print(f"judgment downsampling: {result.sizes['run']} runs, "
              f"{result.sizes['repeat']} repeat(s) per fraction (seed={args.seed}); rank "
              "correlation with the ranking under all the judgments, mean over the repeats")
    print_frame(downsample_frame(result), args.format)
    return _finish(args, result, "downsampling result")


def downsample_frame(result: xr.Dataset) -> pd.DataFrame:
    """The fraction table of a :func:`xdiv.pools.downsample` result: the judged documents
    kept, and for every metric and coefficient the mean over the repeats."""
    import pandas as pd

    coefficients = [c for c in dict.fromkeys(["kendall", "tau_ap", result.attrs.get("tau")])
                    if c in result.data_vars]
    columns = {"judged kept": result["n_kept"].sum("topic").values}
    for metric in result["metric"].values:
        for c in coefficients:
            columns[f"{metric} {c}"] = result[c].sel(metric=metric).mean("repeat").values
    frame = pd.DataFrame(columns, index=[f"{f:g}" for f in result["fraction"].values])
    frame.index.name = "fraction"
    return frame
