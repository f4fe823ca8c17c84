"""Label sources: a single persona's fractions, the personas weighted alike, people's labels,
each in place of the combined view; checked on the real run file, where unanimity must make
the weights irrelevant (mass 1 means every persona's samples agreed)."""

from __future__ import annotations

import numpy as np
import pytest

from cimem.analysis.cube import cube_from_store
from cimem.analysis.label_sources import (
    Persona,
    Scheme,
    Source,
    pair_keys,
    people_codes,
    persona_of,
    relabelled,
)
from cimem.analysis.labels import AMBIGUOUS, PRIVATE, SHARE, LabelRule
from cimem.analysis.options import labels_of
from cimem.ingest import ingest_file
from cimem.store import PeopleLabel, PeoplePairLabel, Store

from conftest import shared_file

UNANIMOUS = LabelRule.parse("unanimous")


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    db = tmp_path_factory.mktemp("sources") / "real.duckdb"
    with Store.open(db) as store:
        ingest_file(store, shared_file("results_sample.jsonl"))
    with Store.open(db, read_only=True) as store:
        yield cube_from_store(store, 1), store.persona_fractions(1), store


def test_every_official_persona_name_is_recognised(real):
    _, fractions, _ = real
    assert {persona_of(str(p)) for p in fractions.persona} == set(Persona)
    assert persona_of("the pragmatic majority") is Persona.PRAGMATIC


def test_a_persona_source_reads_that_personas_own_fractions(real):
    cube, fractions, store = real
    keys = pair_keys(cube)
    for persona in Persona:
        mine = relabelled(cube, Source(persona.value), fractions)
        stored = {
            (int(p), int(c), int(a)): (n, q)
            for p, c, a, name, n, q in zip(
                *(
                    fractions[k]
                    for k in ("profile_id", "ctx_idx", "attr_id", "persona", "necessary", "private")
                )
            )
            if persona_of(str(name)) is persona
        }
        for i in np.random.default_rng(0).choice(len(keys), 200, replace=False):
            key = tuple(int(x) for x in keys.iloc[i])
            assert (mine.pair_necessary[i], mine.pair_private[i]) == stored[key]
    assert relabelled(cube, Source.COMBINED, fractions) is cube


def test_unanimity_makes_the_weights_irrelevant_on_the_real_file(real):
    """The combined view's unanimous label is share (private) exactly where every persona's
    own samples all say share (private); weighting the personas alike changes no label."""
    cube, fractions, _ = real
    official = labels_of(cube, UNANIMOUS)
    each = [labels_of(relabelled(cube, Source(p.value), fractions), UNANIMOUS) for p in Persona]
    all_share = np.logical_and.reduce([e == SHARE for e in each])
    all_private = np.logical_and.reduce([e == PRIVATE for e in each])
    assert np.array_equal(official == SHARE, all_share)
    assert np.array_equal(official == PRIVATE, all_private)
    equal = labels_of(relabelled(cube, Source.EQUAL, fractions), UNANIMOUS)
    assert np.array_equal(equal, official)
    # under majority the weights do matter somewhere
    majority = LabelRule.parse("majority")
    weighted = labels_of(cube, majority)
    alike = labels_of(relabelled(cube, Source.EQUAL, fractions), majority)
    assert (weighted != alike).any()


def test_people_codes_settle_agreement_and_leave_the_rest_ambiguous(real):
    cube, _, _ = real
    keys = pair_keys(cube)
    k = [tuple(int(x) for x in keys.iloc[i]) for i in range(4)]
    people = [
        PeoplePairLabel(*k[0], PeopleLabel.SHARE, "ana"),
        PeoplePairLabel(*k[0], PeopleLabel.SHARE, "ben"),
        PeoplePairLabel(*k[1], PeopleLabel.WITHHOLD, "ana"),
        PeoplePairLabel(*k[2], PeopleLabel.SHARE, "ana"),
        PeoplePairLabel(*k[2], PeopleLabel.WITHHOLD, "ben"),  # they disagree
        PeoplePairLabel(*k[3], PeopleLabel.UNSURE, "ana"),
    ]
    codes = people_codes(cube, people, unlabelled=-9)
    assert codes[:4].tolist() == [SHARE, PRIVATE, AMBIGUOUS, AMBIGUOUS]
    assert (codes[4:] == -9).all()
    mine = relabelled(cube, Source.PEOPLE, people=people)
    assert labels_of(mine, UNANIMOUS)[:2].tolist() == [SHARE, PRIVATE]
    assert (labels_of(mine, UNANIMOUS)[4:] == AMBIGUOUS).all()
    reviewed = labels_of(relabelled(cube, Source.REVIEWED, people=people), UNANIMOUS)
    assert np.array_equal(reviewed[:4], labels_of(cube, UNANIMOUS)[:4])
    assert (reviewed[4:] == AMBIGUOUS).all()


def test_schemes_parse_and_refuse_with_the_choices():
    assert Scheme.parse("people").source is Source.PEOPLE
    assert Scheme.parse("threshold:0.8@equal").name == "threshold:0.8@equal"
    with pytest.raises(ValueError, match="unknown source 'westin'; choose combined, equal"):
        Scheme.parse("majority@westin")
    with pytest.raises(ValueError, match="unknown label rule"):
        Scheme.parse("most@pragmatic")
