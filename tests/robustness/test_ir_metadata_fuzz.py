"""A fuzzing campaign over run files that open with an ir_metadata block (issue 37, item 3),
read by ``xdiv.read_runs``, written back by ``xdiv.write_run`` and kept by score cubes and
NetCDF, in process.

Each input is a run file drawn by a seeded generator: a block of up to eight comment lines
of random text (spaces, tabs, ``#`` and ``:`` anywhere, quotes, non-ASCII letters, form
feeds and other characters that are no line break, the words ``ir_metadata.start`` inside a
longer line), markers spelled with and without spaces, line breaks LF, CRLF or CR (mixed
within a file), run lines separated by spaces or tabs, with or without a final line break,
plain or gzip. Each is either

- **accepted, checked**: the block read is exactly the text generated (not what xdiv
  writes), the run lines read exactly as the same file without its block, the block
  written back by ``xdiv.write_run`` is byte for byte the generated one and reads back the
  same, and (every fourth input) it survives ``xdiv.evaluate`` and NetCDF; or
- **refused**: one of four damages (no end marker, the block below a run line, a second
  end marker, a line inside the block without ``#``) must raise a ``ParseError`` of one
  line naming the file and the line the generator knows to be at fault; on the command
  line (every fourth input) exit status 2 and one ``xdiv: error:`` line.

No input may raise anything else or hang (a time limit per input).
"""

from __future__ import annotations

import gzip
import random

import pytest

import xdiv
from xdiv.cli import main
from xdiv.errors import ParseError
from xdiv.io.ir_metadata import run_metadata

from ..helpers import Hang, time_limit

TIME_LIMIT = 20.0
PIECES = ["platform:", "  hardware:", "cpu: 'Intel @ 3.5GHz'", "\t", " ", "#", "##", ":",
          "- bm25", "é", "日本語", "\u00a0", "\x0c", "\u2028", "'", '"', "ir_metadata.start",
          "ir_metadata.end", "# ir_metadata", "k1: 0.9", "x", "X", "0x10", "Q0", "1 Q0 d 1 2 r"]
STARTS = ["# ir_metadata.start", "#ir_metadata.start", "#  ir_metadata.start \t"]
ENDS = ["# ir_metadata.end", "#ir_metadata.end", "# ir_metadata.end  "]
BREAKS = ["\n", "\r\n", "\r"]
QRELS = "".join(f"{t} {i} d{d} {(d + i) % 2}\n"
                for t in (1, 2) for i in (1, 2) for d in range(1, 6))
DAMAGES = ["no end", "below a run line", "second end", "line without #"]


def _content(rng: random.Random) -> str:
    text = "#" + "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 6)))
    if text.strip(" \t").replace(" ", "").replace("\t", "") in (
            "#ir_metadata.start", "#ir_metadata.end"):  # a marker by chance: not content
        text += " x"
    return text


def _draw(rng: random.Random) -> tuple[str, str, list[str], list[str]]:
    """A block's text, the run lines' text, the block's lines and the run lines (each
    line with its break)."""
    mixed = rng.random() < 0.3
    fixed = rng.choice(BREAKS)

    def brk() -> str:
        return rng.choice(BREAKS) if mixed else fixed

    block = [rng.choice(STARTS) + brk()]
    block += [_content(rng) + brk() for _ in range(rng.randint(0, 8))]
    block.append(rng.choice(ENDS) + brk())
    sep = rng.choice([" ", "\t"])
    rows = [sep.join([topic, "Q0", docno, str(k + 1), str(9 - k - rng.random()), "runA"])
            + brk() for topic in ("1", "2")
            for k, docno in enumerate(rng.sample(["d1", "d2", "d3", "d4", "d5"],
                                                 rng.randint(1, 4)))]
    if rng.random() < 0.3:
        rows[-1] = rows[-1].rstrip("\r\n")
    return "".join(block), "".join(rows), block, rows


def _save(path, text: str, packed: bool):
    data = text.encode()
    path.write_bytes(gzip.compress(data) if packed else data)
    return path


def _damaged(rng: random.Random, block: list[str], rows: list[str]) -> tuple[str, int]:
    """A damaged file's text and the line the error must name."""
    damage = rng.choice(DAMAGES)
    if damage == "no end":
        return "".join(block[:-1] + rows), len(block)  # the first run line stops the block
    if damage == "below a run line":
        return "".join(rows[:1] + block + rows[1:]), 2
    if damage == "second end":
        return "".join(block + block[-1:] + rows), len(block) + 1
    where = rng.randint(1, len(block) - 1)
    return "".join(block[:where] + ["plain words" + block[where][-1]] + block[where:]
                   + rows), where + 1


def _campaign(seed: int, count: int, tmp_path, capsys) -> int:
    rng = random.Random(seed)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    collection = xdiv.read_qrels(qrels)
    checked = 0
    for k in range(count):
        block_text, rows_text, block, rows = _draw(rng)
        packed = rng.random() < 0.25
        suffix = ".run.gz" if packed else ".run"
        path = _save(tmp_path / f"in{k}{suffix}", block_text + rows_text, packed)
        plain = _save(tmp_path / f"plain{k}{suffix}", rows_text, packed)
        try:
            with time_limit(TIME_LIMIT):
                runs = xdiv.read_runs(path)
                assert run_metadata(runs, "runA") == block_text, (seed, k)
                assert xdiv.runs_frame(runs).equals(xdiv.runs_frame(xdiv.read_runs(plain)))
                out = tmp_path / f"out{k}.run"
                xdiv.write_run(out, runs)
                written = out.read_bytes()
                assert written.startswith(block_text.encode()), (seed, k)
                again = xdiv.read_runs(out)
                assert run_metadata(again, "runA") == block_text
                assert xdiv.runs_frame(again).equals(xdiv.runs_frame(runs))
                if k % 4 == 0:
                    scores = xdiv.evaluate(runs, collection, ["P@2"])
                    xdiv.to_netcdf(scores, tmp_path / f"s{k}.nc")
                    back = xdiv.open_dataset(tmp_path / f"s{k}.nc")
                    assert run_metadata(back, "runA") == block_text, (seed, k)
                text, line = _damaged(rng, block, rows)
                bad = _save(tmp_path / f"bad{k}{suffix}", text, packed)
                with pytest.raises(ParseError) as caught:
                    xdiv.read_runs(bad)
                message = str(caught.value)
                assert message.startswith(f"{bad}:{line}: ") and "\n" not in message, (
                    seed, k, message)
                if k % 4 == 1:
                    capsys.readouterr()
                    status = main(["evaluate", str(qrels), str(bad), "-m", "P@2"])
                    err = capsys.readouterr().err.strip().splitlines()
                    assert status == 2 and len(err) == 1 and err[0].startswith(
                        "xdiv: error:"), (seed, k, err)
        except Hang:
            pytest.fail(f"input {k} of seed {seed} ran over {TIME_LIMIT} s")
        checked += 1
    return checked


def test_ir_metadata_fuzz_quick(tmp_path, capsys):
    assert _campaign(37, 12, tmp_path, capsys) == 12


@pytest.mark.slow
def test_ir_metadata_fuzz_150_inputs(tmp_path, capsys):
    """150 inputs, each checked accepted and then damaged."""
    assert _campaign(3737, 150, tmp_path, capsys) == 150
