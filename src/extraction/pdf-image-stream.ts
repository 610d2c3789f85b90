import { promisify } from 'node:util';
import zlib from 'node:zlib';
import sharp from 'sharp';
import type { Picture } from './image.js';
import { jpegSize } from './pdf-image-size.js';
import { streamObject } from './pdf-page-content.js';
import { asArray, either, type Objects } from './pdf-objects.js';
import { PdfName, type PdfDict, type PdfRef, type PdfValue } from './pdf-syntax.js';

const inflate = promisify(zlib.inflate);

/** The colour spaces whose samples are the picture as it is, by how many components a pixel has. */
const COMPONENTS = new Map([
  ['DeviceGray', 1],
  ['G', 1],
  ['DeviceRGB', 3],
  ['RGB', 3],
]);
/** Bit depths PNG stores gray in; colour it stores at 8 bits (16-bit samples are left to pdf.js). */
const GRAY_DEPTHS = new Set([1, 2, 4, 8]);
/** PDF's PNG predictors are 10 to 15: each row starts with its PNG filter type, whatever the number says. */
const PNG_PREDICTORS = 10;

interface Image {
  width: number;
  height: number;
  components: number;
  bits: number;
  data: Buffer;
  params: PdfDict | undefined;
}

/** A PNG chunk: length, type, data and the CRC of type and data. */
function chunk(type: string, data: Buffer): Buffer[] {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(data, zlib.crc32(type)));
  return [length, Buffer.from(type, 'latin1'), data, crc];
}

/**
 * Flate data with a PNG predictor is a PNG's image data as it is: a zlib stream of rows, each
 * led by its filter type. Given a PNG header, sharp inflates and unfilters it in C (zlib and
 * libspng), where pdf.js did both in JavaScript; a scan stored from a PNG then decodes exactly as
 * that PNG does.
 */
function asPng({ width, height, components, bits, data }: Image): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = bits;
  // Colour type 0 is gray, 2 RGB; compression, filter method and interlace stay 0.
  header[9] = components === 1 ? 0 : 2;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ...chunk('IHDR', header), ...chunk('IDAT', data), ...chunk('IEND', Buffer.alloc(0))]);
}

async function flate(image: Image, resolve: (v: PdfValue | undefined) => PdfValue | undefined): Promise<Picture | null> {
  const { width, height, components, bits, params } = image;
  const param = (key: string, fallback: number) => {
    const value = params && resolve(params.get(key));
    return typeof value === 'number' ? value : fallback;
  };
  const predictor = param('Predictor', 1);
  if (predictor >= PNG_PREDICTORS) {
    const described = param('Colors', 1) === components && param('BitsPerComponent', 8) === bits && param('Columns', 1) === width;
    const storable = components === 1 ? GRAY_DEPTHS.has(bits) : bits === 8;
    return described && storable ? { encoded: asPng(image), width, height } : null;
  }
  if (predictor !== 1 || bits !== 8) return null;
  const size = width * height * components;
  try {
    // No more than the picture's bytes are inflated, as pdf.js reads no more of an image's stream.
    const data = await inflate(image.data, { maxOutputLength: size });
    return data.length === size ? { data, width, height, channels: components as 1 | 3 } : null;
  } catch {
    return null;
  }
}

async function jpeg({ width, height, components, bits, data, params }: Image): Promise<Picture | null> {
  // A ColorTransform entry overrides the JPEG's own say on its colour transform, which sharp follows.
  if (bits !== 8 || params?.has('ColorTransform')) return null;
  const size = jpegSize(data);
  if (size?.width !== width || size.height !== height) return null;
  const meta = await sharp(data).metadata().catch(() => null);
  if (meta?.format !== 'jpeg' || meta.channels !== components || meta.space === 'cmyk') return null;
  return { encoded: data, width, height };
}

/**
 * The picture of the image XObject `ref` as sharp can decode it in C from the file's own bytes:
 * a JPEG (DCTDecode) as it is, Flate data with PNG predictors as a PNG, plain Flate inflated to
 * raw pixels. Only for what the picture's samples are as they stand: gray or RGB, no Decode
 * array, mask, soft mask or optional content, a single filter; null for anything else, which
 * pdf.js decodes instead. The stream pre-check has already run over this stream, as over every
 * other, and its declared size is held to `maxImagePixels` again here.
 */
export async function streamPicture(objects: Objects, ref: PdfRef, maxImagePixels: number): Promise<Picture | null> {
  const stream = streamObject(objects, ref);
  if (!stream) return null;
  const { dict, data } = stream;
  const get = (a: string, b: string) => objects.resolve(either(dict, a, b));
  const width = get('W', 'Width');
  const height = get('H', 'Height');
  const space = get('CS', 'ColorSpace');
  const components = space instanceof PdfName ? COMPONENTS.get(space.name) : undefined;
  const bits = get('BPC', 'BitsPerComponent');
  // A reference counts as set even where it leads nowhere here: it may lead somewhere for pdf.js.
  const plain = ['IM', 'ImageMask', 'Mask', 'SMask', 'SMaskInData', 'D', 'Decode', 'OC'].every((key) => {
    const value = objects.resolve(dict.get(key), true);
    return value === undefined || value === null || value === false || value === 0;
  });
  if (!plain || !components || typeof bits !== 'number') return null;
  if (typeof width !== 'number' || typeof height !== 'number' || !Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) return null;
  if (width * height > maxImagePixels) return null;
  const filters = asArray(get('F', 'Filter')).map((f) => objects.resolve(f));
  const params = objects.resolve(asArray(get('DP', 'DecodeParms'))[0]);
  if (filters.length !== 1 || !(filters[0] instanceof PdfName) || (params !== undefined && params !== null && !(params instanceof Map))) return null;
  const image: Image = { width, height, components, bits, data, params: params ?? undefined };
  switch (filters[0].name) {
    case 'FlateDecode':
    case 'Fl':
      return flate(image, (v) => objects.resolve(v));
    case 'DCTDecode':
    case 'DCT':
      return jpeg(image);
    default:
      return null;
  }
}
