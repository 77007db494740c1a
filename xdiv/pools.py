"""Public alias of :mod:`xdiv.analysis.pools`: ``import xdiv.pools`` and ``xdiv.pools`` give that module."""

import sys

from .analysis import pools as _module

sys.modules[__name__] = _module
