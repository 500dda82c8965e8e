import { attributesOf, plainValue } from './attributes.js';
import { isoOfNanos, nanosOf, optionalId, spanUuid, traceUuid } from './ids-time.js';
import { contextFields, type Context, forEachItem, type Mapped } from './map-common.js';
import type { OtlpAnyValue, OtlpLogRecord, OtlpLogsRequest } from './shape.js';

export type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
const BY_RANGE: Level[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

const TEXT_LEVELS: Record<string, Level> = {
  trace: 'trace', debug: 'debug', info: 'info', information: 'info', warn: 'warn', warning: 'warn',
  error: 'error', fatal: 'fatal', critical: 'fatal',
};

/** A severity number (1-24) from a number or its name (`SEVERITY_NUMBER_WARN2`); 0 for anything else. */
export function severityNumberOf(value: number | string | undefined): number {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 1 && value <= 24 ? value : 0;
  if (typeof value !== 'string') return 0;
  const m = /^SEVERITY_NUMBER_(TRACE|DEBUG|INFO|WARN|ERROR|FATAL)([234])?$/.exec(value);
  if (!m) return 0;
  return BY_RANGE.indexOf(m[1]!.toLowerCase() as Level) * 4 + Number(m[2] ?? 1);
}

/** 1-4 trace, 5-8 debug, 9-12 info, 13-16 warn, 17-20 error, 21-24 fatal; else from the text; else info. */
export function levelOf(severityNumber: number | string | undefined, severityText: string | undefined): Level {
  const n = severityNumberOf(severityNumber);
  if (n > 0) return BY_RANGE[Math.floor((n - 1) / 4)]!;
  return TEXT_LEVELS[(severityText ?? '').trim().toLowerCase()] ?? 'info';
}

/** The body: a string as is, any other value as the JSON text of its plain value, none as ''. */
export function messageOf(body: OtlpAnyValue | undefined): string {
  if (body === undefined || body === null) return '';
  if (body.stringValue !== undefined) return body.stringValue;
  const plain = plainValue(body);
  return plain === null ? '' : JSON.stringify(plain);
}

/** One OTLP log record as a Lantern log candidate (validated next with normalizeLog's verdicts: builtLogNormalizer); throws RejectedItem. */
export function mapLogRecord(record: OtlpLogRecord, context: Context, receivedAt: string): Record<string, unknown> {
  const traceId = optionalId(record.traceId, traceUuid, 'traceId');
  const spanId = optionalId(record.spanId, spanUuid, 'spanId');
  const time = nanosOf(record.timeUnixNano);
  const observed = nanosOf(record.observedTimeUnixNano);
  const timestamp = time !== undefined ? isoOfNanos(time, 'timeUnixNano') : observed !== undefined ? isoOfNanos(observed, 'observedTimeUnixNano') : receivedAt;
  const out: Record<string, unknown> = {
    level: levelOf(record.severityNumber, record.severityText),
    message: messageOf(record.body),
    timestamp,
    clientTimestamp: observed !== undefined ? isoOfNanos(observed, 'observedTimeUnixNano') : timestamp,
    type: 'app',
  };
  if (traceId !== undefined) out['traceId'] = traceId;
  if (spanId !== undefined) out['spanId'] = spanId;
  if (record.severityText) out['severityText'] = record.severityText;
  if (record.eventName) out['eventName'] = record.eventName;
  Object.assign(out, contextFields(context));
  const attributes = attributesOf(record.attributes, 'the log record');
  if (attributes) out['attributes'] = attributes;
  return out;
}

/** Every log record of an export request, mapped; the refused ones counted with their reasons. */
export function mapLogs(request: OtlpLogsRequest, receivedAt: string): Mapped {
  const groups = (request.resourceLogs ?? []).map((rl) => ({
    resource: rl.resource,
    scopes: (rl.scopeLogs ?? []).map((sl) => ({ scope: sl.scope, items: sl.logRecords ?? [] })),
  }));
  return forEachItem(groups, (record: OtlpLogRecord, context) => mapLogRecord(record, context, receivedAt));
}
