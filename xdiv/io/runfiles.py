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
from concurrent.futures import Future, ThreadPoolExecutor
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
from .ir_metadata import IR_METADATA_ATTR
from .provenance import recorded
from .trec import RunColumns, read_run_columns, read_run_table
from ._columns import give_back, give_back_after, text_size
from ..typing import DUPLICATES

__all__ = ["block_progress", "read_run", "read_run_blocks", "read_runs"]

_BLOCK_PREFIX = "xdiv-read-runs-"
"""The start of the dask key of a task that reads one block of run files."""

_READERS = 2
"""Threads parsing run files ahead of the one that ranks them."""

_VOCABULARY_BATCH = 1 << 22
"""Docnos gathered from files before the lazy first pass removes repeats among them."""


@recorded(roles={"path": "runs"})
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


@recorded(roles={"paths": "runs"})
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
        run to its file and to the tags of the file's first and last lines (JSON); when
        files open with an ir_metadata block (PRIMAD annotations, Breuer et al., SIGIR
        2022), ``ir_metadata`` maps their runs to the block's text as written (JSON; see
        :mod:`xdiv.io.ir_metadata`). Any other line starting with ``#`` is refused as a
        malformed run line.

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
        return read_run_table(path)

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
    """All files in memory. Groups of files are parsed, coded into their group's sorted
    docno vocabulary and ranked by worker threads while the caller takes the previous
    group; the groups' vocabularies are then merged into the dataset's (one hash pass and
    one sort of the distinct docnos) and the codes remapped, which keeps their order."""
    disagreements: list = []
    blocks = list(_coded_blocks(files, _split(files, None, _GROUP_BYTES), order, duplicates,
                                bar, disagreements))
    warn_rank_disagreements(disagreements, order)
    if len(blocks) == 1:
        words, maps = blocks[0].words, [None]
    else:
        encoded = pc.dictionary_encode(pa.chunked_array([b.words for b in blocks],
                                                        type=pa.string()))
        # the chunks share one dictionary
        words, rank_of = _sorted_words(encoded.chunks[-1].dictionary)
        maps = [rank_of[chunk.indices.to_numpy(zero_copy_only=False)]
                for chunk in encoded.chunks]
        del encoded, rank_of
    vocabulary = np.asarray(words.to_pylist(), dtype=object)
    recode = {g.name: code for b, code in zip(blocks, maps, strict=True) for g in b.grids}
    grids = _natural([g for b in blocks for g in b.grids])
    del blocks, words, maps  # the groups' vocabularies, before the grids are filled
    give_back_after(files)
    doc, score = _fill(grids, codes=[recode[g.name] for g in grids])
    runs = _assemble(grids, vocabulary, order, doc, score)
    give_back_after(files)  # the buffers the reading freed, which the allocators keep
    return runs


def _natural(grids: list[_FileGrids]) -> list[_FileGrids]:
    """``grids`` in the natural order of their run names."""
    by_name = {g.name: g for g in grids}
    return [by_name[name] for name in natural_sorted(list(by_name))]


def read_run_blocks(paths, *, order: Order = "score-docno-desc",
                    duplicates: Duplicates = "error", block: int | None = None,
                    progress: bool = False):
    """The run files ``paths`` as a sequence of small Runs datasets, one per block of
    files, read in one pass: a block is parsed, coded and ranked by worker threads while
    the caller works on the one before, and only two blocks' run lines are held at a
    time (the streaming evaluation, :func:`xdiv.engine.evaluate_files`).

    Each dataset is what :func:`read_runs` gives for the block's files (its own docno
    vocabulary, topics and depth), except that two files of different blocks giving the
    same run name are an error too, and that the warning about runs whose rank column
    and scores disagree is given once, for all the files, after the last block. ``block``
    is the number of files per block; by default blocks hold about
    :data:`STREAM_BLOCK_BYTES` of run text.
    """
    if order not in ORDERS:
        raise InputError(f"order must be one of {ORDERS}, not {order!r}")
    if duplicates not in DUPLICATES:
        raise InputError(f"duplicates must be 'error' or 'first', not {duplicates!r}")
    if block is not None and (isinstance(block, bool) or not isinstance(
            block, (int, np.integer)) or block < 1):
        raise InputError(f"block must be a positive integer, not {block!r}")
    files = _expand(paths)
    disagreements: list = []
    with tqdm(total=len(files), desc="reading runs", unit="file", disable=not progress,
              leave=False) as bar:
        for coded in _coded_blocks(files, _split(files, block, STREAM_BLOCK_BYTES), order,
                                   duplicates, bar, disagreements):
            grids = _natural(coded.grids)
            vocabulary = np.asarray(coded.words.to_pylist(), dtype=object)
            yield _assemble(grids, vocabulary, order, *_fill(grids))
            # give the block's buffers, and the scoring's, back to the system: the
            # allocators would keep them for the next blocks, and a stream's peak grow by them
            give_back_after([grid.path for grid in grids])
    warn_rank_disagreements(disagreements, order)


STREAM_BLOCK_BYTES = 32 << 20
"""Run text per block of :func:`read_run_blocks` by default (gzip files counted at
:data:`~xdiv.io._columns.GZIP_RATIO` times their size)."""

_GROUP_BYTES = 48 << 20
"""Run text per group of files coded together by the eager reader."""

def _split(files: list[str], count: int | None, size: int) -> list[list[str]]:
    """``files`` in blocks of ``count`` files, or of about ``size`` bytes of text."""
    if count is not None:
        return [files[k:k + count] for k in range(0, len(files), count)]
    blocks, held = [[]], 0
    for path in files:
        if blocks[-1] and held >= size:
            blocks.append([])
            held = 0
        blocks[-1].append(path)
        held += text_size(path)
    return blocks


@dataclass
class _Coded:
    """A block of run files ranked on the codes of the block's sorted docnos."""

    words: pa.Array
    grids: list
    runs: list | None = None
    """The files' columns, when the caller ranks them (the ranking may warn)."""
    codes: list | None = None
    found: list | None = None
    """Rank disagreements of the files (see :func:`xdiv.core.runs.rank_disagreements`)."""


def _parse(path: str) -> dict:
    return read_run_table(path)


def _code_block(items, order: Order, duplicates: Duplicates, rank: bool) -> _Coded:
    """(In a worker thread.) The files ``items`` (``(path, parsed future)``) coded into
    their sorted docnos together and, when ``rank`` (only errors can come of it, no
    warning), ranked."""
    runs = [read_run_columns(path, warn=False, table=parsed.result()) for path, parsed in items]
    encoded = pc.dictionary_encode(pa.chunked_array([run.docno for run in runs],
                                                    type=pa.string()),
                                   memory_pool=pa.system_memory_pool())
    # the chunks share one dictionary
    words, rank_of = _sorted_words(encoded.chunks[-1].dictionary)
    codes = [rank_of[chunk.indices.to_numpy(zero_copy_only=False)] for chunk in encoded.chunks]
    del encoded
    if not rank:
        return _Coded(words, [], runs=runs, codes=codes)
    found: list = []
    grids = []
    for k in range(len(runs)):
        grids.append(_file_grids(runs[k], codes[k], lambda c: words[int(c)].as_py(), order,
                                 duplicates, disagreements=found))
        runs[k] = codes[k] = None  # the columns are released once ranked
    give_back_after([path for path, _ in items])  # the ranking's, in this thread's arena
    return _Coded(words, grids, found=found)


class _InPlace:
    """The part of :class:`~concurrent.futures.ThreadPoolExecutor` that
    :func:`_coded_blocks` uses, each task run at once in the calling thread (its result,
    or what it raised, kept in its future as a worker thread would keep it)."""

    def submit(self, function, *args) -> Future:
        future: Future = Future()
        try:
            future.set_result(function(*args))
        except BaseException as exc:  # noqa: BLE001 - raised by the future's result()
            future.set_exception(exc)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Nothing runs after :meth:`submit` returns."""


def _coded_blocks(files: list[str], blocks: list[list[str]], order: Order,
                  duplicates: Duplicates, bar, disagreements: list):
    """Each block of ``blocks`` as a :class:`_Coded`, in order. Two threads parse the files
    (decompression and splitting release the GIL) and a third codes and ranks them, the
    next block while the caller takes the current one. Each file's errors are raised, and
    its warnings given, when its turn comes (in the order of ``files``); two files giving
    the same run name are an error."""
    rank = duplicates == "error"  # with "first", a kept duplicate warns: ranked here
    seen: dict[str, str] = {}
    # a single file has nothing to overlap with: no thread is worth starting for it
    parsers = ThreadPoolExecutor(max_workers=_READERS) if len(files) > 1 else _InPlace()
    coder = ThreadPoolExecutor(max_workers=1) if len(files) > 1 else _InPlace()
    pending: collections.deque = collections.deque()

    def submit(block: list[str]) -> None:
        items = [(path, parsers.submit(_parse, path)) for path in block]
        pending.append((items, coder.submit(_code_block, items, order, duplicates, rank)))

    upcoming = iter(blocks)
    try:
        submit(next(upcoming))
        while pending:
            items, coded = pending.popleft()
            following = next(upcoming, None)
            if following is not None:  # parsed and coded while this one is used
                submit(following)
            for path, parsed in items:
                run = read_run_columns(path, table=parsed.result())  # errors, warnings
                if run.name in seen:
                    raise InputError(f"{run.path}: run name {run.name!r} is also the name "
                                     f"of {seen[run.name]}")
                seen[run.name] = run.path
                bar.update(1)
            del items, run
            block = coded.result()
            if block.runs is not None:
                words = block.words
                block.grids = [_file_grids(run, code, lambda c: words[int(c)].as_py(), order,
                                           duplicates, disagreements=disagreements)
                               for run, code in zip(block.runs, block.codes)]
                block.runs = block.codes = None
            else:
                disagreements.extend(block.found)
            yield block
    finally:
        for pool in (parsers, coder):
            pool.shutdown(wait=True, cancel_futures=True)


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
    # the vocabulary (Python strings, sorted and distinct) is handed over as a variable:
    # xarray would otherwise pass an object array through a pandas string Series and back
    # (two conversions of every docno) to look for dates in it
    vocabulary = xr.Variable(("docid",), vocabulary, fastpath=True)
    runs = runs_dataset(doc, score, _lengths(grids, topics), [g.name for g in grids],
                         topics, vocabulary, order)
    runs.attrs["source"] = to_json({g.name: g.path for g in grids})
    runs.attrs["tags"] = to_json({g.name: g.tags for g in grids})
    blocks = {g.name: g.ir_metadata for g in grids if g.ir_metadata}
    if blocks:
        runs.attrs[IR_METADATA_ATTR] = to_json(blocks)
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
    ir_metadata: str = ""
    """The file's leading ir_metadata block (:mod:`xdiv.io.ir_metadata`)."""

    def outline(self) -> _FileGrids:
        """The same file without its grids (what the lazy first pass keeps)."""
        return _FileGrids(self.path, self.name, self.tags, self.topics, self.length,
                          self.depth, ir_metadata=self.ir_metadata)


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
                      length=length[0], depth=doc.shape[-1], doc=doc[0], score=score[0],
                      ir_metadata=run.ir_metadata)


def _sorted_codes(docno: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """The sorted distinct docnos of a column and each row's int32 code into them (code
    order is docno order: UTF-8 bytes sort as code points)."""
    encoded = pc.dictionary_encode(docno)
    words, rank_of = _sorted_words(encoded.dictionary)
    return words, rank_of[encoded.indices.to_numpy(zero_copy_only=False)]


def _sorted_words(words: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """Distinct docnos sorted, and the int32 rank of each of ``words`` among them."""
    by_text = pc.sort_indices(words, memory_pool=pa.system_memory_pool()).to_numpy()
    rank_of = np.empty(len(words), dtype=np.int32)
    rank_of[by_text] = np.arange(len(words), dtype=np.int32)
    return pc.take(words, by_text, memory_pool=pa.system_memory_pool()), rank_of


def _lengths(grids: list[_FileGrids], topics: list[str]) -> np.ndarray:
    length = np.zeros((len(grids), len(topics)), dtype=np.int64)
    for i, grid in enumerate(grids):
        length[i, pd.Index(topics).get_indexer(grid.topics)] = grid.length
    return length


_FILL_GIVE_BACK = 64 << 20
"""Bytes of files' grids released by :func:`_fill` between two give-backs."""


def _fill(grids: list[_FileGrids], topics: list[str] | None = None,
          depth: int | None = None, *, codes: list | None = None
          ) -> tuple[np.ndarray, np.ndarray]:
    """The ``doc`` and ``score`` grids of files over (run, topic, rank) (by default on
    the files' own extent); each file's grids are released once copied. ``codes[i]``,
    when given and not None, maps the codes of file ``i`` into the dataset's."""
    if topics is None:
        topics, depth = _extent(grids)
    # the pages of a run's grids are written (made resident) as its file's are released,
    # and the released ones given back every _FILL_GIVE_BACK bytes: the peak holds the
    # dataset's grids and a few files', not every file's twice
    doc = np.empty((len(grids), len(topics), depth), dtype=np.int32)
    score = np.empty((len(grids), len(topics), depth))
    index = pd.Index(topics)
    released = 0
    for i, grid in enumerate(grids):
        rows = index.get_indexer(grid.topics)
        code = grid.doc
        if codes is not None and codes[i] is not None:
            code = np.append(codes[i], np.int32(-1))[code]  # padding's -1 stays -1
        if np.array_equal(rows, np.arange(len(topics))) and grid.depth == depth:
            doc[i] = code
            score[i] = grid.score
        else:
            doc[i] = -1
            score[i] = np.nan
            doc[i, rows, :grid.depth] = code
            score[i, rows, :grid.depth] = grid.score
        released += grid.doc.nbytes + grid.score.nbytes
        grid.doc = grid.score = None
        del code
        if released >= _FILL_GIVE_BACK:
            give_back()
            released = 0
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
