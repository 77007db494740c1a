"""Numpy kernels of :func:`xdiv.compare`: paired differences ``d = x - y`` with topics
along the last axis (``(..., topic)``), reduced to the paired t statistic, effect sizes,
win/tie/loss counts, Fisher's randomisation test with Westfall & Young's MaxT adjustment,
and the bootstrap BCa interval of the mean difference; and Holm's adjustment of a family
of p-values.

The resampling kernels draw their replicates from a :class:`numpy.random.Generator` in
blocks of :data:`xdiv.kernels.meta.CHUNK`, and process the comparisons in slices of a
memory budget, so that memory does not grow with B. A comparison's result depends on its
own differences, the seed and B only (and, for MaxT, on the other comparisons of its
family, as it must): the randomisation test compares its resampled statistics with a
tolerance (:data:`TOLERANCE`) far above float rounding, and the BCa interval resamples
through :func:`xdiv.kernels.meta.resample_sums` (the same tiles whatever the other rows).

:func:`run_randomisation_test` is the randomisation test and MaxT of comparisons of runs
computed from each run's flipped sums (one product per block for all runs; a subtraction
per comparison), with the p-values of :func:`randomisation_test` (rounding bounded and
guarded, see there); both count step-down MaxT exceedances slice by slice, running the
maximum only for the flips whose maximum falls within a slice's thresholds.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import meta as KM

TOLERANCE = 1e-10
"""Resampled statistics within this much of the observed one count as reaching it (on the
scale ``|sum(s d)| / sqrt(n sum(d^2))`` in [0, 1], where float rounding is about 1e-14):
rounding never decides a tie."""

GUARD = TOLERANCE / 100
"""The largest rounding difference :func:`run_randomisation_test` accepts between its
statistics and :func:`randomisation_test`'s; comparisons above it are computed directly."""

TILE_BYTES = 2 ** 19
"""Working memory of one tile of resampled statistics in :func:`run_randomisation_test`."""


def holm(pvalue: np.ndarray, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Holm's step-down procedure (Holm, Scandinavian Journal of Statistics, 1979) over the
    1-d family ``pvalue``: whether each hypothesis is rejected at ``alpha``, and the
    adjusted p-values.

    The operations of statsmodels' ``multipletests(pvalue, alpha, method="holm")`` (the
    same sort, comparisons, products, running maximum and cap, so the same bits, NaN
    included), without its ``gc.collect()`` call (tens of milliseconds each when many
    objects are alive).
    """
    order = np.argsort(pvalue)
    ordered = np.take(pvalue, order)
    steps = np.arange(len(ordered), 0, -1)
    keep = np.nonzero(ordered > alpha / steps)[0]
    reject = np.ones(len(ordered), dtype=bool)
    reject[keep.min() if keep.size else len(ordered):] = False
    adjusted = np.maximum.accumulate(ordered * steps)
    adjusted[adjusted > 1] = 1
    out, rejected = np.empty_like(adjusted), np.empty_like(reject)
    out[order], rejected[order] = adjusted, reject
    return rejected, out


def paired_t(diff: np.ndarray, axis: int = -1):
    """Mean, standard deviation (n - 1 in the denominator) and Student's paired t of
    differences ``d`` along ``axis``: ``t = mean(d) / (sd(d) / sqrt(n))``.

    When ``sd = 0``: ``t = 0`` if ``mean = 0`` (no difference at all; scipy's
    ``ttest_rel`` gives NaN), else ``+-inf`` (as scipy).

    Returns
    -------
    mean, sd, t : numpy.ndarray
        Over ``diff``'s other axes.
    """
    d = np.moveaxis(np.asarray(diff, dtype=float), axis, -1)
    n = d.shape[-1]
    mean = d.mean(axis=-1)
    sd = np.sqrt(((d - mean[..., None]) ** 2).sum(axis=-1) / (n - 1))
    return mean, sd, _ratio(mean, sd / np.sqrt(n))


def two_sample_t(x: np.ndarray, y: np.ndarray, *, equal_var: bool = True, axis: int = -1):
    """Mean difference, its standard error, Student's (``equal_var``, pooled variance) or
    Welch's t of two independent samples ``x`` and ``y`` along ``axis``, the degrees of
    freedom (``nx + ny - 2``, or Welch-Satterthwaite's) and the standardised difference:
    Cohen's ``d = (mean(x) - mean(y)) / s_pooled`` and Hedges' ``g = d J``, ``J = 1 - 3 /
    (4 df - 1)`` with ``df = nx + ny - 2`` (Lakens, Frontiers in Psychology 2013). As
    :func:`paired_t`, ``t = 0`` when both the difference and the standard error are 0
    (scipy's ``ttest_ind`` gives NaN), ``+-inf`` when only the standard error is.

    Returns
    -------
    mean, se, t, df, d, g : numpy.ndarray
        Over the other axes.
    """
    x = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    y = np.moveaxis(np.asarray(y, dtype=float), axis, -1)
    nx, ny = x.shape[-1], y.shape[-1]
    mean = x.mean(axis=-1) - y.mean(axis=-1)
    vx, vy = x.var(axis=-1, ddof=1), y.var(axis=-1, ddof=1)
    pooled = ((nx - 1) * vx + (ny - 1) * vy) / (nx + ny - 2)
    if equal_var:
        se = np.sqrt(pooled * (1.0 / nx + 1.0 / ny))
        df = np.full(np.shape(mean), float(nx + ny - 2))
    else:
        ax, ay = vx / nx, vy / ny
        se = np.sqrt(ax + ay)
        with np.errstate(divide="ignore", invalid="ignore"):
            df = (ax + ay) ** 2 / (ax ** 2 / (nx - 1) + ay ** 2 / (ny - 1))
    d = _ratio(mean, np.sqrt(pooled))
    with np.errstate(invalid="ignore"):
        g = d * (1.0 - 3.0 / (4.0 * (nx + ny - 2) - 1.0))
    return mean, se, _ratio(mean, se), df, d, g


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den``; 0 where both are 0, ``sign(num) inf`` where only ``den`` is."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num / den
        return np.where(den > 0, out, np.where(num == 0, 0.0, np.sign(num) * np.inf))


def effect_sizes(mean: np.ndarray, sd: np.ndarray, n: int):
    """Standardised mean differences of paired data: Cohen's ``d_z = mean / sd`` and
    Hedges' ``g_z = d_z J``, ``J = 1 - 3 / (4 (n - 1) - 1)`` (the small-sample correction
    with ``n - 1`` degrees of freedom; Lakens, Frontiers in Psychology 2013). ``d_z = 0``
    when ``mean = sd = 0``, ``+-inf`` when only ``sd = 0`` (``g_z`` then NaN for
    ``n = 2``, where ``J = 0``)."""
    dz = _ratio(np.asarray(mean, dtype=float), np.asarray(sd, dtype=float))
    with np.errstate(invalid="ignore"):  # n = 2: J = 0, and g_z = 0 inf is NaN
        return dz, dz * (1.0 - 3.0 / (4.0 * (n - 1) - 1.0))


def outcome_counts(diff: np.ndarray, axis: int = -1):
    """Topics won (``d > 0``), tied (``d = 0``) and lost (``d < 0``), as int64."""
    d = np.asarray(diff)
    return ((d > 0).sum(axis=axis, dtype=np.int64), (d == 0).sum(axis=axis, dtype=np.int64),
            (d < 0).sum(axis=axis, dtype=np.int64))


def two_way_residual(scores: np.ndarray):
    """The residual mean square of the two-way (run x topic) analysis of variance without
    replication, and its degrees of freedom: ``V_E = sum (x_rt - x_r. - x_.t + x_..)^2 /
    ((k - 1)(n - 1))`` over ``k`` runs and ``n`` topics, the error variance of Tukey's HSD
    on topic-paired scores (Sakai, *Laboratory Experiments in Information Retrieval*,
    Springer 2018, ch. 4).

    Parameters
    ----------
    scores : numpy.ndarray
        ``(..., run, topic)`` scores (no NaN).

    Returns
    -------
    variance : numpy.ndarray
        ``(...)``.
    df : int
        ``(k - 1)(n - 1)``.
    """
    x = np.asarray(scores, dtype=float)
    k, n = x.shape[-2:]
    residual = (x - x.mean(axis=-1, keepdims=True) - x.mean(axis=-2, keepdims=True)
                + x.mean(axis=(-2, -1), keepdims=True))
    df = (k - 1) * (n - 1)
    return (residual ** 2).sum(axis=(-2, -1)) / df, df


def signed_rank_exact(diff: np.ndarray):
    """Wilcoxon's signed-rank test of each row of ``diff`` under the exact distribution of
    its sign flips, ties and zeros included: the p-values of
    ``scipy.stats.permutation_test`` with every one of the ``2^n`` sign vectors (what
    ``scipy.stats.wilcoxon`` computes for ``n <= 13`` with ties or zeros), from a dynamic
    program over the ranks instead of an enumeration.

    Zero differences are dropped (``zero_method="wilcox"``), the others ranked by ``|d|``
    with tied magnitudes given their mean rank. Under the null each nonzero difference
    carries its rank into ``R+`` with probability 1/2, independently; the doubled mean
    ranks are whole numbers, so the distribution of ``2 R+`` is counted exactly by
    adding one rank at a time (``counts'[s] = counts[s] + counts[s - 2 r_k]``; a zero,
    of rank 0, doubles every count, as its flips do), in ``O(n^3)`` operations a row.
    The two-sided p-value is ``min(1, 2 min(P(R+ <= r), P(R+ >= r)))``, with ``r`` the
    observed ``R+``.

    Parameters
    ----------
    diff : numpy.ndarray
        ``(rows, n)`` paired differences (no NaN), ``n < 53`` (counts stay exact).

    Returns
    -------
    statistic, pvalue : numpy.ndarray
        ``(rows,)``: ``min(R+, R-)`` and the two-sided p-value (statistic 0 and p = 1 for
        a row of zeros).
    """
    d = np.asarray(diff, dtype=float)
    rows, n = d.shape
    magnitude = np.abs(d)
    nonzero = d != 0
    below = ((magnitude[:, None, :] < magnitude[:, :, None]) & nonzero[:, None, :]).sum(-1)
    equal = ((magnitude[:, None, :] == magnitude[:, :, None]) & nonzero[:, None, :]).sum(-1)
    doubled = np.where(nonzero, 2 * below + equal + 1, 0)  # 2 x the mean rank, 0 for zeros
    total = doubled.sum(axis=-1)
    observed = np.where(d > 0, doubled, 0).sum(axis=-1)
    top = int(total.max(initial=0))
    counts = np.zeros((rows, top + 1))
    counts[:, 0] = 1.0
    sums = np.arange(top + 1)
    for k in range(n):
        source = sums[None, :] - doubled[:, k:k + 1]
        shifted = np.take_along_axis(counts, np.maximum(source, 0), axis=-1)
        counts = counts + np.where(source >= 0, shifted, 0.0)
    at_most = np.cumsum(counts, axis=-1)
    below_r = np.take_along_axis(at_most, observed[:, None], axis=-1)[:, 0]
    under_r = np.where(observed > 0, np.take_along_axis(
        at_most, np.maximum(observed - 1, 0)[:, None], axis=-1)[:, 0], 0.0)
    flips = 2.0 ** n
    pvalue = np.minimum(below_r / flips, (flips - under_r) / flips) * 2
    statistic = np.minimum(observed, total - observed) / 2
    return statistic, np.clip(pvalue, 0.0, 1.0)


def sign_flips(n: int, replicates: int, rng: np.random.Generator, chunk: int = KM.CHUNK):
    """The sign-flip resamples of ``n`` paired topics, in blocks ``(b, n)`` of +-1.

    Exact (every one of the 2^n sign vectors once, ``rng`` unused) when
    ``2^n <= replicates``; otherwise ``replicates`` random vectors, each sign drawn
    independently with probability 1/2 (``rng.integers(0, 2, size=(b, n))`` per block of
    ``chunk``).

    Returns
    -------
    exact : bool
    total : int
        Number of sign vectors (2^n when exact, else ``replicates``).
    blocks : iterator of numpy.ndarray
    """
    exact = n < 63 and 2 ** n <= replicates
    total = 2 ** n if exact else replicates

    def blocks():
        bit = np.arange(n, dtype=np.int64)
        for start in range(0, total, chunk):
            b = min(chunk, total - start)
            if exact:
                bits = (np.arange(start, start + b, dtype=np.int64)[:, None] >> bit) & 1
            else:
                bits = rng.integers(0, 2, size=(b, n))
            yield 2.0 * bits - 1.0

    return exact, total, blocks()


def randomisation_test(diff: np.ndarray, *, replicates: int, rng: np.random.Generator,
                       family: np.ndarray | None = None, step_down: bool = False,
                       raw: bool = True, chunk: int = KM.CHUNK, budget: int = KM.BUDGET,
                       on_block: Callable[[], None] | None = None):
    """Fisher's paired randomisation test (random sign flips of the per-topic differences;
    Smucker, Allan & Carterette, CIKM 2007) of many comparisons at once, and Westfall &
    Young's permutation MaxT adjustment (Westfall & Young, *Resampling-Based Multiple
    Testing*, Wiley 1993, algorithms 2.5 and 2.8) over families of them.

    Every comparison sees the same sign-flip vectors (:func:`sign_flips`; one sign per
    topic shared by every comparison, so their joint null, and their dependence, is kept).
    A comparison's statistic is its paired t; as ``sum(d^2)`` is unchanged by sign flips,
    ``|t*| >= |t|`` exactly when ``|mean*| >= |mean|``, so the raw test is the
    randomisation test of the mean difference, with two-sided p-value

    ``p = (1 + #{|mean*| >= |mean|}) / (1 + B)`` for B random flips, and
    ``p = #{|mean*| >= |mean|} / 2^n`` by exact enumeration when ``2^n <= B``.

    MaxT, single step: ``p_k = (1 + #{max_{l in F} |t*_l| >= |t_k|}) / (1 + B)``; step down
    (``step_down=True``): with the family ordered by decreasing ``|t|``, the maximum runs
    over the comparisons ranked at or below k only, and the p-values are made monotone
    (``p_(k) = max(p_(k-1), p_(k))``). Both use the same exact/random rule as the raw test.

    Parameters
    ----------
    diff : numpy.ndarray
        ``(comparison, topic)`` differences; NaN where a comparison does not use a topic
        (a flipped 0 stays 0; ``n`` counts the topics used).
    replicates : int
        Number of random sign-flip vectors B (see :func:`sign_flips`).
    rng : numpy.random.Generator
        Source of the flips.
    family : numpy.ndarray of int, optional
        ``(comparison,)`` family labels for MaxT; None: no MaxT.
    step_down : bool
        Step-down MaxT instead of single step.
    raw : bool
        Compute the raw p-values (else None is returned for them).
    chunk : int
        Flips per block.
    budget : int
        Working memory, in bytes, of one slice of comparisons.
    on_block : callable, optional
        Called after every block of flips (progress bars).

    Returns
    -------
    pvalue, pvalue_maxt : numpy.ndarray or None
        ``(comparison,)``.
    exact : bool
        Whether the flips were enumerated.
    """
    diff = np.asarray(diff, dtype=float)
    rows, topics = diff.shape
    used = ~np.isnan(diff)
    d = np.where(used, diff, 0.0)
    n = used.sum(axis=-1)
    unit, x_obs = _unit(d, n)
    plan = _Families(x_obs, n, family)
    unit = unit[plan.order]
    slice_rows = max(64, budget // (8 * 4 * chunk))
    exact, total, blocks = sign_flips(topics, replicates, rng, chunk)

    def statistics(flips):
        weights = np.ascontiguousarray(flips.T)

        def tile(lo, hi):
            sums = unit[lo:hi] @ weights
            return np.abs(sums, out=sums)
        return tile

    return plan.scan(blocks, statistics, slice_rows, total, exact, raw, step_down,
                     on_block)


def run_randomisation_test(values: np.ndarray, x: np.ndarray, y: np.ndarray, *,
                           replicates: int, rng: np.random.Generator,
                           family: np.ndarray | None = None, step_down: bool = False,
                           raw: bool = True, chunk: int = KM.CHUNK, budget: int = KM.BUDGET,
                           tile_bytes: int = TILE_BYTES,
                           on_block: Callable[[], None] | None = None):
    """:func:`randomisation_test` of the comparisons ``x[c]`` against ``y[c]`` of runs'
    scores, from each run's flipped sums: the same p-values, at a fraction of the work.

    The comparisons are ``diff[s, c] = values[s, x[c]] - values[s, y[c]]``, rows in the
    order of ``diff.reshape(-1, topics)``. A flipped sum of differences is a difference of
    the runs' flipped sums, ``sum_t s_t (x_at - x_bt) = S_a - S_b``, so each block of flips
    costs one ``(sets * runs, topics) @ (topics, b)`` product and, per comparison, a
    subtraction and a scaling (``sum(d^2)`` is unchanged by flips; see
    :func:`randomisation_test`), instead of a ``topics``-long dot product.

    Rounding. ``S_a - S_b`` loses the digits that ``S_a`` and ``S_b`` share: with
    ``|fl(S) - S| <= (n + 1) eps sum_t |x_t|``, the statistic ``|S_a - S_b| / sqrt(n Q)``
    is off by at most ``e = (n + 1) eps (|x_a|_1 + |x_b|_1) / sqrt(n Q) + (n + 4) eps``
    from the direct computation's (itself within ``(n + 1) eps`` of the exact value, as
    ``sum(|unit|) <= 1``). A comparison whose ``e`` exceeds :data:`GUARD` (runs nearly
    or exactly identical, ``Q`` small) has its flipped statistics computed directly, as
    :func:`randomisation_test` does. For every other comparison the two computations
    differ by less than ``GUARD = TOLERANCE / 100``, so a count of exceedances (against
    ``|x_obs| - TOLERANCE``, the observed statistic computed as in
    :func:`randomisation_test`, bit for bit) can differ only when a resampled statistic
    lies within ``2 GUARD`` of a threshold, i.e. within ``1.02e-10`` but not
    ``0.98e-10`` of an observed statistic: ties with the observed value, the only
    near-coincidences that discrete scores produce, are decided alike by both, and the
    families, orders and thresholds are the same arrays.

    Parameters
    ----------
    values : numpy.ndarray
        ``(sets, runs, topics)`` scores; NaN where a set does not use a topic (for every
        run of the set).
    x, y : numpy.ndarray of int
        ``(comparisons,)`` treatment and reference runs.
    family : numpy.ndarray of int, optional
        ``(sets,)`` family label of each set (all its comparisons); None: no MaxT.
    tile_bytes : int
        Working memory of one tile of resampled statistics (sized for the CPU caches).
    replicates, rng, step_down, raw, chunk, budget, on_block
        As :func:`randomisation_test` (``budget`` bounds the observed statistics'
        working memory).

    Returns
    -------
    pvalue, pvalue_maxt : numpy.ndarray or None
        ``(sets * comparisons,)``.
    exact : bool
    """
    values = np.asarray(values, dtype=float)
    sets, n_runs, topics = values.shape
    x, y = np.asarray(x, dtype=np.int64), np.asarray(y, dtype=np.int64)
    missing = np.isnan(values)
    topic_missing = missing.any(axis=1)  # (sets, topics)
    if (missing != topic_missing[:, None, :]).any():
        raise ValueError("run_randomisation_test: a set's NaN must be topics missing for "
                         "every run")
    filled = np.where(missing, 0.0, values)
    n_set = (~topic_missing).sum(axis=-1)
    comps = len(x)
    rows = sets * comps
    n = np.repeat(n_set, comps)
    # observed statistics as randomisation_test computes them, in slices of comparisons
    x_obs = np.empty(rows)
    scale = np.empty(rows)
    step = max(1, budget // (8 * 4 * max(topics, 1)))
    for lo in range(0, rows, step):
        r = np.arange(lo, min(rows, lo + step))
        s, c = r // comps, r % comps
        d = filled[s, x[c]] - filled[s, y[c]]
        sq = np.sqrt(n[r] * (d ** 2).sum(axis=-1))
        scale[lo:lo + step] = sq
        x_obs[lo:lo + step] = _unit(d, n[r])[1]
    l1 = np.abs(filled).sum(axis=-1)  # (sets, runs)
    s_of, c_of = np.divmod(np.arange(rows), comps)
    eps = np.finfo(float).eps
    with np.errstate(divide="ignore", invalid="ignore"):
        error = ((n + 1) * eps * (l1[s_of, x[c_of]] + l1[s_of, y[c_of]]) / scale
                 + (n + 4) * eps)
    direct = ~(error <= GUARD)  # also Q = 0 (scale 0: error inf or NaN)
    plan = _Families(x_obs, n, None if family is None else np.repeat(np.asarray(family),
                                                                     comps))
    order = plan.order
    s_o, c_o = s_of[order], c_of[order]
    ia, ib = s_o * n_runs + x[c_o], s_o * n_runs + y[c_o]
    with np.errstate(divide="ignore"):
        inv = np.where(direct[order], 0.0, 1.0 / scale[order])
    guarded = np.flatnonzero(direct[order])  # ordered positions computed directly
    if len(guarded):
        gr = order[guarded]
        gd = filled[s_of[gr], x[c_of[gr]]] - filled[s_of[gr], y[c_of[gr]]]
        g_unit = _unit(gd, n[gr])[0]
    flat = filled.reshape(sets * n_runs, topics)
    exact, total, blocks = sign_flips(topics, replicates, rng, chunk)
    tile_rows = max(8, tile_bytes // (8 * chunk))
    buf_a = np.empty((tile_rows, chunk))
    buf_b = np.empty((tile_rows, chunk))

    def statistics(flips):
        weights = np.ascontiguousarray(flips.T)
        sums = flat @ weights  # (sets * runs, b)
        b = len(flips)
        g_stat = np.abs(g_unit @ weights) if len(guarded) else None

        def tile(lo, hi):
            a = np.take(sums, ia[lo:hi], axis=0, out=buf_a[:hi - lo, :b], mode="clip")
            o = np.take(sums, ib[lo:hi], axis=0, out=buf_b[:hi - lo, :b], mode="clip")
            np.subtract(a, o, out=a)
            np.abs(a, out=a)
            np.multiply(a, inv[lo:hi, None], out=a)
            if g_stat is not None:
                first, last = np.searchsorted(guarded, [lo, hi])
                if last > first:
                    a[guarded[first:last] - lo] = g_stat[first:last]
            return a
        return tile

    return plan.scan(blocks, statistics, tile_rows, total, exact, raw, step_down,
                     on_block)


def _unit(d: np.ndarray, n: np.ndarray):
    """``unit = d / sqrt(n sum(d^2))`` (``d`` where ``sum(d^2) = 0``) and the observed
    statistics ``|sum(unit)|``, row by row (the same bits whatever the other rows)."""
    scale = np.sqrt(n * (d ** 2).sum(axis=-1))
    scale = np.where(scale > 0, scale, 1.0)
    unit = d / scale[:, None]  # |sum(s unit)| = |sum(s d)| / sqrt(n Q), in [0, 1]
    return unit, np.abs(unit.sum(axis=-1))


class _Families:
    """The comparisons ordered family by family, each by decreasing ``|t|``, with their
    thresholds; :meth:`scan` counts the resampled statistics that reach them."""

    def __init__(self, x_obs: np.ndarray, n: np.ndarray, family: np.ndarray | None):
        rows = len(x_obs)
        x_thr = x_obs - TOLERANCE
        self.family = family is not None
        labels = np.zeros(rows, dtype=np.int64) if family is None else np.asarray(family)
        segments = []  # per family: rows (by decreasing |t|), common-scale thresholds, n
        for label in np.unique(labels):
            members = np.flatnonzero(labels == label)
            mixed = len(np.unique(n[members])) > 1
            key = _common(x_obs[members], n[members]) if mixed else x_obs[members]
            members = members[np.argsort(-key, kind="stable")]
            threshold = (_common(np.maximum(x_thr[members], 0.0), n[members]) if mixed
                         else x_thr[members])
            segments.append((members, threshold, n[members] if mixed else None))
        self.segments = segments
        self.order = np.concatenate([m for m, _, _ in segments])
        self.thr_raw = x_thr[self.order]
        self.bounds = np.cumsum([0] + [len(m) for m, _, _ in segments])
        self.rows = rows

    def scan(self, blocks, statistics, slice_rows, total, exact, raw, step_down,
             on_block):
        """Run the blocks of flips: ``statistics(flips)`` gives ``tile(lo, hi)``, the
        ``(hi - lo, b)`` resampled statistics ``|sum(s unit)|`` of the ordered rows
        ``lo:hi``; returns the p-values (see :func:`randomisation_test`)."""
        rows, segments, bounds, thr_raw = self.rows, self.segments, self.bounds, self.thr_raw
        family = self.family
        raw_count = np.zeros(rows)
        maxt_count = np.zeros(rows)
        for flips in blocks:
            tile = statistics(flips)
            carry = np.full((len(segments), len(flips)), -np.inf)
            # from the bottom up, so that ``carry`` is each family's maximum below the slice
            for hi in range(rows, 0, -slice_rows):
                lo = max(0, hi - slice_rows)
                sums = tile(lo, hi)
                if raw:
                    raw_count[lo:hi] += (sums >= thr_raw[lo:hi, None]).sum(axis=-1)
                if not family:
                    continue
                for f, (_, threshold, mixed_n) in enumerate(segments):
                    top, bottom = max(lo, bounds[f]), min(hi, bounds[f + 1])
                    if top >= bottom:
                        continue
                    part = sums[top - lo:bottom - lo]
                    a, b = top - bounds[f], bottom - bounds[f]  # within the family
                    if mixed_n is not None:
                        part = _common(part, mixed_n[a:b, None])
                    if step_down:
                        _step_down(part, threshold[a:b], carry[f], maxt_count[top:bottom])
                    else:
                        np.maximum(carry[f], part.max(axis=0), out=carry[f])
            if family and not step_down:
                for f, (_, threshold, _) in enumerate(segments):
                    reached = np.sort(carry[f])
                    maxt_count[bounds[f]:bounds[f + 1]] += len(reached) - np.searchsorted(
                        reached, threshold, side="left")
            if on_block is not None:
                on_block()
        pvalue = maxt = None
        if raw:
            pvalue = np.empty(rows)
            pvalue[self.order] = _pvalue(raw_count, total, exact)
        if family:
            adjusted = _pvalue(maxt_count, total, exact)
            if step_down:
                for f in range(len(segments)):
                    part = adjusted[bounds[f]:bounds[f + 1]]
                    adjusted[bounds[f]:bounds[f + 1]] = np.maximum.accumulate(part)
            maxt = np.empty(rows)
            maxt[self.order] = adjusted
        return pvalue, maxt, exact


def _step_down(part: np.ndarray, threshold: np.ndarray, carry: np.ndarray,
               count: np.ndarray) -> None:
    """One slice of a step-down family: ``count[k] += #{flips: R_k >= threshold[k]}``
    with ``R_k = max(carry, part[k:].max(axis=0))`` (the maximum over the comparisons
    ranked at or below k), and ``carry`` updated in place to ``R_0``.

    A flip whose ``carry`` already reaches the slice's largest threshold reaches every
    one, and one whose ``R_0`` misses the smallest reaches none: only the other flips
    (few: those whose maximum lies within the slice's range of thresholds) need the
    running maximum; the counts are those of the running maximum of every flip."""
    top = part.max(axis=0)
    reached = np.maximum(carry, top)
    every = carry >= threshold.max()
    some = ~every & (reached >= threshold.min())
    count += np.count_nonzero(every)
    if some.any():
        sub = part[:, some]
        running = np.maximum.accumulate(sub[::-1], axis=0)[::-1]
        np.maximum(running, carry[some], out=running)
        count += (running >= threshold[:, None]).sum(axis=-1)
    carry[...] = reached


def _pvalue(count: np.ndarray, total: int, exact: bool) -> np.ndarray:
    """Exact enumeration: the share of the ``2^n`` sign vectors; random flips: the rule
    ``"plus-one"`` of :func:`xdiv.kernels.meta.resampled_pvalue`."""
    return np.minimum(count / total if exact else KM.resampled_pvalue(count, total), 1.0)


def _common(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``|t| = sqrt(n - 1) x / sqrt(1 - x^2)`` from ``x = |sum(s d)| / sqrt(n sum(d^2))``
    (infinite at x = 1): the scale on which comparisons of different n are compared."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.sqrt(n - 1.0) * x / np.sqrt(np.maximum(1.0 - x * x, 0.0))
    return np.where(x >= 1.0, np.inf, t)


def bca_interval(diff: np.ndarray, *, replicates: int, rng: np.random.Generator,
                 alpha: float, norm_cdf: Callable, norm_ppf: Callable,
                 chunk: int = KM.CHUNK, budget: int = KM.BUDGET):
    """The bias-corrected and accelerated (BCa) bootstrap interval of the mean of paired
    differences (Efron & Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall
    1993, ch. 14.3), at level ``1 - alpha``, for many series at once.

    The resamples are the paired bootstrap test's (:func:`xdiv.kernels.meta.
    bootstrap_counts`, in blocks of ``chunk``), the same for every series; series are
    processed in slices that fit ``budget`` (each slice replays the same draws). As
    ``scipy.stats.bootstrap(method="BCa")``: ``z0 = Phi^-1((#{m* < m} + #{m* <= m}) /
    (2B))``, the acceleration ``a = sum(U^3) / (6 (sum(U^2))^(3/2))`` from the jackknife
    means (``U_i = (n - 1)(mean_jack - m_(i))``), the levels
    ``alpha_1,2 = Phi(z0 + (z0 + z) / (1 - a (z0 + z)))`` for ``z = Phi^-1(alpha / 2)``
    and ``Phi^-1(1 - alpha / 2)``, and the bounds the linearly interpolated quantiles of
    the resampled means at those levels. A series whose differences are all equal has
    ``a = 0`` (scipy: NaN) and the interval ``[m, m]``.

    Parameters
    ----------
    diff : numpy.ndarray
        ``(series, topic)`` differences (no NaN).
    replicates, rng : int, numpy.random.Generator
        B and the source of the resamples.
    alpha : float
        One minus the confidence level.
    norm_cdf, norm_ppf : callable
        The standard normal distribution function and its inverse (``scipy.special.ndtr``
        and ``ndtri``; passed in, so that the kernels need numpy only).

    Returns
    -------
    low, high : numpy.ndarray
        ``(series,)``.
    """
    diff = np.asarray(diff, dtype=float)
    rows, n = diff.shape
    mean = diff.mean(axis=-1)
    jack = (diff.sum(axis=-1)[:, None] - diff) / (n - 1)
    u = (n - 1) * (jack.mean(axis=-1)[:, None] - jack)
    with np.errstate(divide="ignore", invalid="ignore"):
        accel = ((u ** 3).sum(axis=-1) / n ** 3) / (6 * ((u ** 2).sum(axis=-1) / n ** 2) ** 1.5)
    accel = np.where(np.isfinite(accel), accel, 0.0)
    tol = 1e-12 * np.abs(diff).max(axis=-1)
    z = np.array([norm_ppf(alpha / 2), norm_ppf(1 - alpha / 2)])
    low, high = np.empty(rows), np.empty(rows)
    per_row = 8 * 3 * replicates
    slice_rows = max(1, budget // (per_row * KM.TILE)) * KM.TILE
    start_state = rng.bit_generator.state
    for lo in range(0, rows, slice_rows):
        rng.bit_generator.state = start_state
        part = diff[lo:lo + slice_rows]
        means = np.empty((len(part), replicates))
        for start in range(0, replicates, chunk):
            b = min(chunk, replicates - start)
            means[:, start:start + b] = KM.resample_sums(part, KM.bootstrap_counts(rng, n, b)) / n
        m = mean[lo:lo + slice_rows, None]
        t = tol[lo:lo + slice_rows, None]
        share = ((means < m - t).sum(axis=-1) + (means <= m + t).sum(axis=-1)) / (2 * replicates)
        z0 = norm_ppf(share)[:, None]
        a = accel[lo:lo + slice_rows, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            levels = norm_cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))  # (rows, 2)
        levels = np.where(np.isnan(levels), np.where(z < 0, 0.0, 1.0), levels)
        means.sort(axis=-1)
        position = levels * (replicates - 1)
        below = np.clip(np.floor(position).astype(np.int64), 0, replicates - 1)
        above = np.minimum(below + 1, replicates - 1)
        frac = position - below
        a_val = np.take_along_axis(means, below, axis=-1)
        b_val = np.take_along_axis(means, above, axis=-1)
        bounds = a_val + (b_val - a_val) * frac
        low[lo:lo + slice_rows], high[lo:lo + slice_rows] = bounds[:, 0], bounds[:, 1]
    return low, high
