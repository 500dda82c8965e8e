"""flush() and the backoff: a flush returns when the buffer is empty or an attempt failed, counting an attempt
already in flight when it was called, and never waits out a backoff (one under way is cut short)."""

from __future__ import annotations

import threading
import time
from typing import Any, Dict

from fault_server import Hold


def record_spans(lantern, n, name="work"):
    for i in range(n):
        with lantern.service(f"{name}-{i}"):
            pass


def traces(server):
    return [r for r in server.requests if r.path == "/ingest/traces"]


def wait_until(exporter, check, timeout=5.0):
    """Waits on the exporter's condition (notified at every change of its state) until `check()` holds."""
    with exporter._cond:
        assert exporter._cond.wait_for(check, timeout), "timed out"


def flush_in_thread(lantern, timeout):
    result: Dict[str, Any] = {}

    def run() -> None:
        began = time.monotonic()
        result["done"] = lantern.flush(timeout=timeout)
        result["took"] = time.monotonic() - began

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, result


def test_flush_joining_an_attempt_in_flight_returns_when_it_fails_with_retry_after(server, clients):
    hold = Hold((503, 30))
    server.fail_next(hold)
    lantern = clients(server.url, max_batch_size=3)
    exporter = lantern._exporters["traces"]
    record_spans(lantern, 3)  # a full batch: the sender starts an attempt by itself
    assert hold.arrived.wait(5)
    asked = exporter._asked
    thread, result = flush_in_thread(lantern, timeout=10)
    wait_until(exporter, lambda: exporter._asked > asked)  # the flush waits, the attempt is still in flight
    assert "done" not in result
    hold.release()  # 503 with Retry-After: 30
    thread.join(15)
    assert result["done"] is True and result["took"] < 5  # returned at the failure, not after the backoff
    stats = lantern.stats()
    assert stats.traces.retried == 1 and stats.traces.sent == 0
    assert stats.traces.queued == 3  # kept for the retry, not lost
    assert [r.answered for r in traces(server)] == [503]  # and the backoff holds: no attempt meanwhile
    assert [e.status for e in clients.errors if e.code == "http_status"] == [503]


def test_flush_joining_a_flush_in_flight_returns_when_it_fails(server, clients):
    hold = Hold((503, 30))
    server.fail_next(hold)
    lantern = clients(server.url)
    exporter = lantern._exporters["traces"]
    record_spans(lantern, 2)
    first, first_result = flush_in_thread(lantern, timeout=10)
    assert hold.arrived.wait(5)
    asked = exporter._asked
    second, second_result = flush_in_thread(lantern, timeout=10)
    wait_until(exporter, lambda: exporter._asked > asked)
    hold.release()
    first.join(15)
    second.join(15)
    assert first_result["done"] is True and second_result["done"] is True
    assert second_result["took"] < 5
    assert lantern.stats().traces.queued == 2 and lantern.stats().traces.retried == 1
    assert len(traces(server)) == 1


def test_flush_during_a_long_backoff_attempts_at_once_and_sends_everything(server, clients):
    server.fail_next((503, 30))
    lantern = clients(server.url, max_batch_size=3)
    exporter = lantern._exporters["traces"]
    record_spans(lantern, 5)  # one full batch goes by itself, two items wait
    wait_until(exporter, lambda: exporter._counts["retried"] == 1 and not exporter._in_flight)
    assert exporter._not_before - time.monotonic() > 20  # in the 30 s backoff, nothing in flight
    began = time.monotonic()
    assert lantern.flush(timeout=10) is True
    assert time.monotonic() - began < 5
    stats = lantern.stats()
    assert stats.traces.sent == 5 and stats.traces.queued == 0 and stats.traces.retried == 1
    assert [r.answered for r in traces(server)] == [503, 200, 200]
    assert len(server.spans()) == 5


def test_flush_during_a_long_backoff_attempts_once_and_returns_when_that_attempt_fails(server, clients):
    server.fail_next((503, 30), (503, 30))
    lantern = clients(server.url)
    record_spans(lantern, 2)
    assert lantern.flush(timeout=10) is True  # the first attempt failed: a 30 s backoff begins
    began = time.monotonic()
    assert lantern.flush(timeout=10) is True  # cut short: one attempt, which fails again
    assert time.monotonic() - began < 5
    stats = lantern.stats()
    assert stats.traces.retried == 2 and stats.traces.sent == 0 and stats.traces.queued == 2
    attempts = traces(server)
    assert [r.answered for r in attempts] == [503, 503]
    assert len({r.key for r in attempts}) == 1
