"""One vocabulary across xdiv's own commands (third audit, item 14): ``-m/--measure``
wherever a measure is chosen, ``--sig-level`` for every significance level, per-test
``-B`` in ``xdiv meta``, the former spellings kept as deprecated aliases that name the new
one, and a bad command line answered with the subcommand's usage, not the top-level one.
Also item 17: docs/cli.md gives ``xdiv report``'s real default primary measure."""

from __future__ import annotations

import argparse
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import xdiv
from xdiv.cli import main, parser
from xdiv.report.html import PRIMARY

ROOT = Path(__file__).resolve().parents[2]
MEASURES = ["I-rec@10", "alpha-nDCG@10", "D-nDCG@10", "D#-nDCG@10", "ERR-IA@10"]
DROP_INS = ("ndeval", "gdeval", "trec_eval", "ntcir_eval")
"""Commands that keep their tools' own options (-alpha, -m, ...)."""

# A command line each subcommand accepts but for one unknown option; the files need not
# exist, since the command line is refused before any is read.
ACCEPTED = {
    "demo": [],
    "evaluate": ["q.txt", "r.txt", "-m", "P@10"],
    "ndeval": ["q.txt", "r.txt"],
    "gdeval": ["q.txt", "r.txt"],
    "trec_eval": ["q.txt", "r.txt"],
    "ntcir_eval": ["label", "-r", "q.txt"],
    "ntcireval": ["D", "p.txt", "q.txt", "r.txt"],
    "measures": [],
    "meta": ["s.nc"],
    "concordance": ["s.nc", "A", "B", "--gold", "C"],
    "correlate": ["s.nc"],
    "compare": ["s.nc"],
    "model": ["s.nc"],
    "risk": ["s.nc"],
    "design": [],
    "design size": ["s.nc", "--diff", "0.1"],
    "design mdd": ["s.nc"],
    "design pairs": ["s.nc"],
    "design swap": ["s.nc"],
    "design gstudy": ["s.nc"],
    "convert": ["q.txt", "-o", "out.txt"],
    "plot": ["asl", "m.nc", "-o", "a.png"],
    "report": ["s.nc", "-o", "r.html"],
    "pools": [],
    "pools leave-one-out": ["q.txt", "r.txt", "-m", "P@10"],
    "pools downsample": ["q.txt", "r.txt", "-m", "P@10"],
    "repro": ["q.txt", "--baseline", "o.txt", "r.txt", "-m", "P@10"],
    "verify": ["s.nc"],
}
USAGE_STATUS: dict[str, int] = {}
"""Exit status of a usage error where it is not argparse's 2."""
GETOPT = {"trec_eval", "ntcir_eval"}
"""Commands that read their options as the C tool does (getopt, or ntcir_eval's own
loop) and answer a usage error with its bytes and status
(tests/official/trec_eval/test_trec_eval_command_line.py and
tests/official/test_ntcir_eval.py compare them with the binaries)."""


def _parsers() -> dict[str, argparse.ArgumentParser]:
    """Every subcommand's parser, nested actions (``design size``) included."""
    found = {}

    def visit(prefix: str, parent: argparse.ArgumentParser) -> None:
        for action in parent._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found[f"{prefix}{name}"] = sub
                    visit(f"{prefix}{name} ", sub)
    visit("", parser())
    return found


PARSERS = _parsers()


def test_the_table_of_command_lines_covers_every_subcommand():
    assert set(ACCEPTED) == set(PARSERS)


def _usage_error(capsys, argv: list[str], command: str) -> list[str]:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == USAGE_STATUS.get(command, 2)
    err = capsys.readouterr().err
    assert err.startswith(f"usage: xdiv {command} "), err
    return err.splitlines()


@pytest.mark.parametrize("command", sorted(set(ACCEPTED) - GETOPT))
def test_a_bad_option_prints_the_subcommands_usage(command, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    lines = _usage_error(capsys, [*command.split(), *ACCEPTED[command], "--no-such-option"],
                         command)
    assert lines[-1] == f"xdiv {command}: error: unrecognized arguments: --no-such-option"


@pytest.mark.parametrize("command", sorted(c for c, argv in ACCEPTED.items()
                                           if (argv or c in ("design", "pools"))
                                           and c not in GETOPT))
def test_a_missing_argument_prints_the_subcommands_usage(command, capsys):
    lines = _usage_error(capsys, command.split(), command)
    assert lines[-1].startswith(f"xdiv {command}: error: ")


def test_an_unknown_option_of_a_nested_action_names_the_action(capsys):
    lines = _usage_error(capsys, ["design", "swap", "s.nc", "--bogus", "1"], "design swap")
    assert lines[-1] == "xdiv design swap: error: unrecognized arguments: --bogus 1"


def _options(command: str) -> list[argparse.Action]:
    """The options ``command --help`` shows."""
    return [a for a in PARSERS[command]._actions
            if a.option_strings and a.help != argparse.SUPPRESS]


OWN = sorted(c for c in PARSERS if c.split()[0] not in DROP_INS)


@pytest.mark.parametrize("command", OWN)
def test_measures_are_chosen_with_m_and_levels_with_sig_level(command):
    for action in _options(command):
        shown = set(action.option_strings)
        assert not shown & {"--metric", "--metrics", "--alpha"}, (command, shown)
        if action.metavar == "MEASURE" and "--gold" not in shown:
            assert action.option_strings == ["-m", "--measure"], (command, shown)
        if "significance level" in (action.help or ""):
            assert action.option_strings == ["--sig-level"], (command, shown)


def test_every_command_that_picks_measures_takes_m():
    takes = {c for c in OWN if any("-m" in a.option_strings for a in _options(c))}
    assert {"evaluate", "compare", "risk", "plot", "report", "design size", "design mdd",
            "design pairs", "design swap", "design gstudy", "pools leave-one-out",
            "pools downsample"} <= takes


def test_drop_ins_keep_their_tools_options():
    assert "-alpha" in PARSERS["ndeval"]._option_string_actions
    assert "-riskAlpha" in PARSERS["gdeval"]._option_string_actions
    assert PARSERS["trec_eval"]._option_string_actions["-m"].dest == "measures"


# ------------------------------------------------------------------ former spellings

@pytest.fixture(scope="module")
def cube(tmp_path_factory) -> Path:
    collection, runs = xdiv.datasets.synthetic(n_topics=10, n_runs=4, depth=20, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        scores = xdiv.evaluate(runs, collection, MEASURES)
    path = tmp_path_factory.mktemp("vocabulary") / "scores.nc"
    xdiv.to_netcdf(scores, path)
    return path


# (the command line before the option, the option's new spelling with a value, its
# former spelling with the same value, and what the warning names: the new spelling and
# its metavar; the command line alone must differ in output from one with the option)
RENAMED = [
    ("compare {s} --test t", "-m D#-nDCG@10 I-rec@10", "--metric D#-nDCG@10 I-rec@10",
     "-m/--measure MEASURE"),
    ("compare {s} --test t", "--sig-level 0.3", "--alpha 0.3", "--sig-level LEVEL"),
    ("meta {s} -B 40 --test bootstrap", "--sig-level 0.25", "--alpha 0.25",
     "--sig-level LEVEL"),
    ("design size {s} --diff 0.1", "--sig-level 0.2", "--alpha 0.2", "--sig-level LEVEL"),
    ("design mdd {s} --n-topics 20", "--sig-level 0.2", "--alpha 0.2", "--sig-level LEVEL"),
    ("design pairs {s} --list", "--sig-level 0.2", "--alpha 0.2", "--sig-level LEVEL"),
    ("risk {s} --baseline run01 --format tsv", "--risk-alpha 5", "--alpha 5",
     "--risk-alpha A"),
]


def _run(capsys, argv: list[str]) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("before, new, old, named", RENAMED,
                         ids=[f"{r[0].split(' {s}')[0]} {r[2].split()[0]}" for r in RENAMED])
def test_a_former_spelling_works_and_names_the_new_one(cube, capsys, before, new, old, named):
    command = before.split(" {s}")[0]
    argv = before.format(s=cube).split()
    metavar = named.split()[1]
    status, plain, _ = _run(capsys, argv)
    assert status == 0
    status, out, err = _run(capsys, [*argv, *new.split()])
    assert status == 0 and err == ""
    assert out != plain  # the option's value is used
    status, out_old, err = _run(capsys, [*argv, *old.split()])
    assert status == 0 and out_old == out
    assert err.startswith(f"xdiv: warning: {command} {old.split()[0]} {metavar} is "
                          f"deprecated, use {named}") and err.count("\n") == 1
    assert _run(capsys, ["-q", *argv, *old.split()])[1:] == (out, "")
    status, _, err = _run(capsys, [*argv, *new.split(), *old.split()])
    assert status == 2 and err.count("\n") == 1
    assert err.startswith("xdiv: error: give ")
    assert err.endswith(f"once, as {named} ({old.split()[0]} is its deprecated spelling)\n")


def test_report_takes_its_primary_measure_with_m_and_level_with_sig_level(cube, tmp_path,
                                                                          capsys):
    new = parser().parse_args(["report", "s.nc", "-o", "r.html", "-m", "D#-nDCG@10",
                               "--sig-level", "0.3"])
    old = parser().parse_args(["report", "s.nc", "-o", "r.html", "--metric", "D#-nDCG@10",
                               "--alpha", "0.3"])
    assert (new.measure, new.alpha) == ("D#-nDCG@10", 0.3)
    assert (old.deprecated_metric, old.deprecated_alpha) == ("D#-nDCG@10", 0.3)
    page = tmp_path / "old.html"
    assert main(["report", str(cube), "--metric", "D#-nDCG@10", "--alpha", "0.3", "-o",
                 str(page)]) == 0
    assert capsys.readouterr().err.splitlines()[:2] == [
        "xdiv: warning: report --metric MEASURE is deprecated, use -m/--measure MEASURE",
        "xdiv: warning: report --alpha LEVEL is deprecated, use --sig-level LEVEL"]
    text = page.read_text(encoding="utf-8")
    assert "runs sorted by D#-nDCG@10 (first column)" in text
    assert "Holm-adjusted over all run pairs, D#-nDCG@10, alpha = 0.3:" in text


@pytest.mark.parametrize("kind, new, old", [
    ("topics", ["-m", "D#-nDCG@10"], ["--metric", "D#-nDCG@10"]),
    ("concordance", ["-m", "alpha-nDCG@10", "D#-nDCG@10", "--gold", "I-rec@10"],
     ["--metrics", "alpha-nDCG@10", "D#-nDCG@10", "--gold", "I-rec@10"]),
])
def test_plot_takes_its_measures_with_m(cube, tmp_path, capsys, kind, new, old):
    figures = {}
    for name, options in (("new", new), ("old", old)):
        figures[name] = tmp_path / f"{name}.png"
        assert main(["plot", kind, str(cube), *options, "-o", str(figures[name])]) == 0
        err = capsys.readouterr().err
        deprecated = (f"xdiv: warning: plot {old[0]} MEASURE is deprecated, use -m/--measure "
                      "MEASURE\n")
        assert err.startswith(deprecated) == (name == "old")
    assert figures["new"].read_bytes() == figures["old"].read_bytes()


@pytest.mark.parametrize("argv, message", [
    (["plot", "topics", "{s}", "-m", "I-rec@10", "D#-nDCG@10", "-o", "{o}"],
     "plot topics draws one measure; -m/--measure gave 2: I-rec@10 D#-nDCG@10"),
    (["plot", "scatter", "{s}", "-m", "I-rec@10", "-o", "{o}"],
     "plot scatter takes no -m/--measure (only topics, diff, concordance, er-dri, rmse do)"),
    (["plot", "concordance", "{s}", "-m", "I-rec@10", "--gold", "D#-nDCG@10", "-o", "{o}"],
     "plot concordance needs -m M1 M2 [...] and --gold MEASURE"),
])
def test_plot_refuses_measures_it_cannot_draw(cube, tmp_path, capsys, argv, message):
    out = tmp_path / "p.png"
    assert main([a.format(s=cube, o=out) for a in argv]) == 2
    assert capsys.readouterr().err == f"xdiv: error: {message}\n"
    assert not out.exists()


# ------------------------------------------------------------------ meta: B per test

def test_meta_takes_the_replicates_of_each_test(cube, tmp_path, capsys):
    out = tmp_path / "meta.nc"
    assert main(["-q", "meta", str(cube), "-B", "40", "--tukey-B", "60", "--seed", "4",
                 "-o", str(out)]) == 0
    result = xdiv.open_dataset(out)
    assert dict(zip(result["test"].values, result["B"].values.tolist())) == \
        {"bootstrap": 40, "tukey": 60}
    scores = xdiv.open_dataset(cube)
    for test, B in (("bootstrap", 40), ("tukey", 60)):
        one = xdiv.meta.select_test(result, test)
        assert one.attrs["B"] == B
        expected = xdiv.meta.discriminative_power(scores, method=test, B=B, seed=4)
        np.testing.assert_array_equal(one["asl"].values, expected["asl"].values)
    out2 = tmp_path / "meta2.nc"
    assert main(["-q", "meta", str(cube), "--bootstrap-B", "50", "--test", "bootstrap",
                 "-o", str(out2)]) == 0
    assert xdiv.open_dataset(out2).attrs["B"] == 50


@pytest.mark.parametrize("argv, message", [
    (["--test", "bootstrap", "--tukey-B", "100"],
     "--tukey-B is for --test tukey or both, not --test bootstrap"),
    (["--test", "tukey", "--bootstrap-B", "100"],
     "--bootstrap-B is for --test bootstrap or both, not --test tukey"),
    (["--tukey-B", "10"], "B = 10 resamples cannot resolve the significance level"),
])
def test_meta_refuses_replicates_it_cannot_use(tmp_path, capsys, argv, message):
    assert main(["meta", str(tmp_path / "not-read.nc"), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"xdiv: error: {message}") and err.count("\n") == 1


# ------------------------------------------------------------------ docs

def _section(title: str) -> str:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    start = text.index(f"### `{title}`")
    end = text.find("\n#", start + 1)
    return " ".join(text[start:end].split())


def test_docs_give_reports_default_primary_measure():
    section = _section("xdiv report")
    assert f"by default {PRIMARY} when the cube holds it" in section
    assert "cube's first" in section


def test_docs_show_no_former_spelling_as_current():
    """docs/cli.md names the former spellings only where it says they are deprecated."""
    text = " ".join((ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split())
    for sentence in re.split(r"(?<=\.)\s", text):
        if re.search(r"`--(metric|metrics|alpha)`", sentence):
            assert "deprecat" in sentence or "former spelling" in sentence.lower(), sentence
