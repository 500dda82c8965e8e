"""A fault-injecting ingest server for the tests: real HTTP (stdlib `http.server` on a thread, keep-alive), with
Lantern's answers and its deduplication by Idempotency-Key, and a plan of faults consumed one request at a time.

Faults: an int status (answered with Lantern's error body, `Retry-After` when given as `(status, seconds)`),
"lost" (the batch is read and stored, then the connection is closed without an answer), "slow:<seconds>", a
`Hold` (the request waits, read, until the test releases it, then gets the hold's own fault).
`stop()` and `start()` make an outage: nothing listens on the port meanwhile.
"""

from __future__ import annotations

import gzip
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Tuple


class Request:
    def __init__(self, path: str, headers: Dict[str, str], raw: bytes, body: Any, answered: Optional[int]) -> None:
        self.path = path
        self.headers = headers
        self.raw = raw
        self.body = body
        self.answered = answered
        self.at = time.monotonic()

    @property
    def key(self) -> Optional[str]:
        return self.headers.get("idempotency-key")

    @property
    def items(self) -> List[Any]:
        kind = "traces" if self.path.endswith("traces") else "logs"
        return list(self.body.get(kind, [])) if isinstance(self.body, dict) else []


class Hold:
    """A fault that keeps its request in flight: `arrived` is set when the request has been read, the answer
    (`then`, any other fault; None: 200) goes once `release()` is called (or after `limit` seconds)."""

    def __init__(self, then: Any = None, limit: float = 30.0) -> None:
        self.then = then
        self.limit = limit
        self.arrived = threading.Event()
        self._go = threading.Event()

    def release(self) -> None:
        self._go.set()

    def wait(self) -> Any:
        self.arrived.set()
        self._go.wait(self.limit)
        return self.then


class FaultServer:
    def __init__(self, port: int = 0) -> None:
        self.requests: List[Request] = []
        self.stored: Dict[str, List[Any]] = {"traces": [], "logs": []}
        self.keys: Dict[str, int] = {}
        self.plan: List[Any] = []
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.port = port
        self.connections: set = set()
        self._server: Optional[ThreadingHTTPServer] = None
        self.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def setup(self) -> None:
                super().setup()
                with owner.lock:
                    owner.connections.add(self.connection)

            def do_POST(self) -> None:  # noqa: N802
                owner._handle(self)

        server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        server.daemon_threads = True
        self.port = server.server_address[1]
        self._server = server
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def stop(self) -> None:
        """Stops listening (connection refused from now on) and ends the connections kept alive."""
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        with self.lock:
            connections, self.connections = self.connections, set()
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def fail_next(self, *faults: Any) -> None:
        with self.lock:
            self.plan.extend(faults)

    def _answer(self, handler: BaseHTTPRequestHandler, status: int, body: Dict[str, Any],
                headers: Optional[Dict[str, str]] = None) -> None:
        data = json.dumps(body).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        raw = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        headers = {k.lower(): v for k, v in handler.headers.items()}
        data = gzip.decompress(raw) if headers.get("content-encoding") == "gzip" else raw
        try:
            body = json.loads(data)
        except ValueError:
            body = None
        kind = "traces" if handler.path.endswith("/ingest/traces") else "logs"
        with self.lock:
            fault = self.plan.pop(0) if self.plan else None
        if isinstance(fault, Hold):
            fault = fault.wait()
        if isinstance(fault, str) and fault.startswith("slow:"):
            time.sleep(float(fault[5:]))
            fault = None
        status = 200 if fault in (None, "lost") else fault[0] if isinstance(fault, tuple) else int(fault)
        request = Request(handler.path, headers, raw, body, None if fault == "lost" else status)
        with self.changed:
            self.requests.append(request)
            if status == 200:
                items = request.items
                key = request.key
                if key is None or key not in self.keys:
                    self.stored[kind].extend(items)
                    if key is not None:
                        self.keys[key] = len(items)
            self.changed.notify_all()
        if fault == "lost":
            handler.close_connection = True
            handler.connection.shutdown(socket.SHUT_RDWR)
            return
        if status == 200:
            self._answer(handler, 200, {"accepted": len(request.items), "rejected": []})
            return
        extra = {"Retry-After": str(fault[1])} if isinstance(fault, tuple) else {}
        self._answer(handler, status, {"error": {"code": "test_fault", "message": f"fault {status}"}}, extra)

    def wait_for(self, check: Callable[["FaultServer"], bool], timeout: float = 10.0) -> None:
        """Waits until `check(server)` holds, else fails the test."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while not check(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out; requests: {[(r.path, r.answered) for r in self.requests]}")
                self.changed.wait(min(left, 0.05))

    def spans(self) -> List[Dict[str, Any]]:
        with self.lock:
            return list(self.stored["traces"])

    def logs(self) -> List[Dict[str, Any]]:
        with self.lock:
            return list(self.stored["logs"])


def free_port() -> Tuple[int, socket.socket]:
    """A port nothing listens on (the socket is bound, not listening: connections are refused)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1], s
