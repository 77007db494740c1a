"""Pages as headless Chromium lays them out at a given window width: where each table and
code block ends against the box that shows it, and what the page tried to fetch.

:func:`layout` writes a copy of a page with a script that measures, once the page is laid
out, every ``table`` and every ``pre`` (its ``code`` when it has one), and dumps the DOM
with the measurements in an attribute. Every host name resolves to nothing, so a page
that fetches anything from elsewhere logs a ``net::ERR`` line, which is returned too.
"""

from __future__ import annotations

import html
import json
import shutil
import subprocess
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome")

PROBE = """<script>
(function () {
  function box(el) {  // the nearest ancestor-or-self that clips or scrolls what overflows it
    for (let a = el; a && a !== document.body; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== 'visible') return a;
    }
    return null;
  }
  function describe(el) {
    const tag = el.tagName.toLowerCase();
    const head = el.querySelector('th') || el;
    return tag + (el.className ? '.' + String(el.className).split(' ')[0] : '') + ': ' +
      head.textContent.trim().slice(0, 40);
  }
  const width = document.documentElement.clientWidth;
  const items = [];
  const targets = [...document.querySelectorAll('table, pre')].map(
    el => el.tagName === 'PRE' && el.querySelector('code') ? el.querySelector('code') : el);
  for (const el of targets) {
    const shown = box(el);
    const right = el.getBoundingClientRect().right;
    const edge = shown ? shown.getBoundingClientRect().right : width;
    const spill = [...el.querySelectorAll('td, th')].filter(
      c => c.scrollWidth > c.clientWidth + 1).map(c => c.textContent.trim().slice(0, 40));
    items.push({what: describe(el), right: right, edge: edge,
                overflow: shown ? getComputedStyle(shown).overflowX : 'visible',
                scrolls: shown ? shown.scrollWidth > shown.clientWidth : false,
                spill: spill});
  }
  document.body.setAttribute('data-layout', JSON.stringify(
    {width: width, page: document.documentElement.scrollWidth, items: items}));
})();
</script>"""


def browser() -> str | None:
    """The Chromium on the path, if any."""
    return next((b for b in BROWSERS if shutil.which(b)), None)


def layout(page: Path, width: int = 1280) -> tuple[dict, list[str]]:
    """The measurements of ``page`` at a ``width``-pixel window, and the lines Chromium
    logged about requests that failed.

    The measurements are ``{"width", "page", "items"}``: the window's width, the page's
    (wider when something sticks out of the page), and per table or code block its
    ``right`` edge, the right ``edge`` of the box that shows it (the nearest ancestor that
    clips or scrolls, else the window), that box's ``overflow`` (CSS ``overflow-x``),
    whether it ``scrolls`` (content wider than the box), and the cells whose content
    ``spill`` out of them.
    """
    text = page.read_text(encoding="utf-8")
    end = text.rindex("</body>")
    probed = page.with_name(f".probe-{page.name}")
    probed.write_text(text[:end] + PROBE + text[end:], encoding="utf-8")
    try:
        run = subprocess.run(
            [browser() or "chromium", "--headless", "--no-sandbox", "--disable-gpu",
             "--hide-scrollbars", f"--window-size={width},1000",
             "--host-resolver-rules=MAP * ~NOTFOUND", "--enable-logging=stderr", "--v=0",
             "--dump-dom", probed.as_uri()],
            capture_output=True, text=True, timeout=120)
    finally:
        probed.unlink()
    marker = 'data-layout="'
    start = run.stdout.find(marker)
    if start < 0:
        raise AssertionError(f"Chromium measured nothing in {page.name}: "
                             f"{run.stderr[-1500:]}")
    raw = run.stdout[start + len(marker):run.stdout.index('"', start + len(marker))]
    failed = [line for line in run.stderr.splitlines() if "net::ERR" in line]
    return json.loads(html.unescape(raw)), failed


def hidden(measured: dict) -> list[str]:
    """What the page shows only in part: a table or code block that ends past the box
    showing it while that box clips without a scroll bar (``overflow-x: hidden`` or
    ``clip``, or the window), cells whose content spills over their neighbours, and a page
    wider than the window."""
    problems = []
    if measured["page"] > measured["width"]:
        problems.append(f"the page is {measured['page']} px wide in a "
                        f"{measured['width']} px window")
    for item in measured["items"]:
        past = item["right"] > item["edge"] + 1
        if past and item["overflow"] not in ("auto", "scroll"):
            problems.append(f"{item['what']!r} ends at {item['right']:.0f} px, past the "
                            f"{item['edge']:.0f} px of a box with overflow-x "
                            f"{item['overflow']}")
        if item["spill"]:
            problems.append(f"{item['what']!r}: cells overflow: {item['spill'][:3]}")
    return problems


def check_section_tables_fit(page: str, folder: Path, table_class: str, count: int) -> None:
    """``page`` laid out at 1280 px: it loads nothing, shows everything, and its ``count``
    tables of class ``table_class`` fit their box without a scroll bar."""
    path = folder / "report.html"
    path.write_text(page, encoding="utf-8")
    measured, failed = layout(path, 1280)
    assert not failed, failed
    assert not hidden(measured), hidden(measured)
    tables = [item for item in measured["items"]
              if item["what"].startswith(f"table.{table_class}")]
    assert len(tables) == count
    for table in tables:
        assert table["right"] <= table["edge"] + 1 and not table["scrolls"], table
