"""Result cubes: the score cube of :func:`xdiv.evaluate` and the datasets that the
analyses return, with their schemas (:data:`RESULT_SCHEMAS`, the one table of every
result's variables, rendered on the docs' data-model page), the checks of files read back
(:func:`check_cube`), the p-value alias ``asl`` (:data:`ALIASES`) and the accessors that
every analysis uses (:func:`score_array`, :func:`summarize`).

Every significance test names its statistic ``statistic`` and its p-value ``pvalue``
(as scipy.stats does); the achieved significance level (ASL) of Sakai's meta-evaluation
papers is that p-value, also readable as ``asl``. Every resampling names its number of
resamples ``B`` (recorded in the attributes with ``seed``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import xarray as xr

from ..errors import InputError
from ..errors import MeasureError
from ..measures.names import translate
from ..typing import CUBE_KINDS

__all__ = ["ALIASES", "CUBE_KINDS", "RESULT_SCHEMAS", "ResultSchema", "schema_table", "SCORE_BOUND", "check_cube", "score_array", "summarize",
           "with_aliases", "without_aliases"]


SCORE_BOUND = 1e100
"""The largest magnitude of a score (and of a meta-evaluation's required difference)
that :func:`check_cube` accepts. Scores of xdiv's measures lie far within it; the bound
keeps every statistic of the meta-evaluation finite: squares of score differences stay
below 4e200, so their sums over any number of topics and replicates cannot overflow
float64 (whose largest value is about 1.8e308)."""


_WRITER = {"scores": "write one with 'xdiv evaluate -o'", "meta": "write one with 'xdiv meta -o'"}
_WHAT = {"scores": "not a score cube", "meta": "not a meta-evaluation file"}
_META_DIMS = {"asl_curve": ("metric", "pair_rank"), "power": ("metric",),
              "required_delta": ("metric",)}




def check_cube(dataset: xr.Dataset, kind: str, source: str | os.PathLike | None = None
               ) -> xr.Dataset:
    """Check that ``dataset`` is a valid cube of ``kind``, once, before any statistics.

    A score cube (``kind="scores"``) must hold a variable ``score`` whose dimensions are
    exactly ``metric``, ``run`` and ``topic`` (in any order), none of them empty, each
    labelled by a coordinate of unique, non-empty text labels without control
    characters; a ``canonical`` coordinate, when present, must be text along ``metric``.
    The scores must be real numbers (not text, booleans or complex numbers), each NaN
    (undefined, e.g. a topic without relevant documents) or finite with magnitude at
    most :data:`SCORE_BOUND` (1e100), so that no statistic can overflow.

    A meta-evaluation file (``kind="meta"``) must hold ``asl_curve(metric, pair_rank)``,
    ``power(metric)`` and ``required_delta(metric)`` as ``xdiv meta -o`` writes them,
    each also along ``test`` when the file has a ``test`` dimension (one entry per test,
    labelled like ``metric``); ASLs and powers must be NaN or within [0, 1], required
    differences NaN or finite within :data:`SCORE_BOUND`, and an ``alpha`` attribute,
    when present, a number strictly between 0 and 1.

    Parameters
    ----------
    dataset : xarray.Dataset
        The dataset read from a file.
    kind : {"scores", "meta"}
        What the dataset must be.
    source : str or path-like, optional
        The file the dataset came from, named at the start of every error message.

    Returns
    -------
    xarray.Dataset
        ``dataset`` with the checked variables converted to float64 (integer scores are
        accepted and converted).

    Raises
    ------
    InputError
        One line, ``SOURCE: what is wrong``, on the first problem found.
    """
    where = "" if source is None else f"{os.fspath(source)}: "
    if kind not in CUBE_KINDS:
        raise InputError(f"kind must be one of {', '.join(CUBE_KINDS)}, not {kind!r}")
    if not isinstance(dataset, xr.Dataset):
        raise InputError(f"{where}{_WHAT[kind]} (expected an xarray.Dataset, not "
                         f"{type(dataset).__name__})")
    try:
        if kind == "scores":
            return _check_scores(dataset)
        return _check_meta(dataset)
    except InputError as exc:
        raise InputError(f"{where}{exc}") from None


def _check_scores(data: xr.Dataset) -> xr.Dataset:
    if "score" not in data.data_vars:
        raise InputError(f"{_WHAT['scores']} ({_WRITER['scores']})")
    score = data["score"]
    if score.ndim != 3 or set(score.dims) != {"metric", "run", "topic"}:
        raise InputError(f"{_WHAT['scores']}: its score variable has the dimensions "
                         f"({', '.join(map(str, score.dims))}), not (metric, run, topic) "
                         f"({_WRITER['scores']})")
    _check_labels(data, ("metric", "run", "topic"))
    if "canonical" in data.coords:
        canonical = data["canonical"]
        if canonical.dims != ("metric",) or not _all_text(canonical.values):
            raise InputError("the canonical coordinate must hold one text label per metric")
    score = _numbers(score, "score")
    _check_range(score.transpose("metric", "run", "topic"), "score", -SCORE_BOUND,
                 SCORE_BOUND)
    return data.assign(score=score)


def _check_meta(data: xr.Dataset) -> xr.Dataset:
    if "asl_curve" not in data.data_vars:
        raise InputError(f"{_WHAT['meta']} ({_WRITER['meta']})")
    tested = "test" in data.dims
    for name, dims in _META_DIMS.items():
        if name not in data.data_vars:
            raise InputError(f"{_WHAT['meta']}: it lacks the variable {name} "
                             f"({_WRITER['meta']})")
        dims = ("test", *dims) if tested else dims
        held = data[name].dims
        if len(held) != len(dims) or set(held) != set(dims):
            raise InputError(f"{_WHAT['meta']}: its {name} variable has the dimensions "
                             f"({', '.join(map(str, held))}), not ({', '.join(dims)}) "
                             f"({_WRITER['meta']})")
    _check_labels(data, ("test", "metric") if tested else ("metric",))
    if data.sizes["pair_rank"] == 0:
        raise InputError("its pair_rank dimension is empty (no run pairs)")
    checked = {}
    for name, low, high in (("asl_curve", 0.0, 1.0), ("power", 0.0, 1.0),
                            ("required_delta", -SCORE_BOUND, SCORE_BOUND)):
        values = _numbers(data[name], name)
        order = [d for d in ("test", "metric", "pair_rank") if d in values.dims]
        _check_range(values.transpose(*order), name, low, high)
        checked[name] = values
    alpha = data.attrs.get("alpha")
    if alpha is not None and not (isinstance(alpha, (int, float, np.integer, np.floating))
                                  and not isinstance(alpha, (bool, np.bool_))
                                  and 0 < alpha < 1):
        raise InputError(f"its alpha attribute must be a number strictly between 0 and 1, "
                         f"not {_shown(alpha)}")
    return data.assign(checked)


def _check_labels(data: xr.Dataset, dims: tuple[str, ...]) -> None:
    """Every dimension of ``dims`` non-empty and labelled by unique, non-empty, one-line
    text labels."""
    for dim in dims:
        n = data.sizes[dim]
        if n == 0:
            raise InputError(f"its {dim} dimension is empty")
        if dim not in data.coords:
            raise InputError(f"it has no {dim} labels (a {dim} coordinate naming each {dim})")
        labels = data[dim].values
        if data[dim].dims != (dim,) or not _all_text(labels):
            raise InputError(f"its {dim} labels are {_kind_name(labels)}, not text")
        seen = set()
        for k, label in enumerate(labels):
            label = str(label)
            if not label.strip():
                raise InputError(f"{dim} label {k + 1} of {n} is empty")
            if any(_control(c) for c in label):
                raise InputError(f"{dim} label {label!r} holds a control character")
            if label in seen:
                raise InputError(f"{dim} label {label!r} appears more than once (labels "
                                 "must be unique)")
            seen.add(label)


def _control(char: str) -> bool:
    """A control character, or a line or paragraph separator (would break a line)."""
    code = ord(char)
    return code < 32 or 127 <= code < 160 or code in (0x2028, 0x2029)


def _all_text(values: np.ndarray) -> bool:
    if values.dtype.kind == "U":
        return True
    return values.dtype.kind == "O" and all(isinstance(v, str) for v in values.ravel())


def _kind_name(values: np.ndarray) -> str:
    names = {"b": "booleans", "i": "integers", "u": "integers", "f": "numbers",
             "c": "complex numbers", "S": "bytes", "M": "dates", "m": "durations",
             "U": "text"}
    if values.dtype.kind == "O":
        types = {type(v).__name__ for v in values.ravel()} - {"str"}
        return f"Python objects ({', '.join(sorted(types))})" if types else "text"
    return names.get(values.dtype.kind, f"of type {values.dtype}")


def _numbers(values: xr.DataArray, name: str) -> xr.DataArray:
    """``values`` as float64, if they are real numbers (integers or floats)."""
    if values.dtype.kind not in "fiu":
        raise InputError(f"its {name} variable holds {_kind_name(values.values)}, not "
                         "real numbers")
    return values.astype(np.float64)


def _check_range(values: xr.DataArray, name: str, low: float, high: float) -> None:
    """Every value NaN or within [low, high] (so neither infinite); the first other one
    is named with its labels."""
    array = values.values
    with np.errstate(invalid="ignore"):
        bad = ~np.isnan(array) & ~((array >= low) & (array <= high))
    if not bad.any():
        return
    index = np.unravel_index(np.argmax(bad), array.shape)
    at = ", ".join(f"{dim} {values[dim].values[i]!s}" if dim in values.coords
                   else f"{dim} {i + 1}" for dim, i in zip(values.dims, index))
    within = (f"finite with magnitude at most {high:g}" if low == -high
              else f"within [{low:g}, {high:g}]")
    raise InputError(f"its {name} at {at} is {array[index]:g}; {name} values must be NaN "
                     f"or {within}")


def _shown(value) -> str:
    text = " ".join(repr(value).split())
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class ResultSchema:
    """One kind of result: what makes it, its dimensions, variables and attributes."""

    result: str
    made_by: str
    dims: str
    variables: tuple[str, ...]
    attrs: tuple[str, ...] = ()


_PAIR = ("metric", "run_a", "run_b")
_SCORE_ATTRS = ("xdiv_kind", "missing", "adhoc", "judged_only", "residuals", "ties",
                "tie_samples", "tie_seed", "probabilities", "renormalise",
                "collection", "runs", "order", "hierarchy", "hierarchy_weights",
                "topics_without_relevant", "topics_not_in_qrels", "topics_not_in_runs")
_COMPARE = ("statistic", "pvalue", "pvalue_adjusted", "significant", "effect", "ci_low",
            "ci_high", "effect_size", "hedges_g", "wins", "ties", "losses", "mean",
            "mean_ci_low", "mean_ci_high", "n_topics")
_COMPARE_ATTRS = ("xdiv_kind", "tests", "correction", "family", "B", "seed", "alpha", "ci",
                  "mode", "baseline", "adjustment")
RESULT_SCHEMAS: tuple[ResultSchema, ...] = (
    ResultSchema("scores", "xdiv.evaluate", "metric, run, topic", ("score", "params"),
                 _SCORE_ATTRS),
    ResultSchema("summary", "xdiv.summarize", "metric, run", ("mean", "n_topics"),
                 _SCORE_ATTRS),
    ResultSchema("standardised scores", "xdiv.stats.standardise", "metric, run, topic",
                 ("score", "params", "reference_mean", "reference_sd"),
                 _SCORE_ATTRS + ("standardisation", "standardisation_ddof")),
    ResultSchema("paired bootstrap", "xdiv.meta.bootstrap_test", ", ".join(_PAIR),
                 ("pvalue", "diff", "statistic", "delta", "asl", "required_delta",
                  "n_topics"), ("test", "B", "seed", "alpha", "pvalue_rule")),
    ResultSchema("randomised Tukey HSD", "xdiv.meta.tukey_hsd", ", ".join(_PAIR),
                 ("pvalue", "diff", "asl", "required_delta", "n_topics"),
                 ("test", "B", "seed", "alpha", "pvalue_rule")),
    ResultSchema("discriminative power", "xdiv.meta.discriminative_power",
                 "metric, run_a, run_b, pair_rank", ("pvalue", "diff", "statistic", "delta",
                                                     "asl", "required_delta", "n_topics",
                                                     "n_significant", "power", "asl_curve"),
                 ("test", "B", "seed", "alpha", "pvalue_rule", "n_pairs")),
    ResultSchema("meta-evaluation file", "xdiv.meta.combine_tests, xdiv meta -o",
                 "test, metric, run_a, run_b, pair_rank",
                 ("pvalue", "diff", "statistic", "delta", "asl", "required_delta",
                  "n_topics", "n_significant", "power", "asl_curve"),
                 ("B", "seed", "alpha", "pvalue_rule", "n_pairs")),
    ResultSchema("concordance test", "xdiv.meta.concordance_table", "metric_1, metric_2",
                 ("disagreements", "concordance_1", "concordance_2", "only_1", "only_2",
                  "pvalue"), ("gold", "test")),
    ResultSchema("agreement of significant pairs", "xdiv.meta.significance_agreement",
                 "metric_1, metric_2", ("jaccard", "both", "only_1", "only_2"),
                 ("alpha", "test")),
    ResultSchema("risk t-test", "xdiv.risk.trisk", "metric, run",
                 ("urisk", "statistic", "pvalue", "n_topics"),
                 ("test", "baseline", "alpha", "distribution", "alternative")),
    ResultSchema("GeoRisk", "xdiv.risk.georisk", "metric, run",
                 ("zrisk", "georisk", "n_topics"), ("test", "alpha")),
    ResultSchema("swap rates", "xdiv.design.swap_rates", "metric, subset_size, diff_bin",
                 ("comparisons", "swaps", "swap_rate", "swap_rate_extrapolated",
                  "stable_difference", "n_topics"),
                 ("method", "B", "seed", "sampling", "bin_width", "max_rate")),
    ResultSchema("G-study", "xdiv.design.g_study", "metric",
                 ("var_system", "var_topic", "var_residual", "erho2", "phi", "n_topics"),
                 ("method", "n_runs")),
    ResultSchema("D-study", "xdiv.design.d_study", "metric",
                 ("n_topics_erho2", "n_topics_phi"), ("method",)),
    ResultSchema("generalizability coefficients", "xdiv.design.g_coefficients",
                 "metric, n_topics", ("erho2", "phi"), ("method",)),
    ResultSchema("power of each pair", "xdiv.design.pair_power", ", ".join(_PAIR),
                 ("diff", "power", "n_topics"), ("test", "alpha", "variance")),
    ResultSchema("ANOVA with effect sizes", "xdiv.stats.anova_table", "term, run",
                 ("sum_sq", "df", "mean_sq", "statistic", "pvalue", "eta_sq", "omega_sq",
                  "partial_omega_sq", "variance_component"),
                 ("metric", "formula", "typ", "n_topics", "n_obs", "ss_total")),
    ResultSchema("comparison of run pairs", "xdiv.compare",
                 "test, metric, run_a, run_b, run", _COMPARE + ("asl",), _COMPARE_ATTRS),
    ResultSchema("comparison with baselines", "xdiv.compare(baseline=...)",
                 "test, metric, baseline, run", _COMPARE, _COMPARE_ATTRS),
)
"""Every result dataset's variables, in one table (a test checks each against what its
function returns)."""


def schema_table() -> str:
    """:data:`RESULT_SCHEMAS` as a Markdown table, for the documentation."""
    rows = ["| result | made by | dimensions | variables | attributes |",
            "|---|---|---|---|---|"]
    for s in RESULT_SCHEMAS:
        rows.append(f"| {s.result} | `{s.made_by}` | {s.dims} | "
                    + ", ".join(f"`{v}`" for v in s.variables) + " | "
                    + ", ".join(f"`{a}`" for a in s.attrs) + " |")
    return "\n".join(rows)


ALIASES = {"asl": "pvalue"}
"""Variables of the pairwise tests (over ``run_a`` and ``run_b``) held under a second
name: the achieved significance level (ASL) of Sakai's papers is the test's p-value. An
alias shares its variable's values (no copy); NetCDF files hold the variable once and the
alias is made again when they are opened."""


def with_aliases(dataset: xr.Dataset) -> xr.Dataset:
    """``dataset`` with the :data:`ALIASES` of the pairwise-test variables it holds (a
    file written before the p-values were named ``pvalue`` gets that name for its
    ``asl``); other datasets are returned unchanged."""
    if not {"run_a", "run_b"} <= set(dataset.dims):
        return dataset
    for alias, name in ALIASES.items():
        if alias in dataset.data_vars and name not in dataset.data_vars:
            dataset = dataset.rename({alias: name})
            dataset[name].attrs.pop("alias_of", None)
        if name in dataset.data_vars and alias not in dataset.data_vars:
            variable = dataset[name].variable
            dataset[alias] = xr.Variable(variable.dims, variable.data,
                                         attrs={"alias_of": name})
    return dataset


def without_aliases(dataset: xr.Dataset) -> xr.Dataset:
    """``dataset`` without the alias variables of :func:`with_aliases`."""
    aliases = [name for name, v in dataset.data_vars.items() if "alias_of" in v.attrs]
    return dataset.drop_vars(aliases) if aliases else dataset


def summarize(scores: xr.Dataset) -> xr.Dataset:
    """Per-run means over the topics where each measure is defined.

    Returns
    -------
    xarray.Dataset
        ``mean(metric, run)`` and ``n_topics(metric, run)``, the number of topics averaged
        (topics with NaN scores, e.g. without relevant documents, are left out and
        counted out here).
    """
    score = scores["score"]
    out = xr.Dataset({"mean": score.mean("topic", skipna=True),
                      "n_topics": score.notnull().sum("topic")})
    out.attrs = {**scores.attrs, "xdiv_kind": "summary"}
    return out


def score_array(scores, metrics: str | Iterable[str] | None = None,
                runs: str | Iterable[str] | None = None) -> xr.DataArray:
    """The ``score(metric, run, topic)`` DataArray of a score cube (a Dataset from
    :func:`evaluate` or its ``score`` variable), optionally restricted to ``metrics`` and
    ``runs`` in the order given. A metric may be named in any spelling the registry parses
    to the cube's label (``nDCG(gain=exp)@10`` selects ``nDCG@10``; ``strec@5`` selects the
    ``I-rec@5`` column and ``I-rec@5`` the column labelled ``strec@5``).

    Raises
    ------
    InputError
        Not a score cube, or a metric or run it lacks (the message lists what it holds).
    """
    da = scores.get("score") if isinstance(scores, xr.Dataset) else scores
    if not isinstance(da, xr.DataArray) or set(da.dims) != {"metric", "run", "topic"}:
        raise InputError("expected a score(metric, run, topic) cube from xdiv.evaluate")
    da = da.transpose("metric", "run", "topic")
    metrics = [metrics] if isinstance(metrics, str) else metrics
    runs = [runs] if isinstance(runs, str) else runs
    if metrics is not None:
        held = [str(m) for m in da["metric"].values]
        canonical = ([str(c) for c in da["canonical"].values] if "canonical" in da.coords
                     else held)
        da = da.sel(metric=[_metric_label(m, held, canonical) for m in metrics])
    if runs is not None:
        held = {str(r) for r in da["run"].values}
        unknown = [str(r) for r in runs if str(r) not in held]
        if unknown:
            raise InputError(f"run {unknown[0]!r} is not in the score cube; it holds "
                             f"{', '.join(sorted(held))}")
        da = da.sel(run=[str(r) for r in runs])
    return da


def _metric_label(metric, held: list[str], canonical: list[str]) -> str:
    """The cube label of ``metric``: a label itself, or any name (registry, trec_eval,
    ir_measures) of a measure the cube holds under another label."""
    if str(metric) in held:
        return str(metric)
    try:
        name = translate(metric).measure.name
    except MeasureError:
        name = None
    if name not in canonical:
        raise InputError(f"metric {str(metric)!r} is not in the score cube; it holds "
                         f"{', '.join(held)}")
    return held[canonical.index(name)]
