"""Delivery against a fault-injecting HTTP server (real HTTP): outages, error answers, lost answers, gzip,
the bounded queue, fatal logs and close()."""

from __future__ import annotations

import gzip
import json
import re
import time

from fault_server import FaultServer, free_port

from lantern import DropInfo

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def record_spans(lantern, n, name="work"):
    for i in range(n):
        with lantern.service(f"{name}-{i}"):
            pass


def test_outage_then_recovery_loses_nothing_and_stores_nothing_twice(clients):
    port, holder = free_port()
    lantern = clients(f"http://127.0.0.1:{port}")
    record_spans(lantern, 5)
    lantern.log.error("during the outage", order=1)
    assert lantern.flush(timeout=5) is True  # returns at the failed attempt
    stats = lantern.stats()
    assert stats.traces.retried >= 1 and stats.traces.sent == 0
    assert stats.traces.queued == 5 and stats.logs.queued == 1
    assert "network" in clients.codes()
    assert all(e.retrying for e in clients.errors if e.code == "network")
    holder.close()
    server = FaultServer(port)
    try:
        lantern.flush(timeout=5)
        server.wait_for(lambda s: len(s.spans()) == 5 and len(s.logs()) == 1)
        lantern.flush(timeout=5)
        assert sorted(s["requestMethod"] for s in server.spans()) == [f"service:work-{i}" for i in range(5)]
        assert lantern.stats().traces.sent == 5 and lantern.stats().logs.sent == 1
        assert lantern.stats().traces.queued == 0
    finally:
        server.stop()


def test_5xx_and_429_with_retry_after_then_200_same_key_every_attempt(server, clients):
    server.fail_next(503, (429, 1))
    lantern = clients(server.url)
    record_spans(lantern, 3)
    lantern.flush(timeout=5)
    server.wait_for(lambda s: len(s.spans()) == 3, timeout=15)
    lantern.flush(timeout=5)  # the answer has been counted
    attempts = [r for r in server.requests if r.path == "/ingest/traces"]
    assert [r.answered for r in attempts] == [503, 429, 200]
    assert len({r.key for r in attempts}) == 1
    assert re.fullmatch(r"[0-9a-f-]{36}", attempts[0].key)
    # Retry-After: 1 was honoured (the backoff alone is at most 50 ms here).
    assert attempts[2].at - attempts[1].at >= 0.95
    # Every attempt is the same request: same envelope timestamp, same items.
    assert len({json.dumps(r.body, sort_keys=True) for r in attempts}) == 1
    assert lantern.stats().traces.retried == 2 and lantern.stats().traces.sent == 3
    statuses = [e.status for e in clients.errors if e.code == "http_status"]
    assert statuses == [503, 429]


def test_400_is_not_retried_and_the_next_batch_goes_on(server, clients):
    server.fail_next(400)
    lantern = clients(server.url)
    record_spans(lantern, 2)
    lantern.flush(timeout=5)
    time.sleep(0.3)  # a retry, if there were one, would come within the 50 ms backoff
    assert [r.answered for r in server.requests] == [400]
    stats = lantern.stats().traces
    assert stats.failed == 2 and stats.retried == 0 and stats.queued == 0
    refused = [e for e in clients.errors if e.code == "http_status"]
    assert len(refused) == 1 and refused[0].status == 400 and refused[0].retrying is False
    assert "fault 400" in refused[0].message
    record_spans(lantern, 1, "after")
    lantern.flush(timeout=5)
    assert [s["requestMethod"] for s in server.spans()] == ["service:after-0"]


def test_lost_answer_is_retried_with_the_same_key_and_stored_once(server, clients):
    server.fail_next("lost")
    lantern = clients(server.url)
    for i in range(3):
        lantern.log.warn(f"entry {i}", i=i)
    lantern.flush(timeout=5)
    server.wait_for(lambda s: len(s.requests) >= 2)
    lantern.flush(timeout=5)
    attempts = [r for r in server.requests if r.path == "/ingest/logs"]
    assert len(attempts) == 2
    assert attempts[0].key == attempts[1].key
    assert attempts[0].answered is None and attempts[1].answered == 200
    assert [log["message"] for log in server.logs()] == ["entry 0", "entry 1", "entry 2"]
    assert lantern.stats().logs.sent == 3


def test_fatal_is_sent_at_once_in_its_own_request(server, clients):
    lantern = clients(server.url)
    lantern.log.error("buffered")
    lantern.log.fatal("out of memory", pool="db")
    # fatal returned: its request has been answered already.
    assert [log["message"] for log in server.logs()] == ["out of memory"]
    entry = server.logs()[0]
    assert entry["level"] == "fatal" and entry["pool"] == "db" and entry["type"] == "app"
    assert lantern.stats().logs.queued == 1
    lantern.flush(timeout=5)
    assert [log["message"] for log in server.logs()] == ["out of memory", "buffered"]


def test_a_failed_fatal_waits_at_the_front_of_the_queue(server, clients):
    server.fail_next(503)
    lantern = clients(server.url)
    lantern.log.fatal("first")
    assert lantern.stats().logs.queued == 1 and lantern.stats().logs.retried == 1
    server.wait_for(lambda s: [log["message"] for log in s.logs()] == ["first"])


def test_close_drains_both_buffers_and_later_items_are_dropped(server, clients):
    drops = []
    lantern = clients(server.url, on_drop=drops.append)
    record_spans(lantern, 7)
    for i in range(4):
        lantern.log.info(f"log {i}")
    stats = lantern.close(timeout=5)
    assert len(server.spans()) == 7 and len(server.logs()) == 4
    assert stats.traces.sent == 7 and stats.logs.sent == 4
    assert stats.traces.queued == 0 and stats.logs.queued == 0
    record_spans(lantern, 1, "late")
    lantern.log.info("late")
    assert lantern.close() is stats
    assert len(server.spans()) == 7
    assert lantern.stats() is stats


def test_close_without_service_drops_and_counts_at_the_deadline(clients):
    port, holder = free_port()
    drops = []
    lantern = clients(f"http://127.0.0.1:{port}", on_drop=drops.append)
    record_spans(lantern, 3)
    started = time.monotonic()
    stats = lantern.close(timeout=0.5)
    assert time.monotonic() - started < 3
    assert stats.traces.dropped == 3
    assert DropInfo("traces", 3, "close_timeout") in drops
    holder.close()


def test_bodies_are_gzipped_above_the_threshold_and_the_envelope_is_the_node_librarys(server, clients):
    lantern = clients(server.url, gzip_threshold_bytes=0, api_key="secret-key-1")
    record_spans(lantern, 2)
    lantern.flush(timeout=5)
    request = server.requests[0]
    assert request.headers["content-encoding"] == "gzip"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["x-api-key"] == "secret-key-1"
    assert request.headers["user-agent"].startswith("lantern-sdk-python/")
    body = json.loads(gzip.decompress(request.raw))
    assert list(body) == ["timestamp", "traces"] and ISO.match(body["timestamp"])
    span = body["traces"][0]
    assert list(span) == ["timestamp", "requestMethod", "requestURL", "responseStatus", "traceId", "spanId",
                          "parentSpanId", "durationMs"]
    assert ISO.match(span["timestamp"]) and span["parentSpanId"] is None and span["responseStatus"] == 200
    plain = clients(server.url, gzip_threshold_bytes=100_000)
    plain.log.info("small")
    plain.flush(timeout=5)
    last = server.requests[-1]
    assert "content-encoding" not in last.headers and json.loads(last.raw)["logs"][0]["message"] == "small"


def test_bounded_queue_counts_and_reports_drops(clients):
    port, holder = free_port()
    drops = []
    lantern = clients(f"http://127.0.0.1:{port}", max_queue_size=10, max_batch_size=5, on_drop=drops.append)
    record_spans(lantern, 25)
    stats = lantern.stats().traces
    assert stats.dropped == 15 and stats.queued + stats.in_flight == 10
    lantern.close(timeout=0.2)
    queue_full = sum(d.count for d in drops if d.reason == "queue_full")
    assert queue_full == 15
    holder.close()
    # Without on_drop the drops reach on_error, summed (one report for the first, the rest within a second).
    port2, holder2 = free_port()
    quiet = clients(f"http://127.0.0.1:{port2}", max_queue_size=1, max_batch_size=1)
    for i in range(50):
        quiet.log.error(f"e{i}")
    quiet.close(timeout=0.1)
    dropped = [e for e in clients.errors if e.code == "dropped"]
    assert 1 <= len(dropped) <= 4 and sum(e.count for e in dropped) >= 49
    holder2.close()


def test_hooks_that_raise_and_garbage_answers_never_reach_the_application(server, clients):
    def bad_hook(error):
        raise RuntimeError("hook exploded")

    lantern = clients("http://no-such-host.invalid:1", on_error=bad_hook)
    record_spans(lantern, 1)
    lantern.log.fatal("still fine")
    assert lantern.flush(timeout=5) is True
    lantern.close(timeout=0.2)

    class Weird:
        def __str__(self):
            raise ValueError("no str")

    ok = clients(server.url)
    ok.log.error(Weird(), obj=Weird(), cycle=[], when=time)
    with ok.service(Weird()):
        pass
    ok.flush(timeout=5)
    assert server.logs()[0]["message"] == "[Unprintable]"
    assert server.spans()[0]["requestMethod"] == "service:[Unprintable]"
