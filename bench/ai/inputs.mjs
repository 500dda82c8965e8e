// Inputs made for the AI benchmarks (extract.mjs, knowledge.mjs): words from a fixed pseudo-random vocabulary, and
// the PDF and DOCX containers around them, built here so that making them costs the measured process nothing.
import { crc32, deflateRawSync } from 'node:zlib';

/** A small deterministic PRNG (mulberry32, exact in 32-bit integer arithmetic), so every run makes the same inputs. */
let seed = 7;
export const random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const syllables = ['ka', 'lo', 'mi', 'ren', 'tor', 'qua', 'zel', 'pri', 'dan', 'vo', 'shi', 'mur', 'tel', 'bay', 'cor', 'nex'];
export const vocabulary = Array.from({ length: 2000 }, () => Array.from({ length: 1 + Math.floor(random() * 3) }, () => syllables[Math.floor(random() * syllables.length)]).join(''));
export const words = (n) => Array.from({ length: n }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(' ');
export function paragraphs(bytes) {
  const out = [];
  for (let size = 0; size < bytes;) {
    const p = `${words(60 + Math.floor(random() * 80))}.`;
    out.push(p);
    size += p.length + 2;
  }
  return out;
}
const escapeXml = (s) => s.replace(/[<&>]/g, (c) => ({ '<': '&lt;', '&': '&amp;', '>': '&gt;' })[c]);

export function pdfOf(lines, perPage) {
  const objects = [];
  const add = (body) => objects.push(body);
  const catalog = add('');
  const tree = add('');
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const kids = [];
  for (let at = 0; at < lines.length; at += perPage) {
    const ops = lines.slice(at, at + perPage).map((line, i) => `BT /F1 9 Tf 36 ${770 - 12 * i} Td (${line}) Tj ET`).join('\n');
    const content = add(`<< /Length ${Buffer.byteLength(ops, 'latin1')} >>\nstream\n${ops}\nendstream`);
    kids.push(add(`<< /Type /Page /Parent ${tree} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R >>`));
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${tree} 0 R >>`;
  objects[tree - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  const parts = ['%PDF-1.4\n'];
  let size = parts[0].length;
  const offsets = objects.map((body, i) => {
    const at = size;
    const text = `${i + 1} 0 obj\n${body}\nendobj\n`;
    parts.push(text);
    size += Buffer.byteLength(text, 'latin1');
    return at;
  });
  parts.push(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`);
  parts.push(`trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${size}\n%%EOF\n`);
  return Buffer.from(parts.join(''), 'latin1');
}

function zipOf(entries) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const packed = deflateRawSync(data, { level: 6 });
    const n = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0); local.writeUInt16LE(20, 4); local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc32(data), 14); local.writeUInt32LE(packed.length, 18); local.writeUInt32LE(data.length, 22); local.writeUInt16LE(n.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0); central.writeUInt16LE(20, 4); central.writeUInt16LE(20, 6); central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc32(data), 16); central.writeUInt32LE(packed.length, 20); central.writeUInt32LE(data.length, 24); central.writeUInt16LE(n.length, 28); central.writeUInt32LE(offset, 42);
    locals.push(local, n, packed);
    centrals.push(central, n);
    offset += 30 + n.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(entries.length, 8); end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12); end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

export function docxOf(paras) {
  const xml = `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${paras.map((p) => `<w:p><w:r><w:t>${escapeXml(p)}</w:t></w:r></w:p>`).join('')}</w:body></w:document>`;
  return zipOf([
    { name: '[Content_Types].xml', data: Buffer.from('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>') },
    { name: '_rels/.rels', data: Buffer.from('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>') },
    { name: 'word/document.xml', data: Buffer.from(xml) },
  ]);
}

export const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/**
 * A drawer of words with Zipf's law (rank r has weight 1/r) over `size` distinct words of 2-4 syllables, as words
 * fall in real text: a few very common, a long tail of rare ones.
 */
export function zipfWords(size) {
  const distinct = new Set();
  while (distinct.size < size) distinct.add(Array.from({ length: 2 + Math.floor(random() * 3) }, () => syllables[Math.floor(random() * syllables.length)]).join(''));
  const list = [...distinct];
  let total = 0;
  const cumulative = list.map((_, r) => (total += 1 / (r + 1))).map((sum) => sum / total);
  const draw = () => {
    const u = random();
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return list[lo];
  };
  return { list, draw };
}
