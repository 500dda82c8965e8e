import { afterEach, describe, expect, it } from '@jest/globals';
import { createProcessingPool, DEFAULT_CHUNKING, DOCX, PART_CHUNKS, PDF, type ProcessingPool, START_ATTEMPTS } from '@lantern/extract';
import { fixture, zipOf } from './helpers.js';

/** Processing on threads of its own: results, the time limit and the memory limit per document, replacement threads. */
describe('extract: the processing pool', () => {
  let pool: ProcessingPool | undefined;
  afterEach(() => pool?.close());

  it('extracts and chunks documents on its threads: a PDF\'s pages, a scan\'s no_text', async () => {
    pool = createProcessingPool({ size: 2, timeoutMs: 30_000, maxHeapMb: 512 });
    const [pdf, scanned, md] = await Promise.all([
      pool.process(fixture('runbook.pdf'), PDF, DEFAULT_CHUNKING),
      pool.process(fixture('scanned.pdf'), PDF, DEFAULT_CHUNKING),
      pool.process(fixture('runbook.md'), 'text/markdown; charset=utf-8', DEFAULT_CHUNKING),
    ]);
    expect(pdf).toEqual({ ok: true, characters: expect.any(Number), pages: 1, chunks: [expect.objectContaining({ index: 0, pages: [1, 1], start: 0 })] });
    expect(scanned).toEqual({ ok: false, code: 'no_text', message: 'no text layer; OCR is not supported' });
    const text = fixture('runbook.md').toString('utf8');
    expect(md).toEqual({ ok: true, characters: text.length, chunks: [expect.objectContaining({ index: 0, text: text.trim() })] });
  }, 60_000);

  it('hands over a result of many chunks in parts (PART_CHUNKS each), whole and in order', async () => {
    pool = createProcessingPool({ size: 1, timeoutMs: 30_000, maxHeapMb: 512 });
    const paragraphs = Array.from({ length: 3_000 }, (_, i) => `Paragraph ${i} of the runbook: restart the checkout service, then watch the error rate for ten minutes.`);
    const text = paragraphs.join('\n\n');
    const result = await pool.process(Buffer.from(text), 'text/plain; charset=utf-8', { maxTokens: 100, overlapTokens: 0 });
    if (!result.ok) throw new Error(result.message);
    expect(result.chunks.length).toBeGreaterThan(2 * PART_CHUNKS);
    expect(result.chunks.map((c) => c.index)).toEqual(result.chunks.map((_, i) => i));
    for (const c of result.chunks) expect(text.slice(c.start, c.end)).toBe(c.text);
    expect(result.chunks.at(-1)!.text).toContain('Paragraph 2999 ');
    // The thread is free for the next document once the parts are through.
    expect(await pool.process(Buffer.from('A short note.'), 'text/plain; charset=utf-8', DEFAULT_CHUNKING)).toEqual(expect.objectContaining({ ok: true, characters: 13 }));
  }, 60_000);

  it('stops a document past its time with timeout, and the next document gets a new thread', async () => {
    // The grace is the time the next, short document has too: 400 ms leaves room for a loaded machine.
    pool = createProcessingPool({ size: 1, timeoutMs: 1, graceMs: 400, maxHeapMb: 512 });
    // Text is chunked in one go (no page to stop between): 17 MB of it takes seconds, far past 401 ms.
    const big = Buffer.from(fixture('runbook.md').toString('utf8').repeat(16_000));
    const began = Date.now();
    expect(await pool.process(big, 'text/markdown; charset=utf-8', DEFAULT_CHUNKING)).toEqual({ ok: false, code: 'timeout', message: 'Processing took longer than the 1 ms one document may take.' });
    expect(Date.now() - began).toBeLessThan(30_000);
    expect(await pool.process(Buffer.from('A short note.'), 'text/plain; charset=utf-8', DEFAULT_CHUNKING)).toEqual(expect.objectContaining({ ok: true, characters: 13 }));
  }, 60_000);

  it('stops a document that needs more than the heap allowed with too_large, and goes on with the next', async () => {
    pool = createProcessingPool({ size: 1, timeoutMs: 60_000, maxHeapMb: 300 });
    // 23 MB of Word XML within the inflation bound, 25 KB on the wire: mammoth's tree of it needs far more than 300 MB.
    const paragraphs = '<w:p><w:r><w:t>Checkout runbook line.</w:t></w:r></w:p>'.repeat(400_000);
    const docx = zipOf([
      { name: '[Content_Types].xml', data: Buffer.from('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>') },
      { name: '_rels/.rels', data: Buffer.from('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>') },
      { name: 'word/document.xml', data: Buffer.from(`<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${paragraphs}</w:body></w:document>`) },
    ]);
    expect(await pool.process(docx, DOCX, DEFAULT_CHUNKING)).toEqual({ ok: false, code: 'too_large', message: 'Processing the document needed more than the 300 MB of memory one document may use.' });
    expect(await pool.process(Buffer.from('A short note.'), 'text/plain; charset=utf-8', DEFAULT_CHUNKING)).toEqual(expect.objectContaining({ ok: true }));
  }, 120_000);

  it('rejects the waiting jobs with the reason when its thread cannot start three times in a row, instead of trying forever', async () => {
    // No thread is ready within 1 ms (its tokenizer takes about 1.5 s to build): every start fails.
    pool = createProcessingPool({ size: 1, timeoutMs: 1000, graceMs: 100, maxHeapMb: 512, startTimeoutMs: 1 });
    const waiting = [pool.process(Buffer.from('a'), 'text/plain', DEFAULT_CHUNKING), pool.process(Buffer.from('b'), 'text/plain', DEFAULT_CHUNKING)];
    for (const job of waiting) await expect(job).rejects.toThrow(`could not start ${START_ATTEMPTS} times`);
  }, 60_000);

  it('refuses work once closed', async () => {
    pool = createProcessingPool({ size: 1, timeoutMs: 1000, maxHeapMb: 512 });
    await pool.close();
    await expect(pool.process(Buffer.from('x'), 'text/plain', DEFAULT_CHUNKING)).rejects.toThrow('closed');
  });
});
