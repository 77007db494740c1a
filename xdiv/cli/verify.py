"""``xdiv verify``: check the input files a result records and recompute it from them."""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import tempfile

from .._version import __version__
from ..errors import XdivError, shown
from .common import OUTPUT_OPTIONS, command

ABOUT = ("Check that a result can be made again from its inputs. Every NetCDF result xdiv "
         "writes records its provenance: the size and SHA-256 of each input file, the "
         "version of xdiv, the measures with all their parameters, the options, and the "
         "command line (or the Python call) that made it, with the provenance of the "
         "results it was made from. 'xdiv verify' checks each input file, then makes the "
         "result again by running the recorded command (or call), seeds included, and "
         "compares every variable, coordinate and attribute bit for bit (NaN equal to "
         "NaN). It prints one line per input file and per variable: identical, differs "
         "(how many cells, the largest difference), file changed or file missing. Exit "
         "status 0 when everything is identical, 1 otherwise.")
EXAMPLES = """examples:
  xdiv verify scores.nc
  xdiv verify meta.nc
  xdiv verify scores.nc moved/qrels.txt moved/run1.txt

Input files are read where the result says they were (relative paths from the folder
the command ran in); FILES given on the command line replace the recorded files of the
same base name.
"""


VERSION_LINE = "xdiv version"
"""The subject of the line that says a result was made by another version of xdiv."""


def add_parser(sub) -> None:
    vf = command(sub, "verify", "check a result's input files and recompute it", run,
                 about=ABOUT, examples=EXAMPLES)
    vf.add_argument("result", help="a NetCDF result written by xdiv (xdiv evaluate -o, "
                                   "xdiv meta -o, xdiv.to_netcdf, ...)")
    vf.add_argument("files", nargs="*", metavar="FILE",
                    help="input files where they are now, matched to the recorded ones by "
                         "base name (default: the recorded paths)")


def run(args) -> int:
    from ..io.netcdf import open_dataset
    from ..io.provenance import (SCHEMA, check_file_record, compare_datasets, file_records,
                                 provenance_of, replay_blockers)

    result = open_dataset(args.result)
    record = provenance_of(result)
    if record is None:
        if "xdiv_kind" not in result.attrs:
            raise XdivError(f"{args.result}: not an xdiv result (no xdiv_kind attribute "
                            "and no provenance)")
        raise XdivError(f"{args.result}: has no provenance (written by an xdiv without "
                        "provenance records, or its provenance attribute was removed)")
    if record.get("schema") != SCHEMA:
        raise XdivError(f"{args.result}: its provenance has layout {record.get('schema')!r}; "
                        f"this xdiv reads layout {SCHEMA}")
    if record.get("kind", "") != result.attrs.get("xdiv_kind", ""):
        raise XdivError(f"{args.result}: its provenance is that of a {record.get('kind')!r} "
                        f"result, not of this {result.attrs.get('xdiv_kind', '')!r} result "
                        "(its attributes were copied from the result it was made from)")
    given: dict[str, str] = {}
    for path in args.files:
        name = os.path.basename(path)
        if name in given:
            raise XdivError(f"{path}: two files named {name!r} given ({given[name]}); "
                            "files are matched to the recorded ones by base name")
        if not os.path.isfile(path):
            raise XdivError(f"{path}: no such file")
        given[name] = os.path.abspath(path)  # the command runs again in its own folder
    try:
        inputs = list(file_records(record))
        unknown = sorted(set(given) - {os.path.basename(item["path"]) for _, item in inputs})
        checked = [(via, item, *check_file_record(item, given)) for via, item in inputs]
        blockers = replay_blockers(record)
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise XdivError(f"{args.result}: its provenance record is malformed "
                        f"({type(exc).__name__}: {exc})") from None
    if unknown:
        raise XdivError(f"{given[unknown[0]]}: the result records no input file named "
                        f"{unknown[0]!r}")
    same = True
    renamed = {}
    for via, item, ok, path, what in checked:
        if path == given.get(os.path.basename(item["path"])):
            renamed[path] = item["path"]
        same &= ok
        through = f", via {' -> '.join(via)}" if via else ""
        if path != item.get("absolute", item["path"]) and path != item["path"]:
            what += f", read from {path}"
        role = item.get("role") if isinstance(item.get("role"), str) else "input"
        _say(f"{item['path']} ({role}{through}): {what}")
    if record.get("xdiv") != __version__:
        _say(f"{VERSION_LINE}: made by xdiv {record.get('xdiv')}, made again by xdiv "
             f"{__version__} (information: the numbers are compared below)")
    if blockers:
        _say(f"recomputation: not possible ({'; '.join(blockers)})")
        return 1
    with tempfile.TemporaryDirectory(prefix="xdiv-verify-") as scratch:
        try:
            again = recompute(record, given, scratch)
        except Exception as exc:  # noqa: BLE001 - a record may name any call or argument
            _say(f"recomputation: failed ({' '.join(str(exc).split()) or type(exc).__name__})")
            return 1
        for name, ok, what in compare_datasets(result, again, renamed):
            same &= ok
            _say(f"{name}: {what}")
    return 0 if same else 1


def _say(line: str) -> None:
    print(shown(line, None))


def recompute(record: dict, given: dict[str, str], scratch: str):
    """The result of ``record`` made again (read back from NetCDF, as the result was),
    in the folder ``scratch``: its command line run again with its outputs written there,
    or its Python call made again."""
    from ..io.netcdf import open_dataset, to_netcdf

    if "command" in record:
        inputs = {item["path"] for item in record.get("files", [])}
        return open_dataset(_rerun(record["command"], inputs, given, scratch))
    with _quiet():
        again = replay_call(record, given, scratch)
    return open_dataset(to_netcdf(again, os.path.join(scratch, "again.nc")))


def _moved(path: str, scratch: str) -> str:
    """Where an output ``path`` of the command is written when it is run again."""
    return os.path.join(scratch, "out", path.lstrip(os.sep))


def _rerun(command_record: dict, inputs: set[str], given: dict[str, str],
           scratch: str) -> str:
    """Run the recorded command line again, in the folder it ran in, its input files
    (``inputs``, as named on it) replaced by ``given`` (by base name) and its outputs
    moved under ``scratch``; return the path of the result written again."""
    from . import main, parser_for

    with _in_folder(command_record["cwd"]):
        argv = [given.get(os.path.basename(word), word) if word in inputs else word
                for word in command_record["argv"]]
        try:
            args, _ = parser_for(argv).parse_known_args(argv)
        except SystemExit:
            raise XdivError("the recorded command line does not parse") from None
        written = _moved(command_record["output"], scratch)
        for name in OUTPUT_OPTIONS:
            value = getattr(args, name, None)
            if isinstance(value, str) and value:
                moved = _moved(value, scratch)
                os.makedirs(os.path.dirname(moved), exist_ok=True)
                argv += [f"--{name}", moved]
                # a file the command writes beside this output (xdiv demo's OUTPUT-meta.nc)
                if os.path.dirname(os.path.abspath(value)) == os.path.dirname(
                        os.path.abspath(command_record["output"])):
                    written = os.path.join(os.path.dirname(moved),
                                           os.path.basename(command_record["output"]))
        errors = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(errors):
            try:
                status = main(["-q", *argv])
            except SystemExit as stop:  # argparse refuses the command line
                status = stop.code if isinstance(stop.code, int) and stop.code else 2
    if status:
        last = (errors.getvalue().strip().splitlines() or ["exit status " + str(status)])[-1]
        raise XdivError(f"the command failed again: {last}")
    if not os.path.isfile(written):
        raise XdivError(f"the command wrote no {command_record['output']} again")
    return written


def replay_call(record: dict, given: dict[str, str], scratch: str):
    """The result of the Python call of ``record`` made again, in the folder it was made
    in (its parent datasets made again first: a parent made by a command line is made
    again by :func:`recompute` in a folder of its own under ``scratch``)."""
    from ..io.provenance import decode_argument

    def parent_again(parent: dict):
        if "command" in parent:
            return recompute(parent, given, tempfile.mkdtemp(prefix="parent-", dir=scratch))
        return replay_call(parent, given, scratch)

    call = record["call"]
    module, _, name = call["function"].rpartition(".")
    function = None
    if module == "xdiv" or module.startswith("xdiv."):
        function = getattr(importlib.import_module(module), name, None)
    if function is None or not hasattr(function, "__wrapped__"):
        raise XdivError(f"{call['function']} is not a function whose results xdiv records")
    with _in_folder(call["cwd"]):  # where its relative paths were read from
        arguments = {key: decode_argument(value, given, parent_again)
                     for key, value in call["arguments"].items()}
        result = function(**arguments)
    return result[record["item"]] if "item" in record else result


@contextlib.contextmanager
def _in_folder(folder: str):
    if not os.path.isdir(folder):
        raise XdivError(f"{folder}: the folder the result was made in is gone")
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


@contextlib.contextmanager
def _quiet():
    import warnings

    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        yield


__all__ = ["add_parser", "run", "recompute", "replay_call"]
