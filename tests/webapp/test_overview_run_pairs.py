"""Overview says, for every two selected runs, how many contexts they share and how many of
those they label differently (the numbers of ``cimem metrics``' run_pairs)."""

from __future__ import annotations

import shutil

from apptest import PAGES, no_exception, open_page

from cimem.store import Store

from fixtures import shown_tables

COLUMNS = ["run A", "run B", "shared contexts", "labelled differently"]


def pairs_shown(at):
    return next(t for t in shown_tables(at) if list(t.columns) == COLUMNS)


def test_runs_labelled_alike_then_one_context_relabelled(demo_db, tmp_path, monkeypatch):
    at = open_page(demo_db, PAGES[0], monkeypatch, runs="1,2,3")
    no_exception(at)
    table = pairs_shown(at)
    assert len(table) == 3 and set(table["labelled differently"]) == {"0"}
    assert set(table["shared contexts"]) == {"132"}
    db = tmp_path / "relabelled.duckdb"
    shutil.copy(demo_db, db)
    with Store.open(db) as store:  # run 2 now withholds one pair every persona called needed
        store.con.execute(
            "UPDATE persona_labels SET necessary = 0, private = 1 WHERE run_id = 2 AND"
            " (profile_id, ctx_idx, attr_id) IN (SELECT profile_id, ctx_idx, attr_id"
            " FROM persona_labels WHERE run_id = 2 AND persona = 'combined' AND necessary = 1"
            " ORDER BY ALL LIMIT 1)"
        )
    at = open_page(str(db), PAGES[0], monkeypatch, runs="1,2")
    no_exception(at)
    assert pairs_shown(at)["labelled differently"].tolist() == ["1"]
    said = " ".join(c.value for c in at.caption)
    assert "132 shared contexts, 1 labelled differently" in said
