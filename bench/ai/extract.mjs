#!/usr/bin/env node
// bench/ai/extract: extraction and chunking speed per format, and the peak memory of the worst 10 MB inputs, through
// the processing pool the AI worker uses (packages/extract, one thread, default chunking 800/400 o200k tokens).
//
//   pnpm bench:ai-extract                 every input below, once each, each in a process of its own
//   options: --mb 10 (input size) --inputs text,html,pdf,docx-words,docx-dense --heap-mb 512 --timeout-s 300
//
// The inputs are made here, to disk first (so making them costs the measured process nothing):
//   text        Markdown of words drawn from a 2,000-word vocabulary, in paragraphs of 60-140 words
//   html        the same words in <p> and <h2> elements
//   pdf         the same words on pages of 60 lines (Helvetica), as many pages as fill --mb
//   docx-words  a DOCX of 1.8 x --mb of the same words (18 MB of text at 10: under the 20,000,000-character bound)
//   docx-dense  a DOCX of one repeated paragraph, 97.5 MB of XML, just under the 100 MiB inflation bound (the most
//               XML a DOCX may bring, from half a MB on the wire): the worst case for memory
// Each input runs in a child process: a warm-up document first (the thread's tokenizer built), then the peak
// resident set is reset (/proc/self/clear_refs) and the input processed; the child reports wall time, input MB/s,
// characters, chunks and the peak RSS of the whole process (main thread and processing thread) in MB.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DOCX, docxOf, paragraphs, pdfOf, words } from './inputs.mjs';

const ROOT = new URL('../..', import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    mb: { type: 'string', default: '10' },
    inputs: { type: 'string', default: 'text,html,pdf,docx-words,docx-dense' },
    'heap-mb': { type: 'string', default: '512' },
    'timeout-s': { type: 'string', default: '300' },
    one: { type: 'string' },
    type: { type: 'string' },
  },
});

if (values.one) {
  // The child: one input through a fresh pool.
  const { createProcessingPool, DEFAULT_CHUNKING } = await import(join(ROOT, 'packages/extract/dist/index.js'));
  const pool = createProcessingPool({ size: 1, timeoutMs: Number(values['timeout-s']) * 1000, maxHeapMb: Number(values['heap-mb']) });
  await pool.process(Buffer.from('Warm-up.'), 'text/plain; charset=utf-8', DEFAULT_CHUNKING);
  const bytes = readFileSync(values.one);
  writeFileSync('/proc/self/clear_refs', '5');
  const began = performance.now();
  const result = await pool.process(bytes, values.type, DEFAULT_CHUNKING);
  const seconds = (performance.now() - began) / 1000;
  const peak = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
  await pool.close();
  console.log(JSON.stringify({
    outcome: result.ok ? 'ready' : result.code, seconds: +seconds.toFixed(2), mbPerSecond: +(bytes.length / 1e6 / seconds).toFixed(2),
    characters: result.ok ? result.characters : 0, chunks: result.ok ? result.chunks.length : 0, pages: result.ok ? result.pages : undefined,
    peakRssMb: Math.round(peak), inputMb: +(bytes.length / 1e6).toFixed(2),
  }));
  process.exit(0);
}

// ---- the inputs ----
const target = Number(values.mb) * 1_000_000;
const makers = {
  text: () => [Buffer.from(paragraphs(target).join('\n\n')), 'text/markdown; charset=utf-8'],
  html: () => [Buffer.from(`<!doctype html><html><body>${paragraphs(target * 0.97).map((p, i) => (i % 10 === 0 ? `<h2>${p.slice(0, 40)}</h2>` : `<p>${p}</p>`)).join('\n')}</body></html>`), 'text/html; charset=utf-8'],
  pdf: () => {
    const lines = [];
    for (let size = 0; size < target * 0.95; size += 110) lines.push(words(14));
    return [pdfOf(lines, 60), 'application/pdf'];
  },
  'docx-words': () => [docxOf(paragraphs(target * 1.8)), DOCX],
  'docx-dense': () => [docxOf(Array.from({ length: 1_300_000 }, () => 'The checkout service promises its latency.')), DOCX],
};

const dir = mkdtempSync(join(tmpdir(), 'lantern-bench-ai-'));
const load = () => readFileSync('/proc/loadavg', 'utf8').trim();
console.error(`load average before: ${load()}`);
const rows = [];
try {
  for (const name of values.inputs.split(',')) {
    const [bytes, type] = makers[name]();
    const file = join(dir, name);
    writeFileSync(file, bytes);
    const child = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--one', file, '--type', type, '--heap-mb', values['heap-mb'], '--timeout-s', values['timeout-s']], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (child.status !== 0) throw new Error(`${name} failed (exit ${child.status})`);
    const row = { input: name, ...JSON.parse(child.stdout.trim().split('\n').at(-1)) };
    rows.push(row);
    console.error(`${name}: ${JSON.stringify(row)} load ${load()}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`load average after: ${load()}`);
console.log('| input | MB | outcome | s | MB/s | characters | chunks | pages | peak RSS MB |');
console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|');
for (const r of rows) console.log(`| ${r.input} | ${r.inputMb} | ${r.outcome} | ${r.seconds} | ${r.mbPerSecond} | ${r.characters} | ${r.chunks} | ${r.pages ?? ''} | ${r.peakRssMb} |`);
