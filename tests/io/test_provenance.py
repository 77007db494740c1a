"""The provenance record every result carries (xdiv/io/provenance.py): what it holds,
and that it survives NetCDF (issue 37, item 2)."""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pytest
import xarray as xr

import xdiv
from xdiv.engine import evaluate_files
from xdiv.io.provenance import (compare_datasets, file_records, provenance_of,
                                replay_blockers)

QRELS = "1 1 d1 1\n1 1 d2 2\n1 2 d2 1\n1 2 d3 0\n2 1 d4 1\n2 1 d5 0\n"
RUNS = {"a.run": "1 Q0 d1 1 2.0 runA\n1 Q0 d2 2 2.0 runA\n1 Q0 d3 3 1.0 runA\n"
                 "2 Q0 d4 1 1.0 runA\n",
        "b.run": "1 Q0 d3 1 3.0 runB\n1 Q0 d1 2 2.0 runB\n2 Q0 d5 1 1.0 runB\n"
                 "2 Q0 d4 2 0.5 runB\n"}
MEASURES = ["nDCG@2", "Q(beta=0)@10", "P_10", "alpha-nDCG@5"]


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "probs.txt").write_text("1 1 0.7\n1 2 0.3\n2 1 1.0\n")
    for name, text in RUNS.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def _cube(**options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        collection = xdiv.read_qrels("qrels.txt", probabilities="probs.txt",
                                     renormalise=False)
        return xdiv.evaluate(xdiv.read_runs("*.run"), collection, MEASURES, **options)


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_score_cube_records_files_measures_options_and_call(files):
    cube = _cube(ties="expected", seed=5, missing="nan", judged_only=True, adhoc="count")
    record = provenance_of(cube)
    assert record["schema"] == 1 and record["xdiv"] == xdiv.__version__
    assert record["kind"] == "scores"
    assert record["call"]["function"] == "xdiv.engine.evaluate"
    arguments = record["call"]["arguments"]
    assert arguments["seed"] == 5 and arguments["ties"] == "expected"
    assert "progress" not in arguments  # changes no number
    # every input file: role, size and SHA-256 of its bytes
    found = {item["path"]: item for _, item in file_records(record)}
    assert set(found) == {"qrels.txt", "probs.txt", "a.run", "b.run"}
    for name, item in found.items():
        assert item["size"] == (files / name).stat().st_size
        assert item["sha256"] == _sha(files / name)
    assert {found[n]["role"] for n in ("a.run", "b.run")} == {"runs"}
    assert (found["qrels.txt"]["role"], found["probs.txt"]["role"]) == (
        "qrels", "probabilities")
    # the measures by their canonical names, with every parameter
    measures = {m["label"]: m for m in record["measures"]}
    assert list(measures) == MEASURES
    assert measures["P_10"]["canonical"] == "P@10"
    assert measures["Q(beta=0)@10"]["params"]["beta"] == 0
    assert measures["nDCG@2"]["params"]["adhoc"] == "count"
    assert measures["alpha-nDCG@5"]["params"]["alpha"] == 0.5
    # the options the numbers depend on
    options = record["options"]
    assert options["ties"] == "expected" and options["tie_seed"] == 5
    assert options["missing"] == "nan" and options["judged_only"] == 1
    assert options["adhoc"] == "count" and options["renormalise"] == 0
    assert options["order"] == "score-docno-desc"
    assert options["probabilities"] == "probs.txt"


def test_the_record_round_trips_through_netcdf(files):
    cube = _cube()
    path = xdiv.to_netcdf(cube, files / "scores.nc")
    back = xdiv.open_dataset(path)
    assert back.attrs["provenance"] == cube.attrs["provenance"]
    assert provenance_of(back) == provenance_of(cube)
    xr.testing.assert_identical(back, cube)


def test_a_derived_result_holds_its_parents_record(files):
    cube = _cube()
    power = xdiv.meta.discriminative_power(cube, B=50, seed=3)
    record = provenance_of(power)
    assert record["call"]["function"] == "xdiv.analysis.meta.discriminative_power"
    assert record["call"]["arguments"]["seed"] == 3
    parent = record["call"]["arguments"]["scores"]["parent"]
    mine = provenance_of(cube)
    mine.pop("content_sha256")
    assert parent == mine
    # read back from NetCDF, the cube is still the parent
    back = xdiv.open_dataset(xdiv.to_netcdf(cube, files / "scores.nc"))
    again = provenance_of(xdiv.meta.discriminative_power(back, B=50, seed=3))
    assert again["call"] == record["call"]
    assert replay_blockers(record) == []


def test_data_built_in_memory_or_changed_after_it_was_read_is_not_taken_for_the_file(files):
    cube = _cube()
    subset = xdiv.risk.georisk(cube.isel(run=[0]).assign_coords(run=["x"]))
    argument = provenance_of(subset)["call"]["arguments"]["scores"]
    assert list(argument) == ["dataset_sha256"]
    assert "built in memory" in replay_blockers(provenance_of(subset))[0]
    collection, runs = xdiv.datasets.synthetic(n_topics=3, n_runs=2, depth=5, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = xdiv.evaluate(runs, collection, ["nDCG@5"])
    assert replay_blockers(provenance_of(scores))  # synthetic data: nothing to reread


def test_streaming_records_what_it_computes(files):
    """evaluate_files is evaluate(read_runs(paths)): the same record, bit for bit."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        collection = xdiv.read_qrels("qrels.txt")
        streamed = evaluate_files("*.run", collection, ["nDCG@2"], block=1)
        eager = xdiv.evaluate(xdiv.read_runs("*.run"), collection, ["nDCG@2"])
    assert streamed.attrs["provenance"] == eager.attrs["provenance"]


def test_run_metadata_stays_in_its_own_attribute(files):
    (files / "a.run").write_text('# ir_metadata.start\n# tag: runA\n# ir_metadata.end\n'
                                 + RUNS["a.run"])
    cube = _cube()
    assert "ir_metadata" in cube.attrs
    assert "ir_metadata" not in cube.attrs["provenance"]


def test_every_analysis_records_its_call(files):
    cube = _cube()
    run = str(cube["run"].values[0])
    made = {
        "xdiv.analysis.compare.compare": xdiv.compare(cube, run),
        "xdiv.analysis.meta.tukey_hsd": xdiv.meta.tukey_hsd(cube, B=20),
        "xdiv.analysis.risk.trisk": xdiv.risk.trisk(cube, run),
        "xdiv.analysis.design.g_study": xdiv.design.g_study(cube),
    }
    for function, result in made.items():
        record = provenance_of(result)
        assert record["call"]["function"] == function
        assert record["kind"] == result.attrs.get("xdiv_kind", "")
        assert "parent" in record["call"]["arguments"]["scores"]


def _pair(values, other):
    return (xr.Dataset({"v": ("x", np.array(values))}),
            xr.Dataset({"v": ("x", np.array(other))}))


def test_comparison_is_bit_for_bit():
    nan = float("nan")
    same = compare_datasets(*_pair([1.0, nan, 0.0], [1.0, nan, 0.0]))
    assert ("v", True, "identical") in same
    _, ok, what = compare_datasets(*_pair([1.0, nan, -0.0], [1.0, nan, 0.0]))[0]
    assert not ok and what.startswith("differs (1 of 3 cells")  # -0.0 is not 0.0 in bits
    _, ok, what = compare_datasets(*_pair([0.1 + 0.2, 1.0], [0.3, 1.5]))[0]
    assert not ok and "2 of 2 cells, largest difference 0.5" in what
    _, ok, what = compare_datasets(*_pair([1.0, 2.0], [1.0, nan]))[0]
    assert not ok and "1 of 2 cells" in what
    _, ok, _ = compare_datasets(*_pair(["a", "b"], ["a", "c"]))[0]
    assert not ok


def test_a_dataset_s_fingerprint_reads_texts_as_texts_and_numbers_as_their_bytes():
    """Texts count as texts whatever NumPy stores them as (objects, fixed or variable
    width strings); numbers as the bytes of their array, read in place."""
    from xdiv.io.provenance import content_sha256

    words = ["d1", "doc-22", ""]
    stored = [np.array(words, dtype=dtype)
              for dtype in (object, "<U6", np.dtypes.StringDType())]
    stored.append(np.array(words, dtype=np.dtypes.StringDType()).copy())
    prints = {content_sha256(xr.Dataset({"docno": ("doc", values)})) for values in stored}
    assert len(prints) == 1
    numbers = np.arange(12, dtype=np.int32).reshape(3, 4).T  # not contiguous
    digest = hashlib.sha256()
    digest.update(b'["score", ["a", "b"], "int32", [4, 3]]')
    digest.update(np.ascontiguousarray(numbers).tobytes())
    assert content_sha256(xr.Dataset({"score": (("a", "b"), numbers)})) == digest.hexdigest()


def test_a_dask_backed_dataset_is_not_fingerprinted():
    """Reading a dask-backed dataset would compute it: no fingerprint, whether its
    variables share their chunks or not (xarray refuses to name chunks that differ)."""
    pytest.importorskip("dask")
    from xdiv.io.provenance import content_sha256

    data = xr.Dataset({"a": ("x", np.arange(6.0)), "b": ("x", np.ones(6))})
    assert content_sha256(data) is not None
    assert content_sha256(data.chunk({"x": 2})) is None
    mixed = xr.Dataset({"a": data["a"].chunk({"x": 2}), "b": data["b"].chunk({"x": 3})})
    with pytest.raises(ValueError):
        mixed.chunksizes  # noqa: B018 - what the fingerprint has to survive
    assert content_sha256(mixed) is None
    assert content_sha256(xr.Dataset({"a": data["a"].chunk({"x": 2}), "b": data["b"]})) is None
