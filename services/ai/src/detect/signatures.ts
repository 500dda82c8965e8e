/**
 * Magic numbers of binary formats we refuse (415) whatever the file is called. Anything binary is refused
 * anyway by the text check (NUL or control bytes); these give a precise message, and catch the formats
 * whose first bytes could otherwise pass for text. Short ASCII magics ("MZ", "BZh", "ID3", "fLaC") are
 * checked with the bytes that follow them, so a text file that happens to start with them stays text.
 */
interface Signature {
  name: string;
  test: (head: Buffer) => boolean;
}

const at = (head: Buffer, offset: number, bytes: number[] | string): boolean => {
  const magic = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.from(bytes);
  return head.length >= offset + magic.length && head.subarray(offset, offset + magic.length).equals(magic);
};

const isPe = (head: Buffer): boolean => {
  if (!at(head, 0, 'MZ') || head.length < 0x40) return false;
  const peOffset = head.readUInt32LE(0x3c);
  return peOffset + 4 <= head.length && at(head, peOffset, 'PE\0\0');
};

const SIGNATURES: Signature[] = [
  { name: 'a PNG image', test: (h) => at(h, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { name: 'a JPEG image', test: (h) => at(h, 0, [0xff, 0xd8, 0xff]) },
  { name: 'a GIF image', test: (h) => at(h, 0, 'GIF87a') || at(h, 0, 'GIF89a') },
  { name: 'a WebP image', test: (h) => at(h, 0, 'RIFF') && at(h, 8, 'WEBP') },
  { name: 'a WAV or AVI file', test: (h) => at(h, 0, 'RIFF') && (at(h, 8, 'WAVE') || at(h, 8, 'AVI ')) },
  { name: 'a TIFF image', test: (h) => at(h, 0, [0x49, 0x49, 0x2a, 0x00]) || at(h, 0, [0x4d, 0x4d, 0x00, 0x2a]) },
  { name: 'an icon file', test: (h) => at(h, 0, [0x00, 0x00, 0x01, 0x00]) },
  { name: 'a Photoshop file', test: (h) => at(h, 0, [0x38, 0x42, 0x50, 0x53, 0x00, 0x01]) },
  { name: 'an ISO media file (MP4, MOV, HEIC, AVIF)', test: (h) => at(h, 4, 'ftyp') && at(h, 0, [0x00, 0x00]) },
  { name: 'a Matroska or WebM video', test: (h) => at(h, 0, [0x1a, 0x45, 0xdf, 0xa3]) },
  { name: 'an MP3 file', test: (h) => (at(h, 0, 'ID3') && h.length > 4 && h[3]! <= 4 && h[4] === 0) || at(h, 0, [0xff, 0xfb]) },
  { name: 'an Ogg file', test: (h) => at(h, 0, 'OggS\0') },
  { name: 'a FLAC file', test: (h) => at(h, 0, 'fLaC') && h.length > 4 && (h[4]! & 0x7f) === 0 },
  { name: 'a gzip archive', test: (h) => at(h, 0, [0x1f, 0x8b]) },
  { name: 'a bzip2 archive', test: (h) => /^BZh[1-9]1AY&SY/.test(h.subarray(0, 10).toString('latin1')) },
  { name: 'an xz archive', test: (h) => at(h, 0, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]) },
  { name: 'a Zstandard archive', test: (h) => at(h, 0, [0x28, 0xb5, 0x2f, 0xfd]) },
  { name: 'a 7-Zip archive', test: (h) => at(h, 0, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]) },
  { name: 'a RAR archive', test: (h) => at(h, 0, 'Rar!\x1a\x07') },
  { name: 'a tar archive', test: (h) => at(h, 257, 'ustar') },
  { name: 'a legacy Microsoft Office file (.doc, .xls, .ppt)', test: (h) => at(h, 0, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]) },
  { name: 'an SQLite database', test: (h) => at(h, 0, 'SQLite format 3\0') },
  { name: 'an ELF executable', test: (h) => at(h, 0, [0x7f, 0x45, 0x4c, 0x46]) },
  { name: 'a Windows executable', test: isPe },
  {
    name: 'a Mach-O executable or Java class file',
    test: (h) => [[0xfe, 0xed, 0xfa, 0xce], [0xfe, 0xed, 0xfa, 0xcf], [0xce, 0xfa, 0xed, 0xfe], [0xcf, 0xfa, 0xed, 0xfe], [0xca, 0xfe, 0xba, 0xbe]].some((m) => at(h, 0, m)),
  },
  { name: 'a WebAssembly module', test: (h) => at(h, 0, '\0asm') },
  {
    name: 'a font file',
    test: (h) =>
      at(h, 0, [0x00, 0x01, 0x00, 0x00, 0x00]) ||
      ((at(h, 0, 'wOFF') || at(h, 0, 'wOF2')) && (at(h, 4, [0x00, 0x01, 0x00, 0x00]) || at(h, 4, 'OTTO'))),
  },
];

/** The name of the binary format `head` starts with ("a PNG image"), or undefined. */
export function binaryFormatOf(head: Buffer): string | undefined {
  return SIGNATURES.find((s) => s.test(head))?.name;
}
