"""The spool directory as several processes share it (gunicorn workers with one `spool_dir`): file names, what a
scan finds, the bytes the whole directory holds.

A process sends a file only after claiming it (spool_claims.py): it locks the file, then renames `<name>` to
`.claim-<pid>-<token>-<name>` (`token`: one per Spool object). Only one rename of a name can succeed, so each file
is sent by one process; the others find it gone or locked. An abandoned claim (its lock free: its process ended)
is renamed back by the next scan. A file that fails to send stays claimed by its process until it is delivered,
refused, or the process closes (the claim is then given back).
"""

from __future__ import annotations

import json
import os
import re
import time
from typing import AbstractSet, List, NamedTuple, Tuple

from .queue import Batch
from .spool_claims import take_back

NAME = re.compile(r"^(traces|logs)-(\d{15})-(\d+)-(\d{6})-n(\d+)\.ndjson\Z")
#: A pid has at most 10 digits (pid_t is 32 bits); a longer one is not a claim of this library's.
CLAIM = re.compile(r"^\.claim-(\d{1,10})-([0-9a-f]{8})-(.+)\Z")
STALE_TMP_SECONDS = 60.0


class SpoolFile(NamedTuple):
    name: str
    items: int
    bytes: int


class Corrupt(Exception):
    pass


def read_file(path: str, fd: int) -> bytes:
    """A file's bytes: through its locked descriptor if there is one (NFS emulates flock() with POSIX locks, which
    closing any other descriptor of the file would drop), after checking that the path is still that file."""
    if fd < 0:
        with open(path, "rb") as f:
            return f.read()
    if not os.path.samestat(os.stat(path), os.fstat(fd)):
        raise FileNotFoundError(path)
    chunks: List[bytes] = []
    offset = 0
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def read_batch(path: str, name: str, fd: int = -1) -> Batch:
    """The batch in a file; raises Corrupt when it is not a spool file, OSError when it cannot be read now."""
    data = read_file(path, fd)
    try:
        lines = [line for line in data.decode("utf-8").split("\n") if line]
        header = json.loads(lines[0])
        if header.get("v") != 1 or not isinstance(header.get("key"), str) or len(lines) < 2:
            raise Corrupt(name)
    except (ValueError, IndexError, AttributeError):
        raise Corrupt(name) from None
    items = lines[1:]
    return Batch(key=header["key"], items=items, bytes=sum(len(i) + 1 for i in items), file=name)


def directory_bytes(directory: str) -> int:
    """The bytes of the spool files in the directory, waiting or claimed by any process; not the files being
    written (`.tmp-`): a Spool counts its own itself, another process's is at most one batch."""
    total = 0
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                if NAME.match(entry.name) is not None or entry.name.startswith(".claim-"):
                    try:
                        total += entry.stat(follow_symlinks=False).st_size
                    except OSError:
                        pass
    except OSError:
        pass
    return total


# (kind, name, items, bytes)
Found = Tuple[str, str, int, int]


def scan(directory: str, skip: AbstractSet[str] = frozenset()) -> List[Found]:
    """The files waiting to be sent, oldest first: abandoned claims renamed back, stale temporary files removed
    (`skip`: names to leave alone, those indexed already or given up). Raises OSError only when the directory
    cannot be listed; one entry's problem leaves that entry out."""
    found: List[Found] = []
    now = time.time()
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        claim = CLAIM.match(name)
        if claim is not None:
            original = claim.group(3)
            if not NAME.match(original) or original in skip:
                continue
            try:
                if not take_back(directory, name, original, int(claim.group(1)), claim.group(2)):
                    continue
            except OSError:  # cannot be opened now
                continue
            name, path = original, os.path.join(directory, original)
        m = NAME.match(name)
        if m is None:
            try:
                if name.startswith(".tmp-") and now - os.stat(path).st_mtime > STALE_TMP_SECONDS:
                    os.unlink(path)
            except OSError:
                pass
            continue
        if name in skip:
            continue
        try:
            size = os.stat(path).st_size
        except OSError:
            continue
        found.append((m.group(1), name, int(m.group(5)), size))
    found.sort(key=lambda f: f[1])
    return found
