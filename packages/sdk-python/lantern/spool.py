"""Batches kept on disk, in the same format as `@lantern/sdk-node`'s spool.

One file per batch, `<kind>-<ms, 15 digits>-<pid>-<seq, 6 digits>-n<items>.ndjson`: a header line
`{"v":1,"key":...}` (the batch's Idempotency-Key, so a batch sent before a crash is not stored twice) and one item
per line. Files are written under a temporary name and renamed, so a file seen is always complete.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from typing import Dict, List, Optional, Tuple

from .queue import Batch

NAME = re.compile(r"^(traces|logs)-(\d{15})-(\d+)-(\d{6})-n(\d+)\.ndjson$")
STALE_TMP_SECONDS = 60.0
# (name, items, bytes)
SpoolFile = Tuple[str, int, int]


class Spool:
    """Thread-safe; indexes what an earlier run left when it is made."""

    def __init__(self, directory: str, max_bytes: int) -> None:
        self.dir = os.path.abspath(directory)
        self._max_bytes = max_bytes
        self._lock = threading.Lock()
        self._seq = 0
        self._files: Dict[str, List[SpoolFile]] = {"traces": [], "logs": []}
        self._total = 0
        os.makedirs(self.dir, exist_ok=True)
        if not os.access(self.dir, os.W_OK):
            raise PermissionError(f"{self.dir} is not writable")
        now = time.time()
        for name in sorted(os.listdir(self.dir)):
            path = os.path.join(self.dir, name)
            m = NAME.match(name)
            if m is None:
                try:
                    if name.startswith(".tmp-") and now - os.stat(path).st_mtime > STALE_TMP_SECONDS:
                        os.unlink(path)
                except OSError:
                    pass
                continue
            try:
                size = os.stat(path).st_size
            except OSError:
                continue
            self._files[m.group(1)].append((name, int(m.group(5)), size))
            self._total += size

    def after_fork(self) -> None:
        """In a forked child: the files known so far are the parent's to send; the child sends its own."""
        self._lock = threading.Lock()
        self._files = {"traces": [], "logs": []}
        self._total = 0

    def pending(self, kind: str) -> int:
        """Items on disk waiting to be sent."""
        return sum(f[1] for f in self._files[kind])

    def write(self, kind: str, batch: Batch) -> str:
        """'ok', 'full' (beyond the quota) or 'error'."""
        content = json.dumps({"v": 1, "key": batch.key}, separators=(",", ":")) + "\n" + "\n".join(batch.items) + "\n"
        data = content.encode("utf-8")
        with self._lock:
            if self._total + len(data) > self._max_bytes:
                return "full"
            self._total += len(data)
            stamp = str(int(time.time() * 1000)).rjust(15, "0")
            seq = str(self._seq % 1_000_000).rjust(6, "0")
            self._seq += 1
        name = f"{kind}-{stamp}-{os.getpid()}-{seq}-n{len(batch.items)}.ndjson"
        tmp = os.path.join(self.dir, f".tmp-{name}")
        try:
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, os.path.join(self.dir, name))
        except OSError:
            with self._lock:
                self._total -= len(data)
            try:
                os.unlink(tmp)
            except OSError:
                pass
            return "error"
        with self._lock:
            files = self._files[kind]
            files.append((name, len(batch.items), len(data)))
            files.sort()
        return "ok"

    def next(self, kind: str) -> Tuple[Optional[Batch], List[str]]:
        """The oldest readable batch of a kind (its `file` set), and the names of unreadable files removed."""
        unreadable: List[str] = []
        while True:
            with self._lock:
                if not self._files[kind]:
                    return None, unreadable
                file = self._files[kind][0]
            batch = self._read(file[0])
            if batch is not None:
                return batch, unreadable
            unreadable.append(file[0])
            self.remove(kind, file[0])

    def _read(self, name: str) -> Optional[Batch]:
        try:
            with open(os.path.join(self.dir, name), "rb") as f:
                lines = [line for line in f.read().decode("utf-8").split("\n") if line]
            header = json.loads(lines[0])
            if header.get("v") != 1 or not isinstance(header.get("key"), str) or len(lines) < 2:
                return None
            items = lines[1:]
            return Batch(key=header["key"], items=items, bytes=sum(len(i) + 1 for i in items), file=name)
        except (OSError, ValueError, IndexError, AttributeError):
            return None

    def remove(self, kind: str, name: str) -> None:
        """Forgets the file (even if it cannot be deleted, so that this process never sends it twice)."""
        with self._lock:
            files = self._files[kind]
            found = [f for f in files if f[0] == name]
            if not found:
                return
            files.remove(found[0])
            self._total -= found[0][2]
        try:
            os.unlink(os.path.join(self.dir, name))
        except OSError:
            pass
