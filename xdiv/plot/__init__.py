"""Figures of score cubes and meta-evaluation results (matplotlib): the figures in
:mod:`~xdiv.plot.figures` (public as ``xdiv.plots``), built on the layout helpers of
:mod:`~xdiv.plot.layout`."""
