"""People's labels in the store: appended, never replaced; a reviewer's latest is current; one
label serves every run of the same person and task (recipient matched without case); entries
naming nothing stored are found before anything is written."""

from cimem.ingest import ingest_file
from cimem.store import PeopleLabel, PeopleLabelEntry

from fixtures import small_profile, write_jsonl


def two_runs(store, tmp_path):
    a = ingest_file(store, write_jsonl(tmp_path / "a.jsonl", [small_profile()])).run_id
    profile = small_profile()
    profile["name"] = "Ada Example"
    b = ingest_file(store, write_jsonl(tmp_path / "b.jsonl", [profile, small_profile("Bo")]))
    return a, b.run_id


def entry(store, run, label, reviewer, attr=0, recipient=None):
    context = store.contexts_of(run)[0]
    key = store.attributes_of(run)[attr].key
    return PeopleLabelEntry(
        "Ada Example", recipient or context.recipient, context.task, key, label, reviewer
    )


def test_history_is_kept_and_the_latest_per_reviewer_is_current(store, tmp_path):
    a, _ = two_runs(store, tmp_path)
    store.add_people_labels([entry(store, a, PeopleLabel.SHARE, "ana")])
    store.add_people_labels([entry(store, a, PeopleLabel.WITHHOLD, "ana")])
    store.add_people_labels([entry(store, a, PeopleLabel.UNSURE, "ben")])
    history = store.people_labels(history=True)
    assert [(r.label, r.reviewer, r.current) for r in history] == [
        (PeopleLabel.SHARE, "ana", False),
        (PeopleLabel.WITHHOLD, "ana", True),
        (PeopleLabel.UNSURE, "ben", True),
    ]
    assert [r.label for r in store.people_labels()] == [PeopleLabel.WITHHOLD, PeopleLabel.UNSURE]
    assert {(r.reviewer, r.label) for r in store.people_labels_of(a)} == {
        ("ana", PeopleLabel.WITHHOLD),
        ("ben", PeopleLabel.UNSURE),
    }


def test_one_label_serves_every_run_of_the_person(store, tmp_path):
    a, b = two_runs(store, tmp_path)
    shouted = store.contexts_of(a)[0].recipient.upper()
    store.add_people_labels([entry(store, a, PeopleLabel.SHARE, None, recipient=shouted)])
    (in_a,) = store.people_labels_of(a)
    (in_b,) = store.people_labels_of(b)
    assert in_a.label == in_b.label == PeopleLabel.SHARE and in_a.reviewer == ""
    ada_b = next(p.profile_id for p in store.profiles_of(b) if p.name == "Ada Example")
    assert in_b.profile_id == ada_b


def test_entries_naming_nothing_stored_are_found(store, tmp_path):
    a, _ = two_runs(store, tmp_path)
    good = entry(store, a, PeopleLabel.SHARE, "ana")
    typo = good._replace(attr_key=good.attr_key + "_typo")
    nobody = good._replace(profile="Nobody")
    assert store.unmatched_people_labels([good, typo, nobody]) == [1, 2]
    assert store.unmatched_people_labels([]) == []
