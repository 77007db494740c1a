"""``xdiv trec_eval``'s command line read as trec_eval reads its own (glibc's
``getopt_long``, C's ``atol`` and ``atof``), and files holding NUL bytes (gzip files) read
as trec_eval reads them: compared byte for byte with trec_eval 10.0 built from the
reference tarball (tests/conftest.py: ``trec_eval_build``; skipped without it).

trec_eval's usage text after a bad option or a wrong number of file names is its
authors' prose, which xdiv does not repeat: there xdiv prints the same getopt line, its
own usage, nothing on standard output and the same status (1).
"""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest

from xdiv.cli.trec_eval import trec_eval_arguments, trec_eval_command
from xdiv.official.trec_eval.lean import lean_run
from xdiv.official.trec_eval.tool import Outcome, trec_eval_run
from xdiv.official.trec_eval.text import NotReproduced, c_atof, c_atol

QRELS = b"1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 a 1\n2 0 d 1\n"
RUN = (b"1 Q0 a 1 1.5 r\n1 Q0 b 2 2 r\n1 Q0 c 3 0.5 r\n1 Q0 e 4 0.25 r\n"
       b"2 Q0 d 1 3 r\n2 Q0 a 2 1 r\n2 Q0 b 3 0.5 r\n")


@pytest.fixture(scope="module")
def trec_eval_10(trec_eval_build):
    return trec_eval_build("10.0")


def binary_outcome(binary: Path, args: list[str], cwd: Path | None = None) -> Outcome:
    """What the binary writes and its status, run as ``trec_eval`` (its getopt messages
    start with its ``argv[0]``)."""
    proc = subprocess.run(["trec_eval", *args], executable=str(binary), capture_output=True,
                          cwd=cwd, timeout=60)
    return Outcome(proc.stdout, proc.stderr, proc.returncode)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_bytes(QRELS)
    (tmp_path / "run").write_bytes(RUN)
    return str(tmp_path / "qrels"), str(tmp_path / "run")


# ------------------------------------------------------------------ numbers with blanks


@pytest.mark.parametrize("token,value", [(b" 2", 2), (b"\t-3", -3), (b" \n\v\f\r+4x", 4),
                                         (b"+ 4", 0), (b" ", 0)])
def test_atol_skips_leading_whitespace(token, value):
    assert c_atol(token) == value


@pytest.mark.parametrize("token,value", [(b" 2.5", 2.5), (b"\t.5", 0.5), (b" 0x10", 16.0),
                                         (b" -inf", -float("inf")), (b"- 1", 0.0)])
def test_atof_skips_leading_whitespace(token, value):
    assert c_atof(token) == value


@pytest.mark.parametrize("args", [
    ["-M", " 2"], ["-M", "\t1"], ["-l", " 2"], ["-l", "  0"], ["-m", "P.1, 2"],
    ["-m", "P. 3,\t1"], ["-m", "recall. 2"], ["-m", "ndcg_cut.1, 3"],
    ["-m", "iprec_at_recall. .5, 1"], ["-m", "utility. 2, -1,0, 0"],
    ["-N", " 10", "-m", "utility"], ["-m", "set_F. 0.5"], ["-m", "rbp.p= 0.5"],
    ["-m", "success. 1"], ["-c", "-M", " 1", "-m", "map"]], ids=str)
def test_option_numbers_with_leading_blanks(trec_eval_10, files, args):
    """Both ways xdiv evaluates (the numpy-free path, when it answers, and the full
    program) print the binary's bytes."""
    args = ["-q", *args, *files]
    theirs = binary_outcome(trec_eval_10, args)
    assert theirs.status == 0 and theirs.stdout, theirs.stderr
    assert trec_eval_command(args) == theirs
    qrels, results, options = trec_eval_arguments(args)
    assert trec_eval_run(qrels, results, options) == theirs
    lean = lean_run(qrels, results, options)
    assert lean is None or lean == theirs


# ------------------------------------------------------------------ command lines


@pytest.mark.parametrize("args", [
    ["-v"], ["--version"], ["--vers"], ["-qv"], ["-v", "-m", "nonsense"], ["-v", "-x"],
    ["-m", "nonsense"], ["-m", "nonsense", "-v"], ["-m", "nonsense", "-x"], ["-m", "P."],
    ["-mnonsense", "a"], ["--measure=nonsense"], ["--me", "P.", "a"],
    ["-m", "dcg", "--version-9"], ["-m", "P.5", "-q", "-c", "-v"]], ids=str)
def test_version_and_illegal_measures_without_files(trec_eval_10, trec_eval_build, args):
    """trec_eval acts on its options in order, before it looks at the file names."""
    if "--version-9" in args:
        binary = trec_eval_build("9.0.8")
        theirs = binary_outcome(binary, [a for a in args if a != "--version-9"])
    else:
        theirs = binary_outcome(trec_eval_10, args)
    assert trec_eval_command(args) == theirs


@pytest.fixture(scope="module")
def usages(trec_eval_10):
    """trec_eval's usage text and xdiv's, each as its program prints it without
    arguments."""
    theirs = binary_outcome(trec_eval_10, [])
    ours = trec_eval_command([])
    assert theirs.status == ours.status == 1 and not theirs.stdout and not ours.stdout
    assert ours.stderr.startswith(b"usage: xdiv trec_eval ")
    return theirs.stderr, ours.stderr


@pytest.mark.parametrize("args", [
    [], ["-x"], ["--nosuch"], ["--nosuch=3"], ["-M"], ["-qM"], ["--measure"], ["--Re"],
    ["--Re=x"], ["--=x"], ["--vers=2"], ["--q=1"], ["-q-"], ["-:"], ["-W", "foo"],
    ["--Output_old_results_format"], ["--O"], ["-\u00e9"], ["--\u00e9"], ["only-one"],
    ["a", "b", "c"], ["--", "-q"], ["-"], ["-x", "-v"], ["-x", "-m", "nonsense"],
    ["-q", "--help=3"], ["-D"], ["a", "b", "-c", "-Z"], ["-m", "official.3"]], ids=str)
def test_usage_errors(trec_eval_10, usages, args):
    """getopt's line, byte for byte, then the usage (trec_eval's, or xdiv's in its
    place), nothing on standard output, status 1."""
    theirs = binary_outcome(trec_eval_10, args)
    ours = trec_eval_command(args)
    assert theirs.status == ours.status == 1
    assert theirs.stdout == ours.stdout == b""
    assert theirs.stderr.endswith(usages[0]) and ours.stderr.endswith(usages[1])
    assert theirs.stderr[:-len(usages[0])] == ours.stderr[:-len(usages[1])]


@pytest.mark.parametrize("args", [
    ["-q", "QRELS", "RUN", "-m", "map"], ["QRELS", "-c", "RUN"], ["-q", "--", "QRELS", "RUN"],
    ["--query_eval_wanted", "--measure=P.2", "--Max_retrieved_per_topic", "2", "QRELS",
     "RUN"], ["-qcmP.1,2", "-M1", "QRELS", "RUN"], ["--mea", "map", "--level=2", "QRELS",
                                                     "RUN"],
    ["-o", "-J", "-N5", "-mutility", "QRELS", "RUN"], ["--Judged", "QRELS", "RUN", "-v"]],
    ids=str)
def test_options_anywhere_and_spelled_as_getopt_allows(trec_eval_10, files, args):
    args = [{"QRELS": files[0], "RUN": files[1]}.get(a, a) for a in args]
    theirs = binary_outcome(trec_eval_10, args)
    assert trec_eval_command(args) == theirs


def test_the_command_line_end_to_end(trec_eval_10, files):
    """The console entry point: stdout, stderr and status of whole processes."""
    for args in (["-v"], ["-m", "nonsense"], ["-M", " 2", "-q", *files],
                 ["-q", *files, "-m", "P.1, 2"]):
        theirs = binary_outcome(trec_eval_10, args)
        proc = subprocess.run([sys.executable, "-m", "xdiv.cli", "trec_eval", *args],
                              capture_output=True, timeout=120)
        assert (proc.stdout, proc.stderr, proc.returncode) == tuple(theirs), args
    proc = subprocess.run([sys.executable, "-m", "xdiv.cli", "trec_eval", "-h"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.startswith("usage: xdiv trec_eval")
    assert "--version-9" in proc.stdout and proc.stderr == ""


def test_debug_is_refused_after_the_file_names_are_checked(trec_eval_10, files):
    assert trec_eval_command(["-D", "1", "-v"]) == binary_outcome(trec_eval_10,
                                                                  ["-D", "1", "-v"])
    refused = trec_eval_command(["-D", "1", *files])
    assert refused.status == 1 and refused.stderr.startswith(b"xdiv trec_eval: option -D")


# ------------------------------------------------------------------ gzip files


def _gzip_cases(tmp_path: Path) -> list[tuple[str, str]]:
    """Pairs of (qrels, run) paths, one of them gzip data (several headers and
    contents)."""
    plain_q, plain_r = tmp_path / "q", tmp_path / "r"
    plain_q.write_bytes(QRELS)
    plain_r.write_bytes(RUN)
    cases = []
    for k in range(12):
        body_q = QRELS * (k + 1)
        body_r = b"".join(b"%d Q0 d%d %d %d.5 tag%d\n" % (t, d, d, 100 - d, k)
                          for t in range(1, 4) for d in range(1, 8 * k + 5))
        for name, body in (("q", body_q), ("r", body_r)):
            path = tmp_path / f"{name}{k}.gz"
            with open(path, "wb") as raw, gzip.GzipFile(
                    filename=f"file-{k}" if k % 2 else "", mode="wb", fileobj=raw,
                    mtime=k * 7919 + 12) as handle:
                handle.write(body)
            cases.append((str(path), str(plain_r)) if name == "q" else
                         (str(plain_q), str(path)))
    return cases


def test_gzip_files_stop_where_trec_eval_stops(trec_eval_10, tmp_path):
    """A gzip qrels or results file: trec_eval reads its bytes, NUL bytes and all, and
    stops at its first malformed line (``Malformed line N``, status 2)."""
    same = 0
    for qrels, results in _gzip_cases(tmp_path):
        theirs = binary_outcome(trec_eval_10, [qrels, results])
        ours = trec_eval_command([qrels, results])
        if ours.status == 1 and b"holds a NUL byte" in ours.stderr:
            continue  # where trec_eval's behaviour is undefined
        assert ours == theirs, (qrels, results)
        assert theirs.status == 2 and b"Malformed line" in theirs.stderr
        same += 1
    assert same >= 18


@pytest.mark.parametrize("qrels,run,reproduced", [
    (QRELS + b"\0junk\n", RUN, True),                 # a NUL that begins a line ends it
    (QRELS, RUN + b"\0\n1 Q0 x\n", True),
    (b"1 0 a 1\n1 0 b\0 0 x\n1 0 c 1\n", RUN, True),  # malformed (five fields)
    (b"1 0 a 1\n1\x000 b 0 x\n", RUN, False),          # well formed: trec_eval aborts
    (QRELS, b"1 Q0 a 1 1 r\n1 Q0\0 b 2\n", True),     # five fields
    (b"1 0 a\0 1\n2 0 b\n", RUN, True),               # past the array, then malformed
    (b"1 0 a\0 1\n", RUN, False),                     # well formed: stored past the array
    (b"# c\0\n1 0 a 1\n", RUN, False),                # a comment: trec_eval crashes
    (b"\0\n1 0 a 1\n", RUN, False),                   # no line before the NUL
])
def test_nul_bytes(trec_eval_10, tmp_path, qrels, run, reproduced):
    (tmp_path / "q").write_bytes(qrels)
    (tmp_path / "r").write_bytes(run)
    args = ["-q", str(tmp_path / "q"), str(tmp_path / "r")]
    ours = trec_eval_command(args)
    if reproduced:
        assert ours == binary_outcome(trec_eval_10, args)
    else:
        assert ours.status == 1 and b"holds a NUL byte" in ours.stderr
        with pytest.raises(NotReproduced):
            trec_eval_run(*trec_eval_arguments(args))


# ------------------------------------------------------------------ recall levels beyond a long


@pytest.mark.parametrize("args", [
    ["-m", "iprec_at_recall.2,inf"], ["-m", "iprec_at_recall.0.5,1e19"],
    ["-m", "iprec_at_recall.0.2,4.7e18,3"], ["-m", "iprec_at_recall.0.2,4.6e18"],
    ["-m", "iprec_at_recall.-inf,0.5,3"], ["-m", "iprec_at_recall.0,inf,1"],
    ["-m", "11pt_avg.1,inf,0.5,3"], ["-m", "11pt_avg.3,-1e300,1"],
    ["-m", "iprec_at_recall.2,inf", "--version-9"], ["-m", "11pt_avg.1,inf,3", "--version-9"]],
    ids=str)
def test_recall_levels_whose_count_overflows_a_long(trec_eval_10, trec_eval_build, files,
                                                    args):
    """trec_eval turns a recall level f into k = lround(f * num_rel) relevant documents
    (``(long) (f * num_rel + 0.9)`` in 9.0.8); where that overflows a ``long`` (f infinite,
    NaN or huge) k is LONG_MIN, which its backward walk never reaches: the recall levels
    from there down get the best precision after the first relevant document, and the
    levels above the relevant documents retrieved keep 0 only when they come after it."""
    args = ["-q", *args, *files]
    if "--version-9" in args:
        theirs = binary_outcome(trec_eval_build("9.0.8"), [a for a in args
                                                            if a != "--version-9"])
    else:
        theirs = binary_outcome(trec_eval_10, args)
    assert theirs.status == 0 and theirs.stdout, theirs.stderr
    assert trec_eval_command(args) == theirs
    qrels, results, options = trec_eval_arguments(args)
    assert trec_eval_run(qrels, results, options) == theirs
    lean = lean_run(qrels, results, options)
    assert lean is None or lean == theirs


# ------------------------------------------------------------------ rbp's uninitialised bounds


def _rbp_lines(outcome: Outcome) -> list[bytes]:
    return [line for line in outcome.stdout.splitlines() if line.startswith(b"rbp ")]


@pytest.mark.parametrize("before", ["ndcg", "ndcg_cut", "11pt_avg", "G", "ndcg_rel"])
def test_rbp_after_a_measure_leaving_its_bounds_is_refused(trec_eval_10, files, before):
    """trec_eval 10.0 rescales rbp's gains from two uninitialised variables, which hold
    what the measure computed just before rbp left: after these measures trec_eval's rbp
    differs from its rbp alone, and xdiv refuses in one line."""
    args = ["-q", "-m", before, "-m", "rbp", *files]
    alone = binary_outcome(trec_eval_10, ["-q", "-m", "rbp", *files])
    assert _rbp_lines(binary_outcome(trec_eval_10, args)) != _rbp_lines(alone)
    ours = trec_eval_command(args)
    assert ours.status == 1 and not ours.stdout and ours.stderr.count(b"\n") == 1
    assert ours.stderr.startswith(b"xdiv trec_eval: rbp with " + before.encode())


@pytest.mark.parametrize("args", [
    ["-m", "rbp"], ["-m", "map", "-m", "rbp"], ["-m", "P.5", "-m", "rbp.p=0.5"],
    ["-m", "ndcg", "-m", "success", "-m", "rbp"], ["-m", "all_trec"],
    ["-m", "rbp.1=3", "-m", "unj", "-m", "rbp_resid"]], ids=str)
def test_rbp_after_other_measures(trec_eval_10, files, args):
    args = ["-q", *args, *files]
    assert trec_eval_command(args) == binary_outcome(trec_eval_10, args)


@pytest.mark.parametrize("args", [
    ["-M", "0", "-m", "rbp.p=2"], ["-c", "-M", "0", "-m", "rbp.p=1000"],
    ["-q", "-M", "0", "-m", "rbp.p=1.5", "-m", "map"]], ids=str)
def test_summaries_of_negative_zeros(trec_eval_10, files, args):
    """trec_eval adds each topic's value to an accumulator that starts at 0.0: values of
    -0.0 sum to 0.0 (``all 0.0000``, not ``-0.0000``)."""
    args = [*args, *files]
    theirs = binary_outcome(trec_eval_10, args)
    assert theirs.status == 0 and b"\tall\t0.0000\n" in theirs.stdout
    assert trec_eval_command(args) == theirs


@pytest.mark.parametrize("args", [
    ["-M", "1", "-m", "utility.inf,nan,0,0"], ["-M", "1", "-m", "utility.nan,inf,0,0"],
    ["-c", "-M", "1", "-m", "utility.inf,-nan,0,0"], ["-m", "utility.inf,nan,-inf,0"]],
    ids=str)
def test_summaries_of_nans_keep_trec_eval_sign(trec_eval_10, files, args):
    """A NaN added to trec_eval's accumulator gives its own NaN, even when the sum is
    already a NaN of the other sign (``nan`` or ``-nan``): so in every call, also once
    Python has specialised its float addition (after a few calls)."""
    args = [*args, *files]
    theirs = binary_outcome(trec_eval_10, args)
    assert theirs.status == 0 and b"nan\n" in theirs.stdout
    for _ in range(30):
        assert trec_eval_command(args) == theirs
