"""The Data page's message health: drawn only when opened, one table of counts per flag and one of
the metrics with and without the flagged messages per selected run, the numbers of
``cimem health``; and the Audit queue's filter of the flagged messages."""

from apptest import PAGES, no_exception, open_page

from cimem.analysis.health import flagged, read_health, scan
from cimem.store import Store

from fixtures import shown_tables

COUNT_COLUMNS = ["flag", "what it means", "messages", "examples (message ids)"]
METRIC_COLUMNS = ["messages", "Violation@5 %", "Completeness %", "profiles measured"]


def test_data_page_draws_message_health_when_opened(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[5], monkeypatch, runs="2,3")
    no_exception(at)
    assert "Message health" in [h.value for h in at.header]
    assert not [t for t in shown_tables(at) if list(t.columns) == COUNT_COLUMNS]  # folded
    at.session_state["data_health"] = True  # what opening it does
    at.run()
    no_exception(at)
    tables = shown_tables(at)
    counts = [t for t in tables if list(t.columns) == COUNT_COLUMNS]
    metrics = [t for t in tables if list(t.columns) == METRIC_COLUMNS]
    assert len(counts) == len(metrics) == 2  # one of each per selected run
    with Store.open(demo_db, read_only=True) as store:
        want = [read_health(store, r) for r in (2, 3)]
    for table, rep in zip(counts, want):
        assert table["flag"].tolist() == [str(c.flag) for c in rep.counts]
        assert table["messages"].tolist() == [f"{c.messages:,}" for c in rep.counts]
    side = want[0].metrics[0]
    assert metrics[0]["messages"].tolist() == ["all messages", "without flagged"]
    assert metrics[0]["Completeness %"].tolist() == [
        f"{100 * side.all.completeness.mean:,.2f}",
        f"{100 * side.clean.completeness.mean:,.2f}",
    ]
    assert metrics[0]["profiles measured"].tolist() == ["6", "6"]
    captions = " ".join(c.value for c in at.caption)
    assert "660 full-memory messages, 9 flagged (1.4%)" in captions
    assert "SIMULATED" in captions and "mode **official**" in captions


def test_audit_queue_offers_the_flagged_messages(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[3], monkeypatch, runs="2", qf="flagged")
    no_exception(at)
    assert at.selectbox(key="qf").value == "flagged"
    pick = next(s for s in at.selectbox if (s.key or "").startswith("q_pick_"))
    shown = {int(option.split(" · ")[0]) for option in pick.options}
    with Store.open(demo_db, read_only=True) as store:
        frame = scan(store.health_messages(2))
    assert shown == set(frame.loc[flagged(frame), "message_id"])
    assert any(m.value.startswith(f"**{len(shown)} of {len(shown)} left**") for m in at.markdown)
