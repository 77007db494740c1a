"""A lean command line: ``xdiv --version``, ``xdiv --help`` and ``xdiv COMMAND --help``
build the parser without loading pandas, xarray, scipy, matplotlib and the like; only a
command's handler loads what it needs, when it runs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("pandas", "xarray", "scipy", "statsmodels", "matplotlib", "dask", "pyarrow", "tqdm")
COMMANDS = ["demo", "measures", "meta", "concordance", "correlate", "risk", "design",
            "design size", "design mdd", "design pairs", "design swap", "design gstudy",
            "convert", "plot", "report", "pools", "pools leave-one-out", "pools downsample",
            "ntcir_eval", "ntcireval"]
"""Every subcommand (and design action) but ndeval, gdeval and evaluate."""

# runs main(ARGV) in a fresh interpreter; prints its exit status and the heavy modules
# then loaded, as JSON on the last line of standard output
PROBE = f"""
import json, sys
from xdiv.cli import main
try:
    status = main(sys.argv[1:])
except SystemExit as exc:
    status = exc.code
loaded = sorted(m for m in sys.modules if m.split(".")[0] in {HEAVY!r})
print(json.dumps([status, loaded]))
"""


def _start(*argv: str) -> tuple[int, str, list[str]]:
    """Exit status, standard output (without the probe's line) and heavy modules loaded
    by ``xdiv ARGV``."""
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    *out, last = proc.stdout.splitlines()
    status, loaded = json.loads(last)
    return status, "\n".join(out), loaded


def test_version_loads_no_heavy_library():
    status, out, loaded = _start("--version")
    assert (status, loaded) == (0, [])
    assert out.startswith("xdiv ")


def test_help_loads_no_heavy_library():
    status, out, loaded = _start("--help")
    assert (status, loaded) == (0, [])
    assert out.startswith("usage: xdiv")


@pytest.mark.parametrize("command", COMMANDS)
def test_command_help_loads_no_heavy_library(command):
    status, out, loaded = _start(*command.split(), "--help")
    assert (status, loaded) == (0, [])
    assert out.startswith(f"usage: xdiv {command}")


def test_a_handler_still_loads_what_it_needs(tmp_path):
    """The lean start defers the heavy imports, it does not drop them: a command that
    reads a cube loads xarray when it runs (here to refuse a file that is none)."""
    bad = tmp_path / "scores.nc"
    bad.write_text("not a NetCDF file\n")
    status, _, loaded = _start("meta", str(bad))
    assert status == 2
    assert "xarray" in loaded


def test_trec_eval_starts_without_the_other_commands(tmp_path):
    """``xdiv trec_eval``, a drop-in for a C tool, builds its own parser only: no other
    command module is imported (``xdiv --help`` still lists every command)."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 d1 1\n")
    run.write_text("1 Q0 d1 1 1.0 r\n")
    probe = ("import sys\nfrom xdiv.cli import main\nstatus = main(sys.argv[1:])\n"
             "print(sorted(m for m in sys.modules if m.startswith('xdiv.cli.')))")
    proc = subprocess.run([sys.executable, "-c", probe, "trec_eval", "-m", "map", str(qrels),
                           str(run)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    *out, last = proc.stdout.splitlines()
    assert out == ["map                   \tall\t1.0000"]
    assert last == "['xdiv.cli.common', 'xdiv.cli.trec_eval']"


def _declared(family: str) -> set[str]:
    from xdiv.cli import parser

    top = parser((family,))
    (sub,) = [action for action in top._actions if action.dest == "command"]
    return set(sub.choices)


def test_each_command_is_mapped_to_the_family_that_declares_it():
    """``FAMILY_OF`` names, for every command, the module that declares it: the parser
    built for ``xdiv COMMAND ...`` alone holds the command, and no command is missing."""
    from xdiv.cli import COMMAND_FAMILIES, FAMILY_OF

    declared = {family: _declared(family) for family in COMMAND_FAMILIES}
    assert {name: family for family, names in declared.items() for name in names} == FAMILY_OF


def test_a_command_declares_only_its_own_family(tmp_path):
    """``xdiv convert ...`` imports no other command module than its own."""
    qrels = tmp_path / "qrels"
    qrels.write_text("1 1 d1 1\n")
    probe = ("import sys\nfrom xdiv.cli import main\nstatus = main(sys.argv[1:])\n"
             "print(sorted(m for m in sys.modules if m.startswith('xdiv.cli.')))")
    proc = subprocess.run([sys.executable, "-c", probe, "convert", str(qrels), "--adhoc",
                           "max", "-o", str(tmp_path / "adhoc")], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "['xdiv.cli.common', 'xdiv.cli.convert']"


def test_ntcir_eval_starts_lean_and_alone(tmp_path):
    """``xdiv ntcir_eval``, a drop-in for NTCIREVAL's C program, builds its own parser
    only and loads no heavy library to label a list; of the official tools' modules, its
    own and the C library's number readers and printf, which it shares with trec_eval."""
    rel = tmp_path / "rel"
    rel.write_text("d1 L1\n")
    probe = ("import sys, json\nfrom xdiv.cli import main\nstatus = main(sys.argv[1:])\n"
             "print(json.dumps([status, sorted(m for m in sys.modules if m.startswith("
             "'xdiv.cli.') or m.split('.')[0] in %r or m.startswith('xdiv.official'))]))"
             % (HEAVY,))
    proc = subprocess.run([sys.executable, "-c", probe, "ntcir_eval", "label", "-r", str(rel)],
                          input="d1\nd2\n", capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    *out, last = proc.stdout.splitlines()
    assert out == ["d1 L1", "d2"]
    assert json.loads(last) == [0, ["xdiv.cli.common", "xdiv.cli.ntcireval", "xdiv.official",
                                    "xdiv.official.ntcireval", "xdiv.official.ntcireval.clib",
                                    "xdiv.official.ntcireval.program", "xdiv.official.printf",
                                    "xdiv.official.trec_eval", "xdiv.official.trec_eval.text"]]


def test_ntcireval_pipeline_loads_no_heavy_library(tmp_path):
    """``xdiv ntcireval D`` (NTCIREVAL's D-NTCIR-eval in one process) reads its files
    and evaluates without pandas, xarray and the like, nor xdiv's collections and
    measure registry; of xdiv's packages, only the command line, the official tools
    and the kernels that ``gcompute`` shares with the registry (issue 36)."""
    (tmp_path / "t.Iprob").write_text("0001 1 0.6\n0001 2 0.4\n")
    (tmp_path / "t.Dqrels").write_text("0001 1 d1 L1\n0001 2 d2 L2\n0001 2 d3 L0\n")
    (tmp_path / "RUN").write_text("0001 Q0 d2 1 2.0 r\n0001 Q0 d3 2 1.0 r\n")
    probe = ("import sys, json\nfrom xdiv.cli import main\nstatus = main(sys.argv[1:])\n"
             "print(json.dumps([status, sorted(m for m in sys.modules if m.split('.')[0] in "
             "%r), sorted({m.split('.')[1] for m in sys.modules if m.startswith('xdiv.')})]))"
             % (HEAVY,))
    (tmp_path / "out").mkdir()
    proc = subprocess.run([sys.executable, "-c", probe, "ntcireval", "D", "t.Iprob",
                           "t.Dqrels", "RUN", "--out-dir", "out"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    status, heavy, packages = json.loads(proc.stdout.splitlines()[-1])
    assert (status, heavy) == (0, [])
    assert set(packages) - {"_lazy", "_version", "_warnings", "errors", "typing"} == {
        "cli", "official", "kernels"}
    assert (tmp_path / "out" / "RUN.l10.Dnev").read_text().startswith(
        "0001 # syslen=2 jrel=2 jnonrel=0\n")
