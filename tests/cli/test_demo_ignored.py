"""``xdiv demo`` run in a checkout leaves git nothing to add: the folder it writes (its
default, :data:`xdiv.cli.demo.DEMO_FOLDER`) is in the repository's ``.gitignore``."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from xdiv.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # the demo meta-evaluates and draws its two plots: seconds
@pytest.mark.skipif(shutil.which("git") is None, reason="no git")
def test_demo_output_is_ignored_by_git(tmp_path, monkeypatch):
    # a fresh repository holding only the project's .gitignore (committed), then the demo
    shutil.copy(ROOT / ".gitignore", tmp_path / ".gitignore")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(tmp_path)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", ".gitignore"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "ignore"], check=True)
    monkeypatch.chdir(tmp_path)
    assert main(["-q", "demo", "--topics", "4", "--runs", "3"]) == 0
    written = sorted(p.relative_to(tmp_path).as_posix()
                     for p in (tmp_path / "xdiv-demo").iterdir())
    assert len(written) == 4, written  # scores, meta-evaluation and two plots
    status = subprocess.run([*git, "status", "--porcelain", "--untracked-files=all"],
                            capture_output=True, text=True, check=True).stdout
    assert status == "", f"git would add the demo's files:\n{status}"
