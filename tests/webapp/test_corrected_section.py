"""Overview's section on the judge's errors says "corrected" only when a number was corrected,
and how many audited cells it rests on (those of the pairs the mode counts)."""

import shutil

from apptest import PAGES, no_exception, open_page

from cimem.store import HumanVerdict, Store


def test_a_thin_audit_says_not_corrected_yet(demo_db, tmp_path, monkeypatch):
    db = tmp_path / "thin.duckdb"
    shutil.copy(demo_db, db)
    with Store.open(db) as store:
        human = store.get_or_create_human_judge(1)
        store.add_human_verdicts(
            human,
            [HumanVerdict(5, 1, True, "ana", "states it"), HumanVerdict(5, 2, False, "ana", None)],
        )
    at = open_page(str(db), PAGES[0], monkeypatch, runs="1")
    no_exception(at)
    heads = [h.value for h in at.subheader]
    assert "Not corrected for the judge's errors yet" in heads
    assert "Corrected for the judge's errors" not in heads
    (said,) = [c.value for c in at.caption if "people's verdicts (judge" in c.value]
    assert "Not corrected yet from people's verdicts" in said
    assert "audited cells of the pairs official mode counts" in said
    infos = [i.value for i in at.info]
    assert any("Violation@n is not corrected" in i and "judge yes" in i for i in infos)
