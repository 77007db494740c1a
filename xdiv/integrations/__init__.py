"""Bridges from xdiv to other evaluation tools, each an optional module of its own.

* :mod:`xdiv.integrations.ir_measures`: an ir_measures provider (MacAvaney, Macdonald &
  Ounis, ECIR 2022), so that ``ir_measures.calc_aggregate`` and the tools built on it
  (PyTerrier's ``pt.Experiment``) compute xdiv's diversity measures. Importing it imports
  ir_measures; importing :mod:`xdiv` or this package does not.
"""
