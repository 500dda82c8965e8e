import { accessSync, constants, existsSync, mkdirSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Batch } from './queue.js';
import type { Kind } from './report.js';

/**
 * Batches kept on disk: one file per batch, `<kind>-<ms>-<pid>-<seq>-n<items>.ndjson`, holding a header line
 * `{"v":1,"key":...}` (the batch's Idempotency-Key, so a batch sent before a crash is not stored twice) and one
 * item per line. Files are written under a temporary name and renamed, so a file seen is always complete.
 * The directory belongs to one application (API key) and one process at a time.
 */

export interface SpoolFile {
  name: string;
  kind: Kind;
  items: number;
  bytes: number;
}

export type SpoolWrite = 'ok' | 'full' | 'error';

const NAME = /^(traces|logs)-(\d{15})-(\d+)-(\d{6})-n(\d+)\.ndjson$/;
const STALE_TMP_MS = 60_000;

/** mkdir -p, one level at a time (Node's recursive mkdirSync never returns for some paths, e.g. under /proc). */
function makeDirectory(dir: string): void {
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw new Error(`${dir} is not a directory`);
  } else {
    const parent = dirname(dir);
    if (parent !== dir) makeDirectory(parent);
    mkdirSync(dir);
  }
}

export class Spool {
  private readonly files: Record<Kind, SpoolFile[]> = { traces: [], logs: [] };
  private totalBytes = 0;
  private seq = 0;

  /** Creates the directory and indexes what an earlier run left (synchronously, once, at creation). */
  constructor(readonly dir: string, private readonly maxBytes: number) {
    makeDirectory(dir);
    accessSync(dir, constants.W_OK);
    const now = Date.now();
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const m = NAME.exec(name);
      if (!m) {
        if (name.startsWith('.tmp-')) {
          try {
            if (now - statSync(path).mtimeMs > STALE_TMP_MS) unlinkSync(path);
          } catch {
            // gone already
          }
        }
        continue;
      }
      let bytes: number;
      try {
        bytes = statSync(path).size;
      } catch {
        continue;
      }
      this.files[m[1] as Kind].push({ name, kind: m[1] as Kind, items: Number(m[5]), bytes });
      this.totalBytes += bytes;
    }
  }

  /** Items on disk waiting to be sent. */
  pending(kind: Kind): number {
    return this.files[kind].reduce((n, f) => n + f.items, 0);
  }

  oldest(kind: Kind): SpoolFile | undefined {
    return this.files[kind][0];
  }

  private prepare(kind: Kind, batch: Batch): { file: SpoolFile; content: string } | undefined {
    const content = `${JSON.stringify({ v: 1, key: batch.key })}\n${batch.items.join('\n')}\n`;
    const bytes = Buffer.byteLength(content);
    if (this.totalBytes + bytes > this.maxBytes) return undefined;
    this.totalBytes += bytes;
    const stamp = String(Date.now()).padStart(15, '0');
    const seq = String(this.seq++ % 1_000_000).padStart(6, '0');
    const name = `${kind}-${stamp}-${process.pid}-${seq}-n${batch.items.length}.ndjson`;
    return { file: { name, kind, items: batch.items.length, bytes }, content };
  }

  private add(file: SpoolFile): void {
    const list = this.files[file.kind];
    list.push(file);
    list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async write(kind: Kind, batch: Batch): Promise<SpoolWrite> {
    const prepared = this.prepare(kind, batch);
    if (!prepared) return 'full';
    const tmp = join(this.dir, `.tmp-${prepared.file.name}`);
    try {
      await writeFile(tmp, prepared.content);
      await rename(tmp, join(this.dir, prepared.file.name));
      this.add(prepared.file);
      return 'ok';
    } catch {
      this.totalBytes -= prepared.file.bytes;
      await unlink(tmp).catch(() => undefined);
      return 'error';
    }
  }

  /** For the process's `exit` event, where nothing asynchronous runs any more. */
  writeSync(kind: Kind, batch: Batch): SpoolWrite {
    const prepared = this.prepare(kind, batch);
    if (!prepared) return 'full';
    const tmp = join(this.dir, `.tmp-${prepared.file.name}`);
    try {
      writeFileSync(tmp, prepared.content);
      renameSync(tmp, join(this.dir, prepared.file.name));
      this.add(prepared.file);
      return 'ok';
    } catch {
      this.totalBytes -= prepared.file.bytes;
      return 'error';
    }
  }

  /** The batch in a file, or null when it cannot be read (the file is then removed). */
  async read(file: SpoolFile): Promise<Batch | null> {
    try {
      const text = await readFile(join(this.dir, file.name), 'utf8');
      const lines = text.split('\n').filter((l) => l !== '');
      const header = JSON.parse(lines[0] ?? '') as { v?: unknown; key?: unknown };
      if (header.v !== 1 || typeof header.key !== 'string' || lines.length < 2) throw new Error('not a spool file');
      const items = lines.slice(1);
      return { key: header.key, items, bytes: items.reduce((n, i) => n + Buffer.byteLength(i), 0) };
    } catch {
      await this.remove(file);
      return null;
    }
  }

  /** The oldest readable batch of a kind, with its file (removed once delivered or refused); unreadable files are removed. */
  async next(kind: Kind, onUnreadable: (name: string) => void): Promise<{ batch: Batch; file: SpoolFile } | undefined> {
    for (let file = this.oldest(kind); file; file = this.oldest(kind)) {
      const batch = await this.read(file);
      if (batch) return { batch, file };
      onUnreadable(file.name);
    }
    return undefined;
  }

  /** Forgets the file (even if it cannot be deleted, so that it is never sent twice by this process). */
  async remove(file: SpoolFile): Promise<void> {
    const list = this.files[file.kind];
    const i = list.indexOf(file);
    if (i === -1) return;
    list.splice(i, 1);
    this.totalBytes -= file.bytes;
    await unlink(join(this.dir, file.name)).catch(() => undefined);
  }
}
