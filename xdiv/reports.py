"""Public alias of :mod:`xdiv.formats.trec_eval`: ``import xdiv.reports`` and ``xdiv.reports`` give that module."""

import sys

from .formats import trec_eval as _module

sys.modules[__name__] = _module
