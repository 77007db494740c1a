"""Safe echo (issue 25, items 8 and 9): a label or field quoted in a message or printed in
a table reaches the terminal escaped (control characters written as ``\\x1b``) and cut to
a bounded length with an ellipsis, through one helper, :func:`xdiv.errors.shown`.

The readers refuse control characters in labels (a NetCDF cube's labels included); the
hostile labels are put in data frames and in-memory cubes, which reach the table printers
and warnings whatever the readers accept, and 900 KiB labels (printable, so accepted)
through files."""

from __future__ import annotations

import re
import warnings

import pandas as pd
import pytest

import xdiv
from xdiv.cli import main

ESC_TAG = "\x1b]0;x\x07"  # an OSC sequence setting the terminal's title, ended by BEL
ESCAPED = "\\x1b]0;x\\x07"
LONG_TAG = "L" * (900 << 10)  # a 900 KiB run tag
RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # tab and newline excepted


def _cube(tmp_path, runs=(ESC_TAG, LONG_TAG, "plain"), topics=("1", "2")):
    """A score cube of three runs on two topics written to ``s.nc``, its labels renamed
    after scoring (so that no reader or builder sees them)."""
    qrels = pd.DataFrame({"topic": ["1", "1", "2"], "intent": "0",
                          "docno": ["a", "b", "c"], "level": [1, 0, 1]})
    frame = pd.DataFrame({"run": ["r1", "r1", "r2", "r2", "r3", "r3"],
                          "topic": ["1", "2", "1", "2", "1", "2"],
                          "docno": ["a", "c", "b", "x", "a", "x"],
                          "score": 1.0})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = xdiv.evaluate(xdiv.build_runs(frame), xdiv.build_collection(qrels),
                               ["nDCG@2", "P@1"])
    scores = scores.assign_coords(run=list(runs), topic=list(topics))
    path = tmp_path / "s.nc"
    xdiv.to_netcdf(scores, path)
    return path


def _check_terminal_text(text: str, limit: int) -> None:
    assert not RAW_CONTROL.search(text), "a raw control character reaches the terminal"
    assert max(map(len, text.splitlines()), default=0) <= limit


def test_shown_escapes_control_characters_and_cuts_with_an_ellipsis():
    from xdiv.core.labels import shown  # the one helper, also at xdiv.errors.shown

    assert shown(ESC_TAG) == ESCAPED
    assert shown("a\x00b\n\t\u202e") == "a\\x00b\\n\\t\\u202e"
    assert shown("C:\\runs 'q' \"x\" é") == "C:\\runs 'q' \"x\" é"  # printable: as it is
    assert shown("a" * 80) == "a" * 80
    cut = shown(LONG_TAG)
    assert cut == "L" * 79 + "…"
    escapes = shown("\x1b" * 100)
    assert len(escapes) <= 80 and escapes.endswith("\\x1b…")  # no escape cut in two
    assert shown(ESC_TAG * 50, None) == ESCAPED * 50
    assert shown("x" * 30, 10) == "x" * 9 + "…"


def test_preview_escapes_and_bounds_each_label():
    from xdiv.core.labels import preview

    text = preview([ESC_TAG, LONG_TAG, "r3"])
    assert text == f"{ESCAPED}, {'L' * 79}…, r3"


def test_warnings_are_escaped_and_bounded_wherever_they_are_built():
    from xdiv._warnings import warn

    with pytest.warns(xdiv.XdivWarning) as record:
        warn(f"{ESC_TAG}: {LONG_TAG}", xdiv.XdivWarning)
    message = str(record[0].message)
    assert message.startswith(f"{ESCAPED}: LLL") and message.endswith("…")
    assert len(message) <= 2000


def test_a_warning_naming_a_900_kib_run_tag_is_bounded():
    qrels = pd.DataFrame({"topic": "1", "intent": "0", "docno": ["a"], "level": [1]})
    runs = pd.DataFrame({"run": [LONG_TAG, "r"], "topic": "1", "docno": ["zz", "a"],
                         "score": 1.0})
    with pytest.warns(xdiv.XdivWarning, match="retrieved no judged document") as record:
        xdiv.evaluate(xdiv.build_runs(runs), xdiv.build_collection(qrels), ["P@1"])
    message = next(str(w.message) for w in record if "no judged" in str(w.message))
    assert "L" * 79 + "…" in message and len(message) < 300


def test_cli_warning_about_a_900_kib_run_tag_is_one_bounded_line(tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r1").write_text(f"1 Q0 zz 1 1 {LONG_TAG}\n")
    (tmp_path / "r2").write_text("1 Q0 a 1 1 r\n")
    assert main(["evaluate", str(tmp_path / "q"), str(tmp_path / "r1"), str(tmp_path / "r2"),
                 "-m", "P@1"]) == 0
    captured = capsys.readouterr()
    warning = [line for line in captured.err.splitlines() if "no judged" in line]
    assert len(warning) == 1 and warning[0].startswith("xdiv: warning: ")
    assert len(captured.err) < 2500  # 921,691 bytes before
    _check_terminal_text(captured.err, 2000)
    _check_terminal_text(captured.out, 200)  # the table's run label is cut too
    assert "L" * 79 + "…" in captured.out


def test_cli_tables_of_a_netcdf_cube_show_run_tags_bounded(tmp_path, capsys):
    cube = _cube(tmp_path, runs=("r1", LONG_TAG, "plain"))
    for fmt in ("table", "tsv", "csv"):
        assert main(["-q", "risk", str(cube), "--test", "georisk", "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert "plain" in out and "LLL" in out, fmt
        _check_terminal_text(out, 1200)
    assert main(["-q", "risk", str(cube), "--test", "georisk"]) == 0
    out = capsys.readouterr().out
    assert "L" * 79 + "…" in out
    _check_terminal_text(out, 200)


@pytest.mark.parametrize("fmt", ["table", "tsv", "csv"])
def test_table_printer_escapes_labels_and_text_cells(fmt, capsys):
    from xdiv.cli.common import print_frame

    frame = pd.DataFrame({"score": [0.5, 0.25], "partner": [ESC_TAG, "t\x00" + LONG_TAG]},
                         index=pd.MultiIndex.from_tuples([(ESC_TAG, "1"), ("r", "\x9b2")],
                                                         names=["run", "topic"]))
    frame.columns = ["nDCG\x07", "partner"]
    print_frame(frame, fmt)
    out = capsys.readouterr().out
    assert ESCAPED in out and "nDCG\\x07" in out and "\\x9b2" in out
    assert "t\\x00LLL" in out and "…" in out
    _check_terminal_text(out, 1200 if fmt != "table" else 200)


def test_per_topic_tables_escape_topic_ids(capsys, tmp_path):
    from xdiv.cli.common import per_topic_frame, print_frame

    scores = xdiv.open_cube(_cube(tmp_path, runs=("r1", "r2", "r3")), "scores")
    scores = scores.assign_coords(topic=[ESC_TAG, "t\x00" + LONG_TAG])
    print_frame(per_topic_frame(scores), "table")
    out = capsys.readouterr().out
    assert ESCAPED in out and "t\\x00" + "L" * 74 + "…" in out
    _check_terminal_text(out, 200)


def test_cli_errors_quoting_a_hostile_field_are_one_escaped_bounded_line(tmp_path, capsys):
    cube = _cube(tmp_path, runs=("r1", "r2", "r3"))
    status = main(["risk", str(cube), "--baseline", f"nope{ESC_TAG}{LONG_TAG}"])
    err = capsys.readouterr().err
    assert status == 2 and len(err.splitlines()) == 1 and err.startswith("xdiv: error: ")
    assert "nope\\x1b]0;x\\x07LLL" in err
    _check_terminal_text(err, 2000)

