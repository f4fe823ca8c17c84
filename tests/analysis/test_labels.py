"""Label rules: which bin a pair's fractions fall in, at and around each rule's edge."""

import numpy as np
import pytest

from cimem.analysis.labels import AMBIGUOUS, LABEL_NAMES, PRIVATE, SHARE, LabelRule
from cimem.store import Label


def labels(rule: str, necessary: list[float], private: list[float]) -> list[int]:
    return LabelRule.parse(rule).apply(np.array(necessary), np.array(private)).tolist()


def test_unanimous_needs_all_of_the_mass_with_no_tolerance():
    got = labels("unanimous", [1.0, 0.0, 0.999999, 0.0, 0.5], [0.0, 1.0, 0.0, 0.999999, 0.5])
    assert got == [SHARE, PRIVATE, AMBIGUOUS, AMBIGUOUS, AMBIGUOUS]


def test_majority_needs_strictly_more_than_half():
    got = labels("majority", [0.5, 0.51, 0.2, 0.49], [0.5, 0.2, 0.51, 0.3])
    assert got == [AMBIGUOUS, SHARE, PRIVATE, AMBIGUOUS]


def test_threshold_needs_at_least_x():
    got = labels("threshold:0.8", [0.8, 0.79, 0.1, 0.0], [0.2, 0.21, 0.8, 0.7])
    assert got == [SHARE, AMBIGUOUS, PRIVATE, AMBIGUOUS]


def test_a_pair_in_both_bins_is_ambiguous():
    # fractions that do not sum to one (damaged data) must not count for either metric
    assert labels("unanimous", [1.0], [1.0]) == [AMBIGUOUS]
    assert labels("majority", [0.9], [0.9]) == [AMBIGUOUS]


def test_empty_input_gives_empty_labels():
    assert labels("majority", [], []) == []


@pytest.mark.parametrize(
    ("text", "name", "threshold", "strict"),
    [
        (None, "unanimous", 1.0, False),
        ("", "unanimous", 1.0, False),
        ("  Unanimous ", "unanimous", 1.0, False),
        ("MAJORITY", "majority", 0.5, True),
        ("threshold:1", "threshold:1", 1.0, False),
        ("threshold:0.75", "threshold:0.75", 0.75, False),
        ("threshold:0.500001", "threshold:0.500001", 0.500001, False),
    ],
)
def test_parse_names_the_rule(text, name, threshold, strict):
    rule = LabelRule.parse(text)
    assert (rule.name, rule.threshold, rule.strict, str(rule)) == (name, threshold, strict, name)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("threshold:0.5", "in (0.5, 1]"),
        ("threshold:1.01", "in (0.5, 1]"),
        ("threshold:much", "in (0.5, 1]"),
        ("threshold:nan", "in (0.5, 1]"),
        ("plurality", "choose unanimous, majority or threshold:X"),
    ],
)
def test_parse_rejects_rules_it_cannot_apply(text, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("]", r"\]")):
        LabelRule.parse(text)


def test_label_names_are_the_store_vocabulary():
    assert {code: str(name) for code, name in LABEL_NAMES.items()} == {
        SHARE: "share",
        PRIVATE: "private",
        AMBIGUOUS: "ambiguous",
    }
    assert set(LABEL_NAMES.values()) == set(Label)
