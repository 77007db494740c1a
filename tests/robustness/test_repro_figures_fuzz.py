"""Fuzz of the reproducibility figures and report section (issue 37 item 1): random
results laid out as xdiv.repro.evaluate's, with 1 to 12 pairs (or none), pair names
with markup, control characters or nothing, measures at one or several cutoffs, and
values that are NaN, infinite or extreme. Each input is checked for no traceback (an
InputError only where one is due: RMSE against the cutoff without a measure at two
cutoffs), no hang (a time limit per input), and nothing silently wrong: every finite (ER,
ΔRI) is drawn at its value and no other point is, every KTU line holds the result's
values, and the report's section is balanced HTML naming no pair unescaped."""

from __future__ import annotations

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


def _check(rng: np.random.Generator, cube: xr.Dataset, with_report: bool = True) -> None:
    result = _result(rng)
    start = time.monotonic()
    pairs = [str(p) for p in result["pair"].values] if "pair" in result.dims else [None]
    # ER against ΔRI: exactly the finite points, each at its value
    ax = plots.er_dri_plot(result).axes[0]
    drawn = sorted(tuple(line.get_xydata()[0]) for line in ax.get_lines()
                   if not line.get_label().startswith("_"))
    er, dri = result["er"].values.ravel(), result["dri"].values.ravel()
    finite = np.isfinite(er) & np.isfinite(dri)
    assert drawn == sorted(zip(er[finite], dri[finite]))
    # KTU against the cutoff: one line per pair and run, the result's values
    lines = plots.cutoff_plot(result, "ktu").axes[0].get_lines()
    assert len(lines) == 2 * len(pairs)
    ktu = result["ktu"].values.reshape(-1, len(result["cutoff"]))
    for line, values in zip(lines, ktu):
        np.testing.assert_array_equal(line.get_ydata(), values)
    if _several_cutoffs(result):
        plots.cutoff_plot(result, "rmse")
    else:
        with pytest.raises(xdiv.InputError, match="two cutoffs or more"):
            plots.cutoff_plot(result, "rmse")
    if with_report:
        _check_report(cube, result, pairs)
    assert time.monotonic() - start < LIMIT


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
        _check(rng, cube, with_report=False)


@pytest.mark.slow
def test_repro_figures_fuzz_campaign(cube, monkeypatch):
    """10 seeded inputs, each drawn three ways and reported."""
    # The cube's own figures (distribution, scatter: not the input's) are the same on
    # every page (the same SVG but for matplotlib's random ids): written once and reused;
    # each input's reproducibility figures are written on its page as ever (item 18 of
    # the test-time audit).
    written: dict[str, str] = {}
    svg = H._svg

    def once(fig, key: str) -> str:
        if key.startswith("repro"):
            return svg(fig, key)
        if key not in written:
            written[key] = svg(fig, key)
        return written[key]

    monkeypatch.setattr(H, "_svg", once)
    rng = np.random.default_rng(2020)
    for _ in range(10):
        _check(rng, cube)
    assert written  # the cube's figures were on the pages
