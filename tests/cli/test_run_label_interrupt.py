"""`run` and `label` on Ctrl-C: exit 130 with the command that resumes the run, a new run kept so
it can be resumed; and a `label` dry run reports its estimate and stores nothing."""

from __future__ import annotations

import pytest

import cimem.generate.labelling as labelling
import cimem.generate.runner as runner
from cimem.cli.main import main
from cimem.store import Store

from fixtures import runner_profiles, write_jsonl

NOWHERE = "http://127.0.0.1:9/v1"  # nothing listens: these tests never reach a model


@pytest.fixture
def profiles(tmp_path):
    return write_jsonl(tmp_path / "p.jsonl", runner_profiles(2, 2))


def _stop(*_args, **_kwargs):
    raise KeyboardInterrupt


def _run_ids(db) -> list[int]:
    with Store.open(db) as store:
        return [r.run_id for r in store.list_runs()]


@pytest.mark.parametrize(
    ("command", "module", "function", "extra"),
    [
        ("run", runner, "run", ["--trials", "1"]),
        ("label", labelling, "label_run", ["--samples", "1"]),
    ],
)
def test_ctrl_c_exits_130_and_says_how_to_resume(
    tmp_path, profiles, capsys, monkeypatch, command, module, function, extra
):
    db = tmp_path / "stop.duckdb"
    monkeypatch.setattr(module, function, _stop)
    args = [command, "--db", str(db), "--profiles", str(profiles), "--model", "m"]
    assert main([*args, "--base-url", NOWHERE, *extra]) == 130
    err = capsys.readouterr().err
    assert "interrupted: every completed call is cached; continue with" in err
    assert f"`python -m cimem {command} --resume 1`" in err
    assert _run_ids(db) == [1]  # the new run stays, to be resumed


def test_label_dry_run_prints_the_estimate_and_stores_nothing(tmp_path, profiles, capsys):
    db = tmp_path / "dry.duckdb"
    args = ["label", "--db", str(db), "--profiles", str(profiles), "--model", "m"]
    assert main([*args, "--base-url", NOWHERE, "--samples", "2", "--dry-run"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        "dry run (nothing stored): 4 (profile, context) pairs x 3 personas x 2 samples:"
        " would send 24 calls, 0 from the cache"
    )
    assert out[1].startswith("  estimated tokens: ") and out[1].endswith("estimated cost $0.0000")
    assert len(out) == 2
    assert _run_ids(db) == []
