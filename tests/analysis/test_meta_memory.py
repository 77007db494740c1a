"""Resampling tests in blocks: the streaming kernels give exactly what an all-replicates-
in-memory computation gives, and ``xdiv meta`` with a large B keeps a bounded memory."""

from __future__ import annotations

import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
import xarray as xr

import xdiv
from xdiv import meta
from xdiv.kernels import meta as K


# --- straightforward references: every replicate in memory ---------------------------------

def reference_bootstrap(diff, replicates, rng, alpha, chunk=K.CHUNK):
    """All B replicates' |t*| and |mean*| kept, then the ASL by counting and the required
    difference by sorting every replicate (earlier replicate first among equal |t*|, NaN
    last). The replicate statistics are computed block by block with the same arithmetic
    as the kernel (its tiled matrix products included), so the two must agree bit for
    bit."""
    shape = diff.shape[:-1]
    diff = diff.reshape(-1, diff.shape[-1])
    n = diff.shape[-1]
    mean = diff.mean(axis=-1)
    t_obs = K._t_statistic(mean, (diff ** 2).sum(axis=-1), n)
    centred = diff - mean[..., None]
    abs_t, abs_mean = [], []
    for start in range(0, replicates, chunk):
        b = min(chunk, replicates - start)
        picks = rng.integers(0, n, size=(b, n))
        counts = np.zeros((b, n))
        for row, topics in enumerate(picks):
            for topic in topics:
                counts[row, topic] += 1.0
        boot_mean = K.resample_sums(centred, counts) / n
        abs_t.append(np.abs(K._t_statistic(boot_mean, K.resample_sums(centred ** 2, counts),
                                           n)))
        abs_mean.append(np.abs(boot_mean))
    abs_t = np.concatenate(abs_t, axis=-1)
    abs_mean = np.concatenate(abs_mean, axis=-1)
    # (c + 1) / (B + 1): the observed data count as one resample (Phipson & Smyth, 2010)
    asl = ((abs_t >= np.abs(t_obs)[..., None]).sum(axis=-1) + 1.0) / (replicates + 1.0)
    rank = max(int(round(replicates * alpha)), 1)
    delta = np.empty(diff.shape[:-1])
    for index in np.ndindex(*diff.shape[:-1]):
        row = abs_t[index]
        order = sorted(range(replicates),
                       key=lambda r: (math.isnan(row[r]), -row[r] if row[r] == row[r] else 0, r))
        delta[index] = abs_mean[index][order[rank - 1]]
    return tuple(v.reshape(shape) for v in (mean, t_obs, asl, delta))


def reference_tukey(scores, replicates, rng, chunk=K.CHUNK):
    """Every trial's range of run means kept, then a pair's ASL by counting."""
    n_runs, n_topics = scores.shape[-2:]
    i, j = K.pair_index(n_runs)
    means = scores.mean(axis=-1)
    spreads = []
    for start in range(0, replicates, chunk):
        b = min(chunk, replicates - start)
        perm = rng.permuted(np.broadcast_to(np.arange(n_runs), (b, n_topics, n_runs)), axis=-1)
        block = np.empty(scores.shape[:-2] + (b,))
        for trial in range(b):
            shuffled = np.empty(scores.shape)
            for topic in range(n_topics):
                shuffled[..., :, topic] = scores[..., perm[trial, topic], topic]
            trial_means = shuffled.mean(axis=-1)
            block[..., trial] = trial_means.max(axis=-1) - trial_means.min(axis=-1)
        spreads.append(block)
    spread = np.concatenate(spreads, axis=-1)  # (..., B)
    observed = np.abs(means[..., i] - means[..., j])
    reached = (spread[..., None, :] >= observed[..., :, None] - 1e-12).sum(axis=-1)
    return means[..., i] - means[..., j], (reached + 1.0) / (replicates + 1.0)


def pair_differences(values):
    i, j = K.pair_index(values.shape[-2])
    return values[..., i, :] - values[..., j, :]


def assert_bits_equal(got, want):
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        assert g.tobytes() == w.tobytes()  # NaN positions included


# --- (1) the streaming kernels against the references --------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("replicates, alpha", [(1, 0.05), (249, 0.05), (251, 0.05),
                                               (777, 0.05), (1234, 0.01), (1900, 0.2),
                                               (600, 0.9)])
def test_bootstrap_kernel_equals_all_replicates_in_memory(seed, replicates, alpha):
    rng = np.random.default_rng(100 + seed)
    values = rng.random((2, 5, 9)) + np.linspace(0, 0.3, 5)[None, :, None]
    values[1, 3] = values[1, 1]  # a pair with no difference: every |t*| is 0, all tied
    values[0, 4] = np.round(values[0, 4], 1)  # coarse scores: repeated |t*|
    diff = pair_differences(values)
    want = reference_bootstrap(diff, replicates, np.random.default_rng(seed), alpha)
    got = K.paired_bootstrap(diff, replicates=replicates, rng=np.random.default_rng(seed),
                             alpha=alpha)
    assert_bits_equal(got, want)


@pytest.mark.parametrize("budget", [1, 10 ** 10])
def test_bootstrap_kernel_in_slices_of_pairs_is_bit_identical(budget, monkeypatch):
    # slices of 1, a few and many series each replay the same resamples: the results are
    # those of the reference computed with every replicate in memory, bit for bit, and the
    # generator ends where the unsliced test leaves it
    rng = np.random.default_rng(4)
    values = rng.random((2, 35, 12)) + np.linspace(0, 0.2, 35)[None, :, None]
    monkeypatch.setattr(K, "TILE", 256)  # 2 x 595 series: five slices at the least budget
    diff = pair_differences(values)
    want = reference_bootstrap(diff, 600, np.random.default_rng(8), 0.05)
    shares = []
    source = np.random.default_rng(8)
    got = K.paired_bootstrap(diff, replicates=600, rng=source, alpha=0.05, budget=budget,
                             on_block=shares.append)
    assert_bits_equal(got, want)
    assert math.isclose(sum(shares), K.n_blocks(600))
    after = np.random.default_rng(8)
    K.paired_bootstrap(diff, replicates=600, rng=after, alpha=0.05)
    assert source.random() == after.random()


@pytest.mark.parametrize("rows", [1, K.TILE - 1, K.TILE, K.TILE + 1, 2 * K.TILE + 37])
def test_resample_sums_is_the_matrix_product_by_tiles(rows):
    # the reference sums each row's resampled values by itself: the tiles (the last one
    # padded) must neither drop, repeat nor shift a row
    rng = np.random.default_rng(rows)
    values = rng.normal(size=(rows, 25))
    counts = rng.multinomial(25, np.full(25, 1 / 25), size=40).astype(float)
    got = K.resample_sums(values, counts)
    want = np.array([[math.fsum(v * c) for c in counts] for v in values])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # a row's bits do not depend on the rows computed with it
    np.testing.assert_array_equal(K.resample_sums(values[-1:], counts), got[-1:])


@pytest.mark.parametrize("seed", [0, 5, 9])
@pytest.mark.parametrize("chunk", [7, 250])
def test_bootstrap_kernel_with_heavy_ties_and_infinite_t(seed, chunk):
    # 3 topics: only 10 distinct resamples, so |t*| ties everywhere, and every resample
    # that picks one topic three times has sd = 0 and |t*| = inf
    rng = np.random.default_rng(seed)
    values = np.round(rng.random((1, 6, 3)), 1)
    diff = pair_differences(values)
    for replicates in (40, 503, 1000):
        for alpha in (0.05, 0.5):
            want = reference_bootstrap(diff, replicates, np.random.default_rng(seed), alpha,
                                       chunk=chunk)
            got = K.paired_bootstrap(diff, replicates=replicates, alpha=alpha, chunk=chunk,
                                     rng=np.random.default_rng(seed))
            assert_bits_equal(got, want)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_bootstrap_kernel_with_nan_statistics_and_another_axis():
    rng = np.random.default_rng(4)
    diff = rng.random((3, 8)) - 0.5
    diff[1, 2] = np.inf  # centred differences NaN: every |t*| of this series is NaN
    want = reference_bootstrap(diff, 620, np.random.default_rng(6), 0.05)
    got = K.paired_bootstrap(diff, replicates=620, rng=np.random.default_rng(6), alpha=0.05)
    assert_bits_equal(got, want)
    moved = K.paired_bootstrap(diff.T, axis=0, replicates=620, rng=np.random.default_rng(6),
                               alpha=0.05)
    assert_bits_equal(moved, want)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("replicates", [1, 250, 333, 1001])
def test_tukey_kernel_equals_all_trials_in_memory(seed, replicates):
    rng = np.random.default_rng(200 + seed)
    values = rng.random((2, 4, 7)) + np.linspace(0, 0.2, 4)[None, :, None]
    values[1, 2] = values[1, 0]  # tied means
    want = reference_tukey(values, replicates, np.random.default_rng(seed))
    got = K.randomised_tukey(values, replicates=replicates, rng=np.random.default_rng(seed))
    assert_bits_equal(got, want)


@pytest.mark.parametrize("k, block", [(1, 5), (3, 4), (17, 5), (40, 3), (64, 64)])
def test_running_top_keeps_the_first_k_of_a_stream(k, block):
    rng = np.random.default_rng(k)
    stream = rng.integers(0, 6, size=(4, 3, 211)).astype(float)  # many equal keys
    stream[0, 0, ::7] = np.nan
    stream[1, 2] = np.nan
    stream[2, 1, ::5] = np.inf
    values = rng.random(stream.shape)
    top = K.RunningTop(stream.shape[:-1], k, block)
    for start in range(0, stream.shape[-1], block):
        top.add(stream[..., start:start + block], values[..., start:start + block])
    got = top.kth_value()
    for index in np.ndindex(*stream.shape[:-1]):
        row = stream[index]
        order = sorted(range(len(row)), key=lambda r: (math.isnan(row[r]),
                                                       -row[r] if row[r] == row[r] else 0, r))
        assert got[index] == values[index][order[k - 1]]


def test_kernels_report_every_block_and_results_do_not_depend_on_progress():
    values = np.random.default_rng(3).random((2, 4, 10))
    calls = []
    K.paired_bootstrap(pair_differences(values), replicates=1001, alpha=0.05,
                       rng=np.random.default_rng(0), on_block=lambda share: calls.append("b"))
    K.randomised_tukey(values, replicates=501, rng=np.random.default_rng(0),
                       on_block=lambda: calls.append("t"))
    assert calls.count("b") == K.n_blocks(1001) == 5 and calls.count("t") == K.n_blocks(501)
    scores = xr.Dataset({"score": (("metric", "run", "topic"), values)},
                        coords={"metric": ["a", "b"], "run": list("wxyz"),
                                "topic": [str(t) for t in range(10)]})
    for method in ("bootstrap", "tukey"):
        quiet = meta.discriminative_power(scores, method, B=600, seed=2)
        shown = meta.discriminative_power(scores, method, B=600, seed=2, progress=True)
        xr.testing.assert_identical(quiet, shown)


def test_bootstrap_kernel_rejects_a_rank_beyond_the_replicates():
    with pytest.raises(xdiv.InputError, match="needs the 20-th of 10 replicates"):
        K.paired_bootstrap(np.ones((1, 5)), replicates=10, alpha=2.0,
                           rng=np.random.default_rng(0))


# --- (2) memory of `xdiv meta` with a large B ----------------------------------------------

PEAK_RSS = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(peak / 1024 if sys.platform != "darwin" else peak / 2 ** 20)
"""
"""Runs a command and prints its peak resident set size in MiB (in a process of its own,
so that the RUSAGE_CHILDREN maximum covers that command only)."""


def test_meta_with_a_large_B_keeps_memory_bounded(tmp_path):
    # 20 runs (190 pairs) x 4 metrics x 10 topics, B = 50000: the former kernel kept every
    # replicate's |t*| and |mean*| (each 760 x 50000 float64 = 290 MiB, with its
    # concatenation, negation and argsort: a peak of 1985 MiB measured); in blocks it is
    # about 380 MiB
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        col, runs = xdiv.datasets.synthetic(n_topics=10, n_runs=20, depth=20, seed=5)
        scores = xdiv.evaluate(runs, col, ["alpha-nDCG@10", "ERR-IA@10", "I-rec@10",
                                           "D#-nDCG@10"])
    path = xdiv.to_netcdf(scores, tmp_path / "cube.nc")
    proc = subprocess.run([sys.executable, "-c", PEAK_RSS, sys.executable, "-m", "xdiv.cli",
                           "meta", path, "-B", "50000", "--test", "both", "--seed", "3",
                           "-o", str(tmp_path / "meta.nc")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    peak_mib = float(proc.stdout.split()[-1])
    assert peak_mib < 1024, f"xdiv meta -B 50000 peaked at {peak_mib:.0f} MiB"
    result = xdiv.open_dataset(tmp_path / "meta.nc")
    assert result.sizes["test"] == 2 and int(result.attrs["B"]) == 50000
