import { describe, expect, it } from '@jest/globals';
import { checkInflatedSize, DOCX, extractDocument, limitsOf, MAX_ENTRIES, zipEntries } from '@lantern/extract';
import { fixture, zipOf } from './helpers.js';

/** ZIP bombs and broken archives named .docx: refused by the central-directory check before mammoth opens them. */
describe('extract: DOCX bounds', () => {
  const MB = 1024 * 1024;
  const wordXml = (body: string) => Buffer.from(`<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`);
  const docxOf = (documentXml: Buffer, declaredSize?: number) => zipOf([
    { name: '[Content_Types].xml', data: Buffer.from('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>') },
    { name: '_rels/.rels', data: Buffer.from('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>') },
    { name: 'word/document.xml', data: documentXml, ...(declaredSize === undefined ? {} : { declaredSize }) },
  ]);

  it('reads a small DOCX written here, so the archives below differ from it only in what is tested', async () => {
    const docx = docxOf(wordXml('<w:p><w:r><w:t>Runbook for the payments service</w:t></w:r></w:p>'));
    expect(await extractDocument(docx, DOCX)).toEqual({ ok: true, text: 'Runbook for the payments service\n\n' });
  });

  it('refuses a DOCX that expands past the bound, 64 KiB of it becoming 3 MiB, as too_large', async () => {
    const bomb = docxOf(wordXml(`<w:p><w:r><w:t>${'A'.repeat(3 * MB)}</w:t></w:r></w:p>`));
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(await extractDocument(bomb, DOCX, limitsOf({ maxInflatedBytes: 1 * MB })))
      .toEqual({ ok: false, code: 'too_large', message: `The DOCX file expands to more than ${MB} bytes, the most one document may expand to.` });
  });

  it('does not trust the sizes the archive declares: an entry that says 100 bytes and inflates to 3 MiB is too_large', async () => {
    const liar = docxOf(wordXml(`<w:p><w:r><w:t>${'A'.repeat(3 * MB)}</w:t></w:r></w:p>`), 100);
    expect(zipEntries(liar).find((e) => e.name === 'word/document.xml')?.uncompressedSize).toBe(100);
    expect(() => checkInflatedSize(liar, MB)).toThrow(expect.objectContaining({ code: 'too_large' }) as unknown as Error);
  });

  it('refuses an archive of more entries than any Word document has', async () => {
    const many = zipOf(Array.from({ length: MAX_ENTRIES + 1 }, (_, i) => ({ name: `word/media/${i}.png`, data: Buffer.alloc(0), method: 0 as const })));
    expect(await extractDocument(many, DOCX)).toEqual({ ok: false, code: 'too_large', message: `The DOCX file holds ${MAX_ENTRIES + 1} entries; at most ${MAX_ENTRIES} are read.` });
  });

  it('reads the directory as strictly as the ZIP library after it reads loosely: a declared count that lies is unreadable', async () => {
    const honest = docxOf(wordXml(`<w:p><w:r><w:t>${'A'.repeat(3 * MB)}</w:t></w:r></w:p>`));
    const eocd = honest.length - 22;
    for (const declared of [0, 1, 2]) {
      const liar = Buffer.from(honest);
      liar.writeUInt16LE(declared, eocd + 8);
      liar.writeUInt16LE(declared, eocd + 10);
      // JSZip (mammoth's) walks every directory record whatever the count: the bomb would reach it unchecked.
      expect(() => checkInflatedSize(liar, MB)).toThrow(expect.objectContaining({ code: 'unreadable' }) as unknown as Error);
    }
  });

  it('refuses bytes before the archive or between its directory and end record as unreadable (the library would shift every offset)', async () => {
    const honest = docxOf(wordXml('<w:p><w:r><w:t>fine</w:t></w:r></w:p>'));
    const prepended = Buffer.concat([Buffer.alloc(100, 0x20), honest]);
    expect(await extractDocument(prepended, DOCX)).toEqual({ ok: false, code: 'unreadable', message: expect.stringContaining('ZIP directory does not end where the archive says') });
    const eocd = honest.length - 22;
    const gap = Buffer.concat([honest.subarray(0, eocd), Buffer.alloc(16), honest.subarray(eocd)]);
    expect(await extractDocument(gap, DOCX)).toEqual({ ok: false, code: 'unreadable', message: expect.stringContaining('ZIP directory does not end where the archive says') });
  });

  it('measures the real DOCX fixtures within the bound, entry by entry as they inflate', () => {
    for (const name of ['runbook-pandoc.docx', 'runbook-libreoffice.docx']) {
      const bytes = fixture(name);
      const declared = zipEntries(bytes).reduce((n, e) => n + e.uncompressedSize, 0);
      expect(checkInflatedSize(bytes, 100 * MB)).toBe(declared);
    }
  });

  it('fails a cut-off DOCX and a ZIP without a Word document as unreadable', async () => {
    const whole = fixture('runbook-pandoc.docx');
    expect(await extractDocument(whole.subarray(0, whole.length >> 1), DOCX)).toEqual({ ok: false, code: 'unreadable', message: expect.stringContaining('ZIP directory is missing') });
    expect(await extractDocument(fixture('plain-zip-named.docx'), DOCX)).toEqual({ ok: false, code: 'unreadable', message: expect.stringContaining('main document part') });
  });
});
