"""MkDocs hook: typeset the pages' math at build time, as MathML.

``pymdownx.arithmatex`` (generic mode) protects ``$...$`` and ``$$...$$`` from Markdown and
emits ``<span class="arithmatex">\\(...\\)</span>`` / ``<div class="arithmatex">\\[...\\]</div>``;
this hook replaces each with the MathML ``latex2mathml`` makes of the TeX. Browsers render
MathML natively, so the built site shows its formulas with no script and no network.
"""

from __future__ import annotations

import html
import re

from latex2mathml.converter import convert
from mkdocs.exceptions import PluginError

_MATH = re.compile(r'<(span|div) class="arithmatex">\s*\\([(\[])(.*?)\\[)\]]\s*</\1>', re.S)


def on_page_content(content: str, page, config, files) -> str:
    """Replace every arithmatex span/div of the page by its MathML."""
    def typeset(match: re.Match) -> str:
        tex = html.unescape(match[3]).strip()
        display = "block" if match[2] == "[" else "inline"
        try:
            return convert(tex, display=display)
        except Exception as exc:  # latex2mathml raises many types; name the page and formula
            raise PluginError(f"{page.file.src_path}: cannot typeset ${tex}$: {exc}") from exc
    return _MATH.sub(typeset, content)
