"""``xdiv risk``: risk-sensitive evaluation of the runs of a score cube (URisk, TRisk,
GeoRisk; see :mod:`xdiv.risk`)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from ..errors import XdivError
from .common import (about, command, nonnegative, open_netcdf, output, print_frame, renamed,
                     table_format_option)

if TYPE_CHECKING:
    import pandas as pd
    import xarray as xr

ABOUT = ("Risk-sensitive evaluation of every run and measure of a score cube. URisk (TREC "
         "2013-2014 Web Track) is the mean per-topic difference from a baseline run, "
         "losses counted 1 + alpha times; TRisk (Dinçer, Macdonald & Ounis, SIGIR 2014) "
         "is URisk over its standard error, with a two-sided p-value from Student's t "
         "with n - 1 degrees of freedom for n topics (below about -2: significantly "
         "riskier than the baseline); GeoRisk (Dinçer, Macdonald & Ounis, SIGIR 2016) "
         "takes every run of the cube as a baseline at once and needs no --baseline.")
EXAMPLES = """examples:
  xdiv risk scores.nc --baseline MSRABASE
  xdiv risk scores.nc --baseline MSRABASE --risk-alpha 5 -m alpha-nDCG@20 ERR-IA@20
  xdiv risk scores.nc --test georisk -o georisk.nc
  xdiv risk scores.nc --baseline MSRABASE --test urisk --format tsv

--risk-alpha was --alpha, which still works but is deprecated (other commands name a
significance level --sig-level, and xdiv ndeval's -alpha is alpha-nDCG's redundancy
parameter).
"""
RISK_ALPHA = 0.0
"""The default risk sensitivity: that of ndeval's and gdeval's -riskAlpha."""
COLUMNS = {"urisk": {"urisk": "URisk"},
           "trisk": {"urisk": "URisk", "statistic": "TRisk", "pvalue": "p-value",
                     "n_topics": "topics"},
           "georisk": {"georisk": "GeoRisk", "zrisk": "ZRisk", "n_topics": "topics"}}
"""The variables each test prints, with their column labels."""


def add_parser(sub) -> None:
    rk = command(sub, "risk", "risk-sensitive evaluation (URisk, TRisk, GeoRisk) of a cube",
                 run, about=ABOUT, examples=EXAMPLES)
    rk.add_argument("scores", help="score cube NetCDF written by 'xdiv evaluate -o'")
    rk.add_argument("--baseline", metavar="RUN",
                    help="the baseline run (a run of the cube), for urisk and trisk")
    rk.add_argument("--test", choices=list(COLUMNS), default="trisk",
                    help="which measure of risk (default: %(default)s)")
    rk.add_argument("--risk-alpha", type=nonnegative, default=None, metavar="A",
                    help="risk sensitivity: losses count 1 + A times. The default, 0 (plain "
                         "differences), is that of ndeval's and gdeval's -riskAlpha for the "
                         "same quantity; the TREC 2013-2014 Web Track used A = 1, 5 and 10, "
                         "so give the value you report (default: 0)")
    renamed(rk, "--alpha", "--risk-alpha", dest="risk_alpha", metavar="A",
            what="the risk sensitivity", note="as ndeval's -riskAlpha; its default is 0",
            default=RISK_ALPHA, type=nonnegative)
    rk.add_argument("-m", "--measure", nargs="+", action="extend", dest="measures",
                    metavar="MEASURE", help="only these metrics of the cube (default: all)")
    table_format_option(rk, "4 decimals, with a title line")
    rk.add_argument("-o", "--output", help="write the result to this NetCDF file")


def run(args) -> int:
    from .. import risk
    from ..core.cube import score_array
    from ..io.netcdf import to_netcdf

    if args.output:
        output(args.output, args.scores)
    if args.test == "georisk" and args.baseline is not None:
        raise XdivError("--test georisk measures every run against all runs of the cube; "
                        "it takes no --baseline")
    if args.test != "georisk" and args.baseline is None:
        raise XdivError(f"--test {args.test} needs --baseline RUN (a run of the cube)")
    cube = open_netcdf(args.scores, "scores")
    alpha = args.risk_alpha
    with about(args.scores):
        scores = score_array(cube, metrics=args.measures)
        if args.test == "georisk":
            result = risk.georisk(scores, alpha=alpha)
            title = f"GeoRisk against all {scores.sizes['run']} runs, alpha = {alpha:g}"
        elif args.test == "trisk":
            result = risk.trisk(scores, args.baseline, alpha=alpha)
            title = (f"TRisk against {args.baseline}, alpha = {alpha:g} (two-sided "
                     "p-values, Student's t with topics - 1 degrees of freedom)")
        else:
            result = risk.urisk(scores, args.baseline, alpha=alpha).to_dataset()
            result.attrs.update(test="URisk", baseline=args.baseline, alpha=alpha)
            title = f"URisk against {args.baseline}, alpha = {alpha:g}"
    if args.format == "table":
        print(title)
    print_frame(_pvalues(_table(result, COLUMNS[args.test]), args.format), args.format)
    if args.output:
        result.attrs["scores"] = os.fspath(args.scores)
        print(f"risk written to {to_netcdf(result, args.output)}", file=sys.stderr)
    return 0


def _pvalues(table: pd.DataFrame, fmt: str) -> pd.DataFrame:
    """The p-value column as text: below 0.0001 ``<0.0001`` in a table (4 decimals would
    print 0.0000), and six significant digits in TSV/CSV (``1.23e-08``)."""
    if "p-value" not in table:
        return table
    import numpy as np

    def text(p: float):
        if not np.isfinite(p):
            return p  # printed as the frame's other missing values
        if fmt == "table":
            return "<0.0001" if p < 1e-4 else f"{p:.4f}"
        return f"{p:.6g}"
    return table.assign(**{"p-value": table["p-value"].map(text).astype(object)})


def _table(result: xr.Dataset, columns: dict[str, str]) -> pd.DataFrame:
    """One row per (metric, run), one column per variable; the first variable is over
    (metric, run), and GeoRisk's per-metric ``n_topics`` is repeated on every run's row."""
    import pandas as pd

    grid = result[next(iter(columns))]
    return pd.DataFrame({label: result[name].broadcast_like(grid).transpose("metric", "run")
                         .to_series() for name, label in columns.items()})
