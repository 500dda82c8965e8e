"""WSGI middleware (Flask, Django, any PEP 3333 app): a trace and a root span `controller:<METHOD>` per request.

The request's span is current while the application runs and while the server iterates the response body; the
root span is recorded when the body has been iterated to its end, else when the server closes it (or drops it),
or when the application raises.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, cast

from .context import ContextStore, OpenSpan, new_id
from .sanitize import describe_error
from .spans import clean_url
from .traceparent import parse_incoming

ABORTED_STATUS = 499


class RequestTrace(OpenSpan):
    """The request's trace: its root span, and what the response did."""

    __slots__ = ("method", "status", "error", "recorded", "finished", "disconnected")

    def __init__(self, environ: Dict[str, Any]) -> None:
        incoming = parse_incoming(environ.get("HTTP_TRACEPARENT"), environ.get("HTTP_TRACESTATE"))
        path = (environ.get("SCRIPT_NAME") or "") + (environ.get("PATH_INFO") or "") or "/"
        super().__init__(incoming.trace_id if incoming else new_id(), clean_url(path),
                         incoming.tracestate if incoming else None, incoming.parent_span_id if incoming else None)
        self.method = str(environ.get("REQUEST_METHOD") or "GET")
        self.status: Optional[int] = None
        self.error: Optional[BaseException] = None
        self.recorded = False
        self.finished = False
        #: The client went away before the response was complete (ASGI: `http.disconnect`, or a failed send).
        self.disconnected = False

    def end(self, emit: Callable[[Dict[str, Any]], None], capture_stack: bool) -> None:
        """Records the root span once: the status sent; 500 when the app raised before a complete response;
        499 with `aborted` when the body was not sent to its end (the client went away: then what the app raised
        because of it is not an application error)."""
        if self.recorded:
            return
        self.recorded = True
        try:
            failed = self.error is not None and not (self.disconnected and not self.finished)
            if self.finished and self.status is not None:
                status = self.status
            else:
                status = 500 if failed or (self.finished and self.status is None) else ABORTED_STATUS
            record = self.record_of(f"controller:{self.method}", self.path, status)
            if status == ABORTED_STATUS and not failed:
                record["aborted"] = True
            if failed and self.error is not None:
                record.update(describe_error(self.error, capture_stack))
            emit(record)
        except Exception:
            pass


def _status_code(status: Any) -> Optional[int]:
    try:
        code = int(str(status).split(" ", 1)[0])
    except (TypeError, ValueError):
        return None
    return code if 100 <= code <= 599 else None


class TracedBody:
    """The response body: iterated in the request's context; `close()` records the root span."""

    def __init__(self, body: Iterable[bytes], trace: RequestTrace, store: ContextStore,
                 emit: Callable[[Dict[str, Any]], None], capture_stack: bool,
                 emit_later: Optional[Callable[[Dict[str, Any]], None]] = None) -> None:
        self._body, self._trace, self._store = body, trace, store
        self._emit, self._capture_stack = emit, capture_stack
        self._emit_later = emit_later if emit_later is not None else emit
        self._iterator: Optional[Iterator[bytes]] = None

    def __iter__(self) -> "TracedBody":
        return self

    def __next__(self) -> bytes:
        trace = self._trace
        parent = self._store.current()
        self._store.enter(trace)
        try:
            if self._iterator is None:
                self._iterator = iter(self._body)
            return next(self._iterator)
        except StopIteration:
            # The whole body was handed to the server: recorded now, not only at close(), which some servers
            # skip when the client has gone by then (werkzeug's drain of the socket raises before it).
            trace.finished = True
            trace.end(self._emit, self._capture_stack)
            raise
        except BaseException as error:
            if trace.error is None:
                trace.error = error
            raise
        finally:
            self._store.leave(trace, parent)

    def __del__(self) -> None:
        # Never iterated to the end nor closed (a server that dropped the response): recorded as aborted. A
        # finalizer may run in any thread, also one holding the exporter's or the reporter's lock (the cyclic GC
        # runs where something allocates): it takes no lock, the span waits for the next record or batch.
        try:
            self._trace.end(self._emit_later, self._capture_stack)
        except Exception:
            pass

    def close(self) -> None:
        try:
            close = getattr(self._body, "close", None)
            if close is not None:
                parent = self._store.current()
                self._store.enter(self._trace)
                try:
                    close()
                finally:
                    self._store.leave(self._trace, parent)
        finally:
            self._trace.end(self._emit, self._capture_stack)


def wsgi_middleware(app: Callable[..., Any], store: ContextStore, emit: Callable[[Dict[str, Any]], None],
                    capture_stack: bool,
                    emit_later: Optional[Callable[[Dict[str, Any]], None]] = None) -> Callable[..., Any]:
    """`emit_later`: how a finalizer records the span, taking no lock (default: `emit`)."""
    def traced_app(environ: Dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if store.marker in environ:  # traced already by this client (its middleware installed twice)
            return cast(Iterable[bytes], app(environ, start_response))
        try:
            trace = RequestTrace(environ)
            environ[store.marker] = trace
        except Exception:
            return cast(Iterable[bytes], app(environ, start_response))  # a request that cannot be read: untraced

        def traced_start_response(status: str, headers: List[Any], exc_info: Any = None) -> Any:
            trace.status = _status_code(status)
            if exc_info is None:
                return start_response(status, headers)
            return start_response(status, headers, exc_info)

        parent = store.current()
        store.enter(trace)
        try:
            body = app(environ, traced_start_response)
        except BaseException as error:
            trace.error = error
            trace.end(emit, capture_stack)
            raise
        finally:
            store.leave(trace, parent)
        return TracedBody(body, trace, store, emit, capture_stack, emit_later)

    return traced_app
