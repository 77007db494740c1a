"""The docs site as a reader sees it, offline.

The site is built once per session (``mkdocs build --strict`` into a temporary folder) and
its HTML is checked: diagrams are SVG drawn at build time and formulas MathML typeset at
build time (nothing to fetch when the page is viewed), no output box is empty, and neither
the pages nor any ``xdiv ... --help`` mention the internal notes a reader has never seen
("seed 000", "spec §3"). Where Chromium is installed, the data-model page and the measure
reference are also rendered to PNG screenshots. Skipped without the ``docs`` extra.
"""

from __future__ import annotations

import argparse
import html
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from xdiv.cli import measures_page, parser

from ..browser import browser, hidden, layout
from ..conftest import built_once

ROOT = Path(__file__).resolve().parents[2]
INTERNAL_NOTE = re.compile(r"seeds?[\s_-]*0\d|spec\s*§", re.IGNORECASE)
""""seed 000", "seeds 001 and 004", "seed00x", "spec §3" (not a random seed: "--seed 0")."""
BROWSERS = ("chromium", "chromium-browser", "google-chrome")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site built once per test session (``mkdocs build --strict``), whichever
    pytest-xdist workers run the tests that read it."""
    for module in ("mkdocs", "material", "markdown_exec", "latex2mathml"):
        pytest.importorskip(module, reason="the docs site needs the docs extra")
    return built_once(tmp_path_factory, "docs-site", _build_site)


def _build_site(folder: Path) -> Path:
    out = folder / "site"
    # the examples' scratch folders go to a temporary folder of this build's own: another
    # build at the same time (another checkout's tests) cannot remove them under it
    scratch = folder / "scratch"
    scratch.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=1200,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "TMPDIR": str(scratch)})
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stderr[-5000:]}"
    return out


def _page(site: Path, name: str) -> str:
    return (site / f"{name}.html").read_text(encoding="utf-8")


def _text(fragment: str) -> str:
    """The visible text of an HTML fragment."""
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def test_data_model_diagram_is_svg_drawn_at_build_time(site):
    page = _page(site, "data-model")
    svgs = re.findall(r"<svg\b.*?</svg>", page, re.S)
    diagram = next((svg for svg in svgs if "Judged cube" in svg), None)
    assert diagram is not None, "no SVG diagram of the data flow"
    assert len(re.findall(r"<rect\b", diagram)) >= 8 and len(re.findall(r"<line\b", diagram)) >= 7
    for box in ("Collection", "Runs", "Scores", "Summary", "Concordance"):
        assert f">{box}</text>" in diagram
    assert "flowchart" not in page and "mermaid" not in page.lower()


def test_measure_reference_formulas_are_typeset_mathml(site):
    page = _page(site, "measures")
    maths = re.findall(r"<math\b.*?</math>", page, re.S)
    assert len(maths) > 100
    assert any('display="block"' in m for m in maths)
    assert any("<mfrac>" in m for m in maths)
    prose = _text(re.sub(r"<math\b.*?</math>", "", page, flags=re.S))
    for leftover in (r"\frac", r"\sum", "$", "sum_{", "r<=l"):
        assert leftover not in prose, (f"untypeset formula text {leftover!r} in the measure "
                                       "page: give the measure a TeX formula= on its "
                                       "declaration in xdiv/measures/<family>.py")


def _pages(site: Path) -> Iterator[tuple[str, str]]:
    for path in sorted(site.rglob("*.html")):
        yield str(path.relative_to(site)), path.read_text(encoding="utf-8")


def test_every_formula_of_the_site_is_typeset(site):
    for name, page in _pages(site):
        assert 'class="arithmatex"' not in page, f"{name}: math left for a script to render"
        assert "mathjax" not in page.lower() and "katex" not in page.lower(), name


def test_links_open_pages_from_disk(site):
    """Opened from disk (file://), a link to a folder shows a directory listing, not its
    page: every relative link of the site names a file (``use_directory_urls: false``)."""
    for name, page in _pages(site):
        if name == "404.html":  # served, never opened from disk: its links are absolute
            continue
        folder = (site / name).parent
        for href in re.findall(r'href="([^"]*)"', page):
            target = html.unescape(href).split("#")[0].split("?")[0]
            if not target or re.match(r"[a-z][a-z0-9+.-]*:|//", target):
                continue  # an anchor of the page, or another site
            assert (folder / target).is_file(), f"{name}: {href} opens no file"


def test_no_page_has_an_empty_output_block(site):
    for name, page in _pages(site):
        for block in re.findall(r"<pre\b[^>]*>(.*?)</pre>", page, re.S):
            assert _text(block).strip(), f"{name}: an empty code/output block"


def test_built_docs_hold_no_internal_notes(site):
    files = [site / "search" / "search_index.json", *sorted(site.rglob("*.html"))]
    for path in files:
        match = INTERNAL_NOTE.search(html.unescape(path.read_text(encoding="utf-8")))
        assert match is None, f"{path.relative_to(site)}: {match[0]!r}"


def _subcommands(command: argparse.ArgumentParser,
                 path: tuple[str, ...] = ("xdiv",)) -> Iterator[tuple[str, str]]:
    yield " ".join(path), command.format_help()
    for action in command._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _subcommands(sub, (*path, name))


def test_help_texts_and_measure_reference_hold_no_internal_notes():
    helps = dict(_subcommands(parser()))
    assert {"xdiv", "xdiv evaluate", "xdiv plot", "xdiv measures"} <= set(helps)
    for command, text in [*helps.items(), ("xdiv measures", measures_page())]:
        match = INTERNAL_NOTE.search(text)
        assert match is None, f"{command}: {match[0]!r}"


def test_internal_note_pattern():
    for note in ("seed 000", "Seed 004's", "seeds 000-004", "seed00x", "seed002", "spec §3",
                 "SPEC §5"):
        assert INTERNAL_NOTE.search(note), note
    for fine in ("--seed 0", "seed=0", "seeded", "seed 7", "specification"):
        assert not INTERNAL_NOTE.search(fine), fine


@pytest.mark.parametrize("name", ["data-model", "measures"])
def test_pages_render_in_chromium(site, tmp_path, name):
    browser = next((b for b in BROWSERS if shutil.which(b)), None)
    if browser is None:
        pytest.skip("no Chromium to render the pages")
    image = pytest.importorskip("PIL.Image")
    shot = tmp_path / f"{name}.png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                    f"--screenshot={shot}", "--window-size=1280,2000",
                    (site / f"{name}.html").as_uri()],
                   capture_output=True, timeout=180, check=False)
    assert shot.exists(), f"Chromium wrote no screenshot of {name}"
    with image.open(shot) as png:
        assert png.size == (1280, 2000)
        grey = png.convert("L")
        low, high = grey.getextrema()
        assert high - low > 150, "a blank screenshot"
        assert len(grey.getcolors()) > 50, "a screenshot of a few flat colours"


EXTERNAL = re.compile(
    r"""<(?:link|script|img|iframe|source|video|audio)\b[^>]*\b(?:href|src|srcset)\s*=\s*"""
    r"""["']?(?:https?:)?//|@import\s+(?:url\()?\s*["']?(?:https?:)?//"""
    r"""|url\(\s*["']?(?:https?:)?//""", re.IGNORECASE)
"""A stylesheet, script, font, image or frame loaded from another site (links to other
sites, which a reader follows or not, are no such load)."""


def test_the_built_site_loads_nothing_from_elsewhere(site):
    """The site works offline, as the README says: no web fonts (the theme's Google Fonts
    are off), no script, stylesheet or image from another site, in any page or style
    sheet."""
    files = [*sorted(site.rglob("*.html")), *sorted(site.rglob("*.css"))]
    assert len(files) > 20
    for path in files:
        match = EXTERNAL.search(path.read_text(encoding="utf-8"))
        assert match is None, f"{path.relative_to(site)}: loads {match[0]!r}"


def test_external_load_pattern():
    for load in ('<link href="https://fonts.googleapis.com/css?family=Roboto" rel="stylesheet">',
                 '<link rel="preconnect" href="https://fonts.gstatic.com" crossorigin>',
                 '<script src="//cdn.example.org/mathjax.js"></script>',
                 "@import url(https://fonts.googleapis.com/x);",
                 "src: url('https://example.org/f.woff2')"):
        assert EXTERNAL.search(load), load
    for fine in ('<a href="https://trec.nist.gov/">TREC</a>', '<link href="assets/a.css">',
                 '<script src="assets/javascripts/bundle.js"></script>'):
        assert not EXTERNAL.search(fine), fine


WIDEST = ["measures", "cli", "coming-from", "conventions", "reproduction-2009"]
"""The pages with the widest tables (the measure reference's formulas, the translation
tables) and code blocks (the command line's)."""


@pytest.mark.parametrize("name", WIDEST)
def test_wide_tables_and_code_blocks_show_every_column_at_1280_px(site, name):
    """At 1280 px, every table and code block of the page fits its box or scrolls in it
    (a scroll bar, not a cut), no cell's content spills over the next, and the page
    fetches nothing from elsewhere (every host name resolves to nothing here)."""
    if browser() is None:
        pytest.skip("no Chromium to lay the pages out")
    measured, failed = layout(site / f"{name}.html", 1280)
    assert measured["items"], f"{name}: no table or code block measured"
    assert not hidden(measured), hidden(measured)
    assert not failed, failed


def test_an_example_calling_a_deprecated_name_fails_the_build(tmp_path):
    """docs/hooks/deprecations.py: a deprecation warning raised by an example of a page
    stops ``mkdocs build --strict`` (the site's examples show current spellings only)."""
    for module in ("mkdocs", "markdown_exec"):
        pytest.importorskip(module, reason="the docs site needs the docs extra")
    (tmp_path / "docs").mkdir()
    hook = ROOT / "docs" / "hooks" / "deprecations.py"
    (tmp_path / "mkdocs.yml").write_text(
        f"site_name: t\nhooks:\n  - {hook}\nplugins:\n  - markdown-exec\n"
        "markdown_extensions:\n  - pymdownx.superfences\n")
    (tmp_path / "docs" / "index.md").write_text(
        '# t\n\n```python exec="on" result="text"\nimport xdiv\n'
        "col, runs = xdiv.datasets.synthetic(n_topics=6, n_runs=3, depth=5, seed=1)\n"
        'scores = xdiv.evaluate(runs, col, ["P@5"])\n'
        "print(xdiv.design.swap_rates(scores, replicates=20, seed=0).sizes)\n```\n")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
         str(tmp_path / "site")], cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1",
             "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])})
    assert proc.returncode != 0
    assert "DeprecationWarning: swap_rates(replicates=...) is now swap_rates(B=...)" in \
        proc.stderr


SHELL_COMMANDS = [
    "xdiv --version",
    "xdiv evaluate --help | head -n 4",
    "COLUMNS=50 xdiv verify --help",
    'cd sub && xdiv evaluate ../qrels.txt absent.txt -m P@10; echo "status $?"',
    "printf '1 Q0 d1 1 high r\\n' | xdiv evaluate qrels.txt - -m P@10; echo \"status $?\"",
    'xdiv -q evaluate qrels.txt run.txt -m P@10 alpha-nDCG@5 --format lines | head -n 1',
    'xdiv evaluate qrels.txt run.txt -m no-such-measure 2>&1 >/dev/null; echo "status $?"',
    "xdiv no-such-command",
]
"""Shell lines like the pages': pipes, standard input, another folder, the environment,
errors and exit statuses."""


def test_the_build_s_xdiv_prints_and_ends_as_the_console_script(tmp_path):
    """docs/hooks/commands.py: while the site builds, ``xdiv`` in the examples' shells is a
    client of a server that forks a process for each command; each prints the same bytes
    on the same streams and ends with the same status as the installed ``xdiv``."""
    pytest.importorskip("mkdocs", reason="the docs site needs the docs extra")
    installed = shutil.which("xdiv")
    if installed is None or not hasattr(os, "fork"):
        pytest.skip("no installed xdiv console script, or no fork")
    spec = importlib.util.spec_from_file_location("commands_hook",
                                                  ROOT / "docs" / "hooks" / "commands.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    (tmp_path / "sub").mkdir()
    (tmp_path / "qrels.txt").write_text("1 1 d1 1\n1 2 d2 1\n")
    (tmp_path / "run.txt").write_text("1 Q0 d1 1 2.0 r\n1 Q0 d3 2 1.0 r\n")

    def shell(line: str) -> tuple[bytes, bytes, int]:
        done = subprocess.run(["sh", "-c", line], cwd=tmp_path, capture_output=True,
                              timeout=300)
        return done.stdout, done.stderr, done.returncode

    expected = [shell(line) for line in SHELL_COMMANDS]
    hook.on_pre_build(None)
    try:
        assert shutil.which("xdiv") not in (None, installed), "the server did not start"
        made = [shell(line) for line in SHELL_COMMANDS]
    finally:
        hook.on_post_build(None)
    assert shutil.which("xdiv") == installed
    for line, want, got in zip(SHELL_COMMANDS, expected, made):
        assert got == want, line
    assert expected[3][0].endswith(b"status 2\n") and expected[0][0].startswith(b"xdiv ")


def test_the_build_reads_each_run_set_once_and_gives_what_a_new_read_gives(tmp_path):
    """docs/hooks/reads.py: while the site builds, a second ``read_runs`` of the same
    files with the same arguments gets a copy of the first one's dataset, identical to a
    new read (values, coordinates, attributes with the provenance record), with the same
    warnings at the calling line; a changed file, other arguments or ``chunks=`` read
    anew, and a page changing its copy changes no other page's."""
    import warnings

    import xdiv
    from xdiv.io import runfiles

    spec = importlib.util.spec_from_file_location("reads_hook",
                                                  ROOT / "docs" / "hooks" / "reads.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    paths = xdiv.datasets.write_synthetic(tmp_path, n_topics=4, n_runs=3, depth=6,
                                          seed=3)["runs"]
    # ranks that contradict the scores: read_runs warns
    (tmp_path / "runs" / "odd.txt").write_text("1 Q0 d1 1 1.0 odd\n1 Q0 d2 2 2.0 odd\n")
    paths.append(str(tmp_path / "runs" / "odd.txt"))
    reads = []

    def counted(*args, **kwargs):
        reads.append(args)
        return runfiles.read_runs(*args, **kwargs)

    read = hook.keeping(counted)

    def warned(call):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = call()
        return result, [(w.category, str(w.message), w.filename, w.lineno) for w in caught]

    fresh, fresh_warnings = warned(lambda: runfiles.read_runs(paths, order="rank"))
    try:
        for _ in range(3):
            kept, kept_warnings = warned(lambda: read(paths, order="rank"))
            assert kept.identical(fresh) and kept.attrs == fresh.attrs
            assert [w[:2] for w in kept_warnings] == [w[:2] for w in fresh_warnings]
            assert fresh_warnings and all(w[2] == __file__ for w in kept_warnings)
            kept["score"][:] = -1  # changes this copy only
        assert len(reads) == 1
        warned(lambda: read(paths))  # another order
        warned(lambda: read(paths, order="rank", chunks={"run": 2}))
        assert len(reads) == 3
        os.utime(paths[0], ns=(1, 1))
        assert warned(lambda: read(paths, order="rank"))[0].identical(fresh)
        assert len(reads) == 4
    finally:
        hook.on_post_build(None)
    assert not hook._kept
