"""NTCIREVAL 190111 (Tetsuya Sakai's evaluation tool for NTCIR): its program
``ntcir_eval``, output byte for byte (:mod:`xdiv.official.ntcireval.program`), on the C
library's conventions it depends on (:mod:`xdiv.official.ntcireval.clib`)."""

from .program import Outcome, ntcir_eval

__all__ = ["Outcome", "ntcir_eval"]
