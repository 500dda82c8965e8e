"""Delivery of one kind (spans or logs): the bounded queue, what an attempt's answer does to its batch,
overflow to the spool, fatal logs. The sender thread's loop is in sender.py, close() in closing.py.

The sender thread sends full batches at once and everything every `flush_interval`, on `flush()` and on
`close()`, one batch at a time. A failed batch goes back to the front of the queue with its key; nothing starts
before the backoff (or the server's Retry-After) has passed. Every call from the application takes the lock for
a moment only: the network is used outside it.
"""

from __future__ import annotations

import collections
import threading
import time
from typing import Dict, List, Optional

from .options import Options
from .queue import Batch, BoundedQueue, new_batch
from .report import LanternError, Reporter
from .retry import retry_delay
from .sanitize import now_iso
from .closing import Closing
from .sender import SenderLoop
from .spool import Spool
from .stats import KindStats, account_outcome, report_failure, report_outcome
from .transport import SendResult, Transport

#: Room kept for the envelope `{"timestamp":...,"traces":[...]}` when a batch is measured.
ENVELOPE_BYTES = 64


class KindExporter(SenderLoop, Closing):
    def __init__(self, kind: str, options: Options, reporter: Reporter, spool: Optional[Spool]) -> None:
        self.kind = kind
        self._opts = options
        self._reporter = reporter
        self._spool = spool
        self._max_bytes = options.max_batch_bytes - ENVELOPE_BYTES
        self._reset()

    def _reset(self) -> None:
        """Fresh state: at creation, and in a forked child (the parent's items are the parent's to send)."""
        o = self._opts
        self._cond = threading.Condition(threading.Lock())
        #: Items recorded by finalizers (record_later()): a finalizer may run in a thread that holds `_cond` (the
        #: cyclic GC runs wherever something allocates), so it never takes a lock; drained by the next record(),
        #: stats(), flush(), close() and by the sender before each batch.
        self._deferred: "collections.deque[str]" = collections.deque()
        self._queue = BoundedQueue(o.max_queue_size)
        self._counts: Dict[str, int] = dict(sent=0, dropped=0, retried=0, failed=0, rejected=0, spooled=0)
        self._overflow: List[str] = []
        self._overflow_bytes = 0
        self._in_flight: List[Batch] = []
        self._asked = 1 if self._spool is not None and self._spool.pending(self.kind) > 0 else 0
        self._answered = 0
        #: A round that was to send everything failed: after the backoff it goes on with everything.
        self._resume = False
        #: Failed attempts (each begins a backoff): a waiting flush() returns at the next one.
        self._failed_attempts = 0
        self._failures = 0
        self._not_before = 0.0
        self._closing = False
        self._deadline = 0.0
        self._stopped = False
        self._transport = Transport(o.ingest_url, o.api_key, o.request_timeout, o.gzip_threshold_bytes)
        self._fatal_transport = Transport(o.ingest_url, o.api_key, o.request_timeout, o.gzip_threshold_bytes)
        #: A fatal log is being sent in its caller's thread (one at a time: the others wait in the queue), which is
        #: `_fatal_thread` (close() called from that very thread, by a signal handler, does not wait for it).
        self._fatal_busy = False
        self._fatal_thread: Optional[int] = None
        self._thread = threading.Thread(target=self._run, name=f"lantern-{self.kind}", daemon=True)
        self._thread.start()

    after_fork = _reset

    def record_later(self, item: str) -> None:
        """record() for a finalizer: takes no lock (deque.append is atomic), the item waits in `_deferred`."""
        self._deferred.append(item)

    def _drain_deferred(self) -> None:
        """Records what finalizers left; never called with `_cond` held."""
        while True:
            try:
                item = self._deferred.popleft()
            except IndexError:
                return
            self._record(item)

    def drop(self, count: int, reason: str, now: bool = False) -> None:
        with self._cond:
            self._counts["dropped"] += count
        self._reporter.drop(self.kind, count, reason, now)

    def stats(self) -> KindStats:
        self._drain_deferred()
        with self._cond:
            queued = self._queue.waiting + len(self._overflow)
            return KindStats(queued=queued, in_flight=self._queue.in_flight, **self._counts,
                             spool_pending=self._spool.pending(self.kind) if self._spool else 0)

    # -- recording ------------------------------------------------------------------------------------------

    def record(self, item: str) -> None:
        """Buffers one serialised item; a full batch wakes the sender. Overflow goes to the spool, else drops."""
        self._drain_deferred()
        self._record(item)

    def _record(self, item: str) -> None:
        size = len(item) + 1
        if size > self._max_bytes:
            return self.drop(1, "too_large")
        gathered: Optional[Batch] = None
        with self._cond:
            if self._stopped:
                reason = "closed"
            elif self._queue.push(item):
                if self._queue.waiting >= self._opts.max_batch_size:
                    self._cond.notify_all()
                return
            elif self._spool is None:
                reason = "queue_full"
            else:
                self._overflow.append(item)
                self._overflow_bytes += size
                if len(self._overflow) < self._opts.max_batch_size and self._overflow_bytes < self._max_bytes:
                    return
                gathered = new_batch(self._overflow, self._overflow_bytes)
                self._overflow, self._overflow_bytes = [], 0
        if gathered is None:
            return self.drop(1, reason)
        self._to_spool(gathered, "spool_error")

    def _to_spool(self, batch: Batch, otherwise: str) -> None:
        """Writes a batch to the spool (in the caller's thread), else counts it as dropped for `otherwise`."""
        result, name = self._spool.write(self.kind, batch) if self._spool is not None else (otherwise, None)
        n = len(batch.items)
        if result == "ok":
            with self._cond:
                self._counts["spooled"] += n
                batch.spool_copy = name
                delivered = batch.delivered  # an abandoned request's answer came while it was being written
                self._cond.notify_all()
            if delivered and name is not None and self._spool is not None:
                self._spool.remove(self.kind, name)
            return
        if result == "error":
            self._reporter.error(LanternError("spool", f"could not write {n} {self.kind} items to the spool "
                                              f"directory {self._spool.dir if self._spool else ''}",
                                              kind=self.kind, count=n))
        self.drop(n, {"full": "spool_full", "error": "spool_error"}.get(result, otherwise), now=True)

    def send_now(self, item: str) -> None:
        """A fatal log: its own request at once, in the caller's thread; if that fails it waits at the front of
        the queue for the retries. While another fatal log is being sent, or during a backoff, it goes to the
        front of the queue at once (no caller waits for another's request, nor sends into a backoff)."""
        batch = new_batch([item], len(item) + 1)
        with self._cond:
            if self._stopped:
                action = "closed"
            elif len(item) + 1 > self._max_bytes:
                action = "record"
            elif self._fatal_busy or self._not_before > time.monotonic():
                action = "queued" if self._queue.push_front(batch) else "record"
                self._cond.notify_all()
            elif self._queue.reserve(batch):
                self._in_flight.append(batch)
                self._fatal_busy, self._fatal_thread = True, threading.get_ident()
                action = "send"
            else:
                action = "record"
        if action == "closed":
            return self.drop(1, "closed")
        if action == "record":
            return self.record(item)
        if action == "send":
            result = SendResult("retry", None, "the fatal log's request was interrupted")
            try:
                result = self._send(batch, self._fatal_transport)
            finally:
                self._settle(batch, result, fatal=True)

    # -- sending --------------------------------------------------------------------------------------------

    def _send(self, batch: Batch, transport: Transport) -> SendResult:
        if batch.sent_at is None:
            batch.sent_at = now_iso()
        body = f'{{"timestamp":"{batch.sent_at}","{self.kind}":[{",".join(batch.items)}]}}'
        return transport.send(f"/ingest/{self.kind}", body, batch.key)

    def _settle(self, batch: Batch, result: SendResult, fatal: bool = False) -> bool:
        """What an attempt's outcome does to its batch; True when it is to be retried. Only an answer resets the
        backoff; a failed attempt (a fatal log's too) counts as a failure."""
        n = len(batch.items)
        retry = result.outcome == "retry"
        with self._cond:
            if fatal:
                self._fatal_busy = False
            if batch.abandoned:  # close() spooled or dropped it already, and counted it there
                batch.delivered = not retry
            else:
                self._account(batch, result, retry, n)
            self._cond.notify_all()
        if batch.abandoned:
            if batch.delivered and batch.spool_copy is not None and self._spool is not None:
                self._spool.remove(self.kind, batch.spool_copy)
            return retry
        if retry:
            report_failure(self._reporter, self.kind, result, n, True)
            return True
        if batch.file is not None and self._spool is not None:
            self._spool.remove(self.kind, batch.file)
        report_outcome(self._reporter, self.kind, result, n)
        return False

    def _account(self, batch: Batch, result: SendResult, retry: bool, n: int) -> None:
        """_settle()'s counts, queue and backoff, under `_cond`."""
        if batch in self._in_flight:
            self._in_flight.remove(batch)
            if retry:
                self._queue.put_back(batch)
            else:
                self._queue.settle(batch)
        if retry:
            self._counts["retried"] += 1
            self._failures += 1
            self._failed_attempts += 1
            delay = retry_delay(self._failures, result.retry_after, self._opts.retry_base,
                                self._opts.retry_max, self._opts.retry_after_max)
            self._not_before = max(self._not_before, time.monotonic() + delay)
        else:
            self._failures = 0
            self._not_before = 0.0
            account_outcome(self._counts, result, n)
