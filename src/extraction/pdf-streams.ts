import { DocumentError } from '../errors.js';
import { emptyPasswordDecryptors, type StreamDecryptor } from './pdf-crypt.js';
import { filter, type Filter } from './pdf-filters.js';
import { jbig2Size, jpegSize, jpxSize, type PixelSize } from './pdf-image-size.js';
import { asArray, dataEnd, dataStart, either, Objects, positions } from './pdf-objects.js';
import { isWhitespace, PdfName, PdfRef, type PdfDict, type PdfValue } from './pdf-syntax.js';

export interface StreamLimits {
  /** Bytes all of the document's streams may decode to, every filter of a chain counted. */
  maxDecodedBytes: number;
  /** Bytes one stream may decode to. */
  maxStreamBytes: number;
  maxImagePixels: number;
}

export interface StreamSummary {
  streams: number;
  decodedBytes: number;
}

/** Pieces the raw data is fed to the streamed decoders in. */
const SLICE = 64 * 1024;
/** Streams decoding to at most this are decoded at once (most are a few KB); larger ones are streamed, piece by piece. */
const WHOLE_CAP = 8 * 1024 * 1024;
/** The start of an image codec's data that is read for its header. */
const HEAD = 64 * 1024;
const tooComplex = (message: string) => new DocumentError('document_too_complex', message, 0);

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;

/** Counts decoded bytes against the document's budget and one stream's; throws the moment either is spent. */
class Budget {
  used = 0;
  private streamUsed = 0;
  private what = '';

  constructor(
    private readonly limits: StreamLimits,
    private readonly fileSize: number,
  ) {}

  /** A budget to try one reading of the stream `what` with: it fails as this one would, and spends nothing of it. */
  trial(what: string): Budget {
    const trial = new Budget(this.limits, this.fileSize);
    trial.used = this.used;
    trial.begin(what);
    return trial;
  }

  /** Takes what the costliest `trials` of a stream decoded. */
  settle(trials: Budget[]): void {
    this.used = Math.max(this.used, ...trials.map((t) => t.used));
  }

  /** Starts counting the stream `what` on its own. */
  begin(what: string): void {
    this.what = what;
    this.streamUsed = 0;
  }

  get remaining(): number {
    return Math.max(0, Math.min(this.limits.maxDecodedBytes - this.used, this.limits.maxStreamBytes - this.streamUsed));
  }

  spend(bytes: number, filters: string): void {
    this.used += bytes;
    this.streamUsed += bytes;
    if (this.streamUsed > this.limits.maxStreamBytes) {
      throw tooComplex(
        `${this.what} (${filters}) decodes to more than ${mb(this.limits.maxStreamBytes)}, the most one stream may (as much as the largest image the pixel limit allows); it looks like a decompression bomb.`,
      );
    }
    if (this.used > this.limits.maxDecodedBytes) {
      throw tooComplex(
        `The PDF's streams decode to more than ${mb(this.limits.maxDecodedBytes)} in all, the decoded-data budget for a ${mb(this.fileSize)} file, reached in ${this.what.toLowerCase()} (${filters}); it looks like a decompression bomb.`,
      );
    }
  }
}

async function* slices(data: Uint8Array): AsyncIterable<Uint8Array> {
  for (let at = 0; at < data.length; at += SLICE) yield data.subarray(at, at + SLICE);
}

/** Decodes `raw` through `chain` at once and spends what it decoded to; null when a filter's output is too large for that or damaged. */
function decodeWhole(raw: Uint8Array, chain: { name: string; filter: Filter }[], budget: Budget): Uint8Array | null {
  let data = raw;
  let decoded = 0;
  for (const { filter: decoder } of chain) {
    const out = decoder.whole(data, Math.min(WHOLE_CAP, budget.remaining - decoded));
    if (!out) return null;
    decoded += out.length;
    data = out;
  }
  budget.spend(decoded, chain.map((c) => c.name).join(' + '));
  return data.subarray(0, HEAD);
}

/**
 * Decodes `raw` through `chain` piece by piece, spending each filter's output as it comes; returns
 * the start of the output when an image codec is to read it (`keepHead`).
 */
async function decodeStreamed(raw: Uint8Array, chain: { name: string; filter: Filter }[], budget: Budget, keepHead: boolean): Promise<Uint8Array> {
  let flow: AsyncIterable<Uint8Array> = slices(raw);
  chain.forEach(({ filter: decoder }, i) => {
    flow = counted(decoder.stream(flow), budget, chain.slice(0, i + 1).map((c) => c.name).join(' + '));
  });
  let head = new Uint8Array(0);
  for await (const piece of flow) {
    if (!keepHead) continue;
    const joined = new Uint8Array(head.length + Math.min(piece.length, HEAD - head.length));
    joined.set(head);
    joined.set(piece.subarray(0, joined.length - head.length), head.length);
    head = joined;
    if (head.length >= HEAD) break;
  }
  return head;
}

async function* counted(input: AsyncIterable<Uint8Array>, budget: Budget, filters: string): AsyncIterable<Uint8Array> {
  for await (const piece of input) {
    budget.spend(piece.length, filters);
    yield piece;
  }
}

/** Whether a `>>` ends right before `p`, whitespace aside: the keyword there follows a dictionary. */
function afterDictionary(bytes: Buffer, p: number): boolean {
  let q = p - 1;
  while (q >= 0 && isWhitespace(bytes[q])) q -= 1;
  return bytes[q] === 0x3e && bytes[q - 1] === 0x3e;
}

/**
 * The stream decryptors of every encryption dictionary the file names, in a trailer or a
 * cross-reference stream (a file may hold several, after incremental updates; trying each leaves
 * no decoy to hide behind), with the keys the empty password gives.
 */
function encryption(bytes: Buffer, objects: Objects, streamKeywords: number[]): StreamDecryptor[] {
  const holders: PdfDict[] = [];
  for (const at of positions(bytes, 'trailer')) {
    const trailer = objects.at(at + 'trailer'.length)?.value;
    if (trailer instanceof Map) holders.push(trailer);
  }
  for (const keyword of streamKeywords) {
    const parsed = objects.before(keyword);
    if (parsed?.streamAt !== keyword || !(parsed.value instanceof Map)) continue;
    const type = objects.resolve(parsed.value.get('Type'));
    if (type instanceof PdfName && type.name === 'XRef') holders.push(parsed.value);
  }
  const found = new Map<string, StreamDecryptor>();
  for (const holder of holders) {
    const encrypt = objects.resolve(holder.get('Encrypt'));
    if (!(encrypt instanceof Map)) continue;
    const ids = objects.resolve(holder.get('ID'));
    const id = Array.isArray(ids) ? objects.resolve(ids[0]) : undefined;
    const key = `${holder.get('Encrypt') instanceof PdfRef ? (holder.get('Encrypt') as PdfRef).num : 'direct'} ${Buffer.isBuffer(id) ? id.toString('hex') : ''}`;
    if (found.has(key)) continue;
    emptyPasswordDecryptors(encrypt, Buffer.isBuffer(id) ? id : Buffer.alloc(0), (v) => objects.resolve(v)).forEach((d, i) => found.set(`${key} ${i}`, d));
  }
  return [...found.values()];
}

/**
 * Checks, before pdf.js is given the file, what decoding its streams would cost: every stream's
 * filter chain (Flate, Brotli, LZW, RunLength, ASCIIHex, ASCII85, in order) is run with a running
 * count of the bytes each filter puts out, and stopped the moment the document's budget is spent;
 * every image's declared size, and the size its codec's own header gives, is checked against the
 * pixel limit before anything decodes it. Streams are found by their `stream` keyword, wherever
 * it is, so that an object the cross-reference table points to but a reading from the start of
 * the file would skip is not missed. Decoded data is counted and dropped, never kept.
 */
export async function checkStreams(bytes: Buffer, limits: StreamLimits): Promise<StreamSummary> {
  const objects = new Objects(bytes);
  const budget = new Budget(limits, bytes.length);
  const endstreams = positions(bytes, 'endstream');
  const nextEndstream = (from: number) => {
    let low = 0;
    let high = endstreams.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (endstreams[mid]! < from) low = mid + 1;
      else high = mid;
    }
    return endstreams[low] ?? -1;
  };

  const checkPixels = (size: PixelSize | null, what: string) => {
    if (!size || !(size.width > 0 && size.height > 0)) return;
    const pixels = size.width * size.height;
    if (pixels > limits.maxImagePixels) {
      throw tooComplex(
        `${what} is ${size.width}x${size.height} pixels (${pixels.toLocaleString('en')}); at most ${limits.maxImagePixels.toLocaleString('en')} pixels an image are accepted.`,
      );
    }
  };
  /** An image codec's own header (after the filters before it), which its decoder sizes its output by. */
  const checkCodec = (codec: { name: string; params: PdfValue | undefined }, head: Uint8Array, label: string, height: number) => {
    if (codec.name === 'DCTDecode' || codec.name === 'DCT') checkPixels(jpegSize(head), label);
    else if (codec.name === 'JPXDecode' || codec.name === 'JPX') checkPixels(jpxSize(head), label);
    else if (codec.name === 'JBIG2Decode') checkPixels(jbig2Size(head), label);
    else if (codec.name === 'CCITTFaxDecode' || codec.name === 'CCF') {
      const p = codec.params instanceof Map ? codec.params : new Map<string, PdfValue>();
      const columns = objects.resolve(p.get('Columns'));
      const rows = objects.resolve(p.get('Rows'));
      checkPixels({ width: typeof columns === 'number' ? columns : 1728, height: typeof rows === 'number' && rows > 0 ? rows : height }, label);
    }
  };

  const keywords = positions(bytes, 'stream');
  const decryptors = encryption(bytes, objects, keywords);
  let streams = 0;
  for (const keyword of keywords) {
    const parsed = objects.before(keyword);
    if (!parsed || parsed.streamAt !== keyword || !(parsed.value instanceof Map)) {
      if (afterDictionary(bytes, keyword)) {
        // Left unchecked, it could be anything pdf.js might still read; a well-formed PDF has none.
        throw new DocumentError('unreadable_document', `The PDF has a stream at byte ${keyword} whose dictionary cannot be read; it may be corrupt.`, 0);
      }
      continue;
    }
    streams += 1;
    const dict = parsed.value;
    const what = `The stream at byte ${keyword}`;
    const width = objects.resolve(either(dict, 'W', 'Width'));
    const height = objects.resolve(either(dict, 'H', 'Height'));
    if (typeof width === 'number' && typeof height === 'number') checkPixels({ width, height }, `An image in the PDF (at byte ${keyword})`);
    // An image this large would be decoded at once up to the cap, given up on and decoded again piece by piece.
    const bits = objects.resolve(either(dict, 'BPC', 'BitsPerComponent'));
    const large = typeof width === 'number' && typeof height === 'number' && (width * height * (typeof bits === 'number' ? bits : 8)) / 8 > WHOLE_CAP;

    const start = dataStart(bytes, keyword);
    // Data run to the end of the file is decoded until the decoders' own end-of-data markers, as at the stream's end.
    const end = dataEnd(objects, dict, start, nextEndstream);

    const names = asArray(objects.resolve(either(dict, 'F', 'Filter'))).map((f) => objects.resolve(f));
    if (!names.length || !names.every((f) => f instanceof PdfName)) continue;
    const params = asArray(objects.resolve(either(dict, 'DP', 'DecodeParms'))).map((p) => objects.resolve(p));
    const chain: { name: string; filter: Filter }[] = [];
    let codec: { name: string; params: PdfValue | undefined } | null = null;
    for (const [i, name] of (names as PdfName[]).entries()) {
      const param = params[i];
      const earlyChange = param instanceof Map ? objects.resolve(param.get('EarlyChange')) : undefined;
      const decoder = filter(name.name, typeof earlyChange === 'number' ? earlyChange : 1);
      if (!decoder) {
        codec = { name: name.name, params: param };
        break;
      }
      chain.push({ name: name.name, filter: decoder });
    }
    const raw = bytes.subarray(start, end);
    // As stored and, in an encrypted file, as pdf.js would decrypt it (a cross-reference stream never is):
    // whichever decodes to more counts, so that no choice of which to believe hides anything.
    const type = objects.resolve(dict.get('Type'));
    const readings = type instanceof PdfName && type.name === 'XRef' ? [raw] : [raw, ...decryptors.map((d) => d.decrypt(raw, ...parsed.id))];
    const trials: Budget[] = [];
    for (const data of readings) {
      const trial = budget.trial(what);
      trials.push(trial);
      const head = (large ? null : decodeWhole(data, chain, trial)) ?? (await decodeStreamed(data, chain, trial, codec !== null));
      if (codec) checkCodec(codec, head, `An image in the PDF (at byte ${keyword}, ${codec.name})`, typeof height === 'number' ? height : 0);
    }
    budget.settle(trials);
  }
  return { streams, decodedBytes: budget.used };
}
