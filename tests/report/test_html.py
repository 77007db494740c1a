"""The HTML report: its numbers against independent computations, one self-contained page
(balanced tags, nothing fetched, unique ids, escaped labels), written atomically by
``xdiv report``, and rendered by headless Chromium without console errors where it is
installed."""

from __future__ import annotations

import contextlib
import itertools
import re
import shutil
import subprocess
import warnings
from html.parser import HTMLParser

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy import stats  # noqa: E402

import xdiv  # noqa: E402
from xdiv import meta, report  # noqa: E402
from xdiv.cli import main  # noqa: E402
from xdiv.report import html as H  # noqa: E402

from ..conftest import require_trec_2009  # noqa: E402

HOSTILE = ["<b>bold</b>", "a&b", '"quoted"', "--><script>alert(1)</script>", "plain"]
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


@contextlib.contextmanager
def figures_unwritten():
    """Reports whose figures are built but not written out as SVG (each an empty ``<svg>``
    of its key): for tests that read only a page's text and tables (item 18 of the
    test-time audit: writing the SVG is most of a report's time). The SVG itself is
    checked on the pages of the tests that count or render the figures
    (test_page_is_self_contained_and_escapes_labels, the Chromium tests)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(H, "_svg", lambda fig, key: f'<svg id="{key}-unwritten"></svg>')
        yield


@pytest.fixture(scope="module")
def scores():
    col, runs = xdiv.datasets.synthetic(n_topics=12, n_runs=5, depth=20, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        cube = xdiv.evaluate(runs, col, ["D#-nDCG@10", "I-rec@10", "D-nDCG@10"])
    cube["score"][0, 1, 2] = np.nan  # one undefined topic: fewer topics for that run
    return cube.assign_coords(run=HOSTILE)


@pytest.fixture(scope="module")
def both(scores):
    return meta.combine_tests({t: meta.discriminative_power(scores, t, B=200, seed=2)
                               for t in ("bootstrap", "tukey")})


@pytest.fixture(scope="module")
def page(scores, both):
    return report.html_report(scores, both)


def test_run_summary_is_the_t_interval_over_topics(scores):
    summary = report.run_summary(scores)
    for metric, run in itertools.product(scores["metric"].values, scores["run"].values):
        values = scores["score"].sel(metric=metric, run=run).values
        values = values[~np.isnan(values)]
        half = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
        got = summary.sel(metric=metric, run=run)
        assert int(got["n_topics"]) == len(values)
        np.testing.assert_allclose([got["mean"], got["low"], got["high"]],
                                   [values.mean(), values.mean() - half,
                                    values.mean() + half], rtol=1e-12)


def test_significance_without_meta_is_holm_over_all_pairs(scores):
    metric = "D#-nDCG@10"
    matrix = report.significance_matrix(scores, metric, alpha=0.05)
    table = scores["score"].sel(metric=metric).dropna("topic", how="any")
    runs = [str(r) for r in table["run"].values]
    pairs = list(itertools.combinations(range(len(runs)), 2))
    raw = np.array([stats.ttest_rel(table.values[a], table.values[b]).pvalue
                    for a, b in pairs])
    # Holm's step-down adjustment, written out
    order = np.argsort(raw)
    adjusted = np.empty_like(raw)
    running = 0.0
    for rank, k in enumerate(order):
        running = max(running, min(1.0, (len(raw) - rank) * raw[k]))
        adjusted[k] = running
    for (a, b), p in zip(pairs, adjusted):
        assert matrix["pvalue"].sel(run_a=runs[a], run_b=runs[b]) == pytest.approx(p)
        assert matrix["pvalue"].sel(run_a=runs[b], run_b=runs[a]) == pytest.approx(p)
        diff = table.values[a].mean() - table.values[b].mean()
        assert matrix["diff"].sel(run_a=runs[a], run_b=runs[b]) == pytest.approx(diff)
    assert np.isnan(np.diag(matrix["pvalue"].values)).all()


def test_significance_with_meta_is_its_asl_and_the_page_colours_it(scores, both, page):
    boot = meta.select_test(both, "bootstrap")
    matrix = report.significance_matrix(scores, "D#-nDCG@10", both, "bootstrap")
    np.testing.assert_array_equal(
        matrix["pvalue"].values,
        boot["asl"].sel(metric="D#-nDCG@10", run_a=HOSTILE, run_b=HOSTILE).values)
    assert matrix.attrs == {"alpha": 0.05, "test": "paired bootstrap"}
    significant = int((matrix["pvalue"] < 0.05).sum())
    # both tests' matrices are on the page; the bootstrap's comes first
    first = page.split("paired bootstrap, D#-nDCG@10")[1].split("</table>")[0]
    assert first.count('class="up"') + first.count('class="down"') == significant
    assert first.count('class="up"') == first.count('class="down"')
    assert "randomised Tukey HSD, D#-nDCG@10" in page


class _Checker(HTMLParser):
    """Collects the tag structure, ids and resource references of a page."""

    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.ids, self.references, self.tags = [], [], [], [], []

    def handle_starttag(self, tag, attrs):
        self.handle_startendtag(tag, attrs)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name == "id":
                self.ids.append(value)
            if name in ("src", "href", "xlink:href", "srcset", "action", "data") and value:
                self.references.append(value)
            if name == "style" and value and "url(" in value:
                self.references += re.findall(r"url\(([^)]*)\)", value)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else ''}>")
        else:
            self.stack.pop()


def _check_page(text: str) -> _Checker:
    checker = _Checker()
    checker.feed(text)
    checker.close()
    assert not checker.errors, checker.errors[:5]
    assert not checker.stack, f"unclosed: {checker.stack[:5]}"
    outside = [r for r in checker.references if not r.startswith(("#", "data:"))]
    assert not outside, outside[:5]  # only in-page anchors and inline data
    assert not re.search(r"@import|<link|<script|<iframe", text)
    assert len(checker.ids) == len(set(checker.ids)), "an id is used twice"
    return checker


def test_page_is_self_contained_and_escapes_labels(page):
    checker = _check_page(page)
    # box plot, differences of the two best runs, two ASL curves, scatter, correlation
    assert checker.tags.count("svg") == 6
    for name in HOSTILE[:4]:
        assert name not in page
    assert "&lt;b&gt;bold&lt;/b&gt;" in page and "a&amp;b" in page
    assert page.count("<table") == 4  # runs, two significance matrices, power
    assert page.count('<table class="matrix">') == 2


def test_report_command_writes_the_page_and_checks_its_inputs(tmp_path):
    cube, metas = tmp_path / "s.nc", tmp_path / "m.nc"
    assert main(["-q", "demo", "-o", str(cube), "--topics", "8", "--runs", "4"]) == 0
    assert main(["-q", "meta", str(cube), "-B", "100", "--test", "tukey", "-o",
                 str(metas)]) == 0
    out = tmp_path / "report.html"
    assert main(["report", str(cube), str(metas), "-m", "D#-nDCG@10", "-o",
                 str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    _check_page(text)
    assert "randomised Tukey HSD, D#-nDCG@10" in text
    assert not list(tmp_path.glob(".*xdiv-partial*"))
    other = tmp_path / "other.nc"
    assert main(["-q", "demo", "--no-meta", "-o", str(other), "--topics", "8",
                 "--runs", "5"]) == 0
    assert main(["report", str(other), str(metas), "-o", str(tmp_path / "no.html")]) == 2
    assert not (tmp_path / "no.html").exists()


@pytest.mark.skipif(shutil.which("chromium") is None,
                    reason="no chromium: the page is checked with html.parser only")
def test_page_renders_in_headless_chromium(tmp_path, page):
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    # no name resolves: anything the page tried to fetch would fail and be logged
    browser = ["chromium", "--headless", "--no-sandbox", "--disable-gpu",
               "--hide-scrollbars", "--host-resolver-rules=MAP * ~NOTFOUND",
               "--enable-logging=stderr", "--v=0"]
    shot = tmp_path / "report.png"
    # one browser both dumps the DOM and takes the screenshot (a start costs seconds)
    dom = subprocess.run([*browser, "--dump-dom", f"--screenshot={shot}",
                          "--window-size=1280,2000", path.as_uri()], capture_output=True,
                         text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    console = [line for line in dom.stderr.splitlines()
               if ":CONSOLE" in line or "net::ERR" in line]
    assert not console, console
    assert dom.stdout.count("<svg") == 6 and dom.stdout.count("<table") == 4
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 20000
    assert int.from_bytes(data[16:20], "big") == 1280  # IHDR width


def test_report_on_the_trec_2009_runs(tmp_path):
    # the 18 real runs, 4 measures, both tests: the page holds every run and its means
    root = require_trec_2009()
    cube, metas, out = tmp_path / "s.nc", tmp_path / "m.nc", tmp_path / "r.html"
    runs = sorted(str(p) for p in (root / "runs").glob("*.gz"))
    assert main(["-q", "evaluate", str(root / "qrels.diversity.gz"), *runs, "-m",
                 "alpha-nDCG@10", "ERR-IA@20", "I-rec@10", "D#-nDCG@10", "-o",
                 str(cube)]) == 0
    assert main(["-q", "meta", str(cube), "--test", "both", "-B", "200", "-o",
                 str(metas)]) == 0
    assert main(["-q", "report", str(cube), str(metas), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    _check_page(text)
    scores = xdiv.open_dataset(cube)
    for run in scores["run"].values:
        assert str(run) in text
    means = scores["score"].sel(metric="alpha-nDCG@10").mean("topic")
    assert f"{float(means.max()):.4f}" in text


def test_undefined_means_are_said_not_plotted(tmp_path, scores):
    # topics without relevant documents score NaN for every run: the scatter has nothing to
    # place, which the plot says in one line and the report says in place of the figure
    empty = scores.copy(deep=True)
    empty["score"][:] = np.nan
    with pytest.raises(xdiv.InputError, match=r"no mean I-rec@10 and D-nDCG@10 .*every topic"):
        xdiv.plots.irec_dndcg(empty, cutoff=10)
    text = report.html_report(empty)
    _check_page(text)
    assert "No I-rec@10 / D-nDCG@10 plot" in text
    cube = tmp_path / "nan.nc"
    xdiv.to_netcdf(empty, cube)
    assert main(["plot", "scatter", str(cube), "-o", str(tmp_path / "s.png")]) == 2
    assert not (tmp_path / "s.png").exists()


def _cube(metrics, n_runs=5, names=None):
    col, runs = xdiv.datasets.synthetic(n_topics=12, n_runs=n_runs, depth=20, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdiv.XdivWarning)
        cube = xdiv.evaluate(runs, col, metrics)
    return cube if names is None else cube.assign_coords(run=names)


@figures_unwritten()
def test_primary_measure_is_alpha_ndcg_at_20_when_evaluated():
    cube = _cube(["ERR-IA@5", "alpha-nDCG@20", "I-rec@10"])
    assert report.default_primary(cube) == "alpha-nDCG@20"
    assert "<li>primary measure: alpha-nDCG@20</li>" in report.html_report(cube)
    assert report.default_primary(_cube(["ERR-IA@5", "I-rec@10"])) == "ERR-IA@5"


@figures_unwritten()
def test_header_names_input_files_not_their_folders():
    cube = _cube(["I-rec@10"])
    cube.attrs["collection"] = "/home/someone/private/qrels.diversity.gz"
    text = report.html_report(cube)
    assert "qrels.diversity.gz" in text and "/home/someone" not in text


@figures_unwritten()
def test_a_scatter_it_cannot_draw_is_said():
    text = report.html_report(_cube(["I-rec@10", "alpha-nDCG@10"]))
    assert ("No I-rec@10 / D-nDCG@10 plot: the cube holds I-rec@10 but not D-nDCG@10"
            in text)


@pytest.mark.skipif(shutil.which("chromium") is None, reason="no chromium")
def test_a_matrix_of_18_runs_fits_the_page(tmp_path):
    """The 18 TREC 2009 runs' significance matrix: as wide as the page's text, without a
    scroll bar (its column labels are written upwards)."""
    names = [f"{name}" for name in ("ICTNETDivR1 ICTNETDivR2 MSRABASE NeuDiv1 NeuDivW75 "
                                    "RmitDiv Sab9wtBDiv1 Sab9wtBfDiv THUIR09FuClu "
                                    "UamsDwebLFou WatSklfu tm udelFMRM udelSimPrune "
                                    "uogTrDYCcsB watd1 wume1 wume2").split()]
    page = report.html_report(_cube(["alpha-nDCG@20", "ERR-IA@20"], 18, names))
    probe = ("<script>const m = document.querySelector('table.matrix');"
             "document.body.setAttribute('data-fit', String(m.parentElement.scrollWidth <= "
             "m.parentElement.clientWidth));</script></body>")
    path = tmp_path / "report.html"
    path.write_text(page.replace("</body>", probe), encoding="utf-8")
    dom = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                          "--window-size=1280,2000", "--dump-dom", path.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'data-fit="true"' in dom.stdout


def test_the_paper_table_against_a_baseline_and_over_all_pairs(scores):
    """--baseline / --pairs-table: xdiv.table's HTML for xdiv.compare's paired t-tests,
    Holm-corrected, with its methods paragraph; labels escaped as everywhere."""
    from xdiv.formats.tables import methods_paragraph, table

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = xdiv.compare(scores, baseline=HOSTILE[4], tests=("t",), correction="holm")
    with figures_unwritten():  # the comparison's table and paragraph are read, not figures
        page = report.html_report(scores, baseline=HOSTILE[4])
        pairs = report.html_report(scores, pairs_table=True)
        alone = report.html_report(scores)
    _check_page(page)
    assert "<h2>Comparison with the baseline plain</h2>" in page
    assert table(expected, format="html") in page
    assert methods_paragraph(expected).replace("&", "&amp;")[:60] in page
    for name in HOSTILE[:4]:
        assert name not in page
    _check_page(pairs)
    assert "<h2>Comparison with all pairs of runs</h2>" in pairs
    assert "Comparison with" not in alone
