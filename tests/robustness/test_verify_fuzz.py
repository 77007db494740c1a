"""A fuzzing campaign over what ``xdiv verify`` reads: the provenance record of a result.

A score cube made from small files (in Python, and by ``xdiv evaluate``) is written with
its record damaged at random (seeded): a key removed, a value replaced by another JSON
type or text, a number changed, a recorded size or SHA-256 changed, a word of the
command line replaced, the record cut short. Each damaged file goes through ``xdiv
verify`` (in-process, under a time limit), whose outcome is classified:

- ``clean error``: exit status 2 and one ``xdiv: error:`` line;
- ``verdict``: exit status 0 or 1 and lines ``SUBJECT: VERDICT``, status 0 only when
  every verdict is ``identical``;
- ``traceback``, ``hang``: not allowed;
- ``silent-wrong``: status 0 although a recorded size or SHA-256 was changed (the file no
  longer matches what the record says was read), or a verdict other than identical with
  status 0.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import random
import shutil
import warnings
from collections import Counter

import netCDF4
import pytest

import xdiv
from xdiv import cli
from xdiv.cli import main
from xdiv.cli.verify import VERSION_LINE

from ..helpers import Hang, time_limit

QRELS = "1 1 d1 1\n1 1 d2 2\n1 2 d2 1\n1 2 d3 0\n2 1 d4 1\n2 1 d5 0\n"
RUNS = {"a.run": "1 Q0 d1 1 2.0 runA\n1 Q0 d2 2 2.0 runA\n2 Q0 d4 1 1.0 runA\n",
        "b.run": "1 Q0 d3 1 3.0 runB\n1 Q0 d1 2 2.0 runB\n2 Q0 d5 1 1.0 runB\n"}
JSON_VALUES = [None, True, 0, -1, 2.5, "", "x", "../../etc/passwd", [], {}, [1, "a"],
               {"file": {}}, {"parent": {}}, {"glob": "*", "files": [None]}]


def _paths(record, prefix=()):
    """Every (path of keys/indices) of the record's JSON tree."""
    yield prefix
    if isinstance(record, dict):
        for key, value in record.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(record, list):
        for index, value in enumerate(record):
            yield from _paths(value, (*prefix, index))


def _damaged(record: dict, rng: random.Random) -> tuple[str, bool]:
    """The record's text damaged one way, and whether a recorded file's size or SHA-256
    was changed (verify must then not say identical)."""
    record = json.loads(json.dumps(record))
    paths = [p for p in _paths(record) if p]
    how = rng.choice(["remove", "replace", "number", "file", "word", "cut"])
    if how == "cut":
        text = json.dumps(record)
        return text[: rng.randrange(len(text))], False
    if how == "file":
        files = [p for p in paths if p[-1] in ("size", "sha256")]
        path = rng.choice(files)
        holder = _at(record, path[:-1])
        holder[path[-1]] = (holder[path[-1]] + rng.choice([-1, 1, 1000])
                            if path[-1] == "size" else
                            "".join(rng.choice("0123456789abcdef") for _ in range(64)))
        return json.dumps(record), True
    if how == "word":
        words = [p for p in paths if "argv" in p and isinstance(p[-1], int)]
        if words:
            path = rng.choice(words)
            _at(record, path[:-1])[path[-1]] = rng.choice(
                ["-o", "--plot", "x.nc", "meta", "-m", "P@10", "--seed", "-1", "", "-"])
            return json.dumps(record), False
    path = rng.choice(paths)
    holder = _at(record, path[:-1])
    if how == "remove":
        del holder[path[-1]]
    elif how == "number" and isinstance(holder[path[-1]], (int, float)) and not isinstance(
            holder[path[-1]], bool):
        holder[path[-1]] = holder[path[-1]] + rng.choice([-1, 1, 0.5, 10 ** 6])
    else:
        holder[path[-1]] = rng.choice(JSON_VALUES)
    return json.dumps(record), False


def _at(record, path):
    for key in path:
        record = record[key]
    return record


@pytest.fixture
def cubes(tmp_path, monkeypatch):
    """A cube made in Python and one made by ``xdiv evaluate`` from the same files; the
    argument parser of each command family built once for the commands verify and its
    recomputations run (issue 35 item 18: building it cost more than the rest of a
    clean refusal)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "parser", functools.cache(cli.parser))
    (tmp_path / "qrels.txt").write_text(QRELS)
    for name, text in RUNS.items():
        (tmp_path / name).write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cube = xdiv.evaluate(xdiv.read_runs(["a.run", "b.run"]), xdiv.read_qrels("qrels.txt"),
                             ["nDCG@2", "alpha-nDCG@5"])
        with contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            assert main(["-q", "evaluate", "qrels.txt", "a.run", "b.run", "-m", "nDCG@2",
                         "alpha-nDCG@5", "-o", "command.nc"]) == 0
    return {"python": cube, "command": xdiv.open_dataset("command.nc")}


def _written(cubes) -> dict[str, str]:
    """Each cube written once by ``xdiv.to_netcdf``, with its record as written."""
    files = {}
    for which, cube in cubes.items():
        files[which] = xdiv.to_netcdf(cube, f"intact-{which}.nc")
    return files


def _with_record(intact: str, text: str, path: str) -> None:
    """A copy of the file ``intact`` whose record (the global attribute ``provenance``)
    is ``text``, set as xarray's netCDF4 writer sets a text attribute (what
    ``xdiv.to_netcdf`` of the cube with that record writes; issue 35 item 18: copying
    the file and setting one attribute costs a tenth of writing the cube again)."""
    shutil.copyfile(intact, path)
    with netCDF4.Dataset(path, "a") as nc:
        nc.setncattr("provenance", text)


def _campaign(cubes, n: int, seed: int) -> Counter:
    rng = random.Random(seed)
    outcomes: Counter = Counter()
    intact = _written(cubes)
    for k in range(n):
        which = rng.choice(sorted(cubes))
        text, changed_file = _damaged(json.loads(cubes[which].attrs["provenance"]), rng)
        path = f"damaged-{k}.nc"
        _with_record(intact[which], text, path)
        out, err = io.StringIO(), io.StringIO()
        try:
            with time_limit(60), contextlib.redirect_stdout(out), \
                    contextlib.redirect_stderr(err):
                status = main(["verify", path])
        except Hang:
            pytest.fail(f"hang: {which} record {text[:300]}")
        lines = out.getvalue().splitlines()
        errors = err.getvalue().splitlines()
        context = (which, text[:300], lines, errors)
        if status == 2:
            assert len(errors) == 1 and errors[0].startswith("xdiv: error: "), context
            assert lines == [], context
            outcomes["clean error"] += 1
            continue
        assert status in (0, 1), context
        assert lines and all(": " in line for line in lines), context
        verdicts = [line.split(": ", 1)[1] for line in lines
                    if not line.startswith(f"{VERSION_LINE}: ")]
        if status == 0:
            assert not changed_file, ("silent-wrong", context)
            assert all(v.startswith("identical") for v in verdicts), ("silent-wrong", context)
        outcomes["verdict"] += 1
    return outcomes


def test_damaged_records_quick(cubes):
    """8 damaged records: a clean error or honest verdicts, never a traceback."""
    outcomes = _campaign(cubes, 8, seed=11)
    assert sum(outcomes.values()) == 8


@pytest.mark.slow
def test_damaged_records_campaign(cubes):
    """300 damaged records."""
    outcomes = _campaign(cubes, 300, seed=12)
    assert sum(outcomes.values()) == 300
    assert outcomes["clean error"] and outcomes["verdict"]
