"""The report: one HTML file with no network request and nothing from data run as markup, its
Markdown twin, on the demo, the shared real files and a hostile run; written whole or not at
all; printed to PDF when chromium is installed."""

import json
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from cimem.cli.main import main
from cimem.ingest import ingest_file
from cimem.publish.html_report import report_html
from cimem.publish.markdown_report import md_text
from cimem.store import Store

from conftest import shared_file
from fixtures import small_profile, write_jsonl

HOSTILE = "<script>alert(1)</script>![x](http://evil.example/x.png)"


class Fetches(HTMLParser):
    """Every element, attribute or style of a page that could make the browser fetch or run."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "link", "img", "iframe", "object", "embed", "image", "use", "a"):
            self.found.append(tag)
        for name, value in attrs:
            if name in ("src", "href", "xlink:href", "action") or name.startswith("on"):
                self.found.append(f"{tag}[{name}]")
            if name == "style" and value and "url(" in value:
                self.found.append(f"{tag}[style url]")

    def handle_data(self, data):
        self.text.append(data)


def fetches(html: str) -> list[str]:
    p = Fetches()
    p.feed(html)
    if "@import" in html or "url(" in html:
        p.found.append("css fetch")
    return p.found


def report(db: Path, tmp_path: Path, *args: str) -> str:
    out = tmp_path / "r.html"
    assert main(["report", "--db", str(db), "--out", str(out), *args]) == 0
    return out.read_text(encoding="utf-8")


def test_the_demo_report_holds_every_section_and_fetches_nothing(demo_db, tmp_path, capsys):
    html = report(Path(demo_db), tmp_path)
    assert fetches(html) == []
    for heading in (
        "Overview",
        "Privacy against utility",
        "Violation as tasks accumulate",
        "Most leaked attributes",
        "Recipients",
        "Judges",
        "Audit",
        "Provenance",
    ):
        assert f">{heading}</h" in html, heading
    assert html.count("<svg") == 2 and html.count('class="panel"') == 3
    assert '<p class="warn">SIMULATED data: 1: demo' in html  # said before any number
    capsys.readouterr()
    assert main(["metrics", "--db", demo_db, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    for run in doc["runs"]:  # the headline numbers, as the command line prints them
        assert f"{100 * run['violation']['mean']:.2f}" in html
        assert f"{100 * run['completeness']['mean']:.2f}" in html


def test_names_from_data_are_text_never_markup(tmp_path):
    db = tmp_path / "h.duckdb"
    obj = small_profile(HOSTILE)
    with Store.open(db) as store:
        ingest_file(store, write_jsonl(tmp_path / "h.jsonl", [obj]), name=HOSTILE, model=HOSTILE)
    html = report(db, tmp_path)
    assert fetches(html) == []
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    md = tmp_path / "r.md"
    assert main(["report", "--db", str(db), "--out", str(md), "--format", "md"]) == 0
    text = md.read_text()
    assert "<script>" not in text and "\\<script\\>" in text and "!\\[x\\]" in text


def test_a_one_profile_run_of_one_trial(tmp_path):
    db = tmp_path / "pb.duckdb"
    with Store.open(db) as store:
        ingest_file(store, shared_file("persistbench_llama33_jeffery_day.json"))
    html = report(db, tmp_path)
    assert "- (1 profile)" in html and "19.42" in html
    assert "SIMULATED" not in html
    assert fetches(html) == []


def test_an_official_file_read_directly(tmp_path):
    out = tmp_path / "s.md"
    source = shared_file("results_sample.jsonl")
    assert main(["report", "--results", str(source), "--out", str(out), "--format", "md"]) == 0
    text = out.read_text()
    assert "## Provenance" in text and "results\\_sample.jsonl" in text
    import hashlib

    assert hashlib.sha256(source.read_bytes()).hexdigest() in text


def test_an_empty_database_is_a_clear_error_and_writes_nothing(tmp_path, capsys):
    db = tmp_path / "empty.duckdb"
    Store.open(db).close()
    out = tmp_path / "r.html"
    assert main(["report", "--db", str(db), "--out", str(out)]) == 2
    assert "no run with messages" in capsys.readouterr().err
    assert not out.exists() and not list(tmp_path.glob(".r.html.*"))


def test_markdown_escapes_what_would_become_markup():
    assert md_text("a|b *c* [d](e) <f>") == "a\\|b \\*c\\* \\[d\\](e) \\<f\\>"
    assert md_text("two\nlines") == "two lines"


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
def test_pdf_through_chromium(demo_db, tmp_path):
    out = tmp_path / "r.pdf"
    assert main(["report", "--db", demo_db, "--out", str(out), "--pdf"]) == 0
    assert out.read_bytes()[:5] == b"%PDF-" and out.stat().st_size > 10_000


def test_the_html_is_built_from_the_content_alone(demo_db):
    from cimem.analysis.cube import cube_from_store
    from cimem.analysis.metrics import MetricOptions
    from cimem.publish.content import build_report

    with Store.open(demo_db, read_only=True) as store:
        cubes = [cube_from_store(store, r.run_id) for r in store.list_runs() if r.messages]
        rep = build_report(cubes[:1], MetricOptions(mode="definition"), store, "One run")
    html = report_html(rep)
    assert "<title>One run</title>" in html and "mode definition" in html
    assert html.count('class="panel"') == 1


def test_an_audited_run_shows_the_corrected_numbers_of_metrics(demo_db, tmp_path, capsys):
    """People's verdicts (the demo's simulator verdicts standing in for them) on the audit
    sample: the report's corrected Violation is the one `metrics --corrected-by` prints."""
    from fixtures import fill_sample_with_truth

    db = tmp_path / "audited.duckdb"
    shutil.copy(demo_db, db)
    sample = tmp_path / "sample.csv"
    assert main(["audit-sample", "--db", str(db), "--run", "1", "--out", str(sample)]) == 0
    fill_sample_with_truth(db, sample)
    assert main(["human", "import", str(sample), "--db", str(db), "--run", "1"]) == 0
    with Store.open(db, read_only=True) as store:
        human = store.find_human_judge(1)
    capsys.readouterr()
    assert (
        main(["metrics", "--db", str(db), "--run", "1", "--corrected-by", str(human), "--json"])
        == 0
    )
    run = json.loads(capsys.readouterr().out)["runs"][0]
    fixed = run["violation"]["corrected"]
    cells = fixed["audited_pairs"] + run["completeness"]["corrected"]["audited_pairs"]
    html = report(db, tmp_path, "--runs", "1")
    assert f"{100 * fixed['mean']:.2f}" in html
    assert f"[{100 * fixed['ci95'][0]:.2f}, {100 * fixed['ci95'][1]:.2f}]" in html
    said = f"judge {human}), following the audit sample of seed 0, on {cells} audited cells"
    assert said in html


def test_a_stored_runs_report_holds_its_message_health(tmp_path):
    db = tmp_path / "pb.duckdb"
    with Store.open(db) as store:
        ingest_file(store, shared_file("persistbench_llama33_jeffery_day.json"))
    out = tmp_path / "h.md"
    assert main(["report", "--db", str(db), "--out", str(out), "--format", "md"]) == 0
    text = out.read_text()
    assert "### Message health" in text and "| flagged, of all messages | 5 of 49 |" in text
    assert "| Completeness %, every message / without flagged | 55.75 / 58.36 |" in text
    assert "| run | model | source file | sha256 |" in text.replace("\\_", "_")
