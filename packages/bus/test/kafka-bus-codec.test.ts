import { describe, expect, it } from '@jest/globals';
import kafkajs from 'kafkajs';
import { constants, gzipSync } from 'node:zlib';
import { createKafkaBus } from '../src/kafka/bus.js';

// A file of its own: jest gives it a fresh kafkajs, whose GZIP codec only createKafkaBus can have replaced.
describe('createKafkaBus', () => {
  it('installs the level-1 GZIP codec (and connects nothing until first used)', async () => {
    const { CompressionCodecs, CompressionTypes } = kafkajs;
    const body = Buffer.from('x'.repeat(10_000) + JSON.stringify({ a: Array.from({ length: 500 }, (_, i) => i) }));
    const level1 = gzipSync(body, { level: constants.Z_BEST_SPEED });
    expect(((await CompressionCodecs[CompressionTypes.GZIP]().compress({ buffer: body })) as Buffer).equals(level1)).toBe(false);
    const bus = createKafkaBus({ brokers: ['127.0.0.1:9'], clientId: 'codec-test' });
    expect(((await CompressionCodecs[CompressionTypes.GZIP]().compress({ buffer: body })) as Buffer).equals(level1)).toBe(true);
    await bus.close();
  });
});
