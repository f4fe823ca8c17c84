"""Partial-memory trials (eval.py's composition styles) read as the official script reads them:
official mode counts every trial key of a context, an attribute a trial's memory left out reading
as not revealed; definition mode leaves them to the composition views; both from a file and from
the database, with the discard report saying how many there are and how each mode treats them.
The reference is eval/metrics.py's grouping written out independently (composition_files.py);
on these files it agreed with the official script itself, run beside it, to the last digit."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from composition_files import add_composition, official_script_numbers
from full_size import fabricate

from cimem.analysis.audit.correction import populations
from cimem.analysis.audit.sample import audit_sample
from cimem.analysis.cube import cube_from_store, popcount
from cimem.analysis.cube_file import cube_from_official
from cimem.analysis.metrics import MetricOptions, compute, prepare
from cimem.ingest import ingest_file
from cimem.store import Store

STYLES = ("all_share", "all_not_share", "iid")
OFFICIAL, DEFINITION = MetricOptions(mode="official"), MetricOptions(mode="definition")


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """A fabricated run of 2 profiles x 2 full-memory trials."""
    return fabricate(
        tmp_path_factory.mktemp("partial") / "base.jsonl", profiles=2, trials=2, seed=4
    )


def _stored(path: Path, tmp_path: Path):
    store = Store.open(tmp_path / f"{path.stem}.duckdb")
    return store, cube_from_store(store, ingest_file(store, path).run_id)


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("keep_full", [True, False])
def test_official_mode_counts_every_trial_key_as_the_official_script(
    base, tmp_path, style, keep_full
):
    path = add_composition(base, tmp_path / f"{style}.jsonl", style, keep_full=keep_full)
    expected = official_script_numbers(path)
    store, stored = _stored(path, tmp_path)
    with store:
        for cube in (cube_from_official(path), stored):
            m = compute(cube, OFFICIAL)
            assert set(m.violation.per_profile) == set(expected)
            for name, (v, c) in expected.items():
                assert m.violation.per_profile[name] == pytest.approx(v, abs=1e-12)
                assert m.completeness.per_profile[name] == pytest.approx(c, abs=1e-12)
            trials = m.discarded.trials
            assert trials.partial_memory > 0 and trials.partial_memory_not_read == 0
            assert "counted beside the full-memory ones" in (trials.partial_sentence() or "")


@pytest.mark.parametrize("style", STYLES)
def test_definition_mode_leaves_partial_memory_trials_to_the_composition_views(
    base, tmp_path, style
):
    with_full = add_composition(base, tmp_path / f"{style}.jsonl", style, keep_full=True)
    only = add_composition(base, tmp_path / f"{style}_only.jsonl", style, keep_full=False)
    plain = compute(cube_from_official(base), DEFINITION)
    both = compute(cube_from_official(with_full), DEFINITION)
    assert both.violation.per_profile == plain.violation.per_profile
    assert both.completeness.per_profile == plain.completeness.per_profile
    assert "left out" in (both.discarded.trials.partial_sentence() or "")
    alone = compute(cube_from_official(only), DEFINITION)
    assert np.isnan(alone.violation.mean) and alone.discarded.trials.messages == 0


def test_trials_past_the_64_samples_of_a_task_are_counted_not_read(base, tmp_path):
    path = add_composition(base, tmp_path / "iid10.jsonl", "iid", keep_full=True, trials=10)
    trials = compute(cube_from_official(path), OFFICIAL).discarded.trials
    assert trials.partial_memory_not_read > 0
    assert "not read (official mode then differs" in (trials.partial_sentence() or "")
    store, stored = _stored(path, tmp_path)
    with store:
        assert compute(stored, OFFICIAL).discarded.trials == trials


def test_the_high_trial_bits_survive_the_database(tmp_path, base):
    """A full-memory trial numbered 60: its verdicts reach the cube from the database as from
    the file (a mask read as a float kept 53 of its 64 bits)."""
    rows = [json.loads(line) for line in base.open()]
    for ctx in rows[0]["contexts"]:
        key = next(k for k in ctx if k.startswith("combination_"))
        late = json.loads(json.dumps(ctx[key]))
        late["trial_idx"] = 60
        late["model_solution"]["revealed_attributes"] = dict.fromkeys(
            late["model_solution"]["revealed_attributes"], 1
        )
        ctx[key.rsplit("=", 1)[0] + "=60"] = late
    path = tmp_path / "late.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    store, stored = _stored(path, tmp_path)
    with store:
        from_file = cube_from_official(path)
        assert (stored.pair_mask >> np.uint64(60)).astype(bool).any()
        assert np.array_equal(stored.pair_mask, from_file.pair_mask)
        assert np.array_equal(stored.ctx_valid, from_file.ctx_valid)


def test_an_audit_of_official_mode_reads_partial_memory_cells(base, tmp_path):
    """The audit's units weigh as official mode counts them, partial-memory cells included, and
    a sampled cell names its message and its real trial."""
    path = add_composition(base, tmp_path / "all_share.jsonl", "all_share", keep_full=True)
    store, cube = _stored(path, tmp_path)
    with store:
        prep = prepare(cube, OFFICIAL)
        viol, comp = populations(prep)
        raw = compute(cube, OFFICIAL)
        assert viol.weight @ viol.judge_yes == pytest.approx(raw.violation.mean)
        assert comp.weight @ comp.judge_yes == pytest.approx(raw.completeness.mean)
        assert (comp.cell_trial > cube.n_trials).any()  # partial-memory slots among the cells
        rows = audit_sample(store, prep, 300, 0)
        for row in rows:
            detail = store.message_detail(row.message_id)
            assert detail is not None and detail.trial == row.trial


@pytest.mark.parametrize(
    "style, axis", [("all_share", "withheld"), ("all_not_share", "needed"), ("iid", "memories")]
)
def test_the_composition_views_step_over_what_each_style_varies(base, tmp_path, style, axis):
    from cimem.analysis.composition import composition_curve

    path = add_composition(base, tmp_path / f"{style}.jsonl", style, keep_full=False)
    store, _ = _stored(path, tmp_path)
    with store:
        curve = composition_curve(store, 1)
    assert str(curve.axis) == axis
    assert curve.steps == sorted(curve.steps) and len(curve.steps) > 2
    cube = cube_from_official(path)
    parsed = int(popcount(cube.ctx_valid & cube.partial).sum())  # what the judge replied to
    assert sum(curve.messages) == parsed > 0


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("keep_full", [True, False])
def test_growth_ends_at_the_metrics_violation_on_partial_memory_runs(
    base, tmp_path, style, keep_full
):
    """One Violation@n everywhere: Growth's point at every task and k = n (first samples and the
    unbiased estimator), the metrics' Violation@n and its unbiased estimator, in both modes;
    official mode's prediction counts the partial trials too, so it is not below what a trial
    alone predicts; the n said names the partial-memory trials."""
    from cimem.analysis.growth import growth

    path = add_composition(base, tmp_path / f"{style}.jsonl", style, keep_full=keep_full)
    store, stored = _stored(path, tmp_path)
    for opts in (OFFICIAL, DEFINITION):
        m = compute(stored, opts)
        for samples in ("first", "unbiased"):
            curve = growth(stored, opts, samples=samples)
            end = curve.violation[-1][-1] if curve.violation else None
            if np.isnan(m.violation.mean):  # definition mode with only partial trials: none
                assert end is None, (opts.mode, samples)
                continue
            assert end == pytest.approx(m.violation.mean, abs=1e-9), (opts.mode, samples)
        assert m.violation_unbiased.mean == pytest.approx(m.violation.mean, abs=1e-9, nan_ok=True)
        said = m.n_said()
        assert "partial-memory trials" in said and (
            ("counted at every k" in said) == (opts.mode == "official")
        )
        assert said.startswith(f"{2 if keep_full else 0} full-memory trials")
        assert curve.n_said == said
    store.close()
