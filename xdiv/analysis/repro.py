"""How closely repeated runs match the original ones: the measures of Breuer, Ferro,
Fuhr, Maistro, Sakai, Schaer & Soboroff (SIGIR 2020), for every measure of the registry.

Two cases, named by what they are:

- ``same_collection``: the runs are repeated on the original test collection (ACM's 2020
  terms, which repro_eval 0.5.0 follows with its ``RpdEvaluator``: *reproducibility*; the
  SIGIR 2020 paper, written with ACM's earlier terms: *replicability*). Document order
  (KTU, RBO), per-topic effectiveness (RMSE, nRMSE), overall effects (ER, ΔRI) and paired
  t-tests are all defined.
- ``other_collection``: the runs are repeated on another collection (``repeated_qrels``;
  ACM 2020 / repro_eval's ``RplEvaluator``: *replicability*; the SIGIR 2020 paper:
  *reproducibility*). Topics differ, so only overall effects (ARP, ER, ΔRI) and unpaired
  t-tests are defined.

Several repetitions of the same original runs (or of several original pairs) are measured
in one call along a ``pair`` dimension: ``repeated`` then maps pair names to the roles'
runs (see :func:`evaluate`).

Document order is read from the runs as ranked (``order``; ties broken by docno). KTU
correlates these ranks; RBO reads the tie groups (consecutive equal scores) and treats
them as ``rbo_ties`` says. At a cutoff, a tie group that crosses it is cut there, with
the documents the run's order ranks within the cutoff.

Differences from repro_eval 0.5.0 (the ``definitions="repro_eval"`` option gives its
forms where they differ):

- KTU: Kendall's tau-b on the union of the two lists at each cutoff, a document a list
  lacks ranked below that list's documents (:func:`xdiv.kernels.repro.ktu`). repro_eval
  correlates the two lists' sequences of positions in the alphabetically sorted union,
  position by position, which is not a correlation of the documents' ranks (it differs
  from it on most pairs of permuted lists) and fails on lists of different lengths.
- RBO: Webber, Moffat & Zobel's extrapolated RBO (and its min, max and residual), tied
  scores treated as Corsi & Urbano (SIGIR 2024, ``rbo_ties``). repro_eval sums the
  agreements to depth 1000 and normalises by the weights' sum, after breaking ties.
- Ties: xdiv ranks runs as trec_eval (score descending, then docno descending), as
  repro_eval does for runs sorted by score; repro_eval breaks ties in file order, so a
  file not sorted by score ranks differently there.
- Missing topics: a topic of the qrels a run lacks scores 0 (``missing="zero"``, as
  ``trec_eval -c`` and as repro_eval through ir_measures); ``missing="nan"`` leaves it
  out of that run's means and tests instead. For document order, a repetition that lacks
  a topic has RBO 0 there (nothing overlaps) and no KTU (tau is undefined for an empty
  list; the means are over the topics where KTU is defined, counted in ``ktu_topics``);
  repro_eval leaves such topics out of both (``definitions="repro_eval"`` does too) and
  fails when the original run lacks a topic its repetition has.
- Scores: trec_eval 9 and pytrec_eval, which repro_eval scores with through ir_measures,
  read run scores in single precision, so scores that differ only beyond about seven
  significant digits tie there (and are ranked by docno); xdiv reads them in double
  precision. ``single_precision=True`` ranks as they do for the effectiveness measures.
- p-values: the paired t-test is scipy's ``ttest_rel``, the unpaired one Student's
  pooled-variance ``ttest_ind`` as repro_eval (``equal_var=False``: Welch's). When the
  two samples are identical, t = 0 and p = 1 (repro_eval sets 1 only when every measure's
  p-value is undefined).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import xarray as xr

from ..errors import InputError
from ..io.provenance import recorded
from ..kernels import compare as KC
from ..kernels import repro as K
from .compare import t_pvalue

ROLES = ("baseline", "advanced")
"""The roles of the runs of an experiment: a baseline and an advanced run."""
CUTOFFS = (5, 10, 20, 100, 1000)
"""The default cutoffs of KTU and RBO."""
DEFINITIONS = ("xdiv", "repro_eval")
"""The forms of KTU and RBO: xdiv's (see the module docstring) or repro_eval 0.5.0's."""

__all__ = ["CUTOFFS", "DEFINITIONS", "ROLES", "evaluate"]


def _collection(qrels):
    from ..io.api import read_qrels

    if isinstance(qrels, xr.Dataset):
        return qrels
    return read_qrels(qrels)


def _run(value, role: str, side: str, order: str) -> xr.Dataset:
    """One run: a path, or a Runs dataset holding a single run."""
    from ..io.runfiles import read_run

    runs = value if isinstance(value, xr.Dataset) else read_run(value, order=order)
    if runs.sizes.get("run") != 1:
        raise InputError(f"{side} {role}: expected one run, got {runs.sizes.get('run')}")
    return runs


def _roles(original: Mapping, repeated: Mapping) -> list[str]:
    for side, runs in (("original", original), ("repeated", repeated)):
        if not isinstance(runs, Mapping):
            raise InputError(f"{side} must map roles ('baseline', 'advanced') to runs")
        unknown = [role for role in runs if role not in ROLES]
        if unknown:
            raise InputError(f"{side}: unknown role {unknown[0]!r} (roles: baseline, advanced)")
    if set(original) != set(repeated):
        raise InputError(f"original has roles {sorted(original)} but repeated has "
                         f"{sorted(repeated)}: give the same roles")
    if "baseline" not in original:
        raise InputError("original and repeated need at least a 'baseline' run")
    return [role for role in ROLES if role in original]


def _lists(runs: xr.Dataset, topics: Sequence[str]) -> dict:
    """Per topic: (document codes as docno ranks, tie-group labels) in rank order; topics
    the run lacks give empty lists. Codes index the run's docno vocabulary, remapped to a
    shared one by the caller."""
    out = {}
    length = runs["length"].isel(run=0)
    doc = runs["doc"].isel(run=0)
    score = runs["score"].isel(run=0)
    have = set(runs["topic"].values.tolist())
    for topic in topics:
        if topic not in have:
            out[topic] = (np.zeros(0, dtype=np.int64), np.zeros(0))
            continue
        n = int(length.sel(topic=topic))
        out[topic] = (doc.sel(topic=topic).values[:n].astype(np.int64),
                      score.sel(topic=topic).values[:n])
    return out


def _groups(scores: np.ndarray) -> np.ndarray:
    """Tie-group labels of a ranked list's scores: consecutive equal scores share one."""
    if len(scores) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.cumsum(np.r_[True, scores[1:] != scores[:-1]])


def _order_measures(original, repeated, topics, roles, cutoffs, p, rbo_ties, definitions,
                    rbo_depth):
    """Per-topic KTU and RBO forms, ``(role, cutoff, topic)``."""
    shape = (len(roles), len(cutoffs), len(topics))
    out = {name: np.full(shape, np.nan) for name in ("ktu", "rbo", "rbo_min", "rbo_res")}
    for i, role in enumerate(roles):
        a_runs, b_runs = original[role], repeated[role]
        vocabulary = np.union1d(a_runs["docno"].values.astype(str),
                                b_runs["docno"].values.astype(str))
        lists = []
        for runs in (a_runs, b_runs):
            remap = np.searchsorted(vocabulary, runs["docno"].values.astype(str))
            lists.append({t: (remap[d], s) for t, (d, s) in _lists(runs, topics).items()})
        for k, topic in enumerate(topics):
            (a, a_score), (b, b_score) = lists[0][topic], lists[1][topic]
            for j, cutoff in enumerate(cutoffs):
                a_k, b_k = a[:cutoff], b[:cutoff]
                if definitions == "repro_eval":
                    if len(b) == 0:  # repro_eval skips the topics a repetition lacks
                        continue
                    out["ktu"][i, j, k] = K.ktu_positional(a_k, b_k)
                    out["rbo"][i, j, k] = K.rbo_truncated(a_k, b_k, p, rbo_depth)
                    continue
                out["ktu"][i, j, k] = K.ktu(a_k, b_k)
                ext, low, _, res = K.rbo(a_k, _groups(a_score[:cutoff]), b_k,
                                         _groups(b_score[:cutoff]), p, rbo_ties)
                out["rbo"][i, j, k], out["rbo_min"][i, j, k] = ext, low
                out["rbo_res"][i, j, k] = res
    if definitions == "repro_eval":
        del out["rbo_min"], out["rbo_res"]
    return out


def _scores(sides: Mapping[str, Mapping[str, xr.Dataset]], collection: xr.Dataset,
            measures, options, order: str, single_precision: bool) -> dict:
    """Per-topic scores ``(metric, role, topic)`` of each side's runs, all scored in one
    call (a warning names each run once, as ``"original baseline"``, ...)."""
    import pandas as pd

    from ..core.runs import build_runs, runs_frame
    from ..engine import evaluate as score_runs

    frame = pd.concat([runs_frame(one).assign(run=f"{side} {role}")
                       for side, runs in sides.items() for role, one in runs.items()],
                      ignore_index=True)
    if single_precision:
        frame["score"] = frame["score"].to_numpy(dtype=np.float32).astype(np.float64)
    score = score_runs(build_runs(frame, order=order), collection, measures,
                       **options)["score"]
    out = {}
    for side, runs in sides.items():
        parts = [score.sel(run=f"{side} {role}", drop=True).expand_dims(role=[role])
                 for role in runs]
        out[side] = xr.concat(parts, dim="role").transpose("metric", "role", "topic")
    return out


@recorded
def evaluate(qrels, original: Mapping[str, object], repeated: Mapping[str, object],
             measures: str | Iterable[str], *, repeated_qrels=None,
             cutoffs: Sequence[int] = CUTOFFS, p: float = 0.95, rbo_ties: str = "a",
             definitions: str = "xdiv", rbo_depth: int = 1000, missing: str = "zero",
             adhoc: str | None = None, order: str = "score-docno-desc",
             equal_var: bool = True, sig_level: float = 0.05,
             single_precision: bool = False) -> xr.Dataset:
    """Measure how closely repeated runs match the original ones (Breuer et al., SIGIR
    2020), for any measures of the registry.

    Parameters
    ----------
    qrels : str, path-like or xarray.Dataset
        The original collection (a qrels file or :func:`xdiv.read_qrels`'s collection).
    original, repeated : mapping
        ``{"baseline": RUN, "advanced": RUN}`` (``"advanced"`` optional): run files or
        Runs datasets of one run each; the original runs and their repetitions. Several
        repetitions at once: ``repeated`` maps pair names to such mappings
        (``{"tf_1": {"baseline": ..., "advanced": ...}, "tf_2": {...}}``), and
        ``original`` is one roles mapping for every pair or maps the same pair names, in
        the same order, to each pair's originals. Every pair needs the same roles.
    measures : str or list of str
        Measure names as :func:`xdiv.evaluate` reads them: xdiv, trec_eval (``map``,
        ``P.10``) or ir_measures (``nDCG@10``) spellings.
    repeated_qrels : optional
        The collection the repeated runs were made on, when it is not the original one:
        the ``other_collection`` case (ACM 2020 / repro_eval's replicability; the SIGIR
        2020 paper's reproducibility). Without it the case is ``same_collection`` (ACM
        2020's reproducibility; the paper's replicability).
    cutoffs : sequence of int
        Depths of KTU and RBO (same collection only).
    p : float
        RBO's persistence.
    rbo_ties : {"a", "b", "w"}
        Tied scores in RBO, as Corsi & Urbano (SIGIR 2024): ``"a"`` the expected RBO over
        the orders of the ties, ``"b"`` that corrected for the information ties lose,
        ``"w"`` ties as shared ranks.
    definitions : {"xdiv", "repro_eval"}
        ``"repro_eval"``: KTU and RBO as repro_eval 0.5.0 computes them (see the module
        docstring); RBO then has no min or residual form.
    rbo_depth : int
        The depth of repro_eval's RBO (``definitions="repro_eval"`` only).
    missing, adhoc, order
        As in :func:`xdiv.evaluate` and :func:`xdiv.read_run`; runs given as datasets
        are scored as ranked by ``order`` too.
    equal_var : bool
        The unpaired t-test (other collection): Student's pooled variance (as repro_eval
        and scipy's ``ttest_ind``) or, False, Welch's.
    sig_level : float
        The t-tests' confidence intervals are at level ``1 - sig_level``.
    single_precision : bool
        Score the runs ranked by their scores rounded to single precision, as trec_eval 9
        and pytrec_eval (and so repro_eval) read them: scores equal in single precision
        tie, and the tie is broken by docno. KTU and RBO keep the full scores, as
        repro_eval's do.

    Returns
    -------
    xarray.Dataset
        ``score`` ``(metric, side, role, topic)``, the per-topic scores (side: original,
        repeated); ``delta`` ``(metric, side, topic)``, advanced - baseline per topic;
        ``arp`` ``(metric, side, role)``, the mean over topics; ``er`` and ``dri``
        ``(metric)`` with both roles; the t-test of original against repeated scores,
        ``(metric, role)``: ``pvalue``, ``statistic``, ``df``, ``mean_difference``,
        ``ci_low``, ``ci_high``, ``effect_size`` (Cohen's d_z paired, d unpaired) and
        ``hedges_g``. Same collection only: ``rmse``, ``nrmse`` ``(metric, role)``,
        ``abs_difference`` ``(metric, role, topic)`` = ``|original - repeated|``; ``ktu``,
        ``rbo``, ``rbo_min``, ``rbo_res`` ``(role, cutoff)``, means over the topics where
        they are defined, and their per-topic values ``ktu_topic``, ... ``(role, cutoff,
        topic)``. Attributes say the case and every option (JSON text where structured).
        With pairs named in ``repeated``, every variable gains a leading ``pair``
        dimension (of length 1 for one named pair) and each pair is measured as if given
        alone; ``sources`` (the files) and any attribute that differs between the pairs
        are JSON text mapping each pair to its value. One pair given by its roles keeps
        the layout above, without ``pair``.

    Raises
    ------
    InputError
        Unknown role or option, roles differing between the sides or the pairs, pairs
        differing between ``original`` and ``repeated``, a file that cannot be read, or a
        run holding more than one run.
    """
    pairs = _pairs(original, repeated)
    if pairs is not None:
        return _by_pair(qrels, pairs, measures, dict(
            repeated_qrels=repeated_qrels, cutoffs=cutoffs, p=p, rbo_ties=rbo_ties,
            definitions=definitions, rbo_depth=rbo_depth, missing=missing, adhoc=adhoc,
            order=order, equal_var=equal_var, sig_level=sig_level,
            single_precision=single_precision))
    cutoffs_given = list(cutoffs) if isinstance(cutoffs, Iterable) else [cutoffs]
    if definitions not in DEFINITIONS:
        raise InputError(f"definitions must be one of {DEFINITIONS}, not {definitions!r}")
    if rbo_ties not in K.RBO_TIES:
        raise InputError(f"rbo_ties must be one of {K.RBO_TIES}, not {rbo_ties!r}")
    if not 0 < p < 1:
        raise InputError(f"p must be between 0 and 1, not {p!r}")
    if not 0 < sig_level < 1:
        raise InputError(f"sig_level must be between 0 and 1, not {sig_level!r}")
    try:
        cutoffs = [int(c) for c in cutoffs_given if int(c) == c]
    except (TypeError, ValueError):
        cutoffs = []
    if not cutoffs or len(cutoffs) != len(cutoffs_given) or min(cutoffs) < 1:
        raise InputError(f"cutoffs must be positive whole numbers, not {cutoffs_given!r}")
    roles = _roles(original, repeated)
    same = repeated_qrels is None
    collection = _collection(qrels)
    other = collection if same else _collection(repeated_qrels)
    runs = {side: {role: _run(given[role], role, side, order) for role in roles}
            for side, given in (("original", original), ("repeated", repeated))}
    options = {"missing": missing, "adhoc": adhoc}
    if same:
        scores = _scores(runs, collection, measures, options, order, single_precision)
    else:
        scores = {side: _scores({side: runs[side]}, qrels_of, measures, options, order,
                                single_precision)[side]
                  for side, qrels_of in (("original", collection), ("repeated", other))}
    first, second = scores["original"], scores["repeated"]
    result = xr.Dataset(coords={"metric": first["metric"].values, "role": roles})
    if same:
        first, second = xr.align(first, second, join="outer")
        score = xr.concat([first, second], dim=xr.DataArray(["original", "repeated"],
                                                             dims="side"))
    else:
        score = xr.concat([first, second], dim=xr.DataArray(["original", "repeated"],
                                                             dims="side"), join="outer")
    result["score"] = score.transpose("metric", "side", "role", "topic")
    result["arp"] = score.mean("topic", skipna=True).transpose("metric", "side", "role")
    if "advanced" in roles:
        delta = score.sel(role="advanced") - score.sel(role="baseline")
        result["delta"] = delta.transpose("metric", "side", "topic")
        values = score.transpose("side", "role", "metric", "topic").values
        (ob, oa), (rb, ra) = values[0], values[1]
        result["er"] = ("metric", K.effect_ratio(oa - ob, ra - rb))
        result["dri"] = ("metric", K.delta_relative_improvement(ob, oa, rb, ra))
    _t_tests(result, first, second, same, equal_var, sig_level)
    if same:
        o, r = first.values, second.values
        result["rmse"] = (("metric", "role"), K.rmse(o, r))
        result["nrmse"] = (("metric", "role"), K.nrmse(o, r))
        result["abs_difference"] = abs(first - second)
        per_topic = _order_measures(runs["original"], runs["repeated"],
                                    [str(t) for t in first["topic"].values], roles, cutoffs,
                                    p, rbo_ties, definitions, rbo_depth)
        result = result.assign_coords(cutoff=cutoffs)
        for name, values in per_topic.items():
            da = xr.DataArray(values, dims=("role", "cutoff", "topic"),
                              coords={"topic": first["topic"].values})
            result[f"{name}_topic"] = da
            result[name] = da.mean("topic", skipna=True)
            result[f"{name}_topics"] = da.notnull().sum("topic")
    result.attrs.update(
        xdiv_kind="repro", case="same_collection" if same else "other_collection",
        definitions=definitions, rbo_ties=rbo_ties, p=float(p), rbo_depth=int(rbo_depth),
        missing=missing, adhoc=adhoc or "", order=order, equal_var=int(bool(equal_var)),
        single_precision=int(bool(single_precision)),
        sig_level=float(sig_level),
        test="paired t (scipy ttest_rel)" if same else
        ("Student's unpaired t, pooled variance" if equal_var else "Welch's unpaired t"),
        sources=json.dumps({side: {role: _source(given[role]) for role in roles}
                            for side, given in (("original", original),
                                                ("repeated", repeated))}),
        qrels=_source(qrels), repeated_qrels="" if same else _source(repeated_qrels))
    return result


def _is_roles(value) -> bool:
    """Whether ``value`` maps roles to runs: a mapping that is no Runs dataset."""
    return isinstance(value, Mapping) and not isinstance(value, xr.Dataset)


def _pairs(original, repeated) -> dict | None:
    """``{pair: (original roles, repeated roles)}`` when ``repeated`` maps pair names to
    roles (``original`` then one roles mapping for every pair, or one per pair name);
    None for one pair given by its roles."""
    if not isinstance(repeated, Mapping) or not repeated or \
            not any(_is_roles(v) for v in repeated.values()):
        return None
    if not all(_is_roles(v) for v in repeated.values()):
        raise InputError("repeated must map roles ('baseline', 'advanced') to runs, or pair "
                         "names to such mappings, not both")
    names = [str(name) for name in repeated]
    if len(set(names)) != len(names):
        raise InputError(f"repeated: pair names must differ as text, not {names}")
    if isinstance(original, Mapping) and original and \
            all(_is_roles(v) for v in original.values()):
        if [str(name) for name in original] != names:
            raise InputError(f"original has the pairs {[str(n) for n in original]} but "
                             f"repeated has {names}: give the same pairs, in the same order")
        return {str(name): (original[name], given) for name, given in repeated.items()}
    return {str(name): (original, given) for name, given in repeated.items()}


def _by_pair(qrels, pairs: Mapping, measures, options: dict) -> xr.Dataset:
    """:func:`evaluate` of each pair, along a ``pair`` dimension; each pair's warnings are
    given again naming it (once each, for originals shared by the pairs)."""
    import warnings

    from .._warnings import warn

    results, said = [], set()
    nested = len({id(original) for original, _ in pairs.values()}) > 1
    for name, (original, repeated) in pairs.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                results.append(evaluate(qrels, original, repeated, measures, **options))
            except InputError as exc:
                raise InputError(f"pair {name}: {exc}") from None
        for w in caught:  # a warning on an original run names it "original ..."
            key = (str(w.message), w.category, None if "original" in str(w.message)
                   and not nested else name)
            if key not in said:
                said.add(key)
                warn(f"pair {name}: {w.message}", w.category)
        roles = list(results[0]["role"].values)
        if list(results[-1]["role"].values) != roles:
            raise InputError(f"pair {name} has the roles "
                             f"{list(results[-1]['role'].values)} but pair {next(iter(pairs))} "
                             f"has {roles}: give every pair the same roles")
    result = xr.concat(results, dim=xr.DataArray(list(pairs), dims="pair"), join="outer",
                       data_vars="all", combine_attrs="drop_conflicts")
    for key in dict.fromkeys(key for one in results for key in one.attrs):
        if key not in result.attrs or key == "sources":  # by pair, as JSON text
            result.attrs[key] = json.dumps({name: _plain(one.attrs.get(key))
                                            for name, one in zip(pairs, results)})
    return result


def _plain(value):
    """An attribute's value for JSON: JSON text decoded, numpy numbers as Python ones."""
    if isinstance(value, str):
        try:
            return json.loads(value) if value[:1] in ("{", "[") else value
        except ValueError:
            return value
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value.item() if isinstance(value, np.generic) else value


def _source(value) -> str:
    """A file input's path, or ``"(dataset)"`` for one given in memory."""
    return "(dataset)" if isinstance(value, xr.Dataset) else os.fspath(value)


def _t_tests(result: xr.Dataset, first: xr.DataArray, second: xr.DataArray, same: bool,
             equal_var: bool, sig_level: float) -> None:
    """Original against repeated per-topic scores, per metric and role: paired on the same
    topics (same collection), unpaired otherwise; NaN scores are left out."""
    from scipy.stats import t as student

    shape = (first.sizes["metric"], first.sizes["role"])
    names = ("pvalue", "statistic", "df", "mean_difference", "ci_low", "ci_high",
             "effect_size", "hedges_g")
    out = {name: np.full(shape, np.nan) for name in names}
    for i in range(shape[0]):
        for j in range(shape[1]):
            x = first.values[i, j]
            y = second.values[i, j]
            if same:
                keep = np.isfinite(x) & np.isfinite(y)
                n = int(keep.sum())
                if n < 2:
                    continue
                mean, sd, t = KC.paired_t(x[keep] - y[keep])
                df = n - 1.0
                se = sd / np.sqrt(n)
                dz, gz = KC.effect_sizes(mean, sd, n)
            else:
                x, y = x[np.isfinite(x)], y[np.isfinite(y)]
                if len(x) < 2 or len(y) < 2:
                    continue
                mean, se, t, df, dz, gz = KC.two_sample_t(x, y, equal_var=equal_var)
            half = student.ppf(1 - sig_level / 2, df) * se
            values = (t_pvalue(t, df + 1), t, df, mean, mean - half, mean + half, dz, gz)
            for name, value in zip(names, values):
                out[name][i, j] = value
    for name, values in out.items():
        result[name] = (("metric", "role"), values)
