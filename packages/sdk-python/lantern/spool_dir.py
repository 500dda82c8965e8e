"""The spool directory as several processes share it (gunicorn workers with one `spool_dir`): file names, claims,
what a scan finds, the bytes the whole directory holds.

A process sends a file only after claiming it: an atomic rename of `<name>` to `.claim-<pid>-<token>-<name>`
(`token`: one per Spool object, so two clients of one process never share a claim). Only one rename of a name can
succeed, so each file is sent by one process; the others find it gone. A claim whose process no longer runs (or,
with this process's id, whose token no live Spool object holds: a process before a restart that had the same id)
is stale: renamed back by the next scan. A file that fails to send stays claimed by its process until it is
delivered, refused, or the process closes (the claim is then given back).
"""

from __future__ import annotations

import os
import re
import secrets
import sys
import time
from typing import List, Optional, Set, Tuple

NAME = re.compile(r"^(traces|logs)-(\d{15})-(\d+)-(\d{6})-n(\d+)\.ndjson\Z")
CLAIM = re.compile(r"^\.claim-(\d+)-([0-9a-f]{8})-(.+)\Z")
STALE_TMP_SECONDS = 60.0

#: The tokens of this process's Spool objects.
live_tokens: Set[str] = set()


def new_token() -> str:
    token = secrets.token_hex(4)
    live_tokens.add(token)
    return token


def claim_name(token: str, name: str) -> str:
    return f".claim-{os.getpid()}-{token}-{name}"


def pid_alive(pid: int) -> bool:
    """Whether a process runs with that id. Without a way to ask (Windows: os.kill would end it), yes."""
    if sys.platform == "win32" or pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it runs, as another user
        return True
    return True


def stale(pid: int, token: str) -> bool:
    if pid == os.getpid():
        return token not in live_tokens
    return not pid_alive(pid)


def _is_spool_entry(name: str) -> bool:
    return NAME.match(name) is not None or name.startswith(".claim-") or name.startswith(".tmp-")


def directory_bytes(directory: str) -> int:
    """The bytes of every spool file in the directory: waiting, claimed by any process, being written."""
    total = 0
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                if _is_spool_entry(entry.name):
                    try:
                        total += entry.stat(follow_symlinks=False).st_size
                    except OSError:
                        pass
    except OSError:
        pass
    return total


# (kind, name, items, bytes)
Found = Tuple[str, str, int, int]


def scan(directory: str, known: Optional[Set[str]] = None) -> List[Found]:
    """The files waiting to be sent, oldest first: stale claims renamed back, stale temporary files removed
    (`known`: names to skip, those indexed already)."""
    found: List[Found] = []
    now = time.time()
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        claim = CLAIM.match(name)
        if claim is not None:
            if not NAME.match(claim.group(3)) or not stale(int(claim.group(1)), claim.group(2)):
                continue
            try:
                os.rename(path, os.path.join(directory, claim.group(3)))
            except OSError:  # taken back by another process meanwhile, or not now
                continue
            name, path = claim.group(3), os.path.join(directory, claim.group(3))
        m = NAME.match(name)
        if m is None:
            try:
                if name.startswith(".tmp-") and now - os.stat(path).st_mtime > STALE_TMP_SECONDS:
                    os.unlink(path)
            except OSError:
                pass
            continue
        if known is not None and name in known:
            continue
        try:
            size = os.stat(path).st_size
        except OSError:
            continue
        found.append((m.group(1), name, int(m.group(5)), size))
    found.sort(key=lambda f: f[1])
    return found
