"""docs/cli.md's "A team's audit, end to end", typed as documented on a full-size run (10 profiles
x 5 trials, a judge missing a fifth of what messages state and adding 2% false reveals): the
sample is split between two reviewers by whole draws, each answering from the truth; the
corrected numbers come out, follow the sample's draws, and their intervals hold the truth."""

from __future__ import annotations

import csv
import json
import re

import pytest
from full_size import fill_sheet, truth_table
from typed import Typed, block

from conftest import REPO

COMMANDS = block("docs/cli.md", "### A team's audit, end to end")


@pytest.fixture(scope="module")
def audited(full_run, tmp_path_factory):
    """The documented audit, run once: the shell it ran in and what each command printed."""
    shell = Typed(tmp_path_factory.mktemp("team_audit") / "work")
    shell.cwd.mkdir()
    full_run.copy_db(shell.cwd / "my.duckdb")
    sample, imports, rest = COMMANDS[0], COMMANDS[1:3], COMMANDS[3:]
    assert "audit-sample" in sample and all("human import" in c for c in imports)
    said = [shell.run(sample)]
    truth = truth_table(full_run.truth)
    split = fill_sheet(
        shell.cwd / "sample.csv",
        truth,
        {"ana": shell.cwd / "ana.csv", "ben": shell.cwd / "ben.csv"},
    )
    assert split["ana"] and split["ben"]
    said += shell.run_all(imports) + shell.run_all(rest)
    return shell, said


def _truth(shell: Typed, full_run) -> dict:
    out = shell.run(f"python -m cimem metrics --results {full_run.truth} --json")
    return json.loads(out)["runs"][0]


def test_the_corrected_numbers_come_out_and_hold_the_truth(audited, full_run):
    shell, said = audited
    printed = said[COMMANDS.index(next(c for c in COMMANDS if "--corrected-by" in c))]
    assert "Corrected from people's verdicts" in printed and "not corrected" not in printed
    assert "following the audit sample of seed 0" in printed
    doc = json.loads(shell.run(next(c for c in COMMANDS if "--corrected-by" in c) + " --json"))
    run = doc["runs"][0]
    truth = _truth(shell, full_run)
    for metric in ("violation", "completeness"):
        fixed, true = run[metric]["corrected"], truth[metric]["mean"]
        assert fixed["mean"] is not None, fixed.get("not_estimated")
        low, high = fixed["ci95"]
        assert low <= true <= high, (metric, true, fixed)
        assert abs(fixed["mean"] - true) < abs(run[metric]["mean"] - true)  # nearer than raw
    assert run["violation"]["mean"] > 0.7 and truth["violation"]["mean"] < 0.35  # raw is far off
    unflagged = run["violation"]["corrected"]["strata"][1]  # needs no reading: known in full
    assert unflagged["census"] and unflagged["decided_draws"] == unflagged["units"] < 4096
    assert run["judge_error"]["audit_sample"] == {
        "seed": 0,
        "noted": True,
        "said": "the audit sample of seed 0",
    }


def test_both_reviewers_count_and_agree_where_they_overlap(audited):
    shell, said = audited
    assert all("recorded" in s and "rows of judge 1, seed 0" in s for s in said[1:3])
    printed = said[COMMANDS.index(next(c for c in COMMANDS if "human agreement" in c))]
    assert "2 reviewers" in printed and "ana" in printed and "ben" in printed
    assert "Cohen's kappa" in printed and "0 cells to adjudicate" in printed  # both tell the truth


def test_the_plan_says_how_much_more_audit_a_margin_takes(audited):
    """The plan's suggested command lists exactly cells still needed: the next undecided ones
    in review order, as many as it says (whole draws), none of them decided by people."""
    shell, said = audited
    printed = said[COMMANDS.index(next(c for c in COMMANDS if "audit-plan" in c))]
    found = re.search(r"about ([\d,]+) more cells: `cimem (audit-sample [^`]+)`", printed)
    assert found, printed
    cells = int(found.group(1).replace(",", ""))
    assert "--undecided" in found.group(2) and f"--size {cells}" in found.group(2)
    shell.run(f"python -m cimem {found.group(2)} --db my.duckdb --out more.csv")
    with (shell.cwd / "more.csv").open(newline="") as f:
        more = list(csv.DictReader(f))
    with (shell.cwd / "sample.csv").open(newline="") as f:
        first = list(csv.DictReader(f))
    decided = {(r["message_id"], r["attr_id"]) for r in first}
    assert more and not decided & {(r["message_id"], r["attr_id"]) for r in more}
    last_draw = [r for r in more if r["draw"] == more[-1]["draw"]]
    assert len(more) - len(last_draw) < cells <= len(more)  # whole draws, no more than needed
    assert int(more[0]["draw"]) > max(int(r["draw"]) for r in first)


def test_the_sheet_carries_what_a_reviewer_needs_to_decide(audited):
    """Each row of the sample's sheet has the memory statement, the judge's evidence where it
    said yes, and the message (an excerpt around the evidence when long)."""
    shell, _ = audited
    with (shell.cwd / "sample.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert all(r["memory_statement"] and r["message_excerpt"] for r in rows)
    said_yes = [r for r in rows if r["judge_says"] == "yes"]
    assert said_yes and all(r["judge_evidence"] for r in said_yes)
    # the fabricated messages are short placeholders: each excerpt is its whole message (the
    # evidence's marking in a long message is excerpt()'s doctest)
    assert all(r["message_excerpt"].startswith("[synthetic message, trial") for r in rows)


def test_disputes_are_named_with_the_command_that_settles_them(audited, tmp_path):
    """A second reviewer contradicting ana on three cells: the corrected metrics say the
    disputes stop the count and name the command listing them, and that queue counts them."""
    shell, _ = audited
    work = Typed(tmp_path / "dispute")
    work.cwd.mkdir()
    (work.cwd / "my.duckdb").write_bytes((shell.cwd / "my.duckdb").read_bytes())
    with (shell.cwd / "ana.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))[:3]
    flipped = [
        r | {"reviewer": "cy", "revealed": "no" if r["revealed"] == "yes" else "yes"} for r in rows
    ]
    with (work.cwd / "cy.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(flipped)
    work.run("python -m cimem human import cy.csv --db my.duckdb --run 1")
    printed = work.run(next(c for c in COMMANDS if "--corrected-by" in c))
    assert "3 cells reviewers disagree on decide nothing until settled" in printed, printed
    assert "`cimem audit-queue --run 1 --filter people_disagree`" in printed
    queue = work.run("python -m cimem audit-queue --db my.duckdb --run 1 --filter people_disagree")
    assert re.search(r"\b(\d+) of \1 left \(filter people_disagree", queue), queue


def test_the_sample_and_its_draws_are_the_same_from_another_process(audited):
    """Two processes list the same sample, row for row: the draws metrics counts are the ones
    people were given."""
    shell, _ = audited
    sample = COMMANDS[0].replace("--out sample.csv", "--out again.csv")
    shell.run(sample)
    assert (shell.cwd / "again.csv").read_bytes() == (shell.cwd / "sample.csv").read_bytes()


def test_asking_for_other_draws_names_the_mismatch(audited):
    shell, _ = audited
    other = next(c for c in COMMANDS if "--corrected-by" in c) + " --seed 5 --json"
    fixed = json.loads(shell.run(other))["runs"][0]["violation"]["corrected"]
    assert fixed["mean"] is None and "seed 5 draws others" in fixed["not_estimated"]
    mode = next(c for c in COMMANDS if "--corrected-by" in c) + " --mode definition --json"
    fixed = json.loads(shell.run(mode))["runs"][0]["violation"]["corrected"]
    assert fixed["mean"] is None and "under definition" in fixed["not_estimated"]


def test_the_figures_the_guide_quotes_are_this_audits(audited, full_run):
    """docs/cli.md quotes this audit's raw, true and corrected numbers: they are what it gives."""
    shell, _ = audited
    doc = json.loads(shell.run(next(c for c in COMMANDS if "--corrected-by" in c) + " --json"))
    run, truth = doc["runs"][0], _truth(shell, full_run)
    guide = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    quoted = re.search(
        r"raw Violation@5 of (\d+)% against a true (\d+)%; these 400 cells correct it to\s+(\d+)%"
        r" with a 95% interval of \[(\d+)%, (\d+)%\] \(Completeness: raw (\d+)%, corrected"
        r" (\d+)% \[(\d+)%, (\d+)%\], true\s+(\d+)%\)",
        guide,
    )
    assert quoted, "the guide's sentence on the team audit's figures was not found"
    v, c = run["violation"], run["completeness"]
    measured = [
        v["mean"],
        truth["violation"]["mean"],
        v["corrected"]["mean"],
        *v["corrected"]["ci95"],
        c["mean"],
        c["corrected"]["mean"],
        *c["corrected"]["ci95"],
        truth["completeness"]["mean"],
    ]
    assert [int(x) for x in quoted.groups()] == [round(100 * x) for x in measured]


def test_an_export_of_peoples_verdicts_says_which_draw_each_answers(audited):
    """`human export` gives each verdict of the sample its label, the judge's verdict, stratum,
    draw and sample, as the sheet people filled wrote them."""
    import csv

    shell, _ = audited
    shell.run("python -m cimem human export --db my.duckdb --run 1 --out people.csv")
    with (shell.cwd / "people.csv").open(newline="") as f:
        exported = list(csv.DictReader(f))
    with (shell.cwd / "sample.csv").open(newline="") as f:
        sheet = {(r["message_id"], r["attr_id"]): r for r in csv.DictReader(f)}
    assert exported and all((r["message_id"], r["attr_id"]) in sheet for r in exported)
    for row in exported:
        given = sheet[(row["message_id"], row["attr_id"])]
        for column in ("label", "judge_says", "stratum", "draw", "sample"):
            assert row[column] == given[column], column
