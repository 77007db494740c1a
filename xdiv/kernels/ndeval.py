"""The measures TREC's ndeval computes, with ndeval's own conventions.

ndeval (the TREC Web Track diversity evaluator, wrapped on PyPI as pyndeval) treats
per-intent relevance as binary (level >= 1), weights the N intents that have a relevant
document uniformly, and scores a ranked list by its *novelty gains*
``G(r) = sum_s rel(d_r, s) (1 - alpha)^{c_s(r)}`` where ``c_s(r)`` counts the documents
above rank r relevant to intent s. Its normalisers:

* alpha-DCG@k and ERR-IA@k divide by an "ideal ideal" that assumes every intent is
  satisfied at every rank: ``sum_{r<=k} N (1-alpha)^{r-1} w(r)`` with ``w = disc`` or
  ``1/r``;
* alpha-nDCG@k, nERR-IA@k and nNRBP divide by the same quantity on a *greedy* ideal list
  built over all judged documents of the topic, ties going to the largest docno (so the
  "ideal" is not always optimal and these measures can exceed 1).

Conventions reproduced bit for bit where it matters: powers of ``1 - alpha`` are running
products and per-document gains are summed over intents sequentially in intent order,
so the greedy ideal breaks exact ties the way ndeval does. Array conventions as in
:mod:`xdiv.kernels.diversity` (``levels`` ``(..., K, I)``, ``valid`` ``(..., I)``).

Differences, by design: a topic without relevant documents is NaN (ndeval: 0, and NaN
for nNRBP), and alpha-DCG@1 / ERR-IA@1 are normalised like every other cutoff (ndeval
leaves rank 1 undivided, so its values there can exceed 1).
"""

from __future__ import annotations

import numpy as np

from .common import discount, divide, rank_sum, ranks
from .diversity import cut_ranks, relevant


def running_powers(base: float, n: int) -> np.ndarray:
    """``base^0 .. base^(n-1)`` by repeated multiplication (as ndeval's running product)."""
    out = np.empty(max(n, 1))
    out[0] = 1.0
    for j in range(1, len(out)):
        out[j] = out[j - 1] * base
    return out


def sum_intents(values: np.ndarray) -> np.ndarray:
    """Sum over the last axis left to right (ndeval's order; numpy's pairwise sum is not)."""
    total = np.zeros(values.shape[:-1])
    for i in range(values.shape[-1]):
        total = total + values[..., i]
    return total


def novelty_gains(rel: np.ndarray, alpha: float, weights: np.ndarray | None = None) -> np.ndarray:
    """``G(r)`` ``(..., K)`` of a ranked list from its binary relevance ``(..., K, I)``;
    ``weights`` ``(..., I)`` scale each intent's term (ndeval: none; Sakai & Song, SIGIR
    2011: Pr(i|q))."""
    seen = np.cumsum(rel, axis=-2) - rel
    powers = running_powers(1.0 - alpha, rel.shape[-2] + 1)[seen]
    if weights is not None:
        powers = powers * weights[..., None, :]
    return sum_intents(np.where(rel, powers, 0.0))


def greedy_ideal_gains(qrels_levels: np.ndarray, valid: np.ndarray,
                       weights: np.ndarray | None = None, *, alpha: float,
                       depth: int, memo: dict | None = None) -> np.ndarray:
    """Novelty gains of ndeval's greedy ideal list, ``(..., depth)`` (see
    :func:`greedy_search`).

    The greedy list does not depend on the depth asked for (a shorter one is a prefix),
    so given a ``memo`` (a dict the caller keeps, e.g. for one evaluation) the lists are
    kept there by the content of the inputs: the several cutoffs and measures of one
    evaluation build each list once. Without one, the list is built at every call.
    """
    if memo is None:
        return greedy_search(qrels_levels, valid, weights, alpha=alpha, depth=depth)
    import hashlib  # here: the plain path of xdiv ndeval keeps no memo

    digest = hashlib.blake2b(digest_size=16)
    for part in (qrels_levels, valid, weights):
        if part is not None:
            part = np.ascontiguousarray(part)
            digest.update(repr((part.shape, part.dtype.str)).encode())
            digest.update(part.tobytes())
    key = (digest.hexdigest(), float(alpha))
    cached = memo.get(key)
    if cached is None or cached.shape[-1] < depth:
        cached = memo[key] = greedy_search(qrels_levels, valid, weights, alpha=alpha,
                                           depth=depth)
    return cached[..., :depth].copy()


def nrbp_ideal_depth(beta: float, n_intents: int, n_docs: int) -> int:
    """How deep the ideal list must go for nNRBP: all of it when beta = 1, else until the
    remaining terms ``sum_{r>d} beta^{r-1} G(r) <= N beta^d / (1 - beta)`` are below
    1e-17 of the first term (G(1) >= 1), i.e. below double precision."""
    if beta >= 1.0 or beta <= 0.0:
        return max(n_docs, 1) if beta >= 1.0 else 1
    bound = np.log(1e-17 * (1.0 - beta) / max(n_intents, 1)) / np.log(beta)
    return int(min(max(n_docs, 1), max(1, np.ceil(bound) + 1)))


def greedy_search(qrels_levels: np.ndarray, valid: np.ndarray,
                  weights: np.ndarray | None = None, *, alpha: float,
                  depth: int) -> np.ndarray:
    """Novelty gains of ndeval's greedy ideal list, ``(..., depth)``.

    ``qrels_levels`` is ``(..., D, I)`` with the documents in ascending docno order. At
    each step the judged document with the largest current gain is taken (ties: the
    largest docno), then the gains of its intents are multiplied by ``1 - alpha``. Only
    documents relevant to some intent can add gain, so the search runs over those.
    ``weights`` ``(..., I)`` scale the intents' gains as in :func:`novelty_gains`.
    """
    rel = relevant(qrels_levels, valid)
    lead, (n_docs, n_int) = rel.shape[:-2], rel.shape[-2:]
    rel = rel.reshape((-1, n_docs, n_int))
    useful = rel.any(axis=-1)
    width = max(int(useful.sum(axis=-1).max(initial=0)), 1)
    keep = np.argsort(~useful, axis=-1, kind="stable")[:, :width]  # docno order kept
    rel = np.take_along_axis(rel, keep[..., None], axis=1)
    rows = np.arange(rel.shape[0])
    gain = np.ones((rel.shape[0], n_int))
    if weights is not None:
        gain = gain * np.broadcast_to(weights, lead + (n_int,)).reshape(-1, n_int)
    taken = np.zeros(rel.shape[:2], dtype=bool)
    out = np.zeros((rel.shape[0], depth))
    by_intent = np.ascontiguousarray(np.moveaxis(rel, -1, 0))  # (intent, row, doc)
    for step in range(min(depth, width)):
        # each document's gain summed over the intents in order, as sum_intents does
        candidate = np.zeros(rel.shape[:2])
        for i in range(n_int):
            candidate = candidate + np.where(by_intent[i], gain[:, i, None], 0.0)
        candidate[taken] = -1.0
        pick = width - 1 - np.argmax(candidate[:, ::-1], axis=1)
        out[:, step] = np.maximum(candidate[rows, pick], 0.0)
        taken[rows, pick] = True
        gain = np.where(rel[rows, pick], gain * (1.0 - alpha), gain)
    return out.reshape(lead + (depth,))


def ideal_ideal(n_intents: np.ndarray, alpha: float, weights: np.ndarray) -> np.ndarray:
    """``sum_{r<=k} N (1-alpha)^{r-1} w(r)`` for every k (last axis)."""
    curve = running_powers(1.0 - alpha, len(weights)) * weights
    return n_intents[..., None] * np.cumsum(curve)


def _prepare(levels, valid, cutoff, alpha, weights=None):
    rel = relevant(cut_ranks(levels, cutoff), valid)
    gains = novelty_gains(rel, alpha, weights)
    return rel, gains, valid.sum(axis=-1)


def defined_with_intents(value, n_intents):
    """``value`` where the topic has valid intents (``n_intents > 0``), NaN elsewhere."""
    return np.where(n_intents > 0, value, np.nan)


def cumulative_gain(gains, weights, cutoff):
    """``sum_{r<=cutoff} G(r) w(r)`` where lists shorter than the cutoff add nothing."""
    k = min(gains.shape[-1], cutoff)
    return rank_sum(gains[..., :k] * weights[:k])


def alpha_dcg(levels, valid, *, cutoff, alpha):
    """alpha-DCG@k: novelty-gain DCG over ndeval's ideal-ideal DCG@k."""
    _, gains, n = _prepare(levels, valid, cutoff, alpha)
    raw = cumulative_gain(gains, discount(cutoff), cutoff)
    return defined_with_intents(divide(raw, ideal_ideal(n, alpha, discount(cutoff))[..., -1]), n)


def err_ia(levels, valid, *, cutoff, alpha):
    """ERR-IA@k (ndeval): ``sum_{r<=k} G(r)/r`` over the ideal-ideal ``sum N(1-a)^{r-1}/r``."""
    _, gains, n = _prepare(levels, valid, cutoff, alpha)
    weights = 1.0 / ranks(cutoff)
    raw = cumulative_gain(gains, weights, cutoff)
    return defined_with_intents(divide(raw, ideal_ideal(n, alpha, weights)[..., -1]), n)


def _normalised(levels, valid, ideal, weights, cutoff, alpha, intent_weights=None):
    _, gains, n = _prepare(levels, valid, cutoff, alpha, intent_weights)
    raw = cumulative_gain(gains, weights, cutoff)
    best = cumulative_gain(ideal, weights, cutoff)
    dcg = cumulative_gain(gains, discount(cutoff), cutoff)
    return defined_with_intents(np.where(dcg != 0, divide(raw, best), 0.0), n)


def alpha_ndcg(levels, valid, ideal, intent_weights=None, *, cutoff, alpha):
    """alpha-nDCG@k = novelty DCG@k / DCG@k of the greedy ideal list (0 if the run has no
    relevant document in the top k). With ``intent_weights`` (Pr(i|q)) each intent's
    novelty gain is weighted, as in Sakai & Song's probability-aware alpha-nDCG; the ideal
    list must then be built with the same weights."""
    return _normalised(levels, valid, ideal, discount(cutoff), cutoff, alpha, intent_weights)


def nerr_ia(levels, valid, ideal, *, cutoff, alpha):
    """nERR-IA@k = ``sum G(r)/r`` of the run over that of the greedy ideal list, top k."""
    return _normalised(levels, valid, ideal, 1.0 / ranks(cutoff), cutoff, alpha)


def compact_relevant(levels, valid, cutoff=None):
    """The relevant ranks only: ``rel`` ``(..., M, I)`` of the documents relevant to some
    valid intent, in rank order, and their 1-based ranks ``(..., M)`` (0 in padding).

    Whole-list measures (NRBP, MAP-IA) only gain at relevant ranks, so they run on this
    compact form, exactly and about K/M times faster on deep runs.
    """
    rel = relevant(cut_ranks(levels, cutoff), valid)
    hit = rel.any(axis=-1)
    width = max(int(hit.sum(axis=-1).max(initial=0)), 1)
    order = np.argsort(~hit, axis=-1, kind="stable")[..., :width]
    rel = np.take_along_axis(rel, order[..., None], axis=-2)
    rank = np.where(np.take_along_axis(hit, order, axis=-1), order + 1, 0)
    return rel, rank


def _rbp_sum(gains, beta, rank=None):
    """``sum beta^{r-1} G(r)``; ``rank`` gives the 1-based ranks of compact gains."""
    if rank is None:
        return rank_sum(gains * running_powers(beta, gains.shape[-1]))
    powers = running_powers(beta, int(rank.max(initial=1)) + 1)
    return rank_sum(gains * powers[np.maximum(rank - 1, 0)])


def _compact_nrbp_sum(levels, valid, cutoff, alpha, beta):
    rel, rank = compact_relevant(levels, valid, cutoff)
    return _rbp_sum(novelty_gains(rel, alpha), beta, rank), valid.sum(axis=-1)


def nrbp(levels, valid, *, cutoff, alpha, beta):
    """NRBP = (1 - (1-alpha) beta) / N sum_r beta^{r-1} G(r), over the whole list."""
    total, n = _compact_nrbp_sum(levels, valid, cutoff, alpha, beta)
    scale = (1.0 - (1.0 - alpha) * beta) / np.where(n > 0, n, 1)
    return defined_with_intents(scale * total, n)


def nnrbp(levels, valid, ideal, *, cutoff, alpha, beta):
    """nNRBP = NRBP of the run / NRBP of the full greedy ideal list."""
    total, n = _compact_nrbp_sum(levels, valid, cutoff, alpha, beta)
    return defined_with_intents(divide(total, _rbp_sum(ideal, beta)), n)


def map_ia(levels, valid, n_relevant, *, cutoff):
    """MAP-IA = (1/N) sum_s AP_s over the whole list, AP_s divided by the intent's number
    of relevant documents ``n_relevant`` ``(..., I)``."""
    rel, rank = compact_relevant(levels, valid, cutoff)
    precision = divide(np.cumsum(rel, axis=-2), rank[..., None])
    precision = np.where(rel, precision, 0.0)
    # added rank by rank (rank_sum), so that the padding of the compact form, which
    # depends on the other lists evaluated beside this one, leaves the bits unchanged
    ap = divide(rank_sum(np.swapaxes(rel * precision, -1, -2)), n_relevant)
    ap = np.where(valid, ap, 0.0)
    n = valid.sum(axis=-1)
    return defined_with_intents(divide(sum_intents(ap), n), n)


def p_ia(levels, valid, *, cutoff):
    """P-IA@k = (relevant (document, intent) pairs in the top k) / (k N)."""
    rel = relevant(cut_ranks(levels, cutoff), valid)
    n = valid.sum(axis=-1)
    return defined_with_intents(divide(rel.sum(axis=(-2, -1)), cutoff * n), n)
