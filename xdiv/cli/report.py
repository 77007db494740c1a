"""``xdiv report``: one self-contained HTML report of a score cube and its meta-evaluation."""

from __future__ import annotations

import sys

from .common import about, command, open_netcdf, output, renamed, significance_option


def add_parser(sub) -> None:
    rp = command(sub, "report", "write a self-contained HTML report of a score cube",
                 run,
                 about="Write one HTML page that opens offline (inline style and SVG plots, "
                       "no script, nothing fetched): the runs' mean scores with 95% t "
                       "confidence intervals over topics, the per-topic distribution of "
                       "the primary measure, the significance of every run pair (the "
                       "meta-evaluation's ASLs when META is given, else paired t-tests "
                       "Holm-adjusted over all pairs), discriminative power and ASL curves "
                       "(with META), and the I-rec/D-nDCG scatter plot and rank "
                       "correlations of the measures. A cube evaluated with --ties or "
                       "--residuals adds the sections Ties and Unjudged documents; --pools "
                       "adds the pool studies of 'xdiv pools' (leave one run out, "
                       "judgment downsampling); --repro adds the reproducibility measures of "
                       "'xdiv repro' (Breuer et al., SIGIR 2020); --model adds the models of "
                       "'xdiv model' (run means with confidence intervals, variance "
                       "components and adjusted contrasts of a mixed model; an ANOVA table "
                       "with its effect sizes).",
                 examples="examples:\n"
                          "  xdiv report scores.nc -o report.html\n"
                          "  xdiv report scores.nc meta.nc -m D#-nDCG@10 -o report.html\n"
                          "  xdiv report scores.nc meta.nc -o report.html --pools loo.nc "
                          "down.nc\n"
                          "  xdiv report scores.nc -o report.html --repro repro.nc\n"
                          "  xdiv report scores.nc -o report.html --model model.nc anova.nc")
    rp.add_argument("scores", help="score cube NetCDF written by 'xdiv evaluate -o'")
    rp.add_argument("meta", nargs="?", help="its meta-evaluation, written by 'xdiv meta -o'")
    rp.add_argument("-o", "--output", required=True, help="the HTML file to write")
    rp.add_argument("-m", "--measure", dest="measure", metavar="MEASURE",
                    help="the primary measure (default: alpha-nDCG@20 when the cube holds "
                         "it, as TREC reported it, else the cube's first)")
    renamed(rp, "--metric", "-m/--measure", dest="measure", metavar="MEASURE",
            what="the primary measure")
    significance_option(rp, "significance level (default: the meta-evaluation's, else 0.05)",
                        default=None)
    rp.add_argument("--baseline", nargs="+", metavar="RUN",
                    help="add the table a paper prints against these baselines (paired "
                         "t-tests, Holm-corrected; xdiv compare for other tests)")
    rp.add_argument("--pairs-table", action="store_true",
                    help="add that table over all run pairs instead")
    rp.add_argument("--full-matrix", action="store_true",
                    help="show the p-value of every run pair even beyond 40 runs (by default "
                         "a larger cube's significance is summarised per run)")
    rp.add_argument("--pools", nargs="+", metavar="FILE",
                    help="add the pool studies in these NetCDF files, written by 'xdiv "
                         "pools leave-one-out -o' or 'xdiv pools downsample -o'")
    rp.add_argument("--repro", nargs="+", metavar="FILE",
                    help="add the reproducibility results in these NetCDF files, written by "
                         "'xdiv repro -o' (tables of KTU, RBO, RMSE, ER, DeltaRI and "
                         "p-values, and their figures)")
    rp.add_argument("--model", nargs="+", metavar="FILE", dest="models",
                    help="add the models in these NetCDF files, written by 'xdiv model -o' "
                         "(a mixed model's run means, variance components and contrasts; an "
                         "ANOVA table)")


def run(args) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from ..io.netcdf import open_dataset
    from ..report.html import check_model, check_pool_study, check_repro, write_report

    output(args.output, args.scores, args.meta, *(args.pools or ()), *(args.repro or ()),
           *(args.models or ()))
    scores = open_netcdf(args.scores, "scores")
    meta = open_netcdf(args.meta, "meta") if args.meta else None
    pools = []
    for path in args.pools or ():
        study = open_dataset(path)
        check_pool_study(study, path)
        pools.append(study)
    repro = []
    for path in args.repro or ():
        result = open_dataset(path)
        check_repro(result, path)
        repro.append(result)
    models = []
    for path in args.models or ():
        result = open_dataset(path)
        check_model(result, path)
        models.append(result)
    with about(f"{args.scores} with {args.meta}" if args.meta else args.scores):
        path = write_report(args.output, scores, meta, metric=args.measure, alpha=args.alpha,
                            full_matrix=args.full_matrix, baseline=args.baseline,
                            pairs_table=args.pairs_table, pools=pools or None,
                            repro=repro or None, models=models or None)
    print(f"report written to {path}", file=sys.stderr)
    return 0
