"""Options (keyword, LANTERN_* environment, validation) and W3C trace context as the Node library reads it."""

from __future__ import annotations

import pytest

from lantern import Lantern, LanternOptionError
from lantern.options import resolve_options
from lantern.traceparent import outgoing_headers, parse_incoming

ENV = {"LANTERN_API_KEY": "env-key", "LANTERN_INGEST_URL": "https://ingest.example.com/base/"}


def test_environment_variables_of_the_node_library_configure_it():
    env = dict(ENV, LANTERN_FLUSH_INTERVAL_MS="5000", LANTERN_MAX_BATCH_SIZE="200", LANTERN_ENABLED="yes",
               LANTERN_RETRY_AFTER_MAX_MS="0", LANTERN_LOG_LEVEL="debug", LANTERN_SPOOL_DIR="/tmp/x",
               LANTERN_CAPTURE_ERROR_STACK="1", LANTERN_FLUSH_ON_EXIT="off", LANTERN_CLOSE_TIMEOUT_MS="2500")
    o = resolve_options({}, env)
    assert (o.api_key, o.ingest_url) == ("env-key", "https://ingest.example.com/base")
    assert o.flush_interval == 5.0 and o.max_batch_size == 200 and o.retry_after_max == 0.0
    assert o.log_level == "debug" and o.spool_dir == "/tmp/x" and o.capture_error_stack and not o.flush_on_exit
    assert o.close_timeout == 2.5
    # Keyword options win over the environment.
    assert resolve_options({"flush_interval": 1.5, "api_key": "kw"}, env).flush_interval == 1.5


def test_defaults():
    o = resolve_options({}, ENV)
    assert (o.flush_interval, o.max_batch_size, o.max_queue_size, o.max_batch_bytes) == (30.0, 500, 10_000, 4 << 20)
    assert (o.request_timeout, o.retry_base, o.retry_max, o.close_timeout) == (10.0, 0.5, 30.0, 10.0)
    assert o.gzip_threshold_bytes == 1024 and o.spool_dir is None and o.enabled and o.flush_on_exit


@pytest.mark.parametrize("given, env, message", [
    ({"flush_interval": "soon"}, {}, 'option "flush_interval" must be a number of seconds'),
    ({}, {"LANTERN_FLUSH_INTERVAL_MS": "soon"}, "(got 'soon' from LANTERN_FLUSH_INTERVAL_MS)"),
    ({"max_batch_size": 0}, {}, 'option "max_batch_size" must be an integer from 1 to 10000'),
    ({"max_queue_size": 10, "max_batch_size": 20}, {}, 'must be at least "max_batch_size"'),
    ({"ingest_url": "ftp://x"}, {}, 'option "ingest_url" must be an http: or https: URL'),
    ({"ingest_url": "http://x/?q=1"}, {}, "without query string"),
    ({"log_level": "loud"}, {}, 'option "log_level" must be one of trace, debug'),
    ({"enabled": "yes"}, {}, 'option "enabled" must be a boolean'),
    ({"on_error": 3}, {}, 'option "on_error" must be a callable'),
    ({"api_key": "has space"}, {}, "(got (hidden))"),
])
def test_invalid_options_raise_a_clear_error_at_construction(given, env, message):
    with pytest.raises(LanternOptionError) as raised:
        resolve_options(given, dict(ENV, **env))
    assert message in str(raised.value)


def test_api_key_and_url_are_required_unless_disabled(monkeypatch):
    monkeypatch.delenv("LANTERN_API_KEY", raising=False)
    monkeypatch.delenv("LANTERN_INGEST_URL", raising=False)
    with pytest.raises(ValueError, match="LANTERN_API_KEY"):
        Lantern(ingest_url="http://127.0.0.1:1")
    with pytest.raises(TypeError):
        Lantern(api_key="k", ingest_url="http://x", flush_intervall=1)  # a typo is an error, not ignored
    off = Lantern(enabled=False)
    with off.service("s") as span:
        assert off.current_trace().span_id == span.span_id
    off.log.error("nothing sent")
    assert off.flush() is True and off.close().traces.sent == 0


TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
SPAN = "00f067aa0ba902b7"


def test_outgoing_headers_are_the_node_librarys():
    h = outgoing_headers("4bf92f35-77b3-4da6-a3ce-929d0e0e4736", "00f067aa-0ba9-02b7-8899-aabbccddeeff", "other=1")
    assert h == {"traceparent": f"00-{TRACE}-{SPAN}-01",
                 "tracestate": "lantern=00f067aa0ba902b78899aabbccddeeff,other=1"}


def test_incoming_trace_is_continued_with_the_full_parent_from_tracestate():
    t = parse_incoming(f"00-{TRACE}-{SPAN}-01", "foo=bar, lantern=00f067aa0ba902b78899aabbccddeeff,x@y=z")
    assert t.trace_id == "4bf92f35-77b3-4da6-a3ce-929d0e0e4736"
    assert t.parent_span_id == "00f067aa-0ba9-02b7-8899-aabbccddeeff"
    assert t.tracestate == "foo=bar,x@y=z"


def test_another_w3c_caller_gives_its_16_digits_padded_with_zeros():
    t = parse_incoming(f"00-{TRACE}-{SPAN}-00", "lantern=ffffffffffffffffffffffffffffffff")
    assert t.parent_span_id == "00f067aa-0ba9-02b7-0000-000000000000" and t.tracestate is None
    assert parse_incoming(f" 01-{TRACE}-{SPAN}-01-future ", None) is not None


@pytest.mark.parametrize("header", [
    f"ff-{TRACE}-{SPAN}-01", f"00-{'0' * 32}-{SPAN}-01", f"00-{TRACE}-{'0' * 16}-01", f"00-{TRACE.upper()}-{SPAN}-01",
    f"00-{TRACE}-{SPAN}-01-extra", f"00-{TRACE}-{SPAN}-1", f"00-{TRACE}-{SPAN}-01,00-{TRACE}-{SPAN}-01", f"01-{TRACE}-{SPAN}-01-a\nb",
    "", None, 42,
])
def test_invalid_traceparent_starts_a_new_trace(header):
    assert parse_incoming(header, None) is None
