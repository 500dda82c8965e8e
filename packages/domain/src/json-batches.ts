/**
 * A stream of records may offer them already serialised as well: `[JSON_BATCHES]()` yields JSON texts, each the
 * JSON of one or more records joined by commas (exactly what JSON.stringify of each would give). A producer that
 * serialises off the thread that serves requests (the SQLite store's read workers) offers it, and
 * streamJsonArray (packages/http) writes those texts as they come instead of serialising record by record.
 * Iterating the stream itself still gives the records.
 */
export const JSON_BATCHES: unique symbol = Symbol.for('lantern.jsonBatches');

export interface JsonBatches {
  [JSON_BATCHES](): AsyncIterable<string>;
}

/** The stream's serialised batches if it offers them, else its records serialised one by one. */
export function jsonTexts(items: AsyncIterable<unknown>): AsyncIterable<string> {
  const batches = (items as Partial<JsonBatches>)[JSON_BATCHES];
  if (typeof batches === 'function') return batches.call(items);
  return (async function* () {
    for await (const item of items) yield JSON.stringify(item) ?? 'null';
  })();
}
