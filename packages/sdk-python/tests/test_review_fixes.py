"""Regression tests: a finalizer never takes a lock, span scopes left out of order restore the context, decorated
generator functions stay generator functions, the 'already traced' marker is per client."""

from __future__ import annotations

import asyncio
import gc
import inspect
import threading
from typing import Any, Dict, List
from wsgiref.util import setup_testing_defaults


def environ(path: str = "/", method: str = "GET") -> Dict[str, Any]:
    env: Dict[str, Any] = {"PATH_INFO": path, "REQUEST_METHOD": method}
    setup_testing_defaults(env)
    return env


def methods(spans: List[Dict[str, Any]]) -> List[str]:
    return sorted(s["requestMethod"] for s in spans)


# -- 1. a finalizer never takes a lock -------------------------------------------------------------------------

def test_finalizer_of_a_dropped_body_never_takes_the_exporter_or_reporter_lock(server, clients):
    lantern = clients(server.url)

    def app(env, start_response):
        start_response("200 OK", [])
        return [b"x"]

    traced = lantern.wsgi(app)
    exporter = lantern._exporters["traces"]
    reporter = lantern._reporter
    collected = threading.Event()

    def worker() -> None:
        body = traced(environ("/cycle"), lambda *a: None)
        body.cycle = body  # unfinished, and only the cyclic GC can collect it
        del body
        with exporter._cond, reporter._lock:  # as the sender thread inside _next(), when the GC runs there
            gc.collect()
        collected.set()

    gc.disable()
    try:
        thread = threading.Thread(target=worker, daemon=True)
        thread.start()
        ok = collected.wait(5)
        if not ok:  # unblock the deadlocked worker (plain locks) so the teardown can close the client
            reporter._lock.release()
            exporter._cond.release()
        assert ok, "gc.collect() deadlocked in TracedBody.__del__"
    finally:
        gc.enable()
    assert lantern.flush(timeout=5)
    spans = server.spans()
    assert [s["requestURL"] for s in spans] == ["/cycle"]
    assert spans[0]["responseStatus"] == 499 and spans[0]["aborted"] is True


# -- 2. a span scope left out of order ---------------------------------------------------------------------------

def test_outer_scope_exited_while_a_suspended_generator_holds_an_inner_span(server, clients):
    lantern = clients(server.url)

    def gen():
        with lantern.service("rows"):
            yield 1

    result: Dict[str, Any] = {}

    def worker() -> None:  # a thread outside any request
        with lantern.service("outer"):
            g = gen()
            next(g)
        result["after_outer"] = lantern.current_trace()
        with lantern.service("later"):
            pass
        g.close()  # the inner span ends after its enclosing scope: recorded, the context left alone
        result["after_close"] = lantern.current_trace()

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(10)
    assert result["after_outer"] is None
    assert result["after_close"] is None
    assert lantern.flush(timeout=5)
    spans = {s["requestMethod"]: s for s in server.spans()}
    assert sorted(spans) == ["service:later", "service:outer", "service:rows"]
    assert spans["service:outer"]["parentSpanId"] is None
    assert spans["service:rows"]["parentSpanId"] == spans["service:outer"]["spanId"]
    assert spans["service:later"]["parentSpanId"] is None  # a new trace, not the stale one
    assert spans["service:later"]["traceId"] != spans["service:outer"]["traceId"]


# -- 3. decorated generator functions ---------------------------------------------------------------------------

def test_decorated_generator_functions_stay_generator_functions(server, clients):
    lantern = clients(server.url)

    @lantern.service("rows")
    def rows(n: int):
        assert lantern.current_trace() is not None  # the span is current while the generator runs
        got = yield 0
        for i in range(1, n):
            yield i + (got or 0)
        return "done"

    @lantern.service("arows")
    async def arows(n: int):
        for i in range(n):
            await asyncio.sleep(0)
            assert lantern.current_trace() is not None
            yield i

    @lantern.service("fails")
    def fails():
        yield 1
        raise ValueError("bad row")

    assert inspect.isgeneratorfunction(rows) and rows.__name__ == "rows"
    assert inspect.isasyncgenfunction(arows) and arows.__name__ == "arows"

    g = rows(3)
    assert next(g) == 0
    assert lantern.current_trace() is None  # not current for the consumer between steps
    assert g.send(10) == 11
    assert list(g) == [12]

    def delegate():
        return (yield from rows(2))
    d = delegate()
    assert list(d) == [0, 1]

    async def consume() -> List[int]:
        return [i async for i in arows(3)]
    assert asyncio.run(consume()) == [0, 1, 2]

    try:
        list(fails())
    except ValueError:
        pass
    else:
        raise AssertionError("the generator's error was not raised")
    closed = rows(5)
    next(closed)
    closed.close()

    assert lantern.flush(timeout=5)
    spans = server.spans()
    assert methods(spans) == ["service:arows", "service:fails", "service:rows", "service:rows", "service:rows"]
    assert [s["error"] for s in spans if s["requestMethod"] == "service:fails"] == ["bad row"]
    assert all(s["responseStatus"] == 200 for s in spans if s["requestMethod"] != "service:fails")


# -- 4. the 'already traced' marker is per client ----------------------------------------------------------------

def test_wsgi_two_clients_nested_each_record_a_root_span_one_client_twice_records_one(server, clients):
    a, b = clients(server.url), clients(server.url)

    def app(env, start_response):
        start_response("200 OK", [])
        return [b"ok"]

    for traced, path in ((a.wsgi(b.wsgi(app)), "/nested"), (a.wsgi(a.wsgi(app)), "/twice")):
        body = traced(environ(path), lambda *args: None)
        assert b"".join(body) == b"ok"
        body.close()
    assert a.flush(timeout=5) and b.flush(timeout=5)
    urls = sorted(s["requestURL"] for s in server.spans())
    assert urls == ["/nested", "/nested", "/twice"]


def test_asgi_two_clients_nested_each_record_a_root_span_one_client_twice_records_one(server, clients):
    a, b = clients(server.url), clients(server.url)

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def main() -> None:
        async def send(message):
            pass
        for traced, path in ((a.asgi(b.asgi(app)), "/nested"), (a.asgi(a.asgi(app)), "/twice")):
            await traced({"type": "http", "method": "GET", "path": path, "headers": []}, None, send)

    asyncio.run(main())
    assert a.flush(timeout=5) and b.flush(timeout=5)
    spans = server.spans()
    assert sorted(s["requestURL"] for s in spans) == ["/nested", "/nested", "/twice"]
    assert all(s["responseStatus"] == 204 for s in spans)
