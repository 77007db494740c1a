"""Fuzz of the reproducibility figures and report section (issue 37 item 1): random
results laid out as xdiv.repro.evaluate's, with 1 to 12 pairs (or none), pair names
with markup, control characters or nothing, measures at one or several cutoffs, and
values that are NaN, infinite or extreme. Each input is checked for no traceback (an
InputError only where one is due: RMSE against the cutoff without a measure at two
cutoffs), no hang (a time limit per input), and nothing silently wrong: every finite (ER,
ΔRI) is drawn at its value and no other point is, every KTU line holds the result's
values, and the report's section is balanced HTML naming no pair unescaped."""

from __future__ import annotations

import re
import time
import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402

import xdiv  # noqa: E402
from xdiv import report  # noqa: E402
from xdiv.plot import repro as plots  # noqa: E402
from xdiv.report import html as H  # noqa: E402

from ..report.test_html import _check_page  # noqa: E402

NAMES = ["tf_1", "<b>x</b>", "a&b", "", "run\x1b[31m", "ü" * 30, "1", '"q"']
MEASURES = ["P@5", "P@10", "P@20", "nDCG@10", "nDCG@20", "AP", "alpha-nDCG@20"]
LIMIT = 30.0
"""Seconds an input may take (its figures and a report)."""


@pytest.fixture(scope="module")
def cube():
    collection, runs = xdiv.datasets.synthetic(n_topics=4, n_runs=2, depth=10, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        return xdiv.evaluate(runs, collection, ["P@10"])


def _values(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    values = rng.normal(0.5, rng.choice([0.1, 1.0, 50.0]), shape)
    special = rng.random(shape)
    values[special < 0.1] = np.nan
    values[(special >= 0.1) & (special < 0.13)] = np.inf
    values[(special >= 0.13) & (special < 0.15)] = -np.inf
    return values


def _result(rng: np.random.Generator) -> xr.Dataset:
    n_pairs = int(rng.integers(0, 13))  # 0: one pair given by its roles
    metrics = list(rng.choice(MEASURES, size=int(rng.integers(1, len(MEASURES) + 1)),
                              replace=False))
    cutoffs = sorted(rng.choice([1, 5, 10, 20, 100, 1000],
                                size=int(rng.integers(1, 6)), replace=False).tolist())
    lead, dims = ((n_pairs,), ("pair",)) if n_pairs else ((), ())
    sizes = {"metric": len(metrics), "role": 2, "cutoff": len(cutoffs), "side": 2}
    result = xr.Dataset(coords={"metric": metrics, "canonical": ("metric", metrics),
                                "role": ["baseline", "advanced"], "cutoff": cutoffs,
                                "side": ["original", "repeated"]},
                        attrs={"xdiv_kind": "repro", "case": "same_collection",
                               "sig_level": 0.05, "qrels": "/x/<q>.txt"})
    if n_pairs:
        names = [f"{NAMES[k % len(NAMES)]}{k // len(NAMES) or ''}" for k in range(n_pairs)]
        result = result.assign_coords(pair=names)
    for name, where in (("arp", ("metric", "side", "role")), ("pvalue", ("metric", "role")),
                        ("rmse", ("metric", "role")), ("er", ("metric",)),
                        ("dri", ("metric",)), ("ktu", ("role", "cutoff")),
                        ("rbo", ("role", "cutoff"))):
        result[name] = (dims + where, _values(rng, lead + tuple(sizes[d] for d in where)))
    return result


def _several_cutoffs(result: xr.Dataset) -> bool:
    bases = [m.split("@")[0] for m in result["metric"].values if "@" in m]
    return any(bases.count(b) >= 2 for b in set(bases))


def _check(rng: np.random.Generator, cube: xr.Dataset, drawn: dict | None = None) -> None:
    """One input: its figures checked and, when ``drawn`` is given (the figures the
    report draws, recorded by :func:`_recorder`), its report: the figures checked are
    then the report's own, each drawn once (issue 35 item 18), and those the report
    leaves out (KTU on one cutoff) drawn here."""
    result = _result(rng)
    start = time.monotonic()
    pairs = [str(p) for p in result["pair"].values] if "pair" in result.dims else [None]
    if drawn is not None:
        drawn.clear()
        _check_report(cube, result, pairs)
        assert set(drawn) == ({"er", "ktu", "rbo", "rmse"} if len(result["cutoff"]) >= 2
                              else {"er", "rmse"}), sorted(drawn)
    else:
        drawn = {}
    # ER against ΔRI: exactly the finite points, each at its value
    ax = (drawn.get("er") or plots.er_dri_plot(result)).axes[0]
    drawn_points = sorted(tuple(line.get_xydata()[0]) for line in ax.get_lines()
                          if not line.get_label().startswith("_"))
    er, dri = result["er"].values.ravel(), result["dri"].values.ravel()
    finite = np.isfinite(er) & np.isfinite(dri)
    assert drawn_points == sorted(zip(er[finite], dri[finite]))
    # KTU against the cutoff: one line per pair and run, the result's values
    lines = (drawn.get("ktu") or plots.cutoff_plot(result, "ktu")).axes[0].get_lines()
    assert len(lines) == 2 * len(pairs)
    ktu = result["ktu"].values.reshape(-1, len(result["cutoff"]))
    for line, values in zip(lines, ktu):
        np.testing.assert_array_equal(line.get_ydata(), values)
    rmse = drawn.get("rmse")
    if rmse is None:
        try:
            rmse = plots.cutoff_plot(result, "rmse")
        except xdiv.InputError as error:
            rmse = error
    if _several_cutoffs(result):
        assert not isinstance(rmse, BaseException), rmse
    else:
        assert isinstance(rmse, xdiv.InputError), rmse
        assert re.search("two cutoffs or more", str(rmse)), rmse
    assert time.monotonic() - start < LIMIT


def _recorder(monkeypatch) -> dict:
    """The figures (or the error) of ``er_dri_plot`` and ``cutoff_plot`` as the report
    draws them, by measure (``"er"`` for ER against ΔRI), in a dict cleared for each
    input."""
    drawn: dict = {}

    def recording(draw, key_of):
        def draws(result, *args, **kwargs):
            key = key_of(*args, **kwargs)
            try:
                drawn[key] = draw(result, *args, **kwargs)
            except Exception as error:
                drawn[key] = error
                raise
            return drawn[key]
        return draws

    monkeypatch.setattr(plots, "er_dri_plot",
                        recording(plots.er_dri_plot, lambda *a, **k: "er"))
    monkeypatch.setattr(plots, "cutoff_plot", recording(
        plots.cutoff_plot, lambda measure="ktu", *a, **k: measure))
    return drawn


def _check_report(cube: xr.Dataset, result: xr.Dataset, pairs: list) -> None:
    page = report.html_report(cube, repro=result)
    _check_page(page)
    for name in pairs:
        if name and any(c in name for c in "<&\""):
            assert f">{name}<" not in page
    assert "<h2>Reproducibility</h2>" in page and "/x/" not in page


def test_repro_figures_fuzz_quick(cube):
    """3 seeded inputs, drawn (the report, which draws them again, in the campaign)."""
    rng = np.random.default_rng(37)
    for _ in range(3):
        _check(rng, cube)


@pytest.mark.slow
def test_repro_figures_fuzz_campaign(cube, monkeypatch):
    """10 seeded inputs, each drawn three ways and reported."""
    # The cube's own section of figures (distribution: not the input's) is the same on
    # every page (the same SVG but for matplotlib's random ids): made once and reused;
    # each input's reproducibility figures are drawn and written on its page as ever,
    # and checked as the report drew them (item 18 of the test-time audit).
    made: dict[tuple, list] = {}
    section = H._distribution_section

    def once(scores, metric, order) -> list:
        key = (id(scores), metric, tuple(order))
        if key not in made:
            made[key] = section(scores, metric, order)
        return made[key]

    monkeypatch.setattr(H, "_distribution_section", once)
    drawn = _recorder(monkeypatch)
    rng = np.random.default_rng(2020)
    for _ in range(10):
        _check(rng, cube, drawn)
    assert len(made) == 1 and "<svg" in "".join(made.popitem()[1])  # the cube's figures
