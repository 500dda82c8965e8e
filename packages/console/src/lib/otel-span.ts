/**
 * What an OpenTelemetry span carries beyond Lantern's own fields, read from a stored span (docs/opentelemetry.md,
 * "The mapping"): name, kind, service.name, status, attributes, resource, scope, events and links.
 * Pure and defensive: the span is whatever a client sent (a Lantern SDK user may send an extra field called
 * `status` or `name` of any shape), so each field is taken only when it has the OTLP-mapped shape, and a field that
 * does not stays where it was, among "All fields". Unit-tested in packages/console/test/otel-span.test.ts.
 */
import type { Span } from '../api/types';
import { spanName } from './format';

/** An attribute as stored: OTel keys have dots, so attributes stay a list of pairs rather than an object. */
export interface KeyValue { key: string; value: unknown }

export interface OtelStatus { code: 'ok' | 'error'; message?: string }
export interface OtelScope { name: string; version?: string; attributes: KeyValue[] }
export interface OtelException { type?: string; message?: string; stacktrace?: string }
export interface OtelEvent {
  name: string;
  timestamp: string | undefined;
  /** From the span's start to the event, in ms; undefined when either time is unreadable. */
  offsetMs: number | undefined;
  /** The event's attributes, less the exception.* ones read into `exception`. */
  attributes: KeyValue[];
  /** Set for an `exception` event: exception.type, exception.message, exception.stacktrace when strings. */
  exception?: OtelException;
}
export interface OtelLink { traceId: string; spanId: string; attributes: KeyValue[] }

export interface OtelView {
  kind?: string;
  status?: OtelStatus;
  scope?: OtelScope;
  attributes?: KeyValue[];
  resource?: KeyValue[];
  events?: OtelEvent[];
  links?: OtelLink[];
  /** The fields shown in their own place (facts, tables), so left out of "All fields". */
  shown: Set<string>;
}

const KINDS = new Set(['unspecified', 'internal', 'server', 'client', 'producer', 'consumer']);
const EXCEPTION_KEYS = ['exception.type', 'exception.message', 'exception.stacktrace'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Whether `v` is a list of `{ key, value }` pairs (an attributes list, or a kvlistValue inside one). */
export function isKeyValueList(v: unknown): v is KeyValue[] {
  return Array.isArray(v) && v.every((e) => isObject(e) && typeof e['key'] === 'string' && 'value' in e);
}

/** A string attribute of an OpenTelemetry span (its `attributes` list), when it has one. */
function attribute(span: Span, key: string): string | undefined {
  const list = span['attributes'];
  if (!isKeyValueList(list)) return undefined;
  return text(list.find((kv) => kv.key === key)?.value);
}

/**
 * What the waterfall labels a span with: its OpenTelemetry name, else the name part of its `requestMethod`. A
 * server span named by its method alone gets its route after it: Lantern's `route` (set by the Node library's
 * Express middleware) or OpenTelemetry's `http.route` (a `POST` becomes `POST /charge`).
 */
export function spanLabel(span: Span): string {
  const label = text(span['name']) ?? spanName(typeof span.requestMethod === 'string' ? span.requestMethod : '');
  const server = span['kind'] === 'server' || (typeof span.requestMethod === 'string' && span.requestMethod.startsWith('controller:'));
  const route = text(span['route']) ?? attribute(span, 'http.route');
  return server && route !== undefined && !label.includes(' ') && !label.includes('/') ? `${label} ${route}` : label;
}

/** The span's `serviceName` (resource attribute service.name), when it has one. */
export function spanService(span: Span): string | undefined {
  return text(span['serviceName']);
}

/** An OpenTelemetry status of ERROR. */
export function hasErrorStatus(span: Span): boolean {
  const s = span['status'];
  return isObject(s) && s['code'] === 'error';
}

/** Plain JSON of an attribute value, on one line: strings as they are, everything else as compact JSON. */
export function valueText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '';
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** "name@version", or the name alone. */
export function scopeText(scope: OtelScope): string {
  return scope.version ? `${scope.name}@${scope.version}` : scope.name;
}

function readStatus(v: unknown): OtelStatus | undefined {
  if (!isObject(v) || (v['code'] !== 'ok' && v['code'] !== 'error')) return undefined;
  const message = text(v['message']);
  return message === undefined ? { code: v['code'] } : { code: v['code'], message };
}

function readScope(v: unknown): OtelScope | undefined {
  if (!isObject(v) || !text(v['name'])) return undefined;
  const attributes = isKeyValueList(v['attributes']) ? v['attributes'] : [];
  const version = text(v['version']);
  return { name: v['name'] as string, ...(version ? { version } : {}), attributes };
}

function readEvent(v: unknown, startMs: number): OtelEvent | undefined {
  if (!isObject(v) || typeof v['name'] !== 'string') return undefined;
  if (v['attributes'] !== undefined && !isKeyValueList(v['attributes'])) return undefined;
  const all = (v['attributes'] as KeyValue[] | undefined) ?? [];
  const timestamp = text(v['timestamp']);
  const at = timestamp === undefined ? NaN : Date.parse(timestamp);
  const offsetMs = Number.isFinite(at) && Number.isFinite(startMs) ? at - startMs : undefined;
  const event: OtelEvent = { name: v['name'], timestamp, offsetMs, attributes: all };
  if (v['name'] === 'exception') {
    const exception: OtelException = {};
    for (const key of EXCEPTION_KEYS) {
      const found = all.find((a) => a.key === key);
      if (found && typeof found.value === 'string') exception[key.slice('exception.'.length) as keyof OtelException] = found.value;
    }
    event.exception = exception;
    event.attributes = all.filter((a) => !(EXCEPTION_KEYS as readonly string[]).includes(a.key) || typeof a.value !== 'string');
  }
  return event;
}

function readLink(v: unknown): OtelLink | undefined {
  if (!isObject(v) || !text(v['traceId']) || !text(v['spanId'])) return undefined;
  if (v['attributes'] !== undefined && !isKeyValueList(v['attributes'])) return undefined;
  return { traceId: v['traceId'] as string, spanId: v['spanId'] as string, attributes: (v['attributes'] as KeyValue[] | undefined) ?? [] };
}

/** Every element read by `read`, or undefined when `v` is not a list or one element is not of the shape. */
function readList<T>(v: unknown, read: (e: unknown) => T | undefined): T[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: T[] = [];
  for (const e of v) {
    const r = read(e);
    if (r === undefined) return undefined;
    out.push(r);
  }
  return out;
}

/** The OpenTelemetry fields of a span that has them in the OTLP-mapped shape; `shown` is empty for a span with none. */
export function otelView(span: Span): OtelView {
  const view: OtelView = { shown: new Set() };
  const take = <K extends keyof OtelView>(field: string, key: K, value: OtelView[K] | undefined) => {
    if (value === undefined) return;
    view[key] = value;
    view.shown.add(field);
  };
  if (text(span['name'])) view.shown.add('name');
  if (spanService(span)) view.shown.add('serviceName');
  const kind = span['kind'];
  take('kind', 'kind', typeof kind === 'string' && KINDS.has(kind) ? kind : undefined);
  take('status', 'status', readStatus(span['status']));
  take('scope', 'scope', readScope(span['scope']));
  take('attributes', 'attributes', isKeyValueList(span['attributes']) ? span['attributes'] : undefined);
  take('resource', 'resource', isKeyValueList(span['resource']) ? span['resource'] : undefined);
  const startMs = Date.parse(span.timestamp);
  take('events', 'events', readList(span['events'], (e) => readEvent(e, startMs)));
  take('links', 'links', readList(span['links'], readLink));
  return view;
}
