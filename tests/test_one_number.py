"""One number everywhere: for the demo and the shared real files, each run's headline figures
read the same on the Overview page (AppTest), in `metrics --json`, in the HTML and Markdown
reports, and the growth curve the same in `growth --json` and the report, to the precision
each prints."""

import json
import re
from pathlib import Path

import pytest
from apptest import PAGES, no_exception, open_page

from cimem.cli.main import main
from cimem.demo.simulate import build_demo_database
from cimem.ingest import ingest_file
from cimem.store import Store

from conftest import shared_file
from fixtures import overview_tables

SOURCES = ("demo", "persistbench_llama33_jeffery_day.json", "results_sample.jsonl")


@pytest.fixture(scope="module", params=SOURCES)
def database(request, tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("one") / "db.duckdb"
    if request.param == "demo":
        build_demo_database(db)
    else:
        source = shared_file(request.param)
        with Store.open(db) as store:
            ingest_file(store, source)
    return db


def cli_json(capsys, *args: str) -> dict:
    capsys.readouterr()
    assert main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


def interval(summary: dict) -> str:
    if summary["ci95"] is None:
        return f"- ({summary['ci95_reason']})"
    lo, hi = summary["ci95"]
    return f"[{100 * lo:.2f}, {100 * hi:.2f}]"


def test_headline_figures_agree_on_the_page_the_cli_and_both_reports(
    database, tmp_path, capsys, monkeypatch
):
    doc = cli_json(capsys, "metrics", "--db", str(database), "--json")
    runs = {r["run"]: r for r in doc["runs"]}
    ids = ",".join(name.split(":")[0] for name in runs)
    at = open_page(str(database), PAGES[0], monkeypatch, runs=ids)
    no_exception(at)
    page = overview_tables(at)[0].set_index("run")
    html, md = tmp_path / "r.html", tmp_path / "r.md"
    assert main(["report", "--db", str(database), "--out", str(html)]) == 0
    assert main(["report", "--db", str(database), "--out", str(md), "--format", "md"]) == 0
    html_text = html.read_text()
    md_text = re.sub(r"\\([\\`*_\[\]<>~#])", r"\1", md.read_text())  # as a reader sees it
    for name, r in runs.items():
        v, c = f"{100 * r['violation']['mean']:.2f}", f"{100 * r['completeness']['mean']:.2f}"
        row = page.loc[name]
        assert (row["Violation@n %"], row["Completeness %"]) == (v, c), name
        assert (row["95% CI"], row["95% CI"]) == (
            interval(r["violation"]),
            interval(r["violation"]),
        )
        assert row["95% CI "] == interval(r["completeness"])
        md_row = next(line for line in md_text.splitlines() if line.startswith(f"| {name} |"))
        cells = [x.strip() for x in md_row.strip("|").split("|")]
        assert cells[2:6] == [v, interval(r["violation"]), c, interval(r["completeness"])], name
        assert f">{v}</td>" in html_text and f">{c}</td>" in html_text


def test_the_growth_curve_agrees_in_the_cli_and_the_report(database, tmp_path, capsys):
    with Store.open(database, read_only=True) as store:
        run_ids = [r.run_id for r in store.list_runs() if r.messages]
    md = tmp_path / "g.md"
    assert main(["report", "--db", str(database), "--out", str(md), "--format", "md"]) == 0
    text = md.read_text()
    table = text.split("## Violation as tasks accumulate")[1].split("\n## ")[0]
    for run_id in run_ids:
        g = cli_json(capsys, "growth", "--db", str(database), "--run", str(run_id), "--json")
        at = {
            t: (row[-1], theo[-1]) for t, row, theo in zip(g["tasks"], g["violation"], g["theory"])
        }
        line = next(x for x in table.splitlines() if re.match(rf"\| {run_id}: ", x))
        header = next(x for x in table.splitlines() if x.startswith("| run"))
        for title, cell in zip(header.strip("|").split("|")[1:], line.strip("|").split("|")[1:]):
            t = int(title.strip().removeprefix("T="))
            assert cell.strip() == f"{100 * at[t][0]:.2f} / {100 * at[t][1]:.2f}", (run_id, t)
