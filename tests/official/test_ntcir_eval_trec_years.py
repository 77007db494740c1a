"""``xdiv ntcir_eval`` and ``xdiv ntcireval`` against NTCIREVAL 190111 on the TREC Web
Track 2010-2014 diversity qrels (issue 36), converted to NTCIREVAL's files by xdiv's own
writers, with seeded synthetic runs.

For each year the TREC qrels (read with the year's topic file, for the intent types)
become

- a Dqrels file, written by ``xdiv convert --to ntcir``;
- a DINprob file, :func:`xdiv.io.ntcir.write_iprob` of
  :func:`~xdiv.io.ntcir.iprob_frame`: each intent's probability as xdiv reads TREC qrels
  (uniform over the intents with a relevant document, which sum to 1; 0 for an intent
  without one), and its type from the topic file;
- NTCIR adhoc qrels (``xdiv convert --adhoc``, then ``--to ntcir``), split per topic
  into ``rel`` files by :func:`~xdiv.io.ntcir.write_rel`;
- each topic's ``Grelv``, ``Irelv`` and ``din`` files, as ``DIN-splitqrels`` writes them
  (:func:`xdiv.official.ntcireval.pipelines.split_qrels`, checked against the script
  itself through the pipelines' files in the slow test).

The runs mix relevant, judged non-relevant (spam included) and unjudged documents (some
judged for other topics), rank some documents twice, leave some topics out and hold some
rankings without a relevant or a judged document. Every subcommand but ``1click`` (which
reads nuggets, not qrels) runs on each topic and run through the program built from the
tarball and through :func:`xdiv.official.ntcireval.ntcir_eval`, with option sets that
rotate over the topics: standard output, standard error and exit status must be the
same bytes.

Reading the converted files back (``xdiv.read_qrels(format="ntcir")`` with the DINprob
file) must give the TREC qrels' judgments: the same judged documents, the same levels
(TREC's spam level -2 becomes L0, NTCIREVAL having no spam level), the same intents with
the same types and probabilities (NTCIR probabilities are used as given, which here are
the TREC collection's renormalised ones).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from xdiv.cli import main

from ..conftest import TREC_WEB
from .test_ntcir_eval import _same, binary_runner, xdiv_outcome
from .test_ntcireval_pipelines import _compare, _pipelines, _run_scripts, _run_xdiv

YEARS = ("2010", "2011", "2012", "2013", "2014")
TOPIC_FILES = {"2010": "wt2010-topics.xml", "2011": "full-topics.xml",
               "2012": "full-topics.xml", "2013": "trec2013-topics.xml",
               "2014": "trec2014-topics.xml"}
ADHOC_METHOD = {"2010": "count", "2011": "max", "2012": "count", "2013": "max",
                "2014": "count"}
"""How each year's diversity qrels become the adhoc qrels of ``label`` and ``compute``
(the highest level over the intents, or the number of intents a document is relevant
to): graded either way, as 2010's qrels are binary."""


def _year_folder(year: str) -> Path:
    folder = TREC_WEB / year
    if not (folder / "qrels.diversity.gz").exists():
        pytest.skip(f"../shared/reference/trec-web/{year} is not available")
    return folder


@dataclass
class Topic:
    """One topic's NTCIREVAL files (paths) and its documents by kind."""

    name: str
    rel: Path
    grelv: Path
    din: Path
    irelv: list[Path]
    levels: int
    relevant: list[str]
    nonrelevant: list[str]


@dataclass
class Year:
    """A year's converted files and its topics."""

    year: str
    folder: Path
    collection: object
    dqrels: Path
    dinprob: Path
    adhoc: Path
    topics: dict[str, Topic] = field(default_factory=dict)


def convert_year(year: str, into: Path, only: list[str] | None = None) -> Year:
    """The year's TREC qrels (``only`` these topics, or all) written as NTCIREVAL's
    files in ``into`` by xdiv."""
    import gzip

    import xdiv

    from xdiv.io.ntcir import iprob_frame, read_dqrels_frame, write_iprob, write_rel
    from xdiv.official.ntcireval.pipelines import split_qrels

    source = _year_folder(year)
    qrels = source / "qrels.diversity.gz"
    into.mkdir(parents=True)
    topics = xdiv.read_topics(source / TOPIC_FILES[year])
    if only is not None:
        qrels = into / "qrels.txt"
        lines = gzip.open(source / "qrels.diversity.gz", "rt").read().splitlines(True)
        qrels.write_text("".join(line for line in lines if line.split()[0] in only))
        topics = topics[topics["topic"].isin(only)]
    collection = xdiv.read_qrels(qrels, topics=topics)
    converted = Year(year, into, collection, into / f"wt{year}.Dqrels",
                     into / f"wt{year}.DINprob", into / f"wt{year}.qrels")
    assert main(["convert", str(qrels), "--to", "ntcir", "-o", str(converted.dqrels)]) == 0
    write_iprob(converted.dinprob, iprob_frame(collection), types=True)
    adhoc_trec = into / "adhoc.txt"
    assert main(["convert", str(qrels), "--adhoc", ADHOC_METHOD[year], "-o",
                 str(adhoc_trec)]) == 0
    assert main(["convert", str(adhoc_trec), "--to", "ntcir", "-o",
                 str(converted.adhoc)]) == 0
    adhoc = read_dqrels_frame(converted.adhoc)
    assert adhoc.attrs["adhoc"]
    split = split_qrels(converted.dinprob.read_bytes(), converted.dqrels.read_bytes())
    topic_of = adhoc["topic"].to_numpy().astype(str)
    rows = {name: np.flatnonzero(topic_of == name) for name in np.unique(topic_of)}
    for topic, files in split.items():
        name = topic.decode()
        where = into / name
        where.mkdir()
        rel = adhoc.iloc[rows.get(name, np.zeros(0, dtype=np.int64))]
        write_rel(where / f"{name}.rel", rel)
        (where / f"{name}.Grelv").write_bytes(files.grelv)
        (where / f"{name}.din").write_bytes(files.din)
        irelv = []
        for intent, data in files.irelv.items():
            path = where / f"{name}.Irelv{intent.decode()}"
            path.write_bytes(data)
            irelv.append(path)
        converted.topics[name] = Topic(
            name, where / f"{name}.rel", where / f"{name}.Grelv", where / f"{name}.din",
            irelv, max(1, int(rel["level"].max()) if len(rel) else 1),
            sorted(rel.loc[rel["level"] > 0, "docno"]),
            sorted(rel.loc[rel["level"] == 0, "docno"]))
    return converted


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    """``converted(year)``: the year's files (:func:`convert_year`), once per module."""
    cache: dict[tuple, Year] = {}

    def get(year: str, only: tuple[str, ...] | None = None) -> Year:
        if (year, only) not in cache:
            cache[year, only] = convert_year(year, tmp_path_factory.mktemp(f"wt{year}") /
                                             "data", None if only is None else list(only))
        return cache[year, only]

    return get


# ------------------------------------------------------------------ synthetic runs


def synthetic_runs(year: Year, n_runs: int, seed: str) -> dict[str, dict[str, list[str]]]:
    """``{run: {topic: docnos}}``: seeded rankings of the year's topics. Each run has its
    own share of relevant, judged non-relevant and unjudged documents (among them
    documents judged for another topic); some topics are left out (an empty ranking),
    some rankings hold no relevant or no judged document, and some rank a document
    twice."""
    rng = random.Random(seed)
    names = sorted(year.topics)
    runs: dict[str, dict[str, list[str]]] = {}
    for r in range(n_runs):
        mix = [rng.uniform(0.05, 0.5), rng.uniform(0.1, 0.5), rng.uniform(0.1, 0.5)]
        ranked: dict[str, list[str]] = {}
        for k, name in enumerate(names):
            topic = year.topics[name]
            if rng.random() < 0.08:
                continue  # the run leaves the topic out
            other = year.topics[names[(k + 1) % len(names)]]
            pools = [topic.relevant, topic.nonrelevant,
                     other.relevant + [f"unjudged-{year.year}-{name}-{j}" for j in range(300)]]
            weights = list(mix)
            special = rng.random()
            if special < 0.05:
                weights[0] = 0  # no relevant document
            elif special < 0.08:
                weights[0] = weights[1] = 0  # no judged document
            depth = rng.choice([1, 3, 10, 25, 60, 120])
            docnos: list[str] = []
            seen: set[str] = set()
            for _ in range(depth * 3):
                if len(docnos) == depth:
                    break
                pool = rng.choices(pools, weights=weights)[0]
                if not pool:
                    continue
                docno = rng.choice(pool)
                if docno not in seen:
                    seen.add(docno)
                    docnos.append(docno)
            if docnos and rng.random() < 0.1:
                docnos.insert(rng.randrange(len(docnos) + 1), rng.choice(docnos))
            ranked[name] = docnos
        runs[f"syn{year.year}r{r + 1}"] = ranked
    return runs


def write_trec_run(path: Path, name: str, ranked: dict[str, list[str]]) -> None:
    """The rankings as a TREC run file (scores descending, ranks from 1)."""
    lines = [f"{topic} Q0 {docno} {rank} {1000 - rank}.5 {name}\n"
             for topic, docnos in ranked.items() for rank, docno in enumerate(docnos, 1)]
    path.write_text("".join(lines))


# ------------------------------------------------------------------ the subcommands


def _gains(levels: int, kind: int) -> str:
    values = [str(k) for k in range(1, levels + 1)] if kind == 0 else \
        [str(2 ** k - 1) for k in range(1, levels + 1)] if kind == 1 else \
        [f"{0.5 * k:g}" for k in range(1, levels + 1)]
    return ":".join(values)


def compute_options(topic: Topic, k: int) -> tuple[list[str], list[str]]:
    """The ``k``-th option set (rotating) of ``label`` and of ``compute``."""
    sets = [
        ([], ["-g", _gains(topic.levels, 0), "-cutoffs", "10,20,1000", "-out", topic.name]),
        (["-j"], ["-g", _gains(topic.levels, 1), "-j"]),
        (["-truncate", "20"], ["-g", _gains(topic.levels, 0), "-cutoffs", "5,10,20",
                               "-beta", "10", "-gamma", "0.7"]),
        ([], ["-g", _gains(topic.levels, 2), "-rbp", "0.8", "-gap", "-logb", "10", "-v"]),
        (["-truncate", "10", "-j"], ["-g", _gains(topic.levels, 0), "-j", "-rbup", "0.9",
                                     "-beta", "0.5", "-cutoffs", "1,3,10"]),
        ([], ["-g", _gains(topic.levels, 1), "-s",
              ":".join(str(2 * k + 1) for k in range(topic.levels)), "-cutoffs", "0,2,7"]),
    ]
    return sets[k % len(sets)]


def gcompute_options(topic: Topic, k: int) -> tuple[list[str], list[str]]:
    """The ``k``-th option set (rotating) of ``glabel``/``dinlabel`` and ``gcompute``."""
    sets = [
        (["-truncate", "10"], ["-cutoffs", "10", "-out", topic.name]),
        ([], ["-cutoffs", "5,10,20,1000"]),
        (["-j"], ["-j", "-beta", "2", "-gamma", "0.9"]),
        (["-truncate", "20"], ["-rbp", "0.5", "-gap", "-logb", "3", "-cutoffs", "20"]),
        ([], ["-v", "-out", f"{topic.name} x"]),
    ]
    return sets[k % len(sets)]


def compare_year(binary, year: Year, runs: dict[str, dict[str, list[str]]],
                 topics: list[str], where: Path) -> list[tuple[str, str, bytes, int]]:
    """Every subcommand on each of ``topics`` and run, through both: what each
    comparison was, ``(topic, subcommand, ntcir_eval's standard error, its status)``."""
    where.mkdir()
    done: list[tuple[str, str, bytes, int]] = []
    k = 0

    def same(args: list[str], stdin: bytes = b"") -> bytes:
        out, err, status = _same(binary, args, stdin)
        done.append((name, args[0], err, status))
        return out

    for run, ranked in runs.items():
        for name in topics:
            topic = year.topics[name]
            res = "".join(f"{d}\n" for d in ranked.get(name, [])).encode()
            k += 1
            label, compute = compute_options(topic, k)
            labelled = same(["label", *label, "-r", str(topic.rel)], res)
            same(["compute", "-r", str(topic.rel), *compute], labelled)
            glab, gopts = gcompute_options(topic, k)
            labelled = same(["glabel", *glab, "-I", str(topic.grelv)], res)
            same(["gcompute", "-I", str(topic.grelv), *gopts], labelled)
            glab, gopts = gcompute_options(topic, k + 2)
            labelled = same(["dinlabel", *glab, "-din", str(topic.din)], res)
            same(["gcompute", "-I", str(topic.grelv), *gopts], labelled)
            path = where / f"{name}.{run}.res"
            path.write_bytes(res)
            cutoffs = ["-cutoffs", ["10", "1,5,20,1000", "0,3"][k % 3]] if k % 4 else []
            same(["irec", *cutoffs, "-out", name, str(path), *map(str, topic.irelv)])
            if topic.irelv:  # the intent-aware measures: one intent's list as the ideal
                intent = topic.irelv[k % len(topic.irelv)]
                glab, gopts = gcompute_options(topic, k + 1)
                labelled = same(["glabel", *glab, "-I", str(intent)], res)
                same(["gcompute", "-I", str(intent), *gopts], labelled)
    return done


def check_messages(year: Year, done: list[tuple[str, str, bytes, int]]) -> dict[str, int]:
    """The messages of :func:`compare_year`'s comparisons are those the files call for.
    On a topic with a relevant document, ``dinlabel`` refuses a DIN file without an
    intent from 1 to 64 (``store_din failed``: the single-facet topics of 2013 and 2014,
    judged under intent 0), and ``compute -j`` and ``gcompute -j`` a labelled list
    without a judged non-relevant document (as in 2010, whose qrels list relevant
    documents only); a topic without judgments (two in 2010) is refused by most
    subcommands. The number of comparisons of each subcommand on the topics with a
    relevant document, the refused ``dinlabel`` calls left out."""
    whole = {t for t, topic in year.topics.items()
             if all(line.split()[0] == b"0" for line in topic.din.read_bytes().splitlines())}
    compared: dict[str, int] = {}
    for topic, command, err, status in done:
        if not year.topics[topic].relevant:
            continue
        if (command, err, status) == ("dinlabel", b"store_din failed\n", 0):
            assert topic in whole, topic
            continue
        assert topic not in whole or command != "dinlabel", topic
        assert not err or (command in ("compute", "gcompute") and status == 0 and
                           err == b"no judged nonrel: bpref etc. not computable\n"), \
            (topic, command, err, status)
        compared[command] = compared.get(command, 0) + 1
    return compared


def check_round_trip(year: Year) -> int:
    """Reading the Dqrels and DINprob files back gives the TREC qrels' judgments; the
    number of (topic, intent, docno) judgments compared."""
    import xdiv
    from xdiv.core.collection import qrels_frame

    trec = year.collection
    back = xdiv.read_qrels(year.dqrels, format="ntcir", probabilities=year.dinprob)
    assert list(back["topic"].values) == list(trec["topic"].values)

    def judgments(collection) -> dict[tuple[str, str, str], int]:
        # the columns taken out whole, not row by row (issue 35 item 18)
        t, i, d, lv = (column.to_numpy() for _, column in qrels_frame(collection).items())
        return dict(zip(zip(map(str, t), map(str, i), map(str, d)),
                        np.maximum(lv.astype(np.int64), 0).tolist()))

    def intents(collection) -> dict[tuple[str, str], tuple[str, float]]:
        exists = collection["intent_exists"].values | collection["intent_valid"].values
        t, i = np.nonzero(exists)
        return {(str(collection["topic"].values[a]), str(collection["intent"].values[b])):
                (str(collection["intent_type"].values[a, b]),
                 float(collection["intent_prob"].values[a, b])) for a, b in zip(t, i)}

    theirs, ours = judgments(trec), judgments(back)
    # judged for some intent in TREC = judged (at least level 0) for every intent in NTCIR
    assert {(t, d) for t, _, d in ours} == {(t, d) for t, _, d in theirs}
    assert {k: v for k, v in ours.items() if v > 0} == {k: v for k, v in theirs.items()
                                                        if v > 0}
    assert all(ours.get(k, 0) == v for k, v in theirs.items())
    assert intents(back) == intents(trec)
    assert back.attrs["renormalise"] == 0 and trec.attrs["renormalise"] == 1
    assert np.array_equal(back["judged"].values, trec["judged"].values)
    return len(theirs)


# ------------------------------------------------------------------ the tests


def _malformed(binary, year: Year, where: Path) -> int:
    """Damaged copies of a faceted topic's files, as ntcir_eval reads them; how many
    cases ntcir_eval refused or warned about."""
    where.mkdir()
    name = next(t for t in sorted(year.topics) if year.topics[t].irelv and
                not year.topics[t].din.read_bytes().startswith(b"0 "))
    topic = year.topics[name]
    rel = topic.rel.read_bytes().splitlines(keepends=True)
    grelv = topic.grelv.read_bytes().splitlines(keepends=True)
    din = topic.din.read_bytes().splitlines(keepends=True)
    res = b"".join(line.split()[0] + b"\n" for line in rel[:15])

    def put(file: str, lines: list[bytes]) -> str:
        (where / file).write_bytes(b"".join(lines))
        return str(where / file)

    short = put("short.rel", rel[:3] + [rel[3].split()[0] + b"\n"] + rel[4:])
    blank = put("blank.Grelv", grelv[:2] + [b"\n"] + grelv[2:])
    cases = [
        (["label", "-r", short], res),
        (["label", "-r", put("nolevel.rel", [rel[0].replace(b" L", b" M")] + rel[1:])], res),
        (["compute", "-r", str(topic.rel), "-g", _gains(topic.levels, 0)], res),
        (["glabel", "-I", blank], res),
        (["gcompute", "-I", blank], res),
        (["gcompute", "-I", put("one.Grelv", [grelv[0].split()[0] + b"\n"])], res),
        (["dinlabel", "-din", put("short.din", [din[0].rsplit(b" ", 1)[0] + b"\n"] + din[1:])],
         res),
        (["dinlabel", "-din", put("zero.din", [b"0" + din[0][din[0].index(b" "):]])], res),
        (["irec", str(where / "missing.res"), *map(str, topic.irelv)], b""),
        (["irec", put("run.res", [res]), put("bad.Irelv", [b"x\n\n"])], b""),
        (["label", "-r", str(topic.rel)], res + b"x" * 9000 + b"\n"),
        (["label", "-r", str(topic.rel)], res.rstrip(b"\n")),
    ]
    said = 0
    for args, stdin in cases:
        _, err, status = _same(binary, args, stdin)
        said += bool(err or status)
    # intent 0 beside the others: ntcir_eval writes before its array (undefined), which
    # xdiv refuses in one line (the Dqrels writer and reader refuse such qrels)
    zero = put("zero1.din", [b"0" + din[0][din[0].index(b" "):]] + din[1:])
    out, err, status = xdiv_outcome(["dinlabel", "-din", zero], res)
    assert (out, status) == (b"", 1) and err.count(b"\n") == 1 and b"intent number 0" in err
    return said


def test_one_year_agrees_with_ntcir_eval(ntcireval_folder, converted, tmp_path):
    """2014's qrels of six topics (three single-facet topics, judged under intent 0,
    three faceted ones), two synthetic runs: every subcommand, byte for byte; damaged
    files too; the converted files read back give the TREC judgments."""
    year = converted("2014", tuple(str(t) for t in range(251, 257)))
    binary = binary_runner(ntcireval_folder)
    runs = synthetic_runs(year, 2, "quick-2014")
    topics = sorted(year.topics)
    assert len(topics) == 6
    compared = check_messages(year, compare_year(binary, year, runs, topics,
                                                  tmp_path / "cmp"))
    assert set(compared) == {"label", "compute", "glabel", "gcompute", "dinlabel", "irec"}
    assert sum(compared.values()) >= 100, compared
    assert _malformed(binary, year, tmp_path / "bad") >= 10  # of 12
    assert check_round_trip(year) > 4000


@pytest.mark.slow
def test_every_year_agrees_with_ntcir_eval(ntcireval_folder, converted, tmp_path):
    """2010-2014, every topic, one synthetic run a year (the quick test takes two): every
    subcommand byte for byte, and each year's converted files read back."""
    binary = binary_runner(ntcireval_folder)
    total: dict[str, int] = {}
    for year_name in YEARS:
        start = time.perf_counter()
        year = converted(year_name)
        runs = synthetic_runs(year, 1, f"full-{year_name}")
        done = compare_year(binary, year, runs, sorted(year.topics), tmp_path / year_name)
        compared = check_messages(year, done)
        judgments = check_round_trip(year)
        for command, count in compared.items():
            total[command] = total.get(command, 0) + count
        print(year_name, len(year.topics), "topics", len(done), "comparisons",
              sum(compared.values()), "on topics with a relevant document", judgments,
              "judgments", f"{time.perf_counter() - start:.1f} s")
    print(total)
    assert set(total) == {"label", "compute", "glabel", "gcompute", "dinlabel", "irec"}
    assert total["label"] == sum(sum(1 for t in converted(y).topics.values()
                                         if t.relevant) for y in YEARS)


@pytest.mark.slow
@pytest.mark.parametrize("year_name, topics, adhoc", [
    ("2014", ["261", "269", "271"], False),  # two single-facet topics and a faceted one
    ("2010", ["66", "92"], True)])
def test_pipelines_agree_with_the_scripts(ntcireval_folder, converted, tmp_path, year_name,
                                          topics, adhoc):
    """NTCIREVAL's scripts (DIN-splitqrels, TRECsplitruns, D-NTCIR-eval, DIN-NTCIR-eval,
    D-NTCIR-IAeval, DIN-NTCIR-PQeval, NEV2mean, NEVIA2nev, NEVIAPQ2sharpnev and, with
    2010's binary adhoc qrels, NTCIRsplitqrels and NTCIR-eval) on a few topics of the
    year's converted files (those with the fewest relevant documents: the scripts start
    processes for each line) and two synthetic runs, at cutoff 20, against ``xdiv
    ntcireval D|DIN|IA|PQ|adhoc``: every file byte for byte."""
    year = converted(year_name, tuple(topics))
    prob, dqrels = year.dinprob, year.dqrels
    data = tmp_path / "data"
    data.mkdir()
    qrels = None
    if adhoc:  # the highest level over the intents, L1 (NTCIR-eval is called with -g 1:2)
        from xdiv.core.adhoc import to_adhoc
        from xdiv.io.ntcir import write_dqrels

        qrels = data / f"wt{year_name}.qrels"
        write_dqrels(qrels, to_adhoc(year.collection, "max"))
    runs = synthetic_runs(year, 2, f"pipelines-{year_name}")
    paths = []
    for run, ranked in runs.items():
        paths.append(data / run)
        write_trec_run(paths[-1], run, ranked)
    (data / "runl").write_text("".join(f"{p.name}\n" for p in paths))
    scripts, ours = _pipelines(prob, dqrels, qrels, paths, 20)
    written = _run_scripts(ntcireval_folder, tmp_path / "scripts",
                           [data / "runl", prob, dqrels, *([qrels] if qrels else []), *paths],
                           scripts)
    mine = _run_xdiv(tmp_path / "xdiv", ours)
    _compare(written, mine, len(paths))
