"""``xdiv compare``: which differences between runs are real, with corrections, effect
sizes and the tables a paper prints (see :func:`xdiv.compare` and
:mod:`xdiv.formats.tables`)."""

from __future__ import annotations

import sys

from .._warnings import warn
from ..errors import XdivError, XdivWarning
from ..typing import COMPARE_CIS, COMPARE_CORRECTIONS, COMPARE_FAMILIES, COMPARE_TESTS
from .common import about, command, open_netcdf, output, print_frame, renamed, \
    significance_option, whole

FORMATS = ("table", "latex", "markdown", "html", "netcdf")
"""What ``--format`` writes: a tidy table of the comparisons (``table``), the paper table
(``latex``, ``markdown``, ``html``) or the result dataset (``netcdf``, with ``-o``)."""

EXAMPLES = """examples:
  xdiv compare scores.nc --baseline MSRABASE --test t permutation --correction holm
  xdiv compare scores.nc --baseline MSRABASE uogTrDYCcsB --format latex --methods -o table.tex
  xdiv compare scores.nc --test tukey -m alpha-nDCG@20 --format markdown
  xdiv compare scores.nc --baseline MSRABASE --correction maxt --family all -o cmp.nc \\
      --format netcdf
"""


def add_parser(sub) -> None:
    cp = command(
        sub, "compare", "test which run differences are real; print the paper's table",
        run, examples=EXAMPLES,
        about="Compare runs on every topic they share, per measure: against one or more "
              "baselines (--baseline) or all pairs (without), with paired tests (Student's "
              "t, Wilcoxon signed-rank, sign, Fisher's randomisation, the paired bootstrap, "
              "the randomised Tukey HSD), a correction over the family of comparisons "
              "(Bonferroni, Holm, Benjamini-Hochberg, Benjamini-Yekutieli, the permutation "
              "MaxT of Westfall and Young, single-step or step-down), and effect sizes with "
              "confidence intervals. Prints a table of the comparisons, or the runs x "
              "measures table a paper prints (LaTeX with booktabs, Markdown, HTML) with the "
              "best value of each column in bold and significance markers against each "
              "baseline; --methods adds the methods paragraph, --bibtex writes the "
              "references of the tests and measures.")
    cp.add_argument("scores", help="score cube NetCDF written by 'xdiv evaluate -o'")
    cp.add_argument("--baseline", nargs="+", metavar="RUN",
                    help="the baseline run(s); without, every pair of runs is compared")
    cp.add_argument("--test", nargs="+", choices=COMPARE_TESTS, default=["t"], metavar="TEST",
                    help="paired tests: " + ", ".join(COMPARE_TESTS) + " (default: t)")
    cp.add_argument("--correction", choices=COMPARE_CORRECTIONS, metavar="CORRECTION",
                    help="multiple-comparison correction over the family: "
                         + ", ".join(COMPARE_CORRECTIONS) + " (default: none)")
    cp.add_argument("--family", choices=COMPARE_FAMILIES, default="metric",
                    help="the comparisons corrected together: those of each measure "
                         "(default), or every measure's")
    cp.add_argument("-m", "--measure", nargs="+", action="extend", dest="measures",
                    metavar="MEASURE",
                    help="the measures compared (default: every measure of the cube)")
    renamed(cp, "--metric", "-m/--measure", dest="measures", metavar="MEASURE",
            what="the measures", nargs="+", action="extend")
    cp.add_argument("-B", type=whole(1), default=10_000, dest="B",
                    help="resamples of the resampling tests and of MaxT (default: 10000)")
    cp.add_argument("--seed", type=whole(0), default=0,
                    help="seed of the resampling (default: 0)")
    significance_option(cp, "significance level, and 1 - the coverage of the intervals "
                            "(default: 0.05)")
    cp.add_argument("--ci", choices=COMPARE_CIS, default="t",
                    help="confidence interval of the mean difference: Student's t "
                         "(default) or the bootstrap BCa")
    cp.add_argument("--format", choices=FORMATS, default="table",
                    help="table (the comparisons, one a line; default), latex, markdown or "
                         "html (the paper table), netcdf (the result dataset, with -o)")
    cp.add_argument("--table-test", choices=COMPARE_TESTS, metavar="TEST",
                    help="paper table: the test whose significance markers it shows, one "
                         "of --test (default: the first)")
    cp.add_argument("--with-ci", action="store_true",
                    help="paper table: each mean with its confidence interval")
    cp.add_argument("--methods", action="store_true",
                    help="after the paper table, the methods paragraph that describes it "
                         "(with --bibtex, the LaTeX paragraph cites with \\cite)")
    cp.add_argument("--bibtex", metavar="FILE",
                    help="write the BibTeX entries of the tests, corrections and measures")
    cp.add_argument("-o", "--output", metavar="FILE",
                    help="write to FILE instead of standard output (needed by netcdf)")


def run(args) -> int:
    from ..analysis.compare import compare
    from ..formats import tables
    from ..io.atomic import atomic_output
    from ..io.netcdf import to_netcdf

    if args.format == "netcdf" and not args.output:
        raise XdivError("--format netcdf writes a file: name it with -o FILE")
    if args.methods and args.format in ("table", "netcdf"):
        raise XdivError(f"--methods describes the paper table: use it with --format latex, "
                        f"markdown or html, not {args.format}")
    if args.table_test is not None and args.table_test not in args.test:
        raise XdivError(f"--table-test {args.table_test} is not one of --test "
                        f"{' '.join(args.test)}")
    if args.output:
        output(args.output, args.scores)
    if args.bibtex:
        output(args.bibtex, args.scores)
    scores = open_netcdf(args.scores, "scores")
    with about(args.scores):
        if args.measures:
            from ..core.cube import score_array

            scores = score_array(scores, args.measures).to_dataset(name="score").assign_attrs(
                scores.attrs)
        result = compare(scores, baseline=args.baseline, tests=tuple(args.test),
                         correction=args.correction, family=args.family, B=args.B,
                         seed=args.seed, alpha=args.alpha, ci=args.ci)
    if args.correction is not None and "tukey" in args.test:
        warn(f"--correction {args.correction} is not applied to the tukey test: the "
             "randomised Tukey HSD already controls the family-wise error over all run "
             "pairs of each measure, so its adjusted p-values are its p-values",
             XdivWarning)
    paper = args.format in ("latex", "markdown", "html")
    if paper and args.table_test is None and len(args.test) > 1:
        warn(f"the paper table shows the significance of the {args.test[0]} test, the "
             f"first of --test {' '.join(args.test)}; choose another with --table-test",
             XdivWarning)
    if args.bibtex:
        with atomic_output(args.bibtex) as fh:
            fh.write(tables.bibtex(result))
    if args.format == "netcdf":
        to_netcdf(result, args.output)
        return 0
    if args.format == "table":
        text = None
        frame = comparison_frame(result)
    else:
        text = tables.table(result, format=args.format, ci=args.with_ci,
                            test=args.table_test)
        if args.methods:
            text += "\n" + tables.methods_paragraph(
                result, args.format, test=args.table_test, ci=args.with_ci,
                cite=bool(args.bibtex) and args.format == "latex") + "\n"
    if args.output:
        with atomic_output(args.output) as fh:
            fh.write(text if text is not None else frame.to_string(
                float_format=lambda v: f"{v:.4f}") + "\n")
    elif text is not None:
        sys.stdout.write(text)
    else:
        print_frame(frame, "table")
    return 0


def comparison_frame(result):
    """The comparisons of a :func:`xdiv.compare` result, one a row (each pair once, no run
    against itself): test, measure, the two runs, the mean difference with its interval,
    the statistic and the raw and adjusted p-values. The interval of a Tukey row is
    Tukey's simultaneous interval (``tukey_ci_low``, ``tukey_ci_high``), the others' the
    result's ``ci``."""
    import numpy as np

    pairs = "run_a" in result.dims
    first, second = ("run_a", "run_b") if pairs else ("baseline", "run")
    fields = ["effect", "ci_low", "ci_high", "statistic", "pvalue", "pvalue_adjusted",
              "significant"]
    frame = result[fields].to_dataframe().reset_index()
    if "tukey_ci_low" in result:
        tukey = result[["tukey_ci_low", "tukey_ci_high"]].to_dataframe().reset_index()
        shown = frame.merge(tukey, how="left")
        rows = (frame["test"] == "tukey").to_numpy()
        for side in ("low", "high"):
            frame.loc[rows, f"ci_{side}"] = shown.loc[rows, f"tukey_ci_{side}"].to_numpy()
    frame = frame[frame[first] != frame[second]]
    if pairs:  # each unordered pair once, in the cube's run order
        position = {str(r): k for k, r in enumerate(result["run_a"].values)}
        frame = frame[[position[str(a)] < position[str(b)]
                       for a, b in zip(frame["run_a"], frame["run_b"])]]
    frame = frame[np.isfinite(frame["pvalue"].to_numpy(dtype=float))]
    return frame.set_index(["test", "metric", first, second])
