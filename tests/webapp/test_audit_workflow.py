"""The audit workflow: judge coverage (a judge that judged part of a run is refused for run-level
numbers unless asked), one audit judge per (run, model, prompt), human verdicts with history,
corrected metrics and the audit sample, from the store, the CLI and the app."""

import csv
import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from apptest import APP
from streamlit.testing.v1 import AppTest

from cimem.analysis.coverage import PartialJudge, check_coverage, partial_note, require_coverage
from cimem.analysis.cube import cube_from_store
from cimem.demo.simulate import build_demo_database
from cimem.judges.base import OfflineJudge, rejudge
from cimem.store import Store
from cimem.store.schema import SCHEMA_VERSION

from fixtures import shown_tables


@pytest.fixture(scope="module")
def demo_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("audit") / "demo.duckdb"
    build_demo_database(path)
    return path


@pytest.fixture
def demo_copy(demo_path, tmp_path) -> Path:
    """A private copy of the demo database, for tests that write."""
    path = tmp_path / "demo.duckdb"
    path.write_bytes(demo_path.read_bytes())
    return path


def cli(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cimem", *args, "--db", str(db)], capture_output=True, text=True
    )


def audit_rejudge(store: Store, run_id: int, message_ids: list[int]) -> int:
    judge = OfflineJudge(name="offline judge (audit)")
    return rejudge(store, run_id, judge, message_ids=message_ids, audit=True).judge_id


# ----------------------------------------------------------------------------- coverage
def test_coverage_counts_judged_messages_and_audit_rejudges_share_one_judge(demo_copy):
    with Store.open(demo_copy) as store:
        before = {c.judge_id: c for c in store.judge_coverage(1)}
        assert all(not c.partial and c.total == c.judged > 0 for c in before.values())
        first = audit_rejudge(store, 1, [3])
        second = audit_rejudge(store, 1, [3, 4])  # message 3 again: replaced, not doubled
        third = audit_rejudge(store, 1, [9])
        assert first == second == third
        cov = {c.judge_id: c for c in store.judge_coverage(1)}[first]
        total = before[1].total
        assert (cov.judged, cov.total, cov.partial) == (3, total, True)
        assert len(store.judges(1)) == len(before) + 1
        # each message keeps one judgment of the audit judge
        assert set(store.message_judgments(3)) == {1, 2, first}
        # another run gets its own audit judge; a plain re-judge is still a new judge
        assert audit_rejudge(store, 2, [700]) != first
        plain = rejudge(store, 1, OfflineJudge(), message_ids=[3]).judge_id
        assert plain != first
        cube = cube_from_store(store, 1, first)
    assert cube.judge.endswith(f"3 of {total} messages")
    with pytest.raises(PartialJudge, match=f"judged 3 of {total} messages"):
        require_coverage(cube, False, "give --allow-partial")
    require_coverage(cube, True, "give --allow-partial")
    with pytest.raises(PartialJudge, match=f"judged 3 of {total} messages"):
        check_coverage([cube], False, "give --allow-partial")
    assert check_coverage([cube], True, "give --allow-partial") == [(cube.run, partial_note(cube))]


def test_cli_metrics_refuses_a_partial_judge_unless_allowed(demo_copy):
    with Store.open(demo_copy) as store:
        judge = audit_rejudge(store, 1, [1, 2])
        total = store.judge_coverage(1)[0].total
    out = cli(demo_copy, "metrics", "--run", "1", "--judge", str(judge))
    assert out.returncode == 2
    assert f"judge {judge} judged 2 of {total} messages" in out.stderr
    assert "--allow-partial" in out.stderr
    out = cli(demo_copy, "metrics", "--run", "1", "--judge", str(judge), "--allow-partial")
    assert out.returncode == 0, out.stderr
    assert f"every number below is over 2 of {total} messages" in out.stdout
    doc = json.loads(
        cli(
            demo_copy, "metrics", "--run", "1", "--judge", str(judge), "--allow-partial", "--json"
        ).stdout
    )
    assert doc["runs"][0]["coverage"] == {
        "judge_id": judge,
        "judged": 2,
        "total": total,
        "partial": True,
    }
    full = json.loads(cli(demo_copy, "metrics", "--run", "1", "--json").stdout)
    assert full["runs"][0]["coverage"]["partial"] is False
    assert full["runs"][0]["coverage"]["judged"] == total
    out = cli(demo_copy, "growth", "--run", "1", "--judge", str(judge))
    assert out.returncode == 2 and "--allow-partial" in out.stderr


@pytest.mark.parametrize(
    "page", ["webapp/pages/overview.py", "webapp/pages/leaks.py", "webapp/pages/growth.py"]
)
def test_pages_refuse_a_partial_judge_until_the_sidebar_allows_it(demo_copy, monkeypatch, page):
    with Store.open(demo_copy) as store:
        judge = audit_rejudge(store, 1, [1, 2])
        total = store.judge_coverage(1)[0].total
    monkeypatch.setenv("CIMEM_DB", str(demo_copy))
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["runs"] = "1"
    at.query_params["judge"] = str(judge)
    at.run()
    at.switch_page(page).run()
    assert not at.exception
    assert f"2 of {total} messages" in at.sidebar.selectbox(key="judge").format_func(judge)
    assert any(f"judged 2 of {total} messages" in w.value for w in at.warning)
    # nothing computed from it (Overview's leaderboard lists every run under its own judge)
    assert not at.dataframe and not at.table
    assert [t.columns[0] for t in shown_tables(at)] == (["run"] if "overview" in page else [])
    at.sidebar.checkbox(key="partial").check().run()
    assert not at.exception
    assert any(f"over 2 of {total} messages" in i.value for i in at.info)
    assert at.query_params["partial"] == ["1"] or at.query_params["partial"] == "1"


# ----------------------------------------------------------------------------- agreement
def test_kappa_is_undefined_where_a_judge_is_constant():
    import numpy as np

    from cimem.analysis.agreement import cohen_kappa, format_kappa, wilson_interval

    yes = np.ones(20, bool)
    varied = np.arange(20) % 3 == 0
    assert np.isnan(cohen_kappa(yes, yes))  # was reported as 1.0
    assert np.isnan(cohen_kappa(yes, varied)) and np.isnan(cohen_kappa(~yes, varied))
    assert format_kappa(cohen_kappa(yes, yes)) == "undefined"
    assert cohen_kappa(varied, varied) == 1.0
    lo, hi = wilson_interval(18, 20)
    assert 0.6 < lo < 0.9 < hi < 1.0
    lo, hi = wilson_interval(0, 5)
    assert lo == 0.0 and 0.3 < hi < 0.6


def test_agreement_per_stratum_with_intervals_from_the_cli(demo_copy):
    with Store.open(demo_copy) as store:  # a judge of two messages: agreement on those
        pair = f"1,{audit_rejudge(store, 1, [1, 2])}"
    out = cli(demo_copy, "agreement", "--run", "1", "--judges", pair, "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    strata = doc["by_stratum"]
    assert sum(s["n"] for s in strata.values()) == doc["overall"]["n"]
    assert all(" / " in k for k in strata)
    for s in strata.values():
        lo, hi = s["agreement_ci95"]
        assert lo <= s["agreement"] <= hi
        assert (s["kappa"] is None) == (not s["kappa_defined"])
        c = s["confusion"]
        constant = (c["both_yes"] + c["a_only"]) in (0, s["n"]) or (
            c["both_yes"] + c["b_only"]
        ) in (0, s["n"])
        assert (s["kappa"] is None) == constant
    assert any(s["kappa"] is None for s in strata.values())
    text = cli(demo_copy, "agreement", "--run", "1", "--judges", pair).stdout
    assert "by stratum (label / domain)" in text and "kappa undefined" in text
    assert "1.000" not in [line.split()[-1] for line in text.splitlines() if "n=1 " in line]


# ----------------------------------------------------------------------------- human verdicts
def test_each_reviewers_latest_is_current_and_disagreement_waits_for_adjudication(demo_copy):
    from cimem.store import HumanVerdict

    with Store.open(demo_copy) as store:
        human = store.get_or_create_human_judge(1)
        assert store.get_or_create_human_judge(1) == human  # one human judge per run
        store.add_human_verdicts(
            human,
            [
                HumanVerdict(5, 1, True, "ana", "states it"),
                HumanVerdict(5, 2, False, "ana", None),
            ],
        )
        store.set_human_verdict(human, 5, 1, False, "on a second look: no", reviewer="ben")
        current = store.human_verdicts(human)
        history = store.human_verdicts(human, history=True)
        # ben does not replace ana: each reviewer's latest verdict is current
        assert [(v.attr_id, v.revealed, v.reviewer) for v in current] == [
            (1, True, "ana"),
            (2, False, "ana"),
            (1, False, "ben"),
        ]
        assert all(v.current for v in history) and len(history) == 3

        def judged() -> dict[int, bool]:  # what metrics and agreement read as people's
            return {v.attr_id: v.revealed for v in store.message_verdicts(5) if v.judge_id == human}

        assert judged() == {2: False}  # they disagree on attribute 1: no verdict until settled
        assert store.settled_human_verdicts(human) == {(5, 2): False}
        store.set_human_verdict(human, 5, 1, False, "I misread it", reviewer="ana")
        assert judged() == {1: False, 2: False}  # ana changed her mind: they agree
        assert [v.current for v in store.human_verdicts(human, history=True)] == [
            False,
            True,
            True,
            True,
        ]
        store.set_human_verdict(human, 5, 1, True, None, reviewer="ben")
        assert judged() == {2: False}
        store.add_human_verdicts(
            human, [HumanVerdict(5, 1, True, "cy", "read twice", adjudication=True)]
        )
        assert judged() == {1: True, 2: False}  # the adjudication settles it
        cov = {c.judge_id: c for c in store.judge_coverage(1)}[human]
        assert cov.judged == 1 and cov.partial
        store.delete_run(1)
        assert store.human_verdicts(human, history=True) == []


def test_a_version_1_database_is_migrated_with_its_human_verdicts(tmp_path):
    import duckdb

    db = tmp_path / "old.duckdb"
    build_demo_database(db)
    with Store.open(db) as store:  # make it look like version 1: verdicts only, no history
        human = store.get_or_create_human_judge(1)
        store.set_human_verdict(human, 7, 3, True, "old note")
    con = duckdb.connect(str(db))
    con.execute("DROP TABLE human_verdicts")
    con.execute("UPDATE schema_info SET version = 1")
    con.close()
    with Store.open(db) as store:
        assert store.schema_version() == SCHEMA_VERSION == 7
        rows = store.human_verdicts(human)
        assert [(r.message_id, r.attr_id, r.revealed, r.note) for r in rows] == [
            (7, 3, True, "old note")
        ]
        store.set_human_verdict(human, 7, 3, False, None)
        assert len(store.human_verdicts(human, history=True)) == 2


def test_human_csv_round_trip_and_clear_errors(demo_copy, tmp_path):
    sample = tmp_path / "sample.csv"
    out = cli(
        demo_copy, "audit-sample", "--run", "1", "--size", "40", "--seed", "3", "--out", str(sample)
    )
    assert out.returncode == 0, out.stderr
    assert sample.read_text().startswith("message_id,profile,")
    # reviewer one fills the first half, leaves the rest unset
    import csv

    rows = list(csv.DictReader(sample.open()))
    assert len(rows) == 40  # messages in the sheet span lines inside their quotes
    for r in rows[:20]:
        r["revealed"] = "yes" if r["judge_says"] == "no" else "no"
    part = tmp_path / "part.csv"
    with part.open("w", newline="") as f:
        w = csv.DictWriter(f, rows[0].keys())
        w.writeheader()
        w.writerows(rows)
    out = cli(demo_copy, "human", "import", str(part), "--run", "1", "--reviewer", "ana")
    assert out.returncode == 0, out.stderr
    assert "recorded 20 human verdicts" in out.stdout and "20 rows left unset" in out.stdout
    exported = tmp_path / "exported.csv"
    assert cli(demo_copy, "human", "export", "--run", "1", "--out", str(exported)).returncode == 0
    back = list(csv.DictReader(exported.open()))
    assert len(back) == 20 and {r["reviewer"] for r in back} == {"ana"}
    assert {(r["message_id"], r["attr_id"], r["revealed"]) for r in back} == {
        (r["message_id"], r["attr_id"], r["revealed"]) for r in rows[:20]
    }
    # a bad value names the file, the line and the column; nothing is recorded
    rows[25]["revealed"] = "maybe"
    with part.open("w", newline="") as f:
        w = csv.DictWriter(f, rows[0].keys())
        w.writeheader()
        w.writerows(rows)
    out = cli(demo_copy, "human", "import", str(part), "--run", "1")
    assert out.returncode == 2
    line = row_starts(part)[25]  # messages span lines: the line row 26 starts on
    assert f"{part}: line {line}: column revealed: expected yes or no" in out.stderr
    out = cli(demo_copy, "human", "export", "--run", "1", "--out", str(exported), "--history")
    assert "wrote 20 verdicts with their history" in out.stdout
    rows[25]["revealed"] = "yes"
    rows[25]["attr_id"] = "999999"
    with part.open("w", newline="") as f:
        w = csv.DictWriter(f, rows[0].keys())
        w.writeheader()
        w.writerows(rows)
    out = cli(demo_copy, "human", "import", str(part), "--run", "1")
    assert out.returncode == 2 and f"line {line}: column attr_id" in out.stderr


def row_starts(path) -> list[int]:
    """The line each data row of a CSV starts on (a quoted cell may span lines)."""
    import csv

    with path.open(newline="") as f:
        reader = csv.reader(f)
        next(reader)
        starts, start = [], reader.line_num + 1
        for _ in reader:
            starts.append(start)
            start = reader.line_num + 1
    return starts


# ----------------------------------------------------------------------------- corrected metrics
def test_metrics_corrected_by_people_who_know_the_truth(demo_copy, tmp_path):
    """The demo's simulator verdicts play the people: the offline judge's Violation, corrected
    from 200 audited cells, moves toward the truth and the interval covers it."""
    from fixtures import fill_sample_with_truth

    sample = tmp_path / "sample.csv"
    assert cli(demo_copy, "audit-sample", "--run", "1", "--out", str(sample)).returncode == 0
    truth_judge = fill_sample_with_truth(demo_copy, sample)
    assert cli(demo_copy, "human", "import", str(sample), "--run", "1").returncode == 0
    with Store.open(demo_copy, read_only=True) as store:
        human = store.find_human_judge(1)
    truth = json.loads(
        cli(demo_copy, "metrics", "--run", "1", "--judge", str(truth_judge), "--json").stdout
    )
    true_v = truth["runs"][0]["violation"]["mean"]
    out = cli(demo_copy, "metrics", "--run", "1", "--corrected-by", str(human), "--json")
    assert out.returncode == 0, out.stderr
    run = json.loads(out.stdout)["runs"][0]
    corr = run["violation"]["corrected"]
    assert set(corr) >= {"mean", "ci95", "method", "audited_pairs", "strata", "judge_miss_rate"}
    cells = len(list(csv.DictReader(sample.open())))
    assert cells >= 200
    assert corr["audited_pairs"] + run["completeness"]["corrected"]["audited_pairs"] == cells
    assert "exact binomial" in corr["method"]
    assert [s["stratum"] for s in corr["strata"]] == ["judge yes", "judge no"]
    assert corr["strata"][0]["decided_draws"] > 0 and corr["strata"][1]["census"]
    assert corr["raw"] == run["violation"]["mean"]
    assert abs(corr["mean"] - true_v) < abs(run["violation"]["mean"] - true_v)
    assert corr["ci95"][0] <= true_v <= corr["ci95"][1]
    assert "corrected" in run["completeness"]
    print(
        f"\nover-sharer, offline judge: Violation@5 raw {run['violation']['mean']:.3f},"
        f" corrected {corr['mean']:.3f} {corr['ci95']}, truth {true_v:.3f}"
    )
    text = cli(demo_copy, "metrics", "--run", "1", "--corrected-by", str(human)).stdout
    assert "raw  corrected  95% interval" in text and "exact binomial" in text
    bad = cli(demo_copy, "metrics", "--run", "1", "--corrected-by", "1")
    assert bad.returncode == 2 and "human judge" in bad.stderr


# ----------------------------------------------------------------------------- the review queue
def test_review_queue_filters_counts_and_neighbours(demo_copy):
    from cimem.analysis.audit.queue import review_queue

    with Store.open(demo_copy) as store:
        q = review_queue(store, 1, 1, vs=2, filter="disagree")
        assert q.items and q.left == len(q.items) == q.counts["disagree"]
        for item in q.items[:20]:  # the two judges really differ on the listed attributes
            a = {
                v.attr_id: v.revealed
                for v in store.message_verdicts(item.message_id)
                if v.judge_id == 1
            }
            b = {
                v.attr_id: v.revealed
                for v in store.message_verdicts(item.message_id)
                if v.judge_id == 2
            }
            assert any(a[x] != b[x] for x in a) and item.attributes
        keys = [(i.profile, i.ctx_idx, i.trial) for i in q.items]
        assert keys == sorted(keys)
        first, second = q.items[0].message_id, q.items[1].message_id
        assert q.neighbours(first) == (None, second)
        assert q.neighbours(second)[0] == first
        assert q.neighbours(10**9) == (None, first)
        # a person's verdict takes the message off what is left, not off the queue
        store.set_human_verdict(store.get_or_create_human_judge(1), first, 1, False, None)
        again = review_queue(store, 1, 1, vs=2, filter="disagree")
        assert len(again.items) == len(q.items) and again.left == q.left - 1
        assert review_queue(store, 1, 1, filter="unreviewed").counts["unreviewed"] == 659
        name = q.items[0].profile
        narrowed = review_queue(store, 1, 1, vs=2, filter="disagree", profile=name.upper())
        assert narrowed.items and {i.profile for i in narrowed.items} == {name}
        leaked = review_queue(store, 1, 1, filter="leaked")
        assert leaked.items and all("leaked" in i.reasons for i in leaked.items)
        key = leaked.items[0].attributes[0]
        by_key = review_queue(store, 1, 1, filter="leaked", attribute=key)
        assert by_key.items and all(any(key in a for a in i.attributes) for i in by_key.items)


def test_audit_queue_cli(demo_copy):
    out = cli(demo_copy, "audit-queue", "--run", "1", "--vs", "2", "--filter", "disagree", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["total"] > 0 and doc["left"] == doc["total"]  # nobody has reviewed yet
    assert len(doc["items"]) == min(50, doc["total"])  # --limit applies to JSON too
    assert doc["filter"] == "disagree" and doc["vs"] == 2
    text = cli(demo_copy, "audit-queue", "--run", "1", "--vs", "2", "--filter", "disagree").stdout
    assert text.startswith(f"run 1: {doc['left']} of {doc['total']} left (filter disagree")
    bad = cli(demo_copy, "audit-queue", "--run", "1", "--filter", "disagree")
    assert bad.returncode == 2 and "--vs" in bad.stderr


# ----------------------------------------------------------------------------- the Audit page
def open_app(db: Path, monkeypatch, page: str | None = None, **params) -> AppTest:
    monkeypatch.setenv("CIMEM_DB", str(db))
    at = AppTest.from_file(APP, default_timeout=180)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    if page is not None:
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown_message(at: AppTest) -> int:
    head = next(m.value for m in at.markdown if m.value.startswith("**Message "))
    return int(head.split()[1].strip("*"))


def test_audit_queue_steps_through_disagreements_and_keeps_the_filter(demo_copy, monkeypatch):
    at = open_app(demo_copy, monkeypatch, "webapp/pages/audit.py", runs="1", qf="disagree", qvs="2")
    with Store.open(demo_copy) as store:
        from cimem.analysis.audit.queue import review_queue

        queue = review_queue(store, 1, None, vs=2, filter="disagree")
    ids = [i.message_id for i in queue.items]
    count = next(m.value for m in at.markdown if "left** to review" in m.value)
    assert count.startswith(f"**{queue.left} of {len(ids)} left**")
    assert shown_message(at) == ids[0]
    assert at.button(key="q_prev").disabled
    at.button(key="q_next").click().run()
    assert shown_message(at) == ids[1]
    assert at.query_params["qf"] in ("disagree", ["disagree"])
    assert at.query_params["message"] in (str(ids[1]), [str(ids[1])])
    at.button(key="q_next").click().run()
    at.button(key="q_prev").click().run()
    assert shown_message(at) == ids[1]


def test_a_message_left_out_of_the_queue_says_so(demo_copy, monkeypatch):
    at = open_app(demo_copy, monkeypatch, "webapp/pages/audit.py", runs="1")
    at.button(key="q_next").click().run()  # a message chosen: it is in the URL
    shown = shown_message(at)
    assert not [c for c in at.caption if "is not in this queue" in c.value]
    at.text_input(key="qp").input("zzz-no-such-profile").run()  # the queue empties
    assert not at.exception
    assert next(m.value for m in at.markdown if "left** to review" in m.value).startswith(
        "**0 of 0 left**"
    )
    assert shown_message(at) == shown  # still open, and the page says why it is there
    (note,) = [c.value for c in at.caption if "is not in this queue" in c.value]
    assert note.startswith(f"Message {shown} is not in this queue (no message matches")


def test_a_long_queue_lists_the_messages_around_the_one_shown(demo_copy, monkeypatch):
    from webapp.panels.audit import queue

    monkeypatch.setattr(queue, "PICKER_AROUND", 2)
    with Store.open(demo_copy) as store:
        from cimem.analysis.audit.queue import review_queue

        ids = [i.message_id for i in review_queue(store, 1, None, vs=2, filter="disagree").items]
    assert len(ids) > 8
    for at_index, window in ((4, ids[2:7]), (0, ids[:5]), (len(ids) - 1, ids[-5:])):
        at = open_app(
            demo_copy,
            monkeypatch,
            "webapp/pages/audit.py",
            runs="1",
            qf="disagree",
            qvs="2",
            message=str(ids[at_index]),
        )
        picker = at.selectbox(key=f"q_pick_{ids[at_index]}")
        assert [int(o.split(" ")[0].lstrip("✓ ")) for o in picker.options] == window
        first = ids.index(window[0]) + 1
        assert f"{first}-{first + 4} of {len(ids)}" in picker.label
        assert picker.value == ids[at_index]


def test_audit_deep_link_has_the_picker_and_records_only_what_was_set(demo_copy, monkeypatch):
    with Store.open(demo_copy) as store:
        judged = {v.attr_id: v.revealed for v in store.message_verdicts(5) if v.judge_id == 1}
        keys = {a.attr_id: a.key for a in store.attributes_of(1)}
    missed = next(a for a, yes in judged.items() if not yes)  # no judge says it is revealed
    at = open_app(demo_copy, monkeypatch, "webapp/pages/audit.py", runs="1", message="5")
    assert shown_message(at) == 5
    picker = at.selectbox(key="q_pick_5")
    assert picker.value == 5  # a picker even when arriving by link
    assert not [r for r in at.radio if r.key and r.key.startswith("hv_")]  # folded: not drawn
    at.session_state["people_record"] = True  # what opening the section does
    at.run()
    radios = [r for r in at.radio if r.key and r.key.startswith("hv_5_")]
    assert radios and all(r.value is None for r in radios)  # unset by default
    assert f"hv_5_{missed}" not in [r.key for r in radios]
    listed = [r.key for r in radios]
    at.text_input(key="h_search_5").input(keys[missed]).run()
    after = [r.key for r in at.radio if r.key and r.key.startswith("hv_5_")]
    assert after[: len(listed)] == listed and after[len(listed) :] == [f"hv_5_{missed}"]
    at.radio(key=f"hv_5_{missed}").set_value("revealed")
    at.text_input(key="hn_5").input("the judge missed it")
    at.text_input(key="reviewer").input("ana")
    at.button(key=[b.key for b in at.button if b.label == "Save my verdicts"][0]).click().run()
    assert not at.exception
    assert any("Stored 1 verdict as judge" in s.value for s in at.success)
    with Store.open(demo_copy) as store:
        human = store.find_human_judge(1)
        rows = store.human_verdicts(human)
    assert [(r.message_id, r.attr_id, r.revealed, r.reviewer, r.note) for r in rows] == [
        (5, missed, True, "ana", "the judge missed it")
    ]
    # the judge's errors against people's verdicts appear and count the miss
    at.run()
    assert any("against people's verdicts" in m.value for m in at.markdown)
    # two machine judges stay compared by default (people's verdicts are compared above)
    assert at.selectbox(key="jb").value != human and at.selectbox(key="ja").value != human


def test_overview_shows_raw_and_corrected_when_people_audited(demo_copy, monkeypatch):
    from cimem.store import HumanVerdict

    from fixtures import fill_sample_with_truth

    sample = demo_copy.parent / "sample.csv"
    assert cli(demo_copy, "audit-sample", "--run", "1", "--out", str(sample)).returncode == 0
    fill_sample_with_truth(demo_copy, sample)  # the audit's first draws, decided in order
    with Store.open(demo_copy) as store:
        verdicts = [
            HumanVerdict(int(r["message_id"]), int(r["attr_id"]), r["revealed"] == "yes", "t", None)
            for r in csv.DictReader(sample.open())
        ]
        store.add_human_verdicts(store.get_or_create_human_judge(1), verdicts)
    at = open_app(demo_copy, monkeypatch, None, runs="1")
    assert "Corrected for the judge's errors" in [s.value for s in at.subheader]
    (table,) = [h.value for h in at.html if "corrected 95% CI" in h.value]  # a plain table
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", table)
    assert cells[0] == "Violation@n %" and cells[len(cells) // 2] == "Completeness %"
    row = len(cells) // 2
    raw, fixed = (float(cells[i]) for i in (1, 2))  # metric, raw, corrected, ...
    assert all(float(cells[i + 2]) >= 0 for i in (0, row))  # both corrected
    assert raw != fixed  # the judge's false reveals
    assert any("exact binomial 95% interval" in c.value for c in at.caption)


# ----------------------------------------------------------------------------- real data
def test_the_workflow_on_the_shared_persistbench_file(tmp_path):
    """One profile, one trial, an imported LLM judge with parse failures: the queue, coverage,
    a sample filled from a second judge, and the correction all work and agree with the store."""
    import csv

    from cimem.analysis.audit.queue import review_queue
    from cimem.ingest import ingest_file
    from cimem.store import JudgmentStatus

    from conftest import shared_file

    db = tmp_path / "pb.duckdb"
    with Store.open(db) as store:
        run = ingest_file(store, shared_file("persistbench_llama33_jeffery_day.json")).run_id
        offline = rejudge(store, run, OfflineJudge()).judge_id
        unparsed = [
            m for m, j in store.judgments_of(1).items() if j.status == JudgmentStatus.PARSE_FAILURE
        ]
        q = review_queue(store, run, 1, filter="parse_failure")
        assert sorted(i.message_id for i in q.items) == sorted(unparsed) and unparsed
        assert all(not c.partial for c in store.judge_coverage(run))
        dis = review_queue(store, run, 1, vs=offline, filter="disagree")
        # disagreements are over pairs both judges decided: parse failures have their own filter
        assert dis.items and not set(unparsed) & {i.message_id for i in dis.items}
    sample = tmp_path / "s.csv"
    out = cli(db, "audit-sample", "--run", str(run), "--size", "30", "--out", str(sample))
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader(sample.open()))
    assert len(rows) >= 30 and {r["trial"] for r in rows} == {"0"}
    with Store.open(db, read_only=True) as store:
        for r in rows:
            said = {
                v.attr_id: v.revealed
                for v in store.message_verdicts(int(r["message_id"]))
                if v.judge_id == offline
            }
            r["revealed"] = "yes" if said[int(r["attr_id"])] else "no"
    with sample.open("w", newline="") as f:
        w = csv.DictWriter(f, rows[0].keys())
        w.writeheader()
        w.writerows(rows)
    assert cli(db, "human", "import", str(sample), "--run", str(run)).returncode == 0
    with Store.open(db, read_only=True) as store:
        human = store.find_human_judge(run)
    doc = json.loads(
        cli(db, "metrics", "--run", str(run), "--corrected-by", str(human), "--json").stdout
    )["runs"][0]
    corr, comp = doc["violation"]["corrected"], doc["completeness"]["corrected"]
    assert corr["audited_pairs"] + comp["audited_pairs"] == len(rows)
    for c in (corr, comp):  # corrected, or not yet with the reason
        assert c.get("not_estimated") or c["ci95"][0] <= c["mean"] <= c["ci95"][1]
    assert doc["n_trials"] == 1


def test_the_suggested_sample_as_a_queue_shows_progress(demo_copy, tmp_path, monkeypatch):
    import csv

    out = cli(demo_copy, "audit-queue", "--run", "1", "--filter", "sample", "--size", "40")
    assert out.returncode == 0, out.stderr
    sample = tmp_path / "s.csv"
    cli(demo_copy, "audit-sample", "--run", "1", "--size", "40", "--out", str(sample))
    rows = list(csv.DictReader(sample.open()))
    draws = len({r["draw"] for r in rows})
    assert f"0 of {draws} draws decided (0 of {len(rows)} cells)" in out.stdout
    for r in rows[:10]:
        r["revealed"] = "no"
    with sample.open("w", newline="") as f:
        w = csv.DictWriter(f, rows[0].keys())
        w.writeheader()
        w.writerows(rows)
    assert cli(demo_copy, "human", "import", str(sample), "--run", "1").returncode == 0
    out = cli(demo_copy, "audit-queue", "--run", "1", "--filter", "sample", "--size", "40")
    assert f"of {len(rows)} cells)" in out.stdout and "(10 of" in out.stdout
    doc = json.loads(
        cli(
            demo_copy, "audit-queue", "--run", "1", "--filter", "sample", "--size", "40", "--json"
        ).stdout
    )
    assert doc["counts"]["cells"] == len(rows) and doc["counts"]["cells_decided"] == 10
    assert doc["counts"]["draws"] == draws
    assert {i["message_id"] for i in doc["items"]} == {int(r["message_id"]) for r in rows}
    # "reviewed" means the same in every queue: people recorded a verdict on the message
    unreviewed = json.loads(
        cli(
            demo_copy,
            "audit-queue",
            "--run",
            "1",
            "--filter",
            "unreviewed",
            "--limit",
            "0",
            "--json",
        ).stdout
    )
    waiting = {i["message_id"] for i in unreviewed["items"]}
    assert any(i["reviewed"] for i in doc["items"])
    done = {
        d for d in {r["draw"] for r in rows} if all(r in rows[:10] for r in rows if r["draw"] == d)
    }
    for item in doc["items"]:
        assert item["reviewed"] == (item["message_id"] not in waiting)
        mine = [i for i, r in enumerate(rows) if int(r["message_id"]) == item["message_id"]]
        assert item["cells_left"] == sum(i >= 10 and rows[i]["draw"] not in done for i in mine)
    # the same sample on the Audit page, its progress, its cells listed for a verdict
    at = open_app(demo_copy, monkeypatch, "webapp/pages/audit.py", runs="1", qf="sample", qn="40")
    count = next(m.value for m in at.markdown if "left** to review" in m.value)
    assert f"{len(done)} of {draws} sampled draws decided (the corrected numbers" in count
    plan = next(c.value for c in at.caption if c.value.startswith("For +/- 3 points"))
    assert "more cells (" in plan and "judge yes" in plan
    first = shown_message(at)
    at.session_state["people_record"] = True
    at.run()
    wanted = {int(r["attr_id"]) for r in rows if int(r["message_id"]) == first}
    listed = {int(r.key.split("_")[-1]) for r in at.radio if r.key and r.key.startswith("hv_")}
    assert wanted <= listed


def test_side_by_side_two_judges_and_another_run(demo_copy, monkeypatch):
    from webapp.panels.audit.side_by_side import TWO_RUNS

    with Store.open(demo_copy) as store:
        others = store.counterparts(5)
        detail = store.message_detail(5)
        other = store.message_detail(others[0].message_id)
    assert others and detail is not None and other is not None
    assert (other.profile, other.task, other.trial) == (detail.profile, detail.task, detail.trial)
    at = open_app(demo_copy, monkeypatch, "webapp/pages/audit.py", runs="1", message="5")
    assert "Side by side" in [s.value for s in at.subheader]
    left, right = at.selectbox(key="sbs_ja"), at.selectbox(key="sbs_jb")
    assert left.value != right.value
    legend = [h.value for h in at.html if "private attribute leaked" in h.value]
    assert len(legend) == 2  # the message's, and the side by side's with its note
    assert "Only here: the other side" in legend[1]
    assert '<mark class="cimem-ev leaked">' in legend[1] and "-background[" not in legend[1]
    messages = [h.value for h in at.html if 'class="cimem-msg"' in h.value]
    assert len(messages) == 3  # the message, then under each of the two judges
    at.radio(key="sbs_how").set_value(TWO_RUNS).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="sbs_run").value == others[0].run_id
    messages = [h.value for h in at.html if 'class="cimem-msg"' in h.value]
    drawn = html.unescape(re.sub(r"<style>.*?</style>|<[^>]*>", "", messages[2]))
    assert len(messages) == 3 and drawn == other.text  # the other run's message, exactly
    assert any(f"message {other.message_id}, trial {other.trial}" in c.value for c in at.caption)


def test_the_history_of_peoples_verdicts_is_drawn_only_when_opened(demo_copy, monkeypatch):
    from cimem.store import HumanVerdict

    with Store.open(demo_copy) as store:
        human = store.get_or_create_human_judge(1)
        store.add_human_verdicts(human, [HumanVerdict(5, 1, True, "ana", "states it")])
    at = open_app(demo_copy, monkeypatch, "webapp/pages/audit.py", runs="1", message="5")
    assert shown_message(at) == 5
    grids = lambda: [d.value for d in at.dataframe if "reviewer" in d.value.columns]  # noqa: E731
    assert not grids()  # folded: not drawn
    at.session_state["people_history"] = True  # what opening it does
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [list(g["reviewer"]) for g in grids()] == [["ana"]]


def test_any_message_opens_from_its_profile_task_and_trial(demo_copy, monkeypatch):
    from cimem.analysis.cube import cube_from_store

    at = open_app(demo_copy, monkeypatch, "webapp/pages/audit.py", runs="1", message="5")
    assert shown_message(at) == 5
    [s for s in at.selectbox if s.label == "Profile"][0].set_value(1).run()  # the second
    (context,) = [s for s in at.selectbox if s.label == "Context"]
    ctx = context.value  # the first task of that profile
    [n for n in at.number_input if n.label == "Trial"][0].set_value(1).run()
    at.button(key="open_picked").click().run()
    assert not at.exception, [e.value for e in at.exception]
    with Store.open(demo_copy) as store:
        cube = cube_from_store(store, 1, None)
        profile_ids, ctx_local, _ = cube.store_ids()
        want = store.find_message(1, int(profile_ids[1]), int(ctx_local[ctx]), 1)
    assert want is not None and want != 5 and shown_message(at) == want
    head = next(m.value for m in at.markdown if m.value.startswith("**Message "))
    assert cube.profile_names[1] in head.replace("\\", "") and "trial 1" in head


def test_a_reply_that_did_not_parse_is_shown_and_told_as_what_happened(tmp_path, monkeypatch):
    """The real PersistBench file's judge replies whose ids were positions: the Audit page says
    what happened and how the numbers count it, and shows the stored reply as text; the
    Explore view ``judgments`` gives the same reply."""
    import cimem
    from cimem.ingest import ingest_file

    from conftest import shared_file

    db = tmp_path / "pb.duckdb"
    with Store.open(db) as store:
        run = ingest_file(store, shared_file("persistbench_llama33_jeffery_day.json")).run_id
        judge = store.find_default_judge(run)
        failed = {
            m: j for m, j in store.judgments_of(judge).items() if str(j.status) == "parse_failure"
        }
    message, judgment = next(iter(failed.items()))
    at = open_app(db, monkeypatch, "webapp/pages/audit.py", runs=str(run), message=str(message))
    (said,) = [w.value for w in at.warning if "could not be read" in w.value]
    assert said.startswith(f"Judge {judge}'s reply") and "official mode counts" in said
    shown_text = [h.value for h in at.html] + [m.value for m in at.markdown]
    assert any(html.escape(judgment.raw[:40]) in t for t in shown_text)
    replies = cimem.open(db).judgments(run)
    shown = replies.loc[replies["message_id"] == message, "reply"].iloc[0]
    assert shown == judgment.raw and replies.loc[replies["status"] == "ok", "reply"].isna().all()
