"""Text renderings of score cubes in the layouts other tools print: ndeval's CSV
(:mod:`xdiv.formats.ndeval`) and ``trec_eval -q``'s lines (:mod:`xdiv.formats.trec_eval`)."""

from .formats.ndeval import ndeval_csv
from .formats.trec_eval import trec_eval_lines

__all__ = ["ndeval_csv", "trec_eval_lines"]
