"""inventory: the shop's stock service (FastAPI, ASGI, served by uvicorn), instrumented with lantern-sdk.

`lantern.asgi(api)` gives every request a trace and a root span `controller:<METHOD>`. A request that arrives
with `traceparent`/`tracestate` (the storefront sends them) continues the caller's trace: its root span is a
child of the storefront's `external:inventory` span, so one trace covers both services. `lantern.service()`
adds a span for a piece of work and `lantern.log` writes logs that carry the request's trace. Nothing is needed
at shutdown: when uvicorn stops (Ctrl-C, or SIGTERM from a process manager) the middleware sends what the client
still buffers at the end of the ASGI lifespan, after the application's own shutdown.

    LANTERN_API_KEY=lk_... LANTERN_INGEST_URL=http://localhost:8080 PORT=8001 python examples/python-shop/inventory.py

(`uvicorn inventory:app --port 8001` from this directory works as well.)
"""

from __future__ import annotations

import asyncio
import os
import uuid
from typing import Any, Dict, Optional

import uvicorn
from fastapi import FastAPI, HTTPException
from pydantic import BaseModel, Field

from lantern import Lantern

# LANTERN_API_KEY and LANTERN_INGEST_URL come from the environment. Spans and logs are sent every 2 s here so that
# they show up at once (the library's default is 30 s); LANTERN_FLUSH_INTERVAL_MS still wins when it is set.
os.environ.setdefault("LANTERN_FLUSH_INTERVAL_MS", "2000")
lantern = Lantern()

# The warehouse, in memory: stock goes down as the storefront reserves it (a restart refills it).
STOCK: Dict[str, Dict[str, Any]] = {
    "lamp": {"name": "Desk lamp", "price_cents": 3900, "stock": 12},
    "kettle": {"name": "Kettle", "price_cents": 2450, "stock": 3},
    "mug": {"name": "Mug", "price_cents": 900, "stock": 0},
}


api = FastAPI(title="inventory")


class ReservationRequest(BaseModel):
    sku: str
    quantity: int = Field(gt=0, le=100)


@lantern.service("count_stock")  # a span `service:count_stock` for every call
async def count_stock(sku: str) -> Optional[Dict[str, Any]]:
    await asyncio.sleep(0.005)  # a database query, in a real service
    item = STOCK.get(sku)
    return None if item is None else {"sku": sku, **item}


@api.get("/stock/{sku}")
async def stock(sku: str) -> Dict[str, Any]:
    item = await count_stock(sku)
    if item is None:
        lantern.log.warn("unknown sku", sku=sku)
        raise HTTPException(404, "no such product")
    return item


@api.post("/reservations", status_code=201)
async def reserve(body: ReservationRequest) -> Dict[str, Any]:
    # The context manager form of a helper: a span `service:reserve_stock` around the block.
    async with lantern.service("reserve_stock"):
        await asyncio.sleep(0.005)
        item = STOCK.get(body.sku)
        enough = item is not None and item["stock"] >= body.quantity
        if item is not None and enough:
            item["stock"] -= body.quantity
    if item is None:
        lantern.log.warn("unknown sku", sku=body.sku)
        raise HTTPException(404, "no such product")
    if not enough:
        lantern.log.warn("not enough stock", sku=body.sku, wanted=body.quantity, left=item["stock"])
        raise HTTPException(409, f"only {item['stock']} left")
    reservation = str(uuid.uuid4())
    lantern.log.info("stock reserved", sku=body.sku, quantity=body.quantity, left=item["stock"],
                     reservation=reservation)
    return {"reservation": reservation, "sku": body.sku, "quantity": body.quantity, "left": item["stock"]}


app = lantern.asgi(api)  # the setup line: serve `app`, not `api` (its lifespan's end also sends what is left)


def main() -> None:
    # PORT=0 picks a free port; uvicorn prints the one it got ("Uvicorn running on http://127.0.0.1:<port>").
    uvicorn.run(app, host=os.environ.get("HOST", "127.0.0.1"), port=int(os.environ.get("PORT", "8001")),
                log_level="info")


if __name__ == "__main__":
    main()
