"""How the library tells the application about its own problems, without ever raising into it."""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

KINDS = ("traces", "logs")

# Error codes: network, http_status, rejected_items, bad_response, dropped, spool, serialize, internal.
# Drop reasons: queue_full, spool_full, spool_error, closed, close_timeout, exit, too_large.

DROP_REPORT_EVERY = 1.0
WARN_EVERY = 30.0


class LanternError(Exception):
    """A problem of the library itself, handed to `on_error` (never raised into the application)."""

    def __init__(self, code: str, message: str, kind: Optional[str] = None, status: Optional[int] = None,
                 count: Optional[int] = None, retrying: bool = False, details: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.kind = kind
        self.status = status
        self.count = count
        self.retrying = retrying
        self.details = details

    def __repr__(self) -> str:
        return f"LanternError({self.code!r}, {self.message!r})"


@dataclass(frozen=True)
class DropInfo:
    """Items that were not kept, handed to `on_drop`."""

    kind: str
    count: int
    reason: str


def noun(kind: str, n: int) -> str:
    return f"{n} {'span' if kind == 'traces' else 'log'}{'' if n == 1 else 's'}"


class RateLimitedWarn:
    """The default `on_error`: one line on stderr at most every 30 s, with the number held back."""

    def __init__(self) -> None:
        self._last = -1e18
        self._held = 0
        self._lock = threading.Lock()

    def after_fork(self) -> None:
        """In a forked child: a lock that another thread of the parent held at the fork would never be released."""
        self._lock = threading.Lock()

    def __call__(self, error: LanternError) -> None:
        with self._lock:
            now = time.monotonic()
            if now - self._last < WARN_EVERY:
                self._held += 1
                return
            self._last = now
            held, self._held = self._held, 0
        more = f" ({held} similar message{'' if held == 1 else 's'} held back)" if held else ""
        try:
            sys.stderr.write(f"[lantern] {error.message}{more}\n")
        except Exception:
            pass


class Reporter:
    """Calls the hooks. Drops are summed per kind and reason: at most one report per second for each."""

    def __init__(self, on_error: Optional[Callable[[LanternError], None]],
                 on_drop: Optional[Callable[[DropInfo], None]]) -> None:
        self._fallback = RateLimitedWarn()
        self._on_error = on_error or self._fallback
        self._on_drop = on_drop
        self._lock = threading.Lock()
        # (kind, reason) -> [count held, time of last report, timer pending]
        self._tallies: Dict[Tuple[str, str], List[Any]] = {}

    def after_fork(self) -> None:
        """In a forked child (lifecycle.py's hook): fresh locks, its own fallback warning's included."""
        self._lock = threading.Lock()
        self._tallies = {}
        self._fallback.after_fork()

    def error(self, error: LanternError) -> None:
        try:
            self._on_error(error)
        except Exception as hook_error:
            self._fallback(LanternError("internal", f"on_error hook raised: {hook_error!r}"))

    def _deliver(self, drop: DropInfo) -> None:
        if self._on_drop is None:
            self.error(LanternError("dropped", f"{noun(drop.kind, drop.count)} dropped ({drop.reason})",
                                    kind=drop.kind, count=drop.count))
            return
        try:
            self._on_drop(drop)
        except Exception as hook_error:
            self.error(LanternError("internal", f"on_drop hook raised: {hook_error!r}"))

    def drop(self, kind: str, count: int, reason: str, now: bool = False) -> None:
        """Counts a drop; reported at once after a quiet second (or `now`), else summed into the next report."""
        if count <= 0:
            return
        key = (kind, reason)
        with self._lock:
            tally = self._tallies.setdefault(key, [0, -1e18, False])
            tally[0] += count
            wait = tally[1] + DROP_REPORT_EVERY - time.monotonic()
            if not now and (tally[2] or wait > 0):
                if not tally[2]:
                    tally[2] = True
                    timer = threading.Timer(wait, self._report, args=(key,))
                    timer.daemon = True
                    timer.start()
                return
        self._report(key)

    def _report(self, key: Tuple[str, str]) -> None:
        with self._lock:
            tally = self._tallies.get(key)
            if tally is None or tally[0] == 0:
                if tally is not None:
                    tally[2] = False
                return
            count, tally[0], tally[1], tally[2] = tally[0], 0, time.monotonic(), False
        self._deliver(DropInfo(kind=key[0], count=count, reason=key[1]))

    def flush_drops(self) -> None:
        """Reports every drop held back now (close(), interpreter exit)."""
        for key in list(self._tallies):
            self._report(key)
