"""One POST to the ingest service over a kept-alive `http.client` connection, and what its answer means."""

from __future__ import annotations

import gzip
import http.client
import json
import platform
import socket
import ssl
import threading
from dataclasses import dataclass, field
from typing import Any, List, Optional
from urllib.parse import urlsplit

from .retry import is_retryable_status, parse_retry_after

SDK_VERSION = "0.1.0"
#: Only the start of an answer is read: enough for `{accepted, rejected}` or an error body.
MAX_ANSWER_BYTES = 256 * 1024
USER_AGENT = f"lantern-sdk-python/{SDK_VERSION} python/{platform.python_version()}"


@dataclass
class SendResult:
    #: "ok" (2xx: delivered), "retry" (network error, timeout, 408, 429, 5xx) or "fail" (any other answer).
    outcome: str
    status: Optional[int] = None
    message: str = ""
    retry_after: Optional[float] = None
    rejected: List[Any] = field(default_factory=list)
    #: False when a 2xx body is not the ingest service's answer.
    recognised: bool = True
    compressed: bool = False
    #: The connection was reset or closed before an answer came.
    reset: bool = False


def _error_text(body: bytes) -> str:
    try:
        parsed = json.loads(body.decode("utf-8"))
        error = parsed.get("error") if isinstance(parsed, dict) else None
        if isinstance(error, dict):
            return ": ".join(v for v in (error.get("code"), error.get("message")) if isinstance(v, str))
    except Exception:
        pass
    return ""


def classify(status: int, retry_after: Optional[str], body: bytes) -> SendResult:
    """What an answer means for the batch."""
    if 200 <= status <= 299:
        try:
            answer = json.loads(body.decode("utf-8"))
            if isinstance(answer, dict) and isinstance(answer.get("accepted"), int) \
                    and isinstance(answer.get("rejected"), list):
                return SendResult("ok", status, rejected=answer["rejected"])
        except Exception:
            pass
        return SendResult("ok", status, recognised=False)
    detail = _error_text(body)
    message = f"the ingest service answered {status}" + (f" ({detail})" if detail else "")
    if is_retryable_status(status):
        return SendResult("retry", status, message, retry_after=parse_retry_after(retry_after))
    hint = ": check api_key" if status == 401 else ": check ingest_url" if status == 404 or 300 <= status < 400 else ""
    return SendResult("fail", status, message + hint)


class Transport:
    """One connection, used by one thread at a time (each sender has its own); `abort()` may come from another."""

    def __init__(self, ingest_url: str, api_key: str, timeout: float, gzip_threshold: int) -> None:
        parts = urlsplit(ingest_url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or "127.0.0.1"
        self._port = parts.port
        self._base_path = parts.path.rstrip("/")
        self._api_key = api_key
        self._timeout = timeout
        self._gzip_threshold = gzip_threshold
        self._conn: Optional[http.client.HTTPConnection] = None
        self._used = False
        #: abort() was called: a request cut short is not tried again on a new connection.
        self._aborted = False
        self._lock = threading.Lock()

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            if self._https:
                self._conn = http.client.HTTPSConnection(self._host, self._port, timeout=self._timeout,
                                                         context=ssl.create_default_context())
            else:
                self._conn = http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)
            self._used = False
        return self._conn

    def close(self) -> None:
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:
                pass

    def abort(self) -> None:
        """Ends the request in flight now (close()'s deadline): its outcome is then "retry"."""
        self._aborted = True
        conn = self._conn
        sock = getattr(conn, "sock", None) if conn is not None else None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def forget(self) -> None:
        """After a fork: the connection belongs to the parent; the child makes its own."""
        self._conn = None
        self._lock = threading.Lock()

    def send(self, path: str, body: str, key: str) -> SendResult:
        """One POST; never raises."""
        payload = body.encode("utf-8")
        compressed = False
        if len(payload) > self._gzip_threshold:
            try:
                payload = gzip.compress(payload, compresslevel=1)
                compressed = True
            except Exception:
                pass
        reused = self._conn is not None and self._used
        result = self._attempt(path, payload, compressed, key)
        # A kept-alive connection closed by the server just as it was reused: try once more on a new one.
        if result.outcome == "retry" and reused and result.reset and not self._aborted:
            result = self._attempt(path, payload, compressed, key)
        result.compressed = compressed
        return result

    def _attempt(self, path: str, payload: bytes, compressed: bool, key: str) -> SendResult:
        headers = {
            "Content-Type": "application/json",
            "Content-Length": str(len(payload)),
            "Accept": "application/json",
            "Accept-Encoding": "identity",
            "x-api-key": self._api_key,
            "Idempotency-Key": key,
            "User-Agent": USER_AGENT,
        }
        if compressed:
            headers["Content-Encoding"] = "gzip"
        try:
            conn = self._connection()
            conn.request("POST", self._base_path + path, body=payload, headers=headers)
            response = conn.getresponse()
            self._used = True
            answer = response.read(MAX_ANSWER_BYTES)
            if not response.isclosed():
                self.close()  # an answer larger than we read: the connection cannot be reused
            return classify(response.status, response.getheader("Retry-After"), answer)
        except (ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected) as error:
            self.close()
            return SendResult("retry", None, f"network error: {error!r}", reset=True)
        except Exception as error:
            self.close()
            return SendResult("retry", None, f"network error: {error!r}")
