"""The app's background work (webapp.startup.prefetch): what a page needs now is never left
waiting behind work queued before it."""

import threading

from webapp.startup import prefetch


def test_work_not_begun_is_taken_off_the_queue_and_work_done_is_handed_over():
    gate = threading.Event()
    keys = [("test", "blocking"), ("test", "queued"), ("test", "done")]
    try:
        prefetch.start(keys[0], gate.wait, 30)  # the one worker is busy (or this is queued too)
        prefetch.start(keys[1], lambda: "made ahead")
        assert prefetch.claim(keys[1]) is None  # not begun: the caller makes it itself
        assert keys[1] not in prefetch.started()
        assert prefetch.claim(keys[1]) is None
        gate.set()
        prefetch.start(keys[2], lambda: "made ahead")
        prefetch.started()[keys[2]].result(timeout=30)
        done = prefetch.claim(keys[2])
        assert done is not None and done.result() == "made ahead"
        assert prefetch.claim(("test", "never started")) is None
    finally:
        gate.set()
        for key in keys:
            prefetch.forget(key)
