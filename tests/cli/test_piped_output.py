"""A command whose output is piped into a reader that stops early (``| head``) ends quietly,
with exit status 0 and no traceback."""

import subprocess
import sys

from cimem.store import Store

from fixtures import small_profile, write_jsonl


def test_a_reader_that_stops_early_gets_no_traceback(tmp_path):
    from cimem.ingest import ingest_file

    db = tmp_path / "p.duckdb"
    with Store.open(db) as store:
        ingest_file(store, write_jsonl(tmp_path / "r.jsonl", [small_profile("Ada")]))
    cmd = [sys.executable, "-m", "cimem", "growth", "--db", str(db), "--order", "fixed"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first line, as after `head -0`
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, err
    assert "Traceback" not in err and "BrokenPipeError" not in err
