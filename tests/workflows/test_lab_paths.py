"""The README's and docs' other paths, typed as documented on full-size runs (10 profiles x 5
trials each): a lab's database of three runs of the same people (the fabricated truth, a judge
missing 20% and adding 2%, one missing 5% and adding 0.5%), then the report for co-authors, the
export the official scripts read, label sensitivity, people's labels, and the notebook API."""

from __future__ import annotations

import ast
import csv
import json
import os
import re
from pathlib import Path

import pytest
from full_size import judged_copy
from llm_server import FakeLLM
from llm_world import World
from notebook_run import printed_by_example_notebook
from typed import Typed, block

from cimem.store import Store

from conftest import REPO, shared_file

RUNS = ("truth", "judged", "careful")


@pytest.fixture(scope="module")
def lab(full_run, tmp_path_factory) -> Typed:
    """A shell whose folder holds ``lab.duckdb`` (and the same as ``my.duckdb``): the three runs,
    imported as a user would."""
    shell = Typed(tmp_path_factory.mktemp("lab") / "work")
    shell.cwd.mkdir()
    careful = judged_copy(full_run.truth, shell.cwd / "careful.jsonl", 0.05, 0.005, 3)
    for name, path in zip(RUNS, (full_run.truth, full_run.judged, careful)):
        shell.run(f"python -m cimem ingest {path} --db lab.duckdb --name {name}")
    shell.run("cp lab.duckdb my.duckdb")
    return shell


def _metrics(shell: Typed, *args: str) -> list[dict]:
    return json.loads(shell.run("python -m cimem metrics --db my.duckdb --json " + " ".join(args)))[
        "runs"
    ]


def test_the_report_for_readers_who_install_nothing(lab):
    """README: one HTML file with every run's numbers as `metrics` prints them, no request out."""
    (command,) = [c for c in block("README.md", "## Reports for readers who install nothing")]
    lab.run(command)
    html = (lab.cwd / "report.html").read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html), "the report fetches something"
    for run in _metrics(lab):
        assert f"{100 * run['violation']['mean']:.2f}" in html
        assert f"{100 * run['completeness']['mean']:.2f}" in html
    lab.run(command.replace("--out report.html", "--out report.md --format md"))
    md = (lab.cwd / "report.md").read_text(encoding="utf-8")
    assert all(name in md for name in RUNS)


def test_an_export_gives_the_official_scripts_the_same_numbers(lab):
    """export (docs/cli.md): the run written in the official format reads back to the same
    numbers in both modes, byte for byte the same file from two processes."""
    refused = lab.run(
        "python -m cimem export --db my.duckdb --run 2 --out x.jsonl --judge 1", ok=(2,)
    )
    assert not (lab.cwd / "x.jsonl").exists() and refused == ""
    assert "judge 1 belongs to run 1, not run 2" in lab.log[-1][3]
    for judge in ("", " --judge 2"):
        lab.run(f"python -m cimem export --db my.duckdb --run 2 --out a.jsonl{judge}")
        lab.run(f"python -m cimem export --db my.duckdb --run 2 --out b.jsonl{judge}")
        assert (lab.cwd / "a.jsonl").read_bytes() == (lab.cwd / "b.jsonl").read_bytes()
        for mode in ("official", "definition"):
            stored = _metrics(lab, "--run 2", f"--mode {mode}")[0]
            read = json.loads(
                lab.run(f"python -m cimem metrics --results a.jsonl --json --mode {mode}")
            )["runs"][0]
            for metric in ("violation", "completeness"):
                assert read[metric]["mean"] == pytest.approx(stored[metric]["mean"], abs=1e-12)


def test_label_sensitivity_ranks_the_three_runs(lab):
    """docs/labels.md: every run under every scheme, the official scheme's numbers being the
    runs' own metrics, and the rank agreement of each scheme over three runs."""
    (command,) = block("docs/labels.md", "## Sensitivity: `cimem labels sensitivity`")
    printed = lab.run(command)
    assert all(f"{i}: {name}" in printed for i, name in enumerate(RUNS, 1))
    assert "Kendall's tau-b" in printed
    doc = json.loads(lab.run(command + " --json"))
    official = {r["run_id"]: r for r in doc["results"] if r["scheme"] == doc["baseline"]}
    assert sorted(official) == [1, 2, 3]
    for run_id, cell in official.items():
        own = _metrics(lab, f"--run {run_id}")[0]
        assert cell["violation"] == pytest.approx(own["violation"]["mean"], abs=1e-12)
        assert cell["completeness"] == pytest.approx(own["completeness"]["mean"], abs=1e-12)
    taus = {r["scheme"]: r for r in doc["rank_agreement"]}
    assert taus[doc["baseline"]]["violation_tau"] == 1.0 and all(
        r["runs"] == 3 for r in taus.values()
    )


def test_peoples_labels_from_a_sheet(lab):
    """docs/labels.md's people's labels: a sheet of three contexts, filled and imported, their
    agreement with the personas, and the export of what was recorded."""
    template, imported, agreement, export = block("docs/labels.md", "## People's labels")
    lab.run(template)
    with (lab.cwd / "sheet.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and {r["profile"] for r in rows}
    for i, row in enumerate(rows):
        row["label"] = ("share", "withhold", "unsure")[i % 3]
        row["reviewer"] = "ana"
    with (lab.cwd / "sheet.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert f"{len(rows)}" in lab.run(imported)
    assert "kappa" in lab.run(agreement).lower()
    lab.run(export)
    with (lab.cwd / "people.csv").open(newline="") as f:
        assert len(list(csv.DictReader(f))) == len(rows)


def _guide_results(code: str, cwd: Path) -> list:
    """The guide's Python lines run in ``cwd``, each top-level expression's value kept (what a
    notebook would show)."""
    tree = ast.parse(code)
    for i, node in enumerate(tree.body):
        if isinstance(node, ast.Expr):
            call = ast.parse("_shown.append(None)").body[0]
            call.value.args = [node.value]  # type: ignore[attr-defined]
            tree.body[i] = ast.fix_missing_locations(ast.copy_location(call, node))
    namespace: dict = {"_shown": []}
    here = Path.cwd()
    os.chdir(cwd)
    try:
        exec(compile(tree, "docs/explore.md", "exec"), namespace)  # noqa: S102 - the guide's code
    finally:
        os.chdir(here)
    return namespace["_shown"]


def test_the_notebook_api_as_the_guide_shows_it(lab):
    """docs/explore.md's Python lines on the full-size database, as written."""
    code = re.search(r"```python\n(.*?)```", (REPO / "docs/explore.md").read_text(), re.S)
    assert code
    runs, verdicts, cells, kinds, recipients = _guide_results(code.group(1), lab.cwd)
    assert list(runs["name"]) == list(RUNS)
    assert len(verdicts) > 300_000 and set(verdicts["judge_id"]) == {1}
    assert verdicts[["message_id", "attr_id"]].equals(
        verdicts[["message_id", "attr_id"]].sort_values(["message_id", "attr_id"])
    )
    withheld = cells[cells["in_violation"]]
    by_attribute = withheld.groupby(["profile", "key"], observed=True)["leaks"].max() > 0
    own = _metrics(lab, "--run 1")[0]["violation"]["mean"]
    assert by_attribute.groupby(level="profile", observed=True).mean().mean() == pytest.approx(own)
    assert list(kinds.iloc[:, 0]) == ["imported"] and len(recipients) == 49


def test_the_example_notebook_on_a_full_size_database(lab, monkeypatch):
    """docs/explore.ipynb top to bottom on the lab's database (CIMEM_DB), as on the demo's."""
    printed = printed_by_example_notebook(lab.cwd / "my.duckdb", monkeypatch, seconds=600)
    assert "Violation@n from leak_cells" in printed


def test_the_extended_profile_set_labelled_run_and_compared(lab, tmp_path):
    """docs/labels.md's extended profile set, typed with its placeholders filled: the personas
    label (after a dry run), a model runs with those labels, and labels sensitivity compares it
    with a run of the original ten. On two of the 60 extended profiles (labelling all of them
    takes 88,200 calls): the file the user names holds those two."""
    profiles = json.loads(shared_file("profiles_extended.json").read_text())
    commands = block("docs/labels.md", "## The extended profile set")
    world = World()
    with FakeLLM(world) as server:
        server.keep_log = False
        shell = Typed(tmp_path / "work", endpoint=server.base_url)
        shell.cwd.mkdir()
        (shell.cwd / "profiles_extended.json").write_text(json.dumps(profiles[:2]))
        shell.run(f"cp {lab.cwd / 'lab.duckdb'} lab.duckdb")
        filled = {" M ": " llama-3.3-70b ", " M2 ": " qwen3-32b ", " L ": " 4 "}
        filled |= {"R_EXTENDED": "5", "R_ORIGINAL": "2"}
        said = []
        for command in commands:
            for placeholder, value in filled.items():
                command = command.replace(placeholder, value)
            said.append(shell.run(command))
    assert "dry run" in said[0].lower() and "labelling run 4" not in said[0]
    assert "labelling run 4" in said[1] or "run 4" in said[1]
    with Store.open(shell.cwd / "lab.duckdb", read_only=True) as store:
        assert store.run_config(4)["kind"] == "labels"
        assert store.labels_of_run(5) and len(store.messages_to_judge(5)) == 2 * 49 * 5
    compared = said[3]
    assert "5: " in compared and "2: judged" in compared
    assert "qwen3-32b" in said[4] and "judged" in said[4]
