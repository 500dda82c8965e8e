"""The spool directory (overflow and close() to disk, re-sent by the next process with the same keys) and the
sender threads after os.fork()."""

from __future__ import annotations

import json
import os
import re
import sys
import time

import pytest
from fault_server import FaultServer, free_port

from lantern import Lantern

NAME = re.compile(r"^(traces|logs)-\d{15}-\d+-\d{6}-n\d+\.ndjson$")


def spool_files(directory):
    return sorted(f for f in os.listdir(directory) if not f.startswith("."))


def test_spool_keeps_what_memory_cannot_and_the_next_process_sends_it_once(tmp_path, clients):
    port, holder = free_port()
    spool = tmp_path / "spool"
    first = clients(f"http://127.0.0.1:{port}", spool_dir=str(spool), max_queue_size=5, max_batch_size=5)
    for i in range(20):
        first.log.error(f"log {i}", i=i)
    stats = first.stats().logs
    assert stats.spooled == 15 and stats.dropped == 0 and stats.queued + stats.in_flight == 5
    stats = first.close(timeout=0.3)
    assert stats.logs.spooled == 20 and stats.logs.dropped == 0 and stats.logs.spool_pending == 20
    files = spool_files(spool)
    assert len(files) == 4 and all(NAME.match(f) for f in files)
    keys = set()
    for name in files:
        lines = (spool / name).read_text().splitlines()
        header = json.loads(lines[0])
        assert header["v"] == 1 and len(lines) == 6
        keys.add(header["key"])
    holder.close()

    server = FaultServer(port)
    try:
        server.fail_next(503)  # the first resend fails: the file stays and is sent again, same key
        second = clients(server.url, spool_dir=str(spool))
        assert second.stats().logs.spool_pending == 20
        server.wait_for(lambda s: len(s.logs()) == 20, timeout=10)
        assert sorted(log["i"] for log in server.logs()) == list(range(20))
        assert {r.key for r in server.requests} == keys
        deadline = time.monotonic() + 5
        while spool_files(spool) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert spool_files(spool) == []
        second.flush(timeout=5)
        assert second.stats().logs.sent == 20 and second.stats().logs.spool_pending == 0
    finally:
        server.stop()


def test_spool_quota_drops_and_counts(tmp_path, clients):
    port, holder = free_port()
    drops = []
    lantern = clients(f"http://127.0.0.1:{port}", spool_dir=str(tmp_path), spool_max_bytes=1024,
                      max_queue_size=1, max_batch_size=1, on_drop=drops.append)
    for i in range(30):
        lantern.log.info("x" * 200, i=i)
    lantern.close(timeout=0.1)
    stats = lantern.stats().logs
    assert stats.spooled >= 1 and stats.dropped >= 1 and stats.spooled + stats.dropped == 30
    assert sum(d.count for d in drops if d.reason == "spool_full") == stats.dropped
    holder.close()


def test_invalid_spool_dir_fails_at_construction(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(ValueError, match="spool_dir"):
        Lantern(api_key="k", ingest_url="http://127.0.0.1:1", spool_dir=str(blocker / "sub"))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_after_fork_the_child_sends_its_own_items_with_its_own_thread(server, clients):
    lantern = clients(server.url)
    with lantern.service("before-fork"):
        pass
    pid = os.fork()
    if pid == 0:  # the child: its sender threads were not copied; the library starts new ones
        code = 1
        try:
            with lantern.service("in-child"):
                lantern.log.error("from the child", pid=os.getpid())
            if lantern.flush(timeout=5) and lantern.stats().traces.sent == 1 and lantern.stats().logs.sent == 1:
                code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    # The child sent only what it recorded; the parent's span is the parent's to send.
    assert [s["requestMethod"] for s in server.spans()] == ["service:in-child"]
    assert server.logs()[0]["pid"] == pid
    lantern.flush(timeout=5)
    assert sorted(s["requestMethod"] for s in server.spans()) == ["service:before-fork", "service:in-child"]
    assert lantern.stats().traces.sent == 1  # the parent's counters are its own


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_fork_without_the_python_hooks_is_noticed_by_the_process_id(server, clients):
    """uWSGI forks in C: os.register_at_fork's hooks do not run; the first record in the child restarts."""
    lantern = clients(server.url)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            lantern._guard._pid = -1  # as if the hooks had not run: the client still believes it is elsewhere
            for exporter in lantern._exporters.values():
                exporter._thread = type(exporter._thread)(target=lambda: None)  # a thread that never ran
            with lantern.service("uwsgi-child"):
                pass
            code = 0 if lantern.flush(timeout=5) and lantern.stats().traces.sent == 1 else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
    assert [s["requestMethod"] for s in server.spans()] == ["service:uwsgi-child"]


def test_interpreter_exit_drains_through_atexit(server, tmp_path):
    script = tmp_path / "app.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))!r})\n"
        "from lantern import Lantern\n"
        f"lantern = Lantern(api_key='k', ingest_url={server.url!r}, flush_interval=60)\n"
        "with lantern.service('job'):\n"
        "    lantern.log.info('done')\n"
    )
    import subprocess
    subprocess.run([sys.executable, str(script)], check=True, timeout=30)
    assert [s["requestMethod"] for s in server.spans()] == ["service:job"]
    assert [log["message"] for log in server.logs()] == ["done"]
