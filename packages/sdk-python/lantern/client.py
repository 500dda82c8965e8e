"""The client: `lantern = Lantern(api_key=..., ingest_url=...)`. Invalid options raise LanternOptionError here;
nothing after construction raises into the application."""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any, Callable, Dict, NamedTuple, Optional, Union

from . import lifecycle
from .asgi import ASGIApp, asgi_middleware
from .context import ContextStore, OpenSpan
from .exporter import KindExporter
from .logs import LanternHandler, LogApi
from .options import LanternOptionError, resolve_options
from .report import KINDS, DropInfo, LanternError, Reporter
from .spans import SpanScope, span_json, span_name
from .spool import Spool
from .stats import KindStats, LanternStats
from .traceparent import outgoing_headers
from .wsgi import RequestTrace, wsgi_middleware


class TraceIds(NamedTuple):
    trace_id: str
    span_id: str


class Lantern:
    """Traces, span helpers and logs of one application, delivered to Lantern in batches.

    Options not passed come from the `LANTERN_*` environment variables (durations there in milliseconds, as for
    the Node library), else from the defaults: see docs/sdk-python.md.
    """

    def __init__(self, api_key: Optional[str] = None, ingest_url: Optional[str] = None, *,
                 enabled: Optional[bool] = None, flush_interval: Optional[float] = None,
                 max_batch_size: Optional[int] = None, max_batch_bytes: Optional[int] = None,
                 max_queue_size: Optional[int] = None, gzip_threshold_bytes: Optional[int] = None,
                 request_timeout: Optional[float] = None, retry_base: Optional[float] = None,
                 retry_max: Optional[float] = None, retry_after_max: Optional[float] = None,
                 spool_dir: Optional[Union[str, "os.PathLike[str]"]] = None, spool_max_bytes: Optional[int] = None,
                 close_timeout: Optional[float] = None, flush_on_exit: Optional[bool] = None,
                 log_level: Optional[str] = None, capture_error_stack: Optional[bool] = None,
                 on_error: Optional[Callable[[LanternError], None]] = None,
                 on_drop: Optional[Callable[[DropInfo], None]] = None) -> None:
        given = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        self.options = opts = resolve_options(given)
        self._reporter = Reporter(opts.on_error, opts.on_drop)
        self._store = ContextStore()
        self._spool: Optional[Spool] = None
        if opts.enabled and opts.spool_dir is not None:
            try:
                self._spool = Spool(opts.spool_dir, opts.spool_max_bytes,
                                    lambda message: self._reporter.error(LanternError("spool", message)))
            except OSError as error:
                raise LanternOptionError(
                    f'lantern: option "spool_dir" must be a writable directory ({error})') from None
        self._exporters: Dict[str, KindExporter] = {}
        if opts.enabled:
            self._exporters = {k: KindExporter(k, opts, self._reporter, self._spool) for k in KINDS}
        self._state = "open"
        self._close_lock = threading.Lock()
        self._closed_stats: Optional[LanternStats] = None
        self._guard = lifecycle.ForkGuard(self._restart_after_fork)
        self.log = LogApi(self._store, opts.log_level, opts.capture_error_stack, self._record_log,
                          lambda e: self._internal("serialize", "a log could not be recorded", e))
        if self._exporters:
            lifecycle.register(self)

    # -- instrumentation ------------------------------------------------------------------------------------

    def wsgi(self, app: Callable[..., Any]) -> Callable[..., Any]:
        """WSGI middleware: `app.wsgi_app = lantern.wsgi(app.wsgi_app)` (Flask), or wrap Django's application."""
        return wsgi_middleware(app, self._store, self._emit_span, self.options.capture_error_stack,
                               self._emit_span_later)

    def asgi(self, app: ASGIApp) -> ASGIApp:
        """ASGI middleware: `app = lantern.asgi(app)` (FastAPI, Starlette). At the end of the `lifespan` scope
        (after the application's own shutdown) the client is closed as at interpreter exit: see docs."""
        return asgi_middleware(app, self._store, self._emit_span, self.options.capture_error_stack,
                               self._at_exit if self._exporters else None)

    def _scope(self, kind: str, name: Any, url: Optional[str] = None, is_call: bool = False) -> SpanScope:
        return SpanScope(self._store, self._emit_span, self.options.capture_error_stack,
                         f"{kind}:{span_name(name)}", url, is_call)

    def service(self, name: str) -> SpanScope:
        """A child span `service:<name>`: `with lantern.service("load") as span:` or `@lantern.service("load")`."""
        return self._scope("service", name)

    def controller(self, name: str) -> SpanScope:
        """A child span `controller:<name>`, used like `service()`."""
        return self._scope("controller", name)

    def call(self, target: str, url: Optional[str] = None) -> SpanScope:
        """A child span `external:<target>` for an outgoing call. `with lantern.call("payments") as headers:`
        gives the headers to send; a decorated function gets them from `lantern.trace_headers()`. `url` is
        recorded as requestURL (without query string, fragment or credentials); default: the target."""
        return self._scope("external", target, url if url is not None else str(target), True)

    def trace_headers(self) -> Dict[str, str]:
        """`traceparent` and `tracestate` naming the current span as parent ({} outside a trace)."""
        span = self._store.current()
        if span is None:
            return {}
        return outgoing_headers(span.trace_id, span.span_id, span.tracestate)

    def current_trace(self) -> Optional[TraceIds]:
        span = self._store.current()
        return TraceIds(span.trace_id, span.span_id) if span is not None else None

    def record_error(self, error: BaseException) -> None:
        """Records an error the framework handled itself (Flask's `got_request_exception`, a Django
        middleware's `process_exception`) on the request's root span."""
        span: Optional[OpenSpan] = self._store.current()
        while span is not None and not isinstance(span, RequestTrace):
            span = getattr(span, "parent", None)
        if span is not None and span.error is None:
            span.error = error

    def logging_handler(self, level: int = logging.NOTSET) -> logging.Handler:
        """A `logging.Handler` sending records to Lantern with the current trace."""
        return LanternHandler(self.log, level)

    # -- delivery -------------------------------------------------------------------------------------------

    def _internal(self, code: str, what: str, error: BaseException) -> None:
        self._reporter.error(LanternError(code, f"{what}: {error!r}"))

    def _emit_span(self, record: Dict[str, Any]) -> None:
        try:
            if self._exporters:
                self._guard.check()
                self._exporters["traces"].record(span_json(record))
        except Exception as error:
            self._internal("internal", "a span could not be recorded", error)

    def _emit_span_later(self, record: Dict[str, Any]) -> None:
        """`_emit_span()` for a finalizer: no lock taken (not the fork guard's, the exporter's nor the reporter's),
        nothing reported; the exporter records the span at its next record, flush or batch."""
        try:
            if self._exporters:
                self._exporters["traces"].record_later(span_json(record))
        except Exception:
            pass

    def _record_log(self, entry: str, fatal: bool) -> None:
        if not self._exporters:
            return
        self._guard.check()
        if fatal:
            self._exporters["logs"].send_now(entry)
        else:
            self._exporters["logs"].record(entry)

    def flush(self, timeout: Optional[float] = None) -> bool:
        """Sends what is buffered now (a backoff wait is cut short). True when both buffers were sent, or an
        attempt failed (the batch is kept and retried), within `timeout` seconds."""
        try:
            self._guard.check()
            deadline = None if timeout is None else time.monotonic() + timeout
            done = True
            for exporter in self._exporters.values():
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                done = exporter.flush(left) and done
            return done
        except Exception as error:
            self._internal("internal", "flush failed", error)
            return False

    def stats(self) -> LanternStats:
        if self._closed_stats is not None:
            return self._closed_stats
        try:
            return LanternStats(**{k: e.stats() for k, e in self._exporters.items()})
        except Exception:
            return LanternStats(KindStats(), KindStats())

    def close(self, timeout: Optional[float] = None, *, _reason: str = "close_timeout") -> LanternStats:
        """Sends what is left, retrying until `timeout` seconds (default `close_timeout`, 10 s) have passed; what
        is left then goes to the spool, else is dropped (`close_timeout`). Never raises; a second call returns the
        stats of the first."""
        with self._close_lock:
            if self._closed_stats is not None:
                return self._closed_stats
            try:
                self._guard.check()
                seconds = self.options.close_timeout if timeout is None else max(0.0, float(timeout))
                deadline = time.monotonic() + seconds
                for exporter in self._exporters.values():
                    exporter.begin_close(deadline)
                for exporter in self._exporters.values():
                    exporter.finish_close(deadline, _reason)
            except Exception as error:
                self._internal("internal", "close failed", error)
            finally:
                self._reporter.flush_drops()
                self._state = "closed"
                lifecycle.unregister(self)
            self._closed_stats = self.stats()
            return self._closed_stats

    def __enter__(self) -> "Lantern":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- lifecycle ------------------------------------------------------------------------------------------

    def _at_exit(self) -> None:
        if self.options.flush_on_exit:
            self.close()
        else:
            self.close(0, _reason="exit")

    def _after_fork(self) -> None:
        """In a forked child (os.register_at_fork): fresh locks, a new sender thread per kind, an empty buffer
        (items recorded before the fork are the parent's to send)."""
        self._guard.note_fork()
        self._restart_after_fork()

    def _restart_after_fork(self) -> None:
        self._close_lock = threading.Lock()
        self._reporter.after_fork()  # also for a closed client: what is recorded after close() is reported
        if self._state == "closed":
            return
        if self._spool is not None:
            self._spool.after_fork()
        for exporter in self._exporters.values():
            exporter.after_fork()
