"""``xdiv ndeval`` and ``xdiv gdeval``: scoring children that die, ranks the tools refuse,
and the warnings the commands give (items 4, 7, 9 and 15 of the third audit).

Oracles: TREC's ndeval 4.5 compiled from pyndeval's source distribution and the gdeval.pl
that ir_measures ships (run with perl); each is skipped when absent. Each case runs both
paths of the commands: plain files take the numpy path (:mod:`xdiv.official.plain`), the
same files with CRLF line ends the general path (:mod:`xdiv.official.ndeval_tool.report`).
"""

from __future__ import annotations

import functools
import os
import signal
import subprocess
from pathlib import Path

import pytest

from xdiv import cli
from xdiv.cli import main
from xdiv.official import plain

QRELS = "1 1 a 1\n1 2 b 1\n1 1 c 0\n1 2 d 1\n2 1 e 1\n2 2 f 1\n3 1 g 1\n"
ADHOC = "1 0 a 2\n1 0 b 1\n1 0 d 3\n2 0 e 1\n2 0 f 4\n3 0 g 1\n"


def _xdiv(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def _write(folder: Path, name: str, text: str) -> tuple[Path, Path]:
    """``text`` as a plain file and with CRLF line ends (the general path)."""
    (folder / name).write_text(text)
    (folder / f"{name}.crlf").write_bytes(text.replace("\n", "\r\n").encode())
    return folder / name, folder / f"{name}.crlf"


def _run(name: str, swap: bool = False) -> str:
    """A run of topics 1-2; with ``swap`` its rank column disagrees with its scores on
    topic 1."""
    ranks = (2, 1) if swap else (1, 2)
    return (f"1 Q0 a {ranks[0]} 3 {name}\n1 Q0 d {ranks[1]} 2 {name}\n"
            f"1 Q0 x 3 1 {name}\n2 Q0 f 1 2 {name}\n2 Q0 e 2 1 {name}\n")


# ------------------------------------------------------------------ item 4: a child dies

def _dying_fdopen(monkeypatch, moment: str) -> None:
    """``os.fdopen`` as the scoring children call it to send their result, made to kill
    the child ``before`` writing, ``while`` writing (half the result sent) or ``after``
    writing (the whole result sent, the child killed before it exits)."""
    parent, real = os.getpid(), os.fdopen

    class Dying:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()
            os.kill(os.getpid(), signal.SIGKILL)

        def write(self, data):
            if moment == "before":
                os.kill(os.getpid(), signal.SIGKILL)
            cut = len(data) // 2 if moment == "while" else len(data)
            self.handle.write(data[:cut])
            self.handle.flush()
            if moment == "while":
                os.kill(os.getpid(), signal.SIGKILL)
            self.handle.write(data[cut:])

    def fdopen(fd, mode="r", *args, **kwargs):
        handle = real(fd, mode, *args, **kwargs)
        return Dying(handle) if os.getpid() != parent and "w" in mode else handle

    monkeypatch.setattr(os, "fdopen", fdopen)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the children are forked")
@pytest.mark.parametrize("moment", ["before", "while", "after"])
@pytest.mark.parametrize("command", ["ndeval", "gdeval"])
def test_a_scoring_child_that_dies_has_its_share_scored_again(command, moment, tmp_path,
                                                              capsys, monkeypatch):
    qrels = tmp_path / "q"
    qrels.write_text(QRELS if command == "ndeval" else ADHOC)
    runs = [tmp_path / f"r{k}" for k in range(5)]
    for k, path in enumerate(runs):
        path.write_text(_run(f"r{k}", swap=k % 2 == 1))
    # three children for five runs, then one early child for a single run
    monkeypatch.setattr(plain, "_cores", lambda: 3)
    expected = [_xdiv(capsys, command, qrels, *runs), _xdiv(capsys, command, qrels, runs[0])]
    assert expected[0][0] == 0 and expected[0][1].count("amean") == 5
    _dying_fdopen(monkeypatch, moment)
    assert _xdiv(capsys, command, qrels, *runs) == expected[0]
    assert _xdiv(capsys, command, qrels, runs[0]) == expected[1]


# ------------------------------------------------------------------ item 7: ranks

REFUSED = {"ndeval": ["-1", "+1", "99999999999", "1000010", "0001000010", "1.0", "x", "1e3"],
           "gdeval": ["-1", "+1", "-0", "1.0", "x", "0x1"]}
READ = {"ndeval": ["1000009", "0001000009", "007", "0"], "gdeval": ["99999999999", "007"]}


def _tool_said(stderr: str) -> str:
    """A tool's one-line message without its program name."""
    line, = stderr.strip().splitlines()
    return line.split(": ", 1)[1]


@pytest.mark.parametrize("command", ["ndeval", "gdeval"])
def test_ranks_are_read_and_refused_as_the_tool_reads_them(command, ndeval_program, gdeval_pl,
                                                           tmp_path, capsys):
    qrels = tmp_path / "q"
    qrels.write_text(QRELS if command == "ndeval" else ADHOC)
    tool = [ndeval_program] if command == "ndeval" else ["perl", gdeval_pl]
    for rank in REFUSED[command] + READ[command]:
        text = f"1 Q0 a 1 3 r\n1 Q0 d {rank} 2 r\n2 Q0 f 1 2 r\n"
        for run in _write(tmp_path, "run", text):
            args = [*tool, qrels, run] + ([] if command == "ndeval" else [20])
            theirs = subprocess.run([str(a) for a in args], capture_output=True, text=True)
            status, out, err = _xdiv(capsys, "-q", command, qrels, run)
            assert status == theirs.returncode, (rank, run.name, err)
            if rank in REFUSED[command]:
                assert theirs.returncode == (1 if command == "ndeval" else 25)
                assert out == theirs.stdout == ""
                line, = err.splitlines()  # one line: the tool's message, then why
                assert line.startswith(f"xdiv: error: {_tool_said(theirs.stderr)} (rank "
                                       f"{rank!r}: {command} reads a rank"), line
            else:
                assert theirs.stderr == err == ""
                shown = out if command == "ndeval" else "".join(out.splitlines(True)[:-1])
                assert shown == theirs.stdout, rank


@pytest.fixture
def quick(monkeypatch):
    """xdiv's argument parser built once, and the plain path scoring in this process: the
    tests below run the command many times (the children are tested above)."""
    monkeypatch.setattr(cli, "parser", functools.cache(cli.parser))
    monkeypatch.setattr(plain, "_cores", lambda: 1)


def _as_the_tool(command: str, options: list, qrels: Path, text: str, tools: dict,
                 tmp_path: Path, capsys) -> int:
    """``text`` as a run file given to the tool and to xdiv, on both paths: the same
    standard output and exit status; the tool's message (its last line: gdeval.pl warns
    first of what perl cannot read), said by xdiv on one line; the tool's status."""
    tool = [tools[command]] if command == "ndeval" else ["perl", tools[command]]
    plain_file, crlf_file = _write(tmp_path, "run", text)
    args = [*tool, *options, qrels, plain_file] + ([] if command == "ndeval" else [20])
    theirs = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    for run in (plain_file, crlf_file):
        status, out, err = _xdiv(capsys, "-q", command, *options, qrels, run)
        assert status == theirs.returncode, (text, run.name, err, theirs.stderr)
        if status:
            said = theirs.stderr.strip().splitlines()[-1].split(": ", 1)[1]
            line, = err.splitlines()
            assert out == theirs.stdout == ""
            assert line.startswith(f"xdiv: error: {said} (".replace(str(plain_file), str(run))
                                   ), (text, line, said)
        else:
            assert theirs.stderr == err == ""
            shown = out if command == "ndeval" else "".join(out.splitlines(True)[:-1])
            assert shown == theirs.stdout, text
    return theirs.returncode


@pytest.mark.parametrize("command", ["ndeval", "gdeval"])
def test_blank_lines_are_refused_as_the_tools_refuse_them(command, ndeval_program, gdeval_pl,
                                                          tmp_path, capsys, quick):
    """A line without fields (nothing, spaces, a tab) is a line both tools refuse, at its
    number among all the lines; xdiv's readers skip blank lines, the commands do not."""
    qrels = tmp_path / "q"
    qrels.write_text(QRELS if command == "ndeval" else ADHOC)
    tools = {"ndeval": ndeval_program, "gdeval": gdeval_pl}
    lines = ["1 Q0 a 1 3 r\n", "1 Q0 d 2 2 r\n", "2 Q0 f 1 2 r\n"]
    for blank, at in (("\n", 0), ("  \n", 1), ("\t \n", 3), ("\n", 2)):
        text = "".join(lines[:at] + [blank] + lines[at:])
        assert _as_the_tool(command, [], qrels, text, tools, tmp_path, capsys) > 0, text


@pytest.mark.parametrize("command", ["ndeval", "gdeval"])
def test_a_refused_last_line_without_line_feed_ends_with_the_tools_status(
        command, ndeval_program, gdeval_pl, tmp_path, capsys, quick):
    """gdeval.pl refuses a last line without line feed with exit status 255, not 25 (perl's
    read met the end of the file); ndeval with 1 wherever the line is."""
    qrels = tmp_path / "q"
    qrels.write_text(QRELS if command == "ndeval" else ADHOC)
    tools = {"ndeval": ndeval_program, "gdeval": gdeval_pl}
    head = "1 Q0 a 1 3 r\n1 Q0 d 2 2 r\n"
    statuses = {_as_the_tool(command, [], qrels, head + last, tools, tmp_path, capsys)
                for last in ("2 Q0 f x 2 r", "2 Q0 f 1 2", "  ", "2 Q0 f -1 2 r")}
    assert statuses == {1 if command == "ndeval" else 255}
    for last in ("2 Q0 f x 2 r\n", "2 Q0 f 1 2\n"):  # with its line feed
        assert _as_the_tool(command, [], qrels, head + last, tools, tmp_path, capsys) in (1, 25)
    assert _as_the_tool(command, [], qrels, head + "2 Q0 f 1 2 r", tools, tmp_path, capsys) == 0


RANKS_GIVEN_TWICE = [
    "1 Q0 a 1 3 r\n1 Q0 d 1 2 r\n2 Q0 f 1 2 r\n",
    "1 Q0 a 01 3 r\n01 Q0 d 1 2 r\n2 Q0 f 1 2 r\n",  # one topic, one rank, to ndeval
    "2 Q0 f 5 3 r\n2 Q0 e 5 2 r\n10 Q0 a 1 1 r\n10 Q0 b 1 1 r\n1 Q0 a 7 1 r\n"
    "1 Q0 d 7 1 r\n1 Q0 c 3 1 r\n",  # several: ndeval names the first topic's first
    "1 Q0 a 2 3 r\n1 Q0 a 2 2 r\n2 Q0 f 1 2 r\n",  # a docno and a rank given twice
    "wt-1 Q0 a 2 3 r\n1 Q0 d 2 2 r\n",
    "1 Q0 a 1 3 r\n1 Q0 d 9 2 r\n1 Q0 c 9 1 r\n",  # below -M 2 too
]


@pytest.mark.parametrize("options", [[], ["-M", "2"], ["-traditional"]])
def test_a_rank_given_twice_in_a_topic_is_refused_as_ndeval_refuses_it(
        options, ndeval_program, gdeval_pl, tmp_path, capsys, quick):
    """ndeval refuses a run ranking two documents of a topic at one rank (before -M cuts
    the run, and before it looks for repeated docnos), but not with -traditional, which
    ranks by score."""
    qrels, adhoc = tmp_path / "q", tmp_path / "adhoc"
    qrels.write_text(QRELS)
    adhoc.write_text(ADHOC)
    tools = {"ndeval": ndeval_program, "gdeval": gdeval_pl}
    for text in RANKS_GIVEN_TWICE:
        if "1 Q0 a 2 2" in text and options == ["-traditional"]:
            continue  # the docno given twice: xdiv says so in its own words (status 2)
        status = _as_the_tool("ndeval", options, qrels, text, tools, tmp_path, capsys)
        assert status == (0 if options == ["-traditional"] else 1), text
        if not options and "1 Q0 a 2 2" not in text:  # gdeval reads no rank
            assert _as_the_tool("gdeval", [], adhoc, text, tools, tmp_path, capsys) == 0


def test_ranks_beyond_64_bit_integers_are_read_by_gdeval_and_refused_by_ndeval(
        ndeval_program, gdeval_pl, tmp_path, capsys, quick):
    """gdeval.pl reads any digits as a rank (it ranks by score); xdiv's readers hold ranks
    in 64-bit integers, which ``xdiv gdeval`` does not need."""
    qrels, adhoc = tmp_path / "q", tmp_path / "adhoc"
    qrels.write_text(QRELS)
    adhoc.write_text(ADHOC)
    tools = {"ndeval": ndeval_program, "gdeval": gdeval_pl}
    for rank in (2 ** 63 - 1, 2 ** 63, 2 ** 64, 10 ** 30, "9" * 300, "0" * 30 + str(2 ** 63)):
        text = f"1 Q0 a 1 3 r\n1 Q0 d {rank} 2 r\n2 Q0 f {rank} 2 r\n2 Q0 e 3 1 r\n"
        assert _as_the_tool("gdeval", [], adhoc, text, tools, tmp_path, capsys) == 0, rank
        assert _as_the_tool("ndeval", [], qrels, text, tools, tmp_path, capsys) == 1, rank


# ------------------------------------------------------------------ items 9 and 15: warnings

def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("xdiv: warning: ")]


def test_both_paths_name_every_disagreeing_run_in_the_same_order(tmp_path, capsys):
    qrels = tmp_path / "q"
    qrels.write_text(QRELS)
    names = ["e", "d", "c10", "c9", "b", "a"]  # given in an order that is not natural
    plain_files, general_files = zip(*(_write(tmp_path, n, _run(n, swap=True)) for n in names))
    said = []
    for files in (plain_files, general_files):
        status, out, err = _xdiv(capsys, "ndeval", qrels, *files)
        assert status == 0
        said.append(_warnings(err))
    assert said[0] == said[1]
    rank_warning, = said[0]
    # every run named, in the order of the output's blocks
    printed = [line.split(",")[0] for line in out.splitlines() if ",amean," in line]
    assert sorted(printed) == sorted(names)
    assert f"{', '.join(f'{n} 1/2' for n in printed)};" in rank_warning


def test_the_rank_warning_names_ndevals_switch_or_is_not_given(tmp_path, capsys):
    qrels, adhoc = tmp_path / "q", tmp_path / "adhoc"
    qrels.write_text(QRELS)
    adhoc.write_text(ADHOC)
    for run in _write(tmp_path, "r", _run("r", swap=True)):
        _, _, err = _xdiv(capsys, "ndeval", qrels, run)
        warning, = _warnings(err)
        assert "(-traditional: the other)" in warning and "--order" not in warning
        # ranked by score, the rank column is not read: the tools say nothing of it
        for args in (["ndeval", "-traditional", qrels], ["gdeval", adhoc],
                     ["gdeval", "-k", "1", adhoc]):
            status, _, err = _xdiv(capsys, *args, run)
            assert (status, err) == (0, ""), args


def test_warnings_the_tools_would_contradict_are_not_given(ndeval_program, tmp_path, capsys):
    """A qrels topic without relevant document scores 0 in ndeval (not NaN); a run file
    with several tags is named after its first line's tag (not after the file)."""
    qrels = _write(tmp_path, "q", QRELS + "4 1 h 0\n")
    run = _write(tmp_path, "r", "1 Q0 a 1 3 first\n1 Q0 d 2 2 other\n4 Q0 h 1 1 other\n")
    theirs = subprocess.run([str(ndeval_program), str(qrels[0]), str(run[0])],
                            capture_output=True, text=True)
    for q in qrels:
        for r in run:
            assert _xdiv(capsys, "ndeval", q, r) == (0, theirs.stdout, theirs.stderr)


def test_runs_without_judged_documents_are_all_named(tmp_path, capsys):
    qrels = tmp_path / "q"
    qrels.write_text(QRELS)
    names = [f"n{k}" for k in range(12)]
    files = []
    for name in names:
        files += [_write(tmp_path, name, f"1 Q0 zz 1 1 {name}\n")[1]]
    _, _, err = _xdiv(capsys, "ndeval", qrels, *files)
    warning, = _warnings(err)
    assert "12 run(s) retrieved no judged document" in warning
    assert warning.endswith(": " + ", ".join(sorted(names)))  # every one, in natural order
