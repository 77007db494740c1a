"""Publication tables, a methods paragraph and BibTeX entries for the result of
:func:`xdiv.compare`.

:func:`table` writes the familiar paper table, runs as rows and measures as columns, each
cell a run's mean, in LaTeX (booktabs), Markdown or HTML; :func:`methods_paragraph`
describes the comparison in one paragraph a paper can use; :func:`bibtex` writes the
BibTeX entries of the tests, corrections and measures the paragraph cites.

Markers
-------
Against baselines, each baseline has one superscript symbol, in the order of the result's
``baseline`` coordinate: dagger, double dagger, section, pilcrow, then the letters
``a``, ``b``, ... A run's mean carries a baseline's symbol when the run is significantly
different from that baseline (``significant`` of the chosen test, that is after the
result's correction, at its ``alpha``), followed by an arrow giving the direction of the
mean difference: ``↑`` the run is better (its mean is higher), ``↓`` worse. Over all
pairs, the runs are labelled ``a``, ``b``, ``c``, ... in the order of the result's runs,
and a mean carries the letters of the runs it is significantly better than.

The text (run and measure names, the legend) is escaped for each format, and the output
depends on the result only: the rows and columns follow the result's coordinates.
"""

from __future__ import annotations

import functools
import html
import json
import math
import unicodedata
from dataclasses import dataclass, field

import numpy as np
import xarray as xr

from ..errors import InputError, MeasureError, shown
from ..measures import parse_measure
from .bibliography import BIBLIOGRAPHY, MEASURE_REFERENCES

__all__ = ["bibtex", "methods_paragraph", "table"]


@dataclass(frozen=True)
class _Test:
    name: str  # as the legend and the paragraph name it, after "a two-sided"
    resampling: bool  # B resamples and a seed apply
    keys: tuple[str, ...]  # BIBLIOGRAPHY keys


@dataclass(frozen=True)
class _Correction:
    name: str  # as the legend names it ("Holm's correction")
    method: str  # as the paragraph names it ("Holm's method")
    rate: str  # the error rate it controls
    resampling: bool  # B sign flips and a seed apply
    keys: tuple[str, ...]


_TESTS = {
    "t": _Test("paired t-test", False, ("student1908",)),
    "wilcoxon": _Test("Wilcoxon signed-rank test", False, ("wilcoxon1945",)),
    "sign": _Test("sign test", False, ("dixon1946",)),
    "permutation": _Test("paired randomisation test", True,
                         ("fisher1935", "smucker2007")),
    "bootstrap": _Test("paired bootstrap test", True, ("efron1993", "sakai2006")),
    "tukey": _Test("randomised Tukey HSD test", True, ("carterette2012",)),
}
"""The tests of :func:`xdiv.compare` (:data:`xdiv.typing.COMPARE_TESTS`)."""

_FWER = "family-wise error rate"
_FDR = "false discovery rate"
_CORRECTIONS = {
    "bonferroni": _Correction("Bonferroni correction", "the Bonferroni correction",
                              _FWER, False, ("dunn1961", "carterette2012")),
    "holm": _Correction("Holm's correction", "Holm's method", _FWER, False,
                        ("holm1979", "carterette2012")),
    "fdr_bh": _Correction("Benjamini–Hochberg correction",
                          "the Benjamini–Hochberg procedure", _FDR, False,
                          ("benjamini1995", "carterette2012")),
    "fdr_by": _Correction("Benjamini–Yekutieli correction",
                          "the Benjamini–Yekutieli procedure", _FDR, False,
                          ("benjamini2001", "carterette2012")),
    "maxt": _Correction("Westfall–Young single-step max-T correction",
                        "Westfall and Young's single-step max-T permutation procedure",
                        _FWER, True, ("westfall1993", "boytsov2013")),
    "maxt-stepdown": _Correction("Westfall–Young step-down max-T correction",
                                 "Westfall and Young's step-down max-T permutation "
                                 "procedure", _FWER, True, ("westfall1993", "boytsov2013")),
}
"""The corrections of :func:`xdiv.compare` (:data:`xdiv.typing.COMPARE_CORRECTIONS`)."""
_NO_CORRECTION = ("none", "")
"""How a result says it is uncorrected (``xdiv.compare`` writes ``"none"``)."""

_SYMBOLS = "†‡§¶"
"""The baselines' markers, then the letters a, b, ..."""


def _attr_list(value) -> list[str]:
    """An attribute holding names (a JSON list, as ``xdiv.compare`` writes it, or a list)
    as a list of strings."""
    if value is None:
        return []
    if isinstance(value, str):
        return [str(v) for v in json.loads(value)]
    return [str(v) for v in np.atleast_1d(value)]


def _test_of(name: str) -> _Test | None:
    return _TESTS.get(name)


def _correction_of(name) -> _Correction | None:
    return _CORRECTIONS.get("" if name is None else str(name))


def _letters(index: int) -> str:
    """a, b, ..., z, aa, ab, ...: the label of the ``index``-th run or baseline."""
    label = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        label = chr(ord("a") + rest) + label
    return label


def _symbol(index: int) -> str:
    return _SYMBOLS[index] if index < len(_SYMBOLS) else _letters(index - len(_SYMBOLS))


def _count(values) -> str:
    """An integer with thousands separators (10,000)."""
    return f"{int(values):,}"


def _number(value) -> str:
    """A float as few digits as it needs (0.05, 0.1)."""
    return f"{float(value):g}"


def _join(items: list[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _mode(result: xr.Dataset) -> str:
    if "baseline" in result.dims:
        return "baseline"
    if "run_a" in result.dims and "run_b" in result.dims:
        return "pairs"
    raise InputError("expected the result of xdiv.compare, with a 'baseline' dimension "
                     "or the dimensions 'run_a' and 'run_b'; got dimensions "
                     f"{sorted(map(str, result.dims))}")


def _runs(result: xr.Dataset) -> list[str]:
    if "run" in result.coords:
        return [str(r) for r in result["run"].values]
    return [str(r) for r in result["run_a"].values]


def _metrics(result: xr.Dataset) -> list[str]:
    return [str(m) for m in result["metric"].values]


def _baselines(result: xr.Dataset) -> list[str]:
    return [str(b) for b in result["baseline"].values]


def _tests(result: xr.Dataset) -> list[str]:
    if "test" in result.coords:
        return [str(t) for t in np.atleast_1d(result["test"].values)]
    return _attr_list(result.attrs.get("tests"))


def _pick_test(result: xr.Dataset | xr.DataArray, test) -> xr.Dataset | xr.DataArray:
    """The result (or one of its variables) of one test: ``test``, or the first of the
    result's tests."""
    if "test" not in result.dims:
        return result
    names = _tests(result)
    if test is None:
        test = names[0]
    if str(test) not in names:
        raise InputError(f"test={test!r} is not in the result; its tests are {names}")
    return result.sel(test=str(test))


def _test_name(result: xr.Dataset, test: str | None) -> str:
    if test is None:
        names = _tests(result)
        test = names[0] if names else "test"
    known = _test_of(str(test))
    return known.name if known else str(test)


def _flag(value) -> bool:
    """True for a significant comparison (False for False, 0 and NaN)."""
    value = np.asarray(value).item()
    if isinstance(value, float) and math.isnan(value):
        return False
    return bool(value)


# --------------------------------------------------------------------------------------
# The table: cells first, then one renderer per format
# --------------------------------------------------------------------------------------

@dataclass
class _Cell:
    mean: float
    low: float | None = None
    high: float | None = None
    bold: bool = False
    marks: list[tuple[str, str]] = field(default_factory=list)  # (symbol, arrow)


@dataclass
class _Grid:
    rows: list[str]  # row labels (plain text)
    columns: list[str]
    cells: list[list[_Cell]]  # rows × columns


def _take(variable: xr.DataArray, **labels: list[str]) -> np.ndarray:
    """``variable.sel(**labels).transpose(*labels).values``, the labels looked up in
    dictionaries and the values taken by position (a table's handful of cells cost
    xarray's and pandas' label lookups many times what they cost numpy); xarray's own
    selection where a label is missing or repeated, which raises its errors."""
    dims = list(variable.dims)
    positions = []
    if sorted(dims) == sorted(labels):
        for dim, wanted in labels.items():
            if dim not in variable.indexes:
                break
            coordinate = variable.indexes[dim].tolist()
            at = {label: k for k, label in enumerate(coordinate)}
            if len(at) < len(coordinate) or any(w not in at for w in wanted):
                break
            positions.append([at[w] for w in wanted])
    if len(positions) < len(labels):
        return variable.sel(**labels).transpose(*labels).values
    values = np.transpose(variable.values, [dims.index(dim) for dim in labels])
    return values[np.ix_(*positions)]


def _values(variable: xr.DataArray, runs: list[str], metrics: list[str]) -> np.ndarray:
    """``variable(metric, run)`` as a float array run × metric."""
    return _take(variable, run=runs, metric=metrics).astype(float)


def _grid(result: xr.Dataset, test: str | None, ci: bool, digits: int) -> _Grid:
    mode = _mode(result)
    one = _pick_test(result, test)
    runs, metrics = _runs(result), _metrics(result)
    means = (_values(one["mean"], runs, metrics) if "run" in one["mean"].dims else
             _take(one["mean"], run_a=runs, metric=metrics).astype(float))
    cells = [[_Cell(float(means[i, j])) for j in range(len(metrics))]
             for i in range(len(runs))]
    if ci:
        missing = [v for v in ("mean_ci_low", "mean_ci_high") if v not in one]
        if missing:
            raise InputError(f"ci=True needs the variables {missing} in the result")
        low = _values(one["mean_ci_low"], runs, metrics)
        high = _values(one["mean_ci_high"], runs, metrics)
        for i, row in enumerate(cells):
            for j, cell in enumerate(row):
                cell.low, cell.high = float(low[i, j]), float(high[i, j])
    for j in range(len(metrics)):  # the best of each column, as printed
        shown = [round(row[j].mean, digits) for row in cells if math.isfinite(row[j].mean)]
        if shown:
            best = max(shown)
            for row in cells:
                row[j].bold = math.isfinite(row[j].mean) and round(row[j].mean,
                                                                   digits) == best
    significant, effect = one["significant"], one["effect"]
    if mode == "baseline":
        for k, base in enumerate(_baselines(result)):
            sig = _take(significant, baseline=[base], run=runs, metric=metrics)[0]
            eff = _take(effect, baseline=[base], run=runs, metric=metrics)[0].astype(float)
            for i, run in enumerate(runs):
                if run == base:
                    continue
                for j in range(len(metrics)):
                    if _flag(sig[i, j]):
                        arrow = "up" if eff[i, j] > 0 else "down" if eff[i, j] < 0 else ""
                        cells[i][j].marks.append((_symbol(k), arrow))
        rows = runs
    else:
        sig = _take(significant, run_a=runs, run_b=runs, metric=metrics)
        eff = _take(effect, run_a=runs, run_b=runs, metric=metrics).astype(float)
        for i in range(len(runs)):
            for k in range(len(runs)):
                if i == k:
                    continue
                for j in range(len(metrics)):
                    if math.isfinite(eff[i, k, j]):  # run_a − run_b as stored
                        better = _flag(sig[i, k, j]) and eff[i, k, j] > 0
                    else:  # only the other half of the pairs is stored
                        better = _flag(sig[k, i, j]) and eff[k, i, j] < 0
                    if better:
                        cells[i][j].marks.append((_letters(k), ""))
        rows = [f"({_letters(i)}) {run}" for i, run in enumerate(runs)]
    return _Grid(rows, metrics, cells)


def _legend(result: xr.Dataset, test: str | None, ci: bool, f: _Format) -> str:
    """The legend, as a sequence of sentences, each piece escaped by ``f``."""
    mode = _mode(result)
    attrs = result.attrs
    one = _pick_test(result, test)
    chosen = str(one["test"].values) if "test" in one.coords else test
    parts = []
    topics = _topics_phrase(result)
    parts.append(f.text(f"Means over {topics}" if topics else "Means")
                 + f.text("; bold: the best mean of each measure."))
    correction = _correction_of(attrs.get("correction"))
    alpha = attrs.get("alpha")
    how = f"a two-sided {_test_name(result, chosen)}"
    inside = ""
    if chosen is not None and _is_tukey(str(chosen)):
        inside = "adjusted over all pairs of runs of each measure; "
    elif correction is not None:
        how += f" with {correction.name} over {_family_phrase(result, None)}"
    elif str(attrs.get("correction", "none")) not in _NO_CORRECTION:
        how += f" with the correction {attrs['correction']!r} over " \
               f"{_family_phrase(result, None)}"
    else:
        how += " without correction for multiple comparisons"
    tail = ([f.text(f" ({inside}"), f.alpha(), f.text(f" = {_number(alpha)})")]
            if alpha is not None else [f.text(f" ({inside[:-2]})")] if inside else [])
    if mode == "baseline":
        bases = _baselines(result)
        named = [f.text(f"{b} (") + f.marker([(_symbol(k), "")]) + f.text(")")
                 for k, b in enumerate(bases)]
        sentence = (f.text("Markers: significantly different from the baseline"
                           + ("s " if len(bases) > 1 else " "))
                    + _fjoin(named, f) + f.text(" under " + how) + "".join(tail)
                    + f.text("; ") + f.marker([("", "up")]) + f.text(" better, ")
                    + f.marker([("", "down")]) + f.text(" worse than that baseline."))
    else:
        runs = _runs(result)
        first, last = _letters(0), _letters(len(runs) - 1)
        sentence = f.text(f"Runs are labelled ({first})–({last}); the letters on a mean "
                          "name the runs it is significantly better than under "
                          + how) + "".join(tail) + f.text(".")
    parts.append(sentence)
    if ci:
        level = _ci_level(attrs)
        parts.append(f.text(f"In brackets: {level}Student t confidence intervals of the "
                           "means."))
    return " ".join(parts)


def _fjoin(pieces: list[str], f: _Format) -> str:
    if len(pieces) <= 1:
        return "".join(pieces)
    return f.text(", ").join(pieces[:-1]) + f.text(" and ") + pieces[-1]


def _ci_level(attrs) -> str:
    """ "95% " for ``alpha`` = 0.05 (the intervals are at 1 - alpha); "" when unknown."""
    try:
        alpha = float(attrs.get("alpha"))
    except (TypeError, ValueError):
        return ""
    if not 0 < alpha < 1:
        return ""
    return f"{_number(round((1 - alpha) * 100, 10))}% "


class _Format:
    """How one output format writes text, numbers, bold, markers and alpha, and the
    methods paragraph's quantities and citations."""

    dash = "–"

    def text(self, s: str) -> str:
        raise NotImplementedError

    def bold(self, s: str) -> str:
        raise NotImplementedError

    def marker(self, marks: list[tuple[str, str]]) -> str:
        raise NotImplementedError

    def cell_marker(self, marks: list[tuple[str, str]]) -> str:
        """The markers after a mean (:meth:`marker`, unless the format sets them apart
        from the digits)."""
        return self.marker(marks)

    def alpha(self) -> str:
        return self.text("α")

    def equals(self, symbol: str, value: str) -> str:
        """A quantity and its value, ``B = 10,000``."""
        return self.text(f"{symbol} = {value}")

    def cite(self, keys: list[str] | tuple[str, ...], extras: list[str]) -> str:
        """The citations of :data:`BIBLIOGRAPHY` ``keys`` and the ``extras`` (already
        written in the format) in brackets after what they are about: `` (Holm,
        Scandinavian Journal of Statistics 1979; ...)``; empty without either."""
        pieces = ([self.text(_citation(keys))] if keys else []) + extras
        return self.text(" (") + self.text("; ").join(pieces) + self.text(")") \
            if pieces else ""

    def cell(self, c: _Cell, digits: int) -> str:
        if not math.isfinite(c.mean):
            return self.dash
        s = f"{c.mean:.{digits}f}"
        s = self.bold(s) if c.bold else s
        if c.marks:
            s += self.cell_marker(c.marks)
        if c.low is not None:
            low = f"{c.low:.{digits}f}" if math.isfinite(c.low) else self.dash
            high = f"{c.high:.{digits}f}" if math.isfinite(c.high) else self.dash
            s += f" [{low}, {high}]"  # digits and dashes only: nothing to escape
        return s


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "#": r"\#",
                  "$": r"\$", "_": r"\_", "{": r"\{", "}": r"\}",
                  "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "[": "{[}", "]": "{]}", "<": r"\textless{}", ">": r"\textgreater{}",
                  "|": r"\textbar{}", "\"": r'\texttt{"}',
                  "`": r"\textasciigrave{}",
                  "–": "--", "—": "---", "α": r"$\alpha$",
                  "†": r"$\dagger$", "‡": r"$\ddagger$", "§": r"\S{}", "¶": r"\P{}",
                  "↑": r"$\uparrow$", "↓": r"$\downarrow$", "×": r"$\times$",
                  "ß": r"\ss{}", "æ": r"\ae{}", "Æ": r"\AE{}", "œ": r"\oe{}",
                  "Œ": r"\OE{}", "ø": r"\o{}", "Ø": r"\O{}", "ł": r"\l{}", "Ł": r"\L{}",
                  "ı": r"\i{}", "¡": r"\textexclamdown{}", "¿": r"\textquestiondown{}",
                  "£": r"\pounds{}", "©": r"\copyright{}", "…": r"\ldots{}",
                  "‘": "`", "’": "'", "“": "``", "”": "''", "•": r"$\bullet$",
                  "±": r"$\pm$", "·": r"$\cdot$", "÷": r"$\div$", "°": r"$^{\circ}$",
                  "≤": r"$\leq$", "≥": r"$\geq$", "≠": r"$\neq$", "∞": r"$\infty$",
                  "→": r"$\rightarrow$", "←": r"$\leftarrow$"}
"""The characters :func:`latex_escape` writes as LaTeX commands (other printable ASCII
characters are kept)."""
_LATEX_ACCENTS = {"\u0300": "`", "\u0301": "'", "\u0302": "^", "\u0303": "~",
                  "\u0304": "=", "\u0306": "u", "\u0307": ".", "\u0308": '"',
                  "\u030a": "r", "\u030b": "H", "\u030c": "v", "\u0323": "d",
                  "\u0327": "c", "\u0328": "k", "\u0331": "b"}
"""Combining accents as LaTeX's text accent commands (\\' for the acute, ...)."""
_GREEK_SMALL = {"ALPHA", "BETA", "GAMMA", "DELTA", "EPSILON", "ZETA", "ETA", "THETA", "IOTA",
                "KAPPA", "LAMBDA", "MU", "NU", "XI", "PI", "RHO", "SIGMA", "VARSIGMA", "TAU",
                "UPSILON", "PHI", "CHI", "PSI", "OMEGA"}
"""The small Greek letters with a LaTeX command (omicron is an o)."""
_GREEK_CAPITALS = {"GAMMA", "DELTA", "THETA", "LAMBDA", "XI", "PI", "SIGMA", "UPSILON",
                   "PHI", "PSI", "OMEGA"}
"""The capital Greek letters with a LaTeX command (the others look like Latin ones)."""
_GREEK_LATIN = {"ALPHA": "A", "BETA": "B", "EPSILON": "E", "ZETA": "Z", "ETA": "H",
                "IOTA": "I", "KAPPA": "K", "MU": "M", "NU": "N", "OMICRON": "O", "RHO": "P",
                "TAU": "T", "CHI": "X"}
_LATEX_MATH = {"†": r"\dagger", "‡": r"\ddagger", "§": r"\S", "¶": r"\P",
               "up": r"\uparrow", "down": r"\downarrow"}


def _latex_char(ch: str, following: str) -> str:
    """One character of :func:`latex_escape`'s text (``following``: the next one)."""
    if ch in "-'":  # "--" would join into a dash, "''" into a closing double quote
        return ch + "{}" if following == ch else ch
    if ch in _LATEX_SPECIAL:
        return _LATEX_SPECIAL[ch]
    if " " <= ch <= "~":
        return ch
    kind, _, letter = unicodedata.name(ch, "").partition(" LETTER ")
    letter = {"LAMDA": "LAMBDA", "FINAL SIGMA": "VARSIGMA"}.get(letter, letter)
    if kind == "GREEK SMALL" and letter in _GREEK_SMALL:
        return f"$\\{letter.lower()}$"
    if kind == "GREEK SMALL" and letter == "OMICRON":
        return "o"
    if kind == "GREEK CAPITAL" and letter in _GREEK_CAPITALS:
        return f"$\\{letter.capitalize()}$"
    if kind == "GREEK CAPITAL" and letter in _GREEK_LATIN:
        return _GREEK_LATIN[letter]
    base, *accents = unicodedata.normalize("NFD", ch)
    if accents and base.isascii() and base.isalpha() and all(a in _LATEX_ACCENTS
                                                              for a in accents):
        text = {"i": r"\i{}", "j": r"\j{}"}.get(base, base)
        for accent in accents:
            text = f"\\{_LATEX_ACCENTS[accent]}{{{text}}}"
        return text
    return rf"\texttt{{U+{ord(ch):04X}}}"


def latex_escape(text: str) -> str:
    """``text`` as LaTeX text that pdflatex typesets as it reads, in ASCII.

    LaTeX's special characters (``\\ & % # $ _ { } ~ ^``), brackets, ``< > | "`` and the
    backquote are written as LaTeX commands, and a ``-`` or ``'`` before another is
    parted from it (they would join into a dash or a double quote); Greek letters,
    accented Latin letters and common symbols are written as LaTeX's commands for them.
    A newline, carriage return or tab is a space; another character
    that is not printable (ESC, ...) is written as Python writes it in a string literal
    (``\\x1b``), and a character pdflatex has no command for as its code point in
    typewriter type (``U+2603``).

    Examples
    --------
    >>> print(latex_escape("run_1 & β–é"))
    run\\_1 \\& $\\beta$--\\'{e}
    """
    text = shown(str(text).replace("\n", " ").replace("\r", " ").replace("\t", " "), None)
    return "".join(_latex_char(ch, text[k + 1:k + 2]) for k, ch in enumerate(text))


class _Latex(_Format):
    dash = "--"

    def __init__(self, cite: bool = False):
        self.cite_keys = cite

    def text(self, s):
        return latex_escape(s)

    def bold(self, s):
        return rf"\textbf{{{s}}}"

    def marker(self, marks):
        parts = []
        for symbol, arrow in marks:
            if symbol:
                parts.append(_LATEX_MATH[symbol] + " " if symbol in _LATEX_MATH
                             else rf"\mathrm{{{latex_escape(symbol)}}}")
            if arrow:
                parts.append(_LATEX_MATH[arrow] + " ")
        return "$^{" + "".join(parts).rstrip() + "}$"

    def alpha(self):
        return r"$\alpha$"

    def equals(self, symbol, value):
        return f"${_LATEX_SYMBOLS.get(symbol, symbol)} = {value.replace(',', '{,}')}$"

    def cite(self, keys, extras):
        if not self.cite_keys or not keys:
            return super().cite(keys, extras)
        return (rf"~\cite{{{','.join(keys)}}}"
                + (" (" + "; ".join(extras) + ")" if extras else ""))


_LATEX_SYMBOLS = {"α": r"\alpha"}
_ARROWS = {"up": "↑", "down": "↓", "": ""}
_MARKDOWN_SPECIAL = {ch: "\\" + ch for ch in "\\`*_[]<>|#&~"}


class _Text(_Format):
    def text(self, s):
        return shown(str(s).replace("\n", " ").replace("\r", " ").replace("\t", " "), None)


class _Markdown(_Format):
    def text(self, s):
        return "".join(_MARKDOWN_SPECIAL.get(ch, ch) for ch in
                       shown(str(s).replace("\n", " ").replace("\r", " ")
                             .replace("\t", " "), None))

    def bold(self, s):
        return f"**{s}**"

    def marker(self, marks):
        return "".join(symbol + _ARROWS[arrow] for symbol, arrow in marks)

    def cell_marker(self, marks):  # superscript, so that letters do not join the digits
        return "<sup>" + self.marker(marks) + "</sup>"


class _Html(_Format):
    def text(self, s):
        return html.escape(shown(str(s).replace("\n", " ").replace("\r", " ")
                                 .replace("\t", " "), None))

    def bold(self, s):
        return f"<strong>{s}</strong>"

    def marker(self, marks):
        return ("<sup>" + html.escape("".join(symbol + _ARROWS[arrow]
                                              for symbol, arrow in marks)) + "</sup>")

    def equals(self, symbol, value):
        return f"<i>{html.escape(symbol)}</i> = {html.escape(value)}"


def _render_latex(grid: _Grid, legend: str, f: _Format, digits: int) -> str:
    spec = "l" + "r" * len(grid.columns)
    lines = [r"\begin{table}[tbp]", r"\centering", rf"\caption{{{legend}}}",
             rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join([f.text("Run")] + [f.text(c) for c in grid.columns]) + r" \\",
             r"\midrule"]
    for label, row in zip(grid.rows, grid.cells):
        lines.append(" & ".join([f.text(label)] + [f.cell(c, digits) for c in row])
                     + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def _render_markdown(grid: _Grid, legend: str, f: _Format, digits: int) -> str:
    lines = ["| " + " | ".join([f.text("Run")] + [f.text(c) for c in grid.columns]) + " |",
             "|" + "|".join([":---"] + ["---:"] * len(grid.columns)) + "|"]
    for label, row in zip(grid.rows, grid.cells):
        lines.append("| " + " | ".join([f.text(label)] + [f.cell(c, digits) for c in row])
                     + " |")
    return "\n".join(lines) + "\n\n" + legend + "\n"


def _render_html(grid: _Grid, legend: str, f: _Format, digits: int) -> str:
    lines = ["<table>", f'<caption style="caption-side: bottom">{legend}</caption>',
             "<thead>", "<tr><th scope=\"col\">" + f.text("Run") + "</th>"
             + "".join(f'<th scope="col">{f.text(c)}</th>' for c in grid.columns)
             + "</tr>", "</thead>", "<tbody>"]
    for label, row in zip(grid.rows, grid.cells):
        lines.append(f'<tr><th scope="row">{f.text(label)}</th>'
                     + "".join(f"<td>{f.cell(c, digits)}</td>" for c in row) + "</tr>")
    lines += ["</tbody>", "</table>"]
    return "\n".join(lines) + "\n"


_RENDERERS = {"latex": (_Latex, _render_latex), "markdown": (_Markdown, _render_markdown),
              "html": (_Html, _render_html)}


def table(result: xr.Dataset, format: str = "latex", *, test: str | None = None,
          ci: bool = False, digits: int = 3) -> str:
    """The paper table of a comparison: runs as rows, measures as columns, each cell the
    run's mean, the best of each column in bold, significance markers and a legend.

    Parameters
    ----------
    result : xarray.Dataset
        The result of :func:`xdiv.compare`, against baselines (dimension ``baseline``)
        or over all pairs (dimensions ``run_a``, ``run_b``).
    format : {"latex", "markdown", "html"}
        ``"latex"``: a ``table`` environment with a booktabs ``tabular``, the legend
        as its caption (needs ``\\usepackage{booktabs}``; names pdflatex has no
        command for print as code points, ``U+2603``); ``"markdown"``: a pipe table
        with the legend below, the markers in ``<sup>`` (superscript where Markdown
        allows HTML, as on GitHub); ``"html"``: a ``<table>`` with the legend as its
        ``<caption>`` (shown below the table), no external CSS or script.
    test : str, optional
        The test whose significance the markers show; by default the first of the
        result's tests.
    ci : bool
        Add each mean's confidence interval, ``0.412 [0.380, 0.444]``.
    digits : int
        Digits after the decimal point. The best of a column is found on the printed
        values, so that ties print in bold together.

    Returns
    -------
    str
        The table, ending with a newline.

    Notes
    -----
    Against baselines, each baseline has a symbol (†, ‡, §, ¶, then a, b, ...); a run's
    mean carries it when the run is significantly different from that baseline under
    the test, after the result's correction, at its ``alpha``, followed by ↑ when the
    run's mean is higher (better) and ↓ when it is lower (worse). Over all pairs, the
    runs are labelled (a), (b), ... and a mean carries the letters of the runs it is
    significantly better than. Run and measure names are escaped for the format.

    Examples
    --------
    >>> import xdiv
    >>> collection, runs = xdiv.datasets.synthetic(n_topics=20, n_runs=3, depth=20, seed=0)
    >>> scores = xdiv.evaluate(runs, collection, ["alpha-nDCG@10", "ERR-IA@10"])
    >>> result = xdiv.compare(scores, baseline="run01", correction="holm")
    >>> print(xdiv.table(result, "markdown"))
    | Run | alpha-nDCG@10 | ERR-IA@10 |
    |:---|---:|---:|
    | run01 | **0.838** | **0.698** |
    | run02 | 0.751<sup>†↓</sup> | 0.609<sup>†↓</sup> |
    | run03 | 0.545<sup>†↓</sup> | 0.408<sup>†↓</sup> |
    <BLANKLINE>
    Means over 20 topics; bold: the best mean of each measure. Markers: significantly
    different from the baseline run01 (†) under a two-sided paired t-test with Holm's
    correction over the comparisons of each measure (α = 0.05); ↑ better, ↓ worse than
    that baseline.
    <BLANKLINE>

    ``xdiv.table(result)`` writes the same table in LaTeX, for a document that loads
    booktabs: ``run02 & 0.751$^{\\dagger \\downarrow}$ & ...``.
    """
    if format not in _RENDERERS:
        raise InputError(f"format={format!r}: expected one of {sorted(_RENDERERS)}")
    if isinstance(digits, bool) or not isinstance(digits, (int, np.integer)) or digits < 0:
        raise InputError(f"digits={digits!r}: expected an integer >= 0")
    for name in ("mean", "significant", "effect"):
        if name not in result:
            raise InputError(f"the result has no variable {name!r}: expected the result "
                             "of xdiv.compare")
    style, render = _RENDERERS[format]
    f = style()
    grid = _grid(result, test, ci, int(digits))
    return render(grid, _legend(result, test, ci, f), f, int(digits))


# --------------------------------------------------------------------------------------
# The methods paragraph and the BibTeX entries
# --------------------------------------------------------------------------------------

def _topics_phrase(result: xr.Dataset) -> str:
    if "n_topics" not in result:
        return ""
    counts = sorted({int(n) for n in np.atleast_1d(result["n_topics"].values)
                     if np.isfinite(n)})
    if not counts:
        return ""
    if len(counts) == 1:
        return f"{_count(counts[0])} topic" + ("s" if counts[0] != 1 else "")
    return f"{_count(counts[0])}–{_count(counts[-1])} topics"


def _comparisons(result: xr.Dataset, test: str | None = None) -> dict[str, int]:
    """The comparisons of each measure: the unordered pairs with a defined p-value (a
    pair shown in two cells, as all pairs or two baselines, counts once)."""
    if "pvalue" not in result:
        return {}
    if _mode(result) == "baseline":
        first, second = "baseline", "run"
    else:
        first, second = "run_a", "run_b"
    # the test picked from the p-values alone (not from every variable of the result)
    p = _pick_test(result["pvalue"], test).transpose("metric", first, second)
    a_labels = [str(v) for v in p[first].values]
    b_labels = [str(v) for v in p[second].values]
    counts = {}
    for metric, block in zip(_metrics(result), p.values.astype(float)):
        pairs = {frozenset((a_labels[i], b_labels[k]))
                 for i, k in zip(*np.nonzero(np.isfinite(block)))
                 if a_labels[i] != b_labels[k]}
        counts[metric] = len(pairs)
    return counts


_FAMILIES = {"metric": "measure", "all": "all"}
"""The ``family`` attribute (:data:`xdiv.typing.COMPARE_FAMILIES`): per measure, or all
comparisons at once."""


def _family_phrase(result: xr.Dataset, counts: dict[str, int] | None) -> str:
    """'the 34 comparisons of each measure', 'all 68 comparisons', ..."""
    family = str(result.attrs.get("family", "metric"))
    kind = _FAMILIES.get(family)
    if counts:
        values = sorted(set(counts.values()))
        if kind == "measure":
            if len(values) == 1:
                return f"the {_count(values[0])} comparisons of each measure"
            return ("the comparisons of each measure ("
                    + _join([f"{_count(c)} for {m}" for m, c in counts.items()]) + ")")
        if kind == "all":
            return f"all {_count(sum(counts.values()))} comparisons"
    if kind == "measure":
        return "the comparisons of each measure"
    if kind == "all":
        return "all comparisons"
    return f"the comparisons of the family {family!r}"


def _citation(keys) -> str:
    return "; ".join(BIBLIOGRAPHY[k]["cite"] for k in keys)


def _measure_keys(metric: str) -> list[str]:
    """The :data:`BIBLIOGRAPHY` keys of a measure's registry reference, in order."""
    return list(_reference_keys(metric))


@functools.lru_cache(maxsize=1024)
def _reference_keys(metric: str) -> tuple[str, ...]:
    """:func:`_measure_keys`, remembered for each name: a table and its paragraph look
    each measure up several times, and a name the registry does not know costs a search
    for the close names its error message suggests."""
    try:
        reference = parse_measure(metric).definition.reference or ""
    except (MeasureError, ValueError):
        return ()
    found = sorted((reference.find(text), key) for text, key in MEASURE_REFERENCES.items()
                   if text in reference)
    keys: list[str] = []
    for _, key in found:
        if key not in keys:
            keys.append(key)
    return tuple(keys)


def _test_phrase(result: xr.Dataset, name: str | None, f: _Format) -> str:
    """'a two-sided paired t-test (Student, Biometrika 1908)', written by ``f``."""
    if name is None:
        return f.text("a two-sided paired test")
    known = _test_of(name)
    if known is None:
        return f.text(f"a two-sided {name} test")
    B, seed = result.attrs.get("B"), result.attrs.get("seed")
    extras = []
    if known.resampling and B is not None:
        extras.append(f.equals("B", _count(B)) + f.text(
            " resamples" + (f", seed {seed}" if seed is not None else "")))
    return f.text(f"a two-sided {known.name}") + f.cite(known.keys, extras)


def _is_tukey(name: str) -> bool:
    return _test_of(name) is _TESTS["tukey"]


_PARAGRAPH_FORMATS = {"text": _Text, "latex": _Latex, "markdown": _Markdown, "html": _Html}
"""The formats of :func:`methods_paragraph`."""


def methods_paragraph(result: xr.Dataset, format: str = "text", *, test: str | None = None,
                      ci: bool = False, measures_cited: bool = True,
                      cite: bool = False) -> str:
    """One paragraph describing the table of a comparison, for a paper's method section.

    The paragraph says what ``xdiv.table(result, format, test=test, ci=ci)`` shows, and
    nothing else: the runs and baselines, the measures and topics, the test whose
    significance the markers show and the correction, with their citations (Author,
    venue year; the entries of :func:`bibtex`), the number of comparisons of a family,
    the significance level, and with ``ci`` the confidence intervals of the means.

    Parameters
    ----------
    result : xarray.Dataset
        The result of :func:`xdiv.compare`.
    format : {"text", "latex", "markdown", "html"}
        Plain text, or the format of the table it goes with: run and measure names are
        escaped for it, and LaTeX writes the quantities in math mode
        (``$\\alpha = 0.05$``).
    test : str, optional
        The test the table shows, as :func:`table` takes it; by default the first of the
        result's tests.
    ci : bool
        The table shows each mean's confidence interval (``xdiv.table(..., ci=True)``).
    measures_cited : bool
        Cite each measure's papers (those its :func:`xdiv.registry` reference names and
        :data:`MEASURE_REFERENCES` maps) after its name.
    cite : bool
        LaTeX only: cite with ``\\cite{key}`` (the keys of :func:`bibtex`, for a
        document whose ``\\bibliography`` holds them) instead of writing the references
        out.

    Returns
    -------
    str
        The paragraph, generated from the result's coordinates and attributes (tests,
        correction, family, ``B``, ``seed``, ``alpha``).

    Raises
    ------
    InputError
        An unknown format, a test the result lacks, ``ci`` without the intervals of the
        means in the result, or ``cite`` for another format than LaTeX.

    Examples
    --------
    For a result of ``xdiv.compare(scores, baseline="MSRABASE", tests=["permutation"],
    correction="holm")`` over 17 other runs, two measures and 50 topics::

        We compared 17 runs with the baseline MSRABASE on alpha-nDCG@20 (Clarke et al.,
        SIGIR 2008; ...) and ERR-IA@20 (...), over 50 topics, with a two-sided paired
        randomisation test (Fisher, The Design of Experiments 1935; Smucker, Allan &
        Carterette, CIKM 2007; B = 10,000 resamples, seed 0) and controlled the
        family-wise error rate with Holm's method (...) over the 17 comparisons of each
        measure; differences are significant at α = 0.05.
    """
    if format not in _PARAGRAPH_FORMATS:
        raise InputError(f"format={format!r}: expected one of {sorted(_PARAGRAPH_FORMATS)}")
    if cite and format != "latex":
        raise InputError(f"cite=True writes LaTeX \\cite commands: it needs "
                         f"format='latex', not {format!r}")
    f = _Latex(cite=True) if cite else _PARAGRAPH_FORMATS[format]()
    mode = _mode(result)
    attrs = result.attrs
    names = _tests(result)
    if test is not None and str(test) not in names:
        raise InputError(f"test={test!r} is not in the result; its tests are {names}")
    chosen = str(test) if test is not None else (names[0] if names else None)
    if ci:
        missing = [v for v in ("mean_ci_low", "mean_ci_high") if v not in result]
        if missing:
            raise InputError(f"ci=True needs the variables {missing} in the result")
    runs, metrics = _runs(result), _metrics(result)
    measures = [f.text(metric) + (f.cite(_measure_keys(metric), []) if measures_cited
                                  else "") for metric in metrics]
    topics = _topics_phrase(result)
    cited = any(name != f.text(metric) for name, metric in zip(measures, metrics))
    on = f.text("on ") + _fjoin(measures, f) + (
        f.text(f", over {topics}," if cited else f" ({topics})") if topics else "")
    if mode == "baseline":
        bases = _baselines(result)
        others = [r for r in runs if r not in bases]
        who = (f"We compared {_count(len(others))} run{'s' if len(others) != 1 else ''} "
               f"with the baseline{'s' if len(bases) > 1 else ''} {_join(bases)}")
    else:
        pairs = len(runs) * (len(runs) - 1) // 2
        who = (f"We compared all {_count(pairs)} pairs of {_count(len(runs))} runs"
               if pairs != 1 else f"We compared the runs {_join(runs)}")
    sentence = f.text(who + " ") + on + f.text(" with ") + _test_phrase(result, chosen, f)
    tukey = chosen is not None and _is_tukey(chosen)
    correction_name = attrs.get("correction")
    correction = _correction_of(correction_name)
    uncorrected = str(correction_name or "none") in _NO_CORRECTION
    family = _family_phrase(result, _comparisons(result, chosen))
    if tukey:
        sentence += f.text("; the randomised Tukey HSD test controls the family-wise "
                           "error rate over all pairs of runs of each measure by itself")
    elif correction is not None:
        extras = []
        if correction.resampling and attrs.get("B") is not None:
            extras.append(f.equals("B", _count(attrs["B"])) + f.text(
                " sign flips" + (f", seed {attrs['seed']}" if attrs.get("seed") is not None
                                 else "")))
        sentence += (f.text(f" and controlled the {correction.rate} with "
                            f"{correction.method}") + f.cite(correction.keys, extras)
                     + f.text(f" over {family}"))
        if correction.resampling:
            sentence += f.text(" (on the paired t statistics, the adjusted p-value never "
                               "below the test's own)")
    elif not uncorrected:
        sentence += f.text(f" and adjusted the p-values with the correction "
                           f"{correction_name!r} over {family}")
    alpha = attrs.get("alpha")
    sentence += (f.text("; differences are significant at ")
                 + (f.equals("α", _number(alpha)) if alpha is not None
                    else f.text("the chosen level")))
    if uncorrected and not tukey:
        sentence += f.text(" without correction for multiple comparisons")
    sentences = [sentence + f.text(".")]
    if ci:
        sentences.append(f.text(f"We report {_ci_level(attrs)}Student t confidence "
                                "intervals of the mean of each run."))
    return " ".join(sentences)


def _used_keys(result: xr.Dataset, measures: bool) -> list[str]:
    keys: list[str] = []
    for name in _tests(result):
        known = _test_of(name)
        keys += list(known.keys) if known else []
    correction = _correction_of(result.attrs.get("correction"))
    if correction is not None and any(not _is_tukey(t) for t in _tests(result)):
        keys += list(correction.keys)
    if "ci_low" in result and str(result.attrs.get("ci", "")).lower() == "bca":
        keys.append("efron1987")
    if measures:
        for metric in _metrics(result):
            keys += _measure_keys(metric)
    return list(dict.fromkeys(keys))


_FIELDS = ("author", "editor", "title", "journal", "booktitle", "volume", "number",
           "pages", "publisher", "address", "year")


def _entry(key: str) -> str:
    data = BIBLIOGRAPHY[key]
    lines = [f"@{data['type']}{{{key},"]
    lines += [f"  {name} = {{{data[name]}}}," for name in _FIELDS if name in data]
    return "\n".join(lines) + "\n}"


def bibtex(result: xr.Dataset, measures: bool = True) -> str:
    """The BibTeX entries of the tests and the correction of a comparison, and of its
    measures.

    Parameters
    ----------
    result : xarray.Dataset
        The result of :func:`xdiv.compare`.
    measures : bool
        Add the papers each measure's registry reference cites (those of
        :data:`MEASURE_REFERENCES`).

    Returns
    -------
    str
        The entries, in the order the methods paragraph cites them, separated by blank
        lines (empty when nothing is cited). The data live in :data:`BIBLIOGRAPHY`.
    """
    _mode(result)
    keys = _used_keys(result, measures)
    return "\n\n".join(_entry(k) for k in keys) + ("\n" if keys else "")
