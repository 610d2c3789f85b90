import fs from 'node:fs/promises';
import path from 'node:path';
import type { components } from '../../generated/openapi.js';

type ContentType = components['schemas']['ContentType'];

const EXTENSIONS: Record<ContentType, string> = {
  'application/pdf': 'pdf',
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
};

/** The content type the bytes announce, so a Buffer sent without a name still gets a fitting one. */
export function sniffContentType(bytes: Buffer): ContentType | null {
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return null;
}

export interface FileOptions {
  fileName?: string;
  contentType?: ContentType;
  templateId?: string;
}

/** The `POST /v1/extractions` body for a file on disk or bytes in memory. */
export async function extractionBody(file: string | Buffer, options: FileOptions): Promise<components['schemas']['ExtractionCreate']> {
  const bytes = typeof file === 'string' ? await fs.readFile(file) : file;
  const knownName = options.fileName ?? (typeof file === 'string' ? path.basename(file) : undefined);
  // With a name the server infers the type from its extension and checks it against the bytes.
  const contentType = options.contentType ?? (knownName ? undefined : (sniffContentType(bytes) ?? undefined));
  const fileName = knownName ?? `document.${contentType ? EXTENSIONS[contentType] : 'bin'}`;
  return {
    file: bytes.toString('base64'),
    file_name: fileName,
    ...(contentType ? { content_type: contentType } : {}),
    ...(options.templateId ? { template_id: options.templateId } : {}),
  };
}
