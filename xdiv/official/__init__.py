"""TREC's official diversity (ndeval) and graded (gdeval) evaluation tools, their output
to the byte: :mod:`xdiv.formats.ndeval` and :mod:`xdiv.formats.gdeval` under one name.

The names load on first use, so that importing a lean module of this package (what
``xdiv ndeval`` runs on plain files, what ``xdiv trec_eval`` starts with) does not load
pandas or xarray.
"""

from importlib import import_module

_NAMES = {"gdeval_measures": "..formats.gdeval", "gdeval_report": "..formats.gdeval",
          "NDEVAL_LABELS": "..formats.ndeval", "blocks_cube": "..formats.ndeval",
          "cut_runs": "..formats.ndeval", "ndeval": "..formats.ndeval",
          "ndeval_blocks": "..formats.ndeval", "ndeval_measures": "..formats.ndeval",
          "ndeval_report": "..formats.ndeval"}
"""Where each public name lives."""

__all__ = ["NDEVAL_LABELS", "blocks_cube", "cut_runs", "gdeval_measures", "gdeval_report",
           "ndeval", "ndeval_blocks", "ndeval_measures", "ndeval_report"]


def __getattr__(name: str):
    if name in _NAMES:
        value = getattr(import_module(_NAMES[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_NAMES))
