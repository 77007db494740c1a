"""A pytest plugin that measures each test's CPU time (the test process's and its child
processes'), to keep the quick subset quick.

``pytest -p tests.cpu_times --cpu-times times.json`` writes ``[[seconds, node id], ...]``,
slowest first (with pytest-xdist, one file per worker: ``times.json.gw0``, ...).
``python -m tests.cpu_times times.json* > tests/slow_tests.txt`` then lists the tests over
0.3 s of CPU with their seconds: ``tests/conftest.py`` marks them ``slow`` and runs the test
files holding the slowest tests first, so that no long test is left to run alone at the end
on one core while the other cores are idle.
"""

from __future__ import annotations

import json
import os
import resource
import sys

import pytest

LIMIT = 0.3
"""Seconds of CPU above which a test belongs to the slow subset."""

_TIMES: list[tuple[float, str]] = []


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def pytest_addoption(parser):
    parser.addoption("--cpu-times", metavar="FILE",
                     help="write each test's CPU seconds (with child processes) to FILE")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    start = _cpu()
    yield
    _TIMES.append((round(_cpu() - start, 3), _node_id(item)))


def _node_id(item) -> str:
    """The test's node id as collected (pytest-xdist's ``--dist loadgroup`` appends
    ``@group`` to the tests of a group in its workers)."""
    mark = item.get_closest_marker("xdist_group")
    group = f"@{mark.args[0]}" if mark and mark.args else None
    return item.nodeid[:-len(group)] if group and item.nodeid.endswith(group) else item.nodeid


def pytest_sessionfinish(session):
    path = session.config.getoption("--cpu-times")
    if path:
        with open(path + os.environ.get("PYTEST_XDIST_WORKER", ""), "w") as out:
            json.dump(sorted(_TIMES, reverse=True), out)


def main(paths: list[str]) -> None:
    times: list[tuple[float, str]] = []
    for path in paths:
        with open(path) as data:
            times += json.load(data)
    print(f"# seconds of CPU (with child processes) of the tests over {LIMIT:g} s when last "
          "measured (python -m tests.cpu_times); tests/conftest.py marks them slow")
    print("\n".join(f"{seconds:.1f} {node}" for seconds, node in
                    sorted(times, key=lambda pair: pair[1]) if seconds > LIMIT))


if __name__ == "__main__":
    main(sys.argv[1:])
