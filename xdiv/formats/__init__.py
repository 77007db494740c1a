"""Score cubes and evaluations in the layouts of other tools, to the byte: TREC's ndeval
(:mod:`~xdiv.formats.ndeval`, whose CSV layout gdeval shares) and gdeval
(:mod:`~xdiv.formats.gdeval`), ``trec_eval -q`` (:mod:`~xdiv.formats.trec_eval`), with
numbers as printf prints them (:mod:`~xdiv.formats.printf`)."""
