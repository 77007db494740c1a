"""``xdiv ntcir_eval`` prints what NTCIREVAL's ``ntcir_eval`` (190111) prints, byte for
byte: standard output, standard error and exit status, against the program built from
its tarball (tests/conftest.py: ``ntcireval_folder``; skipped without it, make or gcc).

Each random case (seeded) writes a relevance file, an ideal list, a DIN file or per-intent
lists and a ranked list, then runs one subcommand with random options through the binary
(a child process, called ``ntcir_eval`` as the scripts call it) and through
:func:`xdiv.official.ntcireval.ntcir_eval` (in this process), and compares the bytes.
The cases are messy on purpose: levels L0-L9, runs without any judged or relevant
document, empty runs, unjudged and duplicated documents, documents judged twice, intents
without relevant documents, probabilities that do not add up to 1, navigational
intents, condensed lists (-j), truncation, several cutoffs (0, beyond the list), odd
option values.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from xdiv.cli import main
from xdiv.official.ntcireval import ntcir_eval

from .conftest import copy_split

SUBCOMMANDS = ("label", "compute", "glabel", "gcompute", "dinlabel", "irec", "1click")


def binary_runner(folder: Path):
    """``run(args, stdin)``: ``ntcir_eval ARGS``'s (stdout, stderr, status)."""
    program = folder / "ntcir_eval"

    def run(args: list[str], stdin: bytes = b"") -> tuple[bytes, bytes, int]:
        proc = subprocess.run(["ntcir_eval", *args], executable=program, input=stdin,
                              capture_output=True, timeout=30)
        return proc.stdout, proc.stderr, proc.returncode

    return run


def xdiv_outcome(args: list[str], stdin: bytes = b"") -> tuple[bytes, bytes, int]:
    outcome = ntcir_eval([os.fsencode(a) for a in args], io.BytesIO(stdin))
    return outcome.stdout, outcome.stderr, outcome.status


USAGE_SCREENS = (b" command= ", b"OPTIONS:\n")
"""Lines of ntcir_eval's long usage screens (without a subcommand; ``compute -h`` and
``gcompute -h``). Their text is NTCIREVAL's prose, which xdiv does not copy: xdiv prints
the same first line (the command's syntax), the same subcommands or options in the same
order, each said in its own words, on the same stream with the same status."""


def _screen_items(err: bytes) -> list[bytes]:
    """The subcommands or option names a usage screen lists, in order."""
    found = re.findall(rb"^(?:   \*?([0-9a-z]+)[*: ]|\t(-[a-z]+)\b)", err, re.MULTILINE)
    return [subcommand or option for subcommand, option in found]


def same_outcome(got: tuple[bytes, bytes, int], expected: tuple[bytes, bytes, int]) -> bool:
    """Whether xdiv's (stdout, stderr, status) is ntcir_eval's: byte for byte, but for the
    text of a long usage screen (:data:`USAGE_SCREENS`), compared by what it lists."""
    if got == expected:
        return True
    (out, err, status), (their_out, their_err, their_status) = got, expected
    if not any(line in their_err for line in USAGE_SCREENS):
        return False
    head, _, _ = their_err.partition(b"\n")
    return ((out, status) == (their_out, their_status)
            and err.partition(b"\n")[0] == head
            and _screen_items(err) == _screen_items(their_err))


def _same(binary, args: list[str], stdin: bytes = b"") -> tuple[bytes, bytes, int]:
    expected = binary(args, stdin)
    got = xdiv_outcome(args, stdin)
    assert same_outcome(got, expected), (args, stdin[:200], got, expected)
    return expected


# ------------------------------------------------------------------ random cases


def _docnos(rng: random.Random, pool: int) -> list[str]:
    return [f"d{rng.randrange(pool)}" for _ in range(rng.randrange(0, 2 * pool))]


def _cutoffs(rng: random.Random) -> list[str]:
    if rng.random() < 0.3:
        return []
    values = [rng.choice([0, 1, 2, 3, 5, 10, 20, 50, 1000, 12345, rng.randrange(1, 40)])
              for _ in range(rng.randrange(1, 9))]
    text = ",".join(str(v) for v in values)
    if rng.random() < 0.2:
        text = rng.choice(["10.7,", ",,5", "3e1,2"])
    return ["-cutoffs", text]


def _number(rng: random.Random, low: float, high: float) -> str:
    value = rng.uniform(low, high)
    return rng.choice([f"{value:.2f}", f"{value:.6g}", str(round(value, 1)), f"{value:e}"])


def random_case(rng: random.Random, folder: Path, command: str, binary) -> tuple[list[str], bytes]:
    """A random ``ntcir_eval`` command line (absolute file names) and its standard input."""
    pool = rng.randrange(1, 30)
    levels = rng.randrange(1, 10)
    system = _docnos(rng, pool + 5)
    files = {}

    def put(name: str, lines: list[str]) -> str:
        path = folder / name
        path.write_text("".join(line + "\n" for line in lines))
        files[name] = str(path)
        return str(path)

    if command in ("label", "compute"):
        judged = rng.sample(range(pool), rng.randrange(0, pool + 1))
        rel = [f"d{d} L{rng.randrange(0, levels + 1)}" for d in judged]
        ec_mode = command == "compute" and rng.random() < 0.15 or \
            command == "label" and rng.random() < 0.2
        if ec_mode:
            rel = [f"{line} {rng.randrange(1, max(2, pool // 2))}" for line in rel]
        if rng.random() < 0.2 and rel:
            rel.append(rng.choice(rel))  # a document judged twice
        rel_path = put("rel", rel)
        options = (["-j"] if rng.random() < 0.3 else []) + (["-ec"] if ec_mode else [])
        if command == "label":
            if rng.random() < 0.3:
                options += ["-truncate", str(rng.randrange(1, 30))]
            if rng.random() < 0.1:
                options += ["-sep", " "]
            args = ["label", *options, "-r", rel_path]
            if rng.random() < 0.5:
                return args + [put("run", system)], b""
            return args, "".join(d + "\n" for d in system).encode()
        labelled, _, _ = binary(["label", *options, "-r", rel_path],
                                "".join(d + "\n" for d in system).encode())
        gains = sorted(round(rng.uniform(0, 5), rng.randrange(0, 3)) for _ in range(levels))
        if rng.random() < 0.2:
            gains = [2 ** k - 1 for k in range(1, levels + 1)]
        args = ["compute", "-r", rel_path, "-g", ":".join(str(g) for g in gains)]
        if "-j" in options:
            args.append("-j")
        if ec_mode:
            args.append("-ec")
        args += _cutoffs(rng)
        for flag, low, high in (("-beta", 0, 3), ("-gamma", 0, 1), ("-logb", 0, 10),
                                ("-rbp", 0, 1), ("-rbup", 0, 1)):
            if rng.random() < 0.25:
                args += [flag, _number(rng, low, high)]
        if rng.random() < 0.2:
            args += ["-s", ":".join(str(rng.randrange(1, 4) + k) for k in range(levels))]
        args += [flag for flag in ("-gap", "-v") if rng.random() < 0.25]
        if rng.random() < 0.3:
            args += ["-out", rng.choice(["0001", "T 7", ""])]
        if rng.random() < 0.5:
            return args + [put("labelled", labelled.decode().splitlines())], b""
        return args, labelled
    if command in ("glabel", "gcompute"):
        relevant = rng.sample(range(pool), rng.randrange(0, pool + 1))
        gains = sorted((round(rng.uniform(0.01, 3), rng.randrange(1, 5)) for _ in relevant),
                       reverse=True)
        ideal = [f"d{d} {g}" for d, g in zip(relevant, gains)]
        ideal += [f"d{d} 0" for d in range(pool) if d not in relevant and rng.random() < 0.5]
        ideal_path = put("ideal", ideal)
        options = ["-j"] if rng.random() < 0.3 else []
        if command == "glabel":
            if rng.random() < 0.3:
                options += ["-truncate", str(rng.randrange(1, 30))]
            args = ["glabel", *options, "-I", ideal_path]
            if rng.random() < 0.5:
                return args + [put("run", system)], b""
            return args, "".join(d + "\n" for d in system).encode()
        labelled, _, _ = binary(["glabel", *options, "-I", ideal_path],
                                "".join(d + "\n" for d in system).encode())
        args = ["gcompute", "-I", ideal_path, *options, *_cutoffs(rng)]
        for flag, low, high in (("-beta", 0, 3), ("-gamma", 0, 1), ("-logb", 0, 10),
                                ("-rbp", 0, 1)):
            if rng.random() < 0.25:
                args += [flag, _number(rng, low, high)]
        args += [flag for flag in ("-gap", "-v") if rng.random() < 0.25]
        if rng.random() < 0.3:
            args += ["-out", "0002"]
        if rng.random() < 0.5:
            return args + [put("labelled", labelled.decode().splitlines())], b""
        return args, labelled
    if command == "dinlabel":
        intents = rng.randrange(1, 8)
        din = []
        for intent in range(1, intents + 1):
            kind = rng.choice(["inf", "nav"])
            probability = rng.uniform(0, 1)  # the P(i|q) need not add up to 1
            for d in rng.sample(range(pool), rng.randrange(0, min(pool, 6) + 1)):
                din.append(f"{intent} {kind} d{d} "
                           f"{probability * rng.randrange(1, 4):.{rng.randrange(1, 6)}f}")
        rng.shuffle(din)
        if not din:
            din = [f"1 inf d0 {rng.uniform(0, 1):.3f}"]
        options = ["-j"] if rng.random() < 0.3 else []
        if rng.random() < 0.3:
            options += ["-truncate", str(rng.randrange(1, 30))]
        args = ["dinlabel", *options, "-din", put("din", din)]
        if rng.random() < 0.5:
            return args + [put("run", system)], b""
        return args, "".join(d + "\n" for d in system).encode()
    if command == "1click":
        count = rng.randrange(0, 12)
        nuggets = [f"N{k} {rng.choice([rng.randrange(1, 5), round(rng.uniform(0.1, 4), 2)])} "
                   f"{rng.randrange(1, 40)}" for k in range(count)]
        if rng.random() < 0.05:
            nuggets.append("N99 0 3")  # a weight that is not positive
        matches = [f"syslen= {rng.randrange(0, 300)}"] if rng.random() < 0.95 else []
        matches += [f"N{rng.randrange(count + (rng.random() < 0.03))} {rng.randrange(0, 400)}"
                    for _ in range(rng.randrange(0, count + 2))] if count else []
        args = ["1click", "-L", str(rng.choice([0, 1, 20, 100, 500, rng.randrange(1, 300)])),
                "-N", put("nuggets", nuggets)]
        if rng.random() < 0.3:
            args += ["-beta", _number(rng, 0, 3)]
        if rng.random() < 0.2:
            args.append("-v")
        if rng.random() < 0.3:
            args += ["-out", "1C0-0001"]
        if rng.random() < 0.5:
            return args + [put("matches", matches)], b""
        return args, "".join(m + "\n" for m in matches).encode()
    intents = rng.randrange(1, 8)
    lists = []
    for intent in range(intents):
        docs = rng.sample(range(pool), rng.randrange(0, min(pool, 6) + 1))
        lists.append(put(f"I{intent}", [f"d{d} L{rng.randrange(1, 4)}" for d in docs]))
    args = ["irec", *_cutoffs(rng)]
    if rng.random() < 0.3:
        args += ["-out", "0003"]
    if rng.random() < 0.2:
        args.append("-v")
    return args + [put("run", system), *lists], b""


def _campaign(folder: Path, tmp_path: Path, cases: int, seed: int) -> dict[str, int]:
    """``cases`` random cases of each subcommand compared; how many ended in each status."""
    binary = binary_runner(folder)
    statuses: dict[str, int] = {}
    for command in SUBCOMMANDS:
        rng = random.Random(f"{seed}-{command}")
        for k in range(cases):
            where = tmp_path / f"{command}-{k}"
            where.mkdir()
            args, stdin = random_case(rng, where, command, binary)
            _, err, status = _same(binary, args, stdin)
            key = f"{command}:{'error' if err else 'ok'}"
            statuses[key] = statuses.get(key, 0) + 1
    return statuses


def test_random_cases_agree_with_ntcir_eval(ntcireval_folder, tmp_path):
    """30 cases of each subcommand; most compute values (few end in a message)."""
    statuses = _campaign(ntcireval_folder, tmp_path, 30, 20261128)
    for command in SUBCOMMANDS:
        assert statuses.get(f"{command}:ok", 0) >= 15, statuses


@pytest.mark.slow
def test_many_random_cases_agree_with_ntcir_eval(ntcireval_folder, tmp_path):
    """250 cases of each subcommand (1,750 in all)."""
    statuses = _campaign(ntcireval_folder, tmp_path, 250, 36)
    for command in SUBCOMMANDS:
        assert statuses.get(f"{command}:ok", 0) >= 150, statuses


# ------------------------------------------------------------------ NTCIREVAL's own files


def test_readme_examples_agree(ntcireval_folder):
    """The README's examples on sample.rel and sample.res."""
    binary = binary_runner(ntcireval_folder)
    folder = ntcireval_folder
    rel, res = str(folder / "sample.rel"), (folder / "sample.res").read_bytes()
    for options in ([], ["-j"], ["-truncate", "10"]):
        labelled, _, _ = _same(binary, ["label", "-r", rel, *options], res)
        for extra in ([], ["-cutoffs", "1,10,100,1000"], ["-gap", "-rbup", "0.9", "-v"]):
            args = ["compute", "-r", rel, "-g", "1:2:3", *extra]
            out, _, _ = _same(binary, args + (["-j"] if "-j" in options else []), labelled)
            assert b"Q-measure=" in out


def _split_sample(folder: Path, into: Path, split: Path | None = None) -> Path:
    """NTCIREVAL's folder copied into ``into``, its sample qrels and runs split per topic
    by its own scripts (NTCIRsplitqrels, TRECsplitruns, 1CLICK-splitnuggets,
    1CLICK-splitmatch and, given ``split``, the diversity sample's topics that the slower
    DIN-splitqrels wrote there, :func:`~tests.official.conftest.sample_din_split`), as its
    READMEs show: the adhoc, equivalence-class, 1CLICK and diversity samples."""
    if shutil.which("gawk") is None:
        pytest.skip("NTCIREVAL's scripts need gawk")
    copy = into / "ntcireval"
    shutil.copytree(folder, copy)
    env = {**os.environ, "PATH": f"{copy}{os.pathsep}{os.environ['PATH']}"}
    runs = (copy / "runl").read_bytes()
    scripts = [("NTCIRsplitqrels test.qrels rel", b""),
               ("TRECsplitruns test.qrels.tid 1000", runs),
               ("NTCIRsplitqrels e-test.eqrels erel ;", b""),
               ("TRECsplitruns e-test.eqrels.tid 1000 -s ;", b"e-testrun\n"),
               ("1CLICK-splitnuggets 1C0-test.nuggets test.nug", b""),
               ("1CLICK-splitmatch 1C0-test.nuggets.tid", b"1CLICKRUN-D-1\n1CLICKRUN-D-2\n")]
    if split is not None:  # DIN-splitqrels Dtest.DINprob Dtest.Dqrels q, run once
        copy_split(split, copy)
        scripts.append(("TRECsplitruns Dtest.DINprob.tid 1000", runs))
    for script, stdin in scripts:
        subprocess.run(["sh", *script.split()], cwd=copy, env=env, input=stdin, check=True,
                       capture_output=True, timeout=120)
    return copy


@pytest.fixture(scope="module")
def split_diversity_sample(ntcireval_folder, sample_din_split, tmp_path_factory) -> Path:
    """:func:`_split_sample` with the diversity sample, split once for the module (issue
    35 item 18: DIN-splitqrels starts processes for each judgement, and its split is the
    session's); a test that writes into it takes a copy."""
    return _split_sample(ntcireval_folder, tmp_path_factory.mktemp("split"),
                         sample_din_split)


def _topics_and_runs(copy: Path):
    for run in (copy / "runl").read_text().split():
        for topic in (copy / "test.qrels.tid").read_text().split():
            yield run, topic, copy / topic, (copy / topic / f"{topic}.{run}.res").read_bytes()


def test_sample_topics_agree_and_the_sample_nev_reproduces(ntcireval_folder, tmp_path):
    """label and compute on NTCIREVAL's sample topics and runs, with the options of its
    NTCIR-eval script and others; the per-topic outputs of NTCIR-eval's compute, put
    together, are the shipped TRECRUN.test.nev; the equivalence-class sample (E-NTCIR-eval's
    calls, with and without -ec) and the 1CLICK sample (1CLICK-eval's calls)."""
    binary = binary_runner(ntcireval_folder)
    copy = _split_sample(ntcireval_folder, tmp_path)
    nev = b""
    for run, topic, where, res in _topics_and_runs(copy):
        rel = str(where / f"{topic}.rel")
        labelled, _, _ = _same(binary, ["label", "-r", rel], res)
        out, _, _ = _same(binary, ["compute", "-r", rel, "-cutoffs", "10,1000", "-g",
                                   "1:2", "-out", topic], labelled)
        if run == "TRECRUN":
            nev += out
        condensed, _, _ = _same(binary, ["label", "-j", "-r", rel], res)
        _same(binary, ["compute", "-r", rel, "-g", "1:2", "-j", "-gap", "-rbup", "0.8"],
              condensed)
    assert nev == (ntcireval_folder / "TRECRUN.test.nev").read_bytes()
    for topic in (copy / "e-test.eqrels.tid").read_text().split():  # E-NTCIR-eval's calls
        rel = str(copy / topic / f"{topic}.erel")
        res = (copy / topic / f"{topic}.e-testrun.res").read_bytes()
        assert res
        for ec in ([], ["-ec"]):
            labelled, _, _ = _same(binary, ["label", "-r", rel, "-sep", ";", *ec], res)
            _same(binary, ["compute", "-r", rel, "-cutoffs", "10,1000", "-g", "1:2:3:4:5",
                           "-out", topic, "-sep", ";", *ec], labelled)
    for topic in (copy / "1C0-test.nuggets.tid").read_text().split():  # 1CLICK-eval's
        for run in ("1CLICKRUN-D-1", "1CLICKRUN-D-2"):
            matched = (copy / topic / f"{topic}.{run}.mat").read_bytes()
            out, _, _ = _same(binary, ["1click", "-L", "500", "-out", topic, "-N",
                                       str(copy / topic / f"{topic}.test.nug"), "-beta",
                                       "1.0"], matched)
            assert b"S-measure=" in out


@pytest.mark.slow
def test_sample_diversity_topics_agree(ntcireval_folder, split_diversity_sample):
    """glabel, gcompute, irec and dinlabel on NTCIREVAL's sample diversity topics, with
    the options of its D-NTCIR-eval, DIN-NTCIR-eval and D-NTCIR-IAeval scripts."""
    binary = binary_runner(ntcireval_folder)
    copy = split_diversity_sample
    for run, topic, where, res in _topics_and_runs(copy):
        grelv = str(where / f"{topic}.q.Grelv")
        glab, _, _ = _same(binary, ["glabel", "-I", grelv, "-truncate", "10"], res)
        _same(binary, ["gcompute", "-I", grelv, "-out", topic, "-cutoffs", "10"], glab)
        irelv = sorted(str(p) for p in where.glob(f"{topic}.q.Irelv[0-9]*"))
        _same(binary, ["irec", "-cutoffs", "10", "-out", topic,
                       str(where / f"{topic}.{run}.res"), *irelv])
        din = str(where / f"{topic}.q.din")
        dlab, _, _ = _same(binary, ["dinlabel", "-din", din, "-truncate", "10"], res)
        _same(binary, ["gcompute", "-I", grelv, "-out", topic, "-cutoffs", "10"], dlab)
        for intent in irelv:  # D-NTCIR-IAeval: each intent's list as a rel file
            ilab, _, _ = _same(binary, ["label", "-r", intent, "-truncate", "10"], res)
            _same(binary, ["compute", "-r", intent, "-g", "1:2:3:4", "-cutoffs", "10",
                           "-out", topic, "-rbup", "0.99"], ilab)


@pytest.mark.slow
def test_ntcireval_scripts_give_the_same_files_through_xdiv(split_diversity_sample,
                                                            tmp_path):
    """NTCIREVAL's own scripts (NTCIR-eval, D-NTCIR-eval, DIN-NTCIR-eval, E-NTCIR-eval,
    1CLICK-eval) run on its samples twice, calling the C program and then ``xdiv
    ntcir_eval`` as ``ntcir_eval``: every file they write is the same, byte for byte."""
    copies = [tmp_path / "c", tmp_path / "xdiv"]
    for copy in copies:
        shutil.copytree(split_diversity_sample, copy)
    shim = tmp_path / "shim"
    shim.mkdir()
    (copies[1] / "ntcir_eval").unlink()
    # python -S: the site module and its .pth files left out (a tenth of a second a
    # call), the packages found through PYTHONPATH (issue 35 item 18)
    path = os.pathsep.join([str(Path(__file__).resolve().parents[2]),
                            *dict.fromkeys(sysconfig.get_path(k) for k in ("purelib",
                                                                          "platlib"))])
    (shim / "ntcir_eval").write_text(
        f"#!/bin/sh\nPYTHONPATH={shlex.quote(path)} exec {shlex.quote(sys.executable)} -S "
        f"-m xdiv.cli ntcir_eval \"$@\"\n")
    (shim / "ntcir_eval").chmod(0o755)
    scripts = (("NTCIR-eval test.qrels.tid rel test -cutoffs 10,1000 -g 1:2", "runl"),
               ("D-NTCIR-eval Dtest.DINprob.tid q 10 l10", "runl"),
               ("DIN-NTCIR-eval Dtest.DINprob.tid q 10 l10", "runl"),
               ("E-NTCIR-eval e-test.eqrels.tid erel erel ; -cutoffs 10,1000 -g 1:2:3:4:5",
                "e-runlist"),
               ("1CLICK-eval 1C0-test.nuggets.tid test.nug test", None))
    for copy, path in zip(copies, (copies[0], shim)):
        env = {**os.environ, "PATH": f"{path}{os.pathsep}{copy}{os.pathsep}"
                                     f"{os.environ['PATH']}"}
        for script, runs in scripts:
            stdin = b"1CLICKRUN-D-1\n1CLICKRUN-D-2\n" if runs is None else \
                (copy / runs).read_bytes()
            subprocess.run(["sh", *script.split()], cwd=copy, env=env, input=stdin,
                           check=True, capture_output=True, timeout=300)
    written = sorted(p.relative_to(copies[0]) for p in copies[0].rglob("*")
                     if p.is_file() and not p.name.startswith(("ntcir_eval", "temp.")))
    for suffix in (".nev", ".Dnev", ".DINnev", ".enev", ".1cl"):
        assert any(p.suffix == suffix for p in written), suffix
    for relative in written:
        assert (copies[1] / relative).read_bytes() == (copies[0] / relative).read_bytes(), \
            relative


def test_malformed_input_gives_what_ntcir_eval_gives(ntcireval_folder, tmp_path):
    binary = binary_runner(ntcireval_folder)

    def put(name: str, data: bytes) -> str:
        (tmp_path / name).write_bytes(data)
        return str(tmp_path / name)

    rel = put("rel", b"a L2\nb L0\nc L1\n")
    cases = [
        ([], b""), (["nonsense"], b""),
        (["label"], b""), (["label", "-r"], b""),
        (["label", "-r", str(tmp_path / "missing")], b""),
        (["label", "-r", rel, "-truncate", "0"], b"a\n"),
        (["label", "-r", rel], b"a\nb"),  # last line without a newline
        (["label", "-r", rel], b"a\n" + b"x" * 9000 + b"\n"),
        (["label", "-r", rel], b"a\0b\nc\n"),
        (["label", "-r", put("short", b"a\n")], b"a\n"),
        (["label", "-r", put("blank", b"a L1\n\n")], b"a\n"),
        (["label", "-ec", "-r", rel], b"a\n"),
        (["label", "-ec", "-r", put("ec", b"a L1 1\nb L2 1024\n")], b"a\n"),
        (["compute", "-h"], b""), (["gcompute", "-h"], b""), (["compute", "-r", rel], b""),
        (["compute", "-r", rel, "-g", "1"], b"a L1\n"),  # rel level above -g
        (["compute", "-r", rel, "-g", "2:1"], b"a L1\n"),
        (["compute", "-r", rel, "-g", "1:2", "-s", "1"], b"a L1\n"),
        (["compute", "-r", rel, "-g", "1:2", "-s", "1:0"], b"a L1\n"),
        (["compute", "-r", rel, "-g", ":".join(["1"] * 16)], b"a L1\n"),
        (["compute", "-r", rel, "-g", ""], b"a L1\n"),
        (["compute", "-r", rel, "-g", "1:2", "-cutoffs", "1,2,3,4,5,6,7,8,9,10"], b"a L1\n"),
        (["compute", "-r", rel, "-g", "1:2", "-cutoffs", ","], b"a L1\n"),
        (["compute", "-r", rel, "-g", "1:2", "-gamma", "1.5"], b"a L1\n"),
        (["compute", "-r", rel, "-g", "1:2", "-rbp", "2"], b"a L1\n"),
        (["compute", "-r", rel, "-g", "1:2", "-rbup", "2"], b"a L1\n"),
        (["compute", "-r", rel, "-g", "1:2"], b"a X1\n"),
        (["compute", "-r", rel, "-g", "1:2"], b"a L16\n"),
        (["compute", "-r", rel, "-g", "1:2", "-v"], b"a L-1\n"),
        (["compute", "-r", rel, "-g", "1:2"], b"a L2\n\n"),
        (["compute", "-r", put("norel", b"a L0\n"), "-g", "1:2"], b"a L1\n"),
        (["compute", "-r", put("nononrel", b"a L1\n"), "-g", "1:2", "-j"], b"a L1\n"),
        (["compute", "-r", put("badrel", b"a M1\n"), "-g", "1:2"], b"a L1\n"),
        (["compute", "-r", put("onefield", b"a\n"), "-g", "1:2"], b"a L1\n"),
        (["compute", "-ec", "-r", rel, "-g", "1:2"], b"a L1\n"),
        (["compute", "-r", rel, "-g", "1:2", "-cutoffs", "0"], b"a L1\nq\n"),
        (["gcompute", "-I", put("ideal0", b"a 0\n")], b"a 1\n"),
        (["gcompute", "-I", put("idealneg", b"a -1\n")], b"a 1\n"),
        (["gcompute", "-I", put("ideal1", b"a\n")], b"a 1\n"),
        (["gcompute", "-I", put("ideal", b"a 2\nb 1\nc 0\n")], b"\n"),
        (["gcompute", "-I", str(tmp_path / "ideal"), "-j"], b"a 2\nq\nb 1\n"),
        (["glabel", "-I", put("idealbad", b"a 2\n\n")], b"a\n"),
        (["dinlabel", "-din", put("din0", b"")], b"a\n"),
        # a bad line: ntcir_eval says so and labels with the lines before it, which is
        # defined while no navigational intent is read
        (["dinlabel", "-din", put("dininv", b"1 inf a 0.5\n2 inv b 0.5\n")], b"a\nb\n"),
        (["dinlabel", "-din", put("din65", b"1 nav a 0.5\n65 inf b 0.5\n")], b"b\n"),
        (["dinlabel", "-din", put("din3", b"1 nav a\n")], b"a\n"),
        (["dinlabel", "-din", put("dinneg", b"0 inf a 0.5\n")], b"a\n"),
        (["irec", "run"], b""), (["irec", str(tmp_path / "missing"), rel], b""),
        (["irec", rel], b""), (["irec", "-cutoffs", "", rel, rel], b""),
        (["irec", rel, put("blankrel", b"a\n\n")], b""),
        (["irec", "-cutoffs", "-3,0,2", rel, rel], b""),
        (["1click"], b""), (["1click", "-L", "10"], b""),
        (["label", "-h"], b""), (["irec", "-h"], b""), (["compute", "-r", rel, "-v", "-h"], b""),
        (["gcompute", "-I", rel, "-h", "-I", "missing"], b""), (["compute", "-j", "-h"], b""),
        (["label", "-r", rel, "-sep", ""], b"a\n"), (["label", "-r", rel, "/tmp"], b""),
        (["label", "-r", rel], b"x" * 8191 + b"\na\n"),
        (["label", "-r", rel], b"x" * 8192 + b"\na\n"),
        (["label", "-r", rel, "-truncate", "99999999999999999999"], b"a\nb\n"),
        (["compute", "-r", rel, "-g", "1:2", "-logb", "1", "-beta", "-1", "-gamma", "-2"],
         b"a L1\nb L2\nc L0\n"),
        (["compute", "-r", rel, "-g", "nan:inf", "-beta", "nan"], b"a L1\nc L2\n"),
        (["1click", "-L", "10", "-N", put("nug", b"N1 2 5\nN2 2 3\nN3 1 4\n")], b"syslen= 9\n"),
        (["1click", "-L", "10", "-N", str(tmp_path / "nug")], b"syslen= 9\nN4 3\n"),
        (["1click", "-L", "10", "-N", str(tmp_path / "nug")], b"syslen= -9\nN1 3\nN2 0\n"),
        (["1click", "-L", "10", "-N", str(tmp_path / "nug")], b"syslen=\n"),
        (["1click", "-L", "10", "-N", str(tmp_path / "nug")], b"syslen= 9\nN1 3"),
        (["1click", "-L", "10", "-N", put("nug0", b"")], b""),
        (["1click", "-L", "10", "-N", put("nug1", b"N1 2\n")], b""),
        (["1click", "-L", "10", "-N", put("nug2", b"N1 2 0\n")], b""),
        (["1click", "-L", "2", "-N", str(tmp_path / "nug")], b"syslen= 0\nN1 3\n"),
    ]
    for args, stdin in cases:
        _same(binary, args, stdin)


def test_undefined_behaviour_is_refused_in_one_line(tmp_path):
    """Where ntcir_eval reads memory it never wrote, one line and status 1."""
    rel = tmp_path / "rel"
    rel.write_bytes(b"a L2\nb L0\n")
    din = tmp_path / "din"
    # a misspelt intent type: ntcir_eval goes on with flags it never set
    din.write_bytes(b"1 nav a 0.5\n2 inv b 0.5\n")
    for args, stdin, says in (
            (["compute", "-r", str(rel), "-g", "1:2"], b"a L3\n", b"L3"),
            (["compute", "-r", str(rel), "-g", "1:2", "-cutoffs", "-2"], b"a L1\n", b"-2"),
            (["dinlabel", "-din", str(din)], b"a\nb\n", b"intent 1")):
        out, err, status = xdiv_outcome(args, stdin)
        assert (out, status) == (b"", 1)
        assert err.count(b"\n") == 1 and says in err and err.startswith(b"xdiv ntcir_eval:")


def test_help_is_xdivs_and_the_usage_ntcir_evals():
    """``xdiv ntcir_eval --help`` prints the command's help (ntcir_eval has none); the
    program's own usage stays where ntcir_eval prints it."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["ntcir_eval", "--help"]) == 0
    assert out.getvalue().startswith("usage: xdiv ntcir_eval")
    assert "1click" in out.getvalue()
    _, err, status = xdiv_outcome([])
    assert status == 1 and err.startswith(b"Usage: ntcir_eval command args...\n")


def test_the_command_line_runs_ntcir_eval(ntcireval_folder, tmp_path):
    """``xdiv ntcir_eval`` as a process: arguments, standard input and status passed."""
    folder = ntcireval_folder
    binary = binary_runner(folder)
    res = (folder / "sample.res").read_bytes()
    for args in (["label", "-r", str(folder / "sample.rel")], [], ["compute", "-h"]):
        proc = subprocess.run([sys.executable, "-m", "xdiv.cli", "ntcir_eval", *args],
                              input=res, capture_output=True, timeout=60)
        assert same_outcome((proc.stdout, proc.stderr, proc.returncode), binary(args, res))


def _trec_2009_topics(root: Path, run_names: list[str]):
    """TREC Web 2009's diversity qrels and some of its runs, per topic, as NTCIREVAL's
    files: ``(topic, rel lines, ideal lines, per-intent lists, DIN lines, {run: res})``.
    A document's level is the number of intents it is relevant to (L0 for one judged
    relevant to none); its global gain the sum of P(i|q) = 1/n over them; every third
    intent is navigational in the DIN file."""
    import gzip

    intents: dict[str, dict[str, set[str]]] = {}
    judged: dict[str, set[str]] = {}
    for line in gzip.open(root / "qrels.diversity.gz", "rt"):
        topic, intent, docno, grade = line.split()
        judged.setdefault(topic, set()).add(docno)
        docs = intents.setdefault(topic, {}).setdefault(intent, set())
        if int(grade) > 0:
            docs.add(docno)
    ranked: dict[str, dict[str, list[str]]] = {}
    for name in run_names:
        for line in gzip.open(root / "runs" / f"{name}.gz", "rt"):
            topic, _, docno, *_ = line.split()
            ranked.setdefault(topic, {}).setdefault(name, []).append(docno)
    for topic in sorted(intents, key=int):
        per_intent = intents[topic]
        share = 1 / len(per_intent)
        level = {d: sum(d in docs for docs in per_intent.values()) for d in judged[topic]}
        gain = {d: level[d] * share for d in judged[topic]}
        rel = [f"{d} L{level[d]}" for d in sorted(judged[topic])]
        ideal = [f"{d} {gain[d]:.4f}" for d in sorted(judged[topic], key=lambda d: -gain[d])]
        lists = [[f"{d} L1" for d in sorted(docs)] for _, docs in sorted(per_intent.items())]
        din = [f"{k} {'nav' if k % 3 == 0 else 'inf'} {d} {share:.4f}"
               for k, (_, docs) in enumerate(sorted(per_intent.items()), 1) for d in sorted(docs)]
        yield topic, rel, ideal, lists, din, {n: ranked.get(topic, {}).get(n, [])
                                              for n in run_names}


@pytest.mark.slow
def test_trec_2009_runs_agree(ntcireval_folder, tmp_path):
    """Four TREC Web 2009 runs on its 50 topics, the diversity qrels made NTCIREVAL's
    files: every subcommand but 1click, with the cutoffs of the official evaluations."""
    from ..conftest import require_trec_2009

    root = require_trec_2009()
    binary = binary_runner(ntcireval_folder)
    runs = ["ICTNETDivR1", "MSRABASE", "uogTrDYCcsB", "watd1"]
    compared = 0
    for topic, rel, ideal, lists, din, res in _trec_2009_topics(root, runs):
        where = tmp_path / topic
        where.mkdir()
        files = {}
        for name, lines in (("rel", rel), ("ideal", ideal), ("din", din),
                            *((f"I{k}", lines) for k, lines in enumerate(lists, 1))):
            (where / name).write_text("".join(line + "\n" for line in lines))
            files[name] = str(where / name)
        top = max(int(line.split()[1][1:]) for line in rel)
        gains = ":".join(str(k) for k in range(1, max(top, 1) + 1))
        for run, docnos in res.items():
            stdin = "".join(d + "\n" for d in docnos).encode()
            (where / run).write_bytes(stdin)
            labelled, _, _ = _same(binary, ["label", "-r", files["rel"]], stdin)
            _same(binary, ["compute", "-r", files["rel"], "-g", gains, "-cutoffs",
                           "10,20,1000", "-out", topic], labelled)
            condensed, _, _ = _same(binary, ["label", "-j", "-r", files["rel"]], stdin)
            _same(binary, ["compute", "-r", files["rel"], "-g", gains, "-j"], condensed)
            glab, _, _ = _same(binary, ["glabel", "-I", files["ideal"], "-truncate", "20"],
                               stdin)
            _same(binary, ["gcompute", "-I", files["ideal"], "-cutoffs", "10,20"], glab)
            _same(binary, ["irec", "-cutoffs", "10,20,1000", "-out", topic, str(where / run),
                           *(files[f"I{k}"] for k in range(1, len(lists) + 1))])
            dlab, _, _ = _same(binary, ["dinlabel", "-din", files["din"], "-truncate", "20"],
                               stdin)
            _same(binary, ["gcompute", "-I", files["ideal"], "-cutoffs", "10,20"], dlab)
            compared += 1
    assert compared == 200
