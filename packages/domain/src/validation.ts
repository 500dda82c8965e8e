import { createRequire } from 'node:module';
import type { Ajv2020, ErrorObject, Options, ValidateFunction } from 'ajv/dist/2020.js';
import { errors } from './errors.js';
import { allSchemas } from './schemas/index.js';

/**
 * Ajv is loaded, and the schemas added, on the first validator's first use, not at import: importing this package
 * then costs milliseconds instead of about half a second. Every thread that imports it for its errors or ids (the
 * store's read, writer and checkpoint threads, the extraction threads) starts that much sooner.
 * Both packages are CommonJS, so `require` loads them synchronously.
 */
const require = createRequire(import.meta.url);

function newAjv(options: Options): Ajv2020 {
  const { Ajv2020: AjvClass } = require('ajv/dist/2020.js') as { Ajv2020: new (o: Options) => Ajv2020 };
  const formats = require('ajv-formats') as { default?: (a: Ajv2020) => void } & ((a: Ajv2020) => void);
  const ajv = new AjvClass(options);
  (formats.default ?? formats)(ajv);
  // `format: uuid` stays in the schemas for the OpenAPI document, and is not checked again: every uuid schema has a
  // stricter pattern (schemas/common.ts; test/validation.test.ts holds every one to it). It was a second regular
  // expression for each id of every span and log.
  ajv.addFormat('uuid', true);
  for (const schema of allSchemas) ajv.addSchema(schema);
  return ajv;
}

export interface ValidationIssue {
  path: string;
  message: string;
}

const OPTIONS: Options = { allErrors: true, strict: true, strictTypes: false, allowUnionTypes: true };
let ajv: Ajv2020 | undefined;

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
let firstErrorAjv: Ajv2020 | undefined;
const ids = new Set(allSchemas.map((schema) => schema.$id));
/** A compile step per schema and Ajv made so far, to run ahead of first use (compileValidators). */
const made = new Map<string, () => unknown>();

/**
 * Compiles every validator made so far (the services make theirs when their modules load). A server calls it
 * before it listens, so that its first requests do not wait for ajv; threads that never validate never do.
 */
export function compileValidators(): void {
  for (const compile of made.values()) compile();
}

const cache = new Map<string, ValidateFunction>();
const firstErrorCache = new Map<string, ValidateFunction>();

/** A compiled validator for a schema registered by `$id` (see schemas/), reporting every error (up to 20 said). */
export function validatorFor<T>(id: string): Validator<T> {
  return makeValidator<T>(id, () => (ajv ??= newAjv(OPTIONS)), cache);
}

/** As validatorFor, but it stops at the first error: linear time on bodies holding many invalid items. */
export function firstErrorValidatorFor<T>(id: string): Validator<T> {
  return makeValidator<T>(id, () => (firstErrorAjv ??= newAjv({ ...OPTIONS, allErrors: false })), firstErrorCache);
}

function makeValidator<T>(id: string, on: () => Ajv2020, cache: Map<string, ValidateFunction>): Validator<T> {
  if (!ids.has(id)) throw new Error(`No schema with $id ${id}`);
  let fn: ValidateFunction | undefined;
  const compiledFn = (): ValidateFunction => {
    if (fn) return fn;
    fn = cache.get(id) ?? on().getSchema(id)!;
    cache.set(id, fn);
    return fn;
  };
  made.set(`${cache === firstErrorCache ? 'first' : 'all'} ${id}`, compiledFn);
  const check = ((value: unknown) => (fn ?? compiledFn())(value) === true) as Validator<T>;
  check.issues = (value) => {
    const compiled = fn ?? compiledFn();
    return compiled(value) ? [] : describeErrors(compiled.errors);
  };
  check.assert = (value, what = 'request body') => {
    const compiled = fn ?? compiledFn();
    if (compiled(value)) return value as T;
    const issues = describeErrors(compiled.errors);
    throw errors.validation(`The ${what} is invalid: ${issues.map(issueText).join('; ')}`, issues);
  };
  return check;
}
