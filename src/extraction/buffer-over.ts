/**
 * A Buffer over the same memory as the view, without a copy: bytes that crossed from another
 * thread arrive as a plain Uint8Array, and pdf.js hands out its own views of a file's data.
 */
export function bufferOver(view: ArrayBufferView): Buffer {
  return Buffer.from(view.buffer, view.byteOffset, view.byteLength);
}
