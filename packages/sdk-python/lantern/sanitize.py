"""Makes application-supplied values acceptable to the ingest service, and the timestamps of spans and logs.

Strings are cut to 65,536 characters; keys lose dots, NUL and a leading `$`; nesting is cut before the service's
16 levels; cycles, exceptions, bytes, dates, sets and arbitrary objects become JSON.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import time
import traceback
from typing import Any, Dict, List, Mapping, Optional

MAX_STRING = 65_536
MAX_DEPTH = 14
FORBIDDEN_KEYS = {"__proto__", "constructor", "prototype"}
SAFE_INTEGER = 2**53 - 1

#: json.dumps(value, separators=(",", ":"), ensure_ascii=True), with one encoder made once (json.dumps makes one
#: per call when given options).
to_json = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True).encode


def iso_time(seconds: float) -> str:
    """A time.time() value as ISO 8601 UTC with exactly three fractional digits and Z."""
    ms = int(seconds * 1000)
    whole, milli = divmod(ms, 1000)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
    return f"{stamp}.{milli:03d}Z"


def now_iso() -> str:
    return iso_time(time.time())


_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
#: The years an ISO 8601 timestamp of four digits can hold (as the Node library accepts: 0000 is left out here).
_FIRST, _LAST = -62135596800.0, 253402300800.0


def time_of(value: Any) -> Optional[str]:
    """A time the application gives (a time.time() value, or a datetime: naive is UTC) as iso_time() writes it;
    None for anything else, or a time outside the years 1 to 9999."""
    try:
        if isinstance(value, _dt.datetime):
            seconds = (value if value.tzinfo else value.replace(tzinfo=_dt.timezone.utc)).timestamp()
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            seconds = float(value)
        else:
            return None
        if not (math.isfinite(seconds) and _FIRST <= seconds < _LAST):
            return None
        at = _EPOCH + _dt.timedelta(milliseconds=int(seconds * 1000))
        return (f"{at.year:04d}-{at.month:02d}-{at.day:02d}T{at.hour:02d}:{at.minute:02d}:{at.second:02d}."
                f"{at.microsecond // 1000:03d}Z")
    except (ArithmeticError, ValueError, OSError):
        return None


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
