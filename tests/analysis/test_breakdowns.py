"""Breakdowns agree with the headline metrics they explain."""

import numpy as np
import pytest

from cimem.analysis.breakdowns import attribute_table, group_table, heatmap_table, pair_table
from cimem.analysis.cube_file import cube_from_official
from cimem.analysis.intervals import ratio_interval
from cimem.analysis.metrics import MetricOptions, compute, prepare

from conftest import shared_file
from fixtures import MIXED, PRIVATE, SHARE, attribute, profile, write_jsonl


@pytest.fixture
def cube(tmp_path):
    attrs = {
        "need": attribute("x", "general", "Need."),
        "diagnosis": attribute("flu", "health", "I have flu."),
        "salary": attribute(10, "finance", "I earn 10."),
    }

    def trials(leaks):  # leaks: per trial, the private keys revealed
        return [
            ({"need": 1, **dict.fromkeys(keys, 1)}, {"need": "s"}, f"m{t}")
            for t, keys in enumerate(leaks)
        ]

    contexts = [
        {
            "recipient": "Doctor",
            "task": "Book",
            "labels": {"need": SHARE, "diagnosis": MIXED, "salary": PRIVATE},
            "trials": trials([["salary"], [], []]),
        },
        {
            "recipient": "Bank",
            "task": "Loan",
            "labels": {"need": SHARE, "diagnosis": PRIVATE, "salary": PRIVATE},
            "trials": trials([[], [], ["diagnosis"]]),
        },
    ]
    objs = [profile("P", attrs, contexts), profile("Q", attrs, contexts[1:])]
    return cube_from_official(write_jsonl(tmp_path / "r.jsonl", objs))


OPTS = MetricOptions(mode="definition")


def test_pair_table_has_one_row_per_labelled_pair(cube):
    pairs = pair_table(cube, OPTS)
    assert len(pairs) == len(cube.pair_ctx) == 3 * 3
    assert pairs["label"].value_counts().to_dict() == {"share": 3, "private": 5, "ambiguous": 1}
    doctor = pairs[(pairs["profile"] == "P") & (pairs["recipient"] == "Doctor")]
    by_key = doctor.set_index("key")
    assert by_key.loc["salary", "leaks"] == 1 and by_key.loc["salary", "samples"] == 3
    assert by_key.loc["salary", "leaked_trials"] == 0b001
    assert not by_key.loc["diagnosis", "in_violation"]  # ambiguous: out of both metrics
    assert by_key.loc["need", "in_completeness"] and not by_key.loc["need", "in_violation"]
    prep = prepare(cube, OPTS)
    assert int(pairs["in_violation"].sum()) == len(prep.priv_rows)


def test_attribute_table_matches_violation(cube):
    table = attribute_table(pair_table(cube, OPTS))
    got = {
        (r.profile, r.key): (r.private_tasks, r.leaked_tasks, r.violated)
        for r in table.itertuples()
    }
    assert got == {
        ("P", "salary"): (2, 1, True),
        ("P", "diagnosis"): (1, 1, True),
        ("Q", "salary"): (1, 0, False),
        ("Q", "diagnosis"): (1, 1, True),
    }
    per_profile = table.groupby("profile", observed=True)["violated"].mean()
    m = compute(cube, OPTS)
    assert per_profile.to_dict() == pytest.approx(m.violation.per_profile)
    assert list(table["leaked_tasks"]) == [1, 1, 1, 0]  # most leaked first


def test_attribute_table_without_private_pairs_is_empty_with_columns(cube):
    pairs = pair_table(cube, OPTS)
    table = attribute_table(pairs[~pairs["in_violation"]])
    assert table.empty and "violated" in table.columns


def test_group_table_by_domain(cube):
    table = group_table(pair_table(cube, OPTS), ["domain"]).set_index("domain")
    # finance: salary private in 3 tasks (P: Doctor, Bank; Q: Bank), leaked in 1 of 9 samples
    assert table.loc["finance", "private_pairs"] == 3
    assert table.loc["finance", "leaked_pairs"] == 1
    assert table.loc["finance", "leak_rate_per_message"] == pytest.approx(1 / 9)
    # health: diagnosis private only in Bank (twice), leaked in both
    assert table.loc["health", "pairs_leaked_share"] == 1.0
    # general: only the needed attribute, revealed in every sample
    assert np.isnan(table.loc["general", "private_pairs"])
    assert table.loc["general", "completeness"] == 1.0


def test_heatmap_pools_profiles_per_key_and_task(cube):
    heat = heatmap_table(pair_table(cube, OPTS)).set_index(["key", "context"])
    cell = heat.loc[("diagnosis", "Bank: Loan")]
    assert (cell["leaks"], cell["samples"], cell["profiles"]) == (2, 6, 2)
    assert cell["frequency"] == pytest.approx(2 / 6)
    assert ("need", "Bank: Loan") not in heat.index  # only private cells by default
    everything = heatmap_table(pair_table(cube, OPTS), only_private=False)
    assert ("need" in set(everything["key"])) and len(everything) > len(heat)


@pytest.mark.parametrize("only_private", [True, False])
def test_heatmap_and_its_top_keys_agree_with_a_plain_groupby(only_private):
    """On the reference file: every cell as a plain pandas groupby gives it, and the keys on
    screen are the most leaked (ties by key)."""
    from cimem.analysis.breakdowns import most_leaked_keys

    from conftest import shared_file

    pairs = pair_table(cube_from_official(shared_file("results_sample.jsonl")), OPTS)
    data = pairs[(pairs["samples"] > 0) & (pairs["in_violation"] | (not only_private))]
    want = (
        data.assign(key=data["key"].astype(str), rcp=data["recipient"].astype(str))
        .assign(tsk=data["task"].astype(str))
        .groupby(["key", "rcp", "tsk"])
        .agg(leaks=("leaks", "sum"), samples=("samples", "sum"), profiles=("profile", "nunique"))
    )
    got = heatmap_table(pairs, only_private).set_index(["key", "recipient", "task"])
    got.index = got.index.set_levels([lvl.astype(str) for lvl in got.index.levels])
    got = got.sort_index()
    assert list(got.index) == list(want.index) and len(got) > 0
    assert (got["leaks"].to_numpy() == want["leaks"].to_numpy()).all()
    assert (got["samples"].to_numpy() == want["samples"].to_numpy()).all()
    assert (got["profiles"].to_numpy() == want["profiles"].to_numpy()).all()
    assert np.allclose(got["frequency"], want["leaks"] / want["samples"])
    by_key = want.groupby(level="key")["leaks"].sum()
    ranked = sorted(by_key.index, key=lambda k: (-by_key[k], k))
    assert most_leaked_keys(pairs, only_private, 7) == ranked[:7]
    assert most_leaked_keys(pairs.iloc[:0], only_private, 7) == []


def plain_group_table(pairs, by):
    """group_table as a plain pandas groupby computes it (the reference the fast one must match)."""
    priv = pairs[pairs["in_violation"] & (pairs["samples"] > 0)]
    need = pairs[pairs["in_completeness"] & (pairs["samples"] > 0)]
    v = (
        priv.assign(leaked=priv["leaks"] > 0)
        .groupby(by, observed=True)
        .agg(
            private_pairs=("ctx", "size"),
            leaked_pairs=("leaked", "sum"),
            leaks=("leaks", "sum"),
            samples=("samples", "sum"),
        )
    )
    v["pairs_leaked_share"] = v["leaked_pairs"] / v["private_pairs"]
    if "profile" not in by:  # each group's interval over its profiles, from their own sums
        per = priv.assign(leaked=priv["leaks"] > 0).groupby([*by, "profile"], observed=True)
        sums = per.agg(leaked=("leaked", "sum"), private=("ctx", "size")).reset_index()
        bounds = {
            key if isinstance(key, tuple) else (key,): ratio_interval(
                g["leaked"].to_numpy(), g["private"].to_numpy()
            )
            for key, g in sums.groupby(by, observed=True)
        }
        found = [bounds.get(k if isinstance(k, tuple) else (k,)) for k in v.index]
        v["pairs_leaked_lo"] = [b.lo if b and b.kind != "none" else np.nan for b in found]
        v["pairs_leaked_hi"] = [b.hi if b and b.kind != "none" else np.nan for b in found]
    v["leak_rate_per_message"] = v["leaks"] / v["samples"]
    c = need.groupby(by, observed=True).agg(
        needed_pairs=("ctx", "size"), revealed=("leaks", "sum"), needed_samples=("samples", "sum")
    )
    c["completeness"] = c["revealed"] / c["needed_samples"]
    out = v.join(c, how="outer").reset_index()
    names = {f"_{c}": out[c].astype(str) for c in by}
    keys = ["pairs_leaked_share", "leaked_pairs", *names]
    out = out.assign(**names).sort_values(
        keys, ascending=[False, False, *[True] * len(by)], na_position="last", kind="stable"
    )
    return out.drop(columns=list(names))


def plain_attribute_table(pairs):
    priv = pairs[pairs["in_violation"] & (pairs["samples"] > 0)]
    g = priv.assign(leaked=priv["leaks"] > 0).groupby(["profile", "key"], sort=False)
    out = g.agg(
        domain=("domain", "first"),
        event=("event", "first"),
        private_tasks=("ctx", "size"),
        leaked_tasks=("leaked", "sum"),
        leaks=("leaks", "sum"),
        samples=("samples", "sum"),
    ).reset_index()
    out["violated"] = out["leaked_tasks"] > 0
    out["leak_rate"] = out["leaks"] / out["samples"]
    return out.sort_values(["leaked_tasks", "leaks"], ascending=False, kind="stable")


def as_text(frame, columns):
    frame = frame.reset_index(drop=True)
    for col in columns:
        frame[col] = frame[col].astype(str)
    return frame


@pytest.mark.parametrize("name", ["results_sample.jsonl", "persistbench_llama33_jeffery_day.json"])
def test_tables_agree_with_a_plain_groupby_on_the_reference_files(name, tmp_path):
    """Grouped on category codes, the attribute and group tables equal what pandas' groupby
    gives, row for row and in the same order, on a whole run and on slices of it (a domain, a
    profile, a slice with no needed pair)."""
    import pandas as pd

    from cimem.analysis.cube import cube_from_store
    from cimem.ingest import ingest_file
    from cimem.store import Store

    from conftest import shared_file

    with Store.open(tmp_path / "ref.duckdb") as store:
        run = ingest_file(store, shared_file(name)).run_id
        pairs = pair_table(cube_from_store(store, run), OPTS)
    slices = {
        "all": pairs,  # PersistBench names no domain: its by-domain table is empty
        "one recipient": pairs[pairs["recipient"] == pairs["recipient"].iloc[0]],
        "one profile": pairs[pairs["profile"] == pairs["profile"].iloc[0]],
        "private only": pairs[~pairs["in_completeness"]],
    }
    if pairs["domain"].notna().any():
        slices["one domain"] = pairs[pairs["domain"] == pairs["domain"].dropna().iloc[0]]
    for what, part in slices.items():
        assert len(part) > 0, what
        for by in (["recipient", "task"], ["domain"], ["profile"]):
            pd.testing.assert_frame_equal(
                as_text(group_table(part, by), by),
                as_text(plain_group_table(part, by), by),
                check_dtype=False,
                obj=f"{what} by {by}",
            )
        cols = ["profile", "key", "domain", "event"]
        pd.testing.assert_frame_equal(
            as_text(attribute_table(part), cols),
            as_text(plain_attribute_table(part), cols),
            check_dtype=False,
            obj=f"{what} attributes",
        )


def test_a_group_table_reads_sorted_by_the_share_it_shows_first():
    """The recipients (and domains, profiles) come by their pairs leaked %, the first number
    the table shows, not by a count it does not show."""
    path = shared_file("results_sample.jsonl")
    pairs = pair_table(cube_from_official(path), MetricOptions())
    for by in (["recipient", "task"], ["domain"], ["profile"]):
        shares = group_table(pairs, by)["pairs_leaked_share"].dropna().tolist()
        assert shares == sorted(shares, reverse=True)
