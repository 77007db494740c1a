"""Numbers as the C and Perl tools whose layouts :mod:`xdiv.official` reproduces print them."""

from __future__ import annotations

import math

__all__ = ["number"]


def number(value: float, digits: int) -> str:
    """``printf("%.{digits}f", value)`` as glibc prints it; NaN (from 0/0, which sets the
    sign bit on x86) as ``-nan``."""
    return "-nan" if math.isnan(value) else f"{value:.{digits}f}"
