"""Each chart drawn in the page by a few lines of script (a Python module, its script and its
style), and its SVG and PNG files made in the browser from the chart as drawn (``save.js``), so
a chart is specified once and the file a visitor saves is the chart they saw."""

from pathlib import Path

_HERE = Path(__file__).parent


def assets(name: str) -> tuple[str, str]:
    """The script and the style of the chart ``name``: the shared save buttons' first, then the
    chart's own (one script: a component takes one).

    >>> js, css = assets("linechart")
    >>> js.index("function saveButtons") < js.index("export default"), ".save" in css
    (True, True)
    """
    js, css = (
        (_HERE / "save.js").read_text(encoding="utf-8")
        + "\n"
        + (_HERE / f"{name}.js").read_text(encoding="utf-8"),
        (_HERE / "save.css").read_text(encoding="utf-8")
        + "\n"
        + (_HERE / f"{name}.css").read_text(encoding="utf-8"),
    )
    return js, css
