import { describe, expect, it } from '@jest/globals';
import { csvField, csvLine } from '../src/export.js';

describe('csvField', () => {
  it('quotes a field with a comma, a quote or a line break, and doubles its quotes', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
  });

  it('defuses a text a spreadsheet would run as a formula', () => {
    expect(csvField('=HYPERLINK("http://evil")')).toBe('"\'=HYPERLINK(""http://evil"")"');
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('-2+3')).toBe("'-2+3");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    // A number is a number, even a negative one.
    expect(csvField(-5)).toBe('-5');
  });

  it('writes numbers and booleans as they are, objects as JSON, null and undefined as nothing', () => {
    expect(csvField(12.5)).toBe('12.5');
    expect(csvField(true)).toBe('true');
    expect(csvField({ a: 1, b: [2, 'x'] })).toBe('"{""a"":1,""b"":[2,""x""]}"');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
  });

  it('ends a line with CRLF', () => {
    expect(csvLine(['a', 1, null, 'b,c'])).toBe('a,1,,"b,c"\r\n');
  });
});
