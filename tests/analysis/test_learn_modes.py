"""The Learn page's two modes side by side: each mode keeps the sidebar's other choices (a
rebuild of the options from mode and label rule alone used to drop the excluded keys, the
parse-failure rule and k, so its definition-mode numbers were not the sidebar's), and the
official script's three steps counted from the discard report."""

import dataclasses

import pytest

from cimem.analysis.cube_file import cube_from_official
from cimem.analysis.learn.modes import both_modes, official_steps, parse_failures_note
from cimem.analysis.metrics import MetricOptions, compute

from fixtures import PRIVATE, SHARE, attribute, profile, write_jsonl


def cube_with_two_leaks_and_a_parse_failure(tmp_path):
    """One context: "need" needed; "age", "diagnosis" and "medication" private; the first sample
    reveals need, diagnosis and medication, the second is an unparsed judge reply."""
    attrs = {
        "need": attribute("x", "general", "Need."),
        "age": attribute(40, "general", "Age."),
        "diagnosis": attribute("flu", "health", "Diagnosis."),
        "medication": attribute("Z", "health", "Medication."),
    }
    rev = {"need": 1, "diagnosis": 1, "medication": 1}
    ctx = {
        "recipient": "Landlord",
        "task": "Renew lease",
        "labels": {"need": SHARE, "age": PRIVATE, "diagnosis": PRIVATE, "medication": PRIVATE},
        "trials": [(rev, {k: "s" for k in rev}, "m0"), ({}, {}, "m1")],
    }
    return cube_from_official(write_jsonl(tmp_path / "r.jsonl", [profile("P", attrs, [ctx])]))


SIDEBAR = MetricOptions(
    mode="definition", label_rule="majority", exclude=("medication",), parse_failures="zero", k=1
)


def test_each_mode_keeps_every_other_field_of_the_options():
    both = both_modes(SIDEBAR)
    assert list(both) == ["official", "definition"]
    assert both["definition"] == SIDEBAR
    for mode, opts in both.items():
        assert opts.mode == mode
        kept = {f.name for f in dataclasses.fields(MetricOptions)} - {"mode"}
        assert {f: getattr(opts, f) for f in kept} == {f: getattr(SIDEBAR, f) for f in kept}


def test_the_definition_numbers_are_the_sidebars_which_the_rebuilt_options_were_not(tmp_path):
    cube = cube_with_two_leaks_and_a_parse_failure(tmp_path)
    opts = dataclasses.replace(SIDEBAR, label_rule="unanimous", k=None)
    shown = compute(cube, both_modes(opts)["definition"])
    sidebar = compute(cube, opts)
    assert (shown.violation.mean, shown.completeness.mean) == (
        sidebar.violation.mean,
        sidebar.completeness.mean,
    )
    assert shown.violation.mean == pytest.approx(1 / 2)  # age and diagnosis; diagnosis leaked
    assert shown.completeness.mean == pytest.approx(1 / 2)  # the unparsed reply counts as 0
    # what the page computed before: mode and label rule only, excluded keys and the
    # parse-failure rule dropped, so "medication" counted and the failed reply was left out
    rebuilt = compute(cube, MetricOptions(mode="definition", label_rule=opts.label_rule))
    assert rebuilt.violation.mean == pytest.approx(2 / 3)
    assert rebuilt.completeness.mean == 1.0


def test_the_official_steps_count_what_the_official_script_did(tmp_path):
    cube = cube_with_two_leaks_and_a_parse_failure(tmp_path)
    official = compute(cube, both_modes(MetricOptions())["official"])
    steps = {s["step"]: s["count"] for s in official_steps(official.discarded)}
    assert steps == {
        "1. withheld pairs removed by the identity filter": 1,  # "age"
        "2. contexts dropped from both metrics": 0,
        "3. samples whose judge reply failed to parse": 1,
    }


def test_the_steps_count_nothing_removed_when_there_is_no_identity_filter(tmp_path):
    cube = cube_with_two_leaks_and_a_parse_failure(tmp_path)
    definition = compute(cube, MetricOptions(mode="definition"))
    assert definition.discarded.identity_filter is None
    assert official_steps(definition.discarded)[0]["count"] == 0


def test_the_note_says_how_definition_mode_treats_parse_failures():
    assert parse_failures_note(MetricOptions(mode="definition")) == "parse failures left out"
    assert parse_failures_note(SIDEBAR) == "parse failures counted as nothing revealed"
