import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import { errors } from './errors.js';
import { allSchemas } from './schemas/index.js';

// ajv-formats is CommonJS with a default export; under NodeNext it arrives as the module object.
const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (a: Ajv2020) => void;

export interface ValidationIssue {
  path: string;
  message: string;
}

const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, allowUnionTypes: true });
addFormats(ajv);
for (const schema of allSchemas) ajv.addSchema(schema);

export function describeErrors(errs: ErrorObject[] | null | undefined): ValidationIssue[] {
  // A field name refused by `propertyNames` comes as two errors: the name's own (pattern...) and propertyNames'.
  // One is said, naming the field.
  const said = (errs ?? []).filter((e) => e.keyword === 'propertyNames' || e.params['propertyName'] === undefined);
  return said.slice(0, 20).map((e) => {
    if (e.keyword === 'propertyNames') {
      return { path: `${e.instancePath}/${String(e.params['propertyName'])}`, message: 'is not an allowed field name (no leading $, no dots, no NUL, at most 256 characters, not __proto__, constructor or prototype)' };
    }
    let path = e.instancePath || '/';
    if (e.keyword === 'required') path = `${e.instancePath}/${String(e.params['missingProperty'])}`;
    if (e.keyword === 'additionalProperties') path = `${e.instancePath}/${String(e.params['additionalProperty'])}`;
    const message =
      e.keyword === 'additionalProperties' ? 'is not an allowed field' : e.keyword === 'required' ? 'is required' : e.message ?? 'is invalid';
    return { path, message };
  });
}

export function issueText(issue: ValidationIssue): string {
  return `${issue.path} ${issue.message}`;
}

export interface Validator<T> {
  (value: unknown): value is T;
  /** Throws a 400 validation_failed whose details name the failing paths. */
  assert(value: unknown, what?: string): T;
  issues(value: unknown): ValidationIssue[];
}

/**
 * The same schemas on an Ajv that stops at the first error. With `allErrors: true` a body of many invalid items
 * (through $ref) costs time quadratic in the number of errors; a hostile 5 MiB OTLP/JSON body would block the event
 * loop for minutes. Endpoints whose 400 needs only the first error use `firstErrorValidatorFor`.
 */
const firstErrorAjv = new Ajv2020({ allErrors: false, strict: true, strictTypes: false, allowUnionTypes: true });
addFormats(firstErrorAjv);
for (const schema of allSchemas) firstErrorAjv.addSchema(schema);

const cache = new Map<string, ValidateFunction>();
const firstErrorCache = new Map<string, ValidateFunction>();

/** A compiled validator for a schema registered by `$id` (see schemas/), reporting every error (up to 20 said). */
export function validatorFor<T>(id: string): Validator<T> {
  return makeValidator<T>(id, ajv, cache);
}

/** As validatorFor, but it stops at the first error: linear time on bodies holding many invalid items. */
export function firstErrorValidatorFor<T>(id: string): Validator<T> {
  return makeValidator<T>(id, firstErrorAjv, firstErrorCache);
}

function makeValidator<T>(id: string, on: Ajv2020, cache: Map<string, ValidateFunction>): Validator<T> {
  let fn = cache.get(id);
  if (!fn) {
    fn = on.getSchema(id);
    if (!fn) throw new Error(`No schema with $id ${id}`);
    cache.set(id, fn);
  }
  const compiled = fn;
  const check = ((value: unknown) => compiled(value) === true) as Validator<T>;
  check.issues = (value) => (compiled(value) ? [] : describeErrors(compiled.errors));
  check.assert = (value, what = 'request body') => {
    if (compiled(value)) return value as T;
    const issues = describeErrors(compiled.errors);
    throw errors.validation(`The ${what} is invalid: ${issues.map(issueText).join('; ')}`, issues);
  };
  return check;
}
