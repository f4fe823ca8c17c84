"""The Labels page's sensitivity section: the selected runs' Violation@n and Completeness under
each labelling scheme, how each ranks the runs against the official rule, and the pairs each
leaves ambiguous per domain. Widgets and drawing only: the numbers are
cimem.analysis.sensitivity's (what ``cimem labels sensitivity`` prints)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from cimem.analysis.label_sources import DEFAULT_SCHEMES, PEOPLE_SCHEMES
from cimem.analysis.sensitivity import Sensitivity
from webapp import cache, render, sidebar

EXPLAINED = (
    "Each (task, attribute) pair was labelled by three personas after Westin's privacy types"
    " (fundamentalist, pragmatic, unconcerned), ten samples each. The official rule keeps a pair"
    " only when every sample agreed (unanimous); everything else is ambiguous and left out of"
    " both metrics. Under unanimity the personas' weights change nothing; under a majority they"
    " do. Here each run is measured again under each scheme: a scheme is a rule (unanimous:"
    " every sample; majority: more than half of the weight) applied to a source (the combined"
    " view, the personas weighted alike, one persona alone, or people's labels)."
)


def section(ch: sidebar.Choices, has_people: bool) -> None:
    st.header("Labelling rules and personas")
    st.caption(EXPLAINED)
    if not ch.runs:
        st.info("No run with messages is selected in the sidebar.")
        return
    schemes = DEFAULT_SCHEMES + (PEOPLE_SCHEMES if has_people else ())
    found = cache.sensitivity_of(tuple(ch.scope(r) for r in ch.runs), schemes)
    if found.cohort:
        st.warning(render.escape_md(found.cohort))
    names = {s.name: f"S{i}" for i, s in enumerate(found.schemes, start=1)}
    render.static_table(
        scheme_frame(found, names), digits={"ambiguous pairs %": 1, "tau V": 2, "tau C": 2}
    )
    n = f"n = {ch.opts.k}" if ch.opts.k else "n = every sample"
    st.caption(
        f"Mode **{ch.opts.mode}**, {n}, each run under the judge chosen in the sidebar."
        " Ambiguous pairs: the share of the runs' labelled pairs the scheme leaves out of both"
        " metrics. tau: Kendall's tau-b of the runs' ranking by Violation@n (V) and by"
        " Completeness (C) against S1's, the official rule (1: the same order; - with fewer"
        " than two runs or ties only)."
    )
    for metric, title in (("violation", "Violation@n %"), ("completeness", "Completeness %")):
        st.subheader(f"{title} per run")
        frame = per_run_frame(found, metric, names)
        render.static_table(frame, digits={c: 2 for c in names.values()})
    st.subheader("Pairs left ambiguous per domain (%)")
    render.static_table(domain_frame(found, names), digits={c: 1 for c in names.values()})
    for scheme, why in found.skipped.items():
        for run, reason in why.items():
            st.caption(
                render.escape_md(f"{names[scheme]} ({scheme}) not computed for {run}: {reason}.")
            )


def scheme_frame(found: Sensitivity, names: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "": [names[s.name] for s in found.schemes],
            "scheme": [s.name for s in found.schemes],
            "reads": [s.describe() for s in found.schemes],
            "ambiguous pairs %": [100 * found.ambiguous_share(s.name) for s in found.schemes],
            "tau V": [r.violation_tau for r in found.ranks],
            "tau C": [r.completeness_tau for r in found.ranks],
        }
    )


def per_run_frame(found: Sensitivity, metric: str, names: dict[str, str]) -> pd.DataFrame:
    rows = found.by_run(metric)
    frame = pd.DataFrame(
        {label: [100 * v.get(s, float("nan")) for v in rows.values()] for s, label in names.items()}
    )
    frame.insert(0, "run", list(rows))
    return frame


def domain_frame(found: Sensitivity, names: dict[str, str]) -> pd.DataFrame:
    cells = {(d.scheme, d.domain): 100 * d.share for d in found.discards}
    domains = sorted({d.domain for d in found.discards})
    frame = pd.DataFrame(
        {label: [cells.get((s, d), float("nan")) for d in domains] for s, label in names.items()}
    )
    frame.insert(0, "domain", domains)
    return frame
