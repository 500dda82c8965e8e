"""Makes application-supplied values acceptable to the ingest service, and the timestamps of spans and logs.

Strings are cut to 65,536 characters; keys lose dots, NUL and a leading `$`; nesting is cut before the service's
16 levels; cycles, exceptions, bytes, dates, sets and arbitrary objects become JSON.
"""

from __future__ import annotations

import datetime as _dt
import math
import time
import traceback
from typing import Any, Dict, List, Mapping, Optional

MAX_STRING = 65_536
MAX_DEPTH = 14
FORBIDDEN_KEYS = {"__proto__", "constructor", "prototype"}
SAFE_INTEGER = 2**53 - 1


def iso_time(seconds: float) -> str:
    """A time.time() value as ISO 8601 UTC with exactly three fractional digits and Z."""
    ms = int(seconds * 1000)
    whole, milli = divmod(ms, 1000)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
    return f"{stamp}.{milli:03d}Z"


def now_iso() -> str:
    return iso_time(time.time())


def truncate(text: str, limit: int = MAX_STRING) -> str:
    return text if len(text) <= limit else text[:limit]


def safe_str(value: Any) -> str:
    """str(value) for anything, a hostile __str__ included."""
    try:
        return str(value)
    except Exception:
        return "[Unprintable]"


def safe_key(key: Any) -> str:
    k = safe_str(key).replace("\x00", "").replace(".", "_")
    if k.startswith("$"):
        k = "_" + k[1:]
    if k in FORBIDDEN_KEYS:
        k = "_" + k
    k = k[:256]
    return k or "_"


def error_fields(error: BaseException, with_stack: bool) -> Dict[str, Any]:
    out: Dict[str, Any] = {"name": type(error).__name__, "message": truncate(safe_str(error))}
    code = getattr(error, "code", None) if not isinstance(error, SystemExit) else None
    if isinstance(code, str) or (isinstance(code, int) and not isinstance(code, bool)):
        out["code"] = code
    if with_stack:
        out["stack"] = stack_of(error)
    return out


def stack_of(error: BaseException) -> str:
    try:
        return truncate("".join(traceback.format_exception(type(error), error, error.__traceback__)))
    except Exception:
        return ""


def describe_error(error: BaseException, with_stack: bool) -> Dict[str, str]:
    """The `error` (and, if asked, `stack`) fields of a failed span."""
    message = safe_str(error) or type(error).__name__
    out = {"error": truncate(message)}
    if with_stack:
        out["stack"] = stack_of(error)
    return out


def _clean(value: Any, depth: int, ancestors: List[int], with_stack: bool) -> Any:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return truncate(value)
    if isinstance(value, int):
        return value if -SAFE_INTEGER <= value <= SAFE_INTEGER else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if id(value) in ancestors:
        return "[Circular]"
    if depth >= MAX_DEPTH:
        return "[Truncated]"
    if isinstance(value, _dt.datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=_dt.timezone.utc)
        return iso_time(aware.timestamp())
    if isinstance(value, (_dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, BaseException):
        return error_fields(value, with_stack)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"[bytes {len(value)}]"
    ancestors.append(id(value))
    try:
        if isinstance(value, Mapping):
            out: Dict[str, Any] = {}
            for key in list(value.keys())[:10_000]:
                try:
                    item = value[key]
                except Exception:
                    item = "[Unreadable]"
                out[safe_key(key)] = _clean(item, depth + 1, ancestors, with_stack)
            return out
        if isinstance(value, (list, tuple, set, frozenset)):
            return [_clean(v, depth + 1, ancestors, with_stack) for v in list(value)[:10_000]]
        return truncate(safe_str(value))
    finally:
        ancestors.pop()


def clean_fields(fields: Optional[Mapping[str, Any]], with_stack: bool) -> Dict[str, Any]:
    """A clean copy of the application's extra fields (the top level of a log entry is depth 0)."""
    if not fields:
        return {}
    try:
        out = _clean(dict(fields), 0, [], with_stack)
    except Exception:
        return {}
    return out if isinstance(out, dict) else {}


def clean_value(value: Any, with_stack: bool = False) -> Any:
    return _clean(value, 0, [], with_stack)
