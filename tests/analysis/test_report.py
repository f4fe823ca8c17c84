"""Paper tables: LaTeX (booktabs) and the Pareto front of violation against completeness."""

import math

import pandas as pd

from cimem.analysis.latex import latex_escape, to_latex
from cimem.analysis.overview_table import pareto_front
from cimem.analysis.sheets import frame_to_csv


def test_latex_escape_every_special_character():
    assert latex_escape("a_b & 50% #1 $x {y} ~z ^w \\") == (
        r"a\_b \& 50\% \#1 \$x \{y\} \textasciitilde{}z \textasciicircum{}w \textbackslash{}"
    )
    assert latex_escape(3) == "3"


def test_to_latex_aligns_formats_and_escapes():
    df = pd.DataFrame({"run": ["model_a", "b & c"], "violation %": [12.345, math.nan], "n": [5, 3]})
    out = to_latex(df, caption="Violation_at_5", label="tab:x")
    lines = out.splitlines()
    assert lines[:6] == [
        r"\begin{table}[t]",
        r"\centering",
        r"\begin{tabular}{lrr}",
        r"\toprule",
        r"run & violation \% & n \\",
        r"\midrule",
    ]
    assert lines[6] == r"model\_a & 12.35 & 5 \\"  # floats with two decimals, ints as they are
    assert lines[7] == r"b \& c & -- & 3 \\"  # NaN is a dash
    assert lines[8:] == [
        r"\bottomrule",
        r"\end{tabular}",
        r"\caption{Violation\_at\_5}",
        r"\label{tab:x}",
        r"\end{table}",
    ]
    assert out.endswith("\n")


def test_to_latex_of_an_empty_frame_has_only_the_header():
    out = to_latex(pd.DataFrame({"run": pd.Series([], dtype=object)}), caption="c")
    assert r"run \\" in out and r"\midrule" + "\n" + r"\bottomrule" in out


def test_pareto_front_keeps_points_nothing_beats():
    points = [
        ("safe", 10.0, 50.0),
        ("useful", 40.0, 90.0),
        ("dominated", 45.0, 80.0),  # worse than useful on both
        ("tie-violation", 10.0, 40.0),  # same violation as safe, less complete
        ("middle", 20.0, 70.0),
    ]
    assert pareto_front(points) == ["safe", "useful", "middle"]


def test_pareto_front_keeps_identical_points_and_handles_none():
    assert pareto_front([("a", 1.0, 2.0), ("b", 1.0, 2.0)]) == ["a", "b"]
    assert pareto_front([]) == []
    assert pareto_front([("only", 0.5, 0.5)]) == ["only"]


def test_to_latex_writes_missing_numbers_as_asked_and_keeps_them_right_aligned():
    import warnings

    df = pd.DataFrame({"run": ["a", "b"], "std": [0.5, None], "n": [3, None], "note": ["x", None]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = to_latex(df, caption="c", missing="-")
    assert r"\begin{tabular}{lrrl}" in out
    assert r"a & 0.50 & 3.00 & x \\" in out
    assert r"b & - & - & - \\" in out
    assert r"b & -- & -- & -- \\" in to_latex(df, caption="c")


def test_frame_to_csv_writes_formula_like_text_as_text():
    """Run and model names come from data files: one named as a formula must not run when the
    table is opened in a spreadsheet; numbers (negative too) stay numbers."""
    df = pd.DataFrame(
        {
            "run": ['=HYPERLINK("http://x.example","go")', "plain", None],
            "model": ["@cmd", "+1", "-"],
            "change": [-1.5, 2.0, math.nan],
            "=sum": [1, 2, 3],
        }
    )
    lines = frame_to_csv(df).splitlines()
    assert lines[0] == "run,model,change,'=sum"
    assert lines[1] == '"\'=HYPERLINK(""http://x.example"",""go"")",\'@cmd,-1.5,1'
    assert lines[2] == "plain,'+1,2.0,2"
    assert lines[3] == ",-,,3"  # a missing name is empty; a lone "-" (missing) stays as it is
    assert df.loc[1, "model"] == "+1"  # the frame itself is not changed
