"""Meta-evaluation of measures: discriminative power (Sakai, SIGIR 2006) with the paired
bootstrap test (Sakai, SIGIR 2006) and the randomised Tukey HSD test (Carterette, TOIS 2012;
Sakai, WWW 2012 / JIP 2013), the concordance test (Sakai, WWW 2012 / JIP 2013), rank
correlations, agreement of significance sets (Sakai & Song, SIGIR 2011), run and topic
sampling.

Input is the ``score(metric, run, topic)`` cube of :func:`xdiv.evaluate` (a Dataset or
its ``score`` DataArray). Results are labelled datasets whose run-pair variables are full
``run_a × run_b`` matrices over the same run labels (NaN on the diagonal), whose
parameters and seeds are attributes, and which round-trip through NetCDF. Topics with a
NaN score for some run (undefined) are left out of a metric's tests, and counted in
``n_topics``. Metrics tested on the same topics share the resamples drawn from ``seed``,
and a metric's result never depends on which other metrics the cube holds. The tests
resample in blocks and keep no per-replicate arrays, so their memory does not grow with
the number of replicates B (beyond the bootstrap's ``B alpha`` largest ``|t*|`` per pair).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xarray as xr
from tqdm.auto import tqdm

from ..errors import InputError
from ..core.cube import score_array, with_aliases, without_aliases
from ..io.provenance import recorded
from ..kernels import meta as K
from ..core.labels import object_strings, to_json
from ..typing import PVALUE_RULES, PValueRule

__all__ = ["bootstrap_test", "tukey_hsd", "discriminative_power", "combine_tests",
           "select_test", "concordance", "concordance_table", "rank_correlation",
           "significance_agreement", "sample_runs", "sample_topics"]


def _scores(scores, metrics: Sequence[str] | None = None) -> xr.DataArray:
    da = score_array(scores, metrics)
    if da.sizes["run"] < 2:
        raise InputError("meta-evaluation needs at least two runs")
    return da


MAX_B = 10 ** 6
"""The most resamples a test, a correction, an interval or a swap-rate estimate draws:
their p-values are then within 0.001 of the exact ones (two Monte Carlo standard errors,
``2 sqrt(p (1 - p) / B)``, at worst p = 1/2), and their time and memory grow with B."""


def check_resampling(B: int | None = None, seed: int = 0, alpha: float | None = None) -> None:
    """B a whole number from 1 to :data:`MAX_B`, seed a whole number in [0, 2^63) (NumPy's
    seeds that a NetCDF attribute can record), alpha a level strictly between 0 and 1.

    With both B and alpha (a resampling test at a significance level), B must also be at
    least 1/alpha: a test of B replicates reports its achieved significance level in
    steps of 1/B, so with fewer replicates no ASL but 0 falls below alpha and the
    bootstrap's required difference (the ``round(B alpha)``-th largest resample) does not
    exist. Swap rates (:func:`xdiv.design.swap_rates`) test at no level and need only
    B >= 1.
    """
    if B is not None and (isinstance(B, bool) or not isinstance(B, (int, np.integer)) or B < 1):
        raise InputError(f"the number of replicates B must be a whole number >= 1, not {B!r}")
    if B is not None and B > MAX_B:
        raise InputError(f"B = {B} resamples are too many: at most {MAX_B:,} (p-values from "
                         f"{MAX_B:,} resamples are within 0.001 of the exact ones, and the "
                         "time grows with B)")
    if (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
            or not 0 <= seed < 2 ** 63):
        raise InputError(f"seed must be a whole number from 0 to 2**63 - 1, not {seed!r}")
    if alpha is not None and not (isinstance(alpha, (int, float, np.floating))
                                  and not isinstance(alpha, bool) and 0 < alpha < 1):
        raise InputError(f"alpha must lie strictly between 0 and 1, not {alpha!r}")
    if B is not None and alpha is not None and B * alpha < 1 - 1e-9:
        needed = int(np.ceil(1 / alpha - 1e-9))
        raise InputError(f"B = {B} resamples cannot resolve the significance level alpha = "
                         f"{alpha:g}: an achieved significance level from B resamples "
                         f"moves in steps of 1/B, so B must be at least 1/alpha = {needed}")


def _check_rule(pvalue_rule) -> None:
    if pvalue_rule not in PVALUE_RULES:
        raise InputError(f"pvalue_rule {pvalue_rule!r} is not one of "
                         f"{', '.join(PVALUE_RULES)}")


def _metric_groups(da: xr.DataArray):
    """Metrics grouped by the topics on which every run has a score: yields (metric
    positions, scores ``(metric, run, topic)`` on those topics). Usually one group, so
    each test runs vectorised over all metrics at once."""
    values = da.values
    keep = ~np.isnan(values).any(axis=1)  # (metric, topic)
    for k, metric in enumerate(da["metric"].values):
        if keep[k].sum() < 2:
            raise InputError(f"{metric}: fewer than two topics have scores for every run")
    patterns = {}
    for k in range(len(keep)):
        patterns.setdefault(keep[k].tobytes(), []).append(k)
    for members in patterns.values():
        yield np.array(members), values[members][:, :, keep[members[0]]]


def _square(pairs: np.ndarray, n_runs: int, *, antisymmetric: bool = False) -> np.ndarray:
    """Fill ``(..., pair)`` values into ``(..., run_a, run_b)`` matrices (NaN diagonal)."""
    i, j = K.pair_index(n_runs)
    out = np.full(pairs.shape[:-1] + (n_runs, n_runs), np.nan)
    out[..., i, j] = pairs
    out[..., j, i] = -pairs if antisymmetric else pairs
    return out


def _pair_dataset(da, variables: dict, attrs: dict) -> xr.Dataset:
    runs = object_strings(da["run"].values)
    coords = {"metric": da["metric"].values, "run_a": runs, "run_b": runs}
    data = {k: (v[0], v[1]) for k, v in variables.items()}
    return with_aliases(xr.Dataset(data, coords=coords, attrs=attrs))


def _progress(da: xr.DataArray, B: int, progress: bool, desc: str) -> tqdm:
    """A progress bar of ``metric × resample block`` steps (advanced by the kernels'
    ``on_block`` once per block for every metric resampled together)."""
    return tqdm(total=da.sizes["metric"] * K.n_blocks(B), disable=not progress, desc=desc,
                unit="block")


@recorded
def bootstrap_test(scores, B: int = 1000, seed: int = 0, alpha: float = 0.05,
                   progress: bool = False, pvalue_rule: PValueRule = "plus-one") -> xr.Dataset:
    """Paired bootstrap test of every run pair for every metric (Sakai, SIGIR 2006; the
    two-sided version of Sakai, WWW 2012 / JIP 2013, Fig. 2).

    Parameters
    ----------
    scores : xarray.Dataset or xarray.DataArray
        The ``score(metric, run, topic)`` cube.
    B : int
        Number of bootstrap resamples of the topics.
    seed : int
        Seed of the resamples (recorded as an attribute).
    alpha : float
        Significance level of the required difference.
    progress : bool
        Show a progress bar advancing per metric and resample block.
    pvalue_rule : {"plus-one", "share"}
        How the ASL is read off the ``c`` resamples of B with ``|t*| >= |t|``:
        ``(c + 1) / (B + 1)`` (Phipson & Smyth, Statistical Applications in Genetics and
        Molecular Biology 2010; never 0, the convention of every resampled p-value of
        xdiv) or ``c / B`` (``"share"``, Sakai's ASL, SIGIR 2006). Both give the same
        discriminative power whenever ``B alpha`` is a whole number.

    Returns
    -------
    xarray.Dataset
        ``pvalue`` (the achieved significance level, also under its papers' name
        ``asl``), ``diff`` (mean of run_a - run_b), ``statistic`` (the studentised mean
        difference t) and ``delta`` (the pair's required difference at ``alpha``, Sakai,
        SIGIR 2006) over (metric, run_a, run_b);
        ``required_delta(metric)`` = max over pairs (Sakai & Song, SIGIR 2011);
        ``n_topics(metric)``. Attributes: test, B, seed, alpha, pvalue_rule.

    Examples
    --------
    >>> import xdiv
    >>> collection, runs = xdiv.datasets.synthetic(n_topics=20, n_runs=3, depth=20, seed=0)
    >>> scores = xdiv.evaluate(runs, collection, ["alpha-nDCG@10", "nDCG@10"])
    >>> result = xdiv.meta.bootstrap_test(scores, B=1000, seed=0)
    >>> result["pvalue"].sel(metric="alpha-nDCG@10").round(3).to_pandas()
    run_b  run01  run02  run03
    run_a
    run01    NaN  0.010  0.001
    run02  0.010    NaN  0.001
    run03  0.001  0.001    NaN
    >>> result["required_delta"].round(4).to_series().to_dict()
    {'alpha-nDCG@10': 0.0825, 'nDCG@10': 0.0775}
    """
    check_resampling(B, seed, alpha)
    _check_rule(pvalue_rule)
    B = int(B)  # a numpy integer would overflow in the kernels' arithmetic
    da = _scores(scores)
    n_runs = da.sizes["run"]
    i, j = K.pair_index(n_runs)
    n_metrics = da.sizes["metric"]
    fields = ("pvalue", "diff", "statistic", "delta")
    out = {k: np.full((n_metrics, n_runs, n_runs), np.nan) for k in fields}
    n_topics = np.zeros(n_metrics, dtype=np.int64)
    with _progress(da, B, progress, "bootstrap") as bar:
        for members, values in _metric_groups(da):
            mean, t, asl, delta = K.paired_bootstrap(
                values[:, i] - values[:, j], replicates=B, rng=np.random.default_rng(seed),
                alpha=alpha, on_block=lambda share, step=len(members): bar.update(
                    step if share == 1 else step * share),  # whole steps unless sliced
                pvalue_rule=pvalue_rule)
            for key, v in zip(fields, (asl, mean, t, delta)):
                out[key][members] = _square(v, n_runs,
                                            antisymmetric=key in ("diff", "statistic"))
            n_topics[members] = values.shape[-1]
    dims = ("metric", "run_a", "run_b")
    result = _pair_dataset(da, {k: (dims, v) for k, v in out.items()},
                           {"test": "paired bootstrap", "B": B, "seed": seed, "alpha": alpha,
                            "pvalue_rule": pvalue_rule})
    result["required_delta"] = result["delta"].max(("run_a", "run_b"))
    result["n_topics"] = ("metric", n_topics)
    return result


@recorded
def tukey_hsd(scores, B: int = 5000, seed: int = 0, alpha: float = 0.05,
              progress: bool = False, pvalue_rule: PValueRule = "plus-one") -> xr.Dataset:
    """Randomised Tukey HSD test of every run pair for every metric (Carterette, TOIS 2012;
    as in Sakai, WWW 2012 / JIP 2013, Fig. 4).

    Parameters
    ----------
    scores, seed, alpha, progress, pvalue_rule
        As in :func:`bootstrap_test` (the seed drives the permutations; ``c`` counts the
        trials whose range of run means reaches the pair's ``|diff|``).
    B : int
        Number of randomisation trials.

    Returns
    -------
    xarray.Dataset
        ``pvalue`` (the ASL, also as ``asl``) and ``diff`` over (metric, run_a, run_b);
        ``required_delta(metric)`` = the
        smallest |diff| among pairs with ASL < alpha (Sakai, WWW 2012 / JIP 2013, Fig. 5);
        ``n_topics``.

    Examples
    --------
    >>> import xdiv
    >>> collection, runs = xdiv.datasets.synthetic(n_topics=20, n_runs=3, depth=20, seed=0)
    >>> scores = xdiv.evaluate(runs, collection, ["alpha-nDCG@10", "nDCG@10"])
    >>> result = xdiv.meta.tukey_hsd(scores, B=1000, seed=0)
    >>> result["pvalue"].sel(metric="alpha-nDCG@10").round(3).to_pandas()
    run_b  run01  run02  run03
    run_a
    run01    NaN  0.293  0.001
    run02  0.293    NaN  0.001
    run03  0.001  0.001    NaN
    >>> result["required_delta"].round(4).to_series().to_dict()
    {'alpha-nDCG@10': 0.2062, 'nDCG@10': 0.306}
    """
    check_resampling(B, seed, alpha)
    _check_rule(pvalue_rule)
    B = int(B)  # a numpy integer would overflow in the kernels' arithmetic
    da = _scores(scores)
    n_runs = da.sizes["run"]
    n_metrics = da.sizes["metric"]
    asl = np.full((n_metrics, n_runs, n_runs), np.nan)
    diff = np.full((n_metrics, n_runs, n_runs), np.nan)
    n_topics = np.zeros(n_metrics, dtype=np.int64)
    with _progress(da, B, progress, "Tukey HSD") as bar:
        for members, values in _metric_groups(da):
            d, a = K.randomised_tukey(values, replicates=B, rng=np.random.default_rng(seed),
                                      on_block=lambda step=len(members): bar.update(step),
                                      pvalue_rule=pvalue_rule)
            asl[members] = _square(a, n_runs)
            diff[members] = _square(d, n_runs, antisymmetric=True)
            n_topics[members] = values.shape[-1]
    dims = ("metric", "run_a", "run_b")
    result = _pair_dataset(da, {"pvalue": (dims, asl), "diff": (dims, diff)},
                           {"test": "randomised Tukey HSD", "B": B, "seed": seed,
                            "alpha": alpha, "pvalue_rule": pvalue_rule})
    significant = np.abs(result["diff"]).where(result["pvalue"] < alpha)
    result["required_delta"] = significant.min(("run_a", "run_b"))
    result["n_topics"] = ("metric", n_topics)
    return result


@recorded
def discriminative_power(scores, method: str = "bootstrap", alpha: float = 0.05,
                         B: int | None = None, seed: int = 0,
                         progress: bool = False,
                         pvalue_rule: PValueRule = "plus-one") -> xr.Dataset:
    """Discriminative power: the share of run pairs significantly different at ``alpha``.

    ``pvalue_rule`` as in :func:`bootstrap_test`: ``"share"`` gives Sakai's ASLs
    (SIGIR 2006), ``#{reaching} / B``.

    Returns the test's dataset plus ``power(metric)``, ``n_significant(metric)``,
    ``n_pairs`` and ``asl_curve(metric, pair_rank)`` (ASLs sorted ascending, for plots).
    """
    if method == "bootstrap":
        result = bootstrap_test(scores, B=1000 if B is None else B, seed=seed, alpha=alpha,
                                progress=progress, pvalue_rule=pvalue_rule)
    elif method == "tukey":
        result = tukey_hsd(scores, B=5000 if B is None else B, seed=seed, alpha=alpha,
                           progress=progress, pvalue_rule=pvalue_rule)
    else:
        raise InputError(f"method must be 'bootstrap' or 'tukey', not {method!r}")
    n_runs = result.sizes["run_a"]
    i, j = K.pair_index(n_runs)
    pairs = result["pvalue"].values[:, i, j]
    result["n_significant"] = ("metric", (pairs < alpha).sum(axis=1))
    result["power"] = result["n_significant"] / len(i)
    result["asl_curve"] = (("metric", "pair_rank"), np.sort(pairs, axis=1))
    result.attrs["n_pairs"] = len(i)
    return result


TEST_SETTINGS = ("B", "seed", "alpha")
"""The attributes of a test's result that :func:`combine_tests` keeps per test."""


@recorded
def combine_tests(results: dict[str, xr.Dataset]) -> xr.Dataset:
    """Results of :func:`discriminative_power` for several tests, keyed by method
    (``"bootstrap"``, ``"tukey"``), stacked along a ``test`` dimension as ``xdiv meta -o``
    writes them.

    Each test's settings become coordinates along ``test``: ``test_name`` (its ``test``
    attribute, e.g. ``"paired bootstrap"``), ``B``, ``seed`` and ``alpha``, so that they
    stay recorded when the tests differ (the bootstrap's default B is 1000, the Tukey
    HSD test's 5000); attributes equal for all tests also stay attributes.
    """
    tests = list(results)
    parts = [without_aliases(part) for part in results.values()]
    merged = xr.concat(parts, dim="test", combine_attrs="drop_conflicts", coords="minimal",
                       compat="override")
    settings = {name: ("test", [r.attrs[name] for r in parts]) for name in TEST_SETTINGS}
    return with_aliases(merged.assign_coords(
        test=tests, test_name=("test", [r.attrs["test"] for r in parts]), **settings))


def select_test(result: xr.Dataset, test: str | None = None) -> xr.Dataset:
    """One test's result from a meta-evaluation of several (:func:`combine_tests`, ``xdiv
    meta -o``), with its ``test`` (full name), ``B``, ``seed`` and ``alpha`` attributes
    as :func:`discriminative_power` returned them.

    ``test`` defaults to the only test the result holds, else its first (the bootstrap
    in ``xdiv meta --test both`` files). A result without a ``test`` dimension is
    returned unchanged when ``test`` is not given.

    Raises
    ------
    InputError
        ``test`` is not one of the tests held, or is given for a result of one test.
    """
    if "test" not in result.dims:
        if test is not None:
            raise InputError(f"the result holds one test ({result.attrs.get('test', '?')}) "
                             f"and no test dimension to select {test!r} from")
        return result
    held = [str(t) for t in result["test"].values]
    chosen = held[0] if test is None else str(test)
    if chosen not in held:
        raise InputError(f"the meta-evaluation holds the tests {', '.join(held)}, not "
                         f"{chosen}")
    one = result.sel(test=chosen)
    recorded = [name for name in ("test_name", *TEST_SETTINGS) if name in one.coords]
    settings = {name: one[name].item() for name in recorded}
    full_name = settings.pop("test_name", chosen)
    return one.drop_vars(["test", *recorded]).assign_attrs(
        {**result.attrs, **settings, "test": full_name})


def _differences(values: np.ndarray) -> np.ndarray:
    """``(run, topic)`` scores to the ``(pair, topic)`` differences of every run pair."""
    i, j = K.pair_index(values.shape[0])
    return values[i] - values[j]


@recorded
def concordance(scores, m1: str, m2: str, gold: Sequence[str] | str) -> xr.Dataset:
    """The concordance test of two metrics against one or more gold standards (Sakai,
    WWW 2012 / JIP 2013, Fig. 6), over all run pairs × topics with scores for both runs.

    Ties: a (topic, run pair) case tied under ``m1`` or ``m2`` is no disagreement. In a
    disagreement a metric is correct when no gold standard orders the two runs the
    other way, so a case tied under the gold standard(s) counts as correct for both
    metrics (in both concordances and in neither ``only_1`` nor ``only_2``).

    Returns
    -------
    xarray.Dataset
        ``disagreements``, ``concordance_1`` (= Correct_1 / Disagreements),
        ``concordance_2``, ``only_1``, ``only_2`` and ``pvalue`` (two-sided sign test over
        the disagreements where exactly one metric is correct).
    """
    gold = [gold] if isinstance(gold, str) else list(gold)
    da = _scores(scores, [m1, m2, *gold])
    m1, m2, *gold = [str(m) for m in da["metric"].values]  # the cube's labels
    if m1 == m2:
        raise InputError(f"the concordance test compares two different metrics, not {m1} "
                         "with itself")
    if {m1, m2} & set(gold):
        raise InputError(f"a gold standard cannot be one of the compared metrics "
                         f"({', '.join(sorted({m1, m2} & set(gold)))})")
    values = da.values
    d1, d2 = _differences(values[0]), _differences(values[1])
    gs = np.stack([_differences(v) for v in values[2:]])
    defined = ~(np.isnan(d1) | np.isnan(d2) | np.isnan(gs).any(axis=0))
    n, c1, c2, o1, o2 = K.concordance_counts(np.where(defined, d1, 0), np.where(defined, d2, 0),
                                             np.where(defined, gs, 0))
    from scipy.stats import binomtest  # loaded here: discriminative power never needs it

    pvalue = binomtest(int(o1), int(o1 + o2), 0.5).pvalue if o1 + o2 else 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        return xr.Dataset({"disagreements": n, "concordance_1": c1 / n if n else np.nan,
                           "concordance_2": c2 / n if n else np.nan, "only_1": o1,
                           "only_2": o2, "pvalue": pvalue},
                          attrs={"metric_1": m1, "metric_2": m2, "gold": to_json(gold)})


@recorded
def concordance_table(scores, metrics: Sequence[str], gold: Sequence[str] | str) -> xr.Dataset:
    """:func:`concordance` for every ordered pair of ``metrics``: dims (metric_1, metric_2),
    labelled with the cube's names of the metrics."""
    names = object_strings(_scores(scores, metrics)["metric"].values)
    if len(set(names)) != len(names):
        raise InputError(f"metrics name a metric twice: {', '.join(metrics)}")
    fields = ("disagreements", "concordance_1", "concordance_2", "only_1", "only_2", "pvalue")
    table = {f: np.full((len(names), len(names)), np.nan) for f in fields}
    for a, m1 in enumerate(names):
        for b, m2 in enumerate(names):
            if a != b:
                res = concordance(scores, m1, m2, gold)
                for f in fields:
                    table[f][a, b] = float(res[f])
    gold = [str(g) for g in _scores(scores, [gold] if isinstance(gold, str) else gold)
            ["metric"].values]
    return xr.Dataset({f: (("metric_1", "metric_2"), v) for f, v in table.items()},
                      coords={"metric_1": names, "metric_2": names},
                      attrs={"gold": to_json(gold), "test": "concordance"})


def _kendall(a, b) -> float:
    """Kendall's tau-b (scipy's), loaded on first use: ``xdiv meta`` and ``xdiv compare``
    never need it."""
    from scipy.stats import kendalltau

    return kendalltau(a, b).statistic


CORRELATIONS = dict(zip(K.RANK_CORRELATIONS, (
    _kendall,
    K.tau_ap,
    lambda a, b: (K.tau_ap(a, b) + K.tau_ap(b, a)) / 2,
    K.tau_ap_b,
)))
"""Rank correlation coefficients by name: ``f(metric_1 means, metric_2 means)``."""


@recorded
def rank_correlation(scores, method: str = "kendall") -> xr.DataArray:
    """Correlation of the run rankings (by mean score over topics) of every metric pair.

    ``method``: ``"kendall"`` (tau-b, scipy), ``"tau_ap"`` (metric_1's ranking evaluated
    against metric_2's as the reference; top-weighted; ties as in
    :func:`xdiv.kernels.meta.tau_ap`), ``"tau_ap_sym"`` (mean of both directions of
    tau_ap, the symmetric tau_ap of Sakai, WWW 2012 / JIP 2013) or ``"tau_ap_b"``
    (Urbano & Marrero's tau_AP-b, ICTIR 2017, symmetric, for rankings with ties).
    """
    if method not in CORRELATIONS:
        raise InputError(f"method must be one of {', '.join(CORRELATIONS)}, not {method!r}")
    da = _scores(scores)
    means = da.mean("topic", skipna=True).values  # (metric, run)
    names = object_strings(da["metric"].values)
    coefficient = CORRELATIONS[method]
    out = np.array([[coefficient(means[a], means[b]) for b in range(len(names))]
                    for a in range(len(names))], dtype=float)
    return xr.DataArray(out, dims=("metric_1", "metric_2"),
                        coords={"metric_1": names, "metric_2": names}, name=method)


@recorded
def significance_agreement(test: xr.Dataset, alpha: float | None = None) -> xr.Dataset:
    """Agreement of metrics' sets of significantly different run pairs (Sakai & Song,
    SIGIR 2011, Table 5): ``jaccard = |A ∩ B| / |A ∪ B|``, ``only_1 = |A - B|``,
    ``only_2 = |B - A|``."""
    alpha = test.attrs.get("alpha", 0.05) if alpha is None else alpha
    check_resampling(alpha=alpha)
    i, j = K.pair_index(test.sizes["run_a"])
    sig = test["pvalue"].values[:, i, j] < alpha  # (metric, pair)
    both = (sig[:, None, :] & sig[None, :, :]).sum(axis=-1)
    either = (sig[:, None, :] | sig[None, :, :]).sum(axis=-1)
    only = (sig[:, None, :] & ~sig[None, :, :]).sum(axis=-1)
    names = object_strings(test["metric"].values)
    with np.errstate(invalid="ignore", divide="ignore"):
        jaccard = np.where(either > 0, both / np.where(either > 0, either, 1), np.nan)
    coords = {"metric_1": names, "metric_2": names}
    dims = ("metric_1", "metric_2")
    return xr.Dataset({"jaccard": (dims, jaccard), "both": (dims, both),
                       "only_1": (dims, only), "only_2": (dims, only.T)}, coords=coords,
                      attrs={"alpha": alpha, "test": test.attrs.get("test", "")})


def sample_runs(scores: xr.Dataset, k: int, seed: int = 0) -> xr.Dataset:
    """``k`` runs drawn at random without replacement (seeded; seed and runs recorded)."""
    return _sample(scores, "run", k, seed)


def sample_topics(scores: xr.Dataset, k: int, seed: int = 0) -> xr.Dataset:
    """``k`` topics drawn at random without replacement (seeded)."""
    return _sample(scores, "topic", k, seed)


def _sample(scores: xr.Dataset, dim: str, k: int, seed: int) -> xr.Dataset:
    check_resampling(seed=seed)
    n = scores.sizes[dim]
    if not 1 <= k <= n:
        raise InputError(f"cannot sample {k} of {n} {dim}s")
    picked = np.sort(np.random.default_rng(seed).choice(n, size=k, replace=False))
    out = scores.isel({dim: picked})
    out.attrs = {**scores.attrs, f"sampled_{dim}s": to_json(out[dim].values.tolist()),
                 f"sample_{dim}_seed": seed}
    return out
