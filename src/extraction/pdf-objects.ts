import { DocumentError } from '../errors.js';
import { indexObjects, isWhitespace, keywordAt, PdfReader, PdfRef, SyntaxProblem, type PdfDict, type PdfValue } from './pdf-syntax.js';

/**
 * Dictionaries read, in bytes, as a multiple of the file's size: a file reads each of its
 * dictionaries about once; one built to make the same bytes be read again and again does not.
 */
const MAX_READ_FACTOR = 4;

export interface Parsed {
  value: PdfValue;
  /** Where the keyword `stream` follows the value, if it does. */
  streamAt: number | null;
  /** The object's number and generation, which its stream's encryption key depends on. */
  id: [number, number];
}

/** Reads the file's objects on demand, each once, within a bound on the bytes read in all. */
export class Objects {
  private readonly byRef: Map<string, number>;
  /** Every object's start, ascending, and its number and generation. */
  private readonly starts: number[];
  private readonly ids: [number, number][];
  private readonly parsed = new Map<number, Parsed | null>();
  private readBytes = 0;
  private readonly maxRead: number;

  constructor(readonly bytes: Buffer) {
    const index = indexObjects(bytes);
    this.byRef = index.byRef;
    this.starts = index.starts;
    this.ids = index.ids;
    this.maxRead = MAX_READ_FACTOR * bytes.length + 1024 * 1024;
  }

  /** The value at `start` (an object's, numbered `id`, or a trailer's), and whether a stream follows it. */
  at(start: number, id: [number, number] = [0, 0]): Parsed | null {
    if (this.parsed.has(start)) return this.parsed.get(start)!;
    const reader = new PdfReader(this.bytes, start);
    let result: Parsed | null = null;
    try {
      const value = reader.value();
      const keyword = reader.peekWord() === 'stream' ? reader.pos : null;
      result = { value, streamAt: keyword, id };
    } catch (err) {
      if (!(err instanceof SyntaxProblem)) throw err;
    }
    this.readBytes += Math.max(1, reader.pos - start);
    if (this.readBytes > this.maxRead) {
      throw new DocumentError('document_too_complex', "The PDF's objects overlap so much that checking them would take too long.", 0);
    }
    this.parsed.set(start, result);
    return result;
  }

  /** The object that starts last before `position`. */
  before(position: number): Parsed | null {
    let low = 0;
    let high = this.starts.length - 1;
    let found = -1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      if (this.starts[mid]! < position) {
        found = mid;
        low = mid + 1;
      } else {
        high = mid - 1;
      }
    }
    return found < 0 ? null : this.at(this.starts[found]!, this.ids[found]);
  }

  /** The object a reference names, as the file's bytes hold it; null when it is not there (it may be inside an object stream). */
  object(ref: PdfRef): Parsed | null {
    const start = this.byRef.get(`${ref.num} ${ref.gen}`);
    return start === undefined ? null : this.at(start, [ref.num, ref.gen]);
  }

  /** A reference's value, or `unresolved` when the object is not in the file's bytes (it may be inside an object stream). */
  resolve(value: PdfValue | undefined, unresolved: PdfValue | undefined = undefined): PdfValue | undefined {
    if (!(value instanceof PdfRef)) return value;
    return this.object(value)?.value ?? unresolved;
  }
}

/** Where a stream's data starts: after the end of the line `stream` is on, as pdf.js reads it. */
export function dataStart(bytes: Buffer, keyword: number): number {
  let p = keyword + 'stream'.length;
  while (p < bytes.length) {
    if (bytes[p] === 0x0d) return bytes[p + 1] === 0x0a ? p + 2 : p + 1;
    if (bytes[p] === 0x0a) return p + 1;
    p += 1;
  }
  return p;
}

/** Whether the keyword `endstream` follows `p`, whitespace aside. */
export function endstreamAt(bytes: Buffer, p: number): boolean {
  let q = p;
  while (q < bytes.length && isWhitespace(bytes[q])) q += 1;
  return keywordAt(bytes, q, 'endstream');
}

/** The first position from `from` on where `word` stands as a keyword, or -1. */
export function nextKeyword(bytes: Buffer, word: string, from: number): number {
  for (let at = bytes.indexOf(word, from); at >= 0; at = bytes.indexOf(word, at + word.length)) {
    if (keywordAt(bytes, at, word)) return at;
  }
  return -1;
}

/** Every position where `word` stands as a keyword. */
export function positions(bytes: Buffer, word: string): number[] {
  const found: number[] = [];
  for (let at = nextKeyword(bytes, word, 0); at >= 0; at = nextKeyword(bytes, word, at + word.length)) found.push(at);
  return found;
}

/**
 * Where the data of the stream whose keyword is at `keyword` ends: after its /Length when
 * `endstream` follows there, as pdf.js reads it, else at the next `endstream` (`nextEndstream`
 * finds it, -1 for none). An unresolved length (its object inside an object stream) could be
 * anything: the data is then taken to run to the end of the file.
 */
export function dataEnd(objects: Objects, dict: PdfDict, start: number, nextEndstream: (from: number) => number): number {
  const { bytes } = objects;
  const length = objects.resolve(dict.get('Length'), Infinity);
  if (length === Infinity) return bytes.length;
  if (typeof length === 'number' && Number.isInteger(length) && length >= 0 && endstreamAt(bytes, start + length)) return start + length;
  const next = nextEndstream(start);
  return next >= 0 ? next : bytes.length;
}

export const asArray = (value: PdfValue | undefined): PdfValue[] => (value === undefined || value === null ? [] : Array.isArray(value) ? value : [value]);

/** `dict.get(a, b)` as pdf.js reads it: the first key that is present. */
export const either = (dict: PdfDict, a: string, b: string) => (dict.has(a) ? dict.get(a) : dict.get(b));
