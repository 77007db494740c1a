"""Scores over the orders of tied documents (``evaluate(ties=...)``) against full
enumeration of the orders on small random lists, and the options' plumbing."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xdiv
from xdiv.engine import evaluate_files
from xdiv.errors import InputError

MEASURES = [
    "nDCG@5", "AP", "AP@4", "Q@5", "P@3", "RBP", "RR", "ERR@5", "nERR@5", "GAP", "nGAP@5",
    "Hit@3", "Rprec", "bpref", "infAP", "Judged@3", "NumRet", "NumRelRet", "P+",
    "nDCG-IA@5", "AP-IA", "Q-IA@4", "alpha-nDCG@5", "alpha-DCG@5", "ERR-IA@5", "nERR-IA@5",
    "NRBP", "nNRBP", "MAP-IA", "P-IA@3", "I-rec@3", "D-nDCG@5", "D#-nDCG@5", "D-Q@5",
    "P+Q@5", "alpha-nDCG(ndeval=False)@5", "ERR-IA(ndeval=False)@5", "nDCG(adhoc=count)@5",
]


def _frames(seed: int, topic: str = "1"):
    """The qrels of a one-topic diversity collection, a run with tied scores, and every
    order of its tie groups as a run of its own (strictly decreasing scores)."""
    rng = np.random.default_rng(seed)
    n_intents = int(rng.integers(1, 4))
    docs = [f"d{k}" for k in range(9)]
    rows = []
    for d in docs[:7]:
        for i in range(1, n_intents + 1):
            if rng.random() < 0.45:
                rows.append((topic, str(i), d, int(rng.integers(0, 3))))
        if not any(r[2] == d for r in rows):
            if rng.random() < 0.7:
                rows.append((topic, "1", d, 0))
    rows.append((topic, "1", "d8", 2))  # relevant, never retrieved
    qrels = pd.DataFrame(rows, columns=["topic", "intent", "docno", "level"])
    n = int(rng.integers(4, 8))
    chosen = [docs[k] for k in rng.choice(8, size=n, replace=False)]
    scores = np.sort(rng.integers(0, 3, size=n).astype(float))[::-1]
    tied = pd.DataFrame({"run": "tied", "topic": topic, "docno": chosen, "score": scores})
    ranked = tied.sort_values(["score", "docno"], ascending=[False, False])
    groups = [list(g["docno"]) for _, g in ranked.groupby("score", sort=False)]
    # one frame of every order, built column by column (one frame per order and a concat
    # took seconds on the cases with thousands of orders: issue 35 item 18)
    orders = [[d for part in parts for d in part]
              for parts in itertools.product(*(itertools.permutations(g) for g in groups))]
    index = np.tile(np.arange(n), len(orders))
    frame = pd.DataFrame({"run": np.repeat([f"o{k:03d}" for k in range(len(orders))], n),
                          "topic": topic, "docno": [d for order in orders for d in order],
                          "score": np.arange(n, 0, -1, dtype=float)[index]}, index=index)
    return qrels, tied, frame


def _collection(qrels: pd.DataFrame):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        return xdiv.build_collection(qrels)


def _case(seed: int):
    """A one-topic diversity collection and a run with tied scores, and every order of
    its tie groups as a run of its own (strictly decreasing scores)."""
    qrels, tied, orders = _frames(seed)
    return _collection(qrels), xdiv.build_runs(tied), xdiv.build_runs(orders)


def _evaluate(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        return xdiv.evaluate(*args, **kwargs)


N_CASES = 25


@pytest.fixture(scope="module")
def enumerated():
    """Each case's scores over every order and its scores under ``ties="expected"`` and
    ``ties="range"``. The cases with the same intents are scored together, each case
    the one topic named by its seed (a topic's scores do not depend on the other topics;
    sharing the intents, each case's measures are scored over tie orders as they are
    alone: ``ties_method`` is the case's own): every order in one call, the measures
    scored exactly over tie orders in one call per way. The measures scored on sampled
    orders are scored in each case's own call, on its own collection with its seed (the
    random orders depend on the seed and the run and topic labels)."""
    frames = {seed: _frames(seed, topic=str(seed)) for seed in range(N_CASES)}
    groups: dict[tuple, list[int]] = {}
    for seed, (qrels, _, _) in frames.items():
        groups.setdefault(tuple(sorted(set(qrels["intent"]))), []).append(seed)
    out = {}
    for seeds in groups.values():
        collection = _collection(pd.concat([frames[s][0] for s in seeds]))
        tied = xdiv.build_runs(pd.concat([frames[s][1] for s in seeds]))
        orders = xdiv.build_runs(pd.concat([
            frames[s][2].assign(run=f"s{s}-" + frames[s][2]["run"]) for s in seeds]))
        every = _evaluate(orders, collection, MEASURES)["score"]
        exact = {ties: _evaluate(tied, collection, MEASURES, ties=ties, tie_samples=2)
                 for ties in ("expected", "range")}
        for s in seeds:
            runs = [r for r in every["run"].values if str(r).startswith(f"s{s}-")]
            assert len(runs) == frames[s][2]["run"].nunique()
            # the case alone, as _case(s) builds it (its one topic labelled "1")
            own_collection = _collection(frames[s][0].assign(topic="1"))
            own_tied = xdiv.build_runs(frames[s][1].assign(topic="1"))
            scored = []
            for ties, group in exact.items():
                cell = group.sel(run="tied", topic=str(s), drop=True)
                sampled = [str(m) for m, how in zip(cell["metric"].values,
                                                    cell["ties_method"].values)
                           if how == "sampled"]
                if sampled:
                    own = _evaluate(own_tied, own_collection, sampled, ties=ties,
                                    tie_samples=300, seed=s).sel(run="tied", topic="1",
                                                                 drop=True)
                    cell = xr.concat([cell.drop_sel(metric=sampled), own], "metric",
                                     combine_attrs="drop").sel(metric=MEASURES)
                scored.append(cell)
            out[s] = (every.sel(topic=str(s), run=runs), *scored)
    return out


@pytest.mark.parametrize("seed", range(N_CASES))
def test_expected_and_range_against_enumeration(enumerated, seed):
    every, expected, ranged = enumerated[seed]
    for metric in MEASURES:
        values = every.sel(metric=metric).values
        if np.isnan(values).all():
            continue
        mean, low, high = values.mean(), values.min(), values.max()
        e = expected.sel(metric=metric)
        r = ranged.sel(metric=metric)
        if str(e["ties_method"].values) == "exact":
            assert float(e["score"]) == pytest.approx(mean, abs=1e-12), metric
            assert float(e["score_se"]) == 0.0
        else:
            assert abs(float(e["score"]) - mean) <= 3 * float(e["score_se"]) + 1e-12, metric
        method = str(r["ties_method"].values)
        assert float(r["score_min"]) <= low + 1e-12, (metric, method)
        assert float(r["score_max"]) >= high - 1e-12, (metric, method)
        if method == "exact":
            assert float(r["score_min"]) == pytest.approx(low, abs=1e-12), metric
            assert float(r["score_max"]) == pytest.approx(high, abs=1e-12), metric
        elif method == "sampled":  # the extremes of orders actually scored
            assert float(r["score_min"]) >= low - 1e-12 and float(r["score_max"]) <= high + 1e-12
        assert float(r["tie_spread"]) == pytest.approx(
            float(r["score_max"]) - float(r["score_min"]), abs=0)


def test_the_methods_claimed():
    collection, tied, _ = _case(1)
    expected = _evaluate(tied, collection, MEASURES, ties="expected", tie_samples=2)
    exact = {str(m) for m, how in zip(expected["metric"].values,
                                       expected["ties_method"].values) if how == "exact"}
    assert exact == {"nDCG@5", "AP", "AP@4", "Q@5", "P@3", "RBP", "NumRet", "NumRelRet",
                     "nDCG-IA@5", "AP-IA", "Q-IA@4", "alpha-nDCG@5", "alpha-DCG@5",
                     "alpha-nDCG(ndeval=False)@5", "nDCG(adhoc=count)@5", "I-rec@3",
                     "D-nDCG@5", "D#-nDCG@5"}


def test_untied_runs_are_unchanged():
    collection, _, orders = _case(3)
    plain = _evaluate(orders, collection, MEASURES)
    expected = _evaluate(orders, collection, MEASURES, ties="expected", tie_samples=3)
    ranged = _evaluate(orders, collection, MEASURES, ties="range", tie_samples=3)
    np.testing.assert_allclose(expected["score"], plain["score"], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(ranged["score"], plain["score"])
    np.testing.assert_allclose(ranged["tie_spread"].fillna(0), 0, atol=1e-12)


def test_a_group_crossing_the_cutoff_is_read_whole():
    """Ten documents tie at ranks 3-12: P@5 expects 2 of the 3 relevant ones below rank 5
    to move up with probability 3/10 each."""
    qrels = pd.DataFrame({"topic": "1", "intent": "0",
                          "docno": ["a", "b", "x1", "x2", "x3"], "level": [1, 1, 1, 1, 1]})
    collection = xdiv.build_collection(qrels)
    docs = ["a", "b"] + [f"n{k}" for k in range(7)] + ["x1", "x2", "x3"]
    run = pd.DataFrame({"run": "r", "topic": "1", "docno": docs,
                        "score": [3.0, 2.0] + [1.0] * 10})
    result = _evaluate(xdiv.build_runs(run), collection, ["P@5"], ties="expected")
    assert float(result["score"].squeeze()) == pytest.approx((2 + 3 * 3 / 10) / 5, abs=1e-15)
    ranged = _evaluate(xdiv.build_runs(run), collection, ["P@5"], ties="range")
    assert float(ranged["score_min"].squeeze()) == pytest.approx(2 / 5)
    assert float(ranged["score_max"].squeeze()) == pytest.approx(5 / 5)


def test_sampling_is_seeded_and_recorded(tmp_path):
    collection, tied, _ = _case(5)
    first = _evaluate(tied, collection, ["ERR@5", "P+"], ties="expected", tie_samples=20, seed=7)
    again = _evaluate(tied, collection, ["ERR@5", "P+"], ties="expected", tie_samples=20, seed=7)
    assert first.identical(again)
    assert (first.attrs["ties"], first.attrs["tie_samples"], first.attrs["tie_seed"]) == (
        "expected", 20, 7)
    path = tmp_path / "scores.nc"
    xdiv.to_netcdf(first, path)
    back = xdiv.open_dataset(path)
    np.testing.assert_array_equal(back["score_se"], first["score_se"])
    assert list(back["ties_method"].values) == ["sampled", "sampled"]


@pytest.mark.parametrize("block", [1, None])
def test_streaming_and_dask_agree_with_eager(tmp_path, block):
    rng = np.random.default_rng(11)
    from tests.helpers import random_diversity_frames
    qrels, runs = random_diversity_frames(rng, 4, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        collection = xdiv.build_collection(qrels)
    paths = []
    for name, frame in runs.groupby("run"):
        path = tmp_path / f"{name}.run"
        frame = frame.assign(q0="Q0", rank=1)[["topic", "q0", "docno", "rank", "score", "run"]]
        frame.to_csv(path, sep=" ", header=False, index=False)
        paths.append(str(path))
    measures = ["nDCG@10", "alpha-nDCG@10", "ERR-IA@10"]
    for ties in ("expected", "range"):
        eager = _evaluate(xdiv.read_runs(paths), collection, measures, ties=ties,
                          tie_samples=10)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", xdiv.XdivWarning)
            streamed = evaluate_files(paths, collection, measures, ties=ties, tie_samples=10,
                                      block=block)
        assert streamed.identical(eager), ties
        lazy = _evaluate(xdiv.read_runs(paths).chunk({"run": 1}), collection, measures,
                         ties=ties, tie_samples=10).compute()
        np.testing.assert_allclose(lazy["score"], eager["score"], rtol=1e-12)


def test_condensed_lists_with_ties():
    """judged_only removes the unjudged documents first; the tie groups are those of the
    judged documents left."""
    qrels = pd.DataFrame({"topic": "1", "intent": "0", "docno": ["a", "b", "c"],
                          "level": [1, 0, 1]})
    collection = xdiv.build_collection(qrels)
    run = pd.DataFrame({"run": "r", "topic": "1", "docno": ["u1", "a", "u2", "b", "c"],
                        "score": [2.0, 1.0, 1.0, 1.0, 0.5]})
    result = _evaluate(xdiv.build_runs(run), collection, ["P@1", "AP"], ties="expected",
                       judged_only=True)
    # condensed: a, b tied at ranks 1-2, then c: P@1 = 1/2
    assert float(result["score"].sel(metric="P@1").squeeze()) == pytest.approx(0.5)
    ap = np.mean([(1 + 2 / 3) / 2, (1 / 2 + 2 / 3) / 2])
    assert float(result["score"].sel(metric="AP").squeeze()) == pytest.approx(ap)


@pytest.mark.parametrize("options, message", [
    ({"ties": "mean"}, "ties must be None, 'expected' or 'range'"),
    ({"ties": "expected", "tie_samples": 1}, "tie_samples must be a whole number >= 2"),
    ({"ties": "range", "seed": -1}, "seed must be a whole number >= 0"),
    ({"ties": "range", "seed": 1.5}, "seed must be a whole number >= 0"),
])
def test_bad_options(options, message):
    collection, tied, _ = _case(0)
    with pytest.raises(InputError, match=message):
        xdiv.evaluate(tied, collection, ["P@3"], **options)


def test_tie_spread_warning_names_the_runs():
    collection, tied, _ = _case(2)
    with pytest.warns(xdiv.XdivWarning, match="order of tied documents moves the mean score"):
        xdiv.evaluate(tied, collection, ["nDCG@5"], ties="range")


def test_accessors_pass_the_options_through():
    collection, tied, _ = _case(4)
    options = {"ties": "range", "tie_samples": 10, "seed": 3}
    eager = _evaluate(tied, collection, ["nDCG@5", "ERR@5"], **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        via = tied.xdiv.evaluate(collection, ["nDCG@5", "ERR@5"], **options)
        lines = xdiv.runs_frame(tied).rename(columns={"topic": "query_id", "docno": "doc_id"})
        frame = lines.xdiv.evaluate(collection, ["nDCG@5", "ERR@5"], **options)
    assert via.identical(eager)
    row = frame.set_index(["metric", "run", "topic"]).loc[("ERR@5", "tied", "1")]
    cell = eager.sel(metric="ERR@5", run="tied", topic="1")
    assert (row["score_min"], row["score_max"], row["tie_spread"]) == (
        float(cell["score_min"]), float(cell["score_max"]), float(cell["tie_spread"]))


def test_command_line(tmp_path, capsys):
    from xdiv.cli import main

    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n")
    run = tmp_path / "r.run"
    run.write_text("1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n1 Q0 c 3 1.0 r\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        assert main(["evaluate", str(qrels), str(run), "-m", "P@2", "--ties", "range",
                     "--format", "tsv"]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert lines[0].split("\t") == ["run", "P@2", "P@2:min", "P@2:max", "P@2:spread"]
        # ties by docno descending: c before b
        assert [float(x) for x in lines[1].split("\t")[1:]] == [1.0, 0.5, 1.0, 0.5]
        out = tmp_path / "cube.nc"
        assert main(["evaluate", str(qrels), str(run), "-m", "P@2", "--ties", "expected",
                     "--format", "tsv", "-o", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split("\t") == ["run", "P@2", "P@2:se"]
    assert [float(x) for x in lines[1].split("\t")[1:]] == [0.75, 0.0]
    back = xdiv.open_dataset(out)
    assert (back.attrs["ties"], back.attrs["tie_samples"], back.attrs["tie_seed"]) == (
        "expected", 200, 0)
