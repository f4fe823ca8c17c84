"""The Leaks page's data shaping (cimem.analysis.leaks): filters, the leaked pairs, the
heatmap's compact labels."""

import pandas as pd

from cimem.analysis.leaks import compact_labels, filtered_pairs, leaky_pairs, one_value_filters


def test_compact_labels_keep_the_distinguishing_end():
    keys = [
        "expecting_child_health_insurance_premium_increase",
        "expecting_child_health_insurance_provider_change",
        "job_title",
    ]
    labels = compact_labels(keys, 34)
    assert labels["job_title"] == "job_title"
    assert all(len(v) <= 34 for v in labels.values())
    assert labels[keys[0]].endswith("premium_increase")
    assert labels[keys[1]].endswith("provider_change")
    assert len(set(labels.values())) == 3
    same_end = compact_labels(
        ["a_long_prefix_one_" + "x" * 40, "b_long_prefix_two_" + "x" * 40], 20
    )
    assert len(set(same_end.values())) == 2


def pair_rows() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "profile": ["A", "A", "B"],
            "profile_pos": [0, 0, 1],
            "ctx": [0, 1, 0],
            "attr": [0, 1, 2],
            "key": ["age", "Income", "job"],
            "domain": ["health", "money", "work"],
            "recipient": ["doctor", "bank", "boss"],
            "task": ["visit", "loan", "review"],
            "label": ["private", "private", "necessary"],
            "leaks": [2, 0, 1],
            "samples": [3, 3, 3],
            "in_violation": [True, True, False],
        }
    )


def test_filters_choose_values_and_search_the_key_without_case():
    table = pair_rows()
    assert filtered_pairs(table, ()).equals(table)
    assert filtered_pairs(table, (("domain", ("money", "work")),))["key"].tolist() == [
        "Income",
        "job",
    ]
    assert filtered_pairs(table, (("search", "INC"),))["key"].tolist() == ["Income"]
    assert filtered_pairs(table, (("domain", ()),)).equals(table)  # nothing chosen: no filter


def test_leaky_pairs_are_the_leaked_pairs_in_violation_named_for_the_picker():
    out = leaky_pairs(pair_rows())
    assert out["key"].tolist() == ["age"]  # job leaked, but it may be said there
    assert out["context"].tolist() == ["doctor: visit"]
    assert out["pair"].tolist() == ["A · age → doctor (2/3)"]


def test_one_value_filters_leave_out_a_value_that_is_no_filter():
    full = {"domain": frozenset({"health"}), "task": frozenset({"a", "b"})}
    assert one_value_filters("domain", ["health"], full) == []
    assert one_value_filters("task", ["a", "b"], full) == [
        (("task", ("a",)),),
        (("task", ("b",)),),
    ]
