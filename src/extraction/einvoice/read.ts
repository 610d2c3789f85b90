import type { components } from '../../../generated/openapi.js';
import { bufferOver } from '../buffer-over.js';
import { CII_ROOTS, readCii } from './cii.js';
import { profileOf } from './profile.js';
import type { SyntaxReading } from './syntax.js';
import { UBL_ROOTS, readUbl } from './ubl.js';
import { Collector, type Rejected, type XmlValue } from './values.js';
import { parseInvoiceXml, XmlRefused, type XmlElement } from './xml.js';

export type EInvoice = NonNullable<components['schemas']['EInvoice']>;

/** A file attached to a PDF. */
export interface Attachment {
  name: string;
  bytes: Uint8Array;
}

/** What was read from a PDF's invoice attachment: the API's `e_invoice`, and the values when it was read. */
export interface EInvoiceReading {
  info: EInvoice;
  /** How explanations name the XML: `Factur-X XML`, `ZUGFeRD XML`, `XRechnung XML`, `UBL XML`, `CII XML`. */
  source: string;
  values: XmlValue[];
  rejected: Rejected[];
}

/** The names Factur-X, ZUGFeRD 1.0 and 2.x and XRechnung give the invoice they embed. */
const INVOICE_NAMES = new Set(['factur-x.xml', 'zugferd-invoice.xml', 'xrechnung.xml']);
const INVOICE_ROOTS = new Set([...Object.values(CII_ROOTS), ...Object.values(UBL_ROOTS)]);
/** How much of an attachment is looked at to tell whether it is an invoice XML by its root element. */
const SNIFF_BYTES = 4096;

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/** The local name of the first element of an XML text's start, after its declaration and comments. */
function rootName(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.subarray(0, SNIFF_BYTES)).toString('utf8').replace(/^\uFEFF/, '');
  const m = /^\s*(?:<\?[^]*?\?>\s*|<!--[^]*?-->\s*)*<(?:[\w.-]+:)?([\w.-]+)[\s>/]/.exec(head);
  return m ? m[1]! : null;
}

/** The invoice attachments among a PDF's: by their standard name, or by an XML invoice root element. */
function invoiceAttachments(attachments: Attachment[]): Attachment[] {
  return attachments.filter((a) => INVOICE_NAMES.has(a.name.toLowerCase()) || INVOICE_ROOTS.has(rootName(a.bytes) ?? ''));
}

function sourceOf(syntax: 'CII' | 'UBL', root: XmlElement, attachment: string, profile: string | null): string {
  if (profile === 'XRECHNUNG') return 'XRechnung XML';
  if (syntax === 'UBL') return 'UBL XML';
  if (root.name === 'CrossIndustryDocument' || attachment.toLowerCase() === 'zugferd-invoice.xml') return 'ZUGFeRD XML';
  return attachment.toLowerCase() === 'factur-x.xml' ? 'Factur-X XML' : 'CII XML';
}

function ignored(attachment: string, message: string, syntax: EInvoice['syntax'] = null): EInvoiceReading {
  return { info: { attachment, syntax, profile: null, specification: null, status: 'ignored', message }, source: '', values: [], rejected: [] };
}

function rejectedSummary(rejected: Rejected[]): string | null {
  if (!rejected.length) return null;
  const list = rejected.slice(0, 5).map((r) => `${r.term} '${r.raw}' ${r.why}`).join('; ');
  return `${rejected.length} value${rejected.length === 1 ? '' : 's'} of the attachment could not be read and ${rejected.length === 1 ? 'was' : 'were'} left out (the page answers for ${rejected.length === 1 ? 'it' : 'them'}): ${list}${rejected.length > 5 ? '; ...' : ''}`;
}

/**
 * Finds and reads the structured invoice among a PDF's attachments (Factur-X, ZUGFeRD 1.0 and 2.x,
 * XRechnung CII or UBL); null when the PDF carries none. Everything about the attachment is
 * untrusted: one larger than `maxBytes`, several that differ, XML with a DTD, too deep or not
 * well-formed, or a root in an unknown namespace is ignored, and the reading says why.
 */
export function readEInvoice(attachments: Attachment[], maxBytes: number): EInvoiceReading | null {
  const found = invoiceAttachments(attachments);
  if (!found.length) return null;
  const distinct = found.filter((a, i) => found.findIndex((b) => bufferOver(b.bytes).equals(bufferOver(a.bytes))) === i);
  const [chosen] = distinct;
  const name = chosen!.name;
  if (distinct.length > 1) {
    return ignored(name, `The PDF carries ${distinct.length} different invoice attachments (${distinct.map((a) => a.name).join(', ')}); which one is the invoice cannot be told, so none was read.`);
  }
  if (chosen!.bytes.length > maxBytes) {
    return ignored(name, `The attachment ${name} is ${mb(chosen!.bytes.length)}, more than the ${mb(maxBytes)} an invoice XML may have, so it was not read.`);
  }
  let root: XmlElement;
  try {
    root = parseInvoiceXml(chosen!.bytes);
  } catch (err) {
    // Whatever else the parser trips over in an untrusted file, the page still answers.
    const why = err instanceof XmlRefused ? err.message : `it could not be parsed (${(err as Error)?.message ?? String(err)})`;
    return ignored(name, `The attachment ${name} was not read: ${why}.`);
  }
  const syntax = CII_ROOTS[root.ns] === root.name ? 'CII' : UBL_ROOTS[root.ns] === root.name ? 'UBL' : null;
  if (!syntax) {
    const what = INVOICE_ROOTS.has(root.name) ? `its root element ${root.name} is in the namespace '${root.ns.slice(0, 120)}', not that of CII or UBL` : `its root element ${root.name} is not a CII CrossIndustryInvoice or a UBL Invoice or CreditNote`;
    return ignored(name, `The attachment ${name} was not read: ${what}.`);
  }
  const collector = new Collector();
  const reading: SyntaxReading = syntax === 'CII' ? readCii(root, collector) : readUbl(root, collector);
  const profile = reading.specification ? profileOf(reading.specification) : null;
  if (!collector.values.some((v) => v.field !== 'document_type')) {
    return ignored(name, `The attachment ${name} was not read: it holds no invoice values.`, syntax);
  }
  return {
    info: { attachment: name, syntax, profile, specification: reading.specification?.slice(0, 200) ?? null, status: 'read', message: rejectedSummary(collector.rejected) },
    source: sourceOf(syntax, root, name, profile),
    values: collector.values,
    rejected: collector.rejected,
  };
}
