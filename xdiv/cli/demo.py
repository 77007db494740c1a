"""``xdiv demo``: the embedded synthetic collection, evaluated and meta-evaluated."""

from __future__ import annotations

import os

from ..errors import XdivError
from .common import command, output, print_frame, save_figure, summary_frame, whole

DEMO_MEASURES = ["I-rec@10", "alpha-nDCG@10", "ERR-IA@10", "nDCG-IA@10", "D-nDCG@10",
                 "D#-nDCG@10", "DIN#-nDCG@10", "P+Q#@10", "Ef-P@10"]
DEMO_ADHOC_MEASURES = ["nDCG@10", "AP", "nERR@10"]
DEMO_FOLDER = "xdiv-demo"
"""The folder the demo writes its files to by default (created if need be)."""
DEFAULT_OUTPUT = os.path.join(DEMO_FOLDER, "scores.nc")


def add_parser(sub) -> None:
    demo = command(sub, "demo", "evaluate the embedded synthetic data, meta-evaluate "
                                "the measures, write NetCDF files and plots", run,
                   about="Build a seeded synthetic diversity collection and runs, evaluate "
                         "them with diversity measures and three adhoc measures, print the "
                         "means and write the score(metric, run, topic) cube to NetCDF; "
                         "then (unless --no-meta) compute the discriminative power of the "
                         "measures with the paired bootstrap and write it, the ASL curves "
                         "and the I-rec vs D-nDCG plot beside the cube (OUTPUT-meta.nc, "
                         "OUTPUT-asl.png, OUTPUT-irec-dndcg.png).",
                   examples="examples:\n  xdiv demo\n"
                            "  xdiv demo -o demo.nc --topics 50 --runs 20 --seed 3\n"
                            "  xdiv demo --no-meta\n\n"
                            f"Without -o, the four files go to one folder, {DEMO_FOLDER}/, "
                            "created if need be.")
    demo.add_argument("-o", "--output", default=DEFAULT_OUTPUT,
                      help="NetCDF file for the score cube; the other files are written "
                           "beside it (default: %(default)s)")
    demo.add_argument("--seed", type=whole(0, 2 ** 63 - 1), default=0,
                      help="seed of the synthetic data and the bootstrap (default: %(default)s)")
    demo.add_argument("--topics", type=whole(2), default=30,
                      help="number of topics, at least 2 (default: %(default)s)")
    demo.add_argument("--runs", type=whole(2), default=10,
                      help="number of runs, at least 2 (default: %(default)s)")
    demo.add_argument("--no-meta", action="store_true",
                      help="skip the meta-evaluation and plots (scores only)")


def run(args) -> int:
    import pandas as pd
    import xarray as xr

    from .. import datasets
    from ..engine import evaluate
    from ..io.netcdf import to_netcdf

    if args.output == DEFAULT_OUTPUT:
        try:
            os.makedirs(DEMO_FOLDER, exist_ok=True)
        except OSError as exc:
            raise XdivError(f"{DEMO_FOLDER}: cannot create the demo's folder "
                            f"({exc.strerror or exc}); name another with -o DIR/scores.nc") \
                from None
    output(args.output)
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
    print_frame(summary_frame(scores), "table")
    path = to_netcdf(scores, args.output)
    print(f"\nscore cube score(metric, run, topic) written to {os.path.abspath(path)}")
    if args.no_meta:
        return 0
    import matplotlib

    matplotlib.use("Agg")
    from ..analysis.meta import discriminative_power
    from ..plot.figures import asl_curves, irec_dndcg

    power = discriminative_power(scores, "bootstrap", B=1000, seed=args.seed)
    print(f"\ndiscriminative power (paired bootstrap, B = 1000, seed {args.seed}, alpha = 0.05, "
          f"{power.attrs['n_pairs']} run pairs):")
    print_frame(pd.DataFrame({"power": power["power"].to_pandas(),
                              "required delta": power["required_delta"].to_pandas()}),
                "table")
    stem = os.path.splitext(os.path.abspath(path))[0]
    outputs = [to_netcdf(power, f"{stem}-meta.nc")]
    for name, fig in (("asl", asl_curves(power)), ("irec-dndcg", irec_dndcg(scores))):
        save_figure(fig, f"{stem}-{name}.png")
        outputs.append(f"{stem}-{name}.png")
    print("\nmeta-evaluation and plots written to " + ", ".join(outputs))
    return 0
