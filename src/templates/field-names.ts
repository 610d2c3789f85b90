/**
 * invoice2data field names and the docex names they become: the one place the two vocabularies
 * meet, used by the template converter and by the evaluation. Names not listed keep their name.
 */
export const INVOICE2DATA_FIELD_NAMES: Readonly<Record<string, string>> = {
  amount: 'total_amount',
  amount_total: 'total_amount',
  amount_untaxed: 'subtotal',
  amount_tax: 'tax_amount',
  date: 'invoice_date',
  date_invoice: 'invoice_date',
  date_due: 'due_date',
  invoice_number: 'invoice_number',
  issuer: 'vendor_name',
  partner_name: 'vendor_name',
  vat: 'vendor_tax_id',
  partner_vat: 'vendor_tax_id',
  currency: 'currency',
  po_number: 'purchase_order',
  purchase_order: 'purchase_order',
  iban: 'iban',
  partner_email: 'email',
  email: 'email',
  telephone: 'phone',
  phone: 'phone',
  lines: 'line_items',
};

/** The docex name of an invoice2data field, made snake_case when it is not one already. */
export function docexFieldName(name: string): string {
  const mapped = INVOICE2DATA_FIELD_NAMES[name] ?? name;
  const snake = mapped
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^[^a-z]+|_+$/g, '')
    .slice(0, 60);
  return snake || 'field';
}
