"""What every ``xdiv`` subcommand shares: declaring a subcommand, argument types, output
checks, NetCDF inputs of a known kind and table printing.

Lean to import, as every command module imports it while ``xdiv --help`` is built: the
functions that need pandas, xarray or the readers import them when they run."""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import textwrap
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from .._warnings import warn
from ..errors import InputError, XdivError, XdivWarning, shown
from ..typing import QRELS_FORMATS, TABLE_FORMATS

if TYPE_CHECKING:
    import pandas as pd
    import xarray as xr

QUIET_HELP = "print no warnings or progress bars"
FIGURE_FORMATS = (".png", ".svg", ".pdf")
OUTPUT_OPTIONS = {"output": "-o/--output", "plot": "--plot"}
"""The options that name a file to write: ``args`` attribute and spelling."""
TABLE_LIMITS = {"table": 80, "tsv": 1000, "csv": 1000}
"""The most characters of a label in a printed table, by ``--format`` (see
:func:`xdiv.errors.shown`): aligned tables are read on a terminal, TSV and CSV by programs
too, which a cut label would mislead more often."""
Handler = Callable[[argparse.Namespace], int]


def command(sub, name: str, summary: str, handler: Handler, *, about: str | None = None,
            examples: str | None = None) -> argparse.ArgumentParser:
    """Declare subcommand ``name`` run by ``handler``; its --help shows ``about`` (wrapped)
    and ``examples`` (verbatim), it takes ``-q`` after its name as well as before, and an
    argument it does not know is reported with its usage (``args.usage_error``)."""
    parser = sub.add_parser(name, help=summary, description=textwrap.fill(about or summary, 79),
                            epilog=examples,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                        help=QUIET_HELP)
    parser.set_defaults(handler=handler, usage_error=parser.error)
    return parser


def whole(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from ``minimum`` (to ``maximum``)."""
    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, not {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"must be at most {maximum}, not {value}")
        return value
    return convert


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def number(text: str) -> float:
    """An argparse type: a finite number."""
    value = _float(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def nonnegative(text: str) -> float:
    """An argparse type: a finite number >= 0."""
    value = number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, not {text}")
    return value


def positive(text: str) -> float:
    """An argparse type: a finite number > 0."""
    value = number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be greater than 0, not {text}")
    return value


def level(text: str) -> float:
    """An argparse type: a significance level strictly between 0 and 1."""
    value = _float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, not {text}")
    return value


SIGNIFICANCE = "--sig-level"
"""The option of the significance level in every command that tests at one (as R's
``sig.level``); ``--alpha``, its former spelling, stays a deprecated alias."""


def add_qrels_format(parser: argparse.ArgumentParser) -> None:
    """Declare ``--qrels-format trec|ntcir`` (``args.qrels_format``) and
    ``--[no-]renormalise`` (``args.renormalise``: None, True or False), the options of
    :func:`xdiv.read_qrels` ``format`` and ``renormalise``."""
    parser.add_argument("--qrels-format", choices=QRELS_FORMATS, default="trec",
                        help="the qrels' format: TREC's, or NTCIREVAL's (a Dqrels file "
                             "'topic intent docno L<level>', or 'topic docno L<level>', "
                             "whose --probabilities file is an Iprob or DINprob file) "
                             "(default: %(default)s)")
    parser.add_argument("--renormalise", action=argparse.BooleanOptionalAction, default=None,
                        help="renormalise the intent probabilities over the intents with a "
                             "relevant document (the default for TREC qrels), or use them "
                             "as given, as NTCIREVAL does (--no-renormalise, the default for "
                             "NTCIR qrels; Sakai & Song, SIGIR 2011): changes D-Q, D#-Q, "
                             "DIN-Q, P+Q and the intent-aware measures, not D-nDCG or I-rec")


def significance_option(parser: argparse.ArgumentParser, help: str,
                        default: float | None = 0.05) -> None:
    """Declare :data:`SIGNIFICANCE` ``LEVEL`` on ``parser``, the significance level
    (``args.alpha``, a :func:`level`), with its former spelling ``--alpha`` kept working
    with a deprecation warning (:func:`renamed`)."""
    parser.add_argument(SIGNIFICANCE, type=level, dest="alpha", metavar="LEVEL", help=help)
    renamed(parser, "--alpha", SIGNIFICANCE, dest="alpha", metavar="LEVEL",
            what="the significance level", default=default, type=level)


def table_format_option(parser: argparse.ArgumentParser, table: str = "4 decimals") -> None:
    """Declare ``--format`` table|tsv|csv on ``parser``: how :func:`print_frame` prints
    the command's tables (``table`` says what the aligned table shows)."""
    parser.add_argument("--format", choices=TABLE_FORMATS, default="table",
                        help=f"table ({table}) or TSV/CSV (6 decimals)")


def print_frame(frame: pd.DataFrame, fmt: str) -> None:
    """Print ``frame`` as an aligned table (4 decimals) or as TSV/CSV (6 decimals), its
    labels (index, columns, text cells) as :func:`xdiv.errors.shown` shows them: control
    characters escaped, cut to :data:`TABLE_LIMITS` characters."""
    frame = _shown_labels(frame, TABLE_LIMITS.get(fmt, 80))
    if fmt == "table":
        print(frame.to_string(float_format=lambda v: f"{v:.4f}"))
    else:
        print(frame.to_csv(sep="\t" if fmt == "tsv" else ",", float_format="%.6f"), end="")


def _shown_labels(frame: pd.DataFrame, limit: int) -> pd.DataFrame:
    """``frame`` with every text label and text cell passed through :func:`shown`."""
    import pandas as pd

    def show(value):
        return shown(value, limit) if isinstance(value, str) else value

    def index(labels: pd.Index) -> pd.Index:
        if isinstance(labels, pd.MultiIndex):
            return pd.MultiIndex.from_arrays(
                [labels.get_level_values(k).map(show) for k in range(labels.nlevels)],
                names=[show(n) for n in labels.names])
        return labels.map(show).rename(show(labels.name))

    out = frame.copy()
    out.index, out.columns = index(frame.index), index(frame.columns)
    for position, dtype in enumerate(frame.dtypes):
        if dtype == object or pd.api.types.is_string_dtype(dtype):
            out.isetitem(position, frame.iloc[:, position].map(show).to_numpy())
    return out


def summary_frame(scores: xr.Dataset) -> pd.DataFrame:
    """The run × metric table of mean scores, metrics in the cube's order."""
    from ..core.cube import summarize

    means = summarize(scores)["mean"].transpose("run", "metric").to_pandas()
    means.columns.name = None
    return means[list(scores["metric"].values)]


MEAN_ROW = "all"
"""The topic label of the mean row of per-topic tables (trec_eval's label)."""


def per_topic_frame(scores: xr.Dataset) -> pd.DataFrame:
    """The (run, topic) × metric table of per-topic scores, each run's topics followed by
    a row ``(run, "all")`` of its means (over the topics where each metric is defined, as
    :func:`summary_frame`); runs, topics and metrics in the cube's order."""
    import pandas as pd

    metrics = list(scores["metric"].values)
    topics = scores["score"].transpose("run", "topic", "metric")
    means = summary_frame(scores)
    blocks = []
    for run in scores["run"].values:
        block = pd.DataFrame(topics.sel(run=run).values, columns=metrics,
                             index=[str(t) for t in scores["topic"].values])
        block.loc[MEAN_ROW] = means.loc[run].to_numpy()
        blocks.append(block)
    return pd.concat(blocks, keys=[str(r) for r in scores["run"].values],
                     names=["run", "topic"])


def expand_inputs(words: list[str]) -> list[str]:
    """Input file names with glob patterns the shell left alone (a quoted
    ``'runs/*.gz'``) expanded, sorted: a word that is no existing file but holds ``*``,
    ``?`` or ``[`` stands for the files it matches. ``-`` (standard input) is kept.

    Raises
    ------
    XdivError
        ``PATTERN: no file matches``.
    """
    import glob

    files = []
    for word in words:
        if word == "-" or os.path.exists(word) or not glob.has_magic(word):
            files.append(word)
            continue
        matches = sorted(glob.glob(word))
        if not matches:
            raise XdivError(f"{word}: no file matches")
        files.extend(matches)
    return files


def names_input(word: str) -> bool:
    """Whether ``word`` names an input: ``-`` (standard input), an existing file (a pipe
    or device included) or a glob pattern matching files."""
    import glob

    if word == "-" or (os.path.exists(word) and not os.path.isdir(word)):
        return True
    return glob.has_magic(word) and bool(glob.glob(word))


def refuse_empty_outputs(args: argparse.Namespace) -> None:
    """Refuse, before any work, an output option given an empty path (``-o ""``, or an
    unset shell variable: ``-o "$OUT"``), which some commands would otherwise take for no
    output at all.

    Raises
    ------
    XdivError
        ``-o/--output: the path is empty ...``.
    """
    for name, spelling in OUTPUT_OPTIONS.items():
        value = getattr(args, name, None)
        if value == "":
            raise XdivError(f"{spelling}: the path is empty (an unset shell variable?); "
                            "name the file to write")


def output(path: str, *inputs: str | None) -> str:
    """Check an output path before any work: it is not empty, its folder exists, it is no
    folder, and it is not one of the command's inputs (which it would overwrite)."""
    from ..io._guard import check_output_path

    text = check_output_path(path)
    for source in inputs:
        if source and os.path.exists(source) and os.path.exists(text) and \
                os.path.samefile(source, text):
            raise XdivError(f"{text}: is an input of this command; write the output elsewhere")
    return text


def save_figure(fig, path: str) -> None:
    """Write a matplotlib figure atomically, in the format its extension names."""
    from ..io.atomic import atomic_output

    with atomic_output(path, binary=True) as fh:
        fig.savefig(fh, format=os.path.splitext(path)[1][1:].lower(), bbox_inches="tight")


def figure_output(path: str, *inputs: str) -> str:
    """:func:`output` for a figure, whose format follows the extension."""
    from ..io._guard import check_output_path

    check_output_path(path)
    if os.path.splitext(path)[1].lower() not in FIGURE_FORMATS:
        raise XdivError(f"{path}: name a .png, .svg or .pdf file (the format follows the "
                        "extension)")
    return output(path, *inputs)


@contextlib.contextmanager
def about(path: str):
    """Name ``path`` in the input errors raised about its contents."""
    try:
        yield
    except InputError as exc:
        raise XdivError(f"{path}: {exc}") from None


def open_netcdf(path: str, kind: str) -> xr.Dataset:
    """A NetCDF file of the ``kind`` a command needs: ``"scores"`` (from ``xdiv evaluate
    -o``) or ``"meta"`` (from ``xdiv meta -o``), checked once by
    :func:`xdiv.io.netcdf.open_cube`; a bad file raises a one-line ``InputError`` naming it."""
    from ..io.netcdf import open_cube

    return open_cube(path, kind)


def progress_wanted(args: argparse.Namespace) -> bool:
    """Progress bars only for an interactive standard error and without ``-q``."""
    return not args.quiet and sys.stderr.isatty()


class Renamed(NamedTuple):
    """An option's former spelling, kept working as a hidden alias of its new name: given,
    it warns once that it is deprecated and names the new spelling; given with the new
    spelling, it is an error. Declared by :func:`renamed`, applied by
    :func:`apply_renamed` before the command runs."""

    command: str
    """The subcommand, as its usage names it after ``xdiv`` (``"design mdd"``)."""
    old: str
    """The former spelling (``"--alpha"``)."""
    new: str
    """The option's name, as its help shows it (``"-m/--measure"``)."""
    dest: str
    """The ``args`` attribute of the new spelling's value."""
    metavar: str
    """What the option takes, in the messages (``"MEASURE"``)."""
    what: str
    """What the option gives, in the error about both spellings (``"the measures"``)."""
    note: str = ""
    """Said in parentheses after the deprecation."""
    default: object = None
    """The value when neither spelling is given."""

    @property
    def hidden(self) -> str:
        """The ``args`` attribute of the former spelling's value."""
        return "deprecated_" + self.old.lstrip("-").replace("-", "_")


def renamed(parser: argparse.ArgumentParser, old: str, new: str, *, dest: str,
            metavar: str, what: str, note: str = "", default: object = None,
            **kwargs) -> None:
    """Keep ``old``, the former spelling of option ``new`` of ``parser``, as a hidden alias
    (see :class:`Renamed`). ``new`` must be declared with ``default=None`` (so that giving
    it can be told from not giving it) and its default passed here; ``kwargs`` declare the
    alias as ``new`` is declared (``nargs``, ``type``, ``action``)."""
    rename = Renamed(parser.prog.removeprefix("xdiv "), old, new, dest, metavar, what,
                     note, default)
    parser.add_argument(old, dest=rename.hidden, metavar=metavar, help=argparse.SUPPRESS,
                        **kwargs)
    parser.set_defaults(renamed=(*(parser.get_default("renamed") or ()), rename))


def apply_renamed(args: argparse.Namespace) -> None:
    """Move the values given under the former spellings of the command's options (see
    :func:`renamed`) to their new names, each with a deprecation warning, and fill in the
    defaults of the options given under neither.

    Raises
    ------
    XdivError
        An option given under both spellings.
    """
    renames = getattr(args, "renamed", ())
    for rename in renames:
        old_value = getattr(args, rename.hidden)
        if old_value is None:
            continue
        if getattr(args, rename.dest) is not None:
            raise XdivError(f"give {rename.what} once, as {rename.new} {rename.metavar} "
                            f"({rename.old} is its deprecated spelling)")
        note = f" ({rename.note})" if rename.note else ""
        warn(f"{rename.command} {rename.old} {rename.metavar} is deprecated, use "
             f"{rename.new} {rename.metavar}{note}", XdivWarning)
        setattr(args, rename.dest, old_value)
    for rename in renames:
        if getattr(args, rename.dest) is None:
            setattr(args, rename.dest, rename.default)
