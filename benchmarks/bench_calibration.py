"""Benchmark: calibration of :func:`xdiv.compare` under null data (issue 27): the type I
error of each uncorrected test at alpha = 0.05, and the FWER / FDR of each correction over
families of 10, 45 and 190 comparisons, plus one scenario with true effects (power).

Usage: python benchmarks/bench_calibration.py [--replicates 10000] [--seed S] [--quick]
       [--jobs 2] [--B 1000] [--nonnull-replicates N]

Null generators (50 topics each, runs exchangeable within every topic, so that every pair
of runs is a true null for every test):

``normal``
    A realistic correlated null: topic difficulty ``mu_i ~ Beta(2, 3)`` (mean 0.4, sd 0.2)
    shared by every run, plus run noise ``e_ij ~ N(0, 0.1^2)`` independent over runs and
    topics, the same distribution for every run; ``score = clip(mu_i + e_ij, 0, 1)``. Two
    runs correlate about 0.8 over topics. The per-topic differences are symmetric about 0
    and nearly normal: the assumptions of every test hold (the t test's approximately:
    clipping makes the differences slightly non-normal on very easy or hard topics).
``skewed``
    Skewed, bounded, zero-inflated per-topic noise, like alpha-nDCG@20 in TREC 2009 (35 %
    zeros, mean 0.19): ``mu_i ~ Beta(1.2, 3.5)``; a score is 0 with probability
    ``pi_i = 0.8 (1 - mu_i)^3`` (hard topics: many runs score 0, so differences tie at 0),
    else ``Beta(2 m_i, 2 (1 - m_i))`` with ``m_i = clip(mu_i / (1 - pi_i), 0.02, 0.95)``
    (U- or J-shaped, bounded). About 39 % zeros, mean 0.26. Differences are symmetric
    (runs are exchangeable) but far from normal: an atom at 0 and heavy, topic-dependent
    tails; the t test's normality assumption does not hold, nor does the Wilcoxon test's
    continuity (ties: zeros are dropped and the normal approximation is used).
``trec2009``
    The real alpha-nDCG@20 scores of the 18 TREC 2009 Web Track diversity runs (50 topics,
    evaluated once with ``xdiv.evaluate``, ``order="rank"``), with the run labels permuted
    within every topic, a fresh permutation per replicate (a family over k runs takes the
    first k positions, i.e. k distinct runs drawn per topic). Every run is exchangeable;
    35 % of the scores are 0. As 18 runs give at most 153 pairs, its largest family is
    the 153 pairs of 18 runs (not 190).

Estimates (alpha = 0.05; ``significant = pvalue_adjusted < alpha``):

- Type I error: the share of null replicates in which one pre-chosen comparison (run
  ``r01`` against baseline ``r00``, a cube of two runs) is significant, uncorrected; its
  binomial standard error ``sqrt(p (1 - p) / R)``. Tukey's HSD is adjusted over all the
  pairs of its cube, which here is the one pair: it is uncorrected as well. The sign test
  is discrete: with 50 untied topics its largest attainable level below 0.05 is 0.0328
  (two-sided binomial, ``p < 0.05`` needs ``min(wins, losses) <= 17``), 0.0357 with 45
  and 0.0385 with 40 (ties, here scores clipped or 0 for both runs, are dropped), so a
  rate of 0.033-0.039 is the sign test's calibrated value, not a failure.
- FWER: the share of replicates with at least one false rejection among the family's
  comparisons, for Bonferroni, Holm, MaxT (single step and step down; on the t test), Tukey
  HSD, BH and BY (on the t test), over three families: 1 baseline against 10 runs (10
  comparisons), all pairs of 10 runs (45), all pairs of 20 runs (190; 153 for
  ``trec2009``). Under the complete null every rejection is false, so FDR = FWER and one
  table shows both. Tukey's family is all the pairs of the cube: with a baseline it
  adjusts over the 55 pairs of 11 runs, of which the 10 baseline comparisons are counted.
- Non-null scenario (``normal`` generator, ``--nonnull-replicates``, by default a quarter
  of ``--replicates``): a few runs truly better by ``DELTA = 0.04`` (added to their
  scores before clipping): 3 of the 10 runs against the baseline, 3 of 10 runs (21 of 45
  pairs non-null), 5 of 20 runs (75 of 190 pairs non-null). FWER = share of replicates
  with a false rejection; FDR = mean of ``V / R`` (0 when nothing is rejected); power =
  mean share of the non-null comparisons rejected. Standard errors: binomial for shares,
  ``sd / sqrt(R)`` for the means of ``V / R`` and of the power.

Vectorisation: replicates are batched as *metrics*. One :func:`xdiv.compare` call gets a
cube ``score(metric = replicate, run, topic)`` of ``CHUNK = 250`` replicates, and
``family="metric"`` (the default) corrects each replicate on its own; so one call runs
250 replicates. Within a call every metric shares the same resamples (the same seed), so
each chunk gets its own seed (``numpy.random.SeedSequence([seed, kind, generator, family,
chunk])`` seeds both the data and ``compare``): the Monte-Carlo error of the resampling
p-values is then independent across the 40 chunks of 10,000 replicates and averages out.

Resampling tests use ``B`` = 1000 resamples (``--B``). Their p-values
``(1 + #) / (1 + B)`` are valid for any B under the null (the randomisation and MaxT
ones exactly), so B changes the power, not the size; the Monte-Carlo sd of a p-value
near 0.05 is ``sqrt(0.05 * 0.95 / 1000) = 0.007``, small against alpha, and as it is
independent between chunks it adds little to the replicate-level binomial error: even if
the replicates of a chunk shared their Monte-Carlo error entirely (they share the resamples
but not the data, so they do not), it would move a chunk's rejection rate by about 0.007,
which averages over the 40 chunks of 10,000 replicates to an sd of about 0.001. The
bootstrap test's ``#{|t*| >= |t|} / B`` is not exact at any B. With ties (the zero
differences of ``skewed`` and ``trec2009``) the sign and Wilcoxon tests drop the tied
topics, so their attainable levels change from replicate to replicate.

Holm in statsmodels calls ``gc.collect()`` on every call (20-30 ms in a process holding
xarray and pandas; compare calls it once per metric, i.e. per replicate): every compare
call here runs under ``gc.freeze()``, which makes that collection cheap without changing
a result.

Printed: Markdown tables (test x generator: type I error +- SE; generator and family x
correction: FWER (= FDR) +- SE; the non-null scenario), the cells outside the issue's
targets, the wall time and the exact command line (with the seed: without ``--seed`` a
fresh one is drawn and printed).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import glob
import os
import shlex
import sys
import time
from pathlib import Path

ALPHA = 0.05
N_TOPICS = 50
CHUNK = 250
DELTA = 0.04
GENERATORS = ("normal", "skewed", "trec2009")
TESTS = ("t", "wilcoxon", "sign", "permutation", "bootstrap", "tukey")
CORRECTIONS = ("none", "bonferroni", "holm", "maxt", "maxt-stepdown", "tukey", "fdr_bh",
               "fdr_by")
FAMILIES = (10, 45, 190)
TREC_2009 = Path(__file__).resolve().parents[1] / ".." / "shared" / "reference" / "trec-web" / "2009"
_REAL = {}  # "trec2009": the (18, 50) score matrix, loaded once (before the workers fork)


# ---------------------------------------------------------------------------- data

def trec2009_scores(root: Path = TREC_2009):
    """alpha-nDCG@20 of the 18 TREC 2009 diversity runs: a (run, topic) array."""
    import warnings

    import xdiv

    paths = sorted(glob.glob(str(root / "runs" / "*.gz")))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # some runs' rank and score orders differ
        scores = xdiv.evaluate(xdiv.read_runs(paths, order="rank"),
                               xdiv.read_qrels(root / "qrels.diversity.gz"),
                               ["alpha-nDCG@20"])
    return scores["score"].values[0]


def family_shape(size: int, generator: str) -> tuple[int, str | None, int]:
    """(runs in the cube, baseline or None for all pairs, comparisons) of a family."""
    if size == 10:
        return 11, "r00", 10
    if size == 45:
        return 10, None, 45
    if generator == "trec2009":
        return 18, None, 153
    return 20, None, 190


def draw(generator: str, rng, replicates: int, n_runs: int, shift=None):
    """Null scores ``(replicate, run, topic)``; ``shift`` (per run) adds true effects."""
    import numpy as np

    shape = (replicates, n_runs, N_TOPICS)
    if generator == "normal":
        mu = rng.beta(2.0, 3.0, size=(replicates, 1, N_TOPICS))
        scores = mu + rng.normal(0.0, 0.1, size=shape)
        if shift is not None:
            scores = scores + np.asarray(shift)[None, :, None]
        return np.clip(scores, 0.0, 1.0)
    if shift is not None:
        raise ValueError("true effects are drawn on the normal generator only")
    if generator == "skewed":
        mu = rng.beta(1.2, 3.5, size=(replicates, 1, N_TOPICS))
        zero = 0.8 * (1.0 - mu) ** 3
        m = np.clip(mu / (1.0 - zero), 0.02, 0.95)
        positive = rng.beta(np.broadcast_to(2 * m, shape), np.broadcast_to(2 * (1 - m), shape))
        return np.where(rng.random(shape) < zero, 0.0, positive)
    if generator == "trec2009":
        real = _REAL.get("trec2009")
        if real is None:
            real = _REAL["trec2009"] = trec2009_scores()
        total, topics = real.shape
        # a fresh permutation of the run labels within every topic, per replicate
        perm = rng.permuted(np.broadcast_to(np.arange(total), (replicates, topics, total)),
                            axis=-1)[:, :, :n_runs]
        return real[perm.transpose(0, 2, 1), np.arange(topics)[None, None, :]]
    raise ValueError(f"unknown generator {generator!r}")


def cube(scores):
    import numpy as np
    import xarray as xr

    reps, runs, topics = scores.shape
    return xr.Dataset({"score": (("metric", "run", "topic"), np.asarray(scores, dtype=float))},
                      coords={"metric": [f"rep{k}" for k in range(reps)],
                              "run": [f"r{k:02d}" for k in range(runs)],
                              "topic": [str(t) for t in range(topics)]})


@contextlib.contextmanager
def frozen_gc():
    """Objects alive now skip the garbage collector's scans (statsmodels' Holm calls
    ``gc.collect()`` on every call)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _seeds(seed: int, *key: int):
    """(data generator, compare seed) of one task, from ``SeedSequence([seed, *key])``."""
    import numpy as np

    data, resampling = np.random.SeedSequence([seed, *key]).spawn(2)
    return np.random.default_rng(data), int(resampling.generate_state(1)[0])


# ---------------------------------------------------------------------------- estimates

def type_one(generator: str, replicates: int, seed: int, B: int = 1000, chunk: int = 0,
             tests=TESTS):
    """Per test, a boolean ``(replicates,)``: r01 against r00 significant, uncorrected."""
    import numpy as np

    import xdiv

    rng, compare_seed = _seeds(seed, 0, GENERATORS.index(generator), 0, chunk)
    scores = draw(generator, rng, replicates, 2)
    with frozen_gc():
        result = xdiv.compare(cube(scores), baseline="r00", tests=tests, B=B,
                              seed=compare_seed, alpha=ALPHA)
    significant = result["significant"].sel(baseline="r00", run="r01")
    return {test: np.asarray(significant.sel(test=test).values, dtype=bool) for test in tests}


def truth_of(size: int, generator: str, effects: bool):
    """(runs, baseline, per-run shift or None, boolean non-null mask over the cells)."""
    import numpy as np

    n_runs, baseline, _ = family_shape(size, generator)
    if not effects:
        return n_runs, baseline, None, None
    better = np.zeros(n_runs, dtype=bool)
    if size == 10:
        better[1:4] = True  # 3 of the 10 runs beat the baseline r00
    elif size == 45:
        better[:3] = True
    else:
        better[:5] = True
    shift = np.where(better, DELTA, 0.0)
    if baseline is None:
        nonnull = better[:, None] != better[None, :]
    else:
        nonnull = (better[0] != better)[None, :]
    return n_runs, baseline, shift, nonnull


def family_errors(generator: str, size: int, replicates: int, seed: int, B: int = 1000,
                  chunk: int = 0, corrections=CORRECTIONS, effects: bool = False):
    """Per correction, ``(any false rejection, V / R, power)`` arrays over replicates
    (power NaN under the complete null)."""
    import numpy as np

    import xdiv

    n_runs, baseline, shift, nonnull = truth_of(size, generator, effects)
    rng, compare_seed = _seeds(seed, 2 if effects else 1, GENERATORS.index(generator),
                               size, chunk)
    data = cube(draw(generator, rng, replicates, n_runs, shift))
    if baseline is None:  # each unordered pair once
        cells = np.triu(np.ones((n_runs, n_runs), dtype=bool), 1)
    else:
        cells = np.ones((1, n_runs), dtype=bool)
        cells[0, 0] = False
    if nonnull is None:
        nonnull = np.zeros(cells.shape, dtype=bool)
    out = {}
    for correction in corrections:
        test = "tukey" if correction == "tukey" else "t"
        adjust = None if correction in ("none", "tukey") else correction
        with frozen_gc():
            result = xdiv.compare(data, baseline=baseline, tests=test, correction=adjust,
                                  B=B, seed=compare_seed, alpha=ALPHA)
        significant = np.asarray(result["significant"].sel(test=test).values, dtype=bool)
        significant = significant & cells  # (replicate, X, Y)
        false = (significant & ~nonnull).sum(axis=(1, 2))
        rejected = significant.sum(axis=(1, 2))
        n_true = int((cells & nonnull).sum())
        power = ((significant & nonnull).sum(axis=(1, 2)) / n_true if n_true
                 else np.full(replicates, np.nan))
        out[correction] = (false > 0, false / np.maximum(rejected, 1), power)
    return out


# ---------------------------------------------------------------------------- driver

def _task(job):
    kind, generator, size, replicates, seed, B, chunk = job
    if kind == "type1":
        return job, type_one(generator, replicates, seed, B, chunk)
    return job, family_errors(generator, size, replicates, seed, B, chunk,
                              effects=kind == "nonnull")


def _chunks(total: int):
    return [min(CHUNK, total - start) for start in range(0, total, CHUNK)]


def jobs_of(replicates: int, nonnull: int, seed: int, B: int):
    jobs = []
    for generator in GENERATORS:
        for k, reps in enumerate(_chunks(replicates)):
            jobs.append(("type1", generator, 2, reps, seed, B, k))
            for size in FAMILIES:
                jobs.append(("null", generator, size, reps, seed, B, k))
    for size in FAMILIES:
        for k, reps in enumerate(_chunks(nonnull)):
            jobs.append(("nonnull", "normal", size, reps, seed, B, k))
    # the largest first, so that the workers finish together
    return sorted(jobs, key=lambda j: -(j[2] if j[0] != "type1" else 5) * j[3])


def rate(flags):
    """(share, binomial standard error)."""
    import numpy as np

    flags = np.asarray(flags, dtype=float)
    p = float(flags.mean())
    return p, float(np.sqrt(p * (1 - p) / len(flags)))


def mean_se(values):
    import numpy as np

    values = np.asarray(values, dtype=float)
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(len(values)))


def cell(estimate) -> str:
    p, se = estimate
    return f"{p:.4f} ± {se:.4f}"


def run(replicates: int, nonnull: int, seed: int, B: int, n_jobs: int, progress=None):
    """Every estimate: ``{(kind, generator, size): {name: concatenated arrays}}``."""
    import numpy as np

    jobs = jobs_of(replicates, nonnull, seed, B)
    if "trec2009" in GENERATORS and "trec2009" not in _REAL:
        _REAL["trec2009"] = trec2009_scores()
    parts: dict = {}
    if n_jobs > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(n_jobs) as pool:
            done = pool.imap_unordered(_task, jobs)
            for k, (job, value) in enumerate(done):
                parts.setdefault(job[:3], []).append((job[6], value))
                if progress:
                    progress(k + 1, len(jobs))
    else:
        for k, job in enumerate(jobs):
            _, value = _task(job)
            parts.setdefault(job[:3], []).append((job[6], value))
            if progress:
                progress(k + 1, len(jobs))
    merged = {}
    for key, values in parts.items():
        values = [v for _, v in sorted(values, key=lambda kv: kv[0])]
        merged[key] = {name: (np.concatenate([v[name] for v in values]) if key[0] == "type1"
                              else tuple(np.concatenate([v[name][i] for v in values])
                                         for i in range(3)))
                       for name in values[0]}
    return merged


def tables(merged) -> tuple[str, list[str]]:
    lines, misses = [], []
    lines.append("### Type I error of one pre-chosen comparison, uncorrected (alpha = 0.05)")
    lines.append("")
    lines.append("| test | " + " | ".join(GENERATORS) + " |")
    lines.append("|---|" + "---|" * len(GENERATORS))
    for test in TESTS:
        row = []
        for generator in GENERATORS:
            estimate = rate(merged[("type1", generator, 2)][test])
            row.append(cell(estimate))
            if abs(estimate[0] - ALPHA) > 0.01:
                misses.append(f"type I, {test} on {generator}: {cell(estimate)} "
                              "(target 0.05 ± 0.01)" + (
                                  "; a discrete test: its largest attainable level below "
                                  "0.05 is 0.0328 on 50 untied topics, 0.0357 on 45"
                                  if test == "sign" else ""))
        lines.append(f"| {test} | " + " | ".join(row) + " |")
    replicates = len(merged[("type1", GENERATORS[0], 2)][TESTS[0]])
    lines.append("")
    lines.append(f"{replicates} replicates per cell.")
    lines.append("")
    lines.append("### FWER under the complete null (= FDR); `none` = the uncorrected t test")
    lines.append("")
    lines.append("| generator | family | " + " | ".join(CORRECTIONS) + " |")
    lines.append("|---|---|" + "---|" * len(CORRECTIONS))
    for generator in GENERATORS:
        for size in FAMILIES:
            _, baseline, comparisons = family_shape(size, generator)
            label = (f"{comparisons} (1 vs 10)" if baseline else
                     f"{comparisons} (pairs of {family_shape(size, generator)[0]})")
            values = merged[("null", generator, size)]
            row = []
            for correction in CORRECTIONS:
                estimate = rate(values[correction][0])
                row.append(cell(estimate))
                if correction != "none" and estimate[0] > ALPHA + 0.01:
                    misses.append(f"FWER/FDR, {correction} on {generator}, family "
                                  f"{comparisons}: {cell(estimate)} (target <= 0.06)")
            lines.append(f"| {generator} | {label} | " + " | ".join(row) + " |")
    lines.append("")
    lines.append("### With true effects (normal generator, better runs by +0.04): "
                 "FWER / FDR / power")
    lines.append("")
    lines.append("| correction | " + " | ".join(
        f"{s} ({n})" for s, n in zip(FAMILIES, ("3 of 10 vs baseline", "3 of 10 runs",
                                                  "5 of 20 runs"))) + " |")
    lines.append("|---|" + "---|" * len(FAMILIES))
    nonnull_replicates = 0
    for correction in CORRECTIONS:
        row = []
        for size in FAMILIES:
            any_false, fdp, power = merged[("nonnull", "normal", size)][correction]
            nonnull_replicates = len(any_false)
            row.append(f"{rate(any_false)[0]:.3f} / {mean_se(fdp)[0]:.3f} ± "
                       f"{mean_se(fdp)[1]:.3f} / {mean_se(power)[0]:.3f}")
            if correction in ("fdr_bh", "fdr_by") and mean_se(fdp)[0] > ALPHA + 0.01:
                misses.append(f"FDR with true effects, {correction}, family {size}: "
                              f"{cell(mean_se(fdp))}")
            if correction in ("bonferroni", "holm", "maxt", "maxt-stepdown", "tukey") and (
                    rate(any_false)[0] > ALPHA + 0.01):
                misses.append(f"FWER with true effects, {correction}, family {size}: "
                              f"{cell(rate(any_false))}")
        lines.append(f"| {correction} | " + " | ".join(row) + " |")
    lines.append("")
    lines.append(f"{nonnull_replicates} replicates per cell; cell = FWER / FDR ± SE / power "
                 "(FDR = mean V/R, power = mean share of the non-null comparisons rejected). "
                 "Families: 10 = r01..r10 against r00, r01-r03 better (3 non-null); "
                 "45 = pairs of 10 runs, 3 better (21 non-null); 190 = pairs of 20 runs, "
                 "5 better (75 non-null).")
    return "\n".join(lines), misses


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicates", type=int, default=None,
                        help="null replicates per cell (default 10000; 500 with --quick)")
    parser.add_argument("--nonnull-replicates", type=int, default=None,
                        help="replicates of the scenario with true effects "
                             "(default: a quarter of --replicates)")
    parser.add_argument("--seed", type=int, default=None,
                        help="root seed (default: a fresh one, printed)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: 500 replicates unless --replicates is given")
    parser.add_argument("--B", type=int, default=1000, help="resamples (default 1000)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="worker processes (default: the cores)")
    args = parser.parse_args(argv)
    import numpy as np

    replicates = args.replicates or (500 if args.quick else 10_000)
    nonnull = args.nonnull_replicates or max(CHUNK, replicates // 4)
    seed = (args.seed if args.seed is not None
            else int(np.random.SeedSequence().generate_state(1)[0]))
    command = ["python", "benchmarks/bench_calibration.py", "--replicates", str(replicates),
               "--nonnull-replicates", str(nonnull), "--seed", str(seed), "--B", str(args.B),
               "--jobs", str(args.jobs)]
    start = time.perf_counter()

    def progress(done, total):
        if done % max(1, total // 20) == 0 or done == total:
            print(f"  {done}/{total} tasks, {time.perf_counter() - start:.0f} s",
                  file=sys.stderr, flush=True)

    merged = run(replicates, nonnull, seed, args.B, args.jobs, progress)
    text, misses = tables(merged)
    wall = time.perf_counter() - start
    import scipy
    import statsmodels

    import xdiv

    print(f"## Calibration of xdiv.compare (issue 27), seed {seed}\n")
    print(text)
    print("\n### Outside the targets\n")
    print("\n".join(f"- {m}" for m in misses) if misses else "- none")
    print(f"\nWall time: {wall:.1f} s ({args.jobs} worker processes, {os.cpu_count()} cores; "
          f"B = {args.B}; xdiv {xdiv.__version__}, numpy {np.__version__}, scipy "
          f"{scipy.__version__}, statsmodels {statsmodels.__version__}).")
    print(f"Command: {shlex.join(command)}")
    print(f"As invoked: {shlex.join(['python'] + sys.argv)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
