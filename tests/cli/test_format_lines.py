"""``xdiv evaluate --format lines``: ``measure<TAB>topic<TAB>value`` lines, the columns of
``trec_eval -q`` but not its bytes (trec_eval pads the name to 22 characters, prints topic
by topic, and evaluates other topics: those of the run, not those of the qrels). The
format was called ``trec_eval``, a name that promised trec_eval's output; the old name
still works, with a warning that points to ``xdiv trec_eval``."""

from __future__ import annotations

import pytest

from xdiv.cli import main
from xdiv.official.trec_eval.table import Options
from xdiv.official.trec_eval.tool import trec_eval_run

QRELS = ("1 0 a 1\n1 0 b 0\n1 0 c 2\n1 0 e 1\n2 0 a 1\n2 0 d 1\n2 0 f 0\n"
         "10 0 a 2\n10 0 g 1\n")
RUN = ("1 Q0 a 1 3.0 s\n1 Q0 x 2 2.0 s\n1 Q0 c 3 1.0 s\n2 Q0 d 1 2.0 s\n2 Q0 z 2 1.0 s\n"
       "2 Q0 a 3 0.5 s\n10 Q0 g 1 1.0 s\n10 Q0 a 2 0.5 s\n")
TREC_EVAL = {"map": "map", "P_10": "P.10", "ndcg_cut_10": "ndcg_cut.10",
             "recip_rank": "recip_rank", "Rprec": "Rprec"}
"""xdiv evaluate's trec_eval names and the -m arguments of trec_eval that print them."""


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return tmp_path


def _lines(capsys, files, fmt: str) -> tuple[str, str]:
    status = main(["evaluate", str(files / "qrels"), str(files / "run"), "-m",
                   *TREC_EVAL, "--format", fmt])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return captured.out, captured.err


def test_lines_hold_trec_evals_values_in_its_columns(files, capsys):
    out, _ = _lines(capsys, files, "lines")
    rows = [line.split("\t") for line in out.splitlines()]
    assert rows[0] == ["runid", "all", "s"]
    ours = {(measure, topic): value for measure, topic, value in rows[1:]}
    theirs_out = trec_eval_run(str(files / "qrels"), str(files / "run"), Options(
        measures=tuple(TREC_EVAL.values()), query=True)).stdout.decode()
    theirs = {}
    for line in theirs_out.splitlines():
        measure, topic, value = line.split("\t")
        theirs[(measure.strip(), topic)] = value
    # every topic has a relevant document and the run retrieves all three: the same
    # values, to trec_eval's 4 decimals, in other lines
    assert set(ours) == set(theirs) and len(ours) == 4 * len(TREC_EVAL)
    for key, value in theirs.items():
        assert float(ours[key]) == pytest.approx(float(value), abs=5e-5), key
    assert out.encode() != theirs_out.encode()  # not trec_eval's bytes: not named after it


def test_the_former_name_warns_and_prints_the_same(files, capsys):
    lines, _ = _lines(capsys, files, "lines")
    out, err = _lines(capsys, files, "trec_eval")
    assert out == lines
    warning, = [line for line in err.splitlines() if "--format trec_eval" in line]
    assert "--format lines" in warning and "xdiv trec_eval" in warning


def test_help_offers_lines_and_says_it_is_not_trec_evals_output(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--format {table,tsv,csv,ndeval,lines}" in text
    assert "xdiv trec_eval" in text.split("--format", 1)[1].split("--hierarchy")[0]
