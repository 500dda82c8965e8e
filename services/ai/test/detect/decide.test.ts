import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { DOCX, PDF, decideDocumentType, listZip, textTypeFor } from '../../src/detect/index.js';
import { fixturesDir, inspect, makeZip } from './helpers.js';

const decide = async (bytes: Buffer | string, filename = 'upload.bin') => {
  const { result } = await inspect(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes, 'latin1'), 1000);
  return decideDocumentType(result, filename);
};
const docxEntries = [{ name: '[Content_Types].xml', data: '<Types/>' }, { name: '_rels/.rels' }, { name: 'word/document.xml', data: '<w:document/>' }];
/** Enough entries with long names that the central directory is larger than the 64 KiB tail. */
const filler = Array.from({ length: 900 }, (_, i) => ({ name: `word/media/image-${String(i).padStart(4, '0')}-${'n'.repeat(60)}.png`, data: 'x' }));

describe('decideDocumentType', () => {
  it('answers 400 for an empty file', async () => {
    expect(await decide('', 'empty.pdf')).toEqual({ ok: false, status: 400, message: 'The file is empty.' });
  });

  it.each([
    ['notes.md', 'text/markdown'],
    ['README.MD', 'text/markdown'],
    ['doc.markdown', 'text/markdown'],
    ['orders.csv', 'text/csv'],
    ['data.json', 'application/json'],
    ['page.html', 'text/html'],
    ['page.htm', 'text/html'],
    ['feed.xml', 'application/xml'],
    ['ci.yaml', 'application/yaml'],
    ['ci.yml', 'application/yaml'],
    ['notes.txt', 'text/plain'],
    ['server.log', 'text/plain'],
    ['Makefile', 'text/plain'],
    ['.env', 'text/plain'],
    ['report.pdf', 'text/plain'],
    ['report.docx', 'text/plain'],
    ['dir/sub.d/notes.md', 'text/markdown'],
  ])('gives text named %s the type %s', async (filename, type) => {
    expect(textTypeFor(filename)).toBe(type);
    expect(await decide('plain words\n', filename)).toEqual({ ok: true, contentType: `${type}; charset=utf-8`, encoding: 'utf-8' });
  });

  it('accepts UTF-8 with a BOM, and falls back to ISO-8859-1 for other text', async () => {
    expect(await decide(Buffer.from('\ufeffZürich\n'), 'a.txt')).toMatchObject({ ok: true, encoding: 'utf-8' });
    expect(await decide('Caf\xe9 Z\xfcrich\n', 'a.csv')).toEqual({ ok: true, contentType: 'text/csv; charset=iso-8859-1', encoding: 'iso-8859-1' });
  });

  it('allows control characters up to 1% of the size, a few in a tiny file, never a NUL', async () => {
    const withControls = (size: number, controls: number): Buffer => {
      const b = Buffer.alloc(size, 0x61);
      for (let i = 0; i < controls; i++) b[i * 3 + 1] = 0x1b;
      return b;
    };
    expect(await decide(withControls(1000, 10), 'a.txt')).toMatchObject({ ok: true });
    expect(await decide(withControls(1000, 11), 'a.txt')).toMatchObject({ ok: false, status: 415 });
    expect(await decide(withControls(50, 2), 'a.txt')).toMatchObject({ ok: true });
    expect(await decide(withControls(50, 3), 'a.txt')).toMatchObject({ ok: false, status: 415 });
    expect(await decide(withControls(5, 1), 'a.txt')).toMatchObject({ ok: false, status: 415 });
    expect(await decide(Buffer.from('a long enough line of text\0\n'), 'a.txt')).toMatchObject({ ok: false, status: 415 });
  });

  it.each([
    ['PNG', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
    ['JPEG', [0xff, 0xd8, 0xff, 0xe0]],
    ['GIF', 'GIF89a'],
    ['WebP', 'RIFF\x10\x00\x00\x00WEBPVP8 '],
    ['gzip', [0x1f, 0x8b, 0x08, 0x00]],
    ['ELF', [0x7f, 0x45, 0x4c, 0x46, 0x02]],
    ['Mach-O', [0xcf, 0xfa, 0xed, 0xfe]],
    ['legacy Microsoft Office', [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]],
    ['7-Zip', [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
    ['RAR', 'Rar!\x1a\x07\x01\x00'],
    ['MP4', '\x00\x00\x00\x18ftypmp42'],
    ['bzip2', 'BZh91AY&SY'],
    ['SQLite', 'SQLite format 3\x00'],
  ])('refuses %s with 415 whatever the name', async (format, magic) => {
    const head = Buffer.isBuffer(magic) || Array.isArray(magic) ? Buffer.from(magic) : Buffer.from(magic, 'latin1');
    // Printable padding: the signature, not the text check, must be what refuses it.
    const decision = await decide(Buffer.concat([head, Buffer.alloc(500, 0x61)]), 'notes.txt');
    expect(decision).toMatchObject({ ok: false, status: 415 });
    if (!decision.ok) expect(decision.message).toContain(format);
  });

  it('refuses a Windows executable (MZ ... PE) but keeps text that starts with "MZ" or "ID3"', async () => {
    const pe = Buffer.alloc(512, 0x61);
    pe.write('MZ', 0, 'latin1');
    pe.writeUInt32LE(0x80, 0x3c);
    pe.write('PE\0\0', 0x80, 'latin1');
    expect(await decide(pe)).toMatchObject({ ok: false, message: expect.stringContaining('Windows executable') });
    expect(await decide('MZ-42 maintenance window notes\n', 'n.txt')).toMatchObject({ ok: true });
    expect(await decide('ID3 tags are not in this file\n', 'n.txt')).toMatchObject({ ok: true });
  });

  it('accepts UTF-16 LE and BE text with its byte-order mark (Windows Notepad\'s "Unicode"), NUL bytes and all', async () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello\n', 'utf16le')]);
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('hello\n', 'utf16le').swap16()]);
    expect(await decide(le, 'a.txt')).toEqual({ ok: true, contentType: 'text/plain; charset=utf-16le', encoding: 'utf-16le' });
    expect(await decide(be, 'a.md')).toEqual({ ok: true, contentType: 'text/markdown; charset=utf-16be', encoding: 'utf-16be' });
  });

  it('refuses a binary file behind a UTF-16 mark: its characters must read as text too', async () => {
    const binary = Buffer.alloc(4096);
    for (let i = 0; i < binary.length; i++) binary[i] = (i * 73 + 41) % 256;
    expect(await decide(Buffer.concat([Buffer.from([0xff, 0xfe]), binary]), 'a.txt')).toMatchObject({ ok: false, status: 415, message: expect.stringContaining('binary') });
    expect(await decide(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.alloc(64)]), 'a.txt')).toMatchObject({ ok: false, status: 415 });
  });

  it('refuses UTF-32 text, and NUL bytes without a UTF-16 mark, with 415', async () => {
    const utf32 = Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), Buffer.from('h\0\0\0i\0\0\0', 'latin1')]);
    expect(await decide(utf32, 'a.txt')).toMatchObject({ ok: false, status: 415, message: expect.stringContaining('UTF-32') });
    expect(await decide(Buffer.from('hello\n', 'utf16le'), 'a.txt')).toMatchObject({ ok: false, status: 415 });
  });

  it('finds a PDF header within the first 1024 bytes, but not in text that only mentions it', async () => {
    const pdf = readFileSync(join(fixturesDir(), 'runbook.pdf'));
    expect(await decide(Buffer.concat([Buffer.from('X-Junk: mail header\r\n\r\n'), pdf]))).toEqual({ ok: true, contentType: PDF });
    expect(await decide('# Notes\nA PDF starts with %PDF-1.7 and a binary comment.\n', 'n.md')).toMatchObject({
      ok: true,
      contentType: 'text/markdown; charset=utf-8',
    });
    expect(await decide(`${'x'.repeat(1100)}%PDF-1.4\n\xe2\xe3\xcf\xd3\0\0`)).toMatchObject({ ok: false, status: 415 });
  });

  describe('ZIP files', () => {
    it('accepts a ZIP with [Content_Types].xml and word/document.xml as DOCX, in any order, with a comment', async () => {
      expect(await decide(makeZip(docxEntries), 'a.zip')).toEqual({ ok: true, contentType: DOCX });
      expect(await decide(makeZip([...docxEntries].reverse(), 'saved by a tool'))).toEqual({ ok: true, contentType: DOCX });
    });

    it.each([
      ['only [Content_Types].xml', [{ name: '[Content_Types].xml' }, { name: 'word/styles.xml' }], /ZIP archive that holds no Word document/],
      ['an Excel workbook', [{ name: '[Content_Types].xml' }, { name: 'xl/workbook.xml' }], /Excel workbook/],
      ['a PowerPoint deck', [{ name: '[Content_Types].xml' }, { name: 'ppt/presentation.xml' }], /PowerPoint/],
      ['an EPUB', [{ name: 'mimetype', data: 'application/epub+zip' }, { name: 'OEBPS/content.opf' }], /EPUB/],
      ['an OpenDocument text', [{ name: 'mimetype', data: 'application/vnd.oasis.opendocument.text' }, { name: 'content.xml' }], /OpenDocument/],
      ['an empty-named word folder', [{ name: '[Content_Types].xml' }, { name: 'Word/Document.xml' }], /no Word document/],
    ])('refuses %s with 415', async (_what, entries, message) => {
      expect(await decide(makeZip(entries), 'x.docx')).toMatchObject({ ok: false, status: 415, message: expect.stringMatching(message) });
    });

    it('falls back to the local headers in the head when the central directory is larger than the tail', async () => {
      const zip = makeZip([...docxEntries, ...filler]);
      const { result } = await inspect(zip);
      const listing = listZip(result.head, result.tail);
      expect(zip.length).toBeGreaterThan(2 * 64 * 1024);
      expect(listing.complete).toBe(false);
      expect(listing.names.slice(0, 3)).toEqual(docxEntries.map((e) => e.name));
      expect(decideDocumentType(result, 'big.docx')).toEqual({ ok: true, contentType: DOCX });
      expect(await decide(makeZip([{ name: '[Content_Types].xml' }, ...filler, { name: 'word/document.xml' }]))).toMatchObject({ ok: false, status: 415 });
    });

    it('reads what it can of a cut ZIP (no central directory at all): like a cut PDF, accepted if the names are there', async () => {
      const docx = readFileSync(join(fixturesDir(), 'runbook-pandoc.docx'));
      const { result } = await inspect(docx.subarray(0, 3000));
      const listing = listZip(result.head, result.tail);
      expect(listing).toMatchObject({ complete: false, names: expect.arrayContaining(['[Content_Types].xml', 'word/document.xml']) });
      expect(decideDocumentType(result, 'cut.docx')).toEqual({ ok: true, contentType: DOCX });
      const first = await inspect(docx.subarray(0, 500));
      expect(decideDocumentType(first.result, 'cut.docx')).toMatchObject({ ok: false, status: 415 });
      expect(await decide(Buffer.from('PK\x03\x04', 'latin1'))).toMatchObject({ ok: false, status: 415 });
    });
  });
});
