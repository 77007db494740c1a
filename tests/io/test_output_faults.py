"""Faults on outputs (issue 25, items 3 and 5): every write error of a NetCDF output
(ENOSPC, EACCES, EROFS, EIO, the netCDF library's "HDF error") is one line naming the path
and the operating system's reason, with no temporary file left, and an empty output path
is refused before any work by every command."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from collections import namedtuple

import numpy as np
import pytest
import xarray as xr

import xdiv
from xdiv.cli import main
from xdiv.errors import InputError
from xdiv.io.atomic import PARTIAL_MARK

NO_SPACE = os.strerror(errno.ENOSPC)  # "No space left on device"
_StatVFS = namedtuple("_StatVFS", "f_bsize f_frsize f_blocks f_bfree f_bavail f_files "
                                  "f_ffree f_favail f_flag f_namemax")


def _cube() -> xr.Dataset:
    rng = np.random.default_rng(0)
    return xr.Dataset({"score": (("metric", "run", "topic"), rng.random((1, 3, 4)))},
                      coords={"metric": ["nDCG@10"], "run": ["a", "b", "c"],
                              "topic": ["1", "2", "3", "4"]})


def _leftovers(folder) -> list[str]:
    return [name for name in os.listdir(folder) if PARTIAL_MARK in name]


def _failing_write(monkeypatch, error: BaseException) -> None:
    """Make xarray's NetCDF write put part of a file on disk, then raise ``error``."""
    def to_netcdf(self, path=None, *args, **kwargs):
        with open(path, "wb") as fh:
            fh.write(b"\x89HDF\r\n\x1a\n" + b"\0" * 4096)
        raise error

    monkeypatch.setattr(xr.Dataset, "to_netcdf", to_netcdf)


def _device(monkeypatch, *, full: bool) -> None:
    """Make every device look full (no block available) or roomy."""
    free = 0 if full else 1 << 20
    monkeypatch.setattr(os, "statvfs", lambda path: _StatVFS(
        4096, 4096, 1 << 21, free, free, 1000, 1000, 1000, 0, 255))


WRITE_ERRORS = [  # (what the writer raises, whether the device is full, the reason shown)
    (RuntimeError("NetCDF: HDF error"), True, NO_SPACE),  # a nearly full disk
    (RuntimeError("NetCDF: HDF error"), False, "NetCDF: HDF error"),
    (PermissionError(errno.EACCES, "Permission denied"), True, NO_SPACE),  # a full disk
    (PermissionError(errno.EACCES, "Permission denied"), False, "Permission denied"),
    (OSError(errno.ENOSPC, NO_SPACE), False, NO_SPACE),
    (OSError(errno.EROFS, os.strerror(errno.EROFS)), True, os.strerror(errno.EROFS)),
    (OSError(errno.EIO, os.strerror(errno.EIO)), False, os.strerror(errno.EIO)),
    (OSError(-101, "NetCDF: HDF error", "x.nc"), True, NO_SPACE),  # netCDF's own codes
]


def test_netcdf_write_errors_are_one_line_with_the_reason(tmp_path):
    target = tmp_path / "scores.nc"
    target.write_bytes(b"old content")
    for error, full, reason in WRITE_ERRORS:
        with pytest.MonkeyPatch.context() as patch:
            _failing_write(patch, error)
            _device(patch, full=full)
            with pytest.raises(InputError) as caught:
                xdiv.to_netcdf(_cube(), target)
        assert str(caught.value) == f"{target}: cannot write ({reason})", repr(error)
        assert target.read_bytes() == b"old content"
        assert _leftovers(tmp_path) == []
    with pytest.MonkeyPatch.context() as patch:  # other errors are not write errors
        _failing_write(patch, RuntimeError("a bug, not a full disk"))
        with pytest.raises(RuntimeError, match="a bug"):
            xdiv.to_netcdf(_cube(), target)
    assert _leftovers(tmp_path) == []


@pytest.fixture(scope="module")
def demo_scores(tmp_path_factory):
    """A small score cube (the demo's), made once."""
    folder = tmp_path_factory.mktemp("demo")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        assert main(["-q", "demo", "-o", "in.nc", "--topics", "6", "--runs", "3"]) == 0
    return folder / "in.nc"


@pytest.fixture()
def scores_file(tmp_path, demo_scores, capsys):
    path = tmp_path / "in.nc"
    shutil.copyfile(demo_scores, path)
    capsys.readouterr()
    return path


def _qrels_and_run(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3 s\n1 Q0 b 2 2 s\n")
    return [str(tmp_path / "q"), str(tmp_path / "r"), "-m", "nDCG@2"]


COMMANDS = {
    "evaluate": lambda t, s: ["evaluate", *_qrels_and_run(t)],
    "meta": lambda t, s: ["meta", str(s), "-B", "100"],
    "risk": lambda t, s: ["risk", str(s), "--test", "georisk"],
    "design size": lambda t, s: ["design", "size", str(s), "--diff", "0.1"],
    "design swap": lambda t, s: ["design", "swap", str(s), "-B", "20"],
    "design gstudy": lambda t, s: ["design", "gstudy", str(s)],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_cli_netcdf_output_on_a_full_disk_is_one_line_and_status_2(
        tmp_path, scores_file, capsys, command):
    out = tmp_path / "out.nc"
    args = ["-q", *COMMANDS[command](tmp_path, scores_file), "-o", str(out)]
    for error in (RuntimeError("NetCDF: HDF error"),  # a nearly full disk
                  PermissionError(errno.EACCES, "Permission denied"),  # a full one
                  OSError(errno.ENOSPC, NO_SPACE)):
        capsys.readouterr()
        with pytest.MonkeyPatch.context() as patch:
            _failing_write(patch, error)
            _device(patch, full=True)
            status = main(args)
        err = capsys.readouterr().err
        assert status == 2, repr(error)
        assert err.splitlines() == [f"xdiv: error: {out}: cannot write ({NO_SPACE})"]
        assert not out.exists() and _leftovers(tmp_path) == []


def _mount_tmpfs(folder, size="256k") -> bool:
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                           str(folder)], check=False, capture_output=True)
    return done.returncode == 0


@pytest.fixture()
def small_disk(tmp_path):
    """A 256 KiB tmpfs (needs root and a permitted mount; skipped otherwise), unmounted
    at the end whatever happens."""
    folder = tmp_path / "disk"
    folder.mkdir()
    if not _mount_tmpfs(folder):
        pytest.skip("mounting a small tmpfs is not permitted here")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False, capture_output=True)


@pytest.mark.parametrize("room", [0, 8 << 10], ids=["full", "nearly-full"])
def test_cli_netcdf_output_on_a_real_full_disk(tmp_path, small_disk, room):
    args = _qrels_and_run(tmp_path)
    filler = small_disk / "filler"
    with open(filler, "wb", buffering=0) as fh:  # fill the disk, then free ``room`` bytes
        try:
            while fh.write(b"\0" * 4096):
                pass
        except OSError:
            pass
    if room:
        with open(filler, "r+b") as fh:
            fh.truncate(max(os.path.getsize(filler) - room, 0))
    out = small_disk / "scores.nc"
    proc = subprocess.run([sys.executable, "-m", "xdiv.cli", "evaluate", *args, "-o",
                           str(out)], check=False, capture_output=True,
                          text=True)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [f"xdiv: error: {out}: cannot write ({NO_SPACE})"]
    assert sorted(os.listdir(small_disk)) == ["filler"]


EMPTY = {
    "evaluate": lambda t, s: ["evaluate", *_qrels_and_run(t), "-o", ""],
    "meta": lambda t, s: ["meta", str(s), "-B", "100", "-o", ""],
    "risk": lambda t, s: ["risk", str(s), "--test", "georisk", "-o", ""],
    "design size": lambda t, s: ["design", "size", str(s), "--diff", "0.1", "-o", ""],
    "design size --plot": lambda t, s: ["design", "size", str(s), "--diff", "0.1",
                                        "--plot", ""],
    "design swap": lambda t, s: ["design", "swap", str(s), "-B", "20", "-o", ""],
    "design gstudy": lambda t, s: ["design", "gstudy", str(s), "-o", ""],
    "report": lambda t, s: ["report", str(s), "-o", ""],
    "convert": lambda t, s: ["convert", _qrels_and_run(t)[0], "--adhoc", "max", "-o", ""],
    "plot": lambda t, s: ["plot", "scatter", str(s), "-o", ""],
    "demo": lambda t, s: ["demo", "-o", ""],
}


@pytest.mark.parametrize("command", list(EMPTY))
def test_an_empty_output_path_is_refused_before_any_work(tmp_path, scores_file, capsys,
                                                         monkeypatch, command):
    args = EMPTY[command](tmp_path, scores_file)
    capsys.readouterr()
    monkeypatch.chdir(tmp_path)
    before = sorted(os.listdir(tmp_path))
    status = main(args)
    captured = capsys.readouterr()
    assert status == 2
    assert captured.out == ""  # nothing computed nor printed
    assert len(captured.err.splitlines()) == 1
    assert captured.err.startswith("xdiv: error: ") and "path is empty" in captured.err
    assert sorted(os.listdir(tmp_path)) == before


@pytest.mark.parametrize("write", [
    lambda: xdiv.to_netcdf(_cube(), ""),
    lambda: xdiv.io.check_output_path(""),
])
def test_the_python_writers_refuse_an_empty_path(tmp_path, monkeypatch, write):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match="output path is empty"):
        write()
    assert os.listdir(tmp_path) == []


def test_a_label_with_a_nul_character_is_refused_not_cut(tmp_path):
    """NetCDF ends a text at its first NUL: "a\\x00b" would read back as "a" (issue 35's
    fuzz of names); the writer refuses it in one line and leaves no file."""
    import numpy as np
    import xarray as xr

    import xdiv

    cube = xr.Dataset({"score": ("run", np.array([0.5, 0.25]))},
                      coords={"run": ["a\x00b", "c"]})
    path = tmp_path / "scores.nc"
    with pytest.raises(xdiv.InputError, match=r"cannot write run 'a\\x00b': NetCDF ends"):
        xdiv.to_netcdf(cube, path)
    assert not path.exists()
