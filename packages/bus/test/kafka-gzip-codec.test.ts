import { describe, expect, it } from '@jest/globals';
import kafkajs from 'kafkajs';
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import { useFastGzip } from '../src/kafka/gzip-codec.js';

describe("the Kafka bus's GZIP codec", () => {
  it('compresses at level 1 into gzip that any reader takes, and reads back what kafkajs would have written', async () => {
    const { CompressionCodecs, CompressionTypes } = kafkajs;
    const body = Buffer.from(JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ spanId: `${i}`.padStart(32, '0'), requestURL: '/api/orders' }))));
    const before = CompressionCodecs[CompressionTypes.GZIP]();
    const atDefaultLevel = (await before.compress({ buffer: body })) as Buffer;
    useFastGzip();
    const codec = CompressionCodecs[CompressionTypes.GZIP]();
    const compressed = (await codec.compress({ buffer: body })) as Buffer;
    expect(compressed.equals(gzipSync(body, { level: constants.Z_BEST_SPEED }))).toBe(true);
    expect(gunzipSync(compressed).equals(body)).toBe(true);
    expect(((await codec.decompress(atDefaultLevel)) as Buffer).equals(body)).toBe(true);
  });

});
