"""The public API of xdiv as it stood before the package was split into layers (commit
cadafee), pinned: names and commands may be added, none removed or changed. Help texts
changed on purpose since are pinned anew, each with its reason (``repinned`` in the
file)."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import pathlib

import pytest

import xdiv
from xdiv.cli import main, parser

PINNED = json.loads((pathlib.Path(__file__).parents[1] / "data" / "public_api_cadafee.json")
                    .read_text())


def _help(args: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main(args)
    return out.getvalue()


def _commands() -> list[list[str]]:
    found = [[]]
    for action in parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.append([name])
                found += [[name, inner] for a in sub._actions
                          if isinstance(a, argparse._SubParsersAction) for inner in a.choices]
    return found


def _is_kept(old: str, new: str) -> bool:
    """Every line of ``old`` is in ``new``, in order (lines may be added between)."""
    lines = iter(new.splitlines())
    return all(any(line == candidate for candidate in lines) for line in old.splitlines())


def test_package_names_are_kept():
    assert set(PINNED["api"]["__all__"]) <= set(xdiv.__all__)
    for name in PINNED["api"]["__all__"]:
        assert getattr(xdiv, name) is not None


@pytest.mark.parametrize("module", sorted(PINNED["api"]["modules"]))
def test_public_modules_keep_their_names(module):
    via_attribute = getattr(xdiv, module)
    imported = importlib.import_module(f"xdiv.{module}")
    assert via_attribute is imported
    missing = [n for n in PINNED["api"]["modules"][module] if not hasattr(imported, n)]
    assert missing == []


def test_every_command_is_kept():
    now = {" ".join(["xdiv", *c, "--help"]) for c in _commands()}
    assert set(PINNED["help"]) <= now


@pytest.mark.parametrize("command", sorted(PINNED["help"]))
def test_help_texts_change_only_by_additions(command, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # the width the texts were pinned at
    args = command.split()[1:]
    assert _is_kept(PINNED["help"][command], _help(args))
