"""TREC Web Track 2009-2014 diversity data read end to end, topic-file checks (unknown
subtopic types, topic files of another year) and the warning of measures that need
intent types. Expected facts come from the raw files, parsed here with gzip and
ElementTree."""

from __future__ import annotations

import gzip
import re
import warnings
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import xdiv
from xdiv import qrels_frame
from xdiv.errors import InputError, ParseError, XdivWarning
from xdiv.measures.registry import registry

from ..conftest import TREC_WEB

YEARS = ["2009", "2010", "2011", "2012", "2013", "2014"]
TYPED = ["Ef-P", "DIN-nDCG", "DIN#-nDCG", "DIN-Q", "DIN#-Q", "P+Q", "P+Q#", "DIN-EBR",
         "DIN-ERR", "DIN-GAP", "DIN-NCUrb", "DIN-P+", "DIN-P-measure", "DIN-RBP",
         "DIN-nDCG-JK", "DIN-nERR"]


def year_files(year: str) -> tuple[Path, Path]:
    """(qrels, topic file) of ``year``, or skip the test."""
    folder = TREC_WEB / year
    xml = sorted(folder.glob("*.xml"))
    if not (folder / "qrels.diversity.gz").exists() or len(xml) != 1:
        pytest.skip(f"../shared/reference/trec-web/{year} is not available")
    return folder / "qrels.diversity.gz", xml[0]


def raw_qrels(path: Path) -> list[tuple[str, str, str, int]]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [(t, i, d, int(level)) for t, i, d, level in map(str.split, fh)]


def raw_topics(path: Path) -> dict[str, tuple[str, list[tuple[str, str | None]]]]:
    """topic -> (topic type, [(subtopic number, type attribute)])."""
    root = ET.parse(path).getroot()
    return {t.get("number"): (t.get("type"), [(s.get("number"), s.get("type"))
                                              for s in t.findall("subtopic")])
            for t in root.iter("topic")}


def read_year(year: str, **kwargs):
    """The collection of ``year`` and the XdivWarnings reading it raised."""
    qrels, xml = year_files(year)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        col = xdiv.read_qrels(qrels, topics=xml, **kwargs)
    return col, [str(w.message) for w in caught if issubclass(w.category, XdivWarning)]


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------- the six years


@pytest.mark.parametrize("year", YEARS)
def test_year_reads_with_its_topics_intents_and_levels(year):
    qrels_path, xml_path = year_files(year)
    lines = raw_qrels(qrels_path)
    topics = raw_topics(xml_path)
    col, caught = read_year(year)

    judged_intents, relevant_intents = defaultdict(set), defaultdict(set)
    for t, i, _, level in lines:
        judged_intents[t].add(i)
        if level > 0:
            relevant_intents[t].add(i)
    assert set(col.topic.values) == set(judged_intents) | set(topics)
    assert col.attrs["topics"] == str(xml_path)

    # topic types and intent types as in the file; unknown types read as inf
    for number, (ttype, subtopics) in topics.items():
        assert col.topic_type.sel(topic=number).item() == ttype
        for sub, stype in subtopics:
            expected = stype if stype in ("inf", "nav") else "inf"
            assert col.intent_type.sel(topic=number, intent=sub).item() == expected

    # intents per topic: the file's subtopics (intent "0" for a topic without any) and
    # every intent judged in the qrels; valid ones are those with a relevant document
    exists = col.intent_exists.to_pandas()
    valid = col.intent_valid.to_pandas()
    for number in col.topic.values:
        listed = ({s for s, _ in topics[number][1]} or {"0"}) if number in topics else set()
        judged, relevant = judged_intents.get(number, set()), relevant_intents.get(number, set())
        assert set(exists.columns[exists.loc[number]]) == listed | judged
        assert set(valid.columns[valid.loc[number]]) == relevant

    # the judgments, spam (-2) and graded levels included, are kept as read
    got = qrels_frame(col)
    assert sorted(got.itertuples(index=False, name=None)) == sorted(lines)
    levels = np.array([level for *_, level in lines])
    assert int(col.level.max()) == levels.max()
    assert int((col.judgment == -2).sum()) == int((levels == -2).sum())
    assert int(col.level.where(col.judgment == -2).max(skipna=True).fillna(0)) == 0

    # the warnings: unknown subtopic types and topics of one file only
    unknown = [(t, s, v) for t, (_, subs) in topics.items() for s, v in subs
               if v not in (None, "inf", "nav")]
    only_file = sorted(set(topics) - set(judged_intents), key=int)
    typed = [m for m in caught if "is neither 'inf' nor 'nav'" in m]
    assert len(typed) == len(unknown)
    for (t, s, v), message in zip(unknown, typed):
        assert f"topic {t} subtopic {s}: type {v!r}" in message
    overlap = [m for m in caught if "the qrels and" in m]
    if only_file:
        assert len(overlap) == 1 and f"only in {xml_path}" in overlap[0]
        assert ", ".join(only_file) in overlap[0]
    else:
        assert overlap == []


@pytest.mark.parametrize("year", YEARS)
def test_year_uses_the_levels_of_its_track(year):
    """2009-2010 binary, 2011+ graded with spam -2, level 4 (navigational) from 2012,
    topics without subtopics ("single") from 2013: read from the files, then checked
    against the collection."""
    qrels_path, xml_path = year_files(year)
    levels = {level for *_, level in raw_qrels(qrels_path)}
    topics = raw_topics(xml_path)
    col, _ = read_year(year)
    positive = {lv for lv in levels if lv > 0}
    assert (positive == {1}) == (year in ("2009", "2010"))
    assert (-2 in levels) == (year >= "2011")
    assert (4 in levels) == (year >= "2012")
    single = [t for t, (ttype, subs) in topics.items() if not subs]
    assert bool(single) == (year >= "2013")
    assert all(topics[t][0] == "single" for t in single)
    for t in single:
        assert col.intent_exists.sel(topic=t).sum().item() == 1
        assert col.intent_type.sel(topic=t, intent="0").item() == "inf"
    judged = col.judgment.values[col.judgment.values != xdiv.core.collection.ABSENT]
    assert set(np.unique(judged).tolist()) == levels


# ---------------------------------------------------------------- unknown subtopic types


def test_trec2011_topics_read_with_two_warnings_and_fail_strict():
    qrels, xml = year_files("2011")
    text = xml.read_text(encoding="utf-8").splitlines()
    line = {v: n for n, row in enumerate(text, start=1) for v in ("inv", "inav")
            if f'type="{v}"' in row}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = xdiv.read_topics(xml)
    messages = [str(w.message) for w in caught]
    assert all(issubclass(w.category, XdivWarning) for w in caught)
    assert len(messages) == 2
    assert re.fullmatch(rf"{re.escape(str(xml))}:{line['inv']}: topic 102 subtopic \d+: type "
                        r"'inv' is neither 'inf' nor 'nav'; read as 'inf' \(informational\)",
                        messages[0])
    assert re.fullmatch(rf"{re.escape(str(xml))}:{line['inav']}: topic 138 subtopic \d+: type "
                        r"'inav' is neither 'inf' nor 'nav'; read as 'inf' \(informational\)",
                        messages[1])
    assert set(frame["intent_type"]) == {"inf", "nav"}
    with pytest.raises(ParseError, match=rf"^{re.escape(str(xml))}:{line['inv']}: topic 102 "
                                         r"subtopic \d+: type 'inv' is neither"):
        xdiv.read_topics(xml, strict=True)
    with pytest.raises(ParseError, match="topic 102 subtopic .*'inv'"):
        xdiv.read_qrels(qrels, topics=xml, strict_topics=True)


def test_unknown_subtopic_type_is_read_as_informational(tmp_path):
    xml = write(tmp_path / "t.xml", '<w>\n<topic number="7" type="faceted"><query>q</query>\n'
                                    '  <subtopic number="1" type="Nav">a</subtopic>\n'
                                    '  <subtopic number="2">b</subtopic>\n'
                                    '  <subtopic number="3" type="nav">c</subtopic>\n'
                                    '</topic>\n</w>\n')
    with pytest.warns(XdivWarning, match=rf"^{re.escape(str(xml))}:3: topic 7 subtopic 1: type "
                                         r"'Nav' is neither 'inf' nor 'nav'; read as 'inf'"):
        frame = xdiv.read_topics(xml)
    assert frame["intent_type"].tolist() == ["inf", "inf", "nav"]  # no type: inf as well
    with pytest.raises(ParseError, match=rf"^{re.escape(str(xml))}:3: topic 7 subtopic 1: "
                                         r"type 'Nav'"):
        xdiv.read_topics(xml, strict=True)


def test_subtopic_or_topic_without_number_is_an_error(tmp_path):
    xml = write(tmp_path / "t.xml", '<w>\n<topic number="7"><query>q</query>\n'
                                    '  <subtopic number="1">a</subtopic>\n'
                                    '  <subtopic type="nav">b</subtopic>\n</topic>\n</w>\n')
    with pytest.raises(ParseError, match=rf"^{re.escape(str(xml))}:4: topic 7: a <subtopic> "
                                         "element has no number attribute$"):
        xdiv.read_topics(xml)
    xml = write(tmp_path / "u.xml", '<w>\n\n<topic><query>q</query></topic>\n</w>\n')
    with pytest.raises(ParseError, match=rf"^{re.escape(str(xml))}:3: a <topic> element has "
                                         "no number attribute$"):
        xdiv.read_topics(xml)


# ---------------------------------------------------------------- topics of another year


def test_topic_file_of_another_year_is_refused():
    qrels, _ = year_files("2009")
    _, xml = year_files("2010")
    with pytest.raises(InputError, match=rf"^{re.escape(str(qrels))}: the qrels share no topic "
                                         rf"with {re.escape(str(xml))} \(the qrels have "
                                         r"topics 1, 2, 3, 4, 5 \.\.\.; .* has 51, 52, "):
        xdiv.read_qrels(qrels, topics=xml)


def test_topics_frame_sharing_no_topic_is_refused(tmp_path):
    qrels = write(tmp_path / "q", "1 1 a 1\n2 1 b 1\n")
    frame = pd.DataFrame({"topic": ["8", "9"], "intent": ["1", "1"]})
    with pytest.raises(InputError, match=rf"^{re.escape(str(qrels))}: the qrels share no "
                                         "topic with the topics frame"):
        xdiv.read_qrels(qrels, topics=frame)
    with pytest.raises(InputError, match="share no topic with the topics frame"):
        xdiv.build_collection(pd.DataFrame({"topic": ["1"], "intent": ["1"], "docno": ["a"],
                                            "level": [1]}), topics=frame)


@pytest.mark.filterwarnings("ignore:.*have no relevant document:xdiv.errors.XdivWarning")
def test_partial_topic_overlap_warns_and_keeps_file_topics(tmp_path):
    qrels = write(tmp_path / "q", "1 1 a 1\n2 1 b 1\n3 1 c 1\n")
    xml = write(tmp_path / "t.xml", "<w>" + "".join(
        f'<topic number="{t}"><subtopic number="1" type="nav">x</subtopic></topic>'
        for t in (2, 3, 4, 10)) + "</w>")
    with pytest.warns(XdivWarning, match=rf"^{re.escape(str(qrels))}: the qrels and "
                                         rf"{re.escape(str(xml))} share 2 topic\(s\); 1 "
                                         r"topic\(s\) only in the qrels, whose intents are all "
                                         r"taken as informational: 1; 2 topic\(s\) only in "
                                         rf"{re.escape(str(xml))}, kept as topics without "
                                         r"judgments \(they score NaN\): 4, 10$"):
        col = xdiv.read_qrels(qrels, topics=xml)
    assert col.topic.values.tolist() == ["1", "2", "3", "4", "10"]
    assert col.intent_type.sel(intent="1").values.tolist() == ["inf", "nav", "nav", "nav", "nav"]
    assert xdiv.core.collection.collection_report(col)["topics_without_relevant"] == ["4", "10"]
    with pytest.warns(XdivWarning, match=r"the qrels and the topics frame share 1 topic\(s\); "
                                         r"2 topic\(s\) only in the qrels"):
        xdiv.read_qrels(qrels, topics=pd.DataFrame({"topic": ["2"], "intent": ["1"]}))


@pytest.mark.filterwarnings("ignore:.*have no relevant document:xdiv.errors.XdivWarning")
def test_trec2010_topics_without_judgments_are_named():
    qrels, xml = year_files("2010")
    only_file = sorted(set(raw_topics(xml)) - {t for t, *_ in raw_qrels(qrels)}, key=int)
    assert only_file  # 2010's topic file lists topics the qrels do not judge
    with pytest.warns(XdivWarning, match=rf"only in {re.escape(str(xml))}, kept as topics "
                                         rf"without judgments \(they score NaN\): "
                                         rf"{', '.join(only_file)}$"):
        col = xdiv.read_qrels(qrels, topics=xml)
    assert set(only_file) <= set(col.topic.values)


# ---------------------------------------------------------------- measures needing types


def test_registry_flags_every_measure_that_depends_on_intent_types():
    """Turning the navigational intents informational changes exactly the flagged
    measures (single-intent and hierarchy families left out)."""
    col, runs = xdiv.datasets.synthetic(n_topics=6, n_runs=2, depth=30, seed=1)
    assert (col.intent_type == "nav").any()
    col = xdiv.set_doc_lengths(col, pd.DataFrame({"docno": np.unique(col.docno.values),
                                                  "length": 500.0}))
    untyped = col.assign(intent_type=col.intent_type.where(col.intent_type != "nav", "inf"))
    defs = {n: d for n, d in registry().items() if d.family not in ("graded", "hierarchy")}
    names = [n if d.cutoff == "none" else f"{n}@10" for n, d in defs.items()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XdivWarning)
        typed = xdiv.evaluate(runs, col, names).score.values
        flat = xdiv.evaluate(runs, untyped, names).score.values
    changed = {n for n, a, b in zip(defs, typed, flat) if not np.allclose(a, b, equal_nan=True)}
    assert changed == {n for n, d in defs.items() if d.uses_intent_types} == set(TYPED)


def test_measures_using_intent_types_warn_without_topics(tmp_path):
    qrels = write(tmp_path / "q", "1 1 a 1\n1 2 b 1\n")
    xml = write(tmp_path / "t.xml", '<w><topic number="1"><subtopic number="1" type="nav">x'
                                    '</subtopic><subtopic number="2">y</subtopic></topic></w>')
    runs = xdiv.read_runs([write(tmp_path / "r", "1 Q0 a 1 2 s\n1 Q0 b 2 1 s\n")])
    bare = xdiv.read_qrels(qrels)
    assert bare.attrs["topics"] == ""
    metrics = ["I-rec@5", "Ef-P@5", "D-nDCG@5", "DIN-nDCG@5", "P+Q#@5"]
    with pytest.warns(XdivWarning, match=r"^Ef-P@5, DIN-nDCG@5, P\+Q#@5: the collection was "
                                         "read without a topic file, so every intent is "
                                         "taken as informational") as caught:
        xdiv.evaluate(runs, bare, metrics)
    assert sum("informational" in str(w.message) for w in caught) == 1
    typed = xdiv.read_qrels(qrels, topics=xml)
    frame = xdiv.read_qrels(qrels, topics=pd.DataFrame({"topic": ["1"], "intent": ["1"]}))
    assert frame.attrs["topics"] == "<DataFrame>"
    with warnings.catch_warnings():
        warnings.simplefilter("error", XdivWarning)
        xdiv.evaluate(runs, typed, metrics)
        xdiv.evaluate(runs, frame, metrics)
        xdiv.evaluate(runs, bare, ["I-rec@5", "D-nDCG@5", "alpha-nDCG@5"])
        xdiv.evaluate(runs, bare, ["P@5", "nDCG@5"], adhoc="max")  # no intent types read
    # the attribute is NetCDF-safe and survives a round trip
    path = xdiv.to_netcdf(typed, tmp_path / "c.nc")
    assert xdiv.open_dataset(path).attrs["topics"] == str(xml)
