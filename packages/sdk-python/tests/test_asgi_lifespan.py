"""The ASGI middleware drains the client at the end of the `lifespan` scope.

uvicorn ends a shutdown on SIGTERM (how Docker, systemd and Kubernetes stop `uvicorn app:app`) by raising the
signal again with its default action: the process dies (exit -15) before `atexit` runs, so the drain at interpreter
exit never happens. These tests run real uvicorn processes against the fault-injecting server and stop them with
SIGTERM; the protocol details (order, failures, an application that ignores or refuses the scope) are checked
in process against a scripted server."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import textwrap
import threading
import urllib.request
from typing import Any, Callable, Dict, List, Optional

import pytest

from lantern import Lantern
from lantern.asgi import asgi_middleware
from lantern.context import ContextStore
from served import ServedProcess

READY = r"Uvicorn running on http://127\.0\.0\.1:(\d+)"


class Uvicorn(ServedProcess):
    """`python -m uvicorn app:app --port 0` in `directory`, the port read from its banner."""

    def __init__(self, directory: str, env: Dict[str, str]) -> None:
        super().__init__("uvicorn", [sys.executable, "-m", "uvicorn", "app:app", "--host", "127.0.0.1", "--port", "0"],
                         directory, {**os.environ, "PYTHONUNBUFFERED": "1", **env}, READY)

    def get(self, path: str) -> bytes:
        with urllib.request.urlopen(f"{self.url()}{path}", timeout=10) as response:
            return response.read()


PRELUDE = """
import os
from lantern import Lantern

# A flush interval far beyond the test: nothing is sent before the shutdown unless the drain sends it.
lantern = Lantern(api_key="test-key", ingest_url=os.environ["SINK"], flush_interval=600.0, close_timeout=5.0)
"""

FASTAPI_APP = PRELUDE + """
from contextlib import asynccontextmanager
from fastapi import FastAPI

@asynccontextmanager
async def lifespan(api):
    yield
    print("app shutdown ran", flush=True)
    lantern.log.info("app shutdown ran")  # recorded during the application's own shutdown: sent by the drain

api = FastAPI(lifespan=lifespan)

@api.get("/items/{name}")
async def item(name: str):
    with lantern.service("load"):
        return {"name": name}

app = lantern.asgi(api)
"""

# The pattern of a bare ASGI application: anything but HTTP is ignored (the lifespan scope included).
BARE_APP = PRELUDE + """
async def api(scope, receive, send):
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})

app = lantern.asgi(api)
"""


def serve(tmp_path: Any, source: str, sink: str) -> Uvicorn:
    (tmp_path / "app.py").write_text(textwrap.dedent(source))
    return Uvicorn(str(tmp_path), {"SINK": sink})


def test_sigterm_under_uvicorn_delivers_the_spans_of_a_fastapi_app(server, tmp_path):
    app = serve(tmp_path, FASTAPI_APP, server.url)
    try:
        assert app.get("/items/lamp") == b'{"name":"lamp"}'
        assert server.requests == []  # buffered: the interval is 10 minutes
    finally:
        code = app.stop()
    output = app.output()
    assert code == -signal.SIGTERM, output  # uvicorn raised SIGTERM again: atexit did not run
    server.wait_for(lambda s: len(s.spans()) == 2 and len(s.logs()) == 1, timeout=5)
    spans = sorted(server.spans(), key=lambda s: s["requestMethod"])
    assert [(s["requestMethod"], s["requestURL"], s["responseStatus"]) for s in spans] == [
        ("controller:GET", "/items/lamp", 200), ("service:load", "/items/lamp", 200)]
    assert server.logs()[0]["message"] == "app shutdown ran"
    # the application's shutdown ran first, and the server was told it was complete after the drain
    assert output.index("app shutdown ran") < output.index("Application shutdown complete"), output
    assert "Traceback" not in output and "[lantern]" not in output, output


def test_sigterm_under_uvicorn_delivers_the_spans_of_an_app_that_ignores_lifespan(server, tmp_path):
    app = serve(tmp_path, BARE_APP, server.url)
    try:
        assert app.get("/x") == b"ok"
    finally:
        code = app.stop()
    output = app.output()
    assert code == -signal.SIGTERM, output
    server.wait_for(lambda s: len(s.spans()) == 1, timeout=5)
    assert server.spans()[0]["requestMethod"] == "controller:GET"
    assert "Application startup complete" in output and "Traceback" not in output, output


# -- the protocol, in process ------------------------------------------------------------------------------------


class LifespanServer:
    """Plays the server's side of the lifespan protocol: startup, then shutdown; records what the app sent."""

    def __init__(self) -> None:
        self.sent: List[Dict[str, Any]] = []
        self.events: List[str] = []
        self.incoming: "asyncio.Queue[Dict[str, Any]]" = asyncio.Queue()

    async def receive(self) -> Dict[str, Any]:
        return await self.incoming.get()

    async def send(self, message: Dict[str, Any]) -> None:
        self.events.append(f"server got {message['type']}")
        self.sent.append(message)

    async def run(self, app: Callable[..., Any]) -> Optional[BaseException]:
        task = asyncio.ensure_future(app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}},
                                         self.receive, self.send))
        await self.incoming.put({"type": "lifespan.startup"})
        await asyncio.sleep(0.01)
        await self.incoming.put({"type": "lifespan.shutdown"})
        try:
            await asyncio.wait_for(task, 10)
        except Exception as error:
            return error
        return None


def starlette_style(events: List[str], fail_shutdown: bool = False) -> Callable[..., Any]:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        assert scope["type"] == "lifespan"
        assert (await receive())["type"] == "lifespan.startup"
        await send({"type": "lifespan.startup.complete"})
        assert (await receive())["type"] == "lifespan.shutdown"
        events.append("app shutdown")
        if fail_shutdown:
            await send({"type": "lifespan.shutdown.failed", "message": "boom"})
        else:
            await send({"type": "lifespan.shutdown.complete"})
    return app


def recording_drain(events: List[str], loop_threads: List[int]) -> Callable[[], None]:
    def drain() -> None:
        loop_threads.append(threading.get_ident())
        events.append("drain")
    return drain


@pytest.mark.parametrize("fail_shutdown", [False, True])
def test_the_drain_runs_after_the_apps_shutdown_in_a_thread_before_the_server_is_told(fail_shutdown):
    threads: List[int] = []

    async def main() -> List[str]:
        host = LifespanServer()
        wrapped = asgi_middleware(starlette_style(host.events, fail_shutdown), ContextStore(), lambda r: None,
                                  False, recording_drain(host.events, threads))
        assert await host.run(wrapped) is None
        return host.events

    events = asyncio.run(main())
    done = "lifespan.shutdown.failed" if fail_shutdown else "lifespan.shutdown.complete"
    assert events == ["server got lifespan.startup.complete", "app shutdown", "drain", f"server got {done}"]
    assert threads and threads[0] != threading.get_ident()  # not on the event loop's thread


def test_an_app_that_ignores_lifespan_has_the_protocol_answered_and_is_drained():
    async def ignores(scope: Any, receive: Any, send: Any) -> None:
        return None

    async def main() -> List[str]:
        host = LifespanServer()
        wrapped = asgi_middleware(ignores, ContextStore(), lambda r: None, False, recording_drain(host.events, []))
        assert await host.run(wrapped) is None
        return host.events

    assert asyncio.run(main()) == ["server got lifespan.startup.complete", "drain",
                                   "server got lifespan.shutdown.complete"]


def test_an_app_that_refuses_lifespan_is_left_to_the_server():
    refusal = ValueError("Django can only handle ASGI/HTTP connections, not lifespan.")

    async def refuses(scope: Any, receive: Any, send: Any) -> None:
        raise refusal

    async def main() -> Any:
        host = LifespanServer()
        wrapped = asgi_middleware(refuses, ContextStore(), lambda r: None, False, recording_drain(host.events, []))
        return await host.run(wrapped), host.events

    error, events = asyncio.run(main())
    assert error is refusal and events == []  # the server sees the app's own exception; nothing to hook


def test_a_drain_that_raises_never_reaches_the_server():
    def drain() -> None:
        raise RuntimeError("broken")

    async def main() -> Any:
        host = LifespanServer()
        wrapped = asgi_middleware(starlette_style(host.events), ContextStore(), lambda r: None, False, drain)
        return await host.run(wrapped), host.events

    error, events = asyncio.run(main())
    assert error is None and events[-1] == "server got lifespan.shutdown.complete"


def test_the_client_is_closed_at_the_end_of_the_lifespan(server, clients):
    lantern: Lantern = clients(server.url, flush_on_exit=True, close_timeout=5.0)

    async def main() -> Any:
        host = LifespanServer()
        api = starlette_style(host.events)

        async def app(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                await send({"type": "http.response.start", "status": 204, "headers": []})
                await send({"type": "http.response.body", "body": b""})
            else:
                await api(scope, receive, send)

        wrapped = lantern.asgi(app)
        sent: List[Any] = []

        async def request_receive() -> Dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def request_send(message: Dict[str, Any]) -> None:
            sent.append(message)

        await wrapped({"type": "http", "method": "GET", "path": "/a", "headers": []}, request_receive, request_send)
        assert server.requests == []
        return await host.run(wrapped)

    assert asyncio.run(main()) is None
    assert [s["requestURL"] for s in server.spans()] == ["/a"]
    assert lantern.stats().traces.sent == 1 and lantern._state == "closed"
