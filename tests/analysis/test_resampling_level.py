"""Resampling sanity: a test of B resamples reports its achieved significance level in
steps of 1/B, so B below 1/alpha cannot resolve the level and is refused (issue 25,
item 6: ``meta -B 1`` reported a discriminative power from a single resample)."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from xdiv import design, meta
from xdiv.cli import main
from xdiv.errors import InputError


def cube(n_metrics: int = 2, n_runs: int = 4, n_topics: int = 12, seed: int = 0):
    rng = np.random.default_rng(seed)
    values = np.clip(rng.random((n_metrics, n_runs, n_topics))
                     + np.linspace(0, 0.4, n_runs)[None, :, None], 0, 1)
    return xr.Dataset({"score": (("metric", "run", "topic"), values)},
                      coords={"metric": [f"m{k}" for k in range(n_metrics)],
                              "run": [f"r{k}" for k in range(n_runs)],
                              "topic": [str(k) for k in range(n_topics)]})


@pytest.mark.parametrize("B, alpha, needed", [(1, 0.05, 20), (19, 0.05, 20), (99, 0.01, 100),
                                              (3, 0.3, 4), (9, 0.1, 10)])
@pytest.mark.parametrize("method", ["bootstrap", "tukey"])
def test_b_below_one_over_alpha_is_refused(method, B, alpha, needed):
    with pytest.raises(InputError, match=rf"B = {B} resamples cannot resolve the "
                                         rf"significance level alpha = {alpha:g}.*"
                                         rf"at least 1/alpha = {needed}$"):
        meta.discriminative_power(cube(), method, alpha=alpha, B=B)


@pytest.mark.parametrize("B, alpha", [(20, 0.05), (100, 0.01), (4, 0.3), (10, 0.1)])
def test_b_of_one_over_alpha_is_accepted(B, alpha):
    for method in ("bootstrap", "tukey"):
        result = meta.discriminative_power(cube(), method, alpha=alpha, B=B)
        assert result.attrs["B"] == B


def test_each_test_function_checks_b_against_its_level():
    with pytest.raises(InputError, match="1/alpha = 20"):
        meta.bootstrap_test(cube(), B=1)
    with pytest.raises(InputError, match="1/alpha = 20"):
        meta.tukey_hsd(cube(), B=10)
    with pytest.raises(InputError, match="1/alpha = 1000"):
        meta.bootstrap_test(cube(), B=500, alpha=0.001)
    meta.check_resampling(B=1)  # no level: only B >= 1
    meta.check_resampling(B=20, alpha=0.05)


def test_swap_rates_test_at_no_level_and_keep_small_b():
    """Swap rates count sign changes; their max_rate is a threshold on a rate, no
    significance level, so B stays free from 1 up."""
    assert design.swap_rates(cube(n_topics=20), B=1, seed=0).attrs["B"] == 1


def test_meta_command_refuses_b_below_one_over_alpha_before_reading(tmp_path, capsys):
    missing = tmp_path / "not-there.nc"
    assert main(["meta", str(missing), "-B", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("xdiv: error: B = 1 resamples")
    assert "1/alpha = 20" in err and "not-there" not in err
    assert main(["meta", str(missing), "-B", "50", "--sig-level", "0.01", "--test",
                 "tukey"]) == 2
    assert "1/alpha = 100" in capsys.readouterr().err


def test_meta_command_accepts_b_of_one_over_alpha(tmp_path, capsys):
    path = tmp_path / "scores.nc"
    cube().to_netcdf(path)
    assert main(["-q", "meta", str(path), "-B", "20", "--test", "bootstrap"]) == 0
    assert "discriminative power at alpha = 0.05" in capsys.readouterr().out
