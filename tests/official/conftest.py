"""Fixtures of the tests against the official tools."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ..conftest import built_once

SAMPLE_SPLIT = "DIN-splitqrels Dtest.DINprob Dtest.Dqrels q"
"""The command of :func:`sample_din_split`, as the tests would run it."""


@pytest.fixture(scope="session")
def sample_din_split(ntcireval_folder, tmp_path_factory) -> Path:
    """A folder where NTCIREVAL's ``DIN-splitqrels`` has split its diversity sample
    (:data:`SAMPLE_SPLIT`, under ``LC_ALL=C``): the topic list ``Dtest.DINprob.tid`` and
    one folder per topic with its ``Irelv``, ``din`` and ``Grelv`` files. The script
    starts several processes for each judgement: it runs once per session, and the tests
    that would run the same command on the same files copy what it wrote
    (:func:`copy_split`; issue 35 item 18)."""
    if shutil.which("gawk") is None:
        pytest.skip("NTCIREVAL's scripts need gawk")

    def split(folder: Path) -> Path:
        for name in ("DIN-splitqrels", "Dtest.DINprob", "Dtest.Dqrels"):
            shutil.copy2(ntcireval_folder / name, folder / name)
        env = {**os.environ, "LC_ALL": "C"}
        subprocess.run(["sh", *SAMPLE_SPLIT.split()], cwd=folder, env=env, check=True,
                       capture_output=True, timeout=600)
        return folder

    return built_once(tmp_path_factory, "sample-din-split", split)


def copy_split(split: Path, into: Path) -> None:
    """What :data:`SAMPLE_SPLIT` wrote in ``split`` (the topic list and the topic
    folders) copied into ``into``, merged with the topic folders already there."""
    topics = (split / "Dtest.DINprob.tid").read_text().split()
    assert topics, "DIN-splitqrels wrote no topic"
    shutil.copy2(split / "Dtest.DINprob.tid", into / "Dtest.DINprob.tid")
    for topic in topics:
        shutil.copytree(split / topic, into / topic, dirs_exist_ok=True)
