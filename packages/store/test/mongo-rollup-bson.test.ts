import { describe, expect, it } from '@jest/globals';
import { BSON, Double, Int32, Long } from 'mongodb';
import { readRawRollup } from '../src/mongo/rollup-bson.js';

describe('readRawRollup', () => {
  it('reads the fields of a rollup document from raw BSON, whatever the number types, skipping the others', () => {
    const bytes = Buffer.from(BSON.serialize({
      _id: '[3,1772366400000]', projectId: new Int32(2), applicationId: new Long(3), minute: new Date(1_772_366_400_000),
      requests: new Double(5_000_000_000), errors: new Int32(7), zeros: new Long(4),
      b: { '-1': new Int32(1), '80': Long.fromNumber(2_000_000_000_000), '381': new Double(3) }, ops: ['a', 'b'], flag: true, none: null,
    }));
    expect(readRawRollup(bytes)).toEqual({
      projectId: 2, applicationId: 3, start: 1_772_366_400_000, requests: 5_000_000_000, errors: 7,
      sketch: [4, 80, 2_000_000_000_000, 381, 3, -1, 1], // in the document's order (a JavaScript object puts '-1' last)
    });
  });

  it('reads the operation of a per-operation document, any UTF-8 name, and none of a document without one', () => {
    const doc = (operation: string) => Buffer.from(BSON.serialize({
      _id: '[3,1772366400000,"x"]', projectId: 2, applicationId: 3, hour: new Date(1_772_366_400_000), operation,
      partialBefore: new Date(1_772_366_460_000), requests: 1, errors: 0, zeros: 0, b: { '12': 1 },
    }));
    for (const operation of ['GET /orders/:id', '', 'POST /café/€ 🚀']) {
      expect(readRawRollup(doc(operation))).toEqual({
        projectId: 2, applicationId: 3, start: 1_772_366_400_000, partialBefore: 1_772_366_460_000, operation, requests: 1, errors: 0, sketch: [0, 12, 1],
      });
    }
    expect(readRawRollup(Buffer.from(BSON.serialize({ projectId: 2, requests: 1 })))).not.toHaveProperty('operation');
    // A field of another type under the name is not an operation (a rollup document never holds one).
    expect(readRawRollup(Buffer.from(BSON.serialize({ operation: 7, requests: 1 })))).not.toHaveProperty('operation');
  });

  it('reads the caller of a call document, whatever its number type, and none of a document without one', () => {
    for (const callerId of [7, new Int32(7), new Long(7), new Double(7)]) {
      const bytes = Buffer.from(BSON.serialize({
        _id: '[3,1772366400000,7]', projectId: 2, applicationId: 3, callerId, minute: new Date(1_772_366_400_000), requests: 4, errors: 1, zeros: 0, b: { '12': 4 },
        ops: ['a'],
      }));
      expect(readRawRollup(bytes)).toEqual({ projectId: 2, applicationId: 3, callerId: 7, start: 1_772_366_400_000, requests: 4, errors: 1, sketch: [0, 12, 4] });
    }
    expect(readRawRollup(Buffer.from(BSON.serialize({ projectId: 2, requests: 1 })))).not.toHaveProperty('callerId');
  });

  it('refuses a type a rollup document never holds', () => {
    const bytes = Buffer.from(BSON.serialize({ requests: 1, odd: new BSON.Timestamp({ t: 1, i: 1 }) }));
    expect(() => readRawRollup(bytes)).toThrow(/Unexpected BSON type/);
  });
});
