"""The 1CLICK measures of nugget-based evaluation of a text output (Sakai, Kato & Song,
CIKM 2011) on plain arrays.

A question's gold nuggets lie along ``axis``: ``weight`` (> 0; 0 marks a slot without a
nugget, for questions with fewer nuggets than the axis holds) and ``vital``, the vital
string length of each. ``offset`` holds where an output matched each nugget (NaN: not
matched) and ``length`` the output's length in characters (its X-string), one per
question. The arrays broadcast against each other (the nuggets of shape ``(topic,
nugget)`` against the offsets of shape ``(run, topic, nugget)``, say), and so do ``L``
and ``beta`` against the result, which has the shape of the broadcast arrays without
``axis``.

Divisions follow IEEE arithmetic as NTCIREVAL's ``ntcir_eval 1click`` does: the
S-measure of a question whose heaviest nugget alone does not fit in the first ``L``
characters of the pseudo minimal output (its denominator is 0) is ``inf`` when a match
lies before ``L`` and NaN otherwise.
"""

from __future__ import annotations

import numpy as np

__all__ = ("f_flat", "matched", "recall", "s_denominator", "s_flat", "s_measure",
           "s_numerator", "t_flat", "t_measure", "weighted_recall")


def _last(array, axis: int) -> np.ndarray:
    return np.moveaxis(np.asarray(array), axis, -1)


def _ratio(numerator, denominator) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(numerator, denominator)


def matched(offset) -> np.ndarray:
    """Whether each nugget was matched (its offset is a number)."""
    return ~np.isnan(np.asarray(offset, dtype=np.float64))


def recall(weight, offset, axis: int = -1) -> np.ndarray:
    """Nugget recall: the matched nuggets over the question's nuggets."""
    nuggets = (_last(weight, axis) > 0).sum(axis=-1)
    return _ratio(matched(_last(offset, axis)).sum(axis=-1), nuggets)


def weighted_recall(weight, offset, axis: int = -1) -> np.ndarray:
    """W-recall: the weights of the matched nuggets over the weights of all."""
    weight = _last(weight, axis).astype(np.float64)
    hit = matched(_last(offset, axis))
    return _ratio(np.where(hit, weight, 0.0).sum(axis=-1), weight.sum(axis=-1))


def s_numerator(weight, offset, L, axis: int = -1) -> np.ndarray:
    """``sum w_i max(0, L - offset_i)`` over the matched nuggets ``i``."""
    weight = _last(weight, axis).astype(np.float64)
    offset = _last(offset, axis).astype(np.float64)
    room = np.asarray(L, dtype=np.float64)[..., None] - offset
    return np.where(room > 0, weight * room, 0.0).sum(axis=-1)


def s_denominator(weight, vital, L, axis: int = -1) -> np.ndarray:
    """The S-measure of the pseudo minimal output: the nuggets by decreasing weight (ties
    by increasing vital string length), each written as its vital string right after the
    previous ones, so that nugget ``i`` ends at ``offset*_i``, the sum of the vital
    lengths up to it; ``sum w_i max(0, L - offset*_i)``."""
    weight = _last(weight, axis).astype(np.float64)
    vital = _last(vital, axis).astype(np.int64)
    weight, vital = np.broadcast_arrays(weight, vital)
    order = np.lexsort((vital, -weight), axis=-1)  # slots without a nugget (weight 0) last
    ends = np.cumsum(np.take_along_axis(vital, order, axis=-1), axis=-1)
    room = np.asarray(L, dtype=np.float64)[..., None] - ends
    return np.where(room > 0, np.take_along_axis(weight, order, axis=-1) * room,
                    0.0).sum(axis=-1)


def s_measure(weight, vital, offset, L, axis: int = -1) -> np.ndarray:
    """S-measure: :func:`s_numerator` over :func:`s_denominator`, with patience ``L``."""
    return _ratio(s_numerator(weight, offset, L, axis), s_denominator(weight, vital, L, axis))


def s_flat(weight, vital, offset, L, axis: int = -1) -> np.ndarray:
    """S-flat: 1 where the S-measure's numerator exceeds its denominator, else the
    S-measure."""
    numerator = s_numerator(weight, offset, L, axis)
    denominator = s_denominator(weight, vital, L, axis)
    return np.where(numerator > denominator, 1.0, _ratio(numerator, denominator))


def _t_parts(vital, offset, length, axis: int) -> tuple[np.ndarray, np.ndarray]:
    vital = _last(vital, axis).astype(np.int64)
    hit = matched(_last(offset, axis))
    return np.where(hit, vital, 0).sum(axis=-1), np.asarray(length, dtype=np.int64)


def t_measure(vital, offset, length, axis: int = -1) -> np.ndarray:
    """T-measure: the vital string lengths of the matched nuggets over the output's
    length; 0 for an empty output."""
    total, length = _t_parts(vital, offset, length, axis)
    return np.where(length == 0, 0.0, _ratio(total, length))


def t_flat(vital, offset, length, axis: int = -1) -> np.ndarray:
    """T-flat: the T-measure capped at 1."""
    total, length = _t_parts(vital, offset, length, axis)
    return np.where(length == 0, 0.0, np.where(total > length, 1.0, _ratio(total, length)))


def f_flat(weight, vital, offset, length, L, beta, axis: int = -1) -> np.ndarray:
    """F-flat: ``(1 + beta^2) T-flat S-flat / (beta^2 T-flat + S-flat)``, 0 where both
    are 0."""
    s = s_flat(weight, vital, offset, L, axis)
    t = t_flat(vital, offset, length, axis)
    square = np.asarray(beta, dtype=np.float64) ** 2
    value = _ratio((1 + square) * t * s, square * t + s)
    return np.where((s > 0) | (t > 0), value, 0.0)
