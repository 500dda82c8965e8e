import { describe, expect, it } from '@jest/globals';
import { decodeText, extractDocument } from '@lantern/extract';
import iconv from 'iconv-lite';

/** Text files in the encodings people's tools write (text.ts: a mark, strict UTF-8, detection, windows-1252). */
describe('extract: text encodings', () => {
  const SAMPLE = 'Café Zürich — naïve “timestamps”; 東京 prices, 😀.\n';

  it('drops a UTF-8 byte-order mark', () => {
    expect(decodeText(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(SAMPLE)]))).toEqual({ text: SAMPLE, encoding: 'utf-8' });
  });

  it('decodes UTF-16 LE and BE with their byte-order mark (Windows Notepad\'s "Unicode"), astral characters included', () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(SAMPLE, 'utf16le')]);
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(SAMPLE, 'utf16le').swap16()]);
    expect(decodeText(le)).toEqual({ text: SAMPLE, encoding: 'utf-16le' });
    expect(decodeText(be)).toEqual({ text: SAMPLE, encoding: 'utf-16be' });
  });

  it('reads Windows-1252 text with its euro sign and curly quotes', () => {
    const text = 'Price: 12 € – “quoted” café résumé naïve. Der Bäcker in Zürich grüßt.\n'.repeat(3);
    expect(decodeText(iconv.encode(text, 'windows-1252'))).toEqual({ text, encoding: 'windows-1252' });
  });

  it('detects legacy Cyrillic and Japanese encodings when the detection is sure', () => {
    const russian = 'Привет мир, это тестовый документ о сервисе оплаты. Ошибки и журналы.\n'.repeat(3);
    const japanese = 'これは決済サービスの運用手順書です。エラーが発生した場合は、担当者に連絡してください。\n'.repeat(2);
    expect(decodeText(iconv.encode(russian, 'windows-1251'))).toEqual({ text: russian, encoding: 'windows-1251' });
    expect(decodeText(iconv.encode(japanese, 'Shift_JIS'))).toEqual({ text: japanese, encoding: 'shift_jis' });
  });

  it('falls back to windows-1252 when the detection is unsure: short Latin-1 text keeps its letters', () => {
    // chardet's best guess for these bytes is ISO-8859-2 at 30, which would read "naïve" as "naďve".
    expect(decodeText(iconv.encode('Café Zürich, naïve timestamps.\n', 'latin1'))).toEqual({ text: 'Café Zürich, naïve timestamps.\n', encoding: 'windows-1252' });
  });

  it('fails bytes with NUL and no UTF-16 mark as unreadable, and text of only white space as no_text', async () => {
    expect(await extractDocument(Buffer.from('abc\0def\xff', 'latin1'), 'text/plain')).toEqual({ ok: false, code: 'unreadable', message: expect.stringContaining('NUL') });
    // Valid UTF-8 all the same: UTF-16 without its mark.
    expect(await extractDocument(Buffer.from('hello', 'utf16le'), 'text/plain')).toEqual({ ok: false, code: 'unreadable', message: expect.stringContaining('NUL') });
    expect(await extractDocument(Buffer.from(' \n\t\r\n '), 'text/plain; charset=utf-8')).toEqual({ ok: false, code: 'no_text', message: 'The file holds only white space.' });
  });

  it('fails text past the character bound as too_large', async () => {
    expect(await extractDocument(Buffer.from('x'.repeat(1001)), 'text/plain', { maxPages: 10, maxInflatedBytes: 1e6, maxCharacters: 1000, deadline: Date.now() + 10_000 }))
      .toEqual({ ok: false, code: 'too_large', message: expect.stringContaining('more than 1000 characters') });
  });
});
