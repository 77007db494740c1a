"""Score comparisons as publication tables, a methods paragraph and BibTeX entries
(:mod:`~xdiv.formats.tables`). The official tools' layouts (ndeval, gdeval, trec_eval)
are in :mod:`xdiv.official`."""
