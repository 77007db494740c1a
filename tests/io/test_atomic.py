"""Output files are replaced atomically: a writer that fails or is killed midway leaves the
old content and no temporary file (or, killed by SIGKILL, a recognisably named one);
symbolic links, /dev/stdout, FIFOs and gzip outputs are written where they lead."""

from __future__ import annotations

import gzip
import os
import re
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pandas as pd
import pytest
import xarray as xr

import xdiv
import xdiv.io
from xdiv.io.atomic import PARTIAL_MARK, atomic_output, atomic_path, output_target
from xdiv.errors import InputError

OLD = "old content, still whole\n"

SLOW_WRITES = """
import contextlib, os, sys, time
import numpy as np, pandas as pd, xarray as xr
import xdiv, xdiv.io
import xdiv.io.trec
from xdiv.io.atomic import atomic_output

SIGNUM = int(os.environ["XDIV_TEST_SIGNAL"])


class Slow:
    # a file whose writes take a while; the writer signals itself midway, once some
    # content has reached the temporary file and more is to come (a signal sent from
    # outside would race with the end of the writing)
    writes = 0

    def __init__(self, fh):
        self.fh = fh

    def write(self, text):
        Slow.writes += 1
        if Slow.writes == 60:
            self.fh.flush()
            os.kill(os.getpid(), SIGNUM)
        time.sleep(0.01)
        return self.fh.write(text)


@contextlib.contextmanager
def slow_output(*args, **kwargs):
    with atomic_output(*args, **kwargs) as fh:
        yield Slow(fh)


xdiv.io.trec.atomic_output = slow_output
xdiv.io.trec._LINES_PER_WRITE = 100
n = 50_000
qrels = pd.DataFrame({"topic": (np.arange(n) // 1000).astype(str), "intent": "1",
                      "docno": [f"doc-{i:08d}" for i in range(n)], "level": 1})
run = pd.DataFrame({"run": "r", "topic": qrels["topic"], "docno": qrels["docno"],
                    "rank": np.arange(n) % 1000 + 1, "score": -np.arange(n, dtype=float)})
"""

WRITERS = {
    "qrels": "xdiv.write_qrels(sys.argv[1], qrels)",
    "run": "xdiv.write_run(sys.argv[1], run)",
    "convert": "from xdiv.cli import main\n"
               "sys.exit(main(['convert', sys.argv[2], '--adhoc', 'max', '-o', sys.argv[1]]))",
    "netcdf": "real = xr.Dataset.to_netcdf\n"
              "def slow_netcdf(self, *args, **kwargs):\n"
              "    real(self, *args, **kwargs)\n"
              "    os.kill(os.getpid(), SIGNUM)\n"
              "    time.sleep(60)\n"
              "xr.Dataset.to_netcdf = slow_netcdf\n"
              "xdiv.to_netcdf(xr.Dataset({'a': ('x', np.arange(n))}), sys.argv[1])",
}


def partials(folder: Path, name: str) -> list[Path]:
    """The temporary files of an output named ``name`` in ``folder``."""
    pattern = re.compile(rf"\.{re.escape(name)}{re.escape(PARTIAL_MARK)}\w+")
    return [p for p in folder.iterdir() if pattern.fullmatch(p.name)]


def _default_signals() -> None:
    """In a child: the default SIGINT and SIGTERM actions, whatever the test runner
    inherited (a job started in the background of a shell ignores SIGINT)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@pytest.fixture
def python_sigint():
    """Python's own SIGINT handler (KeyboardInterrupt) for the test, even where the
    runner inherited an ignored SIGINT."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def kill_midway(tmp_path: Path, writer: str, signum: int) -> subprocess.CompletedProcess:
    """Run ``writer`` on ``tmp_path/out.txt`` (which holds OLD); the writer sends itself
    ``signum`` midway through writing. Return the finished process."""
    source = tmp_path / "diversity.txt"
    source.write_text("".join(f"{i // 1000} {i % 3} doc-{i:08d} 1\n" for i in range(50_000)))
    target = tmp_path / "out.txt"
    target.write_text(OLD)
    script = SLOW_WRITES + WRITERS[writer]
    proc = subprocess.Popen([sys.executable, "-c", script, str(target), str(source)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_signals,
                            env={**os.environ, "XDIV_TEST_SIGNAL": str(int(signum))})
    try:
        _, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return subprocess.CompletedProcess(proc.args, proc.returncode, None, stderr)


@pytest.mark.parametrize("writer", ["qrels", "run", "convert", "netcdf"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_writer_killed_midway_leaves_the_old_file_and_no_temporary_file(tmp_path, writer,
                                                                          signum):
    proc = kill_midway(tmp_path, writer, signum)
    # ended by the signal, as its default handling would (SIGINT: KeyboardInterrupt, after
    # which Python ends by SIGINT too)
    assert proc.returncode == -signum, proc.stderr
    assert (tmp_path / "out.txt").read_text() == OLD
    assert partials(tmp_path, "out.txt") == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["diversity.txt", "out.txt"]


def test_sigkill_leaves_the_old_file_and_a_recognisable_temporary_file(tmp_path):
    proc = kill_midway(tmp_path, "qrels", signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    assert (tmp_path / "out.txt").read_text() == OLD
    [stale] = partials(tmp_path, "out.txt")
    assert re.fullmatch(r"\.out\.txt\.xdiv-partial-\w+", stale.name)
    assert stale.read_text().startswith("0 1 doc-00000000 1\n")


def test_an_exception_midway_leaves_the_old_file_and_no_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "out.txt"
    target.write_text(OLD)
    with pytest.raises(RuntimeError, match="midway"):
        with atomic_output(target) as fh:
            fh.write("new and partial\n")
            fh.flush()
            [partial] = partials(tmp_path, "out.txt")
            assert partial.read_text() == "new and partial\n"
            raise RuntimeError("midway")
    assert target.read_text() == OLD
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]

    class Full:  # a disk that fills up after the first block of lines
        def __init__(self, fh):
            self.fh, self.writes = fh, 0

        def write(self, text):
            self.writes += 1
            if self.writes > 1:
                raise OSError(28, "No space left on device")
            return self.fh.write(text)

    real = xdiv.io.trec.atomic_output

    def filling(*args, **kwargs):
        manager = real(*args, **kwargs)

        class Manager:
            def __enter__(self):
                return Full(manager.__enter__())

            def __exit__(self, *exc):
                return manager.__exit__(*exc)

        return Manager()

    monkeypatch.setattr(xdiv.io.trec, "atomic_output", filling)
    monkeypatch.setattr(xdiv.io.trec, "_LINES_PER_WRITE", 2)
    qrels = pd.DataFrame({"topic": "1", "intent": "1", "docno": list("abcde"), "level": 1})
    with pytest.raises(InputError, match=rf"^{re.escape(str(target))}: cannot write \(No "
                                         r"space left on device\)$"):
        xdiv.write_qrels(target, qrels)
    assert target.read_text() == OLD
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_sigint_in_process_raises_keyboardinterrupt_after_removing_the_temporary_file(
        tmp_path, python_sigint):
    target = tmp_path / "out.txt"
    target.write_text(OLD)
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt):
        with atomic_output(target) as fh:
            assert signal.getsignal(signal.SIGINT) not in before  # installed while writing
            fh.write("partial\n")
            signal.raise_signal(signal.SIGINT)
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
    assert target.read_text() == OLD
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_an_ignored_signal_is_left_ignored(tmp_path):
    previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        with atomic_output(tmp_path / "out.txt") as fh:
            assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
            fh.write("new\n")
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert (tmp_path / "out.txt").read_text() == "new\n"


def test_a_write_outside_the_main_thread_is_atomic_without_signal_handlers(tmp_path):
    before = signal.getsignal(signal.SIGINT)
    seen, errors = [], []

    def write():
        try:
            with atomic_output(tmp_path / "out.txt") as fh:
                seen.append(signal.getsignal(signal.SIGINT))
                fh.write("from a thread\n")
        except BaseException as exc:  # reported to the main thread below
            errors.append(exc)

    thread = threading.Thread(target=write)
    thread.start()
    thread.join()
    assert errors == [] and seen == [before]
    assert (tmp_path / "out.txt").read_text() == "from a thread\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_a_symbolic_link_is_followed_and_stays_a_link(tmp_path):
    (tmp_path / "data").mkdir()
    real = tmp_path / "data" / "qrels.txt"
    real.write_text(OLD)
    link = tmp_path / "link.txt"
    link.symlink_to(Path("data") / "qrels.txt")
    chain = tmp_path / "chain.txt"
    chain.symlink_to("link.txt")
    qrels = pd.DataFrame({"topic": "1", "intent": "1", "docno": ["a", "b"], "level": [1, 0]})
    xdiv.write_qrels(chain, qrels)
    assert chain.is_symlink() and link.is_symlink() and os.readlink(chain) == "link.txt"
    assert real.read_text() == "1 1 a 1\n1 1 b 0\n"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["chain.txt", "data", "link.txt",
                                                           "qrels.txt"]
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to(Path("data") / "new.txt")
    xdiv.write_qrels(dangling, qrels)
    assert dangling.is_symlink() and (tmp_path / "data" / "new.txt").read_text() == \
        real.read_text()
    into_nothing = tmp_path / "nowhere.txt"
    into_nothing.symlink_to(Path("missing") / "q.txt")
    with pytest.raises(InputError, match=rf"^{re.escape(str(into_nothing))}: the directory "
                                         rf"{re.escape(str(tmp_path / 'missing'))} does not "
                                         "exist$"):
        xdiv.write_qrels(into_nothing, qrels)
    loop = tmp_path / "loop.txt"
    loop.symlink_to("loop.txt")
    with pytest.raises(InputError, match="too many levels of symbolic links"):
        xdiv.write_qrels(loop, qrels)


def test_cli_refuses_an_output_that_links_to_an_input(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 1 a 1\n")
    (tmp_path / "link.txt").symlink_to("q.txt")
    proc = subprocess.run([sys.executable, "-m", "xdiv.cli", "convert", str(qrels), "-o",
                           str(tmp_path / "link.txt")], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr == f"xdiv: error: {tmp_path / 'link.txt'}: is an input of this command; " \
                          "write the output elsewhere\n"
    assert qrels.read_text() == "1 1 a 1\n"


def test_dev_stdout_is_written_directly(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 1 a 2\n1 2 a 1\n1 2 b 1\n")
    proc = subprocess.run([sys.executable, "-m", "xdiv.cli", "convert", str(qrels), "-o",
                           "/dev/stdout"], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "1 0 a 2\n1 0 b 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.txt"]
    # redirected to a regular file, the output goes where the descriptor's other writes go:
    # the file is neither truncated nor replaced
    script = ("import sys, pandas as pd, xdiv\n"
              "print('before', flush=True)\n"
              "xdiv.write_qrels('/dev/stdout', pd.DataFrame({'topic': ['1'], 'intent': ['1'], "
              "'docno': ['a'], 'level': [1]}))\n"
              "print('after')\n")
    out = tmp_path / "captured.txt"
    with open(out, "w") as fh:
        subprocess.run([sys.executable, "-c", script], stdout=fh, check=True)
    assert out.read_text() == "before\n1 1 a 1\nafter\n"
    assert output_target("/dev/stdout") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["captured.txt", "q.txt"]


def test_a_fifo_is_written_directly(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    xdiv.write_qrels(fifo, pd.DataFrame({"topic": "1", "intent": "1", "docno": ["a"],
                                         "level": 1}))
    reader.join(timeout=30)
    assert received == [b"1 1 a 1\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]
    with pytest.raises(InputError, match=r": not a regular file \(NetCDF cannot be written "
                                         r"to a pipe or a device\)$"):
        xdiv.to_netcdf(xr.Dataset({"a": ("x", [1])}), fifo)


def test_gzip_outputs_are_still_gzip(tmp_path):
    runs = pd.DataFrame({"run": "r", "topic": "1", "docno": ["a", "b"], "rank": [1, 2],
                         "score": [2.0, 1.0]})
    target = tmp_path / "run.txt.gz"
    target.write_text(OLD)
    xdiv.write_run(target, runs)
    data = target.read_bytes()
    assert data[:2] == b"\x1f\x8b"
    assert gzip.decompress(data).decode() == "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n"
    assert b"run.txt" in data[:30] and b"partial" not in data  # the header names the file
    xr.testing.assert_equal(xdiv.read_run(target), xdiv.build_runs(runs))
    assert [p.name for p in tmp_path.iterdir()] == ["run.txt.gz"]


def test_hierarchies_are_written_atomically(tmp_path):
    target = tmp_path / "h.txt"
    target.write_text(OLD)
    frame = pd.DataFrame({"topic": "1", "node": ["a", "b"], "parent": "", "weight": 0.5,
                          "intent": ["1", "2"]})
    xdiv.hierarchy.write_hierarchy(target, frame)
    assert target.read_text().splitlines()[1:] == ["1 a - 0.5 1", "1 b - 0.5 2"]
    assert [p.name for p in tmp_path.iterdir()] == ["h.txt"]


def test_netcdf_is_still_atomic(tmp_path):
    good = xr.Dataset({"a": ("x", [1, 2])})
    path = xdiv.to_netcdf(good, tmp_path / "r.nc")
    with pytest.raises(TypeError):  # an attribute NetCDF cannot hold, met while writing
        xdiv.to_netcdf(good.assign_attrs(big=2 ** 70), path)
    assert [p.name for p in tmp_path.iterdir()] == ["r.nc"]
    xr.testing.assert_identical(xdiv.open_dataset(path), good)
    (tmp_path / "link.nc").symlink_to("r.nc")
    xdiv.to_netcdf(good.assign(a=("x", [3, 4])), tmp_path / "link.nc")
    assert (tmp_path / "link.nc").is_symlink()
    assert xdiv.open_dataset(path)["a"].values.tolist() == [3, 4]
    with pytest.raises(InputError, match="is a directory, not a file"):
        xdiv.to_netcdf(good, tmp_path)
    with pytest.raises(InputError, match="does not exist"):
        xdiv.to_netcdf(good, tmp_path / "missing" / "r.nc")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.nc", "r.nc"]


def test_permissions_follow_the_replaced_file_or_the_umask(tmp_path):
    umask = os.umask(0)
    os.umask(umask)
    qrels = pd.DataFrame({"topic": "1", "intent": "1", "docno": ["a"], "level": 1})
    xdiv.write_qrels(tmp_path / "new.txt", qrels)
    assert stat.S_IMODE(os.stat(tmp_path / "new.txt").st_mode) == 0o666 & ~umask
    private = tmp_path / "private.txt"
    private.write_text(OLD)
    private.chmod(0o600)
    xdiv.write_qrels(private, qrels)
    assert stat.S_IMODE(os.stat(private).st_mode) == 0o600
    assert private.read_text() == "1 1 a 1\n"


def test_the_temporary_file_sits_beside_the_target_and_names_it(tmp_path):
    long_name = "q" * 250
    with atomic_path(tmp_path / long_name) as partial:
        name = os.path.basename(partial)
        assert os.path.dirname(partial) == str(tmp_path)
        assert name.startswith("." + "q" * 100 + PARTIAL_MARK)
        Path(partial).write_text("new\n")
    assert (tmp_path / long_name).read_text() == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == [long_name]


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write in a read-only folder")
def test_a_read_only_folder_is_a_one_line_error(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text(OLD)
    tmp_path.chmod(0o500)
    try:
        with pytest.raises(InputError, match=rf"^{re.escape(str(target))}: cannot write in "
                                             rf"{re.escape(str(tmp_path))} \(Permission "
                                             r"denied\)$"):
            xdiv.write_qrels(target, pd.DataFrame({"topic": "1", "intent": "1",
                                                   "docno": ["a"], "level": 1}))
    finally:
        tmp_path.chmod(0o700)
    assert target.read_text() == OLD

