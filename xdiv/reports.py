"""Text renderings of score cubes in the layouts other tools print: ndeval's CSV
(:mod:`xdiv.official.ndeval_tool.report`) and ``trec_eval -q``'s lines
(:mod:`xdiv.official.trec_eval.lines`)."""

from .official.ndeval_tool.report import ndeval_csv
from .official.trec_eval.lines import trec_eval_lines

__all__ = ["ndeval_csv", "trec_eval_lines"]
