import { describe, expect, it } from '@jest/globals';
import type { LogQuery } from '../port.js';
import { T0, attr, collect, cursorOf, logBatch, logEntry, makeWorld, readInPages } from './fixtures.js';
import type { StoreContext, World } from './fixtures.js';

/**
 * Log search by attribute (LogQuery.attributes, ../attribute-pairs.ts logPairs), the same on every adapter, and the
 * same whether the logs have reached the attribute index yet or not (each test reads them at once after the write).
 */
export function logAttributesContract(ctx: StoreContext): void {
  const messages = async (world: World, query: Partial<LogQuery>): Promise<string[]> =>
    (await collect(ctx.store.streamLogs({ userId: world.user.id, projectId: world.project.id, ...query }))).map((l) => l.message);

  describe('log search by attribute', () => {
    it('finds a log by its own fields, its OpenTelemetry attributes or its resource, by value or by key', async () => {
      const w = await makeWorld(ctx.store);
      const resource = [{ key: 'service.name', value: 'payments' }, { key: 'host.name', value: 'web-1' }];
      await ctx.store.writeLogs(logBatch(w.app, [
        logEntry(w.app, T0, { message: 'charge ok', chargeId: 'ch_42', amount: 1250, captured: true }),
        logEntry(w.app, T0 + 1, { message: 'otel', level: 'error', serviceName: 'payments', resource,
          attributes: [{ key: 'http.route', value: '/pay' }, { key: 'retries', value: 2 }, { key: 'tags', value: ['a'] }] }),
        logEntry(w.app, T0 + 2, { message: 'plain' }),
      ]));
      expect(await messages(w, { attributes: [attr('chargeId', 'ch_42')] })).toEqual(['charge ok']);
      expect(await messages(w, { attributes: [attr('amount', '1250')] })).toEqual(['charge ok']);
      expect(await messages(w, { attributes: [attr('captured', 'true')] })).toEqual(['charge ok']);
      expect(await messages(w, { attributes: [attr('http.route', '/pay')] })).toEqual(['otel']);
      expect(await messages(w, { attributes: [attr('retries', '2')] })).toEqual(['otel']);
      expect(await messages(w, { attributes: [attr('service.name', 'payments')] })).toEqual(['otel']);
      expect(await messages(w, { attributes: [attr('host.name', 'web-1')] })).toEqual(['otel']);
      expect(await messages(w, { attributes: [attr('level', 'error')] })).toEqual(['otel']);
      expect(await messages(w, { attributes: [attr('tags')] })).toEqual(['otel']);
      expect(await messages(w, { attributes: [attr('chargeId')] })).toEqual(['charge ok']);
      // Exact, case included; the message and the ids are not attributes.
      expect(await messages(w, { attributes: [attr('chargeId', 'CH_42')] })).toEqual([]);
      expect(await messages(w, { attributes: [attr('chargeId', 'ch_4')] })).toEqual([]);
      expect(await messages(w, { attributes: [attr('message', 'plain')] })).toEqual([]);
      expect(await messages(w, { attributes: [attr('tags', 'a')] })).toEqual([]);
      // Several terms hold on one log, all of them.
      expect(await messages(w, { attributes: [attr('chargeId', 'ch_42'), attr('captured')] })).toEqual(['charge ok']);
      expect(await messages(w, { attributes: [attr('chargeId', 'ch_42'), attr('http.route')] })).toEqual([]);
    });

    it('combines with the text, the levels, the application and the window, and pages in the list\'s order', async () => {
      const w = await makeWorld(ctx.store);
      const app2 = await ctx.store.createApplication({ name: 'second', projectId: w.project.id });
      const written = Array.from({ length: 30 }, (_, i) => ({
        app: i % 3 === 2 ? app2 : w.app, at: T0 + Math.floor(i / 2) * 1000, level: i % 4 === 0 ? 'error' as const : 'info' as const,
        tenant: i % 2 === 0 ? 'acme' : 'globex', message: i % 5 === 0 ? `timeout ${i}` : `served ${i}`,
      }));
      for (const app of [w.app, app2]) {
        await ctx.store.writeLogs(logBatch(app, written.filter((l) => l.app === app)
          .map((l) => logEntry(app, l.at, { level: l.level, message: l.message, tenant: l.tenant }))));
      }
      const expected = (keep: (l: (typeof written)[number]) => boolean) => written.filter(keep).map((l) => l.message).sort();
      const acme = await collect(ctx.store.streamLogs({ userId: w.user.id, projectId: w.project.id, attributes: [attr('tenant', 'acme')] }));
      expect(acme.map((l) => l.message).sort()).toEqual(expected((l) => l.tenant === 'acme'));
      const order = acme.map((l) => [Date.parse(l.timestamp), l.id] as const);
      expect(order).toEqual([...order].sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? 1 : a[1] > b[1] ? -1 : 0)));
      const pages = await readInPages((cursor) => ctx.store.streamLogs({
        userId: w.user.id, projectId: w.project.id, attributes: [attr('tenant', 'acme')], limit: 4, cursor,
      }), 4);
      expect(pages.map((p) => p.length)).toEqual([4, 4, 4, 3]);
      expect(pages.flat()).toEqual(acme);
      expect((await messages(w, { attributes: [attr('tenant', 'acme')], cursor: cursorOf(acme[5]!) }))).toEqual(acme.slice(6).map((l) => l.message));
      const sorted = async (query: Partial<LogQuery>) => (await messages(w, { attributes: [attr('tenant', 'acme')], ...query })).sort();
      expect(await sorted({ messageContains: 'TIMEOUT' })).toEqual(expected((l) => l.tenant === 'acme' && l.message.startsWith('timeout')));
      expect(await sorted({ level: 'error' })).toEqual(expected((l) => l.tenant === 'acme' && l.level === 'error'));
      expect(await sorted({ levels: ['error', 'fatal'] })).toEqual(expected((l) => l.tenant === 'acme' && l.level === 'error'));
      expect(await sorted({ applicationId: app2.id })).toEqual(expected((l) => l.tenant === 'acme' && l.app === app2));
      expect(await sorted({ from: T0 + 3000, to: T0 + 9000 })).toEqual(expected((l) => l.tenant === 'acme' && l.at >= T0 + 3000 && l.at < T0 + 9000));
    });

    it('finds only the logs of the projects the reader can see', async () => {
      const w = await makeWorld(ctx.store);
      const other = await makeWorld(ctx.store, 'b');
      await ctx.store.writeLogs(logBatch(w.app, [logEntry(w.app, T0, { message: 'mine', orderId: 'o-1' })]));
      await ctx.store.writeLogs(logBatch(other.app, [logEntry(other.app, T0, { message: 'theirs', orderId: 'o-1' })]));
      expect(await messages(w, { attributes: [attr('orderId', 'o-1')] })).toEqual(['mine']);
      expect(await messages(w, { projectId: undefined, attributes: [attr('orderId', 'o-1')] })).toEqual(['mine']);
      expect(await messages(w, { projectId: other.project.id, attributes: [attr('orderId', 'o-1')] })).toEqual([]);
    });
  });
}
