"""``xdiv ntcireval D|DIN`` against NTCIREVAL's own scripts (issue 36, item 2): the
scripts (DIN-splitqrels, TRECsplitruns, D-NTCIR-eval / DIN-NTCIR-eval, NEV2mean) run
with the real ``ntcir_eval`` under ``LC_ALL=C``, and every file they write as output
(``<run>.<name>.Dnev``, ``.DINnev``, the means) is compared byte for byte with what the
one command writes."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from xdiv.cli import main

from .conftest import SAMPLE_SPLIT, copy_split

SCRIPTS = ("DIN-splitqrels", "NTCIRsplitqrels", "TRECsplitruns", "D-NTCIR-eval",
           "DIN-NTCIR-eval", "D-NTCIR-IAeval", "DIN-NTCIR-PQeval", "NTCIR-eval", "NEV2mean",
           "NEVIA2nev", "NEVIAPQ2sharpnev")


def _run_scripts(ntcireval_folder: Path, into: Path, inputs: list[Path],
                 commands: list[tuple[str, bool]], split: Path | None = None
                 ) -> dict[str, bytes]:
    """The files NTCIREVAL's scripts write in ``into`` (folders, topic lists and
    temporary files aside) when ``commands`` run there under ``LC_ALL=C``, each reading
    the run list ``runl`` (the names of ``inputs`` from the third) on standard input
    where its flag says so. Given ``split`` (:func:`~tests.official.conftest.
    sample_din_split`), the first command, that split's, is not run again: what it wrote
    is copied (issue 35 item 18)."""
    if shutil.which("gawk") is None:
        pytest.skip("NTCIREVAL's scripts need gawk")
    into.mkdir()
    for name in (*SCRIPTS, "ntcir_eval"):
        shutil.copy2(ntcireval_folder / name, into / name)
    for path in inputs:
        shutil.copy(path, into / path.name)
    if split is not None:
        assert commands[0] == (SAMPLE_SPLIT, False), commands[0]
        assert all((into / name).read_bytes() == (split / name).read_bytes()
                   for name in ("Dtest.DINprob", "Dtest.Dqrels"))
        copy_split(split, into)
        commands = commands[1:]
    env = {**os.environ, "LC_ALL": "C", "PATH": f"{into}{os.pathsep}{os.environ['PATH']}"}
    runl = (into / "runl").read_bytes()
    before = set(os.listdir(into))
    for command, reads_runl in commands:
        subprocess.run(["sh", *command.split()], cwd=into, env=env,
                       input=runl if reads_runl else b"", check=True, capture_output=True,
                       timeout=600)
    return {name: (into / name).read_bytes() for name in set(os.listdir(into)) - before
            if (into / name).is_file() and not name.startswith("temp.")
            and not name.endswith(".tid")}


def _run_xdiv(out: Path, command_lines: list[list[str]]) -> dict[str, bytes]:
    """The files ``xdiv ntcireval`` writes in ``out`` for ``command_lines``."""
    out.mkdir()
    for argv in command_lines:
        assert main(["ntcireval", *argv, "--out-dir", str(out)]) == 0, argv
    return {name: (out / name).read_bytes() for name in os.listdir(out)}


def _pipelines(prob: Path, dqrels: Path, qrels: Path | None, runs: list[Path], cutoff: int
               ) -> tuple[list[tuple[str, bool]], list[list[str]]]:
    """Every pipeline at ``cutoff`` as the scripts run it and as ``xdiv ntcireval`` does."""
    c = f"{cutoff:04d}"
    tid = f"{prob.name}.tid"
    scripts = [(f"DIN-splitqrels {prob.name} {dqrels.name} q", False),
               (f"TRECsplitruns {tid} 1000", True),
               (f"D-NTCIR-eval {tid} q {cutoff} e", True),
               (f"NEV2mean runl {tid} e.Dnev I-rec@{c} Q@{c} MSnDCG@{c} D#-Q@{c} "
                f"D#-nDCG@{c}", False),
               (f"DIN-NTCIR-eval {tid} q {cutoff} e", True),
               (f"NEV2mean runl {tid} e.DINnev DIN#-Q@{c} DIN#-nDCG@{c} nERR@{c}", False),
               (f"D-NTCIR-IAeval {tid} {prob.name} q.Irelv {cutoff} e", True),
               (f"NEVIA2nev runl {tid} e.nevIA IA-MSnDCG@{c} IA-nERR@{c} IA-ERR@{c}", False),
               (f"NEVIAPQ2sharpnev {tid} e.Dnev I-rec@{c} e.nevIA IA-nERR@{c} "
                f"IA-nERR#@{c}", True),
               (f"DIN-NTCIR-PQeval {tid} {prob.name} q.Irelv {cutoff} e", True),
               (f"NEVIAPQ2sharpnev {tid} e.Dnev I-rec@{c} e.nevPQ PplusQ@{c} "
                f"PplusQ#@{c}", True)]
    common = [str(prob), str(dqrels), *map(str, runs), "--cutoff", str(cutoff), "--name",
              "e", "--runlist", "runl"]
    ours = [["D", *common, "-m", f"I-rec@{c}", f"Q@{c}", f"MSnDCG@{c}", f"D#-Q@{c}",
             f"D#-nDCG@{c}"],
            ["DIN", *common, "-m", f"DIN#-Q@{c}", f"DIN#-nDCG@{c}", f"nERR@{c}"],
            ["IA", *common, "-m", f"IA-MSnDCG@{c}", f"IA-nERR@{c}", f"IA-ERR@{c}",
             "--sharp", f"IA-nERR@{c}", f"IA-nERR#@{c}"],
            ["PQ", *common, "--sharp", f"PplusQ@{c}", f"PplusQ#@{c}"]]
    if qrels is not None:
        scripts += [(f"NTCIRsplitqrels {qrels.name} rel", False),
                    (f"TRECsplitruns {qrels.name}.tid 1000", True),
                    (f"NTCIR-eval {qrels.name}.tid rel a -cutoffs 10,1000 -g 1:2", True),
                    (f"NEV2mean runl {qrels.name}.tid a.nev Q-measure nERR@0010", False)]
        ours.append(["adhoc", str(qrels), *map(str, runs), "--name", "a", "--runlist", "runl",
                     "--compute-options=-cutoffs 10,1000 -g 1:2", "-m", "Q-measure",
                     "nERR@0010"])
    return scripts, ours


def _compare(scripts: dict[str, bytes], ours: dict[str, bytes], n_runs: int) -> None:
    # per run: Dnev, DINnev, nevIA, 3 NEVIA2nev, IA#, nevPQ, P+Q# (and nev); 8 means (+2)
    adhoc = any(name.endswith(".a.nev") for name in scripts)
    assert len(scripts) == n_runs * (9 + adhoc) + 8 + 2 * adhoc
    assert sorted(ours) == sorted(scripts)
    for name, data in scripts.items():
        assert data, name  # the scripts wrote something to compare
        assert ours[name] == data, name


def test_every_pipeline_writes_the_scripts_files_on_ntcirevals_sample(ntcireval_folder,
                                                                      sample_din_split,
                                                                      tmp_path):
    """NTCIREVAL's sample (Dtest.DINprob, Dtest.Dqrels, test.qrels, TRECRUN, TRECRUN2) at
    cutoff 10: the D-, DIN-, IA-, PQ- and adhoc pipelines, NEV2mean, NEVIA2nev and
    NEVIAPQ2sharpnev, every file byte for byte."""
    folder = ntcireval_folder
    runs = [folder / "TRECRUN", folder / "TRECRUN2"]
    prob, dqrels, qrels = folder / "Dtest.DINprob", folder / "Dtest.Dqrels", folder / "test.qrels"
    scripts, ours = _pipelines(prob, dqrels, qrels, runs, 10)
    (tmp_path / "runl").write_text("TRECRUN\nTRECRUN2\n")
    written = _run_scripts(folder, tmp_path / "scripts",
                           [tmp_path / "runl", prob, dqrels, qrels, *runs], scripts,
                           sample_din_split)
    mine = _run_xdiv(tmp_path / "xdiv", ours)
    _compare(written, mine, len(runs))
    # the sample's combined measures are not all zero: the combinations are exercised
    for name in ("TRECRUN.e.Dnev", "TRECRUN.PplusQ#@0010.nev", "TRECRUN.IA-nERR#@0010.nev"):
        assert any(float(line.split()[-1]) > 0 for line in mine[name].splitlines()
                   if b"#-" in line or b"#@" in line), name


@pytest.mark.slow
def test_a_line_too_long_past_the_cutoff_is_reported_as_irec_reports_it(ntcireval_folder,
                                                                        sample_din_split,
                                                                        tmp_path, capfd):
    """A document of 9,000 bytes at rank 500 of a topic: glabel and dinlabel never read
    it, irec does and says "Line too long" (after printing I-rec at the cutoff); the D-
    and DIN-pipelines write the scripts' files and print ntcir_eval's messages, in the
    scripts' order."""
    folder = ntcireval_folder
    lines = (folder / "TRECRUN").read_bytes().splitlines(keepends=True)
    at = [k for k, line in enumerate(lines) if line.startswith(b"0002 ")][499]
    fields = lines[at].split()
    fields[2] = b"x" * 9000
    lines[at] = b" ".join(fields) + b"\n"
    run = tmp_path / "LONGRUN"
    run.write_bytes(b"".join(lines))
    (tmp_path / "runl").write_text("LONGRUN\n")
    prob, dqrels = folder / "Dtest.DINprob", folder / "Dtest.Dqrels"
    tid = f"{prob.name}.tid"
    scripts = [(f"DIN-splitqrels {prob.name} {dqrels.name} q", False),
               (f"TRECsplitruns {tid} 1000", True),
               (f"D-NTCIR-eval {tid} q 10 e", True), (f"DIN-NTCIR-eval {tid} q 10 e", True)]
    _run_scripts(folder, tmp_path / "scripts", [tmp_path / "runl", prob, dqrels, run],
                 scripts[:2], sample_din_split)
    capfd.readouterr()
    env = {**os.environ, "LC_ALL": "C",
           "PATH": f"{tmp_path / 'scripts'}{os.pathsep}{os.environ['PATH']}"}
    said = b""
    for command, _ in scripts[2:]:
        done = subprocess.run(["sh", *command.split()], cwd=tmp_path / "scripts", env=env,
                              input=b"LONGRUN\n", capture_output=True, timeout=600, check=True)
        said += b"".join(line for line in done.stderr.splitlines(keepends=True)
                         if not line.startswith(b"created "))
    written = {name: (tmp_path / "scripts" / name).read_bytes()
               for name in ("LONGRUN.e.Dnev", "LONGRUN.e.DINnev")}
    assert said.count(b"Line too long: ") == 2  # irec, once per pipeline
    common = [str(prob), str(dqrels), str(run), "--cutoff", "10", "--name", "e"]
    mine = _run_xdiv(tmp_path / "xdiv", [["D", *common], ["DIN", *common]])
    assert capfd.readouterr().err.encode() == said
    assert mine == written


@pytest.mark.slow
def test_every_pipeline_on_trec_2009_runs(ntcireval_folder, trec2009, trec2009_run_paths,
                                          tmp_path):
    """Three TREC 2009 runs on the first eight topics, converted to NTCIR files (Dqrels,
    DINprob with the topics' intent types, probabilities as xdiv reads them), at cutoff
    20: the D-, DIN-, IA- and PQ-pipelines and their means, every file byte for byte."""
    import gzip

    from xdiv.io.ntcir import iprob_frame, write_dqrels, write_iprob

    collection, _ = trec2009
    topics = [str(t) for t in collection["topic"].values[:8]]
    qrels = collection.sel(topic=topics)
    data = tmp_path / "data"
    data.mkdir()
    prob, dqrels = data / "wt09.DINprob", data / "wt09.Dqrels"
    write_dqrels(dqrels, qrels)
    write_iprob(prob, iprob_frame(qrels), types=True)
    picked = []
    for source in trec2009_run_paths[:3]:
        lines = gzip.open(source, "rb").read().splitlines(keepends=True)
        path = data / Path(source).name.removesuffix(".gz")
        path.write_bytes(b"".join(line for line in lines
                                  if line.split()[0].decode() in topics))
        picked.append(path)
    (data / "runl").write_text("".join(f"{p.name}\n" for p in picked))
    scripts, ours = _pipelines(prob, dqrels, None, picked, 20)
    written = _run_scripts(ntcireval_folder, tmp_path / "scripts",
                           [data / "runl", prob, dqrels, *picked], scripts)
    mine = _run_xdiv(tmp_path / "xdiv", ours)
    _compare(written, mine, len(picked))


@pytest.mark.parametrize("dqrels, prob, expected", [
    ("0001 1 d1 L1\n0001 1 d2 L10\n", "0001 1 0.5\n",
     "Dqrels, line 2: expected <topic> <intent> <docno> <L0-L9>"),
    ("0001 1 d1 L1\r\n", "0001 1 0.5\n", "Dqrels, line 1: expected"),
    ("0001 1 d1 L1\n0001 2 d2 L2\n", "0001 1 0.5\n",
     "Dqrels: topic 0001 intent 2 has no probability in"),
    ("0001 1 d1 L1\n", "0001 1\n", "Iprob, line 1: expected <topic> <intent> <probability>"),
])
def test_broken_inputs_are_refused_in_one_line(tmp_path, capsys, dqrels, prob, expected):
    """Where the scripts would go on with a broken line (gawk's stale variables, an
    awk program with no number in it), the command refuses, naming the file."""
    (tmp_path / "Dqrels").write_text(dqrels, newline="")
    (tmp_path / "Iprob").write_text(prob)
    (tmp_path / "RUN").write_text("0001 Q0 d1 1 1.0 RUN\n")
    status = main(["ntcireval", "D", str(tmp_path / "Iprob"), str(tmp_path / "Dqrels"),
                   str(tmp_path / "RUN"), "--out-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 2
    assert len(err.splitlines()) == 1 and expected in err, err
    assert not (tmp_path / "RUN.l10.Dnev").exists()


@pytest.mark.parametrize("where", ["missing", "a file"])
def test_an_output_folder_that_is_not_one_is_refused_in_one_line(tmp_path, capsys, where):
    (tmp_path / "Dqrels").write_text("0001 1 d1 L1\n")
    (tmp_path / "Iprob").write_text("0001 1 1\n")
    (tmp_path / "RUN").write_text("0001 Q0 d1 1 1.0 RUN\n")
    out = tmp_path / "out"
    if where == "a file":
        out.write_text("")
    status = main(["ntcireval", "D", str(tmp_path / "Iprob"), str(tmp_path / "Dqrels"),
                   str(tmp_path / "RUN"), "--out-dir", str(out)])
    err = capsys.readouterr().err
    assert status == 2
    assert err == f"xdiv: error: {out}: --out-dir is not a folder\n"
