import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { filter } from '../../src/extraction/pdf-filters.js';

async function streamed(name: string, input: Uint8Array, pieceSize = 3): Promise<Buffer> {
  async function* pieces() {
    for (let at = 0; at < input.length; at += pieceSize) yield input.subarray(at, at + pieceSize);
  }
  const out: Uint8Array[] = [];
  for await (const piece of filter(name)!.stream(pieces())) out.push(piece);
  return Buffer.concat(out);
}

/** Each filter's encoding of `decoded`, made by hand or taken from the PDF specification. */
const SAMPLES: { name: string; encoded: Buffer; decoded: Buffer }[] = [
  { name: 'FlateDecode', encoded: zlib.deflateSync(Buffer.from('Flate, as most streams are.')), decoded: Buffer.from('Flate, as most streams are.') },
  { name: 'BrotliDecode', encoded: zlib.brotliCompressSync(Buffer.from('Brotli, new in PDF 2.0.')), decoded: Buffer.from('Brotli, new in PDF 2.0.') },
  { name: 'ASCIIHexDecode', encoded: Buffer.from('48 65 6c6C\n6f 2>ignored'), decoded: Buffer.from('Hello ') },
  // "Man " and "sure" in ASCII85, the z shorthand for four zero bytes, and a final partial group.
  { name: 'ASCII85Decode', encoded: Buffer.from('9jqo^ z F*2M7 /c~>ignored'), decoded: Buffer.concat([Buffer.from('Man '), Buffer.alloc(4), Buffer.from('sure'), Buffer.from('.')]) },
  // A literal run of 3, a repeat of 'x' 5 times, end of data.
  { name: 'RunLengthDecode', encoded: Buffer.from([2, 0x61, 0x62, 0x63, 252, 0x78, 128, 0x61]), decoded: Buffer.from('abcxxxxx') },
  // The example of the PDF specification (7.4.4.2): "-----A---B".
  { name: 'LZWDecode', encoded: Buffer.from([0x80, 0x0b, 0x60, 0x50, 0x22, 0x0c, 0x0c, 0x85, 0x01]), decoded: Buffer.from('-----A---B') },
];

describe('PDF stream filters', () => {
  it.each(SAMPLES)('decode $name at once and piece by piece to the same bytes', async ({ name, encoded, decoded }) => {
    expect(Buffer.from(filter(name)!.whole(encoded, 1_000)!)).toEqual(decoded);
    expect(await streamed(name, encoded)).toEqual(decoded);
  });

  it('give up decoding at once past the cap, and on damaged data', () => {
    const deflated = zlib.deflateSync(Buffer.alloc(10_000, 0x20));
    expect(filter('Fl')!.whole(deflated, 9_999)).toBeNull();
    expect(filter('Fl')!.whole(deflated, 10_000)?.length).toBe(10_000);
    expect(filter('RL')!.whole(Buffer.from([129, 0x20, 129, 0x20]), 200)).toBeNull();
    expect(filter('Fl')!.whole(Buffer.from('not deflate at all'), 1_000)).toBeNull();
  });

  it('count a damaged stream, streamed, up to where it breaks, as pdf.js reads it', async () => {
    const deflated = zlib.deflateSync(Buffer.alloc(300_000, 0x41));
    const truncated = deflated.subarray(0, deflated.length - 10);
    const out = await streamed('FlateDecode', truncated, 1_000);
    expect(out.length).toBeGreaterThan(200_000);
    expect(out.every((b) => b === 0x41)).toBe(true);
  });

  it('stop reading input when the consumer stops', async () => {
    let read = 0;
    async function* endless() {
      for (;;) {
        read += 1;
        yield Buffer.alloc(1024, 0x30);
      }
    }
    for await (const piece of filter('AHx')!.stream(endless())) {
      expect(piece.length).toBeGreaterThan(0);
      break;
    }
    expect(read).toBeLessThan(5_000);
  });

  it('have no decoder for the image codecs, whose size is checked from their headers instead', () => {
    for (const name of ['DCTDecode', 'JPXDecode', 'JBIG2Decode', 'CCITTFaxDecode', 'Crypt']) expect(filter(name)).toBeNull();
  });
});
