"""The sender thread of one kind: when batches go, one at a time, and flush().

A mixin of KindExporter (exporter.py), which owns the state it reads under `_cond`: the queue, the asks of
flush() and the interval (`_asked`, `_answered`), the backoff (`_not_before`), `_closing`/`_deadline`/`_stopped`.
A round started by a full batch sends full batches only (partial ones wait for the interval); one started by
the interval, flush() or close() sends everything, then the spool's files (not while closing). A round ends at
the first failed attempt; if it was to send everything it goes on after the backoff. flush() returns when a
round that began after it ends, or at the first failed attempt (one in flight when it was called included).
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, List, Optional

from .queue import Batch
from .report import LanternError

if TYPE_CHECKING:
    from .options import Options
    from .queue import BoundedQueue
    from .report import Reporter
    from .spool import Spool
    from .transport import SendResult, Transport


class SenderLoop:
    kind: str
    _opts: "Options"
    _reporter: "Reporter"
    _spool: Optional["Spool"]
    _max_bytes: int
    _cond: threading.Condition
    _queue: "BoundedQueue"
    _in_flight: List[Batch]
    _asked: int
    _answered: int
    _resume: bool
    _failed_attempts: int
    _not_before: float
    _closing: bool
    _deadline: float
    _stopped: bool
    _fatal_busy: bool
    _thread: threading.Thread
    _transport: "Transport"

    def _send(self, batch: Batch, transport: "Transport") -> "SendResult":
        raise NotImplementedError

    def _settle(self, batch: Batch, result: "SendResult") -> bool:
        raise NotImplementedError

    def _drain_deferred(self) -> None:
        raise NotImplementedError

    def _next(self, everything: bool) -> Optional[Batch]:
        """The next batch: memory first, then (for `everything`, not while closing) the oldest spool file."""
        self._drain_deferred()
        with self._cond:
            if self._stopped or (self._closing and time.monotonic() >= self._deadline):
                return None
            if self._not_before > time.monotonic():
                return None
            if everything or self._queue.full_batch_ready(self._opts.max_batch_size):
                batch = self._queue.take(self._opts.max_batch_size, self._max_bytes)
                if batch is not None:
                    self._in_flight.append(batch)
                    return batch
            if not everything or self._closing or self._spool is None:
                return None
        try:
            found = self._spool.next(self.kind)
        except Exception as error:  # a spool problem never stops the sender: the memory buffer goes on
            self._reporter.error(LanternError("spool", f"could not read the spool directory: {error!r}",
                                              kind=self.kind))
            return None
        for name in found.unreadable:
            self._reporter.error(LanternError("spool", f"unreadable spool file {name} removed", kind=self.kind))
        for name in found.kept:
            self._reporter.error(LanternError("spool", f"could not read spool file {name}, kept for a later attempt",
                                              kind=self.kind))
        return found.batch

    def _run(self) -> None:
        try:
            self._loop()
        except Exception as error:  # not expected: the items stay queued for close()
            self._reporter.error(LanternError("internal", f"the {self.kind} sender stopped: {error!r}"))
        finally:
            with self._cond:
                self._cond.notify_all()

    def _loop(self) -> None:
        interval = self._opts.flush_interval
        next_tick = time.monotonic() + interval
        while True:
            with self._cond:
                while True:
                    now = time.monotonic()
                    if self._stopped or (self._closing and now >= self._deadline):
                        return
                    if self._closing and self._queue.waiting == 0:
                        if not self._fatal_busy:
                            return
                        # A fatal log being sent by another thread: if it fails, it is retried until the deadline.
                        self._cond.wait(max(0.001, self._deadline - now))
                        continue
                    if not self._closing and now >= next_tick:
                        self._asked += 1
                        next_tick = now + interval
                    if self._not_before > now:
                        until = min(self._not_before, self._deadline if self._closing else next_tick)
                        self._cond.wait(max(0.001, until - now))
                        continue
                    everything = self._closing or self._resume or self._asked > self._answered
                    if everything or self._queue.full_batch_ready(self._opts.max_batch_size):
                        break
                    self._cond.wait(max(0.001, next_tick - now))
                asks = self._asked
            failed = False
            batch = self._next(everything)
            while batch is not None:
                if self._settle(batch, self._send(batch, self._transport)):
                    failed = True
                    break
                batch = self._next(everything)
            with self._cond:
                # flush() callers hear of the end of the round, delivered or failed (the batch is kept).
                self._answered = max(self._answered, asks)
                self._resume = everything and failed
                self._cond.notify_all()

    def flush(self, timeout: Optional[float]) -> bool:
        """Sends everything now (a backoff wait is cut short); True when the buffer was sent or an attempt failed
        before `timeout`. An attempt in flight when it is called counts: if that one fails, flush() returns then
        (its ask stays, for the round after the backoff) instead of waiting the backoff out for a round of its own.
        """
        self._drain_deferred()
        with self._cond:
            if self._stopped:
                return True
            self._asked += 1
            ask, failed = self._asked, self._failed_attempts
            self._not_before = 0.0
            self._cond.notify_all()
            thread = self._thread
            return self._cond.wait_for(lambda: self._answered >= ask or self._failed_attempts > failed
                                       or self._stopped or not thread.is_alive(), timeout)
