import { ApiError, invalidFile } from '../errors.js';
import type { ContentType } from './types.js';

export interface FileUpload {
  file: string;
  file_name: string;
  content_type?: string;
}

export interface InputLimits {
  maxFileBytes: number;
}

export interface DecodedFile {
  bytes: Buffer;
  contentType: ContentType;
}

export const MAX_FILE_BYTES = 20 * 1024 * 1024;

const ALLOWED = 'PDF, JPEG, PNG, WebP';

const NAMES: Record<ContentType, string> = {
  'application/pdf': 'a PDF',
  'image/jpeg': 'a JPEG image',
  'image/png': 'a PNG image',
  'image/webp': 'a WebP image',
};

const EXTENSIONS: Record<string, ContentType> = {
  pdf: 'application/pdf',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
};

const CONTENT_TYPES = new Set<string>(Object.values(EXTENSIONS));

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Decoded size from the base64 text alone, so an oversized body is refused without allocating it. */
function decodedLength(b64: string): number {
  const padding = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return Math.floor((b64.length * 3) / 4) - padding;
}

function base64Problem(b64: string): string | null {
  if (/^data:/i.test(b64)) return "it starts with a data: URL prefix; send only the base64 text after 'base64,'";
  const bad = b64.search(/[^A-Za-z0-9+/=]/);
  if (bad >= 0) {
    const ch = b64[bad]!;
    if (/\s/.test(ch)) return `whitespace or a line break at position ${bad}; send the base64 text on one line`;
    if (ch === '-' || ch === '_') return `character '${ch}' at position ${bad} belongs to base64url; use the standard alphabet (+ and /)`;
    return `character ${JSON.stringify(ch)} at position ${bad} is not in the base64 alphabet`;
  }
  const firstPad = b64.indexOf('=');
  if (firstPad >= 0 && firstPad < b64.length - 2) return `padding '=' at position ${firstPad} is not at the end`;
  if (firstPad >= 0 && !/^={1,2}$/.test(b64.slice(firstPad))) return `padding '=' at position ${firstPad} is not at the end`;
  if (b64.length % 4 !== 0) return `its length (${b64.length}) is not a multiple of 4; '=' padding is missing or there are extra characters`;
  return null;
}

function sniff(bytes: Buffer): ContentType | { unsupported: string } {
  const ascii = (start: number, end: number) => bytes.subarray(start, end).toString('latin1');
  if (bytes.subarray(0, 1024).includes('%PDF-')) return 'application/pdf';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  if (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a') return { unsupported: 'a GIF image' };
  if (ascii(0, 4) === 'PK\x03\x04') return { unsupported: 'a ZIP archive (or an Office document)' };
  if (ascii(0, 4) === 'II*\0' || ascii(0, 4) === 'MM\0*') return { unsupported: 'a TIFF image' };
  if (ascii(0, 2) === 'BM') return { unsupported: 'a BMP image' };
  if (ascii(4, 8) === 'ftyp') return { unsupported: 'an HEIC/AVIF image or MP4 file' };
  const head = bytes.subarray(0, 512);
  const printable = head.every((b) => b === 0x09 || b === 0x0a || b === 0x0d || (b >= 0x20 && b !== 0x7f));
  return { unsupported: printable ? 'plain text' : 'an unknown binary format' };
}

function declaredType(upload: FileUpload): { type: ContentType; from: string } {
  if (upload.content_type !== undefined) {
    const type = upload.content_type.split(';')[0]!.trim().toLowerCase();
    if (!CONTENT_TYPES.has(type)) {
      throw invalidFile(`content_type ${JSON.stringify(upload.content_type)} is not supported; allowed: application/pdf, image/jpeg, image/png, image/webp`);
    }
    return { type: type as ContentType, from: `content_type is ${type}` };
  }
  const dot = upload.file_name.lastIndexOf('.');
  const ext = dot >= 0 ? upload.file_name.slice(dot + 1).toLowerCase() : '';
  const type = EXTENSIONS[ext];
  if (!type) {
    const what = ext ? `extension ".${ext}"` : 'no extension';
    throw invalidFile(`content_type is missing and file_name ${JSON.stringify(upload.file_name)} has ${what}; send content_type or use .pdf, .jpg, .jpeg, .png or .webp`);
  }
  return { type, from: `file_name extension .${ext} means ${type}` };
}

/**
 * Turns the request's base64 text into bytes and the content type the bytes really have.
 * Every refusal is a request-level ApiError: the document was never accepted.
 */
export function decodeFile(upload: FileUpload, limits: InputLimits = { maxFileBytes: MAX_FILE_BYTES }): DecodedFile {
  const b64 = upload.file;
  const size = decodedLength(b64);
  if (size > limits.maxFileBytes) {
    throw new ApiError('file_too_large', `file is ${megabytes(size)} after base64 decoding; the maximum is ${megabytes(limits.maxFileBytes)} (${limits.maxFileBytes} bytes)`);
  }
  const problem = base64Problem(b64);
  if (problem) throw invalidFile(`file is not valid base64: ${problem}`);
  const declared = declaredType(upload);
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length === 0) throw invalidFile('file is empty');
  const actual = sniff(bytes);
  if (typeof actual !== 'string') {
    throw invalidFile(`unsupported file type; allowed: ${ALLOWED} (the file's bytes look like ${actual.unsupported})`);
  }
  if (actual !== declared.type) {
    throw invalidFile(`${declared.from} but the file's bytes are ${NAMES[actual]}`);
  }
  return { bytes, contentType: actual };
}
