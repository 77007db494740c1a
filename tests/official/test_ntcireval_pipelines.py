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

SCRIPTS = ("DIN-splitqrels", "TRECsplitruns", "D-NTCIR-eval", "DIN-NTCIR-eval", "NEV2mean")
EVALUATE = {"D": "D-NTCIR-eval", "DIN": "DIN-NTCIR-eval"}
SUFFIX = {"D": "Dnev", "DIN": "DINnev"}


def _scripts(ntcireval_folder: Path, into: Path, prob: Path, dqrels: Path, runs: list[Path],
             cutoff: int, means: dict[str, list[str]]) -> dict[str, bytes]:
    """The files NTCIREVAL's scripts write for ``runs`` (the D- and DIN-pipelines at
    ``cutoff``, evaluation name ``e``, run list ``runl``, and NEV2mean's ``means`` of
    each variant), by name."""
    if shutil.which("gawk") is None:
        pytest.skip("NTCIREVAL's scripts need gawk")
    into.mkdir()
    for name in (*SCRIPTS, "ntcir_eval"):
        shutil.copy2(ntcireval_folder / name, into / name)
    for path in (prob, dqrels, *runs):
        shutil.copy(path, into / path.name)
    (into / "runl").write_text("".join(f"{run.name}\n" for run in runs))
    env = {**os.environ, "LC_ALL": "C", "PATH": f"{into}{os.pathsep}{os.environ['PATH']}"}
    tid = f"{prob.name}.tid"
    runl = (into / "runl").read_bytes()
    commands = [(f"DIN-splitqrels {prob.name} {dqrels.name} q", b""),
                (f"TRECsplitruns {tid} 1000", runl)]
    for variant, metrics in means.items():
        commands.append((f"{EVALUATE[variant]} {tid} q {cutoff} e", runl))
        commands.append((f"NEV2mean runl {tid} e.{SUFFIX[variant]} {' '.join(metrics)}", b""))
    before = set(os.listdir(into))
    for command, stdin in commands:
        subprocess.run(["sh", *command.split()], cwd=into, env=env, input=stdin, check=True,
                       capture_output=True, timeout=600)
    return {name: (into / name).read_bytes() for name in set(os.listdir(into)) - before
            if (into / name).is_file() and not name.startswith(("temp.", tid))}


def _xdiv(out: Path, prob: Path, dqrels: Path, runs: list[Path], cutoff: int,
          means: dict[str, list[str]]) -> dict[str, bytes]:
    """The files ``xdiv ntcireval`` writes for the same pipelines, by name."""
    out.mkdir()
    for variant, metrics in means.items():
        status = main(["ntcireval", variant, str(prob), str(dqrels), *map(str, runs),
                       "--cutoff", str(cutoff), "--name", "e", "--out-dir", str(out),
                       "--runlist", "runl", "-m", *metrics])
        assert status == 0
    return {name: (out / name).read_bytes() for name in os.listdir(out)}


def _compare(scripts: dict[str, bytes], ours: dict[str, bytes], n_runs: int,
             means: dict[str, list[str]]) -> None:
    assert sorted(ours) == sorted(scripts)
    assert len(ours) == n_runs * len(means) + sum(len(m) for m in means.values())
    for name, data in scripts.items():
        assert data, name  # the scripts wrote something to compare
        assert ours[name] == data, name


def test_d_and_din_pipelines_write_the_scripts_files_on_ntcirevals_sample(
        ntcireval_folder, tmp_path):
    """NTCIREVAL's sample (Dtest.DINprob, Dtest.Dqrels, TRECRUN, TRECRUN2) at cutoff 10:
    the two runs' Dnev and DINnev files and NEV2mean's means of every measure they
    combine, byte for byte."""
    folder = ntcireval_folder
    runs = [folder / "TRECRUN", folder / "TRECRUN2"]
    means = {"D": ["I-rec@0010", "Q@0010", "MSnDCG@0010", "D#-Q@0010", "D#-nDCG@0010"],
             "DIN": ["DIN#-Q@0010", "DIN#-nDCG@0010", "nERR@0010"]}
    prob, dqrels = folder / "Dtest.DINprob", folder / "Dtest.Dqrels"
    scripts = _scripts(folder, tmp_path / "scripts", prob, dqrels, runs, 10, means)
    ours = _xdiv(tmp_path / "xdiv", prob, dqrels, runs, 10, means)
    _compare(scripts, ours, len(runs), means)
    # the sample's D#-measures are not all zero: the combination is exercised
    assert b"D#-nDCG@0010=        0." in ours["TRECRUN.e.Dnev"]
    assert any(float(line.split()[-1]) > 0 for line in ours["TRECRUN.e.Dnev"].splitlines()
               if b"D#-nDCG" in line)


@pytest.mark.slow
def test_d_and_din_pipelines_on_trec_2009_runs(ntcireval_folder, trec2009, trec2009_run_paths,
                                               tmp_path):
    """Three TREC 2009 runs on the first eight topics, converted to NTCIR files (Dqrels,
    DINprob with the topics' intent types, as given), at cutoff 20: every Dnev and
    DINnev file and the means, byte for byte."""
    from xdiv.io.ntcir import iprob_frame, write_dqrels, write_iprob

    collection, runs = trec2009
    topics = [str(t) for t in collection["topic"].values[:8]]
    qrels = collection.sel(topic=topics)
    (tmp_path / "data").mkdir()
    prob, dqrels = tmp_path / "data" / "wt09.DINprob", tmp_path / "data" / "wt09.Dqrels"
    write_dqrels(dqrels, qrels)
    write_iprob(prob, iprob_frame(qrels), types=True)
    picked = []
    for source in trec2009_run_paths[:3]:
        import gzip
        lines = gzip.open(source, "rb").read().splitlines(keepends=True)
        path = tmp_path / "data" / Path(source).name.removesuffix(".gz")
        path.write_bytes(b"".join(line for line in lines
                                  if line.split()[0].decode() in topics))
        picked.append(path)
    means = {"D": ["I-rec@0020", "D#-Q@0020", "D#-nDCG@0020"],
             "DIN": ["DIN#-Q@0020", "DIN#-nDCG@0020"]}
    scripts = _scripts(ntcireval_folder, tmp_path / "scripts", prob, dqrels, picked, 20, means)
    ours = _xdiv(tmp_path / "xdiv", prob, dqrels, picked, 20, means)
    _compare(scripts, ours, len(picked), means)
