"""``xdiv ntcireval`` against NTCIREVAL's other scripts (issue 36, item 2): the -sep
scripts, D-NTCIR-eval2, D-NTCIR-IAeval2, E-NTCIR-eval, 1CLICK-eval and Topicsys-matrix,
each run with the real ``ntcir_eval`` and gawk under ``LC_ALL=C`` in a copy of
NTCIREVAL's folder, and every file they write compared byte for byte with what the one
command writes."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from xdiv.cli import main


def _scripts(folder: Path, into: Path, inputs: dict[str, bytes],
             commands: list[tuple[str, bytes]]) -> dict[str, bytes]:
    """The files NTCIREVAL's scripts write in ``into`` (folders, topic lists and
    temporary files aside) when ``commands`` run there under ``LC_ALL=C``, each with its
    standard input; a command's standard output goes to a file named ``stdout.<k>``."""
    if shutil.which("gawk") is None or not os.path.exists("/usr/bin/gawk"):
        pytest.skip("NTCIREVAL's scripts need gawk (Topicsys-matrix at /usr/bin/gawk)")
    into.mkdir()
    for path in folder.iterdir():
        if path.is_file() and path.suffix not in (".c", ".h", ".o"):
            shutil.copy2(path, into / path.name)
    for name, data in inputs.items():
        (into / name).write_bytes(data)
    env = {**os.environ, "LC_ALL": "C", "PATH": f"{into}{os.pathsep}{os.environ['PATH']}"}
    before = set(os.listdir(into))
    for k, (command, stdin) in enumerate(commands):
        done = subprocess.run(["sh", *shlex.split(command)], cwd=into, env=env, input=stdin,
                              check=True, capture_output=True, timeout=600)
        if done.stdout:
            (into / f"stdout.{k}").write_bytes(done.stdout)
    return {name: (into / name).read_bytes() for name in set(os.listdir(into)) - before
            if (into / name).is_file() and not name.startswith("temp.")
            and not name.endswith(".tid")}


def _ours(out: Path, inputs: dict[str, bytes], command_lines: list[list[str]],
          capsys) -> dict[str, bytes]:
    """The files ``xdiv ntcireval`` writes in ``out`` for ``command_lines`` (file names
    relative to ``out``, where ``inputs`` are written first); what a command prints goes
    to ``stdout.<k>``."""
    out.mkdir()
    for name, data in inputs.items():
        (out / name).write_bytes(data)
    before = set(os.listdir(out))
    cwd = os.getcwd()
    try:
        os.chdir(out)
        for k, argv in enumerate(command_lines):
            capsys.readouterr()
            assert main(["ntcireval", *argv]) == 0, (argv, capsys.readouterr().err)
            printed = capsys.readouterr().out
            if printed:
                (out / f"stdout.{k}").write_text(printed)
    finally:
        os.chdir(cwd)
    return {name: (out / name).read_bytes() for name in set(os.listdir(out)) - before}


def _same(scripts: dict[str, bytes], ours: dict[str, bytes], expected: int) -> None:
    assert len(scripts) == expected, sorted(scripts)
    assert sorted(ours) == sorted(scripts)
    for name, data in scripts.items():
        assert data, name  # the scripts wrote something to compare
        assert ours[name] == data, name


def _reduced(folder: Path) -> dict[str, bytes]:
    """NTCIREVAL's diversity sample made small enough for a quick test: the judgements
    of the documents the two runs rank in their top 20 and the first three relevant
    documents of each intent (so that every intent keeps one); each run's top 30."""
    runs = {}
    for name in ("TRECRUN", "TRECRUN2"):
        lines = (folder / name).read_bytes().splitlines(keepends=True)
        runs[name] = b"".join(line for line in lines if int(line.split()[3]) <= 30)
    ranked = {(line.split()[0], line.split()[2]) for data in runs.values()
              for line in data.splitlines() if int(line.split()[3]) <= 20}
    kept, seen = [], {}
    for line in (folder / "Dtest.Dqrels").read_bytes().splitlines(keepends=True):
        topic, intent, docno, level = line.split()
        if level != b"L0":
            seen[topic, intent] = seen.get((topic, intent), 0) + 1
        if (topic, docno) in ranked or (level != b"L0" and seen[topic, intent] <= 3):
            kept.append(line)
    return {"Dtest.Dqrels": b"".join(kept), **runs,
            **{name: (folder / name).read_bytes()
               for name in ("Dtest.DINprob", "Dtest.Iprob", "test.qrels")}}


def _with_separator(data: bytes) -> bytes:
    """A sample file with ``;`` between its fields and blanks inside some documents."""
    return data.replace(b" ", b";").replace(b"clueweb09-en00", b"clue web09 en00")


SAMPLES = [pytest.param(False, id="reduced"),
           pytest.param(True, id="whole", marks=pytest.mark.slow)]


@pytest.mark.parametrize("whole", SAMPLES)
def test_sep_pipelines_write_the_scripts_files(ntcireval_folder, tmp_path, capsys, whole):
    """NTCIREVAL's sample (whole, or reduced: :func:`_reduced`) with ';' as separator
    and documents with blanks inside: NTCIRsplitqrels, DIN-splitqrels and TRECsplitruns
    given the separator, then NTCIR-eval-sep, D-NTCIR-eval-sep and DIN-NTCIR-eval-sep,
    and NEV2mean."""
    folder = ntcireval_folder
    sample = {name: (folder / name).read_bytes() for name in _reduced(folder)} if whole \
        else _reduced(folder)
    inputs = {f"s{name}": _with_separator(sample[name])
              for name in ("Dtest.DINprob", "Dtest.Dqrels", "test.qrels", "TRECRUN",
                           "TRECRUN2")}
    runl = b"sTRECRUN\nsTRECRUN2\n"
    inputs["srunl"] = runl
    scripts = _scripts(folder, tmp_path / "scripts", inputs, [
        ("DIN-splitqrels sDtest.DINprob sDtest.Dqrels q ';'", b""),
        ("TRECsplitruns sDtest.DINprob.tid 1000 -s ';'", runl),
        ("D-NTCIR-eval-sep sDtest.DINprob.tid q 10 e ';'", runl),
        ("DIN-NTCIR-eval-sep sDtest.DINprob.tid q 10 e ';'", runl),
        ("NEV2mean srunl sDtest.DINprob.tid e.Dnev D#-nDCG@0010 I-rec@0010", b""),
        ("NTCIRsplitqrels stest.qrels rel ';'", b""),
        ("TRECsplitruns stest.qrels.tid 1000 -s ';'", runl),
        ("NTCIR-eval-sep stest.qrels.tid rel a ';' -cutoffs 10,1000 -g 1:2", runl)])
    common = ["sDtest.DINprob", "sDtest.Dqrels", "sTRECRUN", "sTRECRUN2", "--sep", ";",
              "--name", "e"]
    ours = _ours(tmp_path / "xdiv", inputs, [
        ["D", *common, "-m", "D#-nDCG@0010", "I-rec@0010", "--runlist", "srunl"],
        ["DIN", *common],
        ["adhoc", "stest.qrels", "sTRECRUN", "sTRECRUN2", "--sep", ";", "--name", "a",
         "--compute-options=-cutoffs 10,1000 -g 1:2"]], capsys)
    _same(scripts, ours, 2 * 3 + 2)
    # the documents with blanks are judged and ranked: the separator is exercised
    assert b"clue web09 en00" in (tmp_path / "scripts" / "0001" / "0001.q.Grelv").read_bytes()
    assert any(float(line.split()[-1]) > 0 for line in ours["sTRECRUN.a.nev"].splitlines()
               if b"Q-measure=" in line)


@pytest.mark.parametrize("whole", SAMPLES)
def test_extended_pipelines_write_the_scripts_files(ntcireval_folder, tmp_path, capsys,
                                                    whole):
    """D-NTCIR-eval2 and D-NTCIR-IAeval2 on NTCIREVAL's sample (whole, or reduced:
    :func:`_reduced`; Dtest.Iprob: no intent types), with NEV2mean, NEVIA2nev and
    NEVIAPQ2sharpnev of the measures they add."""
    folder = ntcireval_folder
    names = ("Dtest.Iprob", "Dtest.Dqrels", "TRECRUN", "TRECRUN2")
    sample = _reduced(folder)
    inputs = {name: (folder / name).read_bytes() if whole else sample[name]
              for name in names}
    runl = b"TRECRUN\nTRECRUN2\n"
    inputs["runl"] = runl
    scripts = _scripts(folder, tmp_path / "scripts", inputs, [
        ("DIN-splitqrels Dtest.Iprob Dtest.Dqrels q", b""),
        ("TRECsplitruns Dtest.Iprob.tid 1000", runl),
        ("D-NTCIR-eval2 Dtest.Iprob.tid q 10 e", runl),
        ("NEV2mean runl Dtest.Iprob.tid e.Dnev D#-ERR@0010 D#-EBR@0010 D#-RBP@0010", b""),
        ("D-NTCIR-IAeval2 Dtest.Iprob.tid Dtest.Iprob q.Irelv 10 e", runl),
        ("NEVIA2nev runl Dtest.Iprob.tid e.nevIA IA-Q@0010 IA-RBP@0010", b""),
        ("NEVIAPQ2sharpnev Dtest.Iprob.tid e.Dnev I-rec@0010 e.nevIA IA-Q@0010 IA-Q#@0010",
         runl)])
    common = ["Dtest.Iprob", "Dtest.Dqrels", "TRECRUN", "TRECRUN2", "--extended", "--name",
              "e", "--runlist", "runl"]
    ours = _ours(tmp_path / "xdiv", inputs, [
        ["D", *common, "-m", "D#-ERR@0010", "D#-EBR@0010", "D#-RBP@0010"],
        ["IA", *common, "-m", "IA-Q@0010", "IA-RBP@0010", "--sharp", "IA-Q@0010",
         "IA-Q#@0010"]], capsys)
    _same(scripts, ours, 2 * (1 + 1 + 2 + 1) + 3)
    assert any(float(line.split()[-1]) > 0 for line in ours["TRECRUN.e.Dnev"].splitlines()
               if b"D#-RBP@" in line)


def test_e_pipeline_writes_e_ntcir_evals_files(ntcireval_folder, tmp_path, capsys):
    """E-NTCIR-eval on NTCIREVAL's equivalence-class sample (e-test.eqrels, e-testrun:
    strings with blanks, ';' between fields), with NTCIRsplitqrels and TRECsplitruns
    given the separator, without and with compute's -ec."""
    folder = ntcireval_folder
    inputs = {"e-test.eqrels": (folder / "e-test.eqrels").read_bytes(),
              "e-testrun": (folder / "e-testrun").read_bytes()}
    scripts = _scripts(folder, tmp_path / "scripts", inputs, [
        ("NTCIRsplitqrels e-test.eqrels erel ';'", b""),
        ("TRECsplitruns e-test.eqrels.tid 10 -s ';'", b"e-testrun\n"),
        ("E-NTCIR-eval e-test.eqrels.tid erel erel ';' -cutoffs 10,1000 -g 1:2:3:4:5",
         b"e-testrun\n"),
        ("E-NTCIR-eval e-test.eqrels.tid erel ec ';' -ec -g 1:2:3", b"e-testrun\n")])
    ours = _ours(tmp_path / "xdiv", inputs, [
        ["E", "e-test.eqrels", "e-testrun", "--name", "erel", "--limit", "10",
         "--compute-options=-cutoffs 10,1000 -g 1:2:3:4:5"],
        ["E", "e-test.eqrels", "e-testrun", "--name", "ec", "--limit", "10",
         "--compute-options=-ec -g 1:2:3"]], capsys)
    _same(scripts, ours, 2)
    # with -ec, compute counts the two relevant strings of topic 0001 as one class (the
    # script's label, without -ec, does not: its Q-measure is 2 there)
    assert b"0001 # syslen=3 jrel=1 " in ours["e-testrun.ec.enev"]
    assert b"0001 # syslen=3 jrel=2 " in ours["e-testrun.erel.enev"]


def test_matrix_prints_topicsys_matrix(ntcireval_folder, tmp_path, capsys):
    """Topicsys-matrix on nev files that NTCIR-eval wrote (one run missing a topic, a
    topic listed twice and one that no file has): the same matrix, byte for byte."""
    folder = ntcireval_folder
    run2 = b"".join(line for line in (folder / "TRECRUN2").read_bytes().splitlines(True)
                    if not line.startswith(b"0002 "))
    inputs = {"test.qrels": (folder / "test.qrels").read_bytes(),
              "TRECRUN": (folder / "TRECRUN").read_bytes(), "TRECRUN2": run2,
              "runl": b"TRECRUN\nTRECRUN2\n", "tids": b"0003\n0001\n0002\n0001\n0009\n"}
    scripts = _scripts(folder, tmp_path / "scripts", inputs, [
        ("NTCIRsplitqrels test.qrels rel", b""),
        ("TRECsplitruns test.qrels.tid 1000", inputs["runl"]),
        ("NTCIR-eval test.qrels.tid rel a -cutoffs 10 -g 1:2", inputs["runl"]),
        ("Topicsys-matrix tids runl a.nev nDCG@0010", b""),
        ("Topicsys-matrix tids runl a.nev Q-measure", b"")])
    for name in ("TRECRUN.a.nev", "TRECRUN2.a.nev"):
        inputs[name] = scripts.pop(name)
    ours = _ours(tmp_path / "xdiv", inputs, [
        ["matrix", "tids", "TRECRUN.a.nev", "TRECRUN2.a.nev", "-m", "nDCG@0010"],
        ["matrix", "tids", "TRECRUN.a.nev", "TRECRUN2.a.nev", "-m", "Q-measure"]], capsys)
    scripts = {name.replace("stdout.3", "stdout.0").replace("stdout.4", "stdout.1"): data
               for name, data in scripts.items()}
    _same(scripts, ours, 2)
    assert ours["stdout.1"].splitlines()[2].endswith(b" 0.0000")  # 0002 of TRECRUN2


def test_oneclick_pipeline_writes_1click_evals_files(ntcireval_folder, tmp_path, capsys):
    """1CLICK-splitnuggets, 1CLICK-splitmatch, 1CLICK-eval and NEV2mean on NTCIREVAL's
    1CLICK sample, and a run whose nuggets are matched twice, out of order."""
    folder = ntcireval_folder
    inputs = {name: (folder / name).read_bytes()
              for name in ("1C0-test.nuggets", "1CLICKRUN-D-1", "1CLICKRUN-D-2")}
    inputs["1CLICKRUN-X"] = (b"1C0-0002 N0003 90\n1C0-0002 syslen= 300\n1C0-0002 N0003 7\n"
                             b"1C0-0001 N0002 40\n1C0-0002 N0001 120\n1C0-0002 syslen= 9\n")
    runl = b"1CLICKRUN-D-1\n1CLICKRUN-D-2\n1CLICKRUN-X\n"
    inputs["runl"] = runl
    scripts = _scripts(folder, tmp_path / "scripts", inputs, [
        ("1CLICK-splitnuggets 1C0-test.nuggets test.nug", b""),
        ("1CLICK-splitmatch 1C0-test.nuggets.tid", runl),
        ("1CLICK-eval 1C0-test.nuggets.tid test.nug test", runl),
        ("NEV2mean runl 1C0-test.nuggets.tid test.1cl S-measure F-flat", b"")])
    ours = _ours(tmp_path / "xdiv", inputs, [
        ["1click", "1C0-test.nuggets", "1CLICKRUN-D-1", "1CLICKRUN-D-2", "1CLICKRUN-X",
         "--name", "test", "-m", "S-measure", "F-flat", "--runlist", "runl"]], capsys)
    _same(scripts, ours, 3 + 2)


@pytest.mark.parametrize("argv, expected", [
    (["D", "Iprob", "Dqrels", "RUN", "--sep", ";;"], "separator ';;'"),
    (["D", "Iprob", "Dqrels", "RUN", "--sep", "\\"], "separator '\\\\'"),
    (["DIN", "Iprob", "Dqrels", "RUN", "--extended"], "--extended is for the D and IA"),
    (["IA", "Iprob", "Dqrels", "RUN", "--sep", ";"], "--sep is for the adhoc, D, DIN and E"),
    (["D", "Iprob", "Dqrels", "RUN", "--sep", ";", "--extended"], "NTCIREVAL has no such"),
    (["matrix", "tids", "RUN"], "ntcireval matrix takes one measure"),
    (["matrix", "tids", "missing.nev", "-m", "Q"], "missing.nev: cannot read"),
    (["matrix", "tids", "RUN", "-m", "Q[1]"], "a bracket or a backslash"),
])
def test_wrong_command_lines_are_refused_in_one_line(tmp_path, capsys, monkeypatch, argv,
                                                      expected):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "Iprob").write_text("0001 1 0.5\n")
    (tmp_path / "Dqrels").write_text("0001 1 d1 L1\n")
    (tmp_path / "RUN").write_text("0001 Q0 d1 1 1.0 RUN\n")
    (tmp_path / "tids").write_text("0001\n")
    assert main(["ntcireval", *argv]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and expected in err, err


@pytest.mark.parametrize("dqrels, prob, expected", [
    ("0001;1;d\\1;L1\n", "0001;1;0.5\n", "Dqrels, line 1: document 'd\\\\1' has a backslash"),
    ("0001;1; d1;L1\n", "0001;1;0.5\n", "blanks at an end"),
    ("0001;1 2;d1;L1\n", "0001;1 2;0.5\n", "Dqrels, line 1: intent '1 2' is empty or has"),
    ("0001;1;d1;L1\n", "00 01;1;0.5\n", "Iprob, line 1: topic '00 01'"),
    ("0001;1;d1;L1\n", "0001;1;1/2\n", "the probability is not a decimal number"),
    ("0001;1;d1;L1\n", "0001;1;0.5;n\\av\n", "a backslash in the intent type"),
    ("0001;1;d1;L1;x\n", "0001;1;0.5\n", "Dqrels, line 1: expected <topic> <intent>"),
    ("0001;1;d1;L1\n", "0001;1\n", "Iprob, line 1: expected <topic> <intent> <probability>"),
])
def test_broken_separated_inputs_are_refused_in_one_line(tmp_path, capsys, dqrels, prob,
                                                         expected):
    """What the -sep scripts' shell would alter (a backslash, blanks at the ends of a
    document, a blank in an intent or topic) or gawk would misread is refused, naming the
    file and line."""
    (tmp_path / "Dqrels").write_text(dqrels)
    (tmp_path / "Iprob").write_text(prob)
    (tmp_path / "RUN").write_text("0001;Q0;d1;1;1.0;RUN\n")
    status = main(["ntcireval", "D", str(tmp_path / "Iprob"), str(tmp_path / "Dqrels"),
                   str(tmp_path / "RUN"), "--sep", ";", "--out-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 2
    assert len(err.splitlines()) == 1 and expected in err, err
    assert not (tmp_path / "RUN.l10.Dnev").exists()


@pytest.mark.slow
def test_extended_and_sep_pipelines_on_trec_2009_runs(ntcireval_folder, trec2009,
                                                      trec2009_run_paths, tmp_path, capsys):
    """Two TREC 2009 runs on the first four topics (their top 100), converted to NTCIR
    files (Dqrels, DINprob with the topics' intent types; the judgements of the documents
    they rank), at cutoff 20: D-NTCIR-eval2, D-NTCIR-IAeval2, and D-NTCIR-eval-sep and
    DIN-NTCIR-eval-sep on the same files with ';' between fields, every file byte for
    byte."""
    import gzip

    from xdiv.io.ntcir import iprob_frame, write_dqrels, write_iprob

    collection, _ = trec2009
    topics = [str(t) for t in collection["topic"].values[:4]]
    qrels = collection.sel(topic=topics)
    write_dqrels(tmp_path / "Dqrels", qrels)
    write_iprob(tmp_path / "DINprob", iprob_frame(qrels), types=True)
    inputs = {"wt09.DINprob": (tmp_path / "DINprob").read_bytes()}
    names, ranked = [], set()
    for source in trec2009_run_paths[:2]:
        lines = gzip.open(source, "rb").read().splitlines(keepends=True)
        name = Path(source).name.removesuffix(".gz")
        inputs[name] = b"".join(line for line in lines if line.split()[0].decode() in topics)
        ranked |= {(line.split()[0], line.split()[2]) for line in inputs[name].splitlines()
                   if int(line.split()[3]) <= 100}
        names.append(name)
    # the judgements of the documents ranked in the top 100 and the first relevant
    # document of each intent: DIN-splitqrels starts three processes a judgement
    seen = set()
    kept = []
    for line in (tmp_path / "Dqrels").read_bytes().splitlines(keepends=True):
        topic, intent, docno, level = line.split()
        if (topic, docno) in ranked or (level != b"L0" and (topic, intent) not in seen):
            kept.append(line)
        if level != b"L0":
            seen.add((topic, intent))
    inputs["wt09.Dqrels"] = b"".join(kept)
    for name in ("wt09.Dqrels", "wt09.DINprob", *names):
        inputs[f"s{name}"] = inputs[name].replace(b"\t", b";").replace(b" ", b";")
    runl = "".join(f"{name}\n" for name in names).encode()
    srunl = "".join(f"s{name}\n" for name in names).encode()
    scripts = _scripts(ntcireval_folder, tmp_path / "scripts", inputs, [
        ("DIN-splitqrels wt09.DINprob wt09.Dqrels q", b""),
        ("TRECsplitruns wt09.DINprob.tid 100", runl),
        ("D-NTCIR-eval2 wt09.DINprob.tid q 20 e", runl),
        ("D-NTCIR-IAeval2 wt09.DINprob.tid wt09.DINprob q.Irelv 20 e", runl),
        ("DIN-splitqrels swt09.DINprob swt09.Dqrels q ';'", b""),
        ("TRECsplitruns swt09.DINprob.tid 100 -s ';'", srunl),
        ("D-NTCIR-eval-sep swt09.DINprob.tid q 20 e ';'", srunl),
        ("DIN-NTCIR-eval-sep swt09.DINprob.tid q 20 e ';'", srunl)])
    ours = _ours(tmp_path / "xdiv", inputs, [
        ["D", "wt09.DINprob", "wt09.Dqrels", *names, "--cutoff", "20", "--name", "e",
         "--extended", "--limit", "100"],
        ["IA", "wt09.DINprob", "wt09.Dqrels", *names, "--cutoff", "20", "--name", "e",
         "--extended", "--limit", "100"],
        ["D", "swt09.DINprob", "swt09.Dqrels", *[f"s{n}" for n in names], "--cutoff", "20",
         "--name", "e", "--sep", ";", "--limit", "100"],
        ["DIN", "swt09.DINprob", "swt09.Dqrels", *[f"s{n}" for n in names], "--cutoff",
         "20", "--name", "e", "--sep", ";", "--limit", "100"]], capsys)
    _same(scripts, ours, 4 * len(names))


@pytest.mark.parametrize("variant", ["D", "DIN"])
def test_plain_forms_equal_the_shortcut_pipelines(ntcireval_folder, variant):
    """Without a separator or ``extended``, the straightforward reproduction (every
    ``ntcir_eval`` call on whole files) writes what the shortcut pipeline of
    :mod:`xdiv.official.ntcireval.pipelines` writes (trimmed files), on the reduced
    sample at two cutoffs."""
    from xdiv.official.ntcireval import pipelines, variants

    sample = _reduced(ntcireval_folder)
    runs = {name: sample[name] for name in ("TRECRUN", "TRECRUN2")}
    prob, dqrels = sample["Dtest.DINprob"], sample["Dtest.Dqrels"]
    for cutoff in (3, 10):
        plain = variants.diversity_script_nev(
            variant, variants.split_diversity_qrels(prob, dqrels, b" "), runs, cutoff, 30)
        shortcut = pipelines.diversity_nev(variant, pipelines.split_qrels(prob, dqrels), runs,
                                           cutoff, 30)
        assert plain == shortcut
        assert all(b"#-nDCG@" in data for data in plain.values())
