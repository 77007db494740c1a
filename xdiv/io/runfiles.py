"""Reading TREC run files into a Runs dataset, file by file: all at once, or lazily as a
dask-backed dataset for run sets larger than memory.

Each file is parsed into columns without a Python string per line
(:func:`xdiv.io.read_run_columns`), by two threads a few files ahead. All at once, the
docnos of every file are then coded together into the dataset's sorted vocabulary (one
hash pass, one sort), and each file's documents are ranked, checked and laid out as a
``topic × rank`` grid on those integer codes.

Lazily (``chunks={"run": k}``), a first pass reads every file once to learn what the
dataset's coordinates need (run names, topics, depth, the docno vocabulary) and raises
every error and warning of the files; the ``doc`` and ``score`` variables are then dask
arrays whose blocks of ``k`` runs re-read their files when computed (locally or on a
``dask.distributed`` cluster, whose workers must see the files at the same paths).
"""

from __future__ import annotations

import collections
import contextlib
import glob
import os
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import xarray as xr
from tqdm.auto import tqdm

from ..errors import InputError
from ..core.labels import natural_sorted, to_json
from ..core.runs import (Duplicates, Order, ORDERS, ranked_grids, runs_dataset,
                         warn_rank_disagreements)
from .trec import RUN_LAYOUT, RunColumns, read_run_columns
from ._columns import read_columns
from ..typing import DUPLICATES

__all__ = ["block_progress", "read_run", "read_runs"]

_BLOCK_PREFIX = "xdiv-read-runs-"
"""The start of the dask key of a task that reads one block of run files."""

_READERS = 2
"""Threads parsing run files ahead of the one that ranks them."""

_VOCABULARY_BATCH = 1 << 22
"""Docnos gathered from files before the lazy first pass removes repeats among them."""


def read_run(path, *, order: Order = "score-docno-desc",
             duplicates: Duplicates = "error") -> xr.Dataset:
    """Read one TREC run file (``topic Q0 docno rank score tag``, gzip allowed).

    Parameters
    ----------
    path : str or path-like
    order : {"score-docno-desc", "score-docno-asc", "rank"}
        Ranking convention (see :mod:`xdiv.core.runs`).
    duplicates : {"error", "first"}
        A docno retrieved twice for a topic is an error, or only its highest-ranked
        occurrence is kept (with a warning naming run, topic and docno).
    """
    return read_runs([path], order=order, duplicates=duplicates)


def read_runs(paths: str | os.PathLike | Iterable[str | os.PathLike], *,
              order: Order = "score-docno-desc", duplicates: Duplicates = "error",
              progress: bool = False, chunks: Mapping[str, int] | None = None) -> xr.Dataset:
    """Read several TREC run files into one Runs dataset.

    Parameters
    ----------
    paths : str, path-like or list of them
        Files, or a glob pattern (``"runs/*.gz"``).
    order, duplicates
        As in :func:`read_run`.
    progress : bool
        Show a progress bar on standard error, one step per file.
    chunks : {"run": k}, optional
        Return a dask-backed dataset in blocks of ``k`` runs, built without holding more
        than one file's lines at a time: a first pass reads every file (checking it and
        gathering its docnos and topics), and each block re-reads its files when it is
        computed. ``length`` and the coordinates are held in memory; ``doc`` and
        ``score`` are dask arrays. :func:`xdiv.evaluate` and :func:`xdiv.to_netcdf`
        then work block by block.

    Returns
    -------
    xarray.Dataset
        A Runs dataset (see :mod:`xdiv.core.runs`). Runs are labelled by their tag (or file
        name, see :func:`xdiv.io.read_run_frame`) and sorted by name; two files giving
        the same run name are an error. The attributes ``source`` and ``tags`` map each
        run to its file and to the tags of the file's first and last lines (JSON).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import xdiv
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name)
    >>> _ = (path / "a.run").write_text(
    ...     "1 Q0 d1 1 2.0 runA\\n1 Q0 d2 2 1.0 runA\\n2 Q0 d4 1 0.5 runA\\n")
    >>> _ = (path / "b.run").write_text("1 Q0 d3 1 3.0 runB\\n1 Q0 d2 2 3.0 runB\\n")
    >>> runs = xdiv.read_runs(str(path / "*.run"))
    >>> dict(runs.sizes)
    {'run': 2, 'topic': 2, 'rank': 2, 'docid': 4}
    >>> runs["length"].values.tolist()  # documents retrieved, (run, topic)
    [[2, 1], [2, 0]]
    >>> xdiv.runs_frame(runs)
        run topic docno  rank  score
    0  runA     1    d1     1    2.0
    1  runA     1    d2     2    1.0
    2  runA     2    d4     1    0.5
    3  runB     1    d3     1    3.0
    4  runB     1    d2     2    3.0
    >>> folder.cleanup()
    """
    if order not in ORDERS:
        raise InputError(f"order must be one of {ORDERS}, not {order!r}")
    if duplicates not in DUPLICATES:
        raise InputError(f"duplicates must be 'error' or 'first', not {duplicates!r}")
    files = _expand(paths)
    block = _block_size(chunks)
    bar = tqdm(total=len(files), desc="reading runs" if block is None else "checking runs",
               unit="file", disable=not progress, leave=False)
    with bar:
        if block is None:
            return _read_eager(files, order, duplicates, bar)
        return _read_lazy(files, block, order, duplicates, bar)


def _parsed(files: list[str]):
    """``(path, table)`` of each file in order, parsed (decompressed and split into
    columns, which releases the GIL) by a few threads ahead of the caller; a file's error
    is raised when its turn comes."""
    def parse(path):
        return read_columns(path, RUN_LAYOUT, optional_last=True)

    with ThreadPoolExecutor(max_workers=_READERS) as pool:
        ahead = collections.deque()
        for path in files:
            ahead.append((path, pool.submit(parse, path)))
            if len(ahead) > _READERS:  # at most a few files parsed ahead, for memory
                path, table = ahead.popleft()
                yield path, table.result()
        while ahead:
            path, table = ahead.popleft()
            yield path, table.result()


def _read_eager(files, order: Order, duplicates: Duplicates, bar) -> xr.Dataset:
    """All files in memory: their docnos are coded once, together, into the sorted
    vocabulary, then each file is ranked and laid out on the codes."""
    columns: dict[str, RunColumns] = {}
    disagreements: list = []
    for path, table in _parsed(files):
        run = read_run_columns(path, table=table)
        _check_name(run, columns)
        columns[run.name] = run
        bar.update(1)
    names = natural_sorted(list(columns))
    encoded = pc.dictionary_encode(pa.chunked_array([columns[n].docno for n in names],
                                                    type=pa.string()))
    # the chunks share one dictionary
    words, rank_of = _sorted_words(encoded.chunks[-1].dictionary)
    vocabulary = np.asarray(words.to_pylist(), dtype=object)
    grids = []
    for name, chunk in zip(names, encoded.chunks, strict=True):
        code = rank_of[chunk.indices.to_numpy(zero_copy_only=False)]
        grids.append(_file_grids(columns.pop(name), code, vocabulary.__getitem__, order,
                                 duplicates, disagreements=disagreements))
    warn_rank_disagreements(disagreements, order)
    return _assemble(grids, vocabulary, order, *_fill(grids))


def _read_lazy(files, block: int, order: Order, duplicates: Duplicates, bar) -> xr.Dataset:
    """A first pass checks every file and gathers the coordinates; the grids are dask
    arrays of ``block`` runs per chunk, each chunk re-reading its files."""
    outlines: dict[str, _FileGrids] = {}
    disagreements: list = []
    batch: list[pa.Array] = []
    for path, table in _parsed(files):
        run = read_run_columns(path, table=table)
        _check_name(run, outlines)
        words, code = _sorted_codes(run.docno)
        grid = _file_grids(run, code, lambda k: words[int(k)].as_py(), order, duplicates,
                           disagreements=disagreements)
        outlines[run.name] = grid.outline()
        bar.update(1)
        batch.append(words)
        if sum(len(w) for w in batch) > _VOCABULARY_BATCH:
            batch = [pc.unique(pa.chunked_array(batch, type=pa.string()))]
    warn_rank_disagreements(disagreements, order)
    grids = [outlines[name] for name in natural_sorted(list(outlines))]
    words, _ = _sorted_words(pc.unique(pa.chunked_array(batch, type=pa.string())))
    vocabulary = np.asarray(words.to_pylist(), dtype=object)
    topics, depth = _extent(grids)
    doc, score = _lazy_grids(grids, topics, depth, words, block, order, duplicates)
    return _assemble(grids, vocabulary, order, doc, score)


def _check_name(run: RunColumns, seen: Mapping) -> None:
    if run.name in seen:
        raise InputError(f"{run.path}: run name {run.name!r} is also the name of "
                         f"{seen[run.name].path}")


def _extent(grids: list[_FileGrids]) -> tuple[list[str], int]:
    """The topics (natural order) and the depth of the dataset of ``grids``."""
    topics = natural_sorted({t for grid in grids for t in grid.topics})
    return topics, max(max(grid.depth for grid in grids), 1)


def _assemble(grids, vocabulary, order, doc, score) -> xr.Dataset:
    topics, _ = _extent(grids)
    runs = runs_dataset(doc, score, _lengths(grids, topics), [g.name for g in grids],
                         topics, vocabulary, order)
    runs.attrs["source"] = to_json({g.name: g.path for g in grids})
    runs.attrs["tags"] = to_json({g.name: g.tags for g in grids})
    return runs


def _expand(paths) -> list[str]:
    if isinstance(paths, (str, os.PathLike)):
        text = os.fspath(paths)
        files = sorted(glob.glob(text)) if glob.has_magic(text) else [text]
        if not files:
            raise InputError(f"{text}: no file matches")
    else:
        files = [os.fspath(p) for p in paths]
    if not files:
        raise InputError("read_runs: no run files given")
    return files


def _block_size(chunks: Mapping[str, int] | None) -> int | None:
    if chunks is None:
        return None
    if not isinstance(chunks, Mapping) or set(chunks) != {"run"}:
        raise InputError(f"chunks must be {{'run': k}} (runs per block), not {chunks!r}")
    k = chunks["run"]
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InputError(f"chunks['run'] must be a positive integer, not {k!r}")
    return int(k)


@dataclass
class _FileGrids:
    """One run file ranked and laid out on integer docno codes."""

    path: str
    name: str
    tags: list[str]
    topics: list[str]
    length: np.ndarray
    """Documents retrieved per topic (int64)."""
    depth: int
    doc: np.ndarray | None = None
    """int32 docno codes over (topic, rank), -1 in padding."""
    score: np.ndarray | None = None

    def outline(self) -> _FileGrids:
        """The same file without its grids (what the lazy first pass keeps)."""
        return _FileGrids(self.path, self.name, self.tags, self.topics, self.length,
                          self.depth)


def _file_grids(run: RunColumns, code: np.ndarray, docno_of, order: Order,
                duplicates: Duplicates, *, warn: bool = True,
                disagreements: list | None = None) -> _FileGrids:
    """Check and rank one run file whose docnos are ``code`` (int32 codes whose order is
    the docnos' order; ``docno_of(code)`` names one in messages); see
    :func:`xdiv.core.runs.build_runs` for the checks and the ranking conventions."""
    topic_words = run.topic.dictionary.to_pylist()
    topic_rows = run.topic.indices.to_numpy(zero_copy_only=False)
    present = np.flatnonzero(np.bincount(topic_rows, minlength=len(topic_words)))
    topics = natural_sorted([topic_words[k] for k in present])
    t_code = pd.Index(topics).get_indexer(topic_words)[topic_rows].astype(np.int64)
    try:
        doc, score, length = ranked_grids(
            np.zeros(len(code), dtype=np.int64), t_code, code, run.score,
            run.rank.astype(np.float64), (1, len(topics)), order=order,
            duplicates=duplicates, run_labels=[run.name], topic_labels=topics,
            docno_of=docno_of, warn=warn, disagreements=disagreements)
    except InputError as exc:  # the file's rows: name the file
        raise InputError(f"{os.fspath(run.path)}: {exc}") from None
    return _FileGrids(path=run.path, name=run.name, tags=run.tags, topics=topics,
                      length=length[0], depth=doc.shape[-1], doc=doc[0], score=score[0])


def _sorted_codes(docno: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """The sorted distinct docnos of a column and each row's int32 code into them (code
    order is docno order: UTF-8 bytes sort as code points)."""
    encoded = pc.dictionary_encode(docno)
    words, rank_of = _sorted_words(encoded.dictionary)
    return words, rank_of[encoded.indices.to_numpy(zero_copy_only=False)]


def _sorted_words(words: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """Distinct docnos sorted, and the int32 rank of each of ``words`` among them."""
    by_text = pc.sort_indices(words).to_numpy()
    rank_of = np.empty(len(words), dtype=np.int32)
    rank_of[by_text] = np.arange(len(words), dtype=np.int32)
    return words.take(by_text), rank_of


def _lengths(grids: list[_FileGrids], topics: list[str]) -> np.ndarray:
    length = np.zeros((len(grids), len(topics)), dtype=np.int64)
    for i, grid in enumerate(grids):
        length[i, pd.Index(topics).get_indexer(grid.topics)] = grid.length
    return length


def _fill(grids: list[_FileGrids], topics: list[str] | None = None,
          depth: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The ``doc`` and ``score`` grids of files over (run, topic, rank) (by default on
    the files' own extent); each file's grids are released once copied."""
    if topics is None:
        topics, depth = _extent(grids)
    doc = np.full((len(grids), len(topics), depth), -1, dtype=np.int32)
    score = np.full((len(grids), len(topics), depth), np.nan)
    for i, grid in enumerate(grids):
        rows = pd.Index(topics).get_indexer(grid.topics)
        doc[i, rows, :grid.depth] = grid.doc
        score[i, rows, :grid.depth] = grid.score
        grid.doc = grid.score = None
    return doc, score


def _lazy_grids(grids, topics, depth, words, block, order, duplicates):
    """Dask ``doc`` and ``score`` arrays over (run, topic, rank), ``block`` runs per
    chunk, each chunk re-reading its files."""
    import dask
    import dask.array as da

    vocabulary = dask.delayed(words, pure=True)
    docs, scores = [], []
    for start in range(0, len(grids), block):
        part = [grid.path for grid in grids[start:start + block]]
        shape = (len(part), len(topics), depth)
        key = dask.base.tokenize(part, words, topics, depth, order, duplicates)
        loaded = dask.delayed(_load_block, pure=True, nout=2)(
            part, vocabulary, topics, depth, order, duplicates,
            dask_key_name=f"{_BLOCK_PREFIX}{key}")
        docs.append(da.from_delayed(loaded[0], shape, dtype=np.int32))
        scores.append(da.from_delayed(loaded[1], shape, dtype=np.float64))
    return da.concatenate(docs), da.concatenate(scores)


def _load_block(paths: list[str], words: pa.Array, topics: list[str], depth: int,
                order: Order, duplicates: Duplicates) -> tuple[np.ndarray, np.ndarray]:
    """Read the run files ``paths`` into ``doc`` and ``score`` grids coded into the
    dataset's sorted vocabulary ``words`` (the first pass gave the checks and warnings)."""
    # warnings.catch_warnings is not thread-safe: the readers are asked not to warn
    runs = [read_run_columns(path, warn=False) for path in paths]
    found = pc.index_in(pa.chunked_array([run.docno for run in runs], type=pa.string()),
                        value_set=words).combine_chunks()
    if found.null_count:
        raise InputError(f"{', '.join(paths)}: a run file changed after xdiv.read_runs "
                         "first read it")
    codes = np.split(found.to_numpy(zero_copy_only=False).astype(np.int32),
                     np.cumsum([len(run.docno) for run in runs])[:-1])
    grids = [_file_grids(run, code, lambda k: words[int(k)].as_py(), order, duplicates,
                         warn=False) for run, code in zip(runs, codes)]
    changed = [g.path for g in grids if g.depth > depth or not set(g.topics) <= set(topics)]
    if changed:
        raise InputError(f"{changed[0]}: the run file changed after xdiv.read_runs first "
                         "read it")
    return _fill(grids, topics, depth)


@contextlib.contextmanager
def block_progress(runs: xr.Dataset, *, enabled: bool = True, desc: str = "evaluating"):
    """Within the ``with`` block, a progress bar (on standard error) that advances by one
    step as each block of the lazily read ``runs`` is read, when results computed from
    them are computed by dask's local schedulers (on a ``dask.distributed`` cluster, use
    its dashboard or ``distributed.progress`` instead)."""
    blocks = 0 if runs["doc"].chunks is None else len(runs["doc"].chunks[0])
    if not enabled or not blocks:
        yield
        return
    from dask.callbacks import Callback

    bar = tqdm(total=blocks, desc=desc, unit="block", leave=False)
    done = set()

    class _Ticks(Callback):
        # dask may fuse a block's read into the tasks that use it and rename the task, but
        # the new name keeps the read's, and the key keeps the block's index along ``run``
        def _posttask(self, key, result, dsk, state, worker_id):
            name, block = (key[0], key[1]) if isinstance(key, tuple) else (key, key)
            if _BLOCK_PREFIX in str(name) and block not in done:
                done.add(block)
                bar.update(1)

    try:
        with _Ticks():
            yield
    finally:
        bar.close()
