"""A run being made, as a reader sees it: made, stopped or finished from its process and its
row, and its time left at its own pace."""

from datetime import datetime, timedelta

from cimem.analysis.progress import RunState, making, this_host
from cimem.store import RunProgress


def row(pid: int, host: str, finished: bool = False) -> RunProgress:
    start = datetime(2026, 1, 1, 10)
    updated = start + timedelta(minutes=10)
    return RunProgress(
        7, pid, host, start, updated, updated if finished else None, 1000, 400, 100, 2, 1.5
    )


def test_a_live_process_makes_a_gone_one_stopped_and_a_finished_row_is_finished():
    import os

    now = datetime(2026, 1, 1, 10, 11)
    live = making(row(os.getpid(), this_host()), now)
    assert live.state == RunState.MAKING
    # 300 messages in 10 minutes: the 600 left take 20 minutes
    assert live.seconds_left is not None and abs(live.seconds_left - 1200) < 1
    assert "about 20 min left" in live.sentence()
    gone = making(row(2**22 + 12345, this_host()), now)
    assert gone.state == RunState.STOPPED and gone.seconds_left is None
    assert gone.sentence().endswith("continue it with: python -m cimem run --resume 7")
    assert making(row(os.getpid(), this_host(), finished=True), now).state == RunState.FINISHED


def test_a_process_on_another_machine_is_judged_by_how_lately_it_wrote():
    recent = datetime(2026, 1, 1, 10, 30)
    assert making(row(1, "elsewhere"), recent).state == RunState.MAKING
    assert making(row(1, "elsewhere"), recent + timedelta(hours=3)).state == RunState.STOPPED
