"""xdiv.repro (issue 37 item 1): KTU against scipy's tau on the union lists, RBO against a
brute-force implementation of Webber, Moffat & Zobel's formulas (ties: the expectation
over the tie orders, Corsi & Urbano's "a"; shared ranks, "w") and Corsi & Urbano's
published example, and the whole Dataset against repro_eval 0.5.0 on the TREC 2009 runs
with perturbed reproductions."""

from __future__ import annotations

import gzip
import json
import itertools
import math

import numpy as np
import pytest
import scipy.stats

import xdiv
from xdiv.errors import InputError
from xdiv.kernels import repro as K
from tests.conftest import require_trec_2009


# --- brute force: Webber, Moffat & Zobel (TOIS 2010), lists without ties ---------------

def _overlap(a, b, d):
    return len(set(a[:d]) & set(b[:d]))


def _webber(a, b, p):
    """RBO_ext (eq. 32), RBO_min (eq. 11) and RBO_max (eq. 14 of the uneven case), written
    from the paper's sums with sets, for lists of distinct items."""
    if len(a) > len(b):
        a, b = b, a
    s, l = len(a), len(b)
    x = {d: _overlap(a, b, d) for d in range(1, l + 1)}
    xs, xl = x[s], x[l]
    ext = (1 - p) / p * (sum(x[d] / d * p ** d for d in range(1, l + 1))
                         + sum(xs * (d - s) / (s * d) * p ** d for d in range(s + 1, l + 1))
                         ) + ((xl - xs) / l + xs / s) * p ** l
    tail = sum(p ** d / d for d in range(1, l + 1))
    low = (1 - p) / p * (sum(x[d] / d * p ** d for d in range(1, l + 1))
                         + xl * (-math.log(1 - p) - tail))
    # max: S's unseen items match L's items S lacks, in L's order, one per depth
    fresh = [item for item in b if item not in a]
    top = 0.0
    for d in range(1, l + 1):
        xd = x[d] + (min(d - s, len(fresh)) if d > s else 0)
        top += xd / d * p ** d
    f = l + s - xl
    top += sum((2 * d - l - s + xl) / d * p ** d for d in range(l + 1, f + 1))
    top += p ** (f + 1) / (1 - p)
    high = (1 - p) / p * top
    return ext, low, high


def _tie_orders(groups_of):
    """Every order of a list of tie groups (lists of items)."""
    for perm in itertools.product(*[itertools.permutations(g) for g in groups_of]):
        yield [item for g in perm for item in g]


def _flat(groups_of):
    docs = np.array([item for g in groups_of for item in g])
    labels = np.array([k for k, g in enumerate(groups_of) for _ in g])
    return docs, labels


def _random_groups(rng, universe, n):
    items = rng.choice(universe, size=n, replace=False).tolist()
    groups, k = [], 0
    while k < n:
        size = int(min(rng.integers(1, 4), n - k))
        groups.append(items[k:k + size])
        k += size
    return groups


def test_rbo_without_ties_equals_webber_formulas():
    rng = np.random.default_rng(1)
    for _ in range(60):
        a = rng.choice(30, size=int(rng.integers(1, 12)), replace=False)
        b = rng.choice(30, size=int(rng.integers(1, 12)), replace=False)
        p = float(rng.uniform(0.5, 0.98))
        ext, low, high, res = K.rbo(a, np.arange(len(a)), b, np.arange(len(b)), p)
        e, lo, hi = _webber(a.tolist(), b.tolist(), p)
        assert (ext, low, high, res) == pytest.approx((e, lo, hi, hi - lo), abs=1e-12)


def test_rbo_a_is_the_expectation_over_tie_orders():
    """Corsi & Urbano's RBO^a: the mean of RBO over every order of the ties (lists of
    equal length, where every form is linear in the overlaps)."""
    rng = np.random.default_rng(2)
    for _ in range(25):
        n = int(rng.integers(2, 7))
        ga, gb = _random_groups(rng, 12, n), _random_groups(rng, 12, n)
        p = float(rng.uniform(0.6, 0.95))
        forms = np.array([_webber(x, y, p) for x in _tie_orders(ga) for y in _tie_orders(gb)])
        (a, la), (b, lb) = _flat(ga), _flat(gb)
        ext, low, high, _ = K.rbo(a, la, b, lb, p, "a")
        assert (ext, low, high) == pytest.approx(tuple(forms.mean(axis=0)), abs=1e-12)


def test_rbo_w_ties_share_a_rank():
    """RBO^w: a tied group enters the prefixes whole at its first rank; the agreement is
    2 |S_d & L_d| / (|S_d| + |L_d|) (equal lengths, RBO_min)."""
    rng = np.random.default_rng(3)
    for _ in range(25):
        n = int(rng.integers(2, 8))
        ga, gb = _random_groups(rng, 14, n), _random_groups(rng, 14, n)
        p = float(rng.uniform(0.6, 0.95))

        def prefix(groups, d):
            out, start = set(), 1
            for g in groups:
                if start <= d:
                    out |= set(g)
                start += len(g)
            return out
        agreement = [2 * len(prefix(ga, d) & prefix(gb, d))
                     / (len(prefix(ga, d)) + len(prefix(gb, d))) for d in range(1, n + 1)]
        xl = len(set(sum(ga, [])) & set(sum(gb, [])))
        low = (1 - p) / p * (sum(agreement[d - 1] * p ** d for d in range(1, n + 1))
                             + xl * (-math.log(1 - p) - sum(p ** d / d
                                                            for d in range(1, n + 1))))
        (a, la), (b, lb) = _flat(ga), _flat(gb)
        assert K.rbo(a, la, b, lb, p, "w")[1] == pytest.approx(low, abs=1e-12)


def test_rbo_corsi_urbano_published_example():
    """The example of Corsi & Urbano's implementation (SIGIR 2024), p = 0.95: x = red
    (blue green) yellow pink, y = (blue red) white (yellow black purple) green."""
    x = _flat([["red"], ["blue", "green"], ["yellow"], ["pink"]])
    y = _flat([["blue", "red"], ["white"], ["yellow", "black", "purple"], ["green"]])
    published = {"a": (0.6922853, 0.3310519, 0.8930692, 0.5620173),
                 "w": (0.7068257, 0.3429684, 0.9049857, 0.5620173),
                 "b": (0.7207131, 0.3509163, 0.9129336, 0.5620173)}
    for ties, values in published.items():
        assert K.rbo(*x, *y, 0.95, ties) == pytest.approx(values, abs=5e-8)
    assert K.rbo(*x, *x, 0.95, "b")[0] == pytest.approx(1.0, abs=1e-12)


def test_ktu_equals_scipy_tau_on_the_union_lists():
    rng = np.random.default_rng(4)
    for _ in range(200):
        a = rng.choice(40, size=int(rng.integers(1, 15)), replace=False)
        b = rng.choice(40, size=int(rng.integers(1, 15)), replace=False)
        union = sorted(set(a) | set(b))
        ra = [a.tolist().index(d) + 1 if d in a else len(a) + 1 for d in union]
        rb = [b.tolist().index(d) + 1 if d in b else len(b) + 1 for d in union]
        expected = scipy.stats.kendalltau(ra, rb).statistic if len(union) > 1 else np.nan
        got = K.ktu(a, b)
        assert (np.isnan(got) and np.isnan(expected)) or got == pytest.approx(expected,
                                                                             abs=1e-12)


# --- against repro_eval 0.5.0 on the TREC 2009 runs ------------------------------------

TREC_EVAL = {"map": "AP", "P.10": "P@10", "ndcg_cut.20": "nDCG@20", "recip_rank": "RR",
             "Rprec": "Rprec", "bpref": "Bpref", "recall.100": "R@100"}
"""trec_eval names asked of xdiv, and repro_eval's (ir_measures') names of the measures."""


def _read_runs(path):
    runs = {}
    with gzip.open(path, "rt") as f:
        for line in f:
            topic, _, doc, _, score, _ = line.split()
            runs.setdefault(topic, {})[doc] = float(score)
    return runs


def _write(path, run, tag):
    """A run file sorted as trec_eval ranks (score, then docno, descending), so that
    repro_eval's tie breaking in file order agrees with xdiv's."""
    with open(path, "w") as f:
        for topic in sorted(run, key=int):
            ranked = sorted(run[topic].items(), key=lambda x: (x[1], x[0]), reverse=True)
            for rank, (doc, score) in enumerate(ranked, 1):
                f.write(f"{topic} Q0 {doc} {rank} {score!r} {tag}\n")
    return str(path)


def _perturbed(run, rng, *, swap=0, noise=0.0, drop=()):
    out = {}
    for topic, docs in run.items():
        if topic in drop:
            continue
        ranked = sorted(docs.items(), key=lambda x: (x[1], x[0]), reverse=True)
        scores = [s for _, s in ranked]
        names = [d for d, _ in ranked]
        for _ in range(swap):  # swap two documents' ranks
            i, j = rng.choice(len(names), size=2, replace=False)
            names[i], names[j] = names[j], names[i]
        out[topic] = {d: s + noise * float(rng.standard_normal()) for d, s in zip(names, scores)}
    return out


def _adhoc_levels(root, topics) -> dict:
    """A document's highest level over the intents of the diversity qrels (as xdiv's
    adhoc="max"), for ``topics``."""
    levels = {}
    with gzip.open(root / "qrels.diversity.gz", "rt") as f:
        for line in f:
            topic, _, doc, level = line.split()
            if topic in topics:
                levels[topic, doc] = max(levels.get((topic, doc), 0), int(level))
    return levels


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    """Adhoc qrels (max over the intents) and two original runs of the 2009 data, cut to
    12 topics and 50 documents, with perturbed reproductions."""
    root = require_trec_2009()
    folder = tmp_path_factory.mktemp("repro")
    topics = [str(t) for t in range(1, 25)]
    levels = _adhoc_levels(root, topics)
    qrels = {}
    for half, chosen in (("first", topics[:12]), ("second", topics[12:])):
        qrels[half] = str(folder / f"qrels.{half}.txt")
        with open(qrels[half], "w") as f:
            for (topic, doc), level in levels.items():
                if topic in chosen:
                    f.write(f"{topic} 0 {doc} {level}\n")
    rng = np.random.default_rng(37)
    runs = {}
    for role, name in (("baseline", "MSRABASE"), ("advanced", "uogTrDYCcsB")):
        whole = _read_runs(root / "runs" / f"{name}.gz")
        cut = {t: dict(sorted(whole[t].items(), key=lambda x: (x[1], x[0]),
                              reverse=True)[:50]) for t in topics}
        first = {t: cut[t] for t in topics[:12]}
        second = {t: cut[t] for t in topics[12:]}
        runs[role] = {
            "original": _write(folder / f"{role}.orig", first, name),
            "swapped": _write(folder / f"{role}.swap", _perturbed(first, rng, swap=15), name),
            "rescored": _write(folder / f"{role}.noise",
                               _perturbed(first, rng, swap=3, noise=0.3), name),
            "dropped": _write(folder / f"{role}.drop",
                              _perturbed(first, rng, swap=5, drop=("3", "11")), name),
            "other": _write(folder / f"{role}.other", _perturbed(second, rng, swap=5), name),
        }
    return qrels, runs


def _repro_eval_rpd(qrels, runs, kind):
    from repro_eval.Evaluator import RpdEvaluator

    rpd = RpdEvaluator(qrels_orig_path=qrels, run_b_orig_path=runs["baseline"]["original"],
                       run_a_orig_path=runs["advanced"]["original"],
                       run_b_rep_path=runs["baseline"][kind],
                       run_a_rep_path=runs["advanced"][kind])
    rpd.trim()
    rpd.evaluate()
    return rpd


def test_same_collection_equals_repro_eval(experiment):
    """Ranks swapped (the slow test below adds changed scores, on whole runs)."""
    qrels, runs = experiment
    kind = "swapped"
    rpd = _repro_eval_rpd(qrels["first"], runs, kind)
    ds = xdiv.repro.evaluate(qrels["first"], {r: runs[r]["original"] for r in runs},
                             {r: runs[r][kind] for r in runs}, list(TREC_EVAL),
                             cutoffs=[1000], definitions="repro_eval")
    assert ds.attrs["case"] == "same_collection"
    rmse, nrmse, er, dri = rpd.rmse(), rpd.nrmse(), rpd.er(), rpd.dri()
    pvalue = rpd.ttest()
    for ours, theirs in TREC_EVAL.items():
        for role in ("baseline", "advanced"):
            cell = dict(metric=ours, role=role)
            assert float(ds.rmse.sel(cell)) == pytest.approx(rmse[role][theirs], abs=1e-12)
            assert float(ds.nrmse.sel(cell)) == pytest.approx(nrmse[role][theirs], abs=1e-12)
            if math.isnan(pvalue[role][theirs]):  # identical scores: xdiv's t = 0, p = 1
                assert float(ds.abs_difference.sel(cell).max()) == 0
                assert float(ds.pvalue.sel(cell)) == 1.0
            else:
                assert float(ds.pvalue.sel(cell)) == pytest.approx(pvalue[role][theirs],
                                                                   abs=1e-12)
        assert float(ds.er.sel(metric=ours)) == pytest.approx(er[theirs], abs=1e-12)
        assert float(ds.dri.sel(metric=ours)) == pytest.approx(dri[theirs], abs=1e-12)
        # the paired test's interval and effect size, against scipy
        o = ds.score.sel(metric=ours, side="original", role="advanced").values
        r = ds.score.sel(metric=ours, side="repeated", role="advanced").values
        if np.any(o != r):
            ci = scipy.stats.ttest_rel(o, r).confidence_interval(0.95)
            cell = dict(metric=ours, role="advanced")
            assert float(ds.ci_low.sel(cell)) == pytest.approx(ci.low, abs=1e-12)
            assert float(ds.ci_high.sel(cell)) == pytest.approx(ci.high, abs=1e-12)
            assert float(ds.effect_size.sel(cell)) == pytest.approx(
                np.mean(o - r) / np.std(o - r, ddof=1), abs=1e-12)
    ktu, rbo = rpd.ktu(per_topic=True), rpd.rbo(per_topic=True)
    for role in ("baseline", "advanced"):
        for topic, value in ktu[role].items():
            got = float(ds.ktu_topic.sel(role=role, cutoff=1000, topic=topic))
            assert got == pytest.approx(value, abs=1e-12)
            got = float(ds.rbo_topic.sel(role=role, cutoff=1000, topic=topic))
            assert got == pytest.approx(rbo[role][topic], abs=1e-12)


def test_same_collection_xdiv_definitions_differ_from_positional_ktu(experiment):
    """xdiv's KTU correlates the documents' ranks; repro_eval's form the positions: they
    differ on swapped lists (the documented difference), and xdiv's is scipy's tau."""
    qrels, runs = experiment
    ds = xdiv.repro.evaluate(qrels["first"], {r: runs[r]["original"] for r in runs},
                             {r: runs[r]["swapped"] for r in runs}, ["map"], cutoffs=[10])
    ours = ds.ktu_topic.sel(role="baseline", cutoff=10).values
    original = _read_runs_plain(runs["baseline"]["original"])
    swapped = _read_runs_plain(runs["baseline"]["swapped"])
    positional = []
    for k, topic in enumerate(ds.topic.values):
        a, b = original[topic][:10], swapped[topic][:10]
        union = sorted(set(a) | set(b))
        ra = [a.index(d) + 1 if d in a else 11 for d in union]
        rb = [b.index(d) + 1 if d in b else 11 for d in union]
        assert ours[k] == pytest.approx(scipy.stats.kendalltau(ra, rb).statistic, abs=1e-12)
        positional.append(K.ktu_positional(np.searchsorted(union, a), np.searchsorted(union, b)))
    assert not np.allclose(ours, positional)


def _read_runs_plain(path):
    out = {}
    with open(path) as f:
        for line in f:
            topic, _, doc, *_ = line.split()
            out.setdefault(topic, []).append(doc)
    return out


def test_dropped_topics(experiment):
    """A reproduction lacking two topics: scored 0 there by both (ir_measures fills them
    in), so RMSE, the t-test and ER agree; KTU and RBO agree on the topics it has, which
    are the only ones repro_eval and definitions="repro_eval" average over."""
    qrels, runs = experiment
    rpd = _repro_eval_rpd(qrels["first"], runs, "dropped")
    ds = xdiv.repro.evaluate(qrels["first"], {r: runs[r]["original"] for r in runs},
                             {r: runs[r]["dropped"] for r in runs}, ["map"],
                             cutoffs=[1000], definitions="repro_eval")
    cell = dict(metric="map", role="baseline")
    assert float(ds.rmse.sel(cell)) == pytest.approx(rpd.rmse()["baseline"]["AP"], abs=1e-12)
    assert float(ds.pvalue.sel(cell)) == pytest.approx(rpd.ttest()["baseline"]["AP"],
                                                       abs=1e-12)
    assert float(ds.er.sel(metric="map")) == pytest.approx(rpd.er()["AP"], abs=1e-12)
    assert float(ds.score.sel(**cell, side="repeated", topic="3")) == 0
    ktu, rbo = rpd.ktu(per_topic=True)["baseline"], rpd.rbo(per_topic=True)["baseline"]
    assert set(ktu) == set(ds.topic.values) - {"3", "11"}
    for topic, value in ktu.items():
        got = float(ds.ktu_topic.sel(role="baseline", cutoff=1000, topic=topic))
        assert got == pytest.approx(value, abs=1e-12)
    assert float(ds.ktu.sel(role="baseline", cutoff=1000)) == pytest.approx(
        np.mean(list(ktu.values())), abs=1e-12)
    assert float(ds.rbo.sel(role="baseline", cutoff=1000)) == pytest.approx(
        np.mean(list(rbo.values())), abs=1e-12)
    assert int(ds.ktu_topics.sel(role="baseline", cutoff=1000)) == 10
    ours = xdiv.repro.evaluate(qrels["first"], {"baseline": runs["baseline"]["original"]},
                               {"baseline": runs["baseline"]["dropped"]}, ["map"],
                               cutoffs=[10])
    assert float(ours.rbo_topic.sel(role="baseline", cutoff=10, topic="3")) == 0
    assert np.isnan(float(ours.ktu_topic.sel(role="baseline", cutoff=10, topic="3")))
    # missing="nan": the lacking topics leave the means, RMSE and tests
    left = xdiv.repro.evaluate(qrels["first"], {r: runs[r]["original"] for r in runs},
                               {r: runs[r]["dropped"] for r in runs}, ["map"],
                               cutoffs=[10], missing="nan")
    kept = [t for t in left.topic.values if t not in ("3", "11")]
    o = ds.score.sel(metric="map", side="original", topic=kept).values
    r = ds.score.sel(metric="map", side="repeated", topic=kept).values
    assert float(left.rmse.sel(cell)) == pytest.approx(np.sqrt(np.mean((o[0] - r[0]) ** 2)),
                                                       abs=1e-12)
    assert float(left.er.sel(metric="map")) == pytest.approx(
        np.mean(r[1] - r[0]) / float(np.mean(ds.delta.sel(metric="map", side="original"))),
        abs=1e-12)
    assert float(left.pvalue.sel(cell)) == pytest.approx(
        scipy.stats.ttest_rel(o[0], r[0]).pvalue, abs=1e-12)


def test_other_collection_equals_repro_eval(experiment):
    from repro_eval.Evaluator import RplEvaluator

    qrels, runs = experiment
    rpl = RplEvaluator(qrels_orig_path=qrels["first"], qrels_rpl_path=qrels["second"],
                       run_b_orig_path=runs["baseline"]["original"],
                       run_a_orig_path=runs["advanced"]["original"],
                       run_b_rep_path=runs["baseline"]["other"],
                       run_a_rep_path=runs["advanced"]["other"])
    rpl.trim()
    rpl.evaluate()
    ds = xdiv.repro.evaluate(qrels["first"], {r: runs[r]["original"] for r in runs},
                             {r: runs[r]["other"] for r in runs}, list(TREC_EVAL),
                             repeated_qrels=qrels["second"])
    assert ds.attrs["case"] == "other_collection"
    assert "ktu" not in ds and "rmse" not in ds
    er, dri, pvalue = rpl.er(), rpl.dri(), rpl.ttest()
    for ours, theirs in TREC_EVAL.items():
        assert float(ds.er.sel(metric=ours)) == pytest.approx(er[theirs], abs=1e-12)
        assert float(ds.dri.sel(metric=ours)) == pytest.approx(dri[theirs], abs=1e-12)
        for role in ("baseline", "advanced"):
            assert float(ds.pvalue.sel(metric=ours, role=role)) == pytest.approx(
                pvalue[role][theirs], abs=1e-12)
    ds_w = xdiv.repro.evaluate(qrels["first"], {r: runs[r]["original"] for r in runs},
                {r: runs[r]["other"] for r in runs}, ["bpref"],
                repeated_qrels=qrels["second"], equal_var=False)
    o = ds_w.score.sel(metric="bpref", side="original", role="advanced").dropna("topic")
    r = ds_w.score.sel(metric="bpref", side="repeated", role="advanced").dropna("topic")
    welch = scipy.stats.ttest_ind(o.values, r.values, equal_var=False)
    assert float(ds_w.pvalue.sel(metric="bpref", role="advanced")) == pytest.approx(
        welch.pvalue, abs=1e-12)
    ci = welch.confidence_interval(0.95)
    assert float(ds_w.ci_low.sel(metric="bpref", role="advanced")) == pytest.approx(ci.low,
                                                                                    abs=1e-12)


def test_netcdf_round_trip_and_bad_input(experiment, tmp_path):
    qrels, runs = experiment
    ds = xdiv.repro.evaluate(qrels["first"], {"baseline": runs["baseline"]["original"]},
                             {"baseline": runs["baseline"]["rescored"]}, ["P.10"],
                             cutoffs=[5, 10])
    assert "er" not in ds  # ER and ΔRI need an advanced run
    path = xdiv.to_netcdf(ds, tmp_path / "repro.nc")
    back = xdiv.open_dataset(path)
    for name in ("ktu", "rbo", "rbo_min", "rbo_res", "rmse", "pvalue"):
        np.testing.assert_array_equal(back[name].values, ds[name].values)
    assert back.attrs["case"] == "same_collection"
    with pytest.raises(InputError, match="roles"):
        xdiv.repro.evaluate(qrels["first"], {"baseline": runs["baseline"]["original"]},
                            {"advanced": runs["baseline"]["rescored"]}, ["P.10"])
    with pytest.raises(InputError, match="cutoffs must be positive whole numbers"):
        xdiv.repro.evaluate(qrels["first"], {"baseline": runs["baseline"]["original"]},
                            {"baseline": runs["baseline"]["rescored"]}, ["P.10"],
                            cutoffs=[10, 2.5])
    with pytest.raises(InputError, match="definitions"):
        xdiv.repro.evaluate(qrels["first"], {"baseline": runs["baseline"]["original"]},
                            {"baseline": runs["baseline"]["rescored"]}, ["P.10"],
                            definitions="other")


def test_command_line_prints_the_tables_and_writes_netcdf(experiment, tmp_path, capsys):
    from xdiv.cli import main

    qrels, runs = experiment
    out = tmp_path / "repro.nc"
    argv = ["repro", qrels["first"], "--baseline", runs["baseline"]["original"],
            runs["baseline"]["rescored"], "--advanced", runs["advanced"]["original"],
            runs["advanced"]["rescored"], "-m", "map", "P.10", "--cutoffs", "10", "20",
            "--format", "tsv", "-o", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out.split("\n\n")
    effect = [line.split("\t") for line in printed[0].splitlines()]
    order = [line.split("\t") for line in printed[1].splitlines()]
    ds = xdiv.repro.evaluate(qrels["first"], {r: runs[r]["original"] for r in runs},
                             {r: runs[r]["rescored"] for r in runs}, ["map", "P.10"],
                             cutoffs=[10, 20])
    assert effect[0][:6] == ["metric", "role", "ARP orig", "ARP rep", "RMSE", "nRMSE"]
    row = next(r for r in effect if r[:2] == ["P.10", "advanced"])
    assert float(row[4]) == pytest.approx(float(ds.rmse.sel(metric="P.10", role="advanced")),
                                          abs=1e-6)
    row = next(r for r in order if r[:2] == ["baseline", "20"])
    assert float(row[2]) == pytest.approx(float(ds.ktu.sel(role="baseline", cutoff=20)),
                                          abs=1e-6)
    back = xdiv.open_dataset(out)
    np.testing.assert_array_equal(back.rbo.values, ds.rbo.values)
    assert main(["repro", qrels["first"], "--baseline", str(tmp_path / "none.txt"),
                 runs["baseline"]["rescored"], "-m", "map"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"xdiv: error: {tmp_path / 'none.txt'}: no such file"]


@pytest.mark.slow
def test_whole_runs_equal_repro_eval(tmp_path):
    """Two pairs of 2009 runs (30 topics, 1000 documents) as originals, repeated with
    swapped ranks and changed scores: every per-topic KTU and RBO (repro_eval's forms),
    RMSE, nRMSE, ER, ΔRI and p-value of seven trec_eval measures equal repro_eval's, with
    the scores ranked in single precision as pytrec_eval ranks them (MSRABASE's perturbed
    scores tie there where they differ in double precision)."""
    from repro_eval.Evaluator import RpdEvaluator

    root = require_trec_2009()
    qrels = str(tmp_path / "qrels.txt")
    with open(qrels, "w") as f:
        for (topic, doc), level in _adhoc_levels(root, [str(t) for t in range(1, 31)]).items():
            f.write(f"{topic} 0 {doc} {level}\n")
    rng = np.random.default_rng(2020)
    compared = 0
    for base, adv in (("MSRABASE", "uogTrDYCcsB"), ("ICTNETDivR1", "THUIR09FuClu")):
        paths = {}
        for role, name in (("baseline", base), ("advanced", adv)):
            run = {t: docs for t, docs in _read_runs(root / "runs" / f"{name}.gz").items()
                   if int(t) <= 30}
            paths[role] = (_write(tmp_path / f"{name}.orig", run, name),
                           _write(tmp_path / f"{name}.rep",
                                  _perturbed(run, rng, swap=40, noise=0.05), name))
        rpd = RpdEvaluator(qrels_orig_path=qrels, run_b_orig_path=paths["baseline"][0],
                           run_a_orig_path=paths["advanced"][0],
                           run_b_rep_path=paths["baseline"][1],
                           run_a_rep_path=paths["advanced"][1])
        rpd.trim()
        rpd.evaluate()
        ds = xdiv.repro.evaluate(qrels, {r: p[0] for r, p in paths.items()},
                                 {r: p[1] for r, p in paths.items()}, list(TREC_EVAL),
                                 cutoffs=[1000], definitions="repro_eval",
                                 single_precision=True)
        rmse, nrmse, er, dri, pvalue = (rpd.rmse(), rpd.nrmse(), rpd.er(), rpd.dri(),
                                        rpd.ttest())
        for ours, theirs in TREC_EVAL.items():
            assert float(ds.er.sel(metric=ours)) == pytest.approx(er[theirs], abs=1e-12)
            assert float(ds.dri.sel(metric=ours)) == pytest.approx(dri[theirs], abs=1e-12)
            for role in ("baseline", "advanced"):
                cell = dict(metric=ours, role=role)
                assert float(ds.rmse.sel(cell)) == pytest.approx(rmse[role][theirs],
                                                                 abs=1e-12)
                assert float(ds.nrmse.sel(cell)) == pytest.approx(nrmse[role][theirs],
                                                                  abs=1e-12)
                assert float(ds.pvalue.sel(cell)) == pytest.approx(pvalue[role][theirs],
                                                                   abs=1e-12)
                compared += 3
        for name, theirs in (("ktu_topic", rpd.ktu(per_topic=True)),
                             ("rbo_topic", rpd.rbo(per_topic=True))):
            for role in ("baseline", "advanced"):
                got = ds[name].sel(role=role, cutoff=1000).to_series()
                assert len(theirs[role]) == 30
                for topic, value in theirs[role].items():
                    assert got[topic] == pytest.approx(value, abs=1e-12)
                    compared += 1
    assert compared == 2 * (7 * 6 + 120)


def test_single_precision_ranks_as_pytrec_eval(tmp_path):
    """Scores equal in single precision tie (and docno breaks the tie, descending) with
    single_precision=True, as in trec_eval 9 and pytrec_eval; KTU keeps the full scores."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 b 1\n1 0 a 0\n1 0 c 0\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 1.00000001 r\n1 Q0 b 2 1.0 r\n1 Q0 c 3 0.5 r\n")
    kept = xdiv.repro.evaluate(qrels, {"baseline": run}, {"baseline": run}, ["P.1"],
                               cutoffs=[3])
    single = xdiv.repro.evaluate(qrels, {"baseline": run}, {"baseline": run}, ["P.1"],
                                 cutoffs=[3], single_precision=True)
    assert float(kept.score.sel(metric="P.1", side="original", role="baseline",
                                topic="1")) == 0.0
    assert float(single.score.sel(metric="P.1", side="original", role="baseline",
                                  topic="1")) == 1.0
    pytrec_eval = pytest.importorskip("pytrec_eval")
    evaluator = pytrec_eval.RelevanceEvaluator({"1": {"b": 1, "a": 0, "c": 0}}, {"P.1"})
    scored = evaluator.evaluate({"1": {"a": 1.00000001, "b": 1.0, "c": 0.5}})
    assert scored["1"]["P_1"] == 1.0
    assert float(single.ktu.sel(role="baseline", cutoff=3)) == 1.0


# --- several pairs of repetitions (a pair dimension) -----------------------------------

PAIRS = ("swapped", "dropped")


@pytest.mark.slow  # repro_eval on two pairs
def test_pairs_equal_each_pair_alone_and_repro_eval(experiment):
    """Two repetitions of the same originals in one call: each pair is what a call of its
    own gives, and its ER, ΔRI, RMSE, nRMSE, p-values, per-topic KTU and RBO are
    repro_eval's (7 measures × 2 roles × 2 pairs)."""
    import xarray as xr

    qrels, runs = experiment
    original = {r: runs[r]["original"] for r in runs}
    ds = xdiv.repro.evaluate(qrels["first"], original,
                             {kind: {r: runs[r][kind] for r in runs} for kind in PAIRS},
                             list(TREC_EVAL), cutoffs=[1000], definitions="repro_eval")
    assert list(ds.pair.values) == list(PAIRS)
    assert ds.er.dims == ("pair", "metric") and ds.ktu.dims == ("pair", "role", "cutoff")
    compared = 0
    for kind in PAIRS:
        alone = xdiv.repro.evaluate(qrels["first"], original,
                                    {r: runs[r][kind] for r in runs}, list(TREC_EVAL),
                                    cutoffs=[1000], definitions="repro_eval")
        xr.testing.assert_identical(ds.sel(pair=kind, drop=True).drop_attrs(),
                                    alone.drop_attrs())
        assert json.loads(ds.attrs["sources"])[kind] == json.loads(alone.attrs["sources"])
        rpd = _repro_eval_rpd(qrels["first"], runs, kind)
        rmse, nrmse, er, dri, pvalue = rpd.rmse(), rpd.nrmse(), rpd.er(), rpd.dri(), \
            rpd.ttest()
        for ours, theirs in TREC_EVAL.items():
            assert float(ds.er.sel(pair=kind, metric=ours)) == pytest.approx(er[theirs],
                                                                            abs=1e-12)
            assert float(ds.dri.sel(pair=kind, metric=ours)) == pytest.approx(dri[theirs],
                                                                             abs=1e-12)
            for role in ("baseline", "advanced"):
                cell = dict(pair=kind, metric=ours, role=role)
                assert float(ds.rmse.sel(cell)) == pytest.approx(rmse[role][theirs],
                                                                 abs=1e-12)
                assert float(ds.nrmse.sel(cell)) == pytest.approx(nrmse[role][theirs],
                                                                  abs=1e-12)
                if not math.isnan(pvalue[role][theirs]):
                    assert float(ds.pvalue.sel(cell)) == pytest.approx(
                        pvalue[role][theirs], abs=1e-12)
                compared += 1
        ktu, rbo = rpd.ktu(per_topic=True), rpd.rbo(per_topic=True)
        for role in ("baseline", "advanced"):
            for topic, value in ktu[role].items():
                cell = dict(pair=kind, role=role, cutoff=1000, topic=topic)
                assert float(ds.ktu_topic.sel(cell)) == pytest.approx(value, abs=1e-12)
                assert float(ds.rbo_topic.sel(cell)) == pytest.approx(rbo[role][topic],
                                                                      abs=1e-12)
    assert compared == 2 * 7 * 2


def test_pairs_with_their_own_originals_and_bad_pairs(experiment, tmp_path):
    qrels, runs = experiment
    base = {"baseline": runs["baseline"]["original"]}
    one = xdiv.repro.evaluate(qrels["first"], {"only": base},
                              {"only": {"baseline": runs["baseline"]["swapped"]}}, ["P.10"],
                              cutoffs=[10])
    assert one.sizes["pair"] == 1 and one.rmse.dims == ("pair", "metric", "role")
    back = xdiv.open_dataset(xdiv.to_netcdf(one, tmp_path / "one.nc"))
    assert list(back.pair.values) == ["only"]
    assert list(json.loads(back.attrs["sources"])) == ["only"]  # by pair, one pair too
    np.testing.assert_array_equal(back.ktu.values, one.ktu.values)
    # each pair its own originals: the second pair swaps the roles' runs
    swapped = {"baseline": runs["advanced"]["original"],
               "advanced": runs["baseline"]["original"]}
    ds = xdiv.repro.evaluate(
        qrels["first"], {"a": {r: runs[r]["original"] for r in runs}, "b": swapped},
        {"a": {r: runs[r]["rescored"] for r in runs},
         "b": {"baseline": runs["advanced"]["rescored"],
               "advanced": runs["baseline"]["rescored"]}}, ["map"], cutoffs=[10])
    np.testing.assert_allclose(ds.arp.sel(pair="b", role="baseline").values,
                               ds.arp.sel(pair="a", role="advanced").values, rtol=0, atol=0)
    with pytest.raises(InputError, match="give the same pairs"):
        xdiv.repro.evaluate(qrels["first"], {"x": base},
                            {"y": {"baseline": runs["baseline"]["swapped"]}}, ["P.10"])
    with pytest.raises(InputError, match="not both"):
        xdiv.repro.evaluate(qrels["first"], base,
                            {"x": {"baseline": runs["baseline"]["swapped"]},
                             "baseline": runs["baseline"]["swapped"]}, ["P.10"])
    with pytest.raises(InputError, match=r"^pair y: original has roles \['advanced', "
                                         r"'baseline'\] but repeated has \['baseline'\]"):
        xdiv.repro.evaluate(qrels["first"], {r: runs[r]["original"] for r in runs},
                            {"x": {r: runs[r]["swapped"] for r in runs},
                             "y": {"baseline": runs["baseline"]["swapped"]}}, ["P.10"])
    with pytest.raises(InputError, match="give every pair the same roles"):
        xdiv.repro.evaluate(qrels["first"],
                            {"x": {r: runs[r]["original"] for r in runs}, "y": base},
                            {"x": {r: runs[r]["swapped"] for r in runs},
                             "y": {"baseline": runs["baseline"]["swapped"]}}, ["P.10"])


@pytest.mark.slow  # five runs of xdiv repro
def test_command_line_takes_several_repetitions(experiment, tmp_path, capsys):
    from xdiv.cli import main

    qrels, runs = experiment
    out = tmp_path / "pairs.nc"
    argv = ["repro", qrels["first"],
            "--baseline", runs["baseline"]["original"], *(runs["baseline"][k] for k in PAIRS),
            "--advanced", runs["advanced"]["original"], *(runs["advanced"][k] for k in PAIRS),
            "--pair-names", *PAIRS, "-m", "map", "--cutoffs", "10", "--format", "tsv",
            "-o", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out.split("\n\n")
    effect = [line.split("\t") for line in printed[0].splitlines()]
    order = [line.split("\t") for line in printed[1].splitlines()]
    assert effect[0][:3] == ["pair", "metric", "role"] and order[0][:3] == ["pair", "role",
                                                                            "cutoff"]
    stored = xdiv.open_dataset(out)
    for kind in PAIRS:
        alone = xdiv.repro.evaluate(qrels["first"], {r: runs[r]["original"] for r in runs},
                                    {r: runs[r][kind] for r in runs}, ["map"], cutoffs=[10])
        row = next(r for r in effect if r[:3] == [kind, "map", "advanced"])
        assert float(row[-1]) == pytest.approx(float(alone.dri.sel(metric="map")), abs=1e-6)
        row = next(r for r in order if r[:3] == [kind, "baseline", "10"])
        assert float(row[3]) == pytest.approx(float(alone.ktu.sel(role="baseline", cutoff=10)),
                                              abs=1e-6)
        np.testing.assert_array_equal(stored.rbo.sel(pair=kind).values, alone.rbo.values)
    # the default names are the repeated baseline files' names
    assert main(argv[:argv.index("--pair-names")] + ["-m", "map", "--cutoffs", "10"]) == 0
    assert "baseline.swap" in capsys.readouterr().out
    for bad, message in (
            (["--baseline", runs["baseline"]["original"]], "--baseline needs the original "
                                                           "run file and at least one "
                                                           "repetition"),
            (["--baseline", runs["baseline"]["original"], runs["baseline"]["swapped"],
              "--advanced", runs["advanced"]["original"], runs["advanced"]["swapped"],
              runs["advanced"]["dropped"]], "--baseline gives 1 repetition(s) but "
                                            "--advanced 2: give one of each per pair"),
            (["--baseline", runs["baseline"]["original"], runs["baseline"]["swapped"],
              runs["baseline"]["swapped"]], "pair names must differ: baseline.swap "
                                            "baseline.swap (the repeated baseline files' "
                                            "names; give --pair-names)"),
            (["--baseline", runs["baseline"]["original"], runs["baseline"]["swapped"],
              "--pair-names", "a", "b"], "--pair-names gives 2 name(s) for 1 pair(s)")):
        assert main(["repro", qrels["first"], *bad, "-m", "map"]) == 2
        assert capsys.readouterr().err.strip().splitlines() == [f"xdiv: error: {message}"]
