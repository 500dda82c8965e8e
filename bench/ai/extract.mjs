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
import { deflateRawSync, crc32 } from 'node:zlib';

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
let seed = 7;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const syllables = ['ka', 'lo', 'mi', 'ren', 'tor', 'qua', 'zel', 'pri', 'dan', 'vo', 'shi', 'mur', 'tel', 'bay', 'cor', 'nex'];
const vocabulary = Array.from({ length: 2000 }, () => Array.from({ length: 1 + Math.floor(random() * 3) }, () => syllables[Math.floor(random() * syllables.length)]).join(''));
const words = (n) => Array.from({ length: n }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(' ');
function paragraphs(bytes) {
  const out = [];
  for (let size = 0; size < bytes;) {
    const p = `${words(60 + Math.floor(random() * 80))}.`;
    out.push(p);
    size += p.length + 2;
  }
  return out;
}
const escapeXml = (s) => s.replace(/[<&>]/g, (c) => ({ '<': '&lt;', '&': '&amp;', '>': '&gt;' })[c]);

function pdfOf(lines, perPage) {
  const objects = [];
  const add = (body) => objects.push(body);
  const catalog = add('');
  const tree = add('');
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const kids = [];
  for (let at = 0; at < lines.length; at += perPage) {
    const ops = lines.slice(at, at + perPage).map((line, i) => `BT /F1 9 Tf 36 ${770 - 12 * i} Td (${line}) Tj ET`).join('\n');
    const content = add(`<< /Length ${Buffer.byteLength(ops, 'latin1')} >>\nstream\n${ops}\nendstream`);
    kids.push(add(`<< /Type /Page /Parent ${tree} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R >>`));
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${tree} 0 R >>`;
  objects[tree - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  const parts = ['%PDF-1.4\n'];
  let size = parts[0].length;
  const offsets = objects.map((body, i) => {
    const at = size;
    const text = `${i + 1} 0 obj\n${body}\nendobj\n`;
    parts.push(text);
    size += Buffer.byteLength(text, 'latin1');
    return at;
  });
  parts.push(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`);
  parts.push(`trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${size}\n%%EOF\n`);
  return Buffer.from(parts.join(''), 'latin1');
}

function zipOf(entries) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const packed = deflateRawSync(data, { level: 6 });
    const n = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0); local.writeUInt16LE(20, 4); local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc32(data), 14); local.writeUInt32LE(packed.length, 18); local.writeUInt32LE(data.length, 22); local.writeUInt16LE(n.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0); central.writeUInt16LE(20, 4); central.writeUInt16LE(20, 6); central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc32(data), 16); central.writeUInt32LE(packed.length, 20); central.writeUInt32LE(data.length, 24); central.writeUInt16LE(n.length, 28); central.writeUInt32LE(offset, 42);
    locals.push(local, n, packed);
    centrals.push(central, n);
    offset += 30 + n.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(entries.length, 8); end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12); end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

function docxOf(paras) {
  const xml = `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${paras.map((p) => `<w:p><w:r><w:t>${escapeXml(p)}</w:t></w:r></w:p>`).join('')}</w:body></w:document>`;
  return zipOf([
    { name: '[Content_Types].xml', data: Buffer.from('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>') },
    { name: '_rels/.rels', data: Buffer.from('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>') },
    { name: 'word/document.xml', data: Buffer.from(xml) },
  ]);
}

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
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
