"""NTCIR-11 IMine hierarchies and document-ranking qrels (xdiv.imine)."""

from __future__ import annotations

import gzip
import re

import numpy as np
import pandas as pd
import pytest

import xdiv
from xdiv.io.imine import read_imine, read_imine_hierarchy, read_imine_qrels

# Written for these tests in the layout of IMine.Qrel.SM?.xml / IMine.Qrel.DR?.xml
SM = """<?xml version="1.0" encoding="utf-8"?>
<root>
<topic id="0101" content="jaguar">
  <fls content="jaguar_car" poss="0.6">
    <sls content="jaguar_car_models" poss="0.3"><example>jaguar xf</example></sls>
    <sls content="jaguar_car_dealers" poss="0.2"><example>jaguar dealer</example></sls>
    <sls content="jaguar_car_history" poss="0.1"><example>jaguar history</example></sls>
  </fls>
  <fls content="jaguar_animal" poss="0.4">
    <sls content="jaguar_animal_habitat" poss="0.25"><example>where jaguars live</example></sls>
    <sls content="jaguar_animal_pictures" poss="0.15"><example>jaguar photos</example></sls>
  </fls>
</topic>
<topic id="0102" content="python">
  <fls content="python_language" poss="0.9">
    <sls content="python_language_tutorial" poss="0.9"/>
  </fls>
  <fls content="python_snake" poss="0.1"/>
</topic>
</root>
"""
DR = """<?xml version="1.0" encoding="utf-8"?>
<data>
<comment>relevance: 0 inaccessible, 1 irrelevant, 2 relevant, 3 very relevant</comment>
<relevance>
<doc docid="d1" queryid="0101" relevance="3" />
<doc docid="d2" queryid="0101" relevance="2" />
<doc docid="d3" queryid="0101" relevance="1" />
<doc docid="d4" queryid="0101" relevance="0" />
<doc docid="d5" queryid="0101" relevance="2" />
<doc docid="p1" queryid="0102" relevance="3" />
<doc docid="p2" queryid="0102" relevance="2" />
</relevance>
<relevance>
<doc docid="d1" queryid="0101" relevance="3" sls="jaguar_car_models" />
<doc docid="d1" queryid="0101" relevance="3" sls="jaguar_car_dealers" />
<doc docid="d2" queryid="0101" relevance="2" sls="jaguar_animal_habitat" />
<doc docid="d5" queryid="0101" relevance="2" sls="jaguar_car_history" />
<doc docid="p1" queryid="0102" relevance="3" sls="python_language_tutorial" />
<doc docid="p2" queryid="0102" relevance="2" sls="python_snake" />
</relevance>
</data>
"""


@pytest.fixture
def files(tmp_path):
    sm, dr = tmp_path / "IMine.Qrel.SME.xml", tmp_path / "IMine.Qrel.DRE.xml"
    sm.write_text(SM, encoding="utf-8")
    dr.write_text(DR, encoding="utf-8")
    return sm, dr


def _weights(collection, topic):
    t = collection.sel(topic=topic)
    keep = t.node_exists.values
    return dict(zip(t.node.values[keep], np.round(t.node_weight.values[keep], 12).tolist()))


def test_hierarchy_frame_has_two_layers_and_the_given_probabilities(files):
    tree = read_imine_hierarchy(files[0])
    jaguar = tree[tree.topic == "0101"].set_index("node")
    assert jaguar.loc["jaguar_car", "parent"] == "" and jaguar.loc["jaguar_car", "intent"] == ""
    assert jaguar.loc["jaguar_car_models", "parent"] == "jaguar_car"
    assert jaguar.loc["jaguar_car_models", "intent"] == "jaguar_car_models"
    assert jaguar["weight"].tolist() == [0.6, 0.3, 0.2, 0.1, 0.4, 0.25, 0.15]
    # a first-level subtopic without second-level ones is a leaf standing for itself
    snake = tree[(tree.topic == "0102") & (tree.node == "python_snake")].iloc[0]
    assert (snake.parent, snake.intent) == ("", "python_snake")


def test_qrels_follow_the_organisers_level_conversion(files):
    qrels = read_imine_qrels(files[1])
    got = {(r.topic, r.intent, r.docno): r.level for r in qrels.itertuples()}
    assert got[("0101", "jaguar_car_models", "d1")] == 2      # very relevant -> L2
    assert got[("0101", "jaguar_animal_habitat", "d2")] == 1  # relevant -> L1
    assert got[("0101", "0", "d3")] == 0                      # judged, serves no subtopic
    assert got[("0101", "0", "d4")] == -1                     # inaccessible
    assert ("0101", "0", "d1") not in got                     # d1 serves subtopics
    raw = read_imine_qrels(files[1], levels="raw")
    assert raw.level.max() == 3 and raw.level.min() == 0


def test_collection_weights_by_hand(files):
    nb = read_imine(*files, weights="NB")
    # jaguar_animal_pictures has no relevant document: pruned, then NB renormalises the
    # leaves .3, .2, .1, .25 (sum .85) and sums them upwards
    assert _weights(nb, "0101") == pytest.approx({
        "jaguar_car": 0.6 / 0.85, "jaguar_car_models": 0.3 / 0.85,
        "jaguar_car_dealers": 0.2 / 0.85, "jaguar_car_history": 0.1 / 0.85,
        "jaguar_animal": 0.25 / 0.85, "jaguar_animal_habitat": 0.25 / 0.85})
    assert nb.attrs["removed_nodes"] == '{"0101": ["jaguar_animal_pictures"]}'
    probs = nb.intent_prob.sel(topic="0101").to_series()
    assert probs["jaguar_car_models"] == pytest.approx(0.3 / 0.85)
    assert probs["0"] == 0 and probs["jaguar_animal_pictures"] == 0
    nt = read_imine(*files, weights="NT")
    # NT: first-level .6/.4 as given, second level renormalised within each parent
    assert _weights(nt, "0101") == pytest.approx({
        "jaguar_car": 0.6, "jaguar_car_models": 0.3, "jaguar_car_dealers": 0.2,
        "jaguar_car_history": 0.1, "jaguar_animal": 0.4, "jaguar_animal_habitat": 0.4})
    # EIH extends the childless first-level subtopic by one node
    assert _weights(nt, "0102") == pytest.approx({
        "python_language": 0.9, "python_language_tutorial": 0.9, "python_snake": 0.1,
        "python_snake+1": 0.1})


def test_coarse_grain_is_the_first_layer(files):
    """layer_weights=(1, 0) scores only the first-level subtopics: D#-nDCG-LA then equals
    flat D#-nDCG on qrels mapped to first-level subtopics by the highest level (the
    organisers' coarse-grain files), with Pr(fls|q) as the intent probabilities."""
    coarse_h = read_imine(*files, weights="NT", layer_weights=(1, 0))
    tree = read_imine_hierarchy(files[0])
    parent = {(t, n): (p or n) for t, n, p in zip(tree.topic, tree.node, tree.parent)}
    qrels = read_imine_qrels(files[1])
    qrels = qrels[qrels.intent != "0"]
    qrels = qrels.assign(
        intent=[parent[(t, i)] for t, i in zip(qrels.topic, qrels.intent)])
    qrels = qrels.groupby(["topic", "intent", "docno"], as_index=False)["level"].max()
    first = tree[tree.parent == ""].drop(columns="intent").rename(
        columns={"node": "intent", "weight": "probability"})
    flat = xdiv.build_collection(qrels, probabilities=first[["topic", "intent", "probability"]]
                                 [first.intent.isin(set(qrels.intent))])
    run = pd.DataFrame({"run": "r", "topic": ["0101"] * 4 + ["0102"] * 2,
                        "docno": ["d3", "d2", "d1", "d5", "p2", "p1"],
                        "score": [4.0, 3, 2, 1, 2, 1]})
    runs = xdiv.build_runs(run)
    hier = xdiv.evaluate(runs, coarse_h, ["D#-nDCG-LA@3", "I-rec-LA@3"]).score
    plain = xdiv.evaluate(runs, flat, ["D#-nDCG@3", "I-rec@3"]).score
    np.testing.assert_allclose(hier.values, plain.values, atol=1e-12)
    assert float(plain.sel(metric="I-rec@3", topic="0101", run="r")) == 1.0


@pytest.mark.parametrize("body, message", [
    ('<topic id="1"><fls content="a" poss="x"/></topic>', r":1: poss 'x' is not a number"),
    ('<topic id="1">\n<fls content="a" poss="0.5"/>\n<fls content="a" poss="0.5"/></topic>',
     r":3: topic 1: subtopic 'a' is listed twice \(first at line 2\)"),
    ('<topic id="1">\n<sls content="a" poss="1"/></topic>', r":2: topic 1: <sls> 'a' is not"),
    ('<fls content="a" poss="1"/>', r":1: <fls> outside a <topic>"),
    ('<topic id="1">\n<fls poss="1"/></topic>', r":2: <fls> has no content attribute"),
    ('<topic id="1">\n<fls content="a" poss="1"></topic>', r":2: not well-formed XML"),
    ('<topic id="1"></topic>', r"no <topic> with <fls> subtopics found"),
])
def test_bad_hierarchy_files_name_the_line(tmp_path, body, message):
    path = tmp_path / "sm.xml"
    path.write_text(f"<root>{body}</root>")
    with pytest.raises(xdiv.ParseError, match=message):
        read_imine_hierarchy(path)


@pytest.mark.parametrize("body, message", [
    ('<doc docid="a" queryid="1" relevance="4"/>', r":1: relevance '4' is not one of"),
    ('<doc docid="a" queryid="1" relevance="2" sls="x"/>\n'
     '<doc docid="a" queryid="1" relevance="2" sls="x"/>',
     r":2: topic 1 docno a: subtopic 'x' is judged twice \(first at line 1\)"),
    ('<doc queryid="1" relevance="2"/>', r":1: <doc> has no docid attribute"),
])
def test_bad_qrels_files_name_the_line(tmp_path, body, message):
    path = tmp_path / "dr.xml"
    path.write_text(f"<data>{body}</data>")
    with pytest.raises(xdiv.ParseError, match=message):
        read_imine_qrels(path)


@pytest.mark.parametrize("text, read, line", [
    # truncated inside a tag, then between elements
    (SM[:SM.index("jaguar_car_dealers")], read_imine_hierarchy, 6),
    (SM[:SM.index("</fls>")], read_imine_hierarchy, 8),
    # a lost start tag: the <sls> of line 5 is outside an <fls>, but the file is damaged
    (SM.replace('<fls content="jaguar_car" poss="0.6">', ""), read_imine_hierarchy, 8),
    # two lines merged: the <doc> of line 11 lacks queryid, and </relevance> is lost
    (DR.replace('<doc docid="p2" queryid="0102" relevance="2" />\n</relevance>',
                '<doc docid="p2" relevance="2" />'), read_imine_qrels, 20),
])
def test_malformed_xml_is_reported_before_any_element_check(tmp_path, text, read, line):
    """A damaged file fails as not well-formed at the damage, not by the check an element
    near it fails first (an <sls> outside its <fls>, a <doc> without queryid, ...)."""
    path = tmp_path / "damaged.xml"
    path.write_text(text)
    with pytest.raises(xdiv.ParseError, match=rf"^{re.escape(str(path))}:{line}: not "
                                              "well-formed XML") as info:
        read(path)
    assert info.value.line == line


@pytest.mark.parametrize("read", [read_imine_hierarchy, read_imine_qrels])
def test_unreadable_files_are_named(tmp_path, read):
    latin = tmp_path / "latin.xml"
    latin.write_bytes('<root>\n<topic id="caf\xe9"/></root>'.encode("latin-1"))
    with pytest.raises(xdiv.InputError, match=rf"^{re.escape(str(latin))}:2: not a UTF-8 text "
                                              r"file \(byte 0xe9 at offset 21\)$"):
        read(latin)
    with pytest.raises(xdiv.InputError, match=rf"^{re.escape(str(tmp_path))}: is a directory, "
                                              "not a file$"):
        read(tmp_path)
    data = gzip.compress(SM.encode())
    truncated = tmp_path / "sm.xml.gz"
    truncated.write_bytes(data[:len(data) // 2])
    with pytest.raises(xdiv.InputError, match=rf"^{re.escape(str(truncated))}: corrupt gzip "
                                              "data"):
        read(truncated)


def test_qrels_subtopics_missing_from_the_hierarchy_are_an_error(files, tmp_path):
    dr = tmp_path / "dr2.xml"
    dr.write_text(DR.replace('sls="jaguar_car_history"', 'sls="jaguar_car_price"'))
    with pytest.raises(xdiv.ParseError, match="subtopic 'jaguar_car_price' is not a leaf"):
        read_imine(files[0], dr)
