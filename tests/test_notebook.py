"""The example notebook in docs/ runs top to bottom on the demo database (its last cell checks
that Violation@n recomputed from leak_cells equals the metrics engine's)."""

from notebook_run import printed_by_example_notebook


def test_the_example_notebook_runs_top_to_bottom(demo_db, monkeypatch):
    printed = printed_by_example_notebook(demo_db, monkeypatch, seconds=300)
    assert "Violation@n from leak_cells" in printed
