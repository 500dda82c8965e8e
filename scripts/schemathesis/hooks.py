"""schemathesis hooks of `pnpm test:api` (run.mjs sets SCHEMATHESIS_HOOKS to this module).

The document states, in the descriptions of `from` and `to`, rules that JSON Schema cannot state across two
parameters: on the trace and log reads `from` must be before `to`; on GET /metrics (and /metrics/operations,
/metrics/services) and GET /logs/volume too, and the
window is at most 90 days (a missing `to` is now, a missing `from` an hour before `to`); on the trace read
`minDurationMs` may not be above `maxDurationMs`; and a `cursor` is only one the service issued in X-Next-Cursor (an
opaque text). Those answers are 400 validation_failed, declared.
These hooks keep the *positive* (schema-valid) cases inside the stated rules, so the positive_data_acceptance check
judges the rest of each request. Negative cases are left alone and still have to be refused, but for one the
multipart encoding makes valid: an upload whose `file` is a non-string (null goes as the four bytes `null`).
"""
import base64
import json
from datetime import datetime, timedelta, timezone

import schemathesis

READS = {"/ingest/logs", "/logs/project", "/metrics", "/metrics/operations", "/metrics/services", "/logs/volume", "/logs/facets"}
WINDOWED = {"/metrics", "/metrics/operations", "/metrics/services", "/logs/volume"}
MAX_WINDOW = timedelta(days=90)


def _time(value):
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else None


def _issued_cursor(value):
    """A cursor as the service issues it: base64url of the JSON `[timestamp ms, record id]`."""
    try:
        decoded = json.loads(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)))
    except (ValueError, TypeError):
        return False
    return (
        isinstance(decoded, list) and len(decoded) == 2 and isinstance(decoded[0], int)
        and not isinstance(decoded[0], bool) and isinstance(decoded[1], str) and len(decoded[1]) <= 64
    )


def _within_stated_rules(path, query):
    if "cursor" in query and not _issued_cursor(str(query["cursor"])):
        return False
    low, high = query.get("minDurationMs"), query.get("maxDurationMs")
    if isinstance(low, int) and isinstance(high, int) and not isinstance(low, bool) and not isinstance(high, bool) and low > high:
        return False
    start, end = _time(query.get("from")), _time(query.get("to"))
    if path in WINDOWED:
        end = end or datetime.now(timezone.utc)
        start = start or end - timedelta(hours=1)
        return start < end and end - start <= MAX_WINDOW
    return start is None or end is None or start < end


def _file_text_of_non_string(case):
    """A negative upload whose `file` is null, a number, a boolean...: in multipart it goes as the bytes of its
    text (`null`), which are a valid file: the request is not schema-violating any more once serialized."""
    body = case.body
    return (
        case.operation.path == "/ai/docs"
        and isinstance(body, dict)
        and "file" in body
        and not isinstance(body["file"], (str, bytes))
    )


@schemathesis.hook
def filter_case(context, case):
    meta = case.meta
    if meta is None:
        return True
    if not meta.generation.mode.is_positive:
        return not _file_text_of_non_string(case)
    if case.operation.path not in READS or case.operation.method.upper() != "GET":
        return True
    return _within_stated_rules(case.operation.path, case.query or {})
