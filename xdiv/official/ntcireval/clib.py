"""What ``ntcir_eval`` takes from the C library, as glibc does it: reading lines with
``fgets`` into its fixed buffer, splitting them with ``strtok``, and the arithmetic of
IEEE doubles where Python would raise (a division by zero, an overflowing power)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

__all__ = ["LINE_BUFFER", "LONG_RANGE", "cdiv", "cpow", "fgets_lines", "strtok"]

LINE_BUFFER = 8192
"""The most bytes one ``fgets`` call of ``ntcir_eval`` reads (its buffers hold glibc's
``BUFSIZ`` bytes and the terminating NUL)."""
LONG_RANGE = (-(2 ** 63), 2 ** 63 - 1)
"""The values of a 64-bit ``long``."""


def fgets_lines(data: bytes) -> Iterator[tuple[bytes, bool]]:
    """The lines ``ntcir_eval``'s reading loops see in ``data``: ``(text, complete)``
    for each ``fgets`` call, ``text`` being what C's string functions see (up to the
    first NUL byte) without its newline, ``complete`` false when no newline was found
    there (a line longer than the buffer, a last line without a newline, a NUL byte
    before the newline): the program then stops with "Line too long"."""
    if b"\0" not in data:  # at once, when every line fits in the buffer
        lines = data.split(b"\n")
        last = lines.pop()  # none, or a last line without newline
        if max(len(last), max(map(len, lines), default=0)) < LINE_BUFFER:
            yield from zip(lines, itertools.repeat(True))
            if last:
                yield last, False
            return
    start = 0
    while start < len(data):
        end = data.find(b"\n", start, start + LINE_BUFFER)
        chunk = data[start:start + LINE_BUFFER] if end < 0 else data[start:end + 1]
        start += len(chunk)
        text = chunk.split(b"\0", 1)[0]
        newline = text.find(b"\n")
        yield (text, False) if newline < 0 else (text[:newline], True)


def strtok(text: bytes, delimiters: bytes) -> Iterator[bytes]:
    """The tokens successive ``strtok`` calls return on ``text``: maximal runs of bytes
    none of which is in ``delimiters`` (no token at all for an empty delimiter set
    other than the whole non-empty ``text``)."""
    if not delimiters:
        return iter([text] if text else [])
    first = delimiters[:1]
    if len(delimiters) > 1:  # every delimiter made the first one
        text = text.translate(bytes.maketrans(delimiters[1:], first * (len(delimiters) - 1)))
    return iter([token for token in text.split(first) if token])


def cdiv(a: float, b: float) -> float:
    """``a / b`` as an IEEE double division on x86: infinite for a nonzero ``a`` over
    zero, the default NaN (its sign bit set) for zero over zero, ``a`` itself for a NaN
    ``a``."""
    try:
        return a / b
    except ZeroDivisionError:
        if math.isnan(a):
            return a
        if a == 0:
            return -math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


def cpow(base: float, exponent: float) -> float:
    """C's ``pow`` for the integral exponents ``ntcir_eval`` uses: an overflow gives an
    infinity (negative for a negative base and an odd exponent) instead of an error."""
    try:
        return math.pow(base, exponent)
    except OverflowError:
        odd = exponent % 2 == 1
        return -math.inf if base < 0 and odd else math.inf
    except ValueError:
        return -math.nan
