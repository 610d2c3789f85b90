import { bufferOver } from './buffer-over.js';
import { filter } from './pdf-filters.js';
import { asArray, dataEnd, dataStart, either, nextKeyword, type Objects } from './pdf-objects.js';
import { PdfName, PdfReader, PdfRef, SyntaxProblem, type PdfDict, type PdfValue } from './pdf-syntax.js';
import type { PdfJs } from './pdfjs.js';

/** A page's drawing as pdf.js's operator list gives it: operator codes and their arguments. */
export interface PageOperators {
  fnArray: number[];
  argsArray: unknown[][];
  /** The image XObjects the page paints, by the name `paintImageXObject`'s first argument gives. */
  images: Map<string, PdfRef>;
}

/** A page that only shows a scan draws a handful of operators; a longer content stream is left to pdf.js. */
const MAX_CONTENT_BYTES = 64 * 1024;
const MAX_OPERATORS = 256;
/** Page tree levels climbed for inherited resources; real files have a few. */
const MAX_PARENTS = 32;
/** An operator code pdf.js never gives, for anything read here that is not a lone picture's. */
const OTHER = -1;
/** Extended graphics state keys pdf.js reads and drops, as it does any it does not know. */
const DROPPED_STATE = new Set(['Type', 'OP', 'op', 'OPM', 'BG', 'BG2', 'UCR', 'UCR2', 'TR2', 'HT', 'SM', 'SA', 'AIS', 'TK']);
const KNOWN_STATE = new Set(['LW', 'LC', 'LJ', 'ML', 'D', 'RI', 'FL', 'CA', 'ca', 'Font', 'BM', 'SMask', 'TR']);

/** A stream object's dictionary and raw data, as the file's bytes hold it. */
export function streamObject(objects: Objects, ref: PdfValue | undefined): { dict: PdfDict; data: Buffer } | null {
  if (!(ref instanceof PdfRef)) return null;
  const parsed = objects.object(ref);
  if (!parsed || parsed.streamAt === null || !(parsed.value instanceof Map)) return null;
  const { bytes } = objects;
  const start = dataStart(bytes, parsed.streamAt);
  return { dict: parsed.value, data: bytes.subarray(start, dataEnd(objects, parsed.value, start, (from) => nextKeyword(bytes, 'endstream', from))) };
}

/** A page dictionary's entry, or its nearest ancestor's in the page tree, which is how Resources are inherited. */
function inherited(objects: Objects, page: PdfDict, key: string): PdfValue | undefined {
  let node: PdfValue | undefined = page;
  for (let depth = 0; depth < MAX_PARENTS && node instanceof Map; depth += 1) {
    if (node.has(key)) return objects.resolve(node.get(key));
    node = objects.resolve(node.get('Parent'));
  }
  return undefined;
}

/** A content stream decoded, or null when it is larger than a lone picture's or uses a filter with parameters. */
function decodedContent(objects: Objects, ref: PdfValue | undefined): Buffer | null {
  const stream = streamObject(objects, ref);
  if (!stream || either(stream.dict, 'DP', 'DecodeParms') !== undefined) return null;
  let data: Uint8Array | null = stream.data;
  for (const name of asArray(objects.resolve(either(stream.dict, 'F', 'Filter')))) {
    const decoder = name instanceof PdfName ? filter(name.name) : null;
    data = decoder && data && decoder.whole(data, MAX_CONTENT_BYTES);
    if (!data) return null;
  }
  return data.length <= MAX_CONTENT_BYTES ? bufferOver(data) : null;
}

/** The operators of a content stream and their operands; null at anything this reader does not take apart (inline images, damage). */
function operations(content: Buffer): { operator: string; operands: PdfValue[] }[] | null {
  const reader = new PdfReader(content);
  const found: { operator: string; operands: PdfValue[] }[] = [];
  let operands: PdfValue[] = [];
  try {
    for (;;) {
      reader.skipSpace();
      if (reader.pos >= content.length) return found;
      const byte = content[reader.pos]!;
      // A name, string, array, dictionary or number starts an operand; anything else is an operator.
      if (byte === 0x2f || byte === 0x28 || byte === 0x3c || byte === 0x5b || byte === 0x2b || byte === 0x2d || byte === 0x2e || (byte >= 0x30 && byte <= 0x39)) {
        operands.push(reader.value());
        continue;
      }
      const word = reader.peekWord();
      if (word === '' || word === 'BI' || found.length >= MAX_OPERATORS) return null;
      reader.pos += word.length;
      if (word === 'true' || word === 'false' || word === 'null') {
        operands.push(word === 'null' ? null : word === 'true');
        continue;
      }
      found.push({ operator: word, operands });
      operands = [];
    }
  } catch (err) {
    if (err instanceof SyntaxProblem) return null;
    throw err;
  }
}

/** An extended graphics state as pdf.js's `setGState` hands it on, for the same judgement of what it changes. */
function graphicsState(objects: Objects, state: PdfValue | undefined): [string, unknown][] | null {
  if (!(state instanceof Map)) return null;
  const entries: [string, unknown][] = [];
  for (const [key, raw] of state) {
    const value = objects.resolve(raw);
    if (DROPPED_STATE.has(key) || !KNOWN_STATE.has(key)) continue;
    if (key === 'BM') entries.push([key, value instanceof PdfName && (value.name === 'Normal' || value.name === 'Compatible') ? 'source-over' : value]);
    else if (key === 'SMask') entries.push([key, !(value instanceof PdfName && value.name === 'None')]);
    else entries.push([key, value]);
  }
  return entries;
}

const name = (value: PdfValue | undefined) => (value instanceof PdfName ? value.name : null);

/** One dictionary of the page's resources (`XObject`, `ExtGState`), empty when it has none. */
function resourceDictionary(objects: Objects, page: PdfDict, key: string): Map<string, PdfValue> {
  const resources = inherited(objects, page, 'Resources');
  const value = resources instanceof Map ? objects.resolve(resources.get(key)) : undefined;
  return value instanceof Map ? value : new Map<string, PdfValue>();
}

/** The image an XObject entry refers to, or null for a form or anything else. */
function imageObject(objects: Objects, ref: PdfValue | undefined): PdfDict | null {
  const object = objects.resolve(ref);
  return object instanceof Map && name(objects.resolve(object.get('Subtype'))) === 'Image' ? object : null;
}

/** An image's width and height in pixels, as its dictionary gives them. */
const pixelSize = (objects: Objects, image: PdfDict) => [objects.resolve(either(image, 'W', 'Width')), objects.resolve(either(image, 'H', 'Height'))] as const;

/**
 * The pixel sizes of the images in the page's resources, read from the file's bytes, so that a
 * page without a picture worth reading need not have pdf.js decode its images; images inside a
 * form are not looked for. Null when the page cannot be read here, for pdf.js to tell.
 */
export function imageSizes(objects: Objects, pageRef: PdfRef): { width: number; height: number }[] | null {
  const page = objects.resolve(pageRef);
  if (!(page instanceof Map)) return null;
  return [...resourceDictionary(objects, page, 'XObject').values()].flatMap((ref) => {
    const image = imageObject(objects, ref);
    const [width, height] = image ? pixelSize(objects, image) : [];
    return typeof width === 'number' && typeof height === 'number' ? [{ width, height }] : [];
  });
}

/**
 * What the page `pageRef` draws, read from the file's own bytes without pdf.js, in the shape of
 * pdf.js's operator list for the operators a scanned page uses (save, restore, transform, an
 * image, a graphics state, marked content); every other operator is given as one pdf.js never
 * gives. Reading it costs nothing like pdf.js's operator list, which decodes every image first.
 * Null when the page or its content cannot be read here (its objects inside an object stream,
 * say).
 */
export function pageOperators(objects: Objects, pageRef: PdfRef, { OPS }: PdfJs): PageOperators | null {
  const page = objects.resolve(pageRef);
  if (!(page instanceof Map)) return null;
  const contents = objects.resolve(page.get('Contents'), null);
  const parts: Buffer[] = [];
  for (const ref of Array.isArray(contents) ? contents : [page.get('Contents')]) {
    const content = decodedContent(objects, ref);
    if (!content) return null;
    parts.push(content, Buffer.from('\n'));
  }
  const ops = operations(Buffer.concat(parts));
  if (!ops) return null;
  const xObjects = resourceDictionary(objects, page, 'XObject');
  const states = resourceDictionary(objects, page, 'ExtGState');
  const result: PageOperators = { fnArray: [], argsArray: [], images: new Map() };
  const add = (code: number, args: unknown[]) => {
    result.fnArray.push(code);
    result.argsArray.push(args);
  };
  for (const { operator, operands } of ops) {
    const numbers = operands.every((o) => typeof o === 'number');
    if (operator === 'q' && !operands.length) add(OPS.save, []);
    else if (operator === 'Q' && !operands.length) add(OPS.restore, []);
    else if (operator === 'cm' && operands.length === 6 && numbers) add(OPS.transform, operands);
    else if (operator === 'Do' && operands.length === 1 && name(operands[0]) !== null) {
      const key = name(operands[0])!;
      const ref = xObjects.get(key);
      const image = ref instanceof PdfRef ? imageObject(objects, ref) : null;
      if (!image) {
        add(OTHER, []);
        continue;
      }
      result.images.set(key, ref as PdfRef);
      add(OPS.paintImageXObject, [key, ...pixelSize(objects, image)]);
    } else if (operator === 'gs' && operands.length === 1) {
      const state = graphicsState(objects, objects.resolve(states.get(name(operands[0]) ?? '')));
      add(state ? OPS.setGState : OTHER, [state]);
    } else if (operator === 'BMC' && operands.length === 1) add(OPS.beginMarkedContent, [name(operands[0])]);
    else if (operator === 'BDC' && operands.length === 2) add(OPS.beginMarkedContentProps, [name(operands[0]), null]);
    else if (operator === 'EMC' && !operands.length) add(OPS.endMarkedContent, []);
    else add(OTHER, []);
  }
  return result;
}
