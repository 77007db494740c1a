"""Regressions of the second reliability audit not covered by a reader or output test."""

from __future__ import annotations

from xdiv.cli import main


def test_ndeval_with_a_nul_byte_in_a_topic_id_is_one_line(tmp_path, capsys):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 1 a 1\n1 2 b 2\n2 1 x 1\n")
    run.write_bytes(b"1 Q0 a 1 3.5 r\n1\x00 Q0 z 3 1 r\n2 Q0 x 1 4 r\n")
    for args in (["ndeval", str(qrels), str(run)],
                 ["ndeval", "-baseline", str(run), str(qrels), str(run)]):
        capsys.readouterr()
        assert main(args) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"xdiv: error: {run}:2:"), err
        assert "\x00" not in err[0]


def test_a_duplicate_document_error_names_the_run_file(tmp_path, capsys):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 1 a 1\n")
    run.write_text("1 Q0 a 1 3.5 r\n1 Q0 a 2 3.5 r\n")  # (a rank given twice: ndeval's words)
    assert main(["ndeval", "-baseline", str(run), str(qrels), str(run)]) == 2
    assert capsys.readouterr().err.startswith(f"xdiv: error: {run}: a docno is retrieved")
