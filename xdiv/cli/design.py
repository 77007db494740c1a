"""``xdiv design``: test-collection design and reliability from a score cube (topic set
sizes, detectable differences, the power of each run pair, swap rates and G-theory; see
:mod:`xdiv.design`)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from ..errors import XdivError
from .common import (about, command, figure_output, level, open_netcdf, output, positive,
                     print_frame, renamed, save_figure, significance_option,
                     table_format_option, whole)
from ..typing import DESIGN_TESTS, PAIR_VARIANCES

if TYPE_CHECKING:
    import pandas as pd
    import xarray as xr

ABOUT = ("Test-collection design from a score cube written by 'xdiv evaluate -o'. size: the "
         "number of topics each measure needs to detect a difference with a paired t test "
         "(or one-way ANOVA, or to bound a confidence interval's width; Sakai, IRJ 2016); "
         "mdd: the smallest difference a number of topics detects; pairs: the power each "
         "run pair of the cube was compared with; swap: how often run pairs swap between "
         "topic subsets, by the size of the difference (Voorhees & Buckley, SIGIR 2002); "
         "gstudy: variance components, E(rho^2) and Phi, and the topics needed for a "
         "target (Bodoff & Li, SIGIR 2007; Urbano, Marrero & Martín, SIGIR 2013).")
EXAMPLES = """examples:
  xdiv design size scores.nc --diff 0.02 0.05 0.1 --plot power.png
  xdiv design size scores.nc --diff 0.1 --test anova --systems 20
  xdiv design mdd scores.nc --n-topics 25 50 100
  xdiv design pairs scores.nc --list --format tsv
  xdiv design swap scores.nc -B 1000 --seed 7 -o swap.nc --plot swap.png
  xdiv design gstudy scores.nc --target 0.8 0.95 --plot g.png
"""


V_E_NOTE = ("V_E (first column of the table): the within-system variance of each measure, "
            "the\nresidual mean square of the two-way ANOVA without replication of its run x "
            "topic\nscores; the paired t test's per-topic differences have variance 2 V_E "
            "(Sakai,\nInformation Retrieval Journal 2016).")
"""What ``xdiv design size`` says about its ``V_E`` column (help and table footer)."""


def _common(parser, *, out: str, plot: str | None = None) -> None:
    parser.add_argument("scores", help="score cube NetCDF written by 'xdiv evaluate -o'")
    parser.add_argument("-m", "--measure", nargs="+", action="extend", dest="measures",
                        metavar="MEASURE", help="only these metrics of the cube (default: all)")
    table_format_option(parser)
    parser.add_argument("-o", "--output", help=f"write {out} to this NetCDF file")
    if plot:
        parser.add_argument("--plot", metavar="FIGURE",
                            help=f"draw {plot} to this .png, .svg or .pdf file")


def _design_options(parser, *, with_beta: bool = True) -> None:
    parser.add_argument("--test", choices=DESIGN_TESTS, default="paired-t",
                        help="paired t test, one-way ANOVA of --systems systems (the "
                             "difference is the range of the means), or the width of a "
                             "confidence interval (default: %(default)s)")
    significance_option(parser, "significance level (default: 0.05)")
    if with_beta:
        parser.add_argument("--beta", type=level, default=0.2,
                            help="type II error rate: power 1 - beta (default: %(default)s)")
    parser.add_argument("--systems", type=whole(2), metavar="M",
                        help="anova: number of systems compared (default: the cube's runs)")


def add_parser(sub) -> None:
    design = command(sub, "design", "topic set sizes, swap rates and G-theory of a cube",
                     _no_subcommand, about=ABOUT, examples=EXAMPLES)
    actions = design.add_subparsers(dest="design_command", metavar="ACTION")

    size = command(actions, "size", "topics needed to detect a difference", run_size,
                   about="The smallest number of topics with which the two-sided paired t "
                         "test detects a true difference --diff with power 1 - beta at "
                         "level alpha, the variance of per-topic differences being twice "
                         "the residual variance V_E of the two-way ANOVA of each measure's "
                         "run x topic matrix (Sakai, IRJ 2016). --test anova: one-way ANOVA "
                         "of --systems systems whose best and worst differ by --diff; "
                         "--test ci: the confidence interval of a difference is expected "
                         "to be at most --diff wide.",
                   examples="examples:\n  xdiv design size scores.nc --diff 0.02 0.05 0.1 "
                            "--plot power.png\n  xdiv design size scores.nc --diff 0.1 "
                            "--test ci\n\n" + V_E_NOTE)
    _common(size, out="the topic set sizes", plot="power against the number of topics")
    size.add_argument("--diff", type=positive, nargs="+", required=True, metavar="D",
                      help="differences (ranges for anova, widths for ci) to detect")
    _design_options(size)

    mdd = command(actions, "mdd", "smallest difference a number of topics detects", run_mdd,
                  about="The smallest true difference (range for --test anova) that "
                        "--n-topics topics detect with power 1 - beta at level alpha, or "
                        "for --test ci the expected width of the confidence interval.",
                  examples="example:\n  xdiv design mdd scores.nc --n-topics 25 50 100\n\n"
                           "--n-topics was --topics, which still works but is deprecated:\n"
                           "elsewhere (xdiv evaluate --topics FILE) --topics names a topic "
                           "file.")
    _common(mdd, out="the detectable differences")
    mdd.add_argument("--n-topics", type=whole(2), nargs="+", metavar="N",
                     help="numbers of topics (required)")
    renamed(mdd, "--topics", "--n-topics", dest="n_topics", metavar="N",
            what="the numbers of topics", note="in xdiv evaluate, --topics names a topic file",
            type=whole(2), nargs="+")
    _design_options(mdd)

    pairs = command(actions, "pairs", "the power each run pair was compared with",
                    run_pairs,
                    about="For every run pair of the cube, the power the two-sided paired "
                          "t test on the cube's topics had for a true difference as large "
                          "as the pair's observed one; per measure, how many pairs were "
                          "compared with less power than 1 - beta.",
                    examples="examples:\n  xdiv design pairs scores.nc\n"
                             "  xdiv design pairs scores.nc -m D#-nDCG@10 --list")
    _common(pairs, out="the pairs' differences and power")
    significance_option(pairs, "significance level (default: 0.05)")
    pairs.add_argument("--beta", type=level, default=0.2,
                       help="pairs with power below 1 - beta are underpowered (default: "
                            "%(default)s)")
    pairs.add_argument("--variance", choices=PAIR_VARIANCES, default="pooled",
                       help="variance of per-topic differences: 2 V_E of the measure, or "
                            "the pair's own (default: %(default)s)")
    pairs.add_argument("--list", action="store_true",
                       help="print every pair (difference and power) instead of the summary")

    swap = command(actions, "swap", "swap rates between topic subsets", run_swap,
                   about="Draw -B pairs of disjoint topic subsets (or, with --replace, "
                         "subsets drawn with replacement) per subset size, count how often "
                         "a run pair's mean difference changes sign between them, by bins "
                         "of its size on the first subset, and extrapolate the swap rate "
                         "of each bin to the full topic set (Voorhees & Buckley, SIGIR "
                         "2002). Prints the extrapolated rates and the difference needed "
                         "for a swap rate of at most --max-rate.",
                   examples="example:\n  xdiv design swap scores.nc -B 1000 --seed 7 "
                            "--plot swap.png")
    _common(swap, out="the swap counts and rates", plot="swap rate against the difference")
    swap.add_argument("-B", type=whole(1), default=1000,
                      help="pairs of subsets per size (default: %(default)s)")
    swap.add_argument("--seed", type=whole(0, 2 ** 63 - 1), default=0,
                      help="seed of the draws, recorded in the output (default: %(default)s)")
    swap.add_argument("--sizes", type=whole(1), nargs="+", metavar="N",
                      help="subset sizes (default: about five up to half the topics)")
    swap.add_argument("--replace", action="store_true",
                      help="draw the subsets with replacement instead of disjoint halves")
    swap.add_argument("--bin-width", type=positive, default=0.01,
                      help="width of the difference bins (default: %(default)s)")
    swap.add_argument("--max-diff", type=positive, default=0.2,
                      help="lower edge of the last, open bin (default: %(default)s)")
    swap.add_argument("--max-rate", type=level, default=0.05,
                      help="swap rate the needed difference keeps below (default: "
                           "%(default)s)")

    gstudy = command(actions, "gstudy", "variance components, E(rho^2) and Phi", run_gstudy,
                     about="A G-study of each measure (system x topic design): the "
                           "variance components of systems, topics and their interaction "
                           "with the error, the generalizability coefficient E(rho^2) and "
                           "the dependability index Phi for the cube's topics, and the "
                           "topics needed for each --target (D-study).",
                     examples="example:\n  xdiv design gstudy scores.nc --target 0.8 0.95 "
                              "--plot g.png")
    _common(gstudy, out="the G-study and D-study",
            plot="E(rho^2) and Phi against the number of topics")
    gstudy.add_argument("--target", type=level, nargs="+", default=[0.95], metavar="T",
                        help="coefficients to reach (default: 0.95)")


def _no_subcommand(args) -> int:
    """``xdiv design`` without an action: a usage error, as any missing argument."""
    args.usage_error("needs an action: size, mdd, pairs, swap or gstudy (xdiv design --help)")
    return 2


def _open(args) -> xr.DataArray:
    """The cube's ``score`` array restricted to ``--measure``, after checking outputs."""
    from ..core.cube import score_array

    if args.output:
        output(args.output, args.scores)
    if getattr(args, "plot", None):
        figure_output(args.plot, args.scores)
    cube = open_netcdf(args.scores, "scores")
    with about(args.scores):
        return score_array(cube, metrics=args.measures)


def _finish(args, result: xr.Dataset, what: str, figure=None) -> int:
    from ..io.netcdf import to_netcdf

    if args.output:
        result.attrs["scores"] = os.fspath(args.scores)
        print(f"{what} written to {to_netcdf(result, args.output)}", file=sys.stderr)
    if figure is not None:
        save_figure(figure(), args.plot)
        print(f"figure written to {args.plot}", file=sys.stderr)
    return 0


def _frame(da: xr.DataArray, column: str | None) -> pd.DataFrame:
    """Rows metrics, columns the values of dimension ``column`` (or one column)."""
    if column is None or column not in da.dims:
        frame = da.to_series().to_frame(da.name)
    else:
        frame = da.transpose("metric", column).to_pandas()
    frame.index = [str(m) for m in frame.index]
    return frame


def _systems(args) -> int | None:
    """``--systems``, which only the ANOVA design takes."""
    if args.systems is not None and args.test != "anova":
        raise XdivError("--systems is for --test anova")
    return args.systems


def run_size(args) -> int:
    import xarray as xr

    from .. import design

    scores = _open(args)
    if args.plot and args.test == "ci":
        raise XdivError("--plot draws power curves, for --test paired-t or anova")
    with about(args.scores):
        variance = design.residual_variance(scores)
        sizes = design.topic_set_size(variance, args.diff, alpha=args.alpha, beta=args.beta,
                                      test=args.test,
                                      n_systems=_systems(args))
    table = _frame(sizes, "min_diff")
    table.columns = [f"{'width' if args.test == 'ci' else 'diff'} {d:g}" for d in args.diff]
    table.insert(0, "V_E", variance.values)
    if args.format == "table":
        requirement = (f"expected {100 * (1 - args.alpha):g}% CI width at most the value"
                       if args.test == "ci" else
                       f"power {1 - args.beta:g} at alpha = {args.alpha:g}")
        systems = f" of {sizes.attrs['n_systems']} systems" if args.test == "anova" else ""
        print(f"topics needed: {args.test}{systems}, {requirement}")
    print_frame(table, args.format)
    if args.format == "table":
        print(V_E_NOTE.replace("\n", " "))
    result = xr.Dataset({"topic_set_size": sizes}, attrs=sizes.attrs)

    def figure():
        import numpy as np

        from .. import plots

        largest = int(sizes.max()) * 5 // 4 + 2
        n = np.unique(np.geomspace(2, largest, 200).round().astype(int))
        return plots.power_curves(design.power(variance, n, args.diff, alpha=args.alpha,
                                               test=args.test, n_systems=args.systems),
                                  target=1 - args.beta)
    return _finish(args, result, "topic set sizes", figure if args.plot else None)


def _n_topics(args) -> list[int]:
    """``--n-topics`` (or its deprecated spelling ``--topics``), which mdd needs."""
    n_topics = args.n_topics
    if n_topics is None:
        raise XdivError("design mdd needs --n-topics N [N ...], the numbers of topics")
    return n_topics


def run_mdd(args) -> int:
    import xarray as xr

    from .. import design

    n_topics = _n_topics(args)
    scores = _open(args)
    with about(args.scores):
        mdd = design.detectable_difference(scores, n_topics, alpha=args.alpha,
                                           beta=args.beta, test=args.test,
                                           n_systems=_systems(args))
    table = _frame(mdd, "n_topics")
    table.columns = [f"{n} topics" for n in n_topics]
    if args.format == "table":
        what = ("expected CI width" if args.test == "ci" else
                f"smallest difference detected with power {1 - args.beta:g}")
        print(f"{what} ({args.test}, alpha = {args.alpha:g})")
    print_frame(table, args.format)
    return _finish(args, xr.Dataset({"detectable_difference": mdd}, attrs=mdd.attrs),
                   "detectable differences")


def run_pairs(args) -> int:
    import numpy as np
    import pandas as pd

    from .. import design

    scores = _open(args)
    with about(args.scores):
        result = design.pair_power(scores, alpha=args.alpha, variance=args.variance)
    i, j = np.triu_indices(result.sizes["run_a"], k=1)
    power = result["power"].values[:, i, j]  # (metric, pair)
    metrics = [str(m) for m in result["metric"].values]
    if args.list:
        runs = result["run_a"].values
        frame = pd.DataFrame({
            "metric": np.repeat(metrics, len(i)), "run_a": np.tile(runs[i], len(metrics)),
            "run_b": np.tile(runs[j], len(metrics)),
            "diff": result["diff"].values[:, i, j].ravel(), "power": power.ravel()})
        print_frame(frame.set_index(["metric", "run_a", "run_b"]), args.format)
    else:
        frame = pd.DataFrame({"topics": result["n_topics"].values, "pairs": len(i),
                              "underpowered": (power < 1 - args.beta).sum(axis=1),
                              "median power": np.median(power, axis=1)}, index=metrics)
        if args.format == "table":
            print(f"run pairs whose observed difference the paired t test (alpha = "
                  f"{args.alpha:g}, {args.variance} variance) detects with power below "
                  f"{1 - args.beta:g}")
        print_frame(frame, args.format)
    return _finish(args, result, "pair power")


def _bin_labels(result: xr.Dataset) -> list[str]:
    import numpy as np

    return [f">= {lo:g}" if not np.isfinite(hi) else f"{lo:g}-{hi:g}"
            for lo, hi in zip(result["diff_bin"].values, result["diff_upper"].values)]


def run_swap(args) -> int:
    from .. import design

    scores = _open(args)
    with about(args.scores):
        result = design.swap_rates(scores, sizes=args.sizes, B=args.B, seed=args.seed,
                                   bin_width=args.bin_width, max_diff=args.max_diff,
                                   replace=args.replace, max_rate=args.max_rate)
    rates = result["swap_rate_extrapolated"].transpose("diff_bin", "metric").to_pandas()
    rates.index, rates.columns = _bin_labels(result), [str(m) for m in rates.columns]
    needed = _frame(result["stable_difference"].rename("difference needed"), None)
    needed.insert(0, "topics", result["n_topics"].values)
    if args.format == "table":
        print(f"swap rate by difference, extrapolated to the full topic set "
              f"({result.attrs['sampling']} subsets of "
              f"{', '.join(map(str, result['subset_size'].values))} topics, "
              f"B = {args.B}, seed {args.seed})")
    print_frame(rates, args.format)
    if args.format == "table":
        print(f"\ndifference needed for a swap rate of at most {args.max_rate:g}")
    print_frame(needed, args.format)

    def figure():
        from .. import plots

        return plots.swap_curves(result)
    return _finish(args, result, "swap rates", figure if args.plot else None)


def run_gstudy(args) -> int:
    import pandas as pd
    import xarray as xr

    from .. import design

    scores = _open(args)
    targets = sorted(set(args.target))
    with about(args.scores):
        g = design.g_study(scores)
        d = design.d_study(g, targets)
    table = g.drop_vars([v for v in g.coords if v != "metric"]).to_pandas()
    for target in targets:  # whole numbers, NaN (shown <NA>) where none reaches it
        for name, label in (("n_topics_erho2", "Erho2"), ("n_topics_phi", "Phi")):
            table[f"topics {label}>={target:g}"] = pd.array(
                d[name].sel(target=target).values, dtype="Int64")
    table.index = [str(m) for m in table.index]
    if args.format == "table":
        print(f"G-study of {g.attrs['n_runs']} runs (system x topic design) and D-study")
    print_frame(table, args.format)

    def figure():
        import numpy as np

        from .. import plots

        needed = np.nanmax(d["n_topics_phi"].values, initial=0)
        largest = int(max(2 * g["n_topics"].max(), min(needed * 1.25, 2000), 10))
        n = np.unique(np.linspace(1, largest, 200).round().astype(int))
        return plots.g_curves(design.g_coefficients(g, n), targets=targets)
    return _finish(args, xr.merge([g, d], combine_attrs="override"), "G-study",
                   figure if args.plot else None)
