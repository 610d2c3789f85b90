import { isKnownLabel, isRateBase, type ValueKind } from '../labels.js';
import { currencyOf, type DateOrder, ibanValid, parseAmount, parseCompactDate, parseDate } from '../normalise.js';
import { EMAIL, PHONE } from '../patterns.js';
import { isLegalFormOnly } from '../legal-forms.js';
import { MONEY } from './amounts.js';

/** A VAT identification number: a country prefix, then digits and letters ("NL815254295B01"). */
const VAT_ID = /^[A-Z]{2}\d[0-9A-Z]{7,11}$/;

export interface ReadValue {
  value: string;
  /** 0-1: how sure the reading is, apart from OCR confidence. */
  quality: number;
  note?: string;
}

/** Reads a labelled value as a field of `kind` would hold it, or null when it has not that shape. */
export function readValue(kind: ValueKind, text: string, order: DateOrder): ReadValue | null {
  const raw = text.replace(/\s+/g, ' ').trim().replace(/^[:：]\s*/, '');
  switch (kind) {
    case 'date': {
      const date = parseDate(raw, order) ?? parseCompactDate(raw);
      if (!date) return null;
      return date.ambiguous ? { value: date.value, quality: 0.8, note: `day and month could be swapped; read ${order}` } : { value: date.value, quality: 1 };
    }
    case 'amount': {
      // "on $ 112.90" beside "Tax 15%" is what the rate is taken of; the tax stands further right.
      if (!/\d/.test(raw) || parseDate(raw) || isRateBase(raw)) return null;
      const parsed = parseAmount(raw);
      // A figure inside a word ("EXCL.G5T", OCR's S read as 5) is no amount.
      const at = parsed ? raw.indexOf(parsed.matched) : -1;
      const first = parsed && /\p{L}/u.test(raw[at - 1] ?? '') && /\p{L}/u.test(raw[at + parsed.matched.length] ?? '') ? null : parsed;
      // "7) 9 0 RM 33.90": specks and counts OCR read before it; the amount with cents is the value.
      const cents = raw.match(MONEY)?.[0];
      const amount = cents && !(first && /\d[.,]\d{2}(?!\d)/.test(first.matched)) ? parseAmount(cents) : first;
      if (!amount) return null;
      // "12.30" is an amount; "3" under a "Total" column heading is more likely a count.
      return { value: amount.value, quality: /\d[.,]\d{2}(?!\d)/.test(amount.matched) ? 1 : 0.7 };
    }
    case 'id': {
      const token = raw.replace(/^(?:[#:.\s]|n[°º])+/i, '').split(' ')[0]!.replace(/[.,;]$/, '');
      if (!/\d/.test(token) || !/^[\p{L}\p{N}][\p{L}\p{N}\-/._]{0,39}$/u.test(token) || parseDate(token)) return null;
      return { value: token, quality: 1 };
    }
    case 'name': {
      const letters = raw.replace(/[^\p{L}]/gu, '').length;
      if (letters < 2 || raw.length > 100 || isKnownLabel(raw) || /^\(.*\)$/.test(raw) || /[:：]|\d{5,}/.test(raw) || isLegalFormOnly(raw) || /^\d+[.)]\s/.test(raw)) return null;
      // A name is a few words; a longer run is more likely a sentence under a "From" or "To".
      return { value: raw.replace(/[,;]$/, ''), quality: raw.split(' ').length > 6 ? 0.5 : 1 };
    }
    case 'currency': {
      const code = currencyOf(raw);
      return code ? { value: code, quality: 1 } : null;
    }
    case 'tax_id': {
      // Figures grouped for reading ("774-00-01-454", "CHE-123.456.789", "NL8152.54.295.B01") are one number; a letter after them ("933109-X") is part of its form.
      const spaced = raw.replace(/\s/g, '').toUpperCase();
      const grouped = spaced.replace(/[.-]/g, '');
      const compact = /^[A-Z]{0,4}\d{6,}$/.test(grouped) || VAT_ID.test(grouped) ? grouped : spaced;
      const digits = compact.replace(/\D/g, '').length;
      if (!/^[A-Z]{0,4}[0-9][0-9A-Z\-/.]{4,18}$/.test(compact) || digits < 6 || /^\d+[.,]\d{2}$/.test(compact)) return null;
      // A VAT identification number (country prefix, then digits) is the tax id a reader looks for first.
      return { value: compact, quality: VAT_ID.test(compact) ? 1 : 0.9 };
    }
    case 'iban': {
      const compact = raw.replace(/\s+/g, '').toUpperCase();
      if (ibanValid(compact)) return { value: compact, quality: 1, note: 'checksum valid' };
      // Printed under an IBAN label in the shape of one, it is what the document says, if doubtful.
      if (/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(compact)) return { value: compact, quality: 0.5, note: 'checksum does not verify' };
      return null;
    }
    case 'email': {
      const email = raw.match(EMAIL)?.[0];
      return email ? { value: email, quality: 1 } : null;
    }
    case 'phone': {
      const phone = raw.match(PHONE)?.[0];
      const digits = phone?.replace(/\D/g, '').length ?? 0;
      if (!phone || digits < 6 || digits > 15) return null;
      return { value: phone.replace(/\s+/g, ' ').trim(), quality: 1 };
    }
    case 'none':
      return null;
  }
}
