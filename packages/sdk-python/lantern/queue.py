"""The bounded in-memory buffer of one kind (spans or logs).

The bound counts the batches being sent too, so a failed batch can always go back to the front without
exceeding it. A batch that goes back keeps its items, its Idempotency-Key and its envelope timestamp: a retry is
byte for byte the same request, which the service deduplicates by key. Not thread-safe: the exporter holds its
lock around every call.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Deque, List, Optional

from .context import new_id


@dataclass(eq=False)
class Batch:
    key: str
    items: List[str]
    bytes: int
    #: The envelope's flush time, fixed at the first attempt so that every retry is the same request.
    sent_at: Optional[str] = None
    #: Order in which batches were taken from the queue; batches made elsewhere (a fatal log) have none.
    seq: int = -1
    #: The spool file it was read from, if any.
    file: Optional[str] = field(default=None, repr=False)
    #: close() took it while its request had not ended (and spooled it as `spool_copy`, else dropped it): a late
    #: answer changes no count; a late delivery (`delivered`) deletes the spool copy, so it is not sent again.
    abandoned: bool = field(default=False, repr=False)
    spool_copy: Optional[str] = field(default=None, repr=False)
    delivered: bool = field(default=False, repr=False)


def new_batch(items: List[str], size: int, seq: int = -1) -> Batch:
    return Batch(key=new_id(), items=items, bytes=size, seq=seq)


class BoundedQueue:
    def __init__(self, max_items: int) -> None:
        self.max_items = max_items
        self._items: Deque[str] = deque()
        self._front: List[Batch] = []
        self._front_count = 0
        self._taken = 0
        self._seq = 0

    @property
    def waiting(self) -> int:
        """Items waiting (batches put back included), not counting those being sent."""
        return len(self._items) + self._front_count

    @property
    def in_flight(self) -> int:
        return self._taken

    @property
    def full(self) -> bool:
        return self.waiting + self._taken >= self.max_items

    def full_batch_ready(self, max_items: int) -> bool:
        """A batch put back, or at least `max_items` items, is waiting."""
        return bool(self._front) or len(self._items) >= max_items

    def push(self, item: str) -> bool:
        """Adds an item at the back; False when the bound is reached (the caller spools or counts it)."""
        if self.full:
            return False
        self._items.append(item)
        return True

    def take(self, max_items: int, max_bytes: int) -> Optional[Batch]:
        """The next batch: a batch put back first, else up to `max_items` items and `max_bytes` bytes."""
        if self._front:
            again = self._front.pop(0)
            self._front_count -= len(again.items)
            self._taken += len(again.items)
            return again
        if not self._items:
            return None
        items: List[str] = []
        size = 0
        while self._items and len(items) < max_items:
            item_size = len(self._items[0]) + 1
            if items and size + item_size > max_bytes:
                break
            items.append(self._items.popleft())
            size += item_size
        batch = new_batch(items, size, self._seq)
        self._seq += 1
        self._taken += len(items)
        return batch

    def reserve(self, batch: Batch) -> bool:
        """Counts a batch made outside the queue (a fatal log sent at once) as in flight; False when full."""
        if self.full:
            return False
        self._taken += len(batch.items)
        return True

    def push_front(self, batch: Batch) -> bool:
        """A batch made outside the queue (a fatal log that is not sent at once) at the front, after the others
        made outside it and before the rest; False when full."""
        if self.full:
            return False
        at = 0
        while at < len(self._front) and self._front[at].seq < 0:
            at += 1
        self._front.insert(at, batch)
        self._front_count += len(batch.items)
        return True

    def settle(self, batch: Batch) -> None:
        """The batch was delivered or given up."""
        self._taken -= len(batch.items)

    def put_back(self, batch: Batch) -> None:
        """The batch failed: back to the front (before batches taken after it), same items, same key."""
        self._taken -= len(batch.items)
        at = 0
        while at < len(self._front) and self._front[at].seq < batch.seq:
            at += 1
        self._front.insert(at, batch)
        self._front_count += len(batch.items)

    def drain(self, max_items: int, max_bytes: int) -> List[Batch]:
        """Everything waiting, as batches (those put back keep their keys); the queue is left empty."""
        out: List[Batch] = []
        batch = self.take(max_items, max_bytes)
        while batch is not None:
            self.settle(batch)
            out.append(batch)
            batch = self.take(max_items, max_bytes)
        return out
