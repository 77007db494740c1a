"""TREC's diversity evaluation tool, ndeval, reproduced byte for byte by ``xdiv ndeval``
(:mod:`~xdiv.official.ndeval_tool.report`; its public names, :func:`xdiv.official.ndeval`
among them, are in :mod:`xdiv.official`). The package is not named ``ndeval``, which is
the name of that function.

Nothing is imported here, so that the plain path of ``xdiv ndeval`` loads neither pandas
nor xarray."""
