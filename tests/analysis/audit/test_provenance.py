"""Which audit sample people's verdicts answer: a sheet's ``sample`` cell read back, and the draws
the corrected metrics follow, or the mismatch they name."""

from __future__ import annotations

import pytest

from cimem.analysis.audit.provenance import SampleSpec, audit_choice, specs_of_sheet
from cimem.errors import CimemError
from cimem.store import AuditSample

OFFICIAL = "official, rule unanimous"


def noted(judge: int, seed: int, options: str = OFFICIAL) -> AuditSample:
    return AuditSample(9, judge, seed, options, 200)


def test_a_sample_cell_reads_back_or_names_its_line():
    spec = SampleSpec(2, 17, "definition, rule majority, k 3")
    assert SampleSpec.parse(spec.text()) == spec
    assert specs_of_sheet([(2, spec.text()), (3, spec.text())], "a.csv") == {spec: 2}
    for bad in ("seed 3", "judge x, seed 3, official", "judge 1, seed 3", ""):
        with pytest.raises(CimemError, match=r"a\.csv: line 4: column sample: expected 'judge N"):
            specs_of_sheet([(4, bad)], "a.csv")


def test_without_a_noted_sample_the_draws_are_seed_0_or_the_one_asked_for():
    want = SampleSpec(1, 0, OFFICIAL)
    plain = audit_choice([], want, None)
    assert (plain.seed, plain.noted, plain.mismatch) == (0, False, None)
    assert "no audit sample was noted" in plain.said
    assert audit_choice([], want, 5).seed == 5


def test_the_noted_sample_is_followed_without_being_asked():
    choice = audit_choice([noted(1, 3)], SampleSpec(1, 0, OFFICIAL), None)
    assert (choice.seed, choice.noted, choice.mismatch) == (3, True, None)
    assert choice.said == "the audit sample of seed 3"


def test_another_seed_is_named_as_a_mismatch():
    choice = audit_choice([noted(1, 3)], SampleSpec(1, 0, OFFICIAL), 0)
    assert choice.mismatch is not None
    assert "seed 3" in choice.mismatch and "seed 0 draws others" in choice.mismatch


def test_another_judge_or_options_is_named_as_a_mismatch():
    for want in (SampleSpec(2, 0, OFFICIAL), SampleSpec(1, 0, "definition, rule unanimous")):
        choice = audit_choice([noted(1, 3)], want, None)
        assert choice.mismatch is not None and f"judge {want.judge_id} under" in choice.mismatch


def test_of_several_noted_samples_the_oldest_is_followed_and_the_others_named():
    samples = [noted(1, 3), noted(1, 8), noted(2, 1)]
    choice = audit_choice(samples, SampleSpec(1, 0, OFFICIAL), None)
    assert choice.seed == 3 and "also noted: seed 8" in choice.said
    assert audit_choice(samples, SampleSpec(1, 0, OFFICIAL), 8).seed == 8
