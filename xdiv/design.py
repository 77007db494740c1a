"""Public alias of :mod:`xdiv.analysis.design`: ``import xdiv.design`` and ``xdiv.design`` give that module."""

import sys

from .analysis import design as _module

sys.modules[__name__] = _module
