"""People's labels: agreement with the personas, and the CSV sheet round trip with its
refusals (a bad label or a pair no run has stops the import, nothing written)."""

from __future__ import annotations

import csv
import io
import shutil

import numpy as np
import pytest

from cimem.analysis.cube import cube_from_store
from cimem.analysis.label_sources import Source, pair_keys, relabelled
from cimem.analysis.labels import AMBIGUOUS, PRIVATE, SHARE, LabelRule
from cimem.analysis.options import labels_of
from cimem.analysis.people_labels import (
    SheetChoice,
    nominal_kappa,
    persona_agreement,
    read_labels,
    template_records,
    to_csv,
)
from cimem.errors import CimemError
from cimem.store import PeopleLabel, PeoplePairLabel, Store

UNANIMOUS = LabelRule.parse("unanimous")
NAME = {SHARE: PeopleLabel.SHARE, PRIVATE: PeopleLabel.WITHHOLD, AMBIGUOUS: PeopleLabel.UNSURE}


@pytest.fixture
def db(demo_db, tmp_path):
    path = tmp_path / "labels.duckdb"
    shutil.copy(demo_db, path)
    return path


def test_people_who_think_like_the_pragmatist_agree_with_it_fully(db):
    with Store.open(db, read_only=True) as store:
        cube, fractions = cube_from_store(store, 1), store.persona_fractions(1)
    pragmatic = labels_of(relabelled(cube, Source.PRAGMATIC, fractions), UNANIMOUS)
    keys = list(pair_keys(cube).itertuples(index=False))[:300]
    people = [
        PeoplePairLabel(*map(int, k), NAME[int(pragmatic[i])], "ana") for i, k in enumerate(keys)
    ]
    people.append(PeoplePairLabel(*map(int, keys[0]), PeopleLabel.UNSURE, "ben"))
    if people[0].label is PeopleLabel.UNSURE:
        people[-1] = people[-1]._replace(label=PeopleLabel.SHARE)
    found = persona_agreement(cube, fractions, people, UNANIMOUS)
    assert found.labelled == 300 and found.disputed == 1
    by = {s.source: s for s in found.sources}
    assert by["pragmatic"].pairs == 299 and by["pragmatic"].share == 1.0
    assert by["pragmatic"].kappa == 1.0
    assert by["fundamentalist"].share < 1.0
    assert sum(found.by_label.values()) == 299


def test_nominal_kappa_matches_the_boolean_one():
    from cimem.analysis.agreement import cohen_kappa

    rng = np.random.default_rng(1)
    a, b = rng.random(50) < 0.4, rng.random(50) < 0.5
    assert nominal_kappa(a.astype(int), b.astype(int)) == pytest.approx(cohen_kappa(a, b))
    assert np.isnan(nominal_kappa(np.array([1, 1]), np.array([1, 1])))


def fill(text: str, labels: list[str], reviewer: str = "") -> str:
    rows = list(csv.DictReader(io.StringIO(text)))
    for row, label in zip(rows, labels):
        row["label"], row["reviewer"] = label, reviewer
    out = io.StringIO()
    writer = csv.DictWriter(out, rows[0].keys(), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def test_a_sheet_of_whole_contexts_round_trips(db):
    with Store.open(db) as store:
        sheet = to_csv(template_records(store, 1, SheetChoice(contexts=2, seed=4)))
        rows = list(csv.DictReader(io.StringIO(sheet)))
        assert "necessary" not in sheet and "private" not in rows[0]  # blind to the personas
        assert len({(r["profile"], r["task"]) for r in rows}) == 2
        per_context = len(rows) // 2
        filled = fill(sheet, ["share", "Withhold", "unsure", "", "needed"], "ana")
        labels, empty = read_labels(store, filled, "sheet.csv", reviewer="fallback")
        assert empty == len(rows) - 4 and per_context > 4
        assert [x.label for x in labels] == [
            PeopleLabel.SHARE,
            PeopleLabel.WITHHOLD,
            PeopleLabel.UNSURE,
            PeopleLabel.SHARE,
        ]
        assert {x.reviewer for x in labels} == {"ana"}
        store.add_people_labels(labels)
        assert len(store.people_labels_of(2)) == 4  # every run of the same people


def test_a_bad_label_or_an_unknown_pair_names_the_line_and_records_nothing(db):
    with Store.open(db) as store:
        sheet = to_csv(template_records(store, 1, SheetChoice(pairs=3, seed=1)))
        with pytest.raises(
            CimemError,
            match=r"s\.csv: line 3: column label: expected share, "
            r"withhold or unsure .* found 'maybe'",
        ):
            read_labels(store, fill(sheet, ["share", "maybe"], "ana"), "s.csv")
        rows = list(csv.DictReader(io.StringIO(sheet)))
        broken = sheet.splitlines()
        broken[2] = broken[2].replace(rows[1]["attribute"], "no_such_key", 1)
        with pytest.raises(
            CimemError,
            match=r"s\.csv: line 3: no stored run has profile .*"
            r"'no_such_key' \(1 such row; nothing recorded\)",
        ):
            read_labels(store, fill("\n".join(broken) + "\n", ["share"] * 3, "ana"), "s.csv")
        with pytest.raises(CimemError, match="line 1: expected the columns"):
            read_labels(store, "profile,label\nA,share\n", "s.csv")
        with pytest.raises(CimemError, match="separated by semicolons"):
            read_labels(store, "profile;recipient;task;attribute;label\n", "s.csv")
        with pytest.raises(CimemError, match=r"line 2: column reviewer: expected the name"):
            read_labels(store, fill(sheet, ["share"]), "s.csv")
        assert store.people_labels() == []


def test_a_pair_labelled_twice_in_one_file_counts_once_the_later(db):
    with Store.open(db) as store:
        sheet = to_csv(template_records(store, 1, SheetChoice(pairs=1)))
        header, row = sheet.splitlines()
        twice = "\n".join([header, row, row]) + "\n"
        labels, _ = read_labels(store, fill(twice, ["share", "withhold"], "ana"), "s.csv")
        assert [x.label for x in labels] == [PeopleLabel.WITHHOLD]
        labels, _ = read_labels(store, fill(twice, ["share", "share"]), "s.csv", reviewer="bo")
        assert len(labels) == 1 and labels[0].reviewer == "bo"


def test_text_that_would_run_as_a_formula_is_written_safe_and_read_back(db):
    with Store.open(db) as store:
        record = template_records(store, 1, SheetChoice(pairs=1))[0]
        record.update(label="share", reviewer="=HYPERLINK(1)")
        sheet = to_csv([record])
        assert "'=HYPERLINK(1)" in sheet
        (label,), _ = read_labels(store, sheet, "s.csv")
        assert label.reviewer == "=HYPERLINK(1)"
