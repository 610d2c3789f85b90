import type { DateOrder } from '../normalise.js';
import type { LabelledField } from '../labels.js';
import type { LabelTest } from '../layout.js';
import type { Box, DocumentText, LabelValue, Line, Word } from '../types.js';

/** A line and the page it is on. */
export interface Located {
  page: number;
  line: Line;
}

/** One visual row of a page: however layout or OCR cut it into lines. */
export interface Row {
  page: number;
  row: number;
  lines: Line[];
  text: string;
}

export type DocumentType = 'invoice' | 'receipt' | 'credit_note';

/** What every finder may read: the document and what is worked out from it once. */
export interface FinderContext {
  doc: DocumentText;
  /** The document as plain text (rows by "\n", pages by "\f"). */
  text: string;
  order: DateOrder;
  documentType: DocumentType;
  /** Whether layout reads a phrase as a label. */
  isLabel: LabelTest;
  pairs: LabelValue[];
  lines: Located[];
  /** The visual rows of every page, top to bottom: the lines of one row joined by spaces. */
  rows: Row[];
  /** The line a word is on. */
  lineOf(word: Word): Located | undefined;
  /** Lines of the customer's or delivery block (under "Bill to", "Käufer", "Ship to"). */
  inRecipientBlock(l: Located): boolean;
  /** Whether the page was read by OCR (rather than from a text layer). */
  ocr(page: number): boolean;
  /** Text of a page as amounts and dates are read from it: OCR's slips mended on OCR'd pages (see `mendSlips`). */
  mended(page: number, text: string): string;
}

/**
 * A value a finder proposes for a field, with its evidence. The resolver weighs the candidates of
 * all finders together and turns the chosen ones into fields.
 */
export interface Candidate {
  /** A canonical field, an auxiliary one (cash tendered, rounding, ...) or `amount` for an unlabelled amount. */
  field: LabelledField | 'amount';
  value: string;
  /** 0-1: how strongly the evidence alone points to this value. */
  score: number;
  /** 0-100: how sure the text under the value is (OCR word confidence; 100 for a text layer). */
  textConfidence: number;
  /** Where and how it was found, in words ("label 'Total' on page 1, value to the right"). */
  explanation: string;
  page?: number;
  bbox?: Box;
  /** An amount's value as a number. */
  amount?: number;
  /** Page and row, to tell document order. */
  row?: number;
  /** A vendor's address names the vendor candidate it belongs to. */
  belongsTo?: string;
}

export type Finder = (ctx: FinderContext) => Candidate[];
