"""Public alias of :mod:`xdiv.analysis.udm`: ``import xdiv.udm`` and ``xdiv.udm`` give that module."""

import sys

from .analysis import udm as _module

sys.modules[__name__] = _module
