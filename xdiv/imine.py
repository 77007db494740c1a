"""Public alias of :mod:`xdiv.io.imine`: ``import xdiv.imine`` and ``xdiv.imine`` give that module."""

import sys

from .io import imine as _module

sys.modules[__name__] = _module
