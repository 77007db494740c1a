"""Equivalence-class evaluation (NTCIREVAL's ``-ec``; Sakai, ACM TALIP 2007) against
``ntcir_eval label -ec | ntcir_eval compute -ec`` (issue 36, item 5): the eqrels reader
(``read_qrels(..., format="ntcir-eqrels")``), the collection's ``eq_class`` and the
``EC-`` measures, on NTCIREVAL's sample and on seeded random cases, each printed value
compared at its printed precision (4 decimals) as in test_ntcir_measures.py."""

from __future__ import annotations

import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import xdiv
from xdiv.core.collection import set_equivalence_classes
from xdiv.errors import InputError, MeasureError, ParseError
from xdiv.measures.equivalence import LIFTED
from xdiv.measures.registry import parse_measure

from .test_ntcir_measures import _LINE, Case, compute_options, prints_as, registry_names


@pytest.fixture
def program(ntcireval_folder) -> Path:
    return ntcireval_folder / "ntcir_eval"


def _ec_names(case: Case) -> dict[str, str]:
    """ntcir_eval's printed name -> the EC- registry measure that computes it."""
    return {printed: f"EC-{name}" for printed, name in registry_names(case).items()}


def ntcir_eval_values(program: Path, rels: dict, ranking: dict, options: list[str],
                      folder: Path, *, ec: bool = True, sep: str = " ") -> dict:
    """``{topic: {printed name: printed value}}`` of ``label [-ec] | compute [-ec]`` on
    each topic's rel file (``docno level class`` lines) and ranked list; topics without a
    relevant document (which compute refuses) are left out."""
    flag = ["-ec"] if ec else []
    out = {}
    for topic, rel in rels.items():
        rel_file, res_file = folder / f"{topic}.erel", folder / f"{topic}.res"
        rel_file.write_text("".join(f"{d}{sep}L{lv}{sep}{c}\n" for d, (lv, c) in rel.items()))
        res_file.write_text("".join(f"{d}\n" for d in ranking.get(topic, [])))
        labelled = subprocess.run([str(program), "label", "-sep", sep, "-r", str(rel_file),
                                   *flag, str(res_file)], capture_output=True, text=True,
                                  check=True).stdout
        computed = subprocess.run([str(program), "compute", "-sep", sep, "-r", str(rel_file),
                                   *flag, *options], input=labelled, capture_output=True,
                                  text=True).stdout
        values = {m[1]: m[2] for m in map(_LINE.match, computed.splitlines()) if m}
        if values:
            out[topic] = values
    return out


def xdiv_scores(collection, ranking: dict, names: list[str]):
    runs = pd.DataFrame([("run", t, d, float(len(docs) - k)) for t, docs in ranking.items()
                         for k, d in enumerate(docs)],
                        columns=["run", "topic", "docno", "score"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        result = xdiv.evaluate(xdiv.build_runs(runs), collection, names)
    return result["score"].sel(run="run")


def compare(expected: dict, score, names: dict[str, str], label: str) -> int:
    compared = 0
    table = score.transpose("topic", "metric").to_pandas()
    for topic, values in expected.items():
        assert set(values) <= set(names), sorted(set(values) - set(names))
        for printed, value in values.items():
            mine = float(table.at[topic, names[printed]])
            assert prints_as(mine, value), (f"{label} topic {topic}: {printed} ntcir_eval "
                                            f"{value} xdiv {names[printed]} {mine}")
            compared += 1
    return compared


# ---------------------------------------------------------------- NTCIREVAL's sample

def _sample(folder: Path) -> tuple[dict, dict]:
    rels: dict[str, dict] = {}
    for line in (folder / "e-test.eqrels").read_text(encoding="utf-8").splitlines():
        topic, docno, level, eq = line.split(";")
        rels.setdefault(topic, {})[docno] = (int(level[1:]), int(eq))
    ranking: dict[str, list[str]] = {}
    for line in (folder / "e-testrun").read_text(encoding="utf-8").splitlines():
        fields = line.split(";")
        ranking.setdefault(fields[0], []).append(fields[2])
    return rels, ranking


@pytest.mark.parametrize("ec", [True, False], ids=["ec", "without-ec"])
def test_the_eqrels_sample_agrees_with_ntcir_eval(program, ntcireval_folder, tmp_path, ec):
    """e-test.eqrels and e-testrun, as README.equivalence runs them (``-g 1:2:3:4:5
    -cutoffs 10,1000``, separator ``;``), read by ``read_qrels(format="ntcir-eqrels")``:
    the EC- measures agree with ``label -ec | compute -ec``, the plain measures on the same
    collection with ``label | compute`` (no ``-ec``)."""
    rels, ranking = _sample(ntcireval_folder)
    case = Case(gains=(1.0, 2.0, 3.0, 4.0, 5.0), rels={}, ranking={}, cutoffs=(10, 1000),
                rbp=0.95)
    expected = ntcir_eval_values(program, rels, ranking, compute_options(case), tmp_path,
                                 ec=ec, sep=";")
    names = _ec_names(case) if ec else registry_names(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        collection = xdiv.read_qrels(ntcireval_folder / "e-test.eqrels", format="ntcir-eqrels")
    score = xdiv_scores(collection, ranking, list(names.values()))
    assert compare(expected, score, names, "sample") == 2 * len(names)
    # topic 0001's two relevant strings are one class: EC-AP 1 (one class, found at
    # rank 1), AP without classes (1 + 2/3) / 2
    assert float(score.sel(topic="0001", metric=names["AP"])) == pytest.approx(
        1.0 if ec else 5 / 6)


# ---------------------------------------------------------------- random cases

def random_ec_case(rng: np.random.Generator, topics: int = 40) -> tuple[Case, dict, dict]:
    """A random case: the compute options of :func:`random_case` without ``-j`` (which
    ``compute -ec`` refuses) and ``topics`` topics, each a random eqrels of its own (levels
    L0-L<H>, judged documents in classes, some L0 ones in the class of relevant ones, some
    topics without a relevant document) and a ranked list with unjudged documents (some
    empty, some short): one ``ntcir_eval`` run per topic, one ``xdiv.evaluate`` call for
    them all."""
    declared = int(rng.integers(1, 7))
    gains = tuple(float(g) for g in np.cumsum(rng.choice([0.5, 1.0, 2.0], size=declared)))
    rels, ranking = {}, {}
    for t in range(topics):
        topic = f"{t + 1:04d}"
        pool = int(rng.integers(1, 25))
        used = int(rng.integers(1, declared + 1))
        levels = rng.integers(0, used + 1, size=pool) * (rng.random(pool) < 0.6)
        if rng.random() < 0.1:
            levels[:] = 0                                    # no relevant document
        classes = rng.integers(1, max(2, int(pool * rng.uniform(0.2, 1.0))) + 1, size=pool)
        rels[topic] = {f"D{t}-{k:02d}": (int(lv), int(c))
                       for k, (lv, c) in enumerate(zip(levels, classes))}
        length = int(rng.choice([0, int(rng.integers(1, 6)), int(rng.integers(1, 40))]))
        candidates = [f"D{t}-{k:02d}" for k in range(pool)] + [f"U{t}-{k}" for k in range(8)]
        ranking[topic] = [str(d) for d in rng.permutation(candidates)[:length]]
    if not any(ranking.values()):
        ranking["0001"] = [next(iter(rels["0001"]))]
    cutoffs = tuple(sorted({int(c) for c in rng.choice([1, 2, 3, 5, 10, 20, 1000],
                                                       size=int(rng.integers(1, 3)))}))
    stops = (tuple(float(s) for s in np.cumsum(rng.choice([1.0, 2.0], size=declared)))
             if rng.random() < 0.3 else None)
    case = Case(gains=gains, rels={}, ranking={}, cutoffs=cutoffs,
                beta=float(rng.choice([1.0, 0.5, 2.0])), gamma=float(rng.choice([0.95, 0.8])),
                logb=float(rng.choice([2.0, 3.0])), rbp=float(rng.choice([0.95, 0.8])),
                rbup=float(rng.choice([0.9, 0.99])), stops=stops)
    return case, rels, ranking


def compare_random(program: Path, folder: Path, seeds: range) -> tuple[int, int]:
    """Topics compared (with a relevant document: ntcir_eval prints their values), and
    how many of them have an EC-AP or EC-Q other than AP or Q (the classes mattered)."""
    topics = mattered = 0
    for seed in seeds:
        case, rels, ranking = random_ec_case(np.random.default_rng(seed))
        expected = ntcir_eval_values(program, rels, ranking, compute_options(case), folder)
        names = _ec_names(case)
        plain = {k: registry_names(case)[k] for k in ("AP", "Q-measure")}
        qrels = pd.DataFrame([(t, "0", d, lv) for t, rel in rels.items()
                              for d, (lv, _) in rel.items()],
                             columns=["topic", "intent", "docno", "level"])
        classes = pd.DataFrame([(t, d, c) for t, rel in rels.items()
                                for d, (_, c) in rel.items()],
                               columns=["topic", "docno", "eq_class"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", xdiv.XdivWarning)
            collection = set_equivalence_classes(xdiv.build_collection(qrels), classes)
        score = xdiv_scores(collection, ranking, [*names.values(), *plain.values()])
        topics += compare(expected, score, names, f"seed {seed}") // len(names)
        for topic in expected:
            ec = score.sel(topic=topic, metric=[names[k] for k in plain]).values
            base = score.sel(topic=topic, metric=list(plain.values())).values
            mattered += bool(np.any(np.abs(ec - base) > 1e-9))
        for topic in set(rels) - set(expected):  # no relevant document: NaN in xdiv
            assert not any(lv for lv, _ in rels[topic].values())
            assert np.isnan(score.sel(topic=topic, metric=list(names.values())).values).all()
    return topics, mattered


def test_ec_measures_agree_with_ntcir_eval_on_random_cases(program, tmp_path):
    """3 random cases: over 100 topics with a relevant document, every measure ``compute
    -ec`` prints."""
    topics, mattered = compare_random(program, tmp_path, range(3))
    assert topics >= 100 and mattered >= 30


@pytest.mark.slow
def test_ec_measures_agree_with_ntcir_eval_on_many_random_cases(program, tmp_path):
    """12 more random cases: over 400 topics with a relevant document."""
    topics, _ = compare_random(program, tmp_path, range(1000, 1012))
    assert topics >= 400


def test_every_ec_measure_is_compared():
    """The EC- forms are those of the measures compute prints (its -j ones aside)."""
    case = Case(gains=(1.0, 2.0), rels={}, ranking={}, cutoffs=(10,))
    bases = {parse_measure(n).definition.name for n in registry_names(case).values()}
    assert bases == set(LIFTED)


# ---------------------------------------------------------------- input errors

@pytest.mark.parametrize("text, message", [
    ("1;a;L1\n", ":1: expected 4 fields (topic docno level class), found 3"),
    ("1;a;L1;1\n1;b;1;1\n", ":2: level '1' is not a relevance level"),
    ("1;a;L1;0\n", ":1: topic 1 docno a: class '0' is not a whole number >= 1"),
    ("1;a;L1;x\n", ":1: topic 1 docno a: class 'x' is not a whole number >= 1"),
    ("1;a;L1;1\n1;a;L2;2\n", ":2: topic 1 docno a is listed twice (first on line 1)"),
    ("1;;L1;1\n", ":1: the docno field is empty"),
])
def test_bad_eqrels_lines_are_one_line_errors(tmp_path, text, message):
    path = tmp_path / "bad.eqrels"
    path.write_text(text)
    with pytest.raises(ParseError) as error:
        xdiv.read_qrels(path, format="ntcir-eqrels")
    shown = str(error.value)
    assert "\n" not in shown and str(path) in shown and message in shown, shown


def test_class_frames_are_checked(tmp_path):
    qrels = pd.DataFrame({"topic": ["1", "1"], "intent": ["0", "0"], "docno": ["a", "b"],
                          "level": [1, 0]})
    collection = xdiv.build_collection(qrels)
    for rows, message in (
            ([("1", "c", 1)], "<DataFrame> row 0: topic 1 docno c is not judged"),
            ([("1", "a", 1), ("1", "a", 2)],
             "<DataFrame> row 0, <DataFrame> row 1: topic 1 docno a is given a class twice"),
            ([("1", "a", -2)], "<DataFrame> row 0: docno a: class '-2' is not a whole number"),
            ([("1", "b", 1.5)], "<DataFrame> row 0: docno b: class '1.5' is not a whole")):
        frame = pd.DataFrame(rows, columns=["topic", "docno", "eq_class"])
        with pytest.raises(InputError, match=message):
            set_equivalence_classes(collection, frame)


def test_an_ec_measure_needs_classes():
    qrels = pd.DataFrame({"topic": ["1"], "intent": ["0"], "docno": ["a"], "level": [1]})
    runs = pd.DataFrame({"run": ["r"], "topic": ["1"], "docno": ["a"], "score": [1.0]})
    with pytest.raises(MeasureError, match="EC-Q needs equivalence classes"):
        xdiv.evaluate(xdiv.build_runs(runs), xdiv.build_collection(qrels), ["EC-Q"])


def test_the_ec_kernels_examples_hold():
    import doctest

    from xdiv.kernels import ntcir

    assert doctest.testmod(ntcir).failed == 0


def test_ec_scores_do_not_depend_on_the_batch_or_on_tie_sampling():
    """A run's EC- values alone equal its values beside a much deeper run (the cube
    padded), bit for bit; ``ties="expected"`` on untied runs gives the same values."""
    case, rels, _ = random_ec_case(np.random.default_rng(7), topics=12)
    qrels = pd.DataFrame([(t, "0", d, lv) for t, rel in rels.items()
                          for d, (lv, _) in rel.items()],
                         columns=["topic", "intent", "docno", "level"])
    classes = pd.DataFrame([(t, d, c) for t, rel in rels.items() for d, (_, c) in rel.items()],
                           columns=["topic", "docno", "eq_class"])
    rng = np.random.default_rng(8)
    rows = []
    for run, depth in (("short", 6), ("deep", 300)):
        for topic, rel in rels.items():
            docs = list(rel) + [f"X{topic}-{k}" for k in range(depth)]
            rows += [(run, topic, str(d), float(depth - k))
                     for k, d in enumerate(rng.permutation(docs)[:depth])]
    frame = pd.DataFrame(rows, columns=["run", "topic", "docno", "score"])
    names = [f"EC-{n}" for n in ("AP", "Q", "nDCG@10", "ERR@5", "RR", "P@3", "NCUrb")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        collection = set_equivalence_classes(xdiv.build_collection(qrels), classes)
        together = xdiv.evaluate(xdiv.build_runs(frame), collection, names)["score"]
        alone = xdiv.evaluate(xdiv.build_runs(frame[frame["run"] == "short"]), collection,
                              names)["score"]
        expected = xdiv.evaluate(xdiv.build_runs(frame), collection, names,
                                 ties="expected", tie_samples=2)["score"]
    assert np.array_equal(alone.sel(run="short").values, together.sel(run="short").values,
                          equal_nan=True)
    assert np.array_equal(expected.values, together.values, equal_nan=True)


def test_eqrels_are_written_back(ntcireval_folder, tmp_path):
    """The sample's eqrels written back hold its lines (sorted by topic and docno); a
    collection without classes, or a document without a class, is refused."""
    from xdiv.io.ntcir import write_eqrels

    sample = ntcireval_folder / "e-test.eqrels"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        collection = xdiv.read_qrels(sample, format="ntcir-eqrels")
    write_eqrels(tmp_path / "out.eqrels", collection)
    written = (tmp_path / "out.eqrels").read_text(encoding="utf-8").splitlines()
    assert sorted(written) == sorted(sample.read_text(encoding="utf-8").splitlines())
    with pytest.raises(InputError, match="no equivalence classes"):
        write_eqrels(tmp_path / "x", collection.drop_vars("eq_class"))
    lacking = collection.assign(eq_class=collection["eq_class"].where(
        collection["docno"] != "酒井哲也", -1))
    with pytest.raises(InputError, match="topic 0001 docno 酒井哲也 has no class >= 1"):
        write_eqrels(tmp_path / "x", lacking)


def test_eqrels_take_no_intent_probabilities(ntcireval_folder):
    with pytest.raises(InputError, match="eqrels are adhoc qrels"):
        xdiv.read_qrels(ntcireval_folder / "e-test.eqrels", format="ntcir-eqrels",
                        probabilities="nonuniform")
