import type { PdfJs } from './pdfjs.js';

export type Matrix = [number, number, number, number, number, number];

/**
 * Walks a page's operator list (pdf.js's shape) keeping the current transformation matrix, and
 * hands every operator but save, restore and transform to `visit` with the matrix it draws under.
 * `visit` returns false to stop; the walk then returns false, else true.
 */
export function walkOperators(
  { OPS, Util }: Pick<PdfJs, 'OPS' | 'Util'>,
  fnArray: number[],
  argsArray: unknown[][],
  visit: (fn: number, args: unknown[], ctm: Matrix) => boolean,
): boolean {
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  const saved: Matrix[] = [];
  for (let i = 0; i < fnArray.length; i += 1) {
    const args = argsArray[i]!;
    const fn = fnArray[i]!;
    if (fn === OPS.save) saved.push(ctm);
    else if (fn === OPS.restore) ctm = saved.pop() ?? ctm;
    else if (fn === OPS.transform) ctm = Util.transform(ctm, args as number[]) as Matrix;
    else if (!visit(fn, args, ctm)) return false;
  }
  return true;
}
