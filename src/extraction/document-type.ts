import { foldPhrase } from './lexicon.js';
import type { DocumentType } from './finders/types.js';
import type { DocumentText } from './types.js';

const CREDIT_NOTE = /^(?:credit note|credit memo|gutschrift|rechnungskorrektur|avoir|facture d avoir|nota de credito|nota di credito|creditnota|nota de credito|faktura korygujaca|nota kredit)\b/;
/** Words a sales receipt prints and an invoice does not: tendered cash, change, a till. */
const RECEIPT_WORDS = /\b(?:cash|change|tendered|cashier|receipt|thank you|please come again|till|pos|tunai|baki|resit|kassenbon|bon|quittung|wechselgeld|ruckgeld|ticket|especes|rendu|cambio|efectivo|resto|contanti|scontrino|wisselgeld|kassabon|troco|paragon|reszta|simplified tax invoice|cash bill|terminal|member|rounding|gst summary|total qty|pax|table no|counter|served by|approval code|pump|litre|goods sold are not returnable)\b/g;
const INVOICE_WORDS = /\b(?:due date|payment terms|bill to|invoice to|iban|bic|swift|purchase order|rechnungsempfanger|zahlungsbedingungen|faellig|falligkeit|leistungsempfanger|kaufer|conditions de paiement|date d echeance|vencimiento|scadenza|vervaldatum|termin platnosci|customer no|kundennummer)\b/g;

/**
 * What kind of document this is: a credit note by its title, a receipt when it reads like one
 * (cash, change, a cashier, a narrow till roll) more than like an invoice (due date, bank
 * details, a billing address), else an invoice.
 */
export function documentTypeOf(doc: DocumentText, text: string): { type: DocumentType; says: string } {
  const head = doc.pages[0]?.lines.slice(0, 25).map((l) => foldPhrase(l.text)) ?? [];
  if (head.some((t) => CREDIT_NOTE.test(t))) return { type: 'credit_note', says: 'titled as a credit note' };
  const folded = foldPhrase(text);
  const receipt = new Set(folded.match(RECEIPT_WORDS) ?? []).size;
  const invoice = new Set(folded.match(INVOICE_WORDS) ?? []).size;
  if (receipt >= 2 && receipt > invoice) return { type: 'receipt', says: `${receipt} receipt words (cash, change, cashier, ...)` };
  return { type: 'invoice', says: receipt ? `${invoice} invoice words against ${receipt} receipt words` : 'no receipt words' };
}
