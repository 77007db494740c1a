"""Every file format xdiv reads or writes, and nothing else (see :mod:`xdiv.io.api`)."""

from .api import *  # noqa: F403
from .api import __all__  # noqa: F401
