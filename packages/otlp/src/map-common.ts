import { attributesOf, type Attribute, AttributeIndex, RejectedItem } from './attributes.js';
import { MAX_CONTEXT_TEXT, MAX_ITEM_TEXT, textSize } from './bounds.js';
import type { OtlpResource, OtlpScope } from './shape.js';

/** What a resource and a scope give every span or log record under them (serviceName, resource, scope). */
export interface Context {
  serviceName?: string;
  resource?: Attribute[];
  scope?: { name: string; version?: string; attributes?: Attribute[] };
}

export function resourceContext(resource: OtlpResource | undefined): Pick<Context, 'serviceName' | 'resource'> {
  const out: Pick<Context, 'serviceName' | 'resource'> = {};
  const serviceName = new AttributeIndex(resource?.attributes).text('service.name');
  if (serviceName !== undefined) out.serviceName = serviceName;
  const attributes = attributesOf(resource?.attributes, 'the resource');
  if (attributes) out.resource = attributes;
  return out;
}

/** The scope, omitted when it has no name. */
export function scopeOf(scope: OtlpScope | undefined): Context['scope'] {
  if (!scope?.name) return undefined;
  const out: NonNullable<Context['scope']> = { name: scope.name };
  if (scope.version) out.version = scope.version;
  const attributes = attributesOf(scope.attributes, 'the scope');
  if (attributes) out.attributes = attributes;
  return out;
}

/** The context's fields, as they go on an item. */
export function contextFields(context: Context): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (context.serviceName !== undefined) out['serviceName'] = context.serviceName;
  if (context.resource) out['resource'] = context.resource;
  if (context.scope) out['scope'] = context.scope;
  return out;
}

/** The outcome of mapping a request: the items to validate and store, and why the others were refused. */
export interface Mapped {
  items: Array<Record<string, unknown>>;
  rejected: string[];
}

/** Runs `fn`; a RejectedItem is returned as its reason, anything else is a fault and thrown. */
function attempt<T>(fn: () => T): T | RejectedItem {
  try {
    return fn();
  } catch (err) {
    if (err instanceof RejectedItem) return err;
    throw err;
  }
}

const CONTEXT_KEYS: ReadonlySet<string> = new Set(['serviceName', 'resource', 'scope']);

/** True when the value's text (bounds.ts textSize) is within `max`; else a RejectedItem with the reason. */
function checkedText(value: unknown, max: number, reason: string, skip?: ReadonlySet<string>): true {
  if (textSize(value, skip) > max) throw new RejectedItem(reason);
  return true;
}

/** The resource -> scope -> items tree of an export request, as both signals have it. */
export type Groups<T> = Array<{ resource: OtlpResource | undefined; scopes: Array<{ scope: OtlpScope | undefined; items: T[] }> }>;

/**
 * Maps every item under its resource and scope. A RejectedItem refuses that item (or every item under a resource
 * or scope that cannot be mapped, e.g. an attribute nested too deep), counted with its reason.
 */
export function forEachItem<T>(groups: Groups<T>, map: (item: T, context: Context) => Record<string, unknown>): Mapped {
  const out: Mapped = { items: [], rejected: [] };
  for (const group of groups) {
    // Once per resource: its spans (or log records) all carry the same attribute list.
    const resource = attempt(() => resourceContext(group.resource));
    for (const { scope: rawScope, items } of group.scopes) {
      const context = attempt((): Context => {
        const scope = scopeOf(rawScope);
        if (resource instanceof RejectedItem) throw resource;
        const context: Context = { ...resource, ...(scope ? { scope } : {}) };
        return checkedText(context, MAX_CONTEXT_TEXT, 'its resource and scope hold more than 64 KiB of text') && context;
      });
      const contextText = context instanceof RejectedItem ? 0 : textSize(contextFields(context));
      for (const item of items) {
        const mapped = context instanceof RejectedItem ? context : attempt(() => {
          const out = map(item, context);
          return checkedText(out, MAX_ITEM_TEXT - contextText, 'it holds more than 1 MiB of text (its resource and scope included)', CONTEXT_KEYS) && out;
        });
        if (mapped instanceof RejectedItem) out.rejected.push(mapped.message);
        else out.items.push(mapped);
      }
    }
  }
  return out;
}

/** The text of partialSuccess.errorMessage: how many were rejected and the first reasons. */
export function rejectionMessage(what: 'spans' | 'log records', reasons: string[]): string {
  const distinct = [...new Set(reasons)];
  const shown = distinct.slice(0, 5).join('; ');
  const more = distinct.length > 5 ? `; and ${distinct.length - 5} other reasons` : '';
  return `${reasons.length} ${what} rejected: ${shown}${more}`.slice(0, 2000);
}
