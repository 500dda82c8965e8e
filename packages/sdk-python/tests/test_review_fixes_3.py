"""Regression tests of the second review: close() from a signal handler on the thread sending a fatal log (item
6), a request that ends after close() gave up on it (minor item), an application field named invalidTimestamp
(item 8)."""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any, Dict

import pytest


def spool_files(directory):
    return sorted(f for f in os.listdir(directory) if not f.startswith(".tmp-"))


# -- 6. close() on the thread that is inside log.fatal ---------------------------------------------------------

@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs signal.setitimer")
def test_close_from_a_signal_handler_inside_a_fatal_send_does_not_wait_for_that_send(server, clients, tmp_path):
    assert threading.current_thread() is threading.main_thread()  # signal handlers run on the main thread
    server.fail_next("slow:5")
    lantern = clients(server.url, spool_dir=str(tmp_path))
    closed: Dict[str, Any] = {}

    def on_sigalrm(signum: int, frame: Any) -> None:  # as a SIGTERM handler that closes the client
        began = time.monotonic()
        closed["stats"] = lantern.close(timeout=0.3)
        closed["took"] = time.monotonic() - began

    previous = signal.signal(signal.SIGALRM, on_sigalrm)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)  # fires while this thread waits for the fatal log's answer
        began = time.monotonic()
        lantern.log.fatal("last words")
        took = time.monotonic() - began
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    # It waited for its deadline only, not 2 s more for a send that cannot end before the handler returns.
    assert closed["took"] < 1.5 and took < 2.0, (closed["took"], took)
    logs = closed["stats"].logs
    assert (logs.spooled, logs.dropped, logs.sent) == (1, 0, 0)  # the entry is in the spool, not lost
    assert len(spool_files(tmp_path)) == 1
    assert lantern.stats().logs == logs


# -- minor: an answer that comes after close() gave up on its request -------------------------------------------

def test_a_fatal_request_answered_after_close_is_counted_once_and_its_spool_copy_deleted(clients, tmp_path,
                                                                                        monkeypatch, server):
    from lantern.transport import classify

    lantern = clients(server.url, spool_dir=str(tmp_path))
    exporter = lantern._exporters["logs"]
    sending, answer = threading.Event(), threading.Event()

    def late_send(path: str, body: str, key: str):  # a request that abort() does not end (an answer on its way)
        sending.set()
        answer.wait(10)
        return classify(200, None, b'{"accepted":1,"rejected":[]}')

    monkeypatch.setattr(exporter._fatal_transport, "send", late_send)
    thread = threading.Thread(target=lantern.log.fatal, args=("late",))
    thread.start()
    assert sending.wait(5)
    stats = lantern.close(timeout=0.1)  # gives up on the request after its deadline and 2 s more
    assert (stats.logs.spooled, stats.logs.sent) == (1, 0)
    assert len(spool_files(tmp_path)) == 1
    answer.set()
    thread.join(5)
    assert not thread.is_alive()
    assert spool_files(tmp_path) == []  # delivered after all: the next run does not send it again
    assert exporter._counts["sent"] == 0 and exporter._counts["spooled"] == 1  # counted once, as spooled


# -- 8. invalidTimestamp is a reserved key ----------------------------------------------------------------------

def test_an_application_field_named_invalidTimestamp_is_kept_as__invalidTimestamp(server, clients):
    lantern = clients(server.url)
    lantern.log.write("info", "bad time", {"invalidTimestamp": "mine"}, timestamp="yesterday")
    lantern.log.info("good time", invalidTimestamp="mine too")
    assert lantern.flush(timeout=5)
    bad, good = server.logs()
    assert (bad["_invalidTimestamp"], bad["invalidTimestamp"]) == ("mine", "yesterday")
    assert good["_invalidTimestamp"] == "mine too" and "invalidTimestamp" not in good
