"""Fuzzing every reader and the commands that read files.

Each example starts from a clean, valid file and applies mutations of the families hostile
or damaged files show: a field added or removed on a line, a number replaced by text, a
line duplicated or cut, a NUL byte, a byte-order mark, Latin-1 bytes, CR/CRLF line ends,
tabs, gzip compression, truncation, a missing XML attribute. The files are generated here,
not stored. The assertion is the same for every reader and command: the input is either
refused with one line (an ``XdivError`` whose message starts with the file's path; exit
status 2 and one ``xdiv: error:`` line on the command line) or read, and when the
mutations cannot change the content (line ends, tabs, BOM, gzip) read exactly as the
clean file. Anything else, a traceback in particular, fails the test.
"""

from __future__ import annotations

import functools
import gzip
import warnings
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xdiv
import xdiv.hierarchy
import xdiv.imine
from xdiv import cli
from xdiv.cli import main
from xdiv.official import plain


from ..helpers import TOOL_REFUSAL_STATUS

CLEAN = {
    "qrels": "1 1 a 1\n1 2 b 2\n1 1 c 0\n2 1 x 1\n2 2 y -2\n",
    "run": "1 Q0 a 1 3.5 r\n1 Q0 b 2 2.25 r\n1 Q0 z 3 1 r\n2 Q0 x 1 4 r\n2 Q0 y 2 3 r\n",
    "probabilities": "1 1 0.75\n1 2 0.25\n2 1 0.5\n2 2 0.5\n",
    "hierarchy": "# topic node parent weight intent\n1 n1 - 1 1\n1 n2 n1 1 2\n2 m1 - 1 1\n",
    "topics": ('<webtrack2009>\n<topic number="1" type="faceted">\n<query>q one</query>\n'
               '<subtopic number="1" type="nav">s</subtopic>\n'
               '<subtopic number="2" type="inf">t</subtopic>\n</topic>\n'
               '<topic number="2" type="ambiguous">\n<query>q two</query>\n'
               '<subtopic number="1" type="inf">u</subtopic>\n</topic>\n</webtrack2009>\n'),
    "imine": ('<?xml version="1.0" encoding="utf-8"?>\n<root>\n'
              '<topic id="0101" content="jaguar">\n'
              '<fls content="car" poss="0.6">\n'
              '<sls content="car_models" poss="0.3"/>\n<sls content="car_dealers" poss="0.7"/>\n'
              '</fls>\n<fls content="animal" poss="0.4"/>\n</topic>\n</root>\n'),
}
READERS = {
    "qrels": xdiv.io.read_qrels_frame, "run": xdiv.io.read_run_frame,
    "probabilities": xdiv.read_probabilities, "hierarchy": xdiv.hierarchy.read_hierarchy,
    "topics": xdiv.read_topics, "imine": xdiv.imine.read_imine_hierarchy,
}
NEUTRAL = ("crlf", "cr", "tabs", "bom", "gzip", "trailing-blank")
"""Mutations that leave the content as it was."""
DAMAGING = ("extra-field", "drop-field", "garbage-number", "duplicate-line", "cut-line",
            "nul", "latin1", "truncate", "drop-attribute", "empty")


def _mutate(text: str, mutation: str, draw) -> bytes:
    lines = text.splitlines(keepends=True)
    if not lines:
        return text.encode()
    k = draw(st.integers(0, len(lines) - 1))
    fields = lines[k].split()
    if mutation == "crlf":
        return text.replace("\n", "\r\n").encode()
    if mutation == "cr":
        return text.replace("\n", "\r").encode()
    if mutation == "tabs":
        return text.replace(" ", "\t").encode() if "<" not in text else text.encode()
    if mutation == "bom":
        return "\ufeff".encode() + text.encode()
    if mutation == "gzip":
        return gzip.compress(text.encode())
    if mutation == "trailing-blank":
        return (text + "\n\n").encode()
    if mutation == "extra-field":
        lines[k] = lines[k].rstrip("\n") + " " + draw(st.sampled_from(["0", "7", "x"])) + "\n"
    elif mutation == "drop-field" and fields:
        fields.pop(draw(st.integers(0, len(fields) - 1)))
        lines[k] = " ".join(fields) + "\n"
    elif mutation == "garbage-number" and fields:
        fields[-1 if draw(st.booleans()) else 0] = draw(st.sampled_from(
            ["nan", "inf", "1e999", "0x1F", "½", "1_000", "99999999999999999999", "-"]))
        lines[k] = " ".join(fields) + "\n"
    elif mutation == "duplicate-line":
        lines.insert(k, lines[k])
    elif mutation == "cut-line":
        lines[k] = lines[k][:draw(st.integers(0, max(len(lines[k]) - 1, 0)))]
    elif mutation == "nul":
        lines[k] = lines[k][:1] + "\0" + lines[k][1:]
    elif mutation == "latin1":
        return "".join(lines[:k] + ["é" + lines[k]] + lines[k + 1:]).encode("latin-1", "replace")
    elif mutation == "truncate":
        data = text.encode()
        return data[:draw(st.integers(0, len(data) - 1))]
    elif mutation == "drop-attribute":
        name = draw(st.sampled_from(['number="1"', 'number="2"', 'type="nav"', 'type="inf"',
                                     'poss="0.6"', 'content="car"', 'id="0101"']))
        return text.replace(name, "", 1).encode()
    elif mutation == "empty":
        return b""
    return "".join(lines).encode()


def _check_error(exc: BaseException, path: Path) -> None:
    assert isinstance(exc, xdiv.XdivError), f"{type(exc).__name__}: {exc}"
    message = str(exc)
    assert message.startswith(str(path)), message
    assert "\n" not in message


def _read(kind: str, path: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        return READERS[kind](path)


@pytest.fixture(scope="module")
def clean_frames(tmp_path_factory) -> dict:
    """Each reader's frame of its clean file, read once (not once per example: issue 35
    item 18)."""
    folder = tmp_path_factory.mktemp("clean")
    frames = {}
    for kind in READERS:
        path = folder / kind
        path.write_text(CLEAN[kind])
        frames[kind] = _read(kind, path)
    return frames


@pytest.mark.parametrize("kind", list(READERS))
@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_readers_refuse_in_one_line_or_read_as_clean(kind, data, tmp_path, clean_frames):
    expected = clean_frames[kind]
    mutations = data.draw(st.lists(st.sampled_from(NEUTRAL + DAMAGING), min_size=1,
                                   max_size=2, unique=True))
    text, raw = CLEAN[kind], None
    for mutation in mutations:
        if mutation == "gzip":
            continue  # applied last, to whatever the other mutation made
        raw = _mutate(text if raw is None else raw.decode("utf-8", "replace"), mutation,
                      data.draw)
    raw = text.encode() if raw is None else raw
    if "gzip" in mutations:
        raw = gzip.compress(raw)
    path = tmp_path / f"{kind}-mutated"
    path.write_bytes(raw)
    try:
        got = _read(kind, path)
    except Exception as exc:  # noqa: BLE001  (anything but a one-line XdivError fails)
        _check_error(exc, path)
        return
    if set(mutations) <= set(NEUTRAL):
        # line numbers may move (CR after CRLF makes blank lines); the content may not
        pd.testing.assert_frame_equal(got.drop(columns="line", errors="ignore")
                                      .reset_index(drop=True),
                                      expected.drop(columns="line", errors="ignore")
                                      .reset_index(drop=True))


COMMANDS = {
    "evaluate": lambda q, r, t: ["evaluate", q, r, "-m", "alpha-nDCG@5,D#-nDCG@5",
                                 "--topics", t],
    "ndeval": lambda q, r, t: ["ndeval", q, r],
    "ndeval-baseline": lambda q, r, t: ["ndeval", "-baseline", r, q, r],
    "gdeval": lambda q, r, t: ["gdeval", "--adhoc", "max", q, r],
    "convert": lambda q, r, t: ["convert", q, "-o", str(Path(r).with_suffix(".out"))],
}


@pytest.fixture
def in_process(monkeypatch) -> None:
    """The argument parser of each command family built once, and ndeval's and gdeval's
    plain path scoring in this process (the forked children are tested in
    test_official_children_fuzz.py and tests/official/test_official_third_audit.py; a
    fork of the test process costs more CPU than the command itself: issue 35 item 18)."""
    monkeypatch.setattr(cli, "parser", functools.cache(cli.parser))
    monkeypatch.setattr(plain, "_cores", lambda: 1)


@pytest.mark.parametrize("command", list(COMMANDS))
@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_commands_exit_2_with_one_line_or_succeed(command, data, tmp_path, capsys,
                                                  in_process):
    which = data.draw(st.sampled_from(["qrels", "run", "topics"]))
    mutation = data.draw(st.sampled_from(NEUTRAL + DAMAGING))
    files = {}
    for kind in ("qrels", "run", "topics"):
        path = tmp_path / kind
        path.write_bytes(_mutate(CLEAN[kind], mutation, data.draw) if kind == which
                         else CLEAN[kind].encode())
        files[kind] = str(path)
    capsys.readouterr()
    status = main(["-q", *COMMANDS[command](files["qrels"], files["run"], files["topics"])])
    err = capsys.readouterr().err
    tool = TOOL_REFUSAL_STATUS.get(command.split("-")[0], ())
    assert status in (0, 2, *tool)
    if status != 0:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("xdiv: error: "), err
        named = lines[0][len("xdiv: error: "):]
        if status == 2:
            assert any(named.startswith(f) for f in files.values()), err
        else:  # a run line the tool refuses, in its words: the run file is named
            assert f'"{files["run"]}"' in named, err
