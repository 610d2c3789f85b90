import zlib from 'node:zlib';

/**
 * PDF's general-purpose stream filters, each decodable two ways: at once, for the small streams
 * a document is mostly made of, giving up past a size cap; and as a stream, piece by piece, so
 * that a large stream's decoded size can be counted as it comes and decoding abandoned the moment
 * a budget is spent, without ever holding the decoded data. The image codecs (DCT, JPX, JBIG2,
 * CCITT) are not here: their output size follows from the image's dimensions, checked instead.
 */
export interface Filter {
  /** The decoded data, or null when it would be longer than `cap` bytes or the data is damaged. */
  whole(input: Uint8Array, cap: number): Uint8Array | null;
  stream(input: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array>;
}

/** Streamed output is handed on in pieces of this size: small enough to hold, large enough that a gigabyte is a thousand steps. */
const PIECE = 1024 * 1024;

/** A decoder fed input piece by piece; `done` once it has read its end-of-data marker. */
interface PushDecoder {
  write(input: Uint8Array, out: Output): void;
  done: boolean;
}

/** Collects decoded bytes into pieces; counts them all. */
class Output {
  readonly ready: Uint8Array[] = [];
  total = 0;
  private buffer: Uint8Array;
  private length = 0;

  constructor(private readonly size: number) {
    this.buffer = new Uint8Array(size);
  }

  byte(value: number): void {
    this.buffer[this.length] = value;
    this.length += 1;
    this.total += 1;
    if (this.length === this.size) this.flush();
  }

  fill(value: number, count: number): void {
    for (let left = count; left > 0; ) {
      const n = Math.min(left, this.size - this.length);
      this.buffer.fill(value, this.length, this.length + n);
      this.length += n;
      this.total += n;
      left -= n;
      if (this.length === this.size) this.flush();
    }
  }

  bytes(values: Uint8Array): void {
    for (let at = 0; at < values.length; ) {
      const n = Math.min(values.length - at, this.size - this.length);
      this.buffer.set(values.subarray(at, at + n), this.length);
      this.length += n;
      this.total += n;
      at += n;
      if (this.length === this.size) this.flush();
    }
  }

  flush(): void {
    if (this.length === 0) return;
    this.ready.push(this.buffer.subarray(0, this.length));
    this.buffer = new Uint8Array(this.size);
    this.length = 0;
  }
}

/** Input is given to a push decoder in slices this long, so that output is handed on (and counted) at least this often, however much one byte expands. */
const SLICE = 1024;

function pushFilter(make: () => PushDecoder): Filter {
  return {
    whole(input, cap) {
      const decoder = make();
      const out = new Output(64 * 1024);
      for (let at = 0; at < input.length && !decoder.done; at += SLICE) {
        decoder.write(input.subarray(at, at + SLICE), out);
        if (out.total > cap) return null;
      }
      out.flush();
      return Buffer.concat(out.ready);
    },
    async *stream(input) {
      const decoder = make();
      const out = new Output(PIECE);
      for await (const piece of input) {
        for (let at = 0; at < piece.length && !decoder.done; at += SLICE) {
          decoder.write(piece.subarray(at, at + SLICE), out);
          yield* out.ready.splice(0);
        }
        if (decoder.done) break;
      }
      out.flush();
      yield* out.ready;
    },
  };
}

type Engine = zlib.Inflate | zlib.BrotliDecompress;

/** Resolves when the engine can take more input, or has been destroyed. */
function writable(engine: Engine): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      engine.off('drain', done);
      engine.off('close', done);
      resolve();
    };
    engine.on('drain', done);
    engine.on('close', done);
  });
}

function zlibFilter(whole: (input: Uint8Array, cap: number) => Buffer, make: () => Engine): Filter {
  return {
    whole(input, cap) {
      try {
        return whole(input, cap);
      } catch {
        // Past the cap, or damaged: the streamed reading counts a damaged stream up to where it breaks.
        return null;
      }
    },
    async *stream(input) {
      const engine = make();
      /** A failure before this filter (such as a spent budget) is passed on, unlike the engine's own. */
      let upstream: unknown = null;
      void (async () => {
        try {
          for await (const piece of input) {
            if (engine.destroyed) return;
            if (!engine.write(piece)) await writable(engine);
          }
          engine.end();
        } catch (err) {
          upstream = err;
          engine.destroy();
        }
      })();
      try {
        for await (const piece of engine) yield piece as Buffer;
      } catch (err) {
        // A damaged or truncated stream ends where it breaks, as pdf.js reads it: what came out before counts.
        if (!(err as NodeJS.ErrnoException).code) throw err;
      } finally {
        engine.destroy();
      }
      if (upstream) throw upstream;
    },
  };
}

const isSpace = (byte: number) => byte === 0x00 || byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d || byte === 0x20;

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}

function asciiHex(): PushDecoder {
  let high = -1;
  return {
    done: false,
    write(input, out) {
      for (const byte of input) {
        if (byte === 0x3e) {
          if (high >= 0) out.byte(high << 4);
          this.done = true;
          return;
        }
        const digit = hexValue(byte);
        if (digit < 0) continue;
        if (high < 0) {
          high = digit;
        } else {
          out.byte((high << 4) | digit);
          high = -1;
        }
      }
    },
  };
}

function ascii85(): PushDecoder {
  const group: number[] = [];
  const emit = (out: Output, count: number) => {
    let value = 0;
    for (let i = 0; i < 5; i += 1) value = value * 85 + (group[i] ?? 84);
    for (let i = 0; i < count; i += 1) out.byte(Math.floor(value / 256 ** (3 - i)) & 0xff);
    group.length = 0;
  };
  return {
    done: false,
    write(input, out) {
      for (const byte of input) {
        if (isSpace(byte)) continue;
        if (byte === 0x7e) {
          if (group.length > 1) emit(out, group.length - 1);
          this.done = true;
          return;
        }
        if (byte === 0x7a && group.length === 0) {
          out.fill(0, 4);
          continue;
        }
        group.push(byte - 0x21);
        if (group.length === 5) emit(out, 4);
      }
    },
  };
}

function runLength(): PushDecoder {
  /** The length byte of the repeated run being read, or -1 between runs. */
  let repeat = -1;
  let literal = 0;
  return {
    done: false,
    write(input, out) {
      for (const byte of input) {
        if (literal > 0) {
          out.byte(byte);
          literal -= 1;
        } else if (repeat >= 0) {
          out.fill(byte, 257 - repeat);
          repeat = -1;
        } else if (byte === 128) {
          this.done = true;
          return;
        } else if (byte < 128) {
          literal = byte + 1;
        } else {
          repeat = byte;
        }
      }
    },
  };
}

/** LZW as PDF writes it (codes of 9 to 12 bits, 256 clears, 257 ends), after pdf.js's LZWStream. */
function lzw(earlyChange: number): PushDecoder {
  const size = 4096;
  const values = new Uint8Array(size);
  const lengths = new Uint16Array(size);
  const previous = new Uint16Array(size);
  const sequence = new Uint8Array(size);
  for (let i = 0; i < 256; i += 1) {
    values[i] = i;
    lengths[i] = 1;
  }
  let sequenceLength = 0;
  let nextCode = 258;
  let codeLength = 9;
  let previousCode = 0;
  let bits = 0;
  let cached = 0;
  return {
    done: false,
    write(input, out) {
      for (const byte of input) {
        cached = ((cached << 8) | byte) & 0xffffff;
        bits += 8;
        while (bits >= codeLength) {
          bits -= codeLength;
          const code = (cached >>> bits) & ((1 << codeLength) - 1);
          const hadPrevious = sequenceLength > 0;
          if (code === 256) {
            codeLength = 9;
            nextCode = 258;
            sequenceLength = 0;
            continue;
          }
          if (code === 257) {
            this.done = true;
            return;
          }
          if (code < 256) {
            sequence[0] = code;
            sequenceLength = 1;
          } else if (code < nextCode) {
            sequenceLength = lengths[code]!;
            for (let j = sequenceLength - 1, q = code; j >= 0; j -= 1) {
              sequence[j] = values[q]!;
              q = previous[q]!;
            }
          } else if (sequenceLength < size) {
            sequence[sequenceLength] = sequence[0]!;
            sequenceLength += 1;
          }
          if (hadPrevious && nextCode < size) {
            previous[nextCode] = previousCode;
            lengths[nextCode] = Math.min(size, lengths[previousCode]! + 1);
            values[nextCode] = sequence[0]!;
            nextCode += 1;
            const limit = nextCode + earlyChange;
            codeLength = limit & (limit - 1) ? codeLength : Math.min(Math.log2(limit) + 1, 12) | 0;
          }
          previousCode = code;
          out.bytes(sequence.subarray(0, sequenceLength));
        }
      }
    },
  };
}

const ZLIB_OPTIONS = { chunkSize: PIECE };

/**
 * The decoder for a filter by its name (full or abbreviated, as pdf.js accepts them), or null for
 * the image codecs and any filter pdf.js does not decode either. `earlyChange` is LZW's parameter.
 */
export function filter(name: string, earlyChange = 1): Filter | null {
  switch (name) {
    case 'FlateDecode':
    case 'Fl':
      return zlibFilter(
        (input, cap) => zlib.inflateSync(input, { maxOutputLength: cap }),
        () => zlib.createInflate(ZLIB_OPTIONS),
      );
    case 'BrotliDecode':
      return zlibFilter(
        (input, cap) => zlib.brotliDecompressSync(input, { maxOutputLength: cap }),
        () => zlib.createBrotliDecompress(ZLIB_OPTIONS),
      );
    case 'LZWDecode':
    case 'LZW':
      return pushFilter(() => lzw(earlyChange));
    case 'RunLengthDecode':
    case 'RL':
      return pushFilter(runLength);
    case 'ASCIIHexDecode':
    case 'AHx':
      return pushFilter(asciiHex);
    case 'ASCII85Decode':
    case 'A85':
      return pushFilter(ascii85);
    default:
      return null;
  }
}
