/**
 * Just enough of PDF's object syntax to read stream dictionaries and the values they refer to
 * from a file's raw bytes, before pdf.js is given the file. Every loop moves forward through the
 * bytes, so reading is linear in their length whatever they hold.
 */

export class PdfName {
  constructor(readonly name: string) {}
}

export class PdfRef {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
}

export type PdfValue = number | boolean | null | PdfName | PdfRef | Buffer | PdfValue[] | PdfDict;
export type PdfDict = Map<string, PdfValue>;

/** Not a PDF value where one was expected. */
export class SyntaxProblem extends Error {}

/** Arrays and dictionaries nested deeper than this are not read; real files nest a handful deep. */
const MAX_DEPTH = 64;
/** Keywords and numbers are short; a longer run of characters is read no further, so that no token costs more than this. */
const MAX_WORD = 64;

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);

export const isWhitespace = (byte: number | undefined) => byte !== undefined && WHITESPACE.has(byte);
const isRegular = (byte: number | undefined) => byte !== undefined && !WHITESPACE.has(byte) && !DELIMITERS.has(byte);
const isDigit = (byte: number | undefined) => byte !== undefined && byte >= 0x30 && byte <= 0x39;

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}

/** Reads PDF values from `bytes`, starting at `pos`. */
export class PdfReader {
  pos: number;

  constructor(
    readonly bytes: Buffer,
    pos = 0,
  ) {
    this.pos = pos;
  }

  /** Skips whitespace and comments. */
  skipSpace(): void {
    const { bytes } = this;
    while (this.pos < bytes.length) {
      const byte = bytes[this.pos]!;
      if (WHITESPACE.has(byte)) {
        this.pos += 1;
      } else if (byte === 0x25) {
        while (this.pos < bytes.length && bytes[this.pos] !== 0x0a && bytes[this.pos] !== 0x0d) this.pos += 1;
      } else {
        return;
      }
    }
  }

  /** The run of regular characters at the current position (a keyword or a number), without moving. */
  peekWord(): string {
    this.skipSpace();
    let end = this.pos;
    while (end < this.bytes.length && end - this.pos < MAX_WORD && isRegular(this.bytes[end])) end += 1;
    return this.bytes.toString('latin1', this.pos, end);
  }

  /** Consumes `word` if it is the next keyword. */
  keyword(word: string): boolean {
    if (this.peekWord() !== word) return false;
    this.pos += word.length;
    return true;
  }

  value(depth = 0): PdfValue {
    if (depth > MAX_DEPTH) throw new SyntaxProblem('nested too deep');
    this.skipSpace();
    const { bytes } = this;
    const byte = bytes[this.pos];
    if (byte === undefined) throw new SyntaxProblem('end of file');
    if (byte === 0x2f) return this.name();
    if (byte === 0x28) return this.literalString();
    if (byte === 0x5b) {
      this.pos += 1;
      const items: PdfValue[] = [];
      for (;;) {
        this.skipSpace();
        if (bytes[this.pos] === 0x5d) {
          this.pos += 1;
          return items;
        }
        items.push(this.value(depth + 1));
      }
    }
    if (byte === 0x3c) {
      if (bytes[this.pos + 1] !== 0x3c) return this.hexString();
      this.pos += 2;
      const dict: PdfDict = new Map();
      for (;;) {
        this.skipSpace();
        if (bytes[this.pos] === 0x3e && bytes[this.pos + 1] === 0x3e) {
          this.pos += 2;
          return dict;
        }
        if (bytes[this.pos] !== 0x2f) throw new SyntaxProblem('a dictionary key is not a name');
        const key = this.name().name;
        dict.set(key, this.value(depth + 1));
      }
    }
    const word = this.peekWord();
    if (word === '') throw new SyntaxProblem(`unexpected byte ${byte}`);
    this.pos += word.length;
    if (word === 'true' || word === 'false') return word === 'true';
    if (word === 'null') return null;
    const number = Number(word);
    if (!/^[0-9+\-.]+$/.test(word) || !Number.isFinite(number)) throw new SyntaxProblem(`unexpected keyword ${word.slice(0, 20)}`);
    if (Number.isInteger(number) && number >= 0 && !word.includes('.')) {
      // "12 0 R" is a reference: look ahead for the generation and R without committing.
      const mark = this.pos;
      const gen = this.peekWord();
      if (/^\d+$/.test(gen)) {
        this.pos += gen.length;
        if (this.keyword('R')) return new PdfRef(number, Number(gen));
      }
      this.pos = mark;
    }
    return number;
  }

  private name(): PdfName {
    const { bytes } = this;
    this.pos += 1;
    let name = '';
    while (this.pos < bytes.length && isRegular(bytes[this.pos])) {
      const byte = bytes[this.pos]!;
      const high = hexValue(bytes[this.pos + 1] ?? -1);
      const low = hexValue(bytes[this.pos + 2] ?? -1);
      if (byte === 0x23 && high >= 0 && low >= 0) {
        name += String.fromCharCode(high * 16 + low);
        this.pos += 3;
      } else {
        name += String.fromCharCode(byte);
        this.pos += 1;
      }
    }
    return new PdfName(name);
  }

  private hexString(): Buffer {
    const { bytes } = this;
    this.pos += 1;
    const out: number[] = [];
    let half = -1;
    while (this.pos < bytes.length && bytes[this.pos] !== 0x3e) {
      const digit = hexValue(bytes[this.pos]!);
      this.pos += 1;
      if (digit < 0) continue;
      if (half < 0) {
        half = digit;
      } else {
        out.push(half * 16 + digit);
        half = -1;
      }
    }
    if (half >= 0) out.push(half * 16);
    this.pos += 1;
    return Buffer.from(out);
  }

  private literalString(): Buffer {
    const { bytes } = this;
    this.pos += 1;
    const out: number[] = [];
    let open = 1;
    while (this.pos < bytes.length) {
      const byte = bytes[this.pos]!;
      this.pos += 1;
      if (byte === 0x28) {
        open += 1;
      } else if (byte === 0x29) {
        open -= 1;
        if (open === 0) return Buffer.from(out);
      } else if (byte === 0x5c) {
        const next = bytes[this.pos];
        this.pos += 1;
        if (next === undefined) break;
        const escaped: Record<number, number> = { 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09, 0x62: 0x08, 0x66: 0x0c };
        if (escaped[next] !== undefined) {
          out.push(escaped[next]!);
        } else if (next >= 0x30 && next <= 0x37) {
          let code = next - 0x30;
          for (let k = 0; k < 2 && bytes[this.pos]! >= 0x30 && bytes[this.pos]! <= 0x37; k += 1) {
            code = code * 8 + bytes[this.pos]! - 0x30;
            this.pos += 1;
          }
          out.push(code & 0xff);
        } else if (next === 0x0d) {
          if (bytes[this.pos] === 0x0a) this.pos += 1;
        } else if (next !== 0x0a) {
          out.push(next);
        }
        continue;
      }
      out.push(byte);
    }
    throw new SyntaxProblem('unterminated string');
  }
}

/** Whether `word` starts at `at` in `bytes` as a whole keyword, not inside a longer run of regular characters. */
export function keywordAt(bytes: Buffer, at: number, word: string): boolean {
  return isRegular(bytes[at]) && !isRegular(bytes[at - 1]) && !isRegular(bytes[at + word.length]) && bytes.toString('latin1', at, at + word.length) === word;
}

export interface ObjectIndex {
  /** Where each object's value begins, by "N G"; a later definition replaces an earlier one, as an incremental update does. */
  byRef: Map<string, number>;
  /** Where every object's value begins, ascending. */
  starts: number[];
  /** The number and generation of the object at each of `starts`. */
  ids: [number, number][];
}

/** Finds every "N G obj" in the file. */
export function indexObjects(bytes: Buffer): ObjectIndex {
  const byRef = new Map<string, number>();
  const starts: number[] = [];
  const ids: [number, number][] = [];
  for (let at = bytes.indexOf('obj'); at >= 0; at = bytes.indexOf('obj', at + 3)) {
    if (!keywordAt(bytes, at, 'obj')) continue;
    let p = at - 1;
    const digitsBack = () => {
      const end = p + 1;
      while (p >= 0 && end - p <= 10 && isDigit(bytes[p])) p -= 1;
      return end - (p + 1);
    };
    const spaceBack = () => {
      const end = p;
      while (p >= 0 && isWhitespace(bytes[p])) p -= 1;
      return end - p;
    };
    if (!spaceBack()) continue;
    const genEnd = p + 1;
    if (!digitsBack()) continue;
    const gen = bytes.toString('latin1', p + 1, genEnd);
    if (!spaceBack()) continue;
    const numEnd = p + 1;
    if (!digitsBack() || isRegular(bytes[p])) continue;
    const id: [number, number] = [Number(bytes.toString('latin1', p + 1, numEnd)), Number(gen)];
    byRef.set(`${id[0]} ${id[1]}`, at + 3);
    starts.push(at + 3);
    ids.push(id);
  }
  return { byRef, starts, ids };
}
