"""Claims on a shared spool directory and what a scan takes back (second review, items 1, 2, 4 and 5): a claim is
held by a lock, which its process's end releases; a stray claim or a failing scan never reaches the application
nor stops a sender; a file that can be neither renamed nor deleted is sent once; the quota is measured at most
once a second and counts a file being written once."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import subprocess
import sys
import threading
from collections import Counter
from typing import Iterator

import pytest

import lantern as lantern_package
from fault_server import Hold, free_port
from test_spool_shared import fill_spool, keys_sent, spool_files

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="claims held by flock()")

HOLDER = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
sys.stdin.readline()
"""


@contextlib.contextmanager
def locked_by_another_process(path) -> Iterator[subprocess.Popen]:
    """A live process holding the claim's lock (as a worker in another container, whatever its pid)."""
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        yield holder
    finally:
        holder.stdin.close()
        holder.wait(10)


def dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def claim(directory, name: str, pid: int, token: str = "0badc0de") -> str:
    claimed = f".claim-{pid}-{token}-{name}"
    os.rename(directory / name, directory / claimed)
    return claimed


def item(directory, name: str) -> int:
    return json.loads((directory / name).read_text().splitlines()[1])["i"]


def claims(directory):
    return [name for name in spool_files(directory) if name.startswith(".claim-")]


@contextlib.contextmanager
def resend_held(server) -> Iterator[Hold]:
    """Keeps the first resend in flight, so what the scan took back is still on disk (and counted) when a test
    reads the stats: without it the sender may have sent and deleted the file first."""
    hold = Hold()
    server.fail_next(hold)
    try:
        yield hold
    finally:
        hold.release()


# -- 2. a claim is judged by its lock, not by the pid in its name ---------------------------------------------

def test_a_claim_left_by_a_dead_process_is_taken_back_and_a_locked_one_is_left_alone(server, clients, tmp_path):
    fill_spool(clients, tmp_path, 2)
    older, newer = spool_files(tmp_path)
    older_i = item(tmp_path, older)
    claim(tmp_path, older, dead_pid())
    live = claim(tmp_path, newer, os.getppid())
    with locked_by_another_process(tmp_path / live):
        with resend_held(server) as hold:
            lantern = clients(server.url, spool_dir=str(tmp_path))
            assert hold.arrived.wait(5)
            assert lantern.stats().logs.spool_pending == 1
        assert lantern.flush(timeout=5)
        assert [log["i"] for log in server.logs()] == [older_i]
        assert spool_files(tmp_path) == [live]


def test_an_unlocked_claim_is_taken_back_even_when_a_live_process_has_its_pid(server, clients, tmp_path):
    """After a reboot another process (a daemon) may have the dead worker's pid: the claim is still abandoned."""
    keys = fill_spool(clients, tmp_path, 1)
    [name] = spool_files(tmp_path)
    claim(tmp_path, name, os.getppid())  # alive, and not the claim's owner
    with resend_held(server) as hold:
        lantern = clients(server.url, spool_dir=str(tmp_path))
        assert hold.arrived.wait(5)
        assert lantern.stats().logs.spool_pending == 1
    assert lantern.flush(timeout=5)
    assert keys_sent(server) == Counter({key: 1 for key in keys})
    assert spool_files(tmp_path) == []


@pytest.mark.parametrize("whose", ["dead", "ours"])
def test_a_locked_claim_is_left_alone_whatever_pid_its_name_carries(server, clients, tmp_path, whose):
    """Containers sharing a volume: the owner runs with a pid that is dead, or is this process's, here."""
    keys = fill_spool(clients, tmp_path, 1)
    [name] = spool_files(tmp_path)
    claimed = claim(tmp_path, name, dead_pid() if whose == "dead" else os.getpid())
    with locked_by_another_process(tmp_path / claimed):
        lantern = clients(server.url, spool_dir=str(tmp_path))
        assert lantern.stats().logs.spool_pending == 0
        assert lantern.flush(timeout=5)
        assert server.requests == [] and spool_files(tmp_path) == [claimed]
    # The owner has ended (however it ends, the kernel releases its lock): the next process takes the file back.
    with resend_held(server) as hold:
        after = clients(server.url, spool_dir=str(tmp_path))
        assert hold.arrived.wait(5)
        assert after.stats().logs.spool_pending == 1
    assert after.flush(timeout=5)
    assert keys_sent(server) == Counter({key: 1 for key in keys})


def test_without_locks_a_claim_is_judged_by_its_pid(server, clients, tmp_path, monkeypatch):
    """The fallback (Windows, a filesystem without flock()): a dead pid's claim is taken back, a live one's not."""
    import lantern.spool_claims as spool_claims

    monkeypatch.setattr(spool_claims, "LOCKS", False)
    fill_spool(clients, tmp_path, 2)
    older, newer = spool_files(tmp_path)
    older_i = item(tmp_path, older)
    claim(tmp_path, older, dead_pid())
    live = claim(tmp_path, newer, os.getppid())
    lantern = clients(server.url, spool_dir=str(tmp_path))
    assert lantern.flush(timeout=5)
    assert [log["i"] for log in server.logs()] == [older_i]
    assert spool_files(tmp_path) == [live]


def test_a_process_claims_one_file_at_a_time_and_one_that_disappears_is_forgotten(server, clients, tmp_path):
    fill_spool(clients, tmp_path, 3)
    oldest = spool_files(tmp_path)[0]
    server.fail_next((503, 30))
    refused = threading.Event()
    lantern = clients(server.url, spool_dir=str(tmp_path),
                      on_error=lambda error: refused.set() if error.code == "http_status" else None)
    assert refused.wait(5)  # the oldest file's attempt failed: its claim is kept for the retry, alone
    [claimed] = claims(tmp_path)
    assert claimed.startswith(f".claim-{os.getpid()}-") and claimed.endswith(oldest)
    os.unlink(tmp_path / claimed)  # removed by hand while claimed
    assert lantern.flush(timeout=5)
    assert len(server.logs()) == 2 and spool_files(tmp_path) == []
    assert lantern.stats().logs.spool_pending == 0 and lantern.stats().logs.sent == 2


FORKING_OWNER = """
import os, sys, time
sys.path.insert(0, {path!r})
from lantern import Lantern
lantern = Lantern(api_key="k", ingest_url={url!r}, spool_dir={spool!r}, flush_interval=60, flush_on_exit=False,
                  on_error=lambda error: None)
while lantern.stats().logs.retried == 0:  # its attempt was refused: it keeps the file claimed for the retry
    time.sleep(0.01)
if os.fork() == 0:
    sys.stdin.readline()  # the child lives on (a worker the master forked)
    os._exit(0)
os._exit(0)  # the owner of the claim crashes
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_does_not_keep_its_parents_claims(server, clients, tmp_path):
    keys = fill_spool(clients, tmp_path, 1)
    server.fail_next((503, 30))  # the owner's attempt fails: it keeps the file claimed
    code = FORKING_OWNER.format(path=os.path.dirname(os.path.dirname(lantern_package.__file__)), url=server.url,
                                spool=str(tmp_path))
    owner = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, text=True)
    try:
        assert owner.wait(30) == 0
        assert len(claims(tmp_path)) == 1
        lantern = clients(server.url, spool_dir=str(tmp_path))  # the child still runs, and holds no lock
        assert lantern.stats().logs.spool_pending == 1
        assert lantern.flush(timeout=5)
        assert len(server.logs()) == 1 and {r.key for r in server.requests} == keys
    finally:
        owner.stdin.close()  # ends the child


# -- 1. a stray claim, a failing scan ---------------------------------------------------------------------------

def test_pid_alive_answers_for_an_id_no_process_can_have():
    from lantern.spool_claims import pid_alive

    assert pid_alive(10**30) is False and pid_alive(2**63) is False and pid_alive(os.getpid()) is True


STRAY = "logs-000001700000000-1-00000{n}-n1.ndjson"


@pytest.mark.parametrize("locks", [True, False], ids=["flock", "no-locks"])
def test_a_stray_claim_with_a_huge_pid_breaks_neither_the_client_nor_its_sender(server, clients, tmp_path,
                                                                                  monkeypatch, locks):
    import lantern.spool as spool_module

    if not locks:
        import lantern.spool_claims as spool_claims

        monkeypatch.setattr(spool_claims, "LOCKS", False)
    not_a_claim = f".claim-{'9' * 25}-0badc0de-{STRAY.format(n=1)}"  # more digits than any pid: left alone
    (tmp_path / not_a_claim).write_text('{"v":1,"key":"k1"}\n{"message":"never"}\n')
    lantern = clients(server.url, spool_dir=str(tmp_path))
    assert lantern.flush(timeout=5)
    # While running: a claim of a pid beyond pid_t (os.kill would overflow) is abandoned, taken back and sent.
    monkeypatch.setattr(spool_module, "RESCAN_SECONDS", 0.0)
    (tmp_path / f".claim-9999999999-0badc0de-{STRAY.format(n=2)}").write_text('{"v":1,"key":"k2"}\n{"message":"x"}\n')
    assert lantern.flush(timeout=5)
    lantern.log.info("after")
    assert lantern.flush(timeout=5)
    assert [log["message"] for log in server.logs()] == ["x", "after"]
    assert os.listdir(tmp_path) == [not_a_claim]
    assert [e for e in clients.errors if e.code == "internal"] == []


def test_a_scan_that_fails_is_reported_and_neither_the_constructor_nor_the_sender_raises(server, clients,
                                                                                           tmp_path, monkeypatch):
    import lantern.spool as spool_module

    def broken(*args, **kwargs):
        raise RuntimeError("scan exploded")

    monkeypatch.setattr(spool_module, "scan", broken)
    monkeypatch.setattr(spool_module, "RESCAN_SECONDS", 0.0)
    lantern = clients(server.url, spool_dir=str(tmp_path))  # the first scan, in the constructor
    assert lantern.flush(timeout=5)  # a scan in the sender thread
    scans = [e for e in clients.errors if e.code == "spool" and "scan exploded" in e.message]
    assert len(scans) >= 2
    lantern.log.info("after")
    assert lantern.flush(timeout=5)
    assert [log["message"] for log in server.logs()] == ["after"]
    assert lantern._exporters["logs"]._thread.is_alive()
    assert [e for e in clients.errors if e.code == "internal"] == []


# -- 4. a file that can be neither renamed nor deleted ----------------------------------------------------------

def test_a_file_that_can_be_neither_renamed_nor_deleted_is_sent_once_and_reported_once(server, clients, tmp_path,
                                                                                         monkeypatch):
    import lantern.spool as spool_module

    keys = fill_spool(clients, tmp_path, 1)
    [name] = spool_files(tmp_path)
    real_rename, real_unlink = os.rename, os.unlink

    def refused(path) -> bool:
        return os.path.basename(os.fspath(path)) == name

    def rename(src, dst, *args, **kwargs):
        if refused(src):  # a sticky directory, another user's file
            raise PermissionError(errno.EPERM, "Operation not permitted", os.fspath(src))
        return real_rename(src, dst, *args, **kwargs)

    def unlink(path, *args, **kwargs):
        if refused(path):
            raise PermissionError(errno.EPERM, "Operation not permitted", os.fspath(path))
        return real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "rename", rename)
    monkeypatch.setattr(os, "unlink", unlink)
    monkeypatch.setattr(spool_module, "RESCAN_SECONDS", 0.0)  # every round looks at the directory again
    lantern = clients(server.url, spool_dir=str(tmp_path))
    for _ in range(3):
        assert lantern.flush(timeout=5)
    assert keys_sent(server) == Counter({key: 1 for key in keys})
    assert len([e for e in clients.errors if e.code == "spool" and name in e.message]) == 1
    assert lantern.stats().logs.spool_pending == 0 and spool_files(tmp_path) == [name]


# -- 5. the quota ---------------------------------------------------------------------------------------------

def test_spool_writes_do_not_measure_the_directory_each_time(clients, tmp_path, monkeypatch):
    import lantern.spool as spool_module

    measured = []
    real = spool_module.directory_bytes
    monkeypatch.setattr(spool_module, "directory_bytes", lambda directory: measured.append(1) or real(directory))
    monkeypatch.setattr(spool_module, "MEASURE_SECONDS", 3600.0, raising=False)
    port, holder = free_port()
    lantern = clients(f"http://127.0.0.1:{port}", spool_dir=str(tmp_path), max_queue_size=1, max_batch_size=1)
    for i in range(30):
        lantern.log.info("overflow", i=i)
    assert lantern.close(timeout=0.1).logs.spooled == 30
    holder.close()
    assert len(measured) == 1


def test_a_spool_write_in_progress_is_not_counted_twice_against_the_quota(clients, tmp_path, monkeypatch):
    import lantern.spool as spool_module

    port, holder = free_port()
    url = f"http://127.0.0.1:{port}"
    options = dict(max_queue_size=1, max_batch_size=1)
    probe = clients(url, spool_dir=str(tmp_path / "probe"), **options)
    for _ in range(2):
        probe.log.info("x" * 600)  # the second overflows to the spool: one file's size
    [name] = spool_files(tmp_path / "probe")
    size = os.path.getsize(tmp_path / "probe" / name)
    lantern = clients(url, spool_dir=str(tmp_path / "spool"), spool_max_bytes=size * 2 + size // 2, **options)
    lantern.log.info("x" * 600)  # the memory queue's one item
    written, go = threading.Event(), threading.Event()
    real_open = open

    class Paused:
        """The first temporary file: written, then held before its rename."""

        def __init__(self, file) -> None:
            self.file = file

        def __enter__(self):
            return self.file

        def __exit__(self, *exc) -> None:
            self.file.close()
            written.set()
            go.wait(10)

    def paused_open(path, *args, **kwargs):
        file = real_open(path, *args, **kwargs)
        return Paused(file) if os.path.basename(path).startswith(".tmp-") and not written.is_set() else file

    monkeypatch.setattr(spool_module, "open", paused_open, raising=False)
    writer = threading.Thread(target=lantern.log.info, args=("x" * 600,))
    writer.start()
    assert written.wait(5)
    lantern.log.info("x" * 600)  # two files fit the quota; the one being written counted twice would make three
    go.set()
    writer.join(5)
    stats = lantern.stats().logs
    assert (stats.spooled, stats.dropped) == (2, 0)
    holder.close()


def test_this_processs_own_deletions_free_the_quota_at_once(tmp_path, monkeypatch):
    import lantern.spool as spool_module
    from lantern.queue import new_batch

    monkeypatch.setattr(spool_module, "MEASURE_SECONDS", 3600.0)  # nothing measured again: counted by the Spool
    spool = spool_module.Spool(str(tmp_path), max_bytes=1000)
    batch = lambda: new_batch(["x" * 300], 301)  # noqa: E731
    assert [spool.write("logs", batch())[0] for _ in range(3)] == ["ok", "ok", "full"]
    found = spool.next("logs")
    assert found.batch is not None and found.batch.file is not None
    spool.remove("logs", found.batch.file)
    assert spool.write("logs", batch())[0] == "ok"
    assert spool.write("logs", batch())[0] == "full"
