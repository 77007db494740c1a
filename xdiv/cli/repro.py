"""``xdiv repro``: how closely repeated runs match the original ones (see
:mod:`xdiv.repro`)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from ..errors import XdivError
from .common import command, level, output, print_frame, table_format_option, whole
from ..typing import MISSING

if TYPE_CHECKING:
    import pandas as pd
    import xarray as xr

ABOUT = ("Measure how closely repeated runs match the original ones, with the measures of "
         "Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer & Soboroff (SIGIR 2020), for any "
         "measure xdiv evaluate takes. On the same collection (ACM 2020: reproducibility; "
         "the SIGIR 2020 paper: replicability): Kendall's tau on the union of the lists "
         "(KTU) and rank-biased overlap (RBO; Webber, Moffat & Zobel, TOIS 2010; ties as "
         "Corsi & Urbano, SIGIR 2024) at cutoffs, per-topic RMSE and nRMSE, effect ratio "
         "(ER), delta relative improvement (DeltaRI) and paired t-tests. With "
         "--repeated-qrels, on another collection (ACM 2020: replicability; the paper: "
         "reproducibility): ER, DeltaRI and unpaired t-tests. Several repetitions of the "
         "same original runs are measured at once, one pair of repetitions each, "
         "labelled by pair.")
EXAMPLES = """examples:
  xdiv repro qrels.txt --baseline base.run base.rerun --advanced adv.run adv.rerun -m map P.10
  xdiv repro qrels.txt --baseline base.run base.rerun -m nDCG@10 --cutoffs 10 100 -o repro.nc
  xdiv repro qrels.txt --baseline b.run b.other --advanced a.run a.other \\
      --repeated-qrels other-qrels.txt -m map
  xdiv repro qrels.txt --baseline base.run b1.rerun b2.rerun \\
      --advanced adv.run a1.rerun a2.rerun --pair-names first second -m map -o pairs.nc
"""


def add_parser(sub) -> None:
    rp = command(sub, "repro", "reproducibility measures of repeated runs (KTU, RBO, RMSE, "
                 "ER, DeltaRI, t-tests)", run, about=ABOUT, examples=EXAMPLES)
    rp.add_argument("qrels", help="qrels of the original collection (gzip allowed)")
    rp.add_argument("--baseline", nargs="+", required=True, metavar=("ORIGINAL", "REPEATED"),
                    help="the original baseline run file and its repetition, or several "
                         "repetitions (one per pair)")
    rp.add_argument("--advanced", nargs="+", metavar=("ORIGINAL", "REPEATED"),
                    help="the original advanced run file and its repetition(s), as many "
                         "as --baseline's (for ER and DeltaRI)")
    rp.add_argument("--pair-names", nargs="+", metavar="NAME",
                    help="names of the pairs of repetitions, one per repetition (default: "
                         "the repeated baseline files' names); with several repetitions or "
                         "with names, the results are labelled by pair")
    rp.add_argument("-m", "--measure", nargs="+", action="extend", dest="measures",
                    metavar="MEASURE", required=True,
                    help="measures, as xdiv evaluate names them (xdiv, trec_eval or "
                         "ir_measures spellings)")
    rp.add_argument("--repeated-qrels", metavar="QRELS",
                    help="qrels of the collection the repetitions were made on, when it is "
                         "another one")
    rp.add_argument("--cutoffs", nargs="+", type=whole(1), default=None, metavar="K",
                    help="cutoffs of KTU and RBO (default: 5 10 20 100 1000)")
    rp.add_argument("--rbo-p", type=level, default=0.95, metavar="P",
                    help="RBO's persistence (default: %(default)s)")
    rp.add_argument("--rbo-ties", choices=("a", "b", "w"), default="a",
                    help="tied scores in RBO (Corsi & Urbano, SIGIR 2024): a, the expected "
                         "RBO over the orders of the ties; b, that corrected for what ties "
                         "lose; w, ties share a rank (default: %(default)s)")
    rp.add_argument("--definitions", choices=("xdiv", "repro_eval"), default="xdiv",
                    help="KTU and RBO as xdiv defines them, or as repro_eval 0.5.0 computes "
                         "them (position-wise tau, normalised truncated RBO) "
                         "(default: %(default)s)")
    rp.add_argument("--missing", choices=MISSING, default="zero",
                    help="score of a judged topic a run lacks (default: %(default)s)")
    rp.add_argument("--single-precision", action="store_true",
                    help="rank the runs by their scores in single precision for the "
                         "effectiveness measures, as trec_eval 9 and pytrec_eval (and so "
                         "repro_eval) read them")
    rp.add_argument("--welch", action="store_true",
                    help="with --repeated-qrels: Welch's unpaired t-test instead of "
                         "Student's pooled-variance one")
    table_format_option(rp, "4 decimals, with title lines")
    rp.add_argument("-o", "--output", help="write the result to this NetCDF file")


def run(args) -> int:
    from ..analysis import repro
    from ..io.netcdf import to_netcdf

    inputs = [args.qrels, *args.baseline, *(args.advanced or []), args.repeated_qrels]
    if args.output:
        output(args.output, *inputs)
    original, repeated = _pairs(args)
    result = repro.evaluate(args.qrels, original, repeated, args.measures,
                            repeated_qrels=args.repeated_qrels,
                            cutoffs=args.cutoffs or repro.CUTOFFS, p=args.rbo_p,
                            rbo_ties=args.rbo_ties, definitions=args.definitions,
                            missing=args.missing, equal_var=not args.welch,
                            single_precision=args.single_precision)
    table = args.format == "table"
    if table:
        print(f"Effectiveness ({result.attrs['case'].replace('_', ' ')}; "
              f"{result.attrs['test']})")
    print_frame(effect_frame(result), args.format)
    if "ktu" in result:
        if table:
            print(f"\nDocument order (RBO p = {args.rbo_p:g}, ties {args.rbo_ties})")
        else:
            print()
        print_frame(order_frame(result), args.format)
    if args.output:
        print(f"repro written to {to_netcdf(result, args.output)}", file=sys.stderr)
    return 0


def _pairs(args) -> tuple[dict, dict]:
    """The original runs by role, and the repetitions by role, or by pair name and role
    when there are several repetitions or --pair-names."""
    roles = {"baseline": args.baseline, "advanced": args.advanced}
    roles = {role: files for role, files in roles.items() if files}
    for role, files in roles.items():
        if len(files) < 2:
            raise XdivError(f"--{role} needs the original run file and at least one "
                            "repetition")
    count = len(args.baseline) - 1
    if "advanced" in roles and len(roles["advanced"]) - 1 != count:
        raise XdivError(f"--baseline gives {count} repetition(s) but --advanced "
                        f"{len(roles['advanced']) - 1}: give one of each per pair")
    original = {role: files[0] for role, files in roles.items()}
    if count == 1 and not args.pair_names:
        return original, {role: files[1] for role, files in roles.items()}
    names = args.pair_names or [os.path.basename(path) for path in args.baseline[1:]]
    if len(names) != count:
        raise XdivError(f"--pair-names gives {len(names)} name(s) for {count} pair(s)")
    if len(set(names)) != count:
        raise XdivError(f"pair names must differ: {' '.join(names)}"
                        + ("" if args.pair_names else " (the repeated baseline files' "
                           "names; give --pair-names)"))
    return original, {name: {role: files[1 + k] for role, files in roles.items()}
                      for k, name in enumerate(names)}


def effect_frame(result: xr.Dataset) -> pd.DataFrame:
    """One row per (metric, role), or (pair, metric, role): ARP of the original and
    repeated runs, RMSE, nRMSE (same collection), the t-test's p-value and effect size,
    and ER and DeltaRI (repeated on each role's row) with an advanced run."""
    import pandas as pd

    columns = {"ARP orig": result["arp"].sel(side="original", drop=True),
               "ARP rep": result["arp"].sel(side="repeated", drop=True)}
    for name, label in (("rmse", "RMSE"), ("nrmse", "nRMSE"), ("pvalue", "p-value"),
                        ("effect_size", "effect size"), ("er", "ER"), ("dri", "DeltaRI")):
        if name in result:
            columns[label] = result[name].broadcast_like(result["pvalue"])
    dims = [d for d in ("pair", "metric", "role") if d in result["pvalue"].dims]
    return pd.DataFrame({label: da.transpose(*dims).to_series()
                         for label, da in columns.items()})


def order_frame(result: xr.Dataset) -> pd.DataFrame:
    """One row per (role, cutoff), or (pair, role, cutoff): mean KTU and RBO forms over
    the topics."""
    import pandas as pd

    labels = {"ktu": "KTU", "rbo": "RBO", "rbo_min": "RBO min", "rbo_res": "RBO res",
              "ktu_topics": "topics"}
    dims = [d for d in ("pair", "role", "cutoff") if d in result["ktu"].dims]
    return pd.DataFrame({label: result[name].transpose(*dims).to_series()
                         for name, label in labels.items() if name in result})
