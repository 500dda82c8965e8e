"""Against the real embedded Lantern: Flask and Django apps (WSGI middleware) and a FastAPI app (ASGI middleware)
serve real HTTP requests; their spans and logs are read back through the JWT-protected query API."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import threading
import time
import types
import urllib.error
import urllib.request
from typing import Any, Dict, Iterator, List

import pytest
from real_lantern import Account

from lantern import Lantern, LanternError

ERRORS: List[LanternError] = []


@pytest.fixture(scope="module")
def account(real_lantern) -> Account:
    return Account(real_lantern, ["flask", "django", "fastapi"])


def client_for(real_lantern, account: Account, app: str) -> Lantern:
    return Lantern(api_key=account.apps[app]["key"], ingest_url=real_lantern.url, flush_interval=60,
                   flush_on_exit=False, on_error=ERRORS.append)


def get(url: str, headers: Dict[str, str] = {}) -> Any:  # noqa: B006 - never mutated
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, None


def record_of(account: Account, trace_id: str, spans: int, lantern: Lantern) -> Dict[str, Any]:
    records = account.wait_for(Account.traces, lambda rs: any(
        r["traceId"] == trace_id and len(r["telemetry"]) >= spans for r in rs), flush=lantern)
    [record] = [r for r in records if r["traceId"] == trace_id]
    return record


def spans_by_method(record: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
    return {s["requestMethod"]: s for s in record["telemetry"]}


@pytest.fixture(scope="module")
def flask_app(real_lantern, account) -> Iterator[Any]:
    flask = pytest.importorskip("flask")
    from werkzeug.serving import make_server

    lantern = client_for(real_lantern, account, "flask")
    app = flask.Flask("orders")

    @app.get("/orders/<int:order_id>")
    def order(order_id: int) -> Any:
        with lantern.service("load-order"):
            lantern.log.error("payment declined", order_id=order_id, card={"last4": "4242"})
        ids = lantern.current_trace()
        return {"trace_id": ids.trace_id, "span_id": ids.span_id}

    @app.get("/boom")
    def boom() -> Any:
        raise RuntimeError("handler exploded")

    flask.got_request_exception.connect(lambda sender, exception, **kw: lantern.record_error(exception), app,
                                        weak=False)
    app.wsgi_app = lantern.wsgi(app.wsgi_app)  # the setup line
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield lantern, f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    lantern.close(timeout=5)


def test_flask_request_spans_and_logs_are_stored(flask_app, account):
    lantern, url = flask_app
    status, body = get(f"{url}/orders/7?token=secret")
    assert status == 200
    assert lantern.flush(timeout=10)
    record = record_of(account, body["trace_id"], 2, lantern)
    assert record["applicationId"] == account.apps["flask"]["id"] and record["projectId"] == account.project_id
    spans = spans_by_method(record)
    root, child = spans["controller:GET"], spans["service:load-order"]
    assert root["spanId"] == body["span_id"] and root["parentSpanId"] is None
    assert root["requestURL"] == "/orders/7" and root["responseStatus"] == 200
    assert child["parentSpanId"] == root["spanId"] and child["traceId"] == body["trace_id"]
    assert child["requestURL"] == "/orders/7" and isinstance(child["durationMs"], int)
    logs = account.wait_for(Account.logs, lambda ls: any(entry.get("traceId") == body["trace_id"] for entry in ls))
    [entry] = [e for e in logs if e.get("traceId") == body["trace_id"]]
    assert entry["message"] == "payment declined" and entry["level"] == "error" and entry["type"] == "app"
    assert entry["order_id"] == 7 and entry["card"] == {"last4": "4242"} and entry["spanId"] == child["spanId"]
    assert entry["applicationId"] == account.apps["flask"]["id"]


def test_flask_error_is_on_the_root_span(flask_app, account):
    lantern, url = flask_app
    status, _ = get(f"{url}/boom")
    assert status == 500
    assert lantern.flush(timeout=10)
    records = account.wait_for(Account.traces, lambda rs: any(
        s["requestURL"] == "/boom" for r in rs for s in r["telemetry"]), flush=lantern)
    [root] = [s for r in records for s in r["telemetry"] if s["requestURL"] == "/boom"]
    assert root["responseStatus"] == 500 and root["error"] == "handler exploded"


def test_django_continues_an_incoming_trace(real_lantern, account):
    pytest.importorskip("django")
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    import django
    from django.conf import settings
    from django.core.wsgi import get_wsgi_application
    from django.http import JsonResponse
    from django.urls import path

    lantern = client_for(real_lantern, account, "django")

    def hello(request: Any, name: str) -> Any:
        with lantern.call("greeter") as headers:
            sent = dict(headers)
        lantern.log.info(f"hello {name}")
        return JsonResponse({"trace_id": lantern.current_trace().trace_id, "sent": sent})

    urls = types.ModuleType("lantern_sdk_test_urls")
    urls.urlpatterns = [path("hello/<str:name>", hello)]  # type: ignore[attr-defined]
    sys.modules[urls.__name__] = urls
    if not settings.configured:
        settings.configure(DEBUG=False, SECRET_KEY="sdk-python-test" * 4, ROOT_URLCONF=urls.__name__,
                           ALLOWED_HOSTS=["*"], MIDDLEWARE=[], INSTALLED_APPS=[], DATABASES={})
    django.setup()
    application = lantern.wsgi(get_wsgi_application())  # the setup line

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    server = make_server("127.0.0.1", 0, application, handler_class=Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        caller_trace, caller_span = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
        status, body = get(f"http://127.0.0.1:{server.server_port}/hello/ada", {
            "traceparent": f"00-{caller_trace}-{caller_span}-01",
            "tracestate": f"lantern={caller_span}0123456789abcdef,congo=t61rcWkgMzE"})
        assert status == 200
        assert lantern.flush(timeout=10)
    finally:
        server.shutdown()
        lantern.close(timeout=5)
    trace_id = "0af76519-16cd-43dd-8448-eb211c80319c"
    assert body["trace_id"] == trace_id
    record = record_of(account, trace_id, 2, lantern)
    spans = spans_by_method(record)
    root, call = spans["controller:GET"], spans["external:greeter"]
    assert root["parentSpanId"] == "b7ad6b71-6920-3331-0123-456789abcdef"
    assert root["requestURL"] == "/hello/ada" and call["parentSpanId"] == root["spanId"]
    assert body["sent"]["traceparent"] == f"00-{caller_trace}-{call['spanId'].replace('-', '')[:16]}-01"
    assert body["sent"]["tracestate"] == f"lantern={call['spanId'].replace('-', '')},congo=t61rcWkgMzE"
    account.wait_for(Account.logs, lambda ls: any(e["message"] == "hello ada" and e.get("traceId") == trace_id
                                                  for e in ls))


def test_fastapi_request_spans_and_logs_are_stored(real_lantern, account):
    fastapi = pytest.importorskip("fastapi")
    uvicorn = pytest.importorskip("uvicorn")

    lantern = client_for(real_lantern, account, "fastapi")
    api = fastapi.FastAPI()

    @lantern.service("fetch-item")
    async def fetch(item_id: int) -> Dict[str, int]:
        await asyncio.sleep(0.002)
        return {"id": item_id}

    @api.get("/items/{item_id}")
    async def item(item_id: int) -> Any:
        found = await fetch(item_id)
        lantern.log.warn("slow item", item_id=found["id"])
        ids = lantern.current_trace()
        return {"trace_id": ids.trace_id, "span_id": ids.span_id}

    app = lantern.asgi(api)  # the setup line
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        port = sock.getsockname()[1]
        results = [get(f"http://127.0.0.1:{port}/items/{i}") for i in range(3)]
        assert [status for status, _ in results] == [200, 200, 200]
        assert lantern.flush(timeout=10)
    finally:
        server.should_exit = True
        thread.join(10)
        lantern.close(timeout=5)
    assert len({body["trace_id"] for _, body in results}) == 3
    for i, (_, body) in enumerate(results):
        spans = spans_by_method(record_of(account, body["trace_id"], 2, lantern))
        root, child = spans["controller:GET"], spans["service:fetch-item"]
        assert root["spanId"] == body["span_id"] and root["requestURL"] == f"/items/{i}"
        assert root["responseStatus"] == 200 and child["parentSpanId"] == root["spanId"]
    logs = account.wait_for(Account.logs, lambda ls: len([e for e in ls if e["message"] == "slow item"]) == 3)
    by_trace = {e["traceId"]: e for e in logs if e["message"] == "slow item"}
    assert {by_trace[body["trace_id"]]["item_id"] for _, body in results} == {0, 1, 2}
    assert all(e["applicationId"] == account.apps["fastapi"]["id"] and e["level"] == "warn"
               for e in by_trace.values())


def test_no_delivery_errors_were_reported():
    assert [e.message for e in ERRORS] == []
