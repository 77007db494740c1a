"""One way to warn: :func:`warn` attributes each warning to the first frame outside the
xdiv package (the user's code), as xarray's ``emit_user_level_warning`` does, so that no
call site counts stack levels that a refactoring would silently break. The message is
shown as :func:`xdiv.errors.shown` shows text (control characters escaped, at most
:data:`xdiv.errors.MESSAGE_LIMIT` characters), whatever field it quotes."""

from __future__ import annotations

import os
import sys
import warnings

from .errors import MESSAGE_LIMIT, shown

__all__ = ["find_stack_level", "warn"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def find_stack_level() -> int:
    """The ``stacklevel`` of the innermost frame whose file lies outside the xdiv package
    (1 is the caller of :func:`warnings.warn`)."""
    frame = sys._getframe()
    level = 0
    try:
        while frame is not None:
            if not os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE + os.sep):
                return max(level, 1)
            frame = frame.f_back
            level += 1
        return max(level, 1)
    finally:
        del frame


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """Issue ``message`` as ``category``, attributed to the user's code (the message
    escaped for the terminal and bounded, see :func:`xdiv.errors.shown`)."""
    warnings.warn(shown(message, MESSAGE_LIMIT), category, stacklevel=find_stack_level())
