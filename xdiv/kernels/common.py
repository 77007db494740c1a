"""Shared numpy building blocks: gains, discounts, ideal lists, cumulative counts.

Conventions of every kernel in :mod:`xdiv.kernels`: arrays carry the ranked-list axis
*last* (``(..., rank)``), levels are non-negative integers, ranks are 1-based in the
formulas and 0-based in the arrays. Leading axes (run, topic, intent, ...) broadcast.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def rank_sum(values: np.ndarray) -> np.ndarray:
    """Sum over the last (rank) axis, adding the ranks in order.

    numpy's ``sum`` adds pairwise, in groups that depend on the axis length, so the same
    ranked list padded to another depth (evaluated beside a longer run) could sum to a
    different last bit. Added in order, trailing zeros leave the sum unchanged: a run's
    score is the same bits whichever runs it is evaluated with.
    """
    if values.shape[-1] == 0:
        return np.zeros(values.shape[:-1])
    return np.cumsum(values, axis=-1)[..., -1]


def gain_table(gain: str | Sequence[float], highest: int) -> np.ndarray:
    """Gain value of each level ``0..highest`` as a lookup table.

    Parameters
    ----------
    gain : {"exp", "linear"} or sequence of float
        ``"exp"``: ``gv(x) = 2^x - 1``; ``"linear"``: ``gv(x) = x``; a sequence gives the
        gains of levels ``1, 2, ...`` explicitly (level 0 always has gain 0); entries
        beyond ``highest`` are not used, and a sequence shorter than ``highest`` is an
        error raised by the caller's validation.
    highest : int
        H, the highest level that may occur.
    """
    levels = np.arange(highest + 1, dtype=np.float64)
    if isinstance(gain, str):
        if gain == "exp":
            return np.exp2(levels) - 1.0
        if gain == "linear":
            return levels
        raise ValueError(f"unknown gain {gain!r}")
    values = np.asarray(gain, dtype=np.float64)[:highest]
    table = np.zeros(highest + 1)
    table[1:len(values) + 1] = values
    return table


def lookup(table: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """``table[levels]`` with levels above the table's top clipped to its last entry."""
    return table[np.minimum(levels, len(table) - 1)]


def highest_gain(table: np.ndarray, ideal: np.ndarray, own: bool) -> np.ndarray:
    """The gain of the highest level, ``(...)``, by which ERR's stop probability
    ``gv(x) / (gv_max + 1)`` and RBP divide: ``table[-1]``, level H's, or with ``own`` the
    gain of the list's own highest level (``ideal[..., 0]``, 0 on a list without one), as
    NTCIREVAL's ``gcompute`` reads each intent's ideal list."""
    if not own:
        return np.full(ideal.shape[:-1], table[-1])
    if ideal.shape[-1] == 0:
        return np.zeros(ideal.shape[:-1])
    return lookup(table, ideal[..., 0])


def discount(n: int) -> np.ndarray:
    """``1 / log2(r + 1)`` for ranks ``r = 1..n`` (the discount of every nDCG-like measure here)."""
    return 1.0 / np.log2(np.arange(2, n + 2, dtype=np.float64))


def ranks(n: int) -> np.ndarray:
    """The 1-based ranks ``1..n`` as floats."""
    return np.arange(1, n + 1, dtype=np.float64)


def fit(values: np.ndarray, n: int) -> np.ndarray:
    """Truncate or zero-pad the last axis of ``values`` to length ``n``."""
    k = values.shape[-1]
    if k >= n:
        return values[..., :n]
    out = np.zeros((*values.shape[:-1], n), dtype=values.dtype)
    out[..., :k] = values
    return out


def cut(values: np.ndarray, cutoff: int | None) -> np.ndarray:
    """The top ``cutoff`` ranks of ``values`` (all of them when ``cutoff`` is None)."""
    return values if cutoff is None else values[..., :cutoff]


def ideal_levels(levels: np.ndarray) -> np.ndarray:
    """Levels sorted in descending order along the last axis (an ideal ranked list)."""
    return -np.sort(-levels.astype(np.int16), axis=-1).astype(levels.dtype)


def count_relevant(ideal: np.ndarray) -> np.ndarray:
    """R: the number of relevant (level > 0) entries of a list."""
    return (ideal > 0).sum(axis=-1)


def exclusive_cumprod(values: np.ndarray) -> np.ndarray:
    """``prod_{k < r} values[k]`` for each r (1 at the first rank)."""
    out = np.cumprod(values, axis=-1)
    shifted = np.empty_like(out)
    shifted[..., :1] = 1
    shifted[..., 1:] = out[..., :-1]
    return shifted


def divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` with NaN (not a warning) where the denominator is 0."""
    numerator, denominator = np.broadcast_arrays(numerator, denominator)
    out = np.full(numerator.shape, np.nan)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def defined_where(values: np.ndarray, relevant_count: np.ndarray) -> np.ndarray:
    """``values`` where the list has relevant documents (R > 0), NaN elsewhere."""
    return np.where(relevant_count > 0, values, np.nan)


def intent_aware(values: np.ndarray, probability: np.ndarray, valid: np.ndarray,
                 decimals: int | None = None) -> np.ndarray:
    """``sum_i Pr(i|q) M_i`` over the valid intents (last axis); NaN if none is valid.
    With ``decimals``, each ``M_i`` as :func:`printed` gives it."""
    values = printed(values, decimals)
    weighted = np.where(valid, probability * np.where(valid, values, 0.0), 0.0)
    return np.where(valid.any(axis=-1), weighted.sum(axis=-1), np.nan)


def printed(values: np.ndarray, decimals: int | None) -> np.ndarray:
    """``values`` as C's ``printf("%.<decimals>f")`` writes them, read back: each rounded
    to the nearest multiple of ``10**-decimals`` (correctly, from its binary value; an
    exact tie to even), as NTCIREVAL's tools write the values that its scripts then read
    and combine. ``decimals`` None leaves ``values`` as they are.

    Examples
    --------
    >>> import numpy as np
    >>> from xdiv.kernels.common import printed
    >>> printed(np.array([0.123449, 0.123451, 2 / 3, 0.03125]), 4).tolist()
    [0.1234, 0.1235, 0.6667, 0.0312]
    """
    if decimals is None:
        return values
    values = np.asarray(values, dtype=np.float64)
    distinct, where = np.unique(values, return_inverse=True)
    rounded = np.array([float(f"{v:.{decimals}f}") for v in distinct.tolist()])
    return rounded[where].reshape(values.shape)
