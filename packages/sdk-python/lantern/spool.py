"""Batches kept on disk, in the same format as `@lantern/sdk-node`'s spool.

One file per batch, `<kind>-<ms, 15 digits>-<pid>-<seq, 6 digits>-n<items>.ndjson`: a header line
`{"v":1,"key":...}` (the batch's Idempotency-Key, so a batch sent before a crash is not stored twice) and one item
per line. Files are written under a temporary name and renamed, so a file seen is always complete. Several
processes may share the directory: a file is claimed before it is read, the quota counts the whole directory
(spool_dir.py).
"""

from __future__ import annotations

import json
import os
import threading
import time
from typing import Dict, List, NamedTuple, Optional, Set

from .queue import Batch
from .spool_dir import claim_name, directory_bytes, new_token, scan

#: How often a process with nothing of a kind indexed looks again for files (other processes', stale claims).
RESCAN_SECONDS = 30.0


class SpoolFile(NamedTuple):
    name: str
    items: int
    bytes: int


class Next(NamedTuple):
    """The oldest batch of a kind that could be read (its `file` set), the corrupt files removed, and the files
    that could not be read for now (kept for a later round), with why."""

    batch: Optional[Batch]
    unreadable: List[str]
    kept: List[str]


class Corrupt(Exception):
    pass


class Spool:
    """Thread-safe; indexes what an earlier run (or another process) left when it is made."""

    def __init__(self, directory: str, max_bytes: int) -> None:
        self.dir = os.path.abspath(directory)
        self._max_bytes = max_bytes
        os.makedirs(self.dir, exist_ok=True)
        if not os.access(self.dir, os.W_OK):
            raise PermissionError(f"{self.dir} is not writable")
        self._start()
        self._rescan()

    def _start(self) -> None:
        self._lock = threading.Lock()
        self._seq = 0
        self._token = new_token()
        self._files: Dict[str, List[SpoolFile]] = {"traces": [], "logs": []}
        #: Files this object claimed: name -> claim name.
        self._claimed: Dict[str, str] = {}
        self._writing = 0
        self._scanned_at = time.monotonic()

    def after_fork(self) -> None:
        """In a forked child: the files known and claimed so far are the parent's to send; the child finds them
        (and the parent's claims, once the parent has gone) at its next scan."""
        self._start()

    def _rescan(self) -> None:
        with self._lock:
            known: Set[str] = {f.name for files in self._files.values() for f in files}
            self._scanned_at = time.monotonic()
        found = scan(self.dir, known)
        with self._lock:
            for kind, name, items, size in found:
                if all(f.name != name for f in self._files[kind]):
                    self._files[kind].append(SpoolFile(name, items, size))
            for files in self._files.values():
                files.sort()

    def pending(self, kind: str) -> int:
        """Items on disk waiting to be sent (those this process knows of)."""
        return sum(f.items for f in self._files[kind])

    def write(self, kind: str, batch: Batch) -> str:
        """'ok', 'full' (the whole directory beyond the quota) or 'error'."""
        content = json.dumps({"v": 1, "key": batch.key}, separators=(",", ":")) + "\n" + "\n".join(batch.items) + "\n"
        data = content.encode("utf-8")
        with self._lock:
            if directory_bytes(self.dir) + self._writing + len(data) > self._max_bytes:
                return "full"
            self._writing += len(data)
            stamp = str(int(time.time() * 1000)).rjust(15, "0")
            seq = str(self._seq % 1_000_000).rjust(6, "0")
            self._seq += 1
        name = f"{kind}-{stamp}-{os.getpid()}-{seq}-n{len(batch.items)}.ndjson"
        tmp = os.path.join(self.dir, f".tmp-{name}")
        try:
            try:
                with open(tmp, "wb") as f:
                    f.write(data)
                os.replace(tmp, os.path.join(self.dir, name))
            finally:
                with self._lock:
                    self._writing -= len(data)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            return "error"
        with self._lock:
            files = self._files[kind]
            files.append(SpoolFile(name, len(batch.items), len(data)))
            files.sort()
        return "ok"

    def next(self, kind: str) -> Next:
        """The oldest batch of a kind this process could claim and read."""
        out = Next(None, [], [])
        if not self._files[kind] and time.monotonic() - self._scanned_at >= RESCAN_SECONDS:
            try:
                self._rescan()
            except OSError:
                pass
        skipped: Set[str] = set()
        while True:
            with self._lock:
                file = next((f for f in self._files[kind] if f.name not in skipped), None)
            if file is None:
                return out
            path = self._claim(file.name)
            if path is None:  # another process has it (or it is gone)
                self._forget(kind, file.name)
                continue
            try:
                return out._replace(batch=self._read(path, file.name))
            except Corrupt:
                out.unreadable.append(file.name)
                self.remove(kind, file.name)
            except FileNotFoundError:
                self._forget(kind, file.name)
            except OSError as error:  # EIO, EMFILE, EACCES...: not the file's fault; tried again next round
                out.kept.append(f"{file.name} ({error})")
                skipped.add(file.name)

    def _claim(self, name: str) -> Optional[str]:
        """The path of this object's claim on the file; None when it is gone (claimed by another process)."""
        with self._lock:
            claimed = self._claimed.get(name)
        if claimed is not None:
            return os.path.join(self.dir, claimed)
        claimed = claim_name(self._token, name)
        try:
            os.rename(os.path.join(self.dir, name), os.path.join(self.dir, claimed))
        except FileNotFoundError:
            return None
        except OSError:  # cannot claim it now: read without a claim, as a process alone on the directory
            return os.path.join(self.dir, name)
        with self._lock:
            self._claimed[name] = claimed
        return os.path.join(self.dir, claimed)

    def _read(self, path: str, name: str) -> Batch:
        """The batch in a file; raises Corrupt when it is not a spool file, OSError when it cannot be read now."""
        with open(path, "rb") as f:
            data = f.read()
        try:
            lines = [line for line in data.decode("utf-8").split("\n") if line]
            header = json.loads(lines[0])
            if header.get("v") != 1 or not isinstance(header.get("key"), str) or len(lines) < 2:
                raise Corrupt(name)
        except (ValueError, IndexError, AttributeError):
            raise Corrupt(name) from None
        items = lines[1:]
        return Batch(key=header["key"], items=items, bytes=sum(len(i) + 1 for i in items), file=name)

    def _forget(self, kind: str, name: str) -> Optional[str]:
        """Drops the file from the index; the path it has on disk for this process."""
        with self._lock:
            files = self._files[kind]
            found = [f for f in files if f.name == name]
            if not found:
                return None
            files.remove(found[0])
            claimed = self._claimed.pop(name, None)
        return os.path.join(self.dir, claimed if claimed is not None else name)

    def remove(self, kind: str, name: str) -> None:
        """Forgets the file and deletes it (even if it cannot be deleted, so that this process never sends it
        twice)."""
        path = self._forget(kind, name)
        if path is None:
            return
        try:
            os.unlink(path)
        except OSError:
            pass

    def release(self, kind: str) -> None:
        """close(): gives back this object's claims on files of a kind (renamed to their names), for the other
        processes and the next run."""
        with self._lock:
            names = [f.name for f in self._files[kind] if f.name in self._claimed]
            claims = [(name, self._claimed.pop(name)) for name in names]
        for name, claimed in claims:
            try:
                os.rename(os.path.join(self.dir, claimed), os.path.join(self.dir, name))
            except OSError:
                pass
