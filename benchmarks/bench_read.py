"""Benchmark: which parser reads TREC run files fastest (the choice behind xdiv.io).

Usage: python benchmarks/bench_read.py [--runs 50] [--topics 200] [--depth 1000]

Writes ``--runs`` synthetic run files (``xdiv.datasets.write_synthetic``), then parses
them, best of 2, with:

- pandas' C parser, string columns as Python objects (xdiv's reader before pyarrow);
- pyarrow's multi-threaded CSV reader as xdiv.io runs it (``xdiv.io.read_columns``: docnos
  as Arrow strings, topics and tags dictionary-encoded, every check included);
- the same, followed by coding every docno into one sorted vocabulary (what
  ``xdiv.read_runs`` does next).
"""

from __future__ import annotations

import argparse
import tempfile

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

import xdiv
from timing import best_time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--topics", type=int, default=200)
    parser.add_argument("--depth", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        files = xdiv.datasets.write_synthetic(tmp, n_topics=args.topics, n_runs=args.runs,
                                              depth=args.depth, seed=1)["runs"]
        names = ["topic", "q0", "docno", "rank", "score", "tag"]

        def pandas_c():
            for path in files:
                pd.read_csv(path, sep=" ", header=None, names=names, engine="c",
                            dtype={"topic": object, "q0": object, "docno": object,
                                   "tag": object, "rank": "int64", "score": "float64"},
                            na_filter=False, index_col=False)

        def arrow():
            return [xdiv.io.read_columns(path, xdiv.io.RUN_LAYOUT, optional_last=True)
                    for path in files]

        def arrow_coded():
            tables = arrow()
            encoded = pc.dictionary_encode(pa.chunked_array([t["docno"] for t in tables]))
            pc.sort_indices(encoded.chunks[-1].dictionary)

        lines = args.runs * args.topics * args.depth
        print(f"{args.runs} run files, {lines / 1e6:.1f} M lines (best of 2)")
        for label, fn in (("pandas C parser, object strings", pandas_c),
                          ("pyarrow (xdiv.io.read_columns)", arrow),
                          ("pyarrow + sorted docno codes", arrow_coded)):
            print(f"  {label:34s} {best_time(fn):6.2f} s")


if __name__ == "__main__":
    main()
