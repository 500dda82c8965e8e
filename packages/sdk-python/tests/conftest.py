"""Fixtures shared by the tests: a fault-injecting ingest server and clients that close themselves."""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Iterator, List

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from fault_server import FaultServer  # noqa: E402

from lantern import Lantern, LanternError  # noqa: E402


@pytest.fixture
def server() -> Iterator[FaultServer]:
    s = FaultServer()
    yield s
    s.stop()


class Clients:
    """Makes clients that report into `errors` and are closed at the end of the test."""

    def __init__(self) -> None:
        self.made: List[Lantern] = []
        self.errors: List[LanternError] = []

    def __call__(self, url: str, **options: Any) -> Lantern:
        options.setdefault("api_key", "test-key")
        options.setdefault("flush_interval", 60.0)
        options.setdefault("flush_on_exit", False)
        options.setdefault("retry_base", 0.01)
        options.setdefault("retry_max", 0.05)
        options.setdefault("on_error", self.errors.append)
        client = Lantern(ingest_url=url, **options)
        self.made.append(client)
        return client

    def codes(self) -> List[str]:
        return [e.code for e in self.errors]


@pytest.fixture
def clients() -> Iterator[Callable[..., Lantern]]:
    made = Clients()
    yield made
    for client in made.made:
        client.close(timeout=0.5)


@pytest.fixture(scope="session")
def real_lantern() -> Iterator[Any]:
    """The embedded Lantern from the built checkout (gateway/dist). Without a build the tests that need it are
    skipped, or fail when LANTERN_SDK_PYTHON_REQUIRE_EMBEDDED=1 (scripts/sdk-python/run.mjs sets it)."""
    from real_lantern import MAIN, RealLantern

    if not os.path.exists(MAIN):
        message = f"{MAIN} is missing: build the checkout first (pnpm build)"
        if os.environ.get("LANTERN_SDK_PYTHON_REQUIRE_EMBEDDED") == "1":
            pytest.fail(message)
        pytest.skip(message)
    lantern = RealLantern()
    yield lantern
    lantern.stop()
