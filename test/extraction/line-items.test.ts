import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { findLineItems, lineItemFields, lineItemSum, type LineItem } from '../../src/extraction/finders/line-items.js';
import { wordsToLines } from '../../src/extraction/layout.js';
import { createPipeline, type Pipeline } from '../../src/extraction/pipeline.js';
import type { DocumentText, PageText, Word } from '../../src/extraction/types.js';
import { EU_INVOICE, invoicePdf, renderPage, US_INVOICE, type Invoice } from '../fixtures/documents.js';

/** A cell: its text, where it starts (or, right-aligned, ends) as a page fraction, and the OCR confidence of its words. */
type Cell = [text: string, x: number, align?: 'left' | 'right', confidence?: number];
/** A row: its cells, and optionally its own top (page fraction) instead of the next line. */
type RowSpec = Cell[] | { top: number; cells: Cell[] };

const CHAR = 0.0085;
const HEIGHT = 0.011;
const PITCH = 0.018;

/** A page built the way the pipeline builds one: words with boxes, grouped into lines by `wordsToLines`. */
function page(number: number, rows: RowSpec[], options: { top?: number; source?: PageText['source'] } = {}): PageText {
  const words: Word[] = [];
  let y = options.top ?? 0.1;
  for (const spec of rows) {
    const cells = Array.isArray(spec) ? spec : spec.cells;
    if (!Array.isArray(spec)) y = spec.top;
    for (const [text, x, align = 'left', confidence = 100] of cells) {
      let at = align === 'right' ? x - text.length * CHAR : x;
      for (const token of text.split(' ')) {
        words.push({ text: token, confidence, bbox: { x: at, y, width: token.length * CHAR, height: HEIGHT } });
        at += (token.length + 1) * CHAR;
      }
    }
    y += PITCH;
  }
  return { number, source: options.source ?? 'text_layer', lines: wordsToLines(words) };
}

function doc(...pages: PageText[]): DocumentText {
  return { pages };
}

/** The rows as plain values, to compare whole tables at once. */
function rows(items: LineItem[]): Record<string, string>[] {
  return items.map((item) => Object.fromEntries(Object.entries(item.cells).map(([key, cell]) => [key, cell!.value])));
}

describe('generated invoices', () => {
  const config = { ...loadConfig({}), maxPages: 5, maxImagePixels: 40_000_000, ocrTimeoutMs: 60_000, ocrWorkers: 1, ocrQueueMax: 4 };
  let pipeline: Pipeline;
  const german: Invoice = {
    ...EU_INVOICE,
    items: [
      ['Beratung Projekt Alpha', '12', '95,00', '1.140,00'],
      ['Reisekosten pauschal', '1', '250,00', '250,00'],
      ['Lizenz Software Pro', '3', '49,90', '149,70'],
      ['Schulung vor Ort', '2', '600,00', '1.200,00'],
    ],
  };

  beforeAll(() => {
    pipeline = createPipeline(config);
  });
  afterAll(() => pipeline.close());

  it('reads the item table of a European invoice from the text layer', async () => {
    const { document } = await pipeline.extract({ bytes: await invoicePdf(EU_INVOICE), contentType: 'application/pdf' });
    const items = findLineItems(document);
    expect(rows(items)).toEqual([
      { description: 'Consulting services', quantity: '10', unit_price: '100.00', amount: '1000.00' },
      { description: 'Hosting', quantity: '1', unit_price: '234.50', amount: '234.50' },
    ]);
    expect(items.every((i) => i.check === 'fits')).toBe(true);
    expect(lineItemSum(items)).toBe(1234.5);
    const price = lineItemFields(items).find((f) => f.field === 'line_items.0.unit_price')!;
    expect(price).toMatchObject({ value: '100.00', page: 1, confidence: 95, explanation: "row 1 of the item table on page 1, column 'Unit price'; 10 x 100.00 = 1000.00" });
    expect(price.bbox!.x).toBeCloseTo(380 / 595, 2);
  });

  it('reads dollar amounts and a longer table', async () => {
    const { document } = await pipeline.extract({ bytes: await invoicePdf(US_INVOICE), contentType: 'application/pdf' });
    expect(rows(findLineItems(document))).toEqual([
      { description: 'Widgets', quantity: '100', unit_price: '10.00', amount: '1000.00' },
      { description: 'Shipping', quantity: '1', unit_price: '234.50', amount: '234.50' },
    ]);
    const { document: longer } = await pipeline.extract({ bytes: await invoicePdf(german), contentType: 'application/pdf' });
    expect(rows(findLineItems(longer))).toEqual([
      { description: 'Beratung Projekt Alpha', quantity: '12', unit_price: '95.00', amount: '1140.00' },
      { description: 'Reisekosten pauschal', quantity: '1', unit_price: '250.00', amount: '250.00' },
      { description: 'Lizenz Software Pro', quantity: '3', unit_price: '49.90', amount: '149.70' },
      { description: 'Schulung vor Ort', quantity: '2', unit_price: '600.00', amount: '1200.00' },
    ]);
  });

  it('reads the same table from a 300-dpi scan, with OCR confidence in the cells', async () => {
    const png = await renderPage(await invoicePdf(german), 300);
    const { document } = await pipeline.extract({ bytes: png, contentType: 'image/png' });
    expect(document.pages[0]!.source).toBe('ocr');
    const items = findLineItems(document);
    expect(rows(items)).toEqual([
      { description: 'Beratung Projekt Alpha', quantity: '12', unit_price: '95.00', amount: '1140.00' },
      { description: 'Reisekosten pauschal', quantity: '1', unit_price: '250.00', amount: '250.00' },
      { description: 'Lizenz Software Pro', quantity: '3', unit_price: '49.90', amount: '149.70' },
      { description: 'Schulung vor Ort', quantity: '2', unit_price: '600.00', amount: '1200.00' },
    ]);
    for (const field of lineItemFields(items)) {
      expect(field.confidence).toBeGreaterThan(60);
      expect(field.confidence).toBeLessThan(95);
    }
  }, 60_000);
});

describe('hand-built tables', () => {
  it('reads a German invoice: right-aligned numbers, a unit column, a description over two lines, Zwischensumme ends it', () => {
    const items = findLineItems(
      doc(
        page(1, [
          [['Musterfirma GmbH', 0.08]],
          [['Rechnung Nr. 2026-117', 0.08]],
          [
            ['Pos.', 0.08],
            ['Bezeichnung', 0.14],
            ['Menge', 0.52, 'right'],
            ['Einheit', 0.55],
            ['Einzelpreis', 0.78, 'right'],
            ['Gesamtpreis', 0.93, 'right'],
          ],
          [
            ['1', 0.1, 'right'],
            ['Montage Heizkörper', 0.14],
            ['4', 0.52, 'right'],
            ['Std', 0.55],
            ['68,50', 0.78, 'right'],
            ['274,00', 0.93, 'right'],
          ],
          [
            ['2', 0.1, 'right'],
            ['Thermostatventil', 0.14],
            ['6', 0.52, 'right'],
            ['Stk', 0.55],
            ['24,90', 0.78, 'right'],
            ['149,40', 0.93, 'right'],
          ],
          [['mit Voreinstellung, DN 15', 0.14]],
          [
            ['3', 0.1, 'right'],
            ['Anfahrt', 0.14],
            ['1', 0.52, 'right'],
            ['psch', 0.55],
            ['1.250,00', 0.78, 'right'],
            ['1.250,00', 0.93, 'right'],
          ],
          [
            ['Zwischensumme', 0.6],
            ['1.673,40', 0.93, 'right'],
          ],
          [
            ['MwSt. 19 %', 0.6],
            ['317,95', 0.93, 'right'],
          ],
          [
            ['Gesamtbetrag', 0.6],
            ['1.991,35', 0.93, 'right'],
          ],
        ]),
      ),
    );
    expect(rows(items)).toEqual([
      { description: 'Montage Heizkörper', quantity: '4', unit: 'Std', unit_price: '68.50', amount: '274.00' },
      { description: 'Thermostatventil\nmit Voreinstellung, DN 15', quantity: '6', unit: 'Stk', unit_price: '24.90', amount: '149.40' },
      { description: 'Anfahrt', quantity: '1', unit: 'psch', unit_price: '1250.00', amount: '1250.00' },
    ]);
    expect(lineItemSum(items)).toBe(1673.4);
    const fields = lineItemFields(items);
    expect(fields.map((f) => f.field)).toEqual([
      'line_items.0.description',
      'line_items.0.quantity',
      'line_items.0.unit_price',
      'line_items.0.amount',
      'line_items.0.unit',
      'line_items.1.description',
      'line_items.1.quantity',
      'line_items.1.unit_price',
      'line_items.1.amount',
      'line_items.1.unit',
      'line_items.2.description',
      'line_items.2.quantity',
      'line_items.2.unit_price',
      'line_items.2.amount',
      'line_items.2.unit',
    ]);
    const description = fields.find((f) => f.field === 'line_items.1.description')!;
    expect(description.explanation).toBe("row 2 of the item table on page 1, column 'Bezeichnung'");
    expect(description.bbox!.height).toBeGreaterThan(PITCH);
    expect(fields.find((f) => f.field === 'line_items.2.amount')!.explanation).toBe("row 3 of the item table on page 1, column 'Gesamtpreis'; 1 x 1250.00 = 1250.00");
  });

  it('reads a French invoice with a reference, a VAT rate column and "Sous-total HT"', () => {
    const items = findLineItems(
      doc(
        page(1, [
          [
            ['Réf.', 0.06],
            ['Désignation', 0.16],
            ['Qté', 0.55, 'right'],
            ['P.U. HT (€)', 0.7, 'right'],
            ['TVA', 0.78, 'right'],
            ['Montant HT', 0.94, 'right'],
          ],
          [
            ['A-1021', 0.06],
            ['Ramette papier A4', 0.16],
            ['10', 0.55, 'right'],
            ['4,50', 0.7, 'right'],
            ['20 %', 0.78, 'right'],
            ['45,00', 0.94, 'right'],
          ],
          [
            ['B-77', 0.06],
            ['Livraison express', 0.16],
            ['1', 0.55, 'right'],
            ['12,00', 0.7, 'right'],
            ['20 %', 0.78, 'right'],
            ['12,00', 0.94, 'right'],
          ],
          [
            ['Sous-total HT', 0.6],
            ['57,00', 0.94, 'right'],
          ],
        ]),
      ),
    );
    expect(rows(items)).toEqual([
      { code: 'A-1021', description: 'Ramette papier A4', quantity: '10', unit_price: '4.50', amount: '45.00', tax_rate: '20' },
      { code: 'B-77', description: 'Livraison express', quantity: '1', unit_price: '12.00', amount: '12.00', tax_rate: '20' },
    ]);
  });

  it('follows a table onto the next page, with and without a repeated header', () => {
    const header: Cell[] = [
      ['Description', 0.08],
      ['Qty', 0.6, 'right'],
      ['Unit price', 0.78, 'right'],
      ['Amount', 0.94, 'right'],
    ];
    const item = (name: string, qty: string, price: string, amount: string): Cell[] => [
      [name, 0.08],
      [qty, 0.6, 'right'],
      [price, 0.78, 'right'],
      [amount, 0.94, 'right'],
    ];
    const first = page(1, [[['Invoice 7781', 0.08]], header, item('Cable, 5 m', '3', '7.00', '21.00'), item('Switch 8 ports', '1', '49.00', '49.00'), { top: 0.95, cells: [['Page 1 of 2', 0.45]] }]);
    const carried = page(2, [[['Northwind Traders', 0.08]], [['Invoice 7781, page 2', 0.08]], { top: 0.16, cells: item('Patch panel', '2', '35.50', '71.00') }, item('Rack shelf', '1', '18.00', '18.00'), [['Subtotal', 0.6], ['159.00', 0.94, 'right']]]);
    expect(rows(findLineItems(doc(first, carried)))).toEqual([
      { description: 'Cable, 5 m', quantity: '3', unit_price: '7.00', amount: '21.00' },
      { description: 'Switch 8 ports', quantity: '1', unit_price: '49.00', amount: '49.00' },
      { description: 'Patch panel', quantity: '2', unit_price: '35.50', amount: '71.00' },
      { description: 'Rack shelf', quantity: '1', unit_price: '18.00', amount: '18.00' },
    ]);
    const repeated = page(2, [[['Invoice 7781, page 2', 0.08]], header, item('Patch panel', '2', '35.50', '71.00'), [['Total', 0.6], ['141.00', 0.94, 'right']]]);
    const items = findLineItems(doc(first, repeated));
    expect(rows(items).map((r) => r.description)).toEqual(['Cable, 5 m', 'Switch 8 ports', 'Patch panel']);
    expect(items.map((i) => [i.page, i.row])).toEqual([
      [1, 1],
      [1, 2],
      [2, 3],
    ]);
    // A table closed by its total does not go on: the next page's figures are not items.
    const closed = page(1, [header, item('Cable, 5 m', '3', '7.00', '21.00'), [['Total', 0.6], ['21.00', 0.94, 'right']]]);
    expect(findLineItems(doc(closed, carried))).toHaveLength(1);
  });

  it('reads a Malay receipt from OCR words, and stops at Jumlah', () => {
    const items = findLineItems(
      doc(
        page(
          1,
          [
            [['KEDAI RUNCIT MAJU SDN BHD', 0.2, 'left', 91]],
            [['NO 12, JALAN MERDEKA', 0.25, 'left', 88]],
            [
              ['Item', 0.08, 'left', 93],
              ['Qty', 0.5, 'right', 90],
              ['Harga', 0.7, 'right', 92],
              ['Jumlah', 0.92, 'right', 94],
            ],
            [
              ['MILO 1KG', 0.08, 'left', 89],
              ['2', 0.5, 'right', 95],
              ['18.90', 0.7, 'right', 90],
              ['37.80', 0.92, 'right', 92],
            ],
            [
              ['ROTI GARDENIA', 0.08, 'left', 85],
              ['1', 0.5, 'right', 94],
              ['4.20', 0.7, 'right', 91],
              ['4.20', 0.92, 'right', 90],
            ],
            [
              ['JUMLAH', 0.5, 'left', 95],
              ['42.00', 0.92, 'right', 93],
            ],
            [
              ['TUNAI', 0.5, 'left', 95],
              ['50.00', 0.92, 'right', 93],
            ],
            [
              ['BAKI', 0.5, 'left', 95],
              ['8.00', 0.92, 'right', 93],
            ],
          ],
          { source: 'ocr' },
        ),
      ),
    );
    expect(rows(items)).toEqual([
      { description: 'MILO 1KG', quantity: '2', unit_price: '18.90', amount: '37.80' },
      { description: 'ROTI GARDENIA', quantity: '1', unit_price: '4.20', amount: '4.20' },
    ]);
    // OCR confidence 89-92 times a row that adds up.
    expect(items[0]!.cells.amount!.confidence).toBe(Math.round(92 * 0.95));
    expect(lineItemSum(items)).toBe(42);
  });

  it('reads "1,000" as one piece when that is what makes quantity x price equal the amount', () => {
    const items = findLineItems(
      doc(
        page(1, [
          [
            ['Artikel', 0.08],
            ['Anzahl', 0.55, 'right'],
            ['Preis', 0.75, 'right'],
            ['Betrag EUR', 0.93, 'right'],
          ],
          [
            ['Druckerpatrone schwarz', 0.08],
            ['1,000', 0.55, 'right'],
            ['39,90', 0.75, 'right'],
            ['39,90', 0.93, 'right'],
          ],
          [
            ['Kopierpapier', 0.08],
            ['2,500', 0.55, 'right'],
            ['4,00', 0.75, 'right'],
            ['10,00', 0.93, 'right'],
          ],
          [
            ['Büroklammern', 0.08],
            ['1.000', 0.55, 'right'],
            ['0,01', 0.75, 'right'],
            ['10,00', 0.93, 'right'],
          ],
        ]),
      ),
    );
    expect(rows(items).map((r) => r.quantity)).toEqual(['1', '2.5', '1000']);
    expect(items.map((i) => i.check)).toEqual(['fits', 'fits', 'fits']);
  });

  it('lowers the confidence of a row whose figures do not add up, and says so', () => {
    const items = findLineItems(
      doc(
        page(1, [
          [
            ['Description', 0.08],
            ['Qty', 0.6, 'right'],
            ['Price', 0.78, 'right'],
            ['Total', 0.94, 'right'],
          ],
          [
            ['Annual licence', 0.08],
            ['3', 0.6, 'right'],
            ['100.00', 0.78, 'right'],
            ['250.00', 0.94, 'right'],
          ],
        ]),
      ),
    );
    expect(items[0]!.check).toBe('differs');
    const amount = lineItemFields(items).find((f) => f.field === 'line_items.0.amount')!;
    expect(amount.confidence).toBe(60);
    expect(amount.explanation).toContain('3 x 100.00 = 300.00, not the amount 250.00');
  });

  it('reads item tables in every language of the lexicon', () => {
    const headers: Record<string, [string, string, string, string]> = {
      en: ['Item description', 'Quantity', 'Unit price (EUR)', 'Amount EUR'],
      de: ['Bezeichnung', 'Menge/Einheit', 'Einzelpreis', 'Gesamtpreis'],
      fr: ['Désignation', 'Quantité', 'Prix unitaire', 'Montant'],
      es: ['Descripción', 'Cantidad', 'Precio unitario', 'Importe'],
      it: ['Descrizione', 'Quantità', 'Prezzo unitario', 'Importo'],
      nl: ['Omschrijving', 'Aantal', 'Prijs per stuk', 'Bedrag'],
      pt: ['Descrição', 'Quantidade', 'Preço unitário', 'Valor total'],
      pl: ['Nazwa towaru lub usługi', 'Ilość', 'Cena jedn. netto', 'Wartość netto'],
      ms: ['Perkara', 'Kuantiti', 'Harga seunit', 'Jumlah (RM)'],
    };
    for (const [lang, [d, q, u, a]] of Object.entries(headers)) {
      const items = findLineItems(
        doc(
          page(1, [
            [
              [d, 0.08],
              [q, 0.55, 'right'],
              [u, 0.75, 'right'],
              [a, 0.94, 'right'],
            ],
            [
              ['Widget', 0.08],
              ['2', 0.55, 'right'],
              ['5,00', 0.75, 'right'],
              ['10,00', 0.94, 'right'],
            ],
          ]),
        ),
      );
      expect(rows(items), lang).toEqual([{ description: 'Widget', quantity: '2', unit_price: '5.00', amount: '10.00' }]);
    }
  });

  it('takes the text rows above a row of figures as its description', () => {
    const items = findLineItems(
      doc(
        page(1, [
          [
            ['Description', 0.08],
            ['Qty', 0.6, 'right'],
            ['Price', 0.78, 'right'],
            ['Amount', 0.94, 'right'],
          ],
          [['NASI LEMAK AYAM', 0.08]],
          [
            ['2', 0.6, 'right'],
            ['7.50', 0.78, 'right'],
            ['15.00', 0.94, 'right'],
          ],
          [['TEH TARIK', 0.08]],
          [
            ['1', 0.6, 'right'],
            ['2.20', 0.78, 'right'],
            ['2.20', 0.94, 'right'],
          ],
        ]),
      ),
    );
    expect(rows(items)).toEqual([
      { description: 'NASI LEMAK AYAM', quantity: '2', unit_price: '7.50', amount: '15.00' },
      { description: 'TEH TARIK', quantity: '1', unit_price: '2.20', amount: '2.20' },
    ]);
  });

  it('reads a header printed over three lines and an amount printed a line lower', () => {
    const T = 0.1;
    const L = HEIGHT * 1.15;
    const items = findLineItems(
      doc(
        page(1, [
          { top: T - L, cells: [['Positions-', 0.93, 'right']] },
          {
            top: T,
            cells: [
              ['Pos', 0.06],
              ['Beschreibung', 0.2],
              ['Nettopreis', 0.6, 'right'],
              ['Menge', 0.72, 'right'],
              ['USt.', 0.8, 'right'],
              ['betrag', 0.93, 'right'],
            ],
          },
          { top: T + L, cells: [['ohne USt.', 0.93, 'right']] },
          {
            top: T + 3 * L,
            cells: [
              ['1', 0.07, 'right'],
              ['Trennblätter A4', 0.2],
              ['9,9000', 0.6, 'right'],
              ['20 Stk', 0.72, 'right'],
              ['19 %', 0.8, 'right'],
            ],
          },
          { top: T + 4 * L, cells: [['198,00', 0.93, 'right']] },
          {
            top: T + 6 * L,
            cells: [
              ['Bruttopreis : 9,9000', 0.22],
            ],
          },
          {
            top: T + 8 * L,
            cells: [
              ['2', 0.07, 'right'],
              ['Joghurt Banane', 0.2],
              ['5,5000', 0.6, 'right'],
              ['50 Stk', 0.72, 'right'],
              ['7 %', 0.8, 'right'],
            ],
          },
          { top: T + 9 * L, cells: [['275,00', 0.93, 'right']] },
          {
            top: T + 12 * L,
            cells: [
              ['Positionssumme', 0.5],
              ['473,00', 0.93, 'right'],
            ],
          },
        ]),
      ),
    );
    expect(rows(items)).toEqual([
      { description: 'Trennblätter A4', quantity: '20', unit: 'Stk', unit_price: '9.90', amount: '198.00', tax_rate: '19' },
      { description: 'Joghurt Banane', quantity: '50', unit: 'Stk', unit_price: '5.50', amount: '275.00', tax_rate: '7' },
    ]);
    expect(items[0]!.cells.amount!.column).toBe('Positions-betrag ohne USt.');
  });

  it('reads a till receipt whose figures row carries a product code under the description, and skips its total row', () => {
    const items = findLineItems(
      doc(
        page(
          1,
          [
            [
              ['DESC/ITEM', 0.06],
              ['QTY', 0.5, 'right'],
              ['PRICE', 0.7, 'right'],
              ['AMT(RM)', 0.92, 'right'],
            ],
            [['ST-PRIVILEGE CARD', 0.06]],
            [
              ['88888', 0.06],
              ['1', 0.5, 'right'],
              ['10.00', 0.7, 'right'],
              ['10.00', 0.92, 'right'],
            ],
            [['GF-TABLE LAMP', 0.06]],
            [
              ['62483', 0.06],
              ['2', 0.5, 'right'],
              ['27.95', 0.7, 'right'],
              ['55.90', 0.92, 'right'],
            ],
            [
              ['ITEMS: 2 TOTAL', 0.06],
              ['3', 0.5, 'right'],
              ['65.90', 0.92, 'right'],
            ],
            [
              ['CASH', 0.4],
              ['70.00', 0.92, 'right'],
            ],
          ],
          { source: 'ocr' },
        ),
      ),
    );
    expect(rows(items)).toEqual([
      { code: '88888', description: 'ST-PRIVILEGE CARD', quantity: '1', unit_price: '10.00', amount: '10.00' },
      { code: '62483', description: 'GF-TABLE LAMP', quantity: '2', unit_price: '27.95', amount: '55.90' },
    ]);
  });

  it('reads a table whose header names no description column, quantities with their unit in one word, and a credit written 50,00-', () => {
    const items = findLineItems(
      doc(
        page(1, [
          [
            ['Hours', 0.55, 'right'],
            ['Rate', 0.75, 'right'],
            ['Amount', 0.94, 'right'],
          ],
          [
            ['Website redesign', 0.08],
            ['12.5h', 0.55, 'right'],
            ['80.00', 0.75, 'right'],
            ['1,000.00', 0.94, 'right'],
          ],
          [
            ['Hosting migration', 0.08],
            ['3h', 0.55, 'right'],
            ['80.00', 0.75, 'right'],
            ['240.00', 0.94, 'right'],
          ],
          [
            ['Goodwill credit', 0.08],
            ['1', 0.55, 'right'],
            ['50.00-', 0.75, 'right'],
            ['50.00-', 0.94, 'right'],
          ],
          [
            ['Total', 0.6],
            ['1,190.00', 0.94, 'right'],
          ],
        ]),
      ),
    );
    expect(rows(items)).toEqual([
      { description: 'Website redesign', quantity: '12.5', unit: 'h', unit_price: '80.00', amount: '1000.00' },
      { description: 'Hosting migration', quantity: '3', unit: 'h', unit_price: '80.00', amount: '240.00' },
      { description: 'Goodwill credit', quantity: '1', unit_price: '-50.00', amount: '-50.00' },
    ]);
    expect(items.map((i) => i.check)).toEqual(['fits', 'fits', 'fits']);
    expect(items[0]!.cells.description!.column).toBe('Description');
    // A row of column words with a figure in it is a totals line, not a header: "Total  Qty  3".
    const totals = page(1, [[['Total', 0.3], ['Qty', 0.55, 'right'], ['3', 0.94, 'right']], [['Widget', 0.08], ['3', 0.55, 'right'], ['9.00', 0.94, 'right']]]);
    expect(findLineItems(doc(totals))).toEqual([]);
  });

  it('reads a receipt without a column header from rows whose figures multiply out, and only those', () => {
    const receipt = (rowsAbove: RowSpec[]) =>
      doc(
        page(
          1,
          [
            [['KEDAI MAJU ENTERPRISE', 0.2, 'left', 92]],
            [['GST ID : 001234567890', 0.2, 'left', 90]],
            ...rowsAbove,
            [
              ['TOTAL', 0.1, 'left', 95],
              ['RM 26.10', 0.92, 'right', 93],
            ],
            [
              ['CASH', 0.1, 'left', 95],
              ['50.00', 0.92, 'right', 93],
            ],
          ],
          { source: 'ocr' },
        ),
      );
    const items = findLineItems(
      receipt([
        [['EGG PORE STEAM BALM', 0.1, 'left', 90]],
        [
          ['SS04018600', 0.1, 'left', 90],
          ['2 x 9.90', 0.6, 'right', 90],
          ['19.80', 0.92, 'right', 90],
        ],
        [
          ['TEH TARIK', 0.1, 'left', 90],
          ['1', 0.5, 'right', 90],
          ['6.30', 0.7, 'right', 90],
          ['6.30', 0.92, 'right', 90],
        ],
      ]),
    );
    expect(rows(items)).toEqual([
      { code: 'SS04018600', description: 'EGG PORE STEAM BALM', quantity: '2', unit_price: '9.90', amount: '19.80' },
      { description: 'TEH TARIK', quantity: '1', unit_price: '6.30', amount: '6.30' },
    ]);
    const amount = lineItemFields(items).find((f) => f.field === 'line_items.0.amount')!;
    expect(amount).toMatchObject({ confidence: Math.round(90 * 0.85), explanation: 'item row 1 on page 1 (no table header; its figures multiply out), amount; 2 x 9.90 = 19.80' });
    // One row of 1 x price = amount proves nothing: a receipt's figures often repeat.
    expect(
      findLineItems(
        receipt([
          [
            ['TEH TARIK', 0.1],
            ['1', 0.5, 'right'],
            ['6.30', 0.7, 'right'],
            ['6.30', 0.92, 'right'],
          ],
        ]),
      ),
    ).toEqual([]);
  });

  it('finds nothing where there is no item table', () => {
    const letter = page(1, [
      [['Description of the services and the total amount are given below.', 0.08]],
      [
        ['Invoice No:', 0.08],
        ['4471', 0.3],
      ],
      [
        ['Item count:', 0.08],
        ['3', 0.3],
        ['Total:', 0.6],
        ['99.00', 0.9, 'right'],
      ],
      [['Payment within 30 days, 2 % discount within 10 days.', 0.08]],
    ]);
    expect(findLineItems(doc(letter))).toEqual([]);
    expect(lineItemSum([])).toBeNull();
    expect(lineItemFields([])).toEqual([]);
  });
});
