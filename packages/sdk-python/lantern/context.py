"""The current trace and span, per thread and per asyncio task, in a `contextvars.ContextVar`.

Each client has its own variable, so two clients in one process never see each other's traces. A thread starts
with an empty context and an asyncio task with a copy of its creator's, so requests served on threads or tasks
stay apart, and work a request starts (a task, `contextvars.copy_context().run`) nests under it.
"""

from __future__ import annotations

import contextvars
import itertools
import os
import time
from typing import Any, Dict, Optional

from .sanitize import iso_time

_ids = itertools.count()


#: The variant nibble of an RFC 4122 UUID (10xx) for each random hex digit.
_VARIANT = {c: "89ab"[int(c, 16) & 3] for c in "0123456789abcdef"}


def new_id() -> str:
    """A random UUID, version 4 as uuid.uuid4() and Node's randomUUID() make it, at less than half the cost (no
    UUID object). From os.urandom: unique also in processes forked without Python's hooks (uWSGI)."""
    h = os.urandom(16).hex()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:]}"


class OpenSpan:
    """A span being timed: its ids, the path its children inherit, and its start. It is also the value of the
    context variable while it is current, so the children made meanwhile get it as their parent."""

    __slots__ = ("trace_id", "span_id", "parent_span_id", "path", "tracestate", "started_at", "start", "token")

    def __init__(self, trace_id: str, path: str, tracestate: Optional[str], parent_span_id: Optional[str]) -> None:
        self.trace_id = trace_id
        self.span_id = new_id()
        self.parent_span_id = parent_span_id
        #: Path of the request it belongs to (children inherit it as requestURL); '' outside a request.
        self.path = path
        #: Other vendors' tracestate members from the incoming request, passed on by call().
        self.tracestate = tracestate
        self.started_at = time.time()
        self.start = time.perf_counter()
        self.token: Optional["contextvars.Token[Optional[OpenSpan]]"] = None

    def record_of(self, request_method: str, request_url: str, response_status: int) -> Dict[str, Any]:
        """The span as sent, ended now (the seed's Span fields, in the Node library's order)."""
        return {
            "timestamp": iso_time(self.started_at),
            "requestMethod": request_method,
            "requestURL": request_url,
            "responseStatus": response_status,
            "traceId": self.trace_id,
            "spanId": self.span_id,
            "parentSpanId": self.parent_span_id,
            "durationMs": max(0, round((time.perf_counter() - self.start) * 1000)),
        }


class ContextStore:
    """One ContextVar per client."""

    def __init__(self) -> None:
        self.var: contextvars.ContextVar[Optional[OpenSpan]] = contextvars.ContextVar(
            f"lantern_span_{next(_ids)}", default=None)
        #: The WSGI environ / ASGI scope key marking a request this client traces already: one per client, so
        #: two clients' middlewares nested each trace the request, and one client's installed twice traces it once.
        self.marker = f"lantern.trace.{self.var.name}"

    def current(self) -> Optional[OpenSpan]:
        return self.var.get()

    def enter(self, span: OpenSpan) -> None:
        """Makes `span` current in this thread or task until `leave(span)`."""
        span.token = self.var.set(span)

    def leave(self, span: OpenSpan, parent: Optional[OpenSpan]) -> None:
        """Restores what was current before `enter(span)` (also when left in another context)."""
        token, span.token = span.token, None
        try:
            if token is not None:
                self.var.reset(token)
                return
        except (ValueError, RuntimeError):
            pass  # entered in another context (e.g. a generator resumed elsewhere), or the token used already
        if self.var.get() is span:
            self.var.set(parent)
