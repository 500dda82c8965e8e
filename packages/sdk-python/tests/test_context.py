"""1,000 concurrent requests keep their traces apart: a WSGI app on 1,000 threads and an ASGI app on 1,000 asyncio
tasks, all inside their spans at the same moment (a barrier), sending to a real HTTP ingest server."""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List
from wsgiref.util import setup_testing_defaults

from lantern.traceparent import outgoing_headers

N = 1000


def incoming(i: int) -> Dict[str, str]:
    """Every third request continues a caller's trace."""
    if i % 3:
        return {}
    trace = f"{i:08x}-aaaa-4bbb-8ccc-{i:012x}"
    parent = f"{i:08x}-dddd-4eee-8fff-{i:012x}"
    return dict(outgoing_headers(trace, parent, "vendor=v1"), trace=trace, parent=parent)


def check(results: List[Dict[str, Any]], spans: List[Dict[str, Any]], path: str) -> None:
    by_id = {s["spanId"]: s for s in spans}
    assert len(spans) == 3 * N and len(by_id) == 3 * N
    assert len({r["trace"] for r in results}) == N
    for r in results:
        root, service, external = by_id[r["root"]], by_id[r["service"]], by_id[r["external"]]
        given = incoming(r["i"])
        assert root["requestMethod"] == "controller:GET" and root["responseStatus"] == 200
        assert root["requestURL"] == f"{path}/{r['i']}"
        assert root["parentSpanId"] == given.get("parent")
        if given:
            assert r["trace"] == given["trace"]
        assert {root["traceId"], service["traceId"], external["traceId"]} == {r["trace"]}
        assert service["requestMethod"] == "service:load" and service["parentSpanId"] == root["spanId"]
        assert service["requestURL"] == f"{path}/{r['i']}"
        assert external["requestMethod"] == "external:backend" and external["parentSpanId"] == service["spanId"]
        # The headers the call handed out name the external span, and pass on the caller's other vendors.
        assert r["sent"]["traceparent"] == f"00-{r['trace'].replace('-', '')}-{external['spanId'].replace('-', '')[:16]}-01"
        expected_state = f"lantern={external['spanId'].replace('-', '')}" + (",vendor=v1" if given else "")
        assert r["sent"]["tracestate"] == expected_state


def test_wsgi_on_1000_threads(server, clients):
    lantern = clients(server.url)
    everyone_inside = threading.Barrier(N, timeout=60)

    def app(environ, start_response):
        i = int(environ["PATH_INFO"].rsplit("/", 1)[1])
        with lantern.service("load") as service:
            everyone_inside.wait()  # all 1,000 requests are inside their spans now
            with lantern.call("backend") as headers:
                sent = dict(headers)
        now = lantern.current_trace()
        body = json.dumps({"i": i, "trace": now.trace_id, "root": now.span_id, "service": service.span_id,
                           "external": headers.span.span_id, "sent": sent}).encode()
        start_response("200 OK", [("Content-Type", "application/json")])
        return [body]

    traced = lantern.wsgi(app)

    def request(i: int) -> Dict[str, Any]:
        environ: Dict[str, Any] = {"PATH_INFO": f"/items/{i}", "QUERY_STRING": "secret=1"}
        setup_testing_defaults(environ)
        given = incoming(i)
        if given:
            environ["HTTP_TRACEPARENT"], environ["HTTP_TRACESTATE"] = given["traceparent"], given["tracestate"]
        statuses = []
        body = traced(environ, lambda status, headers, exc_info=None: statuses.append(status))
        try:
            data = b"".join(body)
        finally:
            body.close()
        assert statuses == ["200 OK"]
        assert lantern.current_trace() is None  # nothing leaks into the thread after the request
        return json.loads(data)

    with ThreadPoolExecutor(max_workers=N) as pool:
        results = list(pool.map(request, range(N)))
    lantern.close(timeout=10)
    check(results, server.spans(), "/items")


def test_asgi_on_1000_tasks(server, clients):
    lantern = clients(server.url)

    @lantern.call("backend")
    async def call_backend() -> Dict[str, str]:
        await asyncio.sleep(0)
        return lantern.trace_headers()

    async def app(scope, receive, send):
        i = int(scope["path"].rsplit("/", 1)[1])
        await receive()
        async with lantern.service("load") as service:
            state["inside"] += 1
            if state["inside"] == N:
                state["all_inside"].set()
            await state["all_inside"].wait()  # all 1,000 requests are inside their spans now
            sent = await asyncio.create_task(call_backend())  # a task made here nests under the request
        now = lantern.current_trace()
        external = sent["tracestate"].split(",")[0][len("lantern="):]
        body = json.dumps({"i": i, "trace": now.trace_id, "root": now.span_id, "service": service.span_id,
                           "external": "-".join([external[:8], external[8:12], external[12:16], external[16:20],
                                                 external[20:]]), "sent": sent}).encode()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": body})

    traced = lantern.asgi(app)
    state: Dict[str, Any] = {}

    async def request(i: int) -> Dict[str, Any]:
        given = incoming(i)
        headers = [(b"host", b"test")]
        if given:
            headers += [(b"traceparent", given["traceparent"].encode()), (b"tracestate", given["tracestate"].encode())]
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
                 "scheme": "http", "path": f"/tasks/{i}", "raw_path": f"/tasks/{i}".encode(), "query_string": b"x=1",
                 "root_path": "", "headers": headers, "client": ("127.0.0.1", 1), "server": ("test", 80)}
        sent: List[Dict[str, Any]] = []

        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message):
            sent.append(message)

        await traced(scope, receive, send)
        assert sent[0]["status"] == 200
        return json.loads(sent[1]["body"])

    async def main() -> List[Dict[str, Any]]:
        state.update(inside=0, all_inside=asyncio.Event())
        results = await asyncio.gather(*(request(i) for i in range(N)))
        assert lantern.current_trace() is None
        return list(results)

    results = asyncio.run(main())
    lantern.close(timeout=10)
    check(results, server.spans(), "/tasks")
