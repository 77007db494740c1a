"""``xdiv trec_eval`` prints what trec_eval prints, byte for byte: standard output, standard
error and exit status, against trec_eval 10.0 (and 9.0.8 with ``--version-9``) built from
the reference tarballs (tests/conftest.py: ``trec_eval_build``; skipped without them, make
or a C compiler).

The random cases are small and messy on purpose: score ties, docnos retrieved twice or
judged twice, topics only in the qrels or only in the run, negative and multi-level
grades, runs without any line for a topic, comments, blank lines, extra fields, odd
whitespace and number spellings. Each case is evaluated under several option sets by the
binary (a child process) and by :func:`xdiv.official.trec_eval.tool.trec_eval_run` (in
this process).
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from xdiv.cli.trec_eval import trec_eval_arguments, trec_eval_outcome
from xdiv.official.trec_eval.tool import (MEASURES, NICKNAMES, Outcome, supported_measures,
                                          trec_eval_run)
from xdiv.official.trec_eval.input import NotReproduced, c_atof, c_atol
from xdiv.official.trec_eval.lean import lean_run

STAGE_1 = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
           "bpref", "recip_rank", "iprec_at_recall", "P"]


# ------------------------------------------------------------------ random cases


def _score(rng: np.random.Generator, value: float) -> str:
    form = rng.integers(6)
    if form == 0:
        return f"{value:.0f}"
    if form == 1:
        return f"{value:.4f}"
    if form == 2:
        return f"{value:e}"
    if form == 3:
        return f"{value:.17g}"
    if form == 4:
        return f"{value:+.2f}"
    return repr(float(value))


def random_case(seed: int, *, version: int = 10, groups: bool = False) -> tuple[bytes, bytes]:
    """Qrels and run bytes of seed ``seed`` (``groups``: qrels_jg, the second field a
    judgment group)."""
    rng = np.random.default_rng(seed)
    pool = ["1", "2", "10", "301", "a", "B", "wt-3", "07"]
    q_topics = list(rng.choice(pool, size=rng.integers(1, 6), replace=False))
    r_topics = [t for t in q_topics if rng.random() < 0.85]
    r_topics += [t for t in pool if t not in q_topics and rng.random() < 0.2]
    if rng.random() < 0.05:
        r_topics = []
    docs = [f"d{k:02d}" for k in range(rng.integers(3, 25))] + ["D1", "x-9", "d1"]
    grades = [[0, 1], [0, 1, 2], [-2, -1, 0, 1, 2, 3], [0, 1, 2, 3, 4, 9, 12],
              [-1, 0, 1]][rng.integers(5)]
    sep = [" ", "\t", "  ", " \t "][rng.integers(4)] if rng.random() < 0.5 else " "
    lines = []
    for t in q_topics:
        judged = rng.choice(docs, size=rng.integers(1, len(docs)), replace=False)
        for d in judged:
            group = str(rng.choice(["0", "1", "jg2"])) if groups else str(rng.integers(0, 3))
            lines.append(sep.join([t, group, d, str(rng.choice(grades))]))
        if rng.random() < 0.04:  # a docno judged twice
            lines.append(sep.join([t, "0", str(judged[0]), "1"]))
        if all(int(line.split()[-1]) <= -2 for line in lines if line.split()[0] == t):
            lines.append(sep.join([t, "0", "zz", str(rng.integers(0, 2))]))
    order = rng.permutation(len(lines)) if rng.random() < 0.5 else np.arange(len(lines))
    qrels = [lines[k] for k in order]
    if version >= 10 and rng.random() < 0.15:
        qrels.insert(int(rng.integers(0, len(qrels))), "# a comment line")
    qrels_text = "\n".join(qrels) + ("\n" if rng.random() < 0.9 else "")

    run = []
    tag = ["run1", "R-2", "tag"][rng.integers(3)]
    values = [[1.0, 2.0, 3.0], [0.5, 0.25, -1.0, 0.0], list(range(40))][rng.integers(3)]
    for t in r_topics:
        n = int(rng.integers(0, len(docs) + 3))
        chosen = list(rng.choice(docs + ["u1", "u2", "u3"], size=min(n, len(docs) + 3),
                                 replace=False))
        if rng.random() < 0.06 and chosen:  # a docno retrieved twice
            chosen.append(chosen[0])
        for k, d in enumerate(chosen):
            score = float(rng.choice(values)) if rng.random() < 0.7 else float(
                rng.normal() * 10)
            fields = [t, "Q0", d, str(k + 1), _score(rng, score), tag]
            if rng.random() < 0.03:
                fields.append("extra")
            run.append(sep.join(fields))
    if rng.random() < 0.5:
        run = [run[k] for k in rng.permutation(len(run))]
    if run and rng.random() < 0.1:
        run.insert(int(rng.integers(0, len(run))), "")
    if version >= 10 and run and rng.random() < 0.1:
        run.insert(int(rng.integers(0, len(run))), "  # comment")
    run_text = "\n".join(run) + ("\n" if run else "")
    return qrels_text.encode(), run_text.encode()


PARAMETERS = [["-m", "ndcg.1=3,2=9,4=4.5"], ["-m", "rbp.p=0.5"], ["-m", "utility.2,-1,0,0"],
              ["-m", "11pt_avg..25,.5,.75"], ["-m", "11pt_avg.0.9,0.2,.5"],
              ["-m", "Rprec_mult.0.5,1.5,3"], ["-m", "relstring.5"], ["-m", "G.0=1,2=5"],
              ["-m", "ndcg_rel.1=0.5,3=2"], ["-m", "Rndcg.2=1,1=3"], ["-m", "success.1,3"],
              ["-m", "map_cut.2,4"], ["-m", "ndcg_cut.3,7,23.4"], ["-m", "set_F.0.5"],
              ["-m", "unj.3,8"], ["-m", "rbp.p=0.8,1=-1,2=0.5"], ["-m", "ndcg.0=1,-1=2"],
              ["-m", "G.1=0.5,2=0.5"], ["-m", "Rndcg.1=-1"], ["-m", "ndcg_rel.2=0"],
              ["-m", "dcg"], ["-m", "ideal_dcg.1=2"], ["-m", "yaap"], ["-m", "utility.1,2"],
              ["-m", "rbp_resid.p=0.7"], ["-m", "relative_P.2,30"], ["-m", "recall.1,4"]]


def random_options(seed: int, measures: list[str]) -> list[list[str]]:
    """A few trec_eval option sets for seed ``seed``, every one with ``-q``."""
    rng = np.random.default_rng(seed + 10_000)
    named = sum((["-m", m] for m in measures), [])
    sets = [["-q", *named], ["-q", "-c", *named]]
    extra = [["-M", str(rng.integers(0, 8))], ["-J"], ["-l", str(rng.integers(0, 4))],
             ["-n"], ["-m", f"P.{rng.integers(1, 6)},{rng.integers(6, 30)}"],
             ["-m", "iprec_at_recall..25,.5,0.125,1.5,-.5"], ["-c", "-J"], ["-N", "50"]]
    picks = rng.choice(len(extra), size=3, replace=False)
    for k in picks:
        sets.append(["-q", *extra[k], *named])
    if "all_trec" in measures:
        picks = rng.choice(len(PARAMETERS), size=3, replace=False)
        for k in picks:
            sets.append(["-q", *(["-c"] if rng.random() < 0.5 else []), *PARAMETERS[k]])
    return sets


# ------------------------------------------------------------------ running both


def _binary(binary: Path, args: list[str], stdin: bytes | None = None):
    proc = subprocess.run([str(binary), *args], capture_output=True, input=stdin)
    return proc.stdout, proc.stderr, proc.returncode


def _ours(args: list[str], version: int):
    """What ``xdiv trec_eval ARGS`` writes and returns, computed in this process by the
    full program."""
    parsed = trec_eval_arguments([*(["--version-9"] if version < 10 else []), *args])
    if isinstance(parsed, Outcome):
        return parsed  # the command stops before reading the files
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the command would print a warning trec_eval does not
        outcome = trec_eval_run(*parsed)
    return outcome.stdout, outcome.stderr, outcome.status


def _compare(binary: Path, args: list[str], version: int = 10) -> str:
    """``"same"``, or ``"refused"`` when xdiv refuses an input on which the binary
    crashes; fails the test when the two differ."""
    theirs = _binary(binary, args)
    try:
        ours = _ours(args, version)
    except NotReproduced as exc:
        undefined = any(word in str(exc) for word in ("uninitialised", "reads past"))
        assert theirs[2] < 0 or undefined, (f"xdiv refused ({exc}) what trec_eval "
                                            f"evaluates: {' '.join(args)}")
        return "refused"
    assert ours[1] == theirs[1], f"stderr of {' '.join(args)}"
    assert ours[2] == theirs[2], f"status of {' '.join(args)}"
    assert ours[0] == theirs[0], f"stdout of {' '.join(args)}"
    return "same"


READERS = ("read_trec_qrels", "read_trec_qrels_jg", "read_trec_prefs", "read_trec_results",
           "read_trec_zscores")
"""xdiv's readers of trec_eval's files, as the full program calls them."""


def read_once(monkeypatch) -> None:
    """The full program's readers made to read the same bytes once: a random case is
    evaluated under several option sets, and what a file reads as depends on its bytes and
    the reader's keywords (the version, qrels_prefs), not on the other options. A file that
    stops trec_eval is read anew each time; the arrays read are made read-only, so that a
    computation that writes into them fails (issue 35 item 18: the test's CPU)."""
    from xdiv.official.trec_eval import tool

    for name in READERS:
        monkeypatch.setattr(tool, name, _reading_once(getattr(tool, name)))


def _reading_once(reader):
    last: dict = {}

    def read(path: str, **keywords):
        key = (path, tuple(sorted(keywords.items())))
        try:
            data = Path(path).read_bytes()
        except OSError:
            return reader(path, **keywords)  # the reader says what trec_eval says
        if key not in last or last[key][0] != data:
            last[key] = (data, _read_only(reader(path, **keywords)))
        return last[key][1]

    return read


def _read_only(value):
    """``value`` (a reader's named tuple) with its arrays, nested ones too, read-only."""
    for field in value:
        if isinstance(field, np.ndarray):
            field.setflags(write=False)
        elif isinstance(field, tuple):
            _read_only(field)
    return value


@pytest.fixture(scope="module")
def trec_eval_10(trec_eval_build):
    return trec_eval_build("10.0")


@pytest.fixture(scope="module")
def trec_eval_9(trec_eval_build):
    return trec_eval_build("9.0.8")


def _write(folder: Path, qrels: bytes, run: bytes) -> tuple[str, str]:
    (folder / "qrels").write_bytes(qrels)
    (folder / "run").write_bytes(run)
    return str(folder / "qrels"), str(folder / "run")


# ------------------------------------------------------------------ the tests


def test_the_measure_table_is_trec_evals():
    assert len(MEASURES) == 57
    assert NICKNAMES["official"] == tuple(STAGE_1)
    assert set(STAGE_1) <= set(supported_measures())


@pytest.mark.parametrize("token,value", [
    (b"12", 12), (b"-3", -3), (b"+4", 4), (b"1.9", 1), (b"abc", 0), (b"0x10", 0),
    (b"99999999999999999999", 2 ** 63 - 1), (b"-99999999999999999999", -(2 ** 63)),
    (b"7up", 7), (b"-", 0)])
def test_atol(token, value):
    assert c_atol(token) == value


@pytest.mark.parametrize("token,value", [
    (b"1.5", 1.5), (b"1e3", 1000.0), (b"0x10", 16.0), (b"0x1.8p1", 3.0), (b"inf", np.inf),
    (b"-Infinity", -np.inf), (b"1e999", np.inf), (b"abc", 0.0), (b"1.5e", 1.5), (b".5x", 0.5),
    (b"-0", -0.0), (b"0x", 0.0), (b"1e-400", 0.0), (b"+.e1", 0.0)])
def test_atof(token, value):
    assert c_atof(token) == value


def test_random_cases_all_trec(trec_eval_10, tmp_path, monkeypatch):
    """200 random cases, each under eight option sets: ``-m all_trec`` with and without
    ``-c``, with ``-M``, ``-J``, ``-l``, ``-n``, ``-N``, P and iprec_at_recall parameters,
    and three measures with parameters (gains of ndcg, G, rbp, ...)."""
    read_once(monkeypatch)
    counts = {"same": 0, "refused": 0}
    for seed in range(200):
        qrels, run = random_case(seed)
        q, r = _write(tmp_path, qrels, run)
        for args in random_options(seed, ["all_trec"]):
            counts[_compare(trec_eval_10, [*args, q, r])] += 1
    assert counts["same"] >= 1500, counts


def test_random_cases_version_9(trec_eval_9, tmp_path, monkeypatch):
    """--version-9 against trec_eval 9.0.8: the same 200 cases (without the comment
    lines 9.0.8 reads as data) under the same option sets."""
    read_once(monkeypatch)
    counts = {"same": 0, "refused": 0}
    for seed in range(200):
        qrels, run = random_case(seed, version=9)
        q, r = _write(tmp_path, qrels, run)
        for args in random_options(seed, ["all_trec"]):
            counts[_compare(trec_eval_9, [*args, q, r], version=9)] += 1
    assert counts["same"] >= 1500, counts


def test_random_cases_judgment_groups(trec_eval_10, tmp_path, monkeypatch):
    """-R qrels_jg: the *_avgjg measures, and the messages of measures that read the
    other format."""
    read_once(monkeypatch)
    counts = {"same": 0, "refused": 0}
    for seed in range(80):
        qrels, run = random_case(seed, groups=True)
        q, r = _write(tmp_path, qrels, run)
        for extra in (["-m", "qrels_jg"], ["-c", "-m", "qrels_jg", "-m", "P_avgjg.3,8"],
                      ["-J", "-m", "qrels_jg", "-M", "4"], ["-l", "2", "-m", "qrels_jg"],
                      ["-m", "Rprec_mult_avgjg.0.5,1,3", "-m", "num_q"],
                      ["-m", "map", "-m", "qrels_jg"]):
            counts[_compare(trec_eval_10, ["-q", "-R", "qrels_jg", *extra, q, r])] += 1
        counts[_compare(trec_eval_10, ["-q", "-m", "map_avgjg", "-m", "P.2", q, r])] += 1
    assert counts["same"] >= 400, counts


def random_prefs(seed: int, *, version: int = 10) -> bytes:
    """A preferences file (qid jg jsg docno level): judgment groups with one or several
    subgroups, levels with ties, 0, fractions and (rarely) negatives, docnos in several
    subgroups, comment lines (10.0)."""
    rng = np.random.default_rng(seed + 30_000)
    docs = [f"d{k:02d}" for k in range(rng.integers(3, 25))] + ["D1", "x-9", "d1"]
    levels = [[0.0, 1.0, 2.0], [0.0, 0.5, 3.0, 3.0], [1.0, 2.0, 0.0, -1.0], [0.0, 1.0]][
        rng.integers(4)]
    lines = []
    for topic in rng.choice(["1", "2", "10", "301", "a", "B"], size=rng.integers(1, 5),
                            replace=False):
        for jg in range(rng.integers(1, 4)):
            subgroups = 1 if rng.random() < 0.5 else int(rng.integers(2, 4))
            members = list(rng.choice(docs, size=rng.integers(1, 6), replace=False))
            for sub in range(subgroups):
                chosen = members if subgroups == 1 else list(
                    rng.choice(members, size=min(len(members), int(rng.integers(1, 4))),
                               replace=False))
                ordering = rng.permutation(len(levels))
                for k, doc in enumerate(chosen):
                    # in a multi-subgroup group, keep one order of the documents
                    level = float(levels[int(ordering[k % len(levels)])]) if \
                        subgroups == 1 else float(len(members) - members.index(doc))
                    lines.append(f"{topic} jg{jg} s{sub} {doc} {level:g}")
    if rng.random() < 0.3 and lines:
        lines.append(lines[int(rng.integers(len(lines)))])  # a line twice
    lines = [lines[k] for k in rng.permutation(len(lines))]
    if version >= 10 and rng.random() < 0.2:
        lines.insert(int(rng.integers(0, len(lines))), "# comment")
    return ("\n".join(lines) + "\n").encode()


def test_random_cases_preferences(trec_eval_10, trec_eval_9, tmp_path, monkeypatch):
    """-R prefs and -R qrels_prefs: every preference measure, against both versions."""
    read_once(monkeypatch)
    counts = {"same": 0, "refused": 0}
    for seed in range(60):
        for version, binary in ((10, trec_eval_10), (9, trec_eval_9)):
            qrels, run = random_case(seed, version=version)
            q, r = _write(tmp_path, qrels, run)
            (tmp_path / "prefs").write_bytes(random_prefs(seed, version=version))
            p = str(tmp_path / "prefs")
            for args in (["-R", "prefs", "-m", "all_prefs", p, r],
                         ["-R", "prefs", "-c", "-M", "5", "-m", "all_prefs", p, r],
                         ["-R", "qrels_prefs", "-m", "all_prefs", q, r],
                         ["-R", "qrels_prefs", "-c", "-m", "all_prefs", "-m", "map", q, r],
                         ["-m", "prefs_pair", "-m", "P.2", q, r]):
                counts[_compare(binary, ["-q", *args], version=version)] += 1
    assert counts["same"] >= 500, counts


def random_zscores(seed: int) -> bytes:
    """A -Z file: means and deviations (some 0) of some measures of some topics; every
    qid has a measure named after all others, and a qid sorts after all others, so that
    trec_eval's binary searches stay inside their arrays."""
    rng = np.random.default_rng(seed + 20_000)
    names = ["num_ret", "num_rel", "map", "P_5", "P_10", "ndcg", "bpref", "gm_map", "num_q",
             "relstring", "iprec_at_recall_0.00", "recip_rank", "Rprec", "unj_5"]
    lines = []
    for qid in ["1", "2", "10", "301", "a", "B", "wt-3", "07", "zzzz"]:
        if rng.random() < 0.3:
            continue
        for name in rng.choice(names, size=rng.integers(1, len(names)), replace=False):
            mean = float(rng.choice([0.0, 0.5, 1.0, 3.0]))
            stddev = float(rng.choice([0.0, 0.25, 1.5]))
            lines.append(f"{qid} {name} {mean} {stddev}")
        lines.append(f"{qid} zzz 0 1")
    rng.shuffle(lines)
    return ("\n".join(lines) + "\n").encode()


def test_random_cases_zscores(trec_eval_10, tmp_path, monkeypatch):
    read_once(monkeypatch)
    counts = {"same": 0, "refused": 0}
    for seed in range(60):
        qrels, run = random_case(seed)
        q, r = _write(tmp_path, qrels, run)
        (tmp_path / "z").write_bytes(random_zscores(seed))
        for extra in (["-m", "all_trec"], ["-c", "-m", "official"], ["-n", "-m", "P.3"]):
            counts[_compare(trec_eval_10, ["-q", "-Z", str(tmp_path / "z"), *extra, q, r])] += 1
    assert counts["same"] >= 150, counts


def test_the_2009_run_is_the_same(trec_eval_10, tmp_path):
    """A whole TREC 2009 run against adhoc qrels (a document's highest level)."""
    from tests.conftest import require_trec_2009
    import gzip

    root = require_trec_2009()
    best: dict = {}
    with gzip.open(root / "qrels.diversity.gz", "rt") as handle:
        for line in handle:
            topic, _, docno, level = line.split()
            key = (topic, docno)
            best[key] = max(best.get(key, -99), int(level))
    (tmp_path / "qrels").write_text("".join(f"{t} 0 {d} {v}\n" for (t, d), v in best.items()))
    with gzip.open(root / "runs" / "MSRABASE.gz", "rb") as handle:
        (tmp_path / "run").write_bytes(handle.read())
    q, r = str(tmp_path / "qrels"), str(tmp_path / "run")
    for args in (["-q"], ["-q", "-c", "-M", "100"], ["-q", "-J", "-l", "2"],
                 ["-m", "P.1,2,3,1000,5000", "-m", "iprec_at_recall..05,.15"]):
        assert _compare(trec_eval_10, [*args, q, r]) == "same"


MALFORMED = [
    (b"1 0 a\n", b"1 Q0 a 1 1 r\n"),
    (b"1 0 a 1 x\n", b"1 Q0 a 1 1 r\n"),
    (b"1 0 a 1\n\n1 0 b 1\n", b"1 Q0 a 1 1 r\n"),
    (b"# c\n# d\n1 0 a 1\n", b"1 Q0 a 1 1 r\n"),
    (b"# c\n# d e f\n1 0 a 1\n", b"1 Q0 a 1 1 r\n"),
    (b"1 0 a 1\n", b"1 Q0 a 1 1\n"),
    (b"1 0 a 1\n", b"\n  \n1 Q0 a 1 1 r\n# c\n1 Q0 b 2\n"),
    (b"1 0 a 1\r\n1 0 b 0\r\n", b"1 Q0 a 1 1 r\r\n1\tQ0\tb 2 0.5 r extra fields\n"),
    (b"1 0 a 1\n", b"1 Q0 a 1 1 r\n1 Q0 a 2 0 r\n"),
    (b"1 0 a 1\n1 0 a 2\n", b"1 Q0 a 1 1 r\n"),
    (b"1 0 a 1\n2 0 b 1\n", b"1 Q0 a 1 1 r\n"),
    (b"2 0 a 1\n1 0 b 1\n", b"2 Q0 a 1 1 r\n"),
    (b"1 0 a 1\n", b""),
    (b"", b"1 Q0 a 1 1 r\n"),
    (b"1 0 a 1\n", b"# only a comment\n"),
    (b"1 0 a 1\n", b"1 Q0 a 1 nan r\n1 Q0 b 2 1 r\n1 Q0 c 2 nan r\n1 Q0 d 2 2 r\n"),
    (b"1 0 a 1\n", b"1 Q0 a 1 0x1p-2 r\n1 Q0 b 2 .25 r\n1 Q0 c 3 -inf r\n"),
]


def _glibc_merge_sorts() -> bool:
    """Whether this C library's qsort is glibc's merge sort (before 2.37), whose order of
    NaN scores xdiv reproduces."""
    version = os.confstr("CS_GNU_LIBC_VERSION") if hasattr(os, "confstr") else ""
    try:
        major, minor = (int(x) for x in (version or "").split()[-1].split(".")[:2])
    except (ValueError, IndexError):
        return False
    return (major, minor) < (2, 37)


@pytest.mark.parametrize("case", range(len(MALFORMED)))
@pytest.mark.parametrize("options", [[], ["-q", "-c"], ["-m", "runid", "-m", "num_q"],
                                     ["-M1", "-q"]], ids=str)
def test_messages_and_statuses(trec_eval_10, trec_eval_9, tmp_path, case, options):
    qrels, run = MALFORMED[case]
    if b"nan" in run and not _glibc_merge_sorts():
        pytest.skip("NaN scores are ordered as glibc's merge sort (before 2.37) orders them")
    q, r = _write(tmp_path, qrels, run)
    _compare(trec_eval_10, [*options, q, r])
    _compare(trec_eval_9, [*options, q, r], version=9)


@pytest.mark.parametrize("args", [
    ["-m", "P."], ["-m", "nosuch"], ["-m", "rbp"], ["-Z", "missing"], ["-m", "P.0,5"], ["-m", "P.5,5"], ["-m", "P.5,"],
    ["-m", "iprec_at_recall.0.5,.5"], ["-R", "nosuch"], ["-T", "nosuch"],
    ["-m", "P.7,3", "-m", "P.4"], ["-m", "map.5"], ["-m", "official.3"],
    ["-miprec_at_recall.1234.5,-0.125"], ["-q", "-m", "num_q", "-m", "runid"],
    ["-q", "-m", "iprec_at_recall.inf,-inf,1e300,-1e300"], ["-q", "-m", "Rprec_mult.1e300"],
    ["-q", "-m", "11pt_avg.inf,0.5"]], ids=str)
def test_option_errors_and_parameters(trec_eval_10, trec_eval_9, tmp_path, args):
    q, r = _write(tmp_path, b"1 0 a 1\n1 0 b 0\n", b"1 Q0 a 1 1 r\n1 Q0 b 2 2 r\n")
    _compare(trec_eval_10, [*args, q, r])
    _compare(trec_eval_9, [*args, q, r], version=9)


def test_refusals_say_so(tmp_path, capsys):
    """What is not reproduced is one line on standard error and status 1."""
    from xdiv.cli import main

    assert supported_measures() == [m.name for m in MEASURES]
    q, r = _write(tmp_path, b"1 0 a 1\n# a last comment\n", b"1 Q0 a 1 1 r\n")
    for args in (["-D", "1", q, r], ["-l", "-1", q, r], ["-M", "-1", q, r], [q, r]):
        assert main(["trec_eval", *args]) == 1
        err = capsys.readouterr().err
        assert err.startswith("xdiv trec_eval: ") and err.endswith(
            " (run trec_eval itself)\n") and err.count("\n") == 1


def test_standard_input_and_the_command_line(trec_eval_10, tmp_path):
    qrels, run = random_case(3)
    q, r = _write(tmp_path, qrels, run)
    for args in (["-q", q, "-"], ["-q", "-c", "-mP.2", q, "-"], ["-v", q, r]):
        theirs = _binary(trec_eval_10, args, stdin=run)
        proc = subprocess.run([sys.executable, "-m", "xdiv.cli", "trec_eval", *args],
                              capture_output=True, input=run)
        assert (proc.stdout, proc.stderr, proc.returncode) == theirs


def _quicktest_lines(source: Path) -> list[tuple[list[str], str]]:
    """The ``./trec_eval ARGS | diff - EXPECTED`` lines of the Makefile's quicktest."""
    import shlex

    lines, inside = [], False
    for line in (source / "Makefile").read_text().splitlines():
        if line.startswith("quicktest:"):
            inside = True
            continue
        if inside and not line.startswith("\t"):
            break
        if inside and line.strip().startswith("./trec_eval"):
            command, expected = line.strip().split("| diff - ")
            lines.append((shlex.split(command)[1:], expected.strip()))
    return lines


@pytest.mark.parametrize("version", [10, 9])
def test_quicktest(trec_eval_build, monkeypatch, version):
    """The Makefile's ``make quicktest`` of trec_eval 10.0 (and of 9.0.8, with
    ``--version-9``), xdiv in place of ./trec_eval: every diff is empty."""
    source = trec_eval_build("10.0" if version == 10 else "9.0.8").parent
    monkeypatch.chdir(source)
    lines = _quicktest_lines(source)
    assert len(lines) == (15 if version == 10 else 11)
    for args, expected in lines:
        parsed = trec_eval_arguments([*(["--version-9"] if version < 10 else []), *args])
        full = _ours(args, version)  # the full program alone
        assert full == ((source / expected).read_bytes(), b"", 0), args
        # as the command evaluates them: the lean path first, then the full program (the
        # outcome just checked, not computed twice, when the lean path declines)
        if lean_run(*parsed) is not None:
            outcome = trec_eval_outcome(*parsed)
            assert (outcome.stdout, outcome.stderr, outcome.status) == full, args
