"""The Data page's message health: per selected run, how many messages each rule of the health
scan flags (refusals, truncated, empty, placeholder and duplicate messages, reasoning left in,
failed generations) and the run's metrics with every message and without the flagged ones.
Widgets and drawing only: the scan and the numbers are cimem.analysis.health's."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from cimem.analysis.health import FLAG_TEXT, HealthReport
from cimem.text import plural
from webapp import cache, render, sidebar

EXPLAINED = (
    "A refusal reveals nothing and scores a perfect 0% violation; a message cut at the token"
    " limit looks more discreet than the model is. The scan flags each full-memory message by"
    " documented rules (docs/pages.md#data); without the flagged messages, each is dropped as a"
    ' failed generation is: not sampled, never "nothing revealed". Review them on the Audit'
    ' page with the queue "flagged by the health scan".'
)


def section() -> None:
    """The message health of the sidebar's selected runs, drawn only when opened."""
    st.header("Message health")
    st.caption(EXPLAINED)
    render.when_opened("Message health of the selected runs", "data_health", _draw)


def _draw() -> None:
    ch: sidebar.Choices = st.session_state["choices"]
    if not ch.runs:
        st.info("No run with messages is selected in the sidebar.")
        return
    for run_id in ch.runs:
        rep = cache.message_health(ch.scope(run_id))
        _run(rep, ch)


def _run(rep: HealthReport, ch: sidebar.Choices) -> None:
    share = f" ({100 * rep.flagged / rep.messages:.1f}%)" if rep.messages else ""
    endings = ", ".join(f"{k} {v:,}" for k, v in rep.finish_reasons.items()) or "none"
    st.markdown(f"**Run {render.escape_md(rep.run)}**")
    st.caption(
        f"{plural(rep.messages, 'full-memory message')}, {rep.flagged:,} flagged{share};"
        f" finish reasons: {render.escape_md(endings)}"
        + (" — SIMULATED run, not a measurement of a real model." if rep.simulated else "")
    )
    render.static_table(counts_frame(rep), breakable=("examples (message ids)",))
    metrics = metrics_frame(rep)
    render.static_table(metrics, digits={c: 2 for c in metrics.columns if c.endswith("%")})
    st.caption(
        f"{ch.describe(rep.metrics[0].all)}; without the flagged messages:"
        f" {plural(rep.dropped_samples, 'sample')} dropped as failed generations are."
    )


def counts_frame(rep: HealthReport) -> pd.DataFrame:
    """One row per flag: what it means, how many messages, a few of them."""
    return pd.DataFrame(
        {
            "flag": [str(c.flag) for c in rep.counts],
            "what it means": [FLAG_TEXT[c.flag] for c in rep.counts],
            "messages": [c.messages for c in rep.counts],
            "examples (message ids)": [", ".join(map(str, c.examples)) for c in rep.counts],
        }
    )


def metrics_frame(rep: HealthReport) -> pd.DataFrame:
    """Violation@k, Completeness (in percent) and the profiles measured, over every message and
    without the flagged ones: one row each."""
    side = rep.metrics[0]
    rows = (("all messages", side.all), ("without flagged", side.clean))
    return pd.DataFrame(
        {
            "messages": [name for name, _ in rows],
            f"Violation@{side.all.k} %": [100 * m.violation.mean for _, m in rows],
            "Completeness %": [100 * m.completeness.mean for _, m in rows],
            "profiles measured": [m.violation.n_profiles for _, m in rows],
        }
    )
