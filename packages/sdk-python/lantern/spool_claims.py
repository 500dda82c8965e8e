"""Claims on spool files, as processes sharing a spool directory make them (spool_dir.py).

A claim is an exclusive `flock()` on the file, taken before it is renamed to `.claim-<pid>-<token>-<name>` and
held (one open descriptor) until the file is deleted or given back. Every rename and deletion of a spool file is
made by the holder of its lock, so they never race. The kernel drops the lock when its process ends, however it
ends, so a claim is abandoned exactly when its lock can be taken: neither a pid reused after a reboot nor the
same pids in the containers of a shared volume matter.

Without `fcntl` (Windows), or on a filesystem that refuses `flock()`, claims are judged by the pid and token in
their name (`stale()`): a pid that runs is trusted to be the owner, which pid reuse and pid namespaces defeat, and
on Windows, where no process can be asked, no other process's claim is ever taken back (docs/sdk-python.md).
"""

from __future__ import annotations

import os
import secrets
import sys
from typing import NamedTuple, Set, Tuple

if sys.platform != "win32":
    import fcntl

#: Whether claims are held by locks (False: Windows; the tests set it to try the fallback).
LOCKS = sys.platform != "win32"

#: The tokens of this process's Spool objects (the fallback's test of a claim with this process's pid).
live_tokens: Set[str] = set()


class Held(NamedTuple):
    """A file this process holds: the name it has on disk now, and the locked descriptor (-1: none)."""

    path_name: str
    fd: int


def new_token() -> str:
    token = secrets.token_hex(4)
    live_tokens.add(token)
    return token


def claim_name(token: str, name: str) -> str:
    return f".claim-{os.getpid()}-{token}-{name}"


def pid_alive(pid: int) -> bool:
    """Whether a process runs with that id. Without a way to ask (Windows: os.kill would end it), yes; for an id
    that no process can have (beyond the platform's pid_t), no."""
    if pid <= 0:
        return True
    if sys.platform == "win32":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OverflowError, ValueError):
        return False
    except OSError:  # EPERM: it runs, as another user
        return True
    return True


def stale(pid: int, token: str) -> bool:
    """The fallback without locks: a claim whose process does not run (or, with this pid, a token no Spool object
    of this process holds)."""
    if pid == os.getpid():
        return token not in live_tokens
    return not pid_alive(pid)


def close_fd(fd: int) -> None:
    """Closes a held descriptor; the lock goes with the last descriptor of its open file (not a forked copy)."""
    if fd >= 0:
        try:
            os.close(fd)
        except OSError:
            pass


def lock(path: str) -> Tuple[str, int]:
    """An exclusive lock on the file, without waiting: ("held", fd), ("busy", -1) when another open file holds
    it, ("gone", -1), or ("none", -1) when there are no locks here (the fallback). Raises OSError when the file
    cannot be opened (EACCES, EMFILE...)."""
    if not LOCKS:
        return "none", -1
    try:
        try:
            fd = os.open(path, os.O_RDWR)  # NFS emulates flock() with POSIX locks, which want a writable file
        except PermissionError:
            fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return "gone", -1
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        same = os.path.samestat(os.fstat(fd), os.stat(path))  # not renamed between the open and the lock
    except BlockingIOError:
        close_fd(fd)
        return "busy", -1
    except FileNotFoundError:
        close_fd(fd)
        return "gone", -1
    except OSError:  # ENOLCK, EOPNOTSUPP: a filesystem without flock()
        close_fd(fd)
        return "none", -1
    if not same:
        close_fd(fd)
        return "gone", -1
    return "held", fd


def take_back(directory: str, claim: str, name: str, pid: int, token: str) -> bool:
    """A claim renamed back to its file's name if it is abandoned: True; False when it is not (or was taken back
    by another process meanwhile). Raises OSError when it cannot be opened."""
    if pid == os.getpid() and token in live_tokens:  # this process's own (NFS's emulated locks would not say)
        return False
    path = os.path.join(directory, claim)
    state, fd = lock(path)
    if state == "none" and not stale(pid, token):
        return False
    if state not in ("held", "none"):
        return False
    try:
        os.rename(path, os.path.join(directory, name))
        return True
    except OSError:
        return False
    finally:
        close_fd(fd)
