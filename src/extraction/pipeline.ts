import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { DocumentError } from '../errors.js';
import { enlargePage, inkShare, MAX_LONG_SIDE, turnPage } from './image.js';
import { wordsToLines } from './layout.js';
import type { OcrLanguage } from './ocr-languages.js';
import { createOcrPool } from './ocr-pool.js';
import { pageLanguage } from './page-language.js';
import { createDocumentPool, type DocumentPoolConfig, type OpenPdf } from './document-pool.js';
import { placeWords } from './pdf-pictures.js';
import { readAhead } from './read-ahead.js';
import { scheduleByInk } from './ocr-schedule.js';
import { needsSecondReading } from './second-reading.js';
import type { EInvoice } from './einvoice/read.js';
import type { Box, ContentType, DocumentText, FoundField, GrayImage, Line, PageSize, PageText, Word } from './types.js';

export interface PipelineResult {
  pages: number;
  document: DocumentText;
  fields: FoundField[];
  /** Aggregate 0-100: the mean confidence of the fields found, 0 when none was found. */
  confidence: number;
  /** Pages read by OCR rather than from a PDF text layer. */
  ocrPages: number;
  /** The invoice XML attached to the PDF (Factur-X, ZUGFeRD, XRechnung): read or why not; null when there is none. */
  eInvoice: EInvoice | null;
}

export interface ExtractionInfo {
  fileType: ContentType;
  /** Whether the pages came from a text layer, OCR, or both. */
  path: 'text' | 'ocr' | 'mixed';
  ms: number;
  pages: number;
  /** Whether its OCR page was read a second time, a key field being missing or in doubt (./second-reading.ts). */
  secondReading: boolean;
}

export interface PipelineOptions {
  onExtraction?(info: ExtractionInfo): void;
  logger?: Logger;
}

export interface Pipeline {
  /** `languages`: what OCR reads the pages in, the likeliest first; by default the server's first language, then the one a page's words show. */
  extract(input: { bytes: Buffer; contentType: ContentType; languages?: OcrLanguage[] }): Promise<PipelineResult>;
  /** True once OCR and the document workers can take work. */
  ready(): boolean;
  /** OCR jobs waiting for a worker. */
  queueDepth(): number;
  close(): Promise<void>;
}

export type PipelineConfig = Pick<Config, 'maxPages' | 'maxImagePixels' | 'ocrTimeoutMs' | 'ocrWorkers' | 'ocrQueueMax' | 'ocrLanguages'> & DocumentPoolConfig;

/** A document's pages, the fields found in them (none when they hold no text), and its invoice attachment. */
interface Read {
  pages: PageText[];
  fields: FoundField[];
  eInvoice: EInvoice | null;
}

const hasText = (pages: PageText[]) => pages.some((p) => p.lines.length);

/** Whether OCR read the page, or the pictures on its text layer: what a PDF's document worker does not have of it. */
export const readByOcr = (page: PageText) => page.source === 'ocr' || page.pictures !== undefined;

/** A page's mean word confidence, weighted by the words' letters and digits, at or above which it reads the right way up. */
const LEGIBLE = 60;
/** A turned page must read this many times as many confident characters as the page as it is. */
const TURNED_GAIN = 2;
/**
 * Turns tried, in order, on a page that does not read as it is: a landscape scan is most often a
 * portrait page fed sideways, a portrait one a page fed upside down.
 */
const turnsFor = (image: GrayImage) => (image.width > image.height ? [90, 270, 180] : [180, 90, 270]);

/** Print under this many pixels high (the median of confidently read words of three letters or digits) is read again enlarged. */
const SMALL_PRINT = 24;
const ENLARGE = 1.5;

/** The median height of the words read confidently, as a fraction of the page's height; 0 without such words. */
function medianWordHeight(words: Word[]): number {
  const heights = words.filter((w) => w.confidence > 60 && /[\p{L}\p{N}]{3}/u.test(w.text)).map((w) => w.bbox.height).sort((a, b) => a - b);
  return heights[Math.floor(heights.length / 2)] ?? 0;
}

/** Letters and digits read, each weighted by its word's confidence (0-100). */
function confidentCharacters(words: Word[]): { weighted: number; characters: number } {
  let weighted = 0;
  let characters = 0;
  for (const w of words) {
    const n = w.text.replace(/[^\p{L}\p{N}]/gu, '').length;
    weighted += n * w.confidence;
    characters += n;
  }
  return { weighted, characters };
}

/** Of two readings of a page, the one with more confident characters; the first on a tie. */
const surer = (a: PageRead, b: PageRead) => (confidentCharacters(b.words).weighted > confidentCharacters(a.words).weighted ? b : a);

const legible = (words: Word[]) => {
  const { weighted, characters } = confidentCharacters(words);
  return characters >= 20 && weighted / characters >= LEGIBLE;
};

/** A page's picture with its strokes thickened, in a document worker (thickenStrokes in ./image.ts). */
type Thicken = (image: GrayImage) => Promise<GrayImage>;

/** What OCR read on a page, and the page as it was read (turned upright when it was not). */
interface PageRead {
  words: Word[];
  image: GrayImage;
  /** What the words were read in; the pool's own languages when not set. */
  languages?: OcrLanguage[];
}

/** Degrees turned clockwise, from 0 to under 360, to a tenth of a degree. */
const clockwise = (degrees: number) => Math.round((((degrees % 360) + 360) % 360) * 10) / 10;

/**
 * A page read by OCR. A PDF page keeps its size in points (`shown`, as the PDF shows it), its
 * sides swapped when OCR turned it a quarter turn; an image's size is the picture OCR read.
 */
function ocrPage(number: number, { words, image }: PageRead, shown?: PageSize): PageText {
  const turn = image.rotation ?? 0;
  const quarter = Math.round(turn / 90) % 2 !== 0;
  const size: PageSize = shown
    ? { width: quarter ? shown.height : shown.width, height: quarter ? shown.width : shown.height, rotation: clockwise(shown.rotation + turn) }
    : { width: image.width, height: image.height, rotation: clockwise(turn) };
  return { number, source: 'ocr', lines: ocrLines(words, image), size };
}

const ocrLines = (words: Word[], image: GrayImage) => wordsToLines(words, image.height / image.width);

/** Failures from one page carry the page number and how many pages were done when it failed. */
function onPage(pageNumber: number, err: unknown, done: number): unknown {
  if (!(err instanceof DocumentError) || err.pages !== undefined) return err;
  return new DocumentError(err.code, `Page ${pageNumber}: ${err.message}`, done);
}

/** Pages read to the end: a page waiting for OCR or being read has no size yet. */
const pagesDone = (pages: PageText[]) => pages.filter((p) => p.size !== undefined).length;

/**
 * The extraction pipeline: document bytes -> page text (text layer or OCR) -> lines -> fields.
 * The OCR and document workers start here, once, and serve every extraction; this thread only
 * coordinates them, besides laying out the words OCR read.
 */
export function createPipeline(config: PipelineConfig, options: PipelineOptions = {}): Pipeline {
  const [firstLanguage] = config.ocrLanguages;
  const pool = createOcrPool({ workers: config.ocrWorkers, queueMax: config.ocrQueueMax, timeoutMs: config.ocrTimeoutMs, languages: [firstLanguage!], logger: options.logger });
  const documents = createDocumentPool(config, options.logger);

  /**
   * A page's words in the languages asked for; without any, in the server's first language and,
   * when the words show another language of the server's, again in that one (English as second
   * choice), so that its accents and umlauts come out right.
   */
  async function ocr(image: GrayImage, languages: OcrLanguage[] | undefined, continuation: boolean, thicken: Thicken): Promise<PageRead> {
    const page = await upright(image, languages, continuation, thicken);
    if (languages) return { ...page, languages };
    const shown = pageLanguage(page.words, config.ocrLanguages);
    if (!shown || shown === firstLanguage) return page;
    const read = [...new Set([shown, 'en' as const, firstLanguage!])];
    return { ...page, words: await pool.recognize(page.image, { continuation: true, languages: read }), languages: read };
  }

  /**
   * A document of one OCR page (a receipt photo, a one-page scan) whose fields leave a key one
   * missing or in doubt: its page read again for scattered words, and the fields of both readings
   * (./second-reading.ts). Should the second reading fail, the first stands.
   */
  async function readAgainIfDoubtful(read: Read, ocrRead: PageRead | undefined, fieldsOf: (pages: PageText[]) => Promise<Read>): Promise<Read> {
    const index = read.pages.findIndex((p) => p.source === 'ocr');
    const single = index !== -1 && read.pages.filter((p) => p.source === 'ocr').length === 1;
    if (!ocrRead || !single || !hasText(read.pages) || !needsSecondReading(read.fields)) return read;
    let words: Word[];
    try {
      words = await pool.recognize(ocrRead.image, { continuation: true, languages: ocrRead.languages, layout: 'sparse' });
    } catch (err) {
      options.logger?.warn({ err }, 'second OCR reading failed; the first stands');
      return read;
    }
    const pages = read.pages.map((p, i) => (i === index ? { ...p, reread: ocrLines(words, ocrRead.image) } : p));
    return fieldsOf(pages);
  }

  /**
   * A page levelled for its tilt, read as levelled and, since a curled receipt photo has no single
   * tilt and resampling blurs thin print, as it came too: the reading with more confident
   * characters is kept. An untilted page is read once.
   */
  async function levelledOrNot({ unlevelled, ...image }: GrayImage, languages: OcrLanguage[] | undefined, continuation: boolean): Promise<PageRead> {
    const levelled: PageRead = { words: await pool.recognize(image, { continuation, languages }), image };
    if (!unlevelled) return levelled;
    const words = await pool.recognize(unlevelled, { continuation: true, languages });
    return surer(levelled, { words, image: unlevelled });
  }

  /**
   * A page read the right way up: as it is when it reads well, else with its strokes thickened
   * (faint or dot-matrix print) when that reads more, else turned a half or quarter turn at a time
   * until a turn reads well and far better than the page as it is. A faint or crumpled photo
   * reads poorly every way up, a little better turned now and then: it stays as it is.
   */
  async function upright(levelled: GrayImage, languages: OcrLanguage[] | undefined, continuation: boolean, thicken: Thicken): Promise<PageRead> {
    const asIs = await largerIfSmall(await levelledOrNot(levelled, languages, continuation), languages);
    if (legible(asIs.words)) return asIs;
    const { image } = asIs;
    const read = confidentCharacters(asIs.words).weighted;
    const thick = await thicker(image, languages, thicken);
    const best = thick ? surer(asIs, thick) : asIs;
    if (legible(best.words)) return best;
    for (const degrees of turnsFor(image)) {
      const turned = await turnPage(image, degrees);
      const words = await pool.recognize(turned, { continuation: true, languages });
      if (legible(words) && confidentCharacters(words).weighted > TURNED_GAIN * read) return { words, image: turned };
    }
    return best;
  }

  /**
   * A page whose print came out small (a till slip photographed or scanned whole on a large
   * sheet) read again enlarged, the reading with more confident characters kept. Tesseract reads
   * best with capitals some 20 to 40 pixels high; enlarging larger print loses more than it gains.
   */
  async function largerIfSmall(page: PageRead, languages: OcrLanguage[] | undefined): Promise<PageRead> {
    const height = medianWordHeight(page.words) * page.image.height;
    const factor = Math.min(ENLARGE, MAX_LONG_SIDE / Math.max(page.image.width, page.image.height));
    if (!height || height >= SMALL_PRINT || factor <= 1) return page;
    const image = await enlargePage(page.image, factor);
    const words = await pool.recognize(image, { continuation: true, languages });
    return surer(page, { words, image });
  }

  /**
   * The page read with its strokes thickened, or null when that fails: the page as it is stands.
   * Thin, faint till print and dot-matrix dots break apart when tesseract binarises them; on the
   * 120 `sroie-dev` receipts, the pages that read poorly (under the legible confidence) read
   * with thickened strokes where that reads more took OCR word recall from 81.9% to 83.1%, and
   * the fields right from 405 to 414. Clean pages are not read again: thickening closes the
   * counters of small letters and joins figures to their decimal points.
   */
  async function thicker(image: GrayImage, languages: OcrLanguage[] | undefined, thicken: Thicken): Promise<PageRead | null> {
    try {
      const thick = await thicken(image);
      return { words: await pool.recognize(thick, { continuation: true, languages }), image: thick };
    } catch (err) {
      options.logger?.warn({ err }, 'the page with thickened strokes was not read; the page as it is stands');
      return null;
    }
  }

  /**
   * A text-layer page's lines with the words OCR reads in its pictures (a letterhead or footer set
   * as an image: the company's name, address, bank details), where the text layer has none; null
   * when the pictures add nothing. A photo is not read. A picture is a bonus: one OCR cannot take now (a full queue)
   * or fails to read is passed over, and the page stands as its text layer has it.
   */
  async function readPictures(pdf: OpenPdf, pageNumber: number, lines: Line[], pictures: Box[], languages: OcrLanguage[] | undefined): Promise<Line[] | null> {
    const textWords = lines.flatMap((l) => l.words);
    const added: Word[] = [];
    for (const area of pictures) {
      try {
        const image = await pdf.renderArea(pageNumber, area);
        if (image) added.push(...placeWords(await pool.recognize(image, { languages }), area, textWords));
      } catch (err) {
        options.logger?.warn({ err, page: pageNumber }, 'a picture on a text page was not read');
      }
    }
    return added.length ? wordsToLines([...textWords, ...added]) : null;
  }

  /**
   * A PDF's pages: text layers as they are, other pages rendered one after another in the
   * document's worker and read by OCR side by side, as many at once as there are OCR workers, the
   * densest of those rendered ahead first (./ocr-schedule.ts).
   * Only the document's first OCR page may be refused for a full queue; once it is admitted the
   * rest follow, and a page that fails stops the pages not yet started.
   */
  async function readPdf(bytes: Buffer, languages: OcrLanguage[] | undefined): Promise<Read> {
    const pdf = await documents.openPdf(bytes);
    const textLayer = readAhead(pdf.pageCount, (n) => pdf.lines(n));
    const pages: PageText[] = [];
    let started = 0;
    let failure: { error: unknown } | null = null;
    let ocrRead: PageRead | undefined;
    const schedule = scheduleByInk<{ number: number; at: number; image: GrayImage; size: PageSize }>(
      config.ocrWorkers,
      ({ number, at, image, size }) => {
        started += 1;
        return ocr(image, languages, started > 1, pdf.thicken).then(
          (read) => {
            ocrRead = read;
            pages[at] = ocrPage(number, read, size);
          },
          (err: unknown) => void (failure ??= { error: onPage(number, err, pagesDone(pages)) }),
        );
      },
      () => failure !== null,
      ({ image }) => inkShare(image),
    );
    try {
      for (let n = 1; n <= pdf.pageCount && !failure; n += 1) {
        try {
          const { lines, size, pictures } = await textLayer(n);
          if (lines) {
            const withPictures = await readPictures(pdf, n, lines, pictures, languages);
            pages.push({ number: n, source: 'text_layer', lines: withPictures ?? lines, size, ...(withPictures ? { pictures: pictures.length } : {}) });
            continue;
          }
          const image = await pdf.render(n);
          const at = pages.length;
          pages.push({ number: n, source: 'ocr', lines: [] });
          await schedule.add({ number: n, at, image, size });
        } catch (err) {
          failure ??= { error: onPage(n, err, pagesDone(pages)) };
        }
      }
      await schedule.finish();
      if (failure) throw failure.error;
      if (!hasText(pages)) return { pages, fields: [], eInvoice: null };
      const fieldsOf = async (read: PageText[]): Promise<Read> => ({ pages: read, ...(await pdf.fields(read.filter(readByOcr))) });
      return await readAgainIfDoubtful(await fieldsOf(pages), ocrRead, fieldsOf);
    } finally {
      await pdf.close();
    }
  }

  async function readImage(bytes: Buffer, languages: OcrLanguage[] | undefined): Promise<Read> {
    const read = await ocr(await documents.prepareImage(bytes), languages, false, documents.thicken);
    const fieldsOf = async (pages: PageText[]): Promise<Read> => ({ pages, fields: hasText(pages) ? await documents.fields({ pages }) : [], eInvoice: null });
    return readAgainIfDoubtful(await fieldsOf([ocrPage(1, read)]), read, fieldsOf);
  }

  return {
    async extract({ bytes, contentType, languages }) {
      const started = performance.now();
      const { pages, fields, eInvoice } = contentType === 'application/pdf' ? await readPdf(bytes, languages) : await readImage(bytes, languages);
      if (!hasText(pages)) {
        throw new DocumentError('no_text_found', 'No text was found in the document, neither in a text layer nor by OCR.', pages.length);
      }
      const document: DocumentText = { pages };
      const ocrPages = pages.filter((p) => p.source === 'ocr').length;
      const confidence = fields.length ? Math.round(fields.reduce((sum, f) => sum + f.confidence, 0) / fields.length) : 0;
      options.onExtraction?.({
        fileType: contentType,
        path: ocrPages === 0 ? 'text' : ocrPages === pages.length ? 'ocr' : 'mixed',
        ms: performance.now() - started,
        pages: pages.length,
        secondReading: pages.some((p) => p.reread !== undefined),
      });
      return { pages: pages.length, document, fields, confidence, ocrPages, eInvoice };
    },
    ready: () => pool.ready() && documents.ready(),
    queueDepth: () => pool.queueDepth(),
    async close() {
      await Promise.all([pool.close(), documents.close()]);
    },
  };
}
