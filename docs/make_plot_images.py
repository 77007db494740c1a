"""Before/after images of every ``xdiv plot`` on the TREC 2009 diversity runs, and a
screenshot of ``xdiv report``, for docs/plots.md.

Usage, from the repository root::

    python docs/make_plot_images.py                 # writes docs/images/plots/*.png
    python docs/make_plot_images.py --root PATH     # another copy of trec-web
    python docs/make_plot_images.py --before REV    # another "before" version

The 18 runs of the TREC 2009 diversity task are evaluated with 28 measures at l = 10
(plus alpha-nDCG@20 and the uncut MAP-IA and NRBP) and meta-evaluated as ``xdiv meta
--test both`` does by default (paired bootstrap, B = 1000; randomised Tukey HSD,
B = 5000; seed 0). "Before" images come from ``xdiv/plot/figures.py`` as it was at ``--before``
(by default the last version before the plots were made to scale), loaded from
``git show`` as a module; "after" images from the working tree. The report screenshot
needs a ``chromium`` on the PATH and is skipped without one.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import xdiv  # noqa: E402
from xdiv import meta, plots, report  # noqa: E402

BEFORE = "8f248f8c4f5853e2ea3c6a629bf9ef2bb886c4d4"
"""The last commit of xdiv/plot/figures.py before the plots were redrawn for readability."""
MEASURES = [m + "@10" for m in (
    "I-rec", "alpha-nDCG", "alpha-nDCG(ndeval=False)", "nDCG-IA", "Q-IA", "AP-IA", "nGAP-IA",
    "ERR-IA", "nERR-IA", "ERR-IA(ndeval=False)", "nERR-IA(ndeval=False)", "P-IA", "D-nDCG",
    "D#-nDCG", "D-Q", "D#-Q", "DIN-nDCG", "DIN#-nDCG", "DIN-Q", "DIN#-Q", "P+Q", "P+Q#",
    "Ef-P", "Prec")] + ["nNRBP", "alpha-nDCG@20", "MAP-IA", "NRBP"]
CONCORDANCE = ["alpha-nDCG@10", "D#-nDCG@10", "DIN#-nDCG@10", "P+Q#@10"]
PRIMARY = "D#-nDCG@10"
DPI = 80


def old_plots(revision: str, folder: Path):
    """``xdiv/plot/figures.py`` at ``revision``, loaded as the module ``xdiv.plots_before``."""
    source = subprocess.run(["git", "show", f"{revision}:xdiv/plot/figures.py"], check=True,
                            capture_output=True, text=True).stdout
    path = folder / "plots_before.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("xdiv.plots_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def figures(module, scores, both, *, before: bool) -> dict:
    """Every plot of ``module`` on the 2009 cube, as ``xdiv plot`` draws it."""
    boot = both.sel(test="bootstrap").drop_vars(["test", "test_name", "B", "seed", "alpha"])
    # the file 'xdiv meta --test both' wrote before that change recorded no B (the tests'
    # defaults differ), and 'xdiv plot asl' named the test by its short name
    power = boot.assign_attrs(test="bootstrap") if before else meta.select_test(both)
    means = scores["score"].sel(metric=PRIMARY).mean("topic")
    best = [str(r) for r in means.sortby(means, ascending=False)["run"].values[:2]]
    return {"asl": module.asl_curves(power),
            "scatter": module.irec_dndcg(scores),
            "correlation": module.correlation_matrix(meta.rank_correlation(scores)),
            "concordance": module.concordance_heatmap(
                meta.concordance_table(scores, CONCORDANCE, "I-rec@10")),
            "topics": module.topic_distributions(scores, PRIMARY),
            "diff": module.run_differences(scores, PRIMARY, *best)}


def screenshot(page: str, target: Path) -> bool:
    browser = shutil.which("chromium")
    if browser is None:
        print("no chromium: the report screenshot is not taken", file=sys.stderr)
        return False
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "report.html"
        path.write_text(page, encoding="utf-8")
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", f"--screenshot={target}",
                        "--window-size=1280,2000", path.as_uri()],
                       check=True, capture_output=True, timeout=120)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default="../shared/reference/trec-web",
                        help="folder holding 2009/qrels.diversity.gz and 2009/runs/")
    parser.add_argument("--before", default=BEFORE, help="git revision of the old plots")
    parser.add_argument("--out", default="docs/images", help="image folder")
    args = parser.parse_args()
    out = Path(args.out)
    (out / "plots").mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        collection, runs = xdiv.datasets.trec_web(args.root, 2009)
        scores = xdiv.evaluate(runs, collection, MEASURES)
    both = meta.combine_tests({t: meta.discriminative_power(scores, t, seed=0)
                               for t in ("bootstrap", "tukey")})
    with tempfile.TemporaryDirectory() as folder:
        drawn = {"before": figures(old_plots(args.before, Path(folder)), scores, both,
                                   before=True),
                 "after": figures(plots, scores, both, before=False)}
    for when, figs in drawn.items():
        for name, fig in figs.items():
            path = out / "plots" / f"{name}-{when}.png"
            fig.savefig(path, dpi=DPI, bbox_inches="tight")
            print(f"wrote {path}", file=sys.stderr)
    if screenshot(report.html_report(scores, both, metric=PRIMARY), out / "report.png"):
        print(f"wrote {out / 'report.png'}", file=sys.stderr)


if __name__ == "__main__":
    main()
