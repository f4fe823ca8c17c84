"""The audit workflow: judge coverage (a judge that judged part of a run is refused for run-level
numbers unless asked), one audit judge per (run, model, prompt), human verdicts with history,
corrected metrics and the audit sample, from the store, the CLI and the app."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from cimem.analysis.coverage import PartialJudge, require_coverage
from cimem.analysis.cube import cube_from_store
from cimem.demo.simulate import build_demo_database
from cimem.judges.base import OfflineJudge, rejudge
from cimem.store import Store

APP = str(Path(__file__).resolve().parents[1] / "app.py")


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
    assert not at.dataframe  # nothing computed from it
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
