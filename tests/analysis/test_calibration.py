"""Calibration of xdiv.compare under null data (issue 27): a fast version of
benchmarks/bench_calibration.py (a few hundred replicates, fixed seeds, so every
assertion is deterministic), with bounds of 4 binomial standard errors that a calibrated
test or correction cannot miss by chance at these replicate counts."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from ..conftest import require_trec_2009

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_calibration.py"
ALPHA = 0.05


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_calibration", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def four_se(n: int) -> float:
    """Four binomial standard errors of a share near alpha over n replicates."""
    return 4 * np.sqrt(ALPHA * (1 - ALPHA) / n)


def test_the_synthetic_generators_are_bounded_correlated_and_null(bench):
    rng = np.random.default_rng(0)
    normal = bench.draw("normal", rng, 200, 4)
    skewed = bench.draw("skewed", rng, 200, 4)
    for scores in (normal, skewed):
        assert scores.shape == (200, 4, bench.N_TOPICS)
        assert scores.min() >= 0 and scores.max() <= 1
        # runs correlate over topics (shared topic difficulty)
        corr = np.mean([np.corrcoef(s[0], s[1])[0, 1] for s in scores])
        assert corr > 0.3
        # every run has the same distribution: means agree within noise
        assert np.ptp(scores.mean(axis=(0, 2))) < 0.02
    assert 0.3 < (skewed == 0).mean() < 0.5  # zero-inflated, like alpha-nDCG@20 in 2009
    assert (normal == 0).mean() < 0.05


def test_type_one_error_of_each_uncorrected_test_on_the_normal_null(bench):
    n = 1000
    rejected = bench.type_one("normal", n, seed=20270, B=200,
                              tests=("t", "wilcoxon", "sign", "permutation", "bootstrap"))
    for test in ("t", "wilcoxon", "permutation", "bootstrap"):
        assert abs(rejected[test].mean() - ALPHA) <= four_se(n), test
    # the sign test is discrete: 0.0328 is its largest level below 0.05 on 50 topics
    assert rejected["sign"].mean() <= 0.0328 + four_se(n)


def test_holm_maxt_and_bh_control_errors_under_the_complete_null(bench):
    n = 1000
    errors = bench.family_errors("normal", 45, n, seed=20271, B=200,
                                 corrections=("none", "bonferroni", "holm", "maxt",
                                              "maxt-stepdown", "fdr_bh"))
    assert errors["none"][0].mean() > 0.4  # 45 uncorrected tests: the FWER is far above alpha
    for correction in ("bonferroni", "holm", "maxt", "maxt-stepdown", "fdr_bh"):
        any_false, fdp, _ = errors[correction]
        assert any_false.mean() <= ALPHA + four_se(n), correction
        # under the complete null every rejection is false: FDR = FWER
        np.testing.assert_array_equal(fdp, any_false.astype(float))


def test_bh_controls_the_fdr_and_step_down_adds_power_with_true_effects(bench):
    n = 1000
    errors = bench.family_errors("normal", 10, n, seed=20272, B=200, effects=True,
                                 corrections=("holm", "bonferroni", "maxt", "maxt-stepdown",
                                              "fdr_bh"))
    power = {c: errors[c][2].mean() for c in errors}
    assert errors["fdr_bh"][1].mean() <= ALPHA + four_se(n)
    for correction in ("holm", "bonferroni", "maxt", "maxt-stepdown"):
        assert errors[correction][0].mean() <= ALPHA + four_se(n), correction
    # per replicate Holm rejects what Bonferroni does and BH what Holm does
    assert power["bonferroni"] <= power["holm"] <= power["fdr_bh"]
    assert power["maxt"] <= power["maxt-stepdown"]
    assert power["fdr_bh"] > 0.1  # the effects are detectable


def test_type_one_error_on_trec_2009_with_run_labels_permuted_within_topics(bench):
    root = require_trec_2009()
    real = bench.trec2009_scores(root)
    assert real.shape == (18, 50)
    bench._REAL["trec2009"] = real
    permuted = bench.draw("trec2009", np.random.default_rng(3), 5, 18)
    # a permutation within each topic: every topic keeps its multiset of scores
    np.testing.assert_array_equal(np.sort(permuted, axis=1),
                                  np.broadcast_to(np.sort(real, axis=0), permuted.shape))
    n = 500
    rejected = bench.type_one("trec2009", n, seed=20273, B=200, tests=("t", "permutation"))
    for test in ("t", "permutation"):
        assert abs(rejected[test].mean() - ALPHA) <= four_se(n), test
    errors = bench.family_errors("trec2009", 45, 250, seed=20274, B=200,
                                 corrections=("holm", "fdr_bh"))
    for correction in ("holm", "fdr_bh"):
        assert errors[correction][0].mean() <= ALPHA + four_se(250), correction


def test_the_benchmark_prints_its_tables_and_command(bench, capsys):
    """The printing, on a small configuration (the rates themselves are the other tests'
    business, at their replicate counts)."""
    require_trec_2009()
    assert bench.main(["--replicates", "20", "--nonnull-replicates", "20", "--seed", "7",
                       "--B", "100", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "| permutation |" in out and "| normal | 190 (pairs of 20) |" in out
    assert "| trec2009 | 153 (pairs of 18) |" in out
    assert "20 replicates per cell." in out and "20 replicates per cell; cell =" in out
    assert ("Command: python benchmarks/bench_calibration.py --replicates 20 "
            "--nonnull-replicates 20 --seed 7 --B 100 --jobs 1") in out
