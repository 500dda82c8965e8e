"""A spool directory shared by several processes (gunicorn workers with one `spool_dir`): each file is sent by
one process, the quota counts the whole directory; a file that cannot be read for now is kept (review items 3 and
5). Claims, and what a scan takes back: test_spool_claims.py."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import threading
from collections import Counter

import lantern as lantern_package
import lantern.spool_dir as spool_dir_module
from fault_server import free_port


def spool_files(directory):
    return sorted(f for f in os.listdir(directory) if not f.startswith(".tmp-"))


def fill_spool(clients, directory, n):
    """n spool files of one log each, left by a client that could not reach the service; their keys."""
    port, holder = free_port()
    first = clients(f"http://127.0.0.1:{port}", spool_dir=str(directory), max_queue_size=1, max_batch_size=1)
    for i in range(n):
        first.log.error(f"spooled {i}", i=i)
    assert first.close(timeout=0.1).logs.spooled == n
    holder.close()
    names = spool_files(directory)
    assert len(names) == n
    return {json.loads((directory / name).read_text().splitlines()[0])["key"] for name in names}


def keys_sent(server):
    return Counter(r.key for r in server.requests if r.path == "/ingest/logs")


# -- 3. a file is claimed by one process ---------------------------------------------------------------------

def test_a_file_being_sent_by_one_client_is_not_sent_by_another_on_the_same_directory(server, clients, tmp_path):
    keys = fill_spool(clients, tmp_path, 3)
    server.fail_next("slow:0.6")  # the first file's request takes a while
    a = clients(server.url, spool_dir=str(tmp_path))
    server.wait_for(lambda s: len(s.connections) == 1)  # a (which starts at once) is sending the oldest file
    b = clients(server.url, spool_dir=str(tmp_path))
    assert b.flush(timeout=10) and a.flush(timeout=10) and b.flush(timeout=10)
    server.wait_for(lambda s: len(s.logs()) == 3)
    assert keys_sent(server) == Counter({key: 1 for key in keys})
    assert a.stats().logs.sent + b.stats().logs.sent == 3
    assert spool_files(tmp_path) == []
    assert "spool" not in clients.codes()


WORKER = """
import sys
sys.path.insert(0, {path!r})
from lantern import Lantern
sys.stdin.readline()  # every worker starts together
lantern = Lantern(api_key="k", ingest_url={url!r}, spool_dir={spool!r}, flush_interval=60, flush_on_exit=False)
lantern.flush(timeout=10)
print(lantern.stats().logs.sent, flush=True)
lantern.close(timeout=5)
"""


def test_worker_processes_on_one_spool_dir_send_each_file_once(server, clients, tmp_path):
    spool = tmp_path / "spool"
    keys = fill_spool(clients, spool, 8)
    code = WORKER.format(path=os.path.dirname(os.path.dirname(lantern_package.__file__)), url=server.url,
                         spool=str(spool))
    workers = [subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                text=True) for _ in range(3)]
    for worker in workers:
        worker.stdin.write("go\n")
        worker.stdin.flush()
    sent = [int(worker.communicate(timeout=30)[0].strip()) for worker in workers]
    assert all(worker.returncode == 0 for worker in workers)
    assert sum(sent) == 8
    assert keys_sent(server) == Counter({key: 1 for key in keys})
    assert spool_files(spool) == []


QUOTA_WORKER = """
import sys
sys.path.insert(0, {path!r})
from lantern import Lantern
lantern = Lantern(api_key="k", ingest_url={url!r}, spool_dir={spool!r}, spool_max_bytes=2000, max_queue_size=1,
                  max_batch_size=1, flush_interval=60, flush_on_exit=False, on_error=lambda error: None)
for _ in range(20):
    lantern.log.info("x" * 200)
stats = lantern.close(timeout=0.1).logs
print(stats.spooled, stats.dropped, flush=True)
"""


def test_the_spool_quota_counts_the_files_of_every_process(tmp_path):
    """Two real processes on one directory, one after the other: the second finds the first's files."""
    port, holder = free_port()
    code = QUOTA_WORKER.format(path=os.path.dirname(os.path.dirname(lantern_package.__file__)),
                               url=f"http://127.0.0.1:{port}", spool=str(tmp_path))
    try:
        outcomes = []
        for _ in range(2):
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
            assert done.returncode == 0, done.stderr
            outcomes.append(tuple(int(n) for n in done.stdout.split()))
    finally:
        holder.close()
    (first_spooled, first_dropped), (second_spooled, second_dropped) = outcomes
    assert first_spooled > 0 and first_spooled + first_dropped == 20
    assert (second_spooled, second_dropped) == (0, 20)  # the quota was full of the first process's files
    assert sum(os.path.getsize(tmp_path / name) for name in os.listdir(tmp_path)) <= 2000


# -- 5. a transient read error keeps the file ----------------------------------------------------------------

def test_a_spool_file_that_cannot_be_read_for_now_is_kept_and_sent_later(server, clients, tmp_path, monkeypatch):
    fill_spool(clients, tmp_path, 1)
    failed = threading.Event()

    real_read_file = spool_dir_module.read_file

    def flaky_read_file(path, *args, **kwargs):
        if not failed.is_set():
            failed.set()
            raise OSError(errno.EIO, "Input/output error", path)
        return real_read_file(path, *args, **kwargs)

    monkeypatch.setattr(spool_dir_module, "read_file", flaky_read_file)  # where files are read
    reported = threading.Event()
    lantern = clients(server.url, spool_dir=str(tmp_path),
                      on_error=lambda error: reported.set() if error.code == "spool" else None)
    assert reported.wait(5)  # the read failed (a spool error is reported)
    assert failed.is_set() and len(spool_files(tmp_path)) == 1
    assert lantern.stats().logs.spool_pending == 1
    assert lantern.flush(timeout=5)
    assert [log["i"] for log in server.logs()] == [0]
    assert spool_files(tmp_path) == []


def test_a_corrupt_spool_file_is_removed_and_reported(server, clients, tmp_path):
    name = "logs-000001700000000-1-000000-n1.ndjson"
    (tmp_path / name).write_text("this is not json\n{}\n")
    lantern = clients(server.url, spool_dir=str(tmp_path))
    assert lantern.flush(timeout=5)
    assert spool_files(tmp_path) == []
    assert any(e.code == "spool" and name in e.message for e in clients.errors)
    assert server.requests == []
