"""W3C Trace Context for Lantern's UUID ids, exactly as `@lantern/sdk-node` writes and reads it.

A trace id is the UUID's 32 hex digits. A span id (also a UUID) does not fit the 16 hex digits of `parent-id`, so
the first 16 go in `traceparent` and the whole id travels in `tracestate` as `lantern=<32 hex>`.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, NamedTuple, Optional

# The Node library's regular expressions: JavaScript's `$` (without the m flag) is Python's `\Z` (Python's `$` also
# matches before a final newline), its `.` is `[^\n\r\u2028\u2029]`.
TRACEPARENT = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-[^\n\r\u2028\u2029]*)?\Z")
MEMBER_KEY = re.compile(r"[a-z0-9][a-z0-9_\-*/]{0,255}(@[a-z][a-z0-9_\-*/]{0,13})?\Z")
HEX32 = re.compile(r"[0-9a-f]{32}\Z")
#: What JavaScript's String.prototype.trim() removes (ECMAScript WhiteSpace and LineTerminator), which is not what
#: str.strip() removes (that one also takes U+001C-U+001F and U+0085, and leaves U+FEFF).
JS_TRIM = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
           "\u2028\u2029\u202f\u205f\u3000\ufeff")
ZEROS_32 = "0" * 32
ZEROS_16 = "0" * 16


class IncomingTrace(NamedTuple):
    """A trace continued from incoming headers."""

    trace_id: str
    parent_span_id: str
    #: Other vendors' tracestate members, to pass on.
    tracestate: Optional[str]


def hex_of(uuid: str) -> str:
    return uuid.replace("-", "").lower()


def uuid_of(hex32: str) -> str:
    return f"{hex32[0:8]}-{hex32[8:12]}-{hex32[12:16]}-{hex32[16:20]}-{hex32[20:32]}"


def outgoing_headers(trace_id: str, span_id: str, other_state: Optional[str] = None) -> Dict[str, str]:
    """The headers an outgoing call carries: this span becomes the callee's parent."""
    span = hex_of(span_id)
    lantern = f"lantern={span}"
    return {
        "traceparent": f"00-{hex_of(trace_id)}-{span[:16]}-01",
        "tracestate": f"{lantern},{other_state}" if other_state else lantern,
    }


def _header_text(value: Any) -> Optional[str]:
    if isinstance(value, bytes):
        return value.decode("latin-1")
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return ",".join(value)
    return None


def parse_traceparent(value: Any) -> Optional[Dict[str, str]]:
    """`traceparent` by the W3C rules, or None (then a new trace starts)."""
    if not isinstance(value, str):
        return None
    # As JavaScript's trim() and `.` (no line terminators): the same strings pass as in the Node library.
    m = TRACEPARENT.match(value.strip(JS_TRIM))
    if not m:
        return None
    version, trace_id, parent_id, _flags, rest = m.groups()
    if version == "ff":
        return None
    if version == "00" and rest is not None:
        return None
    if trace_id == ZEROS_32 or parent_id == ZEROS_16:
        return None
    return {"trace_id": trace_id, "parent_id": parent_id}


def parse_tracestate(value: Any) -> Dict[str, Optional[str]]:
    """Splits `tracestate` into Lantern's span id (32 hex, if well formed) and the other members."""
    text = _header_text(value)
    if not text:
        return {"lantern": None, "others": None}
    lantern: Optional[str] = None
    others: List[str] = []
    for raw in text.split(","):
        member = raw.strip(JS_TRIM)
        eq = member.find("=")
        if eq <= 0:
            continue
        key = member[:eq]
        if not MEMBER_KEY.match(key):
            continue
        if key == "lantern":
            v = member[eq + 1:]
            if lantern is None and HEX32.match(v):
                lantern = v
        elif len(others) < 31:
            others.append(member)
    return {"lantern": lantern, "others": ",".join(others) if others else None}


def parse_incoming(traceparent: Any, tracestate: Any) -> Optional[IncomingTrace]:
    """The trace to continue, or None. The parent is the full UUID from `tracestate` when it agrees with
    `traceparent`, else the 16 hex digits of `traceparent` followed by 16 zeros."""
    parent = parse_traceparent(_header_text(traceparent))
    if parent is None:
        return None
    state = parse_tracestate(tracestate)
    full = state["lantern"]
    parent_hex = full if full and full.startswith(parent["parent_id"]) else parent["parent_id"] + ZEROS_16
    return IncomingTrace(uuid_of(parent["trace_id"]), uuid_of(parent_hex), state["others"])
