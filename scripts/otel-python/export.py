"""Exports one trace and some logs with the OpenTelemetry Python SDK over OTLP/HTTP protobuf, as any Python
service would: BatchSpanProcessor/BatchLogRecordProcessor with OTLPSpanExporter/OTLPLogExporter, configured only
through OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_EXPORTER_OTLP_HEADERS (x-api-key=<key>). Prints the ids and times it
used as JSON on stdout, for the test that reads them back (gateway/test/otel-python.otel.test.ts); exits 1 when
an export failed."""

import json
import sys
import time

from opentelemetry import trace
from opentelemetry._logs import SeverityNumber
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor, LogRecordExportResult
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExportResult
from opentelemetry.trace import SpanKind, Status, StatusCode

MS = 1_000_000  # nanoseconds


class Checked:
    """Delegates to an exporter and remembers whether every export succeeded (the SDK only logs a failure)."""

    def __init__(self, inner, success):
        self.inner, self.success, self.failures, self.exports = inner, success, 0, 0

    def export(self, batch):
        result = self.inner.export(batch)
        self.exports += 1
        if result != self.success:
            self.failures += 1
        return result

    def __getattr__(self, name):
        return getattr(self.inner, name)


def main():
    resource = Resource.create({"service.name": "billing-py", "service.version": "3.1.0"})
    spans = Checked(OTLPSpanExporter(), SpanExportResult.SUCCESS)
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(BatchSpanProcessor(spans))
    logs = Checked(OTLPLogExporter(), LogRecordExportResult.SUCCESS)
    logger_provider = LoggerProvider(resource=resource)
    logger_provider.add_log_record_processor(BatchLogRecordProcessor(logs))

    tracer = tracer_provider.get_tracer("billing.http", "0.9.0")
    logger = logger_provider.get_logger("billing.logs", "0.9.0")
    t0 = (time.time_ns() // (1000 * MS)) * 1000 * MS - 60_000 * MS  # a whole second, a minute ago

    server = tracer.start_span(
        "POST /invoices",
        kind=SpanKind.SERVER,
        start_time=t0,
        attributes={"http.request.method": "POST", "url.path": "/invoices", "url.query": "draft=1",
                    "http.response.status_code": 502, "http.route": "/invoices"},
    )
    in_server = trace.set_span_in_context(server)
    client = tracer.start_span(
        "GET",
        kind=SpanKind.CLIENT,
        context=in_server,
        start_time=t0 + 10 * MS,
        attributes={"http.request.method": "GET", "url.full": "http://tax.internal:9000/rates?country=FR",
                    "http.response.status_code": 504},
    )
    client.set_status(Status(StatusCode.ERROR, "tax service timed out"))
    client.end(end_time=t0 + 80 * MS)
    internal = tracer.start_span("computeTotals", kind=SpanKind.INTERNAL, context=in_server, start_time=t0 + 90 * MS,
                                 attributes={"invoice.lines": 4, "invoice.amount": 99.5, "invoice.paid": False,
                                             "invoice.tags": ["b2b", "eu"]})
    try:
        raise ValueError("negative amount")
    except ValueError as error:
        internal.record_exception(error, timestamp=t0 + 95 * MS)
    internal.end(end_time=t0 + 100 * MS)
    server.set_status(Status(StatusCode.ERROR))
    server.end(end_time=t0 + 120 * MS)

    logger.emit(timestamp=t0 + 5 * MS, observed_timestamp=t0 + 6 * MS, context=in_server,
                severity_number=SeverityNumber.ERROR, severity_text="ERROR", body="invoice rejected",
                attributes={"invoice.id": "inv-7", "attempt": 2})
    logger.emit(timestamp=t0 + 7 * MS, context=in_server, severity_number=SeverityNumber.INFO, body="totals computed")
    logger.emit(timestamp=t0 + 8 * MS, severity_text="warning", body={"queue": "invoices", "depth": 12})

    ids = {
        "t0Ms": t0 // MS,
        "traceId": format(server.get_span_context().trace_id, "032x"),
        "server": format(server.get_span_context().span_id, "016x"),
        "client": format(client.get_span_context().span_id, "016x"),
        "internal": format(internal.get_span_context().span_id, "016x"),
    }
    tracer_provider.shutdown()  # flushes the batch processors
    logger_provider.shutdown()
    ids["exports"] = {"spans": spans.exports, "logs": logs.exports}
    print(json.dumps(ids))
    if spans.failures or logs.failures or not spans.exports or not logs.exports:
        print(f"export failed: spans {spans.failures}/{spans.exports}, logs {logs.failures}/{logs.exports}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
