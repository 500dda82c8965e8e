"""The example in examples/python-shop, run as its README runs it: the FastAPI `inventory` under uvicorn and the
Flask `storefront` (werkzeug), each a `python <script>` process configured only through the environment, against
the embedded Lantern. Real HTTP throughout; the spans and logs are read back through the query API: one trace id
per customer request across both services, the inventory's root span a child of the storefront's
`external:inventory` span, and names, URLs, statuses and logs as the example's code makes them."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import urllib.error
import urllib.request
from datetime import datetime
from typing import Any, Dict, List, Tuple

from real_lantern import ROOT, Account, clean_env
from served import ServedProcess

EXAMPLE = os.path.join(ROOT, "examples", "python-shop")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


class App(ServedProcess):
    """One of the example's processes: `python <script>` from the repository's root, the port read from the line
    matching `ready`."""

    def __init__(self, script: str, env: Dict[str, str], ready: str) -> None:
        super().__init__(script, [sys.executable, os.path.join(EXAMPLE, script)], ROOT, env, ready)


def send(url: str, body: Any = None) -> Tuple[int, str, Any]:
    """GET (or POST `body` as JSON): status, the X-Trace-Id header, the JSON body."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers["X-Trace-Id"], json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, error.headers["X-Trace-Id"], json.loads(error.read())


def spans_of(records: List[Dict[str, Any]], trace_id: str, app_id: int) -> List[Dict[str, Any]]:
    return [s for r in records if r["traceId"] == trace_id and r["applicationId"] == app_id for s in r["telemetry"]]


def one(spans: List[Dict[str, Any]], method: str) -> Dict[str, Any]:
    found = [s for s in spans if s["requestMethod"] == method]
    assert len(found) == 1, (method, spans)
    return found[0]


def ms(span: Dict[str, Any]) -> float:
    return datetime.fromisoformat(span["timestamp"].replace("Z", "+00:00")).timestamp() * 1000


def test_storefront_calls_inventory_in_one_trace(real_lantern):
    account = Account(real_lantern, ["storefront", "inventory"])
    shop_app, inv_app = account.apps["storefront"]["id"], account.apps["inventory"]["id"]
    common = {"LANTERN_INGEST_URL": real_lantern.url, "PORT": "0", "PYTHONUNBUFFERED": "1"}
    apps: List[App] = []
    try:
        inventory = App("inventory.py", clean_env(LANTERN_API_KEY=account.apps["inventory"]["key"], **common),
                        r"Uvicorn running on http://127\.0\.0\.1:(\d+)")
        apps.append(inventory)
        inventory_url = inventory.url()
        storefront = App("storefront.py", clean_env(LANTERN_API_KEY=account.apps["storefront"]["key"],
                                                    INVENTORY_URL=inventory_url, **common),
                         r"storefront listening on http://127\.0\.0\.1:(\d+)")
        apps.insert(0, storefront)
        shop = storefront.url()

        lamp = send(f"{shop}/products/lamp")
        ghost = send(f"{shop}/products/ghost")
        order = send(f"{shop}/orders", {"sku": "kettle", "quantity": 2})
        too_many = send(f"{shop}/orders", {"sku": "kettle", "quantity": 2})  # 3 in stock, 1 left
    finally:
        codes = [app.stop() for app in apps]  # the storefront first; each sends what it buffers as it stops
    outputs = "\n".join(f"--- {app.name}\n{app.output()}" for app in apps)

    # The answers, and each request's trace named in X-Trace-Id: four requests, four traces.
    assert lamp[0] == 200 and lamp[2] == {"sku": "lamp", "name": "Desk lamp", "price_cents": 4680,
                                          "in_stock": True}, lamp
    assert ghost[0] == 404 and ghost[2] == {"error": "no such product"}, ghost
    assert order[0] == 201 and order[2]["status"] == "placed" and UUID.match(order[2]["order"]), order
    assert too_many[0] == 409 and too_many[2] == {"error": "out of stock", "detail": "only 1 left"}, too_many
    traces = [lamp[1], ghost[1], order[1], too_many[1]]
    assert all(t and UUID.match(t) for t in traces) and len(set(traces)) == 4, traces

    # A clean stop: the storefront closes its client itself (13 spans, 3 logs); the inventory has no shutdown code,
    # its middleware closes the client at the end of uvicorn's lifespan (its 8 spans and 3 logs are checked in
    # what Lantern stored, below).
    assert codes[0] == 0, outputs
    assert codes[1] in (0, -signal.SIGTERM), outputs  # uvicorn ends by raising SIGTERM again, default action
    assert "storefront stopped: spans sent 13 (dropped 0), logs sent 3 (dropped 0)" in outputs, outputs
    assert "Application shutdown complete" in inventory.output(), outputs
    assert "[lantern]" not in outputs and "Traceback" not in outputs, outputs

    # What Lantern stored: every trace holds spans of both applications, with the counts above.
    expected = {lamp[1]: (4, 2), ghost[1]: (3, 2), order[1]: (3, 2), too_many[1]: (3, 2)}
    records = account.wait_for(Account.traces, lambda rs: all(
        (len(spans_of(rs, t, shop_app)), len(spans_of(rs, t, inv_app))) == n for t, n in expected.items()))
    assert {r["applicationId"] for r in records} == {shop_app, inv_app}
    assert {r["traceId"] for r in records} == set(traces)

    def check(trace_id: str, method: str, path: str, handler: str, status: int, inv_method: str, inv_path: str,
              inv_work: str) -> Dict[str, Dict[str, Any]]:
        shop_spans, inv_spans = spans_of(records, trace_id, shop_app), spans_of(records, trace_id, inv_app)
        assert {s["traceId"] for s in shop_spans + inv_spans} == {trace_id}
        root = one(shop_spans, f"controller:{method}")
        ctrl = one(shop_spans, f"controller:{handler}")
        call = one(shop_spans, "external:inventory")
        inv_root = one(inv_spans, f"controller:{inv_method}")
        work = one(inv_spans, f"service:{inv_work}")
        assert len({s["spanId"] for s in shop_spans + inv_spans}) == len(shop_spans + inv_spans)
        # storefront: request -> handler -> call
        assert root["parentSpanId"] is None
        assert (root["requestURL"], root["responseStatus"]) == (path, status)
        assert ctrl["parentSpanId"] == root["spanId"]
        assert (ctrl["requestURL"], ctrl["responseStatus"]) == (path, 200)  # the handler returned normally
        assert call["parentSpanId"] == ctrl["spanId"]
        assert (call["requestURL"], call["responseStatus"]) == (inventory_url + inv_path, status)
        # inventory: its request continues the call (the full span id, carried in tracestate) -> its work
        assert inv_root["parentSpanId"] == call["spanId"]
        assert (inv_root["requestURL"], inv_root["responseStatus"]) == (inv_path, status)
        assert work["parentSpanId"] == inv_root["spanId"]
        assert (work["requestURL"], work["responseStatus"]) == (inv_path, 200)
        assert "error" not in call and "error" not in inv_root
        # and the inventory's request happened within the storefront's call (same clock, millisecond rounding)
        assert ms(call) - 2 <= ms(inv_root)
        assert ms(inv_root) + inv_root["durationMs"] <= ms(call) + call["durationMs"] + 2
        return {"root": root, "ctrl": ctrl, "call": call, "inv_root": inv_root, "work": work}

    lamp_spans = check(lamp[1], "GET", "/products/lamp", "product_page", 200, "GET", "/stock/lamp", "count_stock")
    pricing = one(spans_of(records, lamp[1], shop_app), "service:pricing")
    assert pricing["parentSpanId"] == lamp_spans["ctrl"]["spanId"] and pricing["requestURL"] == "/products/lamp"
    ghost_spans = check(ghost[1], "GET", "/products/ghost", "product_page", 404, "GET", "/stock/ghost",
                        "count_stock")
    order_spans = check(order[1], "POST", "/orders", "place_order", 201, "POST", "/reservations", "reserve_stock")
    too_many_spans = check(too_many[1], "POST", "/orders", "place_order", 409, "POST", "/reservations",
                           "reserve_stock")

    # The logs of both services carry the trace of the customer's request, and the span they were written in.
    logs = account.wait_for(Account.logs, lambda ls: len([e for e in ls if e.get("traceId") in expected]) == 6)
    by_message = {e["message"]: e for e in logs if e.get("traceId") in expected}
    assert set(by_message) == {"product viewed", "unknown sku", "order placed", "stock reserved", "out of stock",
                               "not enough stock"}

    def log(message: str, trace_id: str, app_id: int, span: Dict[str, Any], level: str) -> Dict[str, Any]:
        entry = by_message[message]
        assert (entry["traceId"], entry["applicationId"], entry["spanId"], entry["level"], entry["type"]) == (
            trace_id, app_id, span["spanId"], level, "app"), entry
        return entry

    assert log("product viewed", lamp[1], shop_app, lamp_spans["ctrl"], "info")["stock"] == 12
    assert log("unknown sku", ghost[1], inv_app, ghost_spans["inv_root"], "warn")["sku"] == "ghost"
    reserved = log("stock reserved", order[1], inv_app, order_spans["inv_root"], "info")
    placed = log("order placed", order[1], shop_app, order_spans["ctrl"], "info")
    assert (reserved["sku"], reserved["quantity"], reserved["left"]) == ("kettle", 2, 1)
    assert placed["order_id"] == order[2]["order"] and placed["reservation"] == reserved["reservation"]
    short = log("not enough stock", too_many[1], inv_app, too_many_spans["inv_root"], "warn")
    assert (short["wanted"], short["left"]) == (2, 1)
    assert log("out of stock", too_many[1], shop_app, too_many_spans["ctrl"], "warn")["inventory"] == "only 1 left"
