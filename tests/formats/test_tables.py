"""The publication tables of xdiv.compare's results (xdiv/formats/tables.py): the LaTeX,
Markdown and HTML tables, the methods paragraph and the BibTeX entries; and that the
LaTeX table compiles with pdflatex (skipped when pdflatex is not installed)."""

from __future__ import annotations

import doctest
import html
import json
import re
import shutil
import subprocess

import numpy as np
import pytest
import xarray as xr

import xdiv
from xdiv.errors import InputError
from xdiv.formats import tables
from xdiv.formats.bibliography import BIBLIOGRAPHY, MEASURE_REFERENCES

METRICS = ["alpha-nDCG@20", "ERR-IA@20"]


def baseline_result(runs=("base", "run_1&2%", "other", "b2"), baselines=("base", "b2"),
                    tests=("permutation", "t"), correction="holm", family="metric",
                    ci="t") -> xr.Dataset:
    """A hand-made result of ``xdiv.compare(..., baseline=[...])``, as its schema says:
    dims (test, metric, baseline, run), treatment ``run``, reference ``baseline``."""
    runs, baselines, tests = list(runs), list(baselines), list(tests)
    mean = np.array([[0.40, 0.45, 0.30, 0.4504],  # alpha-nDCG@20: a printed tie
                     [0.30, 0.28, 0.35, 0.33]])   # ERR-IA@20
    mean = mean[:, :len(runs)]
    shape = (len(tests), len(METRICS), len(baselines), len(runs))
    effect = np.empty(shape[1:])
    for k, base in enumerate(baselines):
        effect[:, k, :] = mean - mean[:, [runs.index(base)]]
    significant = np.zeros(shape, dtype=bool)
    pvalue = np.full(shape, 0.5)
    for k, base in enumerate(baselines):
        pvalue[:, :, k, runs.index(base)] = np.nan
    # test 0: run_1&2% better than base on alpha-nDCG, other worse than base on it,
    # other better than b2 on ERR-IA; test 1: nothing significant
    significant[0, 0, 0, 1] = significant[0, 0, 0, 2] = True
    if len(baselines) > 1:
        significant[0, 1, 1, 2] = True
    pvalue[significant] = 0.001
    dims4, dims3 = ("test", "metric", "baseline", "run"), ("metric", "baseline", "run")
    return xr.Dataset(
        {"statistic": (dims4, np.zeros(shape)), "pvalue": (dims4, pvalue),
         "pvalue_adjusted": (dims4, pvalue), "significant": (dims4, significant),
         "effect": (dims3, effect), "ci_low": (dims3, effect - 0.05),
         "ci_high": (dims3, effect + 0.05), "effect_size": (dims3, effect * 5),
         "hedges_g": (dims3, effect * 4.9), "wins": (dims3, np.zeros(shape[1:], int)),
         "ties": (dims3, np.zeros(shape[1:], int)),
         "losses": (dims3, np.zeros(shape[1:], int)),
         "mean": (("metric", "run"), mean), "mean_ci_low": (("metric", "run"), mean - 0.03),
         "mean_ci_high": (("metric", "run"), mean + 0.03),
         "n_topics": (("metric",), [50, 50])},
        coords={"test": tests, "metric": METRICS, "baseline": baselines, "run": runs},
        attrs={"xdiv_kind": "compare", "tests": json.dumps(tests),
               "correction": correction, "family": family, "B": 10000, "seed": 0,
               "alpha": 0.05, "ci": ci, "mode": "baseline",
               "baseline": json.dumps(baselines)})


def pairs_result(tests=("t",), correction="fdr_bh", family="all") -> xr.Dataset:
    """A hand-made all-pairs result: dims (test, metric, run_a, run_b), the full square,
    NaN on the diagonal, effect antisymmetric, significance symmetric."""
    runs = ["A", "B", "C"]
    mean = np.array([[0.50, 0.40, 0.30], [0.20, 0.20, 0.25]])
    effect = mean[:, :, None] - mean[:, None, :]
    shape = (len(tests), 2, 3, 3)
    significant = np.zeros(shape, dtype=bool)
    # alpha-nDCG: A beats B and C, B beats C; ERR-IA: nothing
    for a, b in [(0, 1), (0, 2), (1, 2)]:
        significant[:, 0, a, b] = significant[:, 0, b, a] = True
    pvalue = np.where(significant, 0.001, 0.4)
    for i in range(3):
        pvalue[:, :, i, i] = np.nan
        effect[:, i, i] = np.nan
    dims4, dims3 = ("test", "metric", "run_a", "run_b"), ("metric", "run_a", "run_b")
    return xr.Dataset(
        {"pvalue": (dims4, pvalue), "pvalue_adjusted": (dims4, pvalue),
         "significant": (dims4, significant), "effect": (dims3, effect),
         "ci_low": (dims3, effect - 0.1), "ci_high": (dims3, effect + 0.1),
         "mean": (("metric", "run"), mean), "mean_ci_low": (("metric", "run"), mean - 0.02),
         "mean_ci_high": (("metric", "run"), mean + 0.02),
         "n_topics": (("metric",), [48, 50])},
        coords={"test": list(tests), "metric": METRICS, "run_a": runs, "run_b": runs,
                "run": runs},
        attrs={"xdiv_kind": "compare", "tests": json.dumps(list(tests)),
               "correction": correction, "family": family, "B": 1000, "seed": 7,
               "alpha": 0.01, "ci": "bca", "mode": "pairs", "baseline": "[]"})


def _row(text: str, start: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(start))


# -- the public names ---------------------------------------------------------------------

def test_public_names():
    for name in ("table", "methods_paragraph", "bibtex"):
        assert name in xdiv.__all__
        assert getattr(xdiv, name) is getattr(tables, name)


def test_table_docstring_example_runs():
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    for test in finder.find(tables.table, "table", globs={}):
        runner.run(test)
    assert runner.failures == 0 and runner.tries > 0


# -- LaTeX -----------------------------------------------------------------------------------

def test_latex_booktabs_bold_markers_and_caption():
    text = xdiv.table(baseline_result(), "latex")
    assert text.startswith("\\begin{table}") and text.endswith("\\end{table}\n")
    for rule in ("\\toprule", "\\midrule", "\\bottomrule", "\\begin{tabular}{lrr}"):
        assert rule in text
    header = _row(text, "Run &")
    assert header == "Run & alpha-nDCG@20 & ERR-IA@20 \\\\"
    run = _row(text, "run\\_1")
    assert run.startswith("run\\_1\\&2\\% & \\textbf{0.450}$^{\\dagger \\uparrow}$ & ")
    other = _row(text, "other")
    # worse than base on alpha-nDCG, better than b2 on ERR-IA, best on ERR-IA
    assert other == ("other & 0.300$^{\\dagger \\downarrow}$ & "
                     "\\textbf{0.350}$^{\\ddagger \\uparrow}$ \\\\")
    assert _row(text, "b2") == "b2 & \\textbf{0.450} & 0.330 \\\\"  # tie as printed
    caption = _row(text, "\\caption{")
    assert "paired randomisation test" in caption and "Holm's correction" in caption
    assert "base ($^{\\dagger}$) and b2 ($^{\\ddagger}$)" in caption
    assert "$\\alpha$ = 0.05" in caption and "50 topics" in caption


def test_latex_escapes_every_special_character():
    name = "a_b&c%d#e$f{g}h~i^j\\k"
    result = baseline_result(runs=("base", name, "other", "b2"))
    text = xdiv.table(result, "latex")
    escaped = ("a\\_b\\&c\\%d\\#e\\$f\\{g\\}h\\textasciitilde{}i\\textasciicircum{}j"
               "\\textbackslash{}k")
    assert _row(text, "a\\_b").startswith(escaped + " & ")
    assert tables.latex_escape("[x] <y> |z|") == "{[}x{]} \\textless{}y\\textgreater{} " \
                                                 "\\textbar{}z\\textbar{}"


def test_latex_ci_and_digits():
    text = xdiv.table(baseline_result(), "latex", ci=True, digits=2)
    assert _row(text, "base &").startswith("base & 0.40 [0.37, 0.43] & ")
    assert "95\\% Student t confidence intervals" in text


# -- Markdown --------------------------------------------------------------------------------

def test_markdown_table():
    text = xdiv.table(baseline_result(), "markdown")
    lines = text.splitlines()
    assert lines[0] == "| Run | alpha-nDCG@20 | ERR-IA@20 |"
    assert lines[1] == "|:---|---:|---:|"
    assert lines[3] == "| run\\_1\\&2% | **0.450**<sup>†↑</sup> | 0.280 |"
    assert lines[4] == "| other | 0.300<sup>†↓</sup> | **0.350**<sup>‡↑</sup> |"
    assert lines[6] == ""
    legend = lines[7]
    assert legend.startswith("Means over 50 topics; bold: the best mean of each measure.")
    assert "base (†) and b2 (‡)" in legend and "α = 0.05" in legend
    assert "↑ better, ↓ worse" in legend


def test_markdown_ci_and_other_test():
    text = xdiv.table(baseline_result(), "markdown", test="t", ci=True)
    # nothing is significant under the t-test of the fixture
    assert "†" not in _row(text, "| run") and "‡" not in _row(text, "| other")
    assert _row(text, "| run").startswith("| run\\_1\\&2% | **0.450** [0.420, 0.480] |")
    assert "paired t-test" in text


def test_markdown_escapes_pipes():
    result = baseline_result(runs=("base", "a|b*c", "other", "b2"))
    assert "| a\\|b\\*c |" in xdiv.table(result, "markdown")


# -- HTML ------------------------------------------------------------------------------------

def test_html_table():
    text = xdiv.table(baseline_result(), "html", ci=True)
    assert text.startswith("<table>\n<caption") and text.endswith("</table>\n")
    assert "<script" not in text and "<link" not in text
    assert '<th scope="row">run_1&amp;2%</th>' in text
    assert "<td><strong>0.450</strong><sup>†↑</sup> [0.420, 0.480]</td>" in text
    assert "<sup>†↓</sup>" in text and "<sup>‡↑</sup>" in text
    caption = re.search(r"<caption[^>]*>(.*)</caption>", text).group(1)
    assert "Holm&#x27;s correction" in caption and "α = 0.05" in caption


def test_html_escapes_markup_in_names():
    result = baseline_result(runs=("base", "<script>x</script>", "other", "b2"))
    text = xdiv.table(result, "html")
    assert "<script>" not in text
    assert html.escape("<script>x</script>") in text


# -- all pairs -------------------------------------------------------------------------------

@pytest.mark.parametrize("style", ["latex", "markdown", "html"])
def test_all_pairs_letters(style):
    text = xdiv.table(pairs_result(), style)
    if style == "markdown":
        # issue 35 item 17: the letters are set apart from the digits
        assert "| (a) A | **0.500**<sup>bc</sup> | 0.200 |" in text
        assert "| (b) B | 0.400<sup>c</sup> | 0.200 |" in text
        assert "| (c) C | 0.300 | **0.250** |" in text
        assert "Runs are labelled (a)–(c)" in text and "α = 0.01" in text
        assert "Benjamini–Hochberg correction over all comparisons" in text
        assert "48–50 topics" in text
    elif style == "latex":
        assert "(a) A & \\textbf{0.500}$^{\\mathrm{b}\\mathrm{c}}$ & 0.200 \\\\" in text
        assert "Runs are labelled (a)--(c)" in text
    else:
        assert "<td><strong>0.500</strong><sup>bc</sup></td>" in text


def test_all_pairs_reads_either_half():
    result = pairs_result()
    upper = result.copy(deep=True)  # keep only run_a < run_b, as some results might
    for i in range(3):
        for k in range(i):
            upper["effect"][:, i, k] = np.nan
            upper["significant"][:, :, i, k] = False
    assert xdiv.table(upper, "markdown") == xdiv.table(result, "markdown")


def test_many_baselines_get_letters():
    assert [tables._symbol(k) for k in range(7)] == ["†", "‡", "§", "¶", "a", "b", "c"]
    assert tables._letters(25) == "z" and tables._letters(26) == "aa"


def test_bad_arguments():
    result = baseline_result()
    with pytest.raises(InputError, match="format"):
        xdiv.table(result, "rtf")
    with pytest.raises(InputError, match="digits"):
        xdiv.table(result, digits=-1)
    with pytest.raises(InputError, match="test='sign'"):
        xdiv.table(result, test="sign")
    with pytest.raises(InputError, match="xdiv.compare"):
        xdiv.table(result[["mean"]])


def test_output_is_deterministic():
    result = baseline_result()
    for style in ("latex", "markdown", "html"):
        assert xdiv.table(result, style, ci=True) == xdiv.table(result.copy(), style,
                                                                 ci=True)


# -- the methods paragraph -------------------------------------------------------------------

def test_paragraph_baseline_permutation_holm():
    result = baseline_result(runs=("base", "run_1&2%", "other"), baselines=("base",),
                             tests=("permutation",))
    text = xdiv.methods_paragraph(result, measures_cited=False)
    assert text.startswith(
        "We compared 2 runs with the baseline base on alpha-nDCG@20 and ERR-IA@20 "
        "(50 topics) with a two-sided paired randomisation test (Fisher, The Design of "
        "Experiments 1935; Smucker, Allan & Carterette, CIKM 2007; B = 10,000 resamples, "
        "seed 0) and controlled the family-wise error rate with Holm's method (Holm, "
        "Scandinavian Journal of Statistics 1979; Carterette, TOIS 2012) over the 2 "
        "comparisons of each measure; differences are significant at α = 0.05.")
    assert text.endswith("α = 0.05.")  # nothing the table does not show
    with_ci = xdiv.methods_paragraph(result, ci=True, measures_cited=False)
    assert with_ci == text + (" We report 95% Student t confidence intervals of the mean "
                              "of each run.")


def test_paragraph_two_baselines_count_their_pair_once():
    text = xdiv.methods_paragraph(baseline_result(), measures_cited=False)
    # runs: base, run_1&2%, other, b2; baselines base and b2: pairs {base, run_1&2%},
    # {base, other}, {base, b2}, {b2, run_1&2%}, {b2, other}
    assert "We compared 2 runs with the baselines base and b2" in text
    assert "over the 5 comparisons of each measure;" in text
    # the test the table shows (the first, as xdiv.table's default), and no other
    assert "a two-sided paired randomisation test" in text and "t-test" not in text
    t_test = xdiv.methods_paragraph(baseline_result(), test="t", measures_cited=False)
    assert "with a two-sided paired t-test (Student, Biometrika 1908) and" in t_test
    assert "randomisation" not in t_test


def test_paragraph_cites_measures():
    text = xdiv.methods_paragraph(baseline_result())
    assert "alpha-nDCG@20 (Clarke et al., SIGIR 2008; Clarke, Craswell, Soboroff & " \
           "Ashkan, WSDM 2011; Sakai & Song, SIGIR 2011)" in text
    assert "ERR-IA@20 (Clarke et al., SIGIR 2008;" in text
    assert "Chapelle et al., CIKM 2009" in text


@pytest.mark.parametrize("correction, words", [
    ("bonferroni", ("controlled the family-wise error rate with the Bonferroni correction "
                    "(Dunn, Journal of the American Statistical Association 1961")),
    ("fdr_bh", ("controlled the false discovery rate with the Benjamini–Hochberg procedure "
                "(Benjamini & Hochberg, Journal of the Royal Statistical Society B 1995")),
    ("fdr_by", ("controlled the false discovery rate with the Benjamini–Yekutieli "
                "procedure (Benjamini & Yekutieli, The Annals of Statistics 2001")),
    ("maxt-stepdown", ("controlled the family-wise error rate with Westfall and Young's "
                       "step-down max-T permutation procedure (Westfall & Young, "
                       "Resampling-Based Multiple Testing 1993; Boytsov, Belova & "
                       "Westfall, SIGIR 2013; B = 10,000 sign flips, seed 0)")),
    ("maxt", "Westfall and Young's single-step max-T permutation procedure"),
    ("none", ("differences are significant at α = 0.05 without correction for multiple "
              "comparisons.")),
])
def test_paragraph_corrections(correction, words):
    result = baseline_result(tests=("wilcoxon",), correction=correction)
    text = xdiv.methods_paragraph(result, measures_cited=False)
    assert words in text
    assert "a two-sided Wilcoxon signed-rank test (Wilcoxon, Biometrics Bulletin 1945)" \
        in text
    if not correction.startswith("maxt"):
        assert "B = " not in text  # no B for a rank test


def test_paragraph_all_pairs_bootstrap_bca_family_all():
    text = xdiv.methods_paragraph(pairs_result(tests=("bootstrap", "sign")),
                                  measures_cited=False)
    assert text.startswith("We compared all 3 pairs of 3 runs on alpha-nDCG@20 and "
                           "ERR-IA@20 (48–50 topics) with a two-sided paired bootstrap "
                           "test (Efron & Tibshirani, An Introduction to the Bootstrap "
                           "1993; Sakai, SIGIR 2006; B = 1,000 resamples, seed 7) and "
                           "controlled the false discovery rate")
    assert "false discovery rate with the Benjamini–Hochberg procedure" in text
    assert "over all 6 comparisons;" in text and "sign test" not in text
    assert text.endswith("significant at α = 0.01.")  # no interval the table lacks
    sign = xdiv.methods_paragraph(pairs_result(tests=("bootstrap", "sign")), test="sign",
                                  ci=True, measures_cited=False)
    assert "with a two-sided sign test (Dixon & Mood" in sign and "bootstrap" not in sign
    assert sign.endswith("We report 99% Student t confidence intervals of the mean of "
                         "each run.")


def test_paragraph_tukey():
    text = xdiv.methods_paragraph(pairs_result(tests=("tukey",)), measures_cited=False)
    assert "a two-sided randomised Tukey HSD test (Carterette, TOIS 2012; B = 1,000 " \
           "resamples, seed 7)" in text
    assert "controls the family-wise error rate over all pairs of runs of each measure " \
           "by itself; differences are significant at α = 0.01." in text
    assert "Benjamini" not in text
    assert "benjamini1995" not in xdiv.bibtex(pairs_result(tests=("tukey",)))
    both = pairs_result(tests=("t", "tukey"))
    assert "Benjamini–Hochberg procedure" in xdiv.methods_paragraph(both)
    assert "Benjamini" not in xdiv.methods_paragraph(both, test="tukey")


# -- BibTeX ------------------------------------------------------------------------------------

def parse_bibtex(text: str) -> dict[str, dict[str, str]]:
    """A tiny BibTeX parser: entries ``@type{key, field = {value}, ...}`` with balanced
    braces; fails on anything else."""
    entries, i = {}, 0
    while True:
        match = re.compile(r"\s*@(\w+)\{([^,\s{}]+),").match(text, i)
        if match is None:
            assert text[i:].strip() == "", f"unparsed text: {text[i:i + 80]!r}"
            return entries
        key, i, fields = match.group(2), match.end(), {"type": match.group(1)}
        while True:
            field = re.compile(r"\s*(\w+)\s*=\s*\{").match(text, i)
            if field is None:
                end = re.compile(r"\s*\}").match(text, i)
                assert end is not None, f"{key}: bad text at {text[i:i + 40]!r}"
                i = end.end()
                break
            depth, j = 1, field.end()
            while depth:
                assert j < len(text), f"{key}: unbalanced braces"
                depth += {"{": 1, "}": -1}.get(text[j], 0) if text[j - 1] != "\\" else 0
                j += 1
            fields[field.group(1)] = text[field.end():j - 1]
            comma = re.compile(r"\s*,").match(text, j)
            i = comma.end() if comma else j
        assert key not in entries, f"duplicate key {key}"
        entries[key] = fields


def test_bibtex_entries_parse():
    text = xdiv.bibtex(baseline_result(tests=("permutation", "t", "wilcoxon")))
    entries = parse_bibtex(text)
    for key in ("fisher1935", "smucker2007", "student1908", "wilcoxon1945", "holm1979",
                "carterette2012", "clarke2008", "clarke2011", "sakai2011", "chapelle2009"):
        assert key in entries
    for key, fields in entries.items():
        assert fields["title"] and re.fullmatch(r"\d{4}", fields["year"]), key
        assert "doi" not in fields
    assert list(entries)[:2] == ["fisher1935", "smucker2007"]  # the paragraph's order


def test_bibtex_without_measures_and_per_correction():
    keys = set(parse_bibtex(xdiv.bibtex(baseline_result(correction="fdr_by"),
                                        measures=False)))
    assert keys == {"fisher1935", "smucker2007", "student1908", "benjamini2001",
                    "carterette2012"}
    keys = set(parse_bibtex(xdiv.bibtex(pairs_result(tests=("bootstrap",)),
                                        measures=False)))
    assert keys == {"efron1993", "sakai2006", "benjamini1995", "carterette2012",
                    "efron1987"}
    assert xdiv.bibtex(baseline_result(tests=("mystery",), correction="none"),
                       measures=False) == ""


def test_the_whole_bibliography_parses():
    text = "\n\n".join(tables._entry(key) for key in BIBLIOGRAPHY)
    entries = parse_bibtex(text)
    assert set(entries) == set(BIBLIOGRAPHY)
    for fields in entries.values():
        assert fields["type"] in {"article", "book", "inproceedings", "incollection"}
        assert {"author", "title", "year"} <= set(fields)


def test_measure_references_are_in_the_registry_and_bibliography():
    references = " | ".join(m.reference or "" for m in xdiv.registry().values())
    for text, key in MEASURE_REFERENCES.items():
        assert text in references, text
        assert key in BIBLIOGRAPHY


# -- the real xdiv.compare --------------------------------------------------------------------

@pytest.fixture(scope="module")
def scores():
    collection, runs = xdiv.datasets.synthetic(n_topics=20, n_runs=4, depth=20, seed=0)
    return xdiv.evaluate(runs, collection, ["alpha-nDCG@10", "ERR-IA@10"])


def test_real_result_markers_match_significance(scores):
    result = xdiv.compare(scores, baseline=["run01", "run02"], tests=["t", "wilcoxon"],
                          correction="holm")
    for test in ("t", "wilcoxon"):
        text = xdiv.table(result, "markdown", test=test)
        rows = text.split("\n\n")[0].splitlines()[2:]
        one = result.sel(test=test)
        for row, run in zip(rows, result["run"].values):
            cells = [c.strip() for c in row.strip("|").split("|")][1:]
            for cell, metric in zip(cells, result["metric"].values):
                for k, base in enumerate(result["baseline"].values):
                    symbol = "†‡"[k]
                    expected = bool(one["significant"].sel(metric=metric, baseline=base,
                                                           run=run))
                    assert (symbol in cell) == expected, (test, run, metric, base)
                    if expected:
                        effect = float(one["effect"].sel(metric=metric, baseline=base,
                                                         run=run))
                        arrow = cell[cell.index(symbol) + 1]
                        assert arrow == ("↑" if effect > 0 else "↓")


def test_real_result_all_pairs_and_paragraph(scores):
    result = xdiv.compare(scores, tests=["permutation"], correction="maxt-stepdown",
                          family="all", B=200, ci="bca")
    text = xdiv.table(result, "markdown")
    assert "| (a) run01 |" in text and "Runs are labelled (a)–(d)" in text
    significant = result["significant"].sel(test="permutation")
    effect = result["effect"]
    runs = list(result["run_a"].values)
    rows = text.split("\n\n")[0].splitlines()[2:]
    for i, row in enumerate(rows):
        cells = [c.strip() for c in row.strip("|").split("|")][1:]
        for cell, metric in zip(cells, result["metric"].values):
            letters = re.sub(r"[\d.*]|</?sup>", "", cell)
            expected = "".join(tables._letters(k) for k, other in enumerate(runs)
                               if bool(significant.sel(metric=metric, run_a=runs[i],
                                                       run_b=other))
                               and float(effect.sel(metric=metric, run_a=runs[i],
                                                    run_b=other)) > 0)
            assert letters == expected
    paragraph = xdiv.methods_paragraph(result)
    assert paragraph.startswith("We compared all 6 pairs of 4 runs on alpha-nDCG@10 (")
    assert "step-down max-T permutation procedure" in paragraph
    assert "over all 12 comparisons" in paragraph and "B = 200 resamples, seed 0" in paragraph
    assert "(BCa)" not in paragraph and "interval" not in paragraph  # not in the table
    assert {"fisher1935", "westfall1993", "efron1987", "clarke2008"} <= set(
        parse_bibtex(xdiv.bibtex(result)))


# -- pdflatex ----------------------------------------------------------------------------------

def test_latex_table_compiles(tmp_path, scores):
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed (apt-get install texlive-latex-recommended)")
    body = "\n".join([xdiv.table(baseline_result(), "latex", ci=True),
                      xdiv.table(pairs_result(), "latex"),
                      xdiv.table(baseline_result(runs=("base", "a_b&c%d#e$f{g}h~i^j\\k",
                                                       "other", "b2")), "latex"),
                      xdiv.table(xdiv.compare(scores, baseline="run01"), "latex", ci=True)])
    (tmp_path / "table.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
        + body + "\\end{document}\n", encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                           "table.tex"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stdout[-2000:]
    assert (tmp_path / "table.pdf").stat().st_size > 0


# -- the paragraph in the HTML report ------------------------------------------------------

def test_report_paragraph_says_what_its_table_shows(scores):
    """Issue 35 item 10: the HTML report's methods paragraph claims no interval and no
    effect size (its table shows neither), and is HTML written by the paragraph's own
    escaping (a quantity in italics), not text escaped twice."""
    from xdiv import report

    page = report.html_report(scores, baseline="run01")
    paragraph = re.search(r'<p class="how">(We compared [^<]*(?:<i>[^<]*</i>[^<]*)*)</p>',
                          page).group(1)
    for claim in ("interval", "d_z", "Hedges", "effect size", "Effect size"):
        assert claim not in paragraph
    assert paragraph.endswith("significant at <i>α</i> = 0.05.")
    assert "&amp;amp;" not in paragraph and "Clarke, Craswell, Soboroff &amp; Ashkan" \
        in paragraph


# -- each format escapes the paragraph ----------------------------------------------------

HOSTILE = ["<script>alert(1)</script>", "x\\input{/etc/passwd}y", "a&b#c%d_e", "{^~$}",
           "α|*`'\"", "line\nbreak"]


@pytest.mark.parametrize("fmt", ["latex", "markdown", "html", "text"])
def test_paragraph_escapes_names_per_format(fmt):
    """Issue 35 item 2: run and measure names go through the format's escaping in the
    paragraph, as in the table; LaTeX writes the quantities in math mode."""
    result = baseline_result(runs=("base", HOSTILE[0], HOSTILE[1], HOSTILE[2]),
                             baselines=("base", HOSTILE[2]))
    result = result.assign_coords(metric=[HOSTILE[3], HOSTILE[4] + HOSTILE[5]])
    text = xdiv.methods_paragraph(result, fmt)
    escape = {"latex": tables.latex_escape, "markdown": tables._Markdown().text,
              "html": tables._Html().text, "text": tables._Text().text}[fmt]
    for name in (HOSTILE[2], HOSTILE[3], HOSTILE[4] + HOSTILE[5]):
        assert escape(name) in text
    assert "\n" not in text
    if fmt == "latex":
        assert "\\input{" not in text and "α" not in text and "$\\alpha = 0.05$" in text
        assert "$B = 10{,}000$ resamples" in text and "Allan \\& Carterette" in text
    if fmt == "html":
        assert "<script>" not in text and "<i>α</i> = 0.05" in text
    if fmt == "markdown":
        assert "<" not in text.replace("\\<", "") and "a\\&b\\#c%d\\_e" in text
    if fmt != "latex":
        with pytest.raises(InputError, match="cite=True"):
            xdiv.methods_paragraph(result, fmt, cite=True)
    with pytest.raises(InputError, match="format='rtf'"):
        xdiv.methods_paragraph(result, "rtf")


def test_latex_escape_unicode():
    assert tables.latex_escape("run_1 & β–é") == "run\\_1 \\& $\\beta$--\\'{e}"
    assert tables.latex_escape("a--b''c") == "a-{}-b'{}'c"
    assert tables.latex_escape("☃\x1b") == "\\texttt{U+2603}\\textbackslash{}x1b"
    assert tables.latex_escape("ΩΑ ï") == "$\\Omega$A \\\"{\\i{}}"
    assert tables.latex_escape("a\nb").isascii()


def test_table_and_paragraph_compile_with_citations(tmp_path):
    """Issue 35 item 2: a document with the LaTeX table and paragraph of hostile names,
    citing with \\cite from xdiv.bibtex's entries, compiles with pdflatex and bibtex and
    leaves no citation undefined."""
    if shutil.which("pdflatex") is None or shutil.which("bibtex") is None:
        pytest.skip("pdflatex is not installed (apt-get install texlive-latex-recommended)")
    results = [baseline_result(runs=("base", HOSTILE[0], HOSTILE[1], HOSTILE[2]),
                               baselines=("base", HOSTILE[2])).assign_coords(
                   metric=[HOSTILE[3], HOSTILE[4] + HOSTILE[5]]),
               baseline_result(), pairs_result(tests=("bootstrap", "tukey"))]
    body, bib = [], {}
    for result in results:
        for ci in (False, True):
            body += [xdiv.table(result, "latex", ci=ci),
                     xdiv.methods_paragraph(result, "latex", ci=ci, cite=True), "",
                     xdiv.methods_paragraph(result, "latex", ci=ci, test=_last(result)), ""]
        for entry in xdiv.bibtex(result).strip().split("\n\n"):  # each entry once
            bib[entry.split("{", 1)[1].split(",", 1)[0]] = entry
    (tmp_path / "refs.bib").write_text("\n\n".join(bib.values()) + "\n", encoding="utf-8")
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
        + "\n".join(body) + "\n\\bibliographystyle{plain}\n\\bibliography{refs}\n"
        "\\end{document}\n", encoding="utf-8")
    run = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"]
    for command in (run, ["bibtex", "paper"], run, run):
        done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True,
                              timeout=120, check=False)
        assert done.returncode == 0, (command, done.stdout[-2000:])
    log = (tmp_path / "paper.log").read_text(encoding="utf-8", errors="replace")
    assert "undefined" not in log.lower()
    cited = set(re.findall(r"\\bibitem\{([^}]*)\}",
                           (tmp_path / "paper.bbl").read_text(encoding="utf-8")))
    assert {"fisher1935", "holm1979", "carterette2012", "efron1993"} <= cited <= set(bib)


def _last(result) -> str:
    return str(result["test"].values[-1])
