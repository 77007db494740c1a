"""Numpy kernels of the meta-evaluation: the paired bootstrap test (Sakai, SIGIR 2006), the
randomised Tukey HSD test (Carterette, TOIS 2012; Sakai, WWW 2012 / JIP 2013), the
concordance test counts (Sakai, WWW 2012 / JIP 2013) and rank correlations. Scores come
as ``(..., run, topic)``; run pairs are the upper triangle ``i < j`` of the run axis.

The resampling tests draw their replicates in blocks of ``CHUNK`` and keep, per run pair,
only running counts and (for the bootstrap's required difference) the ``B alpha``
replicates with the largest ``|t*|``, so their memory does not grow with the number of
replicates B beyond that top-``B alpha`` buffer.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import InputError
from ..typing import RANK_CORRELATIONS  # noqa: F401  (re-exported: K.RANK_CORRELATIONS)

CHUNK = 250
"""Replicates drawn per block by the resampling tests (the draws, and so the results for a
seed, depend on it)."""

BUDGET = 256 * 2 ** 20
"""Working memory, in bytes, of one slice of run pairs in the paired bootstrap."""

TILE = 2048
"""Series per matrix product in :func:`resample_sums`."""

TUKEY_GATHER = 2 ** 17
"""Scores gathered at once by :func:`randomised_tukey` (sized for the CPU caches)."""


def resample_sums(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``values @ counts.T`` for ``values (rows, n)`` and resample counts ``(b, n)``,
    computed in tiles of :data:`TILE` rows (the last one padded with zeros), so that every
    row goes through a matrix product of the same shape at the same place in its tile:
    a row's sums are the same bits whichever rows are computed with it (BLAS may sum in
    another order for another shape)."""
    rows, n = values.shape
    weights = counts.T
    out = np.empty((rows, counts.shape[0]))
    for lo in range(0, rows, TILE):
        tile = values[lo:lo + TILE]
        if len(tile) == TILE:
            np.matmul(tile, weights, out=out[lo:lo + TILE])
        else:
            padded = np.zeros((TILE, n))
            padded[:len(tile)] = tile
            out[lo:] = (padded @ weights)[:len(tile)]
    return out


def bootstrap_counts(rng: np.random.Generator, n: int, b: int) -> np.ndarray:
    """``b`` bootstrap resamples of ``n`` topics as counts ``(b, n)`` (float): how often
    each topic is drawn, from ``rng.integers(0, n, size=(b, n))``. The one draw of topic
    resamples that the paired bootstrap test (:func:`paired_bootstrap`) and the bootstrap
    confidence intervals (:func:`xdiv.kernels.compare.bca_interval`) share, so that the
    same seed gives both the same resamples."""
    picks = rng.integers(0, n, size=(b, n))
    counts = np.zeros((b, n))
    np.add.at(counts, (np.arange(b)[:, None], picks), 1.0)
    return counts


def resampled_pvalue(count: np.ndarray, replicates: int, rule: str = "plus-one") -> np.ndarray:
    """The p-value of ``count`` random resamples out of ``replicates`` reaching the
    observed statistic: ``(count + 1) / (replicates + 1)`` by the rule ``"plus-one"``
    (Phipson & Smyth, Statistical Applications in Genetics and Molecular Biology 2010:
    the observed data are one of the equally likely outcomes, so the p-value is never 0
    and the test keeps its level), ``count / replicates`` by ``"share"`` (the achieved
    significance level of Sakai, SIGIR 2006). The one place where a resampling kernel
    turns its counts into p-values (:data:`xdiv.typing.PVALUE_RULES`)."""
    if rule == "plus-one":
        return (np.asarray(count) + 1.0) / (replicates + 1.0)
    if rule == "share":
        return np.asarray(count) / replicates
    raise InputError(f"the p-value rule must be 'plus-one' or 'share', not {rule!r}")


def pair_index(n_runs: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(i, j)``, ``i < j``, of every unordered run pair."""
    return np.triu_indices(n_runs, k=1)


def n_blocks(replicates: int, chunk: int = CHUNK) -> int:
    """Number of resample blocks of ``chunk`` replicates that ``replicates`` take."""
    return -(-replicates // chunk)


def _t_statistic(mean, sumsq, n):
    """Paired t = mean / (sd / sqrt(n)) with sd over n-1; 0 when sd = 0 and mean = 0."""
    var = np.maximum(sumsq - n * mean ** 2, 0.0) / (n - 1)
    sd = np.sqrt(var)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / np.sqrt(n))
        return np.where(sd > 0, t, np.where(mean == 0, 0.0, np.sign(mean) * np.inf))


class RunningTop:
    """The ``k`` first entries of a stream of ``(key, value)`` blocks, per row, in the order
    "larger key first, earlier entry first among equal keys"; keys are non-negative
    numbers (``|t*|``, possibly infinite) or NaN, which ranks last.

    Entries arrive in blocks along the last axis (:meth:`add`); the buffer keeps the
    selected entries in arrival order and holds at most ``k + max(k, 4 block)`` entries per
    row, so memory depends on ``k``, not on the length of the stream. The selection is
    exact: ``top-k(A + B) = top-k(top-k(A) + B)`` for a strict total order, and arrival
    order breaks ties between equal keys.

    Parameters
    ----------
    shape : tuple of int
        Shape of the rows (every axis but the stream's).
    k : int
        Number of entries to keep per row, at least 1.
    block : int
        Largest block that :meth:`add` receives.
    """

    def __init__(self, shape: tuple[int, ...], k: int, block: int):
        self.k = k
        capacity = k + max(k, 4 * block)
        self._key = np.empty(tuple(shape) + (capacity,))
        self._value = np.empty(tuple(shape) + (capacity,))
        self._fill = 0

    def add(self, key: np.ndarray, value: np.ndarray) -> None:
        """Append a block ``(..., b)`` of keys and their values (``b <= block``)."""
        b = key.shape[-1]
        if self._fill + b > self._key.shape[-1]:
            self._select()
        # NaN keys rank after every number: |t*| >= 0, so -1 stands below them all
        self._key[..., self._fill:self._fill + b] = np.where(np.isnan(key), -1.0, key)
        self._value[..., self._fill:self._fill + b] = value
        self._fill += b

    def _select(self) -> None:
        """Keep the ``k`` first entries of each row, in arrival order, at the buffer's front."""
        m, k = self._fill, self.k
        if m <= k:
            return
        key = self._key[..., :m]
        kth = np.partition(key, m - k, axis=-1)[..., m - k:m - k + 1]  # k-th largest key
        take = key >= kth
        extra = take.sum(axis=-1) - k  # entries tied with the k-th beyond the first k
        if extra.any():  # drop the latest of them
            rows = extra > 0
            tied = key[rows] == kth[rows]
            latest = np.cumsum(tied[:, ::-1], axis=-1)[:, ::-1] <= extra[rows][:, None]
            take[rows] &= ~(tied & latest)
        shape = key.shape[:-1] + (k,)
        kept_key = key[take].reshape(shape)  # row-major: each row's k entries in arrival order
        kept_value = self._value[..., :m][take].reshape(shape)
        self._key[..., :k] = kept_key
        self._value[..., :k] = kept_value
        self._fill = k

    def kth_value(self) -> np.ndarray:
        """The value of each row's ``k``-th entry (the last of its first ``k``): ``(...)``."""
        if self._fill < self.k:
            raise InputError(f"only {self._fill} entries for the {self.k}-th largest")
        self._select()
        key = self._key[..., :self.k]
        last = key == key.min(axis=-1, keepdims=True)  # the smallest kept key ...
        position = self.k - 1 - np.argmax(last[..., ::-1], axis=-1)  # ... arrived last
        return np.take_along_axis(self._value[..., :self.k], position[..., None],
                                  axis=-1)[..., 0]


def paired_bootstrap(diff: np.ndarray, *, replicates: int, rng: np.random.Generator,
                     alpha: float, axis: int = -1, chunk: int = CHUNK,
                     on_block: Callable[[float], None] | None = None,
                     budget: int = BUDGET, pvalue_rule: str = "plus-one"):
    """The two-sided paired bootstrap test (Sakai, SIGIR 2006) for many paired differences
    at once.

    Every series uses the same ``replicates`` resamples of the topics, drawn from ``rng``
    in blocks of ``chunk`` (``rng.integers(0, n, size=(b, n))`` per block, in order). Per
    block only the exceedance counts are accumulated and the running ``B alpha`` largest
    ``|t*|`` with their ``|mean*|`` are merged (:class:`RunningTop`), so memory does not
    grow with ``replicates`` beyond that buffer.

    Parameters
    ----------
    diff : numpy.ndarray
        Per-topic score differences of run pairs, topics along ``axis``.
    replicates : int
        Number of bootstrap resamples B.
    rng : numpy.random.Generator
        Source of the resamples.
    alpha : float
        Significance level of the required difference.
    axis : int
        The topic axis of ``diff``.
    chunk : int
        Resamples drawn per block.
    on_block : callable, optional
        Called after every block of every slice with the slice's share of the series
        (progress bars).
    budget : int
        Working memory, in bytes, for one slice of series.
    pvalue_rule : {"plus-one", "share"}
        How the ASL is read off the count (:func:`resampled_pvalue`).

    Returns
    -------
    mean, t, asl, delta : numpy.ndarray
        Over ``diff``'s other axes: the observed mean difference and paired t, the ASL
        ``(#{|t*| >= |t|} + 1) / (B + 1)`` (``#{|t*| >= |t|} / B`` by the rule
        ``"share"``) and the required difference at ``alpha``: the ``|mean*|`` of
        the resample with the ``round(B alpha)``-th largest ``|t*|`` (the earlier resample
        first among equal ``|t*|``; Sakai, SIGIR 2006).
    """
    diff = np.moveaxis(np.asarray(diff), axis, -1)
    n = diff.shape[-1]
    rank = max(int(round(replicates * alpha)), 1)
    if not 1 <= rank <= replicates:
        raise InputError(f"the required difference at alpha = {alpha} needs the "
                         f"{rank}-th of {replicates} replicates")
    series = diff.reshape(-1, n)
    # per series: the RunningTop buffer (keys and values), a block's resampled statistics
    # and the centred differences; slices are whole tiles (see resample_sums)
    per_series = 8 * (2 * (rank + max(rank, 4 * chunk)) + 6 * chunk + 3 * n)
    rows = max(1, budget // (per_series * TILE)) * TILE
    start_state = rng.bit_generator.state
    parts = []
    for lo in range(0, max(len(series), 1), rows):
        rng.bit_generator.state = start_state
        part = series[lo:lo + rows]
        share = len(part) / max(len(series), 1)
        parts.append(_bootstrap_slice(
            part, replicates, rng, rank, chunk,
            None if on_block is None else (lambda share=share: on_block(share)),
            pvalue_rule))
    return tuple(np.concatenate(values).reshape(diff.shape[:-1]) for values in zip(*parts))


def _bootstrap_slice(diff, replicates, rng, rank, chunk, on_block, pvalue_rule):
    """:func:`paired_bootstrap` on one slice of series ``(rows, n)``."""
    n = diff.shape[-1]
    mean = diff.mean(axis=-1)
    t_obs = _t_statistic(mean, (diff ** 2).sum(axis=-1), n)
    centred = diff - mean[..., None]
    exceed = np.zeros(diff.shape[:-1])
    top = RunningTop(diff.shape[:-1], rank, chunk)
    for start in range(0, replicates, chunk):
        b = min(chunk, replicates - start)
        counts = bootstrap_counts(rng, n, b)
        boot_mean = resample_sums(centred, counts) / n
        boot_t = _t_statistic(boot_mean, resample_sums(centred ** 2, counts), n)
        abs_t = np.abs(boot_t)
        exceed += (abs_t >= np.abs(t_obs)[..., None]).sum(axis=-1)
        top.add(abs_t, np.abs(boot_mean))
        if on_block is not None:
            on_block()
    return (mean, t_obs, resampled_pvalue(exceed, replicates, pvalue_rule),
            top.kth_value())


def randomised_tukey(scores: np.ndarray, *, replicates: int, rng: np.random.Generator,
                     chunk: int = CHUNK, on_block: Callable[[], None] | None = None,
                     pvalue_rule: str = "plus-one"):
    """The randomised Tukey HSD test (Carterette, TOIS 2012; as in Sakai, WWW 2012 /
    JIP 2013, Fig. 4): each trial permutes every topic's scores across the runs and takes
    the range of the run means; a pair's ASL is ``(c + 1) / (B + 1)`` for the ``c`` of
    the B trials whose range reaches the pair's observed ``|mean difference|`` (the share
    ``c / B`` by the rule ``"share"``; :func:`resampled_pvalue`).

    Trials are drawn from ``rng`` in blocks of ``chunk``; per block only the counts of
    trials reaching each pair are accumulated, so memory does not grow with
    ``replicates``.

    Parameters
    ----------
    scores : numpy.ndarray
        ``(..., run, topic)`` scores.
    replicates : int
        Number of trials B.
    rng : numpy.random.Generator
        Source of the permutations.
    chunk : int
        Trials drawn per block.
    on_block : callable, optional
        Called with no argument after every block (progress bars).
    pvalue_rule : {"plus-one", "share"}
        How the ASL is read off the count.

    Returns
    -------
    diff, asl : numpy.ndarray
        ``(..., pair)``: the observed mean differences of every pair ``i < j`` and their
        ASLs.
    """
    scores = np.asarray(scores)
    n_runs, n_topics = scores.shape[-2:]
    i, j = pair_index(n_runs)
    means = scores.mean(axis=-1)
    observed = np.abs(means[..., i] - means[..., j])
    # a trial reaches a pair when its range of run means is at least the pair's threshold;
    # the trials of a block are sorted once, and each pair's count is a binary search
    # (O(runs + pairs log b) a trial instead of O(pairs)); NaN ranges reach nothing
    threshold = (observed - 1e-12).reshape(-1, len(i))
    reached = np.zeros(threshold.shape)
    # scores as (series, topic * run): a trial's scores are gathered from it as (run,
    # topic) rows, the layout whose means the trials have always taken (the same sums),
    # a few trials at a time, so that the gathered scores stay in the CPU caches
    table = np.swapaxes(scores, -1, -2).reshape(-1, n_topics * n_runs)
    if not np.issubdtype(table.dtype, np.floating):
        table = table.astype(float)  # as the mean of integers sums them
    offset = np.arange(n_topics) * n_runs
    step = max(1, TUKEY_GATHER // max(n_topics * n_runs, 1))
    gathered = np.empty((min(step, chunk), n_runs, n_topics), dtype=table.dtype)
    trial_means = np.empty((len(table), chunk, n_runs), dtype=means.dtype)
    for start in range(0, replicates, chunk):
        b = min(chunk, replicates - start)
        perm = rng.permuted(np.broadcast_to(np.arange(n_runs), (b, n_topics, n_runs)), axis=-1)
        # gathered[b, r, t] = scores[s, perm[b, t, r], t]
        index = np.swapaxes(perm, -1, -2) + offset
        for s_ in range(len(table)):
            for lo in range(0, b, step):
                part = index[lo:lo + step]
                trial_means[s_, lo:lo + len(part)] = np.take(
                    table[s_], part, mode="clip", out=gathered[:len(part)]).mean(axis=-1)
        spread = trial_means[:, :b].max(axis=-1) - trial_means[:, :b].min(axis=-1)
        spread = np.sort(np.where(np.isnan(spread), -np.inf, spread), axis=-1)
        for k in range(len(spread)):
            reached[k] += b - np.searchsorted(spread[k], threshold[k], side="left")
        if on_block is not None:
            on_block()
    return means[..., i] - means[..., j], resampled_pvalue(
        reached.reshape(observed.shape), replicates, pvalue_rule)


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
