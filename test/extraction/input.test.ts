import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { decodeFile, MAX_FILE_BYTES } from '../../src/extraction/input.js';

const PDF = Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n', 'latin1');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46]);
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x24, 0, 0, 0]), Buffer.from('WEBPVP8 ')]);

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected a refusal');
}

const b64 = (b: Buffer) => b.toString('base64');

describe('decodeFile', () => {
  it('decodes each allowed type and trusts the bytes, not the name', () => {
    expect(decodeFile({ file: b64(PDF), file_name: 'a.pdf' })).toEqual({ bytes: PDF, contentType: 'application/pdf' });
    expect(decodeFile({ file: b64(PNG), file_name: 'scan.PNG' }).contentType).toBe('image/png');
    expect(decodeFile({ file: b64(JPEG), file_name: 'photo.JpEg' }).contentType).toBe('image/jpeg');
    expect(decodeFile({ file: b64(JPEG), file_name: 'photo.jpg' }).contentType).toBe('image/jpeg');
    expect(decodeFile({ file: b64(WEBP), file_name: 'x.webp' }).contentType).toBe('image/webp');
    expect(decodeFile({ file: b64(PNG), file_name: 'no-extension', content_type: 'image/png' }).contentType).toBe('image/png');
  });

  it('finds %PDF- after leading junk within the first 1024 bytes', () => {
    const junk = Buffer.concat([Buffer.alloc(500, 0x20), PDF]);
    expect(decodeFile({ file: b64(junk), file_name: 'a.pdf' }).contentType).toBe('application/pdf');
    const tooLate = Buffer.concat([Buffer.alloc(1100, 0x20), PDF]);
    expect(refusal(() => decodeFile({ file: b64(tooLate), file_name: 'a.pdf' })).message).toMatch(/unsupported file type; allowed: PDF, JPEG, PNG, WebP/);
  });

  it.each([
    ['a line break', `${b64(PDF).slice(0, 8)}\n${b64(PDF).slice(8)}`, /whitespace or a line break at position 8/],
    ['a data: URL prefix', `data:application/pdf;base64,${b64(PDF)}`, /data: URL prefix/],
    ['base64url characters', 'ab-_', /character '-' at position 2 belongs to base64url/],
    ['a foreign character', 'ab*d', /character "\*" at position 2 is not in the base64 alphabet/],
    ['padding in the middle', 'QQ==QUFB', /padding '=' at position 2 is not at the end/],
    ['missing padding', 'QQ', /length \(2\) is not a multiple of 4/],
    ['too much padding', 'Q===', /padding '=' at position 1 is not at the end/],
  ])('refuses base64 with %s as invalid_file', (_, file, message) => {
    const err = refusal(() => decodeFile({ file, file_name: 'a.pdf' }));
    expect(err.code).toBe('invalid_file');
    expect(err.status).toBe(422);
    expect(err.message).toMatch(/^file is not valid base64: /);
    expect(err.message).toMatch(message);
  });

  it('refuses a file over 20 MB from the base64 length alone, before decoding', () => {
    const limit = MAX_FILE_BYTES;
    const justOver = 'A'.repeat(Math.ceil(((limit + 1) * 4) / 3 / 4) * 4);
    const err = refusal(() => decodeFile({ file: justOver, file_name: 'big.pdf' }));
    expect(err.code).toBe('file_too_large');
    expect(err.status).toBe(413);
    expect(err.message).toMatch(/after base64 decoding; the maximum is 20\.0 MB \(20971520 bytes\)/);
    const exactly = Buffer.concat([PDF, Buffer.alloc(limit - PDF.length)]);
    expect(decodeFile({ file: b64(exactly), file_name: 'big.pdf' }).bytes.length).toBe(limit);
    expect(refusal(() => decodeFile({ file: b64(PDF), file_name: 'a.pdf' }, { maxFileBytes: 10 })).code).toBe('file_too_large');
  });

  it('refuses an empty file', () => {
    expect(refusal(() => decodeFile({ file: '', file_name: 'a.pdf' })).message).toBe('file is empty');
  });

  it('names an unknown extension when content_type is missing', () => {
    expect(refusal(() => decodeFile({ file: b64(PDF), file_name: 'report.docx' })).message).toBe(
      'content_type is missing and file_name "report.docx" has extension ".docx"; send content_type or use .pdf, .jpg, .jpeg, .png or .webp',
    );
    expect(refusal(() => decodeFile({ file: b64(PDF), file_name: 'README' })).message).toMatch(/has no extension/);
  });

  it('refuses a content_type outside the allowed list', () => {
    const err = refusal(() => decodeFile({ file: b64(PDF), file_name: 'a.pdf', content_type: 'text/plain' }));
    expect(err.code).toBe('invalid_file');
    expect(err.message).toMatch(/content_type "text\/plain" is not supported/);
  });

  it('says which declared type disagrees with the bytes', () => {
    expect(refusal(() => decodeFile({ file: b64(PDF), file_name: 'a.png', content_type: 'image/png' })).message).toBe(
      "content_type is image/png but the file's bytes are a PDF",
    );
    expect(refusal(() => decodeFile({ file: b64(PNG), file_name: 'a.pdf' })).message).toBe(
      "file_name extension .pdf means application/pdf but the file's bytes are a PNG image",
    );
    expect(refusal(() => decodeFile({ file: b64(JPEG), file_name: 'a.webp' })).message).toMatch(/are a JPEG image$/);
  });

  it.each([
    ['GIF', Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1'), 'a GIF image'],
    ['ZIP', Buffer.from('PK\x03\x04rest', 'latin1'), 'a ZIP archive'],
    ['text', Buffer.from('hello, this is an invoice in plain text'), 'plain text'],
    ['TIFF', Buffer.from('II*\0....', 'latin1'), 'a TIFF image'],
    ['binary', Buffer.from([0, 1, 2, 3, 250, 251]), 'an unknown binary format'],
  ])('refuses %s with the list of allowed types', (_, bytes, what) => {
    const err = refusal(() => decodeFile({ file: b64(bytes), file_name: 'a.pdf' }));
    expect(err.code).toBe('invalid_file');
    expect(err.message).toBe(`unsupported file type; allowed: PDF, JPEG, PNG, WebP (the file's bytes look like ${what}${what === 'a ZIP archive' ? ' (or an Office document)' : ''})`);
  });
});
