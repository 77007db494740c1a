"""A fuzzing campaign over the inclusion probabilities of sampled judgments (prels): read by
``xdiv.read_prels`` and used by statAP, infNDCG and infAP through ``xdiv.evaluate`` and
``xdiv evaluate --prels``, in process (third audit, item 3).

The probabilities are drawn by a seeded generator among every kind of field: ordinary
values in (0, 1], 1 and its spellings (``1``, ``1.``, ``1e0``, ``+1.0``), small values down
to 2^-53 (whose weights 1/probability reach 2^53, past any list of ranks), values below it
(1e-17, 1e-19, 1e-300, the subnormals 1e-310 and 5e-324, 1e-400 that reads as 0), 0, values
above 1, negative ones, ``nan``, ``inf``, and what is not a decimal number (``0x1p-3``,
``1_0``, ``1,5``, ``½``, ``NA`` in the 4-field layout). The 5-field layout (the TREC
Million Query prels) adds its skipped lines (relevance -999, probability ``NA``) and its
methods 0 and 2, whose probability is 1 whatever the line says.

Each input is either

- **refused**: a file with a probability that cannot be estimated from must raise an
  ``InputError`` of one line naming the file and the first such line (on the command
  line: exit status 2 and one ``xdiv: error:`` line); or
- **accepted, checked**: a topic of a file whose every probability is a decimal number in
  [2^-53, 1] must score finite or NaN (NaN exactly where the topic has no sampled relevant
  document) and agree with a reference computed here line by line: statAP as
  ``statAP_MQ_eval_v3.pl`` adds it up, infNDCG and infNDCG@5 from the explicit ideal
  list (gains 2^x - 1), its long stretches of equal level bounded by integrals of the
  decreasing discount 1/log2(r + 1) where a list of their ranks would not fit in memory,
  and infAP equal to infAP of the same judgments read as qrels (the probabilities do not
  enter it). The command line's per-topic values are checked against the same reference.

No input may raise anything else, hang (a time limit per input) or score a wrong value.
"""

from __future__ import annotations

import math
import re
import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from scipy.special import expi

import xdiv
from xdiv.cli import main

from ..helpers import Hang, time_limit

SMALLEST = 2.0 ** -53
"""The smallest inclusion probability read (documented in xdiv.io.prels)."""

DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
"""A decimal number, as docs/conventions.md spells numbers."""

ODD = ["0", "0.0", "-0", "+0", "0e5", "1e-400", "5e-324", "1e-310", "2.2e-308", "1e-300",
       "1e-19", "1e-17", "1.1e-16", "1.0000001", "1.5", "2", "10", "1e999", "-0.5",
       "-1e-5", "-1", "nan", "NaN", "inf", "-inf", "Infinity", "0x1p-3", "1_0", "1,5",
       "\u00bd", "0.5.1", "e-5", "1e", "--0.5", "NA", "half", "0.5%"]
"""Probabilities of every kind but the ordinary: most refused, a few accepted."""

ONE = ["1", "1.", "1.0", "1e0", "+1.0", "10e-1", ".1e1", "1.000"]
MEASURES = ["statAP", "infNDCG", "infNDCG@5", "infAP"]
TOLERANCE = 1e-9
TIME_LIMIT = 20.0




def _expected(text: str):
    """The probability a field reads as, or the words of the error it must raise."""
    if not DECIMAL.fullmatch(text):
        return "is not a number"
    value = float(text)
    if not 0.0 < value <= 1.0:
        return "is outside (0, 1]"
    if value < SMALLEST:
        return "is below 2^-53"
    return value


def _accepted_probability(rng: np.random.Generator) -> str:
    """A field read as a probability in [2^-53, 1], in one of its spellings."""
    kind = rng.random()
    if kind < 0.15:
        return str(rng.choice(ONE))
    if kind < 0.22:  # tiny: the weights of the ideal list pass any list of ranks
        return rng.choice([repr(SMALLEST), "1.2e-16", repr(10.0 ** rng.uniform(-15.9, -6))])
    if kind < 0.3:
        return f"{rng.uniform(0.001, 1):.6e}"
    value = rng.uniform(0.02, 1.0)
    return rng.choice([repr(float(value)), f"{value:.4f}", f"{value:.3f}".lstrip("0")])


def _odd_probability(rng: np.random.Generator) -> str:
    """A field of :data:`ODD`, or a random one below 2^-53 or above 1."""
    kind = rng.random()
    if kind < 0.7:
        return str(rng.choice(ODD))
    if kind < 0.85:
        return repr(10.0 ** rng.uniform(-330, -16))
    return repr(1.0 + 10.0 ** rng.uniform(-12, 3))


def _lines(rng: np.random.Generator, topic: str, width: int, n_docs: int, probability):
    """``(line, judgment or None)`` of a topic's prels lines: judgment ``(docno, level,
    field)`` for the lines read as sampled judgments (the 5-field lines of a document that
    was not sampled are skipped)."""
    out = []
    for k in range(n_docs):
        docno = f"t{topic}-d{k:02d}"
        level = int(rng.choice([-2, -1, 0, 0, 0, 1, 1, 2, 3]))
        field = probability(rng)
        if width == 4:
            out.append((f"{topic} {docno} {level} {field}", (docno, level, field)))
            continue
        method = int(rng.integers(0, 5))
        skipped = rng.random()
        if skipped < 0.05:
            out.append((f"{topic} {docno} -999 {method} {field}", None))
        elif skipped < 0.1:
            out.append((f"{topic} {docno} {level} {method} NA", None))
        else:
            read = "1" if method in (0, 2) else field
            out.append((f"{topic} {docno} {level} {method} {field}", (docno, level, read)))
    return out


# ------------------------------------------------------------------ the reference

def _stat_ap(ranking, judged) -> float:
    """statAP of a ranked list as statAP_MQ_eval_v3.pl adds it up; ``judged`` maps docno
    -> (level, probability)."""
    estimated = sum(1 / p for level, p in judged.values() if level > 0)
    above = total = 0.0
    for rank, docno in enumerate(ranking, start=1):
        level, p = judged.get(docno, (0, None))
        if level > 0:
            total += (1 + above) / rank / p
            above += 1 / p
    return total / estimated if estimated > 0 else math.nan


def _discount_integral(a: float, b: float) -> float:
    """The integral of 1/log2(x + 1) from a to b (ln 2 (li(b + 1) - li(a + 1)))."""
    return math.log(2) * (expi(math.log(b + 1)) - expi(math.log(a + 1)))


EXPLICIT = 200_000
"""The longest stretch of ranks whose discounts the reference adds one by one."""


def _discounts_between(a: float, b: float) -> tuple[float, float]:
    """Bounds of the sum of 1/log2(r + 1) over the ranks a < r <= b: the sum itself for a
    stretch of at most :data:`EXPLICIT` ranks, else the integrals over [a + 1, b + 1] and
    [a, b] of the decreasing discount."""
    if b - a <= EXPLICIT:
        ranks = a + np.arange(1, int(b - a) + 1, dtype=np.float64)
        total = math.fsum((1.0 / np.log2(ranks + 1)).tolist())
        return total, total
    return _discount_integral(a + 1, b + 1), _discount_integral(a, b)


def _inferred_ndcg(ranking, judged, cutoff) -> tuple[float, float]:
    """Bounds of infNDCG (gains 2^x - 1) of a ranked list: the ideal list holds
    round(R^_x) documents of each level x, R^_x the sum of 1/probability over the sampled
    documents of level x, highest levels first."""
    top = ranking if cutoff is None else ranking[:cutoff]
    dcg = sum((2.0 ** judged[d][0] - 1) / judged[d][1] / math.log2(r + 1)
              for r, d in enumerate(top, start=1) if d in judged and judged[d][0] > 0)
    counts: dict[int, float] = {}
    for level, p in judged.values():
        if level > 0:
            counts[level] = counts.get(level, 0.0) + 1 / p
    if not counts:
        return math.nan, math.nan
    low = high = 0.0
    start = 0.0
    for level in sorted(counts, reverse=True):
        end = start + math.floor(counts[level] + 0.5)
        if cutoff is not None:
            end = min(end, cutoff)
        lo, hi = _discounts_between(start, end)
        low, high = low + (2.0 ** level - 1) * lo, high + (2.0 ** level - 1) * hi
        start = end
    return dcg / high, dcg / low


def _close(value: float, low: float, high: float) -> bool:
    if math.isnan(low):
        return math.isnan(value)
    slack = TOLERANCE * max(abs(low), abs(high), 1.0)
    return math.isfinite(value) and low - slack <= value <= high + slack


# ------------------------------------------------------------------ the inputs

def _refused_input(rng, folder, index: int, counts: Counter, failures: list,
                   command: bool) -> None:
    """A small prels file holding at least one probability that must be refused."""
    width = int(rng.choice([4, 5]))
    lines = []
    for t in range(int(rng.integers(1, 4))):
        lines += _lines(rng, str(t + 1), width, int(rng.integers(1, 6)),
                        _accepted_probability)
    bad = int(rng.integers(0, len(lines) + 1))
    field = _odd_probability(rng)
    while isinstance(_expected(field), float):  # the few accepted odd fields: another
        field = _odd_probability(rng)
    method = int(rng.choice([0, 1, 2, 3])) if width == 5 else None
    line = f"9 bad-{index} 1 {field}" if width == 4 else f"9 bad-{index} 1 {method} {field}"
    lines.insert(bad, (line, ("x", 1, field)))
    for _ in range(int(rng.integers(0, 3))):  # more odd fields after the first
        at = int(rng.integers(bad + 1, len(lines) + 1))
        extra = _odd_probability(rng)
        lines.insert(at, (f"8 more-{at}-{index} 0 {extra}" if width == 4 else
                          f"8 more-{at}-{index} 0 1 {extra}", ("x", 0, extra)))
    if width == 5 and field == "NA":  # a document that was not sampled: skipped, not bad
        lines.pop(bad)
        lines.insert(bad, (f"9 bad-{index} 1 {method} 1e-19", ("x", 1, "1e-19")))
        field = "1e-19"
    path = folder / f"refused-{index}.prels"
    path.write_text("".join(text + "\n" for text, _ in lines))
    number = bad + 1
    words = _expected(field)
    prefix = f"{path}:{number}: inclusion probability "
    try:
        with time_limit(TIME_LIMIT), warnings.catch_warnings():
            warnings.simplefilter("ignore", xdiv.XdivWarning)
            xdiv.read_prels(path)
    except Hang:
        counts["hang"] += 1
        failures.append(f"hang: {path}")
        return
    except xdiv.InputError as exc:
        message = str(exc)
        if "\n" in message or not message.startswith(prefix) or words not in message:
            counts["wrong error"] += 1
            failures.append(f"wrong error for line {number} ({field!r}, {words}): {message}")
            return
    except Exception as exc:  # noqa: BLE001 (any other exception is the failure counted)
        counts["traceback"] += 1
        failures.append(f"traceback: {path}: {type(exc).__name__}: {exc}")
        return
    else:
        counts["silent-wrong"] += 1
        failures.append(f"accepted {field!r} at {path}:{number}")
        return
    counts["refused"] += 1
    if command:
        run = folder / f"refused-{index}.run"
        run.write_text("1 Q0 t1-d00 1 1.0 r\n")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", xdiv.XdivWarning)
            status = main(["evaluate", str(path), str(run), "-m", *MEASURES, "--prels"])
        err = _CAPSYS.readouterr().err.splitlines()
        if status != 2 or len(err) != 1 or not err[0].startswith(f"xdiv: error: {prefix}"):
            counts["wrong command error"] += 1
            failures.append(f"command: {status} {err}")
        else:
            counts["refused by the command"] += 1


def _accepted_batch(rng, folder, index: int, n_topics: int, counts: Counter,
                    failures: list) -> None:
    """A prels file of ``n_topics`` topics whose probabilities are all read, and a run;
    each topic is an input checked against the reference."""
    width = int(rng.choice([4, 5]))
    lines, judged = [], {}
    runs = []
    for t in range(n_topics):
        topic = str(t + 1)
        topic_lines = _lines(rng, topic, width, int(rng.integers(1, 9)), _accepted_probability)
        lines += topic_lines
        here = {}
        for _, judgment in topic_lines:
            if judgment is not None:
                docno, level, field = judgment
                here[docno] = (level, _expected(field))
                assert isinstance(here[docno][1], float), field
        judged[topic] = here
        docnos = [d for d in (f"t{topic}-d{k:02d}" for k in range(9)) if rng.random() < 0.6]
        docnos += [f"t{topic}-u{k}" for k in range(int(rng.integers(0, 4)))]
        ranking = list(rng.permutation(docnos)) if docnos else [f"t{topic}-u9"]
        runs += [(topic, d, r) for r, d in enumerate(ranking, start=1)]
    if not any(judged.values()):  # every line skipped: read_prels's other error
        return
    path = folder / f"accepted-{index}.prels"
    path.write_text("".join(text + "\n" for text, _ in lines))
    frame = pd.DataFrame(runs, columns=["topic", "docno", "rank"]).assign(
        run="r", score=lambda f: -f["rank"].astype(float))
    run_path = folder / f"accepted-{index}.run"
    run_path.write_text("".join(f"{t} Q0 {d} {r} {-float(r)} r\n" for t, d, r in runs))
    qrels_path = folder / f"accepted-{index}.qrels"
    qrels_path.write_text("".join(f"{t} 0 {d} {level}\n" for t, here in judged.items()
                                  for d, (level, _) in here.items()))
    try:
        with time_limit(TIME_LIMIT * 3), warnings.catch_warnings():
            warnings.simplefilter("ignore", xdiv.XdivWarning)
            collection = xdiv.read_prels(path)
            built = xdiv.build_runs(frame[["run", "topic", "docno", "score"]])
            scores = xdiv.evaluate(built, collection, MEASURES)["score"].sel(run="r")
            # the cells by label, looked up once (issue 35 item 18)
            scores = scores.to_series().to_dict()
            plain = xdiv.evaluate(built, xdiv.read_qrels(qrels_path), ["infAP"])
            status = main(["evaluate", str(path), str(run_path), "-m", *MEASURES, "--prels",
                           "--per-topic", "--format", "tsv"])
    except Hang:
        counts["hang"] += n_topics
        failures.append(f"hang: {path}")
        return
    except Exception as exc:  # noqa: BLE001
        counts["traceback"] += n_topics
        failures.append(f"traceback: {path}: {type(exc).__name__}: {exc}")
        return
    out = _CAPSYS.readouterr().out.splitlines()
    printed = {}
    if status == 0:
        header = out[0].split("\t")
        for row in out[1:]:
            cells = dict(zip(header, row.split("\t")))
            printed[cells["topic"]] = cells
    else:
        failures.append(f"command exit status {status} on {path}")
    ranked = {t: [d for tt, d, _ in runs if tt == t] for t in judged}
    plain_infap = plain["score"].sel(metric="infAP", run="r").to_series()
    for topic, here in judged.items():
        ranking = ranked[topic]
        stat = _stat_ap(ranking, here)
        wanted = {"statAP": (stat, stat), "infNDCG": _inferred_ndcg(ranking, here, None),
                  "infNDCG@5": _inferred_ndcg(ranking, here, 5)}
        infap = float(plain_infap[topic])
        wanted["infAP"] = (infap, infap)
        wrong = []
        for measure, (low, high) in wanted.items():
            value = float(scores[measure, topic])
            if not _close(value, low, high):
                wrong.append(f"{measure} {value!r} not in [{low!r}, {high!r}]")
            cell = printed.get(topic, {}).get(measure)
            if cell is None or not (math.isnan(value) and cell.lower() in ("nan", "")
                                    or _close(float(cell), value - 1e-6, value + 1e-6)):
                wrong.append(f"command {measure} {cell!r} for {value!r}")
        if wrong:
            counts["silent-wrong"] += 1
            failures.append(f"{path} topic {topic}: {'; '.join(wrong)} ({here})")
        else:
            counts["accepted, checked"] += 1
            if any(p < 1e-6 for _, p in here.values()):
                counts["accepted with weights past 10^6"] += 1


_CAPSYS = None


def campaign(n_refused: int, n_batches: int, topics: int, *, seed: int, folder,
             capsys) -> tuple[Counter, list[str]]:
    global _CAPSYS
    _CAPSYS = capsys
    rng = np.random.default_rng(seed)
    counts: Counter = Counter()
    failures: list[str] = []
    for index in range(n_refused):
        _refused_input(rng, folder, index, counts, failures, command=index % 25 == 0)
    for index in range(n_batches):
        _accepted_batch(rng, folder, index, topics, counts, failures)
    return counts, failures


def _report(counts: Counter, failures: list[str], capsys) -> None:
    with capsys.disabled():
        print(f"\nprels fuzz: {dict(counts)}")
        for failure in failures[:10]:
            print("  " + failure)


def _check(counts: Counter, failures: list[str], least: int) -> None:
    assert failures == []
    assert set(counts) <= {"refused", "refused by the command", "accepted, checked",
                           "accepted with weights past 10^6"}
    assert counts["refused"] + counts["accepted, checked"] >= least
    assert counts["refused by the command"] >= 1
    assert counts["accepted with weights past 10^6"] >= 1


def test_prels_fuzz_quick(tmp_path, capsys):
    counts, failures = campaign(60, 2, 10, seed=0, folder=tmp_path, capsys=capsys)
    _report(counts, failures, capsys)
    _check(counts, failures, 75)


@pytest.mark.slow
def test_prels_fuzz_two_thousand_inputs(tmp_path, capsys):
    # 1,400 refused files and 20 files of 40 topics each (800 topics checked): 2,200 inputs
    counts, failures = campaign(1400, 20, 40, seed=1, folder=tmp_path, capsys=capsys)
    _report(counts, failures, capsys)
    _check(counts, failures, 2000)
