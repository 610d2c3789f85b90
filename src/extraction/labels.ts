import { withoutCurrencyCodes } from './normalise.js';
/** The canonical invoice and receipt fields and the label phrases (in several languages) that introduce them. */

export const CANONICAL_FIELDS = [
  'invoice_number',
  'invoice_date',
  'due_date',
  'vendor_name',
  'vendor_address',
  'customer_name',
  'subtotal',
  'tax_amount',
  'total_amount',
  'currency',
  'purchase_order',
  'vendor_tax_id',
  'iban',
  'email',
  'phone',
] as const;

export type CanonicalField = (typeof CANONICAL_FIELDS)[number];

/** How a field's value is read and normalised. */
export type ValueKind = 'id' | 'date' | 'name' | 'amount' | 'currency' | 'tax_id' | 'iban' | 'email' | 'phone';

/**
 * Label patterns over the normalised label (see `normaliseLabel`): lower case, currency codes,
 * percentages, dots and hyphens removed, and every "number"/"Nr."/"#"/"N°" spelled "no".
 */
const LABELS: { field: CanonicalField; kind: ValueKind; pattern: RegExp }[] = [
  {
    field: 'invoice_number',
    kind: 'id',
    pattern:
      /^(?:(?:invoice|inv|bill|receipt|rechnung|rechnungs|facture|factura|fattura|beleg|document|doc|factuur|faktura|quittung) ?no|invoice id|invoice ref(?:erence)?|rechnungsnummer|rechnungsnr|belegnummer|belegnr|no de (?:la )?facture|no de factura|no (?:della )?fattura|factuurnummer|fakturanummer)$/u,
  },
  {
    field: 'invoice_date',
    kind: 'date',
    pattern:
      /^(?:(?:invoice|receipt|issue|billing|document|bill|tax) date|date|date of issue|date issued|issued|issued on|rechnungsdatum|belegdatum|datum|ausstellungsdatum|leistungsdatum|date de (?:la )?facture|date démission|date de facturation|fecha|fecha de (?:la )?factura|fecha de emisión|data|data (?:della )?fattura|factuurdatum)$/u,
  },
  {
    field: 'due_date',
    kind: 'date',
    pattern:
      /^(?:due|due date|payment due|payment due date|due by|due on|payable by|pay by|fällig|fällig am|fälligkeit|fälligkeitsdatum|zahlbar bis|zahlungsziel|échéance|date déchéance|date limite de paiement|fecha de vencimiento|vencimiento|scadenza|data di scadenza|vervaldatum)$/u,
  },
  {
    field: 'vendor_name',
    kind: 'name',
    pattern:
      /^(?:from|seller|vendor|supplier|sold by|bill from|billed from|issued by|issuer|merchant|(?:service )?provider|verkäufer|lieferant|rechnungssteller|anbieter|fournisseur|vendeur|émetteur|prestataire|proveedor|emisor|vendedor|fornitore|venditore|leverancier|verkoper|sprzedawca|dostawca)(?: name)?$/u,
  },
  {
    field: 'customer_name',
    kind: 'name',
    pattern:
      /^(?:bill to|billed to|invoice to|invoiced to|sold to|customer|client|buyer|recipient|billing address|invoice address|bill to address|kunde|käufer|rechnungsempfänger|empfänger|rechnungsadresse|facturé à|facturer à|destinataire|acheteur|adresse de facturation|cliente|facturar a|comprador|klant|koper|factuuradres|nabywca)(?: name)?$/u,
  },
  {
    field: 'subtotal',
    kind: 'amount',
    pattern:
      /^(?:sub ?total|net|net amount|net total|total net|total excl(?: vat| tax)?|total excluding (?:vat|tax)|amount before tax|total before tax|zwischensumme|nettobetrag|netto|nettosumme|summe netto|gesamt netto|total ht|sous ?total|montant ht|base imponible|imponibile|subtotaal)$/u,
  },
  {
    field: 'tax_amount',
    kind: 'amount',
    pattern:
      /^(?:vat|tax|gst|hst|pst|sales tax|mwst|ust|umsatzsteuer|mehrwertsteuer|tva|iva|btw|vat amount|tax amount|total (?:vat|tax|tva|mwst)|montant tva|plus (?:vat|mwst|ust)|zzgl (?:mwst|ust)|enthaltene mwst|incl vat|inkl mwst)$/u,
  },
  {
    field: 'total_amount',
    kind: 'amount',
    pattern:
      /^(?:total|grand total|total amount|amount due|balance due|total due|amount payable|total payable|total to pay|invoice total|total incl(?: vat| tax)?|total including (?:vat|tax)|gesamtbetrag|gesamt|gesamtsumme|rechnungsbetrag|endbetrag|zu zahlen|zahlbetrag|summe|bruttobetrag|brutto|total ttc|montant ttc|net à payer|montant total|total à payer|somme à payer|montant à payer|reste à payer|total for this invoice|należność|należność ogółem|do zapłaty|razem do zapłaty|kwota do zapłaty|total a pagar|importe total|totale|totale fattura|totaal|te betalen)$/u,
  },
  { field: 'currency', kind: 'currency', pattern: /^(?:currency|währung|devise|moneda|valuta)$/u },
  {
    field: 'purchase_order',
    kind: 'id',
    pattern:
      /^(?:(?:po|purchase order|order|customer order|your order|po ref|order ref(?:erence)?)(?: no)?|bestellnummer|bestellnr|bestellung|ihre bestellung|bon de commande|commande|no de commande|orden de compra|ordine)$/u,
  },
  {
    field: 'vendor_tax_id',
    kind: 'tax_id',
    pattern:
      /^(?:(?:vat|tax|gst|tva|btw|iva)(?: reg| registration| identification)?(?: id| no)+|vat|tax|vat reg|tin|ein|abn|ust ?id(?: no)?|ustidnr|umsatzsteuer ?id(?:entifikationsnummer)?|steuernummer|steuernr|stnr|siret|siren|nif|cif|partita iva|piva|no tva(?: intracommunautaire)?|tva intracommunautaire|no de tva)$/u,
  },
  { field: 'iban', kind: 'iban', pattern: /^iban(?: no| code)?$/u },
  { field: 'email', kind: 'email', pattern: /^(?:email|mail|email address|e mail)$/u },
  { field: 'phone', kind: 'phone', pattern: /^(?:phone|tel|telephone|telefon|téléphone|tél|mobile|mob|fon|telefonnummer)(?: no)?$/u },
];

/**
 * Words that name the document itself ("Invoice", "Rechnung", "Kopie factuur"): a heading, so
 * never a name; a number printed beside one is the document's own.
 */
const DOCUMENT_TITLE =
  /^(?:(?:tax|commercial|proforma|pro forma|payment|sales|cash|copy|kopie|copie|duplicate|original)\s)?(?:invoice|receipt|rechnung|facture|factura|fattura|factuur|faktura|bill|quote|quotation|estimate|statement|credit note|gutschrift|devis|angebot|lieferschein|delivery note|quittung|kassenbon)s?\b/iu;

/** Whether `text` starts with a document title, such as "Invoice" or "PAYMENT RECEIPT". */
export function startsWithTitle(text: string): boolean {
  return DOCUMENT_TITLE.test(text.trim());
}

/** Whether `phrase` is a document title and nothing else ("FACTUUR.", "Tax Invoice"). */
export function isDocumentTitle(phrase: string): boolean {
  const bare = phrase.trim().replace(/[.:：]+$/, '');
  const match = bare.match(DOCUMENT_TITLE);
  return !!match && match[0].length === bare.length;
}

/** `text` without a document title at its end: "Amazon Web Services Invoice" is a name, then the title. */
export function withoutTrailingTitle(text: string): string {
  const words = text.trim().split(/\s+/);
  for (let k = 1; k < words.length; k += 1) if (isDocumentTitle(words.slice(k).join(' '))) return words.slice(0, k).join(' ');
  return words.join(' ');
}

/** Reduces a printed label to the form the patterns above are written against. */
export function normaliseLabel(label: string): string {
  return withoutCurrencyCodes(label)
    .toLowerCase()
    .replace(/\(?\s*\d+(?:[.,]\d+)?\s*%\s*\)?/g, ' ')
    .replace(/#/g, ' no ')
    .replace(/\bn\s?[°º]/g, 'no ')
    .replace(/[.\-_'’]/g, '')
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/(?<!\p{L})(?:nr|number|num|nummer|numéro|numero|número|núm)(?!\p{L})/gu, 'no')
    .replace(/\s+/g, ' ')
    .trim();
}

type LabelFields = readonly { field: CanonicalField; kind: ValueKind }[];

/** Answers by printed label: a document repeats its labels on every page, and layout asks about each phrase. */
const known = new Map<string, LabelFields>();
const KNOWN_MAX = 10_000;

/** Canonical fields a label may introduce, in the order their value should be tried. */
export function fieldsForLabel(label: string): LabelFields {
  let fields = known.get(label);
  if (fields) return fields;
  const normalised = normaliseLabel(label);
  fields = normalised ? LABELS.filter((l) => l.pattern.test(normalised)).map(({ field, kind }) => ({ field, kind })) : [];
  if (known.size >= KNOWN_MAX) known.clear();
  known.set(label, fields);
  return fields;
}

export function isKnownLabel(label: string): boolean {
  return fieldsForLabel(label).length > 0;
}
