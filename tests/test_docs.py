"""The README and the guides in docs/ say what the code does: the command reference is the CLI's
own help, every link lands on a file and a heading that exist, the README keeps its two commands
(`.ci/run` runs the test one), and the pre-commit hooks run what `bash scripts/test` runs."""

from __future__ import annotations

import difflib
import importlib.util
import re
import struct
from pathlib import Path
from types import ModuleType

import yaml

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
GUIDES = [README, *sorted(DOCS.glob("*.md"))]
FENCE = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def cli_docs() -> ModuleType:
    """scripts/cli_docs.py, loaded from its file (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location("cli_docs", ROOT / "scripts" / "cli_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def prose(path: Path) -> str:
    """A markdown file without its fenced code blocks (a `# comment` in a shell block is no heading)."""
    return FENCE.sub("", path.read_text(encoding="utf-8"))


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives the headings of a markdown file (duplicates numbered -1, -2, ...)."""
    seen: dict[str, int] = {}
    found = set()
    for line in prose(path).splitlines():
        m = re.match(r"#{1,6} (.+)", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def test_cli_reference_is_the_cli_help() -> None:
    current = (DOCS / "cli.md").read_text(encoding="utf-8")
    fresh = cli_docs().with_reference(current)
    diff = "".join(
        list(difflib.unified_diff(current.splitlines(True), fresh.splitlines(True), n=1))[:40]
    )
    assert fresh == current, f"docs/cli.md is stale: run python scripts/cli_docs.py\n{diff}"


def test_cli_reference_has_every_command() -> None:
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    module = cli_docs()
    for parser in module.commands(module.build_parser()):
        assert f"\n### {parser.prog}\n" in text


def test_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: move detail to docs/"


def test_readme_keeps_its_two_commands_and_ci_runs_the_test_one() -> None:
    blocks = re.findall(r"^```bash\n(.*?)^```", README.read_text(encoding="utf-8"), re.S | re.M)
    assert "bash scripts/app\n" in blocks
    assert "bash scripts/test\n" in blocks
    ci = [line.split() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert any(words[:2] == ["bash", "scripts/test"] for words in ci)


def test_links_land_on_files_and_headings() -> None:
    broken = []
    for page in GUIDES:
        for target in LINK.findall(prose(page)):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            dest = (page.parent / file).resolve() if file else page
            if not dest.exists():
                broken.append(f"{page.name}: {target} (no such file)")
            elif anchor and anchor not in anchors(dest):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


def test_every_guide_is_linked_from_the_readme() -> None:
    links = set(LINK.findall(prose(README)))
    for guide in sorted(DOCS.glob("*.md")):
        assert f"docs/{guide.name}" in links, f"README does not link docs/{guide.name}"


def test_readme_screenshot_is_a_small_1440_px_png() -> None:
    shot = DOCS / "img" / "overview.png"
    assert "(docs/img/overview.png)" in README.read_text(encoding="utf-8")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, _height = struct.unpack(">II", data[16:24])
    assert width == 1440
    assert len(data) < 300_000


def test_the_audit_pages_pointer_to_the_readme_holds() -> None:
    audit = (ROOT / "webapp" / "pages" / "audit.py").read_text(encoding="utf-8")
    if "Serving the app to others" in audit:
        assert "serving-the-app-to-others" in anchors(README)


def test_benchmarks_guide_names_every_bench_script() -> None:
    text = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    for script in sorted((ROOT / "bench").glob("*.py")):
        assert f"bench/{script.name}" in text, f"docs/benchmarks.md does not say {script.name}"


def test_pre_commit_hooks_run_the_fast_part_of_scripts_test() -> None:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    hooks = [h for repo in config["repos"] for h in repo["hooks"]]
    assert all(repo["repo"] == "local" for repo in config["repos"])
    assert all(h["language"] == "system" and h["pass_filenames"] is False for h in hooks)
    hook_commands = [h["entry"].removeprefix(".venv/bin/") for h in hooks]
    script_commands = [
        line.split('"$bin/', 1)[1].replace('"', "", 1).split(" | ")[0]
        for line in (ROOT / "scripts" / "test").read_text().splitlines()
        if line.startswith("echo") and '"$bin/' in line
    ]
    assert script_commands == [
        "ruff format --check --quiet .",
        "ruff check --quiet .",
        "lint-imports --no-cache",
        "mypy",
    ]
    assert hook_commands == script_commands


def _tree_paths(block: str) -> set[str]:
    """The files and folders a package tree names, as paths: a name (``x.py`` or ``x/``) at the
    start of a line, its folder given by the lines above it indented less."""
    found: set[str] = set()
    folders: list[tuple[int, str]] = []
    for line in block.splitlines():
        m = re.match(r"^( *)([\w.]+(?:/[\w.]+)*(?:\.py|/))(?:  |$)", line)
        if not m or len(m.group(1)) > 12:
            continue
        indent, name = len(m.group(1)), m.group(2)
        folders = [(i, f) for i, f in folders if i < indent]
        path = "".join(f for _, f in folders) + name
        found.add(path)
        if name.endswith("/"):
            folders.append((indent, name))
    return found


def test_the_package_tree_names_every_module_and_nothing_that_is_gone() -> None:
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    block = text[text.index("## Package tree") :]
    block = block[block.index("```") + 3 :]
    named = _tree_paths(block[: block.index("```")])
    modules = {
        str(p.relative_to(ROOT))
        for package in ("cimem", "webapp")
        for p in (ROOT / package).rglob("*.py")
        if p.name != "__init__.py"
    }
    named_modules = {p for p in named if p.endswith(".py") and p.startswith(("cimem/", "webapp/"))}
    assert modules - named_modules == set(), "modules the tree does not name"
    assert named_modules - modules == set(), "modules the tree names that are gone"


def test_pages_guide_names_every_page_and_counts_them() -> None:
    app = (ROOT / "app.py").read_text(encoding="utf-8")
    titles = re.findall(r'st\.Page\(\s*"webapp/pages/\w+\.py", title="([^"]+)"', app)
    guide = (DOCS / "pages.md").read_text(encoding="utf-8")
    words = {9: "Nine", 8: "Eight", 10: "Ten"}
    assert f"{words[len(titles)]} pages share one sidebar" in guide
    for title in titles:
        assert f"\n## {title}\n" in guide, f"docs/pages.md has no section for {title}"


def test_the_command_table_names_every_command() -> None:
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    table = text[: text.index("## Common rules")]
    module = cli_docs()
    top = module.build_parser()
    for action in top._actions:
        if action.__class__.__name__ == "_SubParsersAction":
            for name in action.choices:
                assert f"`{name}" in table, f"docs/cli.md's command table lacks {name}"


def _subparser(parser, words: list[str]):
    """The subparser a synopsis names (``human import`` as well as ``ingest``), or None."""
    import argparse

    found = None
    for word in words:
        actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not actions or word not in actions[0].choices:
            break
        parser = found = actions[0].choices[word]
    return found


def test_the_guides_synopses_name_options_the_cli_has() -> None:
    """Each hand-written synopsis in docs/cli.md's guide (a paragraph's leading `command ...`)
    names options its command has, and a choice list written `--opt a|b` is the parser's, so the
    guide cannot say `export --format` has one value when it has two."""
    import re

    from cimem.cli.main import build_parser

    parser = build_parser()
    guide = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split("<!-- generated")[0]
    checked, options_seen = 0, 0
    for synopsis in re.findall(r"^`([a-z][a-z -]*?(?: [^`]*)?)`", guide, flags=re.M):
        words = synopsis.removeprefix("python -m cimem ").split()
        command = _subparser(parser, words)
        if command is None:
            continue
        options = {s: a for a in command._actions for s in a.option_strings}
        for option, listed in re.findall(r"(--[a-z-]+)(?: ([a-z_]+(?:\|[a-z_]+)*))?", synopsis):
            assert option in options, f"`{synopsis}`: {option} is no option of the command"
            options_seen += 1
            choices = options[option].choices
            if listed and choices is not None:
                said, known = set(listed.split("|")), set(map(str, choices))
                assert said <= known if len(said) == 1 else said == known, (synopsis, option)
                checked += len(said) > 1
    assert checked >= 2 and options_seen >= 40  # ingest's and export's --format, at least
