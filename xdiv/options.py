"""Process-wide settings of xdiv, changed for a block of code with :func:`set_options`.

Today these are the read limits (:class:`ReadLimits`) that every reader applies to its
input, whose defaults come from the ``XDIV_*`` environment variables.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass

from .errors import InputError

__all__ = ["LIMITS", "ReadLimits", "get_options", "set_options"]


@dataclass
class ReadLimits:
    """Bounds that hostile or damaged input files meet within seconds and megabytes.

    Attributes
    ----------
    max_line_bytes : int
        The longest line a text input (qrels, runs, probabilities, hierarchies) may hold,
        and the longest run of blank lines any input may hold: 1 MiB by default, far beyond
        any real line (``XDIV_MAX_LINE_BYTES``).
    max_gzip_ratio : float
        Decompressed size over compressed size beyond which a gzip input is refused as a
        likely decompression bomb: 100 by default, where TREC qrels and runs compress 5 to
        15 times (``XDIV_MAX_GZIP_RATIO``).
    gzip_ratio_floor : int
        Decompressed bytes below which the ratio is not checked (64 MiB by default), so
        that small, very repetitive files pass (``XDIV_GZIP_RATIO_FLOOR``).
    max_xml_bytes : int
        The largest topic or IMine XML file, decompressed: 8 MiB by default, where real
        topic files are under 1 MiB; parsing a single huge XML token takes time quadratic
        in its size, so larger files are refused up front (``XDIV_MAX_XML_BYTES``).

    The defaults can be changed for a process through the environment variables named
    above, or in Python for a block of code with :func:`set_options`
    (``with xdiv.set_options(max_xml_bytes=64 << 20): ...``).
    """

    max_line_bytes: int = 1 << 20
    max_gzip_ratio: float = 100.0
    gzip_ratio_floor: int = 64 << 20
    max_xml_bytes: int = 8 << 20

    @classmethod
    def from_environment(cls) -> ReadLimits:
        """The defaults, overridden by the ``XDIV_*`` environment variables set."""
        limits = cls()
        for name in ("max_line_bytes", "max_gzip_ratio", "gzip_ratio_floor", "max_xml_bytes"):
            text = os.environ.get(f"XDIV_{name.upper()}")
            if text is not None:
                kind = type(getattr(limits, name))
                try:
                    value = kind(text)
                except ValueError:
                    raise InputError(f"XDIV_{name.upper()}={text!r} is not a "
                                     f"{'whole ' if kind is int else ''}number") from None
                setattr(limits, name, value)
        return limits


LIMITS = ReadLimits.from_environment()
"""The :class:`ReadLimits` every reader applies."""


def get_options() -> dict:
    """The current settings, by name (see :func:`set_options`)."""
    return dataclasses.asdict(LIMITS)


def _checked(name: str, value) -> int | float:
    """``value`` for the setting ``name``, or an :class:`~xdiv.errors.InputError`."""
    if name not in _NAMES:
        raise InputError(f"{name!r} is not an xdiv option; the options are "
                         f"{', '.join(_NAMES)}")
    kind = type(getattr(ReadLimits(), name))
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            kind is int and not float(value).is_integer()):
        raise InputError(f"{name} must be a {'whole ' if kind is int else ''}number, "
                         f"not {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise InputError(f"{name} must be positive and finite, not {value!r}")
    return kind(value)


@contextlib.contextmanager
def set_options(**options) -> Iterator[dict]:
    """Change settings for the ``with`` block, restoring the previous values at its end.

    Parameters
    ----------
    **options
        Any of the :class:`ReadLimits` fields (``max_line_bytes``, ``max_gzip_ratio``,
        ``gzip_ratio_floor``, ``max_xml_bytes``), as positive numbers.

    Raises
    ------
    InputError
        An unknown option name or a value that is not a positive number (nothing is
        changed then).

    Examples
    --------
    >>> import xdiv
    >>> with xdiv.set_options(max_xml_bytes=64 << 20):
    ...     xdiv.get_options()["max_xml_bytes"]
    67108864
    >>> xdiv.get_options()["max_xml_bytes"] == 8 << 20
    True
    """
    checked = {name: _checked(name, value) for name, value in options.items()}
    previous = {name: getattr(LIMITS, name) for name in checked}
    for name, value in checked.items():
        setattr(LIMITS, name, value)
    try:
        yield get_options()
    finally:
        for name, value in previous.items():
            setattr(LIMITS, name, value)


_NAMES = tuple(field.name for field in dataclasses.fields(ReadLimits))
