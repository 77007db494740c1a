"""``xdiv meta``, ``xdiv concordance`` and ``xdiv correlate``: the meta-evaluation of the
measures of a score cube."""

from __future__ import annotations

import os
import sys

from .common import about, command, open_netcdf, output, print_frame, \
    progress_wanted, significance_option, whole
from ..typing import META_TESTS, RANK_CORRELATIONS

DEFAULT_B = {"bootstrap": 1000, "tukey": 5000}
"""The replicates of each test when neither -B nor the test's own option is given (those
of :func:`xdiv.meta.discriminative_power`)."""


TIES = ("ties: a (topic, run pair) case that M1 or M2 ties is no disagreement; in a\n"
        "disagreement, a measure is correct when no gold measure orders the two runs\n"
        "the other way, so a case the gold measure(s) tie counts as correct for both\n"
        "M1 and M2 (in both concordances, in neither 'correct only it').")
"""How the concordance test counts ties (:func:`xdiv.kernels.meta.concordance_counts`),
said in ``xdiv concordance --help`` and its output."""


def add_parser(sub) -> None:
    mt = command(sub, "meta", "discriminative power of the measures of a score cube",
                 run_meta,
                 about="Discriminative power of every measure of a score cube: "
                       "the share of run pairs whose difference is significant "
                       "(two-sided paired bootstrap and/or randomised Tukey HSD) "
                       "and the difference that takes.",
                 examples="examples:\n  xdiv meta scores.nc --test both -o meta.nc\n"
                          "  xdiv meta scores.nc --test tukey -B 10000 --seed 7\n"
                          "  xdiv meta scores.nc --bootstrap-B 2000 --tukey-B 10000 "
                          "--sig-level 0.01\n\n"
                          "Each B must be at least 1/LEVEL (20 at the default level 0.05): "
                          "an achieved\nsignificance level from B resamples moves in steps "
                          "of 1/B.")
    mt.add_argument("scores", help="score cube NetCDF written by 'xdiv evaluate -o'")
    mt.add_argument("--test", choices=META_TESTS, default="both",
                    help="which test (default: %(default)s)")
    mt.add_argument("-B", type=whole(1),
                    help="replicates of each test (default 1000 bootstrap, 5000 Tukey)")
    for test, name in (("bootstrap", "the paired bootstrap"), ("tukey", "the Tukey HSD test")):
        mt.add_argument(f"--{test}-B", type=whole(1), metavar="B",
                        help=f"replicates of {name} alone (default: -B, else "
                             f"{DEFAULT_B[test]})")
    significance_option(mt, "significance level (default: 0.05)")
    mt.add_argument("--seed", type=whole(0, 2 ** 63 - 1), default=0,
                    help="seed of the resampling, recorded in the output (default: %(default)s)")
    mt.add_argument("-o", "--output", help="write the meta-evaluation to this NetCDF file")

    cc = command(sub, "concordance", "concordance test of two measures of a score cube",
                 run_concordance,
                 about="Among the (topic, run pair) cases where M1 and M2 "
                       "disagree, how often each agrees with the gold-standard "
                       "measure(s) (Correct/Disagreements), how often only it does, and a "
                       "two-sided sign test over the latter.",
                 examples="example:\n  xdiv concordance scores.nc alpha-nDCG@10 "
                          "D#-nDCG@10 --gold I-rec@10 --gold Ef-P@10\n\n" + TIES)
    cc.add_argument("scores", help="score cube NetCDF")
    cc.add_argument("m1", metavar="M1", help="first measure (a metric of the cube)")
    cc.add_argument("m2", metavar="M2", help="second measure")
    cc.add_argument("--gold", action="append", required=True, metavar="MEASURE",
                    help="gold-standard measure (repeat for several; all must agree)")

    co = command(sub, "correlate", "rank correlations between the measures of a cube",
                 run_correlate,
                 about="Rank the runs by their mean score under every measure of a score "
                       "cube and print the correlation of every pair of rankings as a "
                       "matrix (row measure, column measure).",
                 examples="example:\n  xdiv correlate scores.nc --method tau_ap")
    co.add_argument("scores", help="score cube NetCDF")
    co.add_argument("--method", default="kendall", choices=RANK_CORRELATIONS,
                    help="Kendall's tau-b, tau_ap (row measure scored against the column "
                         "measure's ranking), its symmetric mean tau_ap_sym, or Urbano & "
                         "Marrero's tau_ap_b for rankings with ties (default: %(default)s)")


def run_meta(args) -> int:
    import pandas as pd

    from ..analysis.meta import check_resampling, combine_tests, discriminative_power
    from ..errors import InputError, XdivError
    from ..io.netcdf import to_netcdf

    tests = list(META_TESTS[:-1]) if args.test == "both" else [args.test]
    for test in META_TESTS[:-1]:
        if getattr(args, f"{test}_B") is not None and test not in tests:
            raise XdivError(f"--{test}-B is for --test {test} or both, not --test {args.test}")
    replicates = {test: getattr(args, f"{test}_B") or args.B or DEFAULT_B[test]
                  for test in tests}
    for test in tests:  # before any work: each test's B against the level
        try:
            check_resampling(replicates[test], args.seed, args.alpha)
        except InputError as exc:
            raise XdivError(str(exc)) from None
    if args.output:
        output(args.output, args.scores)
    scores = open_netcdf(args.scores, "scores")
    with about(args.scores):
        results = [discriminative_power(scores, method=t, alpha=args.alpha, B=replicates[t],
                                        seed=args.seed, progress=progress_wanted(args))
                   for t in tests]
    table = pd.DataFrame({f"{t} {col}": r[var].to_pandas()
                          for t, r in zip(tests, results)
                          for col, var in (("power", "power"), ("delta", "required_delta"))})
    print(f"discriminative power at alpha = {args.alpha} over {results[0].attrs['n_pairs']} "
          f"run pairs (seed {args.seed})")
    print_frame(table, "table")
    if args.output:
        merged = combine_tests(dict(zip(tests, results)))
        merged.attrs.update(alpha=args.alpha, seed=args.seed, scores=os.fspath(args.scores))
        print(f"meta-evaluation written to {to_netcdf(merged, args.output)}", file=sys.stderr)
    return 0


def run_concordance(args) -> int:
    from ..analysis.meta import concordance
    from ..core.labels import from_json

    scores = open_netcdf(args.scores, "scores")
    with about(args.scores):
        res = concordance(scores, args.m1, args.m2, args.gold)
    print(f"gold standard(s): {', '.join(from_json(res.attrs['gold']))}")
    print(f"disagreements: {int(res['disagreements'])}")
    for k in (1, 2):
        print(f"{res.attrs[f'metric_{k}']}: {float(res[f'concordance_{k}']):.4f}  "
              f"(correct only it: {int(res[f'only_{k}'])})")
    print(f"two-sided sign test p = {float(res['pvalue']):.4g}")
    print(TIES.replace("\n", " "))
    return 0


def run_correlate(args) -> int:
    from ..analysis.meta import rank_correlation

    scores = open_netcdf(args.scores, "scores")
    with about(args.scores):
        corr = rank_correlation(scores, args.method).to_pandas()
    corr.index.name, corr.columns.name = None, None
    print_frame(corr, "table")
    return 0
