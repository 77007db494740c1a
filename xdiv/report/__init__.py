"""The self-contained HTML report of a score cube (see :mod:`xdiv.report.html`)."""

from .html import *  # noqa: F403
from .html import __all__  # noqa: F401
