"""Decorated generator functions stay generator functions (sync and async): the span lasts from the call to the
generator's end, and is current while the generator runs, not while it is suspended (the consumer's code between
steps is not part of it). send, throw and close are passed on; the return value passes through."""

from __future__ import annotations

import functools
from typing import Any, AsyncGenerator, Callable, Generator, Optional

from .context import ContextStore, OpenSpan

NewSpan = Callable[[], OpenSpan]
End = Callable[[OpenSpan, Optional[BaseException]], None]


def _step(store: ContextStore, span: OpenSpan, action: Callable[[], Any]) -> Any:
    """One step of a decorated generator, with its span current only meanwhile."""
    parent = store.current()
    store.enter(span)
    try:
        return action()
    finally:
        store.leave(span, parent)


async def _astep(store: ContextStore, span: OpenSpan, action: Callable[[], Any]) -> Any:
    parent = store.current()
    store.enter(span)
    try:
        return await action()
    finally:
        store.leave(span, parent)


def wrap_generator(fn: Callable[..., Any], store: ContextStore, new_span: NewSpan, end: End) -> Callable[..., Any]:
    @functools.wraps(fn)
    def run_generator(*args: Any, **kwargs: Any) -> Generator[Any, Any, Any]:
        span = new_span()
        sent: Any = None
        thrown: Optional[BaseException] = None
        try:
            inner = _step(store, span, lambda: fn(*args, **kwargs))
            while True:
                if thrown is not None:
                    error, thrown = thrown, None
                    value = _step(store, span, lambda: inner.throw(error))
                else:
                    to_send = sent
                    value = _step(store, span, lambda: inner.send(to_send))
                try:
                    sent = yield value
                except GeneratorExit:
                    _step(store, span, inner.close)
                    raise
                except BaseException as error:
                    thrown, sent = error, None
        except StopIteration as stop:
            end(span, None)
            return stop.value
        except GeneratorExit:
            end(span, None)
            raise
        except BaseException as error:
            end(span, error)
            raise
    return run_generator


def wrap_async_generator(fn: Callable[..., Any], store: ContextStore, new_span: NewSpan, end: End) -> Callable[..., Any]:
    @functools.wraps(fn)
    async def run_async_generator(*args: Any, **kwargs: Any) -> AsyncGenerator[Any, Any]:
        span = new_span()
        sent: Any = None
        thrown: Optional[BaseException] = None
        try:
            inner = _step(store, span, lambda: fn(*args, **kwargs))
            while True:
                if thrown is not None:
                    error, thrown = thrown, None
                    value = await _astep(store, span, lambda: inner.athrow(error))
                else:
                    to_send = sent
                    value = await _astep(store, span, lambda: inner.asend(to_send))
                try:
                    sent = yield value
                except GeneratorExit:
                    await _astep(store, span, inner.aclose)
                    raise
                except BaseException as error:
                    thrown, sent = error, None
        except StopAsyncIteration:
            end(span, None)
        except GeneratorExit:
            end(span, None)
            raise
        except BaseException as error:
            end(span, error)
            raise
    return run_async_generator
