"""Public alias of :mod:`xdiv.analysis.repro`: ``import xdiv.repro`` and ``xdiv.repro`` give that module."""

import sys

from .analysis import repro as _module

sys.modules[__name__] = _module
