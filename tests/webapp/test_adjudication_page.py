"""Adjudication on the Audit page: two reviewers disagree, the queue lists the cell, the
reviewers' agreement is shown, and a verdict saved as an adjudication settles it."""

from __future__ import annotations

import shutil

from apptest import no_exception, open_page

from cimem.store import HumanVerdict, Store

AUDIT = "webapp/pages/audit.py"


def test_a_disagreement_is_listed_shown_and_settled(demo_db, tmp_path, monkeypatch):
    db = tmp_path / "adj.duckdb"
    shutil.copy(demo_db, db)
    with Store.open(db) as store:
        human = store.get_or_create_human_judge(1)
        attr = next(v.attr_id for v in store.message_verdicts(5) if v.judge_id == 1)
        store.add_human_verdicts(
            human,
            [HumanVerdict(5, attr, True, "ana", None), HumanVerdict(5, attr, False, "ben", None)],
        )
    at = open_page(str(db), AUDIT, monkeypatch, runs="1", qf="people_disagree")
    no_exception(at)
    assert at.selectbox(key="q_pick_5").value == 5  # the disputed message, first of its queue
    said = " ".join(m.value for m in at.markdown)
    assert "Reviewers against each other (2 reviewers" in said
    assert any("1 cell to adjudicate" in c.value for c in at.caption)
    at.session_state["people_record"] = True
    at.run()
    at.radio(key=f"hv_5_{attr}").set_value("revealed")
    at.checkbox(key="hadj_5").check()
    at.text_input(key="reviewer").input("cy")
    at.button(key=[b.key for b in at.button if b.label == "Save my verdicts"][0]).click().run()
    no_exception(at)
    with Store.open(db, read_only=True) as store:
        assert store.settled_human_verdicts(human)[(5, attr)] is True
        (adjudication,) = [v for v in store.human_verdicts(human) if v.adjudication]
        assert adjudication.reviewer == "cy"
