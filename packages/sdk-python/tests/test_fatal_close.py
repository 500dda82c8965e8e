"""Fatal logs sent from several threads, during a backoff, while close() runs; what a failed fatal does to the
backoff (review items 1, 2 and 9)."""

from __future__ import annotations

import threading
import time
from typing import Dict

from fault_server import free_port


def messages(server):
    return [log["message"] for log in server.logs()]


# -- 1. concurrent fatal logs never wait in line --------------------------------------------------------------

def test_concurrent_fatal_logs_each_block_about_one_request_timeout_and_none_is_lost(server, clients):
    timeout = 0.4
    server.fail_next(*["slow:1.0"] * 6)  # every attempt outlives the request timeout
    lantern = clients(server.url, request_timeout=timeout)
    n = 5
    start = threading.Barrier(n)
    took: Dict[int, float] = {}

    def worker(i: int) -> None:
        start.wait()
        began = time.monotonic()
        lantern.log.fatal(f"fatal {i}", i=i)
        took[i] = time.monotonic() - began

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    # In line behind one another, the last would have waited n x timeout (2 s).
    assert len(took) == n and max(took.values()) < 2.5 * timeout, took
    assert lantern.stats().logs.dropped == 0
    # Nothing lost: every entry is delivered (retries keep their key: stored once each).
    server.wait_for(lambda s: sorted(log["i"] for log in s.logs()) == list(range(n)), timeout=20)


def test_a_fatal_log_during_the_backoff_goes_to_the_front_of_the_queue_without_a_request(server, clients):
    server.fail_next((503, 30))  # Retry-After: 30 s
    lantern = clients(server.url)
    lantern.log.error("buffered")
    lantern.log.fatal("first")  # refused: the kind is in backoff for 30 s
    assert len(server.requests) == 1
    lantern.log.fatal("second")  # returns at once: queued, no request during the backoff
    lantern.log.fatal("third")
    assert len(server.requests) == 1
    stats = lantern.stats().logs
    assert stats.queued == 4 and stats.dropped == 0 and stats.retried == 1
    assert lantern.flush(timeout=5)  # a flush cuts the backoff short
    assert messages(server) == ["first", "second", "third", "buffered"]


# -- 2. close() lets another thread's fatal send finish --------------------------------------------------------

def test_close_lets_a_fatal_send_of_another_thread_finish(server, clients):
    server.fail_next("slow:0.5")
    drops = []
    lantern = clients(server.url, on_drop=drops.append)
    thread = threading.Thread(target=lantern.log.fatal, args=("last words",))
    thread.start()
    server.wait_for(lambda s: len(s.connections) == 1)  # the fatal request is on its way
    stats = lantern.close(timeout=5)
    thread.join(5)
    assert (stats.logs.sent, stats.logs.dropped, stats.logs.retried) == (1, 0, 0)
    assert drops == []
    assert messages(server) == ["last words"]


def test_a_fatal_send_still_in_flight_at_the_close_deadline_is_spooled_not_lost(server, clients, tmp_path):
    server.fail_next("slow:3")
    lantern = clients(server.url, spool_dir=str(tmp_path))
    thread = threading.Thread(target=lantern.log.fatal, args=("slow words",))
    thread.start()
    server.wait_for(lambda s: len(s.connections) == 1)
    began = time.monotonic()
    stats = lantern.close(timeout=0.3)
    thread.join(5)
    assert time.monotonic() - began < 2.5
    assert (stats.logs.spooled, stats.logs.dropped, stats.logs.sent) == (1, 0, 0)
    assert stats.logs.spool_pending == 1


# -- 9. a failed fatal send counts for the backoff --------------------------------------------------------------

def test_a_refused_fatal_send_counts_as_a_failure_and_only_a_success_resets_the_backoff(server, clients):
    server.fail_next((503, 30))
    lantern = clients(server.url)
    exporter = lantern._exporters["logs"]
    lantern.log.fatal("refused")
    assert exporter._failures == 1 and exporter._not_before > time.monotonic() + 20
    assert lantern.flush(timeout=5)  # flush() cuts the wait short; the delivery resets the count
    assert exporter._failures == 0 and messages(server) == ["refused"]


def test_a_fatal_send_to_a_closed_port_counts_as_a_failure(clients):
    port, holder = free_port()
    lantern = clients(f"http://127.0.0.1:{port}", retry_base=30.0, retry_max=30.0)
    exporter = lantern._exporters["logs"]
    lantern.log.fatal("nobody listens")
    assert exporter._failures == 1 and lantern.stats().logs.retried == 1
    holder.close()
