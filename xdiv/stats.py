"""Public alias of :mod:`xdiv.analysis.stats`: ``import xdiv.stats`` and ``xdiv.stats`` give that module."""

import sys

from .analysis import stats as _module

sys.modules[__name__] = _module
