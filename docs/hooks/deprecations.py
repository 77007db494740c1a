"""MkDocs hook: the pages' examples call nothing deprecated.

markdown-exec runs each ``python exec="on"`` block as a module named after the block
(``_code_block_...``). A ``DeprecationWarning`` attributed to such a module (xdiv's own
warnings point at the caller's line, as do numpy's, pandas' and xarray's) becomes an error,
which markdown-exec reports and ``mkdocs build --strict`` stops on: a deprecated spelling
in an example fails the build instead of being shown to readers as the way to write it.
"""

from __future__ import annotations

import warnings

CODE_BLOCKS = r"_code_block_"
"""The start of the module names markdown-exec gives the blocks it runs."""


def on_config(config):
    """Turn the examples' deprecation warnings into errors for the whole build."""
    warnings.filterwarnings("error", category=DeprecationWarning, module=CODE_BLOCKS)
    return config
