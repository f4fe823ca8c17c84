"""The data folder: every path attack through ?db=, the database picker and the server-path
import gets one line saying what was refused and why; no file outside the folder is created,
changed or shown (sha256 before and after), no folder is created, a foreign DuckDB file is left
untouched (streamlit.testing AppTest, and cimem.paths directly)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import duckdb
import pytest
from apptest import APP
from streamlit.testing.v1 import AppTest

from cimem.ingest import ingest_file
from cimem.paths import DATABASE_SUFFIXES, INPUT_SUFFIXES, PathRefused, confine, databases_in
from cimem.store import DatabaseRefused, Store

from fixtures import small_profile, write_jsonl

CANARY = "CANARY-7d1f-private-content"


@pytest.fixture
def world(tmp_path):
    """A data folder beside an outside folder holding secrets, and every kind of trap."""
    root, outside = tmp_path / "data", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    with Store.open(root / "good.duckdb") as s:
        ingest_file(s, write_jsonl(tmp_path / "a.jsonl", [small_profile("Ada")]), name="good run")
    (tmp_path / "a.jsonl").unlink()
    with Store.open(outside / "secret.duckdb") as s:
        ingest_file(s, write_jsonl(outside / "secret.jsonl", [small_profile(CANARY)]), name=CANARY)
    (outside / "secret.txt").write_text(CANARY + "\n")
    con = duckdb.connect(str(root / "foreign.duckdb"))
    con.execute("CREATE TABLE payroll (who VARCHAR, salary INTEGER)")
    con.execute("INSERT INTO payroll VALUES (?, 1)", [CANARY])
    con.close()
    (root / "notduck.duckdb").write_text(CANARY + " not a database\n")
    (root / "notjson.jsonl").write_text(CANARY + " {not json\n")
    os.mkfifo(root / "fifo.duckdb")
    os.mkfifo(root / "fifo.jsonl")
    (root / "folder.duckdb").mkdir()
    (root / "folder.jsonl").mkdir()
    (root / "escape.duckdb").symlink_to(outside / "secret.duckdb")
    (root / "escape.jsonl").symlink_to(outside / "secret.jsonl")
    return tmp_path, root, outside


def snapshot(top: Path) -> dict[str, str]:
    """Every path under ``top`` with the sha256 of each regular file (FIFOs are never opened)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            if p.is_symlink() or not p.is_file():
                out[str(p)] = "link" if p.is_symlink() else "other"
            else:
                out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def texts(at: AppTest) -> list[str]:
    found = []
    for kind in ("error", "warning", "info", "success", "markdown", "caption", "code", "exception"):
        found += [str(e.value) for e in getattr(at, kind)]
    found += [str(df.value.to_dict()) for df in at.dataframe]
    found += [str(h.value) for h in at.html]
    return found


def app(root: Path, monkeypatch, **params) -> AppTest:
    monkeypatch.setenv("CIMEM_DB", str(root / "good.duckdb"))
    monkeypatch.setenv("CIMEM_DATA_DIR", str(root))
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in params.items():
        at.query_params[k] = v
    return at


def plain(text: str) -> str:
    """Markdown-escaped text as it reads."""
    return text.replace("\u2060", "").replace("\\", "")


def one_refusal(at: AppTest, typed: str, reason: str) -> None:
    assert not at.exception, [e.value for e in at.exception]
    errors = [plain(e.value) for e in at.error]
    assert len(errors) == 1, errors
    assert "\n" not in errors[0]
    assert typed in errors[0] and reason in errors[0], errors[0]
    assert not any(CANARY in t for t in texts(at))


def attack_on(world, attacks, attack: str) -> tuple[Path, Path, str, str]:
    """One attack of a table: (tmp, data folder, the path typed, the reason its refusal gives)."""
    tmp, root, _ = world
    make, reason = attacks[attack]
    return tmp, root, make(tmp), reason


DB_ATTACKS = {
    "absolute": (lambda tmp: str(tmp / "outside" / "secret.duckdb"), "outside the data folder"),
    "relative ..": (lambda tmp: "../outside/secret.duckdb", "outside the data folder"),
    "symlink out": (lambda tmp: "escape.duckdb", "outside the data folder"),
    "fifo": (lambda tmp: "fifo.duckdb", "not a regular file"),
    "/dev/zero": (lambda tmp: "/dev/zero", "outside the data folder"),
    "/etc/passwd": (lambda tmp: "/etc/passwd", "outside the data folder"),
    "folder": (lambda tmp: "folder.duckdb", "a folder, not a file"),
    "foreign duckdb": (lambda tmp: "foreign.duckdb", "not cimem's"),
    "not duckdb": (lambda tmp: "notduck.duckdb", "not a DuckDB database"),
    "missing under a new folder": (lambda tmp: "newdir/x.duckdb", "no such file"),
}


@pytest.mark.parametrize("attack", list(DB_ATTACKS))
def test_db_parameter_attacks_are_refused_in_one_line(world, monkeypatch, attack):
    tmp, root, typed, reason = attack_on(world, DB_ATTACKS, attack)
    before = snapshot(tmp)
    at = app(root, monkeypatch, db=typed)
    at.run()
    one_refusal(at, typed, reason)
    assert snapshot(tmp) == before
    assert not (root / "newdir").exists()


def test_the_picker_lists_only_reachable_databases_and_refuses_a_foreign_one(world, monkeypatch):
    tmp, root, _ = world
    at = app(root, monkeypatch)
    at.run()
    assert not at.exception
    picker = at.sidebar.selectbox(key="db_pick")
    assert picker.options[1:] == ["foreign.duckdb", "good.duckdb", "notduck.duckdb"]
    before = snapshot(tmp)
    for name, reason in (("foreign.duckdb", "not cimem's"), ("notduck.duckdb", "not a DuckDB")):
        at.sidebar.selectbox(key="db_pick").set_value(name).run()
        one_refusal(at, name, reason)
    assert snapshot(tmp) == before


def test_the_picker_opens_a_database_of_the_data_folder(world, monkeypatch):
    tmp, root, _ = world
    (root / "sub").mkdir()
    with Store.open(root / "sub" / "other.duckdb") as s:
        ingest_file(s, write_jsonl(tmp / "o.jsonl", [small_profile("Olga")]), name="other run")
    at = app(root, monkeypatch)
    at.run()
    at.sidebar.selectbox(key="db_pick").set_value("sub/other.duckdb").run()
    assert not at.exception and not at.error
    assert at.query_params["db"] == "sub/other.duckdb"
    assert "other run" in str(at.sidebar.multiselect(key="runs").options)


def test_a_visit_creates_no_database(world, monkeypatch):
    """?db= naming a database not there is refused: a visit is no way to make files on the
    server (an operator makes one with CIMEM_DB or the command line)."""
    tmp, root, _ = world
    before = snapshot(tmp)
    at = app(root, monkeypatch, db="fresh.duckdb")
    at.run()
    one_refusal(at, "fresh.duckdb", "no such file in the data folder")
    assert snapshot(tmp) == before


@pytest.mark.parametrize(
    "name, content",
    [
        ("bad.json", '{"not": "a results file"}'),
        ("trunc.json", "[1,2"),
        ("sub/bad.jsonl", "{not json\n"),
    ],
)
def test_a_bad_file_in_the_data_folder_is_named_as_typed(world, monkeypatch, name, content):
    """A file the data folder holds but cimem cannot read: the error names it as the visitor
    typed it, never by where the server keeps it."""
    tmp, root, _ = world
    (root / name).parent.mkdir(exist_ok=True)
    (root / name).write_text(content)
    at = app(root, monkeypatch)
    at.run()
    at.switch_page("webapp/pages/data.py").run()
    at.text_input(key="server_path").set_value(name).run()
    at.button(key="import").click().run()
    assert not at.exception, [e.value for e in at.exception]
    (error,) = [plain(e.value) for e in at.error]
    assert error.startswith(f"Import failed, nothing was written: {name}")
    assert str(tmp) not in error and str(tmp.resolve()) not in error


IMPORT_ATTACKS = {
    "absolute": (lambda tmp: str(tmp / "outside" / "secret.jsonl"), "outside the data folder"),
    "relative ..": (lambda tmp: "../outside/secret.jsonl", "outside the data folder"),
    "symlink out": (lambda tmp: "escape.jsonl", "outside the data folder"),
    "not an input file": (lambda tmp: "../outside/secret.txt", "outside the data folder"),
    "fifo": (lambda tmp: "fifo.jsonl", "not a regular file"),
    "/dev/zero": (lambda tmp: "/dev/zero", "outside the data folder"),
    "/etc/shadow": (lambda tmp: "/etc/shadow", "outside the data folder"),
    "folder": (lambda tmp: "folder.jsonl", "a folder, not a file"),
    "wrong kind": (lambda tmp: "good.duckdb", "not a .jsonl"),
    "missing under a new folder": (lambda tmp: "newdir/x.jsonl", "no such file"),
    # a lake kept in the data folder: its Parquet files are no input (their columns were shown)
    "a lake's hidden folder": (
        lambda tmp: planted(tmp, ".lake/main/runs/ducklake-0193e1b2-7c4d-7a8e.parquet"),
        "hidden",
    ),
    "a lake's data file": (
        lambda tmp: planted(tmp, "lake_files/main/runs/ducklake-0193e1b2-7c4d-7a8e.parquet"),
        "a lake's own data file",
    ),
    "a lake's delete file": (
        lambda tmp: planted(tmp, "lake_files/main/runs/ducklake-0193e1b2-7c4d-delete.parquet"),
        "a lake's own data file",
    ),
}


def planted(tmp: Path, relative: str) -> str:
    """A Parquet file of a table holding the canary, at ``relative`` in the data folder."""
    path = tmp / "data" / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    duckdb.sql(f"COPY (SELECT '{CANARY}' AS \"{CANARY}\") TO '{path}' (FORMAT parquet)")
    return relative


@pytest.mark.parametrize("attack", list(IMPORT_ATTACKS))
def test_server_path_import_attacks_are_refused_in_one_line(world, monkeypatch, attack):
    tmp, root, typed, reason = attack_on(world, IMPORT_ATTACKS, attack)
    at = app(root, monkeypatch)
    at.run()
    at.switch_page("webapp/pages/data.py").run()
    with Store.open(root / "good.duckdb") as s:  # the app's process holds it open for writing
        counts = s.table_counts()
    before = snapshot(tmp)
    at.text_input(key="server_path").set_value(typed).run()
    at.button(key="import").click().run()
    one_refusal(at, typed, reason)
    assert "nothing was written" in at.error[0].value
    assert snapshot(tmp) == before
    with Store.open(root / "good.duckdb") as s:
        assert s.table_counts() == counts


def test_confine_resolves_inside_and_refuses_the_rest(world):
    tmp, root, _ = world
    assert confine("good.duckdb", root, DATABASE_SUFFIXES) == root.resolve() / "good.duckdb"
    assert confine(str(root / "good.duckdb"), root, DATABASE_SUFFIXES).name == "good.duckdb"
    assert confine("./sub/../good.duckdb", root, DATABASE_SUFFIXES).name == "good.duckdb"
    for typed in ("", "   ", "a\0b.duckdb", "../outside/secret.duckdb", "escape.duckdb"):
        with pytest.raises(PathRefused) as err:
            confine(typed, root, DATABASE_SUFFIXES)
        assert str(tmp) not in str(err.value).replace(typed, "")
    with pytest.raises(PathRefused, match="no such file"):
        confine("nothere.jsonl", root, INPUT_SUFFIXES)
    assert databases_in(root) == ["foreign.duckdb", "good.duckdb", "notduck.duckdb"]


def test_the_store_leaves_a_foreign_duckdb_file_untouched(world):
    tmp, root, _ = world
    before = snapshot(tmp)
    for name, reason in (
        ("foreign.duckdb", "not cimem's"),
        ("notduck.duckdb", "not a DuckDB database"),
        ("fifo.duckdb", "not a regular file"),
    ):
        with pytest.raises(DatabaseRefused, match=reason):
            Store.open(root / name)
    with pytest.raises(DatabaseRefused, match="folder does not exist"):
        Store.open(root / "newdir" / "x.duckdb", create_folders=False)
    assert snapshot(tmp) == before
