import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/**
 * The languages OCR reads, by their ISO 639-1 codes (as templates name them), each with its
 * tesseract model from an npm package (`@tesseract.js-data/<code>`), so nothing is downloaded.
 */
export const OCR_LANGUAGES = { en: 'eng', de: 'deu', fr: 'fra', es: 'spa', it: 'ita', nl: 'nld', pt: 'por', pl: 'pol' } as const;
export type OcrLanguage = keyof typeof OCR_LANGUAGES;

export const isOcrLanguage = (code: string): code is OcrLanguage => Object.hasOwn(OCR_LANGUAGES, code);

/** tesseract's name for a set of languages, the first the likeliest: `deu+eng`. */
export const tesseractLanguages = (languages: readonly OcrLanguage[]) => languages.map((l) => OCR_LANGUAGES[l]).join('+');

const require = createRequire(import.meta.url);
const modelFile = (code: string) => path.join(path.dirname(require.resolve(`@tesseract.js-data/${code}/package.json`)), '4.0.0_best_int', `${code}.traineddata.gz`);

/**
 * One folder holding every model, which is how tesseract.js looks for them (`langPath`): links
 * to the packages' files in a folder of the system's temporary directory named after where the
 * packages are, made once and shared by the processes of one installation.
 */
export function languageDataDir(): string {
  const files = Object.values(OCR_LANGUAGES).map((code) => [code, modelFile(code)] as const);
  const key = createHash('sha256').update(files.map(([, file]) => file).join('\n')).digest('hex').slice(0, 16);
  const dir = path.join(os.tmpdir(), `docex-tessdata-${key}`);
  mkdirSync(dir, { recursive: true });
  for (const [code, file] of files) {
    const link = path.join(dir, `${code}.traineddata.gz`);
    if (existsSync(link)) continue;
    try {
      symlinkSync(file, link);
    } catch (err) {
      // Another process of the same installation made it meanwhile.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return dir;
}
