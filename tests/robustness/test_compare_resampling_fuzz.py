"""A fuzzing campaign over the numeric inputs of ``xdiv.compare`` (and of the meta tests
that share its kernels), through the Python API and through ``xdiv compare``'s argument
parser.

Each input draws, from a seeded generator, a number of resamples B (0, 1, negative,
small, the defaults, at and beyond the bound, 10^15, 10^18, 2^63, non-integers, numpy
integers, booleans, strings), a seed (valid, negative, huge, non-integer), a level alpha,
a number of runs and of topics, a score cube (continuous, rounded to few values so that
differences tie, constant, all runs equal, or with NaN scores), a test, a correction and
an interval. Each outcome is classified:

- ``clean error``: an ``InputError`` of one line (on the command line: exit status 2 and
  one ``xdiv: error:`` line);
- ``accepted, checked``: a result whose p-values lie in [0, 1], whose resampled p-values
  are at least 1/(B + 1) (the one convention, unless enumerated exactly), and whose
  p-values agree with scipy where scipy computes the same test (``ttest_rel``,
  ``wilcoxon``, the exact ``permutation_test``);
- ``traceback``: any other exception;
- ``hang``: no answer within the time limit;
- ``silent-wrong``: an accepted result that fails a check.

Only the first two are allowed. B is only run (not just parsed) when it is small, so that
each input costs little; the bound itself is checked by the refusals of large B.
"""

from __future__ import annotations

import contextlib
import functools
import io
import itertools
import math
import random
import warnings
from collections import Counter

import numpy as np
import pytest
import xarray as xr
from scipy import stats

import xdiv
from xdiv.analysis.meta import MAX_B
from xdiv.cli import main
from xdiv.errors import InputError
from xdiv.typing import COMPARE_TESTS, RESAMPLING_TESTS

from ..helpers import Hang, time_limit

LIMIT = 60.0
"""Seconds an input may take before it counts as a hang (each takes well under one)."""

B_CHOICES = [0, 1, -1, -1000, 2, 99, 100, 150, 200, 256, 300, 1000, MAX_B + 1, 10 ** 7,
             10 ** 15, 10 ** 18, 2 ** 63, 2 ** 64, 0.5, 150.0, 1e3, float("nan"),
             float("inf"), True, "200", None, np.int64(200), np.int32(128), np.uint8(200)]
"""The B values drawn (besides random small whole numbers)."""

SEEDS = [0, 1, 7, 2 ** 32, 2 ** 63 - 1, 2 ** 63, -1, 1.5, "0", None, np.int64(3)]




def _cube(rng: random.Random) -> xr.Dataset:
    n_runs = rng.choice([1, 2, 2, 3, 4, 5])
    n_topics = rng.choice([1, 2, 3, 5, 9, 13, 14])
    gen = np.random.default_rng(rng.randrange(2 ** 32))
    kind = rng.choice(["continuous", "tied", "tied", "constant", "equal-runs", "nan"])
    values = gen.random((1, n_runs, n_topics))
    if kind == "tied":
        values = np.round(values * rng.choice([2, 3, 5]), 0) / 5
    elif kind == "constant":
        values = np.full_like(values, rng.choice([0.0, 0.5, 1.0]))
    elif kind == "equal-runs":
        values = np.broadcast_to(values[:, :1], values.shape).copy()
    elif kind == "nan":
        mask = gen.random(values.shape) < rng.choice([0.1, 0.3, 1.0])
        values[mask] = np.nan
    return _empty_cube(n_runs, n_topics).copy(data={"score": values})


@functools.cache
def _empty_cube(n_runs: int, n_topics: int) -> xr.Dataset:
    """A cube of zeros of that shape, its labels and indexes made once (issue 35 item 18:
    each input's cube is a copy of it with the input's scores)."""
    return xr.Dataset({"score": (("metric", "run", "topic"), np.zeros((1, n_runs, n_topics)))},
                      coords={"metric": ["m"], "run": [f"r{k}" for k in range(n_runs)],
                              "topic": [f"t{k}" for k in range(n_topics)]})


def _draw(rng: random.Random) -> dict:
    B = rng.choice(B_CHOICES) if rng.random() < 0.5 else rng.randrange(100, 300)
    return dict(
        scores=_cube(rng), B=B,
        seed=rng.choice(SEEDS) if rng.random() < 0.3 else rng.randrange(1000),
        alpha=rng.choice([0.05] * 6 + [0.1, 0.5, 0.0, 1.0, -0.1, float("nan")]),
        tests=rng.choice([[t] for t in COMPARE_TESTS] + [["t", "wilcoxon", "permutation"],
                                                        ["bootstrap", "tukey"]]),
        correction=rng.choice([None, None, "holm", "bonferroni", "fdr_bh", "maxt",
                               "maxt-stepdown"]),
        ci=rng.choice(["t", "t", "bca"]),
        baseline=rng.choice([None, None, "r0"]))


def _check(result: xr.Dataset, case: dict) -> list[str]:
    """The result's invariants and scipy's p-values, as a list of failures."""
    problems = []
    values = case["scores"]["score"].values[0]
    kept = ~np.isnan(values).any(axis=0)
    x = values[:, kept]
    n = x.shape[-1]
    B = int(case["B"])
    pvalue = result["pvalue"]
    defined = pvalue.values[~np.isnan(pvalue.values)]
    if ((defined < 0) | (defined > 1)).any():
        problems.append("p-value outside [0, 1]")
    adjusted = result["pvalue_adjusted"].values
    if (adjusted[~np.isnan(adjusted)] > 1).any():
        problems.append("adjusted p-value above 1")
    pairs = "run_a" in result.dims
    for test in case["tests"]:
        p = pvalue.sel(test=test).isel(metric=0)
        exact = test == "permutation" and 2 ** n <= B
        if test in RESAMPLING_TESTS and not exact:
            shown = p.values[~np.isnan(p.values)]
            if (shown < 1 / (B + 1) - 1e-15).any():
                problems.append(f"{test}: a p-value below 1/(B + 1)")
        # the cells by label, looked up once (xarray's selection of each cell would
        # cost more than the checks)
        position = [{str(label): k for k, label in enumerate(p[dim].values)}
                    for dim in p.dims]
        for a, b in itertools.combinations(range(len(x)), 2):
            cell = (dict(run_a=f"r{a}", run_b=f"r{b}") if pairs else
                    dict(baseline="r0", run=f"r{b}") if a == 0 else None)
            if cell is None:
                continue
            assert set(cell) == set(p.dims), (cell, p.dims)
            got = float(p.values[tuple(position[k][cell[dim]]
                                       for k, dim in enumerate(p.dims))])
            d = x[a] - x[b]
            expected = _scipy(test, d, B)
            if expected is not None and not math.isclose(got, expected, rel_tol=1e-9,
                                                          abs_tol=1e-12):
                problems.append(f"{test} r{a}-r{b}: {got} against scipy's {expected}")
    return problems


def _scipy(test: str, d: np.ndarray, B: int) -> float | None:
    """scipy's p-value of the same test, where scipy computes it (and quickly)."""
    n = len(d)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if test == "t":
            if d.std() == 0:
                return None  # documented: xdiv p = 1 or 0 where scipy gives NaN
            return float(stats.ttest_rel(d, np.zeros(n)).pvalue)
        if test == "wilcoxon" and (d != 0).any() and n <= 5:
            return float(stats.wilcoxon(d).pvalue)  # its enumeration is slow beyond
        if test == "permutation" and 2 ** n <= B:
            return float(stats.permutation_test(
                (d,), lambda v, axis: np.mean(v, axis=axis), permutation_type="samples",
                n_resamples=np.inf, vectorized=True).pvalue)
    return None


def _run_api(case: dict) -> str:
    kwargs = {k: v for k, v in case.items() if k != "scores"}
    try:
        with time_limit(LIMIT), warnings.catch_warnings():
            warnings.simplefilter("error")  # numpy's and scipy's warnings: failures
            warnings.simplefilter("ignore", xdiv.XdivWarning)  # the dropped topics
            result = xdiv.compare(case["scores"], **kwargs)
    except Hang:
        return "hang"
    except InputError as exc:
        return "clean error" if "\n" not in str(exc) and str(exc) else "traceback"
    except Exception as exc:  # noqa: BLE001 - classified, reported below
        return f"traceback: {type(exc).__name__}: {exc}"
    problems = _check(result, case)
    return f"silent-wrong: {problems}" if problems else "accepted, checked"


def _run_cli(case: dict, path) -> str:
    argv = ["compare", str(path), "--test", *case["tests"], "-B", str(case["B"]),
            "--seed", str(case["seed"]), "--alpha", str(case["alpha"]), "--ci", case["ci"]]
    if case["correction"]:
        argv += ["--correction", case["correction"]]
    if case["baseline"]:
        argv += ["--baseline", case["baseline"]]
    out, err = io.StringIO(), io.StringIO()
    try:
        with time_limit(LIMIT), contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            try:
                status = main(["-q", *argv])
            except SystemExit as exc:  # the argument parser's refusals
                status = exc.code
    except Hang:
        return "hang"
    except Exception as exc:  # noqa: BLE001
        return f"traceback: {type(exc).__name__}: {exc}"
    lines = err.getvalue().strip().splitlines()
    if status == 0:
        return "accepted, checked" if out.getvalue() else "silent-wrong: no output"
    if status == 2 and lines and "Traceback" not in err.getvalue() and (
            len(lines) == 1 and lines[0].startswith("xdiv: error:")
            or lines[-1].startswith("xdiv compare: error:")
            or "error:" in lines[-1]):
        return "clean error"
    return f"traceback: status {status}: {err.getvalue()[-300:]}"


def campaign(seed: int, n_api: int, n_cli: int, tmp_path) -> Counter:
    rng = random.Random(seed)
    outcomes: Counter = Counter()
    bad = []
    for _ in range(n_api):
        case = _draw(rng)
        outcome = _run_api(case)
        outcomes[outcome.split(":")[0]] += 1
        if outcome not in ("clean error", "accepted, checked"):
            bad.append((outcome, {k: v for k, v in case.items() if k != "scores"},
                        case["scores"]["score"].values.tolist()))
    for k in range(n_cli):
        case = _draw(rng)
        path = tmp_path / f"cube{k % 8}.nc"
        xdiv.to_netcdf(case["scores"], path)
        outcome = _run_cli(case, path)
        outcomes["cli " + outcome.split(":")[0]] += 1
        if outcome not in ("clean error", "accepted, checked"):
            bad.append((outcome, {k: v for k, v in case.items() if k != "scores"}))
    assert not bad, bad[:5]
    return outcomes


def test_compare_resampling_fuzz_quick(tmp_path):
    outcomes = campaign(0, 50, 10, tmp_path)
    assert outcomes["accepted, checked"] > 5 and outcomes["clean error"] > 5


@pytest.mark.slow
def test_compare_resampling_fuzz_campaign(tmp_path):
    """1,500 inputs: 1,350 through the API, 150 through the command line."""
    outcomes = campaign(1, 1350, 150, tmp_path)
    assert sum(outcomes.values()) == 1500
    assert outcomes["accepted, checked"] > 225 and outcomes["clean error"] > 225


def test_wilcoxon_exact_with_ties_against_scipy_enumeration():
    """Wilcoxon with ties or zeros on up to 13 topics: xdiv's p-values are scipy's exact
    ``permutation_test`` over every sign flip of the differences, on random tied data."""
    rng = np.random.default_rng(11)
    for _ in range(40):
        n = int(rng.integers(2, 10))
        d = np.round(rng.normal(size=n), 0)
        if not d.any():
            continue
        values = np.stack([d, np.zeros(n)])[None]
        cube = xr.Dataset({"score": (("metric", "run", "topic"), values)},
                          coords={"metric": ["m"], "run": ["a", "b"],
                                  "topic": [f"t{k}" for k in range(n)]})
        got = float(xdiv.compare(cube, tests="wilcoxon")["pvalue"].values[0, 0, 0, 1])

        def r_plus(v, axis):
            nonzero = v != 0
            ranks = stats.rankdata(np.where(nonzero, np.abs(v), np.nan), axis=axis,
                                   nan_policy="omit")
            return np.nansum(np.where(v > 0, ranks, 0.0), axis=axis)

        expected = stats.permutation_test((d,), r_plus, permutation_type="samples",
                                          n_resamples=np.inf, vectorized=True).pvalue
        assert got == pytest.approx(expected, rel=1e-12), d
