"""TREC's official diversity (ndeval) and graded (gdeval) evaluation tools, their output
to the byte: :mod:`xdiv.formats.ndeval` and :mod:`xdiv.formats.gdeval` under one name;
NTCIREVAL's ``ntcir_eval`` in :mod:`xdiv.official.ntcireval`.

The names are loaded on first use, so that a drop-in command of one tool (``xdiv
ntcir_eval``) starts without loading another's libraries."""

import importlib

_HOMES = {"gdeval_measures": "..formats.gdeval", "gdeval_report": "..formats.gdeval",
          "NDEVAL_LABELS": "..formats.ndeval", "blocks_cube": "..formats.ndeval",
          "cut_runs": "..formats.ndeval", "ndeval": "..formats.ndeval",
          "ndeval_blocks": "..formats.ndeval", "ndeval_measures": "..formats.ndeval",
          "ndeval_report": "..formats.ndeval"}

__all__ = ["NDEVAL_LABELS", "blocks_cube", "cut_runs", "gdeval_measures", "gdeval_report",
           "ndeval", "ndeval_blocks", "ndeval_measures", "ndeval_report"]


def __getattr__(name: str):
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
