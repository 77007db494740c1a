"""The official evaluation tools, their output to the byte, one package per tool: TREC's
ndeval (:mod:`xdiv.official.ndeval_tool`), gdeval (:mod:`xdiv.official.gdeval`) and
trec_eval (:mod:`xdiv.official.trec_eval`), and NTCIREVAL's ntcir_eval
(:mod:`xdiv.official.ntcireval`), beside what they share: printf's numbers
(:mod:`~xdiv.official.printf`), the CSV layout of ndeval and gdeval
(:mod:`~xdiv.official.layout`, :mod:`~xdiv.official.common`) and their plain path
(:mod:`~xdiv.official.plain`, which reads with :mod:`~xdiv.official.plain_input`).
The ndeval and gdeval functions are here under one name.

The names load on first use, so that importing a lean module of this package (what
``xdiv ndeval`` runs on plain files, what ``xdiv trec_eval`` and ``xdiv ntcir_eval`` start
with) does not load pandas or xarray.
"""

from importlib import import_module

_NAMES = {"gdeval_measures": ".gdeval.report", "gdeval_report": ".gdeval.report",
          "NDEVAL_LABELS": ".ndeval_tool.report", "blocks_cube": ".ndeval_tool.report",
          "cut_runs": ".ndeval_tool.report", "ndeval": ".ndeval_tool.report",
          "ndeval_blocks": ".ndeval_tool.report", "ndeval_measures": ".ndeval_tool.report",
          "ndeval_report": ".ndeval_tool.report"}
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
