"""The data model: one module per kind of dataset, with its schema, its builder and its
checks — collections (:mod:`~xdiv.core.collection`, adhoc views in
:mod:`~xdiv.core.adhoc`, intent hierarchies in :mod:`~xdiv.core.hierarchy`), runs
(:mod:`~xdiv.core.runs`), the judged cube (:mod:`~xdiv.core.judge`) and the result cubes
(:mod:`~xdiv.core.cube`). The model takes frames and arrays, never paths: reading files
is :mod:`xdiv.io`'s job."""
