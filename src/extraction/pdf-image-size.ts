/**
 * The pixel size an image codec's data declares in its own header, which is what its decoder
 * allocates, whatever the PDF dictionary around it says. Each reads only the start of the data.
 */
export interface PixelSize {
  width: number;
  height: number;
}

/** The frame size of a JPEG (DCTDecode): the first start-of-frame marker's. */
export function jpegSize(data: Uint8Array): PixelSize | null {
  let p = 2;
  if (data[0] !== 0xff || data[1] !== 0xd8) return null;
  while (p + 9 < data.length) {
    if (data[p] !== 0xff) return null;
    const marker = data[p + 1]!;
    if (marker === 0xff) {
      p += 1;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      p += 2;
      continue;
    }
    const length = (data[p + 2]! << 8) | data[p + 3]!;
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return { height: (data[p + 5]! << 8) | data[p + 6]!, width: (data[p + 7]! << 8) | data[p + 8]! };
    p += 2 + length;
  }
  return null;
}

const u32 = (data: Uint8Array, p: number) => ((data[p]! << 24) | (data[p + 1]! << 16) | (data[p + 2]! << 8) | data[p + 3]!) >>> 0;

function indexOf(data: Uint8Array, pattern: number[], from = 0): number {
  outer: for (let i = from; i + pattern.length <= data.length; i += 1) {
    for (let k = 0; k < pattern.length; k += 1) if (data[i + k] !== pattern[k]) continue outer;
    return i;
  }
  return -1;
}

/** The image size of JPEG 2000 (JPXDecode): the codestream's SIZ marker, or the JP2 header box. */
export function jpxSize(data: Uint8Array): PixelSize | null {
  const siz = indexOf(data, [0xff, 0x4f, 0xff, 0x51]);
  if (siz >= 0 && siz + 24 <= data.length) {
    const p = siz + 8;
    return { width: u32(data, p) - u32(data, p + 8), height: u32(data, p + 4) - u32(data, p + 12) };
  }
  const ihdr = indexOf(data, [0x69, 0x68, 0x64, 0x72]);
  if (ihdr >= 0 && ihdr + 12 <= data.length) return { height: u32(data, ihdr + 4), width: u32(data, ihdr + 8) };
  return null;
}

/** The page size of embedded JBIG2 data (JBIG2Decode): its page information segment. */
export function jbig2Size(data: Uint8Array): PixelSize | null {
  let p = 0;
  while (p + 11 <= data.length) {
    const number = u32(data, p);
    const flags = data[p + 4]!;
    p += 5;
    let referred = data[p]! >> 5;
    if (referred === 7) {
      referred = u32(data, p) & 0x1fffffff;
      p += 4 + Math.ceil((referred + 1) / 8);
    } else {
      p += 1;
    }
    p += referred * (number <= 256 ? 1 : number <= 65536 ? 2 : 4);
    p += flags & 0x40 ? 4 : 1;
    if (p + 4 > data.length) return null;
    const length = u32(data, p);
    p += 4;
    if ((flags & 0x3f) === 48) return p + 8 <= data.length ? { width: u32(data, p), height: u32(data, p + 4) } : null;
    if (length === 0xffffffff) return null;
    p += length;
  }
  return null;
}
