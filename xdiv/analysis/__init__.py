"""Statistics over score cubes: discriminative power and rank correlations
(:mod:`~xdiv.analysis.meta`), risk-sensitive evaluation (:mod:`~xdiv.analysis.risk`),
topic-set design (:mod:`~xdiv.analysis.design`), statsmodels follow-ups
(:mod:`~xdiv.analysis.stats`) and the User Disagreement Model (:mod:`~xdiv.analysis.udm`).
They are public as ``xdiv.meta``, ``xdiv.risk``, ``xdiv.design``, ``xdiv.stats`` and
``xdiv.udm``."""
