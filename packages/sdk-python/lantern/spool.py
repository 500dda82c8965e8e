"""Batches kept on disk, in the same format as `@lantern/sdk-node`'s spool.

One file per batch, `<kind>-<ms, 15 digits>-<pid>-<seq, 6 digits>-n<items>.ndjson`: a header line
`{"v":1,"key":...}` (the batch's Idempotency-Key, so a batch sent before a crash is not stored twice) and one item
per line. Files are written under a temporary name and renamed, so a file seen is always complete. Several
processes may share the directory: a file is claimed before it is read (spool_dir.py, spool_claims.py), the quota
counts the whole directory.
"""

from __future__ import annotations

import json
import os
import threading
import time
from typing import Callable, Dict, List, NamedTuple, Optional, Set, Tuple

from .queue import Batch
from .spool_claims import Held, claim_name, close_fd, lock, new_token
from .spool_dir import Corrupt, SpoolFile, directory_bytes, read_batch, scan

#: How often a process with nothing of a kind indexed looks again for files (other processes', stale claims).
RESCAN_SECONDS = 30.0
#: How long the directory's total is trusted (this process's own writes and deletions are counted at once).
MEASURE_SECONDS = 1.0
#: Most names of files this process gave up on (sent or unparseable, but could not delete) that it remembers.
MAX_GIVEN_UP = 4096


class Next(NamedTuple):
    """The oldest batch of a kind that could be read (its `file` set), the corrupt files removed, and the files
    that could not be read for now (kept for a later round), with why."""

    batch: Optional[Batch]
    unreadable: List[str]
    kept: List[str]


class Spool:
    """Thread-safe; indexes what an earlier run (or another process) left when it is made. Problems that are not
    the caller's to handle (a scan that failed, a file that cannot be deleted) go to `report`."""

    def __init__(self, directory: str, max_bytes: int, report: Optional[Callable[[str], None]] = None) -> None:
        self.dir = os.path.abspath(directory)
        self._max_bytes = max_bytes
        self._report: Callable[[str], None] = report or (lambda message: None)
        os.makedirs(self.dir, exist_ok=True)
        if not os.access(self.dir, os.W_OK):
            raise PermissionError(f"{self.dir} is not writable")
        self._given_up: Dict[str, None] = {}
        self._start()
        self._rescan(initial=True)

    def _start(self) -> None:
        self._lock = threading.Lock()
        self._seq = 0
        self._token = new_token()
        self._files: Dict[str, List[SpoolFile]] = {"traces": [], "logs": []}
        #: Files this object holds (claimed, or read in place when they could not be renamed).
        self._claimed: Dict[str, Held] = {}
        self._writing = 0
        self._dir_bytes, self._measured_at = 0, -1e18
        self._scanned_at = time.monotonic()

    def after_fork(self) -> None:
        """In a forked child: the files known and claimed so far are the parent's to send; the child finds them
        (and the parent's claims, once the parent has gone) at its next scan. The child's copies of the locked
        descriptors are closed (the parent's keep the locks)."""
        for held in list(self._claimed.values()):
            close_fd(held.fd)
        self._start()

    def _rescan(self, initial: bool = False) -> None:
        """Indexes the files not known yet; never raises (but `initial`, for a directory that cannot be listed)."""
        with self._lock:
            skip: Set[str] = {f.name for files in self._files.values() for f in files} | set(self._given_up)
            self._scanned_at = time.monotonic()
        try:
            found = scan(self.dir, skip)
        except Exception as error:
            if initial and isinstance(error, OSError):
                raise
            self._report(f"could not scan the spool directory {self.dir}: {error!r}")
            return
        with self._lock:
            for kind, name, items, size in found:
                if all(f.name != name for f in self._files[kind]):
                    self._files[kind].append(SpoolFile(name, items, size))
            for files in self._files.values():
                files.sort()

    def pending(self, kind: str) -> int:
        """Items on disk waiting to be sent (those this process knows of)."""
        return sum(f.items for f in self._files[kind])

    def write(self, kind: str, batch: Batch) -> Tuple[str, Optional[str]]:
        """('ok', the file's name), ('full', None) (the whole directory beyond the quota) or ('error', None)."""
        content = json.dumps({"v": 1, "key": batch.key}, separators=(",", ":")) + "\n" + "\n".join(batch.items) + "\n"
        data = content.encode("utf-8")
        with self._lock:
            now = time.monotonic()
            if now - self._measured_at >= MEASURE_SECONDS:
                self._dir_bytes, self._measured_at = directory_bytes(self.dir), now
            if self._dir_bytes + self._writing + len(data) > self._max_bytes:
                return "full", None
            self._writing += len(data)
            stamp = str(int(time.time() * 1000)).rjust(15, "0")
            seq = str(self._seq % 1_000_000).rjust(6, "0")
            self._seq += 1
        name = f"{kind}-{stamp}-{os.getpid()}-{seq}-n{len(batch.items)}.ndjson"
        tmp = os.path.join(self.dir, f".tmp-{name}")
        written = done = False
        try:
            with open(tmp, "wb") as f:
                f.write(data)
            written = True
        except OSError:
            pass
        finally:
            with self._lock:  # the rename and the counts at once: a measure sees the file or the count, not both
                self._writing -= len(data)
                if written:
                    try:
                        os.replace(tmp, os.path.join(self.dir, name))
                        done = True
                    except OSError:
                        pass
                if done:
                    self._dir_bytes += len(data)
                    self._files[kind].append(SpoolFile(name, len(batch.items), len(data)))
                    self._files[kind].sort()
        if done:
            return "ok", name
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return "error", None

    def next(self, kind: str) -> Next:
        """The oldest batch of a kind this process could claim and read; it then holds no other claim of the kind
        (one locked descriptor per kind at most)."""
        out = Next(None, [], [])
        if not self._files[kind] and time.monotonic() - self._scanned_at >= RESCAN_SECONDS:
            self._rescan()
        skipped: Set[str] = set()
        while True:
            with self._lock:
                file = next((f for f in self._files[kind] if f.name not in skipped), None)
            if file is None:
                return out
            try:
                held = self._claim(file.name)
                if held is None:  # another process has it (or it is gone)
                    self._drop(kind, file.name)
                    continue
                batch = read_batch(os.path.join(self.dir, held.path_name), file.name, held.fd)
            except Corrupt:
                out.unreadable.append(file.name)
                self.remove(kind, file.name)
            except FileNotFoundError:  # deleted or taken by someone else meanwhile
                self._drop(kind, file.name)
            except OSError as error:  # EIO, EMFILE, EACCES...: not the file's fault; tried again next round
                out.kept.append(f"{file.name} ({error})")
                skipped.add(file.name)
                self._give_back([file.name])
            else:
                with self._lock:
                    others = [f.name for f in self._files[kind] if f.name in self._claimed and f.name != file.name]
                self._give_back(others)
                return out._replace(batch=batch)

    def _claim(self, name: str) -> Optional[Held]:
        """This object's claim on the file; None when another process has it or it is gone."""
        with self._lock:
            held = self._claimed.get(name)
        if held is not None:
            return held
        path = os.path.join(self.dir, name)
        state, fd = lock(path)
        if state in ("busy", "gone"):
            return None
        claimed = claim_name(self._token, name)
        # Renamed under the lock, as the quota's measure (write) lists the directory under it: a listing that runs
        # beside a rename may miss the file in flight, and a spool full of this process's claims then looked emptier.
        with self._lock:
            try:
                os.rename(path, os.path.join(self.dir, claimed))
            except FileNotFoundError:
                close_fd(fd)
                return None
            except OSError:  # cannot be renamed (a sticky directory, another user's file): read in place, locked
                claimed = name
            held = Held(claimed, fd)
            self._claimed[name] = held
        return held

    def _forget(self, kind: str, name: str) -> Optional[Tuple[SpoolFile, str, int]]:
        """Drops the file from the index: it, the path it has on disk for this process, the descriptor held."""
        with self._lock:
            found = [f for f in self._files[kind] if f.name == name]
            if not found:
                return None
            self._files[kind].remove(found[0])
            held = self._claimed.pop(name, Held(name, -1))
        return found[0], os.path.join(self.dir, held.path_name), held.fd

    def _drop(self, kind: str, name: str) -> None:
        forgotten = self._forget(kind, name)
        if forgotten is not None:
            close_fd(forgotten[2])

    def remove(self, kind: str, name: str) -> None:
        """Forgets the file and deletes it. One that cannot be deleted is given up: this process never indexes it
        again (so never sends it twice), and says so once."""
        forgotten = self._forget(kind, name)
        if forgotten is None:
            return
        file, path, fd = forgotten
        try:
            with self._lock:
                os.unlink(path)
                self._dir_bytes = max(0, self._dir_bytes - file.bytes)
        except FileNotFoundError:
            pass
        except OSError as error:
            with self._lock:
                self._given_up[name] = None
                while len(self._given_up) > MAX_GIVEN_UP:
                    del self._given_up[next(iter(self._given_up))]
            self._report(f"could not delete spool file {name} ({error}); this process will not send it again")
        finally:
            close_fd(fd)

    def _give_back(self, names: List[str]) -> None:
        """Gives back this object's claims on those files (renamed to their names, unlocked); they stay indexed."""
        with self._lock:
            claims = [(name, self._claimed.pop(name)) for name in names if name in self._claimed]
        for name, held in claims:
            try:
                if held.path_name != name:
                    with self._lock:  # not beside the quota's measure (see _claim)
                        os.rename(os.path.join(self.dir, held.path_name), os.path.join(self.dir, name))
            except OSError:
                pass
            finally:
                close_fd(held.fd)

    def release(self, kind: str) -> None:
        """close(): gives back this object's claims on files of a kind, for the other processes and the next run."""
        with self._lock:
            names = [f.name for f in self._files[kind] if f.name in self._claimed]
        self._give_back(names)
