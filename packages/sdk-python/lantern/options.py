"""The client's options: defaults, the LANTERN_* environment variables and validation at construction.

Keyword options use Python units (seconds as numbers); the environment variables are those of
`@lantern/sdk-node` and keep its units (milliseconds for durations), so one set of variables configures a
Node and a Python service alike.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, Optional, Tuple
from urllib.parse import urlsplit

LOG_LEVELS = ("trace", "debug", "info", "warn", "error", "fatal")
MiB = 1024 * 1024


class LanternOptionError(ValueError):
    """An invalid option, raised by Lantern(...) and naming the option (and the variable it came from)."""


@dataclass(frozen=True)
class Options:
    api_key: str
    ingest_url: str
    enabled: bool
    flush_interval: float
    max_batch_size: int
    max_batch_bytes: int
    max_queue_size: int
    gzip_threshold_bytes: int
    request_timeout: float
    retry_base: float
    retry_max: float
    retry_after_max: float
    spool_dir: Optional[str]
    spool_max_bytes: int
    close_timeout: float
    flush_on_exit: bool
    log_level: str
    capture_error_stack: bool
    on_error: Optional[Callable[[Any], None]]
    on_drop: Optional[Callable[[Any], None]]


# name: (environment variable, default, min, max); durations in seconds, their variables in milliseconds.
DURATIONS: Dict[str, Tuple[str, float, float, float]] = {
    "flush_interval": ("LANTERN_FLUSH_INTERVAL_MS", 30.0, 0.001, 2_147_483.647),
    "request_timeout": ("LANTERN_REQUEST_TIMEOUT_MS", 10.0, 0.001, 2_147_483.647),
    "retry_base": ("LANTERN_RETRY_BASE_MS", 0.5, 0.001, 2_147_483.647),
    "retry_max": ("LANTERN_RETRY_MAX_MS", 30.0, 0.001, 2_147_483.647),
    "retry_after_max": ("LANTERN_RETRY_AFTER_MAX_MS", 300.0, 0.0, 2_147_483.647),
    "close_timeout": ("LANTERN_CLOSE_TIMEOUT_MS", 10.0, 0.0, 2_147_483.647),
}
INTEGERS: Dict[str, Tuple[str, int, int, int]] = {
    "max_batch_size": ("LANTERN_MAX_BATCH_SIZE", 500, 1, 10_000),
    "max_batch_bytes": ("LANTERN_MAX_BATCH_BYTES", 4 * MiB, 1024, 5 * MiB),
    "max_queue_size": ("LANTERN_MAX_QUEUE_SIZE", 10_000, 1, 10_000_000),
    "gzip_threshold_bytes": ("LANTERN_GZIP_THRESHOLD_BYTES", 1024, 0, 2**53 - 1),
    "spool_max_bytes": ("LANTERN_SPOOL_MAX_BYTES", 100 * MiB, 1024, 2**53 - 1),
}
BOOLEANS: Dict[str, Tuple[str, bool]] = {
    "enabled": ("LANTERN_ENABLED", True),
    "flush_on_exit": ("LANTERN_FLUSH_ON_EXIT", True),
    "capture_error_stack": ("LANTERN_CAPTURE_ERROR_STACK", False),
}
STRINGS: Dict[str, str] = {
    "api_key": "LANTERN_API_KEY",
    "ingest_url": "LANTERN_INGEST_URL",
    "spool_dir": "LANTERN_SPOOL_DIR",
    "log_level": "LANTERN_LOG_LEVEL",
}
HOOKS = ("on_error", "on_drop")
KNOWN = set(DURATIONS) | set(INTEGERS) | set(BOOLEANS) | set(STRINGS) | set(HOOKS)


def _fail(name: str, expected: str, got: Any, env: Optional[str]) -> LanternOptionError:
    shown = "(hidden)" if name == "api_key" else repr(got)
    source = f" from {env}" if env else ""
    return LanternOptionError(f'lantern: option "{name}" must be {expected} (got {shown}{source})')


def _pick(given: Mapping[str, Any], env: Mapping[str, str], name: str, var: str) -> Tuple[Any, Optional[str]]:
    """The option's value and, when it came from the environment, the variable's name."""
    if given.get(name) is not None:
        return given[name], None
    raw = env.get(var)
    if raw is None or raw.strip() == "":
        return None, None
    return raw.strip(), var


def _duration(given: Mapping[str, Any], env: Mapping[str, str], name: str) -> float:
    var, default, low, high = DURATIONS[name]
    value, source = _pick(given, env, name, var)
    if value is None:
        return default
    if source is not None:
        seconds = int(value) / 1000 if re.fullmatch(r"-?\d+", value) else None
        expected = f"an integer number of milliseconds from {int(low * 1000)} to {int(high * 1000)}"
    else:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        seconds = float(value) if ok else None
        expected = f"a number of seconds from {low:g} to {high:g}"
    if seconds is None or not low <= seconds <= high:
        raise _fail(name, expected, value, source)
    return seconds


def _integer(given: Mapping[str, Any], env: Mapping[str, str], name: str) -> int:
    var, default, low, high = INTEGERS[name]
    value, source = _pick(given, env, name, var)
    if value is None:
        return default
    n = int(value) if source is not None and re.fullmatch(r"-?\d+", value) else value
    if not isinstance(n, int) or isinstance(n, bool) or not low <= n <= high:
        raise _fail(name, f"an integer from {low} to {high}", value, source)
    return n


def _boolean(given: Mapping[str, Any], env: Mapping[str, str], name: str) -> bool:
    var, default = BOOLEANS[name]
    value, source = _pick(given, env, name, var)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if source is not None and re.fullmatch(r"(?i)true|1|yes|on", value):
        return True
    if source is not None and re.fullmatch(r"(?i)false|0|no|off", value):
        return False
    raise _fail(name, "a boolean (True/False)", value, source)


def _ingest_url(value: Any, source: Optional[str]) -> str:
    expected = 'an http(s) URL such as "https://ingest.example.com"'
    if not isinstance(value, str):
        raise _fail("ingest_url", expected, value, source)
    try:
        parts = urlsplit(value)
        port = parts.port  # raises on a bad port
    except ValueError:
        raise _fail("ingest_url", expected, value, source) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _fail("ingest_url", "an http: or https: URL", value, source)
    if parts.query or parts.fragment:
        raise _fail("ingest_url", "a base URL without query string or fragment", value, source)
    del port
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


def resolve_options(given: Mapping[str, Any], env: Optional[Mapping[str, str]] = None) -> Options:
    """Defaults, environment and validation: every problem raises LanternOptionError naming the option."""
    environ: Mapping[str, str] = os.environ if env is None else env
    for key in given:
        if key not in KNOWN:
            raise LanternOptionError(f'lantern: unknown option "{key}"')
    for name in HOOKS:
        if given.get(name) is not None and not callable(given[name]):
            raise _fail(name, "a callable", type(given[name]).__name__, None)
    enabled = _boolean(given, environ, "enabled")
    key, key_source = _pick(given, environ, "api_key", STRINGS["api_key"])
    url, url_source = _pick(given, environ, "ingest_url", STRINGS["ingest_url"])
    if enabled and key is None:
        raise _fail("api_key", "a non-empty string (pass it or set LANTERN_API_KEY)", None, None)
    if key is not None and (not isinstance(key, str) or not re.fullmatch(r"[\x21-\x7e]{1,1024}", key)):
        raise _fail("api_key", "a non-empty string of visible ASCII characters", key, key_source)
    if enabled and url is None:
        raise _fail("ingest_url", "an http(s) URL (pass it or set LANTERN_INGEST_URL)", None, None)
    spool, spool_source = _pick(given, environ, "spool_dir", STRINGS["spool_dir"])
    if spool is not None and not isinstance(spool, (str, os.PathLike)):
        raise _fail("spool_dir", "a directory path", spool, spool_source)
    level, level_source = _pick(given, environ, "log_level", STRINGS["log_level"])
    if level is not None and level not in LOG_LEVELS:
        raise _fail("log_level", f"one of {', '.join(LOG_LEVELS)}", level, level_source)
    options = Options(
        api_key=key or "",
        ingest_url="http://127.0.0.1" if url is None else _ingest_url(url, url_source),
        enabled=enabled,
        flush_interval=_duration(given, environ, "flush_interval"),
        max_batch_size=_integer(given, environ, "max_batch_size"),
        max_batch_bytes=_integer(given, environ, "max_batch_bytes"),
        max_queue_size=_integer(given, environ, "max_queue_size"),
        gzip_threshold_bytes=_integer(given, environ, "gzip_threshold_bytes"),
        request_timeout=_duration(given, environ, "request_timeout"),
        retry_base=_duration(given, environ, "retry_base"),
        retry_max=_duration(given, environ, "retry_max"),
        retry_after_max=_duration(given, environ, "retry_after_max"),
        spool_dir=None if spool is None else os.fspath(spool),
        spool_max_bytes=_integer(given, environ, "spool_max_bytes"),
        close_timeout=_duration(given, environ, "close_timeout"),
        flush_on_exit=_boolean(given, environ, "flush_on_exit"),
        log_level=level or "info",
        capture_error_stack=_boolean(given, environ, "capture_error_stack"),
        on_error=given.get("on_error"),
        on_drop=given.get("on_drop"),
    )
    if options.spool_dir == "":
        raise _fail("spool_dir", "a directory path", "", spool_source)
    if options.max_queue_size < options.max_batch_size:
        raise LanternOptionError(
            f'lantern: option "max_queue_size" ({options.max_queue_size}) must be at least '
            f'"max_batch_size" ({options.max_batch_size})'
        )
    if options.retry_max < options.retry_base:
        raise LanternOptionError('lantern: option "retry_max" must be at least "retry_base"')
    return options
