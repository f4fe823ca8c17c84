"""The Review page: one cell at a time, one key per verdict, in the audit's order."""

from __future__ import annotations

import shutil

from apptest import no_exception, open_page

from cimem.store import Store

REVIEW = "webapp/pages/review.py"


def summary(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("Cell "))


def button(at, label: str):
    return next(b for b in at.button if b.label == label)


def test_a_verdict_is_stored_and_the_next_needed_cell_shown(demo_db, tmp_path, monkeypatch):
    db = tmp_path / "review.duckdb"
    shutil.copy(demo_db, db)
    at = open_page(str(db), REVIEW, monkeypatch, runs="1")
    no_exception(at)
    assert summary(at).startswith("Cell 1 of")
    rows = at.session_state["review_rows"][1]
    assert "judge says" in " ".join(m.value for m in at.markdown)
    button(at, "Not revealed").click().run()
    no_exception(at)
    with Store.open(db, read_only=True) as store:
        (v,) = store.human_verdicts(store.find_human_judge(1))
    assert (v.message_id, v.attr_id, v.revealed) == (rows[0].message_id, rows[0].attr_id, False)
    assert summary(at).startswith("Cell 2 of")
    # a private draw found revealed at its first cell needs none of its other cells
    first_private = next(i for i, r in enumerate(rows) if r.stratum.startswith("private"))
    at.session_state["review_at"] = first_private
    at.run()
    button(at, "Revealed").click().run()
    no_exception(at)
    draw = rows[first_private].draw
    rest = [i for i, r in enumerate(rows) if r.draw == draw and i != first_private]
    shown = int(summary(at).split()[1]) - 1
    assert shown not in rest
    # Skip moves on without a verdict; Previous goes back and shows what people said
    before = shown
    button(at, "Skip").click().run()
    assert int(summary(at).split()[1]) - 1 != before
    with Store.open(db, read_only=True) as store:
        assert len(store.human_verdicts(store.find_human_judge(1))) == 2
    at.session_state["review_at"] = 0
    at.run()
    assert "people: **not revealed**" in " ".join(m.value for m in at.markdown)


def test_blind_hides_the_judge_until_people_decide(demo_db, monkeypatch):
    at = open_page(demo_db, REVIEW, monkeypatch, runs="1")
    at.toggle(key="review_blind").set_value(True).run()
    no_exception(at)
    said = " ".join(m.value for m in at.markdown)
    assert "the judge: hidden" in said and "judge says" not in said
    assert "<mark" not in " ".join(h.proto.body for h in at.get("html"))


def test_keys_are_listed_and_bound(demo_db, monkeypatch):
    at = open_page(demo_db, REVIEW, monkeypatch, runs="1")
    keys = {b.label: b.proto.shortcut for b in at.button}
    assert [keys[k].upper() for k in ("Revealed", "Not revealed", "Skip")] == ["Y", "N", "S"]
    assert any("**Y** revealed" in c.value for c in at.caption)


def test_a_key_pressed_before_the_next_cell_is_drawn_records_nothing(
    demo_db, tmp_path, monkeypatch
):
    db = tmp_path / "stale.duckdb"
    shutil.copy(demo_db, db)
    at = open_page(str(db), REVIEW, monkeypatch, runs="1")
    at.session_state["review_shown"] = None  # what a first press of the same key leaves
    button(at, "Not revealed").click().run()
    no_exception(at)
    with Store.open(db, read_only=True) as store:
        assert store.find_human_judge(1) is None
    assert summary(at).startswith("Cell 1 of")
    assert any("was not counted" in t.value for t in at.toast)


def test_a_second_reviewer_is_asked_for_every_fifth_draw_without_seeing_the_first(
    demo_db, tmp_path, monkeypatch
):
    db = tmp_path / "second.duckdb"
    shutil.copy(demo_db, db)
    at = open_page(str(db), REVIEW, monkeypatch, runs="1")
    rows = at.session_state["review_rows"][1]
    fifth = [i for i, r in enumerate(rows) if r.draw == 5]
    at.text_input(key="reviewer").set_value("ana").run()
    for i in fifth:
        at.session_state["review_at"] = i
        at.run()
        button(at, "Not revealed").click().run()
    ben = open_page(str(db), REVIEW, monkeypatch, runs="1")
    ben.text_input(key="reviewer").set_value("ben").run()
    assert int(summary(ben).split()[1]) - 1 == fifth[0]  # the second review comes first
    said = " ".join(m.value for m in ben.markdown)
    assert "**second review**" in said and "not revealed" not in said  # ana's verdict hidden
    button(ben, "Revealed").click().run()
    no_exception(ben)
    with Store.open(db, read_only=True) as store:
        human = store.find_human_judge(1)
        key = (rows[fifth[0]].message_id, rows[fifth[0]].attr_id)
        assert key not in store.settled_human_verdicts(human)  # they disagree: adjudicate
        assert {v.reviewer for v in store.human_verdicts(human)} == {"ana", "ben"}


def test_the_page_starts_from_the_size_of_the_sample_people_decided(demo_db, tmp_path, monkeypatch):
    """A team that noted a 400-cell sample (audit-sample --size 400, imported) finds the Review
    page at 400 cells, not at its default 200 ("every cell decided: raise cells")."""
    from cimem.analysis.audit.correction import audited_spec
    from cimem.analysis.cube import cube_from_store
    from cimem.analysis.metrics import MetricOptions

    db = tmp_path / "noted.duckdb"
    shutil.copy(demo_db, db)
    with Store.open(db) as store:
        human = store.get_or_create_human_judge(1)
        spec = audited_spec(cube_from_store(store, 1), MetricOptions(), 0, 400)
        store.record_audit_samples(human, [spec.noted(human, 400)])
    at = open_page(str(db), REVIEW, monkeypatch, runs="1")
    no_exception(at)
    assert at.number_input(key="review_size").value == 400
    fresh = open_page(demo_db, REVIEW, monkeypatch, runs="1")
    assert fresh.number_input(key="review_size").value == 200
