"""Label sensitivity: each scheme's numbers are the metrics' own under that labelling, rankings
are compared by Kendall's tau-b, discards add up, and runs a source cannot label say why."""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import numpy as np
import pytest

from cimem.analysis.cube import cube_from_store
from cimem.analysis.label_sources import DEFAULT_SCHEMES, Scheme, pair_keys
from cimem.analysis.labels import AMBIGUOUS, PRIVATE, SHARE, LabelRule
from cimem.analysis.metrics import MetricOptions, compute
from cimem.analysis.options import labels_of
from cimem.analysis.sensitivity import (
    COMBINED_ONLY,
    NO_FRACTIONS,
    RunLabels,
    kendall_tau_b,
    sensitivity,
)
from cimem.ingest import ingest_file
from cimem.store import PeopleLabel, PeoplePairLabel, Store

from conftest import shared_file

OPTS = MetricOptions()


def brute_tau_b(x, y):
    s = n1 = n2 = 0
    for i, j in combinations(range(len(x)), 2):
        dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        s += dx * dy
        n1 += dx == 0
        n2 += dy == 0
    n0 = len(x) * (len(x) - 1) / 2
    return s / np.sqrt((n0 - n1) * (n0 - n2))


@pytest.mark.parametrize("seed", range(20))
def test_tau_b_matches_the_pairwise_definition_with_ties(seed):
    rng = np.random.default_rng(seed)
    x, y = rng.integers(0, 4, 9).astype(float), rng.integers(0, 4, 9).astype(float)
    if len(set(x)) > 1 and len(set(y)) > 1:
        assert kendall_tau_b(x, y) == pytest.approx(brute_tau_b(x, y))
    assert np.isnan(kendall_tau_b([1.0, 1.0], [1.0, 2.0])) and np.isnan(kendall_tau_b([1], [1]))


def runs_of(store, ids, people=()):
    return [RunLabels(cube_from_store(store, i), store.persona_fractions(i), people) for i in ids]


def test_each_scheme_is_the_metrics_under_that_labelling(demo_db):
    schemes = [Scheme.parse(s) for s in DEFAULT_SCHEMES]
    with Store.open(demo_db, read_only=True) as store:
        runs = runs_of(store, [1, 2, 3])
    found = sensitivity(runs, schemes, OPTS)
    assert found.schemes[0].name == "unanimous" and len(found.results) == 3 * len(schemes)
    for run in runs:
        for rule in ("unanimous", "majority"):
            m = compute(run.cube, replace(OPTS, label_rule=rule))
            (r,) = [x for x in found.results if x.scheme == rule and x.run == run.cube.run]
            assert (r.violation, r.completeness) == (m.violation.mean, m.completeness.mean)
            assert (r.share, r.private, r.ambiguous) == (
                m.discarded.pairs.share,
                m.discarded.pairs.private,
                m.discarded.pairs.ambiguous,
            )
    base = next(r for r in found.ranks if r.scheme == "unanimous")
    assert base.violation_tau == base.completeness_tau == 1.0 and base.runs == 3
    for scheme in found.schemes:
        mine = [d for d in found.discards if d.scheme == scheme.name]
        pairs = [r for r in found.results if r.scheme == scheme.name]
        assert sum(d.pairs for d in mine) == sum(r.share + r.private + r.ambiguous for r in pairs)
        assert sum(d.ambiguous for d in mine) == sum(r.ambiguous for r in pairs)
    assert found.as_dict()["baseline"] == "unanimous"


def test_people_who_copy_the_official_labels_reproduce_it_on_their_pairs(demo_db):
    """People label two whole contexts exactly as the official rule does: the metrics under
    their labels equal the official rule's on the same pairs."""
    with Store.open(demo_db, read_only=True) as store:
        cube = cube_from_store(store, 1)
    keys = pair_keys(cube)
    official = labels_of(cube, LabelRule.parse("unanimous"))
    chosen = (keys["ctx_idx"] < 2).to_numpy()
    name = {SHARE: PeopleLabel.SHARE, PRIVATE: PeopleLabel.WITHHOLD, AMBIGUOUS: PeopleLabel.UNSURE}
    people = [
        PeoplePairLabel(int(p), int(c), int(a), name[int(code)], "ana")
        for (p, c, a), code in zip(keys[chosen].itertuples(index=False), official[chosen])
    ]
    with Store.open(demo_db, read_only=True) as store:
        runs = runs_of(store, [1, 2, 3], people)
    found = sensitivity(runs, [Scheme.parse("people"), Scheme.parse("unanimous@reviewed")], OPTS)
    by = {(r.scheme, r.run): r for r in found.results}
    for run in runs:
        a, b = by[("people", run.cube.run)], by[("unanimous@reviewed", run.cube.run)]
        assert (a.violation, a.completeness, a.share, a.private) == (
            b.violation,
            b.completeness,
            b.share,
            b.private,
        )
        assert a.share + a.private > 0 and a.violation != by[("unanimous", run.cube.run)].violation


@pytest.mark.parametrize(
    "name", ["hf_rows_sample.parquet", "persistbench_llama33_jeffery_day.json"]
)
def test_runs_with_hard_labels_only_are_skipped_by_persona_schemes(tmp_path, name):
    with Store.open(tmp_path / "real.duckdb") as store:
        ingest_file(store, shared_file(name))
        runs = runs_of(store, [1])
    found = sensitivity(runs, [Scheme.parse(s) for s in DEFAULT_SCHEMES], OPTS)
    assert {r.scheme for r in found.results} == {"unanimous", "majority"}
    assert found.skipped["unanimous@pragmatic"] == {runs[0].cube.run: NO_FRACTIONS}


def test_the_real_run_file_under_every_scheme(tmp_path):
    with Store.open(tmp_path / "real.duckdb") as store:
        ingest_file(store, shared_file("results_sample.jsonl"))
        runs = runs_of(store, [1])
    found = sensitivity(runs, [Scheme.parse(s) for s in DEFAULT_SCHEMES], OPTS)
    assert len(found.results) == len(DEFAULT_SCHEMES) and not found.skipped
    by = {r.scheme: r for r in found.results}
    # unanimity of one persona asks fewer samples to agree: never more ambiguous pairs
    for persona in ("fundamentalist", "pragmatic", "unconcerned"):
        assert by[f"unanimous@{persona}"].ambiguous <= by["unanimous"].ambiguous
    assert by["majority"].ambiguous < by["unanimous"].ambiguous
    assert len({d.domain for d in found.discards}) >= 9


def test_a_run_with_the_combined_fractions_only_is_said_to_be_so(tmp_path):
    """A run output whose contexts carry labels_combined and no persona's own: the persona
    schemes skip it, saying it has the combined view only (not that it has hard labels)."""
    import json

    path = shared_file("results_sample.jsonl")
    rows = [json.loads(line) for line in path.open()][:1]
    for ctx in rows[0]["contexts"]:
        for key in [k for k in ctx if k.startswith("labels_") and k != "labels_combined"]:
            del ctx[key]
    combined = tmp_path / "combined.jsonl"
    combined.write_text(json.dumps(rows[0]) + "\n")
    with Store.open(tmp_path / "c.duckdb") as store:
        ingest_file(store, combined)
        runs = runs_of(store, [1])
    found = sensitivity(runs, [Scheme.parse(s) for s in DEFAULT_SCHEMES], OPTS)
    assert found.skipped["unanimous@pragmatic"] == {runs[0].cube.run: COMBINED_ONLY}
    assert {r.scheme for r in found.results} == {"unanimous", "majority"}
