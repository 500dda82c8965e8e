"""Interpreter exit and fork: one `atexit` handler and one `os.register_at_fork` hook serve every live client.

At exit each open client is closed (with its `close_timeout`, or at once when `flush_on_exit` is off: then what is
in memory is spooled or counted as dropped, `exit`). In a forked child (gunicorn, uWSGI, multiprocessing with
fork) each client starts its sender threads again. A fork made outside Python (uWSGI forks in C, without the
`register_at_fork` hooks) is noticed by the process id changing, the next time the client records something.
"""

from __future__ import annotations

import atexit
import os
import threading
import weakref
from typing import Any, Callable, List

_clients: "weakref.WeakSet[Any]" = weakref.WeakSet()
_lock = threading.Lock()
_installed = False


def _each(action: Callable[[Any], None]) -> None:
    for client in list(_clients):
        try:
            action(client)
        except Exception:
            pass  # never raise into the interpreter's exit or the child's start


def _at_exit() -> None:
    _each(lambda client: client._at_exit())


def _after_fork_in_child() -> None:
    global _lock
    _lock = threading.Lock()
    _each(lambda client: client._after_fork())


def register(client: Any) -> None:
    global _installed
    with _lock:
        _clients.add(client)
        if not _installed:
            _installed = True
            atexit.register(_at_exit)
            if hasattr(os, "register_at_fork"):
                os.register_at_fork(after_in_child=_after_fork_in_child)


def unregister(client: Any) -> None:
    with _lock:
        _clients.discard(client)


def live() -> List[Any]:
    return list(_clients)


class ForkGuard:
    """The process id a client's threads belong to; `check()` runs `restart` once in a new process."""

    def __init__(self, restart: Callable[[], None]) -> None:
        self._pid = os.getpid()
        self._restart = restart

    def moved(self) -> bool:
        return os.getpid() != self._pid

    def check(self) -> None:
        if os.getpid() == self._pid:
            return
        with _lock:
            if os.getpid() != self._pid:
                self.note_fork()
                self._restart()

    def note_fork(self) -> None:
        self._pid = os.getpid()
