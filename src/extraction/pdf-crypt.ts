import crypto from 'node:crypto';
import { PdfName, type PdfDict, type PdfValue } from './pdf-syntax.js';

/**
 * Stream decryption for PDF's standard security handler, with the keys the empty password gives.
 * pdf.js opens an encrypted PDF without asking when the empty password works as the user's or as
 * the owner's (as with "protected" files, which only restrict printing or editing), and then
 * decrypts every stream before decoding it: a bomb in such a file is invisible to a check of the
 * stored bytes. With these keys the pre-check decodes what pdf.js would. RC4 (40 to 128 bits),
 * AES-128 and AES-256 (revisions 2 to 6) are covered; a file that needs a real password is not
 * decoded by pdf.js either.
 */
export interface StreamDecryptor {
  decrypt(data: Uint8Array, num: number, gen: number): Uint8Array;
}

const PADDING = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');

const md5 = (...parts: Uint8Array[]) => crypto.createHash('md5').update(Buffer.concat(parts)).digest();
const sha = (bits: 256 | 384 | 512, ...parts: Uint8Array[]) => crypto.createHash(`sha${bits}`).update(Buffer.concat(parts)).digest();

/** RC4, written out: OpenSSL 3 keeps it in the legacy provider, which Node does not load. */
function rc4(key: Uint8Array, data: Uint8Array): Buffer {
  const s = new Uint8Array(256);
  for (let i = 0; i < 256; i += 1) s[i] = i;
  const swap = (i: number, j: number) => {
    const t = s[i]!;
    s[i] = s[j]!;
    s[j] = t;
  };
  for (let i = 0, j = 0; i < 256; i += 1) {
    j = (j + s[i]! + key[i % key.length]!) & 0xff;
    swap(i, j);
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n += 1) {
    i = (i + 1) & 0xff;
    j = (j + s[i]!) & 0xff;
    swap(i, j);
    out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 0xff]!;
  }
  return out;
}

function aesCbc(decrypt: boolean, key: Uint8Array, iv: Uint8Array, data: Uint8Array): Buffer {
  const bits = key.length * 8;
  const cipher = decrypt ? crypto.createDecipheriv(`aes-${bits}-cbc`, key, iv) : crypto.createCipheriv(`aes-${bits}-cbc`, key, iv);
  cipher.setAutoPadding(false);
  const whole = data.subarray(0, data.length - (data.length % 16));
  return Buffer.concat([cipher.update(whole), cipher.final()]);
}

/** Decrypts a stream stored as an IV and AES-CBC data; padding is left on, as a few bytes more change no count. */
const aesStream = (key: Uint8Array, data: Uint8Array) => (data.length < 32 ? Buffer.alloc(0) : aesCbc(true, key, data.subarray(0, 16), data.subarray(16)));

const bytes = (value: PdfValue | undefined) => (Buffer.isBuffer(value) ? value : Buffer.alloc(0));
const num = (value: PdfValue | undefined, fallback: number) => (typeof value === 'number' ? value : fallback);

interface Handler {
  revision: number;
  keyLength: number;
  owner: Buffer;
  user: Buffer;
  permissions: number;
  id: Buffer;
  encryptMetadata: boolean;
}

/** Algorithm 2 of ISO 32000: the file key of revisions 2 to 4 for a (padded) user password. */
function fileKey(h: Handler, password: Uint8Array): Buffer {
  const p = Buffer.alloc(4);
  p.writeInt32LE(h.permissions | 0);
  const parts = [Buffer.concat([password, PADDING]).subarray(0, 32), h.owner.subarray(0, 32), p, h.id];
  if (h.revision >= 4 && !h.encryptMetadata) parts.push(Buffer.from([0xff, 0xff, 0xff, 0xff]));
  let hash = md5(...parts);
  if (h.revision >= 3) for (let i = 0; i < 50; i += 1) hash = md5(hash.subarray(0, h.keyLength));
  return hash.subarray(0, h.keyLength);
}

/** Algorithm 7: the padded user password that the empty owner password recovers from /O. */
function userFromEmptyOwner(h: Handler): Buffer {
  let hash = md5(PADDING);
  if (h.revision >= 3) for (let i = 0; i < 50; i += 1) hash = md5(hash);
  const key = hash.subarray(0, h.keyLength);
  if (h.revision === 2) return rc4(key, h.owner.subarray(0, 32));
  let out = h.owner.subarray(0, 32);
  for (let i = 19; i >= 0; i -= 1) out = rc4(key.map((b) => b ^ i), out);
  return out;
}

/** Algorithm 2.B (revision 6), or plain SHA-256 (revision 5), of a password, a salt and the user data. */
function hardenedHash(revision: number, password: Buffer, salt: Buffer, userData: Buffer): Buffer {
  let k = sha(256, password, salt, userData);
  if (revision < 6) return k;
  for (let i = 0; ; ) {
    const k1 = Buffer.concat(Array.from({ length: 64 }, () => Buffer.concat([password, k, userData])));
    const e = aesCbc(false, k.subarray(0, 16), k.subarray(16, 32), k1);
    let sum = 0;
    for (let b = 0; b < 16; b += 1) sum += e[b]!;
    k = sha(([256, 384, 512] as const)[sum % 3]!, e);
    i += 1;
    if (i >= 64 && e[e.length - 1]! <= i - 32) return k.subarray(0, 32);
  }
}

/** The crypt filter method streams use: RC4 ("V2"), AES ("AESV2", "AESV3"), or none. */
function streamMethod(encrypt: PdfDict, version: number): string {
  if (version < 4) return 'V2';
  const stmf = encrypt.get('StmF');
  const name = stmf instanceof PdfName ? stmf.name : 'Identity';
  if (name === 'Identity') return 'None';
  const filters = encrypt.get('CF');
  const filter = filters instanceof Map ? filters.get(name) : undefined;
  const method = filter instanceof Map ? filter.get('CFM') : undefined;
  return method instanceof PdfName ? method.name : 'None';
}

/**
 * The decryptors the encryption dictionary `encrypt` allows with the empty password, as user and
 * as owner (usually the same key); none for another security handler or for no encryption at all.
 * `resolve` reads indirect values.
 */
export function emptyPasswordDecryptors(encrypt: PdfDict, id: Buffer, resolve: (v: PdfValue | undefined) => PdfValue | undefined): StreamDecryptor[] {
  const filter = resolve(encrypt.get('Filter'));
  if (!(filter instanceof PdfName) || filter.name !== 'Standard') return [];
  const get = (key: string) => resolve(encrypt.get(key));
  const version = num(get('V'), 0);
  const method = streamMethod(encrypt, version);
  if (method === 'None') return [];
  const revision = num(get('R'), 2);
  const handler: Handler = {
    revision,
    keyLength: revision === 2 ? 5 : Math.min(16, Math.max(5, Math.floor(num(get('Length'), 128) / 8))),
    owner: bytes(get('O')),
    user: bytes(get('U')),
    permissions: num(get('P'), 0),
    id,
    encryptMetadata: get('EncryptMetadata') !== false,
  };
  const keys: Buffer[] = [];
  if (revision >= 5) {
    const empty = Buffer.alloc(0);
    const zero = Buffer.alloc(16);
    const userKey = hardenedHash(revision, empty, handler.user.subarray(40, 48), empty);
    const ownerKey = hardenedHash(revision, empty, handler.owner.subarray(40, 48), handler.user.subarray(0, 48));
    keys.push(aesCbc(true, userKey, zero, bytes(get('UE'))), aesCbc(true, ownerKey, zero, bytes(get('OE'))));
  } else {
    keys.push(fileKey(handler, Buffer.alloc(0)), fileKey(handler, userFromEmptyOwner(handler)));
  }
  const distinct = [...new Map(keys.filter((k) => k.length).map((k) => [k.toString('hex'), k])).values()];
  return distinct.map((key) => ({
    decrypt(data, objectNumber, generation) {
      if (method === 'AESV3') return aesStream(key, data);
      const salt = method === 'AESV2' ? Buffer.from('sAlT', 'latin1') : Buffer.alloc(0);
      const id5 = Buffer.from([objectNumber & 0xff, (objectNumber >> 8) & 0xff, (objectNumber >> 16) & 0xff, generation & 0xff, (generation >> 8) & 0xff]);
      const objectKey = md5(key, id5, salt).subarray(0, Math.min(key.length + 5, 16));
      return method === 'AESV2' ? aesStream(objectKey, data) : rc4(objectKey, data);
    },
  }));
}
