"""Statistical follow-up of score cubes with statsmodels and scipy.

Each helper takes the ``score(metric, run, topic)`` cube and one metric, uses the topics
with a score for every run, and returns statsmodels' own result objects (or a tidy
frame), so the usual summaries and plots apply. p-value corrections are applied across
the whole family of run pairs, never per test.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from scipy.stats import ttest_rel  # noqa: F401  (the former engine; tests patch it)

from ..errors import InputError
from ..core.cube import score_array
from ..kernels import compare as K
from .compare import t_pvalue
from .models import mixed  # noqa: F401  (linear mixed models: xdiv.stats.mixed)

__all__ = ["tidy", "anova", "tukey", "paired_t_tests", "effect_sizes"]


def tidy(scores, metric: str) -> pd.DataFrame:
    """``run``, ``topic``, ``score`` rows of one metric, on topics scored for every run."""
    da = score_array(scores, [metric]).isel(metric=0)
    table = da.transpose("topic", "run").to_pandas().dropna(axis=0)
    if len(table) < 2:
        raise InputError(f"{metric}: fewer than two topics have scores for every run")
    frame = table.reset_index().melt(id_vars="topic", var_name="run", value_name="score")
    return frame.astype({"run": str, "topic": str})


def anova(scores, metric: str):
    """Two-way ANOVA without replication (score ~ run + topic).

    Returns
    -------
    (fit, table)
        The statsmodels OLS results and ``anova_lm``'s table (type II sums of squares).
    """
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm

    fit = ols("score ~ C(run) + C(topic)", data=tidy(scores, metric)).fit()
    return fit, anova_lm(fit, typ=2)


def tukey(scores, metric: str, alpha: float = 0.05):
    """Parametric Tukey HSD over runs (statsmodels' ``pairwise_tukeyhsd``)."""
    from statsmodels.stats.multicomp import pairwise_tukeyhsd

    frame = tidy(scores, metric)
    return pairwise_tukeyhsd(frame["score"], frame["run"], alpha=alpha)


PAIR_BLOCK = 1 << 20
"""Topic × pair differences :func:`paired_t_tests` tests at once (bounds its memory)."""


def paired_t_tests(scores, metric: str, method: str = "holm",
                   alpha: float = 0.05) -> pd.DataFrame:
    """Paired t-tests of every run pair, p-values adjusted over the whole family
    (``statsmodels.stats.multitest.multipletests``: ``holm``, ``fdr_bh``, ...).

    The tests of all pairs run at once (blocks of pairs through the t kernel of
    :func:`xdiv.compare`, :func:`xdiv.kernels.compare.paired_t`), with the results of one
    ``scipy.stats.ttest_rel`` per pair (to 1e-12; NaN where a pair's differences are all
    0, as scipy), and the correction is applied once over the whole family.

    Returns one row per pair: ``run_a``, ``run_b``, ``diff`` (mean of a - b),
    ``statistic`` (Student's t), ``pvalue``, ``pvalue_adjusted``, ``reject``, ``method``.
    """
    from statsmodels.stats.multitest import multipletests

    table = tidy(scores, metric).pivot(index="topic", columns="run", values="score")
    values = table.to_numpy(dtype=float)  # (topic, run)
    i, j = np.triu_indices(values.shape[1], k=1)  # itertools.combinations' order
    statistic = np.empty(len(i))
    pvalue = np.empty(len(i))
    step = max(1, PAIR_BLOCK // max(values.shape[0], 1))
    columns = np.ascontiguousarray(values.T)  # (run, topic)
    n = values.shape[0]
    for lo in range(0, len(i), step):
        a, b = i[lo:lo + step], j[lo:lo + step]
        mean, sd, t = K.paired_t(columns[a] - columns[b])
        t = np.where((sd == 0) & (mean == 0), np.nan, t)  # scipy: 0 / 0
        statistic[lo:lo + step], pvalue[lo:lo + step] = t, t_pvalue(t, n)
    means = values.mean(axis=0)
    runs = table.columns.to_numpy()
    frame = pd.DataFrame({"run_a": runs[i], "run_b": runs[j], "diff": means[i] - means[j],
                          "statistic": statistic, "pvalue": pvalue})
    reject, adjusted, _, _ = multipletests(frame["pvalue"], alpha=alpha, method=method)
    return frame.assign(pvalue_adjusted=adjusted, reject=reject, method=method)


def effect_sizes(scores, metric: str) -> pd.DataFrame:
    """Standardised mean differences of every run pair, ``(mean_a - mean_b) / sqrt(MSE)``
    with the residual mean square of the two-way ANOVA (Sakai's ES_E2)."""
    fit, _ = anova(scores, metric)
    means = tidy(scores, metric).groupby("run")["score"].mean()
    rows = [(a, b, (means[a] - means[b]) / np.sqrt(fit.mse_resid))
            for a, b in itertools.combinations(means.index, 2)]
    return pd.DataFrame(rows, columns=["run_a", "run_b", "effect_size"])
