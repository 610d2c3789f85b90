import { parseDate } from '../normalise.js';
import { addressText, documentTypeOf, pathOf, type SyntaxReading } from './syntax.js';
import type { Collector } from './values.js';
import type { XmlElement } from './xml.js';

/** The root namespaces of UN/CEFACT CII: D16B (Factur-X, ZUGFeRD 2.x, XRechnung CII) and ZUGFeRD 1.0's. */
export const CII_ROOTS: Readonly<Record<string, string>> = {
  'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100': 'CrossIndustryInvoice',
  'urn:ferd:CrossIndustryDocument:invoice:1p0': 'CrossIndustryDocument',
};

const NAMESPACES = new Set([
  ...Object.keys(CII_ROOTS),
  'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
  'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
  'urn:un:unece:uncefact:data:standard:QualifiedDataType:100',
  'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:12',
  'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:15',
]);

const { all, one } = pathOf(NAMESPACES);

// ZUGFeRD 1.0 names several aggregates differently from D16B; each step lists both.
const CONTEXT = ['ExchangedDocumentContext', 'SpecifiedExchangedDocumentContext'];
const DOCUMENT = ['ExchangedDocument', 'HeaderExchangedDocument'];
const TRANSACTION = ['SupplyChainTradeTransaction', 'SpecifiedSupplyChainTradeTransaction'];
const AGREEMENT = ['ApplicableHeaderTradeAgreement', 'ApplicableSupplyChainTradeAgreement'];
const DELIVERY = ['ApplicableHeaderTradeDelivery', 'ApplicableSupplyChainTradeDelivery'];
const SETTLEMENT = ['ApplicableHeaderTradeSettlement', 'ApplicableSupplyChainTradeSettlement'];
const SUMMATION = ['SpecifiedTradeSettlementHeaderMonetarySummation', 'SpecifiedTradeSettlementMonetarySummation'];
const LINE_AGREEMENT = ['SpecifiedLineTradeAgreement', 'SpecifiedSupplyChainTradeAgreement'];
const LINE_DELIVERY = ['SpecifiedLineTradeDelivery', 'SpecifiedSupplyChainTradeDelivery'];
const LINE_SETTLEMENT = ['SpecifiedLineTradeSettlement', 'SpecifiedSupplyChainTradeSettlement'];
const LINE_SUMMATION = ['SpecifiedTradeSettlementLineMonetarySummation', 'SpecifiedTradeSettlementMonetarySummation'];
const PERCENT = ['RateApplicablePercent', 'ApplicablePercent'];
const DATE = ['DateTimeString'];

/** The seller's or buyer's name, address, VAT id and (seller only) contact. */
function party(c: Collector, p: XmlElement | undefined, who: 'vendor' | 'customer', bt: { name: string; address: string; vat: string }): void {
  if (!p) return;
  c.add(`${who}_name`, `${bt.name} Name`, one(p, 'Name'));
  const address = one(p, 'PostalTradeAddress');
  if (address) {
    const lines = ['LineOne', 'LineTwo', 'LineThree'].map((n) => one(address, n));
    c.addValue(`${who}_address`, `${bt.address} PostalTradeAddress`, addressText(lines, one(address, 'PostcodeCode'), one(address, 'CityName')));
    c.add(`${who}_country`, `${bt.address} CountryID`, one(address, 'CountryID'));
  }
  const registrations = all(p, 'SpecifiedTaxRegistration', 'ID');
  c.add(`${who}_tax_id`, `${bt.vat} SpecifiedTaxRegistration ID`, registrations.find((r) => r.attrs.schemeID === 'VA'));
  if (who === 'vendor') {
    c.add('vendor_tax_number', 'BT-32 SpecifiedTaxRegistration ID', registrations.find((r) => r.attrs.schemeID === 'FC'));
    c.add('phone', 'BT-42 TelephoneUniversalCommunication', one(p, 'DefinedTradeContact', 'TelephoneUniversalCommunication', 'CompleteNumber'));
    c.add('email', 'BT-43 EmailURIUniversalCommunication', one(p, 'DefinedTradeContact', 'EmailURIUniversalCommunication', 'URIID'));
  }
}

/** The amount of `list` in the invoice currency: a TaxTotalAmount may be given twice, once in the accounting currency (BT-111). */
function inCurrency(list: XmlElement[], currency: string | undefined): XmlElement | undefined {
  return list.find((e) => !e.attrs.currencyID || e.attrs.currencyID === currency) ?? list[0];
}

/** Reads a CII invoice (Factur-X, ZUGFeRD 1.0 and 2.x, XRechnung CII) into `c`. */
export function readCii(root: XmlElement, c: Collector): SyntaxReading {
  const specification = one(root, CONTEXT, 'GuidelineSpecifiedDocumentContextParameter', 'ID')?.text || null;
  const doc = one(root, DOCUMENT);
  const transaction = one(root, TRANSACTION);
  const agreement = one(transaction, AGREEMENT);
  const settlement = one(transaction, SETTLEMENT);

  c.add('invoice_number', 'BT-1 ID', one(doc, 'ID'));
  c.add('invoice_date', 'BT-2 IssueDateTime', one(doc, 'IssueDateTime', DATE), 'date');
  c.add('due_date', 'BT-9 DueDateDateTime', one(settlement, 'SpecifiedTradePaymentTerms', 'DueDateDateTime', DATE), 'date');
  const terms = one(settlement, 'SpecifiedTradePaymentTerms', 'Description');
  const termsDate = terms && parseDate(terms.text);
  if (termsDate) c.addValue('due_date', 'BT-20 SpecifiedTradePaymentTerms Description (date to pay by)', termsDate.value);
  party(c, one(agreement, 'SellerTradeParty'), 'vendor', { name: 'BT-27', address: 'BG-5', vat: 'BT-31' });
  party(c, one(agreement, 'BuyerTradeParty'), 'customer', { name: 'BT-44', address: 'BG-8', vat: 'BT-48' });
  const currencyElement = one(settlement, 'InvoiceCurrencyCode');
  const currency = currencyElement?.text;
  const sums = one(settlement, SUMMATION);
  c.add('subtotal', 'BT-109 TaxBasisTotalAmount', one(sums, 'TaxBasisTotalAmount'), 'amount');
  c.add('tax_amount', 'BT-110 TaxTotalAmount', inCurrency(all(sums, 'TaxTotalAmount'), currency), 'amount');
  c.add('total_amount', 'BT-112 GrandTotalAmount', one(sums, 'GrandTotalAmount'), 'amount');
  c.add('currency', 'BT-5 InvoiceCurrencyCode', currencyElement, 'currency');
  c.add('purchase_order', 'BT-13 BuyerOrderReferencedDocument', one(agreement, 'BuyerOrderReferencedDocument', ['IssuerAssignedID', 'ID']));
  c.add('iban', 'BT-84 IBANID', one(settlement, 'SpecifiedTradeSettlementPaymentMeans', 'PayeePartyCreditorFinancialAccount', 'IBANID'), 'iban');
  c.addValue('document_type', 'BT-3 TypeCode', documentTypeOf(one(doc, 'TypeCode')?.text, false));

  c.add('amount_due', 'BT-115 DuePayableAmount', one(sums, 'DuePayableAmount'), 'amount');
  c.add('prepaid', 'BT-113 TotalPrepaidAmount', one(sums, 'TotalPrepaidAmount'), 'amount');
  c.add('line_total', 'BT-106 LineTotalAmount', one(sums, 'LineTotalAmount'), 'amount');
  c.add('payment_reference', 'BT-83 PaymentReference', one(settlement, 'PaymentReference'));
  c.add('payment_terms', 'BT-20 SpecifiedTradePaymentTerms Description', terms);
  c.add('buyer_reference', 'BT-10 BuyerReference', one(agreement, 'BuyerReference'));
  c.add('contract_reference', 'BT-12 ContractReferencedDocument', one(agreement, 'ContractReferencedDocument', 'IssuerAssignedID'));
  c.add('delivery_date', 'BT-72 ActualDeliverySupplyChainEvent', one(transaction, DELIVERY, 'ActualDeliverySupplyChainEvent', 'OccurrenceDateTime', DATE), 'date');

  all(settlement, 'ApplicableTradeTax').forEach((tax, n) => {
    c.add(`tax_lines.${n}.category`, 'BT-118 CategoryCode', one(tax, 'CategoryCode'));
    c.add(`tax_lines.${n}.tax_rate`, 'BT-119 RateApplicablePercent', one(tax, PERCENT), 'decimal');
    c.add(`tax_lines.${n}.taxable_amount`, 'BT-116 BasisAmount', one(tax, 'BasisAmount'), 'amount');
    c.add(`tax_lines.${n}.tax_amount`, 'BT-117 CalculatedAmount', one(tax, 'CalculatedAmount'), 'amount');
    c.add(`tax_lines.${n}.exemption_reason`, 'BT-120 ExemptionReason', one(tax, 'ExemptionReason'));
  });

  // ZUGFeRD 1.0 EXTENDED allows a line that is only a note: no product, no amount, no item.
  const lines = all(transaction, 'IncludedSupplyChainTradeLineItem').filter((line) => one(line, 'SpecifiedTradeProduct') || one(line, LINE_SETTLEMENT, LINE_SUMMATION));
  lines.forEach((line, n) => {
    const product = one(line, 'SpecifiedTradeProduct');
    const quantity = one(line, LINE_DELIVERY, 'BilledQuantity');
    c.add(`line_items.${n}.description`, 'BT-153 SpecifiedTradeProduct Name', one(product, 'Name'));
    c.add(`line_items.${n}.quantity`, 'BT-129 BilledQuantity', quantity, 'decimal');
    c.add(`line_items.${n}.unit_price`, 'BT-146 NetPriceProductTradePrice ChargeAmount', one(line, LINE_AGREEMENT, 'NetPriceProductTradePrice', 'ChargeAmount'), 'amount');
    c.add(`line_items.${n}.amount`, 'BT-131 LineTotalAmount', one(line, LINE_SETTLEMENT, LINE_SUMMATION, 'LineTotalAmount'), 'amount');
    c.add(`line_items.${n}.tax_rate`, 'BT-152 RateApplicablePercent', one(line, LINE_SETTLEMENT, 'ApplicableTradeTax', PERCENT), 'decimal');
    c.add(`line_items.${n}.code`, 'BT-155 SellerAssignedID', one(product, 'SellerAssignedID'));
    c.add(`line_items.${n}.code`, 'BT-157 GlobalID', one(product, 'GlobalID'));
    if (quantity?.attrs.unitCode) c.addValue(`line_items.${n}.unit`, 'BT-130 BilledQuantity unitCode', quantity.attrs.unitCode);
  });
  return { specification };
}
