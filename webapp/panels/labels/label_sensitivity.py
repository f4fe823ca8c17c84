"""The Labels page's sensitivity section: the selected runs' Violation@n and Completeness under
each labelling scheme, how each ranks the runs against the official rule, and the pairs each
leaves ambiguous per domain. Widgets and drawing only: the numbers are
cimem.analysis.sensitivity's (what ``cimem labels sensitivity`` prints)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from cimem.analysis.label_sources import DEFAULT_SCHEMES, PEOPLE_SCHEMES
from cimem.analysis.sensitivity import Sensitivity
from cimem.text import plural
from webapp import cache, render, sidebar

EXPLAINED = (
    "Each (task, attribute) pair was labelled by three personas after Westin's privacy types"
    " (fundamentalist, pragmatic, unconcerned), ten samples each. The official rule keeps a pair"
    " only when every sample agreed (unanimous); everything else is ambiguous and left out of"
    " both metrics. Under unanimity the personas' weights change nothing; under a majority they"
    " do. Here each run is measured again under each scheme: a scheme is a rule (unanimous:"
    " every sample; majority: more than half of the weight) applied to a source (the combined"
    " view, the personas weighted alike, one persona alone, or people's labels). A run that"
    " ships hard labels only (the Hugging Face release, PersistBench), or only the combined"
    " fractions, has no persona fractions: only the rules of the combined view measure it."
)


def section(ch: sidebar.Choices, has_people: bool) -> None:
    st.header("Labelling rules and personas")
    st.caption(EXPLAINED)
    if not ch.runs:
        st.info("No run with messages is selected in the sidebar.")
        return
    render.when_opened(
        f"The {plural(len(ch.runs), 'selected run')} under each scheme",
        "labels_sensitivity",
        lambda: _draw(ch, has_people),
    )


def _draw(ch: sidebar.Choices, has_people: bool) -> None:
    """The schemes' table, each run's numbers under each, and the discards per domain (drawn
    only while open: every scheme recomputes the runs' metrics, about 0.1 s per 60-profile
    run and scheme)."""
    schemes = DEFAULT_SCHEMES + (PEOPLE_SCHEMES if has_people else ())
    found = cache.sensitivity_of(tuple(ch.scope(r) for r in ch.runs), schemes)
    if found.cohort:
        st.warning(render.escape_md(found.cohort))
    names = {s.name: f"S{i}" for i, s in enumerate(found.schemes, start=1)}
    render.static_table(
        scheme_frame(found, names), digits={"ambiguous pairs %": 1, "tau V": 2, "tau C": 2}
    )
    st.caption(
        _how(ch) + " Each scheme sets its own label rule: the sidebar's applies to the"
        " agreement below. Ambiguous pairs: the share of the labelled pairs of the runs a scheme"
        " labels (runs) that it leaves out of both metrics. tau: Kendall's tau-b of the runs'"
        " ranking by Violation@n (V) and by Completeness (C) against S1's, the official rule"
        " (1: the same order); - with fewer than three runs ranked by both."
    )
    for metric, title in (("violation", "Violation@n %"), ("completeness", "Completeness %")):
        st.subheader(f"{title} per run")
        frame = per_run_frame(found, metric, names)
        render.static_table(frame, digits={c: 2 for c in names.values()})
    st.caption(
        "-: the scheme leaves the run no eligible pair (in official mode a context needs a"
        " needed and a withheld attribute other than a name, address, sex or age), or cannot"
        " label it (below)."
    )
    st.subheader("Pairs left ambiguous per domain (%)")
    render.static_table(domain_frame(found, names), digits={c: 1 for c in names.values()})
    _skipped(found, names)


def _how(ch: sidebar.Choices) -> str:
    """How the numbers were computed, as the other pages say it (without the label rule)."""
    (mode, value), *rest = ch.opts.described(with_rule=False)
    parts = [
        f"{mode.capitalize()} **{value}**",
        f"n = {ch.opts.k}" if ch.opts.k else "n = each run's own",
    ]
    parts += [f"{what} {render.escape_md(shown)}" for what, shown in rest]
    return ", ".join(parts) + "; each run under the judge chosen in the sidebar."


def _skipped(found: Sensitivity, names: dict[str, str]) -> None:
    """One line per run a scheme could not label: which schemes, and why."""
    by_run: dict[tuple[str, str], list[str]] = {}
    for scheme, why in found.skipped.items():
        for run, reason in why.items():
            by_run.setdefault((run, reason), []).append(names[scheme])
    for (run, reason), schemes in by_run.items():
        st.caption(f"{', '.join(schemes)} not computed for {render.escape_md(run)}: {reason}.")


def scheme_frame(found: Sensitivity, names: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "": [names[s.name] for s in found.schemes],
            "scheme": [s.name for s in found.schemes],
            "reads": [s.describe() for s in found.schemes],
            "runs": [sum(r.scheme == s.name for r in found.results) for s in found.schemes],
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
