"""Tables for papers as LaTeX (booktabs): the Table-1-style rows, numbers with two decimals, every
text escaped."""

from __future__ import annotations

import math

import pandas as pd

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def _cell(value: object, missing: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return missing
    if isinstance(value, float):
        return f"{value:.2f}"
    return latex_escape(str(value))


def to_latex(
    df: pd.DataFrame, caption: str, label: str = "tab:cimemories", missing: str = "--"
) -> str:
    """A booktabs table of the frame's columns, numbers with two decimals, a missing value
    (None, NaN) written ``missing``; numeric columns are right-aligned, gaps or not."""
    cols = list(df.columns)
    align = "".join("r" if pd.api.types.is_numeric_dtype(df[c]) else "l" for c in cols)
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        rf"\begin{{tabular}}{{{align}}}",
        r"\toprule",
        " & ".join(latex_escape(c) for c in cols) + r" \\",
        r"\midrule",
    ]
    for _, row in df.iterrows():
        lines.append(" & ".join(_cell(row[c], missing) for c in cols) + r" \\")
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{latex_escape(caption)}}}",
        rf"\label{{{label}}}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"
