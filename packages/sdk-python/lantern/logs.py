"""Logs: `lantern.log.error(message, **fields)` and the other levels, and a `logging.Handler`."""

from __future__ import annotations

import datetime
import json
import logging
from typing import Any, Callable, Dict, Mapping, Optional, Union

from .context import ContextStore
from .options import LOG_LEVELS
from .sanitize import clean_fields, clean_value, error_fields, now_iso, safe_str, time_of, to_json, truncate

#: Keys the library sets; an application field of that name is kept as `_<name>`. (`invalidTimestamp`: this
#: library's own, the Node library writes no such field.)
RESERVED = {"traceId", "spanId", "level", "type", "message", "timestamp", "clientTimestamp", "id", "projectId",
            "applicationId", "invalidTimestamp"}


def _message_text(message: Any) -> str:
    if isinstance(message, str):
        return message
    if isinstance(message, BaseException):
        return safe_str(message) or type(message).__name__
    if isinstance(message, (dict, list, tuple)):
        try:
            return json.dumps(clean_value(message), separators=(",", ":"), ensure_ascii=False)
        except Exception:
            pass
    return safe_str(message)


def build_log_entry(level: str, message: Any, fields: Optional[Mapping[str, Any]], trace_id: Optional[str],
                    span_id: Optional[str], capture_stack: bool, timestamp: Any = None) -> str:
    """One log entry as JSON: the application's fields first, then the reserved keys, which always win. A
    `timestamp` that is not a time is replaced by now, and kept as text in `invalidTimestamp`."""
    now = now_iso()
    entry: Dict[str, Any] = {}
    for key, value in clean_fields(fields, capture_stack).items():
        entry[f"_{key}" if key in RESERVED else key] = value
    stamp = time_of(timestamp) if timestamp is not None else now
    if stamp is None:
        entry["invalidTimestamp"] = truncate(safe_str(timestamp), 200)
    if isinstance(message, BaseException) and "error" not in entry:
        entry["error"] = error_fields(message, capture_stack)
    if trace_id is not None:
        entry["traceId"] = trace_id
        entry["spanId"] = span_id
    entry["level"] = level
    entry["type"] = "app"
    entry["message"] = truncate(_message_text(message))
    entry["timestamp"] = stamp or now
    entry["clientTimestamp"] = now
    return to_json(entry)


class LogApi:
    """`trace`, `debug`, `info`, `warn` (`warning`), `error`: buffered. `fatal`: sent in its own request in the
    caller's thread before it returns (delivered, refused, or kept at the front of the queue for a retry), unless
    another fatal log is being sent or the logs wait out a backoff: then it goes to the front of the queue, for
    the sender thread, and the call returns at once."""

    def __init__(self, store: ContextStore, min_level: str, capture_stack: bool,
                 record: Callable[[str, bool], None], on_error: Callable[[BaseException], None]) -> None:
        self._store = store
        self._min = LOG_LEVELS.index(min_level)
        self._capture_stack = capture_stack
        self.capture_stack = capture_stack
        self._record = record
        self._on_error = on_error

    def write(self, level: str, message: Any, fields: Optional[Mapping[str, Any]] = None,
              timestamp: Optional[Union[float, datetime.datetime]] = None) -> None:
        """Any level; `timestamp` (a time.time() value, or a datetime) when the event happened if it was not now
        (anything else: now, the value kept in the field `invalidTimestamp`)."""
        try:
            if level not in LOG_LEVELS:
                level = "info"
            if LOG_LEVELS.index(level) < self._min:
                return
            span = self._store.current()
            entry = build_log_entry(level, message, fields, span.trace_id if span else None,
                                    span.span_id if span else None, self._capture_stack, timestamp)
            self._record(entry, level == "fatal")
        except Exception as error:
            self._on_error(error)

    def trace(self, message: Any, /, **fields: Any) -> None:
        self.write("trace", message, fields)

    def debug(self, message: Any, /, **fields: Any) -> None:
        self.write("debug", message, fields)

    def info(self, message: Any, /, **fields: Any) -> None:
        self.write("info", message, fields)

    def warn(self, message: Any, /, **fields: Any) -> None:
        self.write("warn", message, fields)

    warning = warn

    def error(self, message: Any, /, **fields: Any) -> None:
        self.write("error", message, fields)

    def fatal(self, message: Any, /, **fields: Any) -> None:
        self.write("fatal", message, fields)


#: Attributes every logging.LogRecord has; the others are the application's `extra=` fields.
_RECORD_ATTRS = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime", "taskName"}


def lantern_level(levelno: int) -> str:
    if levelno >= logging.CRITICAL:
        return "fatal"
    if levelno >= logging.ERROR:
        return "error"
    if levelno >= logging.WARNING:
        return "warn"
    if levelno >= logging.INFO:
        return "info"
    if levelno >= logging.DEBUG:
        return "debug"
    return "trace"


class LanternHandler(logging.Handler):
    """Sends every record to Lantern with the trace of the request it was logged in. CRITICAL is `fatal`
    (sent at once). `extra=` fields become fields; `logger` is the logger's name; an exception becomes `error`."""

    def __init__(self, log: LogApi, level: int = logging.NOTSET) -> None:
        super().__init__(level)
        self._log = log

    def emit(self, record: logging.LogRecord) -> None:
        try:
            if record.name == "lantern" or record.name.startswith("lantern."):
                return  # the library's own logger never loops back into it
            fields: Dict[str, Any] = {k: v for k, v in vars(record).items() if k not in _RECORD_ATTRS}
            fields["logger"] = record.name
            if record.exc_info and record.exc_info[1] is not None:
                fields.setdefault("error", error_fields(record.exc_info[1], self._log.capture_stack))
            self._log.write(lantern_level(record.levelno), record.getMessage(), fields, record.created)
        except Exception:
            self.handleError(record)
