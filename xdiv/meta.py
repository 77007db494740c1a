"""Public alias of :mod:`xdiv.analysis.meta`: ``import xdiv.meta`` and ``xdiv.meta`` give that module."""

import sys

from .analysis import meta as _module

sys.modules[__name__] = _module
