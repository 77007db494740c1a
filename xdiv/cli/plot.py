"""``xdiv plot``: figures from a score cube or a meta-evaluation file."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..errors import XdivError
from .common import about, command, figure_output, open_netcdf, save_figure, whole
from ..typing import MAX_CUTOFF, META_TESTS, RANK_CORRELATIONS

if TYPE_CHECKING:
    import xarray as xr

KINDS = ("asl", "scatter", "topics", "diff", "concordance", "correlation")


def add_parser(sub) -> None:
    pl = command(sub, "plot", "draw a plot from a score cube or meta-evaluation file", run,
                 about="Draw a plot to a PNG, SVG or PDF file (the format follows the "
                       "extension). asl: the ASL curves of every measure (Sakai, SIGIR "
                       "2006; as in Sakai & Song, SIGIR 2011, Figs. 1-2), from 'xdiv meta "
                       "-o'; scatter: mean I-rec@l against mean D-nDCG@l per run with "
                       "D#-nDCG contour lines (Sakai & Song, SIGIR 2011, Fig. 3); topics: "
                       "per-topic score distributions of one measure, "
                       "one box per run; diff: per-topic differences of two runs under one "
                       "measure; concordance: the concordance of every pair of --metrics "
                       "against the --gold measure(s) as a heat map; correlation: the "
                       "rank-correlation matrix of the measures. All but asl read a score "
                       "cube from 'xdiv evaluate -o'.",
                 examples="examples:\n"
                          "  xdiv plot asl meta.nc --test tukey -o asl.pdf\n"
                          "  xdiv plot scatter scores.nc --cutoff 10 -o irec-dndcg.png\n"
                          "  xdiv plot topics scores.nc --metric D#-nDCG@10 -o topics.svg\n"
                          "  xdiv plot diff scores.nc --metric D#-nDCG@10 --runs runA runB "
                          "-o diff.png\n"
                          "  xdiv plot concordance scores.nc --metrics alpha-nDCG@10 "
                          "D#-nDCG@10 P+Q#@10 --gold I-rec@10 -o concordance.png\n"
                          "  xdiv plot correlation scores.nc --method tau_ap -o tau.png\n\n"
                          "scatter needs both I-rec@l and D-nDCG@l in the cube, at the "
                          "--cutoff l.")
    pl.add_argument("kind", choices=KINDS, help="which plot")
    pl.add_argument("input", help="NetCDF file (xdiv meta -o for asl, else xdiv evaluate -o)")
    pl.add_argument("-o", "--output", required=True,
                    help="image file (.png, .svg or .pdf)")
    pl.add_argument("--test", choices=META_TESTS[:-1],
                    help="asl: which test of a meta file holding both (default: the only "
                         "test the file holds, else bootstrap)")
    pl.add_argument("--metric", help="topics, diff: the measure (default: the cube's first)")
    pl.add_argument("--runs", nargs=2, metavar=("RUN_A", "RUN_B"),
                    help="diff: the two runs (RUN_A - RUN_B)")
    pl.add_argument("--metrics", nargs="+", metavar="MEASURE",
                    help="concordance: the measures to compare (two or more)")
    pl.add_argument("--gold", action="append", metavar="MEASURE",
                    help="concordance: gold-standard measure (repeat for several)")
    pl.add_argument("--cutoff", type=whole(1, MAX_CUTOFF), default=10,
                    help="scatter: the cutoff l of I-rec@l and D-nDCG@l (default: %(default)s)")
    pl.add_argument("--method", default="kendall", choices=RANK_CORRELATIONS,
                    help="correlation: the coefficient (default: %(default)s)")


def run(args) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from .. import meta, plots

    figure_output(args.output, args.input)
    data = open_netcdf(args.input, "meta" if args.kind == "asl" else "scores")
    with about(args.input):
        if args.kind == "asl":
            fig = plots.asl_curves(data, test=args.test)
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
    save_figure(fig, args.output)
    print(f"plot written to {args.output}", file=sys.stderr)
    return 0


def _first_metric(data: xr.Dataset) -> str:
    return str(data["metric"].values[0])
