"""The house's size habits, checked on every run: small modules, short functions, thin pages.

A module over 500 lines or a function over 60 lines is a room doing two jobs; a page over 250 lines
holds logic that belongs in ``cimem`` or ``webapp``. Data tables live in files, not in code.
"""

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CODE = sorted([*REPO.glob("cimem/**/*.py"), *REPO.glob("webapp/**/*.py"), REPO / "app.py"])
MODULE_LINES = 500
FUNCTION_LINES = 60
PAGE_LINES = 250


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def _long_functions(path: Path, root: Path = REPO) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > FUNCTION_LINES:
                found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_the_code_is_found():
    names = {p.relative_to(REPO).as_posix() for p in CODE}
    assert "cimem/store/__init__.py" in names and "webapp/pages/overview.py" in names


@pytest.mark.parametrize("path", CODE, ids=lambda p: p.relative_to(REPO).as_posix())
def test_module_is_small(path: Path):
    assert _lines(path) <= MODULE_LINES, f"{path.relative_to(REPO)}: {_lines(path)} lines"


def test_no_function_is_long():
    long = [f for path in CODE for f in _long_functions(path)]
    assert not long, "\n".join(long)


def test_pages_are_thin():
    pages = sorted((REPO / "webapp/pages").glob("*.py"))
    assert len(pages) >= 5
    fat = [f"{p.name}: {_lines(p)} lines" for p in pages if _lines(p) > PAGE_LINES]
    assert not fat, fat


def test_the_checker_sees_a_long_function(tmp_path: Path):
    body = "\n".join(f"    x{i} = {i}" for i in range(FUNCTION_LINES))
    sample = tmp_path / "sample.py"
    sample.write_text(f"def long():\n{body}\n", encoding="utf-8")
    assert _long_functions(sample, tmp_path) == [f"sample.py:1 long ({FUNCTION_LINES + 1} lines)"]
