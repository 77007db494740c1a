"""The ``Examples`` sections of the public entry points' docstrings, run as doctests.

Each example is self-contained (it imports what it uses and builds its data from
``xdiv.datasets`` or from tiny files in a temporary folder) and prints short, seeded,
rounded output, so that a change of behaviour shows up here as a changed number.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import warnings

import pytest

import xdiv

EXAMPLES = [
    ("xdiv.io.api", "read_qrels"),
    ("xdiv.io.runfiles", "read_runs"),
    ("xdiv.engine", "evaluate"), ("xdiv.engine", "evaluate_files"),
    ("xdiv.official.ndeval_tool.report", "ndeval"), ("xdiv.analysis.pools", "leave_one_run_out"),
    ("xdiv.analysis.meta", "bootstrap_test"),
    ("xdiv.analysis.meta", "tukey_hsd"),
    ("xdiv.analysis.risk", "urisk"),
    ("xdiv.analysis.risk", "trisk"),
    ("xdiv.analysis.models", "mixed"),
    ("xdiv.analysis.design", "topic_set_size"),
    ("xdiv.analysis.stats", "anova_table"), ("xdiv.analysis.stats", "standardise"),
    ("xdiv.options", "set_options"),
    ("xdiv.kernels.ties", "tie_starts"), ("xdiv.kernels.ties", "group_ends"),
    ("xdiv.io.prels", "read_prels"), ("xdiv.kernels.common", "printed"),
    ("xdiv.oneclick", "evaluate"), ("xdiv.io.oneclick", "read_nuggets"),
    ("xdiv.io.oneclick", "read_matches"),
    ("xdiv.io.ir_metadata", "run_metadata"),
]
"""``(module, function)`` of every docstring whose examples are checked."""

FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def _doctests(module_name: str, name: str) -> list[doctest.DocTest]:
    """The doctests of ``module_name.name``'s docstring (decorators unwrapped, so that
    failures point at the right line of the right file)."""
    module = importlib.import_module(module_name)
    function = inspect.unwrap(getattr(module, name))
    finder = doctest.DocTestFinder(recurse=False)
    return [test for test in finder.find(function, f"{module_name}.{name}", module=module,
                                         globs={})
            if test.examples]


@pytest.mark.parametrize(("module_name", "name"), EXAMPLES,
                         ids=[f"{module}.{name}" for module, name in EXAMPLES])
def test_docstring_examples(module_name, name):
    tests = _doctests(module_name, name)
    assert tests, f"{module_name}.{name} has no Examples section"
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report: list[str] = []
    with warnings.catch_warnings():
        # an example that makes xdiv warn shows a mistake, not a feature: fail on it
        warnings.simplefilter("error", xdiv.XdivWarning)
        for test in tests:
            runner.run(test, out=report.append)
    assert runner.tries > 0
    assert runner.failures == 0, "".join(report)
