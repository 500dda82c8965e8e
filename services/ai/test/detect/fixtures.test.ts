import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { DOCX, PDF, decideDocumentType, listZip } from '../../src/detect/index.js';
import { fixturesDir, inspect } from './helpers.js';

type Expected = { status: 200; contentType: string } | { status: 400 | 415; message: RegExp };

const unsupported = /not a supported format\. Supported formats: PDF, DOCX, TXT, MD and other text formats/;
const utf8 = (type: string): Expected => ({ status: 200, contentType: `${type}; charset=utf-8` });

/** The outcome table of fixtures/documents/README.md. truncated.pdf: our documented choice is 200. */
const EXPECTED: Record<string, Expected> = {
  'runbook.md': utf8('text/markdown'),
  'runbook-pandoc.docx': { status: 200, contentType: DOCX },
  'runbook-libreoffice.docx': { status: 200, contentType: DOCX },
  'runbook.pdf': { status: 200, contentType: PDF },
  'runbook.odt': { status: 415, message: /OpenDocument/ },
  'scanned.pdf': { status: 200, contentType: PDF },
  'encrypted.pdf': { status: 200, contentType: PDF },
  'truncated.pdf': { status: 200, contentType: PDF },
  'orders.csv': utf8('text/csv'),
  'service.yaml': utf8('application/yaml'),
  'incident.json': utf8('application/json'),
  'status.html': utf8('text/html'),
  'notes-utf8.txt': utf8('text/plain'),
  'notes-latin1.txt': { status: 200, contentType: 'text/plain; charset=iso-8859-1' },
  'image-named.txt': { status: 415, message: /PNG image/ },
  'plain-zip-named.docx': { status: 415, message: /ZIP archive that holds no Word document/ },
  'empty.txt': { status: 400, message: /^The file is empty\.$/ },
};

const dir = fixturesDir();
const read = (name: string): Buffer => readFileSync(join(dir, name));

describe('document fixtures through the inspector and the type decision', () => {
  it('has an expectation for every fixture in the folder', () => {
    const files = readdirSync(dir).filter((f) => f !== 'README.md').sort();
    expect(files).toEqual(Object.keys(EXPECTED).sort());
  });

  describe.each(Object.entries(EXPECTED))('%s', (name, expected) => {
    it.each([1000, 4096, 1 << 20])('answers as the README says, streamed in chunks of %i bytes', async (chunkSize) => {
      const bytes = read(name);
      const { result, output } = await inspect(bytes, chunkSize);
      expect(output.equals(bytes)).toBe(true);
      expect(result.size).toBe(bytes.length);
      expect(result.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      const decision = decideDocumentType(result, name);
      if (expected.status === 200) {
        expect(decision).toMatchObject({ ok: true, contentType: expected.contentType });
      } else {
        expect(decision).toMatchObject({ ok: false, status: expected.status });
        if (!decision.ok) {
          expect(decision.message).toMatch(expected.message);
          if (expected.status === 415) expect(decision.message).toMatch(unsupported);
        }
      }
    });
  });

  it('decodes notes-latin1.txt with the ISO-8859-1 fallback', async () => {
    const { result } = await inspect(read('notes-latin1.txt'));
    expect(result.text.validUtf8).toBe(false);
    expect(decideDocumentType(result, 'notes-latin1.txt')).toMatchObject({ encoding: 'iso-8859-1' });
    expect(read('notes-latin1.txt').toString('latin1')).toContain('Café Zürich');
  });

  it('keeps multi-byte UTF-8 split across chunk boundaries valid (notes-utf8.txt, runbook.md, 1-byte chunks)', async () => {
    for (const name of ['notes-utf8.txt', 'runbook.md']) {
      const { result } = await inspect(read(name), 1);
      expect(result.text).toEqual({ hasNul: false, controlChars: 0, validUtf8: true });
      expect(decideDocumentType(result, name)).toMatchObject({ ok: true, encoding: 'utf-8' });
    }
  });

  it('reads the DOCX entry names from the central directory in the tail', async () => {
    for (const name of ['runbook-pandoc.docx', 'runbook-libreoffice.docx']) {
      const { result } = await inspect(read(name));
      const zip = listZip(result.head, result.tail);
      expect(zip.complete).toBe(true);
      expect(zip.names).toEqual(expect.arrayContaining(['[Content_Types].xml', 'word/document.xml']));
    }
  });

  it('decides by content, not by name: a PDF named .txt is a PDF, text named .pdf or .docx is text/plain', async () => {
    const pdf = (await inspect(read('runbook.pdf'))).result;
    expect(decideDocumentType(pdf, 'notes.txt')).toMatchObject({ ok: true, contentType: PDF });
    const docx = (await inspect(read('runbook-pandoc.docx'))).result;
    expect(decideDocumentType(docx, 'runbook.pdf')).toMatchObject({ ok: true, contentType: DOCX });
    const md = (await inspect(read('runbook.md'))).result;
    expect(decideDocumentType(md, 'runbook.pdf')).toMatchObject({ ok: true, contentType: 'text/plain; charset=utf-8' });
    expect(decideDocumentType(md, 'runbook.docx')).toMatchObject({ ok: true, contentType: 'text/plain; charset=utf-8' });
    const png = (await inspect(read('image-named.txt'))).result;
    expect(decideDocumentType(png, 'photo.md')).toMatchObject({ ok: false, status: 415 });
  });
});
