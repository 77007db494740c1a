"""Public alias of :mod:`xdiv.plot.figures`: ``import xdiv.plots`` and ``xdiv.plots`` give that module."""

import sys

from .plot import figures as _module

sys.modules[__name__] = _module
