"""``xdiv plot``: figures from a score cube or a meta-evaluation file."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..errors import XdivError
from .common import about, command, figure_output, open_netcdf, renamed, save_figure, \
    whole
from ..typing import MAX_CUTOFF, META_TESTS, RANK_CORRELATIONS

if TYPE_CHECKING:
    import xarray as xr

KINDS = ("asl", "scatter", "topics", "diff", "concordance", "correlation", "er-dri", "ktu",
         "rbo", "rmse", "model")
REPRO = {"er-dri": None, "ktu": "ktu", "rbo": "rbo", "rmse": "rmse"}
"""The plots of a reproducibility result ('xdiv repro -o'), and what cutoff_plot draws."""
ONE_MEASURE = ("topics", "diff")
"""The plots of one measure (-m/--measure, else the cube's first)."""
MEASURE_PLOTS = (*ONE_MEASURE, "concordance", "er-dri", "rmse")
"""The plots that take -m/--measure (concordance two or more measures; er-dri and rmse
the measures to draw)."""


def add_parser(sub) -> None:
    pl = command(sub, "plot", "draw a plot from a score cube or meta-evaluation file", run,
                 about="Draw a plot to a PNG, SVG or PDF file (the format follows the "
                       "extension). asl: the ASL curves of every measure (Sakai, SIGIR "
                       "2006; as in Sakai & Song, SIGIR 2011, Figs. 1-2), from 'xdiv meta "
                       "-o'; scatter: mean I-rec@l against mean D-nDCG@l per run with "
                       "D#-nDCG contour lines (Sakai & Song, SIGIR 2011, Fig. 3); topics: "
                       "per-topic score distributions of one measure, "
                       "one box per run; diff: per-topic differences of two runs under one "
                       "measure; concordance: the concordance of every pair of the measures -m "
                       "against the --gold measure(s) as a heat map; correlation: the "
                       "rank-correlation matrix of the measures. All but asl read a score "
                       "cube from 'xdiv evaluate -o'. From 'xdiv repro -o' (Breuer, "
                       "Ferro, Fuhr, Maistro, Sakai, Schaer & Soboroff, SIGIR 2020): er-dri, "
                       "the effect ratio against DeltaRI per pair of repetitions and "
                       "measure; ktu, rbo: KTU and RBO against the cutoff; rmse: RMSE "
                       "against the cutoff of measures held at several cutoffs, one line "
                       "per pair and run. model: the run means of a mixed model with their "
                       "confidence intervals, one row per run (a forest plot), from 'xdiv "
                       "model -o'.",
                 examples="examples:\n"
                          "  xdiv plot asl meta.nc --test tukey -o asl.pdf\n"
                          "  xdiv plot scatter scores.nc --cutoff 10 -o irec-dndcg.png\n"
                          "  xdiv plot topics scores.nc -m D#-nDCG@10 -o topics.svg\n"
                          "  xdiv plot diff scores.nc -m D#-nDCG@10 --runs runA runB "
                          "-o diff.png\n"
                          "  xdiv plot concordance scores.nc -m alpha-nDCG@10 "
                          "D#-nDCG@10 P+Q#@10 --gold I-rec@10 -o concordance.png\n"
                          "  xdiv plot correlation scores.nc --method tau_ap -o tau.png\n"
                          "  xdiv plot er-dri repro.nc -o er-dri.svg\n"
                          "  xdiv plot rmse repro.nc -m P.5 P.10 P.20 -o rmse.png\n"
                          "  xdiv plot model model.nc -o means.svg\n\n"
                          "scatter needs both I-rec@l and D-nDCG@l in the cube, at the "
                          "--cutoff l.")
    pl.add_argument("kind", choices=KINDS, help="which plot")
    pl.add_argument("input", help="NetCDF file (xdiv meta -o for asl, xdiv repro -o for "
                                  "er-dri, ktu, rbo and rmse, xdiv model -o for model, else "
                                  "xdiv evaluate -o)")
    pl.add_argument("-o", "--output", required=True,
                    help="image file (.png, .svg or .pdf)")
    pl.add_argument("--test", choices=META_TESTS[:-1],
                    help="asl: which test of a meta file holding both (default: the only "
                         "test the file holds, else bootstrap)")
    pl.add_argument("-m", "--measure", nargs="+", action="extend", dest="measures",
                    metavar="MEASURE",
                    help="topics, diff: the measure (default: the cube's first); "
                         "concordance: the measures to compare (two or more); er-dri, "
                         "rmse: the measures to draw (default: all)")
    renamed(pl, "--metric", "-m/--measure", dest="measures", metavar="MEASURE",
            what="the measures", action="append")
    renamed(pl, "--metrics", "-m/--measure", dest="measures", metavar="MEASURE",
            what="the measures", nargs="+", action="extend")
    pl.add_argument("--runs", nargs=2, metavar=("RUN_A", "RUN_B"),
                    help="diff: the two runs (RUN_A - RUN_B)")
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

    _check_measures(args)
    figure_output(args.output, args.input)
    if args.kind in (*REPRO, "model"):
        from ..io.netcdf import open_dataset
        from ..plot import models, repro

        data = open_dataset(args.input)
    else:
        data = open_netcdf(args.input, "meta" if args.kind == "asl" else "scores")
    with about(args.input):
        if args.kind == "model":
            fig = models.model_means_plot(data)
        elif args.kind == "er-dri":
            fig = repro.er_dri_plot(data, args.measures)
        elif args.kind in REPRO:
            fig = repro.cutoff_plot(data, REPRO[args.kind],
                                    args.measures if args.kind == "rmse" else None)
        elif args.kind == "asl":
            fig = plots.asl_curves(data, test=args.test)
        elif args.kind == "scatter":
            fig = plots.irec_dndcg(data, cutoff=args.cutoff)
        elif args.kind == "topics":
            fig = plots.topic_distributions(data, _one_measure(args, data))
        elif args.kind == "diff":
            if not args.runs or args.runs[0] == args.runs[1]:
                raise XdivError("plot diff needs --runs RUN_A RUN_B, two different runs")
            fig = plots.run_differences(data, _one_measure(args, data), *args.runs)
        elif args.kind == "concordance":
            if not args.measures or len(args.measures) < 2 or not args.gold:
                raise XdivError("plot concordance needs -m M1 M2 [...] and --gold MEASURE")
            fig = plots.concordance_heatmap(meta.concordance_table(data, args.measures,
                                                                   args.gold))
        else:
            fig = plots.correlation_matrix(meta.rank_correlation(data, args.method))
    save_figure(fig, args.output)
    print(f"plot written to {args.output}", file=sys.stderr)
    return 0


def _check_measures(args) -> None:
    """-m/--measure only for the plots that take measures, one for topics and diff."""
    if not args.measures:
        return
    if args.kind not in MEASURE_PLOTS:
        raise XdivError(f"plot {args.kind} takes no -m/--measure (only "
                        f"{', '.join(MEASURE_PLOTS)} do)")
    if args.kind in ONE_MEASURE and len(args.measures) > 1:
        raise XdivError(f"plot {args.kind} draws one measure; -m/--measure gave "
                        f"{len(args.measures)}: {' '.join(args.measures)}")


def _one_measure(args, data: xr.Dataset) -> str:
    """The measure of a topics or diff plot: -m/--measure's, else the cube's first."""
    return args.measures[0] if args.measures else str(data["metric"].values[0])
