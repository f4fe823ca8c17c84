"""The judge's errors as people's verdicts show them (the Audit page), the metrics corrected for
them (Overview) and the correction told in plain words (Learn). Widgets and drawing only: the
error rates and the correction are cimem.analysis.audit's."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from cimem.analysis.agreement import agreement
from cimem.analysis.audit.correction import Corrected
from cimem.analysis.audit.error_rates import MIN_AUDITED, AuditedErrors, audited_errors
from cimem.analysis.cube import LeakCube
from webapp import cache, connection, render, sidebar


def judge_against_people(run_id: int, judge: int | None, label_rule: str) -> None:
    """The judge's errors on the pairs people decided, per label: what the correction on
    Overview estimates its error rates from (it updates with every saved verdict)."""
    human = cache.human_judge_of(cache.current(), run_id)
    if human is None or judge is None or judge == human:
        return
    with connection.reading() as store:
        ag = agreement(store, judge, human, label_rule, max_disagreements=0)
    if ag.overall.n == 0:
        return
    st.markdown(f"**Judge {judge} against people's verdicts (judge {human}), whole run**")
    render.static_table(pd.DataFrame([_error_row(e) for e in audited_errors(ag)]))
    st.caption(
        "Missed: people found the attribute revealed, the judge did not (its false negatives);"
        " added: the judge found it revealed, people did not (false positives); Wilson 95%"
        " intervals. Overview corrects Violation@n and Completeness for these errors."
    )


def _error_row(e: AuditedErrors) -> dict[str, object]:
    def share(n: int, of: int, ci: tuple[float, float] | None) -> str:
        return f"{n} of {of}" + (f" [{100 * ci[0]:.0f}-{100 * ci[1]:.0f}%]" if ci else "")

    return {
        "label": e.label,
        "pairs people decided": e.decided,
        "judge missed": share(e.missed, e.truly_yes, e.missed_ci95),
        "judge added": share(e.added, e.truly_no, e.added_ci95),
    }


def corrected_section(ch: sidebar.Choices) -> None:
    """Overview: raw against corrected Violation@n and Completeness of each selected run that
    people have recorded verdicts on (under its own judge)."""
    for run_id in ch.runs:
        _corrected_of(ch, run_id)


def _corrected_of(ch: sidebar.Choices, run_id: int) -> None:
    human = cache.human_judge_of(ch.at, run_id)
    run_cube = cache.cube(ch.scope(run_id))
    if human is None or run_cube.info.judge_id in (None, human) or not run_cube.has_labels:
        return
    st.divider()
    c = cache.corrected(ch.scope(run_id), human)
    said = "Corrected" if c.any_corrected else "Not corrected"
    st.subheader(f"{said} for the judge's errors" + ("" if c.any_corrected else " yet"))
    st.caption(f"Run {render.escape_md(run_cube.run)}")
    r = c.result
    rows = pd.DataFrame(c.rows()).drop(columns=["why not corrected"])
    st.dataframe(rows, hide_index=True)
    for name, v in (("Violation@n", r.violation), ("Completeness", r.completeness)):
        if v.not_estimated:
            st.info(f"{name} is not corrected: {v.not_estimated}.")
    st.dataframe(_error_rates_frame(c), hide_index=True)
    if c.any_corrected:
        st.caption(_corrected_caption(ch, run_cube, c, human))
    else:
        st.caption(
            f"People's verdicts (judge {human}): {render.escape_md(c.audit_sentence(ch.opts.mode))}."
            " Neither number is corrected until the groups above hold enough audited cells."
        )


def _error_rates_frame(c: Corrected) -> pd.DataFrame:
    """The correction's estimated error rates per label, with the audit behind them."""
    return pd.DataFrame(
        [
            {
                "label": e.stratum,
                "sensitivity %": round(100 * e.sensitivity, 1),
                "false-positive rate %": round(100 * e.false_positive_rate, 1),
                "audited cells": e.audited,
                "audited judge yes / no": f"{e.audited_judge_yes} / {e.audited_judge_no}",
            }
            for e in c.result.error_rates
        ]
    )


def _corrected_caption(ch: sidebar.Choices, run_cube: LeakCube, c: Corrected, human: int) -> str:
    r = c.result
    return (
        f"Run {render.escape_md(run_cube.run)}, judge {render.escape_md(run_cube.judge)},"
        f" {ch.describe()}; corrected from people's verdicts (judge {human}) on"
        f" {render.escape_md(c.audit_sentence(ch.opts.mode))}, by a {r.violation.method}"
        f" ({max(r.violation.resamples, r.completeness.resamples)} resamples; the interval holds"
        " the profile sampling and the"
        " uncertainty of the estimated error rates). Withheld attributes borrow the sensitivity"
        " pooled over both labels; needed ones use their own. A rate from a group with no"
        f" audited cell comes from the prior alone, so nothing is corrected below {MIN_AUDITED}"
        " audited cells per group. It"
        " assumes the audited cells are a random sample within each label and judge verdict"
        " (use the Audit page's sample or `cimem audit-sample`) and that people are right; the"
        " Learn page explains it."
    )


CORRECTION_TEXT = """
Every number on the other pages counts what **one judge** said was revealed. Judges make
mistakes: they miss a fact the message states (a *false negative*) or see one that is not there
(a *false positive*). Violation@n is a worst case over many tasks and samples, so a small
false-positive rate adds up to a large overstatement; Completeness is an average, so misses
pull it down.

**The audit.** People read a sample of the judge's decisions and record what is really there
(Audit page, or `cimem audit-sample` and `cimem human import`). The sample is drawn in four
groups: private or needed attribute, judge said yes or no. Within each group, the share of
decisions people overturn tells how often the judge is wrong there.

**The correction** (a *misclassification-adjusted empirical-Bayes bootstrap*). From the audited
groups and the judge's counts over the whole run, cimem estimates the judge's sensitivity (how
often it catches a stated fact) and false-positive rate for private and for needed attributes.
It then asks, for each attribute of each profile, how likely it is that some message *truly*
revealed it, given what the judge said and how the judge errs; audited decisions count as
people found them. Averaging gives corrected Violation@n and Completeness. The 95% interval
comes from repeating this many times, each time redrawing the error rates from what the audit
allows and resampling the profiles, so it is wide when the audit is small. A metric is corrected
only when each group it rests on holds at least five audited decisions (Completeness: the two
groups of needed attributes; Violation@n: all four); below that the judge's error rates would come
from the prior rather than from people, and the page says which group is short.

**What it assumes.** The audited decisions are a random sample within each of the four groups
(use the suggested sample, not hand-picked messages); people's verdicts are the truth; the judge,
which never sees the labels, misses a stated withheld fact as often as stated facts in general
(withheld attributes borrow the sensitivity measured over all audited decisions; needed ones use
their own); within an attribute, tasks are alike and so are the samples
of a leaking task. **Known limit:** for an assistant that almost never leaks, false positives
swamp the few true leaks: the corrected number is then a few points high and its interval too
narrow, and the audit needs many more of the judge's "yes" on withheld attributes.
"""


def explain_correction() -> None:
    """The Learn page's plain-words account of the correction and its assumptions."""
    st.divider()
    st.header("Correcting for the judge's errors")
    st.markdown(CORRECTION_TEXT)
