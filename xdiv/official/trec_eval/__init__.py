"""TREC's trec_eval, reproduced byte for byte by ``xdiv trec_eval``: the full program
(:mod:`~xdiv.official.trec_eval.tool`), its measure table and options
(:mod:`~xdiv.official.trec_eval.table`), the path started without numpy
(:mod:`~xdiv.official.trec_eval.lean`), trec_eval's readers
(:mod:`~xdiv.official.trec_eval.input`, :mod:`~xdiv.official.trec_eval.text`), and
``trec_eval -q``'s three columns for ``xdiv evaluate`` (:mod:`~xdiv.official.trec_eval.lines`).

Nothing is imported here, so that ``xdiv trec_eval`` starts without numpy."""
