import { XMLParser } from 'fast-xml-parser';

/** An element of a parsed invoice XML: its namespace URI resolved from the prefixes in scope. */
export interface XmlElement {
  ns: string;
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** The element's own text (not its children's), entities decoded, trimmed. */
  text: string;
}

/** Why an attachment's XML was not read, in words for the extraction's `e_invoice.message`. */
export class XmlRefused extends Error {}

/** EN 16931 invoices nest about a dozen deep (CII); far deeper is built to exhaust a parser. */
const MAX_DEPTH = 64;
/** An invoice of several thousand lines has about this many elements; more only makes the parser slow. */
const MAX_ELEMENTS = 200_000;
/** Invoice elements carry one or two attributes (currencyID, unitCode, schemeID) besides namespace declarations. */
const MAX_ATTRIBUTES = 64;

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/**
 * The five predefined entities and character references only: nothing is expanded from a DTD,
 * which is refused before parsing.
 */
function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(?:#x([0-9a-fA-F]{1,6})|#(\d{1,7})|([a-z]{2,4}));/g, (whole, hex: string | undefined, dec: string | undefined, name: string | undefined) => {
    if (name) return PREDEFINED[name] ?? whole;
    const code = hex ? parseInt(hex, 16) : Number(dec);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  cdataPropName: '#cdata',
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  maxNestedTags: MAX_DEPTH,
});

type Ordered = Record<string, unknown>;

/** The text's declared encoding, if it names one TextDecoder knows; UTF-8 otherwise. */
function decode(bytes: Uint8Array): string {
  const head = Buffer.from(bytes.subarray(0, 200)).toString('latin1');
  const declared = /^(?:\uFEFF|\xEF\xBB\xBF)?\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1];
  try {
    return new TextDecoder(declared ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** Converts fast-xml-parser's ordered output to elements, resolving prefixes; iterative, so that depth never reaches the stack. */
function toElements(nodes: Ordered[]): XmlElement | null {
  const root: XmlElement = { ns: '', name: '', attrs: {}, children: [], text: '' };
  const work: { nodes: Ordered[]; parent: XmlElement; scope: Map<string, string> }[] = [{ nodes, parent: root, scope: new Map() }];
  while (work.length) {
    const { nodes: list, parent, scope } = work.pop()!;
    for (const node of list) {
      const key = Object.keys(node).find((k) => k !== ':@');
      if (!key) continue;
      if (key === '#text') {
        parent.text += decodeEntities(String(node[key]));
        continue;
      }
      if (key === '#cdata') {
        const parts = node[key] as Ordered[];
        parent.text += parts.map((p) => String(p['#text'] ?? '')).join('');
        continue;
      }
      const rawAttrs = (node[':@'] ?? {}) as Record<string, string>;
      let inner = scope;
      const attrs: Record<string, string> = {};
      for (const [name, value] of Object.entries(rawAttrs)) {
        if (name === 'xmlns' || name.startsWith('xmlns:')) {
          if (inner === scope) inner = new Map(scope);
          inner.set(name === 'xmlns' ? '' : name.slice(6), decodeEntities(value));
        } else {
          attrs[name.includes(':') ? name.slice(name.indexOf(':') + 1) : name] = decodeEntities(value);
        }
      }
      const colon = key.indexOf(':');
      const prefix = colon < 0 ? '' : key.slice(0, colon);
      const element: XmlElement = { ns: inner.get(prefix) ?? '', name: key.slice(colon + 1), attrs, children: [], text: '' };
      parent.children.push(element);
      work.push({ nodes: node[key] as Ordered[], parent: element, scope: inner });
    }
  }
  const stack = [root];
  while (stack.length) {
    const e = stack.pop()!;
    e.text = e.text.trim();
    for (const child of e.children) stack.push(child);
  }
  return root.children[0] ?? null;
}

const GT = 0x3e;
const SLASH = 0x2f;
const EQUALS = 0x3d;
const QUOTES = new Set([0x22, 0x27]);

/** Where the markup that starts at `at` with `open` ends, just past `close`; -1 when it never does. */
function past(text: string, at: number, open: string, close: string): number {
  const end = text.indexOf(close, at + open.length);
  return end < 0 ? -1 : end + close.length;
}

/**
 * One linear pass over the markup, before the parser sees it, so that the parser's own cost is
 * bounded: elements nested at most MAX_DEPTH deep, at most MAX_ELEMENTS of them, and at most
 * MAX_ATTRIBUTES attributes on one. Well-formedness is left to the parser.
 */
function checkShape(text: string): void {
  let depth = 0;
  let elements = 0;
  let at = text.indexOf('<');
  while (at >= 0 && at < text.length) {
    let end: number;
    if (text.startsWith('<!--', at)) end = past(text, at, '<!--', '-->');
    else if (text.startsWith('<![CDATA[', at)) end = past(text, at, '<![CDATA[', ']]>');
    else if (text.startsWith('<?', at) || text.startsWith('<!', at)) end = past(text, at, '<', '>');
    else if (text.startsWith('</', at)) {
      depth -= 1;
      end = past(text, at, '</', '>');
    } else {
      let quote = 0;
      let attributes = 0;
      let i = at + 1;
      for (; i < text.length; i += 1) {
        const c = text.charCodeAt(i);
        if (quote) {
          if (c === quote) quote = 0;
        } else if (QUOTES.has(c)) quote = c;
        else if (c === EQUALS) attributes += 1;
        else if (c === GT) break;
      }
      if (attributes > MAX_ATTRIBUTES) throw new XmlRefused(`an element has more than ${MAX_ATTRIBUTES} attributes`);
      elements += 1;
      if (elements > MAX_ELEMENTS) throw new XmlRefused(`it has more than ${MAX_ELEMENTS.toLocaleString('en')} elements`);
      if (text.charCodeAt(i - 1) !== SLASH && (depth += 1) > MAX_DEPTH) throw new XmlRefused(`its elements nest more than ${MAX_DEPTH} deep`);
      end = i < text.length ? i + 1 : -1;
    }
    at = end < 0 ? -1 : text.indexOf('<', end);
  }
}

/**
 * Parses an invoice XML that came from an untrusted PDF: bounded in size by the caller, refused
 * with a DTD (no external entities, no entity expansion: XXE and billion laughs), bounded in
 * depth, elements and attributes, and refused when it is not well-formed.
 */
export function parseInvoiceXml(bytes: Uint8Array): XmlElement {
  const text = decode(bytes);
  if (/<!DOCTYPE|<!ENTITY/.test(text)) throw new XmlRefused('it declares a DTD (<!DOCTYPE>), which an invoice XML never needs and which could pull in external or expanding entities');
  checkShape(text);
  let parsed: Ordered[];
  try {
    parsed = parser.parse(text, true) as Ordered[];
  } catch (err) {
    const message = (err as Error).message ?? String(err);
    if (/nested tags/i.test(message)) throw new XmlRefused(`its elements nest more than ${MAX_DEPTH} deep`);
    throw new XmlRefused(`it is not well-formed XML (${message.slice(0, 160)})`);
  }
  const root = toElements(parsed);
  if (!root) throw new XmlRefused('it has no root element');
  return root;
}

/** The children of `e` named `name` in one of `namespaces`. */
export function childrenOf(e: XmlElement | undefined, namespaces: ReadonlySet<string>, name: string): XmlElement[] {
  return e ? e.children.filter((c) => c.name === name && namespaces.has(c.ns)) : [];
}
