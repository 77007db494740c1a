"""Public alias of :mod:`xdiv.formats.ndeval`: ``import xdiv.official`` and ``xdiv.official`` give that module."""

import sys

from .formats import ndeval as _module

sys.modules[__name__] = _module
