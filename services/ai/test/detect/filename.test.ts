import { describe, expect, it } from '@jest/globals';
import { sanitizeFilename } from '../../src/detect/index.js';

describe('sanitizeFilename', () => {
  it.each([
    ['../../etc/passwd', 'passwd'],
    ['a\u0000b\nc.txt', 'abc.txt'],
    ['C:\\Users\\x\\report.pdf', 'report.pdf'],
    ['/var/tmp/notes.md', 'notes.md'],
    ['..\\..\\boot.ini', 'boot.ini'],
    ['Zürich runbook (v2).docx', 'Zürich runbook (v2).docx'],
    ['東京 notes_2024-01.md', '東京 notes_2024-01.md'],
    ['re\u0301sume\u0301.pdf', 'résumé.pdf'],
    ['.env', 'env'],
    ['...hidden..txt', 'hidden.txt'],
    ['report...pdf', 'report.pdf'],
    ['a<b>c:d"e|f?g*h.txt', 'abcdefgh.txt'],
    ['evil\u202Egnp.exe', 'evilgnp.exe'],
    ['tab\there  and\u00a0nbsp.txt', 'tabhere and nbsp.txt'],
    ['  spaced out.txt  ', 'spaced out.txt'],
    ['trailing.', 'trailing'],
  ])('%j -> %j', (input, expected) => {
    expect(sanitizeFilename(input)).toBe(expected);
  });

  it.each(['', '..', '.', '/', 'a/b/', '\u0000\u0001', '???', '...', '  '])('never answers empty (%j -> "document")', (input) => {
    expect(sanitizeFilename(input)).toBe('document');
  });

  it('limits the name to 200 characters and keeps the extension', () => {
    const name = sanitizeFilename(`${'x'.repeat(300)}.pdf`);
    expect(name).toHaveLength(200);
    expect(name.endsWith('.pdf')).toBe(true);
    expect(sanitizeFilename('y'.repeat(500))).toBe('y'.repeat(200));
  });

  it('never cuts a character in half', () => {
    const name = sanitizeFilename('𝒜'.repeat(150));
    expect(name.length).toBeLessThanOrEqual(200);
    expect(name).toBe('𝒜'.repeat(100));
  });

  it('never starts with a dot', () => {
    for (const input of ['.bashrc', '..', '. .x', '../.ssh/.id_rsa']) expect(sanitizeFilename(input).startsWith('.')).toBe(false);
  });
});

describe('sanitizeFilename: linear in its input (issue 18)', () => {
  // The old trailing trim /[. ]+$/ retried from every position of ". . . . x": 8,100 pairs cost 420 ms of CPU.
  // These inputs are 100 times that; a quadratic pass over them would take minutes, not the test's few ms.
  const pairs = '. '.repeat(810_000);

  it('a name of 810,000 ". " pairs between "x" and "y.txt" is cut to 200 units and loses its trailing dots and spaces', () => {
    // As before the rewrite: the cut stem "x. . . ." ends in dots and spaces, which are trimmed; the extension stays.
    expect(sanitizeFilename(`x${pairs}y.txt`)).toBe('x.txt');
    expect(sanitizeFilename(`x${'. '.repeat(3)}y.txt`)).toBe('x. . . y.txt');
  });

  it('dots and spaces only, of any length, are "document"', () => {
    expect(sanitizeFilename(pairs)).toBe('document');
    expect(sanitizeFilename('.'.repeat(2_000_000))).toBe('document');
  });

  it('a long path keeps only its basename, bounded to its head and tail', () => {
    expect(sanitizeFilename(`${'dir/'.repeat(500_000)}report.pdf`)).toBe('report.pdf');
    const long = sanitizeFilename(`${'a'.repeat(1_000_000)}.pdf`);
    expect(long).toBe(`${'a'.repeat(196)}.pdf`);
  });
});
