"""Honest scores under incomplete judgments (issue 28): condensed lists
(``judged_only``, Sakai, SIGIR 2007; trec_eval's ``-J``) and residual upper bounds
(``residuals``, ``score_high``; Moffat & Zobel, TOIS 2008), through ``xdiv.evaluate``,
the streaming ``evaluate_files``, the accessors and ``xdiv evaluate``.

The oracle tests build trec_eval 10.0 from ``../shared/reference/tools`` (its per-topic
values printed with 12 decimals instead of 4, the only change) and skip when the tarball,
the TREC 2009 data, ``make`` or a C compiler is missing.
"""

from __future__ import annotations

import glob
import shutil
import subprocess
import tarfile
import warnings

import numpy as np
import pytest

import xdiv
from xdiv.cli import main
from xdiv.core.cube import check_cube
from xdiv.engine import evaluate_files

from ..conftest import SHARED, built_once, require_trec_2009

# topic 1: intents 1 and 2; topic 2: one intent; u* have no qrels line (unjudged)
QRELS = """1 1 a 1
1 2 a 0
1 1 b 0
1 2 c 1
1 1 d 1
1 2 d 1
2 1 x 1
2 1 y 0
2 1 z 1
"""
RUNS = {"s": {"1": ["u1", "a", "u2", "b", "c", "u3", "d"], "2": ["u4", "y", "x", "u5"]},
        "t": {"1": ["d", "u1", "u2", "u3", "b", "a"], "2": ["u4", "u5", "z"]}}
MEASURES = ["alpha-nDCG@3", "alpha-nDCG@5", "I-rec@3", "ERR-IA@5", "D#-nDCG@3", "nDCG@3",
            "P@3", "P@5", "AP", "RR", "RBP", "bpref", "Q", "MAP-IA"]


def _write_run(path, runs, *, keep=lambda docno: True):
    lines = [f"{topic} Q0 {docno} {k + 1} {100 - k} {run}"
             for run, topics in runs.items() for topic, docnos in topics.items()
             for k, docno in enumerate(d for d in docnos if keep(d))]
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture()
def tiny(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    for name, runs in RUNS.items():
        _write_run(tmp_path / f"{name}.run", {name: runs})
        _write_run(tmp_path / f"{name}.judged", {name: runs},
                   keep=lambda docno: not docno.startswith("u"))
    return tmp_path


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def test_condensed_lists_equal_runs_without_their_unjudged_lines(tiny):
    collection = xdiv.read_qrels(tiny / "qrels")
    full = xdiv.read_runs(sorted(map(str, tiny.glob("*.run"))))
    judged = xdiv.read_runs(sorted(map(str, tiny.glob("*.judged"))))
    condensed = _quiet(xdiv.evaluate, full, collection, MEASURES, judged_only=True)
    stripped = _quiet(xdiv.evaluate, judged, collection, MEASURES)
    np.testing.assert_allclose(condensed["score"].values, stripped["score"].values,
                               rtol=0, atol=1e-12)
    # and the unjudged documents did change something without the option
    plain = _quiet(xdiv.evaluate, full, collection, MEASURES)
    assert not np.allclose(plain["score"].values, condensed["score"].values)
    # by hand: run s, topic 1 condensed is a b c d; I-rec@3 covers intents 1 and 2 (a, c)
    assert float(condensed["score"].sel(metric="I-rec@3", run="s", topic="1")) == 1.0
    assert float(plain["score"].sel(metric="I-rec@3", run="s", topic="1")) == 0.5


def test_condensed_lists_cut_after_condensing(tiny):
    """The cutoffs count judged documents: P@2 of run t, topic 1 is over d and b."""
    collection = xdiv.read_qrels(tiny / "qrels")
    runs = xdiv.read_runs(str(tiny / "t.run"))
    scores = _quiet(xdiv.evaluate, runs, collection, ["P@2"], judged_only=True)
    assert float(scores["score"].sel(metric="P@2", run="t", topic="1")) == 0.5
    assert float(scores["score"].sel(metric="P@2", run="t", topic="2")) == 0.5  # z only: 1/2


def test_residual_upper_bound_of_precision_by_hand(tiny):
    collection = xdiv.read_qrels(tiny / "qrels")
    runs = xdiv.read_runs(str(tiny / "s.run"))
    scores = _quiet(xdiv.evaluate, runs, collection, ["P@5", "I-rec@3", "P@2"],
                    residuals=True)
    low, high = scores["score"].sel(run="s"), scores["score_high"].sel(run="s")
    # topic 1, top 5 = u1 a u2 b c: relevant a, c; unjudged u1, u2
    assert float(low.sel(metric="P@5", topic="1")) == pytest.approx(2 / 5)
    assert float(high.sel(metric="P@5", topic="1")) == pytest.approx((2 + 2) / 5)
    # topic 2, u4 y x u5 (4 documents): relevant x; unjudged u4, u5
    assert float(low.sel(metric="P@5", topic="2")) == pytest.approx(1 / 5)
    assert float(high.sel(metric="P@5", topic="2")) == pytest.approx((1 + 2) / 5)
    # within the cutoff only: P@2 of topic 2 = u4 y
    assert float(high.sel(metric="P@2", topic="2")) == pytest.approx(1 / 2)
    # an unjudged document is relevant to every valid intent: u1 covers both
    assert float(low.sel(metric="I-rec@3", topic="1")) == 0.5
    assert float(high.sel(metric="I-rec@3", topic="1")) == 1.0


def test_residuals_bound_from_above_and_vanish_on_condensed_lists(tiny):
    collection = xdiv.read_qrels(tiny / "qrels")
    runs = xdiv.read_runs(sorted(map(str, tiny.glob("*.run"))))
    measures = [m for m in MEASURES if m != "bpref"]
    both = _quiet(xdiv.evaluate, runs, collection, measures, residuals=True)
    assert (both["score_high"] >= both["score"] - 1e-12).all()
    assert (both["score_high"] > both["score"]).any()
    plain = _quiet(xdiv.evaluate, runs, collection, measures)
    assert both["score"].identical(plain["score"])
    condensed = _quiet(xdiv.evaluate, runs, collection, measures, judged_only=True,
                       residuals=True)
    np.testing.assert_array_equal(condensed["score_high"].values,
                                  condensed["score"].values)


def test_attributes_record_the_options_and_survive_netcdf(tiny, tmp_path):
    collection = xdiv.read_qrels(tiny / "qrels")
    runs = xdiv.read_runs(str(tiny / "s.run"))
    plain = _quiet(xdiv.evaluate, runs, collection, ["P@5"])
    assert "score_high" not in plain
    assert (plain.attrs["judged_only"], plain.attrs["residuals"]) == (0, 0)
    scores = _quiet(xdiv.evaluate, runs, collection, ["P@5", "RBP"], judged_only=True,
                    residuals=True)
    assert (scores.attrs["judged_only"], scores.attrs["residuals"]) == (1, 1)
    assert scores["score_high"].dims == scores["score"].dims
    path = xdiv.to_netcdf(scores, tmp_path / "cube.nc")
    back = xdiv.open_dataset(path)
    assert back.attrs["judged_only"] == 1 and back.attrs["residuals"] == 1
    np.testing.assert_array_equal(back["score_high"].values, scores["score_high"].values)
    summary = xdiv.summarize(back)
    assert summary.attrs["judged_only"] == 1
    assert check_cube(back, "scores")["score"].shape == (2, 1, 2)


def test_options_must_be_booleans(tiny):
    collection = xdiv.read_qrels(tiny / "qrels")
    runs = xdiv.read_runs(str(tiny / "s.run"))
    for name in ("judged_only", "residuals"):
        with pytest.raises(xdiv.XdivError, match=name):
            xdiv.evaluate(runs, collection, ["P@5"], **{name: "yes"})


@pytest.mark.parametrize("block", [1, None])
def test_streaming_is_identical_to_eager(tiny, block):
    collection = xdiv.read_qrels(tiny / "qrels")
    paths = sorted(map(str, tiny.glob("*.run")))
    for options in ({"judged_only": True}, {"residuals": True},
                    {"judged_only": True, "residuals": True}):
        eager = _quiet(xdiv.evaluate, xdiv.read_runs(paths), collection, MEASURES, **options)
        streamed = _quiet(evaluate_files, paths, collection, MEASURES, block=block,
                          **options)
        assert streamed.identical(eager), options


def test_dask_backed_runs_condense_as_in_memory(tiny):
    pytest.importorskip("dask")
    collection = xdiv.read_qrels(tiny / "qrels")
    paths = sorted(map(str, tiny.glob("*.run")))
    eager = _quiet(xdiv.evaluate, xdiv.read_runs(paths), collection, MEASURES,
                   judged_only=True, residuals=True)
    lazy = _quiet(xdiv.evaluate, xdiv.read_runs(paths, chunks={"run": 1}), collection,
                  MEASURES, judged_only=True, residuals=True).compute()
    np.testing.assert_allclose(lazy["score"].values, eager["score"].values, atol=1e-12)
    np.testing.assert_allclose(lazy["score_high"].values, eager["score_high"].values,
                               atol=1e-12)


def test_accessors_pass_the_options_through(tiny):
    collection = xdiv.read_qrels(tiny / "qrels")
    runs = xdiv.read_runs(str(tiny / "s.run"))
    eager = _quiet(xdiv.evaluate, runs, collection, ["P@5", "AP"], judged_only=True,
                   residuals=True)
    via = _quiet(runs.xdiv.evaluate, collection, ["P@5", "AP"], judged_only=True,
                 residuals=True)
    assert via.identical(eager)
    lines = xdiv.runs_frame(runs).rename(columns={"topic": "query_id", "docno": "doc_id"})
    frame = _quiet(lines.xdiv.evaluate, collection, ["P@5"], residuals=True)
    row = frame.set_index(["run", "topic"]).loc[("s", "1")]
    assert (row["score"], row["score_high"]) == pytest.approx((2 / 5, 4 / 5))


def test_command_line_options(tiny, tmp_path, capsys):
    out = tmp_path / "cube.nc"
    args = ["evaluate", str(tiny / "qrels"), str(tiny / "s.run"), "-m", "P@5", "I-rec@3",
            "--format", "tsv"]
    assert _quiet(main, args + ["--per-topic", "--residuals", "-o", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split("\t") == ["run", "topic", "P@5", "P@5:high", "I-rec@3",
                                    "I-rec@3:high"]
    assert [float(v) for v in lines[1].split("\t")[2:]] == pytest.approx(
        [2 / 5, 4 / 5, 0.5, 1.0])
    cube = xdiv.open_dataset(out)
    assert "score_high" in cube and cube.attrs["residuals"] == 1
    assert _quiet(main, args + ["--judged-only"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split("\t") == ["run", "P@5", "I-rec@3"]
    # condensed: topic 1 = a b c d (P@5 = 3/5), topic 2 = y x (1/5); I-rec@3 1 and 1
    assert [float(v) for v in lines[1].split("\t")[1:]] == pytest.approx([0.4, 1.0])
    assert _quiet(main, args[:-2] + ["--format", "trec_eval", "--residuals",
                                     "--judged-only", "--stream"]) == 0
    text = capsys.readouterr().out
    assert "P@5:high\t1\t0.6000" in text


def test_residuals_with_a_hierarchy(tmp_path, capsys):
    tree = tmp_path / "tree.txt"
    tree.write_text("1 top - - -\n1 a top - 1\n1 b top - 2\n1 c - - 3\n")
    (tmp_path / "q").write_text("1 1 x 1\n1 2 y 1\n1 3 z 1\n")
    (tmp_path / "r").write_text("1 Q0 x 1 3 s\n1 Q0 u 2 2 s\n")
    assert main(["evaluate", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "N-rec@2",
                 "I-rec@2", "--format", "tsv", "--hierarchy", str(tree), "--residuals"]) == 0
    # x covers top and a (2 of 5 EIH nodes); u, unjudged, covers every node at best
    values = [float(v) for v in capsys.readouterr().out.splitlines()[1].split("\t")[1:]]
    assert values == pytest.approx([2 / 5, 1.0, 1 / 3, 1.0])


# ------------------------------------------------------------------ trec_eval 10.0 oracle

TREC_EVAL = SHARED / "reference" / "tools" / "trec_eval-10.0.tar.gz"


@pytest.fixture(scope="session")
def trec_eval_10(tmp_path_factory):
    """trec_eval 10.0 built from the reference tarball, printing 12 decimals, once per
    test session (the pytest-xdist workers share it, see :func:`tests.conftest.built_once`)."""
    return built_once(tmp_path_factory, "trec_eval-10.0-12-decimals", _build_trec_eval_10)


def _build_trec_eval_10(folder):
    """Build :func:`trec_eval_10` in ``folder`` (skips when it cannot)."""
    if not TREC_EVAL.exists():
        pytest.skip("../shared/reference/tools/trec_eval-10.0.tar.gz is not available")
    if shutil.which("make") is None or not (shutil.which("gcc") or shutil.which("cc")):
        pytest.skip("make and a C compiler are needed to build trec_eval")
    with tarfile.open(TREC_EVAL) as tar:
        tar.extractall(folder, filter="data")
    source = next(p for p in folder.iterdir() if p.is_dir() and p.name.startswith("trec_eval"))
    for name in ("meas_print_single.c", "meas_print_final.c"):
        path = source / name
        path.write_text(path.read_text().replace("%6.4f", "%.12f"))
    built = subprocess.run(["make", "-s"], cwd=source, capture_output=True, text=True)
    if built.returncode != 0 or not (source / "trec_eval").exists():
        pytest.skip(f"trec_eval 10.0 did not build: {built.stderr[-300:]}")
    return source / "trec_eval"


@pytest.fixture(scope="module")
def adhoc_2009(tmp_path_factory):
    """The TREC 2009 diversity qrels as adhoc qrels (a document's highest level,
    negative as 0) and four of its runs, ranked by xdiv and written with scores -rank
    (trec_eval's single-precision scores could reorder near-ties otherwise)."""
    root = require_trec_2009()
    folder = tmp_path_factory.mktemp("adhoc2009")
    adhoc = xdiv.to_adhoc(xdiv.read_qrels(root / "qrels.diversity.gz"), "max")
    qrels = xdiv.qrels_frame(adhoc)
    (folder / "qrels").write_text("".join(
        f"{t} 0 {d} {max(int(level), 0)}\n"
        for t, d, level in qrels[["topic", "docno", "level"]].itertuples(index=False)))
    paths = []
    for path in sorted(glob.glob(str(root / "runs" / "*.gz")))[:4]:
        frame = xdiv.runs_frame(_quiet(xdiv.read_runs, path))
        out = folder / f"{frame['run'].iloc[0]}.run"
        out.write_text("".join(f"{t} Q0 {d} {r} {-float(r)} {name}\n" for name, t, d, r in
                               frame[["run", "topic", "docno", "rank"]].itertuples(index=False)))
        paths.append(out)
    return xdiv.read_qrels(folder / "qrels"), folder / "qrels", paths


def _trec_eval(binary, *args) -> dict:
    """{(measure, topic): value} of ``trec_eval -q args``."""
    out = subprocess.run([str(binary), "-q", *map(str, args)], capture_output=True,
                         text=True, check=True).stdout
    values = {}
    for line in out.splitlines():
        measure, topic, value = line.split()
        if topic != "all" and measure != "runid":
            values[measure, topic] = float(value)
    return values


@pytest.mark.slow
def test_judged_only_agrees_with_trec_eval_minus_J(trec_eval_10, adhoc_2009):
    collection, qrels, paths = adhoc_2009
    measures = ["map", "ndcg_cut_10", "P_10", "recip_rank"]
    compared, worst = 0, 0.0
    runs = xdiv.read_runs([str(path) for path in paths])  # one evaluation of the four
    scores = _quiet(xdiv.evaluate, runs, collection, measures, judged_only=True)
    plain = _quiet(xdiv.evaluate, runs, collection, measures)
    for path in paths:
        run = path.stem  # the fixture names each file by its run
        oracle = _trec_eval(trec_eval_10, "-J", "-m", "map", "-m", "ndcg_cut.10", "-m",
                            "P.10", "-m", "recip_rank", qrels, path)
        for (measure, topic), value in oracle.items():
            mine = float(scores["score"].sel(metric=measure, run=run, topic=topic))
            worst = max(worst, abs(mine - value))
            compared += 1
        # the condensed lists differ from the plain ones on these runs
        assert not np.allclose(plain["score"].sel(run=run).values,
                               scores["score"].sel(run=run).values)
    print(f"trec_eval -J: {compared} values of {len(paths)} runs, max |diff| {worst:.1e}")
    assert worst < 1e-6
    assert compared >= 4 * 4 * 45


@pytest.mark.slow
def test_rbp_residual_agrees_with_trec_eval_rbp_resid(trec_eval_10, adhoc_2009):
    """trec_eval's ``rbp_resid`` is the residual of Moffat & Zobel: (1 - p) times the
    weights of the unjudged ranks, plus p^n for the ranks past the end of the list, and
    0 when the list holds no unjudged document. ``score_high - score`` is the first part
    (xdiv bounds the list as retrieved)."""
    collection, qrels, paths = adhoc_2009
    p = 0.8
    compared, worst = 0, 0.0
    runs = xdiv.read_runs([str(path) for path in paths])  # one evaluation of the four
    scores = _quiet(xdiv.evaluate, runs, collection, [f"RBP(p={p})"], residuals=True)
    for path in paths:
        run = path.stem  # the fixture names each file by its run
        oracle = _trec_eval(trec_eval_10, "-m", f"rbp.p={p}", "-m", f"rbp_resid.p={p}",
                            "-m", "num_ret", qrels, path)
        for (measure, topic), resid in oracle.items():
            if not measure.startswith("rbp_resid"):
                continue
            at = {"run": run, "topic": topic}
            low = float(scores["score"].isel(metric=0).sel(at))
            high = float(scores["score_high"].isel(metric=0).sel(at))
            tail = p ** oracle["num_ret", topic] if resid > 0 else 0.0
            worst = max(worst, abs((high - low) - (resid - tail)),
                        abs(low - oracle[f"rbp_p={p}", topic]))
            compared += 1
    print(f"rbp_resid: {compared} topics of {len(paths)} runs, max |diff| {worst:.1e}")
    assert worst < 1e-6
    assert compared >= 4 * 45


# ------------------------------------------------------------------ one rule for "judged"
# third audit, item 12: a document whose only levels are negative (-1: pooled but not
# judged; TREC's spam -2) is unjudged for judged_only, as for trec_eval -J, infAP and bpref

JUDGED_MEASURES = ["map", "P_5", "ndcg_cut_10", "recip_rank", "bpref"]


def _negative_levels_case(tmp_path, seed: int):
    """Random adhoc qrels with -1 and -2 levels, and runs ranking many of those documents,
    written as files; scores -rank so that no oracle reorders ties."""
    from ..helpers import random_adhoc_frames

    rng = np.random.default_rng(seed)
    qrels, frame = random_adhoc_frames(rng, 6, 3, depth=30, pool=30, spam=True)
    qrels["level"] = np.where(rng.random(len(qrels)) < 0.2, -1, qrels["level"])
    (tmp_path / "qrels").write_text("".join(
        f"{t} 0 {d} {lv}\n" for t, d, lv in qrels[["topic", "docno", "level"]].itertuples(
            index=False)))
    runs = _quiet(xdiv.build_runs, frame)
    ranked = xdiv.runs_frame(runs)
    paths = []
    for name, part in ranked.groupby("run"):
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"{t} Q0 {d} {r} {-float(r)} {name}\n" for t, d, r in
                                part[["topic", "docno", "rank"]].itertuples(index=False)))
        paths.append(path)
    return qrels, paths


def _judged_only_scores(qrels_path, path):
    collection = _quiet(xdiv.read_qrels, str(qrels_path))
    runs = _quiet(xdiv.read_runs, str(path))
    scores = _quiet(xdiv.evaluate, runs, collection, JUDGED_MEASURES, judged_only=True)
    return scores["score"].sel(run=str(runs["run"].values[0]))


@pytest.mark.parametrize("seed", [0, 1])
def test_judged_only_drops_negative_levels_as_pytrec_eval_minus_J(tmp_path, seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, paths = _negative_levels_case(tmp_path, seed)
    assert (qrels["level"] == -1).sum() > 10 and (qrels["level"] == -2).sum() > 3
    judgments: dict = {}
    for t, d, lv in qrels[["topic", "docno", "level"]].itertuples(index=False):
        judgments.setdefault(str(t), {})[d] = int(lv)
    names = {"map": "map", "P_5": "P_5", "ndcg_cut_10": "ndcg_cut_10",
             "recip_rank": "recip_rank", "bpref": "bpref"}
    evaluator = pytrec_eval.RelevanceEvaluator(judgments, set(names.values()),
                                               judged_docs_only_flag=True)
    compared = 0
    for path in paths:
        run: dict = {}
        for line in path.read_text().splitlines():
            t, _, d, _, score, _ = line.split()
            run.setdefault(t, {})[d] = float(score)
        mine = _judged_only_scores(tmp_path / "qrels", path)
        for topic, values in evaluator.evaluate(run).items():
            for measure, name in names.items():
                value = float(mine.sel(metric=measure, topic=topic))
                if np.isnan(value):  # no relevant document: xdiv NaN, trec_eval 0
                    assert values[name] == 0.0
                    continue
                assert value == pytest.approx(values[name], abs=1e-9), (path.name, topic,
                                                                         measure)
                compared += 1
    assert compared >= 3 * 4 * len(names)


def test_judged_only_agrees_with_trec_eval_minus_J_on_negative_levels(trec_eval_10, tmp_path):
    _, paths = _negative_levels_case(tmp_path, 2)
    compared = 0
    for path in paths:
        mine = _judged_only_scores(tmp_path / "qrels", path)
        oracle = _trec_eval(trec_eval_10, "-J", "-m", "map", "-m", "P.5", "-m",
                            "ndcg_cut.10", "-m", "recip_rank", "-m", "bpref",
                            tmp_path / "qrels", path)
        for (measure, topic), value in oracle.items():
            mine_value = float(mine.sel(metric=measure, topic=topic))
            if np.isnan(mine_value):
                assert value == 0.0
                continue
            assert mine_value == pytest.approx(value, abs=1e-9), (path.name, topic, measure)
            compared += 1
    assert compared >= 3 * 4 * len(JUDGED_MEASURES)


def test_judged_only_by_hand_on_a_pooled_but_unjudged_document(tmp_path, capsys):
    # b (-1) ranked first, then a (1), x (no line), c (0), d (1): the condensed list is
    # a, c, d (trec_eval -J), not b, a, c, d
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b -1\n1 0 c 0\n1 0 d 1\n")
    run = tmp_path / "r.run"
    run.write_text("".join(f"1 Q0 {d} {k} {10 - k} r\n"
                           for k, d in enumerate(["b", "a", "x", "c", "d"], start=1)))
    collection = xdiv.read_qrels(tmp_path / "qrels")
    runs = xdiv.read_runs(str(run))
    scores = _quiet(xdiv.evaluate, runs, collection, ["P@1", "AP", "RR"], judged_only=True)
    assert scores["score"].squeeze().values.tolist() == [1.0, (1 + 2 / 3) / 2, 1.0]
    cube = xdiv.judge(runs, collection, judged_only=True)
    assert int(cube["length"].squeeze()) == 3
    # the same through the accessors and the command line
    lines = xdiv.runs_frame(runs).rename(columns={"topic": "query_id", "docno": "doc_id"})
    frame = _quiet(lines.xdiv.evaluate, collection, ["AP"], judged_only=True)
    assert frame["score"].tolist() == [(1 + 2 / 3) / 2]
    assert _quiet(main, ["evaluate", str(tmp_path / "qrels"), str(run), "-m", "AP",
                         "--judged-only", "--format", "tsv"]) == 0
    assert capsys.readouterr().out.splitlines()[1].split("\t") == ["r", "0.833333"]
