"""storefront: the shop's web front (Flask, WSGI), instrumented with lantern-sdk; it calls the inventory service.

`lantern.wsgi(app.wsgi_app)` gives every request a trace and a root span `controller:<METHOD>`.
`lantern.controller()` and `lantern.service()` add spans for the handler and for a piece of work;
`lantern.call("inventory")` adds the span `external:inventory` for the call to the other service and hands over
the `traceparent`/`tracestate` headers that continue the trace there. `lantern.log` writes logs that carry the
request's trace. Every response names its trace in `X-Trace-Id`, to look it up in Lantern.

    LANTERN_API_KEY=lk_... LANTERN_INGEST_URL=http://localhost:8080 PORT=8000 \\
      INVENTORY_URL=http://127.0.0.1:8001 python examples/python-shop/storefront.py
"""

from __future__ import annotations

import json
import os
import signal
import sys
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any, Dict, Optional, Tuple

from flask import Flask, Response, got_request_exception, request
from werkzeug.serving import make_server

from lantern import Lantern

# LANTERN_API_KEY and LANTERN_INGEST_URL come from the environment. Spans and logs are sent every 2 s here so that
# they show up at once (the library's default is 30 s); LANTERN_FLUSH_INTERVAL_MS still wins when it is set.
os.environ.setdefault("LANTERN_FLUSH_INTERVAL_MS", "2000")
lantern = Lantern()
INVENTORY_URL = os.environ.get("INVENTORY_URL", "http://127.0.0.1:8001").rstrip("/")
VAT = 0.20

app = Flask("storefront")


def inventory(method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Tuple[int, Any]:
    """Calls the inventory service inside the span `external:inventory`; its status and JSON body.
    Raises OSError when the service cannot be reached (the span then records 500 and the error)."""
    url = INVENTORY_URL + path
    with lantern.call("inventory", url=url) as headers:  # headers: traceparent and tracestate
        outgoing = urllib.request.Request(url, method=method, headers={**headers, "Content-Type": "application/json"},
                                          data=None if body is None else json.dumps(body).encode())
        try:
            with urllib.request.urlopen(outgoing, timeout=5) as response:
                status, text = response.status, response.read()
        except urllib.error.HTTPError as error:  # urllib raises for 4xx and 5xx answers: they are answers too
            status, text = error.code, error.read()
        headers.set_status(status)  # the span's responseStatus (else 200)
    try:
        return status, json.loads(text)
    except ValueError:
        return status, {"detail": text.decode("utf-8", "replace")}


@lantern.service("pricing")  # a span `service:pricing` for every call
def price_with_vat(price_cents: int) -> int:
    return round(price_cents * (1 + VAT))


def unavailable(error: OSError) -> Tuple[Dict[str, str], int]:
    lantern.log.error("inventory unreachable", inventory=INVENTORY_URL, error=error)
    return {"error": "the inventory service is unavailable"}, 503


@app.get("/products/<sku>")
@lantern.controller("product_page")  # a span `controller:product_page` (its status is 200 unless it raises)
def product_page(sku: str) -> Any:
    try:
        status, item = inventory("GET", f"/stock/{urllib.parse.quote(sku, safe='')}")
    except OSError as error:
        return unavailable(error)
    if status != 200:
        return {"error": item.get("detail", "inventory error")}, status if status < 500 else 502
    lantern.log.info("product viewed", sku=sku, stock=item["stock"])
    return {"sku": sku, "name": item["name"], "price_cents": price_with_vat(item["price_cents"]),
            "in_stock": item["stock"] > 0}


@app.post("/orders")
@lantern.controller("place_order")
def place_order() -> Any:
    body = request.get_json(silent=True) or {}
    sku, quantity = body.get("sku"), body.get("quantity", 1)
    if not isinstance(sku, str) or not isinstance(quantity, int) or not 0 < quantity <= 100:
        return {"error": 'send {"sku": "lamp", "quantity": 1} (1-100)'}, 400
    try:
        status, reservation = inventory("POST", "/reservations", {"sku": sku, "quantity": quantity})
    except OSError as error:
        return unavailable(error)
    if status == 409:
        lantern.log.warn("out of stock", sku=sku, quantity=quantity, inventory=reservation.get("detail"))
        return {"error": "out of stock", "detail": reservation.get("detail")}, 409
    if status != 201:
        return {"error": reservation.get("detail", "inventory error")}, status if status < 500 else 502
    order_id = str(uuid.uuid4())
    lantern.log.info("order placed", order_id=order_id, sku=sku, quantity=quantity,
                     reservation=reservation["reservation"])
    return {"order": order_id, "sku": sku, "quantity": quantity, "status": "placed"}, 201


@app.after_request
def name_the_trace(response: Response) -> Response:
    trace = lantern.current_trace()  # the request's trace (the middleware is around the whole Flask app)
    if trace is not None:
        response.headers["X-Trace-Id"] = trace.trace_id
    return response


def record_error(sender: Flask, exception: BaseException, **extra: Any) -> None:
    """Flask answers 500 itself for an exception in a view, so the middleware never sees it: put it on the
    request's root span. (A named function: blinker keeps only a weak reference to a receiver.)"""
    lantern.record_error(exception)


got_request_exception.connect(record_error, app)
app.wsgi_app = lantern.wsgi(app.wsgi_app)  # type: ignore[method-assign]  # the setup line


def main() -> None:
    # PORT=0 picks a free port; the line below says which.
    server = make_server(os.environ.get("HOST", "127.0.0.1"), int(os.environ.get("PORT", "8000")), app,
                         threaded=True)
    print(f"storefront listening on http://{server.host}:{server.port} (inventory at {INVENTORY_URL})",
          flush=True)
    # SIGTERM's default action ends the process at once: turn it into a normal exit, as Ctrl-C is.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        print("storefront stopping", flush=True)
        server.server_close()
        # Sends what the client still buffers (the last requests' spans, their logs) before the process ends.
        stats = lantern.close(timeout=5.0)
        print(f"storefront stopped: spans sent {stats.traces.sent} (dropped {stats.traces.dropped}), "
              f"logs sent {stats.logs.sent} (dropped {stats.logs.dropped})", flush=True)


if __name__ == "__main__":
    main()
