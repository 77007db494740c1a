"""Names drawn as they are in every figure: a run, topic, measure, pair, group or setting
named with dollar signs (``a$\\frac$``, ``$x$``: mathtext to matplotlib, an error or math
italics), backslashes, TeX specials or control characters (``x\\x1by``) is drawn
literally, its control characters written as a terminal shows them (``\\x1b``), by every
public figure of :mod:`xdiv.plots`, :mod:`xdiv.plot.pools`, :mod:`xdiv.plot.repro` and
:mod:`xdiv.plot.models`, by ``xdiv plot`` and in the HTML report. Then a seeded fuzz
campaign of random names: no traceback, no hang, every name drawn literally."""

from __future__ import annotations

import html
import io
import re
import time
import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402
from matplotlib.text import Text  # noqa: E402

import xdiv  # noqa: E402
from xdiv import design, meta, plots, report  # noqa: E402
from xdiv.cli import main  # noqa: E402
from xdiv.core.labels import to_json  # noqa: E402
from xdiv.errors import shown  # noqa: E402
from xdiv.plot import models, pools, repro  # noqa: E402

from ..plot.test_model_figures import _result as _model_result  # noqa: E402
from ..plot.test_repro_figures import _result as _repro_result  # noqa: E402

HOSTILE = ["a$\\frac$", "$x$", "x\x1by", "100$ and 5$"]
"""Names matplotlib reads as mathtext (a formula it cannot parse, math italics, two
amounts of money) or that hold a control character."""
ALPHABET = list("ab09 .-:,@$\\{}^_%&#~<>\"'()[]|*") + \
    ["\x1b", "\x07", "\x00", "\x7f", "\x85", "\x9b", "\t", "\n", "\u202e", "\u2028",
     "é", "ü", "β", "Ω", "—", "∑", "€"]
"""What fuzzed names are made of: ASCII, mathtext's and TeX's specials, C0 and C1 control
characters, a newline, a right-to-left override, a line separator and non-ASCII letters
and symbols."""
TICK_MATH = re.compile(r"\$\\mathdefault\{[^$]*\}\$")
"""The mathtext of matplotlib's own tick labels on a logarithmic axis (``10^{2}``)."""
LIMIT = 20.0
"""Seconds one input may take (every figure drawn)."""
N_RUNS = 4
MEASURES = ["I-rec@10", "D-nDCG@10", "P-IA@10"]


@pytest.fixture(scope="module")
def results() -> dict:
    """A cube and the results every figure draws, with plain names (relabelled by
    :func:`_figures`), from a synthetic collection."""
    collection, runs = xdiv.datasets.synthetic(n_topics=6, n_runs=N_RUNS, depth=10, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        cube = xdiv.evaluate(runs, collection, MEASURES)
        groups = {str(r): str(k % 2) for k, r in enumerate(runs["run"].values)}
        return {
            "cube": cube,
            "power": meta.discriminative_power(cube, "bootstrap", B=20, seed=1),
            "design": design.power(cube, np.array([2, 10, 50]), [0.1]),
            "swap": design.swap_rates(cube, B=10),
            "g": design.g_coefficients(cube, np.array([1, 10, 50])),
            "bias": xdiv.pools.leave_one_run_out(runs, collection, MEASURES[2:], depth=5,
                                                 groups=groups),
            "sampled": xdiv.pools.downsample(runs, collection, MEASURES[2:],
                                             fractions=(0.5, 1.0), repeats=2),
            "model": _model_result(N_RUNS),
            "repro": _repro_result(2, 3),
        }


def _figures(results: dict, names: list[str]) -> dict:
    """Every public figure, its input relabelled with ``names`` (10, distinct: 4 runs, 3
    measures, 2 pairs or groups and a setting), and the names each must show:
    ``{figure name: (figure or InputError, names)}``."""
    runs, metrics, pairs, setting = names[:4], names[4:7], names[7:9], names[9]
    cube = results["cube"]
    labelled = cube.assign_coords(run=runs, metric=metrics)
    scatter = cube.assign_coords(run=runs)
    metric = {"metric": metrics}
    power = results["power"].assign_coords(metric).assign_attrs(test=setting)
    table = xr.Dataset({"concordance_1": (("metric_1", "metric_2"),
                                          np.array([[np.nan, 0.3], [0.7, np.nan]]))},
                       coords={"metric_1": metrics[:2], "metric_2": metrics[:2]},
                       attrs={"gold": to_json([setting])})
    corr = xr.DataArray(np.array([[1.0, -0.2], [-0.2, 1.0]]), dims=("metric_1", "metric_2"),
                        coords={"metric_1": metrics[:2], "metric_2": metrics[:2]},
                        name=setting)
    bias = results["bias"].assign_coords(run=runs, group=("run", [pairs[k % 2]
                                                                   for k in range(N_RUNS)]),
                                         metric=metrics[:1]).assign_attrs(depth=setting)
    sampled = results["sampled"].assign_coords(metric=metrics[:1]).assign_attrs(seed=setting)
    model = results["model"].assign_coords(run=runs, run_a=runs, run_b=runs).assign_attrs(
        metric=setting, formula=metrics[0], method=metrics[1], adjust=pairs[0])
    measures = ["P@5", "P@10", metrics[0]]  # RMSE against two cutoffs of P
    result = results["repro"].assign_coords(pair=pairs, metric=measures,
                                            canonical=("metric", measures))
    result = result.assign_attrs(case=setting)
    drawing = {
        "asl": (lambda: plots.asl_curves(power), [*metric["metric"], setting]),
        "scatter": (lambda: plots.irec_dndcg(scatter), runs),
        "concordance": (lambda: plots.concordance_heatmap(table), [*metrics[:2], setting]),
        "topics": (lambda: plots.topic_distributions(labelled, metrics[0]),
                   [*runs, metrics[0]]),
        "diff": (lambda: plots.run_differences(labelled, metrics[1], runs[0], runs[1]),
                 [metrics[1], runs[0], runs[1]]),
        "correlation": (lambda: plots.correlation_matrix(corr), [*metrics[:2], setting]),
        "power": (lambda: plots.power_curves(results["design"].assign_coords(metric)
                                             .assign_attrs(test=setting)),
                  [*metric["metric"], setting]),
        "swap": (lambda: plots.swap_curves(results["swap"].assign_coords(metric)
                                           .assign_attrs(sampling=setting)),
                 [*metric["metric"], setting]),
        "g": (lambda: plots.g_curves(results["g"].assign_coords(metric)), metric["metric"]),
        "pool bias": (lambda: pools.pool_bias_plot(bias), [*runs, metrics[0], setting]),
        "pool bias by group": (lambda: pools.pool_bias_plot(bias.assign_attrs(
            left_out="group")), pairs),
        "downsampling": (lambda: pools.downsampling_plot(sampled), [metrics[0], setting]),
        "model": (lambda: models.model_means_plot(model),
                  [*runs, setting, *metrics[:2], pairs[0]]),
        "er-dri": (lambda: repro.er_dri_plot(result),
                   [f"{p}: {m}" for p in pairs for m in measures]),
        "ktu": (lambda: repro.cutoff_plot(result, "ktu"), pairs),  # case: a keyword
        "rmse": (lambda: repro.cutoff_plot(result, "rmse"), pairs),
    }
    drawn = {}
    for name, (draw, shows) in drawing.items():
        try:
            drawn[name] = (draw(), shows)
        except xdiv.InputError as error:  # a clean error, checked by the caller
            drawn[name] = (error, shows)
    return drawn


def _drawn_texts(fig) -> list[str]:
    """The lines of every visible text of ``fig`` as matplotlib draws them, each checked
    to be drawn as plain text (not mathtext) free of control characters."""
    fig.draw_without_rendering()
    lines = []
    for text in fig.findobj(Text):
        if not text.get_visible():
            continue
        for line in text.get_text().split("\n"):
            clean, math = text._preprocess_math(line)
            assert not math or TICK_MATH.fullmatch(line), f"drawn as mathtext: {line!r}"
            assert clean.isprintable(), f"a control character reaches matplotlib: {clean!r}"
            lines.append(clean)
    return lines


def _check_literal(name: str, fig, shows: list[str]) -> None:
    """Every text of ``fig`` plain, and each of ``shows`` drawn as it is: some line of
    text holds it as a terminal would show it (control characters as ``\\x1b``)."""
    lines = _drawn_texts(fig)
    for label in shows:
        expected = shown(label, None)
        assert any(expected in line for line in lines), \
            f"{name}: {expected!r} is not drawn; drawn: {lines}"


def _svg_texts(fig) -> str:
    """The texts of ``fig`` written as SVG text elements, unescaped, one per line."""
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig.savefig(buffer, format="svg")
    return _texts_of(buffer.getvalue())


def _texts_of(svg: str) -> str:
    return "\n".join(html.unescape(t) for t in re.findall(r"<text\b[^>]*>(.*?)</text>", svg,
                                                          re.DOTALL))


def test_names_with_dollars_and_control_characters_are_drawn_as_they_are(results):
    """The four hostile names as runs, measures, pairs, groups and settings: every figure
    draws, writes its SVG without a warning of a missing glyph, and shows each name as
    it is, in the parsed texts and in the SVG file."""
    names = [*HOSTILE, *(f"{n}{k}" for k in range(2) for n in HOSTILE)][:10]
    for name, (fig, shows) in _figures(results, names).items():
        assert not isinstance(fig, BaseException), f"{name}: {fig}"
        _check_literal(name, fig, shows)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            svg = _svg_texts(fig)
        assert not [w for w in caught if "Glyph" in str(w.message)], name
        for label in shows:
            assert shown(label, None) in svg, f"{name}: {label!r} not in its SVG"


def test_xdiv_plot_and_the_report_draw_names_as_they_are(results, tmp_path):
    """``xdiv plot`` (topics, diff) and the HTML report's figures show runs and measures
    named with dollar signs as they are (a cube file's labels hold no control character:
    reading it rejects them)."""
    runs = [HOSTILE[0], HOSTILE[1], HOSTILE[3], "$y$ \\alpha_{1}"]
    cube = results["cube"].assign_coords(run=runs)
    path = xdiv.to_netcdf(cube, tmp_path / "scores.nc")
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        for kind, extra in (("topics", []), ("diff", ["--runs", runs[0], runs[1]])):
            out = tmp_path / f"{kind}.svg"
            assert main(["-q", "plot", kind, str(path), "-m", "P-IA@10", *extra, "-o",
                         str(out)]) == 0
            texts = _texts_of(out.read_text())
            assert all(run in texts for run in (runs if kind == "topics" else runs[:2])), \
                (kind, texts)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", xdiv.XdivWarning)
            page = report.html_report(cube, results["power"].assign_coords(run_a=runs,
                                                                            run_b=runs))
    figures = _texts_of("".join(re.findall(r"<svg\b.*?</svg>", page, re.DOTALL)))
    assert all(run in figures for run in runs), figures


def _random_names(rng: np.random.Generator, n: int) -> list[str]:
    """``n`` distinct names of 1 to 12 characters of :data:`ALPHABET`, one in four of 40 to
    120."""
    names: list[str] = []
    while len(names) < n:
        size = int(rng.integers(40, 121) if rng.random() < 0.25 else rng.integers(1, 13))
        name = "".join(rng.choice(ALPHABET, size))
        if name.strip() and name not in names:
            names.append(name)
    return names


def _campaign(results: dict, seed: int, inputs: int) -> None:
    """``inputs`` sets of random names, each through every figure: no error (every name is
    a valid label), every name drawn as it is, within :data:`LIMIT` seconds."""
    rng = np.random.default_rng(seed)
    for _ in range(inputs):
        names = _random_names(rng, 10)
        start = time.monotonic()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # xdiv's on odd results, matplotlib's
            for name, (fig, shows) in _figures(results, names).items():
                assert not isinstance(fig, BaseException), f"{name} {names!r}: {fig}"
                _check_literal(f"{name} {names!r}", fig, shows)
        assert time.monotonic() - start < LIMIT, names


def test_plot_labels_fuzz_quick(results):
    """1 seeded set of 10 random names, through the 16 figures."""
    _campaign(results, 2026, 1)


@pytest.mark.slow
def test_plot_labels_fuzz_campaign(results):
    """6 seeded sets of 10 random names (60 names, 96 figures)."""
    _campaign(results, 11, 6)
