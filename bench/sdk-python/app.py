"""The Flask app of bench/sdk-python: GET /hello answering {"hello": "world"}, served by gunicorn (gunicorn.conf.py)
in one of three variants, chosen by BENCH_VARIANT:

- bare: Flask only;
- lantern: `app.wsgi_app = lantern.wsgi(app.wsgi_app)` (a root span per request), every option at its default but
  api_key and ingest_url (batches of 500 sent as soon as 500 are buffered, else every 30 s; gzip above 1 KiB);
- otel: a TracerProvider with a BatchSpanProcessor at its defaults (queue 2048, batches of 512 exported as soon
  as 512 are queued, else every 5 s) and the OTLP/HTTP protobuf exporter, and
  `FlaskInstrumentor().instrument_app(app)` (a SERVER span per request). Traces only: no MeterProvider is set, so
  the instrumentation's duration histograms go to the API's no-op meter.

With BENCH_CHILD_SPAN=1 the route's work also runs in one manual child span (`lantern.service("greeting")`,
`tracer.start_as_current_span("greeting")`). Both SDKs export to the sink of run.mjs (BENCH_SINK_URL).
A diagnostic variant, lantern-disabled (`Lantern(enabled=False)`: the middleware and its context work, nothing is
recorded or sent), splits Lantern's cost between the request path and recording/export.
`finish()` (called by gunicorn's worker_exit hook) flushes the SDK and writes what the worker did to
BENCH_STATS_FILE.
"""

import json
import os
import time

from flask import Flask

VARIANT = os.environ.get("BENCH_VARIANT", "bare")
CHILD_SPAN = os.environ.get("BENCH_CHILD_SPAN") == "1"
SINK_URL = os.environ.get("BENCH_SINK_URL", "http://127.0.0.1:1")

app = Flask(__name__)
served = 0


def greeting():
    global served
    served += 1  # counted by every variant alike (one thread at a time holds the GIL: close enough for a check)
    return {"hello": "world"}


def _flush_nothing():
    return None


flush = _flush_nothing
span_around = None

if VARIANT == "bare":
    pass
elif VARIANT in ("lantern", "lantern-disabled"):
    from lantern import Lantern

    if VARIANT == "lantern":
        lantern = Lantern(api_key="bench-key", ingest_url=SINK_URL)
    else:
        lantern = Lantern(enabled=False)
    app.wsgi_app = lantern.wsgi(app.wsgi_app)
    span_around = lambda: lantern.service("greeting")  # noqa: E731

    def flush():
        return lantern.close().as_dict()["traces"]

elif VARIANT == "otel":
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.instrumentation.flask import FlaskInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": "bench-otel"}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{SINK_URL}/v1/traces")))
    trace.set_tracer_provider(provider)
    FlaskInstrumentor().instrument_app(app, tracer_provider=provider)
    tracer = trace.get_tracer("bench")
    span_around = lambda: tracer.start_as_current_span("greeting")  # noqa: E731

    def flush():
        provider.shutdown()
        return None

else:
    raise SystemExit(f"BENCH_VARIANT must be bare, lantern, lantern-disabled or otel (got {VARIANT!r})")


if CHILD_SPAN and span_around is not None:
    @app.get("/hello")
    def hello():
        with span_around():
            return greeting()
else:
    @app.get("/hello")
    def hello():
        return greeting()


def finish():
    """At the worker's exit: flush the SDK (lantern.close(), provider.shutdown()), then write the figures."""
    t0 = time.perf_counter()
    try:
        telemetry = flush()
    except Exception as error:  # reported, not raised: the stats file is still written
        telemetry = {"flushError": repr(error)}
    stats = {"variant": VARIANT, "served": served, "flushMs": round((time.perf_counter() - t0) * 1000),
             "telemetry": telemetry, "pid": os.getpid()}
    path = os.environ.get("BENCH_STATS_FILE")
    if path:
        with open(path, "w") as f:
            json.dump(stats, f)
