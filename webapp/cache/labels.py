"""The Labels page's reads: label sensitivity over the selected runs, people's labels and their
agreement with the personas, and one context's pairs to label. Keyed by the runs' scopes (a
changed file is read again; the app's own writes forget them)."""

from __future__ import annotations

import pandas as pd

from cimem.analysis.label_sources import Scheme
from cimem.analysis.labels import LabelRule
from cimem.analysis.people_labels import (
    PeopleAgreement,
    SheetChoice,
    persona_agreement,
    template_records,
)
from cimem.analysis.sensitivity import RunLabels, Sensitivity, sensitivity
from cimem.store import PeopleLabelRow
from webapp.cache import registry
from webapp.cache.cubes import cube
from webapp.cache.scope import DbScope, RunScope
from webapp.connection import reading_at


@registry.data_read(show_spinner="Relabelling the runs under each scheme...", max_entries=8)
def sensitivity_of(scopes: tuple[RunScope, ...], schemes: tuple[str, ...]) -> Sensitivity:
    """What ``cimem labels sensitivity`` prints, for these runs under their judges."""
    cubes = [cube(s) for s in scopes]
    with reading_at(scopes[0].path) as store:
        runs = [
            RunLabels(c, store.persona_fractions(s.run_id), store.people_labels_of(s.run_id))
            for c, s in zip(cubes, scopes)
        ]
    return sensitivity(runs, [Scheme.parse(x) for x in schemes], scopes[0].opts)


@registry.data_read(show_spinner=False, max_entries=8)
def people_labels(db: DbScope) -> list[PeopleLabelRow]:
    """Every reviewer's current label (all runs share them)."""
    with reading_at(db.path) as store:
        return store.people_labels()


@registry.data_read(show_spinner=False, max_entries=64)
def saved_labels(
    db: DbScope, reviewer: str, profile: str, recipient: str, task: str
) -> dict[str, str]:
    """A reviewer's current labels of one context, by attribute key (the table fills them in)."""
    where = (profile, recipient.casefold(), task)
    return {
        r.attr_key: str(r.label)
        for r in people_labels(db)
        if r.reviewer == reviewer and (r.profile, r.recipient.casefold(), r.task) == where
    }


@registry.data_read(show_spinner=False, max_entries=16)
def agreement_of(scope: RunScope, rule: str) -> PeopleAgreement:
    """People against the personas on the run's pairs, under the label ``rule``. Keyed by the
    run and judge alone (``scope.verdicts()``): the metric options change nothing here. The
    personas' fractions (a million rows for a 60-profile run, 0.15 s) are read only when people
    labelled a pair of the run."""
    mine = cube(scope)
    with reading_at(scope.path) as store:
        people = store.people_labels_of(scope.run_id)
        if not people:
            return PeopleAgreement.unlabelled(mine.run)
        fractions = store.persona_fractions(scope.run_id)
    return persona_agreement(mine, fractions, people, LabelRule.parse(rule))


@registry.data_read(show_spinner=False, max_entries=16)
def context_sheet(db: DbScope, run_id: int, profile: str, ctx: int) -> pd.DataFrame:
    """One context's labelling sheet (the pairs of the profile's context ``ctx``)."""
    with reading_at(db.path) as store:
        rows = template_records(store, run_id, SheetChoice(profile=profile, context=ctx))
    return pd.DataFrame(rows)


@registry.data_read(show_spinner=False, max_entries=16)
def contexts_by_profile(db: DbScope, run_id: int) -> dict[str, dict[int, str]]:
    """Each profile name of the run -> its contexts' indexes -> "recipient: task"."""
    with reading_at(db.path) as store:
        names = {p.profile_id: p.name for p in store.profiles_of(run_id)}
        out: dict[str, dict[int, str]] = {}
        for c in store.contexts_of(run_id):
            out.setdefault(names[c.profile_id], {}).setdefault(
                c.ctx_idx, f"{c.recipient}: {c.task}"
            )
    return out
