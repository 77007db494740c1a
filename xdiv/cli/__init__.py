"""The ``xdiv`` command line, one module per command family; each declares its
subcommands' arguments beside their handlers.

Errors on bad input print one line (``xdiv: error: ...``) to standard error and exit with
status 2; no traceback is shown. Every error and warning line is printed as
:func:`xdiv.errors.shown` shows text: control characters escaped (``\\x1b``), at most
:data:`~xdiv.errors.MESSAGE_LIMIT` characters.

The command line starts lean: building the parser (``xdiv --version``, ``xdiv --help``,
``xdiv COMMAND --help``) imports none of pandas, xarray, scipy, matplotlib and the like;
each handler imports what it needs when it runs.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
import warnings
from collections.abc import Sequence

from .._version import __version__
from ..errors import MESSAGE_LIMIT, XdivError, XdivWarning, shown
from .common import OUTPUT_OPTIONS, QUIET_HELP, apply_renamed, refuse_empty_outputs

__all__ = ["main", "measures_page"]


def __getattr__(name: str):
    """``measures_page`` (the docs' measure reference), loaded on first use: the registry
    it reads imports every measure family."""
    if name == "measures_page":
        from ..measures.reference import measures_page

        return measures_page
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

EXAMPLES = """examples:
  xdiv demo
  xdiv evaluate qrels.txt run1.txt run2.txt -m nDCG-IA@10 Q-IA@10 -o scores.nc
  xdiv evaluate qrels.txt runs/*.gz --adhoc max -m nDCG@10 AP --per-topic --format tsv
  xdiv ndeval qrels.txt runs/*.gz
  xdiv meta scores.nc --test both -o meta.nc
  xdiv risk scores.nc --baseline RUN --test trisk
  xdiv model scores.nc -m alpha-nDCG@20
  xdiv concordance scores.nc alpha-nDCG@10 D#-nDCG@10 --gold I-rec@10
  xdiv plot asl meta.nc -o asl.png
  xdiv report scores.nc meta.nc -o report.html
  xdiv verify meta.nc
"""
COMMAND_FAMILIES = ("demo", "evaluate", "official", "trec_eval", "ntcireval", "measures", "meta",
                    "compare", "model", "risk", "design", "convert", "plot", "report", "pools",
                    "repro", "verify")
"""The modules of :mod:`xdiv.cli` that declare the commands, in the order of the help."""

FAMILY_OF = {"demo": "demo", "evaluate": "evaluate", "ndeval": "official",
             "gdeval": "official", "trec_eval": "trec_eval", "ntcir_eval": "ntcireval",
             "ntcireval": "ntcireval",
             "measures": "measures",
             "meta": "meta", "concordance": "meta", "correlate": "meta",
             "compare": "compare", "model": "model", "risk": "risk", "design": "design",
             "convert": "convert", "plot": "plot", "report": "report", "pools": "pools",
             "repro": "repro", "verify": "verify"}
"""The family (module) that declares each command. A command line that names a command
first (``xdiv evaluate ...``) builds that family's parser alone: a command starts without
declaring the other commands' hundreds of options, and a drop-in for a C tool (``xdiv
trec_eval``) without importing the other commands' modules."""


def parser(families: Sequence[str] = COMMAND_FAMILIES) -> argparse.ArgumentParser:
    """The ``xdiv`` argument parser with the subcommands of ``families`` (every one by
    default)."""
    top = argparse.ArgumentParser(
        prog="xdiv", epilog=EXAMPLES,
        description="Evaluate diversified search results and meta-evaluate the measures.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    top.add_argument("-q", "--quiet", action="store_true", help=QUIET_HELP)
    top.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = top.add_subparsers(dest="command", required=True)
    for family in families:
        importlib.import_module(f"{__name__}.{family}").add_parser(sub)
    return top


def parser_for(argv: Sequence[str]) -> argparse.ArgumentParser:
    """The parser of the command line ``argv``: that of the family of its command (the
    first word after xdiv's own options, ``-q`` and ``--quiet``) alone, or every command's
    when it names none."""
    command = next((word for word in argv if word not in ("-q", "--quiet")), None)
    alone = FAMILY_OF.get(command)
    return parser((alone,) if alone else COMMAND_FAMILIES)


def _recording(argv: list[str], args: argparse.Namespace):
    """The provenance context of the command line ``argv``: every result written records
    it (:mod:`xdiv.io.provenance`). Only a command given a file to write has one (the
    others start without loading it)."""
    outputs = {name: getattr(args, name) for name in OUTPUT_OPTIONS
               if isinstance(getattr(args, name, None), str)}
    if not outputs:
        return contextlib.nullcontext()
    from ..io.provenance import recording_command

    return recording_command(argv, args, outputs)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``xdiv`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    top = parser_for(argv)
    args, extra = top.parse_known_args(argv)
    if extra:  # as parse_args says it, by the command's own error when it has one
        getattr(args, "usage_error", top.error)(f"unrecognized arguments: {' '.join(extra)}")
    with warnings.catch_warnings():
        if args.quiet:
            warnings.simplefilter("ignore")
        else:
            warnings.simplefilter("always", XdivWarning)
            warnings.showwarning = _show_warning
        try:
            apply_renamed(args)
            refuse_empty_outputs(args)
            with _recording(argv, args), _reader_may_go() as stdout:
                status = args.handler(args)
                sys.stdout.flush()
            return 141 if stdout.gone else status
        except XdivError as exc:
            _say(f"xdiv: error: {exc}")
            return 2
        except MemoryError:
            print("xdiv: error: out of memory; evaluate fewer runs at a time, lower -B, or "
                  "give measures a cutoff (M@k reads only the top k documents)",
                  file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            # outputs being written were removed on the way out (xdiv.io.atomic); end as
            # a command stopped by Ctrl-C does, without a traceback
            import signal

            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
            return 130
        except BrokenPipeError:
            # the reader went away while a command wrote bytes (``xdiv trec_eval ... |
            # head``): stop quietly, as a command killed by SIGPIPE does
            _to_devnull(sys.stdout)
            return 141


class _Stdout:
    """Standard output that, when its reader goes away (``xdiv evaluate ... -o x.nc |
    head``), notes it and sends what follows to ``/dev/null`` instead of raising: the
    command still writes its ``-o`` files, and :func:`main` then ends as a command killed
    by SIGPIPE does."""

    def __init__(self, stream):
        self._stream = stream
        self.gone = False

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._went()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._went()

    def _went(self) -> None:
        self.gone = True
        _to_devnull(self._stream)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _to_devnull(stream) -> None:
    """Point ``stream``'s file descriptor at ``/dev/null``: what is left in its buffer,
    and the interpreter's final flush, then go nowhere, quietly."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())


@contextlib.contextmanager
def _reader_may_go():
    """Within the block, ``sys.stdout`` is a :class:`_Stdout` over the current one."""
    guarded = _Stdout(sys.stdout)
    sys.stdout = guarded
    try:
        yield guarded
    finally:
        if sys.stdout is guarded:
            sys.stdout = guarded._stream


def _show_warning(message, category, filename, lineno, file=None, line=None):
    _say(f"xdiv: warning: {message}")


def _say(line: str) -> None:
    """Print one line to standard error, escaped for the terminal and bounded."""
    print(shown(line, MESSAGE_LIMIT), file=sys.stderr)
