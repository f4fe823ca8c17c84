"""The Audit page's reviewers against each other: Cohen's kappa per pair, Krippendorff's alpha,
and what waits for adjudication. Widgets and drawing only: the numbers are
cimem.analysis.audit.reviewers'."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from cimem.analysis.agreement import format_kappa
from cimem.analysis.audit.reviewers import people_agreement
from cimem.text import plural
from webapp import connection, render


def _ci(pair: tuple[float, float]) -> str:
    return "-" if pair[0] != pair[0] else f"[{pair[0]:.2f}, {pair[1]:.2f}]"


def people_section(run_id: int) -> None:
    """Drawn when two or more named reviewers decided the run's cells."""
    with connection.reading() as store:
        human = store.find_human_judge(run_id)
        rows = store.human_verdicts(human) if human is not None else []
    ag = people_agreement(rows)
    if len(ag.reviewers) < 2:
        return
    st.markdown(f"**Reviewers against each other ({len(ag.reviewers)} reviewers, whole run)**")
    render.static_table(
        pd.DataFrame(
            [
                {
                    "reviewer A": p.a,
                    "reviewer B": p.b,
                    "cells both decided": p.cells,
                    "agree": p.agree,
                    "Cohen's kappa": format_kappa(p.kappa),
                    "95% CI": _ci(p.kappa_ci95),
                }
                for p in ag.pairs
            ]
        )
    )
    alpha = "undefined" if ag.alpha != ag.alpha else f"{ag.alpha:.3f}"
    st.caption(
        f"Krippendorff's alpha over the {ag.shared_cells} cells two or more reviewers decided:"
        f" {alpha} {_ci(ag.alpha_ci95)} (bootstrap over cells)."
        f" {plural(len(ag.disagreements), 'cell')} to adjudicate (queue: reviewers disagree;"
        " save with *Record as"
        f" adjudications*), {ag.adjudicated} adjudicated. Until then a disputed cell counts in"
        " no corrected number. Every fifth draw of the suggested sample goes to two reviewers"
        " (the Review page asks a second reviewer for it)."
    )
