"""trec_eval's measures, options and output conventions, without numpy: the measure table
(:data:`MEASURES`, in trec_eval 10.0's order, and :data:`NICKNAMES`), the ``-m`` arguments
and measure parameters read as trec_eval reads them, and C's ``printf`` formats. Both
ways ``xdiv trec_eval`` evaluates share them: :mod:`xdiv.official.trec_eval.tool` (numpy,
every measure and option) and :mod:`xdiv.official.trec_eval.lean` (the everyday measures
on clean files, started without numpy).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from .text import NotReproduced, c_atof, c_atol

__all__ = ["MAXLONG", "MEASURES", "NICKNAMES", "Marked", "Measure", "Options", "Outcome",
           "Stop", "c_double", "c_long", "encoded", "initialised", "marked_measures", "measure_arguments",
           "summary_lines", "supported_measures", "topic_lines", "version_string"]

MAXLONG = 2147483647
"""trec_eval's default ``-M`` (its ``MAXLONG``)."""
MIN_GEO_MEAN = 0.00001
"""The floor of the values whose logarithm the geometric means average."""
BOGUS_DOCNO = b"ceci_nest_pas_un_docno"
"""The one document of the run trec_eval 10.0 evaluates, under ``-c``, for a topic the
results lack."""
LEVEL_LIMIT = 100_000
"""The highest relevance level reproduced (trec_eval allocates a count per level)."""
RESULTS_FORMATS = ("trec_results",)
REL_FORMATS = ("qrels", "prefs", "qrels_prefs", "qrels_jg")
LONG_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


def version_string(version: int) -> str:
    """What ``trec_eval -v`` prints after ``trec_eval version``: the VERSIONID of each
    tarball's Makefile (9.0.8's still says 9.0.7)."""
    return "10.0-rc3" if version >= 10 else "9.0.7"


class Measure(NamedTuple):
    """One of trec_eval's measures, as its ``TREC_MEAS`` declares it.

    Attributes
    ----------
    name : str
        trec_eval's name (``-m NAME``).
    params : str
        How ``-m NAME.params`` is read: ``"none"`` (ignored), ``"long_cutoffs"`` (sorted
        positive integers, one value each, named ``NAME_k``), ``"double_cutoffs"`` (sorted
        numbers, named ``NAME_%3.2f``), ``"doubles"`` or ``"pairs"`` (one value, named
        ``NAME_params`` when given).
    defaults : tuple
        The parameters without ``-m NAME.params``.
    per_topic : str
        ``-q`` line: ``"none"``, ``"long"`` (``%ld``), ``"double"`` (``%6.4f``),
        ``"relstring"``.
    summary : str
        Summary line: ``"none"``, ``"runid"``, ``"long"``, ``"double"``.
    average : str
        ``"mean"`` (over the topics), ``"geometric"``, ``"sum"``, ``"topics"`` (num_q),
        ``"relevant"`` (num_rel: under ``-c`` recounted over every qrels topic).
    reads : str
        The rel_info format whose join with the run it computes from: ``"qrels"``
        (trec_eval's ``form_res_rels``, which finds duplicate docnos), ``"qrels_jg"``
        (``form_res_rels_jg``), ``"prefs"`` (``form_prefs_counts``: prefs and qrels_prefs),
        or ``""`` (runid, num_q).
    """

    name: str
    params: str = "none"
    defaults: tuple = ()
    per_topic: str = "double"
    summary: str = "double"
    average: str = "mean"
    reads: str = "qrels"

    @property
    def judged(self) -> bool:
        return bool(self.reads)


def _m(name: str, **kw) -> Measure:
    return Measure(name, **kw)


_LONG = {"per_topic": "long", "summary": "long", "average": "sum"}
_PREFS = {"reads": "prefs"}
_PREFS_LONG = {**_LONG, **_PREFS}
MEASURES: tuple[Measure, ...] = (
    _m("runid", per_topic="none", summary="runid", average="none", reads=""),
    _m("num_q", per_topic="none", summary="long", average="topics", reads=""),
    _m("num_ret", **_LONG),
    _m("num_rel", **{**_LONG, "average": "relevant"}),
    _m("num_rel_ret", **_LONG),
    _m("map"),
    _m("gm_map", per_topic="none", average="geometric"),
    _m("Rprec"),
    _m("bpref"),
    _m("recip_rank"),
    _m("iprec_at_recall", params="double_cutoffs", defaults=RECALL_LEVELS),
    _m("P", params="long_cutoffs", defaults=LONG_CUTOFFS),
    _m("relstring", params="doubles", defaults=(10.0,), per_topic="relstring",
       summary="none", average="none"),
    _m("recall", params="long_cutoffs", defaults=LONG_CUTOFFS),
    _m("infAP"),
    _m("gm_bpref", per_topic="none", average="geometric"),
    _m("Rprec_mult", params="double_cutoffs", defaults=R_MULTIPLES),
    _m("utility", params="doubles", defaults=(1.0, -1.0, 0.0, 0.0)),
    _m("11pt_avg", params="doubles", defaults=RECALL_LEVELS),
    _m("binG"),
    _m("G", params="pairs"),
    _m("dcg", params="pairs"),
    _m("ideal_dcg", params="pairs"),
    _m("ndcg", params="pairs"),
    _m("ndcg_rel", params="pairs"),
    _m("Rndcg", params="pairs"),
    _m("ndcg_cut", params="long_cutoffs", defaults=LONG_CUTOFFS),
    _m("map_cut", params="long_cutoffs", defaults=LONG_CUTOFFS),
    _m("relative_P", params="long_cutoffs", defaults=LONG_CUTOFFS),
    _m("success", params="long_cutoffs", defaults=(1, 5, 10)),
    _m("set_P"),
    _m("set_relative_P"),
    _m("set_recall"),
    _m("set_map"),
    _m("set_F", params="doubles", defaults=(1.0,)),
    _m("num_nonrel_judged_ret", **_LONG),
    _m("prefs_num_prefs_poss", **_PREFS_LONG),
    _m("prefs_num_prefs_ful", **_PREFS_LONG),
    _m("prefs_num_prefs_ful_ret", **_PREFS_LONG),
    _m("prefs_simp", **_PREFS),
    _m("prefs_pair", **_PREFS),
    _m("prefs_avgjg", **_PREFS),
    _m("prefs_avgjg_Rnonrel", **_PREFS),
    _m("prefs_simp_ret", **_PREFS),
    _m("prefs_pair_ret", **_PREFS),
    _m("prefs_avgjg_ret", **_PREFS),
    _m("prefs_avgjg_Rnonrel_ret", **_PREFS),
    _m("prefs_simp_imp", **_PREFS),
    _m("prefs_pair_imp", **_PREFS),
    _m("prefs_avgjg_imp", **_PREFS),
    _m("map_avgjg", reads="qrels_jg"),
    _m("P_avgjg", params="long_cutoffs", defaults=LONG_CUTOFFS, reads="qrels_jg"),
    _m("Rprec_mult_avgjg", params="double_cutoffs", defaults=R_MULTIPLES,
       reads="qrels_jg"),
    _m("yaap"),
    _m("rbp", params="pairs"),
    _m("rbp_resid", params="pairs"),
    _m("unj", params="long_cutoffs", defaults=(5, 10, 20)),
)
"""trec_eval 10.0's measures, in the order it computes and prints them."""

_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
             "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P")
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": _OFFICIAL,
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
    "all_trec": _OFFICIAL + (
        "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
        "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut",
        "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P",
        "set_map", "set_F", "num_nonrel_judged_ret"),
    "all_prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
                  "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg",
                  "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
                  "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp",
                  "prefs_pair_imp", "prefs_avgjg_imp"),
    "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
              "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg"),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}
"""trec_eval 10.0's measure nicknames (``-m official`` is the default)."""


class Options(NamedTuple):
    """trec_eval's command-line options (their ``EPI``), as parsed by ``xdiv trec_eval``."""

    measures: tuple[str, ...] = ()
    """The ``-m`` arguments, in order."""
    query: bool = False
    """``-q``: also print each topic's values."""
    complete: bool = False
    """``-c``: average over every topic of the qrels."""
    summary: bool = True
    """Not ``-n``: print the summary lines."""
    judged_only: bool = False
    """``-J``."""
    level: int = 1
    """``-l``: the lowest relevant level."""
    max_docs: int = MAXLONG
    """``-M``."""
    num_docs: int = 0
    """``-N``: documents in the collection."""
    rel_format: str = "qrels"
    """``-R``."""
    results_format: str = "trec_results"
    """``-T``."""
    zscores: str | None = None
    """``-Z``: the file of means and standard deviations."""
    version: int = 10
    """10 (trec_eval 10.0) or 9 (trec_eval 9.0.8, ``--version-9``)."""


class Outcome(NamedTuple):
    """What trec_eval writes and how it ends."""

    stdout: bytes = b""
    stderr: bytes = b""
    status: int = 0


class Stop(Exception):
    """trec_eval exits before reading its files."""

    def __init__(self, stderr: bytes, status: int):
        super().__init__()
        self.stderr, self.status = stderr, status


# ------------------------------------------------------------------ C formatting


def c_double(value: float, width: int = 6, digits: int = 4) -> str:
    """``printf("%{width}.{digits}f", value)`` as glibc prints it (``nan`` or ``-nan`` by
    the sign bit, ``inf``, ``-inf``)."""
    if math.isnan(value):
        text = "-nan" if math.copysign(1.0, value) < 0 else "nan"
    elif math.isinf(value):
        text = "-inf" if value < 0 else "inf"
    else:
        text = f"{value:.{digits}f}"
    return text.rjust(width)


def c_long(value: float) -> str:
    """``printf("%ld", (long) value)``."""
    if not math.isfinite(value) or abs(value) >= 2.0 ** 63:
        return str(-(2 ** 63))  # what the x86 conversion gives
    return str(int(value))


def _append_double(name: str, value: float) -> str:
    """trec_eval's name of a cutoff given as a number: ``NAME_%3.2f``, cut to the
    ``strlen(NAME) + 9`` characters its buffer holds."""
    return (f"{name}_" + c_double(value, 3, 2))[:len(name) + 9]


# ------------------------------------------------------------------ measure parameters


class Marked(NamedTuple):
    """A measure to compute: its parameters and the names of its values."""

    measure: Measure
    values: tuple
    names: tuple[str, ...]


NEW_IN_10 = ("dcg", "ideal_dcg", "rbp", "rbp_resid", "unj")
"""The measures trec_eval 9.0.8 does not have."""


def measure_table(version: int) -> tuple[Measure, ...]:
    """trec_eval ``version``'s measures, in its order."""
    return MEASURES if version >= 10 else tuple(m for m in MEASURES
                                                if m.name not in NEW_IN_10)


def nicknames(version: int) -> dict[str, tuple[str, ...]]:
    """trec_eval ``version``'s measure nicknames."""
    if version >= 10:
        return NICKNAMES
    return {k: tuple(n for n in v if n not in NEW_IN_10) for k, v in NICKNAMES.items()}


def measure_arguments(arguments: tuple[str, ...], version: int = 10
                       ) -> tuple[list[str], list[tuple[str, str]]]:
    """The measures the ``-m`` arguments mark (in trec_eval's table order) and the
    ``(name, parameters)`` they record; raises :class:`Stop` as trec_eval exits."""
    table = measure_table(version)
    by_name = {m.name for m in table}
    marked: set[str] = set()
    params: list[tuple[str, str]] = []
    for argument in arguments:
        name, dot, given = argument.partition(".")
        if dot:
            if not given:
                raise Stop(f"trec_eval: improper measure in parameter '{name}'\n"
                            f"trec_eval: illegal measure '{name}'\n".encode(
                                "utf-8", "surrogateescape"), 1)
            params.append((name, given))
        names = nicknames(version).get(name, (name,))
        if not set(names) <= by_name:
            raise Stop(f"trec_eval: illegal measure '{name}'\n".encode(
                "utf-8", "surrogateescape"), 1)
        marked.update(names)
    return [m.name for m in table if m.name in marked], params


def _cannot_init(name: str, message: str) -> Stop:
    return Stop(f"{message}trec_eval: Cannot initialize measure '{name}'\n".encode(
        "utf-8", "surrogateescape"), 2)


def encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def initialised(measure: Measure, given: str | None) -> Marked:
    """The measure's parameters (``given`` from ``-m``, else its defaults) read as
    trec_eval's ``init_meas`` reads them, and its values' names."""
    name = measure.name
    if measure.params == "long_cutoffs":
        if given is None:
            cutoffs = list(measure.defaults)
        else:
            cutoffs = [c_atol(encoded(p)) for p in given.split(",")]
            if any(abs(c) >= 2 ** 30 for c in cutoffs):
                raise NotReproduced(f"cutoffs as large as {max(cutoffs, key=abs)} in "
                                    f"'-m {name}.{given}' (trec_eval sorts them by an int "
                                    "difference that overflows)")
            cutoffs.sort()
            if cutoffs[0] <= 0:
                raise _cannot_init(name, "trec_eval: Negative cutoff detected\n")
            if any(a == b for a, b in zip(cutoffs, cutoffs[1:])):
                raise _cannot_init(name, "trec_eval: duplicate cutoffs detected\n")
        return Marked(measure, tuple(cutoffs), tuple(f"{name}_{c}" for c in cutoffs))
    if measure.params == "double_cutoffs":
        if given is None:
            cutoffs = list(measure.defaults)
        else:
            cutoffs = [c_atof(encoded(p)) for p in given.split(",")]
            if any(math.isnan(c) for c in cutoffs):
                raise NotReproduced(f"a NaN cutoff in '-m {name}.{given}'")
            cutoffs.sort()
            if any(a == b for a, b in zip(cutoffs, cutoffs[1:])):
                raise _cannot_init(name, "trec_eval: duplicate cutoffs detected\n")
        return Marked(measure, tuple(cutoffs),
                       tuple(_append_double(name, c) for c in cutoffs))
    if measure.params == "doubles":
        if given is None:
            return Marked(measure, tuple(measure.defaults), (name,))
        values = tuple(c_atof(encoded(p)) for p in given.split(","))
        return Marked(measure, values, (f"{name}_{given}",))
    if measure.params == "pairs":
        if given is None:
            return Marked(measure, tuple(measure.defaults), (name,))
        return Marked(measure, _pairs(name, given), (f"{name}_{given}",))
    return Marked(measure, (), (name,))


def marked_measures(names: list[str], given: list[tuple[str, str]]) -> list[Marked]:
    """The measures ``names`` (:func:`measure_arguments`' first value, or the default
    ``official`` ones when it is empty) with their parameters: the first ``-m
    NAME.params`` of each in ``given`` wins; raises :class:`Stop` as trec_eval exits."""
    first_given: dict = {}
    for name, params in given:
        first_given.setdefault(name, params)
    by_name = {m.name: m for m in MEASURES}
    return [initialised(by_name[n], first_given.get(n))
            for n in names or NICKNAMES["official"]]


def _pairs(name: str, given: str) -> tuple[tuple[str, float], ...]:
    """``-m NAME.a=x,b=y`` read as trec_eval's ``get_param_pairs`` reads it."""
    last = ","
    for char in given:
        if char == ",":
            if last == ",":
                break
            last = ","
        elif char == "=":
            if last == "=":
                last = ","
                break
            last = "="
    if last != "=":
        raise _cannot_init(name, f"trec_eval: malformed pair parameters in '{given}'\n")
    pairs = []
    for piece in given.split(","):
        key, _, value = piece.partition("=")
        pairs.append((key, c_atof(encoded(value))))
    return tuple(pairs)


SUPPORTED = frozenset(m.name for m in MEASURES)


def supported_measures() -> list[str]:
    """The measures ``xdiv trec_eval`` computes, in trec_eval's order."""
    return [m.name for m in MEASURES if m.name in SUPPORTED]



# ------------------------------------------------------------------ printing


def topic_lines(marked: list[Marked], values: list[list], e: int, qid: bytes,
                zscore: bool, relstrings: list | None) -> list[bytes]:
    """The ``-q`` lines of evaluated topic ``e`` (``qid``): ``values[k][e][j]`` is the
    ``j``-th value of measure ``marked[k]`` (``Z`` before each name with ``-Z``)."""
    lines = []
    for m, v in zip(marked, values):
        kind = m.measure.per_topic
        if kind == "none":
            continue
        if kind == "relstring":
            lines.append(b"%-22s\t%s\t'%s'\n" % (m.names[0].encode(), qid,
                                                   relstrings[e] if relstrings else b""))
            continue
        for j, name in enumerate(m.names):
            value = float(v[e][j])
            if kind == "long" and not zscore:
                text = c_long(value)
            else:
                text = c_double(value)
            lines.append(b"%s%-22s\t%s\t%s\n" % (b"Z" if zscore else b"", name.encode(),
                                                  qid, text.encode()))
    return lines


def _sequential_sums(rows: list, width: int) -> list[float]:
    """Per value, the sum over the topics (``rows``), added in order to trec_eval's
    accumulator, which starts at 0.0 (so that -0.0 values sum to 0.0)."""
    total = [0.0] * width
    for row in rows:
        total = [_c_add(a, float(b)) for a, b in zip(total, row)]
    return total


def _c_add(total: float, value: float) -> float:
    """trec_eval's ``total += value``: a NaN value gives its own NaN, sign included, even
    when the total is already a NaN (as x86's addition does there; Python's ``+`` keeps
    either NaN, depending on how its interpreter has specialised the loop)."""
    return value if math.isnan(value) else total + value


def summary_lines(marked: list[Marked], values: list[list], n_evaluated: int,
                  n_topics: int, n_relevant: int, run_id: bytes | None,
                  options: Options) -> list[bytes]:
    """The summary lines: each measure's values (``values[k][e][j]`` as in
    :func:`topic_lines`) added over the topics in order and averaged as trec_eval
    averages it (``-c``: over the ``n_topics`` of the qrels; num_rel: the ``n_relevant``
    judgments above 0 of the whole qrels)."""
    n = n_topics if options.complete else n_evaluated
    zscore = options.zscores is not None
    prefix = b"Z" if zscore else b""
    lines = []
    for m, v in zip(marked, values):
        measure = m.measure
        total = _sequential_sums(v, len(m.names))
        if measure.average == "mean":
            if n:
                total = [t / float(n) for t in total]
        elif measure.average == "geometric":
            if n > 0:
                s = total[0]
                if options.complete:
                    s += (n - n_evaluated) * math.log(MIN_GEO_MEAN)
                total = [_c_exp(s / n)]
        elif measure.average == "topics":
            total = [float(n)]
        elif measure.average == "relevant" and options.complete:
            total = [float(n_relevant)]
        if not options.summary or measure.summary == "none":
            continue
        if measure.summary == "runid":
            lines.append(b"%-22s\t%s\t%s\n" % (b"runid", b"all", run_id))
            continue
        for j, name in enumerate(m.names):
            value = total[j]
            text = c_long(value) if measure.summary == "long" and not zscore else \
                c_double(value)
            lines.append(b"%s%-22s\t%s\t%s\n" % (prefix, name.encode(), b"all",
                                                  text.encode()))
    return lines


def _c_exp(x: float) -> float:
    """C's ``exp`` (libm's, through ``math.exp``), infinite on overflow, NaN for NaN."""
    if math.isnan(x):
        return x
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf
