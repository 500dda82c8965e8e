"""`traceparent` and `tracestate` accepted and refused exactly as `@lantern/sdk-node` does (review item 7): one
table, checked against the expected outcome and against the Node library's own parser (its built dist)."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any, List, Optional, Tuple

import pytest
from real_lantern import ROOT

from lantern.traceparent import parse_incoming

T = "4bf92f3577b34da6a3ce929d0e0e4736"
S = "00f067aa0ba902b7"
FULL = S + "8899aabbccddeeff"
V = f"00-{T}-{S}-01"
NODE_PARSER = os.path.join(ROOT, "packages", "sdk-node", "dist", "traceparent.js")

# (traceparent, accepted): JavaScript's trim() (not str.strip()) around it, a W3C value inside.
TRACEPARENTS: List[Tuple[Any, bool]] = [
    (V, True), (f"  {V}  ", True), (f"\t{V}\t", True), (f"{V}\n", True), (f"{V}\r\n", True), (f"\v{V}\f", True),
    (f"\xa0{V}\u3000", True), (f"\u2028{V}\u2029", True), (f"\ufeff{V}", True), (f"\u2000{V}\u200a\u202f", True),
    (f"{V}\x85", False), (f"\x1c{V}", False), (f"{V}\x1f", False), (f"{V}\u180e", False), (f"{V}\x00", False),
    (f"{V}\n{V}", False), (f"{V},{V}", False), (f"01-{T}-{S}-01,01-{T}-{S}-01", False), ([V], True), ([V, V], False),
    (f"01-{T}-{S}-01-future", True), (f"01-{T}-{S}-01-", True), (f"01-{T}-{S}-01-a\n", True),
    (f"01-{T}-{S}-01-a\nb", False), (f"01-{T}-{S}-01-a\u2028", True), (f"01-{T}-{S}-01-a\u2028b", False),
    (f"01-{T}-{S}-01-a\rb", False), (f"01-{T}-{S}-01x", False), (f"00-{T}-{S}-01-", False),
    (f"00-{T}-{S}-01-x", False), (f"ff-{T}-{S}-01", False), (f"fe-{T}-{S}-01", True),
    (f"00-{'0' * 32}-{S}-01", False), (f"00-{T}-{'0' * 16}-01", False), (f"00-{T.upper()}-{S}-01", False),
    (f"0-{T}-{S}-01", False), (f"00-{T}-{S}-1", False), (f"00-{T}-{S}-0g", False), (f"00-{T}a-{S}-01", False),
    (f"00-{T}-{S}-01 x", False), (f"00 -{T}-{S}-01", False), ("", False), (" ", False), (None, False), (42, False),
]

# (tracestate, parent span id in hex, other members) with the valid traceparent V.
TRACESTATES: List[Tuple[Any, str, Optional[str]]] = [
    (f"lantern={FULL}", FULL, None),
    (f" foo=bar , lantern={FULL} ,x@y=z", FULL, "foo=bar,x@y=z"),
    (f"lantern={FULL}\n", FULL, None),
    (f"foo\n=bar,lantern={FULL}", FULL, None),
    ("\ufefffoo=bar", S + "0" * 16, "foo=bar"),
    ("foo=bar\x85", S + "0" * 16, "foo=bar\x85"),
    ("\x1cfoo=bar", S + "0" * 16, None),
    (f"lantern={FULL.upper()}", S + "0" * 16, None),
    (f"lantern={'1' * 32}", S + "0" * 16, None),
    (f"lantern={FULL}\n1", S + "0" * 16, None),
    (f"LANTERN={FULL},a=1", S + "0" * 16, "a=1"),
    ("=x,a,b=2,c==3", S + "0" * 16, "b=2,c==3"),
    (["a=1", f"lantern={FULL}"], FULL, "a=1"),
    (",".join(f"k{i}=v" for i in range(40)), S + "0" * 16, ",".join(f"k{i}=v" for i in range(31))),
    (None, S + "0" * 16, None), ("", S + "0" * 16, None), (7, S + "0" * 16, None),
]


def uuid_of(hex32: str) -> str:
    return f"{hex32[0:8]}-{hex32[8:12]}-{hex32[12:16]}-{hex32[16:20]}-{hex32[20:32]}"


def python_result(traceparent: Any, tracestate: Any) -> Optional[List[Optional[str]]]:
    found = parse_incoming(traceparent, tracestate)
    return None if found is None else [found.trace_id, found.parent_span_id, found.tracestate]


def cases() -> List[Tuple[Any, Any]]:
    return [(header, None) for header, _ in TRACEPARENTS] + [(V, state) for state, _, _ in TRACESTATES]


@pytest.mark.parametrize("header, accepted", TRACEPARENTS)
def test_traceparent_table(header, accepted):
    assert (parse_incoming(header, None) is not None) is accepted


@pytest.mark.parametrize("state, parent, others", TRACESTATES)
def test_tracestate_table(state, parent, others):
    assert python_result(V, state) == [uuid_of(T), uuid_of(parent), others]


def test_the_node_library_accepts_and_refuses_the_same_inputs():
    if not os.path.exists(NODE_PARSER):
        message = f"{NODE_PARSER} is missing: build the checkout first (pnpm build)"
        if os.environ.get("LANTERN_SDK_PYTHON_REQUIRE_EMBEDDED") == "1":
            pytest.fail(message)
        pytest.skip(message)
    script = (
        "import { pathToFileURL } from 'node:url';"
        "import { readFileSync } from 'node:fs';"
        f"const {{ parseIncoming }} = await import(pathToFileURL({json.dumps(NODE_PARSER)}).href);"
        "const out = JSON.parse(readFileSync(0, 'utf8')).map(([p, s]) => {"
        "  const r = parseIncoming(p, s); return r ? [r.traceId, r.parentSpanId, r.tracestate ?? null] : null; });"
        "process.stdout.write(JSON.stringify(out));"
    )
    table = cases()
    done = subprocess.run(["node", "--input-type=module", "-e", script], input=json.dumps(table),
                          capture_output=True, text=True, timeout=60, check=True)
    node = json.loads(done.stdout)
    python = [python_result(p, s) for p, s in table]
    differ = [(table[i], python[i], node[i]) for i in range(len(table)) if python[i] != node[i]]
    assert differ == []
