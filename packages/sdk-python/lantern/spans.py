"""Span records and the helpers `service()`, `controller()` and `call()`: context managers and decorators, on
sync and async functions alike."""

from __future__ import annotations

import functools
import inspect
import re
import threading
from typing import Any, Callable, Dict, List, Optional, Tuple, TypeVar, cast
from urllib.parse import urlsplit

from .context import ContextStore, OpenSpan, new_id
from .span_generators import wrap_async_generator, wrap_generator
from .sanitize import describe_error, safe_str, to_json, truncate
from .traceparent import outgoing_headers

F = TypeVar("F", bound=Callable[..., Any])
Emit = Callable[[Dict[str, Any]], None]


span_json = to_json  # a span record as sent

_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*://", re.IGNORECASE)
_QUERY_OR_FRAGMENT = re.compile(r"[?#]")
_LINE_BREAKS = re.compile(r"[\r\n\u2028\u2029]+")


def is_status(n: Any) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and 100 <= n <= 599


def clean_url(url: str) -> str:
    """Path without query string or fragment; for a full URL also without credentials."""
    if not url.startswith("/") and _SCHEME.match(url):
        try:
            parts = urlsplit(url)
            host = parts.hostname or ""
            if ":" in host:
                host = f"[{host}]"
            port = f":{parts.port}" if parts.port is not None else ""
            return truncate(f"{parts.scheme}://{host}{port}{parts.path}")
        except ValueError:
            pass
    cut = _QUERY_OR_FRAGMENT.search(url)
    return truncate(url if cut is None else url[:cut.start()])


def span_name(name: Any) -> str:
    """A name fit for `<type>:<name>`: one line, at most 1000 characters, never empty."""
    text = _LINE_BREAKS.sub(" ", truncate(safe_str(name), 1000))
    return truncate(text, 1000) or "anonymous"


def status_of(result: Any) -> Optional[int]:
    """A status found on what a call returned: `status` (http.client, urllib3, aiohttp) or `status_code`
    (requests, httpx)."""
    for attr in ("status", "status_code"):
        try:
            value = getattr(result, attr, None)
        except Exception:
            value = None
        if is_status(value):
            return cast(int, value)
    return None


class ChildSpan(OpenSpan):
    """A helper's span: its ids for the application (`trace_id`, `span_id`, `set_status()`)."""

    __slots__ = ("method", "url", "status", "done", "owner", "parent")

    def __init__(self, parent: Optional[OpenSpan], method: str, url: Optional[str], owner: "SpanScope") -> None:
        super().__init__(parent.trace_id if parent else new_id(), parent.path if parent else "",
                         parent.tracestate if parent else None, parent.span_id if parent else None)
        self.method = method
        self.url = url
        self.status: Optional[int] = None
        self.done = False
        self.owner = owner
        self.parent = parent

    def set_status(self, status: int) -> None:
        """Overrides the recorded status (default 200, 500 when an exception leaves the span)."""
        if is_status(status):
            self.status = status


class CallHeaders(Dict[str, str]):
    """What `with lantern.call(target) as headers:` gives: the headers to send (`traceparent`, `tracestate`),
    and the external span (`headers.span`, `headers.set_status(code)`)."""

    span: ChildSpan

    def set_status(self, status: int) -> None:
        self.span.set_status(status)


class SpanScope:
    """One helper: `with` / `async with` it, or decorate a function with it (each call is its own span)."""

    def __init__(self, store: ContextStore, emit: Emit, capture_stack: bool, method: str,
                 url: Optional[str] = None, is_call: bool = False) -> None:
        self._store, self._emit, self._capture_stack = store, emit, capture_stack
        self._method, self._url, self._is_call = method, url, is_call
        #: The spans of `with` / `async with` blocks of this scope not yet exited, with the entering thread.
        self._entered: List[Tuple[ChildSpan, int]] = []

    def _open(self) -> ChildSpan:
        span = ChildSpan(self._store.current(), self._method, self._url, self)
        self._store.enter(span)
        return span

    def _close(self, span: ChildSpan, error: Optional[BaseException], result: Any = None,
               leave: bool = True) -> None:
        """Records the span once; never changes what the application's code did."""
        try:
            if leave:
                self._store.leave(span, span.parent)
            if span.done:
                return
            span.done = True
            failed = error is not None
            status = span.status
            if status is None:
                status = 500 if failed else (status_of(result) if self._is_call else None) or 200
            url = span.path if span.url is None else clean_url(span.url)
            record = span.record_of(span.method, url, status)
            if error is not None:
                record.update(describe_error(error, self._capture_stack))
            self._emit(record)
        except Exception:
            pass

    def _handle(self, span: ChildSpan) -> Any:
        if not self._is_call:
            return span
        headers = CallHeaders(outgoing_headers(span.trace_id, span.span_id, span.tracestate))
        headers.span = span
        return headers

    def _on_current_chain(self, span: ChildSpan) -> bool:
        """True when `span` is current, or an ancestor of the current span."""
        current: Any = self._store.current()
        while current is not None:
            if current is span:
                return True
            current = getattr(current, "parent", None)
        return False

    def _own_entered(self) -> Optional[ChildSpan]:
        """The span of the `with` block being exited: the innermost of this scope's open ones on the current
        chain; else (left out of order, e.g. by a generator closed after its enclosing scope) the latest opened
        in this thread."""
        spans = [entry[0] for entry in self._entered]
        current: Any = self._store.current()
        while current is not None:
            if isinstance(current, ChildSpan) and current.owner is self and any(current is s for s in spans):
                return current
            current = getattr(current, "parent", None)
        me = threading.get_ident()
        for span, thread in reversed(self._entered):
            if thread == me:
                return span
        return None

    def _restore(self, span: ChildSpan) -> None:
        """Makes current again what was current when `span` was entered: with its token, else (entered in
        another context) by setting its parent."""
        token, span.token = span.token, None
        if token is not None:
            try:
                self._store.var.reset(token)
                return
            except (ValueError, RuntimeError):
                pass
        self._store.var.set(span.parent)

    def __enter__(self) -> Any:
        span = self._open()
        self._entered.append((span, threading.get_ident()))
        return self._handle(span)

    def __exit__(self, exc_type: Any, exc: Optional[BaseException], tb: Any) -> None:
        try:
            span = self._own_entered()
            if span is None:
                return
            for entry in self._entered:
                if entry[0] is span:
                    self._entered.remove(entry)
                    break
            # Left in order, or out of order with spans opened inside it still current (a suspended generator's):
            # the context goes back to what it was on entry. A span whose enclosing scope has restored the context
            # already is only recorded.
            if self._on_current_chain(span):
                self._restore(span)
            else:
                span.token = None
        except Exception:
            return
        self._close(span, exc, leave=False)

    async def __aenter__(self) -> Any:
        return self.__enter__()

    async def __aexit__(self, exc_type: Any, exc: Optional[BaseException], tb: Any) -> None:
        self.__exit__(exc_type, exc, tb)

    def __call__(self, fn: F) -> F:
        if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
            # Still a generator function (FastAPI's `yield` dependencies, inspect): span_generators.py.
            new_span = lambda: ChildSpan(self._store.current(), self._method, self._url, self)  # noqa: E731
            end = lambda span, error: self._close(span, error, leave=False)  # noqa: E731
            wrap = wrap_generator if inspect.isgeneratorfunction(fn) else wrap_async_generator
            return cast(F, wrap(fn, self._store, new_span, end))
        if inspect.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                span = self._open()
                try:
                    result = await fn(*args, **kwargs)
                except BaseException as error:
                    self._close(span, error)
                    raise
                self._close(span, None, result)
                return result
            return cast(F, run_async)

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            span = self._open()
            try:
                result = fn(*args, **kwargs)
            except BaseException as error:
                self._close(span, error)
                raise
            self._close(span, None, result)
            return result
        return cast(F, run)
