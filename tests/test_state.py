"""The app's background work (webapp.state): what a page needs now is never left waiting behind
work queued before it."""

import threading

from webapp import state


def test_work_not_begun_is_taken_off_the_queue_and_work_done_is_handed_over():
    gate = threading.Event()
    keys = [("test", "blocking"), ("test", "queued"), ("test", "done")]
    try:
        state._start(keys[0], gate.wait, 30)  # the one worker is busy (or this is queued too)
        state._start(keys[1], lambda: "made ahead")
        assert state._claim(keys[1]) is None  # not begun: the caller makes it itself
        assert keys[1] not in state._prefetched
        assert state._claim(keys[1]) is None
        gate.set()
        state._start(keys[2], lambda: "made ahead")
        state._prefetched[keys[2]].result(timeout=30)
        done = state._claim(keys[2])
        assert done is not None and done.result() == "made ahead"
        assert state._claim(("test", "never started")) is None
    finally:
        gate.set()
        for key in keys:
            state._prefetched.pop(key, None)
