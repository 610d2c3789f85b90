/** Plain data passed between the pipeline stages: input -> pages -> text -> layout -> fields. */

export type ContentType = 'application/pdf' | 'image/jpeg' | 'image/png' | 'image/webp';

/** A box as fractions (0-1) of its page's width and height, from the top-left corner. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Word {
  text: string;
  /** 0-100; 100 for words from a PDF text layer. */
  confidence: number;
  bbox: Box;
  /**
   * OCR: the text line tesseract read the word on (numbered within its page). Tesseract follows a
   * tilted or curled line that boxes alone would mix with the line under it.
   */
  ocrLine?: number;
}

/** A run of words on one visual row; a wide gap (a column break) starts a new line on the same row. */
export interface Line {
  text: string;
  /** The visual row of the page the line sits on, from 0 top to bottom; lines of one row share it. */
  row: number;
  words: Word[];
  bbox: Box;
  confidence: number;
}

/** A page's size as read: PDF points for a PDF page (its rotation applied), pixels for an image. */
export interface PageSize {
  width: number;
  height: number;
  /**
   * Clockwise degrees, 0 to under 360, the page was turned before it was read: the rotation a PDF
   * asks its page to be shown with, and for a scan the turn that made its text upright and level.
   */
  rotation: number;
}

export interface PageText {
  /** From 1. */
  number: number;
  /** How the text was obtained. */
  source: 'text_layer' | 'ocr';
  lines: Line[];
  /** Known for pages the pipeline read; the boxes are fractions of it. */
  size?: PageSize;
  /**
   * OCR: the page read a second way (see ./second-reading.ts), when the first reading left a
   * document's key fields in doubt. `lines` holds whichever reading is surer of its characters.
   */
  reread?: Line[];
  /** A text-layer page: how many of its pictures OCR read, their words added to `lines` (./pdf-pictures.ts). */
  pictures?: number;
}

export interface DocumentText {
  pages: PageText[];
}

/** One extracted field before it is numbered and stored. */
export interface FoundField {
  field: string;
  value: string;
  confidence: number;
  explanation: string;
  page?: number;
  bbox?: Box;
}

/** A page image for OCR: 8-bit grayscale, encoded as binary PGM (P5), which needs no compression work. */
export interface GrayImage {
  width: number;
  height: number;
  pgm: Buffer;
  /** Degrees the page was turned clockwise to level its text: a skew correction, plus a quarter or half turn. */
  rotation?: number;
  /** The page as it came, when it was levelled: a curled photo has no single tilt and may read better unturned. */
  unlevelled?: GrayImage;
}

/** A label and the value that belongs to it, found by their positions on one page. */
export interface LabelValue {
  label: string;
  value: string;
  /** Where the value sits relative to its label. */
  position: 'right' | 'below';
  page: number;
  valueWords: Word[];
  valueBox: Box;
  /** Mean confidence of the label's and value's words, 0-100. */
  confidence: number;
}
