"""The last edge cases of ``xdiv ndeval`` and ``xdiv gdeval`` against the tools.

Oracles: TREC's ndeval 4.5, compiled from the C source that the pyndeval source
distribution holds (skipped when pip cannot fetch it or no C compiler is present), and,
built from the same source with only the risk-sensitive label changed, its 2013 release
(``run (rel to. base, rs=1+a, a=A)``, commas where the source has semicolons); the
gdeval.pl that ir_measures ships (run with perl; skipped when absent). That gdeval.pl is
a 2019 revision of gdeval 1.2 without ``-c``, ``-k`` (the depth is its third argument)
and ``-baseline``, and prints no mean line: its rows are compared. gdeval 1.3's
risk-sensitive behaviour (its label, its bug with ``-c -baseline``) is checked on a
hand-built example whose numbers are derived here from gdeval 1.3's behaviour, and
against gdeval 1.3 itself (the TREC 2013 Web Track release) on random cases when
``XDIV_GDEVAL_13`` names its gdeval.pl, which neither xdiv nor the package registry
distributes (skipped otherwise).

Each case runs both paths of the commands: plain files take the numpy path
(:mod:`xdiv.official.plain`); the same files with CRLF line ends, which both tools read
as the plain ones, take the general path (:mod:`xdiv.official.ndeval_tool.report`).
"""

from __future__ import annotations

import math
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

import xdiv
from xdiv.cli import main
from xdiv.official.layout import ToolRefusal
from xdiv.official.ndeval_tool.report import ndeval_report

from ..conftest import build_c_program, built_once

QRELS = "1 1 a 1\n1 2 b 1\n1 1 c 0\n1 2 d 1\n2 1 e 1\n2 2 f 1\n3 1 g 1\n"
"""Diversity qrels: topics 1-3, two subtopics."""


# ------------------------------------------------------------------ the tools

@pytest.fixture(scope="session")
def ndeval_tools(tmp_path_factory, ndeval_c, ndeval_program) -> dict[str, Path]:
    """ndeval 4.5 as distributed since June 2014 (``"2014"``: the source of pyndeval's
    source distribution, unchanged) and as released in 2013 (``"2013"``: the same source,
    the risk-sensitive label spelt with commas), each built once per session."""
    label_2014 = 'rwstr = "; rs=1+a; a=";'
    source = ndeval_c.read_text(encoding="latin-1")
    assert source.count(label_2014) == 1, "pyndeval's ndeval.c is not the June 2014 source"

    def build_2013(folder: Path) -> Path:
        (folder / "ndeval.c").write_text(source.replace(label_2014, 'rwstr = ", rs=1+a, a=";'),
                                         encoding="latin-1")
        # the program's name is what it prints before its messages
        return build_c_program(folder / "ndeval.c", folder / "bin" / "ndeval")

    return {"2014": ndeval_program, "2013": built_once(tmp_path_factory, "ndeval-2013",
                                                       build_2013)}


def _tool(*args) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], capture_output=True, text=True)


def _xdiv(capsys, *args) -> tuple[int, str, str]:
    """``xdiv`` run in this process: status, standard output and standard error."""
    capsys.readouterr()
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def _write(folder: Path, name: str, text: str) -> tuple[Path, Path]:
    """``text`` as a plain file and as the same file with CRLF line ends (not plain: the
    general path reads it; ndeval and gdeval.pl drop the CR)."""
    plain = folder / name
    plain.write_text(text)
    crlf = folder / f"{name}.crlf"
    crlf.write_bytes(text.replace("\n", "\r\n").encode())
    return plain, crlf


def _said(stderr: str, program: str) -> str:
    """A tool's one-line message without the program name it starts with."""
    line, = stderr.strip().splitlines()
    assert line.startswith(program + ": "), stderr
    return line[len(program) + 2:]


# ------------------------------------------------------------------ -M before duplicates

DUPLICATED = ("1 Q0 a 1 5 r\n1 Q0 b 2 4 r\n1 Q0 x 3 3 r\n1 Q0 a 4 2 r\n1 Q0 d 5 1 r\n"
              "2 Q0 e 1 2 r\n2 Q0 y 2 1 r\n2 Q0 e 3 0.5 r\n")
"""Topic 1 retrieves ``a`` at ranks 1 and 4, topic 2 ``e`` at ranks 1 and 3 (the rank
column agrees with the scores)."""


@pytest.mark.parametrize("order", [[], ["-traditional"]], ids=["rank", "traditional"])
@pytest.mark.parametrize("depth", [1, 2, 3, 4, 6])
def test_ndeval_cuts_at_M_before_it_looks_for_duplicates(order, depth, ndeval_program,
                                                         tmp_path, capsys):
    qrels = tmp_path / "q"
    qrels.write_text(QRELS)
    for run in _write(tmp_path, "dup", DUPLICATED):
        theirs = _tool(ndeval_program, *order, "-M", depth, qrels, run)
        status, out, err = _xdiv(capsys, "ndeval", *order, "-M", depth, qrels, run)
        if theirs.returncode == 0:  # the repeats lie below the cut: scored, byte for byte
            assert depth <= 2
            assert (status, out, err) == (0, theirs.stdout, "")
            continue
        # within the cut: ndeval stops (exit 1); xdiv refuses in one line (exit 2) that
        # says what ndeval says and suggests nothing the command does not take
        assert depth >= 3 and theirs.returncode == 1
        said = _said(theirs.stderr, "ndeval")
        assert said.startswith("duplicate docno (")
        line, = err.strip().splitlines()
        assert status == 2 and out == ""
        assert line.startswith(f"xdiv: error: {run}: a docno is retrieved more than once "
                               f"for a topic within the top {depth} (-M)")
        assert said.split(" in run file")[0] in line
        assert "--duplicates" not in line and "duplicates=" not in line


def test_a_baseline_with_duplicates_below_the_cut_is_scored(ndeval_program, tmp_path,
                                                             capsys):
    qrels = tmp_path / "q"
    qrels.write_text(QRELS)
    run = tmp_path / "run"
    run.write_text("1 Q0 b 1 3 s\n1 Q0 a 2 2 s\n2 Q0 f 1 1 s\n3 Q0 g 1 1 s\n")
    base, _ = _write(tmp_path, "base", DUPLICATED)
    for flags in (["-M", "2"], ["-c", "-M", "3"]):
        args = [*flags, "-baseline", base, "-riskAlpha", "1", qrels, run]
        theirs = _tool(ndeval_program, *args)
        status, out, err = _xdiv(capsys, "ndeval", *args)
        assert (status, out) == (theirs.returncode and 2, theirs.stdout)


@pytest.mark.parametrize("seed", range(6))
def test_random_runs_with_repeats_are_scored_or_refused_as_ndeval_does(seed, ndeval_program,
                                                                     tmp_path, capsys):
    rng = np.random.default_rng(seed)
    qrels = tmp_path / "q"
    qrels.write_text("".join(f"{t} {i} d{d} {int(rng.integers(0, 3))}\n" for t in range(1, 5)
                             for d in range(8) for i in (1, 2, 3) if rng.random() < 0.5))
    lines = []
    for topic in range(1, 6):
        docs = list(rng.choice(10, size=7, replace=False))
        docs.insert(int(rng.integers(2, 8)), docs[int(rng.integers(0, 2))])  # a repeat
        lines += [f"{topic} Q0 d{d} {k + 1} {rng.integers(0, 5)} r\n" for k, d in enumerate(docs)]
    runs = _write(tmp_path, "r", "".join(lines))
    for flags in (["-M", "2"], ["-M", "5"], ["-traditional", "-M", "3"], ["-c", "-M", "4"]):
        theirs = _tool(ndeval_program, *flags, qrels, runs[0])
        for run in runs:
            status, out, _ = _xdiv(capsys, "-q", "ndeval", *flags, qrels, run)
            assert (status, out) == ((0, theirs.stdout) if theirs.returncode == 0 else (2, ""))


def test_the_python_api_cuts_before_it_looks_for_duplicates(tmp_path):
    qrels = tmp_path / "q"
    qrels.write_text(QRELS)
    plain, crlf = _write(tmp_path, "dup", DUPLICATED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        cubes = [xdiv.official.ndeval(qrels, [run], depth=2) for run in (plain, crlf)]
        with pytest.raises(xdiv.InputError, match="more than once for a topic within the top 4"):
            xdiv.official.ndeval(qrels, [crlf], depth=4)
    assert cubes[0].identical(cubes[1])


# ------------------------------------------------------------------ duplicates in gdeval

def test_gdeval_reads_repeats_below_k_as_gdeval_and_refuses_them_within(gdeval_pl, tmp_path,
                                                                      capsys):
    """gdeval.pl counts a repeated document at each of its ranks: below the top k its
    output does not read them (the same rows as xdiv's); within, its nDCG exceeds 1,
    and xdiv refuses the run in one line that suggests only what the command takes."""
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 2\n1 0 b 1\n2 0 e 3\n")
    for run in _write(tmp_path, "dup", DUPLICATED):
        theirs = _tool("perl", gdeval_pl, qrels, run, 2)
        status, out, err = _xdiv(capsys, "gdeval", "-k", "2", qrels, run)
        assert status == 0 and out.splitlines()[:-1] == theirs.stdout.splitlines()
        theirs = _tool("perl", gdeval_pl, qrels, run, 4)
        assert float(theirs.stdout.splitlines()[1].split(",")[2]) > 1  # a counted twice
        status, out, err = _xdiv(capsys, "gdeval", "-k", "4", qrels, run)
        line, = err.strip().splitlines()
        assert status == 2 and out == ""
        assert line.startswith(f"xdiv: error: {run}: a docno is retrieved more than once for "
                               "a topic within the top 4 (-k): run r topic 1 docno a")
        assert "--duplicates" not in line


# ------------------------------------------------------------------ the risk label

RISK_RUN = "1 Q0 b 1 3 s\n1 Q0 a 2 2 s\n2 Q0 f 1 1 s\n3 Q0 x 1 1 s\n"
RISK_BASE = "1 Q0 a 1 3 base\n1 Q0 c 2 2 base\n2 Q0 e 1 1 base\n2 Q0 f 2 0 base\n"


@pytest.mark.parametrize("year", ["2013", "2014"])
def test_ndeval_risk_label_of_each_release(year, ndeval_tools, tmp_path, capsys):
    qrels = tmp_path / "q"
    qrels.write_text(QRELS)
    run = _write(tmp_path, "run", RISK_RUN)
    base = _write(tmp_path, "base", RISK_BASE)
    for flags in ([], ["-c"]):
        theirs = _tool(ndeval_tools[year], *flags, "-baseline", base[0], "-riskAlpha", "2.50",
                       qrels, run[0])
        separator = "," if year == "2013" else ";"
        assert f"s (rel to. base{separator} rs=1+a{separator} a=2.50)," in theirs.stdout
        for k in (0, 1):
            options = ["--risk-label", year] if year == "2013" or k else []  # 2014: default
            status, out, _ = _xdiv(capsys, "ndeval", *flags, *options, "-baseline", base[k],
                                   "-riskAlpha", "2.50", qrels, run[k])
            assert (status, out) == (0, theirs.stdout)


def test_gdeval_risk_label_of_each_release(tmp_path, capsys):
    """gdeval 1.3 prints ``run (rel to. base, rs=1+a, a=A)`` in its 2013 release and with
    semicolons in the release distributed from June 2014 (as ndeval 4.5; not run here:
    ir_measures' gdeval.pl has no -baseline)."""
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 2\n1 0 b 1\n2 0 e 3\n")
    run, base = tmp_path / "run", tmp_path / "base"
    run.write_text(RISK_RUN)
    base.write_text(RISK_BASE)
    labels = {None: "s (rel to. base; rs=1+a; a=5)", "2014": "s (rel to. base; rs=1+a; a=5)",
              "2013": "s (rel to. base, rs=1+a, a=5)"}
    for year, label in labels.items():
        options = [] if year is None else ["--risk-label", year]
        status, out, _ = _xdiv(capsys, "gdeval", *options, "-baseline", base, "-riskAlpha",
                               "5", qrels, run)
        assert status == 0
        assert [line.rsplit(",", 3)[0] for line in out.splitlines()[1:]] == [label] * 3


# ------------------------------------------------------------------ gdeval 1.3's baseline bug

def test_gdeval_baseline_bug_by_hand(tmp_path, capsys):
    """gdeval 1.3 with ``-c -baseline``: the topics the run did not retrieve are scored
    after the others, in topic order, each against the baseline values that its
    variables ``$baseNDCG`` and ``$baseERR`` hold; they are set only for a topic the
    baseline retrieved, so a topic neither run retrieved takes the values of the topic
    before it in that loop (0 before the first). Numbers derived here by hand from that
    description and gdeval's definitions; xdiv's default compares such a topic with 0.
    """
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n2 0 b 2\n3 0 c 1\n4 0 d 3\n5 0 e 1\n6 0 f 2\n")
    run, base = tmp_path / "run", tmp_path / "base"
    run.write_text("1 Q0 a 1 1 run\n4 Q0 d 1 1 run\n")  # topics 1 and 4
    # the baseline retrieves topic 1 (a, first), 2 (b second) and 5 (e first)
    base.write_text("1 Q0 a 1 1 base\n2 Q0 z 1 2 base\n2 Q0 b 2 1 base\n5 Q0 e 1 1 base\n")
    alpha = 1.0

    def ndcg(grade, rank):  # one relevant document of ``grade``, at ``rank``
        return ((2 ** grade - 1) / math.log2(rank + 1)) / (2 ** grade - 1)

    def err(grade, rank):
        return (2 ** grade - 1) / 16 / rank

    base_values = {1: (ndcg(1, 1), err(1, 1)), 2: (ndcg(2, 2), err(2, 2)),
                   5: (ndcg(1, 1), err(1, 1))}
    run_values = {1: (1.0, err(1, 1)), 4: (1.0, err(3, 1))}

    def risk(r, b):
        return tuple(x - y if x >= y else (1 + alpha) * (x - y) for x, y in zip(r, b))

    rows = {t: risk(run_values[t], base_values.get(t, (0.0, 0.0))) for t in (1, 4)}
    correct = dict(rows)
    for t in (2, 3, 5, 6):
        correct[t] = risk((0.0, 0.0), base_values.get(t, (0.0, 0.0)))
    buggy, carried = dict(rows), (0.0, 0.0)
    for t in (2, 3, 5, 6):  # the run's missing topics, in order
        carried = base_values.get(t, carried)
        buggy[t] = risk((0.0, 0.0), carried)
    assert buggy[3] == buggy[2] != correct[3] == (0.0, 0.0)  # 3 takes 2's baseline
    assert buggy[6] == buggy[5] != correct[6]
    label = "run (rel to. base; rs=1+a; a=1)"
    for bug, values in ((False, correct), (True, buggy)):
        options = ["--gdeval-baseline-bug"] if bug else []
        status, out, _ = _xdiv(capsys, "gdeval", "-c", *options, "-baseline", base,
                               "-riskAlpha", "1", qrels, run)
        order = [1, 4, 2, 3, 5, 6]  # the retrieved topics, then the others
        expected = [f"{label},{t},{values[t][0]:.5f},{values[t][1]:.5f}" for t in order]
        mean = np.sum([values[t] for t in order], axis=0) / 6
        expected.append(f"{label},amean,{mean[0]:.5f},{mean[1]:.5f}")
        assert status == 0 and out.splitlines()[1:] == expected
    # without -c there are no such rows, and the option changes nothing
    plain = _xdiv(capsys, "gdeval", "-baseline", base, "-riskAlpha", "1", qrels, run)
    assert _xdiv(capsys, "gdeval", "--gdeval-baseline-bug", "-baseline", base,
                 "-riskAlpha", "1", qrels, run) == plain


@pytest.fixture(scope="module")
def gdeval_13() -> list[str]:
    """gdeval 1.3, the TREC 2013 Web Track release, as ``perl PATH``: neither xdiv nor the
    package registry distributes it, so the tests that run it need ``XDIV_GDEVAL_13``
    set to its gdeval.pl (whose ``-v`` prints ``version 1.3``)."""
    import os

    path = os.environ.get("XDIV_GDEVAL_13")
    if not path:
        pytest.skip("set XDIV_GDEVAL_13 to gdeval 1.3's gdeval.pl to compare with it")
    if shutil.which("perl") is None:
        pytest.skip("perl is not installed")
    version = subprocess.run(["perl", path, "-v"], capture_output=True, text=True).stdout
    if "version 1.3 " not in version:
        pytest.fail(f"XDIV_GDEVAL_13={path} is not gdeval 1.3: {version.strip()}")
    return ["perl", path]


def _gdeval_case(seed: int) -> tuple[str, str, str]:
    """Adhoc qrels, a run and a baseline for gdeval 1.3: numeric topics, grades -2 to 4,
    ties in score, topics missing from either run."""
    rng = np.random.default_rng(seed)
    topics = [str(t) for t in sorted(rng.choice(np.arange(1, 12), size=rng.integers(2, 8),
                                                replace=False))]
    docs = [f"doc{k}" for k in range(12)]
    qrels = "".join(f"{t} 0 {d} {rng.choice([-2, 0, 0, 1, 2, 3, 4])}\n" for t in topics
                    for d in rng.choice(docs, size=rng.integers(1, 8), replace=False))

    def run(tag: str) -> str:
        lines = []
        for t in topics:
            if rng.random() < 0.3:
                continue  # a topic this run did not retrieve
            for rank, d in enumerate(rng.choice(docs, size=rng.integers(1, 10),
                                                replace=False), 1):
                lines.append(f"{t} Q0 {d} {rank} {rng.choice([1, 2, 2.5, 3])} {tag}\n")
        return "".join(lines) or f"{topics[0]} Q0 doc0 1 1 {tag}\n"

    return qrels, run("run"), run("base")


def test_gdeval_matches_gdeval_13(gdeval_13, tmp_path, capsys):
    """``xdiv gdeval --risk-label 2013 --gdeval-baseline-bug`` prints what gdeval 1.3
    prints on 40 random cases, with and without -c and a baseline, at several -k."""
    qrels, run, base = (tmp_path / name for name in ("q", "run", "base"))
    for seed in range(40):
        for path, text in zip((qrels, run, base), _gdeval_case(seed)):
            path.write_text(text)
        k = ["-k", str(1 + seed % 7)] if seed % 2 else []
        for flags in ([], ["-c"], ["-baseline", base, "-riskAlpha", "1.5"],
                      ["-c", "-baseline", base, "-riskAlpha", "0"],
                      ["-c", "-baseline", base, "-riskAlpha", "2"]):
            theirs = subprocess.run([*gdeval_13, *k, *map(str, flags), str(qrels), str(run)],
                                    capture_output=True, text=True)
            status, out, _ = _xdiv(capsys, "gdeval", "--risk-label", "2013",
                                   "--gdeval-baseline-bug", *k, *flags, qrels, run)
            assert (status, out) == (theirs.returncode, theirs.stdout), (seed, flags)


# ------------------------------------------------------------------ topic labels

PREFIXED_RUN = ("wt09-1 Q0 a 1 3 r\nwt09-1 Q0 b 2 2 r\n0002 Q0 e 1 1 r\n"
                "02 Q0 f 2 0.5 r\n3 Q0 x 1 1 r\n")
"""Topic 1 with a task prefix, topic 2 as ``0002`` and ``02`` (one topic to ndeval)."""


@pytest.mark.parametrize("flags", [[], ["-traditional", "-c"]], ids=["rank", "traditional-c"])
def test_ndeval_reads_topic_numbers(flags, ndeval_program, tmp_path, capsys):
    qrels = _write(tmp_path, "q", "0001 1 a 1\n0001 2 b 1\n2 1 e 1\n2 2 f 1\n03 1 g 1\n")
    runs = _write(tmp_path, "r", PREFIXED_RUN)
    theirs = _tool(ndeval_program, *flags, qrels[0], runs[0])
    assert theirs.returncode == 0 and ",2,0.5" in theirs.stdout  # one topic 2, e and f
    for q in qrels:
        for run in runs:
            assert _xdiv(capsys, "ndeval", *flags, q, run) == (0, theirs.stdout, "")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        cube = xdiv.official.ndeval(qrels[1], runs[1])
    assert list(cube["topic"].values) == ["1", "2", "3"]


def test_a_topic_ndeval_cannot_read_is_kept_with_a_warning(ndeval_program, tmp_path, capsys):
    qrels = tmp_path / "q"
    qrels.write_text(QRELS)
    run = tmp_path / "r"
    run.write_text("1 Q0 a 1 3 r\nt1 Q0 b 1 1 r\n")
    theirs = _tool(ndeval_program, qrels, run)
    assert theirs.returncode == 1
    assert _said(theirs.stderr, "ndeval") == f'syntax error in run file "{run}" at line 2'
    status, out, err = _xdiv(capsys, "ndeval", qrels, run)
    assert status == 0 and [line.split(",")[1] for line in out.splitlines()[1:]] == \
        ["1", "t1", "amean"]
    assert f"xdiv: warning: {run}: topic(s) t1: ndeval reads a topic number" in err


def test_gdeval_reads_topics_as_text_after_the_prefix(gdeval_pl, tmp_path, capsys):
    """gdeval.pl (1.2a, whose reading of topics 1.3 keeps) removes what precedes the last
    '-' in qrels and runs and matches the rest as text: ``0151`` is not ``151``."""
    qrels = _write(tmp_path, "q", "wt-1 0 a 2\nwt-1 0 b 1\n02 0 e 3\n3 0 g 1\n4 0 h 2\n")
    runs = _write(tmp_path, "r", "x-y-1 Q0 a 1 3 r\nx-y-1 Q0 b 2 2 r\n2 Q0 e 1 1 r\n"
                                 "3 Q0 g 1 1 r\nq-04 Q0 h 1 1 r\n5 Q0 z 1 1 r\n")
    theirs = _tool("perl", gdeval_pl, qrels[0], runs[0], 20)
    assert [line.split(",")[1] for line in theirs.stdout.splitlines()[1:]] == ["1", "3"]
    for q in qrels:
        for run in runs:
            status, out, _ = _xdiv(capsys, "gdeval", q, run)
            assert status == 0 and out.splitlines()[:-1] == theirs.stdout.splitlines()
    theirs = _tool("perl", gdeval_pl, qrels[0], runs[0], 1)
    status, out, _ = _xdiv(capsys, "gdeval", "-k", "1", qrels[1], runs[1])
    assert out.splitlines()[:-1] == theirs.stdout.splitlines()


# ------------------------------------------------------------------ a run without tags

UNTAGGED = "1 Q0 a 1 3\n1 Q0 b 2 2\n2 Q0 e 1 1\n"


def test_ndeval_refuses_a_run_without_tags_as_ndeval(ndeval_program, tmp_path, capsys):
    qrels = tmp_path / "q"
    qrels.write_text(QRELS)
    tagged = tmp_path / "tagged"
    tagged.write_text(RISK_RUN)
    for run in _write(tmp_path, "untagged", UNTAGGED):
        for args in ([qrels, run], ["-baseline", run, qrels, tagged], ["-M", "1", qrels, run]):
            theirs = _tool(ndeval_program, *args)
            status, out, err = _xdiv(capsys, "ndeval", *args)
            said = _said(theirs.stderr, "ndeval")
            assert said == f'syntax error in run file "{run}" at line 1'
            line, = err.strip().splitlines()
            assert (status, out) == (theirs.returncode, "") == (1, "")
            assert line.startswith(f"xdiv: error: {said} (5 fields where ndeval reads six")
    with pytest.raises(ToolRefusal, match="syntax error in run file") as caught:
        xdiv.official.ndeval(qrels, [tmp_path / "untagged"])
    assert caught.value.status == 1


def test_gdeval_refuses_a_run_without_tags_as_gdeval_pl(gdeval_pl, tmp_path, capsys):
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 2\n2 0 e 1\n")
    tagged = tmp_path / "tagged"
    tagged.write_text(RISK_RUN)
    for run in _write(tmp_path, "untagged", UNTAGGED):
        theirs = _tool("perl", gdeval_pl, qrels, run, 20)
        said = _said(theirs.stderr, str(gdeval_pl))
        assert said == f'format error on line 1 of "{run}"'
        for args in ([qrels, run], ["-baseline", run, qrels, tagged]):
            status, out, err = _xdiv(capsys, "gdeval", *args)
            line, = err.strip().splitlines()
            assert (status, out) == (theirs.returncode, "")
            assert line.startswith(f"xdiv: error: {said} (5 fields where gdeval reads six")


def test_evaluate_names_a_run_without_tags_after_its_file_everywhere(tmp_path, capsys):
    qrels = tmp_path / "q"
    qrels.write_text(QRELS)
    for run in _write(tmp_path, "untagged", UNTAGGED):
        name = run.name
        status, out, err = _xdiv(capsys, "evaluate", qrels, run, "-m", "alpha-nDCG@5",
                                 "--format", "ndeval")
        assert status == 0
        assert f"xdiv: warning: {run}: no run tag column; the run is named {name!r}" in err
        assert [line.split(",")[0] for line in out.splitlines()[1:]] == [name] * 3
        for fmt in ("tsv", "trec_eval"):
            status, out, _ = _xdiv(capsys, "-q", "evaluate", qrels, run, "-m", "alpha-nDCG@5",
                                   "--format", fmt, "--per-topic")
            assert status == 0 and name in out.split()
        cube = tmp_path / "scores.nc"
        _xdiv(capsys, "-q", "evaluate", qrels, run, "-m", "alpha-nDCG@5", "-o", cube)
        with xr.open_dataset(cube) as scores:
            assert scores["run"].values.tolist() == [name]
        # the official layout from Python names it as announced too
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", xdiv.XdivWarning)
            text = ndeval_report(xdiv.read_qrels(qrels), xdiv.read_runs([run]))
        assert {line.split(",")[0] for line in text.splitlines()[1:]} == {name}
