import { addressText, documentTypeOf, pathOf, type SyntaxReading } from './syntax.js';
import type { Collector } from './values.js';
import type { XmlElement } from './xml.js';

/** The root namespaces of UBL 2.1 invoices and credit notes (XRechnung UBL, Peppol BIS). */
export const UBL_ROOTS: Readonly<Record<string, string>> = {
  'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2': 'Invoice',
  'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2': 'CreditNote',
};

const NAMESPACES = new Set([
  ...Object.keys(UBL_ROOTS),
  'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
]);

const { all, one } = pathOf(NAMESPACES);

function party(c: Collector, p: XmlElement | undefined, who: 'vendor' | 'customer', bt: { name: string; address: string; vat: string }): void {
  if (!p) return;
  c.add(`${who}_name`, `${bt.name} RegistrationName`, one(p, 'PartyLegalEntity', 'RegistrationName'));
  c.add(`${who}_name`, `${bt.name} PartyName`, one(p, 'PartyName', 'Name'));
  const address = one(p, 'PostalAddress');
  if (address) {
    const lines = [one(address, 'StreetName'), one(address, 'AdditionalStreetName'), one(address, 'AddressLine', 'Line')];
    c.addValue(`${who}_address`, `${bt.address} PostalAddress`, addressText(lines, one(address, 'PostalZone'), one(address, 'CityName')));
    c.add(`${who}_country`, `${bt.address} Country IdentificationCode`, one(address, 'Country', 'IdentificationCode'));
  }
  const schemes = all(p, 'PartyTaxScheme');
  const vat = schemes.find((s) => one(s, 'TaxScheme', 'ID')?.text === 'VAT');
  c.add(`${who}_tax_id`, `${bt.vat} PartyTaxScheme CompanyID`, one(vat, 'CompanyID'));
  if (who === 'vendor') {
    c.add('vendor_tax_number', 'BT-32 PartyTaxScheme CompanyID', one(schemes.find((s) => s !== vat), 'CompanyID'));
    c.add('phone', 'BT-42 Contact Telephone', one(p, 'Contact', 'Telephone'));
    c.add('email', 'BT-43 Contact ElectronicMail', one(p, 'Contact', 'ElectronicMail'));
  }
}

/** Reads a UBL invoice or credit note (XRechnung UBL, Peppol BIS) into `c`. */
export function readUbl(root: XmlElement, c: Collector): SyntaxReading {
  const credit = root.name === 'CreditNote';
  const specification = one(root, 'CustomizationID')?.text || null;
  const means = one(root, 'PaymentMeans');
  const totals = one(root, 'LegalMonetaryTotal');
  const currencyElement = one(root, 'DocumentCurrencyCode');
  const currency = currencyElement?.text;
  const taxTotals = all(root, 'TaxTotal');
  // A second TaxTotal without subtotals is the VAT in the accounting currency (BT-111).
  const taxTotal = taxTotals.find((t) => one(t, 'TaxAmount')?.attrs.currencyID === currency) ?? taxTotals[0];

  c.add('invoice_number', 'BT-1 ID', one(root, 'ID'));
  c.add('invoice_date', 'BT-2 IssueDate', one(root, 'IssueDate'), 'date');
  c.add('due_date', 'BT-9 DueDate', one(root, 'DueDate'), 'date');
  c.add('due_date', 'BT-9 PaymentMeans PaymentDueDate', one(means, 'PaymentDueDate'), 'date');
  party(c, one(root, 'AccountingSupplierParty', 'Party'), 'vendor', { name: 'BT-27', address: 'BG-5', vat: 'BT-31' });
  party(c, one(root, 'AccountingCustomerParty', 'Party'), 'customer', { name: 'BT-44', address: 'BG-8', vat: 'BT-48' });
  c.add('subtotal', 'BT-109 TaxExclusiveAmount', one(totals, 'TaxExclusiveAmount'), 'amount');
  c.add('tax_amount', 'BT-110 TaxTotal TaxAmount', one(taxTotal, 'TaxAmount'), 'amount');
  c.add('total_amount', 'BT-112 TaxInclusiveAmount', one(totals, 'TaxInclusiveAmount'), 'amount');
  c.add('currency', 'BT-5 DocumentCurrencyCode', currencyElement, 'currency');
  c.add('purchase_order', 'BT-13 OrderReference ID', one(root, 'OrderReference', 'ID'));
  c.add('iban', 'BT-84 PayeeFinancialAccount ID', one(means, 'PayeeFinancialAccount', 'ID'), 'iban');
  c.addValue('document_type', `BT-3 ${credit ? 'CreditNoteTypeCode' : 'InvoiceTypeCode'}`, documentTypeOf(one(root, credit ? 'CreditNoteTypeCode' : 'InvoiceTypeCode')?.text, credit));

  c.add('amount_due', 'BT-115 PayableAmount', one(totals, 'PayableAmount'), 'amount');
  c.add('prepaid', 'BT-113 PrepaidAmount', one(totals, 'PrepaidAmount'), 'amount');
  c.add('line_total', 'BT-106 LineExtensionAmount', one(totals, 'LineExtensionAmount'), 'amount');
  c.add('payment_reference', 'BT-83 PaymentID', one(means, 'PaymentID'));
  c.add('payment_terms', 'BT-20 PaymentTerms Note', one(root, 'PaymentTerms', 'Note'));
  c.add('buyer_reference', 'BT-10 BuyerReference', one(root, 'BuyerReference'));
  c.add('contract_reference', 'BT-12 ContractDocumentReference', one(root, 'ContractDocumentReference', 'ID'));
  c.add('delivery_date', 'BT-72 ActualDeliveryDate', one(root, 'Delivery', 'ActualDeliveryDate'), 'date');

  all(taxTotal, 'TaxSubtotal').forEach((sub, n) => {
    c.add(`tax_lines.${n}.category`, 'BT-118 TaxCategory ID', one(sub, 'TaxCategory', 'ID'));
    c.add(`tax_lines.${n}.tax_rate`, 'BT-119 TaxCategory Percent', one(sub, 'TaxCategory', 'Percent'), 'decimal');
    c.add(`tax_lines.${n}.taxable_amount`, 'BT-116 TaxableAmount', one(sub, 'TaxableAmount'), 'amount');
    c.add(`tax_lines.${n}.tax_amount`, 'BT-117 TaxAmount', one(sub, 'TaxAmount'), 'amount');
    c.add(`tax_lines.${n}.exemption_reason`, 'BT-120 TaxExemptionReason', one(sub, 'TaxCategory', 'TaxExemptionReason'));
  });

  const lines = all(root, credit ? 'CreditNoteLine' : 'InvoiceLine');
  lines.forEach((line, n) => {
    const item = one(line, 'Item');
    const quantity = one(line, credit ? 'CreditedQuantity' : 'InvoicedQuantity');
    c.add(`line_items.${n}.description`, 'BT-153 Item Name', one(item, 'Name'));
    c.add(`line_items.${n}.quantity`, `BT-129 ${quantity?.name ?? 'InvoicedQuantity'}`, quantity, 'decimal');
    c.add(`line_items.${n}.unit_price`, 'BT-146 Price PriceAmount', one(line, 'Price', 'PriceAmount'), 'amount');
    c.add(`line_items.${n}.amount`, 'BT-131 LineExtensionAmount', one(line, 'LineExtensionAmount'), 'amount');
    c.add(`line_items.${n}.tax_rate`, 'BT-152 ClassifiedTaxCategory Percent', one(item, 'ClassifiedTaxCategory', 'Percent'), 'decimal');
    c.add(`line_items.${n}.code`, 'BT-155 SellersItemIdentification ID', one(item, 'SellersItemIdentification', 'ID'));
    c.add(`line_items.${n}.code`, 'BT-157 StandardItemIdentification ID', one(item, 'StandardItemIdentification', 'ID'));
    if (quantity?.attrs.unitCode) c.addValue(`line_items.${n}.unit`, `BT-130 ${quantity.name} unitCode`, quantity.attrs.unitCode);
  });
  return { specification };
}
