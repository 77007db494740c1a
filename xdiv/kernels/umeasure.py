"""U-measure kernels (Sakai & Dou, SIGIR 2013; Sakai, AIRS 2013).

A simulated user reads, for each of the top l ranks, the snippet (``snippet`` characters)
and, if the document is relevant, a fraction ``fraction`` of its full text. Gain is placed
at the end of each relevant full-text portion, at trailtext position ``pos`` (characters
read so far), and discounted by ``D(pos) = max(0, 1 - pos / L)``;
``U = (1/N) sum_k g_k D(pos_k)``. Arrays: rank last (``(..., K)``) or rank then intent
(``(..., K, I)``) as in :mod:`xdiv.kernels.diversity`.
"""

from __future__ import annotations

import numpy as np


def decay(position: np.ndarray, patience: float) -> np.ndarray:
    """``D(pos) = max(0, 1 - pos / L)``."""
    return np.maximum(0.0, 1.0 - position / patience)


def u_measure(read_full: np.ndarray, gain: np.ndarray, length: np.ndarray, *,
              snippet: float, fraction: float, patience: float, users: float) -> np.ndarray:
    """U over the rank axis (second to last when ``read_full`` has an intent axis).

    ``read_full`` ``(..., K[, I])`` says where the user reads the full text (and gains
    ``gain``), ``length`` ``(..., K)`` the documents' lengths.
    """
    per_intent = read_full.ndim == gain.ndim and read_full.ndim == length.ndim + 1
    if per_intent:
        length = length[..., None]
        axis = -2
    else:
        axis = -1
    step = snippet + np.where(read_full, fraction * length, 0.0)
    position = np.cumsum(step, axis=axis)
    return (np.where(read_full, gain, 0.0) * decay(position, patience)).sum(axis=axis) / users


def _cut(levels, length, cutoff):
    return levels[..., :cutoff, :], length[..., :cutoff]


def d_u(levels, valid, prob, length, *, cutoff, table, snippet, fraction, patience, users):
    """D-U@l: one trailtext; full text read for documents relevant to some intent; gain at
    its end = the global gain ``sum_i Pr(i|q) gv(x_i)``."""
    from .diversity import global_gain, relevant

    levels, length = _cut(levels, length, cutoff)
    read = relevant(levels, valid).any(axis=-1)
    gain = global_gain(levels, prob, valid, table)
    value = u_measure(read, gain, length, snippet=snippet, fraction=fraction,
                      patience=patience, users=users)
    return np.where(valid.any(axis=-1), value, np.nan)


def u_ia(levels, valid, prob, length, *, cutoff, table, snippet, fraction, patience, users):
    """U-IA@l = sum_i Pr(i|q) U_i: one trailtext per intent, full text read only for the
    intent's relevant documents, gain gv(x_i)."""
    from .common import lookup
    from .diversity import relevant

    levels, length = _cut(levels, length, cutoff)
    read = relevant(levels, valid)
    per_intent = u_measure(read, lookup(table, levels), length, snippet=snippet,
                           fraction=fraction, patience=patience, users=users)
    weighted = np.where(valid, prob * per_intent, 0.0).sum(axis=-1)
    return np.where(valid.any(axis=-1), weighted, np.nan)
