import type { InspectionResult, TextStats } from './inspector.js';
import { binaryFormatOf } from './signatures.js';
import { isZip, listZip } from './zip.js';

export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'iso-8859-1';

export type TypeDecision =
  | { ok: true; contentType: string; encoding?: TextEncoding }
  | { ok: false; status: 400 | 415; message: string };

export const SUPPORTED_FORMATS = 'PDF, DOCX, TXT, MD and other text formats (CSV, JSON, HTML, XML, YAML...)';
export const PDF = 'application/pdf';
export const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** Text kinds by extension; any other extension (even .pdf or .docx on a text file) is text/plain. */
const TEXT_TYPES: Record<string, string> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
  html: 'text/html',
  htm: 'text/html',
  xml: 'application/xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  txt: 'text/plain',
};

const unsupported = (what: string, hint = ''): TypeDecision => ({
  ok: false,
  status: 415,
  message: `This file is ${what}, which is not a supported format. Supported formats: ${SUPPORTED_FORMATS}.${hint}`,
});

/**
 * Decides an upload's type from its content (the inspector's result); the filename only picks among text
 * kinds. Order: empty, PDF, ZIP (DOCX or not), known binary formats, text, anything else.
 *
 * PDF is recognised by `%PDF-` at the start, and is NOT checked further: a truncated, encrypted or
 * image-only PDF is accepted (200) as application/pdf, and the text-extraction step later marks it failed
 * with a clear reason ("no text layer", "encrypted", "damaged"). We keep the upload rather than refuse it
 * here because validating a PDF's structure would need the whole file in memory. The same holds for a cut
 * DOCX: if the entry names are found (central directory, or local headers in the head) it is accepted.
 *
 * Text that is not valid UTF-8 is decoded as ISO-8859-1, the documented fallback: every byte is a valid
 * ISO-8859-1 character, so a Latin-1 (or mostly Windows-1252) file keeps its accented letters.
 */
export function decideDocumentType(result: Pick<InspectionResult, 'size' | 'head' | 'tail' | 'text'>, filename: string): TypeDecision {
  const { size, head, tail, text } = result;
  if (size === 0) return { ok: false, status: 400, message: 'The file is empty.' };
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return { ok: true, contentType: PDF };
  if (isZip(head)) return decideZip(head, tail);
  const binary = binaryFormatOf(head);
  if (binary) return unsupported(binary);

  const textLike = looksLikeText(size, text);
  // Readers accept a PDF header anywhere in the first 1024 bytes (after junk such as a mail header). A text
  // file merely mentioning "%PDF-1.7" stays text unless it also ends like a PDF or is not text at all.
  if (/%PDF-\d\.\d/.test(head.subarray(0, 1024).toString('latin1')) && (!textLike || tail.includes('%%EOF'))) {
    return { ok: true, contentType: PDF };
  }
  if (isUtf32(head)) return unsupported('UTF-32 encoded text', ' Save it as UTF-8 and upload it again.');
  // UTF-16 with its byte-order mark is text (Windows Notepad's "Unicode"): its NUL bytes are half its ASCII letters.
  const utf16 = utf16Of(head);
  if (utf16) {
    if (!utf16LooksLikeText(head, utf16)) return unsupported('a binary file of an unknown type');
    return { ok: true, contentType: `${textTypeFor(filename)}; charset=${utf16}`, encoding: utf16 };
  }
  if (!textLike) return unsupported('a binary file of an unknown type');

  const encoding: TextEncoding = text.validUtf8 ? 'utf-8' : 'iso-8859-1';
  return { ok: true, contentType: `${textTypeFor(filename)}; charset=${encoding}`, encoding };
}

/**
 * Text: no NUL byte, and C0 control bytes (other than \t \n \f \r) at most 1% of the size. A tiny file
 * may hold a few all the same: none under 10 bytes, one under 20, two under 300 bytes.
 */
export function looksLikeText(size: number, text: TextStats): boolean {
  if (text.hasNul) return false;
  const allowed = Math.max(Math.floor(size / 100), Math.min(2, Math.floor(size / 10)));
  return text.controlChars <= allowed;
}

/** The text content type chosen by the filename's extension (no charset). */
export function textTypeFor(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  return TEXT_TYPES[ext] ?? 'text/plain';
}

function decideZip(head: Buffer, tail: Buffer): TypeDecision {
  const zip = listZip(head, tail);
  const has = (name: string): boolean => zip.names.includes(name);
  if (has('[Content_Types].xml') && has('word/document.xml')) return { ok: true, contentType: DOCX };
  const saveAs = ' Save it as DOCX or PDF and upload it again.';
  if (zip.mimetype === 'application/epub+zip') return unsupported('an EPUB e-book');
  if (zip.names[0] === 'mimetype') return unsupported('an OpenDocument file (ODT, ODS, ODP)', saveAs);
  if (has('[Content_Types].xml') && has('xl/workbook.xml')) return unsupported('an Excel workbook (XLSX)');
  if (has('[Content_Types].xml') && has('ppt/presentation.xml')) return unsupported('a PowerPoint presentation (PPTX)');
  return unsupported('a ZIP archive that holds no Word document');
}

/** UTF-32's byte-order marks (FF FE 00 00 is read as UTF-32 LE, not as UTF-16 LE beginning with U+0000). */
function isUtf32(head: Buffer): boolean {
  return head.length >= 4 && (head.readUInt32BE(0) === 0x0000feff || head.readUInt32BE(0) === 0xfffe0000);
}

/**
 * Whether the head of a file with a UTF-16 mark reads as text by the rule of looksLikeText, in characters: control
 * characters (NUL included) and unpaired surrogates at most 1%, so a binary file behind FF FE is still refused.
 */
function utf16LooksLikeText(head: Buffer, encoding: 'utf-16le' | 'utf-16be'): boolean {
  const body = head.subarray(2, head.length - (head.length % 2));
  let text = new TextDecoder(encoding).decode(body);
  // The head may end inside a surrogate pair: that last character is the cut's, not the file's.
  if (text.endsWith('\ufffd')) text = text.slice(0, -1);
  let controls = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0c && c !== 0x0d) || (c >= 0x7f && c < 0xa0) || c === 0xfffd) controls++;
  }
  return looksLikeText(text.length, { hasNul: false, controlChars: controls, validUtf8: false });
}

/** The UTF-16 encoding a byte-order mark names, if the file starts with one. */
function utf16Of(head: Buffer): 'utf-16le' | 'utf-16be' | undefined {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return undefined;
}
