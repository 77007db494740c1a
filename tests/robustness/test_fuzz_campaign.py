"""A fuzzing campaign over every text reader, the readers that build datasets, the NetCDF
cube reader and the commands, in process.

Each input is a clean file with one to three mutations drawn by a seeded generator (fields
added, dropped or replaced by other spellings of numbers, bytes flipped or inserted,
lines duplicated, cut or joined, control characters, other encodings and line ends, gzip,
truncation). Each outcome is classified:

- ``clean error``: an ``XdivError`` of one line that starts with the file's path (on the
  command line: exit status 2 and one ``xdiv: error:`` line naming an input);
- ``accepted, checked``: the input was read and an independent reference reader of the
  documented grammar (below) agrees, row for row and value for value;
- ``traceback``: any other exception;
- ``hang``: no answer within the time limit;
- ``silent-wrong``: the input was read but the reference reader refuses it or reads
  other values.

Only the first two are allowed. The grammar (docs/conventions.md): fields are separated by
spaces or tabs, lines by LF, CRLF or CR; a leading byte-order mark is skipped; identifiers
hold no control character; grades and ranks are decimal integers, scores, probabilities
and lengths decimal numbers, finite.
"""

from __future__ import annotations

import functools
import gzip
import io
import math
import re
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import xdiv
import xdiv.hierarchy
import xdiv.imine
import xdiv.io
from xdiv import cli
from xdiv.cli import main
from xdiv.official import plain

from ..helpers import TOOL_REFUSAL_STATUS, Hang, time_limit

INTEGER = re.compile(r"[+-]?[0-9]+")
DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
SPELLINGS = ["0", "1", "-2", "+3", "007", "1.5", "1e2", "1E-3", ".5", "5.", "0x10", "1_000",
             "true", "false", "True", "nan", "NaN", "inf", "-inf", "1e999", "½", "١", "",
             "99999999999999999999", "-", "1,5", "0b1", "1e", "e5", "--1", "1.2.3"]


def _lines(text: str) -> list[str]:
    lines = re.split(r"\r\n|\r|\n", text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _integer(field: str) -> int:
    if not INTEGER.fullmatch(field):
        raise ValueError(field)
    return int(field)


def _decimal(field: str) -> float:
    if not DECIMAL.fullmatch(field) or not math.isfinite(float(field)):
        raise ValueError(field)
    return float(field)


def _identifier(field: str) -> str:
    if CONTROL.search(field):
        raise ValueError(field)
    return field


def _table(data: bytes, kinds: list[str], optional_last: bool = False) -> list[tuple]:
    """The reference reader: rows of the typed fields, or ValueError."""
    text = data.decode("utf-8")  # UnicodeDecodeError is a ValueError
    if text.startswith("\ufeff"):
        text = text[1:]
    rows = []
    for line in _lines(text):
        if CONTROL.search(line.replace("\t", " ")):
            raise ValueError("control character")
        fields = [f for f in re.split(r"[ \t]+", line) if f]  # spaces and tabs only
        if not fields:
            continue
        if not (len(fields) == len(kinds) or (optional_last and len(fields) == len(kinds) - 1)):
            raise ValueError("field count")
        convert = {"id": _identifier, "int": _integer, "num": _decimal}
        rows.append(tuple(convert[k](f) for k, f in zip(kinds, fields)))
    if not rows:
        raise ValueError("no rows")
    return rows


def _expected_qrels(data):
    return [(t, i, d, lv) for t, i, d, lv in _table(data, ["id", "id", "id", "int"])]


def _got_qrels(frame):
    return list(zip(frame["topic"], frame["intent"], frame["docno"],
                    frame["level"].astype(int)))


def _expected_run(data):
    rows = _table(data, ["id", "id", "id", "int", "num", "id"], optional_last=True)
    if any(r[1] != "Q0" and len(r) == 5 for r in rows):
        raise ValueError("Q0 missing")
    return [(t, d, rank, score) for t, _, d, rank, score, *_ in rows]


def _got_run(frame):
    return list(zip(frame["topic"], frame["docno"], frame["rank"].astype(int),
                    frame["score"].astype(float)))


def _expected_probabilities(data):
    rows = _table(data, ["id", "id", "num"])
    if any(p < 0 for *_, p in rows):
        raise ValueError("negative")
    return rows


def _got_probabilities(frame):
    return list(zip(frame["topic"], frame["intent"], frame["probability"].astype(float)))


def _expected_lengths(data):
    rows = _table(data, ["id", "num"])
    if any(n < 0 for _, n in rows):
        raise ValueError("negative")
    return rows


def _got_lengths(frame):
    return list(zip(frame["docno"], frame["length"].astype(float)))


CLEAN = {
    "qrels": "1 1 a 1\n1 2 b 2\n1 1 c 0\n2 1 x 1\n2 2 y -2\n10 1 clueweb09-en0000-00-00001 3\n",
    "run": ("1 Q0 a 1 3.5 r\n1 Q0 b 2 2.25 r\n1 Q0 z 3 1 r\n2 Q0 x 1 4 r\n2 Q0 y 2 3e-1 r\n"
            "10 Q0 clueweb09-en0000-00-00001 1 -4.5e-05 r\n"),
    "probabilities": "1 1 0.75\n1 2 0.25\n2 1 0.5\n2 2 0.5\n",
    "lengths": "a 120\nb 80\nc 7\nx 1000\n",
}
CHECKED = {  # reader, reference reader, what the reader's frame says
    "qrels": (xdiv.io.read_qrels_frame, _expected_qrels, _got_qrels),
    "run": (xdiv.io.read_run_frame, _expected_run, _got_run),
    "probabilities": (xdiv.read_probabilities, _expected_probabilities, _got_probabilities),
    "lengths": (xdiv.io.read_doc_lengths, _expected_lengths, _got_lengths),
}
UNCHECKED = {  # readers whose accepted output is only checked for its shape
    "hierarchy": (xdiv.hierarchy.read_hierarchy,
                  "# topic node parent weight intent\n1 n1 - 1 1\n1 n2 n1 1 2\n2 m1 - 1 1\n"),
    "topics": (xdiv.read_topics,
               '<webtrack2009>\n<topic number="1" type="faceted">\n<query>q one</query>\n'
               '<subtopic number="1" type="nav">s</subtopic>\n'
               '<subtopic number="2" type="inf">t</subtopic>\n</topic>\n</webtrack2009>\n'),
    "imine": (xdiv.imine.read_imine_hierarchy,
              '<?xml version="1.0" encoding="utf-8"?>\n<root>\n'
              '<topic id="0101" content="jaguar">\n<fls content="car" poss="0.6">\n'
              '<sls content="car_models" poss="0.3"/>\n<sls content="car_dealers" '
              'poss="0.7"/>\n</fls>\n<fls content="animal" poss="0.4"/>\n</topic>\n</root>\n'),
}


MUTATIONS = ["spelling", "spelling", "spelling", "extra", "drop", "dup", "cut", "join",
             "control", "byte", "crlf", "cr", "tabs", "bom", "blank", "unicode", "long"]


def _pick(rng: np.random.Generator, items: list):
    """``rng.choice(items)`` as the item itself: the same draw from the generator
    (``integers(0, len(items))``) without making an array of ``items`` each time."""
    return items[int(rng.integers(0, len(items)))]


def _mutate(text: str, rng: np.random.Generator) -> bytes:
    """One to three mutations of ``text``."""
    data = text
    for _ in range(int(rng.integers(1, 4))):
        lines = data.split("\n")
        k = int(rng.integers(0, max(len(lines) - 1, 1)))
        fields = lines[k].split(" ")
        kind = _pick(rng, MUTATIONS)
        if kind == "spelling" and fields:
            fields[int(rng.integers(0, len(fields)))] = _pick(rng, SPELLINGS)
            lines[k] = " ".join(fields)
        elif kind == "extra":
            lines[k] += " " + _pick(rng, SPELLINGS + ["x", "Q0"])
        elif kind == "drop" and len(fields) > 1:
            fields.pop(int(rng.integers(0, len(fields))))
            lines[k] = " ".join(fields)
        elif kind == "dup":
            lines.insert(k, lines[k])
        elif kind == "cut":
            lines[k] = lines[k][:int(rng.integers(0, len(lines[k]) + 1))]
        elif kind == "join" and k + 1 < len(lines):
            lines[k:k + 2] = [lines[k] + " " + lines[k + 1]]
        elif kind == "control":
            char = chr(_pick(rng, [0, 1, 7, 8, 11, 12, 27, 31, 127]))
            at = int(rng.integers(0, len(lines[k]) + 1))
            lines[k] = lines[k][:at] + char + lines[k][at:]
        elif kind == "unicode":
            at = int(rng.integers(0, len(lines[k]) + 1))
            lines[k] = lines[k][:at] + _pick(rng, ["é", "\u00a0", "\u2028", "\u3000", "\U0001f600",
                                                "\u200b"]) + lines[k][at:]
        elif kind == "long":
            lines[k] += " " + "x" * int(rng.integers(1, 5000))
        data = "\n".join(lines)
        if kind == "crlf":
            data = data.replace("\n", "\r\n")
        elif kind == "cr":
            data = data.replace("\n", "\r")
        elif kind == "tabs":
            data = data.replace(" ", "\t")
        elif kind == "bom":
            data = "\ufeff" + data
        elif kind == "blank":
            data = data + "\n\n"
    raw = data.encode("utf-8", "surrogatepass")
    roll = rng.random()
    if roll < 0.05:
        at = int(rng.integers(0, max(len(raw), 1)))
        raw = raw[:at] + bytes([int(rng.integers(0, 256))]) + raw[at + 1:]
    elif roll < 0.08:
        raw = raw.decode("utf-8", "replace").encode("latin-1", "replace")
    elif roll < 0.10:
        raw = raw[:int(rng.integers(0, len(raw) + 1))]
    if rng.random() < 0.1:
        raw = gzip.compress(raw)
        if rng.random() < 0.2:
            raw = raw[:int(rng.integers(1, len(raw)))]
    return raw




def _is_clean_error(exc: BaseException, paths: list[str]) -> bool:
    message = str(exc)
    return (isinstance(exc, xdiv.XdivError) and "\n" not in message
            and any(message.startswith(p) for p in paths))


def _plain(raw: bytes) -> bytes | None:
    """The decompressed bytes, or None for damaged gzip data."""
    if raw[:2] != b"\x1f\x8b":
        return raw
    try:
        return gzip.decompress(raw)
    except (OSError, EOFError):
        return None


def _write(path: Path, raw: bytes) -> None:
    """``raw`` in a new file at ``path``: rewriting a file in place makes ext4 (its
    auto_da_alloc) write the old blocks out first, ten times as long as a new file."""
    path.unlink(missing_ok=True)
    path.write_bytes(raw)


def _classify_reader(kind: str, raw: bytes, path: Path) -> tuple[str, str]:
    _write(path, raw)
    checked = CHECKED.get(kind)
    read = checked[0] if checked else UNCHECKED[kind][0]
    try:
        with time_limit(10), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = read(path)
    except Hang:
        return "hang", repr(raw[:200])
    except Exception as exc:  # noqa: BLE001  (classified, not hidden)
        if _is_clean_error(exc, [str(path)]):
            return "clean error", ""
        return "traceback", f"{type(exc).__name__}: {str(exc)[:300]} <- {raw[:200]!r}"
    if checked is None:
        ok = len(got) > 0 and not got.isna().all(axis=None)
        return ("accepted, checked", "") if ok else ("silent-wrong", repr(raw[:200]))
    plain = _plain(raw)
    try:
        expected = checked[1](plain)
    except (ValueError, TypeError):
        return "silent-wrong", f"accepted, reference refuses: {raw[:200]!r}"
    found = checked[2](got)
    same = len(found) == len(expected) and all(
        all(a == b if isinstance(b, (str, int)) and not isinstance(b, bool)
            else np.isclose(float(a), float(b), rtol=1e-15, atol=0) for a, b in zip(x, y))
        for x, y in zip(found, expected))
    return (("accepted, checked", "") if same
            else ("silent-wrong", f"{found[:3]} != {expected[:3]} <- {raw[:200]!r}"))


def _pipeline(kind: str, raw: bytes, folder: Path) -> tuple[str, str]:
    """The dataset builders: read_qrels and read_runs on a mutated file."""
    path = folder / f"{kind}.in"
    _write(path, raw)
    try:
        with time_limit(10), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if kind == "qrels":
                out = xdiv.read_qrels(path)
            else:
                out = xdiv.read_runs([path])
    except Hang:
        return "hang", repr(raw[:200])
    except Exception as exc:  # noqa: BLE001
        if _is_clean_error(exc, [str(path)]):
            return "clean error", ""
        return "traceback", f"{type(exc).__name__}: {str(exc)[:300]} <- {raw[:200]!r}"
    frame = xdiv.qrels_frame(out) if kind == "qrels" else xdiv.runs_frame(out)
    plain = _plain(raw)
    try:
        expected = (_expected_qrels if kind == "qrels" else _expected_run)(plain)
    except (ValueError, TypeError):
        return "silent-wrong", f"accepted, reference refuses: {raw[:200]!r}"
    if kind == "qrels":
        got = sorted((t, i, d, int(lv)) for t, i, d, lv in _got_qrels(frame))
        ok = got == sorted(set(expected)) and len(set(expected)) == len(expected)
    else:
        ok = sorted(set(frame["docno"])) == sorted({d for _, d, _, _ in expected})
    return ("accepted, checked", "") if ok else ("silent-wrong", repr(raw[:200]))


COMMANDS = {
    "evaluate": lambda q, r: ["evaluate", q, r, "-m", "alpha-nDCG@5,nDCG@5,ERR-IA@5"],
    "ndeval": lambda q, r: ["ndeval", q, r],
    "ndeval-baseline": lambda q, r: ["ndeval", "-baseline", r, q, r],
    "gdeval": lambda q, r: ["gdeval", "--adhoc", "max", q, r],
}


def _command(name: str, qrels: Path, run: Path, capsys) -> tuple[str, str]:
    capsys.readouterr()
    try:
        with time_limit(20):
            status = main(["-q", *COMMANDS[name](str(qrels), str(run))])
    except Hang:
        return "hang", name
    except BaseException as exc:  # noqa: BLE001  (a command must not raise)
        return "traceback", f"{name}: {type(exc).__name__}: {str(exc)[:300]}"
    captured = capsys.readouterr()
    err = captured.err
    if status == 0:
        # the values are those of the readers, checked above; here the layout: ndeval and
        # gdeval print rows of at least as many fields as their header (a run tag, the
        # first field, may hold commas, as it may for the official tools), evaluate a table
        lines = captured.out.strip("\n").split("\n")  # labels may hold U+2028 and the like
        ok = bool(lines) and (name == "evaluate" or all(
            line.count(",") >= lines[0].count(",") for line in lines))
        return ("accepted, checked", "") if ok else ("silent-wrong", f"{name}: {captured.out[:300]}")
    lines = err.strip().splitlines()
    if (status == 2 and len(lines) == 1 and lines[0].startswith("xdiv: error: ")
            and any(lines[0][len("xdiv: error: "):].startswith(str(p)) for p in (qrels, run))):
        return "clean error", ""
    if (status in TOOL_REFUSAL_STATUS.get(name.split("-")[0], ()) and len(lines) == 1
            and lines[0].startswith("xdiv: error: ") and f'"{run}"' in lines[0]):
        return "clean error", ""  # a run line the tool itself refuses, in its words
    return "traceback", f"{name}: exit {status}: {err[:300]}"


def campaign(n_inputs: int, seed: int, folder: Path, capsys) -> tuple[Counter, list]:
    """Classify ``n_inputs`` mutated inputs: 75 % to the text readers, 20 % to the dataset
    builders, 5 % to the commands (a command costs as much as twenty reads; the drop-in
    commands have a campaign of their own in test_official_children_fuzz.py)."""
    rng = np.random.default_rng(seed)
    counts, failures = Counter(), []
    kinds = list(CHECKED) + list(UNCHECKED)
    for k in range(n_inputs):
        roll = rng.random()
        if roll < 0.75:
            kind = kinds[k % len(kinds)]
            text = CLEAN[kind] if kind in CLEAN else UNCHECKED[kind][1]
            outcome, detail = _classify_reader(kind, _mutate(text, rng), folder / f"{kind}.in")
        elif roll < 0.95:
            kind = "qrels" if rng.random() < 0.5 else "run"
            outcome, detail = _pipeline(kind, _mutate(CLEAN[kind], rng), folder)
        else:
            kind = _pick(rng, list(COMMANDS))
            which = "qrels" if rng.random() < 0.5 else "run"
            qrels, run = folder / "cmd-qrels", folder / "cmd-run"
            _write(qrels, _mutate(CLEAN["qrels"], rng) if which == "qrels"
                   else CLEAN["qrels"].encode())
            _write(run, _mutate(CLEAN["run"], rng) if which == "run" else CLEAN["run"].encode())
            outcome, detail = _command(kind, qrels, run, capsys)
        counts[outcome] += 1
        counts[f"{kind}: {outcome}"] += 1
        if outcome not in ("clean error", "accepted, checked"):
            failures.append(f"{kind}: {outcome}: {detail}")
    return counts, failures


def _report(counts: Counter, failures: list) -> str:
    out = io.StringIO()
    for key in sorted(counts):
        print(f"{counts[key]:7d}  {key}", file=out)
    for line in failures[:20]:
        print(line, file=out)
    return out.getvalue()


def _parser_once(monkeypatch) -> None:
    """The argument parser of each command family built once for the campaign's
    commands, and ndeval's and gdeval's plain path scoring in this process (as
    test_official_children_fuzz.py does; the forked children are tested there and in
    tests/official/test_official_third_audit.py): a fork of the test process costs
    about 25 ms of CPU, twice what the command costs without it (issue 35 item 18)."""
    monkeypatch.setattr(cli, "parser", functools.cache(cli.parser))
    monkeypatch.setattr(plain, "_cores", lambda: 1)


def test_fuzz_campaign_few_hundred_inputs(tmp_path, capsys, monkeypatch):
    _parser_once(monkeypatch)
    counts, failures = campaign(300, seed=20261125, folder=tmp_path, capsys=capsys)
    assert failures == [], _report(counts, failures)
    assert counts["clean error"] > 50 and counts["accepted, checked"] > 50


@pytest.mark.slow
def test_fuzz_campaign_ten_thousand_inputs(tmp_path, capsys, monkeypatch):
    _parser_once(monkeypatch)
    counts, failures = campaign(10_000, seed=1, folder=tmp_path, capsys=capsys)
    with capsys.disabled():
        print("\nfuzz campaign, 10,000 inputs:\n" + _report(counts, failures))
    assert failures == [], _report(counts, failures)
