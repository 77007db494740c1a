"""Public alias of :mod:`xdiv.analysis.risk`: ``import xdiv.risk`` and ``xdiv.risk`` give that module."""

import sys

from .analysis import risk as _module

sys.modules[__name__] = _module
