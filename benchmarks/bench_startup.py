"""Whole processes, start-up included: xdiv's commands against the C tools they replace.

The C tools are built from source here, in a temporary folder: ndeval from the pyndeval
source distribution (pip downloads it from the package registry) and trec_eval 10.0 from
``../shared/reference/tools``. Each job runs ``--repeat`` times, the tools alternating
(paired runs, so that a noisy moment hurts both), and the medians of the wall times and
the peak resident sets (GNU ``time``, Debian package ``time``) are printed as a Markdown
table. ``--cold`` drops the page cache before every run (root only; skipped otherwise).

Run from the repository root, with the real TREC 2009 data in ``../shared``::

    python benchmarks/bench_startup.py --repeat 7
"""

from __future__ import annotations

import argparse
import glob
import gzip
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TREC_2009 = ROOT / ".." / "shared" / "reference" / "trec-web" / "2009"
TOOLS = ROOT / ".." / "shared" / "reference" / "tools"
GNU_TIME = "/usr/bin/time"  # Debian package "time"


def build_ndeval(folder: Path) -> Path:
    """ndeval.c of the pyndeval source distribution, compiled with gcc -O2."""
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary",
                    ":all:", "pyndeval", "-d", str(folder), "-q"], check=True)
    archive = next(folder.glob("pyndeval-*.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    source = next(folder.glob("pyndeval-*/src/ndeval.c"))
    binary = folder / "ndeval"
    subprocess.run(["gcc", "-O2", "-o", str(binary), str(source), "-lm"], check=True)
    return binary


def build_trec_eval(folder: Path) -> Path | None:
    """trec_eval 10.0 from the reference tarball, built with its Makefile."""
    archive = TOOLS / "trec_eval-10.0.tar.gz"
    if not archive.exists():
        return None
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    source = next(p for p in folder.iterdir() if p.is_dir() and p.name.startswith("trec_eval"))
    subprocess.run(["make", "-s"], cwd=source, check=True, stdout=subprocess.DEVNULL)
    return source / "trec_eval"


def run(argv: list[str], cold: bool) -> tuple[float, float]:
    """Wall seconds and peak resident MiB of one process (output discarded). The peak
    comes from GNU time (``/usr/bin/time -f %M``), whose own small process forks the
    command: a fork of this Python process would count this process's pages."""
    if cold:
        subprocess.run(["sync"], check=True)
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    start = time.perf_counter()
    proc = subprocess.run([GNU_TIME, "-f", "%M", *argv], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {proc.stderr[-300:]}")
    return wall, int(proc.stderr.strip().splitlines()[-1]) / 1024


def shell_loop(binary: Path, qrels: Path, runs: list[Path]) -> list[str]:
    """``for r in runs; do ndeval qrels $r > /dev/null; done`` as one shell process."""
    loop = " ".join(str(r) for r in runs)
    return ["sh", "-c", f'for r in {loop}; do "{binary}" "{qrels}" "$r" > /dev/null; done']


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cold", action="store_true", help="drop the page cache each run")
    parser.add_argument("--gdeval", type=Path, metavar="GDEVAL_PL",
                        help="a gdeval.pl to time xdiv gdeval against (not distributed "
                             "with xdiv; the jobs are left out without it)")
    args = parser.parse_args()
    if not (TREC_2009 / "qrels.diversity.gz").exists():
        raise SystemExit("../shared/reference/trec-web/2009 is not available")
    if args.cold and os.geteuid() != 0:
        raise SystemExit("--cold needs root (it writes /proc/sys/vm/drop_caches)")
    xdiv = shutil.which("xdiv") or sys.exit("the xdiv command is not installed")
    if not os.access(GNU_TIME, os.X_OK):
        raise SystemExit("GNU time is needed for the peak memory: apt-get install time")
    # an installed package carries its compiled bytecode (pip compiles it); a checkout run
    # with PYTHONDONTWRITEBYTECODE set would otherwise compile every changed module at
    # each start
    import xdiv as package

    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(package.__file__).parent)],
                   check=True, stdout=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ndeval = build_ndeval(folder / "ndeval-src")
        trec_eval = build_trec_eval(folder / "trec_eval-src")
        # the C tools read plain text: the same plain files for every tool
        qrels = folder / "qrels.txt"
        qrels.write_bytes(gzip.decompress((TREC_2009 / "qrels.diversity.gz").read_bytes()))
        runs = []
        for path in sorted(glob.glob(str(TREC_2009 / "runs" / "*.gz"))):
            plain = folder / Path(path).name.removesuffix(".gz")
            plain.write_bytes(gzip.decompress(Path(path).read_bytes()))
            runs.append(plain)
        one = next(r for r in runs if r.name == "MSRABASE")
        same = subprocess.run([str(ndeval), str(qrels), str(one)], capture_output=True)
        ours = subprocess.run([xdiv, "ndeval", str(qrels), str(one)], capture_output=True)
        print(f"xdiv ndeval prints what C ndeval prints: {same.stdout == ours.stdout}")
        jobs = [
            ("ndeval, one run (MSRABASE)", [str(ndeval), str(qrels), str(one)],
             [xdiv, "ndeval", str(qrels), str(one)]),
            ("ndeval, the 18 runs (C: shell loop; xdiv: one call)",
             shell_loop(ndeval, qrels, runs),
             [xdiv, "ndeval", str(qrels), *map(str, runs)]),
            ("start-up: import numpy / import xdiv", [sys.executable, "-c", "import numpy"],
             [sys.executable, "-c", "import xdiv"]),
            ("start-up: xdiv --version vs import numpy", [sys.executable, "-c", "import numpy"],
             [xdiv, "--version"]),
            ("start-up: xdiv --help vs import numpy", [sys.executable, "-c", "import numpy"],
             [xdiv, "--help"]),
        ]
        adhoc = folder / "qrels.adhoc"  # one line per document: its highest level, >= 0
        levels: dict[tuple[str, str], int] = {}
        for line in qrels.read_text().splitlines():
            t, _, d, lv = line.split()
            levels[t, d] = max(levels.get((t, d), -99), int(lv))
        adhoc.write_text("".join(f"{t} 0 {d} {max(lv, 0)}\n" for (t, d), lv in levels.items()))
        if args.gdeval is not None:
            gdeval = ["perl", str(args.gdeval.resolve())]
            jobs.append(("gdeval, one run (MSRABASE)", [*gdeval, str(adhoc), str(one)],
                         [xdiv, "gdeval", str(adhoc), str(one)]))
            loop = " ".join(str(r) for r in runs)
            jobs.append(("gdeval, the 18 runs (Perl: shell loop; xdiv: one call)",
                         ["sh", "-c", f'for r in {loop}; do {" ".join(gdeval)} "{adhoc}" "$r" '
                                      '> /dev/null; done'],
                         [xdiv, "gdeval", str(adhoc), *map(str, runs)]))
        if trec_eval is not None:
            for flags in ([], ["-q", "-m", "all_trec"]):
                reference = subprocess.run([str(trec_eval), *flags, str(adhoc), str(one)],
                                           capture_output=True)
                mine = subprocess.run([xdiv, "trec_eval", *flags, str(adhoc), str(one)],
                                      capture_output=True)
                print(f"xdiv trec_eval {' '.join(flags)} prints what trec_eval 10.0 prints: "
                      f"{reference.stdout == mine.stdout}")
                jobs.append((f"trec_eval {' '.join(flags) or '(default measures)'}, one run",
                             [str(trec_eval), *flags, str(adhoc), str(one)],
                             [xdiv, "trec_eval", *flags, str(adhoc), str(one)]))
        print(f"\n{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
              f"Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}, "
              f"{'cold' if args.cold else 'warm'} page cache, median of {args.repeat}\n")
        print("| job | reference | xdiv | ratio | reference peak | xdiv peak |")
        print("|---|---|---|---|---|---|")
        for name, reference, candidate in jobs:
            times = {"ref": [], "xdiv": []}
            peaks = {"ref": [], "xdiv": []}
            for _ in range(args.repeat):
                for key, argv in (("ref", reference), ("xdiv", candidate)):
                    wall, peak = run(argv, args.cold)
                    times[key].append(wall)
                    peaks[key].append(peak)
            ref, ours_t = statistics.median(times["ref"]), statistics.median(times["xdiv"])
            print(f"| {name} | {ref:.3f} s | {ours_t:.3f} s | {ours_t / ref:.1f}× | "
                  f"{statistics.median(peaks['ref']):.0f} MiB | "
                  f"{statistics.median(peaks['xdiv']):.0f} MiB |")


if __name__ == "__main__":
    main()
