"""A throwaway PostgreSQL server for lake tests, started by the project's own script
(``bash scripts/lake start``), and fresh lakes on it: each lake is a database of its own and a
folder for its Parquet files."""

from __future__ import annotations

import glob
import itertools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from cimem.store import Store

from conftest import REPO


def postgres_or_skip() -> None:
    """Skip when this machine has no PostgreSQL (.ci/run installs it, so CI never skips)."""
    if not glob.glob("/usr/lib/postgresql/*/bin/initdb"):
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql; .ci/run does it)")


@dataclass
class LakeServer:
    """PostgreSQL on 127.0.0.1:``port`` with its cluster in ``folder``."""

    folder: Path
    port: int
    _count: itertools.count

    def new_lake(self, name: str = "lake") -> str:
        """A new, empty lake's location (a database and a data folder of its own)."""
        db = f"{name}_{next(self._count)}"
        self.psql(f"CREATE DATABASE {db}")
        files = self.folder / "files" / db
        files.mkdir(parents=True)
        return (
            f"ducklake:postgres:dbname={db} host=127.0.0.1 port={self.port} user=cimem"
            f" data_path={files}"
        )

    def psql(self, sql: str, db: str = "postgres") -> str:
        done = subprocess.run(
            ["psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "cimem", "-d", db, "-tAc", sql],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    def stop(self) -> None:
        subprocess.run(["bash", "scripts/lake", "stop", str(self.folder)], cwd=REPO, check=True)


def cimem(db: str, args: str, cwd: Path = REPO) -> str:
    """``python -m cimem ARGS --db DB``'s output (it must succeed), run in ``cwd``."""
    done = subprocess.run(
        [sys.executable, "-m", "cimem", *shlex.split(args), "--db", db],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=600,
    )
    assert done.returncode == 0, f"{args} on {db}:\n{done.stderr[-3000:]}"
    return done.stdout


def numbers(db: str) -> dict[str, object]:
    """Every run's metrics under each of its judges, keyed by names (ids depend on the order in
    which writers committed)."""
    out: dict[str, object] = {}
    for run in json.loads(cimem(db, "runs --json")):
        with Store.open(db, read_only=True) as store:
            judges = [(j.judge_id, j.name) for j in store.judges(run["run_id"])]
        for judge_id, name in judges:
            doc = json.loads(
                cimem(
                    db, f"metrics --run {run['run_id']} --judge {judge_id} --allow-partial --json"
                )
            )
            text = re.sub(r"\b\d+: ", "", json.dumps(doc["runs"][0], sort_keys=True))
            out[f"{run['name']} / {name}"] = without_ids(json.loads(text))
    return out


def without_ids(value: object) -> object:
    if isinstance(value, dict):
        return {k: without_ids(v) for k, v in value.items() if k not in ("run_id", "judge_id")}
    if isinstance(value, list):
        return [without_ids(v) for v in value]
    return value


def start_server(port: int) -> LakeServer:
    """The project's script starts a new cluster (PostgreSQL refuses a folder other users
    cannot reach, so it lives in a folder of its own under /tmp)."""
    postgres_or_skip()
    folder = Path(tempfile.mkdtemp(prefix="cimem-lake-"))
    os.chmod(folder, 0o755)
    done = subprocess.run(
        ["bash", "scripts/lake", "start", str(folder), str(port)],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("export CIMEM_DB='ducklake:postgres:dbname=cimem")
    return LakeServer(folder, port, itertools.count(1))


def remove(server: LakeServer) -> None:
    server.stop()
    shutil.rmtree(server.folder, ignore_errors=True)


def differences(a: object, b: object, at: str = "") -> Iterator[tuple[str, object, object]]:
    """Where two JSON values differ: (path, one, other)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            yield from differences(a.get(k), b.get(k), f"{at}/{k}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            yield from differences(x, y, f"{at}[{i}]")
    elif a != b:
        yield at, a, b
