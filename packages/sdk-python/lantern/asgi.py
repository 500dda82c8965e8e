"""ASGI middleware (FastAPI, Starlette, any ASGI 3 app): a trace and a root span `controller:<METHOD>` per HTTP
request. Each request runs in its own asyncio task (the server's), so the context variable set here is that
request's alone; tasks the application starts copy it and nest under the request.

The `lifespan` scope passes through to the application, and its end drains the client: when the application has
done its own shutdown (it sends `lifespan.shutdown.complete` or `.failed`), the client is closed as at interpreter
exit, in a worker thread, before the server is told. uvicorn ends a shutdown on SIGTERM by raising the signal
again with its default action, so `atexit` never runs there: this is the drain that does. An application that
ignores the scope (returns without receiving or sending) has the protocol answered for it; one that raises on it
is left to the server (uvicorn then goes on without lifespan, and the application must call `close()` itself)."""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable, Dict, List, MutableMapping, Optional, Tuple

from .context import ContextStore, new_id
from .spans import clean_url
from .traceparent import parse_incoming
from .wsgi import RequestTrace

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Dict[str, Any]]]
Send = Callable[[Dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def _headers(scope: Scope) -> Dict[str, str]:
    """`traceparent` and `tracestate`, repeated headers joined with a comma as HTTP allows."""
    found: Dict[str, List[str]] = {}
    raw: List[Tuple[bytes, bytes]] = scope.get("headers") or []
    for name, value in raw:
        key = bytes(name).decode("latin-1").lower()
        if key in ("traceparent", "tracestate"):
            found.setdefault(key, []).append(bytes(value).decode("latin-1"))
    return {k: ",".join(v) for k, v in found.items()}


class AsgiRequestTrace(RequestTrace):
    __slots__ = ()

    def __init__(self, scope: Scope) -> None:  # noqa: D107 - same fields as the WSGI one
        headers = _headers(scope)
        incoming = parse_incoming(headers.get("traceparent"), headers.get("tracestate"))
        path = clean_url(str(scope.get("path") or "/"))
        # RequestTrace's own __init__ reads a WSGI environ; the fields are set here instead.
        super(RequestTrace, self).__init__(incoming.trace_id if incoming else new_id(), path,
                                           incoming.tracestate if incoming else None,
                                           incoming.parent_span_id if incoming else None)
        self.method = str(scope.get("method") or "GET")
        self.status: Optional[int] = None
        self.error: Optional[BaseException] = None
        self.recorded = False
        self.finished = False
        self.disconnected = False


_SHUTDOWN_DONE = ("lifespan.shutdown.complete", "lifespan.shutdown.failed")


def _kind(message: Any) -> Any:
    try:
        return message.get("type")
    except Exception:
        return None


async def _in_thread(action: Callable[[], Any]) -> None:
    """Runs `action` (a blocking drain) without blocking the event loop; never raises, except cancellation."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # not asyncio (trio): block, at shutdown
        loop = None
    try:
        if loop is None:
            action()
        else:
            await loop.run_in_executor(None, action)
    except Exception:
        pass


def _lifespan(app: ASGIApp, drain: Callable[[], Any]) -> ASGIApp:
    async def lifespan_app(scope: Scope, receive: Receive, send: Send) -> None:
        state = {"used": False, "shutdown": False, "drained": False}

        async def drain_once() -> None:
            if not state["drained"]:
                state["drained"] = True
                await _in_thread(drain)

        async def lifespan_receive() -> Dict[str, Any]:
            state["used"] = True
            message = await receive()
            if _kind(message) == "lifespan.shutdown":
                state["shutdown"] = True
            return message

        async def lifespan_send(message: Dict[str, Any]) -> None:
            state["used"] = True
            if _kind(message) in _SHUTDOWN_DONE:
                await drain_once()  # after the application's own shutdown, before the server ends
            await send(message)

        try:
            await app(scope, lifespan_receive, lifespan_send)
        except Exception:
            if state["shutdown"]:
                await drain_once()  # its shutdown raised instead of answering: drained, and re-raised
            raise
        if state["shutdown"]:
            await drain_once()  # returned after the shutdown message without answering it
            return
        if state["used"]:
            return
        # The application ignored the scope (`if scope["type"] != "http": return`): answer the protocol for it,
        # as the server expects of an application that supports it, and drain at its shutdown. Should the server
        # object, this returns as the application did (never raising into it).
        try:
            while True:
                message = await receive()
                kind = _kind(message)
                if kind == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif kind == "lifespan.shutdown":
                    await drain_once()
                    await send({"type": "lifespan.shutdown.complete"})
                    return
                else:
                    return
        except Exception:
            return

    return lifespan_app


def asgi_middleware(app: ASGIApp, store: ContextStore, emit: Callable[[Dict[str, Any]], None],
                    capture_stack: bool, drain: Optional[Callable[[], Any]] = None) -> ASGIApp:
    lifespan_app = _lifespan(app, drain) if drain is not None else app

    async def traced_app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") == "lifespan":
            await lifespan_app(scope, receive, send)
            return
        if scope.get("type") != "http" or store.marker in scope:
            await app(scope, receive, send)
            return
        try:
            trace = AsgiRequestTrace(scope)
            scope[store.marker] = trace
        except Exception:
            await app(scope, receive, send)
            return

        async def traced_receive() -> Dict[str, Any]:
            message = await receive()
            if _kind(message) == "http.disconnect":
                trace.disconnected = True
            return message

        async def traced_send(message: Dict[str, Any]) -> None:
            try:
                kind = message.get("type")
                if kind == "http.response.start":
                    status = message.get("status")
                    trace.status = status if isinstance(status, int) and 100 <= status <= 599 else None
                elif kind == "http.response.body" and not message.get("more_body", False):
                    trace.finished = True
            except Exception:
                pass
            try:
                await send(message)
            except OSError:
                # ASGI: a send on a connection the client closed raises an OSError (the server's own subclass).
                trace.finished = False
                trace.disconnected = True
                raise

        parent = store.current()
        store.enter(trace)
        try:
            await app(scope, traced_receive, traced_send)
        except BaseException as error:
            trace.error = error
            raise
        finally:
            store.leave(trace, parent)
            trace.end(emit, capture_stack)

    return traced_app
