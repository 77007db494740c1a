"""A fuzzing campaign over NTCIREVAL's files as xdiv reads them (issue 36, item 3): Dqrels
and adhoc NTCIR qrels through ``xdiv.read_qrels(format="ntcir")`` with an Iprob/DINprob
file, and the per-topic ``rel``, ``relv`` and ``res`` files of :mod:`xdiv.io.ntcir`.

Files are drawn by a seeded generator from ordinary lines and every kind of damage: levels
that are not ``L<digits>`` (``2``, ``L-1``, ``l1``, ``L1.0``, ``L128``), a positive level
under intent 0 (refused beside another intent of its topic), missing and extra fields,
empty fields and control characters (with a ``;`` separator), duplicates, blank lines,
CRLF and tab layouts, probabilities that are not decimal numbers, intent types other than
``inf``/``nav``.

Each input is either

- **refused**: one :class:`~xdiv.errors.XdivError` of one line naming the file and the
  first bad line, computed here independently of the package; or
- **accepted, checked**: the collection's levels, judged documents and probabilities (as
  given, ``renormalise=False``) equal those of a reference parse written here, and
  writing the collection back as a Dqrels file and reading it again gives the same
  collection.

No input may raise anything else or hang (a time limit per input).
"""

from __future__ import annotations

import random
import re
import warnings

import pytest

import xdiv
from xdiv.core.collection import qrels_frame
from xdiv.errors import XdivError
from xdiv.io import ntcir

from ..helpers import time_limit

LEVEL = re.compile(r"L([0-9]+)")
NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")

GOOD_LEVELS = ["L0", "L1", "L2", "L3", "L0", "L1", "L9", "L10", "L01"]
BAD_LEVELS = ["2", "L-1", "l1", "L1.0", "L128", "L", "LL1", "L+1", "L 1", "L\u0661"]
GOOD_PROBS = ["0.5", "0.25", "0.1429", "1", ".5", "1e-3", "0", "0.5714"]
BAD_PROBS = ["nan", "-0.1", "0x1p-2", "1_0", "inf", "1,5", "half", ""]
TYPES = ["inf", "nav", "inf", "nav", "inv", "inav", "NAV", ""]


def _line(rng: random.Random, fields: list[str], sep: str) -> str:
    if rng.random() < 0.01:
        fields = fields[:-1]
    elif rng.random() < 0.01:
        fields = [*fields, "x"]
    if rng.random() < 0.01:
        k = rng.randrange(len(fields))
        fields[k] = fields[k][:1] + rng.choice("\x00\x1b\x7f\x01") + fields[k][1:]
    if sep == ";" and rng.random() < 0.01:
        fields[rng.randrange(len(fields))] = ""
    joiner = sep if sep == ";" else rng.choice([" ", " ", "\t", "  "])
    return joiner.join(fields)


def _dqrels_text(rng: random.Random, sep: str, adhoc: bool) -> str:
    lines = []
    for _ in range(rng.randint(1, 14)):
        topic = rng.choice(["1", "2", "0003"])
        intent = rng.choice(["0", "0", "1", "2", "3"])
        level = rng.choice(BAD_LEVELS) if rng.random() < 0.015 else rng.choice(GOOD_LEVELS)
        if intent == "0" and rng.random() < 0.9:
            level = "L0"
        docno = rng.choice([f"d{k}" for k in range(1, 25)] + ["d 5" if sep == ";" else "d5"])
        fields = [topic, docno, level] if adhoc else [topic, intent, docno, level]
        lines.append(_line(rng, fields, sep))
        if rng.random() < 0.03:
            lines.append("")
    end = rng.choice(["\n", "\n", "\r\n"])
    return end.join(lines) + end


def _iprob_text(rng: random.Random, sep: str) -> str:
    lines = []
    for topic in ["1", "2", "0003"]:
        for intent in ["1", "2", "3"]:
            if rng.random() < 0.03:
                continue
            prob = rng.choice(BAD_PROBS) if rng.random() < 0.01 else rng.choice(GOOD_PROBS)
            kind = (rng.choice(TYPES) if rng.random() < 0.05 else rng.choice(TYPES[:2])) \
                if rng.random() < 0.5 else None
            fields = [topic, intent, prob] + ([kind] if kind is not None else [])
            lines.append(_line(rng, fields, sep))
    if rng.random() < 0.05 and lines:
        lines.append(lines[0])
    return "\n".join(lines) + "\n"


def _split(line: str, sep: str | None) -> list[str]:
    return line.strip(" \t").split() if sep is None else line.split(sep)


def _bad_label(value: str) -> bool:
    return value == "" or CONTROL.search(value) is not None


def _reference_dqrels(text: str, sep: str | None):
    """``(first bad line or None, lines as (topic, intent, docno, level))``."""
    rows, seen, width = [], {}, None
    relevant_zero, other_intent = set(), set()  # topics where intent 0 is relevant / not
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip(" \t"):
            continue
        fields = _split(line, sep)
        width = width or (len(fields) if len(fields) in (3, 4) else -1)
        if len(fields) != width:
            return number, rows
        if width == 3:
            fields = [fields[0], "0", fields[1], fields[2]]
        topic, intent, docno, label = fields
        found = LEVEL.fullmatch(label)
        if any(map(_bad_label, fields[:3])) or found is None or int(found.group(1)) > 127:
            return number, rows
        level = int(found.group(1))
        if width == 4 and intent != "0":
            if topic in relevant_zero:  # intent 0 is relevant: the topic's only intent
                return number, rows
            other_intent.add(topic)
        if width == 4 and intent == "0" and level > 0:
            if topic in other_intent:  # intent 0 marks judged non-relevant documents
                return number, rows
            relevant_zero.add(topic)
        if (topic, intent, docno) in seen:
            return (seen[topic, intent, docno], number), rows
        seen[topic, intent, docno] = number
        rows.append((topic, intent, docno, level))
    return None, rows


def _reference_iprob(text: str, sep: str | None):
    rows, seen = {}, set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip(" \t"):
            continue
        fields = _split(line, sep)
        if len(fields) not in (3, 4) or any(map(_bad_label, fields[:2])):
            return number, rows
        if not NUMBER.fullmatch(fields[2]) or float(fields[2]) < 0:
            return number, rows
        if len(fields) == 4 and fields[3] not in ("inf", "nav"):
            return number, rows
        if tuple(fields[:2]) in seen:
            return number, rows
        seen.add(tuple(fields[:2]))
        rows[fields[0], fields[1]] = (float(fields[2]),
                                      fields[3] if len(fields) == 4 else "inf")
    return None, rows


def _check_refusal(error: XdivError, path, bad) -> None:
    text = str(error)
    assert "\n" not in text, text
    if isinstance(bad, tuple):
        assert text.startswith(f"{path}:{bad[0]}, {path}:{bad[1]}: "), (text, bad)
    else:
        assert text.startswith(f"{path}:{bad}: "), (text, bad)


def _one_input(tmp_path, seed: int) -> str:
    rng = random.Random(seed)
    sep = rng.choice([None, None, ";"])
    adhoc = rng.random() < 0.2
    qrels, iprob = tmp_path / f"{seed}.Dqrels", tmp_path / f"{seed}.Iprob"
    qrels.write_bytes(_dqrels_text(rng, sep or " ", adhoc).encode())
    iprob.write_bytes(_iprob_text(rng, sep or " ").encode())
    bad_q, lines = _reference_dqrels(qrels.read_bytes().decode(), sep)
    bad_p, probs = _reference_iprob(iprob.read_text(), sep)
    use_probs = not adhoc and rng.random() < 0.7
    with warnings.catch_warnings(), time_limit(10):
        warnings.simplefilter("ignore")
        try:
            collection = xdiv.read_qrels(qrels, format="ntcir", sep=sep,
                                         probabilities=iprob if use_probs else "uniform")
        except XdivError as error:
            if bad_q is not None:
                _check_refusal(error, qrels, bad_q)
                return "refused"
            if use_probs and bad_p is not None:
                _check_refusal(error, iprob, bad_p)
                return "refused"
            text = str(error)
            assert "\n" not in text, text
            # refusals of the collection itself: an intent with a relevant document but
            # no probability, or a topic whose valid intents all have probability 0
            assert re.search(r"no probability for topic|are all 0|share no topic", text), text
            return "refused"
        assert bad_q is None and (not use_probs or bad_p is None), (bad_q, bad_p)
        frame = qrels_frame(collection)
        got = {(t, i, d): lv for t, i, d, lv in frame.itertuples(index=False, name=None)}
        explicit = {(t, i, d): lv for t, i, d, lv in lines}
        nonrel = {(t, d) for t, i, d, _ in lines if i == "0" and not adhoc}
        for key, level in got.items():
            if key in explicit:
                assert level == explicit[key]
            else:  # an intent-0 document: level 0 for the topic's other intents
                assert level == 0 and (key[0], key[2]) in nonrel, key
        assert {(t, d) for t, _, d in got} == {(t, d) for t, _, d, _ in lines}
        positive = {(t, i, d) for t, i, d, lv in lines if lv > 0}
        assert {k for k, lv in got.items() if lv > 0} == positive
        valid = collection["intent_valid"].to_series()
        prob = collection["intent_prob"].to_series()
        for (topic, intent), ok in valid.items():
            if ok and use_probs:
                assert prob[topic, intent] == probs[topic, intent][0]
                assert collection["intent_type"].sel(topic=topic, intent=intent).item() == \
                    probs[topic, intent][1]
            elif not ok:
                assert prob[topic, intent] == 0
        out = tmp_path / f"{seed}.out.Dqrels"
        ntcir.write_dqrels(out, collection, sep=sep or " ")
        again = xdiv.read_qrels(out, format="ntcir", sep=sep,
                                probabilities=iprob if use_probs else "uniform")
        assert qrels_frame(again).equals(frame)
        assert again["intent_prob"].to_series().equals(collection["intent_prob"]
                                                       .to_series())
    return "accepted"


def _per_topic_input(tmp_path, seed: int) -> str:
    rng = random.Random(seed)
    kind = rng.choice(["rel", "relv", "res"])
    path = tmp_path / f"{seed}.{kind}"
    lines = []
    for _ in range(rng.randint(0, 6)):
        docno = rng.choice([f"d{k}" for k in range(1, 30)])
        bad = rng.random() < 0.05
        value = {"rel": lambda: rng.choice(BAD_LEVELS if bad else GOOD_LEVELS),
                 "relv": lambda: rng.choice(BAD_PROBS if bad else GOOD_PROBS + ["3", "0.9"]),
                 "res": lambda: None}[kind]()
        lines.append(docno if value is None else _line(rng, [docno, value], " "))
        if rng.random() < 0.05:
            lines.append("")
    path.write_text("".join(line + "\n" for line in lines))
    read = {"rel": ntcir.read_rel, "relv": ntcir.read_relv, "res": ntcir.read_res}[kind]
    # reference: the first bad line
    bad, seen, rows = None, {}, []
    blank = None
    for number, line in enumerate(lines, start=1):
        if kind == "res":
            if not line.strip():
                blank = blank or number
                continue
            if blank is not None:
                bad = blank
                break
        elif not line.strip():
            continue
        fields = [line.strip()] if kind == "res" else line.split()
        if kind != "res":
            ok = len(fields) == 2 and not _bad_label(fields[0]) and (
                (LEVEL.fullmatch(fields[1]) is not None and int(fields[1][1:]) <= 127)
                if kind == "rel" else
                (NUMBER.fullmatch(fields[1]) is not None and float(fields[1]) >= 0))
            if not ok:
                bad = number
                break
        elif _bad_label(fields[0]):
            bad = number
            break
        if fields[0] in seen:
            bad = number
            break
        seen[fields[0]] = number
        rows.append(fields)
    with time_limit(10):
        try:
            frame = read(path)
        except XdivError as error:
            assert bad is not None, str(error)
            _check_refusal(error, path, bad)
            return "refused"
    assert bad is None
    assert frame["docno"].tolist() == [f[0] for f in rows]
    if kind == "rel":
        assert frame["level"].tolist() == [int(f[1][1:]) for f in rows]
    if kind == "relv":
        assert frame["gain"].tolist() == [float(f[1]) for f in rows]
    return "accepted"


def _campaign(tmp_path, seeds) -> dict:
    outcomes = {"refused": 0, "accepted": 0}
    for seed in seeds:
        outcomes[_one_input(tmp_path, seed)] += 1
        outcomes[_per_topic_input(tmp_path, seed)] += 1
    return outcomes


def test_ntcir_files_quick(tmp_path):
    """25 seeded inputs of each kind (qrels with probabilities, a per-topic file)."""
    outcomes = _campaign(tmp_path, range(25))
    assert outcomes["refused"] >= 5 and outcomes["accepted"] >= 20, outcomes


@pytest.mark.slow
def test_ntcir_files_campaign(tmp_path):
    """300 seeded inputs of each kind (600 in all)."""
    outcomes = _campaign(tmp_path, range(1000, 1300))
    assert outcomes["refused"] >= 100 and outcomes["accepted"] >= 250, outcomes
