import { describe, expect, it } from '@jest/globals';
import { DOCX, extractDocument, NO_TEXT_LAYER, PDF } from '@lantern/extract';
import { fixture } from './helpers.js';

/** Each accepted fixture of fixtures/documents/README.md gets its documented outcome, and its text is checked. */
describe('extract: the document fixtures made by real tools', () => {
  /** The text of a successful extraction, else the test fails with the failure. */
  const textOf = async (name: string, type: string) => {
    const result = await extractDocument(fixture(name), type);
    expect({ name, ok: result.ok }).toEqual({ name, ok: true });
    return result.ok ? result : (undefined as never);
  };

  it('reads the LibreOffice PDF page by page: its title, table cells and non-ASCII letters', async () => {
    const pdf = await textOf('runbook.pdf', PDF);
    expect(pdf.pages).toHaveLength(1);
    expect(pdf.text).toBe(pdf.pages![0]);
    expect(pdf.text.startsWith('Checkout service: on-call runbook\n')).toBe(true);
    // Lines as laid out on the page: a table cell wraps ("inventory lock" / "contention").
    const words = pdf.text.replace(/\s+/g, ' ');
    for (const phrase of ['The checkout service promises 99.9 % of requests under 300 ms.', 'p99 above 2 s', 'inventory lock contention',
      'The café in Zürich sends orders with naïve timestamps', 'Quote the trace id in the incident channel.']) {
      expect(words).toContain(phrase);
    }
    // The file's own text layer maps both CJK glyphs to 東 (its ToUnicode map says so; pypdf reads the same): what
    // the PDF says is what is extracted.
    expect(words).toContain('Orders from the 東東 storefront');
  });

  it.each(['runbook-pandoc.docx', 'runbook-libreoffice.docx'])('reads %s: headings, list items and table cells', async (name) => {
    const docx = await textOf(name, DOCX);
    expect(docx.pages).toBeUndefined();
    expect(docx.text.startsWith('Checkout service: on-call runbook\n')).toBe(true);
    for (const words of ['When the error budget burns', 'Open the latency dashboard and find the slowest route.', 'p99 above 2 s', 'unbounded retry queue', 'The café in Zürich sends orders with naïve timestamps', '東京']) {
      expect(docx.text).toContain(words);
    }
  });

  it('fails the scanned PDF with no_text and the contract\'s message, not a success with nothing', async () => {
    expect(await extractDocument(fixture('scanned.pdf'), PDF)).toEqual({ ok: false, code: 'no_text', message: NO_TEXT_LAYER });
  });

  it('fails the encrypted PDF with encrypted and says why', async () => {
    const result = await extractDocument(fixture('encrypted.pdf'), PDF);
    expect(result).toEqual({ ok: false, code: 'encrypted', message: expect.stringContaining('password') });
  });

  it('fails the cut-off PDF cleanly with unreadable', async () => {
    const result = await extractDocument(fixture('truncated.pdf'), PDF);
    expect(result).toEqual({ ok: false, code: 'unreadable', message: expect.stringContaining('damaged or cut off') });
  });

  it('reads Markdown, CSV, YAML and JSON as they are, byte for byte', async () => {
    for (const [name, type] of [['runbook.md', 'text/markdown; charset=utf-8'], ['orders.csv', 'text/csv; charset=utf-8'], ['service.yaml', 'application/yaml; charset=utf-8'], ['incident.json', 'application/json; charset=utf-8']] as const) {
      expect((await textOf(name, type)).text).toBe(fixture(name).toString('utf8'));
    }
  });

  it('reads HTML as the text a browser shows, without the markup', async () => {
    expect((await textOf('status.html', 'text/html; charset=utf-8')).text).toBe('All systems operational\n\nCheckout latency nominal.');
  });

  it('keeps UTF-8 characters exactly, and reads the ISO-8859-1 notes with the documented fallback', async () => {
    expect((await textOf('notes-utf8.txt', 'text/plain; charset=utf-8')).text).toBe(fixture('notes-utf8.txt').toString('utf8'));
    expect((await textOf('notes-latin1.txt', 'text/plain; charset=iso-8859-1')).text).toBe('Café Zürich, naïve timestamps.\n');
  });
});
