"""In-process loop of bench/sdk-python's --profile mode: the Flask app of app.py (variant from BENCH_VARIANT, as
under gunicorn) called directly as a WSGI application, one GET /hello after the other in this thread, without a
server or sockets, so that the SDK's own cost per request stands out. The SDK's export thread runs as usual.
Prints one JSON line: requests, CPU µs per request of the process (time.process_time: every thread) and of the
main thread alone (time.thread_time: the request path; the rest is the SDK's export thread), wall µs per request,
and the SDK's figures after its flush.

    python profile.py REQUESTS [WARMUP]

With BENCH_HANDSHAKE=1 it prints "warm" after the warm-up and "done" after the measured loop, and each time waits
for a line on stdin: run.mjs attaches py-spy in between, so that the profile holds the loop only (no imports,
warm-up or final flush).
"""

import json
import os
import sys
import time

from werkzeug.test import EnvironBuilder

import app as bench

requests = int(sys.argv[1])
warmup = int(sys.argv[2]) if len(sys.argv) > 2 else requests // 10
template = EnvironBuilder(path="/hello", base_url="http://127.0.0.1:8000").get_environ()
wsgi = bench.app
statuses = []
handshake = os.environ.get("BENCH_HANDSHAKE") == "1"


def start_response(status, headers, exc_info=None):
    statuses.append(status)


def one():
    body = wsgi(dict(template), start_response)
    for _ in body:
        pass
    close = getattr(body, "close", None)
    if close is not None:
        close()


def wait(word):
    if handshake:
        print(word, flush=True)
        sys.stdin.readline()


for _ in range(warmup):
    one()
statuses.clear()
wait("warm")
cpu0, main0, wall0 = time.process_time(), time.thread_time(), time.perf_counter()
for _ in range(requests):
    one()
cpu, main, wall = time.process_time() - cpu0, time.thread_time() - main0, time.perf_counter() - wall0
wait("done")
ok = sum(1 for s in statuses if s.startswith("200"))
bench.finish()
stats = {}
path = os.environ.get("BENCH_STATS_FILE")
if path and os.path.exists(path):
    with open(path) as f:
        stats = json.load(f)
print(json.dumps({"variant": bench.VARIANT, "requests": requests, "ok": ok,
                  "cpuUsPerRequest": cpu * 1e6 / requests,
                  "mainThreadUsPerRequest": main * 1e6 / requests,
                  "otherThreadsUsPerRequest": (cpu - main) * 1e6 / requests,
                  "wallUsPerRequest": wall * 1e6 / requests, "served": bench.served,
                  "telemetry": stats.get("telemetry"), "flushMs": stats.get("flushMs")}))
