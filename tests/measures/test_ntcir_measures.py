"""Every measure ``ntcir_eval compute`` prints against its registry measure (issue 36, item 5).

Seeded random adhoc cases (levels L0-L9 with ``-g`` gain values, unjudged documents,
topics without relevant documents, runs shorter and longer than the cutoffs, empty runs,
condensed lists with ``-j``) are written in NTCIREVAL's own formats (a ``rel`` file of
``docid Lk`` lines and a ``res`` ranked list per topic), labelled with ``ntcir_eval
label`` and scored with ``ntcir_eval compute``; each printed value must equal
``xdiv.evaluate``'s to NTCIREVAL's printed precision: it prints 4 decimals, so the
difference must be at most 5e-5 (plus float noise).
"""

from __future__ import annotations

import doctest
import glob
import math
import re
import subprocess
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import xdiv

from ..conftest import require_trec_2009

PRINTED = 5e-5 + 1e-9
"""Half a unit of the 4th decimal that ntcir_eval prints (``%.4f``): the most a value
combined from printed values may differ by."""


def prints_as(mine: float, printed: str) -> bool:
    """``mine`` printed with ``%.4f`` is ``printed``, or lies within 1e-9 of a rounding
    boundary (where the last bits of two correct computations may round either way)."""
    if f"{mine:.4f}" == printed:
        return True
    return abs(abs(mine - float(printed)) - 5e-5) < 1e-9


def prints_as_each(mine, printed) -> np.ndarray:
    """:func:`prints_as` of each pair of ``mine`` (floats) and ``printed`` (strings), as a
    boolean array: the same test on whole columns at once (issue 35 item 18)."""
    mine = np.asarray(mine, dtype=float)
    printed = np.asarray(printed, dtype=object)
    formatted = np.array([f"{value:.4f}" for value in mine.tolist()], dtype=object)
    near_boundary = np.abs(np.abs(mine - printed.astype(float)) - 5e-5) < 1e-9
    return (formatted == printed) | near_boundary


@dataclass
class Case:
    """One random adhoc case: a few topics, one run, and the options of ``compute`` (one
    ``xdiv.evaluate`` call scores all its topics)."""

    gains: tuple[float, ...]
    rels: dict[str, dict[str, int]]
    ranking: dict[str, list[str]]
    cutoffs: tuple[int, ...]
    beta: float = 1.0
    gamma: float = 0.95
    logb: float = 2.0
    rbp: float = 0.95
    rbup: float = 0.9
    condensed: bool = False
    stops: tuple[float, ...] | None = None
    options: list[str] = field(default_factory=list)


def random_case(rng: np.random.Generator) -> Case:
    """A random case of 3 to 9 topics; about a third use condensed lists (``-j``)."""
    declared = int(rng.integers(1, 10))                      # -g declares L1..L<declared>
    steps = rng.choice([0.5, 1.0, 2.0, 3.0], size=declared)
    gains = tuple(float(g) for g in np.cumsum(steps))
    used = int(rng.integers(1, declared + 1))                # qrels use up to L<used>
    rels, ranking = {}, {}
    for t in range(int(rng.integers(3, 10))):
        topic = f"{t + 1:04d}"
        pool = int(rng.integers(1, 30))
        levels = rng.integers(0, used + 1, size=pool) * (rng.random(pool) < 0.5)
        if rng.random() < 0.15:
            levels[:] = 0                                    # no relevant document
        rels[topic] = {f"D{t}-{k:03d}": int(lv) for k, lv in enumerate(levels)}
        length = int(rng.choice([0, int(rng.integers(1, 8)), int(rng.integers(1, 60))]))
        candidates = [f"D{t}-{k:03d}" for k in range(pool + 15)]  # the last 15 unjudged
        ranking[topic] = [str(d) for d in rng.permutation(candidates)[:length]]
    if not any(ranking.values()):                            # xdiv needs one line
        ranking["0001"] = [next(iter(rels["0001"]))]
    cutoffs = tuple(sorted(set(int(c) for c in rng.choice([1, 2, 3, 5, 10, 20, 50, 1000],
                                                             size=int(rng.integers(1, 4))))))
    stops = (tuple(float(s) for s in np.cumsum(rng.choice([1.0, 2.0], size=declared)))
             if rng.random() < 0.3 else None)
    return Case(gains=gains, rels=rels, ranking=ranking, cutoffs=cutoffs,
                beta=float(rng.choice([1.0, 0.5, 2.0])), gamma=float(rng.choice([0.95, 0.8])),
                logb=float(rng.choice([2.0, 3.0, 10.0])),
                rbp=float(rng.choice([0.95, 0.8, 0.5])), rbup=float(rng.choice([0.9, 0.99])),
                condensed=bool(rng.random() < 0.35), stops=stops)


def _number(value: float) -> str:
    return f"{value:g}"


def compute_options(case: Case) -> list[str]:
    """``ntcir_eval compute``'s options for ``case`` (besides ``-r``)."""
    options = ["-g", ":".join(_number(g) for g in case.gains),
               "-cutoffs", ",".join(str(c) for c in case.cutoffs),
               "-beta", _number(case.beta), "-gamma", _number(case.gamma),
               "-logb", _number(case.logb), "-rbp", _number(case.rbp),
               "-rbup", _number(case.rbup), "-gap"]
    if case.stops is not None:
        options += ["-s", ":".join(_number(s) for s in case.stops)]
    return options + (["-j"] if case.condensed else [])


_LINE = re.compile(r"^\s*(\S+)=\s+(\S+)$")


def run_ntcir_eval(program: Path, cases: dict, folder: Path) -> dict:
    """ntcir_eval's values of ``cases`` (label: case): ``{label: {topic: {printed name:
    printed value}}}``; a topic for which it prints nothing (no relevant document, or no
    judged non-relevant one under ``-j``) is left out.

    Each topic of each case is labelled (``ntcir_eval label``) and scored (``ntcir_eval
    compute``) by processes of their own, as one would run them by hand; one shell script
    starts them all, each pair's output after a line naming its case and topic (starting
    thousands of processes from the test's Python process took seconds of CPU: issue 35
    item 18)."""
    script, blocks, rel_files = [], [], {}
    for k, (label, case) in enumerate(cases.items()):
        for topic, rel in case.rels.items():
            if id(rel) not in rel_files:  # cases may share a topic's rel (one file)
                rel_files[id(rel)] = folder / f"{len(rel_files)}.rel"
                rel_files[id(rel)].write_text("".join(f"{d} L{lv}\n" for d, lv in rel.items()))
            rel_file = rel_files[id(rel)]
            res_file, labelled = folder / f"{k}-{topic}.res", folder / f"{k}-{topic}.lab"
            res_file.write_text("".join(f"{d}\n" for d in case.ranking[topic]))
            condensed = " -j" if case.condensed else ""
            options = " ".join(compute_options(case))
            script.append(f"echo '#case {len(blocks)}'\n"
                          f"'{program}' label -r '{rel_file}'{condensed} '{res_file}' "
                          f"> '{labelled}' || exit 3\n"
                          f"'{program}' compute -r '{rel_file}' {options} < '{labelled}'\n")
            blocks.append((label, topic))
    (folder / "ntcir_eval.sh").write_text("".join(script))
    printed = subprocess.run(["sh", str(folder / "ntcir_eval.sh")], capture_output=True,
                             text=True, check=True).stdout
    parts = printed.split("#case ")
    assert parts[0] == "" and [int(part.split("\n", 1)[0]) for part in parts[1:]] == list(
        range(len(blocks)))  # each case and topic's output is the one after its line
    out: dict = {label: {} for label in cases}
    for (label, topic), part in zip(blocks, parts[1:]):
        values = {}
        for line in part.splitlines()[1:]:
            match = _LINE.match(line)
            if match:
                values[match[1]] = match[2]
        if values:
            out[label][topic] = values
    return out


def _g(values: tuple[float, ...]) -> str:
    return "(" + ",".join(_number(v) for v in values) + ",)"


def registry_names(case: Case) -> dict[str, str]:
    """ntcir_eval's printed name -> the registry measure that computes it."""
    H = len(case.gains)
    g = f"gain={_g(case.gains)},H={H}"
    q = "q=(" + ",".join(repr(x * (x + 1) / (H * (H + 1))) for x in range(1, H + 1)) + ",)"
    stop = "" if case.stops is None else f",stop={_g(case.stops)}"
    names = {
        "RR": "RR", "AP": "AP", "Q-measure": f"Q(beta={case.beta},{g})",
        "P-plus": f"P+(beta={case.beta},{g})",
        "O-measure": f"O(beta={case.beta},{g})",
        "P-measure": f"P-measure(beta={case.beta},{g})",
        "NCUgu,P": f"NCUgu(utility=P,{g}{stop})",
        "NCUgu,BR": f"NCUgu(utility=BR,beta={case.beta},{g}{stop})",
        "NCUrb,P": f"NCUrb(utility=P,gamma={case.gamma})",
        "NCUrb,BR": f"NCUrb(utility=BR,gamma={case.gamma},beta={case.beta},{g})",
        "GAP": f"GAP({q},H={H})",
        "RBP": f"RBP(p={case.rbp},{g})", "ERR": f"ERR({g})",
        "EBR": f"EBR(beta={case.beta},{g})",
    }
    for c in case.cutoffs:
        at = f"@{c:04d}"
        names.update({
            f"AP{at}": f"AP@{c}", f"Q{at}": f"Q(beta={case.beta},{g})@{c}",
            f"GAP{at}": f"GAP({q},H={H})@{c}",
            f"nDCG{at}": f"nDCG-JK(logb={case.logb},{g})@{c}",
            f"MSnDCG{at}": f"nDCG({g})@{c}", f"P{at}": f"P@{c}",
            f"RBP{at}": f"RBP(p={case.rbp},{g})@{c}", f"ERR{at}": f"ERR({g})@{c}",
            f"nERR{at}": f"nERR({g})@{c}", f"EBR{at}": f"EBR(beta={case.beta},{g})@{c}",
            f"iRBU{at}": f"iRBU(p={case.rbup},{g})@{c}", f"Hit{at}": f"Hit@{c}"})
    if case.condensed:
        names.update({"bpref": "bpref", "bpref_R": "bpref_R", "bpref_N": "bpref_N",
                      "bpref_relative": "bpref_relative", "rpref_N": f"rpref_N({g})",
                      "rpref_relative": f"rpref_relative({g})",
                      "rpref_relative2": f"rpref_relative2({g})"})
    return names


def run_xdiv(cases: dict, names: dict[str, str]) -> dict:
    """xdiv.evaluate's values of ``cases`` (label: case), which differ only in their
    rankings (one run each, scored in one call): ``{label: {topic: {printed name:
    value}}}``."""
    first = next(iter(cases.values()))
    qrels = pd.DataFrame([(t, "0", d, lv) for t, rel in first.rels.items()
                          for d, lv in rel.items()],
                         columns=["topic", "intent", "docno", "level"])
    lists = [(str(label), t, docs) for label, case in cases.items()
             for t, docs in case.ranking.items()]
    lengths = [len(docs) for _, _, docs in lists]
    runs = pd.DataFrame({  # each list's scores len(docs), ..., 1, column by column
        "run": np.repeat([label for label, _, _ in lists], lengths).astype(object),
        "topic": np.repeat([t for _, t, _ in lists], lengths).astype(object),
        "docno": [d for _, _, docs in lists for d in docs],
        "score": np.concatenate([np.arange(n, 0, -1, dtype=float) for n in lengths]
                                or [np.zeros(0)])})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        collection = xdiv.build_collection(qrels)
        result = xdiv.evaluate(xdiv.build_runs(runs), collection, list(names.values()),
                               judged_only=first.condensed)
    by_measure = dict(zip(names.values(), names))
    cube = result["score"].transpose("run", "topic", "metric")
    printed = [by_measure[str(m)] for m in cube["metric"].values]
    run_at = {str(r): k for k, r in enumerate(cube["run"].values)}
    topic_at = {str(t): k for k, t in enumerate(cube["topic"].values)}
    values = cube.values
    out = {}
    for label in cases:
        per_run = values[run_at[str(label)]]
        out[label] = {topic: dict(zip(printed, per_run[topic_at[topic]].tolist()))
                      for topic in first.rels if topic in topic_at}
    return out


def compare(program: Path, folder: Path, seeds: range) -> dict[str, list[float]]:
    """Differences per printed name (without its cutoff) over the topics of the random
    cases of ``seeds`` (:func:`compare_cases`)."""
    return compare_cases(program, folder, {seed: random_case(np.random.default_rng(seed))
                                           for seed in seeds})


def compare_cases(program: Path, folder: Path, cases: dict) -> dict[str, list[float]]:
    """Differences per printed name (without its cutoff) over the topics of ``cases``
    (label: case); fails on the first value that xdiv does not print the same
    (``%.4f``), or on a measure ntcir_eval prints that the comparison does not cover."""
    differences: dict[str, list[float]] = {}
    # consecutive cases that differ only in their rankings are scored in one call
    groups: list[dict] = []
    for seed, case in cases.items():
        if groups and replace(next(iter(groups[-1].values())), ranking={}) == replace(
                case, ranking={}):
            groups[-1][seed] = case
        else:
            groups.append({seed: case})
    scored = {}
    for group in groups:
        scored.update(run_xdiv(group, registry_names(next(iter(group.values())))))
    by_ntcir_eval = run_ntcir_eval(program, cases, folder)
    for seed, case in cases.items():
        expected = by_ntcir_eval[seed]
        names = registry_names(case)
        got = scored[seed]
        for topic, values in expected.items():
            assert set(values) <= set(names), sorted(set(values) - set(names))
            for printed, value in values.items():
                mine = got[topic][printed]
                assert prints_as(mine, value), (
                    f"case {seed} topic {topic}: {printed} ntcir_eval {value} xdiv "
                    f"{names[printed]} {mine}")
                differences.setdefault(printed.split("@")[0], []).append(
                    abs(mine - float(value)))
        for topic in set(case.rels) - set(expected):
            # ntcir_eval refuses topics without a relevant document (xdiv: NaN) and, with
            # -j, without a judged non-relevant one (bpref is then not computable)
            if not any(lv > 0 for lv in case.rels[topic].values()):
                assert all(math.isnan(v) for v in got.get(topic, {}).values())
    return differences


@pytest.fixture
def program(ntcireval_folder) -> Path:
    return ntcireval_folder / "ntcir_eval"


def test_every_compute_measure_agrees_with_ntcir_eval(program, tmp_path):
    """6 cases, 30 to 50 topics with relevant documents, every measure of compute."""
    differences = compare(program, tmp_path, range(6))
    assert len(differences["Q-measure"]) >= 30
    assert {"RR", "O-measure", "P-measure", "P-plus", "AP", "Q-measure", "NCUgu,P",
            "NCUgu,BR", "NCUrb,P", "NCUrb,BR", "GAP", "RBP", "ERR", "EBR", "Q", "nDCG",
            "MSnDCG", "P", "nERR", "iRBU", "Hit", "bpref", "bpref_R", "bpref_N",
            "bpref_relative", "rpref_N", "rpref_relative", "rpref_relative2"} <= set(differences)


@pytest.mark.slow
def test_every_compute_measure_agrees_with_ntcir_eval_on_many_cases(program, tmp_path):
    """50 cases, over 200 topics with relevant documents."""
    differences = compare(program, tmp_path, range(1000, 1050))
    assert len(differences["Q-measure"]) >= 200


def test_the_kernels_examples_hold():
    from xdiv.kernels import ntcir

    result = doctest.testmod(ntcir)
    assert result.attempted >= 11 and result.failed == 0


# ---------------------------------------------------------------- intent-aware (gcompute)

@dataclass
class DiversityCase:
    """Random diversity topics: per-intent levels, one run, one cutoff; every intent has a
    relevant document and Pr(i|q) is uniform (so that xdiv's renormalisation over the
    intents with a relevant document changes nothing)."""

    gains: tuple[float, ...]
    rels: dict[str, dict[str, dict[str, int]]]
    ranking: dict[str, list[str]]
    cutoff: int
    rbp: float


def random_diversity_case(rng: np.random.Generator,
                          intent_counts: tuple[int, ...] = (1, 2, 3, 4)) -> DiversityCase:
    """A random diversity case whose topics have one of ``intent_counts`` intents."""
    declared = int(rng.integers(1, 10))
    gains = tuple(float(g) for g in np.cumsum(rng.choice([0.5, 1.0, 2.0], size=declared)))
    rels, ranking = {}, {}
    for t in range(int(rng.integers(3, 8))):
        topic = f"{t + 1:04d}"
        pool = int(rng.integers(2, 25))
        docs = [f"D{t}-{k:03d}" for k in range(pool)]
        intents = {}
        for i in range(int(rng.choice(intent_counts))):
            used = int(rng.integers(1, declared + 1))
            levels = rng.integers(0, used + 1, size=pool) * (rng.random(pool) < 0.5)
            levels[int(rng.integers(pool))] = used                # a relevant document
            judged = rng.random(pool) < 0.8
            intents[str(i + 1)] = {d: int(lv) for d, lv, j in zip(docs, levels, judged)
                                   if j or lv > 0}
        rels[topic] = intents
        length = int(rng.integers(1, 40))
        ranking[topic] = [str(d) for d in rng.permutation(docs + [f"U{t}-{k}" for k in
                                                                   range(10)])[:length]]
    return DiversityCase(gains=gains, rels=rels, ranking=ranking,
                         cutoff=int(rng.choice([1, 3, 5, 10, 20])),
                         rbp=float(rng.choice([0.95, 0.8])))


def run_gcompute(program: Path, case: DiversityCase, folder: Path) -> dict[str, dict]:
    """NTCIREVAL's intent-aware values as ``D-NTCIR-IAeval`` computes them: ``glabel`` and
    ``gcompute`` per intent on its relv file (gains gv(level), sorted by decreasing gain),
    then ``sum_i Pr(i|q) value_i`` of the printed values; ``{topic: {name: value}}``."""
    table = (0.0, *case.gains)
    out = {}
    for topic, intents in case.rels.items():
        res_file = folder / f"{topic}.res"
        res_file.write_text("".join(f"{d}\n" for d in case.ranking[topic]))
        total: dict[str, float] = {}
        for intent, rel in intents.items():
            relv = folder / f"{topic}.Irelv{intent}"
            ordered = sorted(rel.items(), key=lambda item: -item[1])
            relv.write_text("".join(f"{d} {_number(table[lv])}\n" for d, lv in ordered))
            labelled = subprocess.run([str(program), "glabel", "-I", str(relv), "-truncate",
                                       str(case.cutoff), str(res_file)], capture_output=True,
                                      text=True, check=True).stdout
            computed = subprocess.run([str(program), "gcompute", "-I", str(relv), "-cutoffs",
                                       str(case.cutoff), "-rbp", _number(case.rbp)],
                                      input=labelled, capture_output=True, text=True,
                                      check=True).stdout
            for line in computed.splitlines():
                match = _LINE.match(line)
                if match:
                    total[match[1]] = total.get(match[1], 0.0) + float(match[2]) / len(intents)
        out[topic] = total
    return out


def test_intent_aware_measures_agree_with_ntcir_eval_gcompute(program, tmp_path):
    """IA-ERR, IA-nERR, IA-RBP and IA-EBR with each intent's own highest gain
    (``highest=own``), IA-MSnDCG and IA-Q, as D-NTCIR-IAeval(2) combine gcompute's values."""
    compared = 0
    for seed in range(8):
        case = random_diversity_case(np.random.default_rng(seed))
        expected = run_gcompute(program, case, tmp_path)
        g = f"gain={_g(case.gains)},H={len(case.gains)}"
        at = f"@{case.cutoff:04d}"
        names = {f"ERR{at}": f"ERR-IA(ndeval=False,{g},highest=own)@{case.cutoff}",
                 f"nERR{at}": f"nERR-IA(ndeval=False,{g},highest=own)@{case.cutoff}",
                 f"RBP{at}": f"RBP-IA(p={case.rbp},{g},highest=own)@{case.cutoff}",
                 f"EBR{at}": f"EBR-IA({g},highest=own)@{case.cutoff}",
                 f"MSnDCG{at}": f"nDCG-IA({g})@{case.cutoff}",
                 f"Q{at}": f"Q-IA({g})@{case.cutoff}"}
        qrels = pd.DataFrame([(t, i, d, lv) for t, intents in case.rels.items()
                              for i, rel in intents.items() for d, lv in rel.items()],
                             columns=["topic", "intent", "docno", "level"])
        runs = pd.DataFrame([("run", t, d, float(len(docs) - k))
                             for t, docs in case.ranking.items() for k, d in enumerate(docs)],
                            columns=["run", "topic", "docno", "score"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", xdiv.XdivWarning)
            result = xdiv.evaluate(xdiv.build_runs(runs), xdiv.build_collection(qrels),
                                   list(names.values()))
        score = result["score"].sel(run="run")
        for topic, values in expected.items():
            for printed, name in names.items():
                mine = float(score.sel(topic=topic, metric=name))
                assert abs(mine - values[printed]) <= PRINTED, (
                    f"seed {seed} topic {topic}: IA-{printed} {values[printed]} xdiv {name} "
                    f"{mine}")
                compared += 1
    assert compared >= 150


@pytest.mark.parametrize("din", [False, True], ids=["D", "DIN"])
def test_d_and_din_measures_agree_with_ntcir_eval_gcompute(program, tmp_path, din):
    """D-forms (DIN-forms) against gcompute on a global relv file (GG(r) = sum_i Pr(i|q)
    gv(x_i(r)), sorted by decreasing GG), the run labelled by glabel (by dinlabel from a
    din file, each navigational intent counting only at its first relevant document), as
    D-NTCIR-eval (DIN-NTCIR-eval) runs them: every measure gcompute prints that xdiv has
    in a D-form. glabel and dinlabel write each gain with 4 decimals, so the cases keep
    every GG exact at 4 decimals (1, 2, 4 or 5 intents, gains multiples of 0.5): the
    rounding of NTCIREVAL's pipeline is not the measures' definition."""
    compared = 0
    prefix = "DIN" if din else "D"
    for seed in range(8):
        rng = np.random.default_rng(100 + seed)
        case = random_diversity_case(rng, (1, 2, 4, 5))
        types = {(t, i): str(rng.choice(["inf", "nav"])) if din else "inf"
                 for t, intents in case.rels.items() for i in intents}
        table = (0.0, *case.gains)
        g = f"gain={_g(case.gains)},H={len(case.gains)}"
        at, c = f"@{case.cutoff:04d}", case.cutoff
        names = {"O-measure": f"{prefix}-O({g})", "P-measure": f"{prefix}-P-measure({g})",
                 "P-plus": f"{prefix}-P+({g})", "NCUrb,P": f"{prefix}-NCUrb(utility=P,{g})",
                 "NCUrb,BR": f"{prefix}-NCUrb({g})", "RBP": f"{prefix}-RBP(p={case.rbp},{g})",
                 "ERR": f"{prefix}-ERR({g})", "EBR": f"{prefix}-EBR({g})",
                 f"nDCG{at}": f"{prefix}-nDCG-JK({g})@{c}",
                 f"MSnDCG{at}": f"{prefix}-nDCG({g})@{c}", f"Q{at}": f"{prefix}-Q({g})@{c}",
                 f"RBP{at}": f"{prefix}-RBP(p={case.rbp},{g})@{c}",
                 f"ERR{at}": f"{prefix}-ERR({g})@{c}", f"nERR{at}": f"{prefix}-nERR({g})@{c}",
                 f"EBR{at}": f"{prefix}-EBR({g})@{c}", "GAP": f"{prefix}-GAP({g})",
                 f"GAP{at}": f"{prefix}-GAP({g})@{c}"}
        expected = {}
        for topic, intents in case.rels.items():
            docs = {d for rel in intents.values() for d in rel}
            gg = {d: sum(table[rel.get(d, 0)] for rel in intents.values()) / len(intents)
                  for d in docs}
            grelv, res = tmp_path / f"{topic}.Grelv", tmp_path / f"{topic}.res"
            grelv.write_text("".join(f"{d} {v:.10g}\n" for d, v in
                                     sorted(gg.items(), key=lambda item: -item[1])))
            res.write_text("".join(f"{d}\n" for d in case.ranking[topic]))
            if din:
                din_file = tmp_path / f"{topic}.din"
                din_file.write_text("".join(
                    f"{i} {types[topic, i]} {d} {table[lv] / len(intents):.10g}\n"
                    for i, rel in intents.items() for d, lv in rel.items() if lv > 0))
                label = ["dinlabel", "-din", str(din_file)]
            else:
                label = ["glabel", "-I", str(grelv)]
            labelled = subprocess.run([str(program), *label, str(res)], capture_output=True,
                                      text=True, check=True).stdout
            computed = subprocess.run([str(program), "gcompute", "-I", str(grelv),
                                       "-cutoffs", str(c), "-rbp", _number(case.rbp), "-gap"],
                                      input=labelled, capture_output=True, text=True,
                                      check=True).stdout
            expected[topic] = {m[1]: m[2] for m in map(_LINE.match,
                                                               computed.splitlines()) if m}
        qrels = pd.DataFrame([(t, i, d, lv) for t, intents in case.rels.items()
                              for i, rel in intents.items() for d, lv in rel.items()],
                             columns=["topic", "intent", "docno", "level"])
        topics = pd.DataFrame([(t, i, kind, "faceted", k) for k, ((t, i), kind)
                               in enumerate(types.items())],
                              columns=["topic", "intent", "intent_type", "topic_type", "order"])
        runs = pd.DataFrame([("run", t, d, float(len(docs) - k))
                             for t, docs in case.ranking.items() for k, d in enumerate(docs)],
                            columns=["run", "topic", "docno", "score"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", xdiv.XdivWarning)
            result = xdiv.evaluate(xdiv.build_runs(runs),
                                   xdiv.build_collection(qrels, topics=topics),
                                   list(names.values()))
        score = result["score"].sel(run="run")
        for topic, values in expected.items():
            for printed, name in names.items():
                mine = float(score.sel(topic=topic, metric=name))
                assert prints_as(mine, values[printed]), (
                    f"seed {seed} topic {topic}: {printed} {values[printed]} xdiv {name} "
                    f"{mine}")
                compared += 1
    assert compared >= 400


@pytest.mark.slow
def test_every_compute_measure_agrees_with_ntcir_eval_on_the_trec_2009_runs(program,
                                                                            tmp_path):
    """The 18 TREC 2009 Web Track diversity runs on its 50 topics, each document's level
    the number of intents it is relevant to (L0-L8, ``-g 1:2:...:8``), cutoffs 10, 20
    and 1000, in the rank order xdiv reads them; three of them also on condensed lists
    (``-j``: the bpref and rpref family)."""
    root = require_trec_2009()
    qrels = pd.read_csv(root / "qrels.diversity.gz", sep=r"\s+", header=None,
                        names=["topic", "intent", "docno", "level"], dtype=str)
    qrels["level"] = qrels["level"].astype(int).clip(lower=0)
    count = qrels.groupby(["topic", "docno"], sort=False)["level"].sum()
    rels: dict[str, dict[str, int]] = {}
    for (topic, docno), level in count.items():
        rels.setdefault(topic, {})[docno] = int(level)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        runs = xdiv.read_runs(sorted(glob.glob(str(root / "runs" / "*.gz"))))
    docnos = runs["docno"].values
    cases = {}
    for run in runs["run"].values:
        ranking = {}
        for topic in rels:
            doc = runs["doc"].sel(run=run, topic=topic).values
            length = int(runs["length"].sel(run=run, topic=topic))
            ranking[topic] = [str(d) for d in docnos[doc[:length]]]
        cases[run] = Case(gains=tuple(float(g) for g in range(1, 9)), rels=rels,
                          ranking=ranking, cutoffs=(10, 20, 1000))
    for run in list(cases)[::6]:
        cases[f"{run} -j"] = replace(cases[run], condensed=True)
    differences = compare_cases(program, tmp_path, cases)
    assert len(differences["Q-measure"]) == 21 * 50
    assert len(differences["rpref_N"]) == 3 * 50


# ---------------------------------------------------------------- I-rec@n (irec, D-NTCIR-eval)

def _irec_case(rng: np.random.Generator) -> tuple[dict, dict]:
    """Random diversity topics for ``irec``: ``rels[topic][intent] = {docno: level}`` (some
    intents without a relevant document, some topics without any, up to 9 intents) and the
    ranked lists (some empty, some shorter than the number of intents)."""
    rels, ranking = {}, {}
    for t in range(int(rng.integers(3, 9))):
        topic = f"{t + 1:04d}"
        docs = [f"D{t}-{k:02d}" for k in range(int(rng.integers(2, 20)))]
        intents = {}
        for i in range(int(rng.integers(1, 10))):
            density = 0.0 if rng.random() < 0.15 else rng.random() * 0.4
            levels = rng.integers(1, 4, size=len(docs)) * (rng.random(len(docs)) < density)
            intents[str(i + 1)] = {d: int(lv) for d, lv, j in
                                   zip(docs, levels, rng.random(len(docs)) < 0.7)
                                   if j or lv > 0}
        rels[topic] = intents
        length = int(rng.choice([0, int(rng.integers(1, 5)), int(rng.integers(1, 30))]))
        pool = docs + [f"U{t}-{k}" for k in range(5)]
        ranking[topic] = [str(d) for d in rng.permutation(pool)[:length]]
    if not any(ranking.values()):
        ranking["0001"] = ["U0-0"]
    return rels, ranking


def _irec_by_ntcir_eval(program: Path, rels: dict, ranking: dict, folder: Path,
                        cutoffs: str) -> dict[str, dict[str, str]]:
    """``ntcir_eval irec -cutoffs ...`` per topic, on an Irelv file per intent with a
    relevant document (as DIN-splitqrels writes them); topics without one are left out."""
    out = {}
    for topic, intents in rels.items():
        res = folder / f"{topic}.res"
        res.write_text("".join(f"{d}\n" for d in ranking[topic]))
        files = []
        for intent, rel in intents.items():
            relevant = [d for d, lv in sorted(rel.items(), key=lambda item: -item[1]) if lv]
            if relevant:
                files.append(folder / f"{topic}.Irelv{intent}")
                files[-1].write_text("".join(f"{d} {rel[d]}\n" for d in relevant))
        if files:
            printed = subprocess.run([str(program), "irec", "-cutoffs", cutoffs, str(res),
                                      *map(str, files)], capture_output=True, text=True,
                                     check=True).stdout
            out[topic] = {m[1]: m[2] for m in map(_LINE.match, printed.splitlines()) if m}
    return out


def test_irec_at_n_agrees_with_ntcir_eval_irec(program, tmp_path):
    """I-rec@n and I-rec@l against ``ntcir_eval irec`` on 30 random cases (over 100
    topics with a relevant document: up to 9 intents, intents and topics without relevant
    documents, empty runs and runs shorter than n), scored by one ``xdiv.evaluate``."""
    rels, ranking, expected = {}, {}, {}
    for seed in range(30):
        case_rels, case_ranking = _irec_case(np.random.default_rng(2000 + seed))
        printed = _irec_by_ntcir_eval(program, case_rels, case_ranking, tmp_path, "1,3,10")
        for topic in case_rels:  # the cases' topics apart, as one collection
            rels[f"{seed}-{topic}"] = case_rels[topic]
            ranking[f"{seed}-{topic}"] = case_ranking[topic]
            if topic in printed:
                expected[f"{seed}-{topic}"] = printed[topic]
    qrels = pd.DataFrame([(t, i, d, lv) for t, intents in rels.items()
                          for i, rel in intents.items() for d, lv in rel.items()],
                         columns=["topic", "intent", "docno", "level"])
    runs = pd.DataFrame([("run", t, d, float(len(docs) - k))
                         for t, docs in ranking.items() for k, d in enumerate(docs)],
                        columns=["run", "topic", "docno", "score"])
    names = {"I-rec@n": "I-rec@n", "I-rec@0001": "I-rec@1", "I-rec@0003": "I-rec@3",
             "I-rec@0010": "I-rec@10"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        score = xdiv.evaluate(xdiv.build_runs(runs), xdiv.build_collection(qrels),
                              list(names.values()))["score"].sel(run="run")
    table = score.transpose("topic", "metric").to_pandas()
    compared, short = 0, 0
    for topic in rels:
        if topic not in expected:  # no relevant document: irec has no Irelv file
            assert np.isnan(table.at[topic, "I-rec@n"])
            continue
        for printed, name in names.items():
            mine = float(table.at[topic, name])
            assert prints_as(mine, expected[topic][printed]), (
                f"topic {topic}: {printed} {expected[topic][printed]} xdiv {name} {mine}")
        compared += 1
        n = sum(any(rel.values()) for rel in rels[topic].values())
        short += len(ranking[topic]) < n
    assert compared >= 100 and short >= 10


@pytest.mark.slow
def test_irec_at_n_agrees_with_d_ntcir_eval_on_ntcirevals_sample(ntcireval_folder, tmp_path):
    """D-NTCIR-eval's I-rec@n lines (its Dnev files) on NTCIREVAL's sample (Dtest.Iprob,
    Dtest.Dqrels, TRECRUN and TRECRUN2), the runs read from the res files TRECsplitruns
    writes."""
    import os
    import shutil

    if shutil.which("gawk") is None:
        pytest.skip("NTCIREVAL's scripts need gawk")
    for name in ("DIN-splitqrels", "TRECsplitruns", "D-NTCIR-eval", "ntcir_eval",
                 "Dtest.Iprob", "Dtest.Dqrels", "TRECRUN", "TRECRUN2"):
        shutil.copy2(ntcireval_folder / name, tmp_path / name)
    (tmp_path / "runl").write_text("TRECRUN\nTRECRUN2\n")
    env = {**os.environ, "LC_ALL": "C", "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    for command in ("DIN-splitqrels Dtest.Iprob Dtest.Dqrels q",
                    "TRECsplitruns Dtest.Iprob.tid 1000", "D-NTCIR-eval Dtest.Iprob.tid q 10 e"):
        subprocess.run(["sh", *command.split()], cwd=tmp_path, env=env, check=True,
                       input=b"TRECRUN\nTRECRUN2\n", capture_output=True, timeout=120)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        collection = xdiv.read_qrels(tmp_path / "Dtest.Dqrels", format="ntcir",
                                     probabilities=tmp_path / "Dtest.Iprob")
        runs = xdiv.io.ntcir.read_res_runs(tmp_path, ["TRECRUN", "TRECRUN2"],
                                           tmp_path / "Dtest.Iprob.tid")
        score = xdiv.evaluate(runs, collection, ["I-rec@n"])["score"]
    compared = 0
    for run in ("TRECRUN", "TRECRUN2"):
        for line in (tmp_path / f"{run}.e.Dnev").read_text().splitlines():
            fields = line.split()
            if fields[1:2] == ["I-rec@n="]:
                mine = float(score.sel(run=run, topic=fields[0], metric="I-rec@n"))
                assert prints_as(mine, fields[2]), (run, fields[0], fields[2], mine)
                compared += 1
    assert compared == 6
