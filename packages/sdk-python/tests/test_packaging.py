"""The wheel that scripts/sdk-python/run.mjs built and installed: its contents and metadata, and that the tests
import the installed package. Skipped when the tests run straight from the sources."""

from __future__ import annotations

import os
import zipfile

import pytest

import lantern

WHEEL = os.environ.get("LANTERN_SDK_PYTHON_WHEEL")
SOURCES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lantern")
MODULES = ["__init__", "asgi", "client", "closing", "context", "exporter", "lifecycle", "logs", "options", "queue",
           "report", "retry", "sanitize", "sender", "span_generators", "spans", "spool", "spool_claims", "spool_dir",
           "stats", "traceparent", "transport", "wsgi"]

pytestmark = pytest.mark.skipif(not WHEEL, reason="run by scripts/sdk-python/run.mjs, which builds the wheel")


def test_the_wheel_holds_every_module_and_py_typed_and_depends_on_nothing():
    with zipfile.ZipFile(WHEEL) as wheel:
        names = set(wheel.namelist())
        metadata = next(wheel.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
    assert {f"lantern/{m}.py" for m in MODULES} | {"lantern/py.typed"} <= names
    assert not any(n.startswith("tests/") for n in names)
    assert "Name: lantern-sdk" in metadata and "Requires-Python: >=3.9" in metadata
    assert "Requires-Dist" not in metadata


def test_the_tests_use_the_installed_package():
    installed = os.path.dirname(os.path.abspath(lantern.__file__))
    assert installed != SOURCES and "site-packages" in installed
    assert os.path.exists(os.path.join(installed, "py.typed"))
