"""ir_metadata: the PRIMAD annotations a TREC run file may carry in its leading comment
lines (Breuer, Keller & Schaer, "ir_metadata: An Extensible Metadata Schema for IR
Experiments", SIGIR 2022).

The annotations are a YAML document, each of its lines written after a ``#``, between a
first line ``# ir_metadata.start`` and a line ``# ir_metadata.end``; the run's lines
follow. The readers (:func:`xdiv.read_runs`) keep the block's text exactly as written,
markers and line breaks included, in the attribute ``ir_metadata`` of the runs (JSON,
run name to text), every score cube made from them keeps it for its runs, and
:func:`xdiv.write_run` writes it back at the top of the run file, byte for byte. Nothing
is parsed on reading (xdiv does not depend on a YAML library): :func:`run_metadata` gives
a run's text, or its YAML document read by ruamel.yaml or PyYAML when installed.
"""

from __future__ import annotations

import io
import os
import re
from typing import Any

from ..core.labels import from_json
from ..errors import InputError, ParseError
from ._guard import open_guarded, text_errors

__all__ = ["IR_METADATA_ATTR", "file_block", "leading_block", "misplaced_marker",
           "run_blocks", "run_metadata"]

IR_METADATA_ATTR = "ir_metadata"
"""The attribute of runs and score cubes holding each run's block (JSON: name to text)."""

_BOM = "\ufeff".encode()
_START = "# ir_metadata.start"
_END = "# ir_metadata.end"
_MARKER = re.compile(r"#[ \t]*ir_metadata\.(start|end)[ \t]*")
"""A marker line, its line break removed: ``# ir_metadata.start`` or ``# ir_metadata.end``
(spaces and tabs allowed around the name)."""


def _marker(line: str) -> str | None:
    """``"start"`` or ``"end"`` when ``line`` is a marker line, else None."""
    found = _MARKER.fullmatch(line.rstrip("\r\n"))
    return None if found is None else found.group(1)


def leading_block(path: str | os.PathLike) -> tuple[str, int]:
    """The ir_metadata block that opens the run file ``path`` (gzip allowed): its text as
    written, from ``# ir_metadata.start`` to the line break of ``# ir_metadata.end``, and
    the number of lines it spans; ``("", 0)`` when the first line does not open one.

    Raises
    ------
    ParseError
        Naming the file and line: a first line ``# ir_metadata.end``, a block that the
        file's end, or a line not starting with ``#``, closes without its end marker, or
        a second start marker inside the block.
    """
    with text_errors(path), open_guarded(path) as raw:
        opening = raw.read(len(_BOM) + 1)
    if opening.removeprefix(_BOM)[:1] != b"#":  # no block: the readers say the rest
        return "", 0
    with text_errors(path), io.TextIOWrapper(open_guarded(path), encoding="utf-8-sig",
                                             newline="") as fh:
        # newline="": lines split at LF, CR or CRLF (as the table readers split them), each
        # kept with its own line break
        first = fh.readline()
        kind = _marker(first)
        if kind == "end":
            raise ParseError(path, 1, f"{_END!r} without {_START!r} before it (an "
                                      "ir_metadata block opens the run file)")
        if kind is None:
            return "", 0
        lines = [first]
        for number, line in enumerate(fh, start=2):
            lines.append(line)
            kind = _marker(line)
            if kind == "end":
                return "".join(lines), number
            if kind == "start":
                raise ParseError(path, number, f"a second {_START!r} inside the ir_metadata "
                                               "block opened on line 1")
            if not line.startswith("#"):
                raise ParseError(path, number, f"the ir_metadata block opened on line 1 "
                                               f"ends without {_END!r}: each of its lines "
                                               "starts with '#'")
    raise ParseError(path, 1, f"{_START!r} without {_END!r}: the file ends inside the "
                              "ir_metadata block")


def misplaced_marker(path: str | os.PathLike, line: int | None) -> ParseError | None:
    """The error to give when line ``line`` of ``path``, which the table readers refused,
    is an ir_metadata marker outside the leading block; None when it is not."""
    if line is None:
        return None
    with text_errors(path), io.TextIOWrapper(open_guarded(path), encoding="utf-8-sig",
                                             newline="") as fh:
        for number, text in enumerate(fh, start=1):
            if number == line:
                break
        else:
            return None
    kind = _marker(text)
    if kind == "start":
        return ParseError(path, line, f"{_START!r} is not on the first line: an "
                                      "ir_metadata block must open the run file")
    if kind == "end":
        return ParseError(path, line, f"{_END!r} outside an ir_metadata block (a block "
                                      f"opens the run file with {_START!r})")
    return None


def _lines(text: str) -> list[str]:
    """The lines of ``text``, each with its line break, split at LF, CR or CRLF (as the
    readers split them)."""
    return [line for line in re.split(r"(?<=\n)|(?<=\r)(?!\n)", text) if line]


def run_blocks(data) -> dict[str, str]:
    """The ir_metadata blocks of the runs of ``data`` (runs or a score cube) that carry
    one: run name to text."""
    return from_json(data.attrs.get(IR_METADATA_ATTR, "{}"))


def file_block(blocks: dict[str, str], runs: list[str], what: str) -> str:
    """The one ir_metadata block to open a file holding ``runs``, given the ``blocks`` of
    the runs that carry one (run name to text): ``""`` when none of them carries one.
    ``what`` names the writer in messages.

    Raises
    ------
    InputError
        When the runs do not all carry the same block (a file opens with one block, which
        a reader gives to every run of the file), or the block is not one (markers, lines
        starting with ``#``).
    """
    chosen = {run: blocks.get(run, "") for run in runs}
    texts = set(chosen.values())
    if texts == {""}:
        return ""
    if len(texts) > 1:
        carry = [run for run, text in chosen.items() if text]
        raise InputError(f"{what}: {len(runs)} runs of which {len(carry)} carry ir_metadata "
                         f"({', '.join(carry[:3])}{', ...' if len(carry) > 3 else ''}) and "
                         "not all the same block; a run file opens with one block, given to "
                         "every run of the file: write each run to its own file")
    text = texts.pop()
    lines = _lines(text)
    if (len(lines) < 2 or _marker(lines[0]) != "start" or _marker(lines[-1]) != "end"
            or not lines[-1].endswith(("\n", "\r"))
            or any(not line.startswith("#") or _marker(line) for line in lines[1:-1])):
        raise InputError(f"{what}: the ir_metadata of run {next(iter(chosen))} is not an "
                         f"ir_metadata block ({_START!r}, lines starting with '#', "
                         f"{_END!r} and its line break)")
    return text


def run_metadata(data, run: str, *, parse: bool = False) -> str | Any:
    """The ir_metadata block of run ``run``, as read from its file.

    Parameters
    ----------
    data : xarray.Dataset
        Runs (:func:`xdiv.read_runs`) or a score cube made from them
        (:func:`xdiv.evaluate`, :func:`xdiv.open_dataset`).
    run : str
        The run's name.
    parse : bool
        Return the block's YAML document (its lines without their leading ``#``) instead
        of its text, read by the safe loader of ruamel.yaml (YAML 1.2, the library
        repro_eval reads and writes ir_metadata with) or, when only PyYAML is installed,
        of PyYAML (YAML 1.1, which reads ``1e-09`` as text and ``yes``/``no`` as
        booleans). Neither is a dependency of xdiv.

    Returns
    -------
    str or object
        The block's text exactly as written in the run file, markers and line breaks
        included (``""`` when the run has none), or with ``parse`` the YAML document
        (None when the run has no block).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import xdiv
    >>> from xdiv.io.ir_metadata import run_metadata
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name) / "a.run"
    >>> _ = path.write_text("# ir_metadata.start\\n# actor:\\n#   team: xyz\\n"
    ...                     "# ir_metadata.end\\n1 Q0 d1 1 2.0 runA\\n")
    >>> runs = xdiv.read_runs(path)
    >>> print(run_metadata(runs, "runA"), end="")
    # ir_metadata.start
    # actor:
    #   team: xyz
    # ir_metadata.end
    >>> run_metadata(runs, "runA", parse=True)
    {'actor': {'team': 'xyz'}}
    >>> folder.cleanup()
    """
    names = [str(r) for r in data["run"].values] if "run" in data.coords else []
    if str(run) not in names:
        raise InputError(f"run_metadata: no run {run!r} here (runs: {', '.join(names[:5])}"
                         f"{', ...' if len(names) > 5 else ''})")
    text = run_blocks(data).get(str(run), "")
    if not parse:
        return text
    if not text:
        return None
    # the lines between the markers, each without its '#'
    return _load_yaml("".join(line[1:] for line in _lines(text)[1:-1]), run)


def _load_yaml(document: str, run: str) -> Any:
    """``document`` read by ruamel.yaml's safe loader (YAML 1.2, as repro_eval reads
    ir_metadata) or, without ruamel.yaml, by PyYAML's (YAML 1.1)."""
    try:
        from ruamel.yaml import YAML
        from ruamel.yaml.error import YAMLError
        load = YAML(typ="safe").load
    except ImportError:
        try:
            import yaml
        except ImportError:
            raise InputError("run_metadata(parse=True) needs ruamel.yaml (pip install "
                             "ruamel.yaml) or PyYAML; without parse, the block's text is "
                             "returned") from None
        load, YAMLError = yaml.safe_load, yaml.YAMLError
    try:
        return load(document)
    except YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = "" if where is None else f" (line {where.line + 2} of the block)"
        problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
        raise InputError(f"run {run}: its ir_metadata is not valid YAML{line}: "
                         f"{problem}") from None
