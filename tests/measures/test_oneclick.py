"""xdiv.oneclick against NTCIREVAL's ``ntcir_eval 1click`` (190111), built from its tarball
(tests/conftest.py: ``ntcireval_folder``; skipped without it, make or gcc).

Every value is compared with what the unchanged program prints (3 decimals), and with a
second build of the same source whose ``%.3f`` formats print 17 significant digits
instead (``-precise``: the arithmetic is untouched), to 1e-9. The random cases (seeded)
mix weights with decimals, vital lengths longer than the patience (the S-measure's
denominator 0: ``inf`` and NaN), empty outputs, outputs of length 0, offsets beyond L and
beyond the output, every patience from 1 to 2000 and F-flat's beta from 0 to 3. The slow
campaign goes through NTCIREVAL's own scripts (1CLICK-splitnuggets, 1CLICK-splitmatch,
1CLICK-eval) with nuggets matched more than once and questions a run has no line for.
"""

from __future__ import annotations

import math
import os
import random
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

import xdiv
from xdiv.errors import AlignmentWarning, InputError, MeasureError, ParseError
from xdiv.kernels import oneclick as K
from xdiv.oneclick import evaluate, read_matches, read_nuggets

PRINTED = ("Recall", "W-recall", "S-measure", "S-flat", "T-measure", "T-flat", "F-flat")
"""What ``ntcir_eval 1click`` prints, in order (the names are xdiv's too)."""


@pytest.fixture(scope="module")
def precise(ntcireval_folder, tmp_path_factory) -> Path:
    """``ntcir_eval`` built from the same source with ``%.3f`` printing ``%.17g``."""
    folder = tmp_path_factory.mktemp("precise")
    source = (ntcireval_folder / "ntcir_eval.c").read_text(errors="surrogateescape")
    (folder / "ntcir_eval.c").write_text(source.replace("%.3f", "%.17g"),
                                         errors="surrogateescape")
    shutil.copy(ntcireval_folder / "ntcir_eval.h", folder)
    built = subprocess.run(["gcc", "-O", "-DOUTERR", "-o", "ntcir_eval", "ntcir_eval.c",
                            "-lm"], cwd=folder, capture_output=True, text=True)
    if built.returncode != 0:
        pytest.skip(f"ntcir_eval did not build: {built.stderr[-300:]}")
    return folder / "ntcir_eval"


def _printed(text: str) -> dict[str, dict[str, float]]:
    """``{outstr: {measure: value}}`` of ``ntcir_eval 1click -out OUTSTR`` outputs."""
    found: dict[str, dict[str, float]] = {}
    for line in text.splitlines():
        key, name, value = line.split()[:3]
        if name.endswith("=") and name[:-1] in PRINTED:
            found.setdefault(key, {})[name[:-1]] = float(value)
    return found


def _same(mine: float, theirs: float, tolerance: float) -> bool:
    if math.isnan(theirs) or math.isinf(theirs):
        return (math.isnan(mine) and math.isnan(theirs)) or mine == theirs
    return abs(mine - theirs) <= tolerance


def _case(rng: random.Random, folder: Path) -> dict:
    """Write a random .nuggets file and match files (nuggets matched several times,
    questions a run has no line for); their parameters."""
    nuggets, runs = [], {}
    topics = [f"Q{k:02d}" for k in range(rng.randrange(1, 4))]
    gold = {}
    for topic in topics:
        ids = rng.sample(range(1, 40), rng.randrange(1, 12))
        gold[topic] = [f"N{n}" for n in ids]
        for nugget in gold[topic]:
            weight = rng.choice([rng.randrange(1, 6), round(rng.uniform(0.05, 5), 2)])
            nuggets.append(f"{topic} {nugget} {weight} {rng.randrange(1, 80)}")
    rng.shuffle(nuggets)  # a question's lines need not be together
    for r in range(rng.randrange(1, 3)):
        lines = []
        for topic in topics:
            if rng.random() < 0.1:
                continue  # no line: an empty output
            lines.append(f"{topic} syslen= {rng.choice([0, rng.randrange(1, 700)])}")
            chosen = rng.sample(gold[topic], rng.randrange(0, len(gold[topic]) + 1))
            if chosen and rng.random() < 0.5:
                chosen += rng.choices(chosen, k=rng.randrange(1, 4))
            lines += [f"{topic} {n} {rng.randrange(0, 900)}" for n in chosen]
        if lines and rng.random() < 0.5:  # the length line need not come first
            lines.append(lines.pop(0))
        runs[f"RUN-{r}"] = lines
    (folder / "test.nuggets").write_text("".join(n + "\n" for n in nuggets))
    for run, lines in runs.items():
        (folder / run).write_text("".join(line + "\n" for line in lines))
    L = rng.choice([1, 5, 20, 100, 500, 1000, rng.randrange(1, 2000)])
    beta = rng.choice([1.0, 1.0, 0.0, 0.5, 2.0, round(rng.uniform(0, 3), 3)])
    return {"topics": topics, "gold": gold, "runs": list(runs), "L": L, "beta": beta}


def _run_script(lines: list[str], binary: Path, folder: Path) -> str:
    """The output of ``lines`` run by sh in ``folder``, ``ntcir_eval`` being ``binary``."""
    script = folder / "calls.sh"
    script.write_text("".join(line + "\n" for line in lines))
    env = {**os.environ, "PATH": f"{binary.parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["sh", str(script)], cwd=folder, capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _question(rng: random.Random, topic: str) -> tuple[list[str], list[str]]:
    """A random question: its nug lines and mat lines (each nugget matched at most once;
    no mat line at all for an empty output)."""
    nuggets = [f"N{n} {rng.choice([rng.randrange(1, 6), round(rng.uniform(0.05, 5), 2)])} "
               f"{rng.randrange(1, 80)}" for n in rng.sample(range(1, 40), rng.randrange(1, 12))]
    if rng.random() < 0.1:
        return nuggets, []
    chosen = rng.sample(nuggets, rng.randrange(0, len(nuggets) + 1))
    return nuggets, [f"syslen= {rng.choice([0, rng.randrange(1, 700)])}",
                     *(f"{n.split()[0]} {rng.randrange(0, 900)}" for n in chosen)]


def test_random_cases_agree_with_ntcir_eval(ntcireval_folder, precise, tmp_path):
    """Issue 36 item 5: 200 seeded random questions, each output scored by ``ntcir_eval
    1click`` (a patience and a beta drawn for each) and by one xdiv.oneclick.evaluate
    call on them all: each value against the printed 3 decimals and against the 17
    digits of the same arithmetic to 1e-9."""
    rng = random.Random(20260)
    nuggets, run, calls, asked = [], [], [], {}
    for k in range(200):
        topic = f"Q{k:03d}"
        nug, mat = _question(rng, topic)
        L = rng.choice([1, 5, 20, 100, 500, 1000, rng.randrange(1, 2000)])
        beta = rng.choice([1.0, 0.0, 0.5, 2.0, round(rng.uniform(0, 3), 3)])
        asked[topic] = (L, beta)
        (tmp_path / f"{topic}.nug").write_text("".join(n + "\n" for n in nug))
        (tmp_path / f"{topic}.mat").write_text("".join(m + "\n" for m in mat))
        nuggets += [f"{topic} {n}" for n in nug]
        run += [f"{topic} {m}" for m in mat]
        calls.append(f"ntcir_eval 1click -L {L} -beta {beta} -out {topic} "
                     f"-N {topic}.nug {topic}.mat")
    (tmp_path / "test.nuggets").write_text("".join(n + "\n" for n in nuggets))
    (tmp_path / "RUN").write_text("".join(m + "\n" for m in run))
    def name(measure: str, L: int, beta: float) -> str:
        return (f"{measure}(L={L},beta={beta})" if measure == "F-flat" else
                f"{measure}(L={L})" if measure.startswith("S-") else measure)

    names = sorted({name(m, L, beta) for L, beta in asked.values() for m in PRINTED})
    scores = evaluate(tmp_path / "test.nuggets", tmp_path / "RUN", names)
    table = scores["score"].sel(run="RUN").transpose("topic", "metric").to_pandas()
    compared, special = 0, 0
    for binary, tolerance in ((ntcireval_folder / "ntcir_eval", 0.0005 + 1e-9),
                              (precise, 1e-9)):
        printed = _printed(_run_script(calls, binary, tmp_path))
        for topic, (L, beta) in asked.items():
            for measure in PRINTED:
                mine, theirs = table.loc[topic, name(measure, L, beta)], printed[topic][measure]
                assert _same(mine, theirs, tolerance), (topic, measure, L, beta, mine, theirs)
                compared += 1
                special += not math.isfinite(theirs)
    assert compared == 2 * 200 * 7 and special  # inf and NaN S-measures among them


def _scripts(folder: Path, ntcireval: Path, binary: Path, runs: list[str], L: int,
             beta: float) -> str:
    """NTCIREVAL's 1CLICK pipeline on ``folder``'s files (README.1click): the 1cl output
    of every run, ``1CLICK-eval``'s patience and beta set to ``L`` and ``beta``."""
    for script in ("1CLICK-splitnuggets", "1CLICK-splitmatch", "1CLICK-eval"):
        text = (ntcireval / script).read_text()
        if script == "1CLICK-eval":
            text = text.replace("LPARAM=500", f"LPARAM={L}").replace(
                "FBETA=1.0", f"FBETA={beta}")
        (folder / script).write_text(text)
    env = {**os.environ, "PATH": f"{binary.parent}{os.pathsep}{os.environ['PATH']}",
           "LC_ALL": "C"}

    def sh(*args: str, stdin: str = "") -> None:
        done = subprocess.run(["sh", *args], cwd=folder, input=stdin, capture_output=True,
                              text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr

    sh("1CLICK-splitnuggets", "test.nuggets", "test.nug")
    listed = "".join(r + "\n" for r in runs)
    sh("1CLICK-splitmatch", "test.nuggets.tid", stdin=listed)
    sh("1CLICK-eval", "test.nuggets.tid", "test.nug", "test", stdin=listed)
    return "".join(f"{run}/{line}\n" for run in runs
                   for line in (folder / f"{run}.test.1cl").read_text().splitlines())


def _pipeline_compare(folder: Path, case: dict, text: str, tolerance: float) -> int:
    """Assert that xdiv.oneclick (``first_match="text"``) gives the values of the 1cl
    output ``text`` of :func:`_scripts`; the number compared."""
    printed = _printed(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        matches = read_matches([folder / r for r in case["runs"]], folder / "test.nuggets",
                               first_match="text")
    scores = evaluate(folder / "test.nuggets", matches, L=case["L"], beta=case["beta"])
    values = scores["score"].transpose("run", "topic", "metric").values
    compared = 0
    for r, run in enumerate(scores["run"].values):
        for t, topic in enumerate(scores["topic"].values):
            for m, measure in enumerate(PRINTED):
                theirs = printed[f"{run}/{topic}"][measure]
                assert _same(values[r, t, m], theirs, tolerance), \
                    (run, topic, measure, values[r, t, m], theirs, case)
                compared += 1
    return compared


def test_ntcireval_sample_agrees_with_its_scripts(ntcireval_folder, precise, tmp_path):
    """NTCIREVAL's 1CLICK sample (1C0-test.nuggets, 1CLICKRUN-D-1, 1CLICKRUN-D-2) through
    its own scripts, as README.1click runs them, printed and to 17 digits."""
    for script in ("1C0-test.nuggets", "1CLICKRUN-D-1", "1CLICKRUN-D-2"):
        shutil.copy(ntcireval_folder / script, tmp_path)
    (tmp_path / "test.nuggets").write_text((tmp_path / "1C0-test.nuggets").read_text())
    runs = ["1CLICKRUN-D-1", "1CLICKRUN-D-2"]
    case = {"topics": ["1C0-0001", "1C0-0002"], "runs": runs, "L": 500, "beta": 1.0}
    compared = 0
    for binary, tolerance in ((ntcireval_folder / "ntcir_eval", 0.0005 + 1e-9),
                              (precise, 1e-9)):
        text = _scripts(tmp_path, ntcireval_folder, binary, runs, 500, 1.0)
        compared += _pipeline_compare(tmp_path, case, text, tolerance)
    assert compared == 2 * 2 * 2 * 7
    scores = evaluate(tmp_path / "1C0-test.nuggets", [tmp_path / r for r in runs], L=500)
    assert scores["n_nuggets"].values.tolist() == [3, 4]  # "#nuggets= 3", "#nuggets= 4"
    assert scores["n_matched"].values.tolist() == [[2, 1], [1, 1]]
    assert scores["length"].values.tolist() == [[500, 10], [10, 500]]


def test_splitmatch_keeps_the_first_offset_as_text(ntcireval_folder, tmp_path):
    """A nugget matched at offsets 7 and 30: 1CLICK-splitmatch keeps 30 (it sorts the
    offsets as text), which first_match="text" reproduces; "position" keeps 7."""
    (tmp_path / "test.nuggets").write_text("Q1 N1 2 5\nQ1 N2 1 3\n")
    (tmp_path / "RUN").write_text("Q1 syslen= 100\nQ1 N1 7\nQ1 N1 30\nQ1 N2 5\n")
    case = {"topics": ["Q1"], "runs": ["RUN"], "L": 50, "beta": 1.0}
    text = _scripts(tmp_path, ntcireval_folder, ntcireval_folder / "ntcir_eval", ["RUN"],
                    50, 1.0)
    assert _pipeline_compare(tmp_path, case, text, 0.0005 + 1e-9) == 7
    by_position = evaluate(tmp_path / "test.nuggets", tmp_path / "RUN", "S", L=50)
    by_text = evaluate(tmp_path / "test.nuggets",
                       read_matches(tmp_path / "RUN", tmp_path / "test.nuggets",
                                    first_match="text"), "S", L=50)
    # (2 * (50 - 7) + 45) / (2 * 45 + 42) against (2 * (50 - 30) + 45) / (2 * 45 + 42)
    assert float(by_position["score"].squeeze()) == pytest.approx(131 / 132)
    assert float(by_text["score"].squeeze()) == pytest.approx(85 / 132)


@pytest.mark.slow
def test_random_pipelines_agree_with_ntcireval_scripts(ntcireval_folder, precise, tmp_path):
    """Issue 36 item 5, the large campaign: 40 seeded random cases (nuggets matched
    several times, questions without lines) through 1CLICK-splitnuggets,
    1CLICK-splitmatch and 1CLICK-eval, against xdiv.oneclick with first_match="text",
    printed (3 decimals) and to 17 digits (1e-9)."""
    rng = random.Random(36005)
    compared = 0
    for k in range(40):
        folder = tmp_path / f"case{k}"
        folder.mkdir()
        case = _case(rng, folder)
        binary, tolerance = ((ntcireval_folder / "ntcir_eval", 0.0005 + 1e-9) if k % 2
                             else (precise, 1e-9))
        text = _scripts(folder, ntcireval_folder, binary, case["runs"], case["L"],
                        case["beta"])
        compared += _pipeline_compare(folder, case, text, tolerance)
    assert compared > 600


# ------------------------------------------------------------------------- the API

def _sample(tmp_path: Path) -> tuple[Path, Path]:
    nuggets = tmp_path / "test.nuggets"
    nuggets.write_text("Q1 N1 3 10\nQ1 N2 1 5\nQ1 N3 3 5\nQ2 N1 2 2\nQ2 N2 6 5\n")
    run = tmp_path / "RUN"
    run.write_text("Q1 syslen= 500\nQ1 N1 100\nQ1 N2 50\nQ2 syslen= 10\nQ2 N2 400\n")
    return nuggets, run


def test_the_kernels_vectorise_over_runs_and_topics():
    """One call scores a (run, topic, nugget) block, each cell as scored alone; L
    broadcasts too."""
    rng = np.random.default_rng(5)
    weight = rng.integers(1, 5, (4, 6)).astype(float)
    weight[1, 3:] = 0.0  # a question with three nuggets
    vital = np.where(weight > 0, rng.integers(1, 30, (4, 6)), 0)
    offset = np.where(rng.random((3, 4, 6)) < 0.5, rng.integers(0, 300, (3, 4, 6)), np.nan)
    offset[:, 1, 3:] = np.nan
    length = rng.integers(0, 200, (3, 4))
    block = K.f_flat(weight, vital, offset, length, 100, 2.0)
    for r in range(3):
        for t in range(4):
            alone = K.f_flat(weight[t], vital[t], offset[r, t], length[r, t], 100, 2.0)
            assert block[r, t] == alone
    patiences = np.array([[10], [100], [1000]])  # (L, 1) against (topic,)
    assert K.s_measure(weight, vital, offset[0], patiences).shape == (3, 4)
    moved = K.s_measure(np.moveaxis(weight, 1, 0), np.moveaxis(vital, 1, 0),
                        np.moveaxis(offset, 2, 0), 100, axis=0)
    np.testing.assert_array_equal(moved, K.s_measure(weight, vital, offset, 100))


def test_measure_names_and_parameters(tmp_path):
    nuggets, run = _sample(tmp_path)
    scores = evaluate(nuggets, run, ["S(L=100)", "S-measure", "F-flat(beta=2)", "T"], L=500,
                      beta=0.5)
    assert scores["metric"].values.tolist() == ["S(L=100)", "S-measure", "F-flat(beta=2)",
                                                "T"]
    assert scores["canonical"].values.tolist() == ["S-measure(L=100)", "S-measure(L=500)",
                                                   "F-flat(L=500,beta=2)", "T-measure"]
    assert scores["params"].values.tolist()[2] == '{"L": 500, "beta": 2.0}'
    for bad, message in [
            ("Recall(L=5)", "unknown parameter 'L'"), ("S(L=0)", "bad value 0"),
            ("S(L=1.5)", "bad value 1.5"), ("F-flat(beta=-1)", "bad value -1"),
            ("S(alpha=1)", "unknown parameter 'alpha'"), ("nDCG@10", "unknown 1CLICK"),
            ("S-mesure", "did you mean S-measure"), ("T@5", "takes no cutoff")]:
        with pytest.raises(MeasureError, match=message) as error:
            evaluate(nuggets, run, [bad], L=500)
        assert "\n" not in str(error.value)
    with pytest.raises(MeasureError, match="needs the patience L"):
        evaluate(nuggets, run, ["S-flat"])
    with pytest.raises(MeasureError, match="bad value 0"):
        evaluate(nuggets, run, L=0)
    with pytest.raises(MeasureError, match="evaluate: bad value -1 for parameter 'beta'"):
        evaluate(nuggets, run, ["Recall"], beta=-1)
    with pytest.raises(MeasureError, match="asked for twice"):
        evaluate(nuggets, run, ["S", "S-measure"], L=5)
    assert evaluate(nuggets, run, ["Recall", "T-flat"])["score"].shape == (2, 1, 2)


def test_xdiv_evaluate_points_to_oneclick():
    with pytest.raises(MeasureError, match="xdiv.oneclick.evaluate"):
        xdiv.parse_measure("S-measure(L=500)")
    with pytest.raises(MeasureError, match="needs a cutoff"):  # the registry's Recall
        xdiv.parse_measure("Recall")


def test_the_cube_is_a_score_cube(tmp_path):
    """summarize, compare, to_frame and NetCDF take the 1CLICK cube."""
    nuggets, run = _sample(tmp_path)
    (tmp_path / "RUN2").write_text("Q1 syslen= 50\nQ1 N3 10\nQ2 syslen= 40\nQ2 N1 0\n")
    scores = evaluate(nuggets, [run, tmp_path / "RUN2"], L=500)
    compared = xdiv.compare(scores)
    assert float(compared["mean"].sel(metric="T-flat", run="RUN2")) == pytest.approx(
        (5 / 50 + 2 / 40) / 2)
    assert scores["score"].dims == ("metric", "run", "topic")
    means = xdiv.summarize(scores)["mean"].sel(run="RUN")
    assert float(means.sel(metric="Recall")) == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert len(scores.xdiv.to_frame()) == 7 * 2 * 2
    xdiv.to_netcdf(scores, tmp_path / "scores.nc")
    again = xdiv.open_dataset(tmp_path / "scores.nc")
    np.testing.assert_array_equal(again["score"].values, scores["score"].values)
    assert again.attrs["measures"] == "1click"
    gold = read_nuggets(nuggets)
    xdiv.to_netcdf(gold, tmp_path / "nuggets.nc")
    xdiv.to_netcdf(read_matches([run, tmp_path / "RUN2"], gold), tmp_path / "matches.nc")
    reopened = evaluate(xdiv.open_dataset(tmp_path / "nuggets.nc"),
                        xdiv.open_dataset(tmp_path / "matches.nc"), L=500)
    assert reopened["score"].equals(scores["score"])


def test_a_question_without_lines_is_an_empty_output(tmp_path):
    nuggets, run = _sample(tmp_path)
    run.write_text("Q1 syslen= 500\nQ1 N1 100\nQX syslen= 5\nQX N7 3\n")
    with pytest.warns(AlignmentWarning, match="QX"):
        scores = evaluate(nuggets, run, L=500)
    assert scores.attrs["topics_not_in_runs"] == '{"RUN": ["Q2"]}'
    assert scores["score"].sel(topic="Q2").values.ravel().tolist() == [0.0] * 7


@pytest.mark.parametrize("content, expected", [
    ("Q1 N1 3\n", r"nuggets:1: expected at least 4 fields"),
    ("Q1 N1 3 10\nQ1 N2 0 5\n", r"nuggets:2: weight '0' is not positive"),
    ("Q1 N1 -2 10\n", r"nuggets:1: weight '-2' is not positive"),
    ("Q1 N1 nan 10\n", r"nuggets:1: weight 'nan' is not a finite number"),
    ("Q1 N1 3 0\n", r"nuggets:1: vital string length '0' is below 1"),
    ("Q1 N1 3 2.5\n", r"nuggets:1: vital string length '2.5' is not a whole number"),
    ("Q1 N1 3 4\n\nQ1 N1 3 5\n", r"nuggets:3: question Q1 nugget N1 is given again with "
                                 r"other fields \(first on line 1\)"),
    ("Q\x01 N1 3 4\n", r"nuggets:1: question 'Q\\x01' holds the control character"),
    ("", r"nuggets: the file has no data lines"),
])
def test_nugget_file_errors(tmp_path, content, expected):
    path = tmp_path / "nuggets"
    path.write_text(content)
    with pytest.raises((ParseError, InputError), match=expected) as error:
        read_nuggets(path)
    assert "\n" not in str(error.value)


def test_nuggets_listed_twice_alike_count_once(tmp_path):
    path = tmp_path / "nuggets"
    path.write_text("Q1 N1 3 4 x\nQ2 N1 1 1\nQ1 N1 3 4 x\n")
    nuggets = read_nuggets(path)
    assert nuggets["n_nuggets"].values.tolist() == [1, 1]
    assert nuggets["topic"].values.tolist() == ["Q1", "Q2"]


@pytest.mark.parametrize("content, expected", [
    ("Q1 syslen= 5\nQ1 N1\n", r"RUN:2: expected 3 fields"),
    ("Q1 syslen= -5\n", r"RUN:1: length '-5' is below 0"),
    ("Q1 syslen= 5\nQ1 N1 x\n", r"RUN:2: offset 'x' is not a whole number"),
    ("Q1 syslen= 5\nQ1 N1 -1\n", r"RUN:2: offset '-1' is below 0"),
    ("Q1 syslen= 5\nQ1 N9 3\n", r"RUN:2: nugget N9 is not a gold nugget of question Q1"),
    ("Q1 syslen= 5\nQ1 syslen= 6\n", r"RUN:2: question Q1: a second syslen= line \(first "
                                     r"on line 1\)"),
    ("Q2 syslen= 5\nQ1 N1 3\nQ1 N2 4\n", r"RUN:2: question Q1 has nugget matches but no "
                                         r"'Q1 syslen= <length>' line"),
])
def test_match_file_errors(tmp_path, content, expected):
    nuggets, run = _sample(tmp_path)
    run.write_text(content)
    with pytest.raises(ParseError, match=expected) as error:
        read_matches(run, nuggets)
    assert "\n" not in str(error.value)


def test_read_matches_refusals(tmp_path):
    nuggets, run = _sample(tmp_path)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "RUN").write_text(run.read_text())
    with pytest.raises(InputError, match="two match files of the same name"):
        read_matches([run, tmp_path / "other" / "RUN"], nuggets)
    with pytest.raises(InputError, match="first_match must be"):
        read_matches(run, nuggets, first_match="last")
    with pytest.raises(InputError, match="no match file"):
        read_matches([], nuggets)
    other = tmp_path / "other.nuggets"
    other.write_text("Q1 N1 3 10\n")
    with pytest.raises(InputError, match="read on other nuggets"):
        evaluate(other, read_matches(run.parent / "RUN", nuggets), L=5)
