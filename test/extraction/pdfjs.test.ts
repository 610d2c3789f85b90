import { describe, expect, it } from 'vitest';

describe('loading pdf.js', () => {
  it('leaves the process its native JSON, Array.prototype.push and Function.prototype.toString', async () => {
    const before = [Array.prototype.push, JSON.parse, JSON.stringify, Function.prototype.toString];
    const { loadPdfJs } = await import('../../src/extraction/pdfjs.js');
    const pdfjs = await loadPdfJs();
    expect([Array.prototype.push, JSON.parse, JSON.stringify, Function.prototype.toString]).toEqual(before);
    // What Node 20 lacks and pdf.js needs is still added.
    expect(typeof (Promise as { withResolvers?: unknown }).withResolvers).toBe('function');
    expect(typeof pdfjs.getDocument).toBe('function');
  });
});
