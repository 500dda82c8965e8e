"""Regression tests: the reporter's fallback lock after fork (review item 4), an ASGI client that went away is
499 (item 6), a log entry with an unusable timestamp is kept (item 8)."""

from __future__ import annotations

import asyncio
import datetime
import os
import re
import signal
import threading
import time
from typing import Any, Dict, List

import pytest

from lantern import LanternError
from lantern.sanitize import iso_time

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


# -- 4. the fallback warning's lock after fork ----------------------------------------------------------------

@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_fork_while_another_thread_holds_the_fallback_lock_does_not_deadlock_the_child(server, clients):
    lantern = clients(server.url, on_error=None)  # the default on_error: the rate-limited warning
    fallback = lantern._reporter._fallback
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        with fallback._lock:  # as a thread writing a warning when the fork happens
            held.set()
            release.wait(10)

    thread = threading.Thread(target=holder, daemon=True)
    thread.start()
    assert held.wait(5)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            signal.alarm(10)  # a deadlock ends the child by SIGALRM instead of hanging the test
            lantern._reporter.error(LanternError("internal", "reported from the child"))
            code = 0
        finally:
            os._exit(code)
    release.set()
    thread.join(5)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "the child deadlocked on the fallback lock"


# -- 6. ASGI: the client went away ---------------------------------------------------------------------------

class ClientDisconnect(Exception):
    """What a framework raises when it receives `http.disconnect` (Starlette's ClientDisconnect)."""


def serve(traced: Any, incoming: List[Dict[str, Any]], send_error: Any = None) -> None:
    """One HTTP request through the middleware; `incoming` are the messages receive() gives."""
    async def receive() -> Dict[str, Any]:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: Dict[str, Any]) -> None:
        # The final chunk's send fails: the middleware has already noted the response as finished, and must undo it.
        if send_error is not None and message["type"] == "http.response.body" and not message.get("more_body"):
            raise send_error

    asyncio.run(traced({"type": "http", "method": "POST", "path": "/upload", "headers": []}, receive, send))


def test_asgi_a_disconnect_received_before_the_response_is_499_not_an_application_error(server, clients):
    lantern = clients(server.url)

    async def app(scope, receive, send):
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect()

    with pytest.raises(ClientDisconnect):
        serve(lantern.asgi(app), [{"type": "http.disconnect"}])
    assert lantern.flush(timeout=5)
    [span] = server.spans()
    assert (span["responseStatus"], span.get("aborted"), "error" in span) == (499, True, False)


def test_asgi_a_send_that_fails_because_the_client_went_away_is_499(server, clients):
    lantern = clients(server.url)

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"part", "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    with pytest.raises(ConnectionResetError):
        serve(lantern.asgi(app), [], ConnectionResetError("client went away"))
    assert lantern.flush(timeout=5)
    [span] = server.spans()
    assert (span["responseStatus"], span.get("aborted"), "error" in span) == (499, True, False)


def test_asgi_an_application_error_without_a_disconnect_is_still_500(server, clients):
    lantern = clients(server.url)

    async def app(scope, receive, send):
        await receive()
        raise RuntimeError("handler exploded")

    with pytest.raises(RuntimeError):
        serve(lantern.asgi(app), [{"type": "http.request", "body": b"", "more_body": False}])
    assert lantern.flush(timeout=5)
    [span] = server.spans()
    assert (span["responseStatus"], span.get("aborted"), span.get("error")) == (500, None, "handler exploded")


# -- 8. log.write with a timestamp that is not a time -----------------------------------------------------------

class Opaque:
    def __str__(self) -> str:
        return "opaque"


@pytest.mark.parametrize("bad, noted", [
    ("yesterday", "yesterday"), (float("nan"), "nan"), (float("inf"), "inf"), (1e300, "1e+300"),
    (-1e300, "-1e+300"), (10**400, None), (True, "True"), (Opaque(), "opaque"), ([1], "[1]"),
], ids=["text", "nan", "inf", "huge", "-huge", "huge-int", "bool", "object", "list"])
def test_a_log_with_an_unusable_timestamp_is_kept_with_the_current_time(server, clients, bad, noted):
    lantern = clients(server.url)
    before = iso_time(time.time())
    lantern.log.write("info", "kept", {"n": 1}, timestamp=bad)
    after = iso_time(time.time())
    assert lantern.flush(timeout=5)
    [entry] = server.logs()
    assert entry["message"] == "kept" and entry["n"] == 1
    assert ISO.match(entry["timestamp"]) and before <= entry["timestamp"] <= after
    assert entry["timestamp"] == entry["clientTimestamp"]
    if noted is not None:
        assert entry["invalidTimestamp"] == noted
    else:
        assert entry["invalidTimestamp"].startswith("1000")
    assert clients.errors == []


def test_log_write_accepts_a_unix_time_or_a_datetime(server, clients):
    lantern = clients(server.url)
    lantern.log.write("info", "epoch", timestamp=0)
    lantern.log.write("info", "float", timestamp=1700000000.5)
    lantern.log.write("info", "aware", timestamp=datetime.datetime(2024, 2, 29, 12, 0, 1, 250000,
                                                                   tzinfo=datetime.timezone.utc))
    lantern.log.write("info", "naive is UTC", timestamp=datetime.datetime(2024, 2, 29, 12, 0, 1))
    assert lantern.flush(timeout=5)
    stamps = {e["message"]: e["timestamp"] for e in server.logs()}
    assert stamps == {"epoch": "1970-01-01T00:00:00.000Z", "float": "2023-11-14T22:13:20.500Z",
                      "aware": "2024-02-29T12:00:01.250Z", "naive is UTC": "2024-02-29T12:00:01.000Z"}
    assert all("invalidTimestamp" not in e for e in server.logs())


# -- ids (made from os.urandom, without uuid.UUID objects) --------------------------------------------------------

def test_ids_and_batch_keys_are_random_version_4_uuids():
    import uuid

    from lantern.context import new_id
    from lantern.queue import new_batch

    made = [new_id() for _ in range(2000)] + [new_batch([], 0).key for _ in range(100)]
    assert len(set(made)) == len(made)
    for text in made:
        parsed = uuid.UUID(text)
        assert str(parsed) == text and parsed.version == 4 and parsed.variant == uuid.RFC_4122
