"""Meta-evaluation of diversity measures on the TREC 2009 diversity task (18 runs, 50 topics).

Usage: python docs/reproduce_2009.py [--root ../shared/reference/trec-web] [-o out.md]

Prints Markdown tables: discriminative power (alpha = 0.05) with the paired bootstrap
(B = 1000) and the randomised Tukey HSD (B = 5000) for uniform and non-uniform intent
probabilities at l = 10, the required differences, the concordance tests of seed 002's
Table 6 (gold standards I-rec, Ef-P and both) and Kendall tau / tau_ap between the run
rankings. Seeds are fixed (0) so the numbers are reproducible.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import xdiv
from xdiv import meta

POWER = ["I-rec@10", "alpha-nDCG@10", "nDCG-IA@10", "ERR-IA@10", "D-nDCG@10", "D#-nDCG@10",
         "DIN#-nDCG@10", "P+Q#@10"]
CONCORDANCE = ["alpha-nDCG@10", "D#-nDCG@10", "DIN#-nDCG@10", "P+Q#@10"]
GOLD = {"I-rec": ["I-rec@10"], "Ef-P": ["Ef-P@10"], "I-rec and Ef-P": ["I-rec@10", "Ef-P@10"]}


def power_table(scores) -> str:
    rows = ["| measure | bootstrap power | bootstrap delta | Tukey power | Tukey delta |",
            "|---|---|---|---|---|"]
    boot = meta.discriminative_power(scores, "bootstrap", B=1000, seed=0)
    tukey = meta.discriminative_power(scores, "tukey", B=5000, seed=0)
    n = boot.attrs["n_pairs"]
    for m in POWER:
        b, t = boot.sel(metric=m), tukey.sel(metric=m)
        rows.append(f"| {m} | {float(b.power):.1%} ({int(b.n_significant)}/{n}) | "
                    f"{float(b.required_delta):.3f} | {float(t.power):.1%} "
                    f"({int(t.n_significant)}/{n}) | {float(t.required_delta):.3f} |")
    return "\n".join(rows)


def concordance_tables(scores) -> str:
    out = []
    for label, gold in GOLD.items():
        table = meta.concordance_table(scores, CONCORDANCE, gold)
        out.append(f"Gold standard: {label}. Cell (row M1, column M2): "
                   "Correct1/Disagreements, Correct2/Disagreements, p (sign test).\n")
        out.append("| M1 \\ M2 | " + " | ".join(CONCORDANCE) + " |")
        out.append("|---" * (len(CONCORDANCE) + 1) + "|")
        for m1 in CONCORDANCE:
            cells = []
            for m2 in CONCORDANCE:
                if m1 == m2:
                    cells.append("-")
                    continue
                c = table.sel(metric_1=m1, metric_2=m2)
                cells.append(f"{float(c.concordance_1):.0%} / {float(c.concordance_2):.0%} "
                             f"(n={int(c.disagreements)}, p={float(c.pvalue):.2g})")
            out.append(f"| {m1} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def correlation_table(scores) -> str:
    kendall = meta.rank_correlation(scores.sel(metric=POWER), "kendall")
    tau_ap = meta.rank_correlation(scores.sel(metric=POWER), "tau_ap")
    rows = ["| M1 \\ M2 | " + " | ".join(POWER) + " |", "|---" * (len(POWER) + 1) + "|"]
    for a in POWER:
        rows.append(f"| {a} | " + " | ".join(
            f"{float(kendall.sel(metric_1=a, metric_2=b)):.2f} / "
            f"{float(tau_ap.sel(metric_1=a, metric_2=b)):.2f}" for b in POWER) + " |")
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default=str(Path(__file__).resolve().parents[1] / ".." /
                                              "shared" / "reference" / "trec-web"))
    parser.add_argument("-o", "--output")
    args = parser.parse_args()
    warnings.simplefilter("ignore", xdiv.XdivWarning)
    start = time.perf_counter()
    parts = []
    for scheme in ("uniform", "nonuniform"):
        col, runs = xdiv.datasets.trec_web(args.root, 2009, probabilities=scheme)
        scores = xdiv.evaluate(runs, col, sorted(set(POWER + CONCORDANCE + ["Ef-P@10"])))
        parts.append(f"## {scheme} intent probabilities\n\n### Discriminative power "
                     f"(alpha = 0.05, 153 run pairs)\n\n{power_table(scores)}\n")
        if scheme == "uniform":
            parts.append(f"### Concordance tests\n\n{concordance_tables(scores)}\n")
            parts.append("### Rank correlations (Kendall tau / tau_ap, row evaluated "
                         f"against column)\n\n{correlation_table(scores)}\n")
    text = "\n".join(parts) + f"\n(computed in {time.perf_counter() - start:.0f} s)\n"
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
