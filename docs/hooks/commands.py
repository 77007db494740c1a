"""MkDocs hook: the pages' ``xdiv`` commands start without paying xdiv's imports again.

The ``console`` examples run in a shell (markdown-exec runs ``sh -c``), and each ``xdiv``
they call would be a new interpreter importing numpy, pandas, xarray, scipy, matplotlib
and statsmodels anew: about two seconds of CPU for each of the site's commands. While the
site builds, ``xdiv`` on the shells' ``PATH`` is instead a small client that hands its
arguments, working folder, environment and standard streams (the file descriptors
themselves, so pipes, redirections and ``cd`` work as in any shell) to a server which has
imported those libraries once. The server forks a copy of itself for each command; the
copy takes over the client's streams, folder and environment, runs ``xdiv.cli.main`` as
the ``xdiv`` console script does (``sys.exit(main())``, the interpreter's own ending
included: its threads joined, its exit functions run, its standard streams flushed), and
the client ends with the copy's exit status. What a page shows is what the console script
prints. Only the interpreter's last step, tearing down the modules the server imported
(which copies most of the server's memory into each command's process and costs each
command about a quarter of a second of CPU), is skipped: once the standard streams are
flushed, the copy leaves at once with its status.

Where the platform has no ``fork`` or no file descriptor passing (Windows), or the socket
path is too long for the system, the commands run as they are, through the installed
``xdiv``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

PRELOADED = ("numpy", "pandas", "xarray", "scipy.stats", "matplotlib", "matplotlib.pyplot",
             "statsmodels.api", "netCDF4", "xdiv", "xdiv.cli", "xdiv.engine", "xdiv.io.api",
             "xdiv.io.netcdf")
"""What the server imports once, before serving: the libraries the commands import (not
dask, which a command imports only for chunked data, as the console script does)."""

CLIENT = """\
#!{python} -IS
import os, signal, socket, sys
link = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
link.connect({address!r})
streams = []
for fd in (0, 1, 2):
    try:
        os.fstat(fd)
        streams.append(fd)
    except OSError:  # a closed stream: the command gets /dev/null in its place
        streams.append(os.open(os.devnull, os.O_RDWR))
env = b"\\0".join(b"%s=%s" % item for item in os.environb.items())
words = [os.fsencode(word) for word in sys.argv]
parts = [os.fsencode(os.getcwd()), b"\\0".join(words), env]
body = b"".join(len(part).to_bytes(8, "big") + part for part in parts)
socket.send_fds(link, [len(body).to_bytes(8, "big")], streams)
link.sendall(body)
status = b""
while chunk := link.recv(64):
    status += chunk
kind, number = status.split()
if kind == b"signal":
    signal.signal(int(number), signal.SIG_DFL)
    os.kill(os.getpid(), int(number))
os._exit(int(number))
"""
"""The ``xdiv`` the pages' shells run while the site builds (``python -I -S``: it imports
nothing beyond the interpreter's own modules)."""

_status: list[int] = []
"""A command's exit status, once its ``main`` has returned or raised (empty in the
server)."""

_server: subprocess.Popen | None = None
_folder: tempfile.TemporaryDirectory | None = None
_path: str | None = None


def on_pre_build(config) -> None:
    """Start the server and put the client first on ``PATH``."""
    global _server, _folder, _path
    if not all(hasattr(module, name) for module, name in (
            (os, "fork"), (socket, "AF_UNIX"), (socket, "send_fds"))):
        return
    _folder = tempfile.TemporaryDirectory(prefix="xdiv-docs-")
    address = os.path.join(_folder.name, "xdiv.sock")
    if len(os.fsencode(address)) > 100:  # sockaddr_un holds 104-108 bytes
        _folder.cleanup()
        _folder = None
        return
    bin_folder = Path(_folder.name) / "bin"
    bin_folder.mkdir()
    client = bin_folder / "xdiv"
    client.write_text(CLIENT.format(python=sys.executable, address=address))
    client.chmod(0o755)
    _server = subprocess.Popen([sys.executable, __file__, address, str(bin_folder)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    if _server.stdout.readline() != b"ready\n":  # the imports failed: run commands as they are
        on_post_build(config)
        return
    _path = os.environ.get("PATH", "")
    os.environ["PATH"] = os.pathsep.join([str(bin_folder), _path])


def on_post_build(config) -> None:
    """Stop the server (it ends when its standard input closes) and restore ``PATH``."""
    global _server, _folder, _path
    if _path is not None:
        os.environ["PATH"] = _path
        _path = None
    if _server is not None:
        _server.stdin.close()
        _server.wait()
        _server.stdout.close()
        _server = None
    if _folder is not None:
        _folder.cleanup()
        _folder = None


def on_build_error(error) -> None:
    """Stop the server when the build fails too."""
    on_post_build(None)


def _receive(link: socket.socket) -> tuple[list[int], bytes, list[bytes], dict[bytes, bytes]]:
    """A client's streams, working folder, arguments and environment."""
    head, fds, _, _ = socket.recv_fds(link, 8, 3)
    while len(head) < 8:
        head += link.recv(8 - len(head))
    size = int.from_bytes(head, "big")
    body = bytearray()
    while len(body) < size:
        chunk = link.recv(size - len(body))
        if not chunk:
            raise EOFError("the client went away")
        body += chunk
    parts, at = [], 0
    while at < size:
        length = int.from_bytes(body[at:at + 8], "big")
        parts.append(bytes(body[at + 8:at + 8 + length]))
        at += 8 + length
    cwd, words, env = parts
    environment = dict(item.split(b"=", 1) for item in env.split(b"\0") if b"=" in item)
    return fds, cwd, words.split(b"\0"), environment


def _reap(options: int) -> bool:
    """Whether a finished waiting process was reaped (reaping them, rather than letting
    the system do it, counts their CPU time and their commands' in the build's)."""
    try:
        return os.waitpid(-1, options)[0] != 0
    except ChildProcessError:
        return False


def _serve(address: str) -> list[str] | None:
    """Serve commands until standard input closes; in a command's process, return its
    ``sys.argv`` (the server itself returns ``None``)."""
    import selectors

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(16)
    watch = selectors.DefaultSelector()
    watch.register(listener, selectors.EVENT_READ)
    watch.register(sys.stdin.fileno(), selectors.EVENT_READ)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        for key, _ in watch.select():
            if key.fileobj != listener:  # the build ended
                while _reap(0):
                    pass
                return None
            link, _ = listener.accept()
            if os.fork():
                link.close()
                while _reap(os.WNOHANG):
                    pass
                continue
            # the waiting process: reports the command's exit status to the client
            watch.close()
            listener.close()
            fds, cwd, words, environment = _receive(link)
            pid = os.fork()
            if pid == 0:
                link.close()
                for target, fd in enumerate(fds):
                    os.dup2(fd, target)
                for fd in fds:
                    if fd > 2:
                        os.close(fd)
                os.chdir(cwd)
                os.environb.clear()
                os.environb.update(environment)
                tempfile.tempdir = None  # found again from this command's TMPDIR
                return [os.fsdecode(word) for word in words]
            for fd in fds:
                os.close(fd)
            _, status = os.waitpid(pid, 0)
            if os.WIFSIGNALED(status):
                link.sendall(b"signal %d" % os.WTERMSIG(status))
            else:
                link.sendall(b"exit %d" % os.waitstatus_to_exitcode(status))
            link.close()
            os._exit(0)


def _leave() -> None:
    """The last exit function (registered before any other): in a command's process, with
    its streams flushed, leave with its status without tearing down the imported modules;
    where a stream cannot be flushed, the interpreter ends as usual and reports it."""
    if not _status:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:  # the interpreter's own flush fails again, says so and ends 120
        return
    os._exit(_status[0])


def _main(main) -> int | None:
    """``main()``, its exit status kept for ``_leave`` as the interpreter computes it from
    ``sys.exit(main())`` (``None`` is 0, a message 1, an uncaught exception 1)."""
    try:
        code = main()
    except SystemExit as stop:
        code = stop.code
        _status.append(code if isinstance(code, int) else 0 if code is None else 1)
        raise
    except BaseException:
        _status.append(1)
        raise
    _status.append(code if isinstance(code, int) else 0 if code is None else 1)
    return code


if __name__ == "__main__":
    import atexit
    import gc
    import importlib

    atexit.register(_leave)  # first registered, so the last to run
    sys.path[0] = sys.argv[2]  # as for a console script: the folder of ``xdiv`` first
    for module in PRELOADED:
        try:
            importlib.import_module(module)
        except ImportError:  # an optional one: the commands that need it say so
            pass
    gc.freeze()  # the commands' collections skip what the server made (and leave it shared)
    argv = _serve(sys.argv[1])
    if argv is not None:
        from xdiv.cli import main

        sys.argv = argv
        sys.exit(_main(main))
