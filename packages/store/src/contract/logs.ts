import { describe, expect, it } from '@jest/globals';
import { newId, toIso } from '@lantern/domain';
import type { LogEntry } from '@lantern/domain';
import type { LogQuery, LogVolumeQuery } from '../port.js';
import { HOUR, T0, collect, cursorOf, logBatch, logEntry, makeWorld, newestFirst, readInPages } from './fixtures.js';
import type { StoreContext, World } from './fixtures.js';

export function logsContract(ctx: StoreContext): void {
  const logs = (world: World, query: Partial<LogQuery> = {}): Promise<LogEntry[]> =>
    collect(ctx.store.streamLogs({ userId: world.user.id, projectId: world.project.id, ...query }));

  describe('logs', () => {
    it('returns stored logs with every field, extra fields included, newest first', async () => {
      const w = await makeWorld(ctx.store);
      const traceId = newId();
      const withTrace = logEntry(w.app, T0 + 10, {
        traceId, level: 'error', type: 'http', message: 'boom', clientTimestamp: toIso(T0 + 9),
        userId: 'u-1', context: { path: '/items', attempt: 2, tags: ['x'] },
      });
      const plain = logEntry(w.app, T0, { message: 'started' });
      await ctx.store.writeLogs(logBatch(w.app, [plain, withTrace]));
      const out = await logs(w);
      expect(out).toStrictEqual([withTrace, plain]);
      expect(out[1]).not.toHaveProperty('traceId');
      expect(out[0]).toMatchObject({ id: withTrace.id, projectId: w.project.id, applicationId: w.app.id, traceId });
    });

    it('stores a log batch written twice only once, and keeps the first version of a repeated id', async () => {
      const w = await makeWorld(ctx.store);
      const log = logEntry(w.app, T0, { message: 'first' });
      const batch = logBatch(w.app, [log, logEntry(w.app, T0 + 1)]);
      await ctx.store.writeLogs(batch);
      await ctx.store.writeLogs(batch);
      await ctx.store.writeLogs(logBatch(w.app, [{ ...log, message: 'second' }]));
      const out = await logs(w);
      expect(out).toHaveLength(2);
      expect(out.find((l) => l.id === log.id)?.message).toBe('first');
    });

    it('stores a log batch written several times at once only once', async () => {
      const w = await makeWorld(ctx.store);
      const written = Array.from({ length: 20 }, (_, i) => logEntry(w.app, T0 + i));
      const batch = logBatch(w.app, written);
      await Promise.all([ctx.store.writeLogs(batch), ctx.store.writeLogs(batch), ctx.store.writeLogs(batch)]);
      expect((await logs(w)).map((l) => l.id)).toEqual(newestFirst(written).map((l) => l.id));
    });

    it('orders newest first with equal timestamps by id descending, and pages without gaps or duplicates', async () => {
      const w = await makeWorld(ctx.store);
      const written = Array.from({ length: 17 }, (_, i) => logEntry(w.app, T0 + Math.floor(i / 4) * 1000));
      await ctx.store.writeLogs(logBatch(w.app, written));
      const full = await logs(w);
      expect(full.map((l) => l.id)).toEqual(newestFirst(written).map((l) => l.id));
      const pages = await readInPages((cursor) => ctx.store.streamLogs({ userId: w.user.id, projectId: w.project.id, limit: 5, cursor }), 5);
      expect(pages.map((p) => p.length)).toEqual([5, 5, 5, 2]);
      expect(pages.flat()).toEqual(full);
      expect(await logs(w, { cursor: cursorOf(full[6]!) })).toEqual(full.slice(7));
      expect(await logs(w, { limit: 0 })).toEqual([]);
    });

    it('filters on the time window (from inclusive, to exclusive), application, trace id and level', async () => {
      const w = await makeWorld(ctx.store);
      const app2 = await ctx.store.createApplication({ name: 'second', projectId: w.project.id });
      const traceId = newId();
      const a = logEntry(w.app, T0, { level: 'debug' });
      const b = logEntry(w.app, T0 + 1000, { level: 'error', traceId });
      const c = logEntry(app2, T0 + 2000, { level: 'error', traceId });
      const d = logEntry(app2, T0 + 3000, { level: 'info' });
      await ctx.store.writeLogs(logBatch(w.app, [a, b]));
      await ctx.store.writeLogs(logBatch(app2, [c, d]));
      const ids = async (query: Partial<LogQuery>) => (await logs(w, query)).map((l) => l.id);
      expect(await ids({ from: T0 + 1000, to: T0 + 3000 })).toEqual([c.id, b.id]);
      expect(await ids({ applicationId: app2.id })).toEqual([d.id, c.id]);
      expect(await ids({ traceId })).toEqual([c.id, b.id]);
      expect(await ids({ level: 'error', applicationId: w.app.id })).toEqual([b.id]);
      expect(await ids({ level: 'fatal' })).toEqual([]);
      expect(await ids({ traceId, from: T0 + 1500 })).toEqual([c.id]);
    });

    it('filters on the message: a substring, ASCII letters in any case, every other character literally', async () => {
      const w = await makeWorld(ctx.store);
      const messages = {
        failed: 'Payment FAILED for order 42', disk: 'disk 100% full_now', symbols: 'regex .* (a|b) [x] {y} ^$ \\ +?',
        tab: 'tab\there', nul: 'nul \u0000 inside', accents: 'Ünïcode café', multiline: 'first line\nsecond line',
      };
      const written = Object.values(messages).map((message, i) => logEntry(w.app, T0 + i, { message }));
      await ctx.store.writeLogs(logBatch(w.app, written));
      const idOf = (key: keyof typeof messages) => written[Object.keys(messages).indexOf(key)]!.id;
      const ids = async (messageContains: string) => (await logs(w, { messageContains })).map((l) => l.id);
      expect(await ids('payment failed')).toEqual([idOf('failed')]);
      expect(await ids('ORDER 4')).toEqual([idOf('failed')]);
      expect(await ids('%')).toEqual([idOf('disk')]);
      expect(await ids('_')).toEqual([idOf('disk')]);
      expect(await ids('0% FULL_')).toEqual([idOf('disk')]);
      expect(await ids('.*')).toEqual([idOf('symbols')]);
      expect(await ids('x.*')).toEqual([]);
      expect(await ids('(A|B) [X] {Y} ^$ \\ +?')).toEqual([idOf('symbols')]);
      expect(await ids('\t')).toEqual([idOf('tab')]);
      expect(await ids('\u0000 in')).toEqual([idOf('nul')]);
      expect(await ids('line\nSECOND')).toEqual([idOf('multiline')]);
      expect(await ids('ÜNïCODE CAFé')).toEqual([idOf('accents')]);
      expect(await ids('café'.toUpperCase())).toEqual([]);
      expect(await ids('ünï')).toEqual([]);
      expect(await ids('nothing like it')).toEqual([]);
      // The message only: a text found in another field does not match.
      await ctx.store.writeLogs(logBatch(w.app, [logEntry(w.app, T0 + 50, { message: 'plain', context: 'payment failed' })]));
      expect(await ids('payment failed')).toEqual([idOf('failed')]);
    });

    it('finds the message text literally, whatever it holds, and however short or split', async () => {
      const w = await makeWorld(ctx.store);
      const messages = {
        quotes: 'said "hello" to the "world"', wild: 'rate 50% of user_id * 2', syntax: 'alpha OR beta NEAR gamma AND delta NOT x',
        prefix: 'title: ^caret {col} (paren) col:umn', greek: 'ΣΊΣΥΦΟΣ ΠΈΤΡΑ', german: 'STRAßE straße', split: 'abcdefgh ij',
        short: 'x', two: 'qz',
      };
      const written = Object.values(messages).map((message, i) => logEntry(w.app, T0 + i, { message }));
      await ctx.store.writeLogs(logBatch(w.app, written));
      const idOf = (key: keyof typeof messages) => written[Object.keys(messages).indexOf(key)]!.id;
      const ids = async (messageContains: string) => (await logs(w, { messageContains })).map((l) => l.id);
      expect(await ids('"hello" to')).toEqual([idOf('quotes')]);
      expect(await ids('"')).toEqual([idOf('quotes')]);
      expect(await ids('"world"')).toEqual([idOf('quotes')]);
      expect(await ids('hello"')).toEqual([idOf('quotes')]);
      expect(await ids('"hello to')).toEqual([]);
      expect(await ids('50% of')).toEqual([idOf('wild')]);
      expect(await ids('50%')).toEqual([idOf('wild')]);
      expect(await ids('5%')).toEqual([]);
      expect(await ids('user_id')).toEqual([idOf('wild')]);
      expect(await ids('user_ic')).toEqual([]);
      expect(await ids('* 2')).toEqual([idOf('wild')]);
      expect(await ids('rat*')).toEqual([]);
      expect(await ids(' OR ')).toEqual([idOf('syntax')]);
      expect(await ids('alpha OR beta')).toEqual([idOf('syntax')]);
      expect(await ids('alpha OR gamma')).toEqual([]);
      expect(await ids('beta NEAR gamma')).toEqual([idOf('syntax')]);
      expect(await ids('NEAR(alpha gamma)')).toEqual([]);
      expect(await ids('gamma and delta')).toEqual([idOf('syntax')]);
      expect(await ids('NOT x')).toEqual([idOf('syntax')]);
      expect(await ids('alpha NOT beta')).toEqual([]);
      expect(await ids('^caret')).toEqual([idOf('prefix')]);
      expect(await ids('title:')).toEqual([idOf('prefix')]);
      expect(await ids('col:umn')).toEqual([idOf('prefix')]);
      expect(await ids('{col} (paren)')).toEqual([idOf('prefix')]);
      // Non-ASCII letters are compared exactly: no case folding of other scripts, no ß/ss.
      expect(await ids('ΣΊΣΥΦΟΣ')).toEqual([idOf('greek')]);
      expect(await ids('σίσυφος')).toEqual([]);
      expect(await ids('ΣΊΣυφος')).toEqual([]);
      expect(await ids('πέτρα')).toEqual([]);
      expect(await ids('TRAßE')).toEqual([idOf('german')]);
      expect(await ids('STRASSE')).toEqual([]);
      expect(await ids('TRAẞE')).toEqual([]);
      // Across trigram boundaries, at either end, and one or two characters.
      expect(await ids('cdefg')).toEqual([idOf('split')]);
      expect(await ids('ABCDEFGH IJ')).toEqual([idOf('split')]);
      expect(await ids('gh i')).toEqual([idOf('split')]);
      expect(await ids('bcdefgh ijk')).toEqual([]);
      expect(await ids('abcdfegh')).toEqual([]);
      expect(await ids('X')).toEqual(newestFirst(written.filter((l) => l.message.toLowerCase().includes('x'))).map((l) => l.id));
      expect(await ids('qz')).toEqual([idOf('two')]);
      expect(await ids('Zq')).toEqual([]);
    });

    it('no longer finds logs once purged, and still finds the ones kept', async () => {
      const w = await makeWorld(ctx.store);
      const old = logEntry(w.app, T0 - 2 * HOUR, { message: 'zebracorn spotted in the old days' });
      const kept = logEntry(w.app, T0 + 1, { message: 'zebracorn spotted again' });
      await ctx.store.writeLogs(logBatch(w.app, [old, kept]));
      expect((await logs(w, { messageContains: 'zebracorn' })).map((l) => l.id)).toEqual([kept.id, old.id]);
      await ctx.store.purgeTelemetryBefore(T0);
      expect((await logs(w, { messageContains: 'zebracorn' })).map((l) => l.id)).toEqual([kept.id]);
      expect(await logs(w, { messageContains: 'old days' })).toEqual([]);
      // A log written later with the purged one's text is found, and only it.
      const again = logEntry(w.app, T0 + 2, { message: 'back to the old days' });
      await ctx.store.writeLogs(logBatch(w.app, [again]));
      expect((await logs(w, { messageContains: 'old days' })).map((l) => l.id)).toEqual([again.id]);
    });

    it('no longer counts purged logs in the volume, the cut-off\'s own minute included', async () => {
      const w = await makeWorld(ctx.store);
      const minute = T0 - (T0 % 60_000);
      const cutoff = minute + 30_000;
      await ctx.store.writeLogs(logBatch(w.app, [
        logEntry(w.app, minute - 2 * HOUR), logEntry(w.app, minute + 10_000), logEntry(w.app, minute + 40_000), logEntry(w.app, minute + 50_000),
      ]));
      const total = async () => (await ctx.store.readLogVolume({ userId: w.user.id, projectId: w.project.id, from: minute - 3 * HOUR, to: minute + 60_000, bucketMs: 60_000 }))
        .reduce((n, c) => n + c.count, 0);
      expect(await total()).toBe(4);
      await ctx.store.purgeTelemetryBefore(cutoff);
      // SQLite keeps counts, and makes the cut-off's minute's again; MongoDB counts what is left.
      expect(await total()).toBe(2);
    });

    it('combines the message filter with the others, over several projects, and pages through matches only', async () => {
      const w = await makeWorld(ctx.store);
      const p2 = await ctx.store.createProject({ name: 'second', organizationId: w.org.id });
      const app2 = await ctx.store.createApplication({ name: 'second', projectId: p2.id });
      const foreign = await makeWorld(ctx.store, 'foreign');
      const traceId = newId();
      const written = Array.from({ length: 30 }, (_, i) => logEntry(i % 2 === 0 ? w.app : app2, T0 + Math.floor(i / 3) * 1000, {
        message: i % 3 === 0 ? `Timeout calling billing (${i})` : `request ${i} served`,
        level: i % 5 === 0 ? 'error' : 'info',
        ...(i % 4 === 0 ? { traceId } : {}),
      }));
      await ctx.store.writeLogs(logBatch(w.app, written.filter((l) => l.applicationId === w.app.id)));
      await ctx.store.writeLogs(logBatch(app2, written.filter((l) => l.applicationId === app2.id)));
      await ctx.store.writeLogs(logBatch(foreign.app, [logEntry(foreign.app, T0, { message: 'Timeout calling billing (foreign)' })]));
      const timeouts = newestFirst(written.filter((l) => l.message.startsWith('Timeout')));
      const all = await collect(ctx.store.streamLogs({ userId: w.user.id, messageContains: 'timeout CALLING' }));
      expect(all.map((l) => l.id)).toEqual(timeouts.map((l) => l.id));
      const pages = await readInPages((cursor) => ctx.store.streamLogs({ userId: w.user.id, messageContains: 'timeout', limit: 3, cursor }), 3);
      expect(pages.map((p) => p.length)).toEqual([3, 3, 3, 1]);
      expect(pages.flat()).toEqual(all);
      expect(await collect(ctx.store.streamLogs({ userId: w.user.id, messageContains: 'timeout', limit: 4 }))).toEqual(all.slice(0, 4));
      expect(await collect(ctx.store.streamLogs({ userId: w.user.id, messageContains: 'timeout', cursor: cursorOf(all[5]!) }))).toEqual(all.slice(6));
      const ids = async (query: Partial<LogQuery>) => (await logs(w, { messageContains: 'timeout', ...query })).map((l) => l.id);
      const expected = (keep: (l: LogEntry) => boolean) => timeouts.filter(keep).map((l) => l.id);
      expect(await ids({ level: 'error' })).toEqual(expected((l) => l.level === 'error' && l.projectId === w.project.id));
      expect(await ids({ projectId: p2.id })).toEqual(expected((l) => l.projectId === p2.id));
      expect(await ids({ applicationId: app2.id, projectId: p2.id })).toEqual(expected((l) => l.applicationId === app2.id));
      expect(await ids({ traceId })).toEqual(expected((l) => l.traceId === traceId && l.projectId === w.project.id));
      expect(await ids({ from: T0 + 3000, to: T0 + 6000 }))
        .toEqual(expected((l) => l.projectId === w.project.id && Date.parse(l.timestamp) >= T0 + 3000 && Date.parse(l.timestamp) < T0 + 6000));
    });

    it('keeps any of several levels at once: merged newest first, paged, with the other filters', async () => {
      const w = await makeWorld(ctx.store);
      const levels = ['info', 'warn', 'error', 'fatal', 'debug'] as const;
      const written = Array.from({ length: 40 }, (_, i) => logEntry(w.app, T0 + Math.floor(i / 2) * 1000, {
        level: levels[i % 5]!, message: i % 3 === 0 ? `payment ${i} declined` : `request ${i} served`,
      }));
      await ctx.store.writeLogs(logBatch(w.app, written));
      const expected = (keep: (l: LogEntry) => boolean) => newestFirst(written.filter(keep)).map((l) => l.id);
      const severe = (l: LogEntry) => l.level === 'error' || l.level === 'fatal';
      expect((await logs(w, { levels: ['error', 'fatal'] })).map((l) => l.id)).toEqual(expected(severe));
      // `level` and `levels` together: the union; a level named twice counts once.
      expect((await logs(w, { level: 'warn', levels: ['fatal', 'fatal'] })).map((l) => l.id)).toEqual(expected((l) => l.level === 'warn' || l.level === 'fatal'));
      expect((await logs(w, { levels: ['error', 'fatal'], messageContains: 'declined' })).map((l) => l.id))
        .toEqual(expected((l) => severe(l) && l.message.includes('declined')));
      const pages = await readInPages((cursor) => ctx.store.streamLogs({ userId: w.user.id, projectId: w.project.id, levels: ['error', 'fatal'], limit: 5, cursor }), 5);
      expect(pages.map((p) => p.length)).toEqual([5, 5, 5, 1]);
      expect(pages.flat().map((l) => l.id)).toEqual(expected(severe));
      expect(await logs(w, { levels: ['trace'] })).toEqual([]);
    });

    it('counts a window\'s logs by bucket, application and level: each stored log once, a project not visible none', async () => {
      const w = await makeWorld(ctx.store);
      const app2 = await ctx.store.createApplication({ name: 'second', projectId: w.project.id });
      const stranger = await makeWorld(ctx.store, 'stranger');
      const start = T0 - (T0 % 60_000);
      const first = Array.from({ length: 12 }, (_, i) => logEntry(w.app, start + i * 20_000, { level: i % 4 === 0 ? 'error' : 'info' }));
      await ctx.store.writeLogs(logBatch(w.app, first));
      // The same batch again, and a repeated log: stored once, counted once.
      await ctx.store.writeLogs(logBatch(w.app, first));
      await ctx.store.writeLogs(logBatch(app2, [logEntry(app2, start + 30_000, { level: 'warn' }), logEntry(app2, start + 200_000, { level: 'warn' })]));
      const volume = (query: Partial<LogVolumeQuery> = {}) => ctx.store.readLogVolume({
        userId: w.user.id, projectId: w.project.id, from: start, to: start + 4 * 60_000, bucketMs: 2 * 60_000, ...query,
      });
      // 12 logs 20 s apart from the window's start: six in each two-minute bucket, every fourth an error.
      expect(await volume()).toEqual([
        { start, applicationId: w.app.id, level: 'info', count: 4 },
        { start, applicationId: w.app.id, level: 'error', count: 2 },
        { start, applicationId: app2.id, level: 'warn', count: 1 },
        { start: start + 120_000, applicationId: w.app.id, level: 'info', count: 5 },
        { start: start + 120_000, applicationId: w.app.id, level: 'error', count: 1 },
        { start: start + 120_000, applicationId: app2.id, level: 'warn', count: 1 },
      ]);
      expect((await volume({ applicationId: app2.id, levels: ['warn', 'fatal'] })).map((c) => c.count)).toEqual([1, 1]);
      expect(await volume({ levels: ['fatal'] })).toEqual([]);
      expect(await volume({ from: start + 60_000, to: start + 120_000, bucketMs: 60_000 })).toEqual([
        { start: start + 60_000, applicationId: w.app.id, level: 'info', count: 2 },
        { start: start + 60_000, applicationId: w.app.id, level: 'error', count: 1 },
      ]);
      expect(await ctx.store.readLogVolume({ userId: stranger.user.id, projectId: w.project.id, from: start, to: start + 240_000, bucketMs: 60_000 })).toEqual([]);
    });

    it('without a project, merges the logs of every project the user can see, newest first', async () => {
      const w = await makeWorld(ctx.store, 'own');
      const p2 = await ctx.store.createProject({ name: 'second', organizationId: w.org.id });
      const app2 = await ctx.store.createApplication({ name: 'second', projectId: p2.id });
      const shared = await makeWorld(ctx.store, 'shared');
      await ctx.store.addMember(shared.org.id, w.user.id, 'member');
      const foreign = await makeWorld(ctx.store, 'foreign');
      const visible: LogEntry[] = [];
      for (let i = 0; i < 12; i++) {
        const app = [w.app, app2, shared.app][i % 3]!;
        const log = logEntry(app, T0 + Math.floor(i / 2) * 100);
        visible.push(log);
        await ctx.store.writeLogs(logBatch(app, [log]));
      }
      await ctx.store.writeLogs(logBatch(foreign.app, [logEntry(foreign.app, T0 + 50), logEntry(foreign.app, T0 + 5000)]));
      const all = await collect(ctx.store.streamLogs({ userId: w.user.id }));
      expect(all.map((l) => l.id)).toEqual(newestFirst(visible).map((l) => l.id));
      const pages = await readInPages((cursor) => ctx.store.streamLogs({ userId: w.user.id, limit: 5, cursor }), 5);
      expect(pages.flat()).toEqual(all);
      expect((await collect(ctx.store.streamLogs({ userId: w.user.id, projectId: p2.id }))).map((l) => l.projectId))
        .toEqual([p2.id, p2.id, p2.id, p2.id]);
      expect(await collect(ctx.store.streamLogs({ userId: w.user.id, level: 'warn' }))).toEqual([]);
    });

    it('merges hundreds of logs of several projects in order, each once', async () => {
      const w = await makeWorld(ctx.store);
      const p2 = await ctx.store.createProject({ name: 'second', organizationId: w.org.id });
      const app2 = await ctx.store.createApplication({ name: 'second', projectId: p2.id });
      const first = Array.from({ length: 330 }, (_, i) => logEntry(w.app, T0 + i * 2));
      const second = Array.from({ length: 290 }, (_, i) => logEntry(app2, T0 + i * 3));
      await ctx.store.writeLogs(logBatch(w.app, first));
      await ctx.store.writeLogs(logBatch(app2, second));
      const all = await collect(ctx.store.streamLogs({ userId: w.user.id }));
      expect(all).toHaveLength(620);
      expect(all.map((l) => l.id)).toEqual(newestFirst([...first, ...second]).map((l) => l.id));
      expect(await collect(ctx.store.streamLogs({ userId: w.user.id, limit: 250 }))).toEqual(all.slice(0, 250));
    });
  });
}
