"""close() of one kind, in two steps (every kind's first, then every kind's second, so that both drain at once).

A mixin of KindExporter (exporter.py), which owns the state: the sender thread and its transport, the fatal log's
transport and `_fatal_busy`, the queue and the batches in flight, the overflow bound for the spool.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, List, Optional

from .queue import Batch, new_batch

if TYPE_CHECKING:
    from .options import Options
    from .queue import BoundedQueue
    from .spool import Spool
    from .transport import Transport


class Closing:
    kind: str
    _opts: "Options"
    _spool: Optional["Spool"]
    _max_bytes: int
    _cond: threading.Condition
    _queue: "BoundedQueue"
    _in_flight: List[Batch]
    _overflow: List[str]
    _overflow_bytes: int
    _failures: int
    _not_before: float
    _closing: bool
    _deadline: float
    _stopped: bool
    _fatal_busy: bool
    _fatal_thread: Optional[int]
    _thread: threading.Thread
    _transport: "Transport"
    _fatal_transport: "Transport"

    def _drain_deferred(self) -> None:
        raise NotImplementedError

    def _to_spool(self, batch: Batch, otherwise: str) -> None:
        raise NotImplementedError

    def begin_close(self, deadline: float) -> None:
        """close(), first step: from now on the sender sends everything, retrying from the backoff's base, until
        `deadline` (a time.monotonic() value)."""
        self._drain_deferred()
        with self._cond:
            if self._stopped:
                return
            self._closing, self._deadline = True, deadline
            self._failures, self._not_before = 0, 0.0
            self._cond.notify_all()

    def finish_close(self, deadline: float, reason: str = "close_timeout") -> None:
        """close(), second step: waits for the sender and for a fatal log being sent by another thread until
        `deadline`, then aborts the requests still in flight (their batches come back); what is left goes to the
        spool, else is dropped for `reason`. Called from the thread that is itself sending a fatal log (a signal
        handler that ran inside log.fatal), it does not wait for that send, which cannot end before it returns."""
        me = threading.get_ident()
        self._thread.join(max(0.0, deadline - time.monotonic()))
        self._drain_deferred()
        with self._cond:
            self._cond.wait_for(lambda: not self._fatal_busy or self._fatal_thread == me,
                                max(0.0, deadline - time.monotonic()))
            self._stopped = True
            self._cond.notify_all()
        if self._thread.is_alive():
            self._transport.abort()
            self._thread.join(2.0)
        with self._cond:
            fatal_busy, own = self._fatal_busy, self._fatal_thread == me
        if fatal_busy:
            self._fatal_transport.abort()
            if not own:
                with self._cond:
                    self._cond.wait_for(lambda: not self._fatal_busy, 2.0)
        if self._spool is not None:
            self._spool.release(self.kind)
        with self._cond:
            left = self._queue.drain(self._opts.max_batch_size, self._max_bytes)
            for batch in self._in_flight:
                if batch.file is None:  # a request that has not ended: a late answer must not count it again
                    batch.abandoned = True
                    left.append(batch)
            self._in_flight = []
            if self._overflow:
                left.append(new_batch(self._overflow, self._overflow_bytes))
                self._overflow, self._overflow_bytes = [], 0
        for batch in left:
            self._to_spool(batch, reason)
        self._transport.close()
        self._fatal_transport.close()
