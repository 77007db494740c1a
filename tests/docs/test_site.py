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
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from xdiv.cli import measures_page, parser

ROOT = Path(__file__).resolve().parents[2]
INTERNAL_NOTE = re.compile(r"seeds?[\s_-]*0\d|spec\s*§", re.IGNORECASE)
""""seed 000", "seeds 001 and 004", "seed00x", "spec §3" (not a random seed: "--seed 0")."""
BROWSERS = ("chromium", "chromium-browser", "google-chrome")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    for module in ("mkdocs", "material", "markdown_exec", "latex2mathml"):
        pytest.importorskip(module, reason="the docs site needs the docs extra")
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
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
