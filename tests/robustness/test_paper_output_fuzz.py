"""Fuzz campaign of xdiv compare's paper output (issue 35): random run tags and measure
names full of hostile characters (markup, LaTeX and Markdown specials, Unicode, control
characters, newlines) through every format of the table and the methods paragraph
(LaTeX, HTML, Markdown, plain text) and the command line's terminal table.

Each rendering is checked against invariants, not against xdiv's own output:

- names reach the output only through the format's escaping: the rendering equals the
  rendering of the same result with neutral placeholders for names, each placeholder
  replaced by the escaped name;
- HTML parsed with :mod:`html.parser` holds only the template's elements and
  attributes, no comment or declaration, and shows each name as text;
- LaTeX is ASCII and every escaped name is a sequence of safe tokens (no bare
  ``\\ & % # $ _ { } ~ ^``); a sample is compiled with pdflatex;
- Markdown rows keep their number of unescaped pipes, and no ``<`` but the markers'
  ``<sup>`` is left unescaped;
- plain text is one printable line; the terminal table has one printable line a row;
- the command line (a cube with such names written to NetCDF) prints what the Python
  API renders, or a one-line error, never a traceback.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import warnings
from functools import lru_cache
from html.parser import HTMLParser

import pytest

import xdiv
from xdiv.cli import main
from xdiv.cli.compare import comparison_frame
from xdiv.errors import shown
from xdiv.formats import tables

FORMATS = ("latex", "html", "markdown", "text")
TOKENS = ["<script>", "</script>", "<b onclick=x>", "<!--", "&", "&amp;", "#", "%", "_",
          "\\input{x}", "\\", "{", "}", "^", "~", "$", "α", "β", "Ω", "é", "ï", "ß", "☃",
          "–", "--", "''", "\n", "\r\n", "\t", "\x1b[31m", "\x00", "\u202e", "'", '"', "`",
          "|", "*", "[", "]", "!", "<", ">", "@", " ", "-"]
"""Hostile pieces of a name; a name is a few of them, with letters."""


CONTROLS = {"\n", "\r\n", "\t", "\x1b[31m", "\x00", "\u202e"}


def random_name(rng: random.Random, controls: bool = True) -> str:
    tokens = TOKENS if controls else [t for t in TOKENS if t not in CONTROLS]
    pieces = [rng.choice(tokens) for _ in range(rng.randint(1, 4))]
    pieces += [rng.choice("abcxyz") * rng.randint(0, 2) for _ in range(rng.randint(0, 2))]
    rng.shuffle(pieces)
    name = "".join(pieces) + rng.choice(["", "", "1", "&"])
    # numpy's fixed-width strings, and so xarray's labels, drop a trailing NUL (xdiv's
    # readers refuse control characters in names): a NUL stays inside the name
    return name + "z" if name.endswith("\x00") else name


def random_names(rng: random.Random, k: int, controls: bool = True) -> list[str]:
    names: list[str] = []
    while len(names) < k:
        name = random_name(rng, controls)
        if name not in names and any(c not in "abcxyz1" for c in name):
            names.append(name)
    return names


# -- the results: a few computed once, renamed for each input --------------------------------

SPECS = [(2, 1, "baseline"), (3, 2, "pairs"), (3, 1, "baselines"),
         (4, 2, "baseline"), (6, 3, "pairs"), (8, 3, "baselines"), (8, 2, "pairs"),
         (8, 3, "baseline")]
"""The results renamed: (runs, measures, comparisons); the quick campaign takes the
first three."""


@lru_cache(maxsize=1)
def _scores():
    collection, runs = xdiv.datasets.synthetic(n_topics=12, n_runs=8, depth=10, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        return xdiv.evaluate(runs, collection, ["alpha-nDCG@10", "ERR-IA@10", "I-rec@10"])


@lru_cache(maxsize=None)
def _base(index: int):
    """The result of xdiv.compare of :data:`SPECS` ``[index]``: against one baseline
    (paired t-tests, Holm), two (randomisation tests, MaxT) or over all pairs (Tukey's
    HSD and t-tests, uncorrected)."""
    n_runs, n_metrics, kind = SPECS[index]
    scores = _scores()
    names = [str(r) for r in scores["run"].values][:n_runs]
    cube = scores.sel(run=names, metric=[str(m) for m in scores["metric"].values][:n_metrics])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        if kind == "baseline":
            return xdiv.compare(cube, baseline=names[0], tests=("t",), correction="holm")
        if kind == "baselines":
            return xdiv.compare(cube, baseline=names[:2], tests=("permutation",), B=100,
                                correction="maxt")
        return xdiv.compare(cube, tests=("tukey", "t"), B=100, correction=None)


def _names_of(result) -> tuple[list[str], list[str]]:
    runs = [str(r) for r in result["run"].values]
    return runs, [str(m) for m in result["metric"].values]


def renamed(result, runs: list[str], metrics: list[str]):
    """``result`` with its runs and measures called ``runs`` and ``metrics``."""
    old_runs, old_metrics = _names_of(result)
    run_of = dict(zip(old_runs, runs))
    coords = {dim: [run_of[str(v)] for v in result[dim].values]
              for dim in ("run", "baseline", "run_a", "run_b") if dim in result.coords}
    coords["metric"] = metrics
    out = result.assign_coords(coords)
    if "baseline" in result.coords:
        out.attrs = {**out.attrs, "baseline": json.dumps(coords["baseline"])}
    return out


def placeholders(k: int, start: int = 0) -> list[str]:
    return [f"zqzq{i}zqzq" for i in range(start, start + k)]


def render(result, fmt: str, ci: bool, cite: bool) -> str:
    paragraph = tables.methods_paragraph(result, fmt, ci=ci, cite=cite)
    if fmt == "text":
        return paragraph
    return tables.table(result, fmt, ci=ci) + "\n" + paragraph + "\n"


@lru_cache(maxsize=None)
def template(index: int, fmt: str, ci: bool, cite: bool) -> str:
    base = _base(index)
    runs, metrics = _names_of(base)
    return render(renamed(base, placeholders(len(runs)),
                          placeholders(len(metrics), len(runs))), fmt, ci, cite)


ESCAPES = {"latex": tables.latex_escape, "html": tables._Html().text,
           "markdown": tables._Markdown().text, "text": tables._Text().text}


def expected(index: int, fmt: str, ci: bool, cite: bool, names: list[str]) -> str:
    text = template(index, fmt, ci, cite)
    for holder, name in zip(placeholders(len(names)), names):
        text = text.replace(holder, ESCAPES[fmt](name))
    return text


# -- the invariants of each format -----------------------------------------------------------

def display(name: str) -> str:
    """A name as every format shows it: whitespace controls as spaces, other unprintable
    characters as Python escapes."""
    return shown(name.replace("\n", " ").replace("\r", " ").replace("\t", " "), None)


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs, self.others, self.data = set(), set(), [], []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attrs.update((tag, name) for name, _ in attrs)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_data(self, data):
        self.data.append(data)

    def handle_comment(self, data):
        self.others.append(("comment", data))

    def handle_decl(self, decl):
        self.others.append(("decl", decl))

    def handle_pi(self, data):
        self.others.append(("pi", data))

    def unknown_decl(self, data):
        self.others.append(("unknown", data))


HTML_TAGS = {"table", "caption", "thead", "tbody", "tr", "th", "td", "strong", "sup", "i"}
HTML_ATTRS = {("caption", "style"), ("th", "scope")}


def check_html(text: str, names: list[str]) -> None:
    parser = _Collector()
    parser.feed(text)
    parser.close()
    assert parser.tags <= HTML_TAGS, parser.tags - HTML_TAGS
    assert parser.attrs <= HTML_ATTRS, parser.attrs - HTML_ATTRS
    assert not parser.others, parser.others
    shown_text = "".join(parser.data)
    for name in names:
        assert display(name) in shown_text, name


_LATEX_TOKEN = re.compile(
    r"[A-Za-z0-9 !()*+,./:;=?@]|-(?:\{\})?|'(?:\{\})?|``?|''"
    r"|\\[&%#$_{}]|\{[\[\]]\}|\\text[a-z]+\{\}|\\texttt\{(?:U\+[0-9A-F]{4,6}|\")\}"
    r"|\$\\[A-Za-z]+\$|\$\^\{\\circ\}\$|\\(?:S|P|ss|ae|AE|oe|OE|o|O|l|L|i|pounds|copyright"
    r"|ldots)\{\}|(?:\\[`'^\"~=.uvHcdbrk]\{)+(?:[A-Za-z]|\\[ij]\{\})\}+")
"""One token of an escaped name: a safe ASCII character, or a LaTeX command whose braces
close in it."""


def check_latex_name(escaped: str) -> None:
    assert escaped.isascii(), escaped
    position = 0
    while position < len(escaped):
        match = _LATEX_TOKEN.match(escaped, position)
        assert match is not None, (escaped, escaped[position:])
        position = match.end()
    assert escaped.count("{") - escaped.count("\\{") == escaped.count("}") - \
        escaped.count("\\}"), escaped


def check_latex(text: str, names: list[str]) -> None:
    assert text.isascii()
    for name in names:
        check_latex_name(tables.latex_escape(name))


def _unescaped(line: str, char: str) -> int:
    """How many times ``char`` occurs in ``line`` not escaped by a backslash."""
    count, k = 0, 0
    while k < len(line):
        if line[k] == "\\":
            k += 2
            continue
        count += line[k] == char
        k += 1
    return count


def check_markdown(text: str, n_columns: int, n_rows: int) -> None:
    table, legend, paragraph = text.rstrip("\n").split("\n\n")
    lines = table.split("\n")
    assert len(lines) == 2 + n_rows
    for line in lines:
        assert _unescaped(line, "|") == n_columns + 2, line
    for part in (table, legend, paragraph):
        assert _unescaped(part.replace("<sup>", "").replace("</sup>", ""), "<") == 0
    assert "\n" not in legend and "\n" not in paragraph


def check_text(text: str) -> None:
    assert text.isprintable(), text


def check_one(index: int, result, names: list[str], fmt: str, ci: bool, cite: bool) -> str:
    """``result``, the result of :data:`SPECS` ``[index]`` renamed ``names``, in ``fmt``."""
    runs, metrics = _names_of(result)
    text = render(result, fmt, ci, cite)
    assert text == expected(index, fmt, ci, cite, names)
    if fmt == "latex":
        check_latex(text, names)
    elif fmt == "html":
        check_html(text, names)
    elif fmt == "markdown":
        check_markdown(text, len(metrics), len(runs))
    else:
        check_text(text)
    return text


# -- LaTeX compiled --------------------------------------------------------------------------

def compile_latex(folder, bodies: list[str]) -> None:
    """pdflatex on a document holding ``bodies`` (tables and paragraphs): no error.
    Citations stay undefined (no bibtex run): they are warnings, not errors."""
    (folder / "fuzz.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
        + "\n\\clearpage\n".join(bodies) + "\n\\end{document}\n", encoding="ascii")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                           "fuzz.tex"], cwd=folder, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stdout[-3000:]


# -- the command line ------------------------------------------------------------------------

def check_command_line(folder, rng: random.Random, capsys) -> None:
    """A cube with hostile run and measure names, through ``xdiv compare``'s formats:
    what the Python API renders; the terminal table one printable line a comparison.
    A name with a control character, or blank, is refused when the cube is read, in
    one line.
    (No NUL here: NetCDF keeps a name up to its NUL, which xdiv.to_netcdf does not
    refuse; the API campaign covers NUL.)"""
    collection, runs = xdiv.datasets.synthetic(n_topics=8, n_runs=3, depth=10,
                                               seed=rng.randrange(1000))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        scores = xdiv.evaluate(runs, collection, ["alpha-nDCG@10", "ERR-IA@10"])
    controls = rng.random() < 0.25
    names = [name.replace("\x00", "\x07") for name in random_names(rng, 5, controls)]
    scores = scores.assign_coords(run=names[:3], metric=names[3:])
    path = folder / "hostile.nc"
    xdiv.to_netcdf(scores, path)
    baseline = rng.choice([None, names[0]])
    options = ["--baseline", baseline] if baseline is not None else []
    if any(c in name for name in names for c in "\n\r\t\x1b\x07\u202e") \
            or any(not name.strip() for name in names):
        assert main(["compare", str(path), *options, "--format", "latex"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("xdiv: error: ") and err.count("\n") == 1, err
        assert "control character" in err or "is empty" in err
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        result = xdiv.compare(xdiv.open_dataset(path), baseline=baseline, tests=("t",))
    for fmt in ("latex", "html", "markdown", "table"):
        argv = ["-q", "compare", str(path), *options, "--format", fmt]
        argv += ["--methods"] if fmt != "table" else []
        status = main(argv)
        out, err = capsys.readouterr()
        assert status == 0, err
        assert "Traceback" not in err
        if fmt == "table":
            lines = out.rstrip("\n").split("\n")
            assert len(lines) == len(comparison_frame(result)) + 2
            assert all(line.isprintable() for line in lines)
        else:
            assert out == tables.table(result, fmt) + "\n" + \
                tables.methods_paragraph(result, fmt) + "\n"


# -- the campaigns ---------------------------------------------------------------------------

def campaign(seed: int, n_results: int, n_specs: int, n_compiled: int, per_document: int,
             folder, capsys, n_command_lines: int) -> int:
    """``n_results`` results of the first ``n_specs`` :data:`SPECS`, renamed, through
    every format; returns the number of names checked."""
    rng = random.Random(seed)
    latex_pool: list[str] = []
    checked = 0
    for _ in range(n_results):
        index = rng.randrange(n_specs)
        runs, metrics = _names_of(_base(index))
        names = random_names(rng, len(runs) + len(metrics))
        ci, cite = rng.random() < 0.5, rng.random() < 0.5
        result = renamed(_base(index), names[:len(runs)], names[len(runs):])  # once a name set
        for fmt in FORMATS:
            text = check_one(index, result, names, fmt, ci, cite and fmt == "latex")
            if fmt == "latex":
                latex_pool.append(text)
        checked += len(names)
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None and n_compiled:
        pytest.skip("pdflatex is not installed (apt-get install texlive-latex-recommended)")
    sample = rng.sample(latex_pool, min(len(latex_pool), n_compiled * per_document))
    for k in range(n_compiled):
        compile_latex(folder, sample[k * per_document:(k + 1) * per_document])
    for _ in range(n_command_lines):
        check_command_line(folder, rng, capsys)
    return checked


def test_paper_output_fuzz_quick(tmp_path, capsys):
    """A few seconds: 10 small results (about 40 names) through the four formats, one
    document of 4 tables compiled, one cube through the command line."""
    checked = campaign(seed=1, n_results=10, n_specs=3, n_compiled=1, per_document=4,
                       folder=tmp_path, capsys=capsys, n_command_lines=1)
    assert checked >= 30


@pytest.mark.slow
def test_paper_output_fuzz_slow(tmp_path, capsys):
    """430 results of 3 to 11 names, 3,000 or more hostile names in all, each through the
    four formats (1,720 renderings); 120 tables and paragraphs compiled with pdflatex
    in 5 documents (a run of pdflatex costs mostly its start); 10 cubes through the
    command line's four formats."""
    checked = campaign(seed=2, n_results=430, n_specs=len(SPECS), n_compiled=5,
                       per_document=24, folder=tmp_path, capsys=capsys, n_command_lines=10)
    assert checked >= 3000
