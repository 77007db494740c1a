"""A fuzzing campaign over ``xdiv.stats.anova_table`` and ``xdiv.stats.standardise``.

Each input draws, from a seeded generator, a score cube (1 to 8 runs, 1 to 6 topics,
scores continuous or rounded to few values, NaN scores, constant topics) and, for the
ANOVA, a factor table of 0 to 3 factors with 1 to 3 levels each (balanced or not, with
empty cells), sometimes spoiled (a run left out, an empty value, a factor copied under
another name, a reserved or invalid name), interactions or not, the topic term or not,
and a type of sums of squares (2, 3, or an invalid one); for the standardisation, a
method, a reference set (possibly too small or naming an unknown run) and ``ddof``.
Each outcome is classified:

- ``clean error``: an ``InputError`` of one line;
- ``accepted, checked``: the ANOVA's sums of squares equal least squares fits of design
  matrices built here (type II: each term against the terms not containing it; type
  III: against all the others, sum-to-zero coding), its effect sizes equal their
  formulas, and the design is of full rank; the standardised scores equal the
  definitions computed with Python's ``statistics`` module;
- ``traceback``: any other exception; ``hang``: no answer within the time limit;
  ``silent-wrong``: an accepted result that fails a check, or an error where the oracle
  finds a full-rank design.

Only the first two are allowed.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from xdiv import stats
from xdiv.errors import InputError
from xdiv.typing import STANDARDISE_METHODS

from ..helpers import Hang, time_limit

LIMIT = 30.0
"""Seconds an input may take before it counts as a hang (each takes well under one)."""


def _cube(rng: random.Random, n_runs: int, n_topics: int) -> xr.Dataset:
    values = np.array([[rng.random() for _ in range(n_topics)] for _ in range(n_runs)])
    style = rng.choice(["continuous", "rounded", "nan", "constant topic"])
    if style == "rounded":
        values = np.round(values * 2) / 2
    elif style == "nan" and values.size > 1:
        values[rng.randrange(n_runs), rng.randrange(n_topics)] = np.nan
    elif style == "constant topic":
        values[:, rng.randrange(n_topics)] = rng.random()
    return xr.Dataset({"score": (("metric", "run", "topic"), values[None])},
                      coords={"metric": ["m"], "run": [f"r{i}" for i in range(n_runs)],
                              "topic": [f"t{i}" for i in range(n_topics)]})


def _size(rng: random.Random, most: int) -> int:
    """A number of runs or topics: 1 (refused) now and then, else 2 to ``most``."""
    return 1 if rng.random() < 0.1 else rng.randint(2, most)


def _labels(rng: random.Random, levels: str, n: int) -> list[str]:
    """``n`` labels drawn from ``levels``, each level used at least once when n allows."""
    labels = [rng.choice(levels) for _ in range(n)]
    for i, level in enumerate(levels[:n]):
        labels[i] = level
    rng.shuffle(labels)
    return labels


def _factors(rng: random.Random, runs: list[str]) -> pd.DataFrame | None:
    n = rng.choice([0, 1, 1, 2, 2, 2, 3])
    if n == 0:
        return None
    levels = ["ab", "abc"] if len(runs) > 2 else ["a", "ab"]
    table = pd.DataFrame({f"f{k}": _labels(rng, rng.choice(levels), len(runs))
                          for k in range(n)}, index=runs)
    spoil = rng.choice(["none"] * 6 + ["drop", "empty", "copy", "reserved", "invalid"])
    if spoil == "drop":
        table = table.drop(index=rng.choice(runs))
    elif spoil == "empty":
        table = table.astype(object)
        table.iloc[rng.randrange(len(runs)), 0] = None
    elif spoil == "copy":
        table["copy"] = table.iloc[:, 0]
    elif spoil == "reserved":
        table = table.rename(columns={"f0": rng.choice(["topic", "score", "C"])})
    elif spoil == "invalid":
        table = table.rename(columns={"f0": rng.choice(["f 0", "0f", "lambda", "é-x"])})
    return table


def _columns(labels, coding: str) -> np.ndarray:
    """One factor's columns: treatment coding (first level left out) or sum-to-zero."""
    levels = sorted(set(labels))
    labels = np.asarray(labels)
    if len(levels) < 2:
        return np.zeros((len(labels), 0))
    if coding == "treatment":
        return np.column_stack([(labels == lv).astype(float) for lv in levels[1:]])
    return np.column_stack([(labels == lv).astype(float) - (labels == levels[-1])
                            for lv in levels[:-1]])


def _rss(y: np.ndarray, blocks: list[np.ndarray]) -> float:
    x = np.column_stack([np.ones(len(y))] + blocks)
    beta = np.linalg.lstsq(x, y, rcond=None)[0]
    return float(((y - x @ beta) ** 2).sum())


def _oracle(long: pd.DataFrame, names: list[str], interactions: bool, topic: bool,
            typ: int):
    """``(full rank?, {term: SS}, residual SS, df)`` from design matrices built here."""
    coding = "sum" if typ == 3 else "treatment"
    main = {name: _columns(long[name], coding) for name in names}
    terms: dict[str, np.ndarray] = {}
    sets = [c for k in range(1, len(names) + 1) for c in itertools.combinations(names, k)]
    for combo in (sets if interactions else [(n,) for n in names]):
        block = main[combo[0]]
        for name in combo[1:]:
            block = np.column_stack([block[:, i] * main[name][:, j]
                                     for i in range(block.shape[1])
                                     for j in range(main[name].shape[1])])
        terms[":".join(combo)] = block
    if topic:
        terms["topic"] = _columns(long["topic"], coding)
    y = long["score"].to_numpy(dtype=float)
    full = np.column_stack([np.ones(len(y))] + list(terms.values()))
    if np.linalg.matrix_rank(full) < full.shape[1]:
        return False, {}, math.nan, {}
    residual = _rss(y, list(terms.values()))
    ss = {}
    for term in terms:
        parts = set(term.split(":"))
        if typ == 2:
            kept = [b for t, b in terms.items() if not parts <= set(t.split(":"))]
            ss[term] = _rss(y, kept) - _rss(y, kept + [terms[term]])
        else:
            ss[term] = _rss(y, [b for t, b in terms.items() if t != term]) - residual
    df = {term: block.shape[1] for term, block in terms.items()}
    return True, ss, residual, df


def _check_anova(result: xr.Dataset, cube, factors, interactions, topic, typ) -> None:
    long = stats.tidy(cube, "m")
    names = ["run"] if factors is None else list(factors.columns)
    if factors is not None:
        long = long.join(factors.astype(str), on="run")
    full_rank, ss, residual, df = _oracle(long, names, interactions, topic, typ)
    assert full_rank, "accepted a singular design"
    got = result["sum_sq"].to_pandas()
    assert sorted(got.index) == sorted([*ss, "Residual"])
    n = len(long)
    y = long["score"].to_numpy(dtype=float)
    ss_total = float(((y - y.mean()) ** 2).sum())
    df_error = n - 1 - sum(df.values())
    mse = residual / df_error
    scale = max(ss_total, 1e-300)
    assert abs(got["Residual"] - residual) <= 1e-8 * scale
    for term, value in ss.items():
        row = result.sel(term=term)
        assert abs(float(row.sum_sq) - value) <= 1e-8 * scale, term
        assert float(row.df) == df[term]
        excess = float(row.sum_sq) - df[term] * mse
        if ss_total > 0:
            assert math.isclose(float(row.eta_sq), float(row.sum_sq) / ss_total,
                                rel_tol=1e-9, abs_tol=1e-12)
        assert math.isclose(float(row.omega_sq), excess / (ss_total + mse), rel_tol=1e-9,
                            abs_tol=1e-12)
        assert math.isclose(float(row.variance_component), excess / n, rel_tol=1e-9,
                            abs_tol=1e-12)


def _anova_input(rng: random.Random) -> str:
    cube = _cube(rng, _size(rng, 8), _size(rng, 6))
    runs = [str(r) for r in cube["run"].values]
    factors = _factors(rng, runs)
    interactions, topic = rng.random() < 0.7, rng.random() < 0.8
    typ = rng.choice([2] * 5 + [3] * 4 + [1])
    try:
        with time_limit(LIMIT), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = stats.anova_table(cube, "m", factors, topic=topic,
                                       interactions=interactions, typ=typ)
    except InputError as error:
        assert "\n" not in str(error), "a multi-line error"
        if "singular" in str(error) and factors is not None:  # the oracle must agree
            long = stats.tidy(cube, "m").join(factors.astype(str), on="run")
            assert not _oracle(long, list(factors.columns), interactions, topic, typ)[0]
        return "clean error"
    except Hang:
        return "hang"
    _check_anova(result, cube, factors, interactions, topic, typ)
    return "accepted, checked"


def _standardise_input(rng: random.Random) -> str:
    cube = _cube(rng, _size(rng, 7), _size(rng, 5))
    runs = [str(r) for r in cube["run"].values]
    method = rng.choice([*STANDARDISE_METHODS] * 3 + ["minmax"])
    reference = rng.choice([None] * 4 + [rng.sample(runs, rng.randint(1, len(runs)))] * 3
                           + [[*runs[:1], "unknown"]])
    ddof = rng.choice([0, 1, 1, 2])
    try:
        with time_limit(LIMIT), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = stats.standardise(cube, method, reference, ddof=ddof)
    except InputError as error:
        assert "\n" not in str(error), "a multi-line error"
        return "clean error"
    except Hang:
        return "hang"
    chosen = runs if reference is None else reference
    # the cells by label, looked up once (xarray's selection of each cell would cost
    # more than the checks: issue 35 item 18)
    given, standardised = _cells(cube), _cells(result)
    for topic in (str(t) for t in cube["topic"].values):
        present = [given[r, topic] for r in chosen if not math.isnan(given[r, topic])]
        n = len(present)  # statistics computes the variance exactly (0 for equal scores)
        spread = (statistics.pstdev(present) * math.sqrt(n / (n - ddof)) if n > ddof
                  else math.nan)
        for run in runs:
            x = given[run, topic]
            got = standardised[run, topic]
            if math.isnan(x) or not spread > 0:
                assert math.isnan(got)
                continue
            z = (x - statistics.fmean(present)) / spread
            want = {"z": z, "cdf": 0.5 * (1 + math.erf(z / math.sqrt(2))),
                    "std-ab": 0.15 * z + 0.5}[method]
            assert math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)
    return "accepted, checked"


def _cells(scores: xr.Dataset) -> dict[tuple[str, str], float]:
    """The scores of measure ``m`` by (run, topic) label."""
    da = scores["score"].sel(metric="m").transpose("run", "topic")
    return {(str(run), str(topic)): float(value)
            for run, row in zip(da["run"].values, da.values)
            for topic, value in zip(da["topic"].values, row)}


def _campaign(seed: int, n: int) -> Counter:
    rng = random.Random(seed)
    outcomes = Counter()
    for _ in range(n):
        outcomes["anova " + _anova_input(rng)] += 1
        outcomes["standardise " + _standardise_input(rng)] += 1
    assert not [k for k in outcomes if k.endswith("hang")], outcomes
    return outcomes


def test_quick_campaign():
    outcomes = _campaign(seed=1, n=16)
    assert outcomes["anova accepted, checked"] >= 3 and outcomes["anova clean error"] >= 3
    assert outcomes["standardise accepted, checked"] >= 3


@pytest.mark.slow
def test_large_campaign():
    """250 ANOVA inputs and 250 standardisation inputs."""
    outcomes = _campaign(seed=3800, n=250)
    assert outcomes["anova accepted, checked"] >= 40
    assert outcomes["standardise accepted, checked"] >= 100
