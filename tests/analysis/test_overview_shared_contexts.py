"""The Overview table compares runs at a common k only over contexts they share."""

from cimem.analysis.cube_file import cube_from_official
from cimem.analysis.metrics import MetricOptions
from cimem.analysis.overview import overview

from fixtures import small_profile, write_jsonl


def cube_of(tmp_path, name, recipients=None, trials=2, person=None):
    obj = small_profile(person or name)
    for ctx, recipient in zip(obj["contexts"], recipients or []):
        ctx["recipient"] = recipient
    if trials == 1:
        for ctx in obj["contexts"]:
            for key in [k for k in ctx if k.endswith("_trial=1")]:
                del ctx[key]
    return cube_from_official(write_jsonl(tmp_path / f"{name}.jsonl", [obj]))


def test_common_columns_when_runs_differ_but_share_contexts(tmp_path):
    a, b = cube_of(tmp_path, "A"), cube_of(tmp_path, "B", trials=1, person="A")
    ov = overview([a, b], MetricOptions(mode="definition"))
    assert not ov.comparable and ov.common_k == 1 and ov.common_contexts == 2
    assert "violation_at_1_common" in ov.table.columns
    assert ov.table["violation_at_1_common"].notna().all()
    assert "2 contexts they share" in ov.note


def test_no_common_columns_and_a_reason_when_runs_share_no_context(tmp_path):
    a = cube_of(tmp_path, "A")
    b = cube_of(tmp_path, "B", recipients=["Landlord", "Dentist"], trials=1)
    ov = overview([a, b], MetricOptions(mode="definition"))
    assert ov.common_contexts == 0 and not ov.comparable
    assert not [c for c in ov.table.columns if c.endswith("_common")]
    assert "share no context" in ov.note


def test_reuses_given_metrics(tmp_path):
    from cimem.analysis.metrics import compute

    a = cube_of(tmp_path, "A")
    opts = MetricOptions(mode="definition")
    given = [compute(a, opts)]
    assert overview([a], opts, given).metrics[0] is given[0]


def test_runs_that_label_a_shared_context_differently_are_named(tmp_path):
    """The same person and task, labelled otherwise by one run (as two real files label Jeffery
    Day's loan task with 123 and 0 private attributes): the note names the pair, and the
    comparison of every two runs counts the contexts labelled differently."""
    a = cube_of(tmp_path, "A")
    obj = small_profile("A")
    labels = obj["contexts"][0]["labels_combined"]
    statement = next(s for s, v in labels.items() if v["necessary"] == 1)
    labels[statement] = {"necessary": 0.0, "private": 1.0, "unlabeled": 0.0}
    b = cube_from_official(write_jsonl(tmp_path / "B.jsonl", [obj]))
    ov = overview([a, b], MetricOptions())
    (pair,) = ov.pairs
    assert (pair.shared_contexts, pair.contexts_labelled_differently) == (2, 1)
    assert not pair.labels_agree and "1 labelled differently" in ov.note
    assert "rows compare directly" not in ov.note and "cimem labels diff" in ov.note
    same = overview([a, cube_of(tmp_path, "C", person="A")], MetricOptions())
    assert same.pairs[0].labels_agree and "label the contexts they share alike" in same.note
    assert overview([a], MetricOptions()).pairs == []
