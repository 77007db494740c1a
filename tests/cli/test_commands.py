"""The xdiv command line: demo, evaluate (formats), measures, errors."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import xdiv
from xdiv.cli import main


def test_demo_writes_a_score_cube(tmp_path, capsys):
    out = tmp_path / "demo.nc"
    assert main(["demo", "-o", str(out), "--topics", "8", "--runs", "4"]) == 0
    text = capsys.readouterr().out
    assert "alpha-nDCG@10" in text and str(out) in text
    cube = xdiv.open_dataset(out)
    assert cube.score.dims == ("metric", "run", "topic")
    assert cube.sizes["run"] == 4 and cube.sizes["topic"] == 8
    assert np.isfinite(cube.score.values).all()
    meta = xdiv.open_dataset(tmp_path / "demo-meta.nc")
    assert meta.power.dims == ("metric",) and meta.attrs["seed"] == 0
    assert (tmp_path / "demo-asl.png").stat().st_size > 1000
    assert (tmp_path / "demo-irec-dndcg.png").stat().st_size > 1000


def test_evaluate_ndeval_layout(tmp_path, capsys):
    (tmp_path / "q").write_text("1 1 a 1\n1 2 b 1\n2 1 x 1\n3 1 z 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3 s\n1 Q0 b 2 2 s\n3 Q0 z 1 1 s\n4 Q0 x 1 1 s\n")
    assert main(["-q", "evaluate", str(tmp_path / "q"), str(tmp_path / "r"), "-m",
                 "alpha-nDCG@5", "MAP-IA", "--format", "ndeval"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "runid,topic,alpha-nDCG@5,MAP-IA"
    rows = {line.split(",")[1]: line.split(",")[2:] for line in lines[1:]}
    assert set(rows) == {"1", "3", "4", "amean"}  # topic 2 not retrieved: no row
    assert rows["1"] == ["1.000000", "0.750000"]  # AP 1 for intent 1, 1/2 for intent 2
    assert rows["3"] == ["0.000000", "0.000000"]  # no relevant document: 0 as ndeval
    # amean over the retrieved topics in the qrels (1 and 3), as ndeval without -c
    assert rows["amean"] == ["0.500000", "0.375000"]


def test_evaluate_tsv_per_topic_and_netcdf(tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 a 2\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 b 1 3 s\n1 Q0 a 2 2 s\n")
    out = tmp_path / "s.nc"
    assert main(["evaluate", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "nDCG@2",
                 "P@1", "--per-topic", "--format", "tsv", "-o", str(out)]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0].split("\t") == ["run", "topic", "nDCG@2", "P@1"]
    assert text[1].split("\t")[:2] == ["s", "1"]
    assert float(text[1].split("\t")[2]) == pytest.approx(1 / np.log2(3))
    assert xdiv.open_dataset(out).score.shape == (2, 1, 1)


def test_unknown_measure_is_a_one_line_error(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 s\n")
    proc = subprocess.run([sys.executable, "-m", "xdiv.cli", "evaluate", str(tmp_path / "q"),
                           str(tmp_path / "r"), "-m", "nDGC@10"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1
    assert proc.stderr.startswith("xdiv: error: unknown measure 'nDGC'; did you mean nDCG")


def test_measures_page(capsys):
    assert main(["measures"]) == 0
    assert "| `alpha-nDCG` |" in capsys.readouterr().out


def test_meta_command(tmp_path, capsys):
    scores = tmp_path / "s.nc"
    assert main(["demo", "-o", str(scores), "--topics", "10", "--runs", "5"]) == 0
    out = tmp_path / "m.nc"
    assert main(["meta", str(scores), "-B", "200", "--seed", "3", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "bootstrap power" in text and "tukey power" in text
    result = xdiv.open_dataset(out)
    assert result.asl.dims == ("test", "metric", "run_a", "run_b")
    assert list(result.test.values) == ["bootstrap", "tukey"]
    assert result.attrs["seed"] == 3


def test_plot_command(tmp_path):
    scores = tmp_path / "s.nc"
    assert main(["-q", "demo", "-o", str(scores), "--topics", "8", "--runs", "4"]) == 0
    metas = tmp_path / "m.nc"
    assert main(["meta", str(scores), "-B", "100", "-o", str(metas)]) == 0
    concordance = ["-m", "alpha-nDCG@10", "D#-nDCG@10", "P+Q#@10", "--gold",
                   "I-rec@10"]
    for kind, source, extra in [("asl", metas, []), ("scatter", scores, []),
                                ("topics", scores, []), ("concordance", scores, concordance),
                                ("correlation", scores, [])]:
        out = tmp_path / f"{kind}.png"
        assert main(["plot", kind, str(source), "-o", str(out)] + extra) == 0
        assert out.read_bytes().startswith(b"\x89PNG") and out.stat().st_size > 1000
    assert main(["plot", "concordance", str(scores), "-m", "D#-nDCG@10", "--gold",
                 "I-rec@10", "-o", str(tmp_path / "c.png")]) == 2


def test_concordance_correlate_convert_and_trec_eval_format(tmp_path, capsys):
    scores = tmp_path / "s.nc"
    assert main(["-q", "demo", "--no-meta", "-o", str(scores), "--topics", "8",
                 "--runs", "4"]) == 0
    capsys.readouterr()
    assert main(["concordance", str(scores), "alpha-nDCG@10", "D#-nDCG@10",
                 "--gold", "I-rec@10", "--gold", "Ef-P@10"]) == 0
    text = capsys.readouterr().out
    assert "disagreements:" in text and "sign test p =" in text
    assert main(["correlate", str(scores), "--method", "tau_ap"]) == 0
    assert "D#-nDCG@10" in capsys.readouterr().out
    (tmp_path / "q").write_text("1 1 a 2\n1 2 a 1\n1 2 b 1\n1 0 c 0\n")
    assert main(["convert", str(tmp_path / "q"), "--adhoc", "count", "-o",
                 str(tmp_path / "adhoc")]) == 0
    assert sorted((tmp_path / "adhoc").read_text().split("\n")[:-1]) == [
        "1 0 a 2", "1 0 b 1", "1 0 c 0"]
    (tmp_path / "r").write_text("1 Q0 a 1 2 s\n1 Q0 b 2 1 s\n")
    capsys.readouterr()
    assert main(["evaluate", str(tmp_path / "adhoc"), str(tmp_path / "r"), "-m", "P@1",
                 "--format", "trec_eval"]) == 0
    assert capsys.readouterr().out.splitlines() == ["runid\tall\ts", "P@1\t1\t1.0000",
                                                    "P@1\tall\t1.0000"]


def test_convert_eih_and_evaluate_with_a_hierarchy(tmp_path, capsys):
    from xdiv.io.hierarchy import read_hierarchy

    tree = tmp_path / "tree.txt"
    tree.write_text("1 top - - -\n1 a top - 1\n1 b top - 2\n1 c - - 3\n")
    assert main(["convert", str(tree), "--eih", "-o", str(tmp_path / "eih.txt")]) == 0
    eih = read_hierarchy(tmp_path / "eih.txt")
    assert eih[["node", "parent", "intent"]].values.tolist() == [
        ["top", "-", ""], ["a", "top", "1"], ["b", "top", "2"], ["c", "-", ""],
        ["c+1", "c", "3"]]
    (tmp_path / "q").write_text("1 1 x 1\n1 2 y 1\n1 3 z 1\n")
    (tmp_path / "r").write_text("1 Q0 x 1 3 s\n1 Q0 y 2 2 s\n")
    capsys.readouterr()
    args = ["evaluate", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "N-rec@2", "I-rec@2",
            "--format", "tsv", "--hierarchy"]
    assert main(args + [str(tree)]) == 0
    # EIH nodes: top, a, b, c, c+1; x and y cover top, a, b -> 3/5; I-rec 2/3
    assert capsys.readouterr().out.splitlines()[1] == "s\t0.600000\t0.666667"
    assert main(args + [str(tree), "--hierarchy-kind", "OIH"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "s\t0.750000\t0.666667"
    assert main(["convert", str(tmp_path / "missing.txt"), "--eih", "-o",
                 str(tmp_path / "x")]) == 2
    assert "missing.txt: no such file" in capsys.readouterr().err


@pytest.fixture(scope="module")
def demo_cube(tmp_path_factory):
    """A demo score cube and its meta-evaluation file, made once for this module."""
    folder = tmp_path_factory.mktemp("demo")
    scores, metas = folder / "s.nc", folder / "m.nc"
    assert main(["-q", "demo", "--no-meta", "-o", str(scores), "--topics", "8",
                 "--runs", "4"]) == 0
    assert main(["-q", "meta", str(scores), "-B", "100", "-o", str(metas)]) == 0
    return scores, metas


@pytest.mark.parametrize("argv, message", [
    (["concordance", "{s}", "alpha-nDCG@10", "foo@10", "--gold", "I-rec@10"],
     "metric 'foo@10' is not in the score cube; it holds I-rec@10, alpha-nDCG@10"),
    (["concordance", "{s}", "alpha-nDCG@10", "D#-nDCG@10", "--gold", "Ef-P@5"],
     "metric 'Ef-P@5' is not in the score cube"),
    (["plot", "topics", "{s}", "-m", "foo", "-o", "{o}"],
     "metric 'foo' is not in the score cube"),
    (["plot", "diff", "{s}", "--runs", "run01", "nope", "-o", "{o}"],
     "run 'nope' is not in the score cube; it holds run01, run02"),
    (["plot", "diff", "{s}", "-o", "{o}"], "plot diff needs --runs RUN_A RUN_B, two different"),
    (["plot", "scatter", "{s}", "--cutoff", "5", "-o", "{o}"],
     "metric 'I-rec@5' is not in the score cube"),
])
def test_names_the_cube_lacks_are_one_line_errors(demo_cube, tmp_path, capsys, argv, message):
    scores, _ = demo_cube
    argv = [a.format(s=scores, o=tmp_path / "x.png") for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    about_the_cube = "--runs RUN_A" not in message  # errors about its contents name it
    prefix = f"xdiv: error: {scores}: " if about_the_cube else "xdiv: error: "
    assert err.startswith(prefix + message) and err.count("\n") == 1
    assert not (tmp_path / "x.png").exists()


def test_concordance_accepts_any_spelling_of_a_metric(demo_cube, capsys):
    scores, _ = demo_cube
    assert main(["concordance", str(scores), "alpha-nDCG(alpha=0.5)@10", "D#-nDCG@10",
                 "--gold", "I-rec@10"]) == 0
    spelled = capsys.readouterr().out.splitlines()[1:]
    assert main(["concordance", str(scores), "alpha-nDCG@10", "D#-nDCG@10",
                 "--gold", "I-rec@10"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == spelled


def test_plot_diff(demo_cube, tmp_path):
    scores, _ = demo_cube
    out = tmp_path / "diff.svg"
    assert main(["plot", "diff", str(scores), "-m", "D#-nDCG@10", "--runs", "run02",
                 "run01", "-o", str(out)]) == 0
    assert out.read_text().lstrip().startswith("<?xml") and out.stat().st_size > 1000


def test_measures_may_come_before_the_files(tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 b 1 3 s\n1 Q0 a 2 2 s\n")
    q, r = str(tmp_path / "q"), str(tmp_path / "r")
    outputs = []
    for argv in (["evaluate", q, r, "-m", "P@1", "RR"], ["evaluate", "-m", "P@1", "RR", q, r],
                 ["evaluate", q, "-m", "P@1", "RR", r]):
        assert main(["-q"] + argv + ["--format", "tsv"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] == outputs[2] == "run\tP@1\tRR\ns\t0.000000\t0.500000\n"
    assert main(["evaluate", "-m", "P@1", q]) == 2
    assert "needs a qrels file and at least one run file" in capsys.readouterr().err
    assert main(["evaluate", "-m", q, r]) == 2
    assert "no measure given" in capsys.readouterr().err


def test_run_with_too_many_fields_names_the_trec_layout(tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3 s extra\n")
    assert main(["evaluate", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "P@1"]) == 2
    assert capsys.readouterr().err == (
        f"xdiv: error: {tmp_path / 'r'}:1: expected 5 or 6 whitespace-separated fields "
        "(topic Q0 docno rank score run), found 7\n")


@pytest.fixture
def files(demo_cube, tmp_path):
    """Paths for the error cases: the demo cube and meta file, a qrels and a run file, a
    folder, a binary file and a missing folder."""
    scores, metas = demo_cube
    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 2 s\n1 Q0 b 2 1 s\n")
    (tmp_path / "bin.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (tmp_path / "p.txt").write_text("1 0 1\n")
    (tmp_path / "folder").mkdir()
    one_run = xdiv.open_dataset(scores).isel(run=[0])
    xdiv.to_netcdf(one_run, tmp_path / "one.nc")
    return {"s": scores, "m": metas, "q": tmp_path / "q.txt", "r": tmp_path / "r.txt",
            "bin": tmp_path / "bin.txt", "dir": tmp_path / "folder",
            "missing": tmp_path / "missing" / "out", "one": tmp_path / "one.nc",
            "t": tmp_path}


@pytest.mark.parametrize("argv, message", [
    ("evaluate {q} {dir} -m P@1", "{dir}: is a directory, not a file"),
    ("evaluate {q} {bin} -m P@1", "{bin}:1: not a UTF-8 text file (byte 0x89 at offset 0)"),
    ("evaluate {q} {r} -m P@1 -o {missing}.nc", "{missing}.nc: the directory"),
    ("evaluate {q} {r} -m P@1 -o {dir}", "{dir}: is a directory, not a file"),
    ("evaluate {q} {r} -m P@1 -o {r}", "{r}: is an input of this command"),
    ("evaluate -m P@1 RR {q} {t}/nonexistent.run",
     "{t}/nonexistent.run: neither a file nor a measure (unknown measure"),
    ("evaluate {q} {r} -m nDCG.10", "nDCG.10: neither a file nor a measure"),
    ("meta {s} -o {s}", "{s}: is an input of this command"),
    ("meta {s} -o {t}/new/", "{t}/new/: names a directory (it ends with '/'), not a file"),
    ("convert {t}/nosuch.txt -o {q}", "{t}/nosuch.txt: no such file"),
    ("evaluate {q} {r} -m P@1 --probabilities {t}/p.txt -o {t}/p.txt",
     "{t}/p.txt: is an input of this command"),
    ("meta {m}", "{m}: not a score cube (write one with 'xdiv evaluate -o')"),
    ("meta {one}", "{one}: meta-evaluation needs at least two runs"),
    ("correlate {m}", "{m}: not a score cube"),
    ("concordance {s} D#-nDCG@10 D#-nDCG@10 --gold I-rec@10",
     "{s}: the concordance test compares two different metrics"),
    ("convert {q} -o {q}", "{q}: is an input of this command"),
    ("convert {q} -o {missing}.txt", "{missing}.txt: the directory"),
    ("plot asl {s} -o {t}/a.png",
     "{s}: not a meta-evaluation file (write one with 'xdiv meta -o')"),
    ("plot topics {s} -o {t}/a.xyz", "{t}/a.xyz: name a .png, .svg or .pdf file"),
    ("plot topics {s} -o {t}/noext", "{t}/noext: name a .png, .svg or .pdf file"),
    ("plot diff {s} --runs run01 run01 -o {t}/d.png",
     "plot diff needs --runs RUN_A RUN_B, two different runs"),
])
def test_bad_input_and_output_are_one_line_errors(files, capsys, argv, message):
    argv = [a.format(**files) for a in argv.split()]
    before = sorted(p.name for p in files["t"].iterdir())
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("xdiv: error: " + message.format(**files)) and err.count("\n") == 1
    assert sorted(p.name for p in files["t"].iterdir()) == before  # nothing written


@pytest.mark.parametrize("argv, message", [
    ("meta {s} -B 0", "argument -B: must be at least 1, not 0"),
    ("meta {s} --sig-level 1.5",
     "argument --sig-level: must lie strictly between 0 and 1, not 1.5"),
    ("meta {s} --sig-level nan",
     "argument --sig-level: must lie strictly between 0 and 1, not nan"),
    ("meta {s} --alpha 1.5", "argument --alpha: must lie strictly between 0 and 1, not 1.5"),
    ("meta {s} --seed -1", "argument --seed: must be at least 0, not -1"),
    ("meta {s} --seed 99999999999999999999",
     "argument --seed: must be at most 9223372036854775807, not 99999999999999999999"),
    ("demo --topics 1", "argument --topics: must be at least 2, not 1"),
    ("demo --runs 0", "argument --runs: must be at least 2, not 0"),
    ("demo --seed -1", "argument --seed: must be at least 0, not -1"),
])
def test_out_of_range_numbers_are_usage_errors(files, capsys, argv, message):
    with pytest.raises(SystemExit) as stop:
        main([a.format(**files) for a in argv.split()])
    assert stop.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(message)


def test_quiet_after_the_subcommand_and_repeated_measures(files, capsys):
    q, r = str(files["q"]), str(files["t"] / "r2.txt")
    (files["t"] / "r2.txt").write_text("1 Q0 a 1 2 s\n2 Q0 a 1 1 s\n")  # topic 2 unjudged
    argv = ["evaluate", q, r, "-m", "P@1", "-m", "RR", "--format", "tsv"]
    assert main(argv) == 0
    assert "xdiv: warning: 1 retrieved topic(s) are not in the qrels" in capsys.readouterr().err
    assert main(argv + ["-q"]) == 0
    out = capsys.readouterr()
    assert out.out == "run\tP@1\tRR\ns\t1.000000\t1.000000\n" and out.err == ""


def test_duplicates_and_order_options(tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 b 1 2 s\n1 Q0 a 2 1 s\n1 Q0 b 3 0 s\n")
    args = ["evaluate", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "RR", "--format",
            "tsv"]
    assert main(args) == 2
    assert "--duplicates first on the command line" in capsys.readouterr().err
    assert main(args + ["--duplicates", "first"]) == 0
    out = capsys.readouterr()
    assert out.out.splitlines()[1] == "s\t0.500000"  # b (score 2) first, then a
    assert "kept only the highest-ranked occurrence" in out.err
    (tmp_path / "r").write_text("1 Q0 b 2 2 s\n1 Q0 a 1 1 s\n")  # ranks disagree with scores
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines()[1] == "s\t0.500000"
    assert main(args + ["--order", "rank"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "s\t1.000000"


def test_a_measure_name_stays_a_measure_even_when_a_file_has_its_name(files, capsys,
                                                                     monkeypatch):
    monkeypatch.chdir(files["t"])
    (files["t"] / "AP").write_text("1 Q0 a 1 1 other\n")
    assert main(["-q", "evaluate", "-m", "AP", "P@1", str(files["q"]), str(files["r"]),
                 "--format", "tsv"]) == 0
    assert capsys.readouterr().out.splitlines() == ["run\tAP\tP@1", "s\t1.000000\t1.000000"]


# ------------------------------------------------------------------ names, sets, labels

def _tiny(tmp_path):
    (tmp_path / "q").write_text("1 0 a 2\n1 0 b 1\n1 0 c 0\n2 0 x 1\n")
    (tmp_path / "r").write_text("1 Q0 b 1 3 s\n1 Q0 a 2 2 s\n1 Q0 c 3 1 s\n2 Q0 x 1 1 s\n")
    return str(tmp_path / "q"), str(tmp_path / "r")


def test_comma_lists_and_tool_names_label_the_cube_as_asked(tmp_path, capsys):
    qrels, run = _tiny(tmp_path)
    out = tmp_path / "s.nc"
    assert main(["-q", "evaluate", qrels, run, "-m", "P@10,AP", "ndcg_cut_10", "recip_rank",
                 "--per-topic", "--format", "tsv", "-o", str(out)]) == 0
    header = capsys.readouterr().out.splitlines()[0].split("\t")
    assert header == ["run", "topic", "P@10", "AP", "ndcg_cut_10", "recip_rank"]
    cube = xdiv.open_dataset(out)
    assert cube.canonical.values.tolist() == ["P@10", "AP", "nDCG(gain=linear)@10", "RR"]
    # every spelling selects the column
    from xdiv.core.cube import score_array
    for name in ("ndcg_cut.10", "nDCG(gain=linear)@10", "ndcg_cut_10"):
        assert score_array(cube, [name]).metric.values.tolist() == ["ndcg_cut_10"]
    # trec_eval's ndcg_cut.10 is linear gain: topic 1 has levels 1, 2, 0 for b, a, c
    dcg = 1 + 2 / np.log2(3)
    ideal = 2 + 1 / np.log2(3)
    assert cube.score.sel(metric="ndcg_cut_10", topic="1").item() == pytest.approx(dcg / ideal)


def test_measure_sets_on_the_command_line(tmp_path, capsys):
    (tmp_path / "q").write_text("1 1 a 1\n1 2 b 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2 s\n1 Q0 b 2 1 s\n")
    assert main(["-q", "evaluate", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "ndeval",
                 "--format", "tsv"]) == 0
    header = capsys.readouterr().out.splitlines()[0].split("\t")
    assert header[1:] == xdiv.measure_set("ndeval")
    assert "strec@5" in header and "I-rec@5" not in header
    assert main(["measures"]) == 0
    assert "- `gdeval`:" in capsys.readouterr().out


def test_strec_label_is_kept_and_selected(tmp_path):
    (tmp_path / "q").write_text("1 1 a 1\n1 2 b 1\n")
    col = xdiv.read_qrels(tmp_path / "q")
    runs = xdiv.build_runs(__import__("pandas").DataFrame(
        {"run": "s", "topic": "1", "docno": ["a", "b"], "score": [2.0, 1.0]}))
    cube = xdiv.evaluate(runs, col, ["strec@5", "alpha-nDCG@5"])
    assert cube.metric.values.tolist() == ["strec@5", "alpha-nDCG@5"]
    assert cube.score.sel(metric="strec@5").item() == 1.0
    from xdiv.core.cube import score_array
    assert score_array(cube, ["I-rec@5"]).metric.values.tolist() == ["strec@5"]
    with pytest.raises(xdiv.MeasureError, match="requested twice"):
        xdiv.evaluate(runs, col, ["strec@5", "I-rec@5"])


def test_unknown_and_unsupported_names_are_one_line_errors(tmp_path, capsys):
    qrels, run = _tiny(tmp_path)
    for words, expected in ((["P@10,AP,nope"], "unknown measure 'nope'"),
                            (["relstring"], "trec_eval relstring")):
        status = main(["evaluate", qrels, run, "-m", *words])
        err = capsys.readouterr().err
        assert status == 2, err
        assert len(err.strip().splitlines()) == 1 and expected in err


def test_rank_column_warning_names_the_run(trec2009_run_paths, capsys):
    root = trec2009_run_paths[0].rsplit("/runs/", 1)[0]
    ictnet = [p for p in trec2009_run_paths if p.endswith("ICTNETDivR2.gz")]
    agreeing = [p for p in trec2009_run_paths if p.endswith(("MSRABASE.gz", "uogTrDYCcsB.gz"))]
    assert main(["evaluate", f"{root}/qrels.diversity.gz", *ictnet, *agreeing,
                 "-m", "alpha-nDCG@20"]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "rank column" in line]
    assert len(warned) == 1
    assert warned[0].startswith("xdiv: warning: 1 run(s) rank some topics differently by rank "
                                "column than by score (run topics/all): ICTNETDivR2 41/50;")
    assert "--order rank" in warned[0] and "trec_eval" in warned[0]
    assert len(warned[0]) < 200  # one short line


def test_strict_topics_option(tmp_path, capsys):
    (tmp_path / "q").write_text("1 1 a 1\n1 2 b 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2 s\n")
    (tmp_path / "t.xml").write_text('<webtrack2011><topic number="1" type="faceted">'
                                    '<query>q</query><subtopic number="1" type="inv">x'
                                    '</subtopic><subtopic number="2" type="nav">y</subtopic>'
                                    '</topic></webtrack2011>')
    args = ["evaluate", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "DIN-nDCG@10",
            "--topics", str(tmp_path / "t.xml")]
    assert main(args) == 0 and "type 'inv'" in capsys.readouterr().err
    assert main(args + ["--strict-topics"]) == 2
    err = capsys.readouterr().err
    assert "type 'inv'" in err and len(err.strip().splitlines()) == 1
