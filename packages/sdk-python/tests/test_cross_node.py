"""One trace across Node and Python: a Node service (@lantern/sdk-node) calls a Python WSGI service (this
library), which calls the Node service back; Lantern stores one trace id with every parent link right."""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import urllib.request
from typing import Any, Dict
from wsgiref.simple_server import WSGIRequestHandler, make_server

import pytest
from real_lantern import ROOT, SDK_NODE, Account, clean_env

from lantern import Lantern


class Quiet(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def fetch(url: str, headers: Dict[str, str] = {}) -> Any:  # noqa: B006 - never mutated
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as response:
        return json.loads(response.read())


def test_node_python_node_is_one_trace(real_lantern):
    if not os.path.exists(SDK_NODE):
        pytest.fail(f"{SDK_NODE} is missing: build the checkout first (pnpm build)")
    account = Account(real_lantern, ["node", "python"])
    lantern = Lantern(api_key=account.apps["python"]["key"], ingest_url=real_lantern.url, flush_interval=60,
                      flush_on_exit=False)
    node_url: Dict[str, str] = {}

    def middle(environ: Dict[str, Any], start_response: Any) -> Any:
        with lantern.call("node-back", url=f"{node_url['url']}/back") as headers:
            back = fetch(f"{node_url['url']}/back", dict(headers))
        body = json.dumps({"trace": lantern.current_trace()._asdict(), "back": back}).encode()
        start_response("200 OK", [("Content-Type", "application/json")])
        return [body]

    server = make_server("127.0.0.1", 0, lantern.wsgi(middle), handler_class=Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = clean_env(SDK_NODE=SDK_NODE, NODE_API_KEY=account.apps["node"]["key"], LANTERN_URL=real_lantern.url,
                    PYTHON_URL=f"http://127.0.0.1:{server.server_port}")
    node = subprocess.Popen(["node", os.path.join(os.path.dirname(__file__), "node", "cross_service.mjs")],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert node.stdout is not None
        line = node.stdout.readline()
        m = re.match(r"listening (\d+)", line)
        assert m, line + node.stdout.read()
        node_url["url"] = f"http://127.0.0.1:{m.group(1)}"
        front = fetch(f"{node_url['url']}/front")
        assert front["status"] == 200
        assert lantern.flush(timeout=10)
        fetch(f"{node_url['url']}/flush")
    finally:
        server.shutdown()
        lantern.close(timeout=5)
        node.terminate()
        node.wait(15)
    trace_id = front["trace"]["traceId"]
    assert front["python"]["trace"]["trace_id"] == trace_id and front["python"]["back"]["trace"]["traceId"] == trace_id
    records = account.wait_for(Account.traces, lambda rs: sum(
        len(r["telemetry"]) for r in rs if r["traceId"] == trace_id) >= 6)
    by_app = {r["applicationId"]: r for r in records if r["traceId"] == trace_id}
    assert set(by_app) == {account.apps["node"]["id"], account.apps["python"]["id"]}
    node_spans = by_app[account.apps["node"]["id"]]["telemetry"]
    python_spans = by_app[account.apps["python"]["id"]]["telemetry"]
    assert {s["traceId"] for s in node_spans + python_spans} == {trace_id}

    def one(spans: Any, method: str, url: str) -> Dict[str, Any]:
        [span] = [s for s in spans if s["requestMethod"] == method and s["requestURL"].endswith(url)]
        return span

    node_front = one(node_spans, "controller:GET", "/front")
    node_call = one(node_spans, "external:python-middle", "/middle")
    py_root = one(python_spans, "controller:GET", "/middle")
    py_call = one(python_spans, "external:node-back", "/back")
    node_back = one(node_spans, "controller:GET", "/back")
    node_work = one(node_spans, "service:node-back-work", "/back")
    assert node_front["parentSpanId"] is None
    assert node_call["parentSpanId"] == node_front["spanId"]
    assert py_root["parentSpanId"] == node_call["spanId"]  # the full UUID, carried in tracestate
    assert py_call["parentSpanId"] == py_root["spanId"]
    assert node_back["parentSpanId"] == py_call["spanId"]
    assert node_work["parentSpanId"] == node_back["spanId"]
    assert front["python"]["trace"]["span_id"] == py_root["spanId"]
    assert front["python"]["back"]["traceparent"].startswith(f"00-{trace_id.replace('-', '')}-")
