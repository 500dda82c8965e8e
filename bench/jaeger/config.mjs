// The Jaeger v2 configuration bench/jaeger writes for each run: Badger on disk in a fresh directory (not
// ephemeral), the OTLP/HTTP receiver, the query API, the health check and Jaeger's own metrics, every one of them on
// 127.0.0.1 only. Nothing else listens (no gRPC receiver, no sampling, no pprof, no UI file).
//
// What a 200 from the OTLP receiver means here: the receiver answers once its next consumer returns. Jaeger's
// example config puts the `batch` processor there, which queues the spans in memory and returns at once (a 200
// means "queued"); this config has no processor, and the storage exporter's queue is off (its default, written
// out below), so the receiver's call runs through the exporter into Badger's writes (one transaction a span) and
// a 200 means "written to Badger". Badger's `consistency` (SyncWrites) is false, Jaeger's default: Badger writes
// through mmap, which survives the process but not a hard reboot (no msync). That is Lantern's promise too (SQLite
// in WAL mode with synchronous = NORMAL: a commit is in the WAL, fsync'ed at checkpoints). `--jaeger-sync` sets
// it (stronger than Lantern's); `--jaeger-batch` puts the batch processor back (Jaeger's example pipeline, 200 =
// queued: weaker).

/** @param {{ dataDir: string, ports: { otlp: number, query: number, queryGrpc: number, health: number, metrics: number }, batch?: boolean, syncWrites?: boolean }} o */
export function jaegerConfig({ dataDir, ports, batch = false, syncWrites = false }) {
  const at = (port) => `127.0.0.1:${port}`;
  return `# Written by bench/jaeger/config.mjs for one run.
service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [${batch ? 'batch' : ''}]
      exporters: [jaeger_storage_exporter]
  telemetry:
    resource:
      service.name: jaeger
    metrics:
      level: detailed
      readers:
        - pull:
            exporter:
              prometheus:
                host: 127.0.0.1
                port: ${ports.metrics}
    logs:
      level: warn

extensions:
  healthcheckv2:
    use_v2: true
    http:
      endpoint: ${at(ports.health)}
  jaeger_query:
    storage:
      traces: bench_store
    http:
      endpoint: ${at(ports.query)}
    grpc:
      endpoint: ${at(ports.queryGrpc)}
  jaeger_storage:
    backends:
      bench_store:
        badger:
          directories:
            keys: ${JSON.stringify(`${dataDir}/keys`)}
            values: ${JSON.stringify(`${dataDir}/values`)}
          ephemeral: false
          consistency: ${syncWrites}
          ttl:
            spans: 48h

receivers:
  otlp:
    protocols:
      http:
        endpoint: ${at(ports.otlp)}
${batch ? '\nprocessors:\n  batch:\n' : ''}
exporters:
  jaeger_storage_exporter:
    trace_storage: bench_store
    queue:
      enabled: false
`;
}
