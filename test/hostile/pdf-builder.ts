import zlib from 'node:zlib';
import PDFDocument from 'pdfkit';

/** A syntactically complete PDF from object bodies (1-based), with a correct xref table. */
export function rawPdf(objects: string[]): Buffer {
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A PDF of `count` empty pages, each its own object, written by hand so that it is cheap to make. */
export function manyPagesPdf(count: number): Buffer {
  const kids = Array.from({ length: count }, (_, i) => `${i + 3} 0 R`).join(' ');
  const pages = Array.from({ length: count }, () => '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>');
  return rawPdf(['<< /Type /Catalog /Pages 2 0 R >>', `<< /Type /Pages /Kids [${kids}] /Count ${count} >>`, ...pages]);
}

/** One page with a media box of `size` points a side and a line of text. */
export function hugePagePdf(size: number): Buffer {
  const content = 'BT /F1 24 Tf 72 72 Td (Invoice No. HUGE-1) Tj ET';
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${size} ${size}] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>`,
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

/** `count` pages of one line of text each, but page `broken` of the page tree is a number, not a page. */
export function brokenPagePdf(count: number, broken: number): Buffer {
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', '', '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'];
  const kids: string[] = [];
  for (let n = 1; n <= count; n += 1) {
    kids.push(`${objects.length + 1} 0 R`);
    if (n === broken) {
      objects.push('42');
      continue;
    }
    const content = `BT /F1 12 Tf 72 700 Td (Page ${n}: delivery terms apply to every order.) Tj ET`;
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${objects.length + 2} 0 R >>`);
    objects.push(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${count} >>`;
  return rawPdf(objects);
}

const MOD_ADLER = 65521n;

/** Adler-32 state, advanced over `count` copies of one byte in constant time. */
class Adler {
  a = 1n;
  b = 0n;

  bytes(data: Uint8Array): this {
    for (const byte of data) this.repeat(byte, 1);
    return this;
  }

  repeat(byte: number, count: number): this {
    const n = BigInt(count);
    const c = BigInt(byte);
    this.b = (this.b + n * this.a + (c * n * (n + 1n)) / 2n) % MOD_ADLER;
    this.a = (this.a + n * c) % MOD_ADLER;
    return this;
  }

  digest(): Buffer {
    const out = Buffer.alloc(4);
    out.writeUInt32BE(Number((this.b << 16n) | this.a));
    return out;
  }
}

const SEGMENT = 1024 * 1024;

/** Raw deflate of `data`, ended on a byte boundary and not final, so that segments can follow it. */
function segment(data: Uint8Array): Buffer {
  return zlib.deflateRawSync(data, { level: 9, finishFlush: zlib.constants.Z_SYNC_FLUSH });
}

/**
 * A zlib stream of `head`, then `count` copies of `byte`, then `tail`, made without ever holding
 * the decoded data: one compressed 1 MiB run is repeated, since it decodes the same wherever it
 * stands. 1 GiB of spaces takes about 1 MB.
 */
export function deflateRun(byte: number, count: number, head: Uint8Array = Buffer.alloc(0), tail: Uint8Array = Buffer.alloc(0)): Buffer {
  const adler = new Adler().bytes(head);
  const parts: Buffer[] = [Buffer.from([0x78, 0xda])];
  if (head.length) parts.push(segment(head));
  const run = segment(Buffer.alloc(SEGMENT, byte));
  for (let left = count; left > 0; left -= SEGMENT) {
    const n = Math.min(left, SEGMENT);
    parts.push(n === SEGMENT ? run : segment(Buffer.alloc(n, byte)));
    adler.repeat(byte, n);
  }
  adler.bytes(tail);
  parts.push(zlib.deflateRawSync(tail, { level: 9 }), adler.digest());
  return Buffer.concat(parts);
}

/** A stream object's body: its dictionary entries, the length, and the (binary) data. */
export function stream(entries: string, data: Buffer): string {
  return `<< ${entries} /Length ${data.length} >>\nstream\n${data.toString('latin1')}\nendstream`;
}

export const GIB = 1024 * 1024 * 1024;

/** One page whose content stream is Flate of `size` bytes of spaces: about 1 MB uploaded for 1 GiB. */
export function flateBombPdf(size = GIB): Buffer {
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>',
    stream('/Filter /FlateDecode', deflateRun(0x20, size)),
  ]);
}

/** `size` bytes of spaces through Flate twice: the second pass squeezes the first's repetitions, a few KB in all. */
export function chainedContent(size = GIB): string {
  return stream('/Filter [/FlateDecode /FlateDecode]', zlib.deflateSync(deflateRun(0x20, size), { level: 9 }));
}

/** One page whose content goes through a chain of filters: ASCII85 of Flate of Flate of 1 GiB of spaces. */
export function chainedBombPdf(size = GIB): Buffer {
  const twice = zlib.deflateSync(deflateRun(0x20, size), { level: 9 });
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>',
    stream('/Filter [/ASCIIHexDecode /FlateDecode /FlateDecode]', Buffer.from(`${twice.toString('hex')}>`, 'latin1')),
  ]);
}

/** `pages` pages, each with its own content stream of `size` bytes of spaces through Flate twice. */
export function manyStreamsBombPdf(pages = 50, size = GIB): Buffer {
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', ''];
  const kids: string[] = [];
  for (let n = 0; n < pages; n += 1) {
    kids.push(`${objects.length + 1} 0 R`);
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${objects.length + 2} 0 R >>`);
    objects.push(chainedContent(size));
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${pages} >>`;
  return rawPdf(objects);
}

/** One page showing a `side` x `side` grayscale image whose Flate data is all zeros (about 390 KB for 20000 x 20000). */
export function hugeImagePdf(side = 20_000): Buffer {
  const content = `q ${612} 0 0 ${792} 0 0 cm /Im1 Do Q`;
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 5 0 R >> >> /Contents 4 0 R >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    stream(`/Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode`, deflateRun(0, side * side)),
  ]);
}

/**
 * A PDF whose page tree lives in an object stream (reached through a cross-reference stream, as
 * PDF 1.5 writes them) placed after `size` bytes of spaces inside the stream's decoded data, so
 * that reading the page tree means inflating them all.
 */
export function objectStreamBombPdf(size = GIB): Buffer {
  const pages = '<< /Type /Pages /Kids [4 0 R] /Count 1 >>';
  const header = Buffer.from(`3 ${size} `, 'latin1');
  const data = deflateRun(0x20, size, header, Buffer.from(pages, 'latin1'));
  const objects = [
    '<< /Type /Catalog /Pages 3 0 R >>',
    stream(`/Type /ObjStm /N 1 /First ${header.length} /Filter /FlateDecode`, data),
    '',
    '<< /Type /Page /Parent 3 0 R /MediaBox [0 0 612 792] >>',
  ];
  let out = '%PDF-1.5\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    if (!body) {
      offsets.push(0);
      return;
    }
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xrefAt = Buffer.byteLength(out, 'latin1');
  const row = (type: number, field: number, gen: number) => Buffer.from([type, field >>> 24, (field >>> 16) & 0xff, (field >>> 8) & 0xff, field & 0xff, gen >> 8, gen & 0xff]);
  const rows = Buffer.concat([row(0, 0, 65535), row(1, offsets[0]!, 0), row(1, offsets[1]!, 0), row(2, 2, 0), row(1, offsets[3]!, 0), row(1, xrefAt, 0)]);
  out += `5 0 obj\n${stream('/Type /XRef /Size 6 /W [1 4 2] /Root 1 0 R', rows)}\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** Courier's advance at 10 pt: every character is this wide, so a character's column is its position. */
const COURIER_10 = 6;

/**
 * One page of Courier text on which every character of `rows` stands at its column, runs of spaces
 * included: each word is placed where it falls in its row, so that the text read back (rendered
 * by columns, as templates see it) has the same gaps. The page is as wide as the longest row.
 */
export function monospacePdf(rows: string[]): Buffer {
  const ops: string[] = [];
  rows.forEach((row, i) => {
    for (const word of row.matchAll(/\S+/g)) {
      ops.push(`BT /F1 10 Tf ${40 + word.index * COURIER_10} ${40 + (rows.length - i) * 14} Td (${word[0].replace(/[()\\]/g, (c) => `\\${c}`)}) Tj ET`);
    }
  });
  const content = ops.join('\n');
  const width = 80 + Math.max(...rows.map((r) => r.length)) * COURIER_10;
  const height = Math.max(792, 80 + rows.length * 14);
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>`,
    `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>',
  ]);
}

/**
 * A PDF protected with an owner password only, as invoices often are (it opens without asking),
 * whose page also draws a Flate stream of `size` spaces: encrypted, the bomb's bytes look like
 * noise to anything that does not decrypt them first. `pdfVersion` picks the cipher: 1.3 RC4
 * 40-bit, 1.4 RC4 128-bit, 1.7 AES-128, 1.7ext3 AES-256.
 */
export async function encryptedBombPdf(pdfVersion: '1.3' | '1.4' | '1.7' | '1.7ext3', size = GIB): Promise<Buffer> {
  const doc = new PDFDocument({ ownerPassword: 'owner', pdfVersion, size: 'A4' });
  doc.text('Invoice with a protected content stream');
  const bomb = doc.ref({ Filter: 'FlateDecode' });
  bomb.end(deflateRun(0x20, size));
  const page = doc.page as unknown as { dictionary: { data: { Contents: unknown } }; content: unknown };
  page.dictionary.data.Contents = [page.content, bomb];
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve) => doc.on('end', () => resolve()));
  doc.end();
  await ended;
  return Buffer.concat(chunks);
}
