"""TREC's graded evaluation tool, gdeval, reproduced byte for byte by ``xdiv gdeval``
(:mod:`~xdiv.official.gdeval.report`; its public names are in :mod:`xdiv.official`).

Nothing is imported here, so that the plain path of ``xdiv gdeval`` loads neither pandas
nor xarray."""
