"""Diversity measures over flat intents as numpy kernels.

Array conventions: ``levels`` is ``(..., K, I)`` — rank then intent as the last two axes;
``prob``, ``valid`` and ``nav`` are ``(..., I)`` (intent probabilities, valid intents,
navigational intents); ``ideal_gg`` is ``(..., K')``, the global gains of the judged
documents sorted descending (the globally ideal list of the D-measures). Results are NaN
for topics without a valid intent.
"""

from __future__ import annotations

import numpy as np

from .common import cut, discount, divide, fit, lookup, printed, rank_sum, ranks


def relevant(levels: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """``(..., K, I)``: the document at each rank is relevant to each valid intent."""
    return (levels > 0) & valid[..., None, :]


def first_relevant(rel: np.ndarray) -> np.ndarray:
    """``(..., K, I)``: the rank holds the *first* relevant document of the intent."""
    return rel & (np.cumsum(rel, axis=-2) == 1)


def effectively_relevant(rel: np.ndarray, nav: np.ndarray) -> np.ndarray:
    """``J'(r)`` ``(..., K)``: relevant to an inf intent, or the first relevant document of
    a nav intent (Sakai, WWW 2012; JIP 2013)."""
    nav = nav[..., None, :]
    return (rel & ~nav).any(axis=-1) | (first_relevant(rel) & nav).any(axis=-1)


def _undefined_without_intents(value, valid):
    return np.where(valid.any(axis=-1), value, np.nan)


def intent_recall(levels, valid, *, cutoff):
    """I-rec@l = |intents covered by the top l| / |valid intents|."""
    covered = relevant(cut_ranks(levels, cutoff), valid).any(axis=-2)
    return divide(covered.sum(axis=-1), valid.sum(axis=-1))


def cut_ranks(levels: np.ndarray, cutoff: int | None) -> np.ndarray:
    """The top ``cutoff`` ranks of a ``(..., K, I)`` array."""
    return levels if cutoff is None else levels[..., :cutoff, :]


def precision_any(levels, valid, *, cutoff):
    """Prec@l = (1/l) sum_{r<=l} J(r), J(r) = relevant to at least one intent."""
    rel = relevant(cut_ranks(levels, cutoff), valid).any(axis=-1)
    return _undefined_without_intents(rel.sum(axis=-1) / cutoff, valid)


def effective_precision(levels, valid, nav, *, cutoff):
    """Ef-P@l = (1/l) sum_{r<=l} J'(r) with J' the effective relevance."""
    rel = relevant(cut_ranks(levels, cutoff), valid)
    return _undefined_without_intents(effectively_relevant(rel, nav).sum(axis=-1) / cutoff,
                                      valid)


def global_gain(levels, prob, valid, table, nav=None, decimals=None):
    """GG(r) = sum_i Pr(i|q) gv(x_i(r)); with ``nav`` given, the DIN form in which a nav
    intent only counts at its first relevant document; with ``decimals``, each GG rounded
    as NTCIREVAL's glabel and dinlabel write it (:func:`~xdiv.kernels.common.printed`)."""
    gains = lookup(table, levels) * np.where(valid, prob, 0.0)[..., None, :]
    if nav is not None:
        keep = ~nav[..., None, :] | first_relevant(relevant(levels, valid))
        gains = gains * keep
    return printed(gains.sum(axis=-1), decimals)


def ideal_global_gain(qrels_levels, prob, valid, table):
    """Globally ideal list: every judged document's GG sorted descending.

    ``qrels_levels`` is ``(..., D, I)`` (documents of the collection, intent last).
    """
    gg = global_gain(qrels_levels, prob, valid, table)
    return -np.sort(-gg, axis=-1)


def d_ndcg(levels, ideal_gg, prob, valid, nav, *, cutoff, table, din=False, decimals=None):
    """D-nDCG@l (Sakai & Song, SIGIR 2011) or, with ``din``, DIN-nDCG@l (Sakai, WWW 2012):
    ``sum_{r<=l} GG(r) disc(r) / sum_{r<=l} GG*(r) disc(r)`` (the run's GG rounded to
    ``decimals`` as :func:`global_gain`)."""
    levels = cut_ranks(levels, cutoff)
    gg = global_gain(levels, prob, valid, table, nav if din else None, decimals)
    ideal = cut(ideal_gg, cutoff)  # ranks past the ideal list add nothing: no padding
    value = divide(rank_sum(gg * discount(gg.shape[-1])),
                   rank_sum(ideal * discount(ideal.shape[-1])))
    return _undefined_without_intents(value, valid)


def d_q(levels, ideal_gg, prob, valid, nav, n_relevant, *, cutoff, table, beta, din=False,
        decimals=None, denominator="min"):
    """D-Q@l or DIN-Q@l: ``(1/min(l,R)) sum_{r<=l} J(r) BR(r)`` (``1/R`` with
    ``denominator="R"``) with
    ``BR(r) = (C(r) + beta sum_{k<=r} GG(k)) / (r + beta cg*(r))``. DIN uses the effective
    relevance J' and its count C' (reconstructed: the formula cannot be read in the available
    text of the paper, whose prose says effective relevance); the run's GG rounded to
    ``decimals`` as :func:`global_gain`."""
    levels = cut_ranks(levels, cutoff)
    k = levels.shape[-2]
    rel_i = relevant(levels, valid)
    rel = effectively_relevant(rel_i, nav) if din else rel_i.any(axis=-1)
    gg = global_gain(levels, prob, valid, table, nav if din else None, decimals)
    ratio = (np.cumsum(rel, axis=-1) + beta * np.cumsum(gg, axis=-1)) / (
        ranks(k) + beta * np.cumsum(fit(ideal_gg, k), axis=-1))
    norm = n_relevant if cutoff is None or denominator == "R" else np.minimum(n_relevant,
                                                                              cutoff)
    return _undefined_without_intents(divide(rank_sum(rel * ratio), norm), valid)


def count_relevant_any(qrels_levels, valid):
    """R: judged documents relevant to at least one valid intent (``(..., D, I)`` input)."""
    return relevant(qrels_levels, valid).any(axis=-1).sum(axis=-1)


def combine_by_type(informational, navigational, prob, valid, nav, decimals=None):
    """P+Q: ``sum_{i inf} Pr(i) Q_i + sum_{j nav} Pr(j) P+_j`` over valid intents (last
    axis); with ``decimals``, each intent's value rounded as
    :func:`~xdiv.kernels.common.printed` gives it."""
    values = printed(np.where(nav, navigational, informational), decimals)
    weighted = np.where(valid, prob * np.where(valid, values, 0.0), 0.0).sum(axis=-1)
    return _undefined_without_intents(weighted, valid)


def sharp(recall, measure, *, gamma, decimals=None):
    """The #-combination ``gamma I-rec + (1 - gamma) M`` (Sakai & Song, SIGIR 2011); with
    ``decimals``, of I-rec and M rounded as :func:`~xdiv.kernels.common.printed` gives
    them."""
    return gamma * printed(recall, decimals) + (1.0 - gamma) * printed(measure, decimals)

