import { ibanValid } from '../normalise.js';
import { EMAIL, IBAN, IBAN_ANYWHERE, INTERNATIONAL_PHONE, NORTH_AMERICAN_PHONE } from '../patterns.js';
import { spanOf } from './words.js';
import type { Candidate, Finder, Located } from './types.js';

function at(located: Located, match: RegExpMatchArray) {
  return { ...spanOf(located.line, match.index!, match.index! + match[0].length), page: located.page, row: located.line.row };
}

/** IBANs by their shape and checksum, wherever they are printed. */
export const ibans: Finder = (ctx) =>
  ctx.lines.flatMap((located) =>
    [...located.line.text.matchAll(IBAN)].flatMap((match): Candidate[] => {
      const compact = match[0].replace(/\s+/g, '');
      if (!ibanValid(compact)) return [];
      return [{ field: 'iban', value: compact, score: 0.85 * (ctx.inRecipientBlock(located) ? 0.6 : 1), explanation: `IBAN pattern on page ${located.page} (checksum valid)`, ...at(located, match) }];
    }),
  );

/** E-mail addresses and phone numbers of an international or North American shape outside the customer's block. */
export const contacts: Finder = (ctx) => {
  const out: Candidate[] = [];
  for (const located of ctx.lines) {
    if (ctx.inRecipientBlock(located)) continue;
    const text = located.line.text;
    if (text.includes('@')) {
      for (const match of text.matchAll(EMAIL)) out.push({ field: 'email', value: match[0], score: 0.8, explanation: `e-mail address pattern on page ${located.page}`, ...at(located, match) });
    }
    if (IBAN_ANYWHERE.test(text)) continue;
    for (const match of text.matchAll(INTERNATIONAL_PHONE)) {
      const digits = match[0].replace(/\D/g, '').length;
      if (digits >= 8 && digits <= 15) out.push({ field: 'phone', value: match[0].replace(/\s+/g, ' ').trim(), score: 0.65, explanation: `international phone number pattern on page ${located.page}`, ...at(located, match) });
    }
    for (const match of text.matchAll(NORTH_AMERICAN_PHONE)) {
      out.push({ field: 'phone', value: match[0], score: 0.6, explanation: `North American phone number pattern on page ${located.page}`, ...at(located, match) });
    }
  }
  return out;
};
