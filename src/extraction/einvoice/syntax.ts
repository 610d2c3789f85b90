import type { XmlElement } from './xml.js';
import { childrenOf } from './xml.js';

/** What a syntax reader gives back besides the values it collected: the document's specification identifier (BT-24). */
export interface SyntaxReading {
  specification: string | null;
}

export type Step = string | readonly string[];

/** Walks a path of local names (a step may list alternatives) within `namespaces`: the elements at its end. */
export function pathOf(namespaces: ReadonlySet<string>) {
  const all = (from: XmlElement | undefined, ...steps: Step[]): XmlElement[] => {
    let current = from ? [from] : [];
    for (const step of steps) {
      const names = typeof step === 'string' ? [step] : step;
      current = current.flatMap((e) => names.flatMap((name) => childrenOf(e, namespaces, name)));
    }
    return current;
  };
  return { all, one: (from: XmlElement | undefined, ...steps: Step[]): XmlElement | undefined => all(from, ...steps)[0] };
}

/** An address as printed: street lines, then postcode and city ("Lieferantenstraße 20, 80333 München"). */
export function addressText(lines: (XmlElement | undefined)[], postcode: XmlElement | undefined, city: XmlElement | undefined): string {
  const place = [postcode?.text, city?.text].filter(Boolean).join(' ');
  return [...lines.map((l) => l?.text), place].filter(Boolean).join(', ').replace(/\s+/g, ' ').trim();
}

/** BT-3 invoice type codes of a credit note (UNTDID 1001): 381 credit note, 261/262/296/308/396/420/458/532 its kinds. */
const CREDIT_CODES = new Set(['81', '83', '261', '262', '296', '308', '381', '396', '420', '458', '532']);

export function documentTypeOf(typeCode: string | undefined, creditNoteRoot: boolean): 'invoice' | 'credit_note' {
  return creditNoteRoot || (typeCode !== undefined && CREDIT_CODES.has(typeCode.trim())) ? 'credit_note' : 'invoice';
}
