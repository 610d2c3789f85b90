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
  for (const e of walk(root)) e.text = e.text.trim();
  return root.children[0] ?? null;
}

function* walk(root: XmlElement): Generator<XmlElement> {
  const stack = [root];
  while (stack.length) {
    const e = stack.pop()!;
    yield e;
    stack.push(...e.children);
  }
}

/**
 * Parses an invoice XML that came from an untrusted PDF: bounded in size by the caller, refused
 * with a DTD (no external entities, no entity expansion: XXE and billion laughs), bounded in
 * depth, and refused when it is not well-formed.
 */
export function parseInvoiceXml(bytes: Uint8Array): XmlElement {
  const text = decode(bytes);
  if (/<!DOCTYPE|<!ENTITY/.test(text)) throw new XmlRefused('it declares a DTD (<!DOCTYPE>), which an invoice XML never needs and which could pull in external or expanding entities');
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
