import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { profileOf } from '../../src/extraction/einvoice/profile.js';
import { readEInvoice } from '../../src/extraction/einvoice/read.js';
import { amountValue, dateValue, decimalValue } from '../../src/extraction/einvoice/values.js';
import { parseInvoiceXml } from '../../src/extraction/einvoice/xml.js';
import { createPipeline, type Pipeline, type PipelineResult } from '../../src/extraction/pipeline.js';
import { DE_INVOICE, layoutPdf, sheet, type PdfAttachment } from '../fixtures/documents.js';
import { ciiXml, DE_E_INVOICE, ublXml, type EInvoiceData } from '../fixtures/einvoice.js';
import { rawPdf } from '../hostile/pdf-builder.js';

/** Attachments over 1 MB are refused here, so that the huge case stays cheap to build. */
const config = { ...loadConfig({}), ocrWorkers: 1, documentWorkers: 2, eInvoiceMaxMb: 1 };
let pipeline: Pipeline;

beforeAll(() => {
  pipeline = createPipeline(config);
});

afterAll(() => pipeline.close());

const attach = (name: string, xml: string): PdfAttachment => ({ name, content: Buffer.from(xml, 'utf8') });

async function extract(attachments: PdfAttachment[], layout = DE_INVOICE): Promise<PipelineResult & { get(field: string): PipelineResult['fields'][number] | undefined }> {
  const result = await pipeline.extract({ bytes: await layoutPdf(layout, attachments), contentType: 'application/pdf' });
  return { ...result, get: (field) => result.fields.find((f) => f.field === field) };
}

const values = (result: PipelineResult) => Object.fromEntries(result.fields.map((f) => [f.field, f.value]));

/** The page path answered: `DE_INVOICE`'s total read from its label, not from an attachment. */
async function expectPageAnswers(result: Awaited<ReturnType<typeof extract>>): Promise<void> {
  expect(result.get('total_amount')).toMatchObject({ value: '529.87', explanation: expect.stringMatching(/^label 'Bruttosumme'/) });
  expect(result.fields.some((f) => / XML, BT-/.test(f.explanation))).toBe(false);
}

describe('values of the XML', () => {
  it('reads amounts, quantities and dates exactly, and refuses what is not one', () => {
    expect(['529.87', '9.9000', '0.1234', '-100', '+5.5', '.5'].map(amountValue)).toEqual(['529.87', '9.90', '0.1234', '-100.00', '5.50', '0.50']);
    expect(['20.0000', '1.5', '19.00', '-0.000'].map(decimalValue)).toEqual(['20', '1.5', '19', '0']);
    expect(['12,50', '1e3', '', 'NaN', '1.2.3'].map(amountValue)).toEqual([null, null, null, null, null]);
    expect(['20180305', '2018-03-05'].map(dateValue)).toEqual(['2018-03-05', '2018-03-05']);
    expect(['20180231', '2018-13-01', '05.03.2018', '201803'].map(dateValue)).toEqual([null, null, null, null]);
  });

  it('tells the profile from the specification identifier', () => {
    expect(profileOf('urn:factur-x.eu:1p0:minimum')).toBe('MINIMUM');
    expect(profileOf('urn:factur-x.eu:1p0:basicwl')).toBe('BASIC WL');
    expect(profileOf('urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic')).toBe('BASIC');
    expect(profileOf('urn:cen.eu:en16931:2017')).toBe('EN 16931');
    expect(profileOf('urn:ferd:CrossIndustryDocument:invoice:1p0:comfort')).toBe('EN 16931');
    expect(profileOf('urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended')).toBe('EXTENDED');
    expect(profileOf('urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0')).toBe('XRECHNUNG');
    expect(profileOf('urn:example:something-else')).toBeNull();
  });
});

describe('a Factur-X / ZUGFeRD 2 PDF (CII)', () => {
  it('answers every field from the attachment at confidence 100, naming the element, and says the profile', async () => {
    const result = await extract([attach('factur-x.xml', ciiXml(DE_E_INVOICE))]);
    expect(result.eInvoice).toEqual({ attachment: 'factur-x.xml', syntax: 'CII', profile: 'EN 16931', specification: 'urn:cen.eu:en16931:2017', status: 'read', message: null });
    expect(values(result)).toMatchObject({
      document_type: 'invoice',
      invoice_number: '471102',
      invoice_date: '2018-03-05',
      due_date: '2018-04-04',
      vendor_name: 'Lieferant GmbH',
      vendor_address: 'Lieferantenstraße 20, 80333 München',
      vendor_country: 'DE',
      customer_name: 'Kunden AG Mitte',
      subtotal: '473.00',
      tax_amount: '56.87',
      total_amount: '529.87',
      amount_due: '429.87',
      prepaid: '100.00',
      currency: 'EUR',
      vendor_tax_id: 'DE123456789',
      iban: 'DE89370400440532013000',
    });
    const total = result.get('total_amount')!;
    expect(total).toMatchObject({ confidence: 100, explanation: 'Factur-X XML, BT-112 GrandTotalAmount; also on page 1', page: 1 });
    expect(total.bbox).toBeDefined();
    // What the attachment does not hold still comes from the page.
    expect(result.get('kundennummer')).toMatchObject({ value: '549910', explanation: expect.stringMatching(/^label 'Kundennummer'/) });
  });

  it('gives every invoice line and the VAT breakdown of a multi-rate invoice', async () => {
    const result = await extract([attach('factur-x.xml', ciiXml(DE_E_INVOICE))]);
    const lines = Object.fromEntries(result.fields.filter((f) => /^(line_items|tax_lines)\./.test(f.field)).map((f) => [f.field, f.value]));
    expect(lines).toEqual({
      'line_items.0.description': 'Trennblätter A4',
      'line_items.0.quantity': '20',
      'line_items.0.unit_price': '9.90',
      'line_items.0.amount': '198.00',
      'line_items.0.tax_rate': '19',
      'line_items.0.code': 'TB100A4',
      'line_items.0.unit': 'H87',
      'line_items.1.description': 'Joghurt Banane',
      'line_items.1.quantity': '50',
      'line_items.1.unit_price': '5.50',
      'line_items.1.amount': '275.00',
      'line_items.1.tax_rate': '7',
      'line_items.1.code': 'ARNR2',
      'line_items.1.unit': 'H87',
      'tax_lines.0.category': 'S',
      'tax_lines.0.tax_rate': '19',
      'tax_lines.0.taxable_amount': '198.00',
      'tax_lines.0.tax_amount': '37.62',
      'tax_lines.1.category': 'S',
      'tax_lines.1.tax_rate': '7',
      'tax_lines.1.taxable_amount': '275.00',
      'tax_lines.1.tax_amount': '19.25',
    });
    expect(result.get('line_items.1.amount')!.explanation).toBe('Factur-X XML, BT-131 LineTotalAmount');
  });

  it('reads a credit note with negative amounts as a credit note, the amounts as the XML holds them', async () => {
    const credit: EInvoiceData = {
      ...DE_E_INVOICE,
      number: 'GS-2018-7',
      typeCode: '381',
      issueDate: '2018-03-10',
      dueDate: undefined,
      lines: [{ name: 'Rücknahme Trennblätter', code: 'TB100A4', quantity: '-10', unit: 'H87', price: '10.00', amount: '-100.00', rate: '19.00' }],
      taxes: [{ rate: '19.00', basis: '-100.00', amount: '-19.00' }],
      subtotal: '-100.00',
      tax: '-19.00',
      total: '-119.00',
      prepaid: undefined,
      due: '-119.00',
    };
    const page = sheet(['Lieferant GmbH', 'Gutschrift Nr. GS-2018-7', ['Datum', '10.03.2018'], ['Nettobetrag', '-100,00'], ['MwSt 19%', '-19,00'], ['Gesamtbetrag', '-119,00']]);
    const result = await extract([attach('factur-x.xml', ciiXml(credit))], page);
    expect(values(result)).toMatchObject({ document_type: 'credit_note', invoice_number: 'GS-2018-7', subtotal: '-100.00', tax_amount: '-19.00', total_amount: '-119.00', 'line_items.0.quantity': '-10', 'line_items.0.amount': '-100.00' });
    expect(result.get('total_amount')!.confidence).toBe(100);
  });
});

describe('a ZUGFeRD 1.0 attachment', () => {
  it('reads its CrossIndustryDocument, whose aggregates are named differently, as CII, COMFORT as EN 16931', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryDocument xmlns:rsm="urn:ferd:CrossIndustryDocument:invoice:1p0" xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:12" xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:15">
  <rsm:SpecifiedExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>urn:ferd:CrossIndustryDocument:invoice:1p0:comfort</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter></rsm:SpecifiedExchangedDocumentContext>
  <rsm:HeaderExchangedDocument><ram:ID>R-1</ram:ID><ram:TypeCode>380</ram:TypeCode><ram:IssueDateTime><udt:DateTimeString format="102">20130806</udt:DateTimeString></ram:IssueDateTime></rsm:HeaderExchangedDocument>
  <rsm:SpecifiedSupplyChainTradeTransaction>
    <ram:ApplicableSupplyChainTradeAgreement>
      <ram:SellerTradeParty><ram:Name>Müller &amp; Söhne GmbH</ram:Name></ram:SellerTradeParty>
      <ram:BuyerOrderReferencedDocument><ram:ID>B-9</ram:ID></ram:BuyerOrderReferencedDocument>
    </ram:ApplicableSupplyChainTradeAgreement>
    <ram:ApplicableSupplyChainTradeSettlement>
      <ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
      <ram:ApplicableTradeTax><ram:CalculatedAmount currencyID="EUR">19.00</ram:CalculatedAmount><ram:BasisAmount currencyID="EUR">100.00</ram:BasisAmount><ram:ApplicablePercent>19.00</ram:ApplicablePercent></ram:ApplicableTradeTax>
      <ram:SpecifiedTradeSettlementMonetarySummation><ram:TaxBasisTotalAmount currencyID="EUR">100.00</ram:TaxBasisTotalAmount><ram:TaxTotalAmount currencyID="EUR">19.00</ram:TaxTotalAmount><ram:GrandTotalAmount currencyID="EUR">119.00</ram:GrandTotalAmount></ram:SpecifiedTradeSettlementMonetarySummation>
    </ram:ApplicableSupplyChainTradeSettlement>
    <ram:IncludedSupplyChainTradeLineItem><ram:AssociatedDocumentLineDocument><ram:IncludedNote><ram:Content>Only a note</ram:Content></ram:IncludedNote></ram:AssociatedDocumentLineDocument></ram:IncludedSupplyChainTradeLineItem>
    <ram:IncludedSupplyChainTradeLineItem>
      <ram:SpecifiedSupplyChainTradeAgreement><ram:NetPriceProductTradePrice><ram:ChargeAmount currencyID="EUR">1.0000</ram:ChargeAmount></ram:NetPriceProductTradePrice></ram:SpecifiedSupplyChainTradeAgreement>
      <ram:SpecifiedSupplyChainTradeDelivery><ram:BilledQuantity unitCode="C62">100.0000</ram:BilledQuantity></ram:SpecifiedSupplyChainTradeDelivery>
      <ram:SpecifiedSupplyChainTradeSettlement><ram:ApplicableTradeTax><ram:ApplicablePercent>19.00</ram:ApplicablePercent></ram:ApplicableTradeTax><ram:SpecifiedTradeSettlementMonetarySummation><ram:LineTotalAmount currencyID="EUR">100.00</ram:LineTotalAmount></ram:SpecifiedTradeSettlementMonetarySummation></ram:SpecifiedSupplyChainTradeSettlement>
      <ram:SpecifiedTradeProduct><ram:SellerAssignedID>ZS997</ram:SellerAssignedID><ram:Name>Zitronensäure 100ml</ram:Name></ram:SpecifiedTradeProduct>
    </ram:IncludedSupplyChainTradeLineItem>
  </rsm:SpecifiedSupplyChainTradeTransaction>
</rsm:CrossIndustryDocument>`;
    const reading = readEInvoice([{ name: 'ZUGFeRD-invoice.xml', bytes: Buffer.from(xml) }], 1024 * 1024)!;
    expect(reading.info).toMatchObject({ syntax: 'CII', profile: 'EN 16931', status: 'read', message: null });
    expect(reading.source).toBe('ZUGFeRD XML');
    expect(Object.fromEntries(reading.values.map((v) => [v.field, v.value]))).toEqual({
      invoice_number: 'R-1',
      invoice_date: '2013-08-06',
      vendor_name: 'Müller & Söhne GmbH',
      currency: 'EUR',
      subtotal: '100.00',
      tax_amount: '19.00',
      total_amount: '119.00',
      purchase_order: 'B-9',
      document_type: 'invoice',
      'tax_lines.0.tax_rate': '19',
      'tax_lines.0.taxable_amount': '100.00',
      'tax_lines.0.tax_amount': '19.00',
      'line_items.0.description': 'Zitronensäure 100ml',
      'line_items.0.quantity': '100',
      'line_items.0.unit_price': '1.00',
      'line_items.0.amount': '100.00',
      'line_items.0.tax_rate': '19',
      'line_items.0.code': 'ZS997',
      'line_items.0.unit': 'C62',
    });
  });
});

describe('an XRechnung PDF (UBL)', () => {
  it('reads a UBL invoice and says its syntax and profile', async () => {
    const xrechnung = { ...DE_E_INVOICE, specification: 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0', orderReference: 'PO-77' };
    const result = await extract([attach('xrechnung.xml', ublXml(xrechnung))]);
    expect(result.eInvoice).toMatchObject({ syntax: 'UBL', profile: 'XRECHNUNG', status: 'read' });
    expect(values(result)).toMatchObject({ invoice_number: '471102', due_date: '2018-04-04', vendor_name: 'Lieferant GmbH', total_amount: '529.87', tax_amount: '56.87', purchase_order: 'PO-77', 'line_items.1.unit_price': '5.50', 'tax_lines.1.tax_rate': '7' });
    expect(result.get('total_amount')!.explanation).toMatch(/^XRechnung XML, BT-112 TaxInclusiveAmount/);
  });

  it('reads a UBL credit note found by its root element, whatever the attachment is called', () => {
    const credit = ublXml({ ...DE_E_INVOICE, typeCode: '381' });
    const reading = readEInvoice([{ name: 'gutschrift.xml', bytes: Buffer.from(credit) }], 1024 * 1024)!;
    expect(reading.info).toMatchObject({ attachment: 'gutschrift.xml', syntax: 'UBL', status: 'read' });
    const got = Object.fromEntries(reading.values.map((v) => [v.field, v.value]));
    expect(got).toMatchObject({ document_type: 'credit_note', due_date: '2018-04-04', 'line_items.0.quantity': '20', total_amount: '529.87' });
  });
});

describe('the attachment against the page', () => {
  it('keeps the attachment\'s value but lowers it and says both values when the page shows another', async () => {
    const other = { ...DE_E_INVOICE, total: '600.00', number: '471999' };
    const result = await extract([attach('factur-x.xml', ciiXml(other))]);
    const total = result.get('total_amount')!;
    expect(total.value).toBe('600.00');
    expect(total.confidence).toBeLessThan(90);
    expect(total.explanation).toBe(
      "Factur-X XML, BT-112 GrandTotalAmount; the attachment and the page disagree: the attachment says 600.00, the page says 529.87 (label 'Bruttosumme' on page 1, value to the right), and 600.00 is not on the page",
    );
    expect(result.get('invoice_number')).toMatchObject({ value: '471999', confidence: 40, explanation: expect.stringContaining('the page says 471102') });
    expect(result.get('subtotal')!.confidence).toBe(100);
  });

  it('keeps confidence 100 where the page reads another value but also prints the attachment\'s', async () => {
    // The page's total is 529.87; 275.00 is printed too, as the second line's amount in the item table.
    const result = await extract([attach('factur-x.xml', ciiXml({ ...DE_E_INVOICE, total: '275.00' }))]);
    expect(result.get('total_amount')).toMatchObject({ value: '275.00', confidence: 100, explanation: 'Factur-X XML, BT-112 GrandTotalAmount; also on the page' });
  });
});

describe('hostile attachments: ignored with a reason, the page answers', () => {
  const valid = ciiXml(DE_E_INVOICE);

  it('refuses a DTD with an external entity (XXE)', async () => {
    const xxe = valid.replace('<rsm:CrossIndustryInvoice', '<!DOCTYPE rsm:CrossIndustryInvoice [<!ENTITY secret SYSTEM "file:///etc/passwd">]>\n<rsm:CrossIndustryInvoice').replace('<ram:ID>471102</ram:ID>', '<ram:ID>&secret;</ram:ID>');
    const result = await extract([attach('factur-x.xml', xxe)]);
    expect(result.eInvoice).toMatchObject({ status: 'ignored', syntax: null, message: expect.stringMatching(/^The attachment factur-x\.xml was not read: it declares a DTD/) });
    expect(JSON.stringify(result.fields)).not.toContain('root:');
    await expectPageAnswers(result);
  });

  it('refuses entity expansion (billion laughs)', async () => {
    const entities = Array.from({ length: 10 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`).join('');
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol0 "lol">${entities}]>${valid.slice(valid.indexOf('<rsm:')).replace('<ram:ID>471102</ram:ID>', '<ram:ID>&lol10;</ram:ID>')}`;
    const result = await extract([attach('factur-x.xml', bomb)]);
    expect(result.eInvoice).toMatchObject({ status: 'ignored', message: expect.stringContaining('DTD') });
    await expectPageAnswers(result);
  });

  it('refuses elements nested too deep', async () => {
    const deep = valid.replace('<ram:ID>471102</ram:ID>', `${'<ram:X>'.repeat(5000)}${'</ram:X>'.repeat(5000)}<ram:ID>471102</ram:ID>`);
    const result = await extract([attach('factur-x.xml', deep)]);
    expect(result.eInvoice).toMatchObject({ status: 'ignored', message: 'The attachment factur-x.xml was not read: its elements nest more than 64 deep.' });
    await expectPageAnswers(result);
  });

  it('refuses, before parsing, too many elements or attributes on one, and deep nesting left open', () => {
    expect(() => parseInvoiceXml(Buffer.from(`<r>${'<a>1</a>'.repeat(200_001)}</r>`))).toThrow('it has more than 200,000 elements');
    expect(() => parseInvoiceXml(Buffer.from(`<r ${Array.from({ length: 65 }, (_, i) => `a${i}="v"`).join(' ')}/>`))).toThrow('an element has more than 64 attributes');
    expect(() => parseInvoiceXml(Buffer.from(`<r>${'<a x=">">'.repeat(100_000)}`))).toThrow('its elements nest more than 64 deep');
    // '>' inside an attribute value and self-closed elements do not count as nesting.
    expect(parseInvoiceXml(Buffer.from(`<r a=">">${'<b c="x>y"/>'.repeat(100)}<![CDATA[<c><d>]]><!-- <e> --></r>`)).children).toHaveLength(100);
  });

  it('refuses a root element in another namespace, and XML that is not well-formed', async () => {
    const foreign = valid.replace('urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100', 'urn:example:not-cii');
    const wrong = await extract([attach('factur-x.xml', foreign)]);
    expect(wrong.eInvoice).toMatchObject({ status: 'ignored', message: "The attachment factur-x.xml was not read: its root element CrossIndustryInvoice is in the namespace 'urn:example:not-cii', not that of CII or UBL." });
    await expectPageAnswers(wrong);
    const broken = await extract([attach('factur-x.xml', valid.slice(0, valid.length / 2))]);
    expect(broken.eInvoice).toMatchObject({ status: 'ignored', message: expect.stringMatching(/not well-formed XML/) });
    await expectPageAnswers(broken);
  });

  it('leaves out invalid numbers and dates, and the page answers for those fields', async () => {
    const invalid = valid.replace('<ram:GrandTotalAmount>529.87<', '<ram:GrandTotalAmount>529,87 EUR<').replace('>20180305<', '>20181305<');
    const result = await extract([attach('factur-x.xml', invalid)]);
    expect(result.eInvoice).toMatchObject({ status: 'read', message: "2 values of the attachment could not be read and were left out (the page answers for them): BT-2 IssueDateTime '20181305' is not a date (YYYYMMDD or YYYY-MM-DD); BT-112 GrandTotalAmount '529,87 EUR' is not a decimal number" });
    expect(result.get('total_amount')).toMatchObject({ value: '529.87', explanation: expect.stringMatching(/^label 'Bruttosumme'.*the attachment's BT-112 GrandTotalAmount '529,87 EUR' is not a decimal number, so the page's value is given$/) });
    expect(result.get('invoice_date')!.value).toBe('2018-03-05');
    expect(result.get('subtotal')).toMatchObject({ value: '473.00', confidence: 100, explanation: expect.stringMatching(/^Factur-X XML/) });
  });

  it('reads none of several different invoice attachments, and one of identical copies', async () => {
    const other = ciiXml({ ...DE_E_INVOICE, total: '999.00' });
    const several = await extract([attach('factur-x.xml', valid), attach('xrechnung.xml', other)]);
    expect(several.eInvoice).toMatchObject({ status: 'ignored', message: 'The PDF carries 2 different invoice attachments (factur-x.xml, xrechnung.xml); which one is the invoice cannot be told, so none was read.' });
    await expectPageAnswers(several);
    const copies = await extract([attach('factur-x.xml', valid), attach('zugferd-invoice.xml', valid)]);
    expect(copies.eInvoice).toMatchObject({ status: 'read', attachment: 'factur-x.xml' });
  });

  it('refuses an attachment larger than EINVOICE_MAX_MB without parsing it', async () => {
    const huge = valid.replace('<rsm:ExchangedDocument>', `<!--${'x'.repeat(1536 * 1024)}--><rsm:ExchangedDocument>`);
    const result = await extract([attach('factur-x.xml', huge)]);
    expect(result.eInvoice).toMatchObject({ status: 'ignored', message: 'The attachment factur-x.xml is 1.5 MB, more than the 1.0 MB an invoice XML may have, so it was not read.' });
    await expectPageAnswers(result);
  });

  it('reads the page of a PDF whose attachment tree is broken', async () => {
    const content = 'BT /F1 12 Tf 72 700 Td (Invoice No. BROKEN-7   Total: 10.00 EUR) Tj ET';
    const pdf = rawPdf([
      '<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles << /Names [(factur-x.xml) 6 0 R (zugferd-invoice.xml) 42 (xrechnung.xml) 9 0 R] /Kids 7 >> >> >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
      `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
      '<< /Type /Filespec /F (factur-x.xml) /EF << /F 8 0 R >> >>',
    ]);
    const result = await pipeline.extract({ bytes: pdf, contentType: 'application/pdf' });
    expect(result.eInvoice).toBeNull();
    expect(values(result)).toMatchObject({ invoice_number: 'BROKEN-7' });
  });

  it('passes over attachments that are not invoices: a PDF without one says so with null', async () => {
    const plain = await extract([]);
    expect(plain.eInvoice).toBeNull();
    const other = await extract([attach('notes.xml', '<?xml version="1.0"?><notes><note>hello</note></notes>'), attach('readme.txt', 'Invoice attached.')]);
    expect(other.eInvoice).toBeNull();
    expect(values(other)).toEqual(values(plain));
  });
});
