"""``xdiv model``: statistical models of one measure of a score cube: the linear mixed
model (:func:`xdiv.stats.mixed`) or the analysis of variance (:func:`xdiv.stats.anova`)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from ..errors import XdivError
from ..typing import MIXED_ADJUSTMENTS, MIXED_SCALES, STANDARDISE_METHODS
from .common import (about, command, open_netcdf, output, print_frame, significance_option,
                     table_format_option)

if TYPE_CHECKING:
    import pandas as pd
    import xarray as xr

MODELS = ("mixed", "anova")
TABLES = ("runs", "contrasts", "variances")
"""The tables of the mixed model ``--show`` picks."""
ABOUT = ("Fit a statistical model to one measure of a score cube. --model mixed (the "
         "default): the linear mixed model score ~ run + (1 | topic) of statsmodels' "
         "MixedLM (Carterette, ICTIR 2011), by REML unless --ml: each run's estimated "
         "mean with its confidence interval, the topic and residual variances, the "
         "intraclass correlation, and every pair of runs compared with a multiplicity "
         "adjustment (by default the single-step Tukey adjustment, as emmeans). Several "
         "score cubes (e.g. several years of a track, the same runs) are modelled "
         "together, topics nested in collections and the collections a random effect; "
         "--interaction adds the random run x collection interaction. --scale logit fits "
         "the logit-normal model of bounded scores, which a diagnostic recommends when the "
         "linear model's residuals shrink toward 0 and 1. --model anova: the analysis of "
         "variance of xdiv.stats.anova_table with eta squared, omega squared, partial "
         "omega squared and variance components (Olejnik & Algina, Psychological Methods "
         "2003); with --factors, a table of the runs' components (a CSV or TSV file with a "
         "'run' column), the runs are points of a grid and the model holds the factors, "
         "their interactions and the topics (Ferro & Silvello, SIGIR 2016). "
         "--standardise models standardised scores (Webber, Moffat & Zobel, SIGIR 2008; "
         "Sakai, ICTIR 2016) against the --reference runs (default: all).")
EXAMPLES = """examples:
  xdiv model scores.nc -m alpha-nDCG@20
  xdiv model scores.nc -m alpha-nDCG@20 --show contrasts --format tsv
  xdiv model scores.nc -m alpha-nDCG@20 --adjust holm --sig-level 0.01 -o model.nc
  xdiv model 2009.nc 2010.nc 2011.nc -m alpha-nDCG@20 --interaction
  xdiv model scores.nc -m alpha-nDCG@20 --scale logit
  xdiv model scores.nc -m alpha-nDCG@20 --model anova
  xdiv model scores.nc -m alpha-nDCG@20 --model anova --factors runs.csv --typ 3
  xdiv model scores.nc -m alpha-nDCG@20 --standardise cdf --reference r1 r2 r3
"""


def add_parser(sub) -> None:
    md = command(sub, "model", "fit a mixed model or an ANOVA to one measure of a cube",
                 run, about=ABOUT, examples=EXAMPLES)
    md.add_argument("scores", nargs="+",
                    help="score cube NetCDF written by 'xdiv evaluate -o'; several: one "
                         "collection each (mixed model only)")
    md.add_argument("-m", "--measure", dest="measure", metavar="MEASURE",
                    help="the measure modelled (default: the cube's only measure)")
    md.add_argument("--model", choices=MODELS, default="mixed",
                    help="the linear mixed model (default) or the analysis of variance")
    md.add_argument("--collections", nargs="+", metavar="NAME",
                    help="the names of the collections, one per score cube (default: "
                         "the file names)")
    md.add_argument("--interaction", action="store_true",
                    help="several collections: add the random run x collection interaction")
    md.add_argument("--ml", action="store_true",
                    help="fit by maximum likelihood instead of REML")
    md.add_argument("--adjust", choices=MIXED_ADJUSTMENTS, default="tukey",
                    help="the multiplicity adjustment of the pairwise contrasts of runs "
                         "(default: %(default)s)")
    md.add_argument("--scale", choices=MIXED_SCALES, default="linear",
                    help="model the scores as they are (default) or their logits "
                         "(the logit-normal model of bounded scores)")
    md.add_argument("--factors", metavar="FILE",
                    help="--model anova: a CSV or TSV file of the runs' factors, one row "
                         "per run, a 'run' column and one column per factor")
    md.add_argument("--typ", type=int, choices=(2, 3), default=2,
                    help="--model anova: type II (default) or III sums of squares")
    md.add_argument("--no-interactions", action="store_true",
                    help="--model anova with --factors: the factors' main effects only")
    md.add_argument("--standardise", choices=STANDARDISE_METHODS, metavar="METHOD",
                    help="model standardised scores: z, cdf (the normal distribution "
                         "function of z) or std-ab (0.15 z + 0.5)")
    md.add_argument("--reference", nargs="+", metavar="RUN",
                    help="with --standardise: the runs whose scores define each topic's "
                         "mean and standard deviation (default: every run)")
    significance_option(md, "significance level, and 1 - the coverage of the intervals "
                            "(default: 0.05)")
    md.add_argument("--show", choices=TABLES, metavar="TABLE",
                    help="the mixed model's table printed: runs, contrasts or variances "
                         "(default: all three as a table; runs in TSV or CSV)")
    table_format_option(md, "4 decimals, with titles")
    md.add_argument("-o", "--output", help="write the model to this NetCDF file")


def run(args) -> int:
    from ..io.netcdf import to_netcdf

    if args.output:
        output(args.output, *args.scores)
    names = args.collections or args.scores
    if len(names) != len(args.scores):
        raise XdivError(f"--collections names {len(names)} collections for "
                        f"{len(args.scores)} score cubes; give one name per cube")
    if len(set(names)) != len(names):
        raise XdivError("two collections have the same name; name them with --collections")
    if args.model == "anova" and len(args.scores) > 1:
        raise XdivError("--model anova takes one score cube; the mixed model takes several")
    if args.model == "anova" and (args.interaction or args.show or args.scale != "linear"):
        raise XdivError("--interaction, --show and --scale are options of --model mixed")
    if args.model == "mixed" and (args.factors or args.typ != 2 or args.no_interactions):
        raise XdivError("--factors, --typ and --no-interactions are options of --model anova")
    if args.reference and not args.standardise:
        raise XdivError("--reference names the runs of --standardise; give --standardise")
    cubes = [open_netcdf(path, "scores") for path in args.scores]
    measure = args.measure or _only_measure(cubes[0], args.scores[0])
    if args.standardise:
        from ..analysis.stats import standardise

        for k, path in enumerate(args.scores):
            with about(path):
                cubes[k] = standardise(cubes[k], args.standardise, reference=args.reference)
    if args.model == "anova":
        factors = _factors(args.factors) if args.factors else None
        with about(args.scores[0]):
            result = _anova(cubes[0], measure, factors, args.typ, not args.no_interactions)
        _print_anova(result, measure, args.format)
    else:
        scores = _collections(cubes, names, measure, args.scores)
        from ..analysis.models import mixed

        where = args.scores[0] if len(args.scores) == 1 else "the score cubes"
        with about(where):
            result = mixed(scores, measure, interaction=args.interaction, reml=not args.ml,
                           alpha=args.alpha, adjust=args.adjust, scale=args.scale)
        _print_mixed(result, args.show, args.format)
    if args.output:
        result.attrs["scores"] = " ".join(os.fspath(p) for p in args.scores)
        print(f"model written to {to_netcdf(result, args.output)}", file=sys.stderr)
    return 0


def _only_measure(cube: xr.Dataset, path: str) -> str:
    measures = [str(m) for m in cube["metric"].values]
    if len(measures) > 1:
        raise XdivError(f"{path}: the cube holds {len(measures)} measures; name the one to "
                        f"model with -m (one of {', '.join(measures)})")
    return measures[0]


def _collections(cubes, names, measure: str, paths) -> xr.DataArray | xr.Dataset:
    """One cube, or the cubes' ``measure`` concatenated on a ``collection`` dimension."""
    if len(cubes) == 1:
        return cubes[0]
    import pandas as pd
    import xarray as xr

    from ..core.cube import score_array

    planes = []
    for cube, path in zip(cubes, paths):
        with about(path):
            plane = score_array(cube, [measure])
        planes.append(plane.drop_vars([c for c in plane.coords if c not in plane.dims])
                      .assign_coords(metric=[measure]))
    return xr.concat(planes, dim=pd.Index(list(names), name="collection"), join="outer")


def _anova(cube: xr.Dataset, measure: str, factors, typ: int,
           interactions: bool) -> xr.Dataset:
    """:func:`xdiv.stats.anova_table` of ``measure``, marked as an ANOVA result."""
    from ..analysis import stats

    out = stats.anova_table(cube, measure, factors, interactions=interactions, typ=typ)
    out.attrs.update(xdiv_kind="anova")
    return out


def _factors(path: str) -> pd.DataFrame:
    """The runs' factors read from a CSV or TSV file (the separator of its header line)
    with a ``run`` column, every value text."""
    import pandas as pd

    from ..io._guard import check_file

    check_file(path)
    try:
        with open(path, encoding="utf-8") as handle:
            header = handle.readline()
        frame = pd.read_csv(path, sep="\t" if "\t" in header else ",", dtype=str,
                            keep_default_na=False)
    except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise XdivError(f"{path}: not a CSV or TSV table of the runs' factors ({first})") \
            from None
    if "run" not in frame.columns:
        raise XdivError(f"{path}: no 'run' column (its columns: "
                        f"{', '.join(map(str, frame.columns))})")
    return frame


def _print_anova(result: xr.Dataset, measure: str, fmt: str) -> None:
    frame = result.drop_dims("run").to_dataframe()
    if fmt == "table":
        print(f"Analysis of variance of {measure}: {result.attrs['formula']}, type "
              f"{result.attrs['typ']} sums of squares (statsmodels anova_lm)")
    print_frame(frame, fmt)


def _print_mixed(result: xr.Dataset, show: str | None, fmt: str) -> None:
    tables = {"runs": _runs_frame, "contrasts": _contrasts_frame,
              "variances": _variances_frame}
    if fmt != "table":
        print_frame(tables[show or "runs"](result), fmt)
        return
    level = 100 * (1 - result.attrs["alpha"])
    titles = {
        "runs": f"{result.attrs['formula']}, {result.attrs['method']}, "
                f"{result.attrs['metric']} ({result.attrs['scale']} scale): run means, "
                f"{level:g}% confidence intervals",
        "contrasts": f"pairs of runs: mean(run_a) - mean(run_b), p-values adjusted: "
                     f"{result.attrs['adjustment']}",
        "variances": f"variance components, {level:g}% confidence intervals; ICC "
                     f"{float(result['icc']):.4f}; {result.attrs['bounded_advice']}",
    }
    for k, name in enumerate([show] if show else list(tables)):
        if k:
            print()
        print(titles[name])
        print_frame(tables[name](result), fmt)


def _runs_frame(result: xr.Dataset) -> pd.DataFrame:
    frame = result[["mean", "mean_se", "mean_ci_low", "mean_ci_high"]].to_dataframe()
    return frame.rename(columns={"mean_se": "se", "mean_ci_low": "ci_low",
                                 "mean_ci_high": "ci_high"})


def _contrasts_frame(result: xr.Dataset) -> pd.DataFrame:
    """One row per unordered pair of runs, in the runs' order."""
    import numpy as np

    names = ["diff", "diff_se", "statistic", "pvalue", "pvalue_adjusted", "significant",
             "diff_ci_low", "diff_ci_high"]
    frame = result[names].to_dataframe()
    runs = [str(r) for r in result["run"].values]
    order = {run: k for k, run in enumerate(runs)}
    a = frame.index.get_level_values("run_a").map(order)
    b = frame.index.get_level_values("run_b").map(order)
    frame = frame[np.asarray(a < b)]
    return frame.rename(columns={"diff_se": "se", "statistic": "z",
                                 "pvalue_adjusted": "p_adjusted", "diff_ci_low": "ci_low",
                                 "diff_ci_high": "ci_high"})


def _variances_frame(result: xr.Dataset) -> pd.DataFrame:
    import pandas as pd

    names = [name[:-len("_variance")] for name in result.data_vars
             if name.endswith("_variance")]
    return pd.DataFrame({"variance": [float(result[f"{n}_variance"]) for n in names],
                         "ci_low": [float(result[f"{n}_variance_ci_low"]) for n in names],
                         "ci_high": [float(result[f"{n}_variance_ci_high"]) for n in names]},
                        index=pd.Index(names, name="component"))
