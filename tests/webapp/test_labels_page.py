"""The Labels page: every scheme's numbers as ``cimem labels sensitivity`` computes them, people's
labels and their agreement with the personas, the context form and the spreadsheet route; on the
demo and on each real run file (hard labels only: the persona schemes say why they are absent)."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest
from apptest import no_exception, open_page

from cimem.analysis.cube import cube_from_store
from cimem.analysis.label_sources import DEFAULT_SCHEMES, Scheme
from cimem.analysis.metrics import MetricOptions
from cimem.analysis.sensitivity import RunLabels, sensitivity
from cimem.ingest import ingest_file
from cimem.store import PeopleLabel, Store

from conftest import shared_file
from fixtures import shown_tables

LABELS = "webapp/pages/labels.py"


def opened(at):
    """The sensitivity section opened, as a click on it does."""
    at.session_state["labels_sensitivity"] = True
    at.run()
    no_exception(at)
    return at


def test_the_page_shows_each_schemes_numbers(demo_db, monkeypatch):
    at = open_page(demo_db, LABELS, monkeypatch, runs="1,2")
    no_exception(at)
    assert not [t for t in shown_tables(at) if "reads" in t.columns]  # folded: nothing computed
    tables = shown_tables(opened(at))
    schemes = next(t for t in tables if "reads" in t.columns)
    assert schemes["scheme"].tolist() == list(DEFAULT_SCHEMES)  # no people's labels yet
    with Store.open(demo_db, read_only=True) as store:
        runs = [RunLabels(cube_from_store(store, r), store.persona_fractions(r)) for r in (1, 2)]
    want = sensitivity(runs, [Scheme.parse(s) for s in DEFAULT_SCHEMES], MetricOptions())
    violation = tables[tables.index(schemes) + 1]
    assert violation["run"].tolist() == [r.cube.run for r in runs]
    by = want.by_run("violation")
    assert violation["S2"].tolist() == [f"{100 * by[r.cube.run]['majority']:,.2f}" for r in runs]
    assert "People's labels" in [h.value for h in at.header]
    assert "0 current labels by 0 reviewers" in " ".join(m.value for m in at.markdown)


def test_a_run_nobody_labelled_reads_no_personas_and_a_mode_change_asks_the_same(
    demo_db, monkeypatch
):
    """The personas' fractions (a million rows for a 60-profile run) are read only to compare
    people's labels with them; the agreement is asked with the same key under either metric
    mode, which changes nothing in it (so a mode change finds it cached)."""
    from webapp import cache

    def refused(self, run_id):
        raise AssertionError("the personas' fractions were read")

    monkeypatch.setattr(Store, "persona_fractions", refused)
    asked = []
    real = cache.agreement_of

    def spy(*key):
        asked.append(key)
        return real(*key)

    monkeypatch.setattr(cache, "agreement_of", spy)
    at = open_page(demo_db, LABELS, monkeypatch, runs="1,2")
    no_exception(at)
    assert "people labelled 0 pairs" in " ".join(m.value for m in at.markdown)
    at.session_state["mode"] = "definition"
    at.run()
    no_exception(at)
    assert len(asked) == 2 and asked[0] == asked[1]


def test_people_labels_bring_their_schemes_and_agreement(demo_db, tmp_path, monkeypatch):
    db = tmp_path / "people.duckdb"
    shutil.copy(demo_db, db)
    from webapp.panels.labels.people_labelling import entries

    with Store.open(db) as store:
        from cimem.analysis.people_labels import SheetChoice, template_records

        sheet = pd.DataFrame(template_records(store, 1, SheetChoice(profile=None, context=0)))
        sheet = sheet[sheet["profile"] == sheet["profile"].iloc[0]]
        chosen = sheet.head(5).assign(label=["share", "withhold", "unsure", "withhold", "share"])
        store.add_people_labels(entries(sheet, chosen, " ana "))
        assert {r.reviewer for r in store.people_labels()} == {"ana"}
        assert [r.label for r in store.people_labels()][:2] == [
            PeopleLabel.SHARE,
            PeopleLabel.WITHHOLD,
        ]
    at = opened(open_page(str(db), LABELS, monkeypatch, runs="1"))
    tables = shown_tables(at)
    schemes = next(t for t in tables if "reads" in t.columns)
    assert {"people", "unanimous@reviewed"} <= set(schemes["scheme"])
    agreement = next(t for t in tables if "Cohen's kappa" in t.columns)
    assert agreement["labels of"].tolist() == [
        "combined",
        "fundamentalist",
        "pragmatic",
        "unconcerned",
    ]
    assert set(agreement["pairs"]) == {"5"}
    for key in ("people_label_form", "people_label_sheet"):
        at.session_state[key] = True
    at.run()
    no_exception(at)
    assert at.selectbox(key="plab_profile").value == sheet["profile"].iloc[0]
    assert "Name yourself as reviewer first" in " ".join(i.value for i in at.info)
    at.text_input(key="plab_reviewer").input("ana").run()
    no_exception(at)
    said = " ".join(c.value for c in at.caption)
    assert "5 of" in said and "0 new or changed (your saved labels are filled in)" in said
    assert at.button(key="plab_save").disabled  # nothing new to save: nothing saved twice
    at.text_input(key="plab_reviewer").input("ben").run()
    assert "0 of" in " ".join(c.value for c in at.caption)  # ben has labelled nothing


@pytest.mark.parametrize("name", ["results_sample.jsonl", "persistbench_llama33_jeffery_day.json"])
def test_each_real_file(tmp_path, monkeypatch, name):
    db = tmp_path / "real.duckdb"
    with Store.open(db) as store:
        ingest_file(store, shared_file(name))
    at = opened(open_page(str(db), LABELS, monkeypatch, runs="1"))
    schemes = next(t for t in shown_tables(at) if "reads" in t.columns)
    captions = " ".join(c.value for c in at.caption)
    if name.startswith("persistbench"):
        assert "hard labels only" in captions
    else:
        assert schemes["scheme"].tolist() == list(DEFAULT_SCHEMES)
    at.session_state["people_label_form"] = True
    at.run()
    no_exception(at)


def test_an_empty_database(empty_db, monkeypatch):
    at = open_page(empty_db, LABELS, monkeypatch)
    no_exception(at)
    assert "No run with messages is selected" in " ".join(i.value for i in at.info)
