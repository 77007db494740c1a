"""One grammar per field, whichever reader path parses the file (docs/conventions.md,
"Fields of the text files"): pyarrow's reader, pandas' and the line-by-line check accept
the same language, and the spellings other parsers take for numbers (``0x10``, ``1e2``,
``true``) or control characters in labels are refused with the file and the line."""

from __future__ import annotations

import gzip
import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xdiv
import xdiv.hierarchy
import xdiv.imine
from xdiv.errors import InputError, ParseError
from xdiv.io import _columns

# the grammar, spelled out independently of the package
INTEGER = re.compile(r"[+-]?[0-9]+")
DECIMAL = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")

QRELS = [("topic", "str"), ("intent", "str"), ("docno", "str"), ("level", "int")]
RUN = [("topic", "str"), ("_Q0", "str"), ("docno", "str"), ("rank", "int"),
       ("score", "float"), ("run", "str")]

# spellings some parser takes for a number, and ordinary ones
SPELLINGS = ["0", "1", "-2", "+3", "007", "-0", "1.5", "5.", ".5", "-.5e-3", "1e2", "1E-3",
             "-4.5e-05", "0x10", "0X1f", "-0x10", "0x1p3", "1_000", "true", "false", "True",
             "FALSE", "nan", "NaN", "inf", "-inf", "+inf", "Infinity", "1e999", "1e", "e5",
             ".", "+", "-", "--1", "1.2.3", "1,5", "0b1", "0o7", "\u0661", "\u00bd", "1d5",
             "99999999999999999999", "-9223372036854775808", "9223372036854775807"]


def _number_field(grammar: str) -> st.SearchStrategy[str]:
    """Fields from both sides of a grammar: its own strings, the spellings above, and
    short strings of digits, signs, points, exponents, hex and boolean letters."""
    pattern = INTEGER if grammar == "int" else DECIMAL
    return st.one_of(st.from_regex(pattern, fullmatch=True).filter(lambda s: len(s) < 12),
                     st.sampled_from(SPELLINGS),
                     st.text("0123456789+-.eExXabflnrstu_", min_size=1, max_size=6))


LABEL = st.text(st.one_of(st.sampled_from("abcxXQ0-_.#\"'\\"),
                          st.sampled_from("\x00\x01\x08\x0b\x0c\x1b\x1f\x7f"),
                          st.sampled_from("\u00a0\u00e9\u0085\u2028\u4e2d")),
                min_size=1, max_size=5)


def _valid(kind: str, value: str) -> bool:
    if kind == "str":
        return CONTROL.search(value) is None
    if kind == "int":
        return INTEGER.fullmatch(value) is not None and -2**63 <= int(value) < 2**63
    return DECIMAL.fullmatch(value) is not None and math.isfinite(float(value))


def _rows(table, columns) -> list[tuple]:
    """The rows of a table as :func:`read_columns` returns it (or of a frame)."""
    values = [list(_columns.decode_strings(table[name])) if kind == "str"
              and not isinstance(table, pd.DataFrame) else np.asarray(table[name]).tolist()
              for name, kind in columns if not name.startswith("_")]
    return list(zip(*values))


def _verdicts(path, columns):
    """The verdict of each reader path on ``path``: the rows it reads, or None when it
    refuses the file; pyarrow's path may also defer to the others ("defer")."""
    fast = _columns._arrow_columns(path, columns, False, False)
    fast = "defer" if fast is None else _rows(fast, columns)
    try:
        by_pandas = _rows(_columns._pandas_table(path, columns, False, False), columns)
    except ParseError:
        by_pandas = None
    try:
        _columns._slow_validate(path, columns, False, consistent_width=True)
        line_by_line = "accepted"
    except ParseError:
        line_by_line = None
    try:
        public = _rows(_columns.read_columns(path, columns), columns)
    except ParseError:
        public = None
    return fast, by_pandas, line_by_line, public


def _expected(lines, columns):
    if all(_valid(kind, value) for fields in lines for (_, kind), value in zip(columns, fields)):
        return [tuple(value if kind == "str" else int(value) if kind == "int" else float(value)
                      for (name, kind), value in zip(columns, fields)
                      if not name.startswith("_")) for fields in lines]
    return None


def _check_every_path(tmp_path, lines, columns):
    expected = _expected(lines, columns)
    for sep, name in ((" ", "single.txt"), ("  ", "double.txt"), ("\t", "tabs.txt")):
        path = tmp_path / name
        path.write_bytes("".join(sep.join(fields) + "\n" for fields in lines).encode())
        fast, by_pandas, line_by_line, public = _verdicts(path, columns)
        assert by_pandas == expected, (sep, lines)
        assert public == expected, (sep, lines)
        assert (line_by_line is not None) == (expected is not None), (sep, lines)
        # pyarrow's path reads what the grammar reads, or defers to pandas' (as it does
        # for layouts other than single separators and for a "+" on an integer)
        assert fast == "defer" or fast == expected, (sep, lines)
        if sep == "  ":
            assert fast == "defer"


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(topic=LABEL, intent=LABEL, docno=LABEL, level=_number_field("int"),
       whole_column=st.booleans())
def test_qrels_paths_agree(tmp_path, topic, intent, docno, level, whole_column):
    fields = [topic, intent, docno, level]
    lines = [fields, [topic, intent, docno + "b", level]] if whole_column else \
        [["1", "0", "a", "1"], fields]
    _check_every_path(tmp_path, lines, QRELS)


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(docno=LABEL, rank=_number_field("int"), score=_number_field("float"), tag=LABEL,
       whole_column=st.booleans())
def test_run_paths_agree(tmp_path, docno, rank, score, tag, whole_column):
    fields = ["1", "Q0", docno, rank, score, tag]
    lines = [fields, ["2", "Q0", docno, rank, score, tag]] if whole_column else \
        [["1", "Q0", "a", "1", "2.5", tag], fields]
    _check_every_path(tmp_path, lines, RUN)


# ------------------------------------------------------------------ one test per defect

def _write(path, text: str, gz: bool = False):
    data = text.encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


READERS = {
    "run score": (xdiv.read_run, "1 Q0 a 1 {} r\n1 Q0 b 2 {} r\n", "score"),
    "run rank": (xdiv.read_run, "1 Q0 a {} 2.0 r\n1 Q0 b {} 1.0 r\n", "rank"),
    "qrels grade": (xdiv.read_qrels, "1 0 a {}\n1 0 b {}\n", "level"),
    "probability": (xdiv.read_probabilities, "1 1 {}\n1 2 {}\n", "probability"),
    "document length": (xdiv.io.read_doc_lengths, "a {}\nb {}\n", "length"),
}


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("what", list(READERS))
def test_a_whole_column_of_booleans_is_refused(tmp_path, what, gz):
    """pandas read a column made only of true/false as 1/0 (a single true among numbers
    was refused)."""
    reader, text, field = READERS[what]
    path = _write(tmp_path / "f.txt", text.format("true", "false"), gz)
    with pytest.raises(ParseError, match=rf"f.txt:1: {field} 'true' is not a valid"):
        reader(path)


@pytest.mark.parametrize("grade, atol", [("0x10", 0), ("1e2", 1), ("1.0", 1)])
@pytest.mark.parametrize("layout", ["1 0 a {}\n1 0 b 0\n", "1  0 a {}\n1 0 b 0\n"])
def test_non_decimal_grades_are_refused(tmp_path, grade, atol, layout):
    """pyarrow read 0x10 as 16 and pandas 1e2 as 100; trec_eval reads them with atol."""
    path = _write(tmp_path / "q.txt", layout.format(grade))
    with pytest.raises(ParseError, match=rf"^{re.escape(str(path))}:1: level '{grade}' is not "
                                         rf"a valid int \(a decimal integer is expected; "
                                         rf"trec_eval would read it as {atol} \(atol\)"):
        xdiv.read_qrels(path)


def test_decimal_spellings_real_runs_use_are_read(tmp_path):
    path = _write(tmp_path / "r.txt", "1 Q0 a 1 -4.5e-05 r\n1 Q0 b +2 1E3 r\n"
                                      "1 Q0 c 003 .5 r\n1 Q0 d 4 7. r\n")
    run = xdiv.io.read_run_frame(path)
    assert run["score"].tolist() == [-4.5e-05, 1000.0, 0.5, 7.0]
    assert run["rank"].tolist() == [1, 2, 3, 4]
    lengths = xdiv.io.read_doc_lengths(_write(tmp_path / "l.txt", "a 0\nb +12\n"))
    assert lengths["length"].tolist() == [0, 12]


def test_document_lengths_are_non_negative_integers(tmp_path):
    with pytest.raises(ParseError, match=r"l.txt:2: length '12.5' is not a valid int"):
        xdiv.io.read_doc_lengths(_write(tmp_path / "l.txt", "a 1\nb 12.5\n"))
    with pytest.raises(InputError, match=r"l.txt:2: docno b: length -3 is negative"):
        xdiv.io.read_doc_lengths(_write(tmp_path / "l.txt", "a 1\nb -3\n"))


@pytest.mark.parametrize("text, line, field", [
    ("1\x00 0 a 1\n", 1, "topic"),
    ("1 0 a 1\n1 0 b\x00 1\n", 2, "docno"),
    ("1 a d 1\n1 a\x00 d 1\n", 2, "intent"),
    ("1  0 a\x1b[31m 1\n", 1, "docno"),
    ("1 0 a 1\n1 0 \x7f 1\n", 2, "docno"),
])
def test_control_characters_in_qrels_labels_are_refused(tmp_path, text, line, field):
    path = _write(tmp_path / "q.txt", text)
    with pytest.raises(ParseError, match=rf"q.txt:{line}: {field} .* holds the control "
                                         r"character U\+00"):
        xdiv.read_qrels(path)


@pytest.mark.parametrize("text, field", [
    ("1 Q0 a\x00 1 2.0 r\n", "docno"),
    ("1\x00 Q0 a 1 2.0 r\n", "topic"),
    ("1 Q0 a 1 2.0 r\x07\n", "run"),
])
def test_control_characters_in_run_labels_are_refused(tmp_path, text, field):
    path = _write(tmp_path / "r.txt", text)
    with pytest.raises(ParseError, match=rf"r.txt:1: {field} .* holds the control"):
        xdiv.read_run(path)


def test_control_characters_in_topic_hierarchy_and_imine_labels_are_refused(tmp_path):
    topics = _write(tmp_path / "t.xml", '<webtrack>\n<topic number="1\x7f">\n'
                                        '<subtopic number="1"/></topic></webtrack>\n')
    with pytest.raises(ParseError, match=r"t.xml:2: topic '1\\x7f' holds the control"):
        xdiv.read_topics(topics)
    topics.write_text('<webtrack>\n<topic number="1">\n<subtopic number="1&#9;"/>'
                      '</topic></webtrack>\n')
    with pytest.raises(ParseError, match=r"t.xml:3: topic 1: subtopic '1\\t' holds"):
        xdiv.read_topics(topics)
    tree = _write(tmp_path / "h.txt", "1 n1 - 1 a\n1 n\x002 n1 1 b\n")
    with pytest.raises(InputError, match=r"h.txt:2: node 'n\\x002' holds the control"):
        xdiv.hierarchy.read_hierarchy(tree)
    imine = _write(tmp_path / "sm.xml", '<root><topic id="1">\n'
                                        '<fls content="a\x7f" poss="1"/></topic></root>')
    with pytest.raises(ParseError, match=r"sm.xml:2: <fls> content 'a\\x7f' holds"):
        xdiv.imine.read_imine_hierarchy(imine)


@pytest.mark.parametrize("weight", ["1_0", "nan", "0x1p-2"])
def test_hierarchy_weights_and_imine_poss_are_decimal_numbers(tmp_path, weight):
    tree = _write(tmp_path / "h.txt", f"1 n1 - {weight} a\n")
    with pytest.raises(InputError, match=rf"h.txt:1: topic 1 node n1: weight '{weight}'"):
        xdiv.hierarchy.read_hierarchy(tree)
    imine = _write(tmp_path / "sm.xml", f'<root><topic id="1"><fls content="a" '
                                        f'poss="{weight}"/></topic></root>')
    with pytest.raises(ParseError, match=rf"sm.xml:1: poss '{weight}' is not a number"):
        xdiv.imine.read_imine_hierarchy(imine)


def test_nul_intent_is_refused_before_the_duplicate_check(tmp_path):
    """A NUL intent label made the duplicate-judgment error lose its file and line."""
    path = _write(tmp_path / "q.txt", "1 a\x00 d 1\n1 a\x00 d 1\n")
    with pytest.raises(ParseError, match=r"q.txt:1: intent 'a\\x00' holds the control"):
        xdiv.read_qrels(path)


def test_duplicate_judgment_names_the_rows_of_labels_numpy_would_trim():
    """numpy compares scalars as <U strings, which drop a trailing NUL: the rows of the
    duplicate were not found and the message began with ': topic ...'."""
    qrels = pd.DataFrame({"topic": ["1", "1", "1"], "intent": ["a\x00", "a", "a\x00"],
                          "docno": ["d", "d", "d"], "level": [1, 1, 1]})
    with pytest.raises(InputError, match=r"^<DataFrame> row 0, <DataFrame> row 2: topic 1 "):
        xdiv.build_collection(qrels)


@pytest.mark.parametrize("layout", [" ", "  ", "\t"])
def test_a_run_without_its_q0_column_is_named_as_such(tmp_path, layout):
    lines = ["1 clueweb09-en0000-00-00000 1 8771.0000 tag",
             "1 clueweb09-en0000-00-00001 2 8770.5000 tag"]
    path = _write(tmp_path / "r.txt", "".join(line.replace(" ", layout) + "\n"
                                              for line in lines))
    with pytest.raises(ParseError, match=r"r.txt:1: found 5 fields where a run line has 6 "
                                         r"\(topic Q0 docno rank score run\): the Q0 column "
                                         r"is missing \('clueweb09-en0000-00-00000' stands"):
        xdiv.read_run(path)


def test_a_line_without_its_tag_needs_its_q0(tmp_path):
    # with Q0, the tag may be left out (the run is named after the file, with a warning)
    path = _write(tmp_path / "r.txt", "1 Q0 a 1 2.5\n1 Q0 b 2 1.5\n")
    with pytest.warns(xdiv.XdivWarning, match="no run tag column"):
        assert xdiv.io.read_run_frame(path)["docno"].tolist() == ["a", "b"]
    # without it, the line is ambiguous: "1 d1 1 5 2009" would read docno '1'
    for text in ("1 0 a 1 2.5\n", "1 a 1 5 2009\n", "1  a 1 5 2009\n"):
        path = _write(tmp_path / "r.txt", text)
        with pytest.raises(ParseError, match=r"r.txt:1: found 5 fields where a run line "
                                             r"has 6"):
            xdiv.read_run(path)
