"""Benchmark: which engine should read run files and judge them: xdiv's pyarrow path, or
DuckDB or polars doing the reading and a (topic, docno) hash join with the qrels.

Usage: python benchmarks/bench_engines.py [--sizes small large] [--repeat 2]
                                          [--engines xdiv duckdb polars] [--stream]
                                          [--data DIR] [--steps]

DuckDB and polars are not dependencies of xdiv: ``pip install duckdb polars`` first (an
engine that is not installed is left out). The files are those of ``bench_adhoc.py``
(``large``: 200 topics x 50 runs x depth 1000, 10 M lines, scores with two decimals).
Every engine runs as its own process (this script with ``--worker``) and does the same
work, from the files to the judged grid that every measure reduces: each run's ranked
list per topic (score descending, ties by docno descending, as trec_eval ranks) with the
qrels level of every ranked document (-1: unjudged; -2: past the list's end) as an int8
``(run, topic, rank)`` array.

* ``xdiv``: today's path, ``xdiv.read_qrels`` and ``xdiv.read_runs`` (pyarrow's parser,
  every docno coded into one sorted vocabulary, ranking) and the judging of
  ``xdiv.evaluate`` (``judged_cube``).
* ``duckdb``: one SQL query: ``read_csv`` of the files, a left hash join with the qrels on
  (topic, docno), ``row_number()`` over (run, topic) ordered by score and docno.
* ``polars``: the same as a lazy query (``scan_csv``, left join, sort, ``int_range`` over
  (run, topic)).

With ``--stream`` every engine also runs file block by file block (xdiv: its streaming
reader ``read_run_blocks``; DuckDB and polars: the same query on one file at a time),
holding one block's lines at a time. GNU time gives each process's wall time, CPU time
(user + system) and peak resident memory (the shortest times, the median peak, over
``--repeat`` alternating runs). The grids of every engine are checked to be identical,
bit for bit, to xdiv's eager grid. ``--steps`` prints instead, in this process, the CPU
and wall times of DuckDB's and polars' steps on all the files: parsing alone, parsing
and the join, then the ranking as well.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

COLUMNS = ["topic", "q0", "docno", "rank", "score", "tag"]


def grid_of(n_runs: int, topics: list[str], run: np.ndarray, topic: np.ndarray,
            rank: np.ndarray, level: np.ndarray, grid: np.ndarray | None = None
            ) -> np.ndarray:
    """Scatter ranked lines (indices and levels, -1 for unjudged) into the padded grid."""
    if grid is None:
        depth = int(rank.max(initial=-1)) + 1
        grid = np.full((n_runs, len(topics), depth), -2, dtype=np.int8)
    elif rank.size and int(rank.max()) >= grid.shape[2]:
        wider = np.full(grid.shape[:2] + (int(rank.max()) + 1,), -2, dtype=np.int8)
        wider[:, :, :grid.shape[2]] = grid
        grid = wider
    grid[run, topic, rank] = level
    return grid


def worker_xdiv(qrels: str, runs: list[str], stream: bool):
    import warnings

    import xdiv
    from xdiv.core.judge import judged_cube
    from xdiv.io.runfiles import read_run_blocks

    warnings.simplefilter("ignore", xdiv.XdivWarning)
    collection = xdiv.read_qrels(qrels)
    blocks = read_run_blocks(runs) if stream else [xdiv.read_runs(runs)]
    grids, names, topics = [], [], None
    for block in blocks:
        cube = judged_cube(block, collection)
        level = cube["level"].transpose("run", "topic", "rank", "intent").values.max(axis=3)
        grid = np.where(cube["judged"].transpose("run", "topic", "rank").values, level,
                        np.int8(-1)).astype(np.int8)
        ranked = np.arange(grid.shape[2]) < cube["length"].transpose("run", "topic").values[
            :, :, None]
        grids.append(np.where(ranked, grid, np.int8(-2)))
        names += [str(r) for r in cube["run"].values]
        topics = [str(t) for t in cube["topic"].values]
    depth = max(g.shape[2] for g in grids)
    grid = np.concatenate([np.pad(g, ((0, 0), (0, 0), (0, depth - g.shape[2])),
                                  constant_values=-2) for g in grids])
    return grid, names, topics


DUCKDB_QUERY = """
SELECT f.run, t.topic_index,
       (row_number() OVER (PARTITION BY f.run, t.topic_index
                           ORDER BY r.score DESC, r.docno DESC) - 1)::INTEGER AS rank,
       coalesce(q.level, -1)::TINYINT AS level
FROM read_csv($files, delim = ' ', header = false, filename = true, auto_detect = false,
              columns = {'topic': 'VARCHAR', 'q0': 'VARCHAR', 'docno': 'VARCHAR',
                         'rank': 'BIGINT', 'score': 'DOUBLE', 'tag': 'VARCHAR'}) AS r
JOIN files AS f ON r.filename = f.filename
JOIN topics AS t ON r.topic = t.topic
LEFT JOIN qrels AS q ON r.topic = q.topic AND r.docno = q.docno
"""


def worker_duckdb(qrels: str, runs: list[str], stream: bool):
    import duckdb

    con = duckdb.connect()
    con.execute("SET threads = 2")
    con.execute("""
        CREATE TABLE qrels AS
        SELECT topic, docno, max(greatest(level, 0))::TINYINT AS level
        FROM read_csv(?, delim = ' ', header = false, auto_detect = false,
                      columns = {'topic': 'VARCHAR', 'intent': 'VARCHAR',
                                 'docno': 'VARCHAR', 'level': 'INTEGER'})
        GROUP BY topic, docno""", [qrels])
    topics = sorted({t for (t,) in con.execute("SELECT DISTINCT topic FROM qrels").fetchall()},
                    key=_natural)
    con.execute("CREATE TABLE topics (topic VARCHAR, topic_index INTEGER)")
    con.executemany("INSERT INTO topics VALUES (?, ?)", [(t, i) for i, t in enumerate(topics)])
    con.execute("CREATE TABLE files (filename VARCHAR, run INTEGER)")
    con.executemany("INSERT INTO files VALUES (?, ?)", [(p, i) for i, p in enumerate(runs)])
    grid = None
    for part in ([[p] for p in runs] if stream else [runs]):
        out = con.execute(DUCKDB_QUERY, {"files": part}).fetchnumpy()
        grid = grid_of(len(runs), topics, np.asarray(out["run"]),
                       np.asarray(out["topic_index"]), np.asarray(out["rank"]),
                       np.asarray(out["level"]), grid)
    return grid, [_stem(p) for p in runs], topics


def worker_polars(qrels: str, runs: list[str], stream: bool):
    import polars as pl

    judged = (pl.scan_csv(qrels, separator=" ", has_header=False,
                          schema={"topic": pl.String, "intent": pl.String,
                                  "docno": pl.String, "level": pl.Int32})
              .group_by("topic", "docno").agg(pl.col("level").clip(0).max().cast(pl.Int8))
              .collect())
    topics = sorted(judged["topic"].unique().to_list(), key=_natural)
    topic_index = pl.DataFrame({"topic": topics,
                                "topic_index": np.arange(len(topics), dtype=np.int32)})
    files = pl.DataFrame({"path": runs, "run": np.arange(len(runs), dtype=np.int32)})
    schema = {"topic": pl.String, "q0": pl.String, "docno": pl.String, "rank": pl.Int64,
              "score": pl.Float64, "tag": pl.String}
    grid = None
    for part in ([[p] for p in runs] if stream else [runs]):
        out = (pl.scan_csv(part, separator=" ", has_header=False, schema=schema,
                           include_file_paths="path")
               .join(files.lazy(), on="path")
               .join(topic_index.lazy(), on="topic")
               .join(judged.lazy(), on=["topic", "docno"], how="left")
               .sort(["run", "topic_index", "score", "docno"],
                     descending=[False, False, True, True])
               .select("run", "topic_index",
                       pl.int_range(pl.len(), dtype=pl.Int32).over("run", "topic_index")
                       .alias("rank"),
                       pl.col("level").fill_null(-1))
               .collect())
        grid = grid_of(len(runs), topics, out["run"].to_numpy(),
                       out["topic_index"].to_numpy(), out["rank"].to_numpy(),
                       out["level"].to_numpy(), grid)
    return grid, [_stem(p) for p in runs], topics


def steps(qrels: str, runs: list[str]) -> None:
    """Print the CPU and wall seconds of each engine's steps on ``runs``, cumulative."""
    import time

    def timed(label: str, fn) -> None:
        cpu, wall = time.process_time(), time.perf_counter()
        fn()
        print(f"  {label}: CPU {time.process_time() - cpu:.2f} s, "
              f"wall {time.perf_counter() - wall:.2f} s", flush=True)

    if importlib.util.find_spec("duckdb") is not None:
        import duckdb

        con = duckdb.connect()
        con.execute("SET threads = 2")
        con.execute("""CREATE TABLE qrels AS SELECT topic, docno, max(level)::TINYINT AS level
            FROM read_csv(?, delim = ' ', header = false, auto_detect = false,
                          columns = {'topic': 'VARCHAR', 'intent': 'VARCHAR',
                                     'docno': 'VARCHAR', 'level': 'INTEGER'})
            GROUP BY topic, docno""", [qrels])
        source = DUCKDB_QUERY.split("FROM ", 1)[1].split(" AS r")[0]
        joined = (f"FROM {source} AS r LEFT JOIN qrels AS q "
                  "ON r.topic = q.topic AND r.docno = q.docno")
        print("duckdb, all files:")
        for label, sql in (
                ("parsing", f"SELECT count(*), sum(score) FROM {source}"),
                ("parsing, join", f"SELECT count(*), sum(q.level) {joined}"),
                ("parsing, join, ranking", "SELECT sum(rank) FROM (SELECT row_number() OVER "
                 "(PARTITION BY r.filename, r.topic ORDER BY r.score DESC, r.docno DESC) "
                 f"AS rank {joined})")):
            timed(label, lambda: con.execute(sql, {"files": runs}).fetchall())
    if importlib.util.find_spec("polars") is not None:
        import polars as pl

        judged = (pl.scan_csv(qrels, separator=" ", has_header=False,
                              schema={"topic": pl.String, "intent": pl.String,
                                      "docno": pl.String, "level": pl.Int32})
                  .group_by("topic", "docno").agg(pl.col("level").max()).collect())
        lines = pl.scan_csv(runs, separator=" ", has_header=False, schema=dict.fromkeys(
            COLUMNS, pl.String) | {"rank": pl.Int64, "score": pl.Float64})
        joined = lines.join(judged.lazy(), on=["topic", "docno"], how="left")
        print("polars, all files:")
        for label, query in (
                ("parsing", lines.select(pl.len(), pl.col("score").sum())),
                ("parsing, join", joined.select(pl.len(), pl.col("level").sum())),
                ("parsing, join, ranking", joined.sort(
                    ["tag", "topic", "score", "docno"], descending=[False, False, True, True])
                 .select(pl.int_range(pl.len()).over("tag", "topic").sum()))):
            timed(label, query.collect)


def _natural(label: str):
    return (0, int(label), "") if label.isdigit() else (1, 0, label)


def _stem(path: str) -> str:
    return Path(path.removesuffix(".gz")).stem


WORKERS = {"xdiv": worker_xdiv, "duckdb": worker_duckdb, "polars": worker_polars}


def aligned(path: Path, runs: list[str], topics: list[str]) -> np.ndarray:
    """A worker's grid in the given run and topic order."""
    saved = np.load(path)
    r = {name: i for i, name in enumerate(saved["runs"])}
    t = {name: i for i, name in enumerate(saved["topics"])}
    return saved["grid"][np.ix_([r[x] for x in runs], [t[x] for x in topics])]


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_adhoc import SIZES, make_files
    from processes import environment, measure, table

    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", nargs="+", default=list(SIZES), choices=list(SIZES))
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--engines", nargs="+", default=list(WORKERS), choices=list(WORKERS))
    parser.add_argument("--stream", action="store_true", help="also file block by block")
    parser.add_argument("--data", type=Path, help="folder keeping the generated files")
    parser.add_argument("--steps", action="store_true",
                        help="time DuckDB's and polars' steps in this process instead")
    args = parser.parse_args()
    if args.steps:
        with tempfile.TemporaryDirectory() as tmp:
            for size in args.sizes:
                print(f"{size}:")
                steps(*make_files((args.data or Path(tmp)) / size, size))
        return
    engines = [e for e in args.engines
               if e == "xdiv" or importlib.util.find_spec(e) is not None]
    for e in set(args.engines) - set(engines):
        print(f"{e} is not installed (pip install {e}); left out")
    env = environment()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = args.data or folder
        for size in args.sizes:
            qrels, runs = make_files(data / size, size)
            jobs = {}
            for engine in engines:
                for mode in ["eager", "stream"][:1 + args.stream]:
                    jobs[f"{engine}, {mode}"] = [
                        sys.executable, __file__, "--worker", engine, mode,
                        str(folder / f"{engine}-{mode}.npz"), qrels, *runs]
            results = measure(jobs, folder, args.repeat, env)
            mib = sum(os.path.getsize(p) for p in runs) / 2**20
            print(f"\n{size}: {len(runs)} run files, {mib:.0f} MiB, to the judged grid; "
                  f"whole processes, best of {args.repeat}, load average "
                  f"{os.getloadavg()[0]:.1f}\n")
            base = next(iter(jobs))
            table(results, base)
            reference = np.load(folder / f"{base.replace(', ', '-')}.npz")
            names, topics = list(reference["runs"]), list(reference["topics"])
            for name in jobs:
                grid = aligned(folder / f"{name.replace(', ', '-')}.npz", names, topics)
                same = grid.shape == reference["grid"].shape and np.array_equal(
                    grid, reference["grid"])
                print(f"{name}: grid {grid.shape} identical to {base}'s: {same}")


def worker(engine: str, mode: str, out: str, qrels: str, runs: list[str]) -> None:
    grid, names, topics = WORKERS[engine](qrels, runs, mode == "stream")
    np.savez(out, grid=grid, runs=np.array(names), topics=np.array(topics))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:])
    else:
        main()
