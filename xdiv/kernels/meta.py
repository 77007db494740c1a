"""Numpy kernels of the meta-evaluation (spec §7): paired bootstrap, randomised Tukey HSD,
concordance counts, rank correlations. Scores come as ``(..., run, topic)``; run pairs
are the upper triangle ``i < j`` of the run axis.
"""

from __future__ import annotations

import numpy as np


RANK_CORRELATIONS = ("kendall", "tau_ap", "tau_ap_sym", "tau_ap_b")
"""The rank correlation coefficients of :func:`xdiv.meta.rank_correlation`, by name."""


def pair_index(n_runs: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(i, j)``, ``i < j``, of every unordered run pair."""
    return np.triu_indices(n_runs, k=1)


def _t_statistic(mean, sumsq, n):
    """Paired t = mean / (sd / sqrt(n)) with sd over n-1; 0 when sd = 0 and mean = 0."""
    var = np.maximum(sumsq - n * mean ** 2, 0.0) / (n - 1)
    sd = np.sqrt(var)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / np.sqrt(n))
        return np.where(sd > 0, t, np.where(mean == 0, 0.0, np.sign(mean) * np.inf))


def paired_bootstrap(diff: np.ndarray, *, replicates: int, rng: np.random.Generator,
                     alpha: float, chunk: int = 250):
    """Sakai's paired bootstrap test for many paired differences at once.

    ``diff`` ``(..., topic)``: per-topic score differences of run pairs. Every pair uses
    the same ``replicates`` resamples of the topics (drawn in chunks). Returns the
    observed mean and t, the ASL ``#{|t*| >= |t|} / B`` and the pair's required delta
    (``|mean*|`` of the resample with the ``B alpha``-th largest ``|t*|``).
    """
    n = diff.shape[-1]
    mean = diff.mean(axis=-1)
    t_obs = _t_statistic(mean, (diff ** 2).sum(axis=-1), n)
    centred = diff - mean[..., None]
    exceed = np.zeros(diff.shape[:-1])
    kept_t, kept_mean = [], []
    for start in range(0, replicates, chunk):
        b = min(chunk, replicates - start)
        picks = rng.integers(0, n, size=(b, n))
        counts = np.zeros((b, n))
        np.add.at(counts, (np.arange(b)[:, None], picks), 1.0)
        boot_mean = centred @ counts.T / n
        boot_t = _t_statistic(boot_mean, (centred ** 2) @ counts.T, n)
        exceed += (np.abs(boot_t) >= np.abs(t_obs)[..., None]).sum(axis=-1)
        kept_t.append(np.abs(boot_t))
        kept_mean.append(np.abs(boot_mean))
    abs_t = np.concatenate(kept_t, axis=-1)
    abs_mean = np.concatenate(kept_mean, axis=-1)
    rank = max(int(round(replicates * alpha)), 1)
    order = np.argsort(-abs_t, axis=-1, kind="stable")[..., rank - 1:rank]
    delta = np.take_along_axis(abs_mean, order, axis=-1)[..., 0]
    return mean, t_obs, exceed / replicates, delta


def randomised_tukey(scores: np.ndarray, *, replicates: int, rng: np.random.Generator,
                     chunk: int = 250):
    """Randomised Tukey HSD (Sakai, seed 002 Fig. 4): permute each topic's scores across
    runs; per trial the range of run means; a pair's ASL is the share of trials whose range
    reaches the pair's observed ``|mean difference|``.

    ``scores`` ``(..., run, topic)``. Returns the observed mean differences of every pair
    ``(..., pair)`` and their ASLs.
    """
    n_runs, n_topics = scores.shape[-2:]
    i, j = pair_index(n_runs)
    means = scores.mean(axis=-1)
    observed = np.abs(means[..., i] - means[..., j])
    reached = np.zeros(observed.shape)
    for start in range(0, replicates, chunk):
        b = min(chunk, replicates - start)
        perm = rng.permuted(np.broadcast_to(np.arange(n_runs), (b, n_topics, n_runs)), axis=-1)
        # permuted[..., b, r, t] = scores[..., perm[b, t, r], t]
        permuted = np.take_along_axis(scores[..., None, :, :],
                                      np.swapaxes(perm, -1, -2)[(None,) * (scores.ndim - 2)],
                                      axis=-2)
        trial_means = permuted.mean(axis=-1)
        spread = trial_means.max(axis=-1) - trial_means.min(axis=-1)
        reached += (spread[..., :, None] >= observed[..., None, :] - 1e-12).sum(axis=-2)
    return means[..., i] - means[..., j], reached / replicates


def concordance_counts(d1: np.ndarray, d2: np.ndarray, gold: np.ndarray):
    """Concordance test counts over flattened (pair, topic) differences.

    ``d1``, ``d2``: differences of the two metrics; ``gold`` ``(k, ...)``: differences of
    the gold standards. Among disagreements (``d1 d2 < 0``) a metric is correct if it
    agrees with every gold standard (``d gs >= 0``, ties in a gold standard count as
    correct). Returns (disagreements, correct_1, correct_2, only_1, only_2).
    """
    disagree = d1 * d2 < 0
    ok1 = disagree & (d1 * gold >= 0).all(axis=0)
    ok2 = disagree & (d2 * gold >= 0).all(axis=0)
    return (disagree.sum(), ok1.sum(), ok2.sum(), (ok1 & ~ok2).sum(), (ok2 & ~ok1).sum())


def tau_ap(evaluated: np.ndarray, reference: np.ndarray) -> float:
    """AP correlation of the ``evaluated`` ranking against the ``reference`` (scores, higher
    first): ``2/(n-1) sum_{i=2..n} C(i)/(i-1) - 1`` (Yilmaz, Aslam & Robertson, SIGIR 2008),
    where, going down the evaluated ranking, C(i) counts the items above item i that the
    reference also ranks above it.

    Ties. A pair tied in the reference cannot be ordered wrongly, so it counts as correct
    (identical rankings give 1, with or without ties). Items tied in the evaluated ranking
    have no order of their own: the result is the expected value over all orders of each
    tie group, which is Urbano & Marrero's tau_AP-a (ICTIR 2017) when the reference has no
    ties, and Yilmaz et al.'s tau_AP when neither ranking has ties. Each item i of a tie
    group of size t with p items strictly above it stands at position p + u, u = 1..t, with
    probability 1/t; the items above it are those p plus u - 1 of its group, so
    ``E[C/(pos-1)] = (1/t) sum_u (A_i + (u-1) w_i) / (p+u-1)``, A_i the correct items of the
    groups above and w_i the share of correct items in its own group.
    """
    e, r = np.asarray(evaluated, dtype=float), np.asarray(reference, dtype=float)
    n = len(e)
    if n < 2 or np.isnan(e).any() or np.isnan(r).any():  # as Kendall's tau: undefined
        return float("nan")
    other = ~np.eye(n, dtype=bool)
    higher = e[None, :] > e[:, None]  # higher[i, j]: evaluated ranks j above i
    tied = (e[None, :] == e[:, None]) & other
    correct = r[None, :] >= r[:, None]  # the reference does not rank j below i
    p, t = higher.sum(axis=1), tied.sum(axis=1) + 1
    above = (higher & correct).sum(axis=1)
    share = (tied & correct).sum(axis=1) / np.maximum(t - 1, 1)
    u = np.arange(1, t.max() + 1)[None, :]
    position = p[:, None] + u
    valid = (u <= t[:, None]) & (position >= 2)
    terms = (above[:, None] + (u - 1) * share[:, None]) / np.where(valid, position - 1, 1)
    expected = np.where(valid, terms, 0.0).sum(axis=1) / t
    return float(2.0 / (n - 1) * expected.sum() - 1.0)


def tau_ap_b(x: np.ndarray, y: np.ndarray) -> float:
    """Urbano & Marrero's tau_AP-b (ICTIR 2017), the symmetric AP correlation for two
    rankings that may both have ties (the agreement scenario): the mean of both directions
    of ``2/|{i: p_i > 0}| sum_{i: p_i > 0} C_i / p_i - 1``, where p_i counts the items
    strictly above item i in one ranking and C_i those of them that the other ranking also
    ranks strictly above i (a pair tied in only one ranking is a disagreement). It equals
    the mean of both directions of :func:`tau_ap` when neither ranking has ties."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if np.isnan(x).any() or np.isnan(y).any():
        return float("nan")
    return (_tau_ap_b_half(x, y) + _tau_ap_b_half(y, x)) / 2


def _tau_ap_b_half(reference: np.ndarray, walked: np.ndarray) -> float:
    higher = walked[None, :] > walked[:, None]
    agree = higher & (reference[None, :] > reference[:, None])
    p = higher.sum(axis=1)
    below_top = p > 0
    if not below_top.any():
        return float("nan")
    return float(2.0 / below_top.sum() * (agree.sum(axis=1)[below_top] / p[below_top]).sum()
                 - 1.0)
