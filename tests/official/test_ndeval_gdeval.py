"""``xdiv ndeval`` and ``xdiv gdeval`` against the tools they reproduce.

Oracles: TREC's ndeval program itself, compiled from the C source that the pyndeval
package distributes (when pip can fetch it and a C compiler is present; skipped
otherwise), pyndeval's per-topic numbers laid out as ndeval prints them, and for gdeval
the gdeval.pl that ir_measures ships (run with perl) and the measures' definitions
computed here by plain loops. Risk-sensitive rows are checked against a hand computation.
"""

from __future__ import annotations

import glob
import gzip
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import xdiv
from xdiv.cli import main
from xdiv.official.ndeval_tool.report import NDEVAL_LABELS

from ..conftest import TREC_WEB, require_trec_2009


# ------------------------------------------------------------------ oracles and helpers

def _plain(path, tmp_path: Path) -> str:
    """A gzip file unpacked (ndeval and gdeval.pl read plain text)."""
    out = tmp_path / Path(path).name.removesuffix(".gz")
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as src:
        out.write_bytes(src.read())
    return str(out)


def _xdiv(capsys, *args) -> str:
    assert main(["-q", *map(str, args)]) == 0
    return capsys.readouterr().out


def _program(*args) -> str:
    return subprocess.run(list(map(str, args)), capture_output=True, text=True,
                          check=True).stdout


# ------------------------------------------------------------------ ndeval

@pytest.fixture(scope="module")
def unpacked_2009(tmp_path_factory) -> dict[str, str]:
    """The 2009 qrels (``"qrels"``) and runs (by name) unpacked once for the module
    (issue 35 item 18: the tests below read them, none writes them)."""
    root = require_trec_2009()
    folder = tmp_path_factory.mktemp("unpacked-2009")
    files = {p.name.removesuffix(".gz"): _plain(p, folder) for p in (root / "runs").glob("*.gz")}
    files["qrels"] = _plain(root / "qrels.diversity.gz", folder)
    return files


@pytest.mark.parametrize("flags", [[], ["-traditional"]], ids=["rank", "traditional"])
def test_ndeval_is_ndeval_on_every_2009_run(flags, ndeval_program, unpacked_2009, capsys):
    root = require_trec_2009()
    qrels = unpacked_2009["qrels"]
    paths = sorted(glob.glob(str(root / "runs" / "*.gz")))
    blocks = [_program(ndeval_program, *flags, qrels,
                       unpacked_2009[Path(p).name.removesuffix(".gz")]) for p in paths]
    # a whole year in one call: one block per run, each ndeval's output to the byte
    assert _xdiv(capsys, "ndeval", *flags, root / "qrels.diversity.gz", *paths) == \
        "".join(blocks)
    # and a run alone
    assert _xdiv(capsys, "ndeval", *flags, root / "qrels.diversity.gz", paths[-1]) == \
        blocks[-1]


OPTION_CASES = {
    "complete": (["-c"], "partial", None),
    "alpha-beta": (["-alpha", "0.7", "-beta", "0.9"], "ICTNETDivR2", None),
    "depth": (["-M", "10"], "ICTNETDivR2", None),
    "baseline": (["-baseline", "MSRABASE"], "partial", None),
    "risk": (["-baseline", "partial", "-riskAlpha", "1"], "ICTNETDivR2", None),
    "risk-complete": (["-c", "-baseline", "partial", "-riskAlpha", "5"], "udelSimPrune", None),
    "risk-complete-text": (["-c", "-baseline", "udelSimPrune", "-riskAlpha", "2.50"],
                           "partial", None),
    "risk-traditional": (["-traditional", "-baseline", "ICTNETDivR1", "-riskAlpha", "10"],
                         "ICTNETDivR2", None),
}


@pytest.mark.parametrize("case", list(OPTION_CASES))
def test_ndeval_options_are_ndevals(case, ndeval_program, unpacked_2009, tmp_path, capsys):
    flags, run, _ = OPTION_CASES[case]
    files = dict(unpacked_2009)
    qrels = files.pop("qrels")
    # a run missing topics 1-10 and holding a topic the qrels lack
    lines = [line for line in Path(files["MSRABASE"]).read_text().splitlines(keepends=True)
             if int(line.split()[0]) > 10]
    files["partial"] = str(tmp_path / "partial")
    Path(files["partial"]).write_text("".join(lines) + "99 Q0 unjudged-doc 1 5 partial\n")
    flags = [files.get(f, f) if i and flags[i - 1] == "-baseline" else f
             for i, f in enumerate(flags)]
    expected = _program(ndeval_program, *flags, qrels, files[run])
    assert _xdiv(capsys, "ndeval", *flags, qrels, files[run]) == expected


def _random_case(rng: np.random.Generator, tmp_path: Path) -> tuple[str, str, str]:
    """Qrels with topics lacking relevant documents and unjudged subtopics, and two runs
    with rank columns that disagree with the scores, partial topic coverage and ties."""
    q_lines = []
    for topic in range(1, 9):
        for docno in range(12):
            for intent in range(1, int(rng.integers(1, 5)) + 1):
                if rng.random() < 0.6:
                    level = int(rng.integers(0, 3)) if topic % 4 else 0
                    q_lines.append(f"{topic} {intent} d{docno:02d} {level}\n")
    (tmp_path / "q").write_text("".join(q_lines))
    names = []
    for r in range(2):
        lines = []
        for topic in rng.choice(np.arange(1, 11), size=int(rng.integers(3, 10)), replace=False):
            docs = rng.choice(16, size=int(rng.integers(1, 16)), replace=False)
            ranks = rng.permutation(len(docs)) + 1
            for docno, rank in zip(docs, ranks):
                lines.append(f"{topic} Q0 d{docno:02d} {rank} {rng.integers(0, 4) / 2} r{r}\n")
        (tmp_path / f"r{r}").write_text("".join(lines))
        names.append(str(tmp_path / f"r{r}"))
    return str(tmp_path / "q"), names[0], names[1]


@pytest.mark.parametrize("seed", range(12))
def test_ndeval_matches_ndeval_on_random_collections(seed, ndeval_program, tmp_path, capsys):
    rng = np.random.default_rng(seed)
    qrels, run, base = _random_case(rng, tmp_path)
    options = [["-traditional"], ["-c"], ["-baseline", base, "-riskAlpha", "1.5"],
               ["-c", "-baseline", base], ["-M", "3", "-alpha", "0.25"]][seed % 5]
    assert _xdiv(capsys, "ndeval", *options, qrels, run) == \
        _program(ndeval_program, *options, qrels, run)


def test_ndeval_reads_graded_qrels_with_spam_levels(capsys, tmp_path, ndeval_program):
    """2011-2014 qrels hold -2 (spam); ndeval 4.5's reader rejects negative judgments,
    xdiv reads them as non-relevant: the output is ndeval's on the qrels with -2 as 0."""
    path = TREC_WEB / "2012" / "qrels.diversity.gz"
    if not path.exists():
        pytest.skip("../shared/reference/trec-web/2012 is not available")
    with gzip.open(path, "rt") as fh:
        lines = [line.split() for line in fh if line.strip()]
    zeroed = tmp_path / "q"
    zeroed.write_text("".join(f"{t} {i} {d} {max(int(lv), 0)}\n" for t, i, d, lv in lines))
    rng = np.random.default_rng(5)
    run = tmp_path / "run"
    docs = sorted({d for _, _, d, _ in lines})
    run.write_text("".join(
        f"{t} Q0 {d} {k + 1} {100 - k} synthetic\n" for t in range(151, 201)
        for k, d in enumerate(rng.choice(docs, size=30, replace=False))))
    assert _program(ndeval_program, zeroed, run).count("\n") == 52
    assert _xdiv(capsys, "ndeval", path, run) == _program(ndeval_program, zeroed, run)


def test_ndeval_label_and_order_of_ictnet(capsys):
    """The run of the issue: 0.052526 for alpha-nDCG@20 in rank order (ndeval), 0.077 by
    score (trec_eval's order), and the strec@k labels."""
    root = require_trec_2009()
    out = _xdiv(capsys, "ndeval", root / "qrels.diversity.gz", root / "runs" / "ICTNETDivR2.gz")
    header, *_, mean = out.splitlines()
    assert header.split(",")[-3:] == ["strec@5", "strec@10", "strec@20"]
    assert mean.split(",")[2 + NDEVAL_LABELS.index("alpha-nDCG@20")] == "0.052526"
    out = _xdiv(capsys, "ndeval", "-traditional", root / "qrels.diversity.gz",
                root / "runs" / "ICTNETDivR2.gz")
    value = float(out.splitlines()[-1].split(",")[2 + NDEVAL_LABELS.index("alpha-nDCG@20")])
    assert value == pytest.approx(0.0770, abs=5e-5)


# ------------------------------------------------------------------ gdeval

def _adhoc_qrels(path, out: Path) -> dict[tuple[str, str], int]:
    """Diversity qrels as gdeval's adhoc qrels: a document's highest grade over the
    subtopics (computed here by plain Python, independently of xdiv.to_adhoc)."""
    grades: dict[tuple[str, str], int] = {}
    with gzip.open(path, "rt") as fh:
        for line in fh:
            topic, _, docno, level = line.split()
            key = (topic, docno)
            grades[key] = max(grades.get(key, -99), int(level))
    out.write_text("".join(f"{t} 0 {d} {g}\n" for (t, d), g in grades.items()))
    return grades


@pytest.fixture(scope="module")
def adhoc_of(tmp_path_factory):
    """``adhoc_of(year)``: the year's :func:`_adhoc_qrels` (grades and the file), computed
    once for the module (issue 35 item 18); skips the test when the year is missing."""
    made: dict[int, tuple[dict, Path]] = {}

    def get(year: int) -> tuple[dict, Path]:
        path = TREC_WEB / str(year) / "qrels.diversity.gz"
        if not path.exists():
            pytest.skip(f"../shared/reference/trec-web/{year} is not available")
        if year not in made:
            out = tmp_path_factory.mktemp(f"adhoc{year}") / "adhoc"
            made[year] = _adhoc_qrels(path, out), out
        return made[year]

    return get


def _synthetic_run(grades, tmp_path: Path, name: str, seed: int) -> Path:
    """50 documents per topic, judged and unjudged, with tied scores; some topics left out."""
    rng = np.random.default_rng(seed)
    by_topic: dict[str, list[str]] = {}
    for topic, docno in grades:
        by_topic.setdefault(topic, []).append(docno)
    lines = []
    for topic in sorted(by_topic, key=int)[int(rng.integers(0, 4)):]:
        docs = list(rng.choice(sorted(by_topic[topic]), size=min(45, len(by_topic[topic])),
                               replace=False)) + [f"unjudged-{topic}-{k}" for k in range(5)]
        for k, docno in enumerate(rng.permutation(docs)):
            lines.append(f"{topic} Q0 {docno} {k + 1} {rng.integers(0, 30) / 4} {name}\n")
    path = tmp_path / name
    path.write_text("".join(lines))
    return path


def _definitions(grades, run: Path, k: int) -> dict[str, tuple[float, float]]:
    """nDCG@k and ERR@k per topic by gdeval's definitions, by plain loops."""
    ranked: dict[str, list[tuple[float, str]]] = {}
    for line in run.read_text().splitlines():
        topic, _, docno, _, score, _ = line.split()
        ranked.setdefault(topic, []).append((float(score), docno))
    out = {}
    for topic, docs in ranked.items():
        ideal = sorted((g for (t, _), g in grades.items() if t == topic and g > 0), reverse=True)
        if not ideal:
            continue  # gdeval lists only topics with a relevant document
        docs.sort(reverse=True)  # score descending, ties by docno descending
        gains = [max(grades.get((topic, d), 0), 0) for _, d in docs][:k]
        dcg = sum((2 ** g - 1) / math.log2(r + 2) for r, g in enumerate(gains))
        idcg = sum((2 ** g - 1) / math.log2(r + 2) for r, g in enumerate(ideal[:k]))
        err, decay = 0.0, 1.0
        for r, g in enumerate(gains):
            p = (2 ** g - 1) / 16
            err += p * decay / (r + 1)
            decay *= 1 - p
        out[topic] = (dcg / idcg, err)
    return out


def _gdeval_rows(text: str) -> dict[str, tuple[float, float]]:
    rows = [line.split(",") for line in text.splitlines()[1:]]
    return {t: (float(n), float(e)) for _, t, n, e in rows if t != "amean"}


@pytest.mark.parametrize("year", [2010, 2011, 2012])
def test_gdeval_on_real_qrels(year, adhoc_of, tmp_path, capsys):
    path = TREC_WEB / str(year) / "qrels.diversity.gz"
    grades, adhoc = adhoc_of(year)
    run = _synthetic_run(grades, tmp_path, f"synthetic{year}", year)
    for k in (20, 10):
        out = _xdiv(capsys, "gdeval", "-k", k, adhoc, run)
        lines = out.splitlines()
        assert lines[0] == f"runid,topic,ndcg@{k},err@{k}"
        expected = _definitions(grades, run, k)
        topics = sorted(expected, key=int)
        assert [line.split(",")[1] for line in lines[1:]] == topics + ["amean"]
        for line, topic in zip(lines[1:], topics):
            assert line == f"synthetic{year},{topic},{expected[topic][0]:.5f}," \
                           f"{expected[topic][1]:.5f}"
        mean = np.mean([expected[t] for t in topics], axis=0)
        assert lines[-1] == f"synthetic{year},amean,{mean[0]:.5f},{mean[1]:.5f}"
        # -c averages over every topic with a relevant document
        judged = {t for (t, _), g in grades.items() if g > 0}
        out = _xdiv(capsys, "gdeval", "-c", "-k", k, adhoc, run)
        total = np.sum([expected[t] for t in topics], axis=0) / len(judged)
        assert out.splitlines()[-1] == f"synthetic{year},amean,{total[0]:.5f},{total[1]:.5f}"
    # diversity qrels converted on the fly give the same output
    assert _xdiv(capsys, "gdeval", "--adhoc", "max", path, run) == \
        _xdiv(capsys, "gdeval", adhoc, run)


def test_gdeval_rows_match_gdeval_pl(adhoc_of, tmp_path, capsys):
    """ir_measures ships gdeval.pl (a 2019 revision that prints no mean line); its rows
    equal ours."""
    ir_measures = pytest.importorskip("ir_measures")
    script = Path(ir_measures.__file__).parent / "bin" / "gdeval.pl"
    if not script.exists() or shutil.which("perl") is None:
        pytest.skip("ir_measures' gdeval.pl or perl is not available")
    grades, adhoc = adhoc_of(2012)
    for seed in range(3):
        run = _synthetic_run(grades, tmp_path, f"run{seed}", seed)
        for k in (5, 20):
            expected = _program("perl", script, adhoc, run, k)
            ours = _xdiv(capsys, "gdeval", "-k", k, adhoc, run)
            assert ours.splitlines()[:-1] == expected.splitlines()


def test_gdeval_risk_by_hand(adhoc_of, tmp_path, capsys):
    grades, adhoc = adhoc_of(2011)
    run = _synthetic_run(grades, tmp_path, "run", 1)
    base = _synthetic_run(grades, tmp_path, "base", 2)
    r, b = _definitions(grades, run, 20), _definitions(grades, base, 20)
    judged = sorted({t for (t, _), g in grades.items() if g > 0}, key=int)
    for complete in (False, True):
        flags = ["-c"] if complete else []
        out = _xdiv(capsys, "gdeval", *flags, "-baseline", base, "-riskAlpha", "5",
                    adhoc, run).splitlines()
        label = "run (rel to. base; rs=1+a; a=5)"  # the 2014 label, the default
        topics = sorted(r, key=int) + ([t for t in judged if t not in r] if complete else [])
        rows = []
        for t in topics:
            d = np.subtract(r.get(t, (0.0, 0.0)), b.get(t, (0.0, 0.0)))
            rows.append(np.where(d >= 0, d, 6 * d))
        assert out[1:-1] == [f"{label},{t},{v[0]:.5f},{v[1]:.5f}" for t, v in zip(topics, rows)]
        mean = np.sum(rows, axis=0) / len(topics)
        assert out[-1] == f"{label},amean,{mean[0]:.5f},{mean[1]:.5f}"


def test_gdeval_refuses_what_gdeval_refuses(tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 a 5\n")
    (tmp_path / "d").write_text("1 1 a 1\n1 2 b 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 r\n")
    assert main(["gdeval", str(tmp_path / "q"), str(tmp_path / "r")]) == 2
    assert "grades go up to 4" in capsys.readouterr().err
    assert main(["gdeval", str(tmp_path / "d"), str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "--adhoc max" in err and len(err.strip().splitlines()) == 1


# ------------------------------------------------------------------ risk

def test_urisk_by_hand():
    scores = xr_cube([[[0.5, 0.2, 0.0, 0.9], [0.3, 0.4, 0.0, np.nan]]], metrics=["m"],
                     runs=["a", "b"])
    got = xdiv.risk.urisk(scores, baseline="b", alpha=2.0)
    # a - b per topic: 0.2, -0.2, 0, (NaN: left out) -> (0.2 + 3 * -0.2 + 0) / 3
    assert float(got.sel(metric="m", run="a")) == pytest.approx((0.2 - 0.6 + 0.0) / 3)
    assert float(got.sel(metric="m", run="b")) == 0.0
    diffs = xdiv.risk.risk_differences(scores, baseline="b", alpha=2.0).sel(metric="m", run="a")
    np.testing.assert_allclose(diffs.values[:3], [0.2, 3 * -0.2, 0.0])
    assert np.isnan(diffs.values[3])
    assert float(xdiv.risk.urisk(scores, "b", alpha=0).sel(metric="m", run="a")) == \
        pytest.approx(0.0)
    with pytest.raises(xdiv.InputError, match="alpha"):
        xdiv.risk.urisk(scores, "b", alpha=-1)
    with pytest.raises(xdiv.InputError, match="run 'c'"):
        xdiv.risk.urisk(scores, "c")


def test_urisk_is_lazy_on_dask():
    pytest.importorskip("dask")
    rng = np.random.default_rng(0)
    scores = xr_cube(rng.random((3, 4, 20)), metrics=["m1", "m2", "m3"],
                     runs=["a", "b", "c", "d"])
    eager = xdiv.risk.urisk(scores, "c", alpha=1)
    lazy = xdiv.risk.urisk(scores.chunk({"run": 2}), "c", alpha=1)
    assert lazy.chunks is not None
    np.testing.assert_array_equal(lazy.compute().values, eager.values)


def xr_cube(values, *, metrics, runs):
    """A ``score(metric, run, topic)`` cube of ``values``."""
    import xarray as xr

    values = np.asarray(values, dtype=float)
    return xr.DataArray(values, dims=("metric", "run", "topic"),
                        coords={"metric": metrics, "run": runs,
                                "topic": [str(t + 1) for t in range(values.shape[2])]})


def test_ndeval_risk_rows_by_hand(capsys):
    """Risk rows from the plain rows of the run and the baseline: d = r - b, weighted
    1 + alpha where negative, the mean over the run's topics (the baseline covers them)."""
    root = require_trec_2009()
    qrels, run, base = (root / "qrels.diversity.gz", root / "runs" / "ICTNETDivR2.gz",
                        root / "runs" / "MSRABASE.gz")

    def rows(text):
        return {line.split(",")[1]: np.array(line.split(",")[2:], dtype=float)
                for line in text.splitlines()[1:-1]}

    r, b = rows(_xdiv(capsys, "ndeval", qrels, run)), rows(_xdiv(capsys, "ndeval", qrels, base))
    out = _xdiv(capsys, "ndeval", "-baseline", base, "-riskAlpha", "5", qrels, run).splitlines()
    label = "ICTNETDivR2 (rel to. MSRABASE; rs=1+a; a=5)"
    weighted = {t: np.where(r[t] - b[t] >= 0, r[t] - b[t], 6 * (r[t] - b[t])) for t in r}
    got = {line.split(",")[1]: np.array(line.split(",")[2:], dtype=float) for line in out[1:-1]}
    assert all(line.startswith(label + ",") for line in out[1:])
    assert got.keys() == weighted.keys()
    for t in got:  # the plain rows are rounded to 6 decimals, so allow 6 * 1e-6
        np.testing.assert_allclose(got[t], weighted[t], atol=6e-6)
    mean = np.array(out[-1].split(",")[2:], dtype=float)
    np.testing.assert_allclose(mean, np.mean(list(weighted.values()), axis=0), atol=6e-6)
