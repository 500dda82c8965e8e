"""Span helpers (context managers and decorators, sync and async, errors recorded and re-raised), the request's
root span in failure cases, logs and the logging handler; read back from a real HTTP ingest server."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Dict, List
from wsgiref.util import setup_testing_defaults

import pytest


def environ(path: str = "/", method: str = "GET") -> Dict[str, Any]:
    env: Dict[str, Any] = {"PATH_INFO": path, "REQUEST_METHOD": method}
    setup_testing_defaults(env)
    return env


def by_method(spans: List[Dict[str, Any]]) -> Dict[str, Dict[str, Any]]:
    return {s["requestMethod"]: s for s in spans}


class Response:
    status_code = 201


def test_helpers_as_decorators_and_context_managers_sync_and_async(server, clients):
    lantern = clients(server.url)

    @lantern.service("sync-ok")
    def sync_ok(x: int) -> int:
        return x * 2

    @lantern.controller("sync-fails")
    def sync_fails() -> None:
        raise KeyError("missing")

    @lantern.call("payments", url="https://user:pw@pay.example.com/charge?card=1#x")
    def charge() -> Response:
        assert lantern.trace_headers()["traceparent"].startswith("00-")
        return Response()

    @lantern.service("async-fails")
    async def async_fails() -> None:
        await asyncio.sleep(0)
        raise ValueError("bad input")

    async def run_async() -> None:
        with pytest.raises(ValueError, match="bad input"):
            await async_fails()
        async with lantern.service("async-with"):
            await asyncio.sleep(0)

    with lantern.service("outer") as outer:
        assert sync_ok(21) == 42
        with pytest.raises(KeyError):
            sync_fails()
        assert isinstance(charge(), Response)
        with lantern.call("inventory") as headers:
            headers.set_status(404)
        asyncio.run(run_async())
        with pytest.raises(RuntimeError):
            with lantern.service("with-fails"):
                raise RuntimeError("inside with")
    assert sync_ok.__name__ == "sync_ok"  # functools.wraps
    lantern.flush(timeout=5)
    spans = by_method(server.spans())
    root = spans["service:outer"]
    assert root["parentSpanId"] is None and root["spanId"] == outer.span_id and root["requestURL"] == ""
    for name in ("service:sync-ok", "controller:sync-fails", "external:payments", "external:inventory",
                 "service:async-fails", "service:async-with", "service:with-fails"):
        assert spans[name]["parentSpanId"] == root["spanId"] and spans[name]["traceId"] == root["traceId"], name
    assert spans["service:sync-ok"]["responseStatus"] == 200 and "error" not in spans["service:sync-ok"]
    assert spans["controller:sync-fails"]["responseStatus"] == 500
    assert spans["controller:sync-fails"]["error"] == "'missing'"
    assert spans["service:async-fails"]["error"] == "bad input"
    assert spans["service:with-fails"]["error"] == "inside with"
    assert spans["external:payments"]["responseStatus"] == 201  # read from the result's status_code
    assert spans["external:payments"]["requestURL"] == "https://pay.example.com/charge"
    assert spans["external:inventory"]["responseStatus"] == 404 and spans["external:inventory"]["requestURL"] == "inventory"
    assert lantern.current_trace() is None


def test_wsgi_root_span_status_error_abort_and_query_string(server, clients):
    lantern = clients(server.url, capture_error_stack=True)

    def app(env, start_response):
        if env["PATH_INFO"] == "/boom":
            raise RuntimeError("handler exploded")
        start_response("404 Not Found", [])

        def body():
            yield b"a"
            yield b"b"
        return body()

    traced = lantern.wsgi(lantern.wsgi(app))  # installed twice: one root span
    with pytest.raises(RuntimeError):
        traced(environ("/boom"), lambda *a: None)
    done = traced(dict(environ("/missing"), QUERY_STRING="token=secret"), lambda *a: None)
    assert b"".join(done) == b"ab"
    done.close()
    aborted = traced(environ("/stream", "POST"), lambda *a: None)
    next(iter(aborted))
    aborted.close()  # the server stopped before the end: the client went away
    unclosed = traced(environ("/unclosed"), lambda *a: None)
    assert b"".join(unclosed) == b"ab"  # a server that never calls close() (werkzeug, client gone): recorded
    assert lantern.stats().traces.queued == 4
    dropped = traced(environ("/dropped"), lambda *a: None)
    del dropped  # neither iterated nor closed: recorded as aborted when it is collected
    lantern.flush(timeout=5)
    spans = {s["requestURL"]: s for s in server.spans()}
    assert len(server.spans()) == 5
    assert spans["/unclosed"]["responseStatus"] == 404 and "aborted" not in spans["/unclosed"]
    assert spans["/dropped"]["responseStatus"] == 499 and spans["/dropped"]["aborted"] is True
    boom = spans["/boom"]
    assert boom["responseStatus"] == 500 and boom["error"] == "handler exploded" and "handler exploded" in boom["stack"]
    assert spans["/missing"]["responseStatus"] == 404 and spans["/missing"]["requestMethod"] == "controller:GET"
    assert spans["/stream"]["responseStatus"] == 499 and spans["/stream"]["aborted"] is True
    assert spans["/stream"]["requestMethod"] == "controller:POST"


def test_asgi_root_span_when_the_app_raises(server, clients):
    lantern = clients(server.url)

    async def app(scope, receive, send):
        raise LookupError("no route")

    async def main() -> None:
        scope = {"type": "http", "method": "DELETE", "path": "/x", "headers": []}
        with pytest.raises(LookupError):
            await lantern.asgi(app)(scope, None, None)
        lifespan = []
        await lantern.asgi(lambda s, r, se: _record(lifespan, s))({"type": "lifespan"}, None, None)
        assert lifespan == ["lifespan"]

    async def _record(into, scope):
        into.append(scope["type"])

    asyncio.run(main())
    lantern.flush(timeout=5)
    [span] = server.spans()
    assert span["requestMethod"] == "controller:DELETE" and span["responseStatus"] == 500
    assert span["error"] == "no route"


def test_logs_carry_the_trace_and_keep_reserved_fields_apart(server, clients):
    lantern = clients(server.url, log_level="debug")
    lantern.log.trace("below the level")
    with lantern.service("job") as span:
        lantern.log.warning("careful", level="not the level", type="mine", **{"a.b": 1, "$where": 2})
        lantern.log.error(KeyError("k"), order={"id": 42, "items": [1, 2]}, big=2**60)
    lantern.log.info({"structured": True})
    lantern.flush(timeout=5)
    careful, error, structured = server.logs()
    assert careful["traceId"] == span.trace_id and careful["spanId"] == span.span_id
    assert careful["level"] == "warn" and careful["_level"] == "not the level" and careful["_type"] == "mine"
    assert careful["type"] == "app" and careful["a_b"] == 1 and careful["_where"] == 2
    assert careful["timestamp"] == careful["clientTimestamp"] or careful["timestamp"] <= careful["clientTimestamp"]
    assert error["message"] == "'k'" and error["error"] == {"name": "KeyError", "message": "'k'"}
    assert error["order"] == {"id": 42, "items": [1, 2]} and error["big"] == str(2**60)
    assert structured["message"] == '{"structured":true}' and "traceId" not in structured


def test_logging_handler_maps_levels_extra_fields_and_sends_critical_at_once(server, clients):
    lantern = clients(server.url)
    logger = logging.getLogger("test.app")
    logger.setLevel(logging.DEBUG)
    handler = lantern.logging_handler()
    logger.addHandler(handler)
    try:
        with lantern.service("request") as span:
            logger.info("user %s signed in", "ada", extra={"user_id": 7})
            try:
                raise ValueError("broken")
            except ValueError:
                logger.exception("failed")
        logger.critical("disk full")
        assert [log["message"] for log in server.logs()] == ["disk full"]  # CRITICAL is fatal: sent at once
        lantern.flush(timeout=5)
    finally:
        logger.removeHandler(handler)
    fatal, info, failed = server.logs()
    assert fatal["level"] == "fatal" and "traceId" not in fatal
    assert info["message"] == "user ada signed in" and info["user_id"] == 7 and info["level"] == "info"
    assert info["traceId"] == span.trace_id and info["logger"] == "test.app"
    assert failed["level"] == "error" and failed["error"]["name"] == "ValueError"
