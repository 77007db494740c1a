"""Whole processes: ``xdiv ntcireval D`` against NTCIREVAL's ``D-NTCIR-eval`` script.

NTCIREVAL 190111 is unpacked and built (its own Makefile) in a temporary folder from
``../shared/reference/tools``; the TREC 2009 diversity qrels become NTCIR files (a Dqrels
file and an Iprob file, probabilities as xdiv reads them) and the 18 runs plain TREC
files. The script side first splits them per topic with NTCIREVAL's own scripts
(``DIN-splitqrels``, ``TRECsplitruns``, doclimit 1000), then ``D-NTCIR-eval`` forks
``ntcir_eval`` three times per topic and run; ``xdiv ntcireval D`` does all of it in one
process. Each job is timed as a whole process under GNU ``time`` (wall, user + system CPU
of the process and its children, peak resident set of the largest process), with
``LC_ALL=C``; the medians of ``--repeat`` paired runs are printed as a Markdown table, and
the Dnev files of both sides are checked to be the same bytes. The splitting, which
takes minutes, runs once; the two evaluations alternate ``--repeat`` times.

Run from the repository root, with the real TREC 2009 data in ``../shared``::

    python benchmarks/bench_ntcireval.py --repeat 3
"""

from __future__ import annotations

import argparse
import glob
import gzip
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import xdiv
from xdiv.io.ntcir import iprob_frame, write_dqrels, write_iprob

ROOT = Path(__file__).resolve().parents[1]
TREC_2009 = ROOT / ".." / "shared" / "reference" / "trec-web" / "2009"
TARBALL = ROOT / ".." / "shared" / "reference" / "tools" / "ntcireval-190111.tar.gz"
GNU_TIME = "/usr/bin/time"  # Debian package "time"
CUTOFF = "10"


def build(folder: Path) -> Path:
    """NTCIREVAL unpacked in ``folder`` and ``ntcir_eval`` built: its folder."""
    with tarfile.open(TARBALL) as tar:
        tar.extractall(folder)
    (source,) = [p for p in folder.iterdir() if (p / "Makefile").exists()]
    subprocess.run(["make"], cwd=source, check=True, capture_output=True)
    return source


def timed(argv: list[str], cwd: Path, env: dict, stdin: bytes = b"") -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system, children included) and peak MiB."""
    proc = subprocess.run([GNU_TIME, "-f", "%e %U %S %M", *argv], cwd=cwd, env=env,
                          input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {proc.stderr[-300:]!r}")
    wall, user, system, peak = proc.stderr.decode().strip().splitlines()[-1].split()
    return float(wall), float(user) + float(system), int(peak) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not os.access(GNU_TIME, os.X_OK):
        raise SystemExit("GNU time is needed: apt-get install time")
    if shutil.which("gawk") is None:
        raise SystemExit("NTCIREVAL's scripts need gawk")
    with tempfile.TemporaryDirectory(prefix="bench-ntcireval-") as tmp:
        tmp = Path(tmp)
        tool = build(tmp / "tool")
        data = tmp / "data"
        data.mkdir()
        collection = xdiv.read_qrels(TREC_2009 / "qrels.diversity.gz",
                                     topics=TREC_2009 / "wt09.topics.full.xml")
        write_dqrels(data / "wt09.Dqrels", collection)
        write_iprob(data / "wt09.Iprob", iprob_frame(collection))
        runs = []
        for source in sorted(glob.glob(str(TREC_2009 / "runs" / "*.gz"))):
            path = data / Path(source).name.removesuffix(".gz")
            path.write_bytes(gzip.open(source).read())
            runs.append(path)
        env = {**os.environ, "LC_ALL": "C", "PATH": f"{tool}{os.pathsep}{os.environ['PATH']}"}
        xenv = {**env, "PYTHONPATH": str(ROOT)}
        runl = "".join(f"{r}\n" for r in runs).encode()
        names = "".join(f"{r.name}\n" for r in runs).encode()
        script = tmp / "script"
        ours = tmp / "xdiv"
        rows: dict[str, list] = {"split": [], "D-NTCIR-eval": [], "xdiv": []}
        script.mkdir()
        shutil.copy(data / "wt09.Iprob", script)
        shutil.copy(data / "wt09.Dqrels", script)
        # the per-topic tree is made once (it takes minutes); the evaluations are repeated
        rows["split"].append(timed(["sh", "-c", f"sh {tool}/DIN-splitqrels wt09.Iprob "
                                    f"wt09.Dqrels q && sh {tool}/TRECsplitruns "
                                    f"wt09.Iprob.tid 1000"], script, env, runl))
        for _ in range(args.repeat):
            shutil.rmtree(ours, ignore_errors=True)
            ours.mkdir()
            rows["D-NTCIR-eval"].append(timed(["sh", f"{tool}/D-NTCIR-eval", "wt09.Iprob.tid",
                                               "q", CUTOFF, "l10"], script, env, names))
            rows["xdiv"].append(timed([sys.executable, "-m", "xdiv.cli", "ntcireval", "D",
                                       str(data / "wt09.Iprob"), str(data / "wt09.Dqrels"),
                                       *map(str, runs), "--cutoff", CUTOFF, "--name", "l10",
                                       "--out-dir", str(ours)], ours, xenv))
            for run in runs:
                name = f"{run.name}.l10.Dnev"
                if (script / name).read_bytes() != (ours / name).read_bytes():
                    raise SystemExit(f"{name}: xdiv and the script differ")
        print(f"the 18 Dnev files are the same bytes ({len(runs)} runs x "
              f"{collection.sizes['topic']} topics, cutoff {CUTOFF}); medians of "
              f"{args.repeat} (the splitting: one run)\n")
        print("| job | wall | CPU | peak RSS |\n|---|---|---|---|")
        median = {job: [statistics.median(v[k] for v in values) for k in range(3)]
                  for job, values in rows.items()}
        for job, label in (("split", "DIN-splitqrels + TRECsplitruns (script side only)"),
                           ("D-NTCIR-eval", "D-NTCIR-eval (18 runs, per-topic tree)"),
                           ("xdiv", "xdiv ntcireval D (split and evaluation)")):
            wall, cpu, peak = median[job]
            print(f"| {label} | {wall:.2f} s | {cpu:.2f} s | {peak:.0f} MiB |")
        script_all = median["split"][0] + median["D-NTCIR-eval"][0]
        print(f"\nwall ratio, D-NTCIR-eval / xdiv: {median['D-NTCIR-eval'][0] / median['xdiv'][0]:.1f}x;"
              f" with the splitting: {script_all / median['xdiv'][0]:.1f}x")


if __name__ == "__main__":
    main()
